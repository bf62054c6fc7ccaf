"""Numerical checks of derivatives against central finite differences (thesis section 4.7).

`check_derivative` samples axis lengths (2 to 5, different for axes the expression does
not tie together), samples values inside the usual domains (entries in (0.1, 0.9), so
log, fractional powers and arcsin are defined; resampled while a matrix function's
argument is ill-conditioned or any value is not finite) and compares the symbolic
derivative of order k with central differences of the derivative of order k-1.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from . import dag
from .dag import Axis, Expr, Special, Var
from .diff import derivative
from .errors import TensorCalcError
from .evaluation import evaluate

LENGTHS = (3, 2, 4, 5)
MAX_CONDITION = 1e3
RELIABLE = 1e-7  # largest disagreement between finite differences at two steps


@dataclass(frozen=True)
class CheckResult:
    """Largest error of one check: max|D - FD| / max(1, max|FD|)."""

    error: float
    symbolic: np.ndarray
    numeric: np.ndarray
    values: dict
    lengths: dict

    def __str__(self) -> str:
        return f"max relative error {self.error:.3e} at lengths {self.printed_lengths()}"

    def printed_lengths(self) -> dict[str, int]:
        return {str(a): n for a, n in self.lengths.items()}


def axis_lengths(exprs: list[Expr], start: int = 0, sizes: tuple[int, ...] = LENGTHS) -> dict[Axis, int]:
    """A length for every axis of `exprs`, cycling through `sizes` so neighbours differ."""
    axes = dict.fromkeys(a for e in exprs for n in dag.topo(e) for a in n.axes)
    return {a: sizes[(start + k) % len(sizes)] for k, a in enumerate(axes)}


def sample_values(variables: Mapping[str, Var], lengths: Mapping[Axis, int],
                  rng: np.random.Generator, low: float = 0.1, high: float = 0.9) -> dict[str, np.ndarray]:
    return {name: rng.uniform(low, high, tuple(lengths[a] for a in v.axes))
            for name, v in variables.items()}


def finite_difference(expr: Expr, wrt: str, values: dict[str, np.ndarray],
                      lengths: Mapping[Axis, int] | None = None, step: float = 1e-4) -> np.ndarray:
    """Central differences of `expr` in every entry of `wrt`: shape expr.shape + wrt.shape.

    Richardson extrapolation of the central differences with steps h and h/2,
    (4 D(h/2) - D(h)) / 3, has error O(h^4), so a fairly large h keeps rounding small.
    """
    x = values[wrt]
    base = evaluate(expr, values, lengths)
    columns = []
    for index in np.ndindex(x.shape):
        h = step * max(1.0, abs(x[index]))
        wide, narrow = (_central(expr, wrt, values, lengths, index, k) for k in (h, h / 2))
        columns.append((4.0 * narrow - wide) / 3.0)
    stacked = np.stack(columns, axis=-1) if columns else np.zeros(base.shape + (0,))
    return stacked.reshape(base.shape + x.shape)


def _central(expr, wrt, values, lengths, index, h) -> np.ndarray:
    shifted = []
    for sign in (1.0, -1.0):
        moved = dict(values)
        moved[wrt] = values[wrt].copy()
        moved[wrt][index] += sign * h
        shifted.append(evaluate(expr, moved, lengths))
    return (shifted[0] - shifted[1]) / (2 * h)


def _well_posed(exprs: list[Expr], values, lengths) -> bool:
    for node in {n for e in exprs for n in dag.topo(e) if isinstance(n, Special)}:
        arg = evaluate(node.args[0], values, lengths)
        if not np.isfinite(arg).all() or np.linalg.cond(arg) > MAX_CONDITION:
            return False
    return all(np.isfinite(evaluate(e, values, lengths)).all() for e in exprs)


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b), initial=0.0) / max(1.0, np.max(np.abs(b), initial=0.0)))


def check_derivative(expr: Expr, wrt: str | Var, order: int = 1, seed: int = 0,
                     variables: Mapping[str, Var] | None = None, tries: int = 50,
                     sizes: tuple[int, ...] = LENGTHS, low: float = 0.1, high: float = 0.9) -> CheckResult:
    """Compare derivative(expr, wrt, order) with finite differences at a random point
    whose entries are uniform in (low, high).

    Points where the finite differences themselves are unreliable (steps h and h/4
    disagree by more than RELIABLE, as near a singular matrix or where the function
    oscillates too fast) are skipped; if `tries` points give none, TensorCalcError.
    """
    found = dict(dag.variables(expr))
    found.update(variables or {})
    x = wrt if isinstance(wrt, Var) else found.get(wrt)
    if x is None:
        raise TensorCalcError(f"cannot check: {wrt!r} is not a variable of the expression")
    found[x.name] = x
    lower = derivative(expr, x, order - 1)
    upper = derivative(lower, x)
    lengths = axis_lengths([expr, upper, *found.values()], start=seed, sizes=sizes)
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        values = sample_values(found, lengths, rng, low, high)
        if not _well_posed([expr, upper], values, lengths):
            continue
        numeric = finite_difference(lower, x.name, values, lengths)
        if _relative(finite_difference(lower, x.name, values, lengths, step=2.5e-5), numeric) <= RELIABLE:
            break
    else:
        raise TensorCalcError(f"no point with finite values and reliable finite differences found "
                              f"in {tries} tries; is the expression defined on ({low}, {high})?")
    symbolic = evaluate(upper, values, lengths)
    return CheckResult(_relative(symbolic, numeric), symbolic, numeric, values, dict(lengths))
