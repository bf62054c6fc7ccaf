"""`minimize`: check, compile, solve, and return a SciPy `OptimizeResult`."""
from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from solvers.constrained import dispatch as constrained
from solvers.constrained import domain_start, feasibility
from solvers.constrained.kkt import Solved
from solvers.methods.alternate import alternate
from solvers.methods.firstorder import LBFGS, GradientDescent
from solvers.methods.history import optimize_result
from solvers.methods.loop import Options, Outcome, run
from solvers.methods.newton import Newton, NewtonCG
from solvers.objective.smooth import Objective
from solvers.reformulate.bounds import BOUNDS
from solvers.reformulate.closure import Closure
from solvers.reformulate.cones import SecondOrderCones
from solvers.reformulate.lift import Lift, Lifting
from solvers.reformulate.squares import WideSquares
from solvers.task import domain
from solvers.task.convexity import convexity_of
from solvers.task.device import array_module, to_host
from solvers.task.prepare import SolverError, Task, read
from solvers.task.reductions import MAXIMIZE, Chain

if TYPE_CHECKING:
    from scipy.optimize import OptimizeResult

METHODS = {"newton": Newton, "newton-cg": NewtonCG, "lbfgs": LBFGS, "gd": GradientDescent}
MAX_ITER = {"newton": 100, "newton-cg": 200, "lbfgs": 2000, "gd": 20000}


@np.errstate(all="ignore")      # every value is checked (statuses, SolverError): no warnings
def minimize(problem: object, data: Mapping[str, object] | None = None, *, x0: object = None,
             method: str = "newton", device: str = "cpu", tol: float = 1e-12, max_iter: int | None = None,
             callback: Callable[[OptimizeResult], object] | None = None, verbose: bool = False,
             gtol: float = 1e-8, check: bool = True, c1: float = 1e-4, max_trials: int = 40,
             memory: int = 10, second_order: bool = True,
             blocks: Sequence[str | Sequence[str]] | None = None) -> OptimizeResult:
    """Minimise (or maximise) the objective of `problem` over its free variables.

    problem: a parsed problem (`convexcheck.load_problem`), a .tc path, problem text, a
      scalar tensorcalc expression (its variables not in `data` are the free ones), or a
      CVXPY Problem (translated by `convexcheck.from_cvxpy`; its parameters' values are
      data, joined to `data`).
    data: arrays by name for the parameters; a variable given here is held fixed.
    x0: start, a dict by variable name (or one array for one variable); default zeros,
      moved inside declared bounds. A start (given or default) outside the implicit
      domain (log, fractional and negative powers, entropy, log det, a 2-norm at 0) is
      first moved strictly inside it by phase one (`solvers.constrained.domain_start`);
      SolverError where no point inside the domain meets the affine constraints. No
      iterate leaves the start's domain component (a step across inv_pos's pole at 0, or
      to p, q < 0 where rel_entr's p / q > 0 still holds, is refused: `domain.Component`).
    method: "newton" (Cholesky, damped when needed; block-diagonal Hessians solved by
      blocks), "newton-cg" (Hessian-vector products), "lbfgs", "gd", or "auto" (picked
      from the problem's structure: `constrained.auto`). With constraints, closed bounds
      or matrix variables see `solvers.constrained.dispatch`: bounds are kept by the projected
      method, constraints by an interior-point method (newton) or an augmented
      Lagrangian (the others), pd/psd matrices inside their cone. "alternate": block-
      coordinate Newton over `blocks` (names or lists of names, every free variable once;
      `max_iter` counts sweeps, default 100), as `solvers.alternate` runs it; no callback.
    Kinks: abs and relu of affine arguments where the objective grows with them (the
      lasso's lam * sum(abs(w)), hinge losses, L1 fits; also in `<=` constraints) are
      lifted into epigraph variables and affine constraints (`solvers.reformulate.epigraph`, on the
      CPU), so every method meets a smooth problem; the result speaks of the original
      variables and objective, and `lifted` names the variables added.
    device: "cpu" (NumPy) or "gpu" (CuPy).
    Stops when max|g| <= gtol and, for Newton methods, lambda^2/2 <= tol.
    check: run convexcheck first; when the problem is not proven convex the result has a
      `warning` that the point found may be only local.
    second_order: where the method would stop, unless the objective is proven convex,
      check that the point is a local minimum (the Hessian's lowest eigenvalue, see
      `solvers.methods.stopping`): from a saddle or a maximum the solve steps along a direction of
      negative curvature and goes on. Either way the objective is probed along the
      direction of travel: one that keeps falling there has no minimiser (status 5).

    Returns an OptimizeResult: x and jac as dicts of NumPy arrays by variable name, fun
    (the objective as written: maximised values for maximize), nit, nfev, njev, nhev,
    status (0 converged, 1 iteration limit, 2 line search failed, 3 callback, 4 a
    stationary point that is not a local minimum, 5 no minimiser: the objective falls
    without bound or towards an infimum it does not attain, 6 infeasible: no point
    satisfies every constraint, x is one of least violation, see `solvers.constrained.feasibility`),
    success (status 0: the KKT conditions hold to gtol), message, convexity, warning,
    method (for "auto" the one picked), device, constr_violation (the largest violation
    of a constraint, bound or cone; 0 without any), multipliers (by constraint label, see
    `solvers.constrained.dispatch`), lifted (where kinks were lifted: the variables added), and
    history: one `Iteration` per iterate (with `kkt` and `violation` under constraints).
    """
    if method == "alternate":
        return _alternate(problem, data, x0, blocks, device=device, tol=tol, max_iter=max_iter, callback=callback,
                          verbose=verbose, gtol=gtol, check=check, c1=c1, max_trials=max_trials,
                          second_order=second_order)
    if method not in METHODS and method != "auto":
        raise SolverError(f"method {method!r} is not one of {', '.join(METHODS)}, auto, alternate")
    if blocks is not None:
        raise SolverError(f"blocks are for method='alternate', not {method!r}")
    checked = _options(tol, gtol, max_iter if max_iter is not None else 0, c1, max_trials, verbose, callback)
    xp = array_module(device)
    task, chain = _started(read(problem, data, x0), xp, method, gtol)
    convexity, warning = convexity_of(task) if check else ("not checked", None)
    work, undo = chain.apply(task)                    # inverted once at the result
    method, opts = _planned(work, undo, method, checked, max_iter, bool(second_order), convexity == "convex")
    obj = Objective(work, xp, domain_start.kept_component(work))      # no search leaves the start's component
    start = time.perf_counter()
    out = _solve(work, obj, method, opts, gtol, tol, memory)
    result = _result(obj, out, method, device, convexity, warning, time.perf_counter() - start)
    return chain.invert(result, undo)


