"""The epigraph lift as a reduction (`solvers.task.reductions.Reduction`): `apply` lifts
the kinks of the objective and of its `<=` constraints into epigraph variables
(`epigraph.lift`, on the CPU only); `invert` reports the result in the original
variables: the epigraph variables and constraints dropped, `fun` and `jac` those of the
original objective at x (jac: its gradient, with sign(0) = 0 at a kink, one
subgradient), the original constraints' violation checked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solvers.reformulate import epigraph
from solvers.reformulate.restore import original
from solvers.task.records import Task
from solvers.task.reductions import Result


@dataclass(frozen=True)
class Lifting:
    """What `Lift.invert` needs: the task before the lift and what the lift added."""

    before: Task
    lifted: epigraph.Lifted


@dataclass(frozen=True)
class Lift:
    """The epigraph lift on `xp` (NumPy: lifted; another module: left as it is); `gtol`
    is the solve's, which the original constraints are held to (violation <= gtol / 100).
    Huber terms are split only for `method` "newton" or "auto" (the interior point's QP
    path gains; the augmented Lagrangian with L-BFGS converges worse on the split)."""

    xp: Any
    gtol: float
    method: str = "newton"

    def apply(self, task: Task) -> tuple[Task, Lifting]:
        import numpy as np
        huber = self.method in ("newton", "auto")
        lifted = epigraph.lift(task, huber) if self.xp is np else epigraph.Lifted(task)
        return lifted.task, Lifting(task, lifted)

    def invert(self, result: Result, inverse: Lifting) -> Result:
        task, lifted = inverse.before, inverse.lifted
        if not lifted.added:
            return result
        own = set(lifted.labels) | {f"{side} bound of {n}" for n in lifted.added for side in ("lower", "upper")}
        result.lifted = list(lifted.added)
        return original(result, task, self.xp, lifted.added, own.__contains__, bool(task.constrained), self.gtol,
                        ("lifted", "(the lifted rows' violations add up); a smaller gtol, or "
                                   "method='newton', keeps them"), within=lifted.task)
