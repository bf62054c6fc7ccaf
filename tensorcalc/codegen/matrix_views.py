"""Matrix views of derivative tensors, as linear solvers need them."""
from __future__ import annotations

from typing import Any, Mapping

from tensorcalc.arrays import Array
from tensorcalc.codegen.compiled import compile as compile_exprs
from tensorcalc.dag import Expr, Var
from tensorcalc.derivatives.reverse import hessian, resolve
from tensorcalc.errors import TensorCalcError


def as_matrix(array: Array, rows: int) -> Array:
    """Group the first `rows` axes and the rest: shape (prod(s[:rows]), prod(s[rows:])).

    A reshape, so no copy is made when the layout allows (a C-ordered tensor, or any
    2-D one); otherwise NumPy copies."""
    shape = tuple(array.shape)
    if not 0 <= rows <= len(shape):
        raise TensorCalcError(f"cannot group {rows} axes of an array of shape {shape}")
    n_rows = 1
    for length in shape[:rows]:
        n_rows *= length
    return array.reshape(n_rows, -1)


class HessianMatrix:
    """Compiled Hessian of a scalar expression, returned as a (prod(s) x prod(s)) matrix
    for a variable of shape s. `tensor` is the compiled order-2p function."""

    def __init__(self, expr: Expr, wrt: str | Var) -> None:
        if expr.order != 0:
            raise TensorCalcError(f"a Hessian matrix needs a scalar expression; this one has order {expr.order}")
        self.variable = resolve(expr, wrt)
        self.expr = hessian(expr, self.variable)
        self.tensor = compile_exprs(self.expr)
        self.source = self.tensor.source

    def __call__(self, values: Mapping[str, Any] | None = None, **kwargs: Any) -> Array:
        return as_matrix(self.tensor(values, **kwargs), self.variable.order)


def hessian_matrix(expr: Expr, wrt: str | Var) -> HessianMatrix:
    """A compiled function returning the Hessian of `expr` in `wrt` as a matrix."""
    return HessianMatrix(expr, wrt)
