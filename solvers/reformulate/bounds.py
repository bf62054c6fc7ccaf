"""Rows that bound one variable, as its bounds: a reduction, `Bounds`.

CVXPY code writes boxes as rows (`x >= -1, x <= 1`, `x >= 0`). As rows, an interior-point
solve carries each entry as a row of the constraints' Jacobian (a box on 2,000 unknowns:
4,000 x 2,000, read, stored and scanned for its pattern); as bounds, a diagonal. A row
`a * x + b <= 0` with x a whole free variable, a a nonzero constant and b the same number
in every entry (literals, or fixed parameters whose data is) becomes the bound
x <= -b / a (a > 0) or x >= -b / a (a < 0), the tighter of it and the declared one; the
tightest row of a side, the first of equals, owns the side where no declaration is as
tight. A variable whose sides would leave no interior (lower >= upper), a symmetric or
definite matrix and an equality keep their rows.

`invert` speaks of the rows again: the owner's multiplier is its bound's divided by |a|
(a x + b <= 0 with multiplier y is the bound with multiplier |a| y), every other row's 0,
and a side no declaration had loses its "lower bound of x" entry.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from convexcheck.problem.model import Attributes
from solvers.task.records import Constraint, Free, Task
from solvers.task.reductions import Result
from tensorcalc.dag import Const, Elementwise, Expr, Product, Sum, Var
from tensorcalc.memo import memoized


@dataclass(frozen=True)
class Row:
    """A row read as a bound: `label`'s row bounds variable `name` on `side` at `bound`;
    `scale` is |a|."""

    label: str
    name: str
    side: str                      # "lower" | "upper"
    bound: float
    scale: float


@dataclass(frozen=True)
class Side:
    """One side of one variable the rows bound: its rows, the owner (None: the declared
    bound is as tight) and whether a declaration bounded it."""

    which: str                     # "lower" | "upper"
    rows: tuple[Row, ...]
    owner: Row | None
    declared: bool
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Moved:
    """What `invert` needs: the sides the rows bound, and every constraint's label in the
    task's order (the multipliers are given back in it)."""

    sides: tuple[Side, ...]
    labels: tuple[str, ...]


class Bounds:
    """The reduction of the module docstring."""

    def apply(self, task: Task) -> tuple[Task, Moved | None]:
        """(the task with the bounding rows as bounds, what they bound; None: no row moved)."""
        free = {v.name: v for v in task.free}
        params = frozenset(task.fixed)
        rows = [r for c in task.constraints if (r := read_row(c, free, task.fixed, params)) is not None]
        sides, attributes = _sides(rows, free) if rows else ([], {})
        if not sides:
            return task, None
        moved = {r.label for s in sides for r in s.rows}
        free_now = tuple(dataclasses.replace(v, attributes=attributes.get(v.name, v.attributes)) for v in task.free)
        kept = tuple(c for c in task.constraints if c.label not in moved)
        return (dataclasses.replace(task, free=free_now, constraints=kept),
                Moved(tuple(sides), tuple(c.label for c in task.constraints)))

    def invert(self, result: Result, inverse: Moved | None) -> Result:
        """`result` with the rows' multipliers (see the module docstring)."""
        if inverse is None:
            return result
        for side in inverse.sides:
            key = f"{side.which} bound of {side.rows[0].name}"
            z = result.multipliers.get(key)
            if z is None:
                continue
            for row in side.rows:
                y = np.asarray(z) / row.scale if row is side.owner else np.zeros(side.shape)
                result.multipliers[row.label] = float(y) if not side.shape else y
            if not side.declared:
                result.multipliers.pop(key)
            elif side.owner is not None:
                result.multipliers[key] = np.zeros(side.shape)
        given = result.multipliers
        result.multipliers = {**{k: given[k] for k in inverse.labels if k in given}, **given}
        return result


BOUNDS = Bounds()


def read_row(c: Constraint, free: dict[str, Free], fixed: dict[str, np.ndarray],
             params: frozenset[str] | None = None) -> Row | None:
    """`c` as a bound (`Row`), or None where it is not one (module docstring); `params`:
    frozenset(fixed), given by a caller that reads many rows."""
    params = frozenset(fixed) if params is None else params
    if c.kind != "<=" or not _may_bound(c.expr, params):
        return None
    read = _terms(c.expr, params, lambda node: _number(node, fixed))
    if read is None:
        return None
    var, a, b = read
    v = free.get(var.name)
    if (v is None or c.expr.axes != var.axes or a == 0 or not math.isfinite(a) or not math.isfinite(b)
            or v.attributes.is_symmetric):
        return None
    return Row(c.label, v.name, "upper" if a > 0 else "lower", -b / a, abs(a))


