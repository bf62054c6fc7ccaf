"""Simplification: results stay expressions of the language, smaller and delta-free.

One pass in dependency order with a cache; each node is rebuilt from its simplified
children and rewritten by the rule of its type. Products are read as *terms*: a scalar
coefficient times factors with integer index letters. On a term:
  - nested products merge into one multi-operand contraction;
  - a delta pair becomes index relabelling when one of its letters is summed;
  - scalar constants fold into the coefficient, constant tensors into ones, and a ones
    factor whose every index another factor carries is dropped; zero kills the term;
  - sign(a) / abs(a) becomes 1 / a, and adj(Y) / det(Y) becomes inv(Y) (`IDENTITIES`);
  - factors on exactly the same indices merge into one element-wise product.
A sum is read as a list of terms: negations cancel, like terms add their coefficients,
and terms equal but for one factor add that factor (X^T diag(d1) X + X^T diag(d2) X
becomes X^T diag(d1 + d2) X). Element-wise functions and powers of constants fold,
x^1 = x, recip(recip(x)) = x, and equal subexpressions stay one node (hash-consing).
Every rewrite keeps the node's axes, which `simplify` asserts. Terms are monomials of
`algebra` (output letters 0..k-1, summed letters above), read here without distributing
products over sums, and written back as contractions.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from tensorcalc import dag
from tensorcalc.algebra.monomials import (
    Factor,
    Monomial,
    canonical_items,
)
from tensorcalc.algebra.terms import Context, emit, normal_term
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.errors import TensorCalcError
from tensorcalc.graph import digest
from tensorcalc.numeric.evaluate import ELEMENTWISE_FUNCTIONS


def simplify(expr: Expr) -> Expr:
    """An equal expression, usually with far fewer nodes (see the module docstring)."""
    if not isinstance(expr, Expr):
        raise TensorCalcError(f"simplify expects an expression, got {type(expr).__name__}")
    nodes = dag.topo(expr)
    inner_sums, inner_products, single = _inner(nodes, expr)
    new: dict[Expr, Expr] = {}
    for node in nodes:
        if node in inner_sums or node in inner_products:
            continue
        if isinstance(node, Sum):
            result = _sum(_addends(node, inner_sums, new), node.axes)
        elif _opens(node):
            result = emit(normal_term(node, Context(inner_products, single, new)), node.axes)
        else:
            result = RULES[type(node)](dag.rebuild(node, tuple(new[c] for c in node.args)))
        assert result.axes == node.axes, f"simplify changed the axes of {node!r}"
        new[node] = result
    return new[expr]


def _opens(node: Expr) -> bool:
    return isinstance(node, Product) or (isinstance(node, Elementwise) and node.fn == "neg")


def _inner(nodes: list[Expr], root: Expr) -> tuple[set[Expr], set[Expr], set[Expr]]:
    """Sums whose parents are all sums; products (or negations) whose one parent is a
    product or negation; and every node whose one parent is a product or negation.
    The first two are read as part of their parent, never on their own, so a chain of
    n products is flattened once, not n times; the third may be inlined by its parent."""
    parents: dict[Expr, list[Expr]] = {}
    for node in nodes:
        for child in node.args:
            parents.setdefault(child, []).append(node)
    sums: set[Expr] = set()
    products: set[Expr] = set()
    single: set[Expr] = set()
    for node in nodes:
        above = parents.get(node, [])
        if node is root or not above:
            continue
        if isinstance(node, Sum) and all(isinstance(p, Sum) for p in above):
            sums.add(node)
        if len(above) == 1 and _opens(above[0]):
            single.add(node)
            if _opens(node):
                products.add(node)
    return sums, products, single


def _addends(node: Sum, inner: set[Expr], new: dict[Expr, Expr]) -> list[Expr]:
    """The addends of a sum, read through inner sums and through simplified ones."""
    out: list[Expr] = []
    stack: list[Expr] = [node]
    while stack:
        n = stack.pop()
        if n is node or n in inner:
            stack.extend(reversed(n.args))
        else:
            out.append(new[n])
    return out


# ----------------------------------------------------------------------------- sums

def _key(term: Monomial, k: int, skip: int | None) -> tuple:
    """Term structure in canonical order and lettering (`algebra.canonical_items`); factor
    `skip` replaced by a placeholder with its axes (factors over different axes, u.u and
    v.v, cannot be added)."""
    idents = [b"*" + repr(f.node.axes).encode() if j == skip else digest(f.node) for j, f in enumerate(term.factors)]
    return tuple((ident, f.letters) for ident, f in canonical_items(list(term.factors), k, idents))


def _sum(addends: list[Expr], axes: tuple) -> Expr:
    addends = [leaf for a in addends for leaf in dag.addends(a)]
    terms = [normal_term(a) for a in addends]
    nodes = [emit(t, axes) for t in _collect(terms, len(axes)) if t.coef != 0.0]
    return dag.add_all(nodes) if nodes else dag.const(0.0, axes)


def _collect(terms: list[Monomial], k: int) -> list[Monomial]:
    """Add like terms, then terms that differ from a group's first term in one factor,
    the same factor for the whole group."""
    exact: dict[tuple, list[Monomial]] = {}
    for t in (t for t in terms if t.coef != 0.0):
        exact.setdefault(_key(t, k, None), []).append(t)
    keys: dict[tuple, tuple[_Group, int]] = {}
    groups: list[_Group] = []
    for t in (t for like in exact.values() for t in _added(like) if t.coef != 0.0):
        positions = range(len(t.factors)) if len(t.factors) > 1 else ()  # a skeleton, not nothing
        for p in positions:
            group, q = keys.get(_key(t, k, p), (None, None))
            if group is not None and group.q in (None, q):
                group.q = q
                group.members.append((t, p))
                break
        else:
            group = _Group(t)
            groups.append(group)
            for q in positions:
                keys.setdefault(_key(t, k, q), (group, q))
    return [g.combined() for g in groups]


def _added(like: list[Monomial]) -> list[Monomial]:
    """Like terms as one, or apart where the sum of their coefficients overflows."""
    total = sum(t.coef for t in like)
    return [Monomial(total, like[0].factors)] if math.isfinite(total) else like


class _Group:
    """Terms equal to `first` except for factor q (the members' factor p)."""

    def __init__(self, first: Monomial) -> None:
        self.first = first
        self.q: int | None = None
        self.members: list[tuple[Monomial, int]] = []

    def combined(self) -> Monomial:
        q = self.q
        if not self.members or q is None:            # q is set with the first member
            return self.first
        node, s, _ = self.first.factors[q]
        parts = [_scaled(self.first.coef, node)] + [_scaled(t.coef, t.factors[p].node) for t, p in self.members]
        factors = list(self.first.factors)
        factors[q] = Factor(_sum(parts, node.axes), s)
        return Monomial(1.0, tuple(factors))


def _scaled(coef: float, node: Expr) -> Expr:
    if coef == 1.0:
        return node
    if coef == -1.0:
        return dag.neg(node)
    return dag.scale(dag.const(coef), node)


# ----------------------------------------------------------------------------- node rules

def _product(node: Product) -> Expr:
    return emit(normal_term(node), node.axes)


def _elementwise(node: Elementwise) -> Expr:
    (arg,) = node.args
    if isinstance(arg, Const):
        with np.errstate(all="ignore"):
            value = float(ELEMENTWISE_FUNCTIONS[node.fn](np.float64(arg.value)))
        zero = arg.value == 0.0 or (node.fn == "relu" and arg.value < 0) or \
            (node.fn in ("log", "arccos") and arg.value == 1.0)
        if _foldable(value, zero):
            return dag.const(value, node.axes)
    if node.fn == "neg":
        return emit(normal_term(node), node.axes)
    if node.fn == "recip" and isinstance(arg, Elementwise) and arg.fn == "recip":
        return arg.args[0]
    return node


def _power(node: Power) -> Expr:
    base, exponent = node.args
    if isinstance(exponent, Const):
        if exponent.value == 1.0:
            return base
        if exponent.value == 0.0:
            return dag.const(1.0, node.axes)
        if isinstance(base, Const):
            with np.errstate(all="ignore"):
                value = float(np.power(base.value, exponent.value))
            if _foldable(value, base.value == 0.0 and exponent.value > 0):
                return dag.const(value, node.axes)
    return node


def _foldable(value: float, zero: bool) -> bool:
    """Whether a constant function value folds: finite, and 0 only where the exact value
    is (`zero`): a result that underflowed keeps its node, so no sign read later sees 0."""
    return bool(np.isfinite(value)) and (value != 0.0 or zero)


def _same(node: Expr) -> Expr:
    return node


def _gather(node: Gather) -> Expr:
    """A gather of zeros is zero."""
    x = node.args[0]
    if isinstance(x, Const) and x.value == 0.0:
        return dag.const(0.0, node.axes)
    return node


# One rule per node type, each correct on its own. The driver reads products and
# negations through `normal_term` with its context (inner and single-use operands), and
# sums through `_sum`, so for those types the table entries serve direct calls only.
RULES: dict[type[Expr], Callable[[Any], Expr]] = {
    Var: _same, Const: _same, Delta: _same, Special: _same,
    Sum: lambda node: _sum(list(node.args), node.axes),
    Product: _product, Elementwise: _elementwise, Power: _power, Gather: _gather,
}
