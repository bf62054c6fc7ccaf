"""Signal restoration: total-variation denoising and 1-D deconvolution.
====================================================================

Both problems are written with affine-index definitions (examples/total_variation.tc,
examples/deconvolution.tc).

Writes the data files the problem files use (`--write-data`), proves both problems
convex with convexcheck, solves them with Newton (`solvers.minimize`), and checks each
solution against the closed form from NumPy (the normal equations, built with
np.diff / np.convolve, independently of tensorcalc).

    python examples/signals.py [--write-data] [--plot signals.png]
"""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys

import numpy as np

import convexcheck
import solvers

# sphinx-gallery runs the script from examples/ with no __file__: "_" stands for it there
HERE = pathlib.Path(globals().get("__file__", "_")).resolve().parent


def make_data(seed: int = 0) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, 200)
    clean = np.where(t < 0.3, 0.0, np.where(t < 0.6, 1.0, 0.4)) + 0.3 * np.sin(6 * t)
    tv = {"y": clean + 0.15 * rng.normal(size=200), "lam": np.float64(5.0), "clean": clean}
    x = np.sin(np.linspace(0, 4 * np.pi, 120)) * np.exp(-np.linspace(0, 2, 120))
    h = np.exp(-0.5 * (np.arange(9) - 4.0) ** 2 / 2.0)
    h /= h.sum()
    deconv = {"h": h, "y": np.convolve(h, x) + 0.01 * rng.normal(size=128), "lam": np.float64(1e-3), "clean": x}
    return {"total_variation": tv, "deconvolution": deconv}


def reference(name: str, d: dict) -> np.ndarray:
    """Closed forms: (I + 2 lam D^T D) x = y and (C^T C + 2 lam I) x = C^T y."""
    if name == "total_variation":
        D = np.diff(np.eye(len(d["y"])), axis=0)
        return np.linalg.solve(np.eye(len(d["y"])) + 2 * d["lam"] * D.T @ D, d["y"])
    n = len(d["y"]) - len(d["h"]) + 1
    C = np.column_stack([np.convolve(d["h"], e) for e in np.eye(n)])
    return np.linalg.solve(C.T @ C + 2 * d["lam"] * np.eye(n), C.T @ d["y"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    ap.add_argument("--write-data", action="store_true", help="write examples/data/*.npz")
    ap.add_argument("--plot", metavar="FILE", help="save a plot of signals and restorations")
    args = ap.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:   # say so before the run
        print("--plot needs matplotlib, which is not installed (pip install '.[plot]'): running without the plot")
        args.plot = None
    results = {}
    for name, d in make_data().items():
        data = {k: v for k, v in d.items() if k != "clean"}
        if args.write_data:
            np.savez(HERE / "data" / f"{name}.npz", **data)
        problem = convexcheck.load_problem(str(HERE / f"{name}.tc"))
        verdict = convexcheck.analyze(problem, samples=10, seed=0).verdict
        res = solvers.minimize(problem, data=data)
        ref = reference(name, d)
        err = np.linalg.norm(res.x["x"] - ref) / np.linalg.norm(ref)
        print(f"{name:16s} convexcheck: {verdict:8s} status {res.status}  iterations {res.nit}  "
              f"|x - x_ref| / |x_ref| = {err:.1e}")
        results[name] = (d, res.x["x"])
    if args.plot:
        _plot(results, args.plot)
    return 0


def _plot(results, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
    for ax, (name, (d, x)) in zip(axes, results.items()):
        ax.plot(d["y"], ".", ms=3, label="observed y")
        ax.plot(d["clean"], "k--", lw=1, label="clean")
        ax.plot(x, lw=1.5, label="restored x")
        ax.set_title(name.replace("_", " "))
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}")


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
