"""The contract of the objectives the methods run on, written once.

Every objective the loop (`solvers.methods.loop`), the methods and the examination at the
end (`solvers.methods.stopping`) receive satisfies `Smooth`: the compiled `Objective`,
the row-factor objective of Dask data (`methods.rowfactor`), the block probe of
`methods.alternate`, and the constrained solvers' views (`numerics.space.View`, the
augmented Lagrangian and its scaled coordinates). A method reads nothing else of it;
`box` is None where no closed bound is kept by projection.
"""
from __future__ import annotations

from typing import Any, Mapping, Protocol

from tensorcalc.arrays import Array
from tensorcalc.arrays import ArrayModule as Module

__all__ = ["Array", "Box", "Module", "Smooth"]


class Box(Protocol):
    """Closed bounds kept by projection: `lower` and `upper` per coordinate (-inf, inf
    where none), `project` onto them, `path` the projected path z + t d (Kelley's
    P(z + t d))."""

    lower: Array
    upper: Array

    def project(self, xp: Module, z: Array) -> Array: ...

    def path(self, xp: Module, z: Array, d: Array, t: float) -> Array: ...


class Smooth(Protocol):
    """f of a flat vector z of `n` entries on the array module `xp`, with its derivatives.

    `value` is +inf outside the domain (where `inside` is False, or f is not finite);
    `counts` holds the evaluations made ("nfev", "njev", "nhev"); `pack` and `unpack`
    map arrays by variable name to z and back."""

    xp: Module
    n: int
    counts: dict[str, int]

    @property
    def box(self) -> Box | None:
        """The closed bounds kept by projection, None where there are none (read only: a
        view whose box is a richer `Box`, such as `numerics.space.Box`, satisfies it)."""
        ...

    def pack(self, arrays: Mapping[str, Array]) -> Array: ...

    def unpack(self, z: Array) -> dict[str, Array]: ...

    def inside(self, z: Array) -> bool: ...

    def value(self, z: Array, overflow: bool = False) -> float: ...

    def value_grad(self, z: Array) -> tuple[float, Array]: ...

    def value_grad_hess(self, z: Array) -> tuple[float, Array, Any]: ...

    def hvp(self, z: Array, v: Array) -> Array: ...
