"""The result of a task with added variables, told in the original one: what the epigraph
lift (`lift`), the second-order cones (`cones`) and the wide squares (`squares`) do in
their `invert`; and what they share when they add a variable: its arguments' values at
the start (`at_start`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

import numpy as np

import tensorcalc as tc
from solvers.constrained import dispatch as constrained
from solvers.objective.smooth import Objective
from solvers.task.device import to_host
from solvers.task.prepare import variables
from solvers.task.records import Task
from solvers.task.reductions import Result
from tensorcalc import Expr
from tensorcalc.memo import memoized


def original(result: Result, task: Task, xp: object, added: tuple[str, ...], own: Callable[[str], bool],
             check: bool, gtol: float, why: tuple[str, str], within: Task | None = None) -> Result:
    """`result` without the `added` variables and the multipliers whose labels are `own`;
    `fun` and `jac` those of the original objective at x (a jac entry that is 0/0, a norm's
    at 0, is 0: a subgradient); where `check`, the original constraints' violation, held
    to gtol / 100 as the solve's own rows are (a success becomes status 1 where it is not
    met; `why`: the reformulation's name and what its message adds; `within`: the task
    solved, where it holds the original constraints unchanged, `constrained.violation`)."""
    whole = dict(result.x)
    for name in added:
        result.x.pop(name)
    result.multipliers = {k: v for k, v in result.multipliers.items() if not own(k)}
    obj = Objective(task, xp)
    f, g = obj.value_grad(obj.pack(result.x))
    result.fun = f
    result.jac = {n: np.nan_to_num(to_host(a), nan=0.0) for n, a in obj.unpack(g).items()}
    if check:
        result.constr_violation = constrained.violation(task, obj, whole, within)
        if result.status == 0 and result.constr_violation > gtol / 100:
            result.status, result.success = 1, False
            result.message = (f"stopped: the {why[0]} problem converged, but the original constraints are "
                              f"violated by {result.constr_violation:.3g} > gtol / 100 {why[1]}")
    return result


Made = TypeVar("Made")


@dataclass(frozen=True)
class Undo(Generic[Made]):
    """What a reduction's `invert` needs: the task before it and what it made of it (the
    new task and the names it added)."""

    before: Task
    made: Made


def at_start(us: tuple[Expr, ...], task: Task, x0: dict) -> list[np.ndarray]:
    """Each u at the start, from one compiled function kept per tuple of arguments (a
    re-solve compiles and walks nothing: 30 norm sites one by one cost 7 ms a solve)."""
    if not us:
        return []
    program, names = _program(us)
    arrays = {n: np.asarray(x0[n] if n in x0 else task.fixed[n]) for n in names}
    return [np.asarray(v, dtype=float) for v in program(arrays)]


@memoized(maxsize=64)
def _program(us: tuple[Expr, ...]) -> tuple[Any, tuple[str, ...]]:
    return tc.compile(list(us)), tuple({n for u in us for n in variables(u)})
