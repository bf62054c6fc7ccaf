"""Convex quadratic programs by Mehrotra's predictor-corrector interior-point method.

    minimise  f0 + q'y + y'Hy/2   subject to  G y <= h,  E y = e,  l <= y <= u

is what a problem is when its objective is a quadratic polynomial in the free variables
and every constraint affine (`tensorcalc.algebra.degree`), with no matrix variable to keep in a
cone or to reduce to its upper triangle (`applies`). Then H, q, G, h, E, e are read once
from one compiled evaluation at the start, and an iteration costs one factorisation of
K = H + G' W G + D and four solves with it: no compiled evaluation, no merit line search
(on a convex QP the fraction-to-the-boundary rule alone keeps the iterates interior and
the method converges; Nocedal and Wright 16.6, Wright's Primal-Dual Interior-Point
Methods ch. 10). The algebra is that of `interior` with every inequality in one stack,

    B y + t = b,  t >= 0 (dual z >= 0),  B = [G; -I_L; I_U],  b = [h; -l_L; u_U],

the bound rows' slacks t = y - l, u - y kept exact, and K is factored densely, or by
blocks (`lowrank`) when H is block diagonal, or, for a large QP whose H, G, E are mostly
zeros, sparse with the equalities in one quasi-definite system (`numerics.sparse`: H, G,
E kept as CSR, the cost of an iteration that of the factor's nonzeros). The stop, statuses and what is returned are
those of `pathfollow` (a `pathfollow.Result`), so the caller reports multipliers the same
way. `solve` returns None (the caller then runs `pathfollow`, which shifts indefinite
matrices, searches along a merit and says when no step passes) when K is not positive
definite (H not psd, or singular on coordinates nothing, not even an equality, bounds)
or when the iterates stall: STALLS primal steps in a row shorter than STALL, the sign of
constraints without an interior, or infeasible ones, whose duals then grow without bound,
or leave float64's range (data of scale 1e140).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from solvers.constrained import elimination, lowrank
from solvers.constrained.interior import Interior, State
from solvers.constrained.pathfollow import FAR, VIOLATION, Result, callback_stops, gap_needed, run_off
from solvers.constrained.schur import schur_inverse
from solvers.methods.history import HEADER, Iteration, row
from solvers.numerics import sparse
from solvers.numerics.linalg import NO_SHIFT, Blocks, Factor, shifted
from solvers.objective.constraints import affine_in
from solvers.result import Family, Status, status_message
from solvers.task.records import Task
from tensorcalc import Expr
from tensorcalc.algebra.degree import degree
from tensorcalc.arrays import Array, ArrayModule
from tensorcalc.memo import memoized

TAU = 0.995          # fraction of the step to the boundary
FLOOR = 0.1          # mu is not aimed below this share of the gap the stop needs (per pair)
STALL = 1e-4         # primal steps below this, STALLS times in a row: leave to `pathfollow`
STALLS = 3


def applies(task: Task) -> bool:
    """Whether the task is a QP in the sense of the module docstring: no symmetric (so no
    definite) matrix variable, a quadratic objective, affine constraints."""
    names = tuple(v.name for v in task.free)
    return (not any(v.attributes.is_symmetric for v in task.free) and _quadratic(task.expr, names)
            and all(affine_in(c.expr, names) for c in task.constraints))


@memoized(maxsize=256)
def _quadratic(expr: Expr, names: tuple[str, ...]) -> bool:
    return degree(expr, names) <= 2


@dataclass
class Data:
    """The QP read at y0: f(y) = f0 + q'y + y'Hy/2; the stacked inequality rows as G
    (dense), the bounded coordinates L, U with their bounds; equalities E y = e."""

    H: Array
    q: Array
    f0: float
    G: Array
    h: Array
    E: Array
    e: Array
    L: Array
    lo: Array
    U: Array
    up: Array

    def hy(self, xp: ArrayModule, y: Array) -> Array:
        """H y."""
        return lowrank.times(xp, self.H, y)

    def value(self, xp: ArrayModule, y: Array, Hy: Array) -> float:
        """f(y), given Hy = H y."""
        return self.f0 + float(self.q @ y) + 0.5 * float(y @ Hy)


def read(ip: Interior, y0: Array) -> Data:
    """The QP's data from one evaluation at y0 (exact: f is quadratic, c affine)."""
    xp, eq = ip.xp, ip.eq
    f, g, H = ip.view.value_grad_hess(y0)
    c, J = ip.cons.values_jacobian(y0)
    Hy = lowrank.times(xp, H, y0)
    q = g - Hy
    G, E = J[~eq], J[eq]
    L, U = xp.nonzero(ip.hasL)[0], xp.nonzero(ip.hasU)[0]
    return Data(H, q, f - float(q @ y0) - 0.5 * float(y0 @ Hy), G, G @ y0 - c[~eq], E, E @ y0 - c[eq],
                L, ip.lower[L], U, ip.upper[U])


