"""L2-regularised logistic regression on data that need not fit in memory (Dask).
==============================================================================

    python examples/dask_logistic.py [--rows 200000] [--cols 100] [--chunk-rows 50000]
        [--scheduler ADDRESS | --workers 2 --worker-memory 2GiB] [--method newton] [--seed 0]

The data are generated lazily with `dask.array.random`, chunk by chunk on the workers:
at the default size (160 MB) the workers persist them; at full scale, say
`--rows 100_000_000 --chunk-rows 1_000_000` (80 GB), they hold more than any one
machine's memory, and every evaluation streams the chunks from the generator instead.
Either way the client never holds a chunk: `solvers.minimize` takes the Dask arrays as
data, each Newton iteration is one `dask.compute` whose results are f, the gradient and
the 100 x 100 Hessian (reduced on the workers), and the small Newton system is solved
here. The problem file and the call are those of examples/logistic_regression.py.

--scheduler ADDRESS connects to a running cluster (`dask.distributed.Client(ADDRESS)`,
e.g. tcp://10.0.0.5:8786, started with `dask scheduler` and `dask worker ADDRESS`);
without it a LocalCluster of --workers processes is started and closed here.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

import solvers

# sphinx-gallery runs the script from examples/ with no __file__: "_" stands for it there
ROOT = pathlib.Path(globals().get("__file__", "_")).resolve().parent.parent

PROBLEM = (ROOT / "examples" / "logistic_regression_l2.tc").read_text()


def generated(rows: int, cols: int, chunk: int, seed: int):
    """(X, y) as lazy Dask arrays chunked by rows: Gaussian features, labels in {-1, +1}
    drawn from the logistic model with fixed random weights. Nothing is computed here."""
    import dask.array as da
    rng = da.random.default_rng(seed)
    X = rng.normal(size=(rows, cols), chunks=(chunk, cols))
    w_true = 3.0 * np.random.default_rng(seed).normal(size=cols) / np.sqrt(cols)
    y = da.where(rng.uniform(size=rows, chunks=chunk) < 1 / (1 + da.exp(-(X @ w_true))), 1.0, -1.0)
    return X, y


def client(args):
    """A Client of the cluster at --scheduler, else of a new LocalCluster."""
    from dask.distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler)
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           memory_limit=args.worker_memory, dashboard_address=None)
    return Client(cluster)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--cols", type=int, default=100)
    parser.add_argument("--chunk-rows", type=int, default=50_000)
    parser.add_argument("--scheduler", metavar="ADDRESS", help="connect to a running cluster")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes (no --scheduler)")
    parser.add_argument("--worker-memory", default="2GiB", help="memory limit of each local worker")
    parser.add_argument("--method", choices=["newton", "newton-cg", "lbfgs"], default="newton")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise SystemExit("dask_logistic.py needs Dask: pip install 'convexcheck[dask]'") from None
    with client(args) as c:
        X, y = generated(args.rows, args.cols, args.chunk_rows, args.seed)
        print(f"data: {args.rows:,} x {args.cols} ({X.nbytes / 2**30:.2f} GiB) in chunks of "
              f"{args.chunk_rows:,} rows; workers: {len(c.scheduler_info()['workers'])}")
        data = {"X": X, "y": y, "s": 1.0 / args.rows, "lam": 1.0 / args.rows}
        start = time.perf_counter()
        try:
            result = solvers.minimize(PROBLEM, data=data, method=args.method, verbose=True)
        except solvers.SolverError as err:
            raise SystemExit(f"dask_logistic.py: {err}") from None
        print(f"\nconvexity: {result.convexity}; {result.message}")
        print(f"{result.nit} iterations, {result.time_s:.1f} s solving, "
              f"{time.perf_counter() - start - result.time_s:.1f} s persisting and checking the data")
        print(f"objective {result.fun:.12g}, max|g| {np.abs(result.jac['w']).max():.1e}")
        accuracy = float((np.sign(X @ result.x["w"]) == y).mean().compute())   # on the workers
        print(f"training accuracy: {accuracy:.4f}")
    return 0 if result.success else 1


if __name__ == "__main__":
    # exit only on failure: sphinx-gallery runs the script inside its own process
    if status := main():
        sys.exit(status)
