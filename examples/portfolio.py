"""Long-only portfolios with a return floor (examples/portfolio.tc), checked against CVXPY.
========================================================================================

    python examples/portfolio.py [--n 50] [--points 8] [--seed 0] [--method auto] [--plot FILE]

Minimise the risk w' S w over weights w >= 0 with sum(w) = 1 and mu' w >= rmin, for a
factor-model covariance S and expected returns mu. One solve at a middle floor shows
the iterations (the interior-point method under method auto); then the efficient
frontier: one solve per floor from the minimum-risk portfolio's return to 95% of the
largest return, each compared with CVXPY's (default solver) objective and timed
(second calls: the first compiles). With --plot FILE (needs matplotlib): the frontier
and the KKT residual per iteration of the single solve.
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

PROBLEM = ROOT / "examples" / "portfolio.tc"


def market(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(S, mu): three factors plus idiosyncratic risk; returns loosely tied to risk."""
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, 3)) * np.array([0.2, 0.1, 0.05])
    S = F @ F.T + np.diag(rng.uniform(0.01, 0.04, n) ** 2 * 25)
    mu = 0.02 + 0.3 * np.sqrt(np.diag(S)) * rng.uniform(0.5, 1.5, n)
    return (S + S.T) / 2, mu


def ours(S, mu, rmin: float, method: str):
    data = {"S": S, "mu": mu, "rmin": rmin}
    solvers.minimize(PROBLEM, data=data, method=method)              # compiles
    start = time.perf_counter()
    result = solvers.minimize(PROBLEM, data=data, method=method)
    return result, time.perf_counter() - start


def cvxpy_risk(S, mu, rmin: float):
    """(risk, seconds) by CVXPY's default solver (first call: canonicalisation included),
    or (nan, nan) without CVXPY."""
    if importlib.util.find_spec("cvxpy") is None:
        return float("nan"), float("nan")
    import cvxpy as cp
    w = cp.Variable(len(mu), nonneg=True)
    problem = cp.Problem(cp.Minimize(cp.quad_form(w, cp.psd_wrap(S))), [cp.sum(w) == 1, mu @ w >= rmin])
    start = time.perf_counter()
    problem.solve()
    return float(problem.value), time.perf_counter() - start


def frontier(S, mu, points: int, method: str) -> list[dict]:
    low = float(mu @ ours(S, mu, float(mu.min()), method)[0].x["w"])   # the minimum-risk return
    rows = []
    for rmin in np.linspace(low, 0.95 * float(mu.max()), points):
        result, seconds = ours(S, mu, float(rmin), method)
        ref, ref_s = cvxpy_risk(S, mu, float(rmin))
        rows.append(dict(rmin=float(rmin), risk=result.fun, ref=ref, ms=1000 * seconds, ref_ms=1000 * ref_s,
                         nit=result.nit, violation=result.constr_violation, ok=result.success,
                         held=len([v for v in result.x["w"] if v > 1e-6])))
    return rows


def report(rows: list[dict]) -> bool:
    print("| return floor | risk (ours) | risk (CVXPY) | relative difference | assets held | iterations "
          "| violation | ours | CVXPY |")
    print("|---|---|---|---|---|---|---|---|---|")
    good = True
    for r in rows:
        diff = abs(r["risk"] - r["ref"]) / abs(r["ref"])
        good &= r["ok"] and r["violation"] <= 1e-8 and not diff > 1e-6
        print(f"| {r['rmin']:.4f} | {r['risk']:.10g} | {r['ref']:.10g} | {diff:.1e} | {r['held']} | {r['nit']} "
              f"| {r['violation']:.1e} | {r['ms']:.1f} ms | {r['ref_ms']:.1f} ms |")
    return good


def plot(rows: list[dict], result, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].plot([np.sqrt(r["risk"]) for r in rows], [r["rmin"] for r in rows], marker="o", label="ours")
    axes[0].plot([np.sqrt(r["ref"]) for r in rows], [r["rmin"] for r in rows], ls="--", label="CVXPY")
    axes[0].set_xlabel("risk (standard deviation)")
    axes[0].set_ylabel("expected return")
    axes[0].set_title("efficient frontier")
    axes[1].semilogy([it.k for it in result.history], [it.kkt for it in result.history], marker=".")
    axes[1].set_xlabel("iteration")
    axes[1].set_ylabel("KKT residual")
    axes[1].set_title(f"one solve ({result.method})")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot saved to {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--n", type=int, default=50, help="number of assets")
    parser.add_argument("--points", type=int, default=8, help="points on the efficient frontier")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--method", default="auto", choices=[*solvers.METHODS, "auto"])
    parser.add_argument("--plot", metavar="FILE", help="save the frontier and a convergence plot (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:   # say so before the run
        print("--plot needs matplotlib, which is not installed (pip install '.[plot]'): running without the plot")
        args.plot = None
    if importlib.util.find_spec("cvxpy") is None:
        print("CVXPY is not installed (pip install '.[bench]'): no reference column")
    S, mu = market(args.n, args.seed)
    middle = float(0.5 * (mu.min() + mu.max()))
    result, seconds = ours(S, mu, middle, args.method)
    print(f"n = {args.n}, return floor {middle:.4f}: {result.message}\n  risk {result.fun:.10g}, "
          f"{result.nit} iterations ({result.method}), {1000 * seconds:.1f} ms, violation "
          f"{result.constr_violation:.1e}, multiplier of the floor {result.multipliers['constraint 2']:.4g}\n")
    rows = frontier(S, mu, args.points, args.method)
    good = report(rows)
    if args.plot:
        plot(rows, result, args.plot)
    return 0 if good and result.success else 1


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
