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
options and tolerances are never part of what is kept. At most KEEP entries (least recently used dropped): an
entry holds the QP's matrices.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Hashable

import numpy as np

from convexcheck.bridge.translate import frozen
from solvers.constrained.qpsystem import Method
from solvers.numerics.space import View
from solvers.objective.constraints import Constraints
from solvers.task.records import Task

KEEP = 8               # a solve keeps two: the reduced task's and the original's (its violation)


@dataclass
class Kept:
    """One QP's reusable parts, and the data they were read from: (name, array, copy),
    the copy None for a bridge's constant kept by identity."""

    view: View
    cons: Constraints
    data: tuple[tuple[str, np.ndarray, np.ndarray | None], ...]
    method: Method | None = None          # set once the QP path finished a solve


_ENTRIES: OrderedDict[Hashable, Kept] = OrderedDict()


def _structure(task: Task) -> Hashable:
    return (task.expr, task.constraints, task.cones, task.free, task.sign, tuple(sorted(task.fixed)))


def find(task: Task) -> Kept | None:
    """The parts kept for a task of this structure and these data, or None."""
    key = _structure(task)
    kept = _ENTRIES.get(key)
    if kept is None or not all(_same(task.fixed[name], a, c) for name, a, c in kept.data):
        return None
    _ENTRIES.move_to_end(key)
    kept.data = tuple((name, task.fixed[name], None) if c is not None and frozen(task.fixed[name]) else (name, a, c)
                      for name, a, c in kept.data)      # equal to a bridge's constant: known by identity from now
    return kept


def keep(task: Task, view: View, cons: Constraints) -> Kept:
    """Keep the View and Constraints built for `task` (NumPy arrays only); the new entry."""
    data = tuple((name, a, None if frozen(a) else a.copy()) for name, a in sorted(task.fixed.items()))
    key = _structure(task)
    _ENTRIES[key] = entry = Kept(view, cons, data)
    _ENTRIES.move_to_end(key)
    while len(_ENTRIES) > KEEP:
        _ENTRIES.popitem(last=False)
    return entry


def _same(now: np.ndarray, kept: np.ndarray, copy: np.ndarray | None) -> bool:
    if copy is None:
        return now is kept and frozen(now)
    return now.shape == copy.shape and now.dtype == copy.dtype and bool(np.array_equal(now, copy))


def clear() -> None:
    """Forget every kept QP."""
    _ENTRIES.clear()
