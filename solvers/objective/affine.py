"""An affine expression read as numbers: its value at z = 0 and its Jacobian in z (the
free variables' entries, packed in order), by one walk over its nodes with NumPy.

The second-order cones' maps (`cones`) are read this way: a problem with hundreds of small
norm rows would otherwise evaluate a symbolic derivative per row and variable. The walk
knows the nodes of a linear map: free variables, sums, negation, contractions with one
factor that reads the free variables, gathers, and any node free of them (evaluated by
`tensorcalc.numeric.evaluate`'s own rules). For anything else (a node that is not linear
in the free variables) it answers None, and the caller evaluates the derivative instead.
"""
from __future__ import annotations

import math
import string
from typing import Callable, Mapping, NamedTuple, Union

import numpy as np
import scipy.sparse as sp

from tensorcalc import Expr, dag
from tensorcalc.dag import Axis, Const, Elementwise, Gather, Power, Product, Sum, Var
from tensorcalc.gather import affine
from tensorcalc.numeric.evaluate import RULES

Pair = tuple[np.ndarray, "np.ndarray | _Eye | _Cols | _Sparse | None"]   # (value at z = 0, Jacobian; None: constant)
SPARSE = 40_000           # a gather or sum whose dense block would have more entries keeps its Jacobian CSR


class _Shapes:
    """Axis lengths from the arrays' and free variables' shapes (the `env` of evaluate's rules)."""

    def __init__(self, free: Mapping[str, tuple[int, tuple[int, ...]]], arrays: Mapping[str, np.ndarray]):
        self.free, self.arrays = free, arrays

    def length(self, axis: Axis) -> int:
        if "~" in axis.var:
            return int(axis.var.rsplit("~", 1)[1])
        shape = self.free[axis.var][1] if axis.var in self.free else np.shape(self.arrays[axis.var])
        return shape[axis.pos]                            # KeyError: an axis no array fixes

    def shape(self, node: Expr) -> tuple[int, ...]:
        return tuple(self.length(a) for a in node.axes)


def read(expr: Expr, free: Mapping[str, tuple[int, tuple[int, ...]]], arrays: Mapping[str, np.ndarray],
         n: int, sparse: bool = False, dense_limit: float = math.inf
         ) -> tuple[np.ndarray, np.ndarray | sp.csr_matrix] | None:
    """(value at z = 0, Jacobian of shape value.shape + (n,)) of expr, affine in the free
    variables `free` (name: (offset in z, shape)); `arrays` the fixed values; None where a
    node is not one this walk reads (see the module docstring) or an axis has no length.
    With `sparse` the Jacobian is CSR, value.size x n, formed from the columns it reads;
    None as soon as a node's Jacobian is a dense block of more than `dense_limit` entries
    (a caller that wants the CSR only where it is sparse)."""
    env = _Shapes(free, arrays)
    done: dict[Expr, Pair] = {}
    try:
        for node in dag.topo(expr):
            pair = _rule(node, [done[a] for a in node.args], free, arrays, env, n)
            if pair is None or (isinstance(pair[1], (_Cols, np.ndarray)) and _entries(pair[1]) > dense_limit):
                return None
            done[node] = pair
    except KeyError:                 # an axis whose length no array gives: the caller evaluates instead
        return None
    value, jac = done[expr]
    value = np.asarray(value, dtype=float)
    if sparse:
        return value, _csr(jac, value.size, n)
    return value, (np.zeros(np.shape(value) + (n,)) if jac is None else _dense(jac))


def _entries(j: "_Cols | np.ndarray") -> int:
    return j.block.size if isinstance(j, _Cols) else j.size


