"""Squares of wide affine maps, lifted: U -> a new variable r with the equality r == U.

A least-squares term sum((F x) .^ 2) whose F has few rows (m) and many columns (n free
entries read) puts F'F, a dense n x n matrix of rank m, into the Hessian: every Newton
matrix is then dense and an iteration costs n^3 / 3 (a box QP with n = 2,000 and m = 20:
1.8 s for 13 iterations). With r = F x a new variable and r - F x == 0 a constraint, the
objective's Hessian is what the rest of it gives (diagonal for a separable rest) and the
m equality rows carry F: the interior-point method's systems are then sparse or m x m
(`solvers.constrained.qpsystem`), an iteration costs about m n.

The rewrite is exact wherever U sits (no sign or convexity condition: the feasible set
of (x, r) is the graph of U and the objective is unchanged on it), so every base U of a
square (`U .^ 2`, or U' * U) that is affine in the free variables, reads at least WIDE
free entries and has at most 1 / RATIO as many entries as it reads, is replaced, each
distinct U once. Only the objective is rewritten; constraints keep their form.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from convexcheck.problem.model import Attributes
from solvers.reformulate.restore import Undo, at_start, original
from solvers.task.prepare import Free, Task, variables
from solvers.task.records import Constraint
from tensorcalc import Expr, dag
from tensorcalc.algebra.degree import degree
from tensorcalc.dag import Const, Power, Product

WIDE = 256          # U reads at least this many free entries
RATIO = 4           # and has at most this share of as many entries


@dataclasses.dataclass(frozen=True)
class Squared:
    """The task with wide maps lifted and the names of the variables added."""

    task: Task
    added: tuple[str, ...] = ()


def lift(task: Task) -> Squared:
    """The task with every wide base of a square in its objective replaced (see the module
    docstring); the task itself where there is none."""
    names = frozenset(v.name for v in task.free)
    shapes = {**{n: np.shape(a) for n, a in task.fixed.items()}, **{v.name: v.shape for v in task.free}}
    bases = [u for u in _bases(task.expr) if _wide(u, names, shapes)]
    if not bases:
        return Squared(task)
    taken = set(names) | set(task.fixed) | set(task.problem.declarations)
    swap: dict[Expr, Expr] = {}
    free, x0, rows, added = list(task.free), dict(task.x0), list(task.constraints), []
    for u, value in zip(bases, at_start(tuple(bases), task, x0)):
        r = dag.var(_fresh(taken), u.axes)
        swap[u] = r
        added.append(r.name)
        free.append(Free(r.name, _shape(u, shapes) or (), Attributes()))    # _wide: a shape
        x0[r.name] = value                                # the definition holds at the start
        rows.append(Constraint(f"definition of {r.name}", f"{r.name} == (a wide affine map)", "==", dag.sub(r, u)))
    lifted = dataclasses.replace(task, expr=_substitute(task.expr, swap), free=tuple(free), x0=x0,
                                 constraints=tuple(rows))
    return Squared(lifted, tuple(added))


def _bases(expr: Expr) -> list[Expr]:
    """The distinct bases of squares in expr, in dependency order."""
    found: dict[Expr, None] = {}
    for node in dag.topo(expr):
        if isinstance(node, Power) and isinstance(node.args[1], Const) and node.args[1].value == 2.0:
            found[node.args[0]] = None
        elif isinstance(node, Product) and len(node.args) == 2 and node.args[0] is node.args[1]:
            found[node.args[0]] = None                     # U' * U
    return list(found)


def _wide(u: Expr, names: frozenset, shapes: dict[str, tuple[int, ...]]) -> bool:
    reads = sum(math.prod(shapes[n]) for n in variables(u) if n in names)
    shape = _shape(u, shapes)
    return (reads >= WIDE and shape is not None and RATIO * math.prod(shape) <= reads
            and degree(u, names) == 1)


def _shape(u: Expr, shapes: dict[str, tuple[int, ...]]) -> tuple[int, ...] | None:
    """u's shape from the variables its axes name (None where an axis names none)."""
    if any(a.var not in shapes for a in u.axes):
        return None
    return tuple(shapes[a.var][a.pos] for a in u.axes)


def _fresh(taken: set[str]) -> str:
    name, count = "r_wide", 1
    while name in taken:
        count += 1
        name = f"r_wide_{count}"
    taken.add(name)
    return name


def _substitute(expr: Expr, swap: dict[Expr, Expr]) -> Expr:
    """expr with each key of `swap` replaced by its value (one walk in dependency order)."""
    done: dict[Expr, Expr] = {}
    for node in dag.topo(expr):
        if node in swap:
            done[node] = swap[node]
        elif node.args and any(done[a] is not a for a in node.args):
            done[node] = dag.rebuild(node, tuple(done[a] for a in node.args))
        else:
            done[node] = node
    return done[expr]


@dataclasses.dataclass(frozen=True)
class WideSquares:
    """The reduction (`solvers.task.reductions.Reduction`) of `lift`, for the interior-point
    method on the CPU (`method` "newton" or "auto"); `invert` drops the added variables and
    the definitions' multipliers and reports the original objective at x."""

    xp: Any
    method: str
    gtol: float = 1e-8

    def apply(self, task: Task) -> tuple[Task, Undo]:
        if self.xp is not np or self.method not in ("newton", "auto"):
            return task, Undo(task, Squared(task))
        squared = lift(task)
        return squared.task, Undo(task, squared)

    def invert(self, result: Any, inverse: Undo) -> Any:
        task, squared = inverse.before, inverse.made
        if squared.task is task:
            return result
        own = {f"definition of {n}" for n in squared.added}
        return original(result, task, self.xp, squared.added, own.__contains__, False, self.gtol, ("", ""))


__all__ = ["lift", "Squared", "WideSquares"]
