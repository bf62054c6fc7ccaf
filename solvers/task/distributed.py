"""Data given as Dask arrays: a solve whose rows are chunked over a cluster.

Data arrays (X, y, weights) may be Dask arrays chunked by rows; the variables being
optimised stay NumPy arrays on the client. Nothing here gathers a chunk:

- `lazy(value, where)` is what `solvers.task.prepare` keeps instead of a NumPy copy: the array
  as float64, its dtype and shape checked, nothing computed.
- `prepared(arrays, declarations)`, once per solve: axes of one named dimension get the
  same chunks (the largest array's), and NumPy arrays along a chunked dimension become
  Dask arrays chunked alike. With a `dask.distributed` client whose workers have room
  (half their memory limits together), the arrays are persisted on the workers and every
  later evaluation reads the persisted chunks; without room, or without a distributed
  client, each evaluation streams the data from its source (files, `da.random`). Then
  one `dask.compute` checks what `prepare` checks of NumPy data (finite entries,
  declared bounds) as reductions.
- `evaluated(program, values)`: the outputs of one compiled call (f, g and H, or H v) in
  one `dask.compute`. The compiled functions (`tensorcalc.codegen.chunked`) contract each chunk
  and tree-sum the results on the workers, so only those reduced arrays reach the
  client, where the small Newton system is solved.
- `kept(value)`: a hoisted invariant (a part of the objective that reads only data): a
  reduced one (one block, X^T X) is computed once, a chunked one (-y) persisted beside
  the data when they are persisted.

Dask is imported only when a Dask array is seen; `pip install 'convexcheck[dask]'`.
"""
from __future__ import annotations

import uuid
from types import ModuleType
from typing import Any, Callable, Mapping

import numpy as np

from convexcheck.problem.admissible import in_bounds
from convexcheck.problem.model import Declaration
from solvers.task.records import SolverError, check_real
from tensorcalc.arrays import is_dask

REDUCED_BYTES = 1 << 26        # a hoisted invariant this small, in one block, comes to the client
ROOM = 0.5                     # the share of the workers' memory persisted data may take


def lazy(value: Any, where: str) -> Any:
    """`value` (a Dask array) as float64, checked without computing: real dtype, known
    chunk sizes."""
    if not hasattr(value, "chunks"):
        raise SolverError(f"{where} is a Dask {type(value).__name__}, not a Dask array: pass "
                          f"dask.array data (for a DataFrame, df.to_dask_array(lengths=True))")
    check_real(np.dtype(value.dtype), where)
    if any(np.isnan(length) for length in value.shape):
        raise SolverError(f"{where} has unknown chunk sizes (shape {value.shape}): call "
                          f"{where.split('[')[0]}.compute_chunk_sizes() or build it with known lengths")
    return value.astype(np.float64)


def prepared(arrays: dict[str, Any], declarations: Mapping[str, Declaration]) -> dict[str, Any]:
    """`arrays` with the Dask ones aligned, persisted where they fit (see the module
    docstring) and checked in one computation: finite entries, declared bounds;
    SolverError naming the array and the fix otherwise. A NumPy array along a chunked
    dimension (y given in memory beside X on the cluster) is chunked like the Dask data
    and goes with it, once, rather than inside every evaluation's graph; the other NumPy
    arrays (small parameters) pass through."""
    if not any(map(is_dask, arrays.values())):
        return arrays
    import dask
    import dask.array as da
    chunks = _chunks({n: a for n, a in arrays.items() if is_dask(a)}, declarations)
    arrays = dict(arrays)
    for name, a in arrays.items():
        dims = declarations[name].dims
        if is_dask(a) or any(len(chunks.get(d, ())) > 1 for d in dims):
            wanted = tuple(chunks.get(d, (n,)) for d, n in zip(dims, a.shape))
            arrays[name] = da.from_array(a, chunks=wanted) if not is_dask(a) else \
                a if a.chunks == wanted else a.rechunk(wanted)
    names = [n for n, a in arrays.items() if is_dask(a)]
    for name in names:
        if declarations[name].attributes.is_symmetric:
            raise SolverError(f"data[{name!r}] is declared {declarations[name].attributes.describe()}: "
                              f"pass it as a NumPy array (its symmetry and eigenvalues are checked "
                              f"whole); Dask arrays are for data chunked by rows")
    if fits(sum(arrays[n].nbytes for n in names)):
        arrays.update(zip(names, dask.persist(*(arrays[n] for n in names))))
    _check(arrays, names, declarations)
    return arrays