class _Eye(NamedTuple):
    """A free variable's Jacobian, sign times the identity on its columns of z, kept
    unformed: a gather of a few of its entries (x[0:4, t] of a 4 x 1,000 state) then forms
    its few rows, not the variable's size times n."""

    offset: int
    shape: tuple[int, ...]
    n: int
    sign: float = 1.0

    def dense(self) -> np.ndarray:
        size = math.prod(self.shape)
        jac = np.zeros((size, self.n))
        jac[:, self.offset:self.offset + size] = self.sign * np.eye(size)
        return jac.reshape(self.shape + (self.n,))

    def compressed(self) -> _Cols:
        size = math.prod(self.shape)
        return _Cols(np.arange(self.offset, self.offset + size), self.sign * np.eye(size).reshape(self.shape + (size,)),
                     self.n)

    def gathered(self, take: Callable[[np.ndarray], np.ndarray]) -> _Cols | _Sparse:
        """The Jacobian of take(x): each output entry's one input entry (or none outside
        the gather's domain) as sign in that entry's column; CSR where the dense block
        would pass SPARSE entries (x[2:] - 2 x[1:-1] + x[:-2] of a 2,000-vector)."""
        taken_from = take(np.arange(math.prod(self.shape), dtype=float).reshape(self.shape))
        index = taken_from.reshape(-1)
        weight = self.sign * take(np.ones(self.shape)).reshape(-1)
        rows = np.nonzero(weight)[0]
        taken = self.offset + index[rows].astype(np.intp)
        if index.size * min(index.size, math.prod(self.shape)) > SPARSE:
            matrix = sp.csr_matrix((weight[rows], (rows, taken)), shape=(index.size, self.n))
            return _Sparse(matrix, taken_from.shape)
        cols = np.unique(taken)
        block = np.zeros((index.size, cols.size))
        block[rows, np.searchsorted(cols, taken)] = weight[rows]
        return _Cols(cols, block.reshape(taken_from.shape + (cols.size,)), self.n)


class _Cols(NamedTuple):
    """A Jacobian that reads only the columns `cols` of z (sorted, distinct): `block` has
    the value's shape plus one axis per column (a constraint block of a Kalman smoother:
    4 rows by the 28 columns it reads, not by all 8,004)."""

    cols: np.ndarray
    block: np.ndarray
    n: int

    def dense(self) -> np.ndarray:
        full = np.zeros(self.block.shape[:-1] + (self.n,))
        full[..., self.cols] = self.block
        return full


class _Sparse(NamedTuple):
    """A Jacobian kept as CSR, one row per entry of the value (of `shape`, C order), n
    columns: a long gather and the sums, negations and entrywise scalings of such, whose
    dense block would grow with the value's size times the columns it reads."""

    matrix: sp.csr_matrix
    shape: tuple[int, ...]

    def dense(self) -> np.ndarray:
        return self.matrix.toarray().reshape(self.shape + (self.matrix.shape[1],))

    def compressed(self) -> _Cols:
        cols = np.unique(self.matrix.indices)
        block = self.matrix[:, cols].toarray()
        return _Cols(cols, block.reshape(self.shape + (cols.size,)), self.matrix.shape[1])


Jacobian = Union[np.ndarray, _Eye, _Cols, _Sparse]


def _dense(j: Jacobian) -> np.ndarray:
    return j if isinstance(j, np.ndarray) else j.dense()


def _compressed(j: Jacobian) -> _Cols:
    if isinstance(j, _Cols):
        return j
    return j.compressed() if isinstance(j, (_Eye, _Sparse)) else _Cols(np.arange(j.shape[-1]), j, j.shape[-1])


def _shape_of(j: Jacobian) -> tuple[int, ...]:
    if isinstance(j, (_Eye, _Sparse)):
        return j.shape
    return j.block.shape[:-1] if isinstance(j, _Cols) else j.shape[:-1]


def _as_csr(j: Jacobian) -> sp.csr_matrix:
    """A Jacobian as CSR, its value's size x n (not broadcast: the caller checks shapes)."""
    if isinstance(j, _Sparse):
        return j.matrix
    if isinstance(j, _Eye):
        size = math.prod(j.shape)
        return sp.csr_matrix((np.full(size, j.sign), (np.arange(size), np.arange(j.offset, j.offset + size))),
                             shape=(size, j.n))
    return _block_csr(_compressed(j), math.prod(_shape_of(j)))


def _block_csr(c: _Cols, size: int) -> sp.csr_matrix:
    """A column-compressed Jacobian as CSR, size x n, from its nonzeros (`size`: its value's
    entries, to which the block broadcasts)."""
    block = np.broadcast_to(c.block, c.block.shape).reshape(size, c.cols.size)
    rows, at = np.nonzero(block)
    return sp.csr_matrix((block[rows, at], (rows, c.cols[at])), shape=(size, c.n))


def _csr(jac: Jacobian | None, size: int, n: int) -> sp.csr_matrix:
    """The Jacobian as CSR, size x n, from the columns it reads."""
    if jac is None:
        return sp.csr_matrix((size, n))
    if isinstance(jac, (_Sparse, _Eye)) and math.prod(jac.shape) == size:
        return _as_csr(jac)
    return _block_csr(_compressed(jac), size)


