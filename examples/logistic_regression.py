"""L2-regularised logistic regression by Newton's method on a problem text.
========================================================================

    python examples/logistic_regression.py [--data generated|breast_cancer] [--m 2000] [--n 50]
        [--seed 0] [--lam LAM] [--method newton] [--device cpu] [--plot FILE]

Minimises mean_i log(1 + exp(-y_i x_i.w)) + lam/2 ||w||^2 (labels y in {-1, +1}) with
`solvers.minimize`, which first asks convexcheck for a verdict: the declared attributes
(`s pos`, `lam nonneg`) let it prove the objective convex, so a stationary point is the
global minimum. The default lam = 1/m is scikit-learn's LogisticRegression(C=1,
fit_intercept=False), so both minimise the same function and their objectives compare.
"""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys

import numpy as np

import solvers

# sphinx-gallery runs the script from examples/ with no __file__: "_" stands for it there
ROOT = pathlib.Path(globals().get("__file__", "_")).resolve().parent.parent

PROBLEM = (ROOT / "examples" / "logistic_regression_l2.tc").read_text()   # the problem file


def generated(m: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian features; labels drawn from the logistic model with random true weights."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    w_true = 3.0 * rng.normal(size=n) / np.sqrt(n)
    y = np.where(rng.uniform(size=m) < 1.0 / (1.0 + np.exp(-X @ w_true)), 1.0, -1.0)
    return X, y


def breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError:
        raise SystemExit("--data breast_cancer needs scikit-learn (pip install scikit-learn); "
                         "or leave --data out to use generated data") from None
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)               # standardised features
    return X, np.where(y == 1, 1.0, -1.0)


def objective(X, y, lam: float, w) -> float:
    return float(np.mean(np.logaddexp(0.0, -y * (X @ w))) + lam / 2 * (w @ w))


def sklearn_fit(X, y, lam: float):
    """(w, objective, seconds) from scikit-learn at a tight tolerance, or None without it."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        print("scikit-learn not installed: no comparison (pip install scikit-learn)")
        return None
    import time
    start = time.perf_counter()
    model = LogisticRegression(C=1.0 / (lam * len(y)), fit_intercept=False, solver="newton-cholesky",
                               tol=1e-10, max_iter=1000).fit(X, y)
    seconds = time.perf_counter() - start
    w = model.coef_.ravel()
    return w, objective(X, y, lam, w), seconds


def plot(result, best: float, path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot (pip install '.[plot]')")
        return
    h = result.history
    gap = [max(it.f - best, 1e-17) for it in h]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].semilogy([it.k for it in h], gap, marker="o", label="f - f*")
    axes[0].semilogy([it.k for it in h], [it.gmax for it in h], marker="s", label="max|g|")
    axes[0].set_xlabel("iteration")
    axes[1].semilogy([it.time_s for it in h], gap, marker="o", label="f - f*")
    axes[1].set_xlabel("seconds")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(f"logistic regression, {result.method}: objective gap (floored at 1e-17) and max|g|")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot saved to {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--data", choices=["generated", "breast_cancer"], default="generated")
    parser.add_argument("--m", type=int, default=2000, help="samples (generated data)")
    parser.add_argument("--n", type=int, default=50, help="features (generated data)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lam", type=float, default=None, help="ridge weight (default 1/m: sklearn C=1)")
    parser.add_argument("--method", choices=list(solvers.METHODS), default="newton")
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--plot", metavar="FILE", help="save a convergence plot (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:   # say so before the run
        print("--plot needs matplotlib, which is not installed (pip install '.[plot]'): running without the plot")
        args.plot = None
    X, y = breast_cancer() if args.data == "breast_cancer" else generated(args.m, args.n, args.seed)
    m, n = X.shape
    lam = 1.0 / m if args.lam is None else args.lam
    print(f"data: {args.data}, {m} samples x {n} features, lam = {lam:.3g}")
    data = {"X": X, "y": y, "s": 1.0 / m, "lam": lam}
    try:
        result = solvers.minimize(PROBLEM, data=data, method=args.method, device=args.device,
                                  verbose=True)
    except solvers.SolverError as err:
        raise SystemExit(f"logistic_regression.py: {err}") from None
    print(f"\nconvexity: {result.convexity}" + (f" ({result.warning})" if result.warning else ""))
    print(f"{result.message}; {result.nit} iterations in {result.time_s:.3f} s "
          f"(nfev {result.nfev}, njev {result.njev}, nhev {result.nhev})")
    print(f"objective: {result.fun:.15g}  (max|g| {np.abs(result.jac['w']).max():.2e})")
    best = result.fun
    fitted = sklearn_fit(X, y, lam)
    if fitted is not None:
        w, f, seconds = fitted
        best = min(best, f)
        print(f"scikit-learn newton-cholesky (tol 1e-10): objective {f:.15g} in {seconds:.3f} s; "
              f"relative difference {(result.fun - f) / abs(f):+.2e}, "
              f"max|w - w_sklearn| {np.abs(result.x['w'] - w).max():.2e}")
    accuracy = np.mean(np.sign(X @ result.x["w"]) == y)
    print(f"training accuracy: {accuracy:.4f}")
    if args.plot:
        plot(result, best, args.plot)
    return 0 if result.success else 1


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
