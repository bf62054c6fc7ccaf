"""The end of a constrained solve, as every method reports it: the point in the
Objective's coordinates, the objective's value and gradient there, the largest violation
of a constraint, bound or cone, and the multipliers by label (see `dispatch`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from solvers.methods.history import Iteration
from solvers.methods.loop import Outcome
from solvers.numerics.space import View
from solvers.objective.constraints import Constraints, bound_violation
from solvers.result import Status
from solvers.task.device import to_host
from tensorcalc.arrays import Array


@dataclass
class Solved(Outcome):
    """The end of a solve in the Objective's coordinates (`loop.Outcome`: z with every
    entry, f and the objective's gradient g there, minimised sign), and the constrained
    extras."""

    violation: float
    multipliers: dict[str, Any]


def bound_duals(view: View, y: Array, g: Array) -> dict[str, Any]:
    """Multipliers of the closed bounds at a solution of the projected methods: the
    gradient where a coordinate sits on its bound and g pushes outwards."""
    if view.box is None:
        return {}
    xp, box = view.xp, view.box
    at_lower, at_upper = y <= box.lower, y >= box.upper
    zl = xp.where(at_lower, xp.maximum(g, 0.0), 0.0)
    zu = xp.where(at_upper, xp.maximum(-g, 0.0), 0.0)
    return bound_multipliers(view, zl, zu, xp.isfinite(box.lower), xp.isfinite(box.upper))


def bound_multipliers(view: View, zl: Array, zu: Array, hasL: Array, hasU: Array) -> dict[str, Any]:
    """Bound multipliers as arrays of each variable's shape, for the variables with bounds."""
    out: dict[str, Any] = {}
    for side, z, has in (("lower", zl, hasL), ("upper", zu, hasU)):
        full_has = view.unpack(view.xp.asarray(has, dtype=bool))
        for name, values in view.unpack(z).items():
            if bool(full_has[name].any()):
                out[f"{side} bound of {name}"] = to_host(values)
    return out


def finish(view: View, cons: Constraints, y: Array, status: Status, message: str, history: list[Iteration],
           multipliers: dict[str, Any]) -> Solved:
    """`Solved` at y: the objective's value and full gradient, and the violation."""
    z = view.space.lift(y)
    f, g = view.obj.value_grad(z)
    violation = max(cons.violation(cons.values(y)), cons.cones.violation(y), bound_violation(view, y))
    return Solved(z, f, g, status, message, history, violation if math.isfinite(violation) else math.inf,
                  multipliers)


