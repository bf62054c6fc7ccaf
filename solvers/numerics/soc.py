"""Second-order cones in the interior-point method: the batched algebra of
K = {(t, u): ||u|| <= t}, k cones of one dimension m = 1 + d held as (k, m) arrays, the
scalar t first (column 0), as CVXOPT orders them.

The Jordan algebra (Alizadeh and Goldfarb; Vandenberghe's CVXOPT notes, section 2):
x o y = (x'y, x0 y1 + y0 x1) with identity e = (1, 0); a cone has degree 1 in the
barrier parameter (s'z = mu on the central path s o z = mu e) and barrier
phi(s) = -log(t^2 - ||u||^2) / 2. Nesterov-Todd scaling: the one W (symmetric, a
multiple of a hyperbolic rotation) with W z = W^-1 s = lam, built from the normalised
points (`Scaling`). Everything works on all k cones at once: no Python loop per cone.

Inside means t^2 - ||u||^2 > 0 and t > 0, computed as (t - ||u||)(t + ||u||) so that a
point near the boundary keeps its relative accuracy.
"""
from __future__ import annotations

import math

from tensorcalc.arrays import Array, ArrayModule


def det(xp: ArrayModule, s: Array) -> Array:
    """t^2 - ||u||^2 of every cone, as (t - ||u||)(t + ||u||): (k,)."""
    u, t = s[:, 1:], s[:, 0]
    r = xp.sqrt(xp.einsum("ij,ij->i", u, u))
    return (t - r) * (t + r)


def inside(xp: ArrayModule, s: Array) -> bool:
    """Whether every cone's point is in the interior."""
    return bool(((s[:, 0] > 0) & (det(xp, s) > 0)).all()) if s.size else True


def product(x: Array, y: Array) -> Array:
    """x o y per cone."""
    out = x[:, :1] * y + y[:, :1] * x
    out[:, 0] = (x * y).sum(axis=1)
    return out


def divide(xp: ArrayModule, lam: Array, v: Array, lam_det: Array | None = None) -> Array:
    """x with lam o x = v per cone (lam inside): x0 = (lam0 v0 - lam1'v1) / det(lam),
    x1 = (v1 - x0 lam1) / lam0; `lam_det`: det(lam) where the caller has it."""
    lam_det = det(xp, lam) if lam_det is None else lam_det
    x0 = (lam[:, 0] * v[:, 0] - xp.einsum("ij,ij->i", lam[:, 1:], v[:, 1:])) / lam_det
    out = xp.empty_like(v)
    out[:, 0] = x0
    out[:, 1:] = (v[:, 1:] - x0[:, None] * lam[:, 1:]) / lam[:, :1]
    return out


def central(xp: ArrayModule, s: Array) -> Array:
    """J s / det(s), J = diag(1, -I): the z with s o z = e (-grad phi(s))."""
    z = -s / det(xp, s)[:, None]
    z[:, 0] = -z[:, 0]
    return z


SMALL = 16        # cones of at most this many entries apply W^-1 as (k, m, m) matrices


