"""The convexity verdict on a task's problem (`convexcheck.analyze`, memoised in memory and
on disk) and the warning a result carries where it is not proven convex."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convexcheck.report import Report

from typing import NamedTuple

from convexcheck import analyze
from convexcheck.problem.model import Declaration, Declarations, Part, Problem
from solvers.task.records import Task
from tensorcalc import Expr
from tensorcalc.memo import memoized
from tensorcalc.store import cache


def convexity_of(task: Task) -> tuple[str, str | None]:
    """The verdict on the problem with the fixed variables as parameters, and the warning."""
    problem = task.problem
    verdict = _verdict(problem.objective.expr, problem.sense, tuple(problem.declarations.items()),
                       problem.constraints)
    if verdict == "convex":
        return verdict, None
    need = "concave" if problem.sense == "maximize" else "convex"
    what = (f"the objective is not proven {need}" if not problem.constraints else
            f"the problem (a {need} objective, convex constraint functions) is not proven convex")
    return verdict, (f"{what} in {', '.join(v.name for v in task.free)} "
                     f"(convexcheck: {verdict}); the point found may be a local optimum or a "
                     f"stationary point that is not optimal")


@memoized(maxsize=64)
def _verdict(expr: Expr, sense: str, declarations: tuple[tuple[str, Declaration], ...],
             constraints: tuple[Part, ...] = ()) -> str:
    need = {"minimize": "convex", "maximize": "concave"}[sense]
    problem = Problem(Declarations(declarations), sense, Part("objective", "", expr, need), constraints)
    return cache.cached("verdict", (expr, sense, declarations, constraints),
                        lambda: _Analysed.of(analyze(problem, samples=10, verdict_only=True)),
                        _verdict_data, _verdict_from)[0].verdict


class _Analysed(NamedTuple):
    """A verdict, and whether the analysis ran to the end (only such verdicts are kept on disk)."""

    verdict: str
    complete: bool

    @classmethod
    def of(cls, report: Report) -> "_Analysed":
        return cls(report.verdict, report.budget_spent is None)


def _verdict_data(analysed: _Analysed) -> dict | None:
    return {"verdict": analysed.verdict} if analysed.complete else None


def _verdict_from(data: dict) -> _Analysed:
    if data["verdict"] not in ("convex", "nonconvex", "unknown"):
        raise ValueError("not a verdict")
    return _Analysed(data["verdict"], True)
