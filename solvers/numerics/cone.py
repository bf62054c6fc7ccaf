"""Definite matrix variables in the interior-point method: the log-det barrier, the
primal-dual (HKM) terms of the Newton system, and the longest step inside the cone.

A variable declared pd/psd (nd/nsd) must keep M = sign * X positive definite; its dual
is a positive definite Z with M Z = mu I on the central path. In y, the coordinates of
the `Space` (X by its upper triangle, `Cone.where` a contiguous slice), <Z, dX> is
T' vec(Z) . dy, T the 0/1 map of `Space.lift`. The HKM direction (Helmberg, Rendl,
Vanderbei, Wolkowicz; Kojima, Shindoh, Hara; Monteiro) linearises Z = mu inv(M) as

    dZ = -R - sym(Z dM inv(M)),   R = Z - mu inv(M),

which puts T' ((Z (x) inv(M) + inv(M) (x) Z) / 2) T into the Newton matrix: the primal
barrier's Hessian mu inv(M) (x) inv(M) when Z = mu inv(M). Matrices here are dense
n x n device arrays, one per cone, in the order of `Space.cones`.

Inside, for this method, means positive definite to working precision (`factor`): the
barrier, the HKM terms and the step to the boundary all use inv(M), which a matrix whose
Cholesky factor exists but whose smallest pivot is at rounding level does not have in
float64 (LU then finds it exactly singular). Such a matrix is on the boundary: the barrier
is inf there and the line search steps back from it.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from solvers.numerics.linalg import cholesky
from solvers.numerics.space import Space
from tensorcalc.arrays import Array, ArrayModule
from tensorcalc.memo import memoized

EPS = float(np.finfo(float).eps)


def _local(xp: ArrayModule, n: int) -> tuple[Array, Array, Array]:
    """Upper-triangle maps of one n x n matrix (as `Space` builds them for all of z)."""
    up, down, twin = _maps(n)
    return xp.asarray(up), xp.asarray(down), xp.asarray(twin)


@memoized(maxsize=64)
def _maps(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The host arrays of `_local`, kept per order (read-only, as they are shared): a
    solve asks for them several times an iteration."""
    i, j = np.triu_indices(n)
    maps = (i * n + j, j * n + i, (i != j).astype(np.float64))
    for a in maps:
        a.flags.writeable = False
    return maps


def matrices(space: Space, y: Array) -> list[Array]:
    """M = sign * X of every cone at y."""
    z = space.lift(y)
    return [c.sign * c.matrix(z) for c in space.cones]


def factor(xp: ArrayModule, M: Array) -> Array | None:
    """The lower Cholesky factor of M where M is positive definite to working precision
    (its smallest pivot squared above n eps times its largest), else None."""
    L = cholesky(xp, M)
    if L is None:
        return None
    d = xp.diagonal(L)
    return L if float(d.min()) ** 2 > M.shape[0] * EPS * float(d.max()) ** 2 else None


def inverse(xp: ArrayModule, M: Array) -> Array:
    """inv(M), symmetrised, for M inside (`factor`); from its Cholesky factor."""
    L = factor(xp, M)
    if L is None:
        raise ValueError("cone.inverse: the matrix is not positive definite to working precision "
                         "(an interior-point state outside its cone)")
    return _inverse_from(xp, L)


def inverse_inside(xp: ArrayModule, M: Array) -> Array | None:
    """inv(M) where M is inside (`factor`), else None."""
    L = factor(xp, M)
    return None if L is None else _inverse_from(xp, L)


def _inverse_from(xp: ArrayModule, L: Array) -> Array:
    """inv(M), symmetrised, from the lower Cholesky factor L of M (`factor`)."""
    Li = xp.linalg.inv(L)
    Mi = Li.T @ Li
    return (Mi + Mi.T) / 2


class At:
    """The cones at one point y, each quantity computed once and only when asked: the
    inverses of their M (`inverse`) and the barrier (`barrier`), which the interior-point
    iteration needs several times per state."""

    def __init__(self, space: Space, y: Array):
        self.space, self.y = space, y
        self._inverses: list[Array] | None = None
        self._barrier: tuple[float, Array] | None = None

    def inverses(self) -> list[Array]:
        """inv(M) of every cone at y (`inverse`)."""
        if self._inverses is None:
            self._inverses = [inverse(self.space.xp, M) for M in matrices(self.space, self.y)]
        return self._inverses

    def barrier(self) -> tuple[float, Array]:
        """`barrier` at y."""
        if self._barrier is None:
            self._barrier = barrier(self.space, self.y)
        return self._barrier


