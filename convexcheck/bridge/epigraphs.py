"""Atoms with no formula, lowered by their epigraph in a DCP problem: a fresh variable and
constraints whose partial minimum is the atom (Boyd & Vandenberghe 3.2.5, 4.1.3).

    sum_largest(x, k)  = min_t  k t + sum(relu(x - t))
    sum_smallest(x, k) = -sum_largest(-x, k)
    cummax(x)          = min y  with  y >= x, y[j] >= y[j - 1]           (x a vector)
    lambda_max(X)      = min t  with  t I - (X + X') / 2 psd
    lambda_min(X)      = max t  with  (X + X') / 2 - t I psd

Replacing the atom by the fresh variable (and its constraints) is exact where the problem
is DCP: there every convex atom stands where the objective (or a constraint's side) does
not decrease with it, and every concave one where it does not increase, so minimising over
the fresh variable with the rest gives the atom's value. So these rules apply only in a
problem CVXPY calls DCP (`t.lifting`); elsewhere (an expression, a problem DCP rejects,
where the position may not be monotone) the atom is refused with that reason. The
constraints are written after CVXPY's (their multipliers are not CVXPY's), and the fresh
variables are not CVXPY's (no value is written back to them).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from convexcheck.bridge.cones import symmetric, tied
from convexcheck.bridge.data import number
from convexcheck.bridge.refused import refused
from convexcheck.bridge.text import Node, full
from convexcheck.problem.reader import ProblemError


def _fresh(t: Any, e: Any, stem: str, shape: tuple, words: list[str] | None = None) -> str:
    return t.declare("variable", (stem, e.id), stem, shape, words or [])


def sum_largest(t: Any, e: Any, x: Node, negate: bool = False) -> Node:
    """k t + sum(relu(x - t)), t fresh (of -x, negated, for sum_smallest)."""
    if not t.lifting:
        return refused(t, e, x)
    k = float(e.k)
    name = _fresh(t, e, "t_largest", ())
    arg = f"(-{x.text})" if negate else x.text
    text = f"({number(k)} * {name} + sum(relu({arg} - {full(name, x.shape) if x.shape else name})))"
    return Node(f"(-{text})" if negate else text, ())


def sum_smallest(t: Any, e: Any, x: Node) -> Node:
    return sum_largest(t, e, x, negate=True)


def cummax(t: Any, e: Any, x: Node) -> Node:
    """A fresh y >= x, nondecreasing along the vector."""
    if not t.lifting:
        return refused(t, e, x)
    if len(x.shape) != 1:
        raise ProblemError("cummax of a matrix is not translated; give it a vector")
    n = int(x.shape[0])
    name = _fresh(t, e, "y_cummax", x.shape)
    t.added_lines.append(f"{name} - {x.text} >= 0")
    if n > 1:
        t.added_lines.append(f"{name}[1:{n}] - {name}[0:{n - 1}] >= 0")
    return Node(name, x.shape)


def lambda_max(t: Any, e: Any, x: Node, lowest: bool = False) -> Node:
    """t with t I - sym(X) psd (lambda_min: sym(X) - t I psd), S a fresh psd variable tied to
    it on the upper triangle."""
    if not t.lifting:
        return refused(t, e, x)
    n = int(x.shape[0])
    name = _fresh(t, e, "t_lambda", ())
    slack = _fresh(t, e, "S_lambda", x.shape, ["psd"])
    eye, sym = t.constant(np.eye(n)).text, symmetric(x.text)
    t.added_lines.append(tied(t, slack, f"({sym} - ({name} * {eye}))" if lowest else f"(({name} * {eye}) - {sym})", n))
    return Node(name, ())


def lambda_min(t: Any, e: Any, x: Node) -> Node:
    return lambda_max(t, e, x, lowest=True)


RULES = {"sum_largest": sum_largest, "sum_smallest": sum_smallest, "cummax": cummax,
         "lambda_max": lambda_max, "lambda_min": lambda_min}
