"""Values of the variable-free subexpressions of a text, to refuse those that are not finite.

The language's constants are finite: a number literal that overflows float64 is refused,
and so is a subexpression of numbers alone (`1/0`, `0^-1`, `1e308^2`, `1e308*10`,
`log(0)`, `arcsin(300)`) whose value is inf or nan. Such a subexpression would make the
expression inf or nan wherever it is evaluated, and refusing it at the operator that
produced it names the place; compiled code and `evaluate` agree on what accepted text
computes (NumPy float64 semantics under `np.errstate(all="ignore")`).

Values are computed as `tensorcalc.evaluate` computes them, with every axis of length 1,
once per node (children's values are kept), so checking costs O(1) per node. A value
that becomes inf only at larger lengths (a sum of n copies of 1e308) is not refused
here; evaluation gives inf there, as NumPy does. Matrix functions and gathers of
constants, whose values depend on the lengths, are not evaluated.
"""
from __future__ import annotations

import numpy as np

from tensorcalc.dag import Const, Expr, Gather, Special, Var
from tensorcalc.numeric.evaluate import RULES


class _UnitLengths:
    """The evaluation environment in which every axis has length 1."""

    @staticmethod
    def shape(node: Expr) -> tuple[int, ...]:
        return (1,) * node.order


class ConstantValues:
    """Values of the variable-free nodes seen so far; a node that depends on a variable
    (or on a matrix function or gather) is never evaluated, so text such as
    `x + 1 + 1 + ...` costs a flag per node."""

    def __init__(self) -> None:
        self.free: dict[Expr, bool] = {}
        self.values: dict[Expr, np.ndarray] = {}

    def problem(self, expr: Expr) -> str | None:
        """Why `expr` is not an acceptable constant (its value is not finite), else None."""
        if isinstance(expr, Const) or not _walk(expr, self.free, self._is_free):
            return None
        value = _walk(expr, self.values, self._compute)
        if np.isfinite(value).all():
            return None
        shown = value.flat[int(np.argmin(np.isfinite(value)))]
        return (f"the constant subexpression `{expr!s:.60}` evaluates to {shown} in float64, which is "
                f"not finite; a constant must be a finite number: change the numbers")

    def _is_free(self, node: Expr) -> bool:
        return not isinstance(node, (Var, Special, Gather)) and all(self.free[c] for c in node.args)

    def _compute(self, node: Expr) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(RULES[type(node)](node, [self.values[c] for c in node.args], _UnitLengths))


def _walk(expr: Expr, known: dict, rule):
    """known[expr], computing rule(node) for each node not yet known, children first."""
    stack = [expr]
    while stack:
        node = stack[-1]
        if node in known:
            stack.pop()
            continue
        pending = [c for c in node.args if c not in known]
        if pending:
            stack.extend(pending)
            continue
        known[stack.pop()] = rule(node)
    return known[expr]
