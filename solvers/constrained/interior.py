"""A primal-dual interior-point Newton method for problems whose constraints are twice
differentiable (Boyd and Vandenberghe 11.7; Nocedal and Wright 19), on exact Hessians;
`pathfollow` iterates it.

    minimise f(y)  subject to  c_i(y) <= 0,  a(y) = 0,  l <= y <= u,  M_k(y) pd,  G y + h in K

Inequalities get slacks s > 0 (c + s = 0, so the start need not be feasible) with
multipliers lam > 0; bounds (strict or not) multipliers zl, zu > 0; equalities nu; each
definite matrix M = sign * X a dual matrix Z (`cone`). For a barrier parameter mu the
Newton step on the perturbed KKT conditions

    r_d = g + J_i' lam + J_e' nu - zl + zu - T' Z = 0,   r_i = c_i + s = 0,   r_e = a = 0,
    s lam = mu,   (y - l) zl = mu,   (u - y) zu = mu,   Z = mu inv(M)

reduces, after eliminating ds, dlam, dzl, dzu and dZ (HKM), to
(W + J_i' S^-1 Lam J_i + D + C) dy + J_e' dnu = rhs, J_e dy = -r_e: W is the Hessian
of the Lagrangian (objective and weighted constraints, compiled like the objective),
D = zl / (y - l) + zu / (u - y), C the cones' HKM block. One Cholesky factor (shifted
by a multiple of I where not positive definite) and, with equalities, their small Schur
complement, serve the predictor and the corrector step. Second-order cones G y + h in K
add their slacks, duals and Nesterov-Todd terms (`conic`).

Every rejection of input happens before this module runs; what it can meet is a
start outside a domain (SolverError from `pathfollow`) or numbers that stop it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

from solvers.constrained import lowrank
from solvers.constrained.boundary import to_boundary
from solvers.constrained.conic import Conic
from solvers.constrained.schur import solve_small
from solvers.methods.options import Options
from solvers.numerics import cone, soc
from solvers.numerics.linalg import Blocks, Factor, barrier_shifts, shifted
from solvers.numerics.space import View, dense
from solvers.objective.constraints import Constraints
from tensorcalc.arrays import Array, ArrayModule

PUSH = 1e-2          # how far a start on a bound is moved inside (relative)
MU0 = 0.1            # the first barrier parameter
SHIFT0 = 1e-8        # first shift of a Newton matrix that is not positive definite (x its Hessian)
ROUNDING = 1e-12     # or (x its largest entry) the rounding of the barrier terms, if larger
KAPPA = 1e10         # duals stay within this factor of mu / gap
THETA_MAX = 1e4      # the merit is inf where the infeasibility passes this times max(1, the start's)


@dataclass
class State:
    """Primal and dual iterate; `mu` the barrier parameter it was aimed at; Z one dual
    matrix per cone."""

    y: Array
    s: Array
    lam: Array
    nu: Array
    zl: Array
    zu: Array
    Z: list[Array]
    mu: float
    gaps: tuple[Array, Array] | None = None       # (y - l, u - y), see `Interior.gaps`
    cones: cone.At | None = None                  # the cones at y, see `Interior.cones`
    sc: list[Array] = field(default_factory=list)   # second-order cones' slacks and duals (`conic`)
    zc: list[Array] = field(default_factory=list)
    nt: list[soc.Scaling] | None = None           # their scalings, see `Interior.scalings`


class Residuals(NamedTuple):
    """r_d, r_i, r_e, the products s lam - mu, (y - l) zl - mu, (u - y) zu - mu, and
    per cone R = Z - mu inv(M) (the form the HKM step linearises); per second-order block
    G y + h - sc and lam o lam - mu e (`conic`)."""

    d: Array
    i: Array
    e: Array
    s: Array
    low: Array
    up: Array
    cones: list[Array]
    rc: list[Array]
    rz: list[Array]


class PrimalDualStep(NamedTuple):
    """The Newton step on the perturbed KKT conditions, for every primal and dual part."""

    dy: Array
    ds: Array
    dlam: Array
    dnu: Array
    dzl: Array
    dzu: Array
    dZ: list[Array]
    dsc: list[Array]
    dzc: list[Array]


@dataclass
class Point:
    """f, its gradient, constraint values and Jacobian (rows) at a point y; when asked
    the objective's Hessian H; W, the Hessian of the Lagrangian without the cones, is
    added by `Interior.system` (it depends on the multipliers)."""

    f: float
    g: Array
    c: Array
    J: Array
    H: Array = None
    W: Array = None


@dataclass
class System:
    """The factored Newton matrix (`fac`, None when no shift made it positive definite),
    the shift it was given (when none worked, the one after the last tried) and, with
    equalities, Y = K^-1 J_e' and the Schur complement S = J_e Y; K then holds
    rho J_e' J_e (`Interior.system`)."""

    fac: Factor | None
    shift: float
    Ji: Array
    Je: Array
    Y: Array = None
    S: Array = None
    rho: float = 0.0


