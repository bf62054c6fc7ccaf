"""Constraints of any order, one per entry: `G * x <= h` holds row by row.

The curvature of a tensor-valued constraint g - h is read through the scalar
w . (g - h), w a fresh parameter of the constraint's shape declared nonneg. Every entry
of g - h is convex exactly when w . (g - h) is convex for every w >= 0 (a nonnegative
combination of convex functions is convex; w = e_i picks one entry), concave likewise,
and affine exactly when the combination is both. So a proof for the weighted part is a
proof for every entry, and a witness against it, at some w >= 0, is a witness against
an entry: the analysis of scalar parts applies unchanged, soundly in both directions.
"""
from __future__ import annotations

import dataclasses

from convexcheck.problem.model import Attributes, Declaration, Part, Problem
from tensorcalc import dag
from tensorcalc.numeric.evaluate import fixed_lengths


def scalar_problem(problem: Problem) -> Problem:
    """`problem` with every constraint of order >= 1 replaced by its weighted scalar
    (see the module docstring); the problem itself when every part is a scalar."""
    if not any(part.expr.order for part in problem.constraints):
        return problem
    declarations = dict(problem.declarations)
    parts = [_weighted(part, declarations) if part.expr.order else part for part in problem.constraints]
    return dataclasses.replace(problem, declarations=declarations, constraints=tuple(parts))


def _weighted(part: Part, declarations: dict) -> Part:
    """w . expr for a fresh nonneg parameter w, declared in `declarations` (changed)."""
    name = _fresh(f"w_{part.label.replace(' ', '_')}", declarations)
    dims = _dims(part.expr, declarations)
    declarations[name] = Declaration(name, "parameter", dims, Attributes(lower=0.0), part.line)
    w = dag.var(name, part.expr.axes)
    letters = dag.LETTERS[:part.expr.order]
    return dataclasses.replace(part, expr=dag.product(w, part.expr, (letters, letters, "")))


def _fresh(name: str, taken) -> str:
    while name in taken:
        name += "_"
    return name


def _dims(expr, declarations: dict) -> tuple:
    """The dimension of each axis of `expr`: the length a gather fixes, else the declared
    dimension of a variable carrying it, else a name of its own (a constant's axis, its
    length set when sampled)."""
    found = {axis: n for axis, n, _ in fixed_lengths(dag.topo(expr))}   # gathers: slices, defines
    for name, var in dag.variables(expr).items():
        for k, axis in enumerate(var.axes):
            found.setdefault(axis, declarations[name].dims[k])
    return tuple(found.get(axis, f"{axis.var}_{axis.pos}") for axis in expr.axes)


__all__ = ["scalar_problem"]