class Iterate:
    """y, the stacked slacks t and duals z, the equality duals nu; and what a step needs."""

    def __init__(self, y: Array, t: Array, z: Array, nu: Array):
        self.y, self.t, self.z, self.nu = y, t, z, nu


class Method:
    """The algebra on one QP (see the module docstring)."""

    def __init__(self, ip: Interior, qp: Data, quasi_definite: bool = False):
        self.xp = ip.xp
        self.pattern = _sparse_pattern(self.xp, qp, quasi_definite)
        if self.pattern is not None:           # H, G, E as CSR: every product then costs what they hold
            qp = replace(qp, H=self.pattern.H, G=self.pattern.G, E=self.pattern.E)
        self.ip, self.qp = ip, qp
        self.mg = qp.G.shape[0]
        self.m = self.mg + qp.L.size + qp.U.size
        self.L, self.U = _span(self.xp, qp.L), _span(self.xp, qp.U)     # the bounded coordinates
        self.b = self.xp.concatenate([qp.h, -qp.lo, qp.up])
        structured = isinstance(qp.H, Blocks) or self.pattern is not None
        self.elim = None if structured else elimination.structure(self.xp, qp.H, qp.G)
        self.G = qp.G if self.elim is None else self.elim.G      # sparse where mostly 0
        if self.pattern is None and self.elim is None and self.xp is np and not isinstance(qp.H, Blocks):
            self.G = elimination.sparse_if(qp.G)            # G' W G then costs what G holds

    def B(self, v: Array) -> Array:
        """B v (the stacked inequality rows)."""
        return self.xp.concatenate([self.G @ v, -v[self.L], v[self.U]])

    def Bt(self, w: Array) -> Array:
        """B' w."""
        mg, nl = self.mg, self.qp.L.size
        out = self.G.T @ w[:mg]
        out[self.L] -= w[mg:mg + nl]
        out[self.U] += w[mg + nl:]
        return out

    def exact(self, y: Array, t: Array) -> Array:
        """t with the bound rows' slacks recomputed from y."""
        qp, mg, nl = self.qp, self.mg, self.qp.L.size
        t = t.copy()
        t[mg:mg + nl], t[mg + nl:] = y[self.L] - qp.lo, qp.up - y[self.U]
        return t

    def residuals(self, it: Iterate, Hy: Array) -> tuple[Array, Array, Array]:
        """(r_d, r_b, r_e): the dual residual, the inequality rows' and the equalities'."""
        qp = self.qp
        rd = Hy + qp.q + self.Bt(it.z) + qp.E.T @ it.nu
        rb = self.B(it.y) + it.t - self.b
        return rd, rb, qp.E @ it.y - qp.e

    def factor(self, it: Iterate) -> tuple[Factor | sparse.KKTFactor | None, tuple[Array, Array] | None]:
        """The factor of K and, with equalities, (K^-1 E', the inverse of its Schur
        complement E K^-1 E', rank-revealing: `factor.schur_inverse`); None where K is
        not positive definite. On the sparse path, the factor of the whole KKT system
        (`numerics.sparse`, equalities included) and no Schur complement."""
        xp, qp, mg, nl = self.xp, self.qp, self.mg, self.qp.L.size
        w = it.z / it.t
        d = xp.zeros(qp.q.shape[0])
        d[self.L] += w[mg:mg + nl]
        d[self.U] += w[mg + nl:]
        fac: Factor | None
        if self.pattern is not None:
            return sparse.factor(self.pattern, d, w[:mg]), None
        if isinstance(qp.H, Blocks):
            fac = lowrank.factor(xp, qp.H, d, qp.G, w[:mg])
        elif self.elim is not None and (found := elimination.factor(self.elim, w[:mg], d)) is not None:
            fac = found
        else:
            K = qp.H + _gwg(self.G, w[:mg])
            K.reshape(-1)[::K.shape[0] + 1] += d        # the diagonal, as a view of the fresh K
            fac = shifted(xp, K, NO_SHIFT).factor
        if fac is None and xp is np and self.elim is None:
            return self._quasi_definite(d, w[:mg]), None
        if fac is None or not qp.E.shape[0]:
            return fac, None
        Y = fac.solve(qp.E.T)
        return fac, (Y, schur_inverse(xp, qp.E @ Y))

    def _quasi_definite(self, d: Array, w: Array) -> sparse.KKTFactor | None:
        """The factor of the quasi-definite system (`numerics.sparse`, which shifts vanishing
        pivots and refines the shift away), kept for the iterations after: where K's dense
        Cholesky failed (an LP's K near a vertex, whose pivots vanish as the weights of the
        inactive rows go to 0), instead of restarting in `pathfollow`."""
        qp = self.qp
        H = sparse.blocks_matrix(qp.H) if isinstance(qp.H, Blocks) else qp.H
        self.pattern = sparse.pattern(H, qp.G, qp.E)
        return sparse.factor(self.pattern, d, w)

    def kkt(self, fac: Factor | sparse.KKTFactor, schur: tuple[Array, Array] | None, r: Array,
            s: Array) -> tuple[Array, Array]:
        """(dy, dnu) with K dy + E' dnu = r, E dy = s (least squares in dnu for dependent rows)."""
        if isinstance(fac, sparse.KKTFactor):
            return fac.solve(r, s)
        dy = fac.solve(r)
        if schur is None:
            return dy, self.xp.zeros(s.shape[0])
        Y, Sinv = schur
        dnu = Sinv @ (self.qp.E @ dy - s)
        return dy - Y @ dnu, dnu

    def step(self, fac: Factor | sparse.KKTFactor, schur: tuple[Array, Array] | None, it: Iterate, rd: Array,
             rb: Array, re: Array, rc: Array) -> tuple[Array, Array, Array, Array]:
        """(dy, dt, dz, dnu) for the residuals and the complementarity target rc (t z -
        its target)."""
        z, t = it.z, it.t
        dy, dnu = self.kkt(fac, schur, -rd - self.Bt((z * rb - rc) / t), -re)
        dt = -rb - self.B(dy)
        dz = (-rc - z * dt) / t
        return dy, dt, dz, dnu


