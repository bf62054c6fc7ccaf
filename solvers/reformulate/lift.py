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

from solvers.constrained import dispatch as constrained
from solvers.objective.smooth import Objective
from solvers.reformulate import epigraph
from solvers.task.device import to_host
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
    is the solve's, which the original constraints are held to (violation <= gtol / 100)."""

    xp: Any
    gtol: float

    def apply(self, task: Task) -> tuple[Task, Lifting]:
        import numpy as np
        lifted = epigraph.lift(task) if self.xp is np else epigraph.Lifted(task)
        return lifted.task, Lifting(task, lifted)

    def invert(self, result: Result, inverse: Lifting) -> Result:
        task, lifted = inverse.before, inverse.lifted
        if not lifted.added:
            return result
        for name in lifted.added:
            result.x.pop(name)
        own = set(lifted.labels) | {f"{side} bound of {n}" for n in lifted.added for side in ("lower", "upper")}
        result.multipliers = {k: v for k, v in result.multipliers.items() if k not in own}
        obj = Objective(task, self.xp)
        f, g = obj.value_grad(obj.pack(result.x))
        result.fun = f
        result.jac = {n: to_host(a) for n, a in obj.unpack(g).items()}
        result.lifted = list(lifted.added)
        if task.constrained:              # the original constraints' violation, not the lifted rows'
            result.constr_violation = constrained.violation(task, obj, result.x)
            if result.status == 0 and result.constr_violation > self.gtol / 100:
                result.status, result.success = 1, False
                result.message = (f"stopped: the lifted problem converged, but the original constraints are "
                                  f"violated by {result.constr_violation:.3g} > gtol / 100 (the lifted rows' "
                                  f"violations add up); a smaller gtol, or method='newton', keeps them")
        return result
