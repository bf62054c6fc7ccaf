"""Dask arrays chunked by rows (issue 17): the same compiled functions and solvers.

On a LocalCluster of two worker processes, with data generated on the workers (the
client never has it): logistic regression with L2, Poisson regression and least squares
reach NumPy's objective to 1e-10 (relative), with Newton, Newton-CG and L-BFGS (Poisson's
many first-order evaluations under -m slow); the
task stream shows the work on both workers; the data are generated once (persisted);
each evaluation is one `dask.compute` whose results are the reduced f, g, H (or H v);
the client's memory never holds a data array (tracemalloc). Without a cluster: the
compiled functions against NumPy, the checks on Dask data, and `analyze` never computing
Dask data. Skipped when Dask is not installed (`pip install 'convexcheck[dask]'`).
"""
from __future__ import annotations

import pathlib
import tracemalloc
import types

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("dask.distributed")

import convexcheck  # noqa: E402
import solvers  # noqa: E402
import tensorcalc as tc  # noqa: E402
from solvers.task.prepare import SolverError  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
M, N, ROWS = 24_000, 40, 3_000          # 7.7 MB of X in 8 chunks of 0.96 MB
METHODS = ["newton", "newton-cg", "lbfgs"]


def _problem(name: str) -> str:
    return (EXAMPLES / f"{name}.tc").read_text()


def _data(kind: str, seed: int = 0) -> dict:
    """Lazy data: nothing is generated until a worker computes a chunk."""
    rng = da.random.default_rng(seed)
    X = rng.normal(size=(M, N), chunks=(ROWS, N)) / np.sqrt(N)
    eta = X @ np.linspace(-1.0, 1.0, N)
    if kind == "logistic_regression_l2":
        y = da.where(rng.uniform(size=M, chunks=ROWS) < 1 / (1 + da.exp(-eta)), 1.0, -1.0)
        return {"X": X, "y": y, "s": 1.0 / M, "lam": 1e-3}
    if kind == "poisson_intercept":
        return {"X": X, "y": rng.poisson(da.exp(eta + 0.5)).astype(float), "lam": 1e-2}
    return {"X": X, "y": eta + 0.1 * rng.normal(size=M, chunks=ROWS)}


PROBLEMS = ["logistic_regression_l2", "poisson_intercept", "least_squares"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, memory_limit="1GiB") as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture(scope="module")
def references(client):
    """NumPy solutions of each problem, on the same data gathered for the reference."""
    out = {}
    for kind in PROBLEMS:
        data = {k: np.asarray(v.compute()) if hasattr(v, "compute") else v for k, v in _data(kind).items()}
        out[kind] = solvers.minimize(_problem(kind), data=data, method="newton")
        assert out[kind].success, out[kind].message
    return out


SLOW = {("poisson_intercept", "lbfgs"), ("poisson_intercept", "newton-cg")}    # 7 s each
CASES = [pytest.param(k, m, marks=[pytest.mark.slow] if (k, m) in SLOW else []) for m in METHODS for k in PROBLEMS]


@pytest.mark.parametrize(("kind", "method"), CASES)
def test_same_solution_as_numpy(client, references, kind, method, monkeypatch):
    results = []                                       # every dask.compute's results
    compute = dask.compute

    def counted(*args, **kwargs):
        out = compute(*args, **kwargs)
        results.append(out)
        return out
    monkeypatch.setattr(dask, "compute", counted)
    data = _data(kind)
    with distributed.get_task_stream(client) as stream:
        got = solvers.minimize(_problem(kind), data=data, method=method)
    ref = references[kind]
    assert got.success, got.message
    assert got.convexity == "convex"
    assert abs(got.fun - ref.fun) <= 1e-10 * abs(ref.fun)
    # one computation checks the data, then one per evaluation (f, g, H or H v together)
    evaluations = got.nfev + (got.nhev if method == "newton-cg" else 0)
    assert len(results) == 1 + evaluations
    reduced = max(a.nbytes for out in results[1:] for a in map(np.asarray, out))
    assert reduced <= 8 * (N + 1) ** 2 < data["X"].nbytes // 100
    workers = {t["worker"] for t in stream.data}
    assert workers == set(client.scheduler_info()["workers"])


