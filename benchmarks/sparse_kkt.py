"""Sparse KKT systems of the QP interior-point path: per-iteration cost against nonzeros.

    python benchmarks/sparse_kkt.py [--only box,trend,control,kalman] [--sizes small|default|large]
                                    [--dense] [--threads 1] [--save] [--table FILE ...]

For l1 trend filtering, CVXPY's optimal-control example, a box QP (the issue's: H = diag +
F'F, dense) and the robust Kalman smoother at several sizes, it solves each problem with
`solvers.minimize(problem, method="auto")` (the warm call: the same problem object a second
time) and with CVXPY + Clarabel (warm), and prints which path the QP interior point took
(sparse: `numerics.sparse`; elim, lowrank, dense: the dense factors; general: the problem
is not a QP or the QP path handed it to `pathfollow`), the nonzeros of K (the system
factored, both triangles: n^2 on the dense paths, |R|^2 for elim's Schur complement) and
of its factor L (below the diagonal), the iterations, the time per
iteration and in all, and the objective's relative difference from Clarabel's. `--dense`
also runs each QP with the sparse path switched off (its per-iteration time on the same
problem). Only with --save are the table (benchmarks/RESULTS_sparse_kkt.md, naming the
commit) and the log-log plot of time per iteration against nonzeros
(benchmarks/RESULTS_sparse_kkt.png, shown in docs/sparse-kkt.md) written; --table reads
the rows from tables it printed before (to merge runs) instead of measuring.
"""
from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parent.parent
if sys.path and pathlib.Path(sys.path[0] or ".").resolve() == ROOT / "benchmarks":
    sys.path[0] = str(ROOT)

import cvxpy as cp  # noqa: E402

import solvers  # noqa: E402
from solvers.constrained import qp  # noqa: E402
from solvers.numerics import sparse  # noqa: E402

MD, PNG = ROOT / "benchmarks" / "RESULTS_sparse_kkt.md", ROOT / "benchmarks" / "RESULTS_sparse_kkt.png"
SIZES = {"small": {"trend": [200, 500], "control": [50, 100], "box": [200, 500], "kalman": [20]},
         "default": {"trend": [500, 1000, 2000, 4000], "control": [50, 100, 200], "box": [500, 1000, 2000],
                     "kalman": [50, 200, 1000]},
         "large": {"trend": [1000, 2000, 4000, 8000, 16000], "control": [100, 200, 400], "box": [1000, 2000],
                   "kalman": [100, 200]}}


# ----------------------------------------------------------------------------- problems

def trend(n: int) -> cp.Problem:
    """CVXPY's l1 trend filtering: 0.5 |y - x|^2 + lam |D2 x|_1."""
    rng = np.random.default_rng(40)
    y = np.cumsum(rng.normal(size=n)) + rng.normal(size=n)
    D = sp.diags([np.ones(n - 2), -2 * np.ones(n - 2), np.ones(n - 2)], [0, 1, 2], shape=(n - 2, n)).tocsr()
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(y - x) + 50.0 * cp.norm(D @ x, 1)))


def control(T: int, n: int = 8, m: int = 2) -> cp.Problem:
    """CVXPY's control example: linear dynamics, quadratic costs, |u_t|_inf <= 1."""
    rng = np.random.default_rng(4)
    A, B = np.eye(n) - 0.2 * rng.uniform(size=(n, n)), rng.normal(size=(n, m))
    x_0 = 3 * rng.normal(size=n)
    x, u = cp.Variable((n, T + 1), name="x"), cp.Variable((m, T), name="u")
    cost, constr = 0, []
    for t in range(T):
        cost += cp.sum_squares(x[:, t + 1]) + cp.sum_squares(u[:, t])
        constr += [x[:, t + 1] == A @ x[:, t] + B @ u[:, t], cp.norm(u[:, t], "inf") <= 1]
    return cp.Problem(cp.Minimize(cost), constr + [x[:, T] == 0, x[:, 0] == x_0])


def box(n: int) -> cp.Problem:
    """The issue's box QP: H = diag(d) + F'F with F 20 x n (dense), -1 <= x <= 1."""
    rng = np.random.default_rng(11)
    F = rng.normal(size=(20, n)) / np.sqrt(n)
    d, q = rng.uniform(0.5, 2.0, size=n), rng.normal(size=n) * 2
    x = cp.Variable(n, name="x")
    objective = 0.5 * cp.sum(cp.multiply(d, cp.square(x))) + 0.5 * cp.sum_squares(F @ x) + q @ x
    return cp.Problem(cp.Minimize(objective), [x >= -1, x <= 1])