@memoized(maxsize=4096)
def _may_bound(expr: Expr, params: frozenset[str]) -> bool:
    """Whether `expr` has the form of a bound whatever the data (a norm row of a 500-cone
    problem: read once, not on every re-solve)."""
    def any_number(node: Expr) -> float | None:
        return 0.0 if isinstance(node, Const) or (isinstance(node, Var) and node.name in params) else None
    return _terms(expr, params, any_number) is not None


def _terms(expr: Expr, params: frozenset[str], number: Callable[[Expr], float | None]
           ) -> tuple[Var, float, float] | None:
    """(x, a, b) where `expr` is a * x + b with a, b numbers (`number` reads a node's one
    value, None where it has none; an iterative walk over sums, negations, constants and
    scalings), else None."""
    var, a, b = None, 0.0, 0.0
    stack = [(expr, 1.0)]
    while stack:
        node, sign = stack.pop()
        if isinstance(node, Sum):
            stack.extend((arg, sign) for arg in node.args)
        elif isinstance(node, Elementwise) and node.fn == "neg":
            stack.append((node.args[0], -sign))
        elif (value := number(node)) is not None:
            b += sign * value
        elif (scaled := _scaled(node, params, number)) is not None and (var is None or scaled[0] is var):
            var, a = scaled[0], a + sign * scaled[1]
        else:
            return None
    return (var, a, b) if var is not None else None


def _number(node: Expr, fixed: dict[str, np.ndarray]) -> float | None:
    """The one value of a constant node or of fixed data the same in every entry, else None."""
    if isinstance(node, Const):
        return float(node.value)
    if not isinstance(node, Var) or node.name not in fixed:
        return None
    data = np.asarray(fixed[node.name], dtype=float)
    first = float(data.flat[0]) if data.size else math.nan
    return first if data.size and bool((data == first).all()) else None


def _scaled(node: Expr, params: frozenset[str], number: Callable[[Expr], float | None]) -> tuple[Var, float] | None:
    """(x, c) where `node` is the free-or-not variable x itself or c * x entry by entry."""
    if isinstance(node, Var) and node.name not in params:
        return node, 1.0
    if not isinstance(node, Product) or len(node.args) != 2:
        return None
    for k in (0, 1):
        x, c = node.args[k], node.args[1 - k]
        spec = node.spec
        if (isinstance(x, Var) and x.name not in params and spec.inputs[k] == spec.out
                and set(spec.inputs[1 - k]) <= set(spec.out) and (value := number(c)) is not None):
            return x, value
    return None


def _sides(rows: list[Row], free: dict[str, Free]) -> tuple[list[Side], dict[str, Attributes]]:
    """The sides the rows bound and the variables' new attributes; a variable whose box
    would have no interior keeps its rows."""
    sides, attributes = [], {}
    for name in dict.fromkeys(r.name for r in rows):
        at = free[name].attributes
        mine = [_side(at, [r for r in rows if r.name == name and r.side == s], s, free[name].shape)
                for s in ("lower", "upper")]
        new = _tightened(at, [s for s in mine if s is not None])
        if new.lower is not None and new.upper is not None and new.lower >= new.upper:
            continue
        attributes[name] = new
        sides += [s for s in mine if s is not None]
    return sides, attributes


def _side(at: Attributes, rows: list[Row], side: str, shape: tuple[int, ...]) -> Side | None:
    if not rows:
        return None
    declared = getattr(at, side)
    best = (max if side == "lower" else min)(rows, key=lambda r: r.bound)   # the first of equals
    tighter = declared is None or (best.bound > declared if side == "lower" else best.bound < declared)
    return Side(side, tuple(rows), best if tighter else None, declared is not None, shape)


def _tightened(at: Attributes, sides: list[Side]) -> Attributes:
    for s in sides:
        if s.owner is not None:
            at = (dataclasses.replace(at, lower=s.owner.bound, lower_strict=False) if s.which == "lower" else
                  dataclasses.replace(at, upper=s.owner.bound, upper_strict=False))
    return at
