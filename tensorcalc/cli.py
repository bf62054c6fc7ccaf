"""The `tensorcalc` command: differentiate an input given as text or as a file.

Exit status: 0 done (and, with --check, the error is within --tol); 1 the check found an
error over --tol; 2 bad input (the message names line and column; no traceback).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from . import dag
from .options import finite, identifier, whole
from .check import check_derivative, derivative_chain
from .errors import TensorCalcError
from .infer import parse

MAX_FILE = 8_000_000
MAX_POINTS = 1000   # each point costs finite differences in every entry of the variable


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorcalc", description="Symbolic derivatives of tensor expressions.",
        epilog="example: tensorcalc diff \"declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x "
               "derivative wrt x\" --order 2 --check")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    diff = sub.add_parser("diff", help="print the derivative of an input",
                          description="Print the derivative named by 'derivative wrt NAME'.")
    diff.add_argument("input", metavar="TEXT_OR_FILE",
                      help="the input text ('declare ... expression ... derivative wrt NAME'), "
                           "a path to a file holding it, or - for standard input")
    diff.add_argument("--order", type=whole(0, dag.MAX_ORDER), default=1,
                      help=f"derivative order, 0 to {dag.MAX_ORDER} (default 1)")
    diff.add_argument("--wrt", type=identifier, help="differentiate with respect to this variable instead")
    diff.add_argument("--check", action="store_true",
                      help="compare every order 1..k with central finite differences of the order "
                           "below at random points (entries of both signs where the domain allows)")
    diff.add_argument("--seed", type=whole(0), default=0, help="random seed for --check, >= 0 (default 0)")
    diff.add_argument("--points", type=whole(1, MAX_POINTS), default=3,
                      help=f"random points for --check, 1 to {MAX_POINTS} (default 3)")
    diff.add_argument("--tol", type=finite(0.0), default=1e-6,
                      help="largest relative error --check accepts (default 1e-6)")
    diff.add_argument("--raw", action="store_true",
                      help="print the unsimplified reverse-mode result, as in the thesis")
    diff.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def read_input(arg: str) -> str:
    """The text of TEXT_OR_FILE: standard input for '-', a file's content, or arg itself."""
    if arg == "-":
        return sys.stdin.read(MAX_FILE + 1)
    if os.path.isfile(arg):
        if os.path.getsize(arg) > MAX_FILE:
            raise TensorCalcError(f"{arg}: file is over {MAX_FILE:,} bytes")
        try:
            with open(arg, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError) as err:
            raise TensorCalcError(f"{arg}: cannot read the file ({err})") from None
    if arg.endswith(".tc") and "\n" not in arg and " " not in arg:
        raise TensorCalcError(f"{arg}: no such file")
    return arg


def _diff(args: argparse.Namespace) -> int:
    inp = parse(read_input(args.input))
    wrt = args.wrt or inp.wrt
    if wrt is None:
        raise TensorCalcError("the input names no variable: add 'derivative wrt NAME' or pass --wrt NAME")
    if wrt not in inp.declared:
        raise TensorCalcError(f"--wrt {wrt}: not declared (declared: {', '.join(inp.orders)})")
    chain = derivative_chain(inp.expr, inp.declared[wrt], args.order, simplify=not args.raw)
    result = chain[-1]                                    # what is printed is what is checked
    report = {"expression": str(inp.expr), "wrt": wrt, "order": args.order,
              "derivative": str(result), "nodes": dag.count_nodes(result)}
    status = 0
    if args.check and args.order >= 1:
        report["check"] = _check(inp, wrt, chain, args)
        status = 0 if report["check"]["passed"] else 1
    _print(report, args.json)
    return status


def _check(inp, wrt: str, chain: list, args: argparse.Namespace) -> dict:
    """Every order 1..k at --points points (seeds --seed, --seed + 1, ...)."""
    results = [check_derivative(inp.expr, inp.declared[wrt], args.order, seed=args.seed + k,
                                variables=inp.declared, simplify=not args.raw, chain=chain)
               for k in range(args.points)]
    worst = max(results, key=lambda r: r.error)
    return {"max_error": worst.error, "order": worst.order, "points": args.points, "tol": args.tol,
            "errors_by_order": [max(r.errors[j] for r in results) for j in range(args.order)],
            "signed_points": sum(r.signed for r in results),
            "lengths": worst.printed_lengths(), "passed": worst.error <= args.tol}


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report, indent=2))
        return
    print(report["derivative"])
    check = report.get("check")
    if check:
        verdict = "ok" if check["passed"] else f"FAILED (tolerance {check['tol']:g})"
        orders = "order 1" if len(check["errors_by_order"]) == 1 else f"orders 1 to {len(check['errors_by_order'])}"
        signed, points = check["signed_points"], check["points"]
        signs = ("entries of both signs" if signed == points else "positive entries (the function's domain "
                 "needs them)" if not signed else f"entries of both signs at {signed} of them")
        print(f"# finite-difference check of {orders} at {points} random point(s), {signs}: "
              f"max relative error {check['max_error']:.2e} (order {check['order']}) {verdict}", file=sys.stderr)


def guarded(prog: str, action, args) -> int:
    """Run `action(args)`; bad input becomes 'PROG: error: ...' on stderr and exit status 2
    (no traceback), an interrupt 130, a closed output pipe (`| head`) a quiet 0."""
    try:
        return action(args)
    except TensorCalcError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except (RecursionError, MemoryError) as err:
        print(f"{prog}: error: the input is too large to handle ({type(err).__name__})", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


def main(argv: list[str] | None = None) -> int:
    return guarded("tensorcalc", _diff, _parser().parse_args(argv))

if __name__ == "__main__":
    sys.exit(main())
