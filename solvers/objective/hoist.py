"""Loop-invariant hoisting: the parts of the compiled expressions that read only fixed
arrays (parameters, variables held fixed) are computed once per solve, not once per
evaluation.

`hoist(exprs, free)` returns the expressions with every maximal subexpression that reads
a fixed array and no free variable replaced by a new variable, and those subexpressions
by the new names. In masked matrix completion, for example, M * M and -Y are then
computed once instead of at every evaluation. One walk in dependency order.
"""
from __future__ import annotations

from tensorcalc import dag
from tensorcalc.dag import Const, Delta, Expr, Var


def hoist(exprs: list[Expr], free: tuple[str, ...]) -> tuple[list[Expr], dict[str, Expr]]:
    """(rewritten exprs, {new name: invariant subexpression}); see the module docstring."""
    nodes = dag.topo(*exprs)
    taken = {n.name for n in nodes if isinstance(n, Var)}
    depends: dict[Expr, bool] = {}
    reads: dict[Expr, bool] = {}
    for node in nodes:
        depends[node] = (isinstance(node, Var) and node.name in free) or any(depends[c] for c in node.args)
        reads[node] = isinstance(node, Var) or any(reads[c] for c in node.args)
    hoisted: dict[str, Expr] = {}
    names: dict[Expr, Expr] = {}

    def invariant(node: Expr) -> Expr:
        if depends[node] or not reads[node] or isinstance(node, (Var, Const, Delta)):
            return new[node]
        if node not in names:
            name = _fresh(f"invariant{len(hoisted)}", taken)
            hoisted[name], names[node] = node, dag.var(name, node.axes)
        return names[node]

    new: dict[Expr, Expr] = {}
    for node in nodes:
        new[node] = dag.rebuild(node, tuple(map(invariant, node.args))) if depends[node] else node
    return [invariant(e) for e in exprs], hoisted


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name
