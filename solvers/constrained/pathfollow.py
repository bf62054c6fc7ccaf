"""The iteration of the interior-point method (`interior`): predictor-corrector steps
along the central path, a merit line search, the stop on the KKT conditions.

The barrier parameter. Mehrotra's predictor (the step for mu = 0) sets mu = sigma * gap / m with sigma =
(gap after the predictor / gap)^3, at least SIGMA_MIN, never above the current mu (the gap after
the predictor taken at one step, the shorter of its primal and dual ones: a long primal step
with a short dual one would promise a gap the iterate cannot reach, and mu would fall too far,
measured on the 500-cone circle: 35 iterations against 18); the
corrector adds the predictor's second-order terms. That is done only from iterates
near the central path (`Interior.error` <= CENTRAL * mu); elsewhere the step aims at
the same mu, as the barrier method does, so that mu cannot fall to 0 while the iterate
is still far from feasible (where the slacks would jam at their bound).

The step. The primal step is the fraction TAU of the longest one that keeps the slacks,
bound gaps and cones positive, the dual step likewise for the multipliers (with second-order
cones the shorter of the two for both); the primal
step is halved until f and the constraints are finite there and either the merit (the
barrier function plus an l1 penalty on the infeasibility, Nocedal and Wright 19.2)
passes the Armijo test or the residual norm falls by 1% of the step (Boyd's test: it
takes the full steps near the solution that the merit, with a large penalty, may refuse).
If the corrected step fails, the plain Newton step for the same mu is tried.

Stops (CONVERGED) when max|r_d| <= gtol, the largest violation of a constraint <=
gtol / 100 and the duality gap (s.lam + (y - l).zl + (u - y).zu + sum <M, Z>) <=
max(tol, GAP * (1 + |f|)), scaled down where the objective is small (`gap_needed`):
for a convex problem f is then within that gap of the optimum. ITERATION_LIMIT: the
iteration limit; LINE_SEARCH_FAILED: no step passed (constraints that may be
infeasible, or have no interior); CALLBACK; NO_MINIMISER: the iterates run off to
infinity downhill on the feasible set (`run_off`: where they run off at points that
violate the constraints, LINE_SEARCH_FAILED, and phase one, `feasibility`, decides
whether the constraints can hold at all). Statuses: `solvers.result.Status`, their
fixed texts `solvers.result.MESSAGES` (Family.INTERIOR).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solvers.constrained.feasibility import INFEASIBLE
from solvers.constrained.interior import THETA_MAX, Interior, Point, PrimalDualStep, State, System, finite
from solvers.constrained.lowrank import curvature
from solvers.methods.history import HEADER, Clock, Iteration, optimize_result, row
from solvers.methods.options import Options
from solvers.numerics import cone
from solvers.numerics.linalg import objective_size
from solvers.result import Family, Status, status_message
from solvers.task.device import to_host
from solvers.task.records import SolverError
from tensorcalc.arrays import Array, ArrayModule

GAP = 1e-10          # duality gap relative to 1 + |f| at which the solve stops
VIOLATION = 1e-2     # and the largest violation at most this times gtol
TAU = 0.995          # fraction of the step to the boundary
SIGMA_MIN = 1e-3     # Mehrotra's centring parameter is kept above this
MU_MIN = 1e-15       # and mu above this
CENTRAL = 1e3        # mu falls only from iterates within CENTRAL * mu of its central point
RHO = 0.1            # the penalty makes the merit's slope at most -RHO times the infeasibility
FAR = 1e15           # |y| beyond this: the iterates run off to infinity
EPS = float(np.finfo(float).eps)

RUN_OFF = ("stopped: the iterates run off to infinity, but not downhill on the feasible set (the largest "
           "violation there is {:.3g}, f went from {:.6g} to {:.6g}): the constraints may be infeasible")


@dataclass
class Result:
    """How an interior-point solve ended: the state, the evaluations there (None from
    `qp`, which evaluates nothing per iterate), the history."""

    st: State
    pt: Point | None
    status: Status
    message: str
    history: list[Iteration]


def solve(ip: Interior, y0: Array, max_iter: int, sign: float = 1.0) -> Result:
    """Iterate from y0 until the KKT conditions hold or a stop (see the module docstring)."""
    opts, clock = ip.opts, Clock()
    history: list[Iteration] = []
    st = ip.start(y0)
    with clock("eval"):
        pt = ip.point(st, hessian=False)
    ip.theta_max = THETA_MAX * max(1.0, ip.infeasibility(st, pt))
    if opts.verbose:
        print(HEADER)
    with np.errstate(all="ignore"):    # iterates running off (infeasible constraints) end in a status
        return _loop(ip, st, pt, max_iter, sign, clock, history)


def _loop(ip: Interior, st: State, pt: Point, max_iter: int, sign: float, clock: Clock,
          history: list[Iteration]) -> Result:
    opts = ip.opts
    start = objective_size(ip.xp, pt.f, pt.g, st.y) if finite(ip, pt) else 0.0
    for k in range(max_iter + 1):
        it = _record(ip, st, pt, k, sign)
        history.append(it)
        status, message = _stop(ip, st, pt, it, k, max_iter, history[0].f * sign, start)
        if status is None:
            found = _iterate(ip, st, pt, it, clock)
            status, (st, pt) = (Status.LINE_SEARCH_FAILED, (st, pt)) if found is None else (None, found)
        _close(it, clock, opts)
        if status is None and callback_stops(opts, ip, st, it):
            status = Status.CALLBACK
        if status is not None:
            return Result(st, pt, status, message or status_message(Family.INTERIOR, status), history)
    raise AssertionError("unreachable: the last iteration returns")


def _record(ip: Interior, st: State, pt: Point, k: int, sign: float) -> Iteration:
    if k == 0 and not finite(ip, pt):
        raise SolverError("the objective or a constraint is not finite (inf or nan) at the "
                          "starting point x0 (moved inside the bounds): start inside their domain")
    stat, viol, comp = ip.kkt(st, pt)
    return Iteration(k, sign * pt.f, stat, kkt=max(stat, viol, comp), violation=viol)


def gap_needed(xp: ArrayModule, tol: float, f: float, g: Array, y: Array, start: float = 0.0) -> float:
    """The duality gap the stop asks for: max(tol, GAP (1 + |f|)) times the objective's
    size (`linalg.objective_size`: an LP whose costs are 1e-9 is solved to 1e-10 of its own
    scale, not to 1e-12 absolute), the larger of its size near y and `start`, its size at
    the start: an objective whose value and gradient vanish at its optimum (a divergence
    from a reachable target) is not of tiny scale there, and a gap scaled by its size at y
    would shrink with it, out of reach (kl_div(p, q) at p = q: 100 iterations at gap 1e-17)."""
    return max(tol, GAP * (1 + abs(f))) * max(start, objective_size(xp, f, g, y))


def _stop(ip: Interior, st: State, pt: Point, it: Iteration, k: int, max_iter: int,
          f0: float, start: float) -> tuple[Status | None, str | None]:
    """(status, its message where not the table's) or (None, None) to go on; f0: f at the
    start, `start` the objective's size there (`gap_needed`)."""
    if (it.gmax <= ip.gtol and it.violation <= VIOLATION * ip.gtol
            and ip.gap(st) <= gap_needed(ip.xp, ip.tol, pt.f, pt.g, st.y, start)):
        return Status.CONVERGED, None
    if k == max_iter:
        return Status.ITERATION_LIMIT, None
    if ip.view.n and float(ip.xp.abs(st.y).max()) > FAR:
        return run_off(pt.f, f0, it.violation)
    return None, None


def run_off(f: float, f0: float, violation: float) -> tuple[Status, str]:
    """(status, message) where the iterates passed FAR: NO_MINIMISER where they ran
    off downhill on the feasible set: every constraint held to phase one's threshold
    (`feasibility.INFEASIBLE`, below which it says the constraints can be met) and f
    below its start f0 by more than 1 + |f0|; else LINE_SEARCH_FAILED (constraints that
    cannot all hold let the iterates run off as well)."""
    if violation <= INFEASIBLE and f < f0 - (1.0 + abs(f0)):
        return Status.NO_MINIMISER, status_message(Family.INTERIOR, Status.NO_MINIMISER)
    return Status.LINE_SEARCH_FAILED, RUN_OFF.format(violation, f0, f)


def _iterate(ip: Interior, st: State, pt: Point, it: Iteration, clock: Clock) -> tuple[State, Point] | None:
    """(the next state, its Point) with the step recorded on `it`, or None when no step
    was found. The first trial point of a search is evaluated with its Hessian, kept for
    the next iteration when accepted (as it usually is)."""
    with clock("eval"):
        if pt.H is None:
            pt.H = ip.point(st).H
    with clock("solve"):
        sysm = ip.system(st, pt)
    it.damping = sysm.shift
    if sysm.fac is None:
        it.fallbacks.append(f"no shift up to {it.damping:.3g} made the Newton matrix positive definite")
        return None
    if it.damping:
        it.fallbacks.append(f"Newton matrix not positive definite: added {it.damping:.3g} I")
    if ip.error(st, pt, st.mu) > CENTRAL * st.mu:
        with clock("solve"):          # far from the central path: a Newton step at the same mu
            d = ip.step(sysm, st, ip.residuals(st, pt, st.mu))
        return _search(ip, st, pt, d, st.mu, it)
    with clock("solve"):
        d, mu = _predictor_corrector(ip, sysm, st, pt)
    found = _search(ip, st, pt, d, mu, it)
    if found is None:
        with clock("solve"):
            d = ip.step(sysm, st, ip.residuals(st, pt, mu))
        it.fallbacks.append("the corrected step failed the line search: took the plain Newton step")
        found = _search(ip, st, pt, d, mu, it)
    return found


def _predictor_corrector(ip: Interior, sysm: System, st: State, pt: Point) -> tuple[PrimalDualStep, float]:
    """(step, mu): Mehrotra's affine predictor sets mu, the corrector adds the
    second-order terms of the complementarity products."""
    xp = ip.xp
    aff = ip.step(sysm, st, ip.residuals(st, pt, 0.0))
    tp, td = ip.longest(st, aff)
    gap = ip.gap(st)
    both = min(tp, td)
    sigma = min(1.0, max(SIGMA_MIN, (ip.gap(ip.moved(st, aff, both, st.mu)) / gap) ** 3)) if gap > 0 else SIGMA_MIN
    mu = max(min(st.mu, sigma * gap / max(ip.count, 1)), MU_MIN)
    r = ip.residuals(st, pt, mu)
    cones = []
    for R, Mi, dM, dZ in zip(r.cones, ip.cones(st).inverses(), cone.matrices(ip.space, aff.dy), aff.dZ):
        P = Mi @ dM @ dZ
        cones.append(R + (P + P.T) / 2)
    rz = [q + c for q, c in zip(r.rz, ip.soc.corrector(ip.scalings(st), aff.dsc, aff.dzc))]
    r = r._replace(s=r.s + aff.ds * aff.dlam, low=r.low + xp.where(ip.hasL, aff.dy * aff.dzl, 0.0),
                   up=r.up - xp.where(ip.hasU, aff.dy * aff.dzu, 0.0), cones=cones, rz=rz)
    return ip.step(sysm, st, r), mu


def _search(ip: Interior, st: State, pt: Point, d: PrimalDualStep, mu: float,
            it: Iteration) -> tuple[State, Point] | None:
    """The state after the step the module docstring describes, or None. The penalty
    grows as Nocedal and Wright (18.36) ask, so that the step descends the merit."""
    tp, td = ip.longest(st, d, TAU)
    if ip.soc.count:                   # second-order cones: one step for both, as CVXOPT takes with NT scaling
        tp = td = min(tp, td)          # (measured: the 20-point circle 35 -> 14 iterations, 60 points 12)
    slope = ip.slope(st, pt, d, mu)
    infeasible = ip.infeasibility(st, pt)
    if infeasible > 0:
        curve = max(0.0, curvature(ip.xp, pt.W, d.dy))
        ip.penalty = max(ip.penalty, (slope + 0.5 * curve) / ((1 - RHO) * infeasible) + 1e-8)
    slope -= ip.penalty * infeasible
    before = ip.merit(st, pt, mu)
    if not slope < 0:
        if slope <= 8 * EPS * (1 + abs(before)):       # rounding at the solution: step on
            new = ip.moved(st, d, tp, mu, td)
            trial = ip.point(new)
            if math.isfinite(ip.merit(new, trial, mu)):   # inside the domain and the cones
                it.step = tp
                return ip.clamp(new), trial
        it.fallbacks.append(f"not a descent direction of the merit (slope {slope:.3g})")
        return None
    residual = ip.norm(st, ip.residuals(st, pt, mu))
    t = tp
    for n in range(ip.opts.max_trials):
        new = ip.moved(st, d, t, mu, td)
        trial = ip.point(new, hessian=n == 0)      # inside the bounds and cones (`longest`), but
        it.trials.append((t, trial.f if math.isfinite(trial.f) else math.inf))
        merit = ip.merit(new, trial, mu)           # inf where rounding left it on a cone's boundary
        if math.isfinite(merit) and (merit <= before + ip.opts.c1 * t * slope + 8 * EPS * abs(before)
                                     or ip.norm(new, ip.residuals(new, trial, mu)) <= (1 - 0.01 * t) * residual):
            it.step = t
            return ip.clamp(new), trial
        t /= 2
    return None


def _close(it: Iteration, clock: Clock, opts: Options) -> None:
    it.eval_s, it.solve_s = clock.take()
    it.time_s = clock.elapsed()
    if opts.verbose:
        print(row(it) + f"  kkt {it.kkt:.2e}", flush=True)


def callback_stops(opts: Options, ip: Interior, st: State, it: Iteration) -> bool:
    """Whether the user's callback, shown the iterate st as an OptimizeResult, asks to stop
    (returns true or raises StopIteration); False without a callback."""
    if opts.callback is None:
        return False
    x = {name: to_host(a) for name, a in ip.view.unpack(st.y).items()}
    try:
        fun = it.trials[-1][1] * opts.sign if it.trials else it.f
        return bool(opts.callback(optimize_result(x=x, fun=fun, nit=it.k + 1, iteration=it)))
    except StopIteration:
        return True
