"""Unbounded convex problems told apart from a solve that stalled: a feasible point and
a direction of travel along which the constraints keep holding and f keeps falling.

A constrained solve of a problem proven convex may stop without converging (ITERATION_LIMIT
or LINE_SEARCH_FAILED) because the objective has no minimum on the feasible set: the iterates run off along
a recession direction while a barrier keeps them inside (tr(X) over nsd X with q'Xq = 0).
`unbounded` turns such a stop into a certificate, never into a guess:

1. The point: where the solve stopped, y, where it meets every constraint (the check of
   3.), else y rounded onto the constraints (onto the affine set of the equality rows,
   every definite matrix's eigenvalues clipped into its cone, the bounds) and kept only
   where it then meets every constraint.
2. The direction: the way travelled, d = y - y0, rounded onto the constraints'
   recession cone the same way (the null space of the equality rows, which in a convex
   problem are affine, so their Jacobian is one matrix; each cone; the closed bounds),
   alternately, ROUNDS times.
3. The check, in floating point, at every distance the no-minimiser test probes
   (`certify.RAY` and `certify.BEYOND`, out to 1e18 times the point's scale): every
   constraint row and bound within INFEASIBLE plus the rounding of its terms there
   (ROUNDING n |J_i|.|p|: a row that grows along d at a rate above rounding fails far
   enough out), every cone's lowest eigenvalue above -ROUNDING n times its largest, and f falling
   there as `certify.no_minimiser` asks (f evaluated on the closed cones: the rounding
   leaves points on a cone's boundary, which the barrier's view calls outside). A convex feasible set that holds y and
   y + s d holds the segment between them.

Only then is the stop NO_MINIMISER; a direction that fails any check leaves the status as
it was (a false "unbounded" is as wrong as a false success).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from solvers.constrained.feasibility import INFEASIBLE
from solvers.methods import stopping as certify
from solvers.methods.stopping import LARGEST, ROUNDING  # ROUNDING per coordinate; LARGEST Jacobian entries (dense SVD)
from solvers.numerics.space import Space, View
from solvers.objective.constraints import Constraints

ROUNDS = 20          # alternating roundings onto the equalities, cones and bounds


def unbounded(view: View, cons: Constraints, y: np.ndarray, y0: np.ndarray) -> tuple[float, float, float] | None:
    """(f at the farthest probe of its fall, that distance, the farthest distance at
    which the constraints were checked) where f falls without bound along the
    way from y0 to y and the constraints hold there (see the module docstring); else
    None. Host (NumPy) arrays only."""
    if not (np.isfinite(y).all() and np.isfinite(y0).all()) or not view.n:
        return None
    _, J = cons.values_jacobian(y)
    if J.size > LARGEST or not np.isfinite(J).all():
        return None
    E, absJ = J[cons.equality], np.abs(J)
    basis, inverse, e = _row_space(E), np.linalg.pinv(E), _offset(cons, E, y)
    lower, upper = view.bounds(strict=True)
    p = y if _holds(view, cons, absJ, y) else _rounded(view, basis.size, y, lambda z: z - inverse @ (E @ z - e),
                                                     lower, upper)
    d = _rounded(view, basis.size, y - y0, lambda z: z - basis.T @ (basis @ z),
                 np.where(np.isfinite(lower), 0.0, -np.inf), np.where(np.isfinite(upper), 0.0, np.inf))
    size = float(np.abs(d).max())
    if not (np.isfinite(p).all() and size > 0 and _holds(view, cons, absJ, p)):
        return None
    d = d / size
    unit = certify.scale(view, p, y0)
    if not all(_holds(view, cons, absJ, p + (r * unit) * d) for r in certify.RAY + certify.BEYOND):
        return None
    closed = View(view.obj, closed=True)
    found = certify.no_minimiser(closed, p, closed.value(p), [d], y0)
    return None if found is None else (*found, certify.BEYOND[-1] * unit)


def _offset(cons: Constraints, E: np.ndarray, y: np.ndarray) -> np.ndarray:
    """e with the equality rows E y - e = c_eq(y) (affine rows: exact anywhere)."""
    return E @ y - cons.values(y)[cons.equality]


def _row_space(E: np.ndarray) -> np.ndarray:
    """An orthonormal basis (rows) of the row space of E, rank decided as `lstsq` does."""
    if not E.shape[0]:
        return np.zeros((0, E.shape[1]))
    _, sv, Vt = np.linalg.svd(E, full_matrices=False)
    keep = sv > sv.max(initial=0.0) * max(E.shape) * np.finfo(float).eps
    return Vt[keep]


def _rounded(view: View, rows: int, z: np.ndarray, onto_rows: Callable[[np.ndarray], np.ndarray],
             lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """z after ROUNDS alternations of `onto_rows` (the equality rows' affine set or null
    space), the cones and the box [lower, upper] (the bounds for a point, their
    recession cone for a direction); once without rows."""
    for _ in range(ROUNDS if rows else 1):
        z = onto_rows(z) if rows else z
        z = np.minimum(np.maximum(_into_cones(view.space, z), lower), upper)
    return z


def _into_cones(space: Space, z: np.ndarray) -> np.ndarray:
    """z with every definite matrix's eigenvalues below 0 (in sign * X) set to 0."""
    if not space.cones:
        return z
    z = z.copy()
    for c, (sign, X) in zip(space.cones, space.matrices(z)):
        w, V = np.linalg.eigh(sign * (X + X.T) / 2)
        kept = (V * np.maximum(w, 0.0)) @ V.T
        z[c.where] = (sign * kept)[np.triu_indices(c.n)]
    return z


def _holds(view: View, cons: Constraints, absJ: np.ndarray, p: np.ndarray) -> bool:
    """Every constraint row at p within INFEASIBLE + ROUNDING n |J_i|.|p| (the rounding
    of its n terms: a row that truly grows along d, however slowly, fails far enough out),
    every bound within INFEASIBLE + ROUNDING n |p|, every cone's lowest eigenvalue above
    -ROUNDING n times its largest. absJ is |J|, the constraints' Jacobian's absolute values."""
    rounding = ROUNDING * view.n
    values = cons.values(p)
    if not np.isfinite(values).all():
        return False
    excess = np.where(cons.equality, np.abs(values), np.maximum(values, 0.0))
    if np.any(excess > INFEASIBLE + rounding * (absJ @ np.abs(p))):
        return False
    box, allowed = view.box, INFEASIBLE + rounding * float(np.abs(p).max())
    if box is not None and (np.any(box.lower - p > allowed) or np.any(p - box.upper > allowed)):
        return False
    for sign, X in view.space.matrices(p):
        w = np.linalg.eigvalsh(sign * (X + X.T) / 2)
        if not (np.isfinite(w).all() and w.min() >= -rounding * float(np.abs(w).max())):
            return False
    return True
