"""CVXPY's cone constraints in the translation: `X >> Y` (PSD), `cp.SOC(t, x)`.

A PSD constraint on a plain variable (`X >> 0`) is the variable's declaration (`psd`: the
solvers keep it in the cone, the analysis samples inside it), no constraint line; on any
other expression A, a fresh variable S declared psd with the line S - (A + A') / 2 == 0
on the upper triangle (CVXPY constrains A's symmetric part; both sides are symmetric, and
the lower triangle's rows would repeat the upper's). Its dual, as CVXPY reports it, is the multiplier
of the cone ("cone of X", "cone of S"). `SOC(t, x)` is ||x||_2 <= t (per column or row with
`axis`), written as the bridge writes 2-norms, sqrt(sum(x ^ 2)) - t <= 0, which the solvers
treat as a second-order cone. `ExpCone(x, y, z)` is y exp(x / y) <= z entrywise (a
perspective of exp, y > 0: a plain y is declared pos), `PowCone3D(x, y, z, alpha)` is
|z| <= x^alpha y^(1 - alpha) written exp(alpha log x + (1 - alpha) log y) (x, y > 0; plain
ones declared pos): the interiors of CVXPY's cones, whose closures CVXPY solves on.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from convexcheck.bridge.domains import plain_shifted
from convexcheck.bridge.text import Node, axis_sum, fit, times
from convexcheck.problem.reader import ProblemError


def psd(t: Any, c: Any, row: int) -> tuple[str | None, str]:
    """(line or None, the label of its dual) for the PSD constraint c; `row`: the line's
    number among the problem's constraint lines."""
    arg = c.args[0]
    if len(arg.shape) != 2 or arg.shape[0] != arg.shape[1]:
        raise ProblemError(f"a PSD constraint needs a square matrix, not shape {tuple(arg.shape)}")
    leaf = plain_shifted(arg)
    if leaf is not None:
        return None, f"cone of {t.attribute(leaf, 'psd')}"
    text = t.node(arg).text
    name = t.declare("variable", ("psd", c.id), f"S{row}", arg.shape, ["psd"])
    return tied(t, name, symmetric(text), int(arg.shape[0])), f"cone of {name}"


def symmetric(text: str) -> str:
    """(A + A') / 2 of a square matrix's text."""
    return f"(({text} + ({text} *(ij,->ji) 1)) / 2)"


def tied(t: Any, name: str, text: str, n: int) -> str:
    """The line name == text for two symmetric n x n matrices, on the upper triangle (the
    lower triangle's rows would repeat the upper's: dependent equalities)."""
    upper = np.zeros((n * (n + 1) // 2, n, n))
    i, j = np.triu_indices(n)
    upper[np.arange(i.size), i, j] = 1.0
    return f"{t.constant(upper).text} *(kij,ij->k) ({name} - {text}) == 0"


def soc(t: Any, c: Any) -> str:
    """The line of `cp.SOC(t, x, axis)`: ||x|| <= t per cone."""
    bound, x = c.args[0], c.args[1]
    node, top = t.node(x), t.node(bound)
    axis = c.axis if len(x.shape) > 1 else None
    norms = f"sqrt({axis_sum(f'({node.text} ^ 2)', node.shape, axis)})"
    shape = tuple(bound.shape)
    if not shape or all(d == 1 for d in shape):
        return f"{norms} - {t.scalar(top, 'the bound of a SOC constraint')} <= 0"
    return f"{norms} - {fit(top, shape)} <= 0"


def exp_cone(t: Any, c: Any) -> str:
    """The line of `ExpCone(x, y, z)`: y exp(x / y) - z <= 0 entrywise."""
    x, y, z = (t.node(a) for a in c.args)
    _positive(t, c.args[1])
    shape = tuple(c.args[2].shape)
    scaled = times(Node(fit(y, shape), shape), Node(f"exp({fit(x, shape)} / {fit(y, shape)})", shape), shape)
    return f"{scaled} - {fit(z, shape)} <= 0"


def pow_cone(t: Any, c: Any) -> str:
    """The line of `PowCone3D(x, y, z, alpha)`: |z| - x^alpha y^(1 - alpha) <= 0 entrywise."""
    x, y, z = (t.node(a) for a in c.args[:3])
    alpha = np.asarray(c.alpha.value, dtype=float).reshape(-1)
    if c.alpha.parameters() or not np.all(alpha == alpha[0]) or not 0 < alpha[0] < 1:
        raise ProblemError("PowCone3D: give one number alpha in (0, 1) for every cone (the certificate reads "
                           "its weights as numbers)")
    for arg in c.args[:2]:
        _positive(t, arg)
    shape, a = tuple(c.args[2].shape), float(alpha[0])
    inner = f"{a!r} * log({fit(x, shape)}) + {1.0 - a!r} * log({fit(y, shape)})"
    return f"abs({fit(z, shape)}) - exp({inner}) <= 0"


def _positive(t: Any, arg: Any) -> None:
    """A plain variable a cone needs positive declared pos (CVXPY's cone: its closure)."""
    leaf = plain_shifted(arg)
    if leaf is not None:
        t.attribute(leaf, "pos")
