"""The equalities' small Schur systems in the interior-point methods: with equality rows
J_e, the Newton step needs (J_e K^-1 J_e')^+, K the factored Newton matrix (a
`numerics.linalg.Factor`).
"""
from __future__ import annotations

import math
from typing import Callable

from solvers.numerics.linalg import NO_SHIFT, shifted
from tensorcalc.arrays import Array, ArrayModule

DEPENDENT = 1e-13    # an eigenvalue of a Schur complement at most this share of the largest: 0


def schur_inverse(xp: ArrayModule, S: Array) -> Array:
    """The inverse of the equalities' Schur complement S = J_e K^-1 J_e' (symmetric,
    positive semidefinite), rank-revealing: by its eigendecomposition, the directions
    whose eigenvalue is at most DEPENDENT times the largest dropped (a pseudo-inverse).
    Dependent equality rows make S singular, and in floating point an LU solve then
    returns finite garbage (a step of 1e15) instead of failing; on the dropped directions
    the rows ask nothing the others do not (consistent rows) or nothing any step can give
    (inconsistent rows: the iterate then stalls at a point of least violation)."""
    if S.shape == (1, 1):                       # one equality (a budget, a simplex): as eigh gives it
        s = float(S[0, 0])
        return xp.full((1, 1), 1.0 / s if s > 0 and s < math.inf else 0.0)
    w, V = xp.linalg.eigh((S + S.T) / 2)
    top = float(xp.abs(w).max()) if w.size else 0.0
    keep = w > DEPENDENT * top
    if not bool(xp.isfinite(w).all()) or not top > 0:
        return xp.zeros_like(S)
    return (V[:, keep] / w[keep]) @ V[:, keep].T


def solve_small(xp: ArrayModule, S: Array, rhs: Array) -> Array:
    """S^+ rhs for the equalities' Schur complement (`schur_inverse`)."""
    return schur_inverse(xp, S) @ rhs


def schur_solver(xp: ArrayModule, S: Array, independent: bool) -> Callable[[Array], Array]:
    """r -> S^+ r: by S's Cholesky factor where the equality rows are `independent` (E of
    full row rank, checked once per QP: then S = E K^-1 E' is positive definite for every
    positive definite K), a quarter of the eigendecomposition's cost; else, or where the
    factor fails, by the rank-revealing `schur_inverse`."""
    if independent:
        fac = shifted(xp, (S + S.T) / 2, NO_SHIFT).factor
        if fac is not None:
            return fac.solve
    inverse = schur_inverse(xp, S)
    return lambda r: inverse @ r