def reduce(space: Space, mats: Iterable[Array]) -> Array:
    """sum over cones of sign * T' vec(A) for one matrix A per cone: the y-gradient of
    <A, M> (zero outside the cones' coordinates)."""
    xp = space.xp
    out = xp.zeros(space.n)
    for c, A in zip(space.cones, mats):
        up, down, twin = _local(xp, c.n)
        flat = (c.sign * A).reshape(-1)
        out[c.where] = flat[up] + twin * flat[down]
    return out


def newton_block(space: Space, inverses: list[Array], Zs: list[Array], K: Array) -> None:
    """Add the HKM term T' sym(Z (x) inv(M)) T of every cone to the matrix K in place;
    `inverses`: inv(M) of every cone (`At.inverses`)."""
    xp = space.xp
    for c, Mi, Z in zip(space.cones, inverses, Zs):
        up, down, twin = _local(xp, c.n)
        op = (xp.kron(Z, Mi) + xp.kron(Mi, Z)) / 2
        cols = op[:, up] + twin * op[:, down]
        K[c.where, c.where] += cols[up, :] + twin[:, None] * cols[down, :]


def residuals(inverses: list[Array], Zs: list[Array], mu: float) -> list[Array]:
    """R = Z - mu inv(M) of every cone, from the inverses (`At.inverses`)."""
    return [Z - mu * Mi for Mi, Z in zip(inverses, Zs)]


def dual_steps(space: Space, inverses: list[Array], dy: Array, Zs: list[Array], Rs: list[Array]) -> list[Array]:
    """dZ = -R - sym(Z dM inv(M)) of every cone, dM = sign * dX; `inverses` at the
    point (`At.inverses`)."""
    out = []
    for Mi, dM, Z, R in zip(inverses, matrices(space, dy), Zs, Rs):
        P = Z @ dM @ Mi
        out.append(-R - (P + P.T) / 2)
    return out


def gap(space: Space, y: Array, Zs: list[Array]) -> float:
    """sum of <M, Z>, the cones' share of the duality gap."""
    return sum(float(space.xp.sum(M * Z)) for M, Z in zip(matrices(space, y), Zs))


def products(space: Space, y: Array, Zs: list[Array], mu: float) -> list[Array]:
    """M Z - mu I of every cone: the complementarity residual in product form."""
    xp = space.xp
    return [M @ Z - mu * xp.eye(M.shape[0]) for M, Z in zip(matrices(space, y), Zs)]


def barrier(space: Space, y: Array) -> tuple[float, Array]:
    """(B, gradient) of B = -sum log det M in y; B = inf outside a cone."""
    xp = space.xp
    value, inverses = 0.0, []
    for M in matrices(space, y):
        L = factor(xp, M)
        if L is None:
            return math.inf, xp.zeros(space.n)
        value -= 2.0 * float(xp.sum(xp.log(xp.diagonal(L))))
        inverses.append(_inverse_from(xp, L))
    return value, -reduce(space, inverses)


def degree(space: Space) -> int:
    """The barrier parameter of the cones: the sum of their orders."""
    return sum(c.n for c in space.cones)


def max_step(xp: ArrayModule, pairs: Iterable[tuple[Array, Array]]) -> float:
    """The longest t >= 0 with every M + t dM positive definite, for (M, dM) pairs (inf
    if none ends): 1 / -lambda_min(L^-1 dM L^-T); 0 where an M is not inside (`factor`)
    or a dM is not finite. Never raises: where LAPACK finds no eigenvalues, by bisection
    with `factor` as the test (`_bisected`)."""
    best = math.inf
    for M, dM in pairs:
        L = factor(xp, M)
        S = (dM + dM.T) / 2
        if L is None or not bool(xp.isfinite(S).all()):
            return 0.0
        Li = xp.linalg.inv(L)
        try:
            low = float(xp.linalg.eigvalsh(Li @ S @ Li.T).min())
        except np.linalg.LinAlgError:
            best = min(best, _bisected(xp, M, S))
            continue
        if low < 0:
            best = min(best, -1.0 / low)
    return best


def _bisected(xp: ArrayModule, M: Array, S: Array, halvings: int = 60) -> float:
    """The longest t with M + t S inside (`factor`), to a relative 2^-halvings: doubled
    from 1 while inside (inf past 2^60), then bisected; for M inside."""
    low, high = 0.0, 1.0
    while factor(xp, M + high * S) is not None:
        low, high = high, 2.0 * high
        if high > 2.0 ** 60:
            return math.inf
    for _ in range(halvings):
        mid = (low + high) / 2
        low, high = (mid, high) if factor(xp, M + mid * S) is not None else (low, mid)
    return low