def _planned(work: Task, undo: tuple[Any, ...], method: str, checked: Options, max_iter: int | None,
             second_order: bool, convex: bool) -> tuple[str, Options]:
    """The method ("auto" picked for the reduced task) and the options of the solve: its
    iteration limit, the lifted variables' tolerances (`_for_lifted`), and a callback that
    sees no variable the cones or the wide squares added. `undo`: the inverses of the
    chain `_started` made, in its order."""
    lifting, coning, squaring = undo[3:]
    if method == "auto":
        method = constrained.auto(work, lifting.lifted.added)
    opts = dataclasses.replace(checked, max_iter=max_iter if max_iter is not None else MAX_ITER[method],
                               sign=work.sign, second_order=second_order, convex=convex,
                               **(_for_lifted(checked, lifting) if lifting.lifted.added else {}))
    hidden = coning.made.added + squaring.made.added
    if opts.callback is not None and hidden:       # the callback sees no cone or definition variable either
        opts = dataclasses.replace(opts, callback=_hiding(opts.callback, hidden))
    return method, opts


def _started(task: Task, xp: Any, method: str, gtol: float) -> tuple[Task, Chain]:
    """The task with its start moved inside the domain (`domain_start`), and the chain of
    reductions a solve applies to it: the domain's closure rows, rows that are bounds,
    maximize, the epigraph lift, the cones, the wide squares. Conditions the cones take
    away move no start and get no row."""
    coning = SecondOrderCones(xp, method, gtol)
    ignored = _coned_away(task, coning)
    chain = Chain((Closure(ignored), BOUNDS, MAXIMIZE, Lift(xp, gtol, method), coning,
                   WideSquares(xp, method, gtol)))
    return domain_start.inside(task, ignored), chain


def _coned_away(task: Task, coning: SecondOrderCones) -> frozenset:
    """The arguments of domain conditions that the cones take away (a 2-norm's sum of
    squares, whose sqrt the coned task no longer has): no phase one moves the start for
    them (a control problem's 60 thrust norms: 15 ms a solve)."""
    coned = coning.apply(task)[0]
    if coned is task:
        return frozenset()
    left = {c.arg for c in domain.conditions(coned)}
    return frozenset(c.arg for c in domain.conditions(task) if c.arg not in left)


def _alternate(problem: object, data: Mapping[str, object] | None, x0: object,
               blocks: Sequence[str | Sequence[str]] | None, *, max_iter: int | None,
               callback: Callable[[OptimizeResult], object] | None, **options: Any) -> OptimizeResult:
    """`minimize(method="alternate")`: `alternate` with max_iter as its sweeps."""
    if blocks is None:
        raise SolverError("method='alternate' needs blocks: the variables' names, a list per block")
    if callback is not None:
        raise SolverError("method='alternate' takes no callback")
    sweeps = 100 if max_iter is None else max_iter
    return alternate(problem, blocks, x0=x0, data=data, sweeps=sweeps, **options)


def _for_lifted(opts: Options, lifting: Lifting) -> dict[str, Any]:
    """The options that differ for a lifted task: the callback shown the original
    variables; where the task has constraints, each lifted row held tighter, since an
    original row sums them."""
    task, lifted = lifting.before, lifting.lifted
    changed: dict[str, Any] = {}
    if opts.callback is not None:
        changed["callback"] = _hiding(opts.callback, lifted.added)
    if task.constraints:
        changed["feasibility"] = 1.0 / (1 + sum(v.size for v in lifted.task.free if v.name in lifted.added))
    return changed