def kalman(T: int) -> cp.Problem:
    """CVXPY's robust Kalman smoother (huber loss on the measurement errors)."""
    rng = np.random.default_rng(44)
    delt, gamma = 0.05, 0.05
    A = np.array([[1, 0, (1 - gamma * delt / 2) * delt, 0], [0, 1, 0, (1 - gamma * delt / 2) * delt],
                  [0, 0, 1 - gamma * delt, 0], [0, 0, 0, 1 - gamma * delt]])
    B = np.array([[delt ** 2 / 2, 0], [0, delt ** 2 / 2], [delt, 0], [0, delt]])
    C = np.array([[1, 0, 0, 0], [0, 1, 0, 0]])
    y = np.cumsum(rng.normal(size=(2, T)), axis=1) + rng.normal(size=(2, T))
    x, w, v = cp.Variable((4, T + 1), name="x"), cp.Variable((2, T), name="w"), cp.Variable((2, T), name="v")
    constr = []
    for t in range(T):
        constr += [x[:, t + 1] == A @ x[:, t] + B @ w[:, t], y[:, t] == C @ x[:, t] + v[:, t]]
    return cp.Problem(cp.Minimize(cp.sum_squares(w) + 2.0 * cp.sum(cp.huber(v, 2.0))), constr)


BUILDERS = {"trend": trend, "control": control, "box": box, "kalman": kalman}


# ----------------------------------------------------------------------------- measuring

class Probe:
    """Wraps `qp._loop` to record the path, the nonzeros and the loop's time and iterations."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.real = qp._loop

    def __call__(self, ip, mth, it, max_iter, sign, history):
        start = time.perf_counter()
        result = self.real(ip, mth, it, max_iter, sign, history)
        seconds = time.perf_counter() - start
        self.rows.append({"path": _path(mth), **_nonzeros(mth), "iterations": len(history),
                          "per_iteration": seconds / max(len(history), 1), "qp_result": result is not None})
        return result


def _path(mth) -> str:
    if mth.pattern is not None:
        return "sparse"
    return "elim" if mth.elim is not None else "lowrank" if not hasattr(mth.qp.H, "shape") else "dense"


def _nonzeros(mth) -> dict:
    if mth.pattern is not None:
        upper, factor = sparse.nonzeros(mth.pattern)
        diagonal = mth.pattern.upper.shape[0]
        return {"nnz_K": 2 * upper - diagonal, "nnz_L": factor}
    n = mth.elim.R.size if mth.elim is not None else mth.qp.q.shape[0]     # elim: the dense Schur complement
    return {"nnz_K": n * n, "nnz_L": n * (n - 1) // 2}


def ours(problem: cp.Problem, sparse_on: bool) -> dict:
    """The warm call of `minimize` (the second on this problem object), probed."""
    probe = Probe()
    worth = sparse.worth
    qp._loop = probe
    if not sparse_on:
        sparse.worth = lambda *a: False
    try:
        solvers.minimize(problem, method="auto")
        probe.rows.clear()
        start = time.perf_counter()
        result = solvers.minimize(problem, method="auto")
        seconds = time.perf_counter() - start
    finally:
        qp._loop, sparse.worth = probe.real, worth
    row = probe.rows[-1] if probe.rows and probe.rows[-1]["qp_result"] else {"path": "general"}
    return {**row, "total": seconds, "status": int(result.status), "f": float(result.fun)}


def clarabel(problem: cp.Problem) -> dict:
    """CVXPY + Clarabel at tight tolerances: the warm call's time and the optimum."""
    options = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
    problem.solve(solver=cp.CLARABEL, **options)
    start = time.perf_counter()
    problem.solve(solver=cp.CLARABEL, **options)
    return {"cvxpy_warm": time.perf_counter() - start, "f_ref": float(problem.value)}


def measure(kind: str, size: int, dense: bool) -> list[dict]:
    build = BUILDERS[kind]
    ref = clarabel(build(size))
    modes = [True, False] if dense else [True]
    rows = []
    for on in modes:
        row = {"case": kind, "size": size, **ours(build(size), on), **ref}
        row["rel"] = abs(row["f"] - row["f_ref"]) / max(1.0, abs(row["f_ref"]))
        row["mode"] = "auto" if on else "sparse off"
        rows.append(row)
        print(line(row), flush=True)
    return rows