def _sparse_pattern(xp: ArrayModule, qp: Data, quasi_definite: bool = False) -> sparse.Pattern | None:
    """The sparse KKT pattern where H, G, E are host matrices worth keeping sparse (`sparse.plan`),
    or, with `quasi_definite`, at any size (see `_method`)."""
    if xp is not np:
        return None
    H = sparse.blocks_matrix(qp.H) if isinstance(qp.H, Blocks) else qp.H
    return sparse.pattern(H, qp.G, qp.E) if quasi_definite else sparse.plan(H, qp.G, qp.E)


def _method(ip: Interior, qp: Data) -> Method:
    """The algebra for the QP; where K = H + G'WG + D is singular on directions only E fixes
    (control's states), the quasi-definite sparse system at any size (K's null space does
    not depend on the weights: the test at unit weights holds for every iterate)."""
    mth = Method(ip, qp)
    if mth.pattern is not None or not qp.E.shape[0] or mth.xp is not np:
        return mth
    unit = Iterate(qp.q, mth.xp.ones(mth.m), mth.xp.ones(mth.m), mth.xp.zeros(qp.E.shape[0]))
    return mth if mth.factor(unit)[0] is not None else Method(ip, qp, quasi_definite=True)


def _gwg(G: Array, w: Array) -> Array:
    """G' diag(w) G, dense, for G dense or CSR."""
    if sp.issparse(G):
        return (G.T @ sp.diags(w) @ G).toarray()
    rows = w[:, None] * G                 # one row: G' W G is an outer product, one multiply
    return G.T * rows if G.shape[0] == 1 else G.T @ rows      # per entry as in matmul


def _span(xp: ArrayModule, index: Array) -> slice | Array:
    """`index` (increasing coordinates) as a slice where it is a run of consecutive ones
    (every coordinate bounded below, say): the same entries, read and written as views
    instead of gathered and scattered; else `index` itself."""
    n = int(index.size)
    if n == 0:
        return slice(0, 0)
    first = int(index[0])
    if int(index[-1]) - first + 1 == n and (n == 1 or bool((xp.diff(index) == 1).all())):
        return slice(first, first + n)
    return index