def _rule(node: Expr, args: list[Pair], free, arrays, env: _Shapes, n: int) -> Pair | None:
    if isinstance(node, Var) and node.name in free:
        offset, shape = free[node.name]
        return np.zeros(shape), _Eye(offset, tuple(shape), n)
    if all(j is None for _, j in args):
        if isinstance(node, Var):
            return np.asarray(arrays[node.name], dtype=float), None
        if isinstance(node, Const):
            return np.broadcast_to(np.float64(node.value), env.shape(node)), None
        if isinstance(node, Product):            # np.einsum: opt_einsum's planning costs more on small operands
            return _einsum(f"{','.join(node.spec.inputs)}->{node.spec.out}", [v for v, _ in args]), None
        return np.asarray(RULES[type(node)](node, [v for v, _ in args], env)), None
    return _linear(node, args, n)


def _linear(node: Expr, args: list[Pair], n: int) -> Pair | None:
    """A node with an argument that reads the free variables, where the node is linear in it."""
    if isinstance(node, Sum):
        (a, ja), (b, jb) = args
        return _sum(a + b, ja, jb)
    (x, jx) = args[0]
    if jx is None:                    # the first argument constant: only a product may read another linearly
        return _product(node, args) if isinstance(node, Product) else None
    if isinstance(node, Elementwise) and node.fn == "neg":
        return -x, _negated(jx)
    if isinstance(node, Product):
        return _product(node, args)
    if isinstance(node, Gather):
        g = node
        take = lambda a: affine.take(np, np.asarray(a), g.batch, g.shape, g.rows, g.domain)   # noqa: E731
        if isinstance(jx, _Eye):
            return take(x), jx.gathered(take)
        if isinstance(jx, _Sparse):
            return take(x), _taken(jx, take)
        if isinstance(jx, _Cols):
            return take(x), _Cols(jx.cols, np.moveaxis(take(np.moveaxis(jx.block, -1, 0)), 0, -1), n)
        return take(x), np.moveaxis(take(np.moveaxis(jx, -1, 0)), 0, -1)
    if isinstance(node, Power) and args[1][1] is None and np.all(np.asarray(args[1][0]) == 1.0):
        return args[0]
    return None


def _taken(j: _Sparse, take: Callable[[np.ndarray], np.ndarray]) -> _Sparse:
    """The CSR Jacobian of a gather of a value whose Jacobian is CSR: the rows it takes,
    times the gather's weights (0 outside its domain)."""
    position = take(np.arange(math.prod(j.shape), dtype=float).reshape(j.shape))
    weight = take(np.ones(j.shape)).reshape(-1)
    picked = j.matrix[position.reshape(-1).astype(np.intp)]
    return _Sparse(sp.csr_matrix(sp.diags(weight) @ picked), position.shape)


def _negated(j: Jacobian) -> Jacobian:
    if isinstance(j, _Eye):
        return j._replace(sign=-j.sign)
    if isinstance(j, _Sparse):
        return j._replace(matrix=-j.matrix)
    return _Cols(j.cols, -j.block, j.n) if isinstance(j, _Cols) else -j


def _sum(value, ja: Jacobian | None, jb: Jacobian | None) -> Pair:
    """A sum's (value, Jacobian): a lone Jacobian of the value's shape passed on, two
    merged on the union of the columns they read."""
    shape = np.shape(value)
    if ja is None or jb is None:
        j = ja if jb is None else jb
        assert j is not None
        if _shape_of(j) == shape:
            return value, j
        c = _compressed(j)
        return value, _Cols(c.cols, np.broadcast_to(c.block, shape + c.cols.shape), c.n)
    if _shape_of(ja) == _shape_of(jb) == shape and (
            isinstance(ja, _Sparse) or isinstance(jb, _Sparse) or _union(ja, jb) * math.prod(shape) > SPARSE):
        return value, _Sparse(sp.csr_matrix(_as_csr(ja) + _as_csr(jb)), shape)
    ca, cb = _compressed(ja), _compressed(jb)
    cols = np.union1d(ca.cols, cb.cols)
    block = np.zeros(shape + cols.shape)
    for c in (ca, cb):
        block[..., np.searchsorted(cols, c.cols)] += np.broadcast_to(c.block, shape + c.cols.shape)
    return value, _Cols(cols, block, ca.n)


