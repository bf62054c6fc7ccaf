"""The array module of compiled functions called with Dask arrays (data chunked by rows).

`runtime.array_module` chooses it when an argument is a Dask array. Generated code calls
`xp.<function>` for every array operation; here each call goes to `dask.array` when one
of its arguments is a Dask array and to NumPy otherwise. So the work that reads only
small NumPy arrays (the variables being optimised: a regulariser, an n x n term) runs
once, eagerly, where the function is called, and only the work that reads the data
becomes tasks, one per chunk. A contraction over the chunked row axis is a contraction
per chunk followed by a tree reduction (`dask.array.tensordot`, `matmul` and `sum` build
it that way; `runtime.Contraction` plans it with opt_einsum), so only reduced arrays are
ever brought back. Nothing here computes: the caller computes every output of a call in
one `dask.compute`.

Two operations are written here rather than forwarded:
- `full(shape, value)`: a constant array with a chunked axis (a vector of ones over the
  rows) gets that axis's chunks, so it is made on the workers beside the chunks it
  meets, never as one array where the function is called;
- `gram(x, d)`: x^T diag(d) x as one symmetric rank-k update per chunk (`gram.gram`
  on NumPy blocks) and a tree sum of the n x n results, half the work of a general
  product per chunk.
`whole(fn, a)` runs a NumPy matrix function (det, inv) on a small Dask array as one task.

This module imports Dask; it is only imported once a Dask array has been seen.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import dask
import dask.array as da
import numpy as np

from tensorcalc.arrays import Array, ArrayModule, is_dask
from tensorcalc.codegen.gram import gram
from tensorcalc.memo import memoized


def module(values: Mapping[str, Any]) -> "Chunked":
    """The module for one call: the chunking of every chunked axis of the Dask arguments,
    by axis length (a constant array of that length takes those chunks)."""
    chunks: dict[int, tuple[int, ...]] = {}
    for value in values.values():
        if is_dask(value):
            for length, axis_chunks in zip(value.shape, value.chunks):
                if len(axis_chunks) > 1:
                    chunks.setdefault(length, axis_chunks)
    return _module(tuple(sorted(chunks.items())))


@memoized(maxsize=16)
def _module(chunks: tuple[tuple[int, tuple[int, ...]], ...]) -> "Chunked":
    return Chunked(dict(chunks))


class Chunked:
    """`dask.array` for calls with a Dask argument, NumPy for the others (see the module)."""

    def __init__(self, chunks: dict[int, tuple[int, ...]]) -> None:
        self.chunks = chunks

    def __getattr__(self, name: str) -> Callable[..., Any]:
        numpy_fn, dask_fn = getattr(np, name), getattr(da, name, None)

        def call(*args: Any, **kwargs: Any) -> Any:
            chosen = dask_fn if dask_fn is not None and any(map(is_dask, args)) else numpy_fn
            return chosen(*args, **kwargs)
        call.__name__ = name
        self.__dict__[name] = call                   # looked up once per name
        return call

    def of(self, *arrays: Array) -> ArrayModule:
        """NumPy when none of `arrays` is a Dask array, else this module."""
        return self if any(map(is_dask, arrays)) else np

    def full(self, shape: tuple[int, ...], value: float) -> Array:
        """A constant array; chunked like the data along an axis of a chunked length."""
        if not any(length in self.chunks for length in shape):
            return np.full(shape, value)
        return da.full(shape, value, chunks=tuple(self.chunks.get(n, n) for n in shape))

    def gram(self, x: Array, d: Array, axis: int) -> Array:
        """x^T diag(d) x for axis 0 (rows summed); a general product for axis 1."""
        if axis != 0 or not is_dask(x):
            return da.matmul(x * d[None, :], da.transpose(x)) if axis else \
                da.matmul(da.transpose(x * d[:, None]), x)
        x = x.rechunk({1: -1})
        d = da.asarray(d).rechunk((x.chunks[0],))
        n = x.shape[1]
        parts = da.map_blocks(_block_gram, x, d[:, None], new_axis=2, dtype=np.float64,
                              chunks=((1,) * x.numblocks[0], (n,), (n,)))
        return parts.sum(axis=0)

    def whole(self, fn: Callable[[np.ndarray], np.ndarray], a: Array) -> Array:
        """fn(a) for a NumPy function of one small array, as one task on the whole of a;
        the result's shape is fn's at an identity matrix of a's shape."""
        if not is_dask(a):
            return fn(a)
        shape = np.shape(fn(np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()))
        return da.from_delayed(dask.delayed(fn)(a), shape, dtype=np.float64)


SLAB_ENTRIES = 1 << 20      # rows of a chunk taken at a time by `_block_gram`: 8 MB of float64


def _block_gram(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    """x^T diag(d) x of one chunk, slab by slab of rows: the scaled copy each syrk reads
    stays a few MB, reused, where one of the whole chunk (hundreds of MB, freshly mapped
    at every evaluation) costs more in page faults than the product itself."""
    step = max(1, SLAB_ENTRIES // max(1, x.shape[1]))
    total = np.zeros((x.shape[1], x.shape[1]))
    for k in range(0, x.shape[0], step):
        total += gram(x[k:k + step], d[k:k + step, 0], 0)
    return total[None]
