"""Evaluations made at a line-search trial point, kept for the iterate it becomes.

The first trial of a search is evaluated with everything the next iteration needs (kind
"full": f, g and H for Newton; "grad": f and g), so that when it is accepted, as a full
Newton or quasi-Newton step usually is, the new iterate is evaluated once, not twice.
When a kept evaluation goes unused (its trial was rejected), the next search evaluates
its first trial by value only, so a run of rejections wastes at most one evaluation.
"""
from __future__ import annotations

import math
from typing import Any

from solvers.methods.loop import Evaluation, Method
from solvers.protocol import Array, Smooth


class Prefetch:
    """One kept evaluation: `trial` makes it, `take` hands it over at the same point."""

    def __init__(self):
        self.point = self.result = None
        self.skip = False

    def trial(self, obj: Smooth, z: Array, kind: str) -> float:
        """f at z (inf outside the domain), evaluated as `kind` and kept."""
        if kind == "value" or self.skip or not obj.inside(z):
            self.skip = False
            return obj.value(z)
        self.point = z
        self.result = obj.value_grad_hess(z) if kind == "full" else (*obj.value_grad(z), None)
        return self.result[0] if math.isfinite(self.result[0]) else math.inf

    def take(self, z: Array) -> tuple[float, Array, Any] | None:
        """(f, g, H or None) kept at exactly this array z, else None."""
        point, result = self.point, self.result
        self.point = self.result = None
        if point is None:
            return None
        if point is z:
            return result
        self.skip = True                 # the kept evaluation was wasted
        return None


class GradientMethod(Method):
    """Base of methods whose iterates need f and g only: the first trial of each search is
    evaluated with its gradient, kept for the next iterate."""

    def trial(self, obj: Smooth, z: Array) -> float:
        return self._kept().trial(obj, z, "grad")

    def evaluate(self, obj: Smooth, z: Array, last: bool = False) -> Evaluation:
        kept = self._kept().take(z)
        if kept is not None:
            return Evaluation(kept[0], kept[1])
        f, g = obj.value_grad(z)
        return Evaluation(f, g)

    def _kept(self) -> Prefetch:
        if "_prefetch" not in self.__dict__:
            self._prefetch = Prefetch()
        return self._prefetch
