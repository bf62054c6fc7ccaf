"""Backtracking line search with the Armijo condition, respecting the domain.

A trial point where the objective is inf or nan (outside the domain of log, a declared
bound crossed, an overflow) is a failed trial like one that does not decrease enough.
The sufficient-decrease test allows a rounding slack of a few ulps of |f|, so that a
step at the optimum, whose decrease is below machine precision, is not a failure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

EPS = 2.220446049250313e-16


@dataclass
class Search:
    """The outcome: the accepted step (None when every trial failed) and all trials as
    (step, f) pairs, f = inf marking a point outside the domain."""

    step: float | None
    f: float
    trials: list[tuple[float, float]] = field(default_factory=list)


def backtrack(phi, f0: float, slope: float, step: float = 1.0, c1: float = 1e-4,
              shrink: float = 0.5, max_trials: int = 40) -> Search:
    """Largest step * shrink**k (k < max_trials) with phi(t) <= f0 + c1 t slope + slack.

    `phi(t)` is the objective at x + t d; `slope` = g.d < 0 the directional derivative,
    or a function of t evaluated after phi(t) (a projected path: g.(P(x + t d) - x) / t)."""
    slack = 8 * EPS * abs(f0)
    search = Search(None, f0)
    for _ in range(max_trials):
        f = phi(step)
        f = f if math.isfinite(f) else math.inf
        search.trials.append((step, f))
        if f <= f0 + c1 * step * (slope(step) if callable(slope) else slope) + slack:
            search.step, search.f = step, f
            return search
        step *= shrink
    return search
