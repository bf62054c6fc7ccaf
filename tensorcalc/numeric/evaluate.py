"""Numerical evaluation with NumPy: one rule per node type, one pass in dependency order.

Axis lengths come from the arrays given for variables (also for variables the
expression does not read: a derivative may carry their axes in a delta or a constant).
Every canonical axis must get one length; constants and deltas take theirs from it.
Entries outside a function's domain evaluate to nan or inf, as in NumPy.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

import numpy as np
import opt_einsum

from tensorcalc import dag
from tensorcalc.arrays import Array, ArrayModule
from tensorcalc.dag import Axis, Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.errors import DomainError, ShapeError, TensorCalcError
from tensorcalc.gather import affine
from tensorcalc.numeric.minors import EXACT, adjugate, exact_forms

MAX_ENTRIES = 2**29  # entries of one intermediate tensor (4 GiB of float64)

ELEMENTWISE_FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "arcsin": np.arcsin, "arccos": np.arccos,
    "arctan": np.arctan, "tanh": np.tanh, "exp": np.exp, "log": np.log, "sign": np.sign,
    "relu": lambda x: np.maximum(x, 0.0), "abs": np.abs, "huber": lambda x: huber(np, x),
    "neg": np.negative, "recip": lambda x: 1.0 / x,
}


def huber(xp: ArrayModule, x: Array) -> Array:
    """x^2 where |x| <= 1, 2|x| - 1 elsewhere (CVXPY's huber with M = 1), in the array
    module xp (also used by compiled code). Computed as m (2|x| - m) with m = min(|x|, 1):
    exactly x * x inside, and large |x| are never squared, so they cannot overflow early."""
    a = xp.abs(x)
    m = xp.minimum(a, 1.0)
    return m * (2.0 * a - m)


def _inverse(a: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise DomainError(f"inv: the {a.shape[0]}x{a.shape[1]} matrix is singular") from None


def delta_tensor(xp: ArrayModule, n: int, shape: tuple[int, ...]) -> Array:
    """delta(n): the identity matrix over the flattened first and last n axes, in the
    array module xp (also used by compiled code)."""
    size = 1
    for length in shape[:n]:
        size *= length
    return xp.eye(size).reshape(shape)


SPECIAL_FUNCTIONS = {"det": np.linalg.det, "inv": _inverse, "adj": adjugate}


def _matrix_function(fn: str, a: np.ndarray) -> np.ndarray:
    """det, inv, adj, or an exact node of `minors` (the derivative of adj)."""
    return SPECIAL_FUNCTIONS[fn](a) if fn in SPECIAL_FUNCTIONS else EXACT[fn](a, np)


RULES: dict[type[Expr], Callable[[Any, list, Any], Any]] = {
    Var: lambda node, args, env: env.values[node.name],
    Const: lambda node, args, env: np.broadcast_to(np.float64(node.value), env.shape(node)),
    Delta: lambda node, args, env: delta_tensor(np, node.n, env.shape(node)),
    Sum: lambda node, args, env: args[0] + args[1],
    Product: lambda node, args, env: opt_einsum.contract(str(node.spec), *args),
    Elementwise: lambda node, args, env: ELEMENTWISE_FUNCTIONS[node.fn](args[0]),
    Special: lambda node, args, env: _matrix_function(node.fn, args[0]),
    Power: lambda node, args, env: np.power(args[0], args[1]),
    Gather: lambda node, args, env: affine.take(np, np.asarray(args[0]), node.batch, node.shape, node.rows,
                                                node.domain),
}


class Lengths:
    """The length of every axis of one expression (its nodes in dependency order), bound
    from the given arrays; `source` records which variable axis gave each length."""

    def __init__(self, nodes: list[Expr], values: Mapping[str, np.ndarray],
                 extra: Mapping[Axis, int] | None = None) -> None:
        self.values, self.nodes = values, nodes
        self.length: dict[Axis, int] = dict(extra or {})
        self.source: dict[Axis, tuple[str, int] | None] = dict.fromkeys(self.length)
        self._bind()

    def shape(self, node: Expr) -> tuple[int, ...]:
        return tuple(self.length[a] for a in node.axes)

    def _bind(self) -> None:
        for node in self.nodes:
            if isinstance(node, Var):
                self._bind_var(node.name, node.axes)
        for axis, length, where in fixed_lengths(self.nodes):
            if self.length.setdefault(axis, length) != length:
                raise ShapeError(f"{where} has length {length} but {_where(self.source.get(axis))} "
                                 f"has length {self.length[axis]}; they must be equal")
            self.source.setdefault(axis, None)
        used = {a for node in self.nodes for a in node.axes}
        for name, value in self.values.items():
            for pos, n in enumerate(np.shape(value)):
                axis = Axis(name, pos)
                if axis in used and axis not in self.length:
                    self.length[axis], self.source[axis] = n, (name, pos)
        for node in self.nodes:
            for axis in node.axes:
                if axis not in self.length:
                    fix = f"pass a value for {axis.var!r}" if axis.var else "no variable fixes it"
                    raise ShapeError(f"cannot tell the length of axis {axis} of `{node!s:.80}`: {fix}")
            if np.prod(self.shape(node), dtype=float) > MAX_ENTRIES:
                raise ShapeError(f"`{node!s:.80}` would have shape {self.shape(node)}, over "
                                 f"{MAX_ENTRIES:,} entries; use smaller axes")

    def _bind_var(self, name: str, axes: tuple[Axis, ...]) -> None:
        if name not in self.values:
            raise ShapeError(f"no value given for variable {name!r}")
        shape = np.shape(self.values[name])
        if len(shape) != len(axes):
            raise ShapeError(f"variable {name!r} has order {len(axes)} but its value has shape {shape}")
        for pos, (axis, n) in enumerate(zip(axes, shape)):
            if self.length.setdefault(axis, n) != n:
                raise ShapeError(f"axis {pos} of {name!r} has length {n} but {_where(self.source[axis])} "
                                 f"has length {self.length[axis]}; they must be equal: they meet in "
                                 f"`{_meeting(self.nodes, name, self.source[axis])!s:.120}`")
            self.source.setdefault(axis, (name, pos))


class Where:
    """Where an axis length comes from, worded only when a message prints it (`str`):
    printing a node costs more than the evaluation it guards, which reads the lengths
    every time (2,000 constraint parts: 0.4 s of printing for no message)."""

    __slots__ = ("template", "node")

    def __init__(self, template: str, node: Expr):
        self.template, self.node = template, node

    def __str__(self) -> str:
        return self.template.format(f"{self.node!s:.60}")


def fixed_lengths(nodes: list[Expr]) -> Iterator[tuple[Axis, int, str | Where]]:
    """(axis, length, where) for every axis a gather fixes (its output box and its source)
    and every box axis that names its length (`Axis("f~3", 0)`: definitions, sums)."""
    named = {a for node in nodes for a in node.axes if "~" in a.var}
    for axis in sorted(named):
        yield axis, int(axis.var.rsplit("~", 1)[1]), f"axis {axis}"
    for node in nodes:
        if isinstance(node, Gather):
            x = node.args[0]
            for k, (axis, n) in enumerate(zip(node.axes[node.batch:], node.shape)):
                yield axis, n, Where(f"axis {k} of the gather `{{}}`", node)
            for k, (axis, n) in enumerate(zip(x.axes[node.batch:], node.source)):
                yield axis, n, Where(f"axis {k} of the array `{{}}` the gather reads", x)


def _where(source: tuple[str, int] | None) -> str:
    return "the given length" if source is None else f"axis {source[1]} of {source[0]!r}"


def _meeting(nodes: list[Expr], name: str, other: tuple[str, int] | None) -> Expr:
    """The smallest subexpression reading both variables (or `name` under a function)."""
    names = {name} if other is None else {name, other[0]}
    seen: dict[Expr, frozenset] = {}
    for node in nodes:
        here = frozenset([node.name]) if isinstance(node, Var) else frozenset()
        seen[node] = here.union(*(seen[c] for c in node.args)) & names
        if seen[node] == names and (len(names) > 1 or not isinstance(node, Var)):
            return node
    return nodes[-1]


def _as_array(name: str, value) -> np.ndarray:
    try:
        array = np.asarray(value)
    except Exception as err:  # noqa: BLE001 - any conversion failure is the user's input
        raise ShapeError(f"value for {name!r} is not an array: {err}") from None
    if array.dtype.kind not in "fc":
        if array.dtype.kind not in "biu":
            raise ShapeError(f"value for {name!r} has dtype {array.dtype}; expected numbers")
        array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ShapeError(f"value for {name!r} is not finite at index {bad}: {array[bad]}")
    return array


def evaluate(expr: Expr, values: Mapping[str, object], lengths: Mapping[Axis, int] | None = None) -> np.ndarray:
    """Evaluate `expr` given arrays for its variables by name; returns an ndarray.

    `lengths` may fix axes no variable fixes (a free axis of a lone delta).
    """
    if not isinstance(expr, Expr):
        raise TensorCalcError(f"evaluate expects an expression, got {type(expr).__name__}")
    arrays = {name: _as_array(name, v) for name, v in values.items()}
    (expr,) = exact_forms([expr])            # d adj(X) as the polynomial it is (see `minors`)
    nodes = dag.topo(expr)
    env = Lengths(nodes, arrays, lengths)
    cache: dict[Expr, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for node in nodes:
            cache[node] = np.asarray(RULES[type(node)](node, [cache[c] for c in node.args], env))
    return np.array(cache[expr])
