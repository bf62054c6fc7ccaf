"""A convex quadratic 0.5 x^T A x - b^T x by four methods, checked against numpy.linalg.solve.
===========================================================================================

    python examples/quadratic.py [--n 100] [--cond 1000] [--seed 0] [--plot FILE]

A = Q diag(eigenvalues) Q^T is positive definite with condition number --cond, declared
`psd` so convexcheck proves the objective convex. The minimiser solves A x = b. Newton
needs one step (the quadratic model is exact), Newton-CG a few conjugate-gradient
iterations per step, L-BFGS and gradient descent (Barzilai-Borwein steps) more steps as
the condition number grows. Times are of a second call (the first compiles).
"""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
import time

import numpy as np

import solvers

# sphinx-gallery runs the script from examples/ with no __file__: "_" stands for it there
ROOT = pathlib.Path(globals().get("__file__", "_")).resolve().parent.parent

PROBLEM = """
parameter A[n, n] psd
parameter b[n]
variable x[n]
minimize 0.5 * x *(i,ij->j) A *(j,j->) x - b *(i,i->) x
"""
METHODS = ["newton", "newton-cg", "lbfgs", "gd"]


def quadratic(n: int, cond: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    A = (Q * np.logspace(0.0, np.log10(cond), n)) @ Q.T
    return (A + A.T) / 2, rng.normal(size=n)


def solve_all(data: dict, gtol: float) -> dict:
    results = {}
    for method in METHODS:
        solvers.minimize(PROBLEM, data=data, method=method, gtol=gtol)      # compiles
        start = time.perf_counter()
        result = solvers.minimize(PROBLEM, data=data, method=method, gtol=gtol)
        result.wall_s = time.perf_counter() - start
        results[method] = result
    return results


def table(results: dict, x_star: np.ndarray, f_star: float) -> None:
    print("| method | iterations | evaluations f/g/H(v) | time | f - f* | |x - x*| / |x*| | max|g| | status |")
    print("|---|---|---|---|---|---|---|---|")
    for method, r in results.items():
        err = np.linalg.norm(r.x["x"] - x_star) / np.linalg.norm(x_star)
        print(f"| {method} | {r.nit} | {r.nfev}/{r.njev}/{r.nhev} | {r.wall_s * 1000:.1f} ms | "
              f"{r.fun - f_star:.2e} | {err:.2e} | {np.abs(r.jac['x']).max():.2e} | {r.message} |")


def plot(results: dict, f_star: float, path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot (pip install '.[plot]')")
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for method, r in results.items():
        gap = [max(it.f - f_star, 1e-17) for it in r.history]
        axes[0].semilogy([it.k for it in r.history], gap, marker=".", label=method)
        axes[1].semilogy([it.k for it in r.history], [it.gmax for it in r.history], marker=".", label=method)
    axes[0].set_ylabel("f - f* (floored at 1e-17)")
    axes[1].set_ylabel("max|g|")
    for ax in axes:
        ax.set_xlabel("iteration")
        ax.set_xscale("symlog", linthresh=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("convex quadratic 0.5 x'Ax - b'x")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot saved to {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--cond", type=float, default=1000.0, help="condition number of A")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gtol", type=float, default=1e-8)
    parser.add_argument("--plot", metavar="FILE", help="save a convergence plot (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:   # say so before the run
        print("--plot needs matplotlib, which is not installed (pip install '.[plot]'): running without the plot")
        args.plot = None
    A, b = quadratic(args.n, args.cond, args.seed)
    np.linalg.solve(A, b)                                # warm-up (BLAS start-up)
    start = time.perf_counter()
    x_star = np.linalg.solve(A, b)
    solve_s = time.perf_counter() - start
    f_star = float(0.5 * x_star @ A @ x_star - b @ x_star)
    print(f"n = {args.n}, cond(A) = {np.linalg.cond(A):.3g}; numpy.linalg.solve: {solve_s * 1000:.2f} ms, "
          f"f* = {f_star:.15g}")
    results = solve_all({"A": A, "b": b}, args.gtol)
    print(f"convexity: {results['newton'].convexity}\n")
    table(results, x_star, f_star)
    if args.plot:
        plot(results, f_star, args.plot)
    return 0 if all(r.success for r in results.values()) else 1


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