def test_data_generated_once(client):
    """Persisted once per solve: the random chunks are made once, not per evaluation."""
    X = da.random.default_rng(5).normal(size=(M, N), chunks=(ROWS, N))
    y = (X @ np.ones(N)).persist()                   # y already on the workers
    with distributed.get_task_stream(client) as stream:
        got = solvers.minimize(_problem("least_squares"), data={"X": X, "y": y}, method="lbfgs")
    assert got.success and got.nfev > 3
    names = [distributed.utils.key_split(t["key"]) for t in stream.data]
    made = [k for k in names if "normal" in k]
    # once per solve: M // ROWS chunk tasks (a scheduler may rerun a few after a worker
    # restart under load); made per evaluation it would be nfev times as many
    assert M // ROWS <= len(made) < 2 * (M // ROWS) <= got.nfev * (M // ROWS) // 2, sorted(set(names))


def test_client_never_holds_the_data(client):
    """The client's peak memory during a solve (tracemalloc: everything NumPy and Python
    allocate in this process, the LocalCluster's scheduler included) stays below one
    chunk of X: no chunk, let alone the array, is gathered."""
    rng = da.random.default_rng(3)
    X = rng.normal(size=(200_000, N), chunks=(50_000, N))          # 64 MB in 4 chunks
    y = da.where(rng.uniform(size=200_000, chunks=50_000) < 1 / (1 + da.exp(-X.sum(axis=1))), 1.0, -1.0)
    data = {"X": X, "y": y, "s": 1 / 200_000, "lam": 1e-3}
    data["X"], data["y"] = dask.persist(X, y)
    solvers.minimize(_problem("logistic_regression_l2"), data=data, max_iter=1)   # compiled, warm
    tracemalloc.start()
    try:
        got = solvers.minimize(_problem("logistic_regression_l2"), data=data, method="newton")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got.success
    chunk = X.nbytes // X.numblocks[0]
    assert peak < chunk, f"client peak {peak:,} B; one chunk of X is {chunk:,} B"


# --------------------------------------------------------------------------- no cluster

@pytest.fixture
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def test_compiled_functions_match_numpy(synchronous):
    """Row contractions, the symmetric product per chunk (x' diag(d) x), a constant over
    the rows (made with the rows' chunks), and a matrix function of a reduced matrix, on
    Dask arrays and on NumPy arrays."""
    rng = np.random.default_rng(1)
    X, d, w = rng.normal(size=(50, 4)), rng.uniform(0.5, 2, size=50), rng.normal(size=4)
    orders = {"X": 2, "d": 1, "w": 1, "b": 0}
    texts = ["X *(ij,ik->jk) (d *(i,ij->ij) X)", "sum(log(1 + exp(X *(ij,j->i) w)))",
             "sum(exp(X *(ij,j->i) w + b *(,i->i) 1))", "det(X *(ij,ik->jk) X)", "inv(X *(ij,ik->jk) X)"]
    f = tc.compile([tc.parse_expr(t, orders) for t in texts])
    assert "_gram(" in f.source and "xp.full((n['X.0'], )" in f.source
    ref = f(X=X, d=d, w=w, b=np.float64(0.3))
    lazy = f(X=da.from_array(X, chunks=(10, 4)), d=da.from_array(d, chunks=10), w=w, b=np.float64(0.3))
    assert all(type(a).__module__.startswith("dask") for a in lazy)
    for a, b in zip(dask.compute(*lazy), ref):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-10, atol=1e-12)


def test_parameter_only_work_stays_numpy(synchronous):
    """In one function of the data and w, lam |w|^2 reads no data: NumPy work where the
    function is called, not a task."""
    orders = {"X": 2, "w": 1, "lam": 0}
    f = tc.compile([tc.parse_expr(t, orders) for t in ("sum(exp(X *(ij,j->i) w))", "lam * sum(w^2)")])
    data, penalty = f(X=da.ones((10, 3), chunks=(5, 3)), w=np.ones(3), lam=np.float64(2.0))
    assert type(data).__module__.startswith("dask")
    assert isinstance(penalty, np.ndarray) and float(penalty) == 6.0


