"""Runtime support for compiled functions: the helpers generated code calls.

Each takes the array module `xp` that `array_module` chose, so the same code runs on
NumPy, CuPy and other array modules.
"""
from __future__ import annotations

import sys
from typing import Any, Mapping

import numpy as np
import opt_einsum

from tensorcalc.arrays import Array, ArrayModule, is_cupy, is_dask
from tensorcalc.codegen.gram import gram as numpy_gram
from tensorcalc.numeric.evaluate import SPECIAL_FUNCTIONS, huber  # noqa: F401 - called by generated code
from tensorcalc.numeric.evaluate import delta_tensor as delta  # noqa: F401 - called by generated code
from tensorcalc.numeric.minors import EXACT, adjugate


def array_module(values: Mapping[str, Any]) -> ArrayModule:
    """The array module of the arguments, the one place a backend is chosen: CuPy for
    CuPy arrays, `chunked` (Dask for Dask arrays, NumPy for the rest) when one is a Dask
    array, the Array-API namespace of arrays that have one (JAX, NumPy >= 2), else NumPy.
    The choice depends on the arguments' types alone (a Dask one aside, whose chunks
    count), so it is made once per set of types."""
    types = frozenset(map(type, values.values()))
    found = _BY_TYPES.get(types)
    if found is None:
        found = _module_of(values)
        if found is not _DASK:
            if len(_BY_TYPES) >= 64:
                _BY_TYPES.clear()
            _BY_TYPES[types] = found
    if found is _DASK:
        from tensorcalc.codegen import chunked  # imports Dask, only once a Dask array is seen
        return chunked.module(values)
    return found


_DASK = object()                 # `_module_of`'s answer where a Dask array decides
_BY_TYPES: dict[frozenset, Any] = {}


def _module_of(values: Mapping[str, Any]) -> ArrayModule:
    if any(is_dask(value) for value in values.values()):
        return _DASK
    for value in values.values():
        if is_cupy(value):
            return sys.modules["cupy"]
        namespace = getattr(value, "__array_namespace__", None)
        if namespace is not None and not isinstance(value, np.ndarray):
            return namespace()
    return np


def narrowed(xp: ArrayModule, *arrays: Array) -> ArrayModule:
    """The module for `arrays`: a mixed module (`chunked`) is NumPy for NumPy arrays."""
    of = getattr(xp, "of", None)
    return of(*arrays) if of is not None else xp


def out(xp: ArrayModule, value: Array | float, shape: tuple[int, ...], copy: bool) -> Array:
    """Outputs are arrays of their full shape that the caller owns (never an input)."""
    if not shape and isinstance(value, float):       # a scalar output (the value): no broadcast
        return xp.array(value, dtype=float)
    if isinstance(value, float) or getattr(value, "shape", None) != shape:
        return xp.array(xp.broadcast_to(xp.asarray(value, dtype=float), shape))
    return xp.array(value) if copy else value


def embed(xp: ArrayModule, value: Array, shape: tuple[int, ...], out: str, letters: str,
          pairs: tuple[tuple[str, str], ...]) -> Array:
    """value[letters] times delta(carried, free) for each pair, as an array over `out`:
    zeros with `value` written on a diagonal, as a closed form writes the per-row blocks
    of a block-diagonal Hessian. Other array modules contract with identity matrices."""
    xp = narrowed(xp, value)
    if xp is not np:
        sizes = dict(zip(letters, value.shape))
        eyes = [xp.eye(sizes[a]) for a, _ in pairs]
        spec = ",".join([letters] + [a + b for a, b in pairs])
        return xp.einsum(f"{spec}->{out}", value, *eyes)
    alias = {free: carried for carried, free in pairs}
    view = "".join(alias.get(c, c) for c in out)
    unique = "".join(dict.fromkeys(view))
    result = np.zeros(shape)
    np.einsum(f"{view}->{unique}", result)[...] = np.einsum(f"{letters}->{unique}", value)
    return result


def weigh(xp: ArrayModule, host: Array, weight: Array, host_letters: str, weight_letters: str) -> Array:
    """host * weight, the weight's axes aligned to the host's by letter."""
    kept = [c for c in host_letters if c in weight_letters]
    aligned = xp.transpose(weight, tuple(weight_letters.index(c) for c in kept))
    shape = tuple(host.shape[k] if c in weight_letters else 1 for k, c in enumerate(host_letters))
    return host * xp.reshape(aligned, shape)


def gram(xp: ArrayModule, x: Array, d: Array, axis: int) -> Array:
    """x^T diag(d) x (axis 0 summed) or x diag(d) x^T (axis 1). With NumPy and weights of
    one sign, as the sqrt(d)-scaled Gram matrix b^T b, which BLAS computes as a symmetric
    rank-k update (syrk) at half the cost of a general product; otherwise as one, or as
    the array module's own `gram` where it has one (Dask: one syrk per chunk)."""
    xp = narrowed(xp, x, d)
    if hasattr(xp, "gram"):
        return xp.gram(x, d, axis)
    if xp is np:
        return numpy_gram(x, d, axis)
    if axis == 0:
        return xp.matmul(xp.transpose(x * d[:, None]), x)
    return xp.matmul(x * d[None, :], xp.transpose(x))


def special(fn: str, xp: ArrayModule, a: Array) -> Array:
    """det, inv, adj, or an exact node of `minors` (the derivative of adj). adj and the
    exact nodes run the same SVD-based code on every array module (exact at singular
    matrices; never det * inv); det and inv are NumPy's through `evaluation` (a singular
    inv is a DomainError), other modules' own linalg; a Dask array (a small reduced
    matrix) as NumPy's in one task."""
    xp = narrowed(xp, a)
    if hasattr(xp, "whole"):
        return xp.whole(lambda b: special(fn, np, b), a)
    if fn in EXACT:
        return EXACT[fn](a, xp)
    if fn == "adj":
        return adjugate(a, xp)
    if xp is np:
        return SPECIAL_FUNCTIONS[fn](a)
    return getattr(xp.linalg, fn)(a)


class Contraction:
    """One einsum equation; its contraction path is computed once per shape signature.
    Letters that occur once in the inputs and not in the output are summed out of their
    operand first: 'ij,kl->li' is two row sums and an outer product, not an n^4 loop.
    With a Dask operand every pairwise step of the path is Dask's (per-chunk contractions,
    tree-summed over a chunked index), whatever the type of the first operand."""

    def __init__(self, equation: str) -> None:
        inputs, out = equation.split("->")
        operands = inputs.split(",")
        alone = {c for c in inputs if inputs.count(c) == 1 and c not in out}
        self.sums = [tuple(k for k, c in enumerate(s) if c in alone) for s in operands]
        self.equation = ",".join("".join(c for c in s if c not in alone) for s in operands) + "->" + out
        self.cache: dict[tuple, Any] = {}
        # one operand whose sums leave exactly the output ('ij->i', 'i->'): nothing to contract
        self.summed_only = len(operands) == 1 and bool(self.sums[0]) and self.equation == f"{out}->{out}"

    def __call__(self, *arrays: Array) -> Array:
        summed = [a.sum(axis=axes) if axes else a for a, axes in zip(arrays, self.sums)]
        if self.summed_only:
            return summed[0]
        shapes = tuple(a.shape for a in summed)
        expression = self.cache.get(shapes)
        if expression is None:
            expression = opt_einsum.contract_expression(self.equation, *shapes, optimize="auto")
            self.cache[shapes] = expression
        return expression(*summed, backend="dask" if any(map(is_dask, summed)) else "auto")
