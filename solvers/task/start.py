"""The starting point of a solve: an x0 given for a free variable, checked against its
shape, bounds and cone, else a default inside them (`start`). Symmetric, pd and psd
matrix variables start at the identity (pd, psd), minus it (nd, nsd) or zeros
(symmetric); an x0 given for them must be symmetric and, for a definite cone, inside it.
"""
from __future__ import annotations

import numpy as np

from convexcheck.problem.admissible import in_bounds
from convexcheck.problem.model import Attributes
from solvers.numerics import cone
from solvers.task.records import Free, SolverError


def start(free: tuple[Free, ...], x0: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """x0 as given (checked against the bounds and cones), else zeros moved inside the
    bounds: lower + 1, upper - 1, or the midpoint when both are declared; a definite
    matrix starts at +-identity, a symmetric one at that constant."""
    start = {}
    for v in free:
        if v.name in x0:
            if x0[v.name].shape != v.shape:
                raise SolverError(f"x0[{v.name!r}] has shape {x0[v.name].shape}; variable "
                                  f"{v.name!r} has shape {v.shape}")
            if not in_bounds(v.attributes, x0[v.name]):
                raise SolverError(f"x0[{v.name!r}] lies outside the declared bounds "
                                  f"({v.attributes.describe()})")
            _check_matrix_start(v, x0[v.name])
            start[v.name] = x0[v.name].copy()
        elif v.attributes.definite:
            start[v.name] = _definite_start(v)
        else:
            start[v.name] = np.full(v.shape, _inside(v.attributes))
    return start


def _definite_start(v: Free) -> np.ndarray:
    sign = 1.0 if v.attributes.definite in ("pd", "psd") else -1.0
    eye = sign * np.eye(v.shape[0])
    if not in_bounds(v.attributes, eye):
        raise SolverError(f"variable {v.name!r} is declared {v.attributes.describe()}, which the "
                          f"default start {'' if sign > 0 else 'minus '}the identity does not meet; "
                          f"give x0[{v.name!r}]")
    return eye


def _check_matrix_start(v: Free, value: np.ndarray) -> None:
    """A symmetric variable's start must be symmetric; a definite one's strictly inside
    its cone (the solvers keep it there)."""
    a = v.attributes
    if not a.is_symmetric:
        return
    if not np.allclose(value, value.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(value).max()))):
        raise SolverError(f"x0[{v.name!r}] is not symmetric, but {v.name!r} is declared {a.describe()}")
    if a.definite:
        sign = 1.0 if a.definite in ("pd", "psd") else -1.0
        inner = sign * (value + value.T) / 2
        if cone.factor(np, inner) is None:          # positive definite to working precision
            low = float(np.linalg.eigvalsh(inner).min())
            raise SolverError(f"x0[{v.name!r}] must be strictly inside the {a.definite} cone to start "
                              f"(its {'lowest' if sign > 0 else 'highest'} eigenvalue is "
                              f"{sign * low:.3g}); add a multiple of the identity")


def _inside(a: Attributes) -> float:
    if a.lower is not None and a.upper is not None:
        return (a.lower + a.upper) / 2
    if a.lower is not None:
        return a.lower + 1.0
    if a.upper is not None:
        return a.upper - 1.0
    return 0.0
