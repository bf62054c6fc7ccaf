"""The constraints c_j(x) <= 0 and c_j(x) == 0 of a task, compiled like the objective.

Each constraint is an `Objective` of its own over the free variables it reads (tensorcalc
derivatives, compiled once per expression and cached), its gradient and Hessian
scattered into the coordinates y of the `View` (symmetric matrices by their upper
triangle). `values(y)` gives every c_j, `jacobian(y)` the rows grad c_j, and
`hessian(y, w)` / `hvp(y, v, w)` the weighted sum sum_j w_j H_j, skipping constraints of
zero weight and those whose symbolic Hessian is zero (affine constraints).
`violation(y)` is the largest violation: max(c_j, 0) for inequalities, |c_j| for
equalities, and the distance outside the closed bounds and the cones.
"""
from __future__ import annotations

import dataclasses
import math
from functools import lru_cache

import numpy as np

import tensorcalc as tc
from tensorcalc import Expr

from .data import Task
from .objective import Objective
from .space import View, dense
from .linalg import Blocks


class Part:
    """One constraint's compiled functions and where its variables sit in z."""

    def __init__(self, task: Task, constraint, view: View):
        self.constraint, self.view = constraint, view
        obj = view.obj
        present = tc.variables(constraint.expr)
        free = tuple(v for v in task.free if v.name in present)
        sub = dataclasses.replace(task, expr=constraint.expr, sign=1.0, free=free, constraints=(),
                                  fixed={n: a for n, a in task.fixed.items() if n in present})
        self.obj = Objective(sub, view.xp)
        self.index = np.concatenate([np.arange(a, b) for v, a, b in zip(obj.free, obj.offsets, obj.offsets[1:])
                                     if v.name in present])
        self.whole = self.index.size == obj.n
        self.index = view.xp.asarray(self.index)
        self.affine = _affine(constraint.expr, tuple(v.name for v in free))
        self._linear = None       # (gradient, value - gradient . y) of an affine constraint

    def _z(self, y):
        z = self.view.space.lift(y)
        return z if self.whole else z[self.index]

    def _scatter(self, g_part):
        if self.whole:
            return g_part
        g = self.view.xp.zeros(self.view.obj.n)
        g[self.index] = g_part
        return g

    def value(self, y) -> float:
        if self._linear is not None:
            return float(self._linear[0] @ y) + self._linear[1]
        return self.obj.value(self._z(y))

    def value_grad(self, y):
        """c and its gradient; an affine constraint's gradient is computed once."""
        if self._linear is not None:
            return self.value(y), self._linear[0]
        f, g = self.obj.value_grad(self._z(y))
        g = self.view.space.grad(self._scatter(g))
        if self.affine and math.isfinite(f):
            self._linear = (g, f - float(g @ y))
        return f, g

    def hessian(self, y):
        H = self.obj.value_grad_hess(self._z(y))[2]
        xp = self.view.xp
        if isinstance(H, Blocks):
            H = dense(xp, H)
        if not self.whole:
            full = xp.zeros((self.view.obj.n, self.view.obj.n))
            full[self.index[:, None], self.index[None, :]] = H
            H = full
        return self.view.space.hess(H)

    def hvp(self, y, v):
        part = self.view.space.lift(v)
        part = part if self.whole else part[self.index]
        return self.view.space.grad(self._scatter(self.obj.hvp(self._z(y), part)))


class Constraints:
    """Every constraint of `task` in the coordinates of `view`; see the module docstring."""

    def __init__(self, task: Task, view: View):
        self.view, self.xp = view, view.xp
        self.parts = [Part(task, c, view) for c in task.constraints]
        self.labels = [c.label for c in task.constraints]
        self.equality = view.xp.asarray(np.array([c.kind == "==" for c in task.constraints], dtype=bool))
        self.m = len(self.parts)

    def values(self, y):
        return self.xp.asarray([p.value(y) for p in self.parts], dtype=float)

    def values_jacobian(self, y):
        """(c, J): every value, and the gradients as the rows of J (m x n)."""
        if not self.parts:
            return self.xp.zeros(0), self.xp.zeros((0, self.view.n))
        pairs = [p.value_grad(y) for p in self.parts]
        return self.xp.asarray([f for f, _ in pairs], dtype=float), self.xp.stack([g for _, g in pairs])

    def hessian(self, y, weights):
        """sum_j w_j H_j (n x n), zero when every weighted constraint is affine."""
        H = self.xp.zeros((self.view.n, self.view.n))
        for p, w in zip(self.parts, _host(weights)):
            if w != 0.0 and not p.affine:
                H += w * p.hessian(y)
        return H

    def hvp(self, y, v, weights):
        out = self.xp.zeros(self.view.n)
        for p, w in zip(self.parts, _host(weights)):
            if w != 0.0 and not p.affine:
                out += w * p.hvp(y, v)
        return out

    def affine(self) -> bool:
        return all(p.affine for p in self.parts)

    def violation(self, c) -> float:
        """The largest violation among the values c (inequalities above 0, equalities off 0)."""
        if not self.m:
            return 0.0
        xp = self.xp
        excess = xp.where(self.equality, xp.abs(c), xp.maximum(c, 0.0))
        return float(xp.max(excess)) if bool(xp.isfinite(excess).all()) else math.inf


def bound_violation(view: View, y) -> float:
    """The largest distance of y outside the closed bounds and the cones (0 inside)."""
    xp, worst = view.xp, 0.0
    if view.box is not None and view.n:
        below = xp.maximum(view.box.lower - y, 0.0)
        above = xp.maximum(y - view.box.upper, 0.0)
        worst = max(float(xp.max(below)), float(xp.max(above)))
    for sign, X in view.space.matrices(y):
        low = float(xp.linalg.eigvalsh(sign * (X + X.T) / 2).min())
        worst = max(worst, -low)
    return worst


def _host(weights):
    return [float(w) for w in (weights.get() if hasattr(weights, "get") else weights)]


@lru_cache(maxsize=256)
def _affine(expr: Expr, names: tuple[str, ...]) -> bool:
    """Whether `expr` is affine in `names`: no gradient reads one of them. (A zero
    symbolic Hessian would not do: relu and abs have one and are not affine.)"""
    found = tc.variables(expr)
    return not any(set(tc.variables(tc.derivative(expr, found[n]))) & set(names) for n in names)
