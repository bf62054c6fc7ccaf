"""The space the constrained methods move in: symmetric matrices by their upper triangle,
bounds as a box, definite matrices kept inside their cone.

An `Objective` works on the flat vector z of every entry of every free variable. A
symmetric n x n variable has only n(n+1)/2 free entries, and on all n^2 entries its
objective can behave differently (-log det X is convex on symmetric X, not on all
matrices): so the methods move y, one coordinate per entry X[i, j] with i <= j, and
z = lift(y) copies X[i, j] to X[j, i]. Then, with T the 0/1 matrix of `lift`, the
gradient in y is T' g and the Hessian T' H T (an off-diagonal coordinate counts both
X[i, j] and X[j, i]). Other variables pass through unchanged (no copies).

`View` is an `Objective` seen in y: the same interface (`value`, `value_grad`,
`value_grad_hess`, `hvp`, `inside`, `pack`, `unpack`, `n`, `xp`, `counts`), so every
method and the shared loop run on it unchanged. `inside` adds the cone test: a declared
pd/psd (nd/nsd) variable must be positive (negative) definite by Cholesky; a line search
therefore never leaves the cone. `box` holds the closed bounds (`nonneg`, `>= c`,
`<= c`) per coordinate, which the projected methods (`solvers.constrained.bounds`) keep.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from convexcheck.problem.model import Attributes
from solvers.numerics.linalg import Blocks, cholesky
from solvers.protocol import Smooth
from tensorcalc.arrays import Array, ArrayModule, is_cupy
from tensorcalc.memo import memoized

TAU = 0.995          # a step goes at most this fraction of the way to a strict bound


class Variable(Protocol):
    """A free variable as the space reads it (`task.records.Free`)."""

    @property
    def name(self) -> str: ...

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def size(self) -> int: ...

    @property
    def attributes(self) -> Attributes: ...


class Entries(Smooth, Protocol):
    """The objective on z, every entry of every free variable, that a `View` shows in y
    (`objective.smooth.Objective`): the methods' interface (`solvers.protocol.Smooth`)
    and the variables' layout in z."""

    names: tuple[str, ...]

    @property
    def free(self) -> Sequence[Variable]: ...

    @property
    def offsets(self) -> Sequence[int]:
        """Where each variable starts in z, and the end."""


@dataclass
class Box:
    """Bounds per coordinate of y as device arrays: closed ones `lower`, `upper` (-inf/inf
    where none), which `project` enforces, and strict ones `above`, `below` (`pos`,
    `< c`), which a point may approach but not reach."""

    lower: Array
    upper: Array
    above: Array
    below: Array

    def project(self, xp: ArrayModule, y: Array) -> Array:
        """y projected on the closed bounds."""
        return xp.minimum(xp.maximum(y, self.lower), self.upper)

    def path(self, xp: ArrayModule, z: Array, d: Array, t: float) -> Array:
        """P(z + t d): projected on the closed bounds, and at most the fraction TAU of the
        way from z to a strict bound (the fraction-to-the-boundary rule)."""
        p = self.project(xp, z + t * d)
        has_above, has_below, any_above, any_below = self._strict(xp)
        if any_above:
            floor = xp.where(has_above, self.above, 0.0) + (1 - TAU) * (z - xp.where(has_above, self.above, 0.0))
            p = xp.where(has_above, xp.maximum(p, floor), p)
        if any_below:
            ceiling = xp.where(has_below, self.below, 0.0) - (1 - TAU) * (xp.where(has_below, self.below, 0.0) - z)
            p = xp.where(has_below, xp.minimum(p, ceiling), p)
        return p

    def _strict(self, xp: ArrayModule) -> tuple[Array, Array, bool, bool]:
        """(where a strict bound lies above, below, whether any does each way), found once:
        the bounds of a box never change."""
        found = self.__dict__.get("_found")
        if found is None:
            has_above, has_below = xp.isfinite(self.above), xp.isfinite(self.below)
            found = self._found = (has_above, has_below, bool(has_above.any()), bool(has_below.any()))
        return found


