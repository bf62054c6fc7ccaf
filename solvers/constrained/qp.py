"""Convex quadratic programs, with second-order cones, by Mehrotra's predictor-corrector
interior-point method.

    minimise  f0 + q'y + y'Hy/2   subject to  G y <= h,  E y = e,  l <= y <= u,
              G_c y + h_c in the second-order cones (the task's `cones`)

is what a problem is when its objective is a quadratic polynomial in the free variables
and every constraint affine (`tensorcalc.algebra.degree`; `applies`), a symmetric
matrix variable by its upper triangle (the `Space`'s y), a definite one kept in its cone
by the HKM terms of `definite` (semidefinite programs; one that stalls: `pathfollow`).
Then H, q, G, h, E, e are read once from one compiled evaluation at the start, and an
iteration costs one factorisation of
K = H + G' W G + D and four solves with it: no compiled evaluation, no merit line search
(on a convex QP the fraction-to-the-boundary rule alone keeps the iterates interior and
the method converges; Nocedal and Wright 16.6, Wright's Primal-Dual Interior-Point
Methods ch. 10). The algebra is that of `interior` with every inequality in one stack,

    B y + t = b,  t >= 0 (dual z >= 0),  B = [G; -I_L; I_U],  b = [h; -l_L; u_U],

the bound rows' slacks t = y - l, u - y kept exact, the cones' slacks and duals Nesterov-Todd
scaled as in CVXOPT's coneqp (`conic`: K gains G_c' W^-2 G_c, one step length serves primal
and dual), and the system solved as `qpsystem` says: K is factored densely, or by
blocks (`lowrank`) when H is block diagonal, or, for a large QP whose H, G, E are mostly
zeros, sparse with the equalities in one quasi-definite system (`numerics.sparse`: H, G,
E kept as CSR, the cost of an iteration that of the factor's nonzeros). The stop,
statuses and what is returned are
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

import numpy as np
import scipy.sparse as sp

from solvers.constrained import elimination, lowrank
from solvers.constrained.interior import Interior, State
from solvers.constrained.pathfollow import FAR, VIOLATION, Result, callback_stops, gap_needed, run_off
from solvers.constrained.qpsystem import Data, Direction, Iterate, Method, Residuals
from solvers.methods.history import HEADER, Iteration, row
from solvers.numerics.linalg import objective_size
from solvers.objective.constraints import affine_in
from solvers.objective.smooth import Objective
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
    """Whether the task is a QP in the sense of the module docstring: a quadratic
    objective, affine constraints."""
    names = tuple(v.name for v in task.free)
    return _quadratic(task.expr, names) and all(affine_in(c.expr, names) for c in task.constraints)


@memoized(maxsize=256)
def _quadratic(expr: Expr, names: tuple[str, ...]) -> bool:
    return degree(expr, names) <= 2


def read(ip: Interior, y0: Array, sparse: bool = False) -> Data:
    """The QP's data from one evaluation at y0 (exact: f is quadratic, c affine); with
    `sparse`, G and E as CSR where the rows are read and mostly zeros (`_jacobian`)."""
    xp, eq = ip.xp, ip.eq
    f, g, H = _hessian(ip, y0, sparse)
    c, J = _jacobian(ip, y0, sparse)
    Hy = lowrank.times(xp, H, y0)
    q = g - Hy
    G, E = (J[np.nonzero(~eq)[0]], J[np.nonzero(eq)[0]]) if sp.issparse(J) else (J[~eq], J[eq])
    L, U = xp.nonzero(ip.hasL)[0], xp.nonzero(ip.hasU)[0]
    return Data(H, q, f - float(q @ y0) - 0.5 * float(y0 @ Hy), G, G @ y0 - c[~eq], E, E @ y0 - c[eq],
                L, ip.lower[L], U, ip.upper[U])


def _hessian(ip: Interior, y0: Array, sparse: bool) -> tuple[float, Array, Array]:
    """f, g, H at y0: H as CSR where asked, on the host and y is z: for a large H read from
    the gradient's expression (`Objective.quadratic_hessian`), or assembled from its blocks
    (`Objective.value_grad_hess`); else as the View gives it."""
    obj = ip.view.obj
    if sparse and ip.xp is np and ip.view.space.identity and isinstance(obj, Objective):
        H = obj.quadratic_hessian() if obj.n * obj.n > elimination.BIG else None
        if H is not None:
            return (*obj.value_grad(y0), H)
        return obj.value_grad_hess(y0, sparse=True)
    return ip.view.value_grad_hess(y0)


def _jacobian(ip: Interior, y0: Array, sparse: bool) -> tuple[Array, Array]:
    """(c, J) at y0: J as CSR where asked, every row was read (`Constraints.sparse_jacobian`)
    and J is large and mostly zeros (2,000 Kalman blocks: 6,000 x 8,004 with 36,000 entries,
    never formed densely), else dense."""
    found = ip.cons.sparse_jacobian(y0) if sparse and ip.xp is np else None
    if found is not None and found[1].shape[0] * found[1].shape[1] > elimination.BIG and \
            found[1].nnz <= elimination.SPARSE * found[1].shape[0] * found[1].shape[1]:
        return found
    return ip.cons.values_jacobian(y0)


def _method(ip: Interior, qp: Data) -> Method:
    """The algebra for the QP; where K = H + G'WG + D is singular on directions only E fixes
    (control's states), the quasi-definite sparse system at any size (K's null space does
    not depend on the weights: the test at unit weights holds for every iterate)."""
    mth = Method(ip, qp)
    if mth.pattern is not None or not qp.E.shape[0] or mth.xp is not np or mth.curved:
        return mth
    unit = Iterate(qp.q, mth.xp.ones(mth.m), mth.xp.ones(mth.m), mth.xp.zeros(qp.E.shape[0]))
    fac = mth.factor(unit, [])[0]
    return Method(ip, qp, quasi_definite=True) if fac is None or mth.pattern is not None else mth


def _longest(xp: ArrayModule, v: Array, dv: Array, tau: float) -> float:
    """The largest step <= 1 keeping the fraction tau of v > 0 along dv: 1 / max(-dv / v)."""
    worst = float((dv / v).min()) if v.size else 0.0
    return 1.0 if worst >= 0 else min(1.0, -tau / worst)


def prepare(ip: Interior, y0: Array) -> Method:
    """The QP's algebra (`qpsystem.Method`), its data read at y0 moved inside its bounds
    (exact anywhere: the same for every start, so a caller may keep it for re-solves)."""
    return _method(ip, read(ip, ip.start(y0).y, sparse=True))


def solve(ip: Interior, mth: Method, y0: Array, max_iter: int, sign: float = 1.0) -> Result | None:
    """Iterate from y0 (moved inside its bounds, `Interior.start`) until the KKT
    conditions of `pathfollow` hold or a stop; None where K is not positive definite."""
    opts = ip.opts
    st = ip.start(y0)
    it = _start(ip, mth, st)
    history: list[Iteration] = []
    if opts.verbose:
        print(HEADER)
    with np.errstate(all="ignore"):      # every value is checked: `_check`, `_iterate`
        return _loop(ip, mth, it, max_iter, sign, history)


def _start(ip: Interior, mth: Method, st: State) -> Iterate:
    """Mehrotra's starting point (Wright, Primal-Dual Interior-Point Methods, p. 210; as
    CVXOPT's coneqp): y minimising f + |B y - b|^2 / 2 + |G_c y + h_c|^2 / 2 subject to
    E y = e (the Newton matrix with unit weights and unit cone scalings; B stacks the rows
    and the bounds), moved inside its bounds; the slacks t = b - B y and duals -t of every
    row and bound shifted positive (by 1.5 times their most negative entry) and balanced
    (by half their product over the other's sum), the bounds' slacks then those of the y
    moved inside; the cones' slacks inside near G_c y + h_c and their duals on the central
    path for the average product mu (`conic.start`). The plain start of `Interior.start`
    where this fails. (With bounds alone, the plain start took 22 iterations on an LP in
    x >= 0 with dependent equalities, this one 9.)"""
    xp, qp, mg, cones = mth.xp, mth.qp, mth.mg, mth.soc
    plain = Iterate(st.y, mth.exact(st.y, xp.concatenate([st.s, xp.ones(mth.m - mg)])),
                    xp.concatenate([st.lam, st.zl[qp.L], st.zu[qp.U]]), st.nu, st.sc, st.zc, st.Z)
    if not (mth.m or mth.curved):
        return plain
    unit, eyes = cones.identity(), mth.psd.unit()
    fac, schur = mth.factor(Iterate(st.y, xp.ones(mth.m), xp.ones(mth.m), st.nu, unit, unit, eyes),
                            cones.scalings(unit, unit), eyes)
    if fac is None:
        return plain
    rhs = mth.Bt(mth.b) - qp.q - (cones.dual([b.h for b in cones.blocks]) if cones.count else 0.0)
    least = mth.kkt(fac, schur, rhs, qp.e)[0]
    t, z = _balanced(xp, mth.b - mth.B(least)) if mth.m else (xp.ones(0), xp.ones(0))
    if t is None or z is None:
        return plain
    mu = float(t @ z) / mth.m if mth.m else 1.0
    scale = max(float(xp.abs(qp.q).max(initial=0.0)), float(xp.abs(qp.e).max(initial=0.0)))
    y, Z = mth.psd.start(ip.pushed(least), scale)                       # inside the bounds and the cones
    sc, zc = cones.start(y, mu)
    return Iterate(y, mth.exact(y, t), z, xp.zeros_like(st.nu), sc, zc, Z)


def _balanced(xp: ArrayModule, t: Array) -> tuple[Array | None, Array | None]:
    """Mehrotra's slacks and duals from the rows' least-squares slacks t (see `_start`);
    (None, None) where they come out not positive or not finite."""
    z = -t
    t, z = t + max(-1.5 * float(t.min()), 0.0), z + max(-1.5 * float(z.min()), 0.0)
    if not float(t @ z) > 0:                           # t = z = 0: the rows hold exactly
        t, z = t + 1.0, z + 1.0
    tz = float(t @ z)
    t, z = t + 0.5 * tz / float(z.sum()), z + 0.5 * tz / float(t.sum())
    if not (bool((t > 0).all()) and bool((z > 0).all()) and math.isfinite(float(t @ z))):
        return None, None
    return t, z


def _loop(ip: Interior, mth: Method, it: Iterate, max_iter: int, sign: float,
          history: list[Iteration]) -> Result | None:
    xp, qp, opts = ip.xp, mth.qp, ip.opts
    first = math.nan                                              # f at the first iterate (set at k = 0)
    start = 0.0                                                   # the objective's size there (`gap_needed`)
    pairs = max(mth.m + mth.soc.count + mth.psd.degree, 1)
    for k in range(max_iter + 1):
        Hy = qp.hy(xp, it.y)
        r = mth.residuals(it, Hy)
        f = qp.value(xp, it.y, Hy)
        start = objective_size(xp, f, Hy + qp.q, it.y) if k == 0 else start
        need = gap_needed(xp, ip.tol, f, Hy + qp.q, it.y, start)  # the gap the stop asks for
        first = f if k == 0 else first
        status, record = _check(ip, mth, it, f, need, r.d, k, max_iter, sign)
        message = None
        if status is None and it.y.size and float(xp.abs(it.y).max()) > FAR:
            status, message = run_off(f, first, record.violation)
        history.append(record)
        if status is None:
            moved = _iterate(mth, it, r, record, FLOOR * need / pairs)
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
    xp, qp, cones = mth.xp, mth.qp, mth.soc
    stat = float(xp.abs(rd).max()) if rd.size else 0.0
    viol = max(violation(xp, qp, it.y), cones.cones.violation(it.y) if cones.count else 0.0)
    comp = max(float((it.t * it.z).max()) if mth.m else 0.0, cones.largest_gap(it.sc, it.zc),
               mth.psd.largest(it.y, it.Z))
    record = Iteration(k, sign * f, stat, kkt=max(stat, viol, comp), violation=viol)
    gap = float(it.t @ it.z) + cones.gap(it.sc, it.zc) + mth.psd.gap(it.y, it.Z)
    if stat <= ip.gtol and viol <= VIOLATION * ip.gtol and gap <= need:
        return Status.CONVERGED, record
    if k == max_iter:
        return Status.ITERATION_LIMIT, record
    if not math.isfinite(f) or not bool(xp.isfinite(rd).all()):
        return Status.LINE_SEARCH_FAILED, record
    return None, record


def _finite(xp: ArrayModule, it: Iterate) -> bool:
    return all(bool(xp.isfinite(v).all()) for v in (it.y, it.t, it.z, it.nu, *it.sc, *it.zc))


def _stalled(history: list[Iteration]) -> bool:
    return len(history) >= STALLS and all(r.step < STALL for r in history[-STALLS:])


def violation(xp: ArrayModule, qp: Data, y: Array) -> float:
    """The largest violation of the QP's inequality rows and equalities at y."""
    parts = [xp.maximum(qp.G @ y - qp.h, 0.0), xp.abs(qp.E @ y - qp.e)]
    worst = [float(p.max()) for p in parts if p.size]
    return max(worst + [0.0])


def _iterate(mth: Method, it: Iterate, r: Residuals, record: Iteration, floor: float) -> Iterate | None:
    """The next iterate by Mehrotra's predictor and corrector, mu aimed no lower than
    `floor` (below the gap the stop needs, a smaller mu only inflates the weights z / t,
    whose rounding then keeps stationarity from closing); None where K is not positive
    definite. With second-order cones (Nesterov-Todd scaled) one step length serves the
    primal and the dual parts, as in CVXOPT's coneqp."""
    cones, psd = mth.soc, mth.psd
    scal = cones.scalings(it.sc, it.zc) if cones.count else []
    inverses = psd.at(it.y) if psd.degree else []
    if inverses is None:
        return None                # on a definite cone's boundary to rounding: `pathfollow` steps back
    fac, schur = mth.factor(it, scal, inverses)
    if fac is None:
        return None
    pairs = max(mth.m + cones.count + psd.degree, 1)
    mu = (float(it.t @ it.z) + cones.gap(it.sc, it.zc) + psd.gap(it.y, it.Z)) / pairs
    tz = it.t * it.z
    aff = mth.step(fac, schur, it, r, tz, scal, cones.complementarity(scal, 0.0),
                   (psd.residuals(inverses, it.Z, 0.0), inverses))
    ap, ad = _lengths(mth, it, aff, 1.0, scal)
    after = (float((it.t + ap * aff.dt) @ (it.z + ad * aff.dz))
             + cones.gap(_moved(it.sc, aff.dsc, ap), _moved(it.zc, aff.dzc, ad))
             + psd.gap(it.y + ap * aff.dy, _moved(it.Z, aff.dZ, ad))) / pairs
    target = max(min(1.0, (after / mu) ** 3) * mu, floor) if mu > 0 else 0.0
    rz = [a + b for a, b in zip(cones.complementarity(scal, target), cones.corrector(scal, aff.dsc, aff.dzc))]
    R = psd.corrected(psd.residuals(inverses, it.Z, target), inverses, aff.dy, aff.dZ) if psd.degree else []
    d = mth.step(fac, schur, it, r, tz + aff.dt * aff.dz - target, scal, rz, (R, inverses))
    tp, td = _lengths(mth, it, d, TAU, scal)
    record.step = tp
    y = it.y + tp * d.dy
    return Iterate(y, mth.exact(y, it.t + tp * d.dt), it.z + td * d.dz, it.nu + td * d.dnu,
                   _moved(it.sc, d.dsc, tp), _moved(it.zc, d.dzc, td), _moved(it.Z, d.dZ, td))


def _lengths(mth: Method, it: Iterate, d: Direction, tau: float, scal: list) -> tuple[float, float]:
    """(primal, dual) step lengths keeping the fraction tau of the slacks and duals
    inside; with cones the shorter of the two for both (`scal`: the cones' scalings at
    it, which hold det(sc) and det(zc))."""
    cones = mth.soc
    tp, td = _longest(mth.xp, it.t, d.dt, tau), _longest(mth.xp, it.z, d.dz, tau)
    if mth.psd.degree:
        mp, md = mth.psd.longest(it.y, d.dy, it.Z, d.dZ, tau)
        tp, td = min(tp, mp), min(td, md)
    if not cones.count:
        return tp, td
    xp = mth.xp                                # the slacks and duals of a block as one (2k, m) array: one root search
    both = min(tp, td, cones.longest([xp.concatenate(p) for p in zip(it.sc, it.zc)],
                                     [xp.concatenate(p) for p in zip(d.dsc, d.dzc)], tau,
                                     [xp.concatenate(w.dets) for w in scal]))
    return both, both


def _moved(v: list[Array], dv: list[Array], a: float) -> list[Array]:
    return [x + a * dx for x, dx in zip(v, dv)]


def _state(mth: Method, it: Iterate) -> State:
    """The iterate as the `interior.State` the caller reports from."""
    xp, qp, mg, nl, n = mth.xp, mth.qp, mth.mg, mth.qp.L.size, it.y.shape[0]
    zl, zu = xp.zeros(n), xp.zeros(n)
    zl[qp.L], zu[qp.U] = it.z[mg:mg + nl], it.z[mg + nl:]
    return State(it.y, it.t[:mg], it.z[:mg], it.nu, zl, zu, it.Z, 0.0, sc=it.sc, zc=it.zc)


def _result(ip: Interior, mth: Method, it: Iterate, status: Status, history: list[Iteration],
            message: str | None = None) -> Result:
    return Result(_state(mth, it), None, status, message or status_message(Family.INTERIOR, status), history)


__all__ = ["applies", "prepare", "solve"]
