"""Block-coordinate Newton: one damped Newton step per block of variables in turn.

For objectives convex in each block but not jointly (matrix factorisation: convex in U
for fixed V and in V for fixed U), each block's Newton system is that of a convex
problem; when its symbolic Hessian is block diagonal (a delta over the rows of U) the
step solves the small blocks separately. One sweep moves every block once.

Each block converging is not the joint problem converging: from U = V = 0 every block's
gradient and Hessian vanish, a saddle of the joint objective. So where the sweeps stop,
the joint point is examined as `minimize` examines its own (`certify.examine`, on
Hessian-vector products of the joint objective): from a saddle the sweeps go on after a
step along a direction of negative curvature, and a joint objective without a minimiser
is reported as such.

On data chunked by rows as Dask arrays, a block that is a row factor (U of matrix
completion: its first axis the data's rows, its Hessian block diagonal over them) stays
a Dask array chunked like the rows, its Newton blocks solved on the workers
(`rowfactor`); the result's x and jac hold it as a Dask array. There the joint point is
not examined (the examination works on the whole joint vector, which would bring the
row factor to the client): the status is the sweeps' own (0, 1 or 2).
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from solvers.methods import stopping as certify
from solvers.methods.history import HEADER, Clock, Iteration, optimize_result
from solvers.methods.loop import MAX_ESCAPES, Evaluation, Method, Options, close, iterate, max_abs
from solvers.methods.newton import Newton
from solvers.objective.smooth import Objective
from solvers.protocol import Array
from solvers.result import Family, Status, status_message
from solvers.task.convexity import convexity_of
from solvers.task.device import array_module, to_host
from solvers.task.prepare import SolverError, prepare, read, refuse_constraints, translated
from solvers.task.reductions import MAXIMIZE, Chain
from tensorcalc.arrays import is_dask

if TYPE_CHECKING:
    from scipy.optimize import OptimizeResult

Maker = Callable[[Options], Method]     # a block's Newton method, made fresh for each step


def _newton(opts: Options) -> Method:
    """`Newton` without prefetch: the probe (`_Probe`) keeps the evaluations."""
    return Newton(opts.gtol, opts.tol, prefetch=False)


def alternate(problem: object, blocks: Sequence[str | Sequence[str]], data: Mapping[str, object] | None = None, *,
              x0: object = None, sweeps: int = 100, tol: float = 1e-12, gtol: float = 1e-8, device: str = "cpu",
              verbose: bool = False, check: bool = True, c1: float = 1e-4, max_trials: int = 40,
              second_order: bool = True) -> OptimizeResult:
    """Minimise by Newton steps on each block of `blocks` (names or lists of names) in turn;
    also `solvers.minimize(problem, data, method="alternate", blocks=...)`. `problem`,
    `data`, `x0` and the options are `minimize`'s (a CVXPY Problem is translated once).

    Stops after a sweep in which every block had max|g| <= gtol and lambda^2/2 <= tol
    (status 0), after `sweeps` sweeps (status 1), or when a block's line search fails
    (status 2); the joint point is then examined (see the module; `second_order`):
    status 4 for a joint saddle it could not leave, 5 for no minimiser. The result is
    `minimize`'s, with `convexity` by block and one history entry per block step
    (`Iteration.block` names the block; "escape" a step away from a joint saddle)."""
    groups = [(b,) if isinstance(b, str) else tuple(b) for b in blocks]
    problem, data = translated(problem, data)
    if not (isinstance(sweeps, int) and sweeps >= 0):
        raise SolverError(f"sweeps must be a whole number >= 0, got {sweeps!r}")
    reductions = Chain((MAXIMIZE,))                       # applied once here, inverted at the result
    joint, undo = reductions.apply(read(problem, data, x0))
    refuse_constraints(joint, "block-coordinate Newton (solvers.alternate)")
    _check_blocks(groups, [v.name for v in joint.free])
    xp = array_module(device)
    state = dict(joint.x0)
    objs, makers = _rows([_block(problem, data or {}, state, b, xp) for b in groups], state)
    convexity = {",".join(b): (convexity_of(o.task)[0] if check else "not checked") for b, o in zip(groups, objs)}
    opts = Options(gtol=gtol, tol=tol, c1=c1, max_trials=max_trials, sign=joint.sign, verbose=verbose,
                   second_order=bool(second_order))
    start = time.perf_counter()
    final = Objective(joint, xp)
    status, message, history = _solve(objs, makers, groups, state, sweeps, opts, final)
    f, jac = _value_grad(final, state)
    jac = {n: a if is_dask(a) else to_host(a) for n, a in jac.items()}
    result = optimize_result(x={n: a if is_dask(a) else to_host(a) for n, a in state.items()},
                             fun=f, jac=jac, nit=len(history), status=status, success=status == 0,
                             message=message, history=history, convexity=convexity,
                             warning=_warning(convexity), method="block-newton", device=device,
                             time_s=time.perf_counter() - start, sweeps=_count(history, len(groups)))
    return reductions.invert(result, undo)


def _check_blocks(blocks, free: list[str]) -> None:
    named = [n for b in blocks for n in b]
    for name in named:
        if name not in free:
            raise SolverError(f"block variable {name!r} is not a free variable of the objective "
                              f"(free: {', '.join(free)})")
    if sorted(named) != sorted(free):
        missing = sorted(set(free) - set(named)) or sorted({n for n in named if named.count(n) > 1})
        raise SolverError(f"blocks must name every free variable exactly once; check "
                          f"{', '.join(map(repr, missing))}")


def _block(problem: object, data: Mapping[str, object], state: dict, block: tuple[str, ...], xp: Any) -> Objective:
    others = {n: a for n, a in state.items() if n not in block}
    task = prepare(problem, {**data, **others}, {n: state[n] for n in block})
    return Objective(task, xp)


def _rows(objs: list, state: dict) -> tuple[list, list[Maker]]:
    """(objectives, their Newton methods' makers): on Dask data, each row factor's
    objective as a `rowfactor.RowObjective` stepped by `rowfactor.RowNewton`, its variable
    in `state` a Dask array chunked like the data's rows (see that module)."""
    if not any(is_dask(a) for o in objs for a in o.fixed.values()):
        newtons: list[Maker] = [_newton] * len(objs)
        return objs, newtons
    from solvers.methods import rowfactor
    out: list = []
    makers: list[Maker] = []
    for obj in objs:
        chunks = rowfactor.row_chunks(obj)
        make = _newton
        if chunks is not None:
            obj = rowfactor.RowObjective(obj, chunks)
            state[obj.names[0]] = obj.rows(state[obj.names[0]])
            make = rowfactor.RowNewton.made
        out.append(obj)
        makers.append(make)
    return out, makers


def _value_grad(obj: Objective, state: dict):
    """(f, gradient by name) at `state`; with a row factor on the workers, its gradient
    stays there (a Dask array)."""
    if any(map(is_dask, state.values())):
        from solvers.methods.rowfactor import value_grad
        return value_grad(obj, state)
    f, g = obj.value_grad(obj.pack(state))
    return f, obj.unpack(g)


def _solve(objs: list, makers: list[Maker], blocks: list[tuple[str, ...]], state: dict, sweeps: int,
           opts: Options, joint: Objective) -> tuple[Status, str, list[Iteration]]:
    """(status, message, history): sweeps until they stop, the joint point examined
    there, and sweeps again after each step away from a joint saddle."""
    clock = Clock()
    history: list[Iteration] = []
    if opts.verbose:
        print(HEADER)
    if any(map(is_dask, state.values())):                 # see `alternate`: not examined
        status = _sweeps(objs, makers, blocks, state, sweeps, opts, clock, history)
        return status, status_message(Family.ALTERNATE, status), history
    start = joint.pack(state)
    for escapes in range(MAX_ESCAPES + 1):
        status = _sweeps(objs, makers, blocks, state, sweeps - _count(history, len(blocks)), opts, clock, history)
        z = joint.pack(state)
        f, g = joint.value_grad(z)
        verdict = certify.examine(joint, z, f, g, None, opts, start, (z - start,), status)
        if verdict.point is None or escapes == MAX_ESCAPES or _count(history, len(blocks)) >= sweeps:
            if verdict.status == status:
                return status, status_message(Family.ALTERNATE, status), history
            return verdict.status, verdict.message, history
        it = Iteration(len(history), opts.sign * f, max_abs(joint, g), block="escape", step=verdict.t,
                       trials=verdict.trials, fallbacks=[verdict.note])
        history.append(it)
        close(it, clock, opts)
        state.update(joint.unpack(verdict.point))
    raise AssertionError("unreachable: the last examination returns")


def _sweeps(objs: list, makers: list[Maker], blocks: list[tuple[str, ...]], state: dict, sweeps: int,
            opts: Options, clock: Clock, history: list[Iteration]) -> Status:
    kept = None
    for _ in range(sweeps):
        done = True
        for b, (obj, make, block) in enumerate(zip(objs, makers, blocks)):
            probe = _Probe(obj, objs[(b + 1) % len(objs)], state) if len(objs) > 1 else obj
            status, it = _step(probe, make(opts), state, opts, clock, len(history), kept)
            kept = probe.kept if isinstance(probe, _Probe) and _first_accepted(it) else None
            it.block = ",".join(block)
            history.append(it)
            close(it, clock, opts)
            if status == Status.LINE_SEARCH_FAILED:
                return Status.LINE_SEARCH_FAILED
            done = done and status == Status.CONVERGED
        if done:
            return Status.CONVERGED
    return Status.ITERATION_LIMIT


def _step(obj, method: Method, state: dict, opts: Options, clock: Clock, k: int, kept=None):
    """One step of the Newton `method` on the block of `obj` from `state` (which it
    updates); `kept` is this block's evaluation at `state` when the previous block's
    search already made it. Returns (0 converged block | 2 failed search | None, record)."""
    z = _sync(obj, state)
    with clock("eval"):
        f, g, H = kept if kept is not None else obj.value_grad_hess(z)
    it = Iteration(k, opts.sign * f, max_abs(obj, g))
    status, _, point = iterate(obj, method, z, Evaluation(f, g, H), it, opts, clock, -1)
    if status is None:
        state.update(obj.unpack(point))
    return status, it


def _sync(obj, state: dict):
    """Bring the block's fixed arrays up to `state`; the block's own variables packed."""
    for name in obj.fixed:
        if name in state:
            obj.set_fixed(name, state[name])
    return obj.pack({n: state[n] for n in obj.names})


class _Probe:
    """The block's objective for the line search, except that the first trial point is
    evaluated by the next block's full evaluation (f, g, H there), kept for the next step
    when the first trial is accepted: the value at the new point is computed once, not
    twice. Values agree: both objectives are the same function of the whole state."""

    def __init__(self, obj: Objective, nxt: Objective, state: dict):
        self.obj, self.nxt, self.state = obj, nxt, state
        self.kept: tuple[float, Array, Any] | None = None
        self._first = True

    def __getattr__(self, name):
        return getattr(self.obj, name)

    def value(self, z: Array) -> float:
        first, self._first = self._first, False
        if not first or not self.obj.inside(z):
            return self.obj.value(z)
        kept = self.nxt.value_grad_hess(_sync(self.nxt, {**self.state, **self.obj.unpack(z)}))
        self.kept = kept
        return kept[0]


def _first_accepted(it: Iteration) -> bool:
    return len(it.trials) == 1 and it.step == it.trials[0][0] and not it.fallbacks


def _warning(convexity: dict) -> str | None:
    open_ = [b for b, v in convexity.items() if v != "convex"]
    if not open_:
        return None
    return (f"the objective is not proven convex in block(s) {', '.join(open_)}; the point found "
            f"may be a local optimum or a stationary point that is not optimal")


def _count(history, per_sweep: int) -> int:
    """Sweeps begun: block steps over blocks per sweep (steps away from a saddle not counted)."""
    steps = sum(1 for it in history if it.block != "escape")
    return math.ceil(steps / per_sweep) if per_sweep else 0
