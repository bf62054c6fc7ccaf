"""The fraction-to-the-boundary rule of the interior-point methods: `to_boundary`."""
from __future__ import annotations

from tensorcalc.arrays import Array, ArrayModule


def to_boundary(xp: ArrayModule, v: Array, dv: Array, mask: Array | None, tau: float) -> float:
    """The largest step <= 1 keeping the fraction tau of v > 0 (where `mask`) along dv:
    1 / max(-dv / v)."""
    if not v.size:
        return 1.0
    ratio = dv / v if mask is None else xp.where(mask, dv / xp.where(mask, v, 1.0), 0.0)
    worst = float(xp.min(ratio))
    return 1.0 if worst >= 0 else min(1.0, -tau / worst)

