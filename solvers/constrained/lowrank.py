"""Newton matrices of the form K = B + U' diag(c) U, B block diagonal (`Blocks` plus a
diagonal), U a few rows, c > 0: what the interior-point method meets on a separable
objective (entropy, log-barriers, sums of f(x_i): Hessian diagonal, or block diagonal
over one axis) under affine constraints, where U holds the inequality rows and c = lam / s.

Factoring K densely costs O(n^3) for a Hessian whose blocks cost O(n r^2) (r the block
size, 1 for a diagonal). Here the blocks are factored one by one and the rows enter by
the Sherman-Morrison-Woodbury identity in its symmetric, well-conditioned form:

    K^-1 = B^-1 - B^-1 U' C M^-1 C U B^-1,   C = diag(sqrt c),   M = I + C U B^-1 U' C,

M being m x m (m the number of rows) and positive definite whenever B is, with
eigenvalues at least 1 however large c grows on an active constraint. The identity is
not backward stable: on an active constraint (c -> inf) the step's component along the
rows is the small difference of two large terms, with an error of the rounding of
B^-1 rhs, which the interior-point method divides by the vanishing slack. So every solve
is refined once: the residual rhs - K x, computed from the parts of K (accurate: K x is
formed from x, not subtracted from anything large), is solved for again, which leaves
an error of the rounding of that small residual (iterative refinement, Higham,
Accuracy and Stability of Numerical Algorithms, ch. 12). `factor` returns None when a
block of B is not positive definite (a nonconvex objective): the caller then builds K
densely and shifts it.
"""
from __future__ import annotations

from dataclasses import dataclass

from solvers.numerics.linalg import Blocks, cho_solve, cholesky
from tensorcalc.arrays import Array, ArrayModule


@dataclass
class LowRankFactor:
    """K^-1 applied by `solve` (a `numerics.linalg.Factor`); built by `factor`."""

    xp: ArrayModule
    H: Blocks            # the blocks of the Hessian
    d: Array             # the diagonal added to them (n,); for a diagonal H, H's plus it
    L: Array             # Cholesky factors of B's blocks (k x r x r), or B's diagonal when r = 1
    U: Array             # the rows (m x n), scaled by sqrt(c); None when m = 0
    V: Array             # B^-1 U' with the scaled rows (n x m); None when m = 0
    M: Array             # the factor of M = I + U B^-1 U' (scaled rows), None when m = 0

    def solve(self, rhs: Array) -> Array:
        """K^-1 rhs for a vector (n,) or the columns of a matrix (n x q), refined once."""
        x = self._once(rhs)
        if self.M is None:
            return x
        return x + self._once(rhs - self.apply(x))

    def apply(self, x: Array) -> Array:
        """K x from K's parts."""
        xp, H = self.xp, self.H
        if H.blocks.shape[1] == 1:                     # diagonal: B's diagonal, flat
            out = (self.d * x.T).T
        else:
            cols = x.reshape(x.shape[0], -1)
            hx = _join(xp, H, xp.einsum("kab,kbq->kaq", H.blocks, _split(xp, H, cols))).reshape(x.shape)
            out = hx + (self.d * x.T).T
        return out if self.U is None else out + self.U.T @ (self.U @ x)

    def _once(self, rhs: Array) -> Array:
        x = self._blocks(rhs)
        if self.M is None:
            return x
        return x - self.V @ cho_solve(self.xp, self.M, self.U @ x)

    def _blocks(self, rhs: Array) -> Array:
        """B^-1 rhs, block by block."""
        xp, H = self.xp, self.H
        cols = rhs.reshape(rhs.shape[0], -1)
        parts = _split(xp, H, cols)                       # k x r x q
        if H.blocks.shape[1] == 1:
            out = parts / self.L[:, :, None]
        else:
            out = xp.linalg.solve(xp.swapaxes(self.L, -1, -2), xp.linalg.solve(self.L, parts))
        return _join(xp, H, out).reshape(rhs.shape)


def factor(xp: ArrayModule, H: Blocks, diagonal: Array, rows: Array, weights: Array) -> LowRankFactor | None:
    """The factor of K = H + diag(diagonal) + rows' diag(weights) rows (`weights` >= 0), or
    None when H + diag(diagonal) has a block that is not positive definite."""
    k, r, _ = H.blocks.shape
    d = _split(xp, H, diagonal.reshape(-1, 1))[:, :, 0]
    if r == 1:
        L = H.blocks[:, 0, 0] + d[:, 0]
        if not bool(xp.all(L > 0)) or not bool(xp.isfinite(L).all()):
            return None
        diagonal = _join(xp, H, L.reshape(k, 1, 1)).reshape(-1)
        L = L.reshape(k, 1)
    else:
        L = cholesky(xp, H.blocks + d[:, :, None] * xp.eye(r))
        if L is None:
            return None
    fac = LowRankFactor(xp, H, diagonal, L, None, None, None)
    if rows.shape[0] == 0:
        return fac
    fac.U = xp.sqrt(weights)[:, None] * rows
    fac.V = fac._blocks(fac.U.T.copy())
    M = xp.eye(rows.shape[0]) + fac.U @ fac.V
    fac.M = cholesky(xp, (M + M.T) / 2)
    return fac if fac.M is not None else None


def times(xp: ArrayModule, H: Array | Blocks, v: Array) -> Array:
    """H v for a dense or block-diagonal H."""
    return matvec(xp, H, v) if isinstance(H, Blocks) else H @ v


def curvature(xp: ArrayModule, W: Array | Blocks, v: Array) -> float:
    """v' W v for the Hessian of the Lagrangian, dense or `Blocks`."""
    return float(v @ times(xp, W, v))


def matvec(xp: ArrayModule, H: Blocks, v: Array) -> Array:
    """H v for a block-diagonal H and a flat vector v."""
    parts = H.split(xp, v)
    return H.join(xp, xp.einsum("kab,kb->ka", H.blocks, parts))


def _split(xp: ArrayModule, H: Blocks, cols: Array) -> Array:
    """Columns (n x q) of flat vectors of the variable, as k x r x q."""
    q = cols.shape[1]
    if H.axis == 0:                      # already in block order
        return cols.reshape(H.blocks.shape[:2] + (q,))
    moved = xp.moveaxis(cols.reshape(H.shape + (q,)), H.axis, 0)
    return moved.reshape(H.blocks.shape[:2] + (q,))


def _join(xp: ArrayModule, H: Blocks, parts: Array) -> Array:
    """The inverse of `_split`: k x r x q back to n x q."""
    q = parts.shape[2]
    if H.axis == 0:
        return parts.reshape(-1, q)
    moved = (H.shape[H.axis],) + H.shape[:H.axis] + H.shape[H.axis + 1:] + (q,)
    return xp.moveaxis(parts.reshape(moved), 0, H.axis).reshape(-1, q)
