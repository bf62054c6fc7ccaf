"""Closed bounds (`nonneg`, `>= c`, `<= c`) kept by the methods themselves: projected
Newton (Bertsekas 1982; Kelley, Iterative Methods for Optimization, 5.5), and the same
face rule for Newton-CG, L-BFGS and gradient descent.

At an iterate y with gradient g, a coordinate is *binding* when it lies within eps of a
bound and g pushes it outwards, eps = min(EPS, max|y - P(y - g)|) (P: projection on the
box), so eps shrinks to 0 at the solution and exactly the bounds that hold with a
positive multiplier stay binding. The method's direction is computed on the face of the
free coordinates: Newton solves with the Hessian whose binding rows and columns are
replaced by their diagonal (so d_free = -H_ff^-1 g_free, d_binding = -g / H_ii);
Newton-CG runs CG on that matrix's products; L-BFGS applies its two-loop recursion to g
with the binding entries zeroed and takes -g there; gradient descent is unchanged. The
loop then searches along the projected path P(y + t d) with the sufficient-decrease
test f(P(y + t d)) <= f + c1 g.(P(y + t d) - y) (Kelley 5.5.3), and measures
stationarity by max|y - P(y - g)|, which is max|g| away from the bounds.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from solvers.methods.firstorder import LBFGS
from solvers.methods.history import Clock
from solvers.methods.loop import Direction, Evaluation, Method, projected_gradient
from solvers.methods.newton import Newton, NewtonCG
from solvers.numerics.linalg import Blocks
from solvers.numerics.space import Box
from solvers.protocol import Smooth
from tensorcalc.arrays import Array, ArrayModule

EPS = 1e-3       # the widest band in which a bound counts as binding


def free_mask(obj: Smooth, y: Array, g: Array) -> Array:
    """1.0 for the free coordinates, 0.0 for the binding ones (see the module docstring)."""
    return 1.0 - _binding(obj, y, g).astype(y.dtype)


def _binding(obj: Smooth, y: Array, g: Array) -> Array:
    """True for the binding coordinates."""
    box = obj.box
    if not isinstance(box, Box):
        raise TypeError("the projected methods keep the closed bounds of a `space.Box`")
    eps = min(EPS, projected_gradient(obj, y, g)[1])
    return ((y <= box.lower + eps) & (g > 0)) | ((y >= box.upper - eps) & (g < 0))


class Projected(Method):
    """`inner` kept inside the box by the face rule; a thin wrapper that delegates the
    rest (evaluation, prefetch, memory) to `inner`."""

    def __init__(self, inner: Method):
        self.inner = inner
        self.name, self.newton = f"projected {inner.name}", inner.newton
        self.free: Array | None = None
        self._last: tuple[Smooth, Array, Array, Array | None] | None = None   # the last `_mask`'s

    def evaluate(self, obj: Smooth, z: Array, last: bool = False) -> Evaluation:
        return self.inner.evaluate(obj, z, last)

    def trial(self, obj: Smooth, z: Array) -> float:
        return self.inner.trial(obj, z)

    def update(self, s: Array, y: Array) -> None:
        self.inner.update(s, y)

    def restart(self) -> None:
        self.inner.restart()

    def first_step(self, d: Array, g: Array) -> float:
        return self.inner.first_step(d, g)

    def hessian(self, obj: Smooth, z: Array, ev: Evaluation) -> Any:
        H = self.inner.hessian(obj, z, ev)
        return H if H is None or self.free is None else masked(obj.xp, H, self.free)

    def direction(self, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
        free = self.free = self._mask(obj, z, ev.g)
        rule = FACE.get(type(self.inner))
        if free is None or rule is None:
            return self.inner.direction(obj, z, ev, clock)
        return rule(self.inner, free, obj, z, ev, clock)

    def face(self, obj: Smooth, z: Array, g: Array) -> Smooth:
        """`obj` on the face of z (Hessian-vector products, and `hessian` after this call,
        of the masked Hessian), for `certify`."""
        self.free = self._mask(obj, z, g)
        return obj if self.free is None else _Face(obj, self.free)

    def _mask(self, obj: Smooth, z: Array, g: Array) -> Array | None:
        """`free_mask`, None when no coordinate is binding. Kept for the same arrays: the
        loop asks `face` at the point where it has just asked `direction` (its iterates
        and gradients are new arrays, never changed in place)."""
        last = self._last
        if last is not None and last[0] is obj and last[1] is z and last[2] is g:
            return last[3]
        binding = _binding(obj, z, g)
        free = 1.0 - binding.astype(z.dtype) if bool(binding.any()) else None
        self._last = (obj, z, g, free)
        return free


def masked(xp: ArrayModule, H: Array | Blocks, free: Array) -> Array | Blocks:
    """H with binding rows and columns replaced by their positive diagonal (1 where the
    diagonal is not positive); dense or `Blocks`."""
    if isinstance(H, Blocks):
        m = H.split(xp, free)
        diag = xp.diagonal(H.blocks, axis1=-2, axis2=-1)
        fill = (1.0 - m) * xp.where(diag > 0, diag, 1.0)
        blocks = H.blocks * m[:, :, None] * m[:, None, :] + fill[:, :, None] * xp.eye(m.shape[1])
        return Blocks(blocks, H.axis, H.shape)
    diag = H.diagonal()
    fill = (1.0 - free) * xp.where(diag > 0, diag, 1.0)
    # H * free free' + diag(fill) without building diag(fill): adding 0.0 everywhere (as
    # the zeros of diag(fill) do: -0.0 becomes 0.0), then fill on the diagonal, gives the
    # same bits, since fill >= 0
    out = H * free[:, None] * free[None, :] + 0.0
    out.reshape(-1)[::out.shape[0] + 1] += fill
    return out


class _Face:
    """Hessian-vector products of the masked Hessian (identity on binding coordinates);
    everything else is `obj`'s."""

    def __init__(self, obj: Smooth, free: Array):
        self._obj, self._free = obj, free

    def __getattr__(self, name: str) -> Any:
        return getattr(self._obj, name)

    def hvp(self, z: Array, v: Array) -> Array:
        return self._free * self._obj.hvp(z, self._free * v) + (1.0 - self._free) * v


def _newton(inner: Method, free: Array, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
    H = ev.hessian if ev.hessian is not None else obj.value_grad_hess(z)[2]
    d = inner.direction(obj, z, replace(ev, hessian=masked(obj.xp, H, free), chord=False), clock)
    inner.restart()               # no chord step with a factor of another face
    return _on_face(d, ev.g, free)


def _newton_cg(inner: Method, free: Array, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
    # CG on the free coordinates alone: its stopping test then measures their gradient,
    # not the binding entries' (which stay large at the solution)
    g = ev.g
    d = inner.direction(_Face(obj, free), z, replace(ev, g=g * free), clock)
    d.d = d.d * free - (1.0 - free) * g
    return _on_face(d, g, free)


def _on_face(d: Direction, g: Array, free: Array) -> Direction:
    """The decrement of the free coordinates: the binding ones stay where they are."""
    if not d.gradient:
        d.decrement = -float((g * free) @ d.d) / 2
    return d


def _lbfgs(inner: Method, free: Array, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
    g = ev.g
    d = inner.direction(obj, z, replace(ev, g=g * free), clock)
    d.d = d.d * free - (1.0 - free) * g
    return d


FaceRule = Callable[[Method, Array, Smooth, Array, Evaluation, Clock], Direction]
FACE: dict[type, FaceRule] = {Newton: _newton, NewtonCG: _newton_cg, LBFGS: _lbfgs}   # gradient descent: as is
