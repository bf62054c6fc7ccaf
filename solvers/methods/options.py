"""How a solve runs (`Options`, fixed before it starts) and what one run of the loop keeps
as it goes (`Progress`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Options:
    """How a solve runs, fixed before it starts (`solvers.api` builds it once; a phase or an
    inner solve runs on a `dataclasses.replace` copy). What changes during a run lives in
    `Progress`."""

    gtol: float = 1e-8
    tol: float = 1e-12
    max_iter: int = 100
    c1: float = 1e-4
    max_trials: int = 40
    verbose: bool = False
    callback: Callable[..., object] | None = None
    sign: float = 1.0             # +1 minimise, -1 maximise: the f shown is sign * the f minimised
    second_order: bool = True     # check the point found is a minimum (see `certify`)
    convex: bool = False          # proven convex: every stationary point is a minimum
    feasibility: float = 1.0      # the augmented Lagrangian holds violations to this share of gtol / 100


@dataclass
class Progress:
    """The state of one `run` that its tests read (`_more_to_gain`): f at the start of the
    run, and at the iterate before the current one. Unset (inf), no test asks for more."""

    f_start: float = math.inf
    f_last: float = math.inf
