"""Infeasible affine constraints proven by a Farkas certificate, at any scale.

Rows  a_i'y <= b_i  (inequalities, and both signs of every equality and the bounds) have
no solution exactly when nonnegative weights u give  sum u_i a_i = 0  and  sum u_i b_i < 0
(Farkas' lemma): any solution would make  0 = (sum u_i a_i)'y <= sum u_i b_i < 0. Each
row is first divided by a power of 2 near its largest coefficient max|a_i| (exact, and
it leaves the rows' solutions as they were): rows 1e37 apart in their bounds keep
coefficients of one scale, so that the sum of coefficients is not lost to rounding
(phase one, which minimises the violation in the rows' own units, cannot tell 4e37 from
its rounding there; an LP solver drops coefficients below 1e-9 and treats bounds above
1e20 as infinite, so only costs carry the b_i, by their largest magnitude). The weights
come from the LP  minimise b'u  over  A'u = 0, sum u = 1, u >= 0  (HiGHS), and are
believed only after the check in floating point: every entry of sum u_i a_i within the
rounding of its terms (ROUNDING m |u|'|a_j|), sum u_i b_i below -ROUNDING m |u|'|b|.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from solvers.methods.stopping import LARGEST, ROUNDING  # ROUNDING per row; LARGEST entries in [a_i b_i]
from solvers.numerics.space import View
from solvers.objective.constraints import Constraints


def infeasible(view: View, cons: Constraints) -> list[str] | None:
    """The labels of the rows a checked certificate combines ("constraint k", "lower bound
    of x", ...), where the task's affine constraints and closed or strict bounds cannot
    all hold; None where no certificate was found or checked, or the constraints are not
    affine, or there are cones. Host (NumPy) arrays only."""
    if view.space.cones or not cons.affine() or view.xp is not np:
        return None
    rows = _rows(view, cons)
    if rows is None:
        return None
    A, b, labels = rows
    if not len(b) or not (np.isfinite(A).all() and np.isfinite(b).all()):
        return None
    size = np.abs(A).max(axis=1, initial=0.0)
    size = np.where(size > 0, size, np.abs(b))
    keep = size > 0
    scale = np.exp2(np.round(np.log2(size[keep])))         # a power of 2: exact
    A, b, labels = A[keep] / scale[:, None], b[keep] / scale, [label for label, k in zip(labels, keep) if k]
    u = _weights(A, b)
    if u is None or not _checked(A, b, u):
        return None
    return list(dict.fromkeys(label for label, w in zip(labels, u) if w > 0))


def _weights(A: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """u >= 0 with sum u = 1 and A'u = 0 minimising b'u (b by its largest magnitude: the
    costs' scale does not change the LP's answer), by HiGHS; None where it finds none."""
    m, top = len(b), float(np.abs(b).max(initial=0.0))
    if not top > 0:
        return None
    res = linprog(b / top, A_eq=np.vstack([A.T, np.ones((1, m))]), b_eq=np.r_[np.zeros(A.shape[1]), 1.0],
                  bounds=[(0, None)] * m, method="highs")
    return None if res.status != 0 or res.x is None else np.maximum(np.asarray(res.x, dtype=float), 0.0)


def _checked(A: np.ndarray, b: np.ndarray, u: np.ndarray) -> bool:
    """sum u_i a_i = 0 to the rounding of its terms, sum u_i b_i < 0 beyond it."""
    m = len(b)
    residual = np.abs(A.T @ u)
    terms = np.abs(A.T) @ np.abs(u)
    gap = float(b @ u)
    return (bool(np.all(u >= 0)) and bool(np.all(residual <= ROUNDING * m * terms))
            and gap < -ROUNDING * m * float(np.abs(b) @ u))


def _rows(view: View, cons: Constraints) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """(A, b, labels): every row as a_i'y <= b_i, from the values and Jacobian at y = 0
    (exact for affine rows), equalities by both signs, bounds as rows; None where
    [A b] would have more than LARGEST entries (decided before anything is built)."""
    n = view.n
    eq = np.asarray(cons.equality, dtype=bool)
    lower, upper = view.bounds(strict=True)
    low, up = np.isfinite(lower), np.isfinite(upper)
    if (cons.m + int(eq.sum()) + int(low.sum()) + int(up.sum())) * (n + 1) > LARGEST:
        return None
    c, J = cons.values_jacobian(np.zeros(n))
    row_labels = np.repeat(cons.labels, [s.stop - s.start for s in cons.slices]) if cons.m else np.zeros(0)
    blocks = [(J[~eq], -c[~eq], row_labels[~eq]), (J[eq], -c[eq], row_labels[eq]), (-J[eq], c[eq], row_labels[eq])]
    names = _names(view)
    blocks += [(-_units(low, n), -lower[low], [f"lower bound of {k}" for k in names[low]]),
               (_units(up, n), upper[up], [f"upper bound of {k}" for k in names[up]])]
    A = np.vstack([blk[0].reshape(-1, n) for blk in blocks])
    return A, np.concatenate([blk[1] for blk in blocks]), [str(label) for blk in blocks for label in blk[2]]


def _units(which: np.ndarray, n: int) -> np.ndarray:
    """The rows of the n x n identity where `which` holds, without forming the identity."""
    picked = np.flatnonzero(which)
    rows = np.zeros((len(picked), n))
    rows[np.arange(len(picked)), picked] = 1.0
    return rows


def _names(view: View) -> np.ndarray:
    """The variable name of every y coordinate."""
    full = np.concatenate([np.full(b - a, v.name, dtype=object)
                           for v, a, b in zip(view.obj.free, view.obj.offsets, view.obj.offsets[1:])])
    return full[np.asarray(view.space.up)]