def _chunks(arrays: dict, declarations: Mapping[str, Declaration]) -> dict[str | int, tuple[int, ...]]:
    """The chunks of each named dimension: those of the largest Dask array along it
    (axes of one dimension must share chunks, else every evaluation rechunks them)."""
    chunks: dict[str | int, tuple[int, ...]] = {}
    for name in sorted(arrays, key=lambda n: -arrays[n].nbytes):
        for dim, axis_chunks in zip(declarations[name].dims, arrays[name].chunks):
            if isinstance(dim, str):
                chunks.setdefault(dim, axis_chunks)
    return chunks


def _check(arrays: dict, names: list[str], declarations: Mapping[str, Declaration]) -> None:
    import dask
    import dask.array as da
    tests = {}
    for name in names:
        a, attributes = arrays[name], declarations[name].attributes
        tests[name] = (da.count_nonzero(~da.isfinite(a)), a.min(), a.max()) \
            if attributes.lower is not None or attributes.upper is not None else \
            (da.count_nonzero(~da.isfinite(a)),)
    results = dask.compute(tests)[0]
    for name in names:
        bad, *extremes = results[name]
        if bad:
            raise SolverError(f"data[{name!r}] has {int(bad)} entries that are NaN or infinite: "
                              f"clean or impute the data first")
        attributes = declarations[name].attributes
        if extremes and not (in_bounds(attributes, np.asarray(extremes))):
            raise SolverError(f"parameter {name!r} is declared {attributes.describe()} but has "
                              f"entries outside (min {extremes[0]:g}, max {extremes[1]:g})")


def fits(nbytes: int) -> bool:
    """Whether a distributed client is active and its workers' memory limits together,
    times ROOM, hold `nbytes` (a worker without a limit counts as room enough)."""
    active = client()
    if active is None:
        return False
    limits = [w.get("memory_limit") or 0 for w in active.scheduler_info()["workers"].values()]
    return bool(limits) and (0 in limits or nbytes <= ROOM * sum(limits))


def client() -> Any:
    """The active `dask.distributed` client, or None (none started, or distributed not installed)."""
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):         # no distributed, or no client started
        return None


def placed(xp: ModuleType, name: str, array: Any) -> Any:
    """A data array as the objective keeps it: a Dask array as it is (CPU only)."""
    if xp is not np:
        raise SolverError(f"data[{name!r}] is a Dask array: solve with device='cpu' (the chunks "
                          f"are NumPy arrays on the workers)")
    return array


def evaluated(program: Callable[[dict[str, Any]], Any], values: dict) -> Any:
    """program(values), every Dask output computed in one `dask.compute`.

    The Dask inputs are first renamed for this evaluation (one task per chunk handing the
    chunk on), so the keys of one evaluation's tasks never name the differently fused
    tasks of another at the same point (a value after a Hessian), which the scheduler
    warns "can cause failures and deadlocks" (dask/dask#9888). Inputs that are not
    persisted (data streamed from their source) are computed without graph optimisation:
    fusing their generation into each consumer would make it twice per evaluation, under
    keys that differ from one evaluation to the next."""
    if not any(map(is_dask, values.values())):
        return program(values)
    import dask
    outputs, streamed = lazily(program, values)
    return dask.compute(*outputs, optimize_graph=not streamed)


def lazily(program: Callable[[dict[str, Any]], Any], values: dict) -> tuple[Any, bool]:
    """(program's outputs as Dask graphs, computed nothing; whether an input is streamed):
    the inputs renamed for this evaluation, as `evaluated` computes them. The caller
    computes or persists the outputs, with graph optimisation only when not streamed."""
    salt = uuid.uuid4().hex[:12]
    streamed = any(is_dask(v) and not persisted(v) for v in values.values())
    values = {k: _renamed(v, salt) if is_dask(v) else v for k, v in values.items()}
    return program(values), streamed


def persisted(a: Any) -> bool:
    """Whether the graph of `a` is its chunks only (persisted, or futures)."""
    return len(a.__dask_graph__()) == a.npartitions


def _renamed(a, salt: str):
    return a.map_blocks(_same, name=f"evaluation-{salt}-{a.name}", dtype=a.dtype, meta=a._meta)


def _same(block):
    return block


def kept(value: Any) -> Any:
    """A hoisted invariant as the solve keeps it (see the module docstring)."""
    if not is_dask(value):
        return value
    if all(k == 1 for k in value.numblocks) and value.nbytes <= REDUCED_BYTES:
        return value.compute()
    return value.persist() if fits(value.nbytes) else value
