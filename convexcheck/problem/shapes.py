"""Parts that are one expression up to the names of their parameters (500 norm constraints
`norm(c - p_i) <= r` of a CVXPY problem, one point p_i each): a canonical form and its key.

`shape_of(problem, expr)` renames the parameters `expr` reads to CANONICAL names in order
of first appearance (`_p0_`, `_p1_`, ...: names no declaration can have, as the parser
refuses names starting with '_'), node by node with their axes, and keys the result by
what a proof may use: the renamed expression (hash-consed, so equal forms are one node),
the declarations (kind, dimensions, attributes) of every name it reads, and the order in
which its parameters are declared (the order in which conditions are tried). A proof
reads declared attributes only, never data values (`composition.classify` takes no
data), so parts with one key have one certificate, each read with its own names
(`named`). The key never forgets a declaration: a nonneg and a free parameter, or
dimensions [n] and [m], give different keys.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from convexcheck.problem.model import Declaration, Problem
from tensorcalc import dag
from tensorcalc.dag import Expr, Var
from tensorcalc.dag.axes import Axis

CANONICAL = re.compile(r"(?<![A-Za-z0-9_])_p(\d+)_(?![A-Za-z0-9_])")     # a canonical name in a text


@dataclass(frozen=True)
class Shape:
    """One part in canonical form. `key` is None where the part cannot be renamed safely
    (a name of its own already looks canonical): then `expr` is the part itself and it
    shares with nothing. `declarations`: of every name `expr` reads, by its name there,
    in the problem's declaration order. `names`: canonical name -> the part's own."""

    key: tuple | None
    expr: Expr
    declarations: dict[str, Declaration]
    names: dict[str, str]

    def named(self, text: str) -> str:
        """`text` (a proof's rule, a failure) with the canonical names replaced by the part's own."""
        return CANONICAL.sub(lambda m: self.names.get(m.group(0), m.group(0)), text) if self.names else text


def canonical_name(k: int) -> str:
    return f"_p{k}_"


def shape_of(problem: Problem, expr: Expr) -> Shape:
    """The canonical form of `expr` (a part of `problem`) and its key; see the module docstring."""
    present = dag.variables(expr)                                   # in order of first appearance
    order = [n for n in problem.declarations if n in present]       # in declaration order
    if len(order) != len(present) or _looks_canonical(expr):
        return Shape(None, expr, {n: problem.declarations[n] for n in order}, {})
    params = [n for n in present if problem.declarations[n].kind == "parameter"]
    rename = {n: canonical_name(k) for k, n in enumerate(params)}
    renamed = _renamed(expr, rename)
    declarations = {rename.get(n, n): dataclasses.replace(problem.declarations[n], name=rename.get(n, n), line=0)
                    for n in order}
    key = (renamed, tuple((n, d.kind, d.dims, d.attributes) for n, d in declarations.items()))
    return Shape(key, renamed, declarations, {new: old for old, new in rename.items()})


def _looks_canonical(expr: Expr) -> bool:
    """Whether a name or axis of `expr` already has a canonical form (renaming could merge two)."""
    return any(CANONICAL.fullmatch(name) for node in dag.topo(expr)
               for name in ([node.name] if isinstance(node, Var) else []) + [a.var for a in node.axes])


def _renamed(expr: Expr, rename: dict[str, str]) -> Expr:
    """`expr` with the variables in `rename` renamed, and every axis that names them, node by
    node (no node's parameters name an axis; only a variable's names itself)."""
    axis = lambda a: Axis(rename[a.var], a.pos) if a.var in rename else a  # noqa: E731
    new: dict[Expr, Expr] = {}
    for node in dag.topo(expr):
        params = (rename.get(node.name, node.name),) if isinstance(node, Var) else node.params()
        new[node] = dag.intern(type(node), params, tuple(new[c] for c in node.args), tuple(map(axis, node.axes)))
    return new[expr]
