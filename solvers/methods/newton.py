"""Second-order methods: Newton with a Cholesky solve and Newton-CG on Hessian-vector
products. Both report the Newton decrement lambda^2/2 = -g.d/2 and fall back to the
negative gradient, recording why, when their direction is not a descent direction.
"""
from __future__ import annotations

import math
from typing import Any

from solvers.methods.history import Clock
from solvers.methods.loop import Direction, Evaluation, Method
from solvers.methods.prefetch import GradientMethod, Prefetch
from solvers.numerics.linalg import Factor, newton_step
from solvers.protocol import Array, Smooth


class Newton(Method):
    """f, g and H from one compiled call; (H + tau I) d = -g by Cholesky, tau = 0 when H
    is positive definite, else grown by Algorithm 3.3 of Nocedal and Wright; blocks of a
    block-diagonal Hessian are solved separately.

    Near the solution (the last decrement below sqrt(tol), or in the quadratic regime: at
    most a twentieth of the one before) an iterate is first evaluated without its Hessian,
    and its decrement g.H^-1 g / 2 is taken with the previous Hessian's factor: if max|g|
    <= gtol and it is <= tol, the solve stops without building a Hessian it would not
    use; if it fell at least a hundredfold, the step reuses that factor (a chord step, noted in
    the history); otherwise f, g and H come from the one compiled call as usual."""

    name, newton = "Newton", True

    def __init__(self, gtol: float, tol: float, prefetch: bool = True):
        self.gtol, self.tol = gtol, tol
        self.last: tuple[Factor, float] | None = None      # (factor, decrement) of the previous step
        self.before = math.inf         # the decrement of the step before that
        self.prefetch = Prefetch() if prefetch else None

    def trial(self, obj: Smooth, z: Array) -> float:
        """The first trial point, evaluated with its gradient and (unless near the
        solution, where it may not be needed) its Hessian: see `prefetch`."""
        if self.prefetch is None:
            return obj.value(z)
        return self.prefetch.trial(obj, z, "grad" if self._near() else "full")

    def evaluate(self, obj: Smooth, z: Array, last: bool = False) -> Evaluation:
        kept = self.prefetch.take(z) if self.prefetch else None
        if last or self._near():
            f, g = kept[:2] if kept else obj.value_grad(z)
            decrement = self._stale(obj, g)
            if last or (float(abs(g).max()) <= self.gtol and decrement <= self.tol):
                return Evaluation(f, g, decrement=decrement)
            if self.last is not None and decrement <= 0.01 * self.last[1]:
                return Evaluation(f, g, decrement=decrement, chord=True)
        if kept is not None and kept[2] is not None:
            return Evaluation(*kept)
        return Evaluation(*obj.value_grad_hess(z))

    def restart(self) -> None:
        """After a step away from a saddle: the next iterate builds its own Hessian."""
        self.last, self.before = None, math.inf

    def hessian(self, obj: Smooth, z: Array, ev: Evaluation) -> Any:
        """The Hessian at z: the one evaluated there, else (a stop near the solution
        evaluates none) built now."""
        return obj.value_grad_hess(z)[2] if ev.hessian is None else ev.hessian

    def _near(self) -> bool:
        return self.last is not None and (self.last[1] <= math.sqrt(self.tol)
                                          or self.last[1] <= 0.05 * self.before < math.inf)

    def _remember(self, factor, direction: Direction) -> Direction:
        self.before = self.last[1] if self.last is not None else math.inf
        self.last = (factor, direction.decrement) if not direction.gradient else None
        return direction

    def _stale(self, obj, g) -> float:
        """g.H^-1 g / 2 with the previous Hessian (nan when there is none)."""
        return math.nan if self.last is None else float(g @ self.last[0].solve(g)) / 2

    def direction(self, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
        g = ev.g
        if ev.chord and self.last is not None:        # a chord is made only after a step
            factor = self.last[0]
            with clock("solve"):
                d = -factor.solve(g)
            notes = ["chord step: the previous Hessian's factor, reused near the solution"]
            return self._remember(factor, checked_direction(g, d, 0.0, notes))
        if ev.hessian is None:
            return Direction(-g, ev.decrement, gradient=True)       # decrement from the previous Hessian
        with clock("solve"):
            step = newton_step(obj.xp, ev.hessian, g)
        if step.d is None:
            self.last, self.before = None, math.inf
            return gradient_direction(g, f"Cholesky failed for every shift up to tau = {step.tau:.3g}")
        notes = [f"Hessian not positive definite: added {step.tau:.3g} I "
                 f"after {step.shifts} failed Cholesky attempt(s)"] if step.tau else []
        return self._remember(step.factor, checked_direction(g, step.d, step.tau, notes))


FLAT = 1e-10   # curvature below this fraction of the largest seen is rounding, not curvature


class NewtonCG(GradientMethod):
    """Truncated conjugate gradients on H d = -g with H v compiled from the symbolic
    pushforward of the gradient; stops at relative residual min(0.5, sqrt(|g|)) (Nocedal
    and Wright, Algorithm 7.1) or at the first direction of non-positive curvature, where
    a curvature below FLAT times the largest seen so far counts as none: it is rounding,
    and dividing by it gives steps of any length the kernel's last bits decide."""

    name, newton = "Newton-CG", True

    def __init__(self, max_cg: int | None = None):
        self.max_cg = max_cg

    def direction(self, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
        g = ev.g
        with clock("solve"):
            d, iters, curvature = self._cg(obj, z, g)
        if d is None:
            return gradient_direction(g, "negative curvature along the gradient", cg=iters)
        notes = [f"negative curvature met at CG iteration {iters}: direction truncated"] if curvature else []
        return checked_direction(g, d, 0.0, notes, cg=iters)

    def _cg(self, obj, z, g):
        xp = obj.xp
        gnorm = float(xp.linalg.norm(g))
        target = min(0.5, math.sqrt(gnorm)) * gnorm
        d, r = xp.zeros_like(g), g.copy()
        p, rr = -r, float(r @ r)
        limit = self.max_cg or max(20, min(obj.n, 500))
        top = 0.0                                   # the largest curvature per unit length seen
        for j in range(limit):
            hp = obj.hvp(z, p)
            curvature, pp = float(p @ hp), float(p @ p)
            if curvature <= FLAT * top * pp:        # non-positive, or zero to within rounding
                return (None if j == 0 else d), j, True
            top = max(top, curvature / pp)
            alpha = rr / curvature
            d = d + alpha * p
            r = r + alpha * hp
            rr_new = float(r @ r)
            if math.sqrt(rr_new) <= target:
                return d, j + 1, False
            p, rr = -r + (rr_new / rr) * p, rr_new
        return d, limit, False


def checked_direction(g: Array, d: Array, tau: float, notes: list, cg: int = 0) -> Direction:
    """The `Direction` d, or the negative gradient where d is not a descent direction (g.d >= 0)."""
    slope = float(g @ d)
    if not slope < 0:
        return gradient_direction(g, f"not a descent direction (g.d = {slope:.3g})", tau, cg)
    return Direction(d, -slope / 2, tau, notes, cg)


def gradient_direction(g: Array, why: str, tau: float = 0.0, cg: int = 0) -> Direction:
    """The negative gradient as the `Direction`, with a note saying `why`."""
    return Direction(-g, math.nan, tau, [f"{why}: took the negative gradient"], cg, gradient=True)
