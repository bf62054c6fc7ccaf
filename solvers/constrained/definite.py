"""The definite matrix variables' share of `qp`'s method: the same primal-dual (HKM) terms
as `interior` uses (`numerics.cone`), in Mehrotra's predictor-corrector iteration.

A variable declared pd/psd (nd/nsd) keeps M = sign * X positive definite: no slack, the
primal X itself stays inside (the fraction-to-the-boundary rule on M, as on the bounds'
slacks), with a dual Z inside, M Z = mu I on the central path. The conditions

    r_d = ... - T' vec(sign Z) = 0,   R = Z - mu inv(M) = 0

are linearised as `cone` says: K gains T' sym(Z (x) inv(M)) T, the right-hand side
-T' vec(sign R), and dZ = -R - sym(Z dM inv(M)); Mehrotra's corrector adds
sym(inv(M) dM_a dZ_a) to R. A semidefinite program whose objective is linear or quadratic
and whose constraints are affine (a trace minimised over correlation matrices) is then a
QP with cones: 8-12 iterations of one dense factorisation each, where `pathfollow`'s
merit line search took 30 or more.
"""
from __future__ import annotations

import math

import numpy as np

from solvers.numerics import cone
from solvers.numerics.space import Space
from tensorcalc.arrays import Array


class Definite:
    """The HKM terms of the definite variables of `space` (none: every method a no-op)."""

    def __init__(self, space: Space):
        self.space, self.xp = space, space.xp
        self.degree = cone.degree(space)

    def at(self, y: Array) -> list[Array] | None:
        """inv(M) of every cone at y; None where an M is not inside to working precision
        (`cone.factor`: rounding has put the iterate on the boundary)."""
        out = [cone.inverse_inside(self.xp, M) for M in cone.matrices(self.space, y)]
        return None if any(Mi is None for Mi in out) else out

    def unit(self) -> list[Array]:
        """I per cone: inv(M) and Z of M = Z = I, the terms of the start's least-squares system."""
        return [self.xp.eye(c.n) for c in self.space.cones]

    def dual(self, Z: list[Array]) -> Array:
        """T' vec(sign Z) summed over the cones: subtracted from r_d."""
        return cone.reduce(self.space, Z)

    def residuals(self, inverses: list[Array], Z: list[Array], mu: float) -> list[Array]:
        """R = Z - mu inv(M) per cone."""
        return cone.residuals(inverses, Z, mu)

    def corrected(self, R: list[Array], inverses: list[Array], dy: Array, dZ: list[Array]) -> list[Array]:
        """R plus Mehrotra's second-order term sym(inv(M) dM dZ) of the predictor's step."""
        out = []
        for r, Mi, dM, dz in zip(R, inverses, cone.matrices(self.space, dy), dZ):
            P = Mi @ dM @ dz
            out.append(r + (P + P.T) / 2)
        return out

    def newton(self, inverses: list[Array], Z: list[Array], K: Array) -> None:
        """Add T' sym(Z (x) inv(M)) T to K in place."""
        cone.newton_block(self.space, inverses, Z, K)

    def rhs(self, R: list[Array]) -> Array:
        """T' vec(sign R), subtracted from the Newton system's right-hand side."""
        return cone.reduce(self.space, R)

    def steps(self, inverses: list[Array], dy: Array, Z: list[Array], R: list[Array]) -> list[Array]:
        """dZ per cone for the step dy."""
        return cone.dual_steps(self.space, inverses, dy, Z, R)

    def longest(self, y: Array, dy: Array, Z: list[Array], dZ: list[Array], tau: float) -> tuple[float, float]:
        """(primal, dual): the largest steps <= 1 keeping the fraction tau inside the cones."""
        if not self.degree:
            return 1.0, 1.0
        primal = cone.max_step(self.xp, zip(cone.matrices(self.space, y), cone.matrices(self.space, dy)))
        dual = cone.max_step(self.xp, zip(Z, dZ))
        return min(1.0, tau * primal), min(1.0, tau * dual)

    def gap(self, y: Array, Z: list[Array]) -> float:
        """sum <M, Z>: the cones' share of the duality gap."""
        return cone.gap(self.space, y, Z) if self.degree else 0.0

    def largest(self, y: Array, Z: list[Array]) -> float:
        """The largest entry of any M Z (the complementarity the stop reports)."""
        products = cone.products(self.space, y, Z, 0.0) if self.degree else []
        return max((float(self.xp.abs(P).max()) for P in products), default=0.0)

    def start(self, y: Array, scale: float) -> tuple[Array, list[Array]]:
        """(y with every M = xi I, duals Z = eta I), xi = eta = max(10, sqrt(n), scale)
        (SDPT3's start, Toh, Todd and Tutuncu 1999, with `scale` the data's size): the
        least-squares point's M is no start for a cone whose optimum is on its boundary."""
        if not self.degree:
            return y, []
        y, duals = y.copy(), []
        for c in self.space.cones:
            size = max(10.0, math.sqrt(c.n), scale)
            i, j = np.triu_indices(c.n)
            y[c.where] = c.sign * size * (i == j)
            duals.append(size * self.xp.eye(c.n))
        return y, duals