def _union(ja: Jacobian, jb: Jacobian) -> int:
    """An upper bound on the columns two Jacobians read together."""
    return sum(math.prod(j.shape) if isinstance(j, _Eye) else
               (j.cols.size if isinstance(j, _Cols) else j.shape[-1]) for j in (ja, jb))


def _product(node: Product, args: list[Pair]) -> Pair | None:
    reading = [k for k, (_, j) in enumerate(args) if j is not None]
    if len(reading) != 1:
        return None                                   # a product of two free factors is not affine
    k = reading[0]
    spec = node.spec
    jk = args[k][1]
    if isinstance(jk, _Eye) and (found := _of_variable(spec, k, [v for v, _ in args], jk)) is not None:
        return found
    if isinstance(jk, _Eye) and math.prod(jk.shape) ** 2 > SPARSE:      # d .* x of a long x: a diagonal, not dense
        jk = _Sparse(_as_csr(jk), jk.shape)
    if isinstance(jk, _Sparse) and (found := _of_sparse(spec, k, [v for v, _ in args], jk)) is not None:
        return found
    extra = next(c for c in string.ascii_letters if c not in "".join(spec.inputs) + spec.out)
    inputs = [s + extra if i == k else s for i, s in enumerate(spec.inputs)]
    values = [v for v, _ in args]
    value = _einsum(f"{','.join(spec.inputs)}->{spec.out}", values)
    assert jk is not None
    c = _compressed(jk)
    block = _einsum(f"{','.join(inputs)}->{spec.out}{extra}", [c.block if i == k else v for i, v in enumerate(values)])
    return value, _Cols(c.cols, block, c.n)


def _of_variable(spec, k: int, values: list, eye: _Eye) -> Pair | None:
    """(value, Jacobian) of a product whose factor k is a free variable x (its Jacobian
    sign times the identity): the Jacobian is the product of the other factors with x's
    letters left open (A x: A itself) on x's columns; no product with an identity of x's
    size squared (a 1,998 x 2,000 A took 12 s that way). None where a letter of x is
    repeated, kept in the output, or read by no other factor (the general rule then applies)."""
    own = spec.inputs[k]
    others = [s for i, s in enumerate(spec.inputs) if i != k]
    if len(set(own)) != len(own) or set(own) & set(spec.out) or not set(own) <= set("".join(others)):
        return None
    rest = [v for i, v in enumerate(values) if i != k]
    value = _einsum(f"{','.join(spec.inputs)}->{spec.out}", values)
    local = _einsum(f"{','.join(others)}->{spec.out}{own}", rest)       # out + x's shape
    size = math.prod(eye.shape)
    cols = np.arange(eye.offset, eye.offset + size)
    return value, _Cols(cols, eye.sign * local.reshape(np.shape(value) + (size,)), eye.n)


def _of_sparse(spec, k: int, values: list, jk: _Sparse) -> Pair | None:
    """(value, CSR Jacobian) of a product linear in factor k, whose Jacobian is CSR: an
    entrywise scaling (factor k's letters are the output's, in order) scales its rows;
    a contraction of all of k's letters (A v) multiplies it by the map A. None for the
    others (transposes, broadcasts: the dense rule applies)."""
    own, out = spec.inputs[k], spec.out
    others = [s for i, s in enumerate(spec.inputs) if i != k]
    rest = [v for i, v in enumerate(values) if i != k]
    if len(set(own)) != len(own) or not set("".join(others)) <= set(own) | set(out):
        return None
    value = _einsum(f"{','.join(spec.inputs)}->{out}", values)
    if own == out:
        ones = [np.ones(jk.shape) if i == k else v for i, v in enumerate(values)]
        scale = np.broadcast_to(_einsum(f"{','.join(spec.inputs)}->{out}", ones), np.shape(value)).reshape(-1)
        return value, _Sparse(sp.csr_matrix(sp.diags(scale) @ jk.matrix), np.shape(value))
    if set(own) & set(out) or not set(own) <= set("".join(others)):
        return None
    local = _einsum(f"{','.join(others)}->{out}{own}", rest).reshape(np.size(value), math.prod(jk.shape))
    return value, _Sparse(sp.csr_matrix(sp.csr_matrix(local) @ jk.matrix), np.shape(value))


def _einsum(spec: str, operands: list) -> np.ndarray:
    """np.einsum, with a contraction order planned for more than two operands."""
    return np.einsum(spec, *operands, optimize=len(operands) > 2)
