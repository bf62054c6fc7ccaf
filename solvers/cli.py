"""`convexcheck solve FILE --data DATA.npz`: verdict, iterations, solution file.

Exit status: 0 converged; 1 stopped without converging (iteration limit, failed line
search, no minimiser, infeasible constraints); 2 bad input (the message names the file,
array or option); 130 interrupted.
"""
from __future__ import annotations

import argparse
import json
import math
import re

import numpy as np

from convexcheck import load_problem
from solvers.api import METHODS, minimize
from solvers.methods.alternate import alternate
from solvers.task.device import DEVICES
from solvers.task.files import STATUS, check_out, read_npz, write_npz
from solvers.task.prepare import SolverError
from tensorcalc.options import blocks, finite, whole

MAX_ITER = 10_000_000    # as `solvers.minimize` accepts
EPILOG = ("exit status: 0 converged, 1 stopped without converging (or no minimiser, or infeasible), "
          "2 bad input. "
          "example: convexcheck solve examples/logistic_regression.tc --data data.npz --out w.npz")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `solve` on the subcommands of the convexcheck parser."""
    run = sub.add_parser("solve", help="solve a problem file with data from an .npz file",
                         description="Check convexity, then minimise (or maximise) the objective "
                                     "over the variables not given in the data.", epilog=EPILOG)
    run.add_argument("file", metavar="FILE", help="the problem file (.tc)")
    run.add_argument("--data", metavar="DATA.npz", help="parameter arrays by name (np.savez); a "
                     "variable given here is held fixed")
    run.add_argument("--x0", metavar="X0.npz", help="starting point by variable name (default zeros, "
                     "moved inside declared bounds)")
    run.add_argument("--method", choices=[*METHODS, "auto"], default="newton",
                     help="default newton; auto picks one from the problem's structure (newton, the "
                          "interior-point method under constraints, while the Hessian is small)")
    run.add_argument("--blocks", type=blocks, metavar="U,V", help="block-coordinate Newton over these variable "
                     "blocks in turn (comma-separated; use + to group, e.g. U+W,V)")
    run.add_argument("--device", choices=DEVICES, default="cpu", help="default cpu")
    run.add_argument("--gtol", type=finite(0.0), default=1e-8, help="stop when max|g| <= GTOL (default 1e-8)")
    run.add_argument("--tol", type=finite(0.0), default=1e-12,
                     help="and the Newton decrement lambda^2/2 <= TOL (default 1e-12)")
    run.add_argument("--max-iter", type=whole(0, MAX_ITER), default=None,
                     help=f"iteration (or sweep) limit, 0 to {MAX_ITER}")
    run.add_argument("--out", metavar="SOLUTION.npz", help="write the solution arrays here, with "
                     "solve.status, solve.success, solve.message, solve.iterations, solve.fun, "
                     "solve.constr_violation and solve.multipliers.LABEL; checked before solving "
                     "(never an input file, a folder or a pipe)")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument("--no-check", action="store_true", help="skip the convexity check")


def run(args: argparse.Namespace) -> int:
    if args.out is not None:
        check_out(args.out, {"problem file": args.file, "--data file": args.data})   # --x0: resume
    problem = load_problem(args.file)
    data = read_npz(args.data, "--data") if args.data is not None else {}
    x0 = read_npz(args.x0, "--x0") if args.x0 is not None else None
    result = _solve(args, problem, data, x0)
    if args.out is not None:
        write_npz(args.out, _solution(result))
    print(json.dumps(_to_json(result, args.out), indent=2) if args.json else _summary(result, args.out))
    return 0 if result.success else 1


def _solve(args, problem, data, x0):
    try:
        return _solve_arrays(args, problem, data, x0)
    except SolverError as err:
        raise SolverError(_cli_words(str(err), args)) from None


def _cli_words(message: str, args) -> str:
    """The API's names for the arrays (data['y'], x0['w']) as the command line gave them."""
    for what, option, path in (("data", "--data", args.data), ("x0", "--x0", args.x0)):
        if path is not None:
            message = re.sub(rf"\b{what}\[('[^']*')\]", rf"array \1 of {option} {path}", message)
    return message