# ----------------------------------------------------------------------------- output

HEADER = ("| case | size | mode | path | nnz K | nnz L | iterations | ms / iteration | total s | CVXPY warm s "
          "| ratio | status | rel. f |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def line(row: dict) -> str:
    def num(key: str, fmt: str) -> str:
        return format(row[key], fmt) if key in row else "-"
    per = format(1e3 * row["per_iteration"], ".2f") if "per_iteration" in row else "-"
    return (f"| {row['case']} | {row['size']} | {row['mode']} | {row['path']} | {num('nnz_K', ',')} "
            f"| {num('nnz_L', ',')} | {num('iterations', 'd')} | {per} | {row['total']:.3f} "
            f"| {row['cvxpy_warm']:.3f} | {row['total'] / row['cvxpy_warm']:.1f} | {row['status']} "
            f"| {row['rel']:.1e} |")


def parse(text: str) -> list[dict]:
    """The rows of tables this script printed (`line`), read back: runs too long for one
    sitting (the sparse-off control runs take the general path, minutes each) are merged
    with --table."""
    rows = []
    for raw in text.splitlines():
        cells = [c.strip() for c in raw.strip().strip("|").split("|")]
        if len(cells) != 13 or not cells[1].isdigit():
            continue
        case, size, mode, path, nnz_k, nnz_l, its, per, total, warm, _, status, rel = cells
        row = {"case": case, "size": int(size), "mode": mode, "path": path, "total": float(total),
               "cvxpy_warm": float(warm), "status": int(status), "rel": float(rel)}
        if per != "-":
            row.update(nnz_K=int(nnz_k.replace(",", "")), nnz_L=int(nnz_l.replace(",", "")), iterations=int(its),
                       per_iteration=float(per) / 1e3)
        rows.append(row)
    return rows


def plot(rows: list[dict], png: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for (kind, mode), marker in zip(sorted({(r["case"], r["mode"]) for r in rows if "nnz_K" in r}), "osD^v<>ph"):
        pts = sorted((r["nnz_K"], r["per_iteration"]) for r in rows if (r["case"], r["mode"]) == (kind, mode)
                     and "nnz_K" in r)
        paths = sorted({r["path"] for r in rows if (r["case"], r["mode"]) == (kind, mode) and "nnz_K" in r})
        ax.loglog(*zip(*pts), marker=marker, label=f"{kind} ({mode}: {', '.join(paths)})")
    ax.set_xlabel("nonzeros of K (n^2 on the dense paths)")
    ax.set_ylabel("seconds per iteration")
    ax.set_title("QP interior point: time per iteration against nonzeros")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def save(rows: list[dict], args: argparse.Namespace) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    text = (f"# Sparse KKT systems: time per iteration against nonzeros\n\ncommit {commit}, "
            f"`python benchmarks/sparse_kkt.py {' '.join(sys.argv[1:])}`, {args.threads} BLAS thread(s)\n\n"
            + HEADER + "\n" + "\n".join(line(r) for r in rows) + "\n")
    MD.write_text(text)
    plot(rows, PNG)
    print(f"wrote {MD} and {PNG}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="trend,control,box,kalman")
    parser.add_argument("--sizes", choices=sorted(SIZES), default="default")
    parser.add_argument("--dense", action="store_true", help="also run each case with the sparse path off")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--table", nargs="*", default=None, help="read rows from printed tables instead of measuring")
    args = parser.parse_args(argv)
    if args.table is not None:
        rows = [row for name in args.table for row in parse(pathlib.Path(name).read_text())]
        print(HEADER + "\n" + "\n".join(line(r) for r in rows))
        if args.save:
            save(rows, args)
        return
    from threadpoolctl import threadpool_limits
    warnings.simplefilter("ignore")
    rows: list[dict] = []
    print(HEADER, flush=True)
    with threadpool_limits(args.threads), np.errstate(all="ignore"):
        for kind in args.only.split(","):
            for size in SIZES[args.sizes][kind]:
                rows += measure(kind, size, args.dense)
    if args.save:
        save(rows, args)


if __name__ == "__main__":
    main()
