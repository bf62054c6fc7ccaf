"""What a solve records: one `Iteration` per iterate, and the table `verbose` prints."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scipy.optimize import OptimizeResult

import math
import time
from dataclasses import asdict, dataclass, field


@dataclass
class Iteration:
    """The iterate k and the step taken from it.

    f: objective (of the problem, so maximised values for maximize); gmax: max|g|;
    decrement: Newton decrement lambda^2/2 = -g.d/2 (nan for first-order methods; at the
    last iterate of Newton, taken with the previous Hessian, which is not rebuilt there);
    step: the accepted step size (0 at the last iterate); trials: (step, f) of every
    line-search trial, f = inf outside the domain; damping: tau of H + tau I (0: none);
    fallbacks: what was done instead of the plain step, and why; cg: conjugate-gradient
    iterations (Newton-CG); block: the variables a block method moved in this step;
    kkt, violation (constrained solves, else nan): the largest residual of the KKT
    conditions (stationarity of the Lagrangian, feasibility, complementarity) and the
    largest violation of a constraint or bound; for bounds alone, gmax is
    max|x - P(x - g)|, the KKT residual; eval_s / solve_s: seconds in compiled
    evaluations and in the linear solve; time_s: seconds since the start."""

    k: int
    f: float
    gmax: float
    block: str = ""               # the variables moved (block methods)
    decrement: float = math.nan
    step: float = 0.0
    trials: list = field(default_factory=list)
    damping: float = 0.0
    fallbacks: list = field(default_factory=list)
    cg: int = 0
    kkt: float = math.nan
    violation: float = math.nan
    eval_s: float = 0.0
    solve_s: float = 0.0
    time_s: float = 0.0

    def to_dict(self) -> dict:
        """Plain JSON values: nan and inf (no decrement; a trial outside the domain) are None."""
        return {k: _plain(v) for k, v in asdict(self).items()}


def _plain(v):
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


HEADER = f"{'iter':>4}  {'f':>22}  {'max|g|':>9}  {'lambda^2/2':>10}  {'step':>8}  {'trials':>6}  {'damping':>8}  note"


def row(it: Iteration) -> str:
    dec = "" if math.isnan(it.decrement) else f"{it.decrement:.3e}"
    note = "; ".join(([f"block {it.block}"] if it.block else []) + it.fallbacks)
    return (f"{it.k:>4}  {it.f:>22.15g}  {it.gmax:>9.2e}  {dec:>10}  {it.step:>8.2g}  "
            f"{len(it.trials):>6}  {it.damping:>8.2g}  {note}")


def optimize_result(**fields: Any) -> OptimizeResult:
    """A SciPy `OptimizeResult` (`solvers.result.Result`: printable with empty dicts;
    scipy.optimize is imported on first use, not when the package is: `convexcheck
    analyze` never pays for it)."""
    from solvers.result import Result
    return Result(**fields)


class Clock:
    """Accumulates seconds by kind: `with clock("eval"): ...`."""

    def __init__(self):
        self.start = time.perf_counter()
        self.spent = {"eval": 0.0, "solve": 0.0}
        self._kind = None

    def __call__(self, kind: str) -> "Clock":
        self._kind = kind
        return self

    def __enter__(self):
        self._t = time.perf_counter()

    def __exit__(self, *exc):
        self.spent[self._kind] += time.perf_counter() - self._t

    def take(self) -> tuple[float, float]:
        """Seconds (eval, solve) since the last take."""
        spent = self.spent["eval"], self.spent["solve"]
        self.spent = {"eval": 0.0, "solve": 0.0}
        return spent

    def elapsed(self) -> float:
        return time.perf_counter() - self.start
