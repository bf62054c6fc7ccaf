"""Integer inequalities A x >= b: Fourier-Motzkin elimination (Alg. 3, sec. 4.2 of Urban &
van der Smagt 2017), the integer range of each variable given the later ones, and the
integer points of a polytope, eq. (45).

All arithmetic is exact (Fractions); variables are indexed from 0 (x_0 .. x_{m-1}).

>>> integer_points([[1, 0], [-1, 0], [0, 1], [-1, -1]], [0, -1, 0, -2])
[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import NamedTuple, Sequence

import numpy as np

from tensorcalc.gather.exact import Matrix, Vector, dot, entries, int_vector, object_matrix


class Elimination(NamedTuple):
    """Fourier-Motzkin solution of A x >= b for symbolic b (n rows, m variables).

    lower[k] = (Lb, Lx) and upper[k] = (Hb, Hx), Fraction arrays with n and m-k-1
    columns: given b and x_later = x[k+1:], the real x_k completing a solution are
        max_r (Lb @ b + Lx @ x_later)_r  <=  x_k  <=  min_r (Hb @ b + Hx @ x_later)_r,
    a side with no rows being unbounded. lower[k], upper[k] are the paper's (L^{k+1},
    L^^{k+1}) and (H^{k+1}, H^^{k+1}) of eqs. (22)-(26), counted from 0.
    feasible = F (r x n, entries >= 0, F @ A == 0): A x >= b has a real solution iff
    F @ b <= 0 in every entry (eq. 34); each row is a non-negative combination of the
    inequalities, so F b > 0 is a certificate of infeasibility."""
    lower: list
    upper: list
    feasible: np.ndarray


def _normalise(rows, k: int):
    """Divide each (a, c) row with a_k != 0 by |a_k| (Alg. 3 steps 3-6)."""
    return [(a, c) if a[k] == 0 else
            (tuple(v / abs(a[k]) for v in a), tuple(v / abs(a[k]) for v in c))
            for a, c in rows]


def _dedupe(rows):
    """Drop trivial rows (0 >= 0) and exact duplicates up to a positive factor."""
    seen, kept = set(), []
    for a, c in rows:
        lead = next((abs(v) for v in a + c if v != 0), None)
        if lead is None:
            continue
        key = tuple(v / lead for v in a + c)
        if key not in seen:
            seen.add(key)
            kept.append((a, c))
    return kept


def _bound(rows, k: int, m: int, n: int, sign: int):
    """(Bb, Bx) for rows sign*x_k + a' x_later >= c b: x_k >= c b - a' x (sign +1) or
    x_k <= -c b + a' x (sign -1) (Alg. 3 steps 8-10)."""
    cb = [[sign * v for v in c] for _, c in rows]
    cx = [[-sign * v for v in a[k + 1:]] for a, _ in rows]
    return object_matrix(cb, n), object_matrix(cx, m - k - 1)


def fourier_motzkin(A: Matrix) -> Elimination:
    """Eliminate x_0, x_1, ..., x_{m-1} in turn from A x >= b (Alg. 3), for any b; A may
    hold ints or Fractions. See `Elimination` for the meaning and signs of the output."""
    given = entries(A, numbers.Rational, "A")
    n, m = np.shape(np.asarray(A, dtype=object))
    rows = [(tuple(Fraction(v) for v in a), tuple(Fraction(int(i == j)) for j in range(n)))
            for i, a in enumerate(given)]
    lower, upper = [], []
    for k in range(m):
        rows = _normalise(rows, k)
        phi = [r for r in rows if r[0][k] > 0]
        mu = [r for r in rows if r[0][k] < 0]
        lower.append(_bound(phi, k, m, n, +1))
        upper.append(_bound(mu, k, m, n, -1))
        rows = [r for r in rows if r[0][k] == 0]
        rows += [(tuple(x + y for x, y in zip(p[0], q[0])),
                  tuple(x + y for x, y in zip(p[1], q[1]))) for p in phi for q in mu]
        rows = _dedupe(rows)
    return Elimination(lower, upper, object_matrix([c for _, c in _dedupe(rows)], n))


def integer_bounds(elim: Elimination, b: Vector, k: int, x_later: Sequence[int]) -> tuple[int | None, int | None]:
    """(ceil of max lower bound, floor of min upper bound) of x_k for the integer vector
    b and x_later = values of x_{k+1}..x_{m-1}; None for an unbounded side. The range is
    empty when lo > hi."""
    m = len(elim.lower)
    if not 0 <= k < m:
        raise ValueError(f"variable index k = {k} is out of range; use 0 <= k < {m}")
    if len(x_later) != m - k - 1:
        raise ValueError(f"x_later has {len(x_later)} values but variable {k} needs the "
                         f"{m - k - 1} values of x_{k + 1}..x_{m - 1}")
    b = int_vector(b, elim.feasible.shape[1])
    (Lb, Lx), (Hb, Hx) = elim.lower[k], elim.upper[k]
    lows = [dot(Lb[r], b) + dot(Lx[r], x_later) for r in range(Lb.shape[0])]
    highs = [dot(Hb[r], b) + dot(Hx[r], x_later) for r in range(Hb.shape[0])]
    return (math.ceil(max(lows)) if lows else None,
            math.floor(min(highs)) if highs else None)


def _points(elim: Elimination, b, k: int, later: tuple):
    """Integer points with x[k+1:] == later, by nested FM bounds (x_k outermost here)."""
    if k < 0:
        yield later
        return
    lo, hi = integer_bounds(elim, b, k, later)
    if lo is None or hi is None:
        side = "below" if lo is None else "above"
        raise ValueError(f"x_{k} is unbounded {side} (given x_{k + 1}.. = {list(later)}), so "
                         f"the set has infinitely many points; add bounds on x_{k}")
    for v in range(lo, hi + 1):
        yield from _points(elim, b, k - 1, (v,) + later)


def integer_points(A: Matrix, b: Vector) -> list[tuple[int, ...]]:
    """All integer x with A @ x >= b, each once, with x_{m-1} varying slowest. Raises
    ValueError naming a variable that is unbounded on a non-empty branch."""
    elim = fourier_motzkin(A)
    bb = int_vector(b, elim.feasible.shape[1])
    if any(dot(row, bb) > 0 for row in elim.feasible):
        return []
    return list(_points(elim, bb, len(elim.lower) - 1, ()))
