"""The analysis' work budget: a wall-clock limit, checked cooperatively at step boundaries.

`Budget` is the option (frozen: the seconds allowed and the clock that measures them);
`Budget.start()` gives the `Deadline` of one analysis, the run state that the steps
consult: per node of the composition walk, per stage of the Hessian certificate, per
sampled point. The first step that finds the time passed raises `BudgetSpent` naming
itself; so does every later check, naming the same step, so the remaining stages are
skipped. Only complete work decides a side: a certificate cut short proves nothing (the
exception leaves it unfinished and uncached), and sampling cut short keeps only the
witnesses it verified, which are disproofs on their own.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import tensorcalc as tc

DEFAULT_SECONDS = 60.0


class BudgetSpent(Exception):
    """The budget ran out at a step boundary; `stage` says where (a step, not a verdict).
    Not a TensorCalcError: it never escapes `analyze`, which turns it into 'unknown' sides."""

    def __init__(self, stage: str):
        super().__init__(f"budget spent on {stage}")
        self.stage = stage


@dataclass(frozen=True)
class Budget:
    """At most `seconds` of wall clock (`clock`, monotonic) for one analysis; math.inf for
    no limit, 0 to skip everything after parsing. Tests inject a clock that counts steps."""

    seconds: float = DEFAULT_SECONDS
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self):
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float)) or \
                math.isnan(self.seconds) or self.seconds < 0:
            raise tc.TensorCalcError(f"budget: the seconds allowed must be a number >= 0 (math.inf for "
                                     f"no limit), got {self.seconds!r}")

    @property
    def limited(self) -> bool:
        return not math.isinf(self.seconds)

    def start(self) -> "Deadline":
        return Deadline(self)


class Deadline:
    """One analysis' clock against its budget. `where` is the part being analysed (set by
    the analysis, read into the stage's name); `spent` is the first stage that found the
    time passed, or None."""

    def __init__(self, budget: Budget):
        self.budget = budget
        self.end = budget.clock() + budget.seconds
        self.where = ""
        self.spent: str | None = None

    def over(self) -> bool:
        """Whether the budget is spent (now, or at an earlier check)."""
        return self.spent is not None or self.budget.clock() >= self.end

    def check(self, stage: str | Callable[[], str]) -> None:
        """Raise BudgetSpent if the budget is spent; `stage` (text, or a function giving
        it, formed only then) names the step about to start."""
        if self.stop(stage):
            raise BudgetSpent(self.spent or "")          # `stop` has named the step

    def stop(self, stage: str | Callable[[], str]) -> bool:
        """As `check`, but answering whether to stop instead of raising: for a loop that
        keeps what it has found (sampling's verified witnesses)."""
        if not self.over():
            return False
        if self.spent is None:
            text = stage() if callable(stage) else stage
            self.spent = f"{self.where}: {text}" if self.where else text
        return True


UNLIMITED = Budget(math.inf)
NEVER = UNLIMITED.start()      # the deadline of steps called outside `analyze`: never passes
