"""Backtracking line search with the Armijo condition, respecting the domain.

A trial point where the objective is inf or nan (outside the domain of log, a declared
bound crossed, an overflow) is a failed trial like one that does not decrease enough.
The sufficient-decrease test allows a rounding slack of a few ulps of |f|, so that a
step at the optimum, whose decrease is below machine precision, is not a failure.

Near a minimum the decrease a step makes falls below the rounding of f itself, which
is not a few ulps of |f| where f sums terms that cancel (a small residual of large
products: its rounding is that of the products). There the value test decides by the
last bits, which differ between BLAS kernels, and a method either stalls on tiny steps
or walks on rounding. Where the step's predicted decrease and the change of f both lie
within NOISE |f| (the value cannot tell), a trial is judged by the derivative along
the path instead: Hager and Zhang's approximate Wolfe conditions (SIAM J. Optim. 16,
2005, section 4), sigma phi'(0) <= phi'(t) <= (2 delta - 1) phi'(0), which hold only
at a step that moves towards the minimum along the line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

EPS = 2.220446049250313e-16
NOISE = 1e-6         # Hager and Zhang's epsilon: below NOISE |f| the value test is not trusted
DELTA, SIGMA = 0.1, 0.9


@dataclass
class Search:
    """The outcome: the accepted step (None when every trial failed) and all trials as
    (step, f) pairs, f = inf marking a point outside the domain; `by_slope` when the
    step was accepted by the approximate Wolfe conditions."""

    step: float | None
    f: float
    trials: list[tuple[float, float]] = field(default_factory=list)
    by_slope: bool = False


def backtrack(phi: Callable[[float], float], f0: float, slope: float | Callable[[float], float],
              step: float = 1.0, c1: float = 1e-4, shrink: float = 0.5, max_trials: int = 40,
              dphi: Callable[[float], float] | None = None) -> Search:
    """Largest step * shrink**k (k < max_trials) with phi(t) <= f0 + c1 t slope + slack,
    or, where the value cannot tell (see the module), with the approximate Wolfe
    conditions on dphi(t).

    `phi(t)` is the objective at x + t d; `slope` = g.d < 0 the directional derivative,
    or a function of t evaluated after phi(t) (a projected path: g.(P(x + t d) - x) / t);
    `dphi(t)`, if given, the derivative of phi at t (called after phi(t)). A first step that
    is not positive (0 = 1 / inf, nan) fails at once, with no trial."""
    slack = 8 * EPS * abs(f0)
    band = NOISE * abs(f0)
    search = Search(None, f0)
    if not step > 0.0:                  # 1 / max|g| of a gradient that overflows: no step to try
        return search
    for _ in range(max_trials):
        f = phi(step)
        f = f if math.isfinite(f) else math.inf
        search.trials.append((step, f))
        s = slope(step) if callable(slope) else slope
        if f <= f0 + c1 * step * s + slack:
            search.step, search.f = step, f
            return search
        if dphi is not None and step * abs(s) <= band and f <= f0 + band and _wolfe(dphi(step), s):
            search.step, search.f, search.by_slope = step, f, True
            return search
        step *= shrink
    return search


def _wolfe(d: float, s: float) -> bool:
    """Hager and Zhang's approximate Wolfe conditions on phi'(t) = d, phi'(0) = s < 0."""
    return math.isfinite(d) and SIGMA * s <= d <= (2 * DELTA - 1) * s
