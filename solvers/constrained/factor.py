"""Factors of the interior-point methods' Newton matrices: Cholesky with a growing
multiple of I added where the matrix is not positive definite (LAPACK on the host,
`linalg.cholesky` on a GPU), solves with them, and the equalities' small Schur systems.
A factor is ("host", L), ("device", L) or ("structured", an object whose `solve` applies
K^-1: `lowrank.Factor`, `elimination.Factor`).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_solve, lapack

from solvers.methods.linalg import cholesky
from solvers.methods.linalg import solve as solve_with

MAX_SHIFTS = 20      # Cholesky attempts with growing shifts
DEPENDENT = 1e-13    # an eigenvalue of a Schur complement at most this share of the largest: 0


def shifted(xp, K, first: float, last: float):
    """(factor of K + shift I, shift): shift 0 when K is positive definite, else from
    `first` up, a hundredfold each time; (None, shift) if none up to `last` works."""
    shift, eye = 0.0, None
    for _ in range(MAX_SHIFTS):           # bounded: first or last may be inf on overflowing data
        if shift:
            eye = xp.eye(K.shape[0]) if eye is None else eye
        L = _cholesky(xp, K + shift * eye if shift else K)
        if L is not None:
            return L, shift
        shift = first if shift == 0.0 else 100 * shift
        if not shift <= max(first, last):
            break
    return None, shift


def _cholesky(xp, K):
    """LAPACK's factor through SciPy on the host (NumPy's is several times slower on a
    busy machine), `linalg.cholesky` on a GPU; None when K is not positive definite."""
    if xp is not np:
        L = cholesky(xp, K)
        return None if L is None else ("device", L)
    c, info = lapack.dpotrf(K, lower=1, clean=0, overwrite_a=0)
    return ("host", c) if info == 0 and np.isfinite(np.diagonal(c)).all() else None


def solve_factor(xp, fac, rhs):
    """K^-1 rhs with a factor from `shifted` (or a structured one, see the module docstring)."""
    kind, L = fac
    if kind == "structured":
        return L.solve(rhs)
    if kind == "host":                 # LAPACK directly: cho_solve's checks cost more than
        x, info = lapack.dpotrs(L, rhs, lower=1)      # the solve on small systems
        return x if info == 0 else cho_solve((L, True), rhs, check_finite=False)
    return solve_with(xp, (None, L), rhs)


def schur_inverse(xp, S):
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


def solve_small(xp, S, rhs):
    """S^+ rhs for the equalities' Schur complement (`schur_inverse`)."""
    return schur_inverse(xp, S) @ rhs
