"""Factors of the interior-point methods' Newton matrices: Cholesky with a growing
multiple of I added where the matrix is not positive definite (LAPACK on the host,
`linalg.cholesky` on a GPU), solves with them, and the equalities' small Schur systems.
A factor is ("host", L), ("device", L) or ("structured", an object whose `solve` applies
K^-1: `lowrank.Factor`, `elimination.Factor`).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, lapack

from .linalg import cholesky, solve as solve_with

MAX_SHIFTS = 20      # Cholesky attempts with growing shifts


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


def solve_small(xp, S, rhs):
    """S x = rhs for the equalities' Schur complement; least squares where S is singular
    (dependent equalities)."""
    try:
        x = xp.linalg.solve(S, rhs)
        if bool(xp.isfinite(x).all()):
            return x
    except np.linalg.LinAlgError:
        pass
    return xp.linalg.lstsq(S, rhs, rcond=None)[0]
