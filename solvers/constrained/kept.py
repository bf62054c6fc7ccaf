"""What a re-solve of the same task reuses: the `View`, the `Constraints` (their affine rows
read once) and, for a QP, its algebra (`qpsystem.Method`: its matrices, sparse pattern and
the factor's ordering, kept once a solve finished on the QP path), found again for a task
of the same structure whose data are the same.

A CVXPY problem solved twice (`minimize(problem)` again, as `Problem.solve()` is called
twice) reaches the solver as a new `Task` over the same hash-consed expressions, its
constants the same read-only arrays (`convexcheck.bridge` keeps them per problem) and its
parameters re-read. The key is the task's structure (objective, constraints, cones, free
variables, sign); an entry is used only where every data array is the same: a constant
the bridge kept read-only (`convexcheck.bridge.translate.frozen`) that is the very object
kept, any other array equal to the copy taken when it was kept (a caller's own read-only
array too: its owner may make it writable again). So a changed parameter value, a new
data dict or an array written in place since is a miss, and the QP is read again; x0,
options and tolerances are never part of a kept QP. At most KEEP entries (least recently
used dropped): an entry holds the QP's matrices. A `Store` of the same kind keeps
`domain_start`'s points inside the domain, by the start x0 they moved (phase one is a
solve of its own: 1 ms of a 5 ms re-solve).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, Hashable, TypeVar

import numpy as np

from convexcheck.bridge.translate import frozen
from solvers.constrained.qpsystem import Method
from solvers.numerics.space import View
from solvers.objective.constraints import Constraints
from solvers.task.records import Task

KEEP = 8               # a solve keeps two: the reduced task's and the original's (its violation)

V = TypeVar("V")
Data = tuple[tuple[str, np.ndarray, "np.ndarray | None"], ...]     # (name, array, copy or None)


class Store(Generic[V]):
    """At most `size` values (least recently used dropped), each by a task's structure and
    an `extra` key, given back only while the task's data are the ones it was kept with:
    a bridge's frozen constant by identity, any other array by value (a copy)."""

    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict[Hashable, tuple[V, Data]] = OrderedDict()

    def find(self, task: Task, extra: Hashable = ()) -> V | None:
        """The value kept for this structure, `extra` and these data, or None."""
        key = (_structure(task), extra)
        found = self._entries.get(key)
        if found is None or not all(_same(task.fixed[name], a, c) for name, a, c in found[1]):
            return None
        self._entries.move_to_end(key)
        data = tuple((name, task.fixed[name], None) if c is not None and frozen(task.fixed[name]) else (name, a, c)
                     for name, a, c in found[1])      # equal to a bridge's constant: known by identity from now
        self._entries[key] = (found[0], data)
        return found[0]

    def keep(self, task: Task, value: V, extra: Hashable = ()) -> V:
        """Keep `value` for `task` (NumPy data only) and `extra`; the value."""
        data = tuple((name, a, None if frozen(a) else a.copy()) for name, a in sorted(task.fixed.items()))
        key = (_structure(task), extra)
        self._entries[key] = (value, data)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class Kept:
    """One QP's reusable parts."""

    view: View
    cons: Constraints
    method: Method | None = None          # set once the QP path finished a solve


PARTS: Store[Kept] = Store(KEEP)
STARTS: Store[dict] = Store(KEEP)      # `domain_start`'s points, by the start they moved


def _structure(task: Task) -> Hashable:
    return (task.expr, task.constraints, task.cones, task.free, task.sign, tuple(sorted(task.fixed)))


def find(task: Task) -> Kept | None:
    """The parts kept for a task of this structure and these data, or None."""
    return PARTS.find(task)


def keep(task: Task, view: View, cons: Constraints) -> Kept:
    """Keep the View and Constraints built for `task` (NumPy arrays only); the new entry."""
    return PARTS.keep(task, Kept(view, cons))


def _same(now: np.ndarray, kept: np.ndarray, copy: np.ndarray | None) -> bool:
    if copy is None:
        return now is kept and frozen(now)
    return now.shape == copy.shape and now.dtype == copy.dtype and bool(np.array_equal(now, copy))


def clear() -> None:
    """Forget every kept QP and start."""
    PARTS.clear()
    STARTS.clear()
