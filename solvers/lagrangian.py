"""The augmented Lagrangian method (as GENO: Laue, Mitterreiter, Giesen, NeurIPS 2019)
around any method of the shared loop, which keeps the closed bounds by projection and
pd matrices by its domain test; the constraints c_i(y) <= 0 and c_e(y) = 0 enter

    L(y) = f + sum_e (nu c_e + rho/2 c_e^2) + sum_i rho/2 (max(0, c_i + lam/rho)^2 - (lam/rho)^2)

(Powell-Hestenes-Rockafellar), whose gradient is g + J' w with the weights
w_e = nu + rho c_e, w_i = max(0, lam + rho c_i), and whose Hessian is the weighted
Lagrangian Hessian plus rho J_A' J_A over the equalities and the active inequalities.

Outer iterations (Birgin and Martinez, Practical Augmented Lagrangian Methods, alg. 4.1):
minimise L to the tolerance max(gtol, 0.1^(k+1)), then w becomes the multipliers
(lam clipped to [0, BIG], nu to [-BIG, BIG]); rho grows tenfold when the violation
V = max(|c_e|, |min(-c_i, lam/rho)|) did not halve. Stops (status 0) when the inner
solve converged to gtol and V <= gtol / 100; status 1 when the iteration budget
(inner iterations, all outer iterations together) runs out; otherwise the inner
solve's status (2 line search, 3 callback, 4, 5).
"""
from __future__ import annotations

import dataclasses
import math

from .bounds import Projected
from .history import Iteration
from .linalg import Blocks
from .loop import run
from .space import dense

RHO0 = 10.0          # the first penalty
BIG = 1e20           # the multipliers' safeguard
VIOLATION = 1e-2     # stop when the violation is at most this times gtol


class Augmented:
    """L of the module docstring on a `View`, with the loop's objective interface."""

    def __init__(self, view, cons, rho: float):
        self.view, self.cons, self.xp = view, cons, view.xp
        self.n, self.counts, self.box = view.n, view.counts, view.box
        self.free, self.names = view.free, view.names
        xp, m = self.xp, cons.m
        self.eq = cons.equality
        self.mult = xp.zeros(m)          # lam for the inequalities, nu for the equalities
        self.rho = rho

    def pack(self, arrays):
        return self.view.pack(arrays)

    def unpack(self, y):
        return self.view.unpack(y)

    def project(self, y):
        return self.view.project(y)

    def inside(self, y) -> bool:
        return self.view.inside(y)

    def weights(self, c):
        """w_e = nu + rho c_e; w_i = max(0, lam + rho c_i)."""
        xp = self.xp
        shifted = self.mult + self.rho * c
        return xp.where(self.eq, shifted, xp.maximum(shifted, 0.0))

    def _penalty(self, c) -> float:
        xp, rho = self.xp, self.rho
        eq = xp.sum(xp.where(self.eq, self.mult * c + 0.5 * rho * c * c, 0.0))
        hinge = xp.maximum(c + self.mult / rho, 0.0)
        ineq = xp.sum(xp.where(self.eq, 0.0, 0.5 * rho * (hinge * hinge - (self.mult / rho) ** 2)))
        return float(eq + ineq)

    def value(self, y, overflow: bool = False) -> float:
        f = self.view.value(y, overflow)
        if not math.isfinite(f):
            return f
        c = self.cons.values(y)
        return f + self._penalty(c) if bool(self.xp.isfinite(c).all()) else math.inf

    def value_grad(self, y):
        f, g = self.view.value_grad(y)
        c, J = self.cons.values_jacobian(y)
        return f + self._penalty(c), g + J.T @ self.weights(c)

    def value_grad_hess(self, y):
        f, g, H = self.view.value_grad_hess(y)
        c, J = self.cons.values_jacobian(y)
        w = self.weights(c)
        if isinstance(H, Blocks):
            H = dense(self.xp, H)
        active = self.xp.where(self.eq | (w > 0), self.rho, 0.0)
        H = H + self.cons.hessian(y, w) + J.T @ (active[:, None] * J)
        return f + self._penalty(c), g + J.T @ w, H

    def hvp(self, y, v):
        c, J = self.cons.values_jacobian(y)
        w = self.weights(c)
        active = self.xp.where(self.eq | (w > 0), self.rho, 0.0)
        return self.view.hvp(y, v) + self.cons.hvp(y, v, w) + J.T @ (active * (J @ v))

    def violation(self, c) -> float:
        """V = max(|c_e|, |min(-c_i, lam / rho)|): zero exactly at a feasible point whose
        inequalities are complementary to lam."""
        xp = self.xp
        if not c.size:
            return 0.0
        return float(xp.max(xp.where(self.eq, xp.abs(c), xp.abs(xp.minimum(-c, self.mult / self.rho)))))


def solve(task, view, cons, make, opts, gtol: float, tol: float):
    """Minimise by augmented Lagrangian outer iterations (see the module docstring);
    `make()` gives a fresh inner method. Returns `constrained.Solved`."""
    from .constrained import bound_duals, finish
    aug = Augmented(view, cons, RHO0)
    y, history, budget = view.pack(task.x0), [], opts.max_iter
    before, status, message = math.inf, 1, ""
    for k in range(100):
        inner_tol = max(gtol, 0.1 ** (k + 1))
        inner = dataclasses.replace(opts, gtol=inner_tol, max_iter=budget)
        method = make()
        out = run(aug, Projected(method) if view.box is not None else method, y, inner)
        _append(history, out.history)
        budget -= len(out.history) - 1
        y = out.z
        c = cons.values(y)
        V = aug.violation(c)
        w = aug.weights(c)
        aug.mult = aug.xp.where(aug.eq, aug.xp.clip(w, -BIG, BIG), aug.xp.clip(w, 0.0, BIG))
        _note(history[-1], cons.violation(c), history[-1].gmax, aug)
        status, message = out.status, out.message
        if out.status == 0 and inner_tol <= gtol and V <= VIOLATION * gtol:
            break
        if out.status not in (0, 1) or budget <= 0:
            status = 1 if budget <= 0 and out.status in (0, 1) else out.status
            break
        if V > 0.5 * before:
            aug.rho *= 10
        before = V
    message = _message(status, message)
    duals = {label: float(v) for label, v in zip(cons.labels, _host(aug.mult))}
    f, g = view.value_grad(y)
    duals.update(bound_duals(view, y, g + cons.values_jacobian(y)[1].T @ aug.mult))
    return finish(view, cons, y, status, message, history, duals)


def _append(history: list, inner: list) -> None:
    """Inner iterations continue the numbering; an outer iteration's first iterate is
    the last one of the outer iteration before, so it is kept once."""
    start = len(history)
    for j, it in enumerate(inner if not history else inner[1:]):
        it.k = start + j
        history.append(it)


def _note(it: Iteration, violation: float, stationarity: float, aug: Augmented) -> None:
    it.violation = violation
    it.kkt = max(violation, stationarity)
    it.fallbacks.append(f"augmented Lagrangian: multipliers updated, rho = {aug.rho:.3g}")


def _message(status: int, inner: str) -> str:
    if status == 0:
        return ("converged: KKT conditions hold (the augmented Lagrangian's max|g| <= gtol, "
                "violation <= gtol / 100)")
    if status == 1:
        return "stopped: the iteration limit was reached before the KKT conditions held"
    return inner


def _host(a):
    return a.get() if hasattr(a, "get") else a
