"""Masked matrix completion: alternating (block) Newton against damped joint Newton.
=================================================================================

    python examples/matrix_factorization.py [--m 60] [--n 60] [--rank 3] [--observed 0.3]
        [--noise 0.01] [--ridge 0] [--seed 0] [--plot FILE]

Y = U0 V0^T + noise is observed on a random mask M; the factors minimise
sum((M .* (U V^T - Y))^2) (examples/matrix_factorisation.tc). The objective is convex in U
for fixed V and in V for fixed U (convexcheck proves both), not jointly. (a)
`solvers.alternate` takes one Newton step per block per sweep: each block is a convex
quadratic whose Hessian is block diagonal over the rows, so one step solves it exactly.
(b) `solvers.minimize(method="newton")` moves U and V jointly on the dense (m+n)r Hessian,
which is indefinite away from the minimum and singular at it (U G, V G^-T gives the same
product), so every step adds a multiple of I (damping). Both start from the spectral
initialisation (the top singular vectors of Y .* M / observed) and are scored by the RMSE
on the held-out (unobserved) entries.
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

PROBLEM_FILE = ROOT / "examples" / "matrix_factorisation.tc"


def problem(ridge: float) -> tuple[str, dict]:
    """The problem file, or (--ridge > 0) its objective plus lam (||U||^2 + ||V||^2).

    Why a ridge: a row of U with fewer than `rank` observed entries has a singular block
    Hessian 2 V^T diag(M_i) V, so its Newton system has no unique solution; the ridge makes
    every block positive definite and bounds the factors (it leaves only rotations
    U Q, V Q of the invariance U G, V G^-T). It is off by default because the default data
    observe every row and column many more than `rank` times, and because it slows both
    variants: along the balancing directions (U G, V G^-T) the objective then curves only
    by the small ridge, so sweeps crawl and the joint damping tau I swamps it."""
    if ridge == 0:
        return str(PROBLEM_FILE), {}
    text = PROBLEM_FILE.read_text().rstrip()
    assert text.splitlines()[-1].startswith("minimize"), "the objective must be the file's last line"
    text += "\n    + lam * sum(U^2) + lam * sum(V^2)\nparameter lam nonneg\n"
    return text, {"lam": ridge}


def generate(m: int, n: int, rank: int, observed: float, noise: float, seed: int):
    rng = np.random.default_rng(seed)
    Y = rng.normal(size=(m, rank)) @ rng.normal(size=(n, rank)).T + noise * rng.normal(size=(m, n))
    M = (rng.uniform(size=(m, n)) < observed).astype(float)
    return Y, M


def spectral_start(Y, M, rank: int, observed: float) -> dict:
    u, s, vt = np.linalg.svd(Y * M / observed, full_matrices=False)
    root = np.sqrt(s[:rank])
    return {"U": u[:, :rank] * root, "V": vt[:rank].T * root}


def rmse(x: dict, Y, mask) -> float:
    return float(np.sqrt(np.mean(((x["U"] @ x["V"].T) - Y)[mask] ** 2)))


def alternating(text, data, x0, sweeps: int):
    result = solvers.alternate(text, ["U", "V"], x0=x0, data=data, sweeps=sweeps)
    print(f"(a) alternating Newton: block convexity {result.convexity}")
    print(f"    {result.message}; {result.sweeps} sweeps in {result.time_s:.3f} s, "
          f"objective {result.fun:.10g}")
    return result


def joint(text, data, x0, max_iter: int):
    result = solvers.minimize(text, x0=x0, data=data, method="newton", max_iter=max_iter, verbose=True)
    damped = sum(1 for it in result.history if it.damping > 0)
    steps = len(result.history) - 1
    print(f"(b) joint damped Newton: convexity {result.convexity!r}; warning: {result.warning}")
    print(f"    {result.message}; {result.nit} iterations in {result.time_s:.3f} s, objective "
          f"{result.fun:.10g}; damping tau > 0 at {damped} of {steps} steps "
          f"(largest tau {max(it.damping for it in result.history):.3g})")
    return result


def plot(runs: dict, path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot (pip install '.[plot]')")
        return
    best = min(min(it.f for it in r.history) for r in runs.values())
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for label, r in runs.items():
        h = [it for it in r.history if it.block in ("", "V")]    # after each full sweep
        gap = [max(it.f - best, 1e-17) for it in h]
        steps = [it.k for it in h] if h[0].block == "" else range(1, len(h) + 1)
        axes[0].semilogy(steps, gap, marker=".", label=label)
        axes[1].semilogy([it.time_s for it in h], gap, marker=".", label=label)
    axes[0].set_xlabel("sweeps done (a) / iteration (b)")
    axes[1].set_xlabel("seconds")
    for ax in axes:
        ax.set_ylabel("f - f_best (floored at 1e-17)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("matrix completion: alternating vs joint Newton")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot saved to {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--m", type=int, default=60)
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--rank", type=int, default=3)
    parser.add_argument("--observed", type=float, default=0.3, help="fraction of entries observed")
    parser.add_argument("--noise", type=float, default=0.01)
    parser.add_argument("--ridge", type=float, default=0.0, help="weight of ||U||^2 + ||V||^2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sweeps", type=int, default=500, help="sweep limit of (a)")
    parser.add_argument("--max-iter", type=int, default=200, help="iteration limit of (b)")
    parser.add_argument("--plot", metavar="FILE", help="save a convergence plot (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:   # say so before the run
        print("--plot needs matplotlib, which is not installed (pip install '.[plot]'): running without the plot")
        args.plot = None
    Y, M = generate(args.m, args.n, args.rank, args.observed, args.noise, args.seed)
    fewest = int(min(M.sum(axis=0).min(), M.sum(axis=1).min()))
    print(f"{args.m} x {args.n}, rank {args.rank}, {M.mean():.1%} observed (fewest in a row or "
          f"column: {fewest}), noise {args.noise}, ridge {args.ridge}")
    if fewest < args.rank and args.ridge == 0:
        print(f"warning: a row or column has fewer than {args.rank} observed entries: its block "
              f"Hessian is singular; add --ridge 1e-3")
    text, ridge = problem(args.ridge)
    data, x0 = {"M": M, "Y": Y * M, **ridge}, spectral_start(Y, M, args.rank, args.observed)
    held_out = M == 0
    start = time.perf_counter()
    runs = {"(a) alternating": alternating(text, data, x0, args.sweeps)}
    print(f"    held-out RMSE {rmse(runs['(a) alternating'].x, Y, held_out):.4g} "
          f"(wall {time.perf_counter() - start:.2f} s with compile and check)\n")
    start = time.perf_counter()
    runs["(b) joint"] = joint(text, data, x0, args.max_iter)
    print(f"    held-out RMSE {rmse(runs['(b) joint'].x, Y, held_out):.4g} "
          f"(wall {time.perf_counter() - start:.2f} s with compile and check)")
    print(f"\nnoise level {args.noise}: a held-out RMSE near it means the low-rank matrix was recovered")
    if args.plot:
        plot(runs, args.plot)
    return 0 if all(r.success for r in runs.values()) else 1


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
