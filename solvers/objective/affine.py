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
from typing import Callable, Mapping, NamedTuple

import numpy as np

from tensorcalc import Expr, dag
from tensorcalc.dag import Axis, Const, Elementwise, Gather, Power, Product, Sum, Var
from tensorcalc.gather import affine
from tensorcalc.numeric.evaluate import RULES

Pair = tuple[np.ndarray, "np.ndarray | _Eye | None"]   # (value at z = 0, Jacobian or None where constant)


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
         n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(value at z = 0, Jacobian of shape value.shape + (n,)) of expr, affine in the free
    variables `free` (name: (offset in z, shape)); `arrays` the fixed values; None where a
    node is not one this walk reads (see the module docstring) or an axis has no length."""
    env = _Shapes(free, arrays)
    done: dict[Expr, Pair] = {}
    try:
        for node in dag.topo(expr):
            pair = _rule(node, [done[a] for a in node.args], free, arrays, env, n)
            if pair is None:
                return None
            done[node] = pair
    except KeyError:                 # an axis whose length no array gives: the caller evaluates instead
        return None
    value, jac = done[expr]
    return np.asarray(value, dtype=float), (np.zeros(np.shape(value) + (n,)) if jac is None else _dense(jac))


class _Eye(NamedTuple):
    """A free variable's Jacobian, the identity on its columns of z, kept unformed: a gather
    of a few of its entries (x[0:4, t] of a 4 x 1,000 state) then forms its few rows, not
    the variable's size times n."""

    offset: int
    shape: tuple[int, ...]
    n: int

    def dense(self) -> np.ndarray:
        size = math.prod(self.shape)
        jac = np.zeros((size, self.n))
        jac[:, self.offset:self.offset + size] = np.eye(size)
        return jac.reshape(self.shape + (self.n,))

    def gathered(self, take: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """The Jacobian of take(x): each output entry's one input entry (or none outside
        the gather's domain) as a 1 in that entry's column."""
        index = take(np.arange(math.prod(self.shape), dtype=float).reshape(self.shape))
        inside = take(np.ones(self.shape))
        jac = np.zeros((index.size, self.n))
        jac[np.arange(index.size), self.offset + index.reshape(-1).astype(np.intp)] = inside.reshape(-1)
        return jac.reshape(index.shape + (self.n,))


def _dense(j):
    return j.dense() if isinstance(j, _Eye) else j


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
        value = a + b
        jac = sum((np.broadcast_to(_dense(j), np.shape(value) + (n,)) for j in (ja, jb) if j is not None),
                  np.zeros(()))
        return value, jac
    (x, jx) = args[0]
    if jx is None:                    # the first argument constant: only a product may read another linearly
        return _product(node, args) if isinstance(node, Product) else None
    if isinstance(node, Elementwise) and node.fn == "neg":
        return -x, -_dense(jx)
    if isinstance(node, Product):
        return _product(node, args)
    if isinstance(node, Gather):
        g = node
        take = lambda a: affine.take(np, np.asarray(a), g.batch, g.shape, g.rows, g.domain)   # noqa: E731
        if isinstance(jx, _Eye):
            return take(x), jx.gathered(take)
        return take(x), np.moveaxis(take(np.moveaxis(jx, -1, 0)), 0, -1)
    if isinstance(node, Power) and args[1][1] is None and np.all(np.asarray(args[1][0]) == 1.0):
        return args[0]
    return None


def _product(node: Product, args: list[Pair]) -> Pair | None:
    reading = [k for k, (_, j) in enumerate(args) if j is not None]
    if len(reading) != 1:
        return None                                   # a product of two free factors is not affine
    k = reading[0]
    spec = node.spec
    jk = args[k][1]
    if isinstance(jk, _Eye) and (found := _of_variable(spec, k, [v for v, _ in args], jk)) is not None:
        return found
    extra = next(c for c in string.ascii_letters if c not in "".join(spec.inputs) + spec.out)
    inputs = [s + extra if i == k else s for i, s in enumerate(spec.inputs)]
    values = [v for v, _ in args]
    value = _einsum(f"{','.join(spec.inputs)}->{spec.out}", values)
    jac = _einsum(f"{','.join(inputs)}->{spec.out}{extra}",
                  [_dense(args[k][1]) if i == k else v for i, v in enumerate(values)])
    return value, jac


def _of_variable(spec, k: int, values: list, eye: _Eye) -> Pair | None:
    """(value, Jacobian) of a product whose factor k is a free variable x (its Jacobian the
    identity): the Jacobian is the product of the other factors with x's letters left open
    (A x: A itself), placed in x's columns; no product with an identity of x's size squared
    (a 1,998 x 2,000 A took 12 s that way). None where a letter of x is repeated, kept in
    the output, or read by no other factor (the general rule then applies)."""
    own = spec.inputs[k]
    others = [s for i, s in enumerate(spec.inputs) if i != k]
    if len(set(own)) != len(own) or set(own) & set(spec.out) or not set(own) <= set("".join(others)):
        return None
    rest = [v for i, v in enumerate(values) if i != k]
    value = _einsum(f"{','.join(spec.inputs)}->{spec.out}", values)
    local = _einsum(f"{','.join(others)}->{spec.out}{own}", rest)       # out + x's shape
    size = math.prod(eye.shape)
    jac = np.zeros((int(np.prod(np.shape(value), dtype=np.int64)), eye.n))
    jac[:, eye.offset:eye.offset + size] = local.reshape(-1, size)
    return value, jac.reshape(np.shape(value) + (eye.n,))


def _einsum(spec: str, operands: list) -> np.ndarray:
    """np.einsum, with a contraction order planned for more than two operands."""
    return np.einsum(spec, *operands, optimize=len(operands) > 2)
