"""Numerical checks of derivatives against central finite differences (thesis section 4.7).

`check_derivative` samples axis lengths (2 to 5, different for axes the expression does
not tie together) and a point, then compares the symbolic derivative of every order j
from 1 to k with central differences of the derivative of order j-1: all of them come
from one chain D_j = derivative(D_{j-1}), the chain `derivative(expr, x, k, simplify)`
builds, so the check covers what is printed (simplified or raw) and a wrong lower order
cannot hide behind a right last step. Entries have magnitudes in (low, high) and random
signs; where the function's domain needs positive entries (log, fractional powers), no
signed point gives finite values and points fall back to positive entries. Points are
resampled while a matrix function's argument is ill-conditioned, any value is not finite
or the finite differences themselves are unreliable.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from tensorcalc import dag
from tensorcalc.dag import Axis, Expr, Special, Var
from tensorcalc.derivatives.reverse import derivative
from tensorcalc.errors import TensorCalcError
from tensorcalc.numeric.evaluate import evaluate, fixed_lengths

LENGTHS = (3, 2, 4, 5)
MAX_CONDITION = 1e3
RELIABLE = 1e-7  # largest disagreement between finite differences at two steps


@dataclass(frozen=True)
class CheckResult:
    """Largest error of one check, max|D_j - FD(D_{j-1})| / max(1, max|FD|) over the orders
    j = 1..k (`errors`, one per order); `order` is the j where it is largest and
    `symbolic`, `numeric` are D_j and FD(D_{j-1}) there. `signed`: whether the point has
    entries of both signs (False: the function needed positive entries)."""

    error: float
    symbolic: np.ndarray
    numeric: np.ndarray
    values: dict
    lengths: dict
    order: int = 1
    errors: tuple[float, ...] = ()
    signed: bool = False

    def __str__(self) -> str:
        return (f"max relative error {self.error:.3e} (order {self.order}) at lengths {self.printed_lengths()}, "
                f"{'entries of both signs' if self.signed else 'positive entries'}")

    def printed_lengths(self) -> dict[str, int]:
        return {str(a): n for a, n in self.lengths.items()}


def axis_lengths(exprs: list[Expr], start: int = 0, sizes: tuple[int, ...] = LENGTHS) -> dict[Axis, int]:
    """A length for every axis of `exprs`: the one a gather fixes (`x[1:3]`, a define),
    else cycling through `sizes` so neighbours differ."""
    nodes = [n for e in exprs for n in dag.topo(e)]
    fixed = {axis: n for axis, n, _ in fixed_lengths(nodes)}
    axes = dict.fromkeys(a for n in nodes for a in n.axes)
    return {a: fixed.get(a, sizes[(start + k) % len(sizes)]) for k, a in enumerate(axes)}


def sample_values(variables: Mapping[str, Var], lengths: Mapping[Axis, int], rng: np.random.Generator,
                  low: float = 0.1, high: float = 0.9, signed: bool = False) -> dict[str, np.ndarray]:
    """Entries with magnitudes uniform in (low, high); positive, or with `signed` of random
    signs, both signs present whenever there are two entries or more."""
    shapes = {name: tuple(lengths[a] for a in v.axes) for name, v in variables.items()}
    values = {name: rng.uniform(low, high, shape) for name, shape in shapes.items()}
    if not signed:
        return values
    sizes = [int(np.prod(shape)) for shape in shapes.values()]
    signs = rng.choice((-1.0, 1.0), sum(sizes))
    if len(signs) > 1 and abs(signs.sum()) == len(signs):
        signs[rng.integers(len(signs))] *= -1.0
    for (name, shape), part in zip(shapes.items(), np.split(signs, np.cumsum(sizes)[:-1])):
        values[name] = np.asarray(values[name] * part.reshape(shape))
    return values


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


def derivative_chain(expr: Expr, x: Var, order: int, simplify: bool = True) -> list[Expr]:
    """[D_0 = expr, D_1, ..., D_order], D_j = derivative(D_{j-1}, x): the steps that
    `derivative(expr, x, order, simplify)` takes, so D_order is the same node."""
    chain = [expr]
    for _ in range(order):
        chain.append(derivative(chain[-1], x, 1, simplify))
    return chain


def _reliable_differences(chain: list[Expr], wrt: str, values, lengths) -> list[np.ndarray] | None:
    """FD(D_{j-1}) for j = 1..k, or None where steps h and h/4 disagree by more than RELIABLE."""
    numerics = []
    for lower in chain[:-1]:
        numeric = finite_difference(lower, wrt, values, lengths)
        if _relative(finite_difference(lower, wrt, values, lengths, step=2.5e-5), numeric) > RELIABLE:
            return None
        numerics.append(numeric)
    return numerics


def check_derivative(expr: Expr, wrt: str | Var, order: int = 1, seed: int = 0,
                     variables: Mapping[str, Var] | None = None, tries: int = 50,
                     sizes: tuple[int, ...] = LENGTHS, low: float = 0.1, high: float = 0.9,
                     simplify: bool = True, signed: bool = True, chain: list[Expr] | None = None) -> CheckResult:
    """Compare the derivatives of orders 1 to `order` (as `derivative(expr, wrt, order,
    simplify)` builds them) with finite differences of the order below, at one random
    point whose entries have magnitudes uniform in (low, high): of random signs for the
    first tries // 2 points when `signed`, positive after that (or always, without it).

    Points where the finite differences themselves are unreliable (steps h and h/4
    disagree by more than RELIABLE, as near a singular matrix or where the function
    oscillates too fast) are skipped; if `tries` points give none, TensorCalcError.
    `chain`, when given, is `derivative_chain(expr, wrt, order, simplify)` computed once
    (the derivatives a caller prints), so several points need not differentiate again.
    """
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise TensorCalcError(f"check_derivative needs a whole order >= 1, got {order!r}")
    found = dict(dag.variables(expr))
    found.update(variables or {})
    x = wrt if isinstance(wrt, Var) else found.get(wrt)
    if x is None:
        raise TensorCalcError(f"cannot check: {wrt!r} is not a variable of the expression")
    found[x.name] = x
    chain = list(chain) if chain is not None else derivative_chain(expr, x, order, simplify)
    if len(chain) != order + 1 or chain[0] is not expr:
        raise TensorCalcError(f"chain must be [expr, D_1, ..., D_{order}], got {len(chain)} expressions")
    lengths = axis_lengths([expr, chain[-1], *chain[1:-1], *found.values()], start=seed, sizes=sizes)
    rng = np.random.default_rng(seed)
    for attempt in range(tries):
        values = sample_values(found, lengths, rng, low, high, signed=signed and attempt < tries // 2)
        if _well_posed(chain, values, lengths):
            numerics = _reliable_differences(chain, x.name, values, lengths)
            if numerics is not None:
                break
    else:
        raise TensorCalcError(f"no point with finite values and reliable finite differences found "
                              f"in {tries} tries; is the expression defined for entries in ({low}, {high})?")
    symbolics = [evaluate(d, values, lengths) for d in chain[1:]]
    errors = tuple(_relative(s, n) for s, n in zip(symbolics, numerics))
    worst = int(np.argmax(errors))
    signs = any(bool((v < 0).any()) for v in values.values())
    return CheckResult(errors[worst], symbolics[worst], numerics[worst], values, dict(lengths),
                       worst + 1, errors, signs)