def _solve_arrays(args, problem, data, x0):
    verbose = not args.json
    if verbose:
        print(f"solving {args.file} with {'block Newton' if args.blocks else args.method} on {args.device}")
    if args.blocks:
        blocks = [b.split("+") for b in args.blocks.split(",") if b]
        sweeps = 100 if args.max_iter is None else args.max_iter
        return alternate(problem, blocks, x0=x0, data=data, sweeps=sweeps, tol=args.tol, gtol=args.gtol,
                         device=args.device, verbose=verbose, check=not args.no_check)
    return minimize(problem, x0=x0, method=args.method, device=args.device, tol=args.tol,
                    max_iter=args.max_iter, verbose=verbose, data=data, gtol=args.gtol,
                    check=not args.no_check)


def _solution(result) -> dict[str, np.ndarray]:
    """The solution arrays and, beside them, how the solve ended (STATUS entries)."""
    status = {"status": int(result.status), "success": bool(result.success),
              "message": str(result.message), "iterations": int(result.nit), "fun": float(result.fun)}
    if "constr_violation" in result:           # block Newton keeps no constraints
        status["constr_violation"] = float(result.constr_violation)
        status.update({f"multipliers.{label}": value for label, value in result.multipliers.items()})
    return {**result.x, **{STATUS + key: np.array(value) for key, value in status.items()}}


def _summary(result, out: str | None) -> str:
    lines = [f"convexity: {_convexity(result.convexity)}"]
    if result.warning:
        lines.append(f"warning: {result.warning}")
    lines += [f"status {result.status}: {result.message}",
              f"objective: {result.fun:.15g}   iterations: {result.nit}   time: {result.time_s:.3f} s"]
    if result.get("lifted"):
        lines.append(f"kinks lifted into epigraph variables (solved smooth): {', '.join(result.lifted)}")
    if result.get("multipliers"):
        lines.append(f"largest constraint violation: {result.constr_violation:.3g}")
        lines += [f"multiplier of {label}: {_short(value)}" for label, value in result.multipliers.items()]
    for name, value in result.x.items():
        lines.append(f"{name}: shape {value.shape}, first entries {np.round(value.ravel()[:5], 6).tolist()}")
    if out:
        lines.append(f"solution written to {out}")
    return "\n".join(lines)


def _short(value) -> str:
    value = np.asarray(value)
    if value.ndim == 0:
        return f"{float(value):.6g}"
    return f"shape {value.shape}, first entries {np.round(value.ravel()[:5], 6).tolist()}"


def _convexity(verdict) -> str:
    if isinstance(verdict, dict):
        return ", ".join(f"in {b}: {v}" for b, v in verdict.items())
    return verdict


def _to_json(result, out: str | None) -> dict:
    def num(x: float) -> float | None:
        return float(x) if math.isfinite(x) else None
    return {"status": int(result.status), "success": bool(result.success), "message": result.message,
            "fun": num(result.fun), "nit": int(result.nit), "convexity": result.convexity,
            "warning": result.warning, "method": result.method, "device": result.device,
            "time_s": result.time_s, "out": out,
            "x": ({n: v.tolist() for n, v in result.x.items()}
                  if sum(v.size for v in result.x.values()) <= 1000 else None),
            "max_abs_jac": {n: float(np.abs(v).max()) if v.size else 0.0 for n, v in result.jac.items()},
            "constr_violation": num(result.get("constr_violation", 0.0)),
            "multipliers": {k: np.asarray(v).tolist() for k, v in result.get("multipliers", {}).items()},
            "lifted": list(result.get("lifted", [])),
            "history": [it.to_dict() for it in result.history]}
