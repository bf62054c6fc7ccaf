"""Lowering before expansion: identities that rewrite a node into an equal one whose
expansion into monomials (`tensorcalc.algebra.monomials.Expander`) is simpler. Each rule
takes the node and the atoms kept `separate` and gives the equal node, or None where the
node is an atom of its own. Every identity holds on the expression's domain (where inv and
recip are defined), so a sign read through it holds there.

    >>> from tensorcalc import dag
    >>> x = dag.var("x", ())
    >>> LOWER[Elementwise](dag.elementwise("recip", x), frozenset()) is dag.power(x, dag.const(-1.0))
    True
"""
from __future__ import annotations

from typing import Callable

from tensorcalc import dag
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Var
from tensorcalc.gather import affine


def selection(node: Gather) -> Expr:
    """E with gather(x)[b, g] = sum_s x[b, s] E[s, g]: E[s, g] = 1 where g is in the
    gather's domain and reads s, else 0 (a constant 0/1 tensor: the gather of a delta)."""
    x = node.args[0]
    src = x.axes[node.batch:]
    if not src:
        return affine.gather(dag.const(1.0), 0, node.shape, (), (), node.domain, node.axes[node.batch:])
    d = dag.delta(len(src), src + src)
    return affine.gather(d, len(src), node.shape, node.source, node.rows, node.domain, node.axes[node.batch:])


def _lower_gather(node: Gather, separate: frozenset) -> Expr | None:
    """A gather is linear: x *(b s, s g -> b g) E with the selection E an atom."""
    x = node.args[0]
    if node in separate or isinstance(x, (Var, Delta)) or (isinstance(x, Const) and x.order == 0):
        return None                         # a gathered direction or variable, or a selection
    b = dag.LETTERS[:node.batch]
    s = dag.LETTERS[node.batch:x.order]
    g = dag.LETTERS[x.order:x.order + len(node.shape)]
    return dag.contraction((x, selection(node)), (b + s, s + g, b + g))


def _lower_special(node: Special, separate: frozenset) -> Expr | None:
    """adj(X) = det(X) inv(X), inv(inv(Y)) = Y, det(inv(Y)) = 1 / det(Y), adj(inv(Y)) = Y / det(Y):
    identities where X and Y are invertible (a dense set, so a sign of a continuous Hessian
    read through them holds everywhere); det and inv are atoms otherwise."""
    x = node.args[0]
    if isinstance(x, Special) and x.fn == "inv":
        y = x.args[0]
        over_det = dag.power(dag.special("det", y), dag.const(-1.0))
        return {"inv": y, "det": over_det, "adj": dag.scale(over_det, y)}[node.fn]
    return dag.scale(dag.special("det", x), dag.special("inv", x)) if node.fn == "adj" else None


def _lower_elementwise(node: Elementwise, separate: frozenset) -> Expr | None:
    """-x = (-1) x and recip(x) = x^-1; other functions are atoms."""
    if node.fn == "neg":
        return dag.scale(dag.const(-1.0), node.args[0])
    return dag.power(node.args[0], dag.const(-1.0)) if node.fn == "recip" else None


def _lower_power(node: Power, separate: frozenset) -> Expr | None:
    """(a b)^p = a^p b^p for a whole p and a product that sums over no letter."""
    base, exponent = node.args
    if isinstance(exponent, Const) and float(exponent.value).is_integer() and isinstance(base, Product) \
            and set("".join(base.spec.inputs)) <= set(base.spec.out):
        return dag.contraction(tuple(dag.power(a, exponent) for a in base.args), base.spec)
    return None


LOWER: dict[type, Callable[..., Expr | None]] = {
    Gather: _lower_gather, Special: _lower_special, Elementwise: _lower_elementwise, Power: _lower_power}