class Scaling:
    """The Nesterov-Todd scaling of (s, z), both inside: W = eta * (hyperbolic rotation
    by w), W z = W^-1 s = lam. `times`, `over` apply W and W^-1; `inverse` gives W^-1 as
    (k, m, m) matrices (for the Newton matrix G' W^-2 G)."""

    def __init__(self, xp: ArrayModule, s: Array, z: Array):
        self.xp = xp
        self.dets = (det(xp, s), det(xp, z))           # kept: `max_step` reads them
        ns, nz = xp.sqrt(self.dets[0]), xp.sqrt(self.dets[1])
        sb, zb = s / ns[:, None], z / nz[:, None]
        gamma = xp.sqrt((1.0 + xp.einsum("ij,ij->i", sb, zb)) / 2.0)
        w = sb.copy()
        w[:, 0] += zb[:, 0]
        w[:, 1:] -= zb[:, 1:]
        self.w = w / (2.0 * gamma[:, None])             # det(w) = 1, w0 >= 1
        self._w1, self._bent = self.w[:, 1:], 1.0 / (1.0 + self.w[:, 0])
        self.eta = xp.sqrt(ns / nz)
        self._eta = self.eta[:, None]
        self.lam = self.times(z)
        self.lam_det = ns * nz                         # det(W z) = det(s)^(1/2) det(z)^(1/2)
        self._inverse: Array | None = None             # W^-1 as matrices, formed at first use

    def _rotate(self, v: Array, sign: float) -> Array:
        w1, v1 = self._w1, v[:, 1:]
        w1v1 = self.xp.einsum("ij,ij->i", w1, v1)
        out = self.xp.empty_like(v)
        out[:, 0] = self.w[:, 0] * v[:, 0] + sign * w1v1
        out[:, 1:] = v1 + (w1v1 * self._bent + sign * v[:, 0])[:, None] * w1
        return out

    def times(self, v: Array) -> Array:
        """W v per cone."""
        return self._eta * self._rotate(v, 1.0)

    def over(self, v: Array) -> Array:
        """W^-1 v per cone (by the matrices of `inverse` for cones of at most SMALL entries:
        one product, where a rotation is six array operations)."""
        if self.w.shape[1] <= SMALL:
            return self.xp.einsum("kij,kj->ki", self.inverse(), v)
        return self._rotate(v, -1.0) / self._eta

    def over_twice(self, v: Array) -> Array:
        """W^-2 v per cone (W^-1 twice: the product of two ill-conditioned matrices formed
        first rounds away what the second application keeps)."""
        if self.w.shape[1] <= SMALL:
            return self.over(self.over(v))
        return self._rotate(self._rotate(v, -1.0), -1.0) / (self._eta * self._eta)

    def inverse(self) -> Array:
        """W^-1 as (k, m, m) matrices: [w0, -w1'; -w1, I + w1 w1' / (1 + w0)] / eta
        (formed once per scaling)."""
        if self._inverse is None:
            self._inverse = self._inverse_matrices()
        return self._inverse

    def _inverse_matrices(self) -> Array:
        xp, w = self.xp, self.w
        m = w.shape[1]
        out = w[:, :, None] * w[:, None, :] / (1.0 + w[:, :1, None])
        idx = xp.arange(1, m)
        out[:, idx, idx] += 1.0
        out[:, 0, :] = -w
        out[:, :, 0] = -w
        out[:, 0, 0] = w[:, 0]
        return out / self.eta[:, None, None]


def max_step(xp: ArrayModule, s: Array, ds: Array, det_s: Array | None = None) -> float:
    """The longest a >= 0 with s + a ds inside every cone (inf if none ends), s inside:
    the smallest positive root of q(a) = det(s + a ds) = A a^2 + 2 B a + C, C > 0. With
    B < 0 it is C / (sqrt(B^2 - A C) - B) where the roots are real (every sign of A; no
    cancellation); with B >= 0 there is one only for A < 0, (B + sqrt(B^2 - A C)) / -A.
    (t cannot reach 0 before det does: inside, t > |u|.) `det_s`: det(s) where the caller
    has it."""
    if not s.size:
        return math.inf
    d0 = ds[:, 0]
    A = 2.0 * d0 * d0 - xp.einsum("ij,ij->i", ds, ds)
    B = 2.0 * s[:, 0] * d0 - xp.einsum("ij,ij->i", s, ds)
    C = det(xp, s) if det_s is None else det_s
    disc = B * B - A * C
    root = xp.sqrt(xp.maximum(disc, 0.0))
    falling = B < 0
    valid = xp.where(falling, disc >= 0, A < 0)
    step = xp.where(falling, C / xp.where(falling, root - B, 1.0), (B + root) / xp.where(A < 0, -A, 1.0))
    return float(xp.where(valid & (step > 0), step, math.inf).min())


def barrier(xp: ArrayModule, s: Array) -> float:
    """sum phi(s) = -sum log(det s) / 2; inf outside a cone."""
    if not inside(xp, s):
        return math.inf
    return -0.5 * float(xp.sum(xp.log(det(xp, s))))


def barrier_slope(xp: ArrayModule, s: Array, ds: Array) -> float:
    """The derivative of `barrier` at s along ds: -sum (J s)'ds / det(s)."""
    return -float(xp.sum(central(xp, s) * ds))


def start(xp: ArrayModule, values: Array) -> Array:
    """A point well inside each cone near `values`: where t < 2 ||u|| + 1, t raised to it
    (det >= 3 ||u||^2 + 4 ||u|| + 1: a point near the boundary relative to its size would
    let every step along the curved surface leave the cone at once)."""
    out = values.copy()
    r = xp.sqrt(xp.sum(values[:, 1:] ** 2, axis=1))
    out[:, 0] = xp.maximum(values[:, 0], 2.0 * r + 1.0)
    return out