class Interior:
    """The algebra of the method for one task; see the module docstring."""

    def __init__(self, view: View, cons: Constraints, opts: Options, gtol: float, tol: float):
        self.view, self.cons, self.opts, self.xp = view, cons, opts, view.xp
        self.space = view.space
        self.gtol, self.tol = gtol, tol
        xp = self.xp
        self.lower, self.upper = view.bounds(strict=True)
        self.hasL, self.hasU = xp.isfinite(self.lower), xp.isfinite(self.upper)
        self.eq = cons.equality
        self.degree = cone.degree(view.space)
        self.soc = Conic(xp, cons.cones)
        self.count = (int(xp.sum(~self.eq)) + int(xp.sum(self.hasL)) + int(xp.sum(self.hasU)) + self.degree
                      + self.soc.count)
        self.penalty = 0.0         # of the merit's infeasibility term; never decreases
        self.theta_max = math.inf  # the largest infeasibility the merit admits, set by `pathfollow.solve`
        # a block-diagonal Hessian is kept as `Blocks` (see `lowrank`) where nothing adds
        # a dense term to it: no cones, no coordinates to reduce, affine constraints only
        self.blocks = self.space.identity and not self.degree and not len(cons.cones) and cons.affine()

    def start(self, y0: Array) -> State:
        """y0 moved inside its bounds (`pushed`), slacks making the inequalities hold (or
        PUSH where they do not), and the duals that put every product at MU0."""
        xp = self.xp
        y0 = self.pushed(y0)
        c = self.cons.values(y0)[~self.eq] if self.cons.m else xp.zeros(0)
        s = xp.maximum(-c, PUSH * xp.maximum(1.0, xp.abs(c)))
        dl, du = self._gaps(y0)
        Z = [MU0 * cone.inverse(xp, M) for M in cone.matrices(self.space, y0)]
        sc, zc = self.soc.start(y0, MU0)
        return State(y0, s, MU0 / s, xp.zeros(int(xp.sum(self.eq))),
                     xp.where(self.hasL, MU0 / dl, 0.0), xp.where(self.hasU, MU0 / du, 0.0), Z, MU0, sc=sc, zc=zc)

    def pushed(self, y0: Array) -> Array:
        """y0 moved inside its bounds by PUSH relative to each, at most 1/100 of the interval."""
        xp = self.xp
        lower, upper = xp.where(self.hasL, self.lower, 0.0), xp.where(self.hasU, self.upper, 0.0)
        width = xp.where(self.hasL & self.hasU, upper - lower, math.inf)
        for bound, has, sign in ((lower, self.hasL, 1.0), (upper, self.hasU, -1.0)):
            inner = bound + sign * xp.minimum(PUSH * xp.maximum(1.0, xp.abs(bound)), PUSH * width)
            y0 = xp.where(has & (sign * (y0 - inner) < 0), inner, y0)
        return y0

    # ------------------------------------------------------------------ evaluation
    def point(self, st: State, hessian: bool = True) -> Point:
        view, xp = self.view, self.xp
        if hessian:
            f, g, H = view.value_grad_hess(st.y)
        else:
            f, g = view.value_grad(st.y)
        c, J = self.cons.values_jacobian(st.y)
        if not hessian:
            return Point(f, g, c, J)
        return Point(f, g, c, J, dense(xp, H) if isinstance(H, Blocks) and not self.blocks else H)

    def _weights(self, st: State) -> Array:
        w = self.xp.zeros(self.cons.m)
        w[~self.eq], w[self.eq] = st.lam, st.nu
        return w

    def _gaps(self, y: Array) -> tuple[Array, Array]:
        xp = self.xp
        return xp.where(self.hasL, y - self.lower, 1.0), xp.where(self.hasU, self.upper - y, 1.0)

    def gaps(self, st: State) -> tuple[Array, Array]:
        """(y - l, u - y) at st, 1 where there is no bound; computed once per state."""
        if st.gaps is None:
            st.gaps = self._gaps(st.y)
        return st.gaps

    def cones(self, st: State) -> cone.At:
        """The cones at st (their inverses and barrier), made once per state."""
        if st.cones is None:
            st.cones = cone.At(self.space, st.y)
        return st.cones

    def scalings(self, st: State) -> list[soc.Scaling]:
        """The Nesterov-Todd scalings of the second-order blocks at st, made once per state."""
        st.nt = self.soc.scalings(st.sc, st.zc) if st.nt is None else st.nt
        return st.nt

    def residuals(self, st: State, pt: Point, mu: float) -> Residuals:
        xp, eq = self.xp, self.eq
        Ji, Je = pt.J[~eq], pt.J[eq]
        rd = pt.g + Ji.T @ st.lam + Je.T @ st.nu - st.zl + st.zu - self.soc.dual(st.zc)
        if self.degree:
            rd = rd - cone.reduce(self.space, st.Z)
        dl, du = self.gaps(st)
        rl = xp.where(self.hasL, dl * st.zl - mu, 0.0)
        ru = xp.where(self.hasU, du * st.zu - mu, 0.0)
        return Residuals(rd, pt.c[~eq] + st.s, pt.c[eq], st.s * st.lam - mu, rl, ru,
                         cone.residuals(self.cones(st).inverses(), st.Z, mu), self.soc.primal(st.y, st.sc),
                         self.soc.complementarity(self.scalings(st), mu))

    def norm(self, st: State, r: Residuals) -> float:
        """The 2-norm of the residuals, the cones' in product form (M Z - mu I, lam o lam - mu e)."""
        parts = sum((float((p * p).sum()) for p in [*r[:6], *r.rc, *r.rz]), 0.0)
        for M, R in zip(cone.matrices(self.space, st.y), r.cones):
            P = M @ R
            parts += float((P * P).sum())
        return math.sqrt(parts)

    def gap(self, st: State) -> float:
        xp = self.xp
        dl, du = self.gaps(st)
        return (float(st.s @ st.lam) + float(xp.where(self.hasL, dl * st.zl, 0.0).sum())
                + float(xp.where(self.hasU, du * st.zu, 0.0).sum()) + cone.gap(self.space, st.y, st.Z)
                + self.soc.gap(st.sc, st.zc))

    def error(self, st: State, pt: Point, mu: float) -> float:
        """How far st is from the central point of barrier parameter mu: the largest
        residual, the dual and complementarity ones scaled down where the multipliers are
        large (Waechter and Biegler's s_d)."""
        xp = self.xp
        r = self.residuals(st, pt, mu)
        duals = sum(float(abs(v).sum()) for v in (st.lam, st.nu, st.zl, st.zu))
        duals += sum(float(xp.trace(Z)) for Z in st.Z) + self.soc.duals(st.zc)
        scale = max(1.0, duals / (100.0 * max(self.count + int(st.nu.size), 1)))
        big = [float(abs(v).max()) if v.size else 0.0 for v in [*r[:3], *r.rc]]
        comp = [float(abs(P).max()) for P in [*r[3:6], *cone.products(self.space, st.y, st.Z, mu), *r.rz]
                if P.size]       # second-order cones: lam o lam - mu e, the scaled form of their products
        return max(big[0] / scale, *big[1:], max(comp + [0.0]) / scale)

    def kkt(self, st: State, pt: Point) -> tuple[float, float, float]:
        """(max|r_d|, violation, largest complementarity product)."""
        xp = self.xp
        rd = self.residuals(st, pt, 0.0).d
        stat = float(abs(rd).max()) if self.view.n else 0.0
        dl, du = self.gaps(st)
        products = [st.s * st.lam, xp.where(self.hasL, dl * st.zl, 0.0), xp.where(self.hasU, du * st.zu, 0.0)]
        comp = [float(p.max()) for p in products if p.size]
        comp += [float(abs(P).max()) for P in [*cone.products(self.space, st.y, st.Z, 0.0),
                                                     *self.soc.products(st.sc, st.zc, 0.0)] if P.size]
        return stat, max(self.cons.violation(pt.c), self.cons.cones.violation(st.y)), max(comp + [0.0])

    # ------------------------------------------------------------------ the Newton step
    def system(self, st: State, pt: Point) -> System:
        """The factored Newton matrix K = W + J_i' S^-1 Lam J_i + D + C at st, shifted by a
        multiple of I where not positive definite, and with equalities K^-1 J_e' and the
        Schur complement J_e K^-1 J_e'; a block-diagonal W by blocks (`lowrank`). With
        equalities K holds rho J_e' J_e (rho: W's largest diagonal over J_e's largest
        squared column norm) and `step` adds -rho J_e' r_e: the same step exactly, but K
        no longer near singular where only equalities fix a direction (rel_entr)."""
        xp, eq = self.xp, self.eq
        if pt.H is None:
            pt.H = self.point(st).H
        Ji, Je = pt.J[~eq], pt.J[eq]
        dl, du = self.gaps(st)
        D = xp.where(self.hasL, st.zl / dl, 0.0) + xp.where(self.hasU, st.zu / du, 0.0)
        if isinstance(pt.H, Blocks):
            pt.W = pt.H                   # affine constraints: nothing to add
            fac = lowrank.factor(xp, pt.H, D, Ji, st.lam / st.s)
            if fac is not None:
                return _equalities(xp, System(fac, 0.0, Ji, Je))
            pt.H = dense(xp, pt.H)
        pt.W = pt.H + self.cons.hessian(st.y, self._weights(st)) if self.cons.m else pt.H
        K = pt.W + Ji.T @ ((st.lam / st.s)[:, None] * Ji) if Ji.shape[0] else pt.W.copy()
        K[xp.diag_indices(self.view.n)] += D
        cone.newton_block(self.space, self.cones(st).inverses(), st.Z, K)
        self.soc.newton(self.scalings(st), K)
        # shifts scale with the Hessian, not with the barrier terms, which grow without
        # bound on active constraints and would make any shift swamp the Hessian; but they
        # start above the rounding of K's largest entries, where Cholesky fails regardless
        hess, whole = (max(1.0, float(xp.max(xp.abs(xp.diagonal(M))))) if self.view.n else 1.0
                       for M in (pt.W, K))
        rho = hess / max(float(xp.max(xp.sum(Je * Je, axis=0))), 1e-300) if Je.size else 0.0
        K += rho * (Je.T @ Je) if rho else 0.0
        found = shifted(xp, K, barrier_shifts(max(SHIFT0 * hess, ROUNDING * whole), 1e10 * hess))
        return _equalities(xp, System(found.factor, found.tau, Ji, Je, rho=rho))

    def step(self, sysm: System, st: State, r: Residuals) -> PrimalDualStep:
        """The Newton step for the residuals r (see the module docstring), with a system
        whose K was factored."""
        xp = self.xp
        Ji, Je = sysm.Ji, sysm.Je
        if sysm.fac is None:
            raise ValueError("a Newton step needs a factored system: `system` found no shift")
        dl, du = self.gaps(st)
        rhs = (-r.d - Ji.T @ ((st.lam * r.i - r.s) / st.s)
               - xp.where(self.hasL, r.low / dl, 0.0) + xp.where(self.hasU, r.up / du, 0.0))
        if self.degree:
            rhs = rhs - cone.reduce(self.space, r.cones)
        rhs = rhs - sysm.rho * (Je.T @ r.e) if sysm.rho else rhs
        dy = sysm.fac.solve(rhs - self.soc.rhs(self.scalings(st), r.rc, r.rz))
        dnu = xp.zeros(Je.shape[0])
        if dnu.size:
            dnu = solve_small(xp, sysm.S, Je @ dy + r.e)
            dy = dy - sysm.Y @ dnu
        ds = -r.i - Ji @ dy
        dlam = (st.lam * r.i - r.s) / st.s + (st.lam / st.s) * (Ji @ dy)
        dzl = xp.where(self.hasL, (-r.low - st.zl * dy) / dl, 0.0)
        dzu = xp.where(self.hasU, (-r.up + st.zu * dy) / du, 0.0)
        dZ = cone.dual_steps(self.space, self.cones(st).inverses(), dy, st.Z, r.cones)
        return PrimalDualStep(dy, ds, dlam, dnu, dzl, dzu, dZ, *self.soc.steps(self.scalings(st), dy, r.rc, r.rz))

    def longest(self, st: State, d: PrimalDualStep, tau: float = 1.0) -> tuple[float, float]:
        """(primal, dual): the largest steps <= 1 keeping the fraction `tau` of the bound
        gaps, s and the cones' M (primal), of lam, zl, zu and the Z (dual)."""
        xp = self.xp
        dl, du = self.gaps(st)
        primal = min(to_boundary(xp, v, dv, mask, tau) for v, dv, mask in
                     ((st.s, d.ds, None), (dl, d.dy, self.hasL), (du, -d.dy, self.hasU)))
        dual = min(to_boundary(xp, v, dv, mask, tau) for v, dv, mask in
                   ((st.lam, d.dlam, None), (st.zl, d.dzl, self.hasL), (st.zu, d.dzu, self.hasU)))
        if self.degree:
            pairs = zip(cone.matrices(self.space, st.y), cone.matrices(self.space, d.dy))
            primal = min(primal, tau * cone.max_step(xp, pairs))
            dual = min(dual, tau * cone.max_step(xp, zip(st.Z, d.dZ)))
        return min(primal, self.soc.longest(st.sc, d.dsc, tau)), min(dual, self.soc.longest(st.zc, d.dzc, tau))

    def moved(self, st: State, d: PrimalDualStep, t: float, mu: float, dual: float | None = None) -> State:
        """The state after primal step t and dual step `dual` (t when None)."""
        u = t if dual is None else dual
        return State(st.y + t * d.dy, st.s + t * d.ds, st.lam + u * d.dlam, st.nu + u * d.dnu,
                     st.zl + u * d.dzl, st.zu + u * d.dzu, [Z + u * dZ for Z, dZ in zip(st.Z, d.dZ)], mu,
                     sc=[s + t * ds for s, ds in zip(st.sc, d.dsc)], zc=[z + u * dz for z, dz in zip(st.zc, d.dzc)])

    # ------------------------------------------------------------------ the merit
    def merit(self, st: State, pt: Point, mu: float) -> float:
        """The barrier plus `penalty` times the l1 infeasibility (Nocedal and Wright, Alg. 19.2);
        inf outside the domain and past `theta_max` (Waechter and Biegler: power(x, 8) <= 1
        from x = 0 took a 1e8 step, violation 1e64, at a feasible start's penalty 0)."""
        xp = self.xp
        if not finite(self, pt) or self.infeasibility(st, pt) > self.theta_max:
            return math.inf
        dl, du = self.gaps(st)
        logs = (float(xp.log(st.s).sum()) + float(xp.where(self.hasL, xp.log(dl), 0.0).sum())
                + float(xp.where(self.hasU, xp.log(du), 0.0).sum()))
        B = (self.cones(st).barrier()[0] if self.degree else 0.0) + self.soc.barrier(st.sc)
        return pt.f - mu * logs + mu * B + self.penalty * self.infeasibility(st, pt)

    def infeasibility(self, st: State, pt: Point) -> float:
        return (float(abs(pt.c[~self.eq] + st.s).sum()) + float(abs(pt.c[self.eq]).sum())
                + sum((float(abs(r).sum()) for r in self.soc.primal(st.y, st.sc)), 0.0))

    def slope(self, st: State, pt: Point, d: PrimalDualStep, mu: float) -> float:
        """The barrier function's derivative along the primal step (dy, ds)."""
        xp = self.xp
        dl, du = self.gaps(st)
        value = (float(pt.g @ d.dy) - mu * float((d.ds / st.s).sum())
                 - mu * float(xp.where(self.hasL, d.dy / dl, 0.0).sum())
                 + mu * float(xp.where(self.hasU, d.dy / du, 0.0).sum()) + mu * self.soc.slope(st.sc, d.dsc))
        return value + mu * float(self.cones(st).barrier()[1] @ d.dy) if self.degree else value

    def clamp(self, st: State) -> State:
        """Duals kept within a factor KAPPA of mu / gap (Waechter and Biegler's safeguard,
        so that the primal-dual Hessian cannot drift from the primal one)."""
        xp, mu = self.xp, st.mu
        dl, du = self.gaps(st)
        lam = xp.clip(st.lam, mu / (KAPPA * st.s), KAPPA * mu / st.s)
        zl = xp.where(self.hasL, xp.clip(st.zl, mu / (KAPPA * dl), KAPPA * mu / dl), 0.0)
        zu = xp.where(self.hasU, xp.clip(st.zu, mu / (KAPPA * du), KAPPA * mu / du), 0.0)
        return State(st.y, st.s, lam, st.nu, zl, zu, st.Z, mu, st.gaps, st.cones, st.sc, st.zc, st.nt)


def _equalities(xp: ArrayModule, sysm: System) -> System:
    """sysm with K^-1 J_e' and the Schur complement J_e K^-1 J_e' when there are
    equalities and K was factored."""
    if sysm.fac is not None and sysm.Je.shape[0]:
        sysm.Y = sysm.fac.solve(sysm.Je.T)
        sysm.S = sysm.Je @ sysm.Y
    return sysm


def finite(ip: Interior, pt: Point) -> bool:
    """Whether f, the constraints' values and the gradient are finite at pt."""
    xp = ip.xp
    return math.isfinite(pt.f) and bool(xp.isfinite(pt.c).all()) and bool(xp.isfinite(pt.g).all())
