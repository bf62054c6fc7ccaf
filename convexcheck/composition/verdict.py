"""The contracts of the composition walk: a node's `Verdict`, what the patterns read of
the walk (`WalkView`, which `walk.Walk` satisfies), and the whole classifier the walk
calls back for parts classified on their own (`Classifier`, `classify.classify`).
Declared here, below the patterns and the walk, so that neither imports the other's
module for a type."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from convexcheck.budget import NEVER, Deadline
from convexcheck.composition.atoms import Curvature
from convexcheck.hessian.certificate import Certificate
from convexcheck.problem.model import Attributes
from convexcheck.signs.intervals import Interval
from convexcheck.signs.signs import Signs
from tensorcalc.dag import Expr, Var


@dataclass(frozen=True)
class Verdict:
    """A node's entrywise curvature and why, in words."""

    curvature: Curvature
    why: str
    hessian: tuple[str, ...] = ()          # the Hessian certificates' rules used below this node


class Classifier(Protocol):
    """The whole classifier (`classify.classify`), which the walk calls back for a part it
    classifies on its own (the G of a perspective): passed in, since it builds on the walk."""

    def __call__(self, expr: Expr, variables: list[Var], attributes: dict[str, Attributes],
                 lengths: dict | None = None, deadline: Deadline = NEVER) -> Certificate: ...


class WalkView(Protocol):
    """What the patterns read of the walk: its verdicts so far (`child`), the intervals of
    the sign analysis with the implicit domain (`interval`, `signs`) and without it
    (`declared`), which nodes read the analysed variables (`reads`), and its settings."""

    names: frozenset
    attributes: dict
    lengths: dict
    deadline: Deadline
    reads: dict
    signs: Signs
    declared: Signs
    classify: Classifier | None

    def child(self, node: Expr) -> Verdict: ...

    def interval(self, node: Expr) -> Interval: ...