@dataclass(frozen=True)
class Cone:
    """A definite matrix variable: sign * X must stay positive definite. `start`: its
    offset in z; `where`: its (contiguous) coordinates in y."""

    name: str
    sign: float
    start: int
    n: int
    where: slice

    def matrix(self, z: Array) -> Array:
        """X (n x n) from z."""
        return z[self.start:self.start + self.n * self.n].reshape(self.n, self.n)


class Space:
    """Index maps between y (reduced) and z (every entry); see the module docstring."""

    def __init__(self, free: Sequence[Variable], offsets: Sequence[int], xp: ArrayModule):
        parts: tuple[list[Array], list[Array]] = ([], [])   # per y coordinate: the z entries X[i, j], X[j, i]
        up, down = parts
        self.cones: list[Cone] = []    # a `Cone` per definite matrix
        at = 0
        for v, start in zip(free, offsets):
            if v.attributes.is_symmetric:
                n = v.shape[0]
                i, j = np.triu_indices(n)
                up.append(start + i * n + j)
                down.append(start + j * n + i)
                if v.attributes.definite:
                    sign = 1.0 if v.attributes.definite in ("pd", "psd") else -1.0
                    self.cones.append(Cone(v.name, sign, start, n, slice(at, at + i.size)))
                at += i.size
            else:
                at += v.size
                k = np.arange(start, start + v.size)
                up.append(k)
                down.append(k)
        ups = np.concatenate(up) if up else np.zeros(0, int)
        downs = np.concatenate(down) if down else np.zeros(0, int)
        self.identity = bool((ups == downs).all()) and bool((ups == np.arange(ups.size)).all())
        back = np.empty(int(offsets[-1]), dtype=np.int64)
        back[ups], back[downs] = np.arange(ups.size), np.arange(ups.size)
        self.n = int(ups.size)
        self.up, self.down, self.back = xp.asarray(ups), xp.asarray(downs), xp.asarray(back)
        self.twin = xp.asarray((ups != downs).astype(np.float64))
        self.xp = xp

    def lift(self, y: Array) -> Array:
        """z from y: X[j, i] copied from X[i, j]."""
        return y if self.identity else y[self.back]

    def reduce(self, z: Array) -> Array:
        """The y coordinates of a z that is already symmetric."""
        return z if self.identity else z[self.up]

    def grad(self, g: Array) -> Array:
        """T' g."""
        return g if self.identity else g[self.up] + self.twin * g[self.down]

    def hess(self, H: Array | Blocks) -> Array | Blocks:
        """T' H T, dense; Blocks pass through when there is nothing to reduce."""
        if self.identity:
            return H
        if isinstance(H, Blocks):
            H = dense(self.xp, H)
        cols = H[:, self.up] + self.twin * H[:, self.down]
        return cols[self.up, :] + self.twin[:, None] * cols[self.down, :]

    def matrices(self, y: Array) -> list[tuple[float, Array]]:
        """(sign, matrix) of every definite variable at y, its cone being sign * X > 0."""
        z = self.lift(y)
        return [(c.sign, c.matrix(z)) for c in self.cones]

    def in_cones(self, y: Array) -> bool:
        """Whether every definite variable is inside its cone at y (by Cholesky)."""
        return all(cholesky(self.xp, sign * X) is not None for sign, X in self.matrices(y))


def dense(xp: ArrayModule, H: Blocks) -> Array:
    """The full matrix of a block-diagonal Hessian: block b on the entries whose flat
    positions `split` lists in its row b."""
    k, r, _ = H.blocks.shape
    at = H.split(xp, xp.arange(k * r))
    full = xp.zeros((k * r, k * r))
    full[at[:, :, None], at[:, None, :]] = H.blocks
    return full


