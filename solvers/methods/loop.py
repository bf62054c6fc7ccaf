"""The iteration every method shares: evaluate, ask the method for a direction, test for
convergence, search along the direction (falling back to the negative gradient when the
search fails), record the iteration, repeat. Where it would stop (converged, the
iteration limit, a failed search), `certify.examine` checks that the point is a minimum
and that the objective has one: from a saddle the iteration continues along a direction of negative
curvature; what it cannot leave, or an objective that falls without bound, is reported.

A method is a `Method`: see its docstring for what the loop asks of it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from solvers.methods import stopping as certify
from solvers.methods.history import HEADER, Clock, Iteration, optimize_result, row
from solvers.methods.linesearch import backtrack
from solvers.methods.options import Options, Progress
from solvers.objective.trials import along
from solvers.protocol import Array, Smooth
from solvers.result import Family, Status, status_message
from solvers.task.prepare import SolverError

MAX_ESCAPES = 10     # steps away from saddle points in one solve
EPS = 2.0 ** -52
UNFINISHED = (Status.ITERATION_LIMIT, Status.LINE_SEARCH_FAILED)   # stops that may be at an open bound
ROUNDING = math.sqrt(EPS)  # a Newton step this small relative to x is rounding (`_at_rounding_level`)
ROUNDED = "converged at the rounding level: Newton's step moves no entry beyond sqrt(eps) of x"
BY_SLOPE = "step accepted by its slope: its change of f is within f's rounding (approximate Wolfe)"
NOT_FINITE = "the gradient is not finite (inf or nan) here: no direction or step can be judged"
GAIN = 1e-10         # a converged point of a tiny-scale objective that predicts more than
FLOOR = 100 * EPS    # GAIN |f| and FLOOR |f at the start| steps on (`_more_to_gain`)


@dataclass
class Direction:
    """What a method proposes: the direction d, its Newton decrement (nan where the method
    has none), the shift added to the Hessian, notes on fallbacks, CG iterations, and
    whether d is the negative gradient."""

    d: Array
    decrement: float = math.nan     # lambda^2/2 for Newton methods
    damping: float = 0.0
    fallbacks: list = field(default_factory=list)
    cg: int = 0
    gradient: bool = False          # d is the negative gradient: no fallback left


@dataclass(frozen=True)
class Evaluation:
    """What a method evaluated at an iterate: f and g, and for Newton methods either the
    Hessian (dense or `linalg.Blocks`; a Dask array of blocks for `rowfactor`) or, near
    the solution where none was built, the decrement g.H^-1 g / 2 taken with the
    previous step's factor, `chord` marking an iterate whose step reuses that factor
    (see `newton.Newton`)."""

    f: float
    g: Array
    hessian: Any = None             # None: not evaluated here
    decrement: float = math.nan     # with the previous factor, where no Hessian was built
    chord: bool = False             # the step reuses the previous factor


class Method:
    """What the loop asks of a method. `evaluate(obj, z, last)` gives the `Evaluation` at
    z (`last` marks the iterate at the iteration limit, where no step follows);
    `direction(obj, z, ev, clock)` gives a `Direction`.
    The defaults: `trial` evaluates a line-search trial point by value, `update(s, y)`
    (learning from an accepted step s and the gradient change y) does nothing, the
    line search first tries the step 1, `restart()` (after a step away from a saddle)
    forgets nothing, `hessian(obj, z, ev)` is None: the second-order check at
    the end uses Hessian-vector products, and `face` is the objective itself. `obj` is
    always a `solvers.protocol.Smooth`."""

    name, newton = "method", False

    def evaluate(self, obj: Smooth, z: Array, last: bool = False) -> Evaluation:
        """The `Evaluation` at z; `last`: the iterate at the iteration limit (no step follows)."""
        raise NotImplementedError

    def direction(self, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
        """The direction to search along from z, where the method evaluated `ev`."""
        raise NotImplementedError

    def trial(self, obj: Smooth, z: Array) -> float:
        return obj.value(z)

    def update(self, s: Array, y: Array) -> None:
        pass

    def restart(self) -> None:
        pass

    def hessian(self, obj: Smooth, z: Array, ev: Evaluation) -> Any:
        return None

    def first_step(self, d: Array, g: Array) -> float:
        return 1.0

    def face(self, obj: Smooth, z: Array, g: Array) -> Smooth:
        """What `certify` examines at z: the objective (a projected method's: on the face of z)."""
        return obj


def max_abs(obj: Smooth, g: Array) -> float:
    """max|g| as a host scalar (0 for no variables)."""
    return float(obj.xp.abs(g).max()) if obj.n else 0.0


def stationarity(obj: Smooth, z: Array, g: Array) -> Array:
    """g, or z - P(z - g) where the objective has a `box` of closed bounds (P projects on
    it): zero exactly at a point that satisfies the first-order conditions. Computed as
    g clipped to [z - upper, z - lower], equal in exact arithmetic, without the rounding of
    z - g: that is eps |z| whatever the size of g, so a gradient of scale 1e-9 (an LP whose
    costs are 1e-9) could never be seen below 1e-16 = 1e-7 of its own size."""
    if obj.box is None:
        return g
    return obj.xp.minimum(obj.xp.maximum(g, z - obj.box.upper), z - obj.box.lower)


def projected_gradient(obj: Smooth, z: Array, g: Array) -> tuple[Array, float]:
    """(z - P(z - g), its max|.|) for an objective with a `box` (see `stationarity`); kept
    on `obj` for the last (z, g), since the loop and the face rule of the projected methods
    (`bounds`) both ask at each iterate, whose arrays are new, never changed in place."""
    kept = obj.__dict__
    last = kept.get("_projected")
    if last is not None and last[0] is z and last[1] is g:
        return last[2], last[3]
    if obj.box is None:
        raise TypeError("projected_gradient: the objective has no box")
    pg = stationarity(obj, z, g)
    kept["_projected"] = (z, g, pg, float(obj.xp.abs(pg).max()) if obj.n else 0.0)
    return pg, kept["_projected"][3]




@dataclass
class Outcome:
    z: object
    f: float
    g: object
    status: Status
    message: str
    history: list


def run(obj: Smooth, method: Method, z: Array, opts: Options) -> Outcome:
    """Iterate `method` from z until convergence, the limit, a failed search or the callback."""
    clock, history, progress = Clock(), [], Progress()
    s_prev = g_prev = None
    start, escapes = z, 0
    if opts.verbose:
        print(HEADER)
    for k in range(opts.max_iter + 1):
        with clock("eval"):
            ev = method.evaluate(obj, z, k == opts.max_iter)
        f, g = ev.f, ev.g
        if k == 0:
            progress.f_start = progress.f_last = f
        if s_prev is not None:
            method.update(s_prev, g - g_prev)
        gmax = max_abs(obj, g) if obj.box is None else projected_gradient(obj, z, g)[1]
        it = Iteration(k, opts.sign * f, gmax)
        history.append(it)
        status, d, d_point = iterate(obj, method, z, ev, it, opts, clock, k, progress)
        progress.f_last = f
        message = _message(status, method, it, f) if status is not None else None
        if status in (Status.CONVERGED, Status.ITERATION_LIMIT, Status.LINE_SEARCH_FAILED) and math.isfinite(gmax):
            with clock("eval"):
                verdict = certify.examine(method.face(obj, z, g), z, f, g, lambda: method.hessian(obj, z, ev),
                                          opts, start, (s_prev, z - start), status)
            leave = verdict.point is not None and k < opts.max_iter and escapes < MAX_ESCAPES
            escapes += leave
            status, message, d, d_point = _follow(method, it, verdict, status, message, leave)
        if status in UNFINISHED and math.isfinite(gmax) and (held := certify.open_bound(obj, z, g, opts.gtol)):
            status, message = Status.NO_MINIMISER, _open_message(held, opts.sign, f)
        if status is not None:
            close(it, clock, opts)
            return Outcome(z, f, g, status, message or "", history)
        # the step taken: on a projected path (a box) not a multiple of d
        s_prev = it.step * d if obj.box is None else d_point - z
        g_prev, z = g, d_point
        close(it, clock, opts)
        if _callback(opts, obj, z, it):
            # record the iterate stopped at, so that x, fun, jac and nit all describe it
            with clock("eval"):
                f, g = obj.value_grad(z)
            it = Iteration(k + 1, opts.sign * f, max_abs(obj, g))
            history.append(it)
            close(it, clock, opts)
            return Outcome(z, f, g, Status.CALLBACK, status_message(Family.DESCENT, Status.CALLBACK), history)
    raise AssertionError("unreachable: the last iteration returns")


def _follow(method: Method, it: Iteration, verdict: certify.Verdict, status: Status, message: str | None,
            leave: bool) -> tuple[Status | None, str | None, Array, Array]:
    """(status, message, direction, point) after `certify.examine`: status None and the
    step away from a saddle when `leave` (recorded on `it`; the method starts afresh),
    else the verdict's status and message where they differ from the method's."""
    if leave:
        method.restart()
        it.step = verdict.t
        it.trials.extend(verdict.trials)
        it.fallbacks.append(verdict.note)
        return None, None, verdict.d, verdict.point
    if verdict.status != status:
        it.fallbacks.append(verdict.message)
        return verdict.status, verdict.message, None, None
    return status, message, None, None


def iterate(obj: Smooth, method: Method, z: Array, ev: Evaluation, it: Iteration, opts: Options,
            clock: Clock, k: int, progress: Progress | None = None) -> tuple[Status | None, Array, Array]:
    """(None, direction, new point) when a step was found (its size recorded on `it`),
    else (status, None, None). `progress`: the run's (`run`); None outside one."""
    f, g = ev.f, ev.g
    if it.k == 0:
        _check_start(f, it.gmax)
    elif not math.isfinite(it.gmax):
        # a step accepted by its (finite) value can land where the derivatives overflow:
        # 1/p past 1/DBL_MAX, as an augmented Lagrangian's growing penalty drives a `pos`
        # coordinate of an infeasible problem to 1e-311; no direction or step is defined
        it.fallbacks.append(NOT_FINITE)
        return Status.LINE_SEARCH_FAILED, None, None
    if it.gmax == 0.0:
        it.decrement = 0.0
        return Status.CONVERGED, None, None
    dr = method.direction(obj, z, ev, clock)
    it.decrement, it.damping, it.fallbacks, it.cg = dr.decrement, dr.damping, dr.fallbacks, dr.cg
    converged = it.gmax <= opts.gtol and (math.isnan(dr.decrement) or dr.decrement <= opts.tol)
    if converged and not _more_to_gain(obj, f, g, dr, progress or Progress(), k):
        return Status.CONVERGED, None, None
    if not converged and _at_rounding_level(obj, z, f, g, dr):
        it.fallbacks.append(ROUNDED)
        return Status.CONVERGED, None, None
    if k == opts.max_iter:
        return Status.CONVERGED if converged else Status.ITERATION_LIMIT, None, None
    with clock("eval"):
        search = _search(obj, z, f, g, dr, method, opts, it)
    if search is None:
        return Status.CONVERGED if converged else Status.LINE_SEARCH_FAILED, None, None
    it.step = search[0]
    return None, search[1], search[2]


def _search(obj, z, f, g, dr: Direction, method, opts: Options, it: Iteration):
    """(step, direction, point) accepted by the Armijo search, trying -g when dr.d fails;
    None if both fail. The first trial is evaluated by `method.trial` (see `prefetch`)."""
    candidates = [(dr.d, method.first_step(dr.d, g))]
    if not dr.gradient:
        candidates.append((None, min(1.0, 1.0 / it.gmax)))     # -g, made only if needed
    points: dict[float, Array] = {}
    box = obj.box

    def phi(t: float) -> float:
        points[t] = z + t * d if box is None else box.path(obj.xp, z, d, t)
        if not it.trials and len(points) == 1:
            return method.trial(obj, points[t])
        return later(t, points[t]) if later is not None else obj.value(points[t])

    def projected_slope(t: float) -> float:        # g.(P(z + t d) - z) / t (Kelley 5.5.3)
        return float(g @ (points[t] - z)) / t

    def dphi(t: float) -> float:                   # the derivative along the (projected) path at t
        gt = obj.value_grad(points[t])[1]
        along_path = d if box is None else obj.xp.where(points[t] == z + t * d, d, 0.0)
        return float(gt @ along_path)

    for n, (d, first) in enumerate(candidates):
        d = -g if d is None else d
        points.clear()
        later = along(obj, z, d) if box is None else None     # Dask data: products kept (`trials`)
        slope = float(g @ d) if box is None else projected_slope
        search = backtrack(phi, f, slope, first, opts.c1, max_trials=opts.max_trials, dphi=dphi)
        it.trials.extend(search.trials)
        outside = sum(1 for _, ft in search.trials if math.isinf(ft))
        if outside:
            it.fallbacks.append(f"{outside} trial point(s) outside the domain (f = inf or nan)")
        if search.step is not None:
            if search.by_slope:
                it.fallbacks.append(BY_SLOPE)
            return search.step, d, points[search.step]
        if n + 1 < len(candidates):
            it.fallbacks.append(f"line search failed along the {method.name} direction after "
                                f"{len(search.trials)} trials; tried the negative gradient")
    return None


def _more_to_gain(obj, f: float, g, dr: Direction, progress: Progress, k: int) -> bool:
    """Whether a point that meets the absolute tests (max|g| <= gtol, lambda^2/2 <= tol)
    still predicts a decrease (lambda^2/2, or -g.d/2) of over GAIN times |f| and over
    FLOOR times |f| at the start: an objective of tiny scale (s * |A x - b|^2, s = 1e-15)
    meets them at its start. Such a point steps on (and stops at once where no step
    passes); on objectives of ordinary scale the prediction is far below both. A method
    without curvature predicts by the last step's decrease as well (L-BFGS's first step
    knows no scale: it tries one step from the start)."""
    if obj.box is not None:
        return False
    if math.isnan(dr.decrement) and k == 0:
        return True
    pred = dr.decrement if not math.isnan(dr.decrement) else max(-0.5 * float(g @ dr.d), progress.f_last - f)
    return pred > GAIN * abs(f) and pred > FLOOR * abs(progress.f_start)


def _at_rounding_level(obj, z, f: float, g, dr: Direction) -> bool:
    """Whether Newton's step (positive definite, unshifted) moves no entry of z by more
    than ROUNDING (1 + max|z|), predicts a decrease under 1000 eps |f|, and max|g| (1 +
    max|z|) is under 1e4 eps |f|: no point float64 can hold is better, though max|g|
    stays above an absolute gtol (an objective of size 1e10 carries gradient rounding
    near 1e-5); at ordinary scales the last test never holds above gtol."""
    if math.isnan(dr.decrement) or dr.gradient or dr.damping or obj.box is not None:
        return False
    xp = obj.xp
    size = float(xp.abs(z).max()) if obj.n else 0.0
    step = float(xp.abs(dr.d).max()) if obj.n else 0.0
    return (step <= ROUNDING * (1.0 + size) and dr.decrement <= 1e3 * EPS * abs(f)
            and float(xp.abs(g).max()) * (1.0 + size) <= 1e4 * EPS * abs(f))


def _check_start(f: float, gmax: float) -> None:
    """A start where f or g is inf or nan is bad input, not a failed line search."""
    if not math.isfinite(f):
        raise SolverError("the objective is not finite (inf or nan) at the starting point x0: "
                          "start inside its domain")
    if not math.isfinite(gmax):
        raise SolverError("the gradient of the objective is not finite (inf or nan) at the starting "
                          "point x0: start inside the domain of its derivatives, off the boundary")


def close(it: Iteration, clock: Clock, opts: Options) -> None:
    it.eval_s, it.solve_s = clock.take()
    it.time_s = clock.elapsed()
    if opts.verbose:
        print(row(it), flush=True)


def _callback(opts: Options, obj, z, it: Iteration) -> bool:
    if opts.callback is None:
        return False
    from solvers.task.device import to_host
    x = {name: to_host(a) for name, a in obj.unpack(z).items()}
    try:
        # fun at x: the accepted (last) trial of the step, not f of the iterate it left
        fun = opts.sign * it.trials[-1][1]
        return bool(opts.callback(optimize_result(x=x, fun=fun, nit=it.k + 1, iteration=it)))
    except StopIteration:
        return True


def _open_message(names: list[str], sign: float, f: float) -> str:
    words = certify.stop_words(sign)
    return (f"stopped: no {words['min']}imiser: the objective {words['falls']} towards a bound its "
            f"declaration excludes (the strict bound of {', '.join(names)}: `pos`, `> c` or `< c`), reaching "
            f"{sign * f:.6g} there: its {words['inf']} is not attained; declare the bound closed "
            f"(`nonneg`, `>= c`) to reach it")


def _message(status: Status, method: Method, it: Iteration, f: float) -> str:
    if NOT_FINITE in it.fallbacks:
        return ("stopped: the gradient is not finite (inf or nan) at the point reached: its last step "
                "came within rounding of where the objective's derivatives overflow (an entry of x near "
                "0 or a bound); no further step can be judged")
    if status == Status.CONVERGED and ROUNDED in it.fallbacks:
        return (f"converged to float64's precision: max|g| = {it.gmax:.3g} > gtol, but Newton's step moves "
                f"no entry beyond sqrt(eps) of x and predicts a decrease under f's rounding (the "
                f"objective's scale is {abs(f):.3g})")
    newton = " and lambda^2/2 <= tol" if method.newton else ""
    return status_message(Family.DESCENT, status, newton=newton)
