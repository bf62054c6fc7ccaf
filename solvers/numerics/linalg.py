"""Newton systems: the `Factor` protocol every factored Newton matrix satisfies, Cholesky
factors of a dense matrix or of the blocks of a block-diagonal one (on NumPy or CuPy), and
the one shift policy (`Shifts`, `shifted`) that adds tau I to a matrix that is not
positive definite (Nocedal and Wright, Numerical Optimization, 2nd ed., Algorithm 3.3).

NumPy's Cholesky raises on a matrix that is not positive definite; CuPy's, by default,
returns whatever cuSOLVER left behind (nan, or a partial factor) without a word. So on
CuPy the factorisation runs under `cupyx.errstate(linalg="raise")`, which checks
cuSOLVER's status, and every factor, on any device, must also have a finite, positive
diagonal (one scalar back to the host) before it is trusted.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any, ContextManager, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

from tensorcalc.arrays import Array, ArrayModule

BETA = 1e-3          # Newton's first shift, relative to the largest diagonal entry
MAX_SHIFTS = 60      # Newton's tau doubles each time; 60 doublings reach any finite scale
DOUBLING = 2.0       # Newton's growth of tau per failed attempt
HUNDREDFOLD = 100.0  # the interior-point growth: its shifts span 1e-8 to 1e10 of the Hessian
BARRIER_SHIFTS = 20  # the interior-point attempts (bounded: its first or last may be inf)


@runtime_checkable
class Factor(Protocol):
    """A factored Newton matrix K: what every factor offers (`Cholesky`,
    `constrained.lowrank.LowRankFactor`, `constrained.elimination.EliminationFactor`)."""

    def solve(self, rhs: Array) -> Array:
        """K^-1 rhs for a vector (n,) or, where stated, the columns of a matrix (n x q)."""
        ...


@dataclass
class Blocks:
    """A block-diagonal Hessian: `blocks[i]` (R x R) acts on the entries with index i on
    `axis` of a variable of shape `shape`; R is the product of the other lengths."""

    blocks: Array
    axis: int
    shape: tuple[int, ...]

    def split(self, xp: ArrayModule, v: Array) -> Array:
        """A flat vector of the variable, as (number of blocks, R)."""
        return xp.moveaxis(v.reshape(self.shape), self.axis, 0).reshape(self.blocks.shape[:2])

    def join(self, xp: ArrayModule, w: Array) -> Array:
        """The inverse of `split`: (number of blocks, R) back to a flat vector."""
        moved = (self.shape[self.axis],) + self.shape[:self.axis] + self.shape[self.axis + 1:]
        return xp.moveaxis(w.reshape(moved), 0, self.axis).reshape(-1)


@dataclass(frozen=True)
class Cholesky:
    """(A + tau I)^-1 by the lower Cholesky factor L of a dense A (only L's lower triangle
    is read), or by the factors (k x R x R) of the blocks of `blocks`, solving a flat
    vector. A `Factor`; for a dense A, `solve` also takes the columns of a matrix."""

    xp: ArrayModule
    L: Array
    tau: float = 0.0
    blocks: Blocks | None = None

    def solve(self, rhs: Array) -> Array:
        xp, H = self.xp, self.blocks
        if H is not None:
            return H.join(xp, cho_solve(xp, self.L, H.split(xp, rhs)[..., None])[..., 0])
        return cho_solve(xp, self.L, rhs)


@dataclass(frozen=True)
class Shifts:
    """The one shift policy: A + tau I is factored for tau = `start`, then `floor` (where
    the last tau was 0), then `growth` times the last, until a factor exists, after
    `attempts` tries, or where the next tau would pass `limit` or repeat the last (the same
    matrix again). Newton (`newton_shifts`) and the interior-point methods
    (`barrier_shifts`) differ only in these numbers."""

    start: float
    floor: float
    growth: float
    attempts: int
    limit: float = math.inf

    def after(self, tau: float) -> float:
        """The shift tried after tau failed."""
        return self.floor if tau == 0 else self.growth * tau

    def taus(self) -> tuple[float, ...]:
        """Every shift the policy tries in turn (ignoring `limit`), and the one after the last."""
        out = [self.start]
        for _ in range(self.attempts):
            out.append(self.after(out[-1]))
        return tuple(out)


NO_SHIFT = Shifts(0.0, 0.0, 1.0, 1)      # A itself, or no factor


@dataclass(frozen=True)
class Shifted:
    """What `shifted` found: the factor of A + tau I (None when no tried shift gave one),
    tau (when none did, the next shift the policy would have tried) and the number of
    attempts that failed (`attempts` when none worked)."""

    factor: Cholesky | None
    tau: float
    failed: int


@dataclass
class Step:
    """d solves (H + tau I) d = -g; `shifts` Cholesky attempts failed before tau worked;
    d is None when no shift gave a factor. `factor` solves with H + tau I again."""

    d: Array
    tau: float
    shifts: int
    factor: Cholesky | None = None


def newton_shifts(low: float, scale: float) -> Shifts:
    """Algorithm 3.3 for a matrix whose smallest diagonal entry is `low` and largest
    absolute one `scale`: tau = 0 where the diagonal is positive, else beta - low, then
    doubling, never below beta = BETA * scale."""
    beta = BETA * (scale if scale > 0 else 1.0)
    return Shifts(0.0 if low > 0 else beta - low, beta, DOUBLING, MAX_SHIFTS)


def barrier_shifts(first: float, last: float) -> Shifts:
    """The interior-point methods' policy: 0, then `first`, a hundredfold each time, up
    to max(first, last) (their shifts scale with the Hessian, not with the barrier terms)."""
    return Shifts(0.0, first, HUNDREDFOLD, BARRIER_SHIFTS, max(first, last))


def newton_step(xp: ArrayModule, H: Array | Blocks, g: Array) -> Step:
    """The (damped) Newton direction for a dense Hessian matrix or `Blocks`."""
    A = H.blocks if isinstance(H, Blocks) else H
    diag = A.diagonal(axis1=-2, axis2=-1)
    found = shifted(xp, H, newton_shifts(float(diag.min()), float(xp.abs(diag).max())))
    if found.factor is None:
        return Step(None, found.tau, found.failed)
    return Step(-found.factor.solve(g), found.tau, found.failed, found.factor)


def shifted(xp: ArrayModule, A: Array | Blocks, policy: Shifts) -> Shifted:
    """The factor of A + tau I (A dense, or `Blocks`, whose blocks share tau) for the
    first tau of `policy` that makes it numerically positive definite."""
    H = A if isinstance(A, Blocks) else None
    M = A.blocks if isinstance(A, Blocks) else A
    tau = policy.start
    eye: Array = None                     # made at the first shift: most matrices need none
    for failed in range(policy.attempts):
        if tau and eye is None:
            eye = xp.eye(M.shape[-1])
        L = _lower(xp, M + tau * eye if tau else M)
        if L is not None:
            return Shifted(Cholesky(xp, L, tau, H), tau, failed)
        following = policy.after(tau)
        if following == tau or not following <= policy.limit:
            return Shifted(None, following, policy.attempts)
        tau = following
    return Shifted(None, tau, policy.attempts)


def _lower(xp: ArrayModule, A: Array) -> Array | None:
    """The lower Cholesky factor for `shifted`, or None: one float64 matrix on the host by
    dpotrf without zeroing the upper triangle (solves read only the lower one), trusted
    when dpotrf succeeds and the diagonal is finite (dpotrf fails on a diagonal entry
    <= 0 or nan, and a non-finite entry below the diagonal makes its row's one so);
    anything else by `cholesky`."""
    if xp is np and A.ndim == 2 and A.shape[0] and A.dtype == np.float64:
        factor, info = lapack.dpotrf(A, lower=1, clean=0, overwrite_a=0)
        return factor if info == 0 and np.isfinite(np.diagonal(factor)).all() else None
    return cholesky(xp, A)


def cholesky(xp: ArrayModule, A: Array) -> Array | None:
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


def _factored(xp: ArrayModule, A: Array) -> Array | None:
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


def _raising(xp: ArrayModule) -> ContextManager[Any]:
    """CuPy checks the factorisation status only when asked to."""
    if xp is np:
        return contextlib.nullcontext()
    import cupyx
    return cupyx.errstate(linalg="raise")


def cho_solve(xp: ArrayModule, L: Array, rhs: Array) -> Array:
    """x with L L^T x = rhs (only L's lower triangle read): triangular solves for one
    matrix (rhs a vector or columns), batched solves for blocks (k x R x R, rhs k x R x q)."""
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


def transpose(A: Array) -> Array:
    """A' for repeated products: CSR for a sparse A (SciPy's A.T builds a new CSC object on
    every use, 15 us each, several times an iteration), a view for a dense one."""
    return A.T.tocsr() if sp.issparse(A) else A.T


def objective_size(xp: ArrayModule, f: float, g: Array, y: Array) -> float:
    """min(1, |f| + max|g| (1 + max|y|)): the objective's size near y, below 1 only for
    an objective of tiny scale (an LP whose costs are 1e-9), whose stopping tests are
    scaled down by it (`pathfollow.gap_needed`, the augmented Lagrangian's stationarity);
    1 where f and g are 0."""
    size = abs(f) + (float(xp.abs(g).max()) * (1.0 + float(xp.abs(y).max())) if y.size else 0.0)
    return min(1.0, size) if size > 0 else 1.0
