"""The records of a solve: the checked `Task`, its `Free` variables and `Constraint`s, and
`SolverError`, the one error a solver raises for bad input. Built by `solvers.task.prepare`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from convexcheck.problem.admissible import not_real
from convexcheck.problem.model import Attributes, Problem
from tensorcalc import Expr, TensorCalcError

MAX_DATA_ENTRIES = 200_000_000     # entries of one array (1.6 GB of float64)


class SolverError(TensorCalcError):
    """Bad input to a solver: names the problem part, array or option, and the fix."""


@dataclass(frozen=True)
class Free:
    """A variable the solver moves: its shape and the bounds its declaration gives."""

    name: str
    shape: tuple[int, ...]
    attributes: Attributes

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class Constraint:
    """One constraint of the problem as c(x) <= 0 ("<=") or c(x) == 0 ("=="): `g <= h` is
    g - h, `g >= h` is h - g, `g == h` is g - h. `label` is the part's ("constraint 2")."""

    label: str
    text: str
    kind: str                 # "<=" or "=="
    expr: Expr
    line: int = 0


@dataclass(frozen=True)
class SecondOrder:
    """Second-order cones ||u|| <= t, added by `solvers.reformulate.cones`: `u` and `t`
    affine in the free variables; u's axes taken in the order `perm` are t's axes (which
    index the cones) and then each cone's entries; `extra`, of t's shape, one more entry per
    cone after u's (a rotated cone's t - s). `label` names the constraint the cones stand
    for (its multiplier is their t part), None where they stand for no constraint."""

    label: str | None
    u: Expr
    t: Expr
    perm: tuple[int, ...]
    extra: Expr | None = None


@dataclass(frozen=True)
class Task:
    """A checked problem over `free` subject to `constraints`, the other names fixed. As
    read (`prepare.read`) `expr` is the objective as written; the task a solver gets is
    reduced (`reductions`): it minimises `expr`."""

    problem: Problem          # with fixed variables turned into parameters
    expr: Expr                # the objective (negated by `reductions.Maximize` for maximize)
    sign: float               # -1 once `reductions.Maximize` negated a maximised objective, else +1
    free: tuple[Free, ...]
    fixed: dict[str, np.ndarray]
    x0: dict[str, np.ndarray]
    constraints: tuple[Constraint, ...] = ()
    cones: tuple[SecondOrder, ...] = ()

    @property
    def constrained(self) -> bool:
        """Whether anything beyond the objective's own domain restricts the variables:
        constraints, second-order cones, a non-strict bound (`nonneg`, `>= c`), or a
        symmetric matrix variable."""
        return bool(self.constraints or self.cones) or any(
            v.attributes.is_symmetric or closed_bound(v.attributes) for v in self.free)


def closed_bound(a: Attributes) -> bool:
    """Whether the attributes declare a bound that the solution may lie on (`>= c`, `<= c`)."""
    return (a.lower is not None and not a.lower_strict) or (a.upper is not None and not a.upper_strict)


def check_real(dtype: np.dtype, where: str) -> None:
    """SolverError unless `dtype` holds real numbers (`convexcheck.problem.admissible.not_real`)."""
    problem = not_real(dtype, where)
    if problem:
        raise SolverError(problem)
