"""Unbounded convex QPs told apart from a solve that stalled: a feasible point and a
recession direction.

A convex QP  min f0 + q'y + y'Hy/2  s.t.  G y <= h,  E y = e,  l <= y <= u  with a feasible
point y is unbounded below exactly when some direction d has

    H d = 0,  G d <= 0,  E d = 0,  d_i >= 0 where l_i is finite,  d_i <= 0 where u_i is,

and (q + H y)'d < 0: f then falls linearly along y + t d, which stays feasible. `feasible`
finds a point by the LP  minimise 0  over the constraints, `ray` a direction by the LP
minimise q'd  over those rows and -1 <= d <= 1  (SciPy's HiGHS: a well-kept LP solver;
this runs once, only after a solve stopped without converging), and each answer is checked
in floating point before it is believed: the rows to a rounding-level tolerance, the
slope clearly negative, the curvature d'Hd at rounding level. `unbounded` needs both: the
point the solve reached may be far from feasible (an augmented Lagrangian running off
along the recession direction) without the QP being infeasible.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from solvers.constrained.qpsystem import Data
from solvers.numerics.linalg import Blocks
from solvers.numerics.space import dense

ROUNDING = 1e-9          # relative tolerance of the checks on d


def unbounded(data: Data) -> tuple[np.ndarray, np.ndarray, float] | None:
    """(a feasible point y, a recession direction d, f's slope along d) where the QP is
    unbounded below, else None. `data`: host arrays."""
    y = feasible(data)
    if y is None:
        return None
    found = ray(data, y)
    return None if found is None else (y, *found)


def feasible(data: Data) -> np.ndarray | None:
    """A point that satisfies every row and bound to rounding, found by HiGHS; None where
    HiGHS finds none (or the data is beyond float64)."""
    n = int(np.asarray(data.q).size)
    if not all(np.isfinite(a).all() for a in (data.G, data.h, data.E, data.e, data.lo, data.up)):
        return None
    lower, upper = dict(zip(data.L.tolist(), data.lo.tolist())), dict(zip(data.U.tolist(), data.up.tolist()))
    bounds = [(lower.get(i), upper.get(i)) for i in range(n)]
    m, k = data.G.shape[0], data.E.shape[0]
    res = linprog(np.zeros(n), A_ub=data.G if m else None, b_ub=data.h if m else None,
                  A_eq=data.E if k else None, b_eq=data.e if k else None, bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:
        return None
    y = np.asarray(res.x, dtype=float)
    return y if _satisfies(data, y) else None


def _satisfies(data: Data, y: np.ndarray) -> bool:
    """Every row and bound at y within ROUNDING of the rows' scale there."""
    worst = [np.maximum(data.G @ y - data.h, 0.0), np.abs(data.E @ y - data.e),
             np.maximum(data.lo - y[data.L], 0.0), np.maximum(y[data.U] - data.up, 0.0)]
    size = 1.0 + float(np.abs(y).max(initial=0.0)) * max(_norm(data.G), _norm(data.E))
    size += max(float(np.abs(v).max(initial=0.0)) for v in (data.h, data.e, data.lo, data.up))
    return all(float(w.max(initial=0.0)) <= ROUNDING * size for w in worst)


def ray(data: Data, y: np.ndarray) -> tuple[np.ndarray, float] | None:
    """(d, the slope of f along it at y) for a recession direction along which f falls,
    or None. `data`: host arrays."""
    H, q, n = _dense(data.H), np.asarray(data.q, dtype=float), int(np.asarray(data.q).size)
    if not all(np.isfinite(a).all() for a in (H, q, data.G, data.E, y)):
        return None                        # data beyond float64 (overflowed): no evidence
    lower, upper = set(data.L.tolist()), set(data.U.tolist())
    bounds = [(0.0 if i in lower else -1.0, 0.0 if i in upper else 1.0) for i in range(n)]
    eq = np.vstack([H, data.E]) if data.E.shape[0] else H
    m = data.G.shape[0]
    res = linprog(q, A_ub=data.G if m else None, b_ub=np.zeros(m) if m else None,
                  A_eq=eq, b_eq=np.zeros(eq.shape[0]), bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:
        return None
    d = np.where(np.abs(res.x) > ROUNDING, res.x, 0.0)
    slope = float((q + H @ y) @ d)
    return (d, slope) if _holds(data, H, q, d, slope) else None


def _holds(data: Data, H: np.ndarray, q: np.ndarray, d: np.ndarray, slope: float) -> bool:
    scale = max(1.0, float(np.abs(q).max(initial=0.0)))
    rows = [data.G @ d] if data.G.shape[0] else []
    flat = [np.abs(data.E @ d)] if data.E.shape[0] else []
    size = float(np.abs(d).max(initial=0.0))
    return (size > 0 and slope < -ROUNDING * scale * size
            and all(float(r.max()) <= ROUNDING * _norm(data.G) * size for r in rows)
            and all(float(r.max()) <= ROUNDING * _norm(data.E) * size for r in flat)
            and float(d @ H @ d) <= ROUNDING * max(_norm(H), 1e-300) * size ** 2)


def _norm(M: np.ndarray) -> float:
    return max(float(np.abs(M).max(initial=0.0)), 1.0)


def _dense(H: np.ndarray | Blocks) -> np.ndarray:
    return dense(np, H) if isinstance(H, Blocks) else np.asarray(H, dtype=float)
