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
from types import SimpleNamespace

import numpy as np

from solvers.methods.linalg import Blocks, cholesky
from tensorcalc.memo import memoized

TAU = 0.995          # a step goes at most this fraction of the way to a strict bound


@dataclass
class Box:
    """Bounds per coordinate of y as device arrays: closed ones `lower`, `upper` (-inf/inf
    where none), which `project` enforces, and strict ones `above`, `below` (`pos`,
    `< c`), which a point may approach but not reach."""

    lower: object
    upper: object
    above: object
    below: object

    def project(self, xp, y):
        return xp.minimum(xp.maximum(y, self.lower), self.upper)

    def path(self, xp, z, d, t: float):
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

    def _strict(self, xp):
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

    def matrix(self, z):
        return z[self.start:self.start + self.n * self.n].reshape(self.n, self.n)


class Space:
    """Index maps between y (reduced) and z (every entry); see the module docstring."""

    def __init__(self, free, offsets, xp):
        up, down = [], []              # per y coordinate: the z entries X[i, j] and X[j, i]
        self.cones = []                # a `Cone` per definite matrix
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
        up = np.concatenate(up) if up else np.zeros(0, int)
        down = np.concatenate(down) if down else np.zeros(0, int)
        self.identity = bool((up == down).all()) and bool((up == np.arange(up.size)).all())
        back = np.empty(int(offsets[-1]), dtype=np.int64)
        back[up], back[down] = np.arange(up.size), np.arange(up.size)
        self.n = int(up.size)
        self.up, self.down, self.back = xp.asarray(up), xp.asarray(down), xp.asarray(back)
        self.twin = xp.asarray((up != down).astype(np.float64))
        self.xp = xp

    def lift(self, y):
        return y if self.identity else y[self.back]

    def reduce(self, z):
        """The y coordinates of a z that is already symmetric."""
        return z if self.identity else z[self.up]

    def grad(self, g):
        """T' g."""
        return g if self.identity else g[self.up] + self.twin * g[self.down]

    def hess(self, H):
        """T' H T, dense; Blocks pass through when there is nothing to reduce."""
        if self.identity:
            return H
        if isinstance(H, Blocks):
            H = dense(self.xp, H)
        cols = H[:, self.up] + self.twin * H[:, self.down]
        return cols[self.up, :] + self.twin[:, None] * cols[self.down, :]

    def matrices(self, y):
        """(sign, matrix) of every definite variable at y, its cone being sign * X > 0."""
        z = self.lift(y)
        return [(c.sign, c.matrix(z)) for c in self.cones]

    def in_cones(self, y) -> bool:
        return all(cholesky(self.xp, sign * X) is not None for sign, X in self.matrices(y))


def dense(xp, H: Blocks):
    """The full matrix of a block-diagonal Hessian: block b on the entries whose flat
    positions `split` lists in its row b."""
    k, r, _ = H.blocks.shape
    at = H.split(xp, xp.arange(k * r))
    full = xp.zeros((k * r, k * r))
    full[at[:, :, None], at[:, None, :]] = H.blocks
    return full


class View:
    """An `Objective` in the coordinates y of its `Space`, with its `Box` of closed
    bounds (None when there is none) and cones kept by `inside`."""

    def __init__(self, obj):
        self.obj, self.xp, self.counts = obj, obj.xp, obj.counts
        self.space, self.box = _layout(tuple(obj.free), tuple(obj.offsets), obj.xp)
        self.n, self.free, self.names = self.space.n, obj.free, obj.names

    def pack(self, arrays: dict):
        return self.space.reduce(self.obj.pack(arrays))

    def unpack(self, y) -> dict:
        return self.obj.unpack(self.space.lift(y))

    def project(self, y):
        return y if self.box is None else self.box.project(self.xp, y)

    def inside(self, y) -> bool:
        return self.obj.inside(self.space.lift(y)) and self.space.in_cones(y)

    def value(self, y, overflow: bool = False) -> float:
        if self.space.cones and not self.space.in_cones(y):
            return math.inf
        return self.obj.value(self.space.lift(y), overflow)

    def value_grad(self, y):
        f, g = self.obj.value_grad(self.space.lift(y))
        return f, self.space.grad(g)

    def value_grad_hess(self, y):
        f, g, H = self.obj.value_grad_hess(self.space.lift(y))
        return f, self.space.grad(g), self.space.hess(H)

    def hvp(self, y, v):
        return self.space.grad(self.obj.hvp(self.space.lift(y), self.space.lift(v)))


def _layout(free: tuple, offsets: tuple, xp) -> tuple[Space, Box | None]:
    """The `Space` and `Box` of the free variables; on the host kept per variables (every
    solve of a problem has the same), with their arrays made read-only since shared."""
    if xp is not np:
        return _built(free, offsets, xp)
    return _kept(free, offsets)


@memoized(maxsize=64)
def _kept(free: tuple, offsets: tuple) -> tuple[Space, Box | None]:
    space, box = _built(free, offsets, np)
    arrays = [space.up, space.down, space.back, space.twin]
    if box is not None:
        box._strict(np)
        arrays += [box.lower, box.upper, box.above, box.below, *box._found[:2]]
    for a in arrays:
        a.flags.writeable = False
    return space, box


def _built(free: tuple, offsets: tuple, xp) -> tuple[Space, Box | None]:
    space = Space(free, offsets, xp)
    return space, _box(SimpleNamespace(free=free, offsets=offsets, n=offsets[-1], xp=xp), space)


def _box(obj, space: Space) -> Box | None:
    """The bounds of the free variables per y coordinate, or None when there are none."""
    if not any(v.attributes.lower is not None or v.attributes.upper is not None for v in obj.free):
        return None
    lower, upper = bounds(obj, space, strict=False)
    xp = obj.xp
    every_lower, every_upper = bounds(obj, space, strict=True)
    above = xp.where(every_lower == lower, -math.inf, every_lower)
    below = xp.where(every_upper == upper, math.inf, every_upper)
    return Box(lower, upper, above, below)


def bounds(obj, space: Space, strict: bool = True):
    """(lower, upper) per y coordinate as device arrays, -inf/inf where none; with
    `strict`, the strict bounds (`pos`, `< c`) too."""
    lower, upper = np.full(obj.n, -np.inf), np.full(obj.n, np.inf)
    for v, a, b in zip(obj.free, obj.offsets, obj.offsets[1:]):
        at = v.attributes
        if at.lower is not None and (strict or not at.lower_strict):
            lower[a:b] = at.lower
        if at.upper is not None and (strict or not at.upper_strict):
            upper[a:b] = at.upper
    up = np.asarray(space.up.get() if hasattr(space.up, "get") else space.up)
    return obj.xp.asarray(lower[up]), obj.xp.asarray(upper[up])