def test_bad_dask_data_is_refused(synchronous):
    X = da.from_array(np.ones((20, 3)), chunks=(5, 3))
    y = da.from_array(np.r_[np.ones(19), np.nan], chunks=5)
    with pytest.raises(SolverError, match=r"data\['y'\] has 1 entries that are NaN"):
        solvers.minimize(_problem("least_squares"), data={"X": X, "y": y})
    counts = da.from_array(np.r_[np.ones(19), -1.0], chunks=5)
    with pytest.raises(SolverError, match=r"parameter 'y' is declared >= 0 but has entries outside \(min -1"):
        solvers.minimize(_problem("poisson_intercept"), data={"X": X, "y": counts, "lam": 1.0})
    unknown = X[X[:, 0] > 0]
    with pytest.raises(SolverError, match="unknown chunk sizes.*compute_chunk_sizes"):
        solvers.minimize(_problem("least_squares"), data={"X": unknown, "y": y})
    text = da.from_array(np.array(["a"] * 20), chunks=5)
    with pytest.raises(SolverError, match=r"data\['y'\] is not an array of numbers"):
        solvers.minimize(_problem("least_squares"), data={"X": X, "y": text})


def test_solve_without_a_cluster(synchronous):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(200, 5)), rng.normal(size=200)
    ref = solvers.minimize(_problem("least_squares"), data={"X": X, "y": y})
    got = solvers.minimize(_problem("least_squares"),
                           data={"X": da.from_array(X, chunks=(50, 5)), "y": da.from_array(y, chunks=50)})
    assert abs(got.fun - ref.fun) <= 1e-10 * abs(ref.fun)
    np.testing.assert_allclose(got.x["w"], ref.x["w"], rtol=1e-9, atol=1e-12)


def _never(block):
    raise AssertionError("analyze computed a Dask chunk")


def test_analyze_never_computes_dask_data():
    X = da.zeros((10_000_000, 100), chunks=(100_000, 100)).map_blocks(_never, dtype=float)
    y = da.zeros(10_000_000, chunks=100_000).map_blocks(_never, dtype=float)
    report = convexcheck.analyze(_problem("logistic_regression_l2"), samples=3,
                                 data={"X": X, "y": y, "s": 1e-7, "lam": 0.1})
    assert report.verdict == "convex"
    with pytest.raises(tc.TensorCalcError, match=r"data\['y'\] has shape \(10000000, 2\)"):
        convexcheck.analyze(_problem("logistic_regression_l2"), data={"X": X, "y": X[:, :2]})


def test_matrix_completion_by_blocks(synchronous):
    """Block Newton on M, Y chunked by rows: the same iterates as with NumPy arrays (the
    U step's per-row blocks are computed per chunk, the V step's sums tree-reduced)."""
    rng = np.random.default_rng(4)
    m, n, r = 40, 12, 2
    M = (rng.uniform(size=(m, n)) < 0.5).astype(float)
    Y = M * (rng.normal(size=(m, r)) @ rng.normal(size=(r, n)))
    x0 = {"U": 0.1 * rng.normal(size=(m, r)), "V": 0.1 * rng.normal(size=(n, r))}
    text = _problem("matrix_factorisation")
    ref = solvers.alternate(text, ["U", "V"], data={"M": M, "Y": Y}, x0=x0, sweeps=6)
    got = solvers.alternate(text, ["U", "V"], x0=x0, sweeps=6,
                            data={"M": da.from_array(M, chunks=(10, n)), "Y": da.from_array(Y, chunks=(10, n))})
    assert got.nit == ref.nit
    assert abs(got.fun - ref.fun) <= 1e-10 * abs(ref.fun)
    np.testing.assert_allclose(got.x["U"], ref.x["U"], rtol=1e-8, atol=1e-10)


def test_numpy_rows_beside_dask_rows_are_chunked_alike(synchronous):
    """y in memory beside X in chunks: y is chunked like X's rows (sent once, not inside
    every evaluation), a Poisson count vector in one chunk is rechunked, small parameters
    stay NumPy."""
    from solvers.task.prepare import prepare
    X = da.from_array(np.random.default_rng(6).normal(size=(60, 3)), chunks=(20, 3))
    counts = da.from_array(np.arange(60.0) % 4, chunks=60)
    task = prepare(_problem("poisson_intercept"), {"X": X, "y": np.asarray(counts), "lam": 0.5})
    assert task.fixed["y"].chunks == ((20, 20, 20),)
    assert isinstance(task.fixed["lam"], np.ndarray)
    task = prepare(_problem("poisson_intercept"), {"X": X, "y": counts, "lam": 0.5})
    assert task.fixed["y"].chunks == ((20, 20, 20),) and task.fixed["X"].chunks == X.chunks


def _leaves(out):
    """The arrays in a computation's (nested) results."""
    if isinstance(out, (list, tuple)):
        return [a for part in out for a in _leaves(part)]
    if isinstance(out, dict):
        return [a for part in out.values() for a in _leaves(part)]
    return [np.asarray(out)]


