"""The closure of the start's domain component as rows, a reduction: `Closure`.

A convex objective can be finite on the boundary of its implicit domain and have its
infimum there: rel_entr's p log(p / q) where entries of p and q go to 0 (CVXPY's optimum
of two distributions with fixed means has ten of twelve entries at 1e-8). The domain
is no barrier: a method that only refuses steps out of it (`domain.Component`) jams
there, with steps of 1e-7. Where the task has constraints (an interior-point or
augmented Lagrangian solve in any case), each affine argument that must keep its side of
0 (`domain_start.closure_rows`) becomes the row sign * u >= 0, which the interior-point
method approaches through its barrier. The rows hold strictly exactly on the start's
component, which the solve keeps in any case; convexcheck need not prove the problem
convex (rel_entr's is "unknown": p / q > 0 is wider than p, q > 0). `invert` drops the
rows' multipliers.
"""
from __future__ import annotations

from dataclasses import dataclass

from solvers.constrained.domain_start import closure_rows
from solvers.task.records import Task
from solvers.task.reductions import Result


@dataclass(frozen=True)
class Closure:
    """The reduction of the module docstring; conditions on the arguments in `ignored`
    (a 2-norm's sum of squares that the cones take away) get no row."""

    ignored: frozenset = frozenset()

    def apply(self, task: Task) -> tuple[Task, tuple[str, ...]]:
        """(the task with its closure rows, their labels); without constraints, the task."""
        if not task.constraints:
            return task, ()
        closed = closure_rows(task, self.ignored)
        return closed, tuple(c.label for c in closed.constraints[len(task.constraints):])

    def invert(self, result: Result, inverse: tuple[str, ...]) -> Result:
        """`result` without the rows' multipliers."""
        if inverse:
            result.multipliers = {k: v for k, v in result.multipliers.items() if k not in inverse}
        return result


CLOSURE = Closure()