def _longest(xp: ArrayModule, v: Array, dv: Array, tau: float) -> float:
    """The largest step <= 1 keeping the fraction tau of v > 0 along dv: 1 / max(-dv / v)."""
    worst = float((dv / v).min()) if v.size else 0.0
    return 1.0 if worst >= 0 else min(1.0, -tau / worst)


def solve(ip: Interior, y0: Array, max_iter: int, sign: float = 1.0) -> Result | None:
    """Iterate from y0 (moved inside its bounds, `Interior.start`) until the KKT
    conditions of `pathfollow` hold or a stop; None where K is not positive definite."""
    opts = ip.opts
    ip.cons.values_jacobian(y0)          # affine: each constraint's row and offset, read once
    st = ip.start(y0)
    qp = read(ip, st.y)
    mth = _method(ip, qp)
    it = _start(ip, mth, st)
    history: list[Iteration] = []
    if opts.verbose:
        print(HEADER)
    with np.errstate(all="ignore"):      # every value is checked: `_check`, `_iterate`
        return _loop(ip, mth, it, max_iter, sign, history)


def _start(ip: Interior, mth: Method, st: State) -> Iterate:
    """Mehrotra's starting point (Wright, Primal-Dual Interior-Point Methods, p. 210; as
    CVXOPT's coneqp): y minimising f + |B y - b|^2 / 2 subject to E y = e (the Newton
    matrix with unit weights), moved inside its bounds; the rows' slacks t = h - G y and
    duals -t shifted positive (by 1.5 times their most negative entry) and balanced (by
    half their product over the other's sum); the bound rows' duals at the same average
    product. The plain start of `Interior.start` where this fails."""
    xp, qp, mg = mth.xp, mth.qp, mth.mg
    plain = Iterate(st.y, mth.exact(st.y, xp.concatenate([st.s, xp.ones(mth.m - mg)])),
                    xp.concatenate([st.lam, st.zl[qp.L], st.zu[qp.U]]), st.nu)
    fac, schur = mth.factor(Iterate(st.y, xp.ones(mth.m), xp.ones(mth.m), st.nu)) if mg else (None, None)
    if fac is None:
        return plain
    y = mth.kkt(fac, schur, mth.Bt(mth.b) - qp.q, qp.e)[0]
    y = ip.start(y).y                                  # inside the bounds
    t = qp.h - qp.G @ y
    z = -t
    t, z = t + max(-1.5 * float(t.min()), 0.0), z + max(-1.5 * float(z.min()), 0.0)
    if not float(t @ z) > 0:                           # t = z = 0: the rows hold exactly
        t, z = t + 1.0, z + 1.0
    tz = float(t @ z)
    t, z = t + 0.5 * tz / float(z.sum()), z + 0.5 * tz / float(t.sum())
    if not (bool((t > 0).all()) and bool((z > 0).all()) and math.isfinite(float(t @ z))):
        return plain
    full = mth.exact(y, xp.concatenate([t, xp.ones(mth.m - mg)]))
    mu = float(t @ z) / mg
    return Iterate(y, full, xp.concatenate([z, mu / full[mg:]]), xp.zeros_like(st.nu))


def _loop(ip: Interior, mth: Method, it: Iterate, max_iter: int, sign: float,
          history: list[Iteration]) -> Result | None:
    xp, qp, opts = ip.xp, mth.qp, ip.opts
    first = math.nan                                              # f at the first iterate (set at k = 0)
    for k in range(max_iter + 1):
        Hy = qp.hy(xp, it.y)
        rd, rb, re = mth.residuals(it, Hy)
        f = qp.value(xp, it.y, Hy)
        need = gap_needed(xp, ip.tol, f, Hy + qp.q, it.y)         # the gap the stop asks for
        first = f if k == 0 else first
        status, record = _check(ip, mth, it, f, need, rd, k, max_iter, sign)
        message = None
        if status is None and it.y.size and float(xp.abs(it.y).max()) > FAR:
            status, message = run_off(f, first, record.violation)
        history.append(record)
        if status is None:
            moved = _iterate(mth, it, rd, rb, re, record, FLOOR * need / max(mth.m, 1))
            if moved is None or _stalled(history) or not _finite(xp, moved):
                return None          # `pathfollow`, whose line search keeps the iterates finite
            it = moved
        if opts.verbose:
            print(row(record) + f"  kkt {record.kkt:.2e}", flush=True)
        if status is None and opts.callback is not None and callback_stops(opts, ip, _state(mth, it), record):
            status = Status.CALLBACK
        if status is not None:
            return _result(ip, mth, it, status, history, message)
    raise AssertionError("unreachable: the last iteration returns")


