"""Sparse inverse covariance over positive definite matrices, checked against CVXPY.
=================================================================================

Smooth sparse-inverse-covariance estimation (examples/covariance_mle.tc).

    python examples/covariance_mle.py [--p 15] [--samples 60] [--lam 0.05] [--seed 0] [--plot FILE]

A sparse precision matrix (a chain: each variable tied to its neighbours) gives the
samples; the estimate minimises tr(C X) - log det X + lam * sum(X.^2) over pd X, C the
sample covariance. Every method starts at the identity and stays inside the cone (a
Cholesky test on every trial point). Printed: each method's iterations, time (second
call), objective and max|C - inv(X) + 2 lam X| (the gradient on symmetric matrices);
CVXPY's objective and time (its default solver for log_det, first call); how well the
estimate finds the chain (largest off-chain entry against the smallest chain entry).
With --plot FILE (needs matplotlib): f - f* and max|g| per iteration, and the true and
estimated precision matrices.
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

PROBLEM = ROOT / "examples" / "covariance_mle.tc"
METHODS = ["newton", "newton-cg", "lbfgs", "auto"]


def chain(p: int, samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(true precision, sample covariance): a tridiagonal precision, samples from it."""
    K = np.eye(p) * 1.5 + np.diag(np.full(p - 1, -0.6), 1) + np.diag(np.full(p - 1, -0.6), -1)
    rng = np.random.default_rng(seed)
    Z = rng.multivariate_normal(np.zeros(p), np.linalg.inv(K), size=samples)
    return K, np.cov(Z.T)


def solve_all(C, lam: float, methods) -> dict:
    out = {}
    for method in methods:
        data = {"C": C, "lam": lam}
        solvers.minimize(PROBLEM, data=data, method=method)            # compiles
        start = time.perf_counter()
        result = solvers.minimize(PROBLEM, data=data, method=method)
        result.wall_s = time.perf_counter() - start
        out[method] = result
    return out


def cvxpy_value(C, lam: float):
    """(objective, seconds, solver) by CVXPY, or None without CVXPY."""
    if importlib.util.find_spec("cvxpy") is None:
        return None
    import cvxpy as cp
    X = cp.Variable(C.shape, PSD=True)
    problem = cp.Problem(cp.Minimize(cp.trace(C @ X) - cp.log_det(X) + lam * cp.sum_squares(X)))
    start = time.perf_counter()
    problem.solve()
    return float(problem.value), time.perf_counter() - start, problem.solver_stats.solver_name


def report(results: dict, C, lam: float, ref) -> bool:
    best = min(r.fun for r in results.values())
    print("| method | iterations | time | objective | max stationarity | status |")
    print("|---|---|---|---|---|---|")
    good = True
    for method, r in results.items():
        X = r.x["X"]
        stationary = np.abs(C - np.linalg.inv(X) + 2 * lam * X).max()
        good &= r.success and stationary <= 1e-7
        print(f"| {method} ({r.method}) | {r.nit} | {1000 * r.wall_s:.1f} ms | {r.fun:.12g} | {stationary:.1e} "
              f"| {r.message[:40]} |")
    if ref is not None:
        value, seconds, name = ref
        diff = abs(best - value) / abs(value)
        good &= diff <= 1e-5
        print(f"| CVXPY ({name}) | | {1000 * seconds:.1f} ms | {value:.12g} | relative difference "
              f"{diff:.1e} | |")
    return good


def recovery(K, X) -> str:
    p = K.shape[0]
    on = np.abs(np.diag(X, 1))
    off = np.abs(X[np.triu_indices(p, 2)]) if p > 2 else np.zeros(1)
    return (f"chain entries |X[i, i+1]| >= {on.min():.3f}, off-chain entries <= {off.max():.3f} "
            f"({'separated' if on.min() > off.max() else 'not separated'})")


def plot(results: dict, K, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    best = min(r.fun for r in results.values())
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
    for method, r in results.items():
        ks = [it.k for it in r.history]
        axes[0].semilogy(ks, [max(it.f - best, 1e-17) for it in r.history], marker=".", label=method)
        axes[1].semilogy(ks, [it.gmax for it in r.history], marker=".", label=method)
    axes[0].set_ylabel("f - f* (floored at 1e-17)")
    axes[1].set_ylabel("max|g| (symmetric coordinates)")
    for ax in axes[:2]:
        ax.set_xlabel("iteration")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    estimate = results["newton"].x["X"] if "newton" in results else next(iter(results.values())).x["X"]
    for ax, M, title in ((axes[2], K, "true precision"), (axes[3], estimate, "estimate")):
        ax.imshow(M, cmap="RdBu_r", vmin=-np.abs(M).max(), vmax=np.abs(M).max())
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot saved to {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--p", type=int, default=15, help="dimension of the precision matrix")
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--lam", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated (default {','.join(METHODS)})")
    parser.add_argument("--plot", metavar="FILE", help="save convergence and matrix plots (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:   # say so before the run
        print("--plot needs matplotlib, which is not installed (pip install '.[plot]'): running without the plot")
        args.plot = None
    if importlib.util.find_spec("cvxpy") is None:
        print("CVXPY is not installed (pip install '.[bench]'): no reference row")
    K, C = chain(args.p, args.samples, args.seed)
    results = solve_all(C, args.lam, args.methods.split(","))
    print(f"p = {args.p}, {args.samples} samples, lam = {args.lam}; convexity: "
          f"{next(iter(results.values())).convexity}\n")
    good = report(results, C, args.lam, cvxpy_value(C, args.lam))
    print("\n" + recovery(K, next(iter(results.values())).x["X"]))
    if args.plot:
        plot(results, K, args.plot)
    return 0 if good else 1


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