class View:
    """An `Objective` in the coordinates y of its `Space`, with its `Box` of closed
    bounds (None when there is none) and cones kept by `inside`. With `closed`, the cones
    are taken as closed sets: `value` does not test them (a point on a cone's boundary,
    where rounding may leave an iterate, is then as good as any: what `ray` probes)."""

    def __init__(self, obj: Entries, closed: bool = False):
        self.obj, self.xp, self.counts, self.closed = obj, obj.xp, obj.counts, closed
        self.space, self.box = _layout(tuple(obj.free), tuple(obj.offsets), obj.xp)
        self.n, self.free, self.names = self.space.n, obj.free, obj.names

    def pack(self, arrays: Mapping[str, Array]) -> Array:
        return self.space.reduce(self.obj.pack(arrays))

    def unpack(self, y: Array) -> dict[str, Array]:
        return self.obj.unpack(self.space.lift(y))

    def project(self, y: Array) -> Array:
        return y if self.box is None else self.box.project(self.xp, y)

    def bounds(self, strict: bool = True) -> tuple[Array, Array]:
        """(lower, upper) per y coordinate (`bounds`)."""
        return bounds(self.obj.free, self.obj.offsets, self.xp, self.space, strict)

    def inside(self, y: Array) -> bool:
        return self.obj.inside(self.space.lift(y)) and self.space.in_cones(y)

    def value(self, y: Array, overflow: bool = False) -> float:
        if self.space.cones and not self.closed and not self.space.in_cones(y):
            return math.inf
        return self.obj.value(self.space.lift(y), overflow)

    def value_grad(self, y: Array) -> tuple[float, Array]:
        f, g = self.obj.value_grad(self.space.lift(y))
        return f, self.space.grad(g)

    def value_grad_hess(self, y: Array) -> tuple[float, Array, Any]:
        f, g, H = self.obj.value_grad_hess(self.space.lift(y))
        return f, self.space.grad(g), self.space.hess(H)

    def hvp(self, y: Array, v: Array) -> Array:
        return self.space.grad(self.obj.hvp(self.space.lift(y), self.space.lift(v)))


def _layout(free: tuple[Variable, ...], offsets: tuple[int, ...], xp: ArrayModule) -> tuple[Space, Box | None]:
    """The `Space` and `Box` of the free variables; on the host kept per variables (every
    solve of a problem has the same), with their arrays made read-only since shared."""
    if xp is not np:
        return _built(free, offsets, xp)
    return _kept(free, offsets)


@memoized(maxsize=64)
def _kept(free: tuple[Variable, ...], offsets: tuple[int, ...]) -> tuple[Space, Box | None]:
    space, box = _built(free, offsets, np)
    arrays = [space.up, space.down, space.back, space.twin]
    if box is not None:
        arrays += [box.lower, box.upper, box.above, box.below, *box._strict(np)[:2]]
    for a in arrays:
        a.flags.writeable = False
    return space, box


def _built(free: tuple[Variable, ...], offsets: tuple[int, ...], xp: ArrayModule) -> tuple[Space, Box | None]:
    space = Space(free, offsets, xp)
    return space, _box(free, offsets, xp, space)


def _box(free: Sequence[Variable], offsets: Sequence[int], xp: ArrayModule, space: Space) -> Box | None:
    """The bounds of the free variables per y coordinate, or None when there are none."""
    if not any(v.attributes.lower is not None or v.attributes.upper is not None for v in free):
        return None
    lower, upper = bounds(free, offsets, xp, space, strict=False)
    every_lower, every_upper = bounds(free, offsets, xp, space, strict=True)
    above = xp.where(every_lower == lower, -math.inf, every_lower)
    below = xp.where(every_upper == upper, math.inf, every_upper)
    return Box(lower, upper, above, below)


def bounds(free: Sequence[Variable], offsets: Sequence[int], xp: ArrayModule, space: Space,
           strict: bool = True) -> tuple[Array, Array]:
    """(lower, upper) per y coordinate as device arrays, -inf/inf where none; with
    `strict`, the strict bounds (`pos`, `< c`) too. `offsets`: where each variable starts
    in z, and the end."""
    n = offsets[-1]
    lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    for v, a, b in zip(free, offsets, offsets[1:]):
        at = v.attributes
        if at.lower is not None and (strict or not at.lower_strict):
            lower[a:b] = at.lower
        if at.upper is not None and (strict or not at.upper_strict):
            upper[a:b] = at.upper
    up = np.asarray(space.up.get() if is_cupy(space.up) else space.up)
    return xp.asarray(lower[up]), xp.asarray(upper[up])
