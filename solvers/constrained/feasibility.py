"""Infeasible constraints told apart from a solve that stopped early: phase one.

When a constrained solve of a problem proven convex stops without converging at a point
that violates its constraints, `solvers.api` solves the task `phase_one` builds, which
minimises the largest violation (Boyd and Vandenberghe 11.4.1, the phase I method):

    minimise t  subject to  c_k(x) <= t  (every entry of every `<=` constraint),
                            -t <= e_j(x) <= t  (every `==` constraint),  t >= -1,

over the same variables with their bounds and cones, from the point the solve stopped at
(with t above every violation there, so the start is strictly feasible). Every constraint
convex, this is a convex problem whose optimum t* is the least largest violation any point
can have: t* > INFEASIBLE proves that no point satisfies every constraint, and the
phase's multipliers (nonzero on the constraints that conflict) name them. The result then
has status INFEASIBLE at the point of least violation. Where t* is small, the constraints can be
met and the message says so; the original result stands.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

import tensorcalc as tc
from convexcheck.problem.model import Attributes
from solvers.task.records import Constraint, Free, Task
from tensorcalc import dag
from tensorcalc.arrays import Array

INFEASIBLE = 1e-6        # t* above this: no point satisfies every constraint
LABEL = "phase one"


def phase_one(task: Task, x: dict[str, Array]) -> tuple[Task, dict[str, str]] | None:
    """The phase-one task from x (see the module docstring) and how its rows map to the
    task's constraint labels; None where a row has no finite value at x."""
    t = dag.var(_fresh("t_violation", task), ())
    rows: list[Constraint] = []
    owner: dict[str, str] = {}
    for c in task.constraints:
        signs = (1.0,) if c.kind == "<=" else (1.0, -1.0)
        for s in signs:
            label = f"{LABEL} {len(rows) + 1}"
            expr = c.expr if s > 0 else dag.neg(c.expr)
            spread = dag.scale(t, dag.const(1.0, expr.axes)) if expr.order else t
            rows.append(Constraint(label, f"{c.text} (violation <= t)", "<=", dag.sub(expr, spread), c.line))
            owner[label] = c.label
    start = _largest(task, x)
    if not math.isfinite(start):
        return None
    free = task.free + (Free(t.name, (), Attributes(lower=-1.0)),)
    x0 = {**x, t.name: np.asarray(max(start, 0.0) + 1.0)}
    return dataclasses.replace(task, expr=t, sign=1.0, free=free, x0=x0, constraints=tuple(rows)), owner


def conflicting(multipliers: dict[str, Any], owner: dict[str, str], names: set[str]) -> list[str]:
    """The task's constraint labels (and bounds) with a nonzero phase-one multiplier."""
    found = []
    for label, y in multipliers.items():
        if not np.any(np.abs(np.asarray(y, dtype=float)) > 1e-6):
            continue
        name = owner.get(label, label)
        if label in owner or any(label.endswith(f"bound of {n}") or label == f"cone of {n}" for n in names):
            found.append(name)
    return list(dict.fromkeys(found))


def message(least: float, conflict: list[str]) -> str:
    """The message of INFEASIBLE shown by phase one: its least largest violation, and the
    constraints whose multipliers name the conflict."""
    together = " together" if len(conflict) > 1 else ""      # one constraint's own rows conflict
    which = f": {_listed(conflict)} cannot hold{together}" if conflict else ""
    return (f"infeasible{which}; the least largest violation of a point within the bounds and cones is "
            f"{least:.3g} (found by minimising it, a convex problem), and x is such a point")


def certified(conflict: list[str]) -> str:
    """The message of INFEASIBLE proven by a Farkas certificate (`farkas`)."""
    together = " together" if len(conflict) > 1 else ""
    return (f"infeasible: {_listed(conflict)} cannot hold{together} (proven by a Farkas certificate: "
            f"nonnegative weights under which the rows, each divided by a power of 2 near its largest "
            f"coefficient, sum to 0 <= a negative number, checked to rounding); x is where the solve "
            f"stopped, not a point of least violation")


def feasible_note(least: float) -> str:
    """What a stop's message adds where phase one found the constraints can be met."""
    how = "with room to spare" if least < 0 else f"to within {least:.2g}"
    return (f"; the constraints can be met ({how}: phase one minimised the largest violation), so the "
            f"solve itself stopped early")


def _largest(task: Task, x: dict[str, Array]) -> float:
    """The largest violation of the task's constraints at x (negative where all hold
    with room): max c_k(x) and max |e_j(x)|."""
    values, worst = {**task.fixed, **x}, -math.inf
    for c in task.constraints:
        got = np.asarray(tc.evaluate(c.expr, {n: values[n] for n in tc.variables(c.expr)}), dtype=float)
        worst = max(worst, float(np.max(got if c.kind == "<=" else np.abs(got))))
    return worst


def _fresh(name: str, task: Task) -> str:
    taken = set(task.problem.declarations) | {v.name for v in task.free} | set(task.fixed)
    while name in taken:
        name += "_"
    return name


def _listed(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