def _solve(work: Task, obj: Objective, method: str, opts: Options, gtol: float, tol: float, memory: int):
    """The solve's outcome: `run` without constraints, bounds or cones, else
    `constrained.solve`, then phase one where a convex solve stopped with a violation."""
    make = lambda: _method(method, gtol, tol, memory)                  # noqa: E731
    if not work.constrained and not constrained.sparse_quadratic(work, obj, method):
        return run(obj, make(), obj.pack(work.x0), opts)
    out = constrained.solve(work, obj, method, make, opts, gtol, tol)
    if work.constraints and out.status in (1, 2) and opts.convex and out.violation > feasibility.INFEASIBLE:
        out = _diagnosed(work, obj, out, opts, gtol, tol, memory)
    return out


def _diagnosed(work: Task, obj: Objective, out, opts: Options, gtol: float, tol: float, memory: int):
    """`out`, or the point of least violation with status 6 where phase one shows the
    constraints infeasible (`feasibility`), or `out` with status 6 where phase one does
    not conclude and a Farkas certificate does (`_proven`)."""
    x = {n: to_host(a) for n, a in obj.unpack(out.z).items()}
    built = feasibility.phase_one(work, x)
    if built is None:
        return _proven(work, obj, out)
    phase, owner = built
    name = constrained.auto(phase)
    quiet = dataclasses.replace(opts, callback=None, verbose=False, sign=1.0, convex=True, max_iter=MAX_ITER[name])
    pobj = Objective(phase, obj.xp)
    res = constrained.solve(phase, pobj, name, lambda: _method(name, gtol, tol, memory), quiet, gtol, tol)
    if res.status != 0:
        return _proven(work, obj, out)
    if res.f <= feasibility.INFEASIBLE:
        return dataclasses.replace(out, message=out.message + feasibility.feasible_note(res.f))
    found = pobj.unpack(res.z)
    z = obj.pack({n: found[n] for n in x})
    f, g = obj.value_grad(z)
    conflict = feasibility.conflicting(res.multipliers, owner, set(x))
    return dataclasses.replace(out, z=z, f=f, g=g, status=6, message=feasibility.message(res.f, conflict),
                               violation=float(res.f), multipliers={})


def _proven(work: Task, obj: Objective, out):
    """`out`, or status 6 where a checked Farkas certificate shows the affine constraints
    and bounds infeasible (`farkas`: at scales where phase one does not converge)."""
    rows = constrained.infeasible_rows(work, obj)
    if rows is None:
        return out
    return dataclasses.replace(out, status=6, message=feasibility.certified(rows), multipliers={})


def _hiding(callback, names: tuple[str, ...]):
    """The callback, shown x without the epigraph variables (its fun is the lifted
    objective's: the same wherever each t equals its kink)."""
    def call(result: OptimizeResult) -> object:
        for name in names:
            result.x.pop(name, None)
        return callback(result)
    return call


def _method(name: str, gtol: float, tol: float, memory: int):
    if name == "newton":
        return Newton(gtol, tol)
    return LBFGS(memory) if name == "lbfgs" else METHODS[name]()


def _options(tol, gtol, max_iter, c1, max_trials, verbose, callback) -> Options:
    for name, value in (("tol", tol), ("gtol", gtol)):
        if not value >= 0:
            raise SolverError(f"{name} must be a number >= 0, got {value!r}")
    if not (isinstance(max_iter, int) and 0 <= max_iter <= 10_000_000):
        raise SolverError(f"max_iter must be a whole number from 0 to 10000000, got {max_iter!r}")
    if not 0 < c1 < 1:
        raise SolverError(f"c1 must lie in (0, 1), got {c1!r}")
    if not (isinstance(max_trials, int) and 1 <= max_trials <= 200):
        raise SolverError(f"max_trials must be a whole number from 1 to 200, got {max_trials!r}")
    if callback is not None and not callable(callback):
        raise SolverError("callback must be callable")
    return Options(gtol=gtol, tol=tol, max_iter=max_iter, c1=c1, max_trials=max_trials,
                   verbose=verbose, callback=callback)


def _result(obj: Objective, out: Outcome, method: str, device: str, convexity: str, warning: str | None,
            seconds: float) -> OptimizeResult:
    """The result of the reduced task (`Chain.invert` makes it the original's): fun and
    jac those of the objective minimised."""
    x = {n: to_host(a) for n, a in obj.unpack(out.z).items()}
    jac = {n: to_host(a) for n, a in obj.unpack(out.g).items()}
    violation, multipliers = (out.violation, out.multipliers) if isinstance(out, Solved) else (0.0, {})
    return optimize_result(
        x=x, fun=out.f, jac=jac, nit=len(out.history) - 1, status=out.status,
        success=out.status == 0, message=out.message, history=out.history, convexity=convexity,
        warning=warning, method=method, device=device, time_s=seconds,
        constr_violation=violation, multipliers=multipliers,
        **obj.counts)
