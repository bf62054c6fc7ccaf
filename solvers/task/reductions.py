"""The task transformations as reductions, as CVXPY's `Reduction`: `apply` turns a task
into the one a solver meets and returns what `invert` needs to speak of the original
again; `invert` maps a result of the reduced task back. A `Chain` applies its reductions
once, in order, and inverts them once, in reverse order, at the result.

The reductions: `Maximize` (a maximised objective minimised as its negative) here, and
`solvers.reformulate.lift.Lift` (kinks lifted into epigraph variables). Fixed variables
are bound to their data when the task is read (`solvers.task.prepare.read`): no field of
a result refers to them, so there is nothing to invert.

    >>> from solvers.task.prepare import read
    >>> task, undo = Chain((MAXIMIZE,)).apply(read("variable x\\nmaximize -x^2 + 2*x"))
    >>> task.sign, undo
    (-1.0, (-1.0,))
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol

from solvers.task.records import Task
from tensorcalc import dag

Result = Any          # a `solvers.result.Result` (SciPy's OptimizeResult): fields by name


class Reduction(Protocol):
    """One transformation of the task, with its inverse on the result."""

    def apply(self, task: Task) -> tuple[Task, Any]:
        """(the reduced task, what `invert` needs)."""
        ...

    def invert(self, result: Result, inverse: Any) -> Result:
        """`result` of the reduced task as a result of the task given to `apply`."""
        ...


@dataclass(frozen=True)
class Maximize:
    """A `maximize` objective minimised as its negative: `apply` negates the expression and
    sets the task's sign to -1 (what the solve shows while it runs, `Options.sign`, is the
    objective as written); `invert` gives `fun` and `jac` of the objective as written."""

    def apply(self, task: Task) -> tuple[Task, float]:
        if task.problem.sense != "maximize" or task.sign < 0:
            return task, task.sign
        return dataclasses.replace(task, expr=dag.neg(task.expr), sign=-1.0), -1.0

    def invert(self, result: Result, inverse: float) -> Result:
        result.fun = inverse * result.fun
        result.jac = {n: inverse * a for n, a in result.jac.items()}
        return result


MAXIMIZE = Maximize()


@dataclass(frozen=True)
class Chain:
    """Reductions applied in order and inverted in reverse order."""

    reductions: tuple[Reduction, ...]

    def apply(self, task: Task) -> tuple[Task, tuple[Any, ...]]:
        """(the task every reduction has reduced, their inverses in order)."""
        inverses = []
        for reduction in self.reductions:
            task, inverse = reduction.apply(task)
            inverses.append(inverse)
        return task, tuple(inverses)

    def invert(self, result: Result, inverses: tuple[Any, ...]) -> Result:
        """`result` of the reduced task as a result of the task given to `apply`."""
        for reduction, inverse in reversed(list(zip(self.reductions, inverses))):
            result = reduction.invert(result, inverse)
        return result