def _check(ip: Interior, mth: Method, it: Iterate, f: float, need: float, rd: Array, k: int, max_iter: int,
           sign: float) -> tuple[Status | None, Iteration]:
    """(status or None, the Iteration record) at the iterate; `need`: the gap the stop asks for."""
    xp, qp = mth.xp, mth.qp
    stat = float(xp.abs(rd).max()) if rd.size else 0.0
    viol = violation(xp, qp, it.y)
    comp = float((it.t * it.z).max()) if mth.m else 0.0
    record = Iteration(k, sign * f, stat, kkt=max(stat, viol, comp), violation=viol)
    gap = float(it.t @ it.z)
    if stat <= ip.gtol and viol <= VIOLATION * ip.gtol and gap <= need:
        return Status.CONVERGED, record
    if k == max_iter:
        return Status.ITERATION_LIMIT, record
    if not math.isfinite(f) or not bool(xp.isfinite(rd).all()):
        return Status.LINE_SEARCH_FAILED, record
    return None, record


def _finite(xp: ArrayModule, it: Iterate) -> bool:
    return all(bool(xp.isfinite(v).all()) for v in (it.y, it.t, it.z, it.nu))


def _stalled(history: list[Iteration]) -> bool:
    return len(history) >= STALLS and all(r.step < STALL for r in history[-STALLS:])


def violation(xp: ArrayModule, qp: Data, y: Array) -> float:
    """The largest violation of the QP's inequality rows and equalities at y."""
    parts = [xp.maximum(qp.G @ y - qp.h, 0.0), xp.abs(qp.E @ y - qp.e)]
    worst = [float(p.max()) for p in parts if p.size]
    return max(worst + [0.0])


def _iterate(mth: Method, it: Iterate, rd: Array, rb: Array, re: Array, record: Iteration,
             floor: float) -> Iterate | None:
    """The next iterate by Mehrotra's predictor and corrector, mu aimed no lower than
    `floor` (below the gap the stop needs, a smaller mu only inflates the weights z / t,
    whose rounding then keeps stationarity from closing); None where K is not positive
    definite."""
    xp = mth.xp
    fac, schur = mth.factor(it)
    if fac is None:
        return None
    mu = float(it.t @ it.z) / max(mth.m, 1)
    tz = it.t * it.z
    aff = mth.step(fac, schur, it, rd, rb, re, tz)
    ap, ad = _longest(xp, it.t, aff[1], 1.0), _longest(xp, it.z, aff[2], 1.0)
    after = float((it.t + ap * aff[1]) @ (it.z + ad * aff[2])) / max(mth.m, 1)
    target = max(min(1.0, (after / mu) ** 3) * mu, floor) if mu > 0 else 0.0
    dy, dt, dz, dnu = mth.step(fac, schur, it, rd, rb, re, tz + aff[1] * aff[2] - target)
    tp, td = _longest(xp, it.t, dt, TAU), _longest(xp, it.z, dz, TAU)
    record.step = tp
    y = it.y + tp * dy
    return Iterate(y, mth.exact(y, it.t + tp * dt), it.z + td * dz, it.nu + td * dnu)


def _state(mth: Method, it: Iterate) -> State:
    """The iterate as the `interior.State` the caller reports from."""
    xp, qp, mg, nl, n = mth.xp, mth.qp, mth.mg, mth.qp.L.size, it.y.shape[0]
    zl, zu = xp.zeros(n), xp.zeros(n)
    zl[qp.L], zu[qp.U] = it.z[mg:mg + nl], it.z[mg + nl:]
    return State(it.y, it.t[:mg], it.z[:mg], it.nu, zl, zu, [], 0.0)


def _result(ip: Interior, mth: Method, it: Iterate, status: Status, history: list[Iteration],
            message: str | None = None) -> Result:
    return Result(_state(mth, it), None, status, message or status_message(Family.INTERIOR, status), history)


__all__ = ["applies", "solve"]