def test_matrix_completion_row_factor_on_workers(client, monkeypatch):
    """M and Y chunked by rows on two workers: U (m x r) stays a Dask array chunked like
    M's rows, its r x r Newton blocks solved on the workers; the iterates are NumPy's
    (every block step's f to 1e-10) and nothing the client receives (every result of
    every computation, counted at the scheduler's door) is as large as one chunk of U."""
    m, n, r, rows = 4_000, 12, 2, 500
    rng = da.random.default_rng(8)
    M = (rng.uniform(size=(m, n), chunks=(rows, n)) < 0.5).astype(float)
    Y = M * (rng.normal(size=(m, r), chunks=(rows, r)) @ rng.normal(size=(r, n)))
    M, Y = dask.persist(M, Y)
    x0 = {"U": 0.1 * np.random.default_rng(9).normal(size=(m, r)),
          "V": 0.1 * np.random.default_rng(10).normal(size=(n, r))}
    text = _problem("matrix_factorisation")
    ref = solvers.alternate(text, ["U", "V"], data={"M": M.compute(), "Y": Y.compute()}, x0=x0, sweeps=4)
    received = []
    get = client.get

    def counted(self, *args, **kwargs):          # a bound method: persist still goes to client.persist
        out = get(*args, **kwargs)
        received.append(max((a.nbytes for a in _leaves(out)), default=0))
        return out
    monkeypatch.setattr(client, "get", types.MethodType(counted, client))
    with distributed.get_task_stream(client) as stream:
        got = solvers.alternate(text, ["U", "V"], data={"M": M, "Y": Y}, x0=x0, sweeps=4)
    monkeypatch.undo()
    assert got.nit == ref.nit and got.status == ref.status
    for a, b in zip(got.history, ref.history):
        assert a.block == b.block and abs(a.f - b.f) <= 1e-10 * abs(b.f)
        assert a.step == b.step
    assert abs(got.fun - ref.fun) <= 1e-10 * abs(ref.fun)
    U = got.x["U"]
    assert type(U).__module__.startswith("dask") and U.chunks == ((rows,) * (m // rows), (r,))
    np.testing.assert_allclose(U.compute(), ref.x["U"], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(got.x["V"], ref.x["V"], rtol=1e-8, atol=1e-10)
    chunk = rows * r * 8
    assert received and max(received) < chunk, (max(received), chunk)
    solved = [t for t in stream.data if "solved" in distributed.utils.key_split(t["key"])]
    assert {t["worker"] for t in solved} == set(client.scheduler_info()["workers"])


@pytest.mark.parametrize("kind", PROBLEMS)
def test_line_search_trials_reuse_the_products(synchronous, kind, monkeypatch):
    """Data streamed (too large to persist): f(z + t d) for the trials after the first
    from X z and X d, made in one pass over X, each trial then from vectors over the
    rows; equal to the objective's own value."""
    import solvers.task.distributed
    from solvers.task.prepare import prepare
    monkeypatch.setattr(solvers.task.distributed, "fits", lambda nbytes: False)
    from solvers.objective.smooth import Objective
    from solvers.objective.trials import along
    reads = []

    def counted(block):
        reads.append(block.shape)
        return block
    rng = np.random.default_rng(11)
    X = da.from_array(rng.normal(size=(400, 6)) / 3, chunks=(100, 6)).map_blocks(counted, dtype=float)
    y = {"logistic_regression_l2": np.sign(rng.normal(size=400)), "least_squares": rng.normal(size=400),
         "poisson_intercept": rng.poisson(2.0, size=400).astype(float)}[kind]
    extra = {"logistic_regression_l2": {"s": 0.01, "lam": 1e-3}, "poisson_intercept": {"lam": 0.1}}
    obj = Objective(prepare(_problem(kind), {"X": X, "y": y, **extra.get(kind, {})}), np)
    z, d = 0.1 * rng.normal(size=obj.n), rng.normal(size=obj.n)
    trial = along(obj, z, d)
    assert trial is not None
    ts = [1.0, 0.5, 0.25, 0.125, 1e-3]
    expected = [obj.value(z + t * d) for t in ts]
    reads.clear()
    got = [trial(t, z + t * d) for t in ts]
    assert len(reads) == X.numblocks[0], reads           # one pass, for X z and X d together
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert along(obj.__class__(prepare(_problem(kind), {"X": X.compute(), "y": y, **extra.get(kind, {})}), np),
                 z, d) is None                           # NumPy data: trials call obj.value
