"""First-order methods on the compiled gradient: L-BFGS (two-loop recursion) and gradient
descent with Barzilai-Borwein first trial steps, both under the shared Armijo search.

Written here rather than taken from SciPy because SciPy's L-BFGS-B works on host NumPy
vectors: on a GPU every iteration would copy the iterate and gradient both ways.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Any

from solvers.methods.history import Clock
from solvers.methods.loop import Direction, Evaluation
from solvers.methods.prefetch import GradientMethod
from solvers.protocol import Array, Smooth


class LBFGS(GradientMethod):
    """Limited-memory BFGS with `memory` pairs; a pair with s.y <= 0 is skipped and noted."""

    name, newton = "L-BFGS", False

    def __init__(self, memory: int = 10):
        self.pairs: deque[tuple[Any, Any, float]] = deque(maxlen=memory)      # (s, y, 1 / s.y)
        self.notes: list[str] = []

    def restart(self) -> None:
        self.pairs.clear()

    def update(self, s: Array, y: Array) -> None:
        sy, yy = float(s @ y), float(y @ y)
        # yy > 0 too: on denormal data y.y underflows to 0 while s.y does not (the scaling
        # s.y / y.y of the direction divides by it)
        if yy > 0 and sy > 1e-12 * math.sqrt(float(s @ s) * yy) and math.isfinite(sy / yy):
            self.pairs.append((s, y, 1.0 / sy))
        else:
            self.notes.append(f"curvature s.y = {sy:.3g} <= 0: update skipped")

    def direction(self, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
        g = ev.g
        with clock("solve"):
            q, alphas = g.copy(), []
            for s, y, rho in reversed(self.pairs):
                a = rho * float(s @ q)
                alphas.append(a)
                q = q - a * y
            if self.pairs:
                s, y, _ = self.pairs[-1]
                q = q * (float(s @ y) / float(y @ y))
            for (s, y, rho), a in zip(self.pairs, reversed(alphas)):
                q = q + (a - rho * float(y @ q)) * s
        notes, self.notes = self.notes, []
        slope = float(g @ -q)
        if not slope < 0:
            self.pairs.clear()
            return Direction(-g, gradient=True, fallbacks=notes + [f"not a descent direction (g.d = {slope:.3g}): "
                                                    f"took the negative gradient; memory cleared"])
        return Direction(-q, fallbacks=notes)

    def first_step(self, d: Array, g: Array) -> float:
        return 1.0 if self.pairs else min(1.0, 1.0 / float(abs(g).max()))


class GradientDescent(GradientMethod):
    """d = -g; the first trial step is the Barzilai-Borwein step s.s / s.y of the last
    accepted pair (1 / max|g| at the start or when s.y <= 0)."""

    name, newton = "gradient", False

    def __init__(self):
        self.bb = None

    def restart(self) -> None:
        self.bb = None

    def update(self, s: Array, y: Array) -> None:
        sy = float(s @ y)
        self.bb = float(s @ s) / sy if sy > 0 else None

    def direction(self, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
        return Direction(-ev.g, gradient=True)

    def first_step(self, d: Array, g: Array) -> float:
        return self.bb if self.bb else min(1.0, 1.0 / float(abs(g).max()))
