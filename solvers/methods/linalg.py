"""Newton systems: Cholesky with an added multiple of the identity (Nocedal and Wright,
Numerical Optimization, 2nd ed., Algorithm 3.3), for a dense Hessian or for the blocks of
a block-diagonal one, on NumPy or CuPy.

NumPy's Cholesky raises on a matrix that is not positive definite; CuPy's, by default,
returns whatever cuSOLVER left behind (nan, or a partial factor) without a word. So on
CuPy the factorisation runs under `cupyx.errstate(linalg="raise")`, which checks
cuSOLVER's status, and every factor, on any device, must also have a finite, positive
diagonal (one scalar back to the host) before it is trusted.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
from scipy.linalg import lapack

BETA = 1e-3          # first shift, relative to the largest diagonal entry
MAX_SHIFTS = 60      # tau doubles each time; 60 doublings reach any finite scale


@dataclass
class Blocks:
    """A block-diagonal Hessian: `blocks[i]` (R x R) acts on the entries with index i on
    `axis` of a variable of shape `shape`; R is the product of the other lengths."""

    blocks: object
    axis: int
    shape: tuple[int, ...]

    def split(self, xp, v):
        """A flat vector of the variable, as (number of blocks, R)."""
        return xp.moveaxis(v.reshape(self.shape), self.axis, 0).reshape(self.blocks.shape[:2])

    def join(self, xp, w):
        moved = (self.shape[self.axis],) + self.shape[:self.axis] + self.shape[self.axis + 1:]
        return xp.moveaxis(w.reshape(moved), 0, self.axis).reshape(-1)


@dataclass
class Step:
    """d solves (H + tau I) d = -g; `shifts` Cholesky attempts failed before tau worked;
    d is None when no shift gave a factor. `factor` solves with H + tau I again."""

    d: object
    tau: float
    shifts: int
    factor: object = None


def newton_step(xp, H, g) -> Step:
    """The (damped) Newton direction for a dense Hessian matrix or `Blocks`."""
    step = _damped(xp, H.blocks if isinstance(H, Blocks) else H)
    if step.factor is not None:
        step.factor = (H, step.factor)
        step.d = -solve(xp, step.factor, g)
    return step


def solve(xp, factor, g):
    """(H + tau I)^-1 g with the `factor` of a Step."""
    H, L = factor
    if isinstance(H, Blocks):
        return H.join(xp, _solve(xp, L, H.split(xp, g)[..., None])[..., 0])
    return _solve(xp, L, g)


def _damped(xp, A) -> Step:
    diag = A.diagonal(axis1=-2, axis2=-1)
    low, scale = float(diag.min()), float(xp.abs(diag).max())
    beta = BETA * (scale if scale > 0 else 1.0)
    tau = 0.0 if low > 0 else beta - low
    eye = None                    # made at the first shift: most Hessians need none
    for shifts in range(MAX_SHIFTS):
        if tau and eye is None:
            eye = xp.eye(A.shape[-1])
        factor = cholesky(xp, A + tau * eye if tau else A)
        if factor is not None:
            return Step(None, tau, shifts, factor)
        tau = max(2 * tau, beta)
    return Step(None, tau, MAX_SHIFTS)


def cholesky(xp, A):
    """The lower Cholesky factor(s) of A (batched over leading axes), or None when A is
    not numerically positive definite. One float64 matrix on the host is factored by
    LAPACK's dpotrf directly (the routine NumPy calls, without its wrapper's checks)."""
    if xp is np and A.ndim == 2 and A.shape[0] and A.dtype == np.float64:
        factor, info = lapack.dpotrf(A, lower=1, clean=1, overwrite_a=0)
        if info != 0:
            return None
    else:
        factor = _factored(xp, A)
        if factor is None:
            return None
    diag = factor.diagonal(axis1=-2, axis2=-1)
    return factor if bool((diag > 0).all()) and bool(xp.isfinite(factor).all()) else None


def _factored(xp, A):
    """The array module's Cholesky factor(s) of A, or None where it reports failure."""
    try:
        with _raising(xp):
            return xp.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return None
    except Exception as exc:  # noqa: BLE001 - CuPy's LinAlgError is its own class
        if type(exc).__name__ != "LinAlgError":
            raise
        return None


def _raising(xp):
    """CuPy checks the factorisation status only when asked to."""
    if xp is np:
        return contextlib.nullcontext()
    import cupyx
    return cupyx.errstate(linalg="raise")


def _solve(xp, L, rhs):
    """x with L L^T x = rhs; triangular solves for one matrix, batched solves for blocks."""
    if L.ndim == 2:
        if xp is np:              # LAPACK's dpotrs, as cho_solve calls it, without its checks
            x, info = lapack.dpotrs(L, rhs, lower=1)
            if info != 0:
                raise ValueError(f"dpotrs: illegal value in argument {-info}")
            return x
        from cupyx.scipy.linalg import solve_triangular
        return solve_triangular(L.T, solve_triangular(L, rhs, lower=True), lower=False)
    y = xp.linalg.solve(L, rhs)
    return xp.linalg.solve(xp.swapaxes(L, -1, -2), y)


def objective_size(xp, f: float, g, y) -> float:
    """min(1, |f| + max|g| (1 + max|y|)): the objective's size near y, below 1 only for
    an objective of tiny scale (an LP whose costs are 1e-9), whose stopping tests are
    scaled down by it (`pathfollow.gap_needed`, the augmented Lagrangian's stationarity);
    1 where f and g are 0."""
    size = abs(f) + (float(xp.abs(g).max()) * (1.0 + float(xp.abs(y).max())) if y.size else 0.0)
    return min(1.0, size) if size > 0 else 1.0
