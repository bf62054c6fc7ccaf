"""The second-order cones' share of the interior-point method (`interior`): for cones
s = G y + h in K (`solvers.objective.cones`), slacks sc in K (so the start need not
meet them) with duals zc in K, one (k, m) array per block. The conditions

    r_d = g + ... - G' zc = 0,   r_c = G y + h - sc = 0,   sc o zc = mu e

are linearised with Nesterov-Todd scaling W (`soc.Scaling`, lam = W zc = W^-1 sc):
lam o (W dz + W^-1 ds) = -r_z, r_z = lam o lam - mu e (plus Mehrotra's corrector
(W^-1 ds_a) o (W dz_a)), so that, with G dy - ds = -r_c,

    dz = -W^-2 (G dy + r_c) - W^-1 (lam \\ r_z),   ds = G dy + r_c,

and the Newton matrix gains G' W^-2 G, its right-hand side -G' (W^-2 r_c + W^-1 (lam \\ r_z))
(CVXOPT's coneqp, Vandenberghe 2010). Every operation is on whole blocks.
"""
from __future__ import annotations

import math

from solvers.numerics import soc
from solvers.objective.cones import Cones
from tensorcalc.arrays import Array, ArrayModule


class Conic:
    """The cone terms for the blocks of `cones`; sc, zc, and the residuals are lists with
    one (k, m) array per block."""

    def __init__(self, xp: ArrayModule, cones: Cones):
        self.xp, self.cones = xp, cones
        self.blocks = cones.blocks
        self.count = sum(b.k for b in self.blocks)       # each cone has degree 1

    def start(self, y: Array, mu: float) -> tuple[list[Array], list[Array]]:
        """Slacks inside the cones near s(y) (`soc.start`), duals on the central path for mu."""
        sc = [soc.start(self.xp, s) for s in self.cones.values(y)]
        return sc, [mu * soc.central(self.xp, s) for s in sc]

    def identity(self) -> list[Array]:
        """e = (1, 0) in every cone of every block (the scalings of e and e are W = I)."""
        out = []
        for b in self.blocks:
            e = self.xp.zeros(b.h.shape)
            e[:, 0] = 1.0
            out.append(e)
        return out

    def scalings(self, sc: list[Array], zc: list[Array]) -> list[soc.Scaling]:
        return [soc.Scaling(self.xp, s, z) for s, z in zip(sc, zc)]

    def dual(self, zc: list[Array]) -> Array:
        """sum G' zc: the cones' term of the Lagrangian's gradient (subtracted)."""
        out = self.xp.zeros(self.cones.view.n)
        for b, z in zip(self.blocks, zc):
            out += b.G.reshape(-1, b.G.shape[2]).T @ z.reshape(-1)
        return out

    def primal(self, y: Array, sc: list[Array]) -> list[Array]:
        """r_c = G y + h - sc per block."""
        return [s_y - s for s_y, s in zip(self.cones.values(y), sc)]

    def complementarity(self, scal: list[soc.Scaling], mu: float) -> list[Array]:
        """r_z = lam o lam - mu e per block."""
        out = []
        for w in scal:
            r = soc.product(w.lam, w.lam)
            r[:, 0] -= mu
            out.append(r)
        return out

    def products(self, sc: list[Array], zc: list[Array], mu: float) -> list[Array]:
        """sc o zc - mu e per block: the complementarity residual as measured."""
        out = []
        for s, z in zip(sc, zc):
            r = soc.product(s, z)
            r[:, 0] -= mu
            out.append(r)
        return out

    def newton(self, scal: list[soc.Scaling], K: Array) -> None:
        """Add G' W^-2 G = (W^-1 G)' (W^-1 G) of every block to K in place (a product of
        the scaled rows, positive semidefinite by construction, as CVXOPT forms it)."""
        for b, w in zip(self.blocks, scal):
            WG = (w.inverse() @ b.G).reshape(-1, b.G.shape[2])
            K += WG.T @ WG

    def _scaled(self, scal: list[soc.Scaling], rc: list[Array], rz: list[Array]) -> list[Array]:
        """W^-2 r_c + W^-1 (lam \\ r_z) per block."""
        return [w.over_twice(r) + w.over(soc.divide(self.xp, w.lam, q, w.lam_det)) for w, r, q in zip(scal, rc, rz)]

    def rhs(self, scal: list[soc.Scaling], rc: list[Array], rz: list[Array]) -> Array:
        """G' (W^-2 r_c + W^-1 (lam \\ r_z)), subtracted from the right-hand side."""
        return self.dual(self._scaled(scal, rc, rz))

    def steps(self, scal: list[soc.Scaling], dy: Array, rc: list[Array],
              rz: list[Array]) -> tuple[list[Array], list[Array]]:
        """(ds, dz) per block for the step dy."""
        ds = [b.times(dy) + r for b, r in zip(self.blocks, rc)]     # not (G dy + h) - h: W^-2 magnifies its rounding
        dz = [-(w.over_twice(d) + w.over(soc.divide(self.xp, w.lam, q, w.lam_det))) for w, d, q in zip(scal, ds, rz)]
        return ds, dz

    def corrector(self, scal: list[soc.Scaling], ds: list[Array], dz: list[Array]) -> list[Array]:
        """Mehrotra's second-order term (W^-1 ds_a) o (W dz_a) per block."""
        return [soc.product(w.over(d), w.times(e)) for w, d, e in zip(scal, ds, dz)]

    def longest(self, v: list[Array], dv: list[Array], tau: float, dets: list[Array] | None = None) -> float:
        """The largest step <= 1 keeping the fraction tau inside every cone; `dets`: det(v)
        per block where the caller has them (`soc.Scaling.dets`)."""
        found = min((soc.max_step(self.xp, s, d, None if dets is None else dets[k])
                     for k, (s, d) in enumerate(zip(v, dv))), default=math.inf)
        return min(1.0, tau * found)

    def barrier(self, sc: list[Array]) -> float:
        return sum((soc.barrier(self.xp, s) for s in sc), 0.0)

    def slope(self, sc: list[Array], ds: list[Array]) -> float:
        return sum((soc.barrier_slope(self.xp, s, d) for s, d in zip(sc, ds)), 0.0)

    def gap(self, sc: list[Array], zc: list[Array]) -> float:
        return sum((float(self.xp.sum(s * z)) for s, z in zip(sc, zc)), 0.0)

    def largest_gap(self, sc: list[Array], zc: list[Array]) -> float:
        """The largest sc'zc of one cone (0 without cones)."""
        return max((float(self.xp.sum(s * z, axis=1).max()) for s, z in zip(sc, zc) if s.size), default=0.0)

    def duals(self, zc: list[Array]) -> float:
        """The size of the duals, sum of their t parts (as a trace)."""
        return sum((float(self.xp.sum(z[:, 0])) for z in zc), 0.0)
