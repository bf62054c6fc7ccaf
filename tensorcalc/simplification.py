"""Simplification: results stay expressions of the language, smaller and delta-free.

One pass in dependency order with a cache; each node is rebuilt from its simplified
children and rewritten by the rule of its type. Products are read as *terms*: a scalar
coefficient times factors with integer index letters. On a term:
  - nested products merge into one multi-operand contraction;
  - a delta pair becomes index relabelling when one of its letters is summed;
  - scalar constants fold into the coefficient, constant tensors into ones, and a ones
    factor whose every index another factor carries is dropped; zero kills the term;
  - factors on exactly the same indices merge into one element-wise product.
A sum is read as a list of terms: negations cancel, like terms add their coefficients,
and terms equal but for one factor add that factor (X^T diag(d1) X + X^T diag(d2) X
becomes X^T diag(d1 + d2) X). Element-wise functions and powers of constants fold,
x^1 = x, recip(recip(x)) = x, and equal subexpressions stay one node (hash-consing).
Every rewrite keeps the node's axes, which `simplify` asserts.
"""
from __future__ import annotations

import numpy as np

from . import dag
from .dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from .errors import TensorCalcError
from .evaluation import ELEMENTWISE_FUNCTIONS
from .graph import digest
from .terms import Context, Letters, Term, emit, normal_term


def simplify(expr: Expr) -> Expr:
    """An equal expression, usually with far fewer nodes (see the module docstring)."""
    if not isinstance(expr, Expr):
        raise TensorCalcError(f"simplify expects an expression, got {type(expr).__name__}")
    nodes = dag.topo(expr)
    inner_sums, inner_products, single = _inner(nodes, expr)
    letters = Letters()
    new: dict[Expr, Expr] = {}
    for node in nodes:
        if node in inner_sums or node in inner_products:
            continue
        if isinstance(node, Sum):
            result = _sum(_addends(node, inner_sums, new), node.axes, letters)
        elif _opens(node):
            result = emit(normal_term(node, letters, Context(inner_products, single, new)), node.axes)
        else:
            result = RULES[type(node)](dag.rebuild(node, tuple(new[c] for c in node.args)), letters)
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
    sums, products, single = set(), set(), set()
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
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n is node or n in inner:
            stack.extend(reversed(n.args))
        else:
            out.append(new[n])
    return out


def _leaves(total: Sum) -> list[Expr]:
    out, stack = [], [total]
    while stack:
        n = stack.pop()
        if isinstance(n, Sum):
            stack.extend(reversed(n.args))
        else:
            out.append(n)
    return out


# ----------------------------------------------------------------------------- sums

def _key(term: Term, skip: int | None) -> tuple:
    """Term structure with output letters by position and summed letters renamed in a
    canonical order; factor `skip` replaced by a placeholder with its index pattern and
    its axes (factors over different axes, u.u and v.v, cannot be added)."""
    outpos = {c: ("o", k) for k, c in enumerate(term.out)}
    items = [(b"*" + repr(f.axes).encode() if k == skip else digest(f),
              tuple(outpos.get(c, ("s",)) for c in s), s)
             for k, (f, s) in enumerate(term.factors)]
    items.sort(key=lambda it: (it[0], it[1]))
    rename: dict[int, tuple] = dict(outpos)
    for _, _, s in items:
        for c in s:
            rename.setdefault(c, ("s", len(rename)))
    return tuple((ident, tuple(rename[c] for c in s)) for ident, _, s in items)


def _sum(addends: list[Expr], axes: tuple, letters: Letters) -> Expr:
    addends = [leaf for a in addends for leaf in (_leaves(a) if isinstance(a, Sum) else [a])]
    terms = [normal_term(a, letters) for a in addends]
    nodes = [emit(t, axes) for t in _collect(terms, letters) if t.coef != 0.0]
    return dag.add_all(nodes) if nodes else dag.const(0.0, axes)


def _collect(terms: list[Term], letters: Letters) -> list[Term]:
    """Add like terms, then terms that differ from a group's first term in one factor,
    the same factor for the whole group."""
    exact: dict[tuple, Term] = {}
    for t in terms:
        key = _key(t, None)
        if key in exact:
            exact[key].coef += t.coef
        elif t.coef != 0.0:
            exact[key] = Term(t.coef, t.factors, t.out)
    keys: dict[tuple, tuple[_Group, int]] = {}
    groups: list[_Group] = []
    for t in (t for t in exact.values() if t.coef != 0.0):
        positions = range(len(t.factors)) if len(t.factors) > 1 else ()  # a skeleton, not nothing
        for p in positions:
            group, q = keys.get(_key(t, p), (None, None))
            if group is not None and group.q in (None, q):
                group.q = q
                group.members.append((t, p))
                break
        else:
            group = _Group(t)
            groups.append(group)
            for q in positions:
                keys.setdefault(_key(t, q), (group, q))
    return [g.combined(letters) for g in groups]


class _Group:
    """Terms equal to `first` except for factor q (the members' factor p)."""

    def __init__(self, first: Term):
        self.first, self.q, self.members = first, None, []

    def combined(self, letters: Letters) -> Term:
        if not self.members:
            return self.first
        node, s = self.first.factors[self.q]
        parts = [_scaled(self.first.coef, node)] + [_scaled(t.coef, t.factors[p][0]) for t, p in self.members]
        factors = list(self.first.factors)
        factors[self.q] = (_sum(parts, node.axes, letters), s)
        return Term(1.0, factors, self.first.out)


def _scaled(coef: float, node: Expr) -> Expr:
    if coef == 1.0:
        return node
    if coef == -1.0:
        return dag.neg(node)
    return dag.scale(dag.const(coef), node)


# ----------------------------------------------------------------------------- node rules

def _product(node: Product, letters: Letters) -> Expr:
    return emit(normal_term(node, letters), node.axes)


def _elementwise(node: Elementwise, letters: Letters) -> Expr:
    (arg,) = node.args
    if isinstance(arg, Const):
        with np.errstate(all="ignore"):
            value = float(ELEMENTWISE_FUNCTIONS[node.fn](np.float64(arg.value)))
        if np.isfinite(value):
            return dag.const(value, node.axes)
    if node.fn == "neg":
        return emit(normal_term(node, letters), node.axes)
    if node.fn == "recip" and isinstance(arg, Elementwise) and arg.fn == "recip":
        return arg.args[0]
    return node


def _power(node: Power, letters: Letters) -> Expr:
    base, exponent = node.args
    if isinstance(exponent, Const):
        if exponent.value == 1.0:
            return base
        if exponent.value == 0.0:
            return dag.const(1.0, node.axes)
        if isinstance(base, Const):
            with np.errstate(all="ignore"):
                value = float(np.power(base.value, exponent.value))
            if np.isfinite(value):
                return dag.const(value, node.axes)
    return node


def _same(node: Expr, letters: Letters) -> Expr:
    return node


def _gather(node: Gather, letters: Letters) -> Expr:
    """A gather of zeros is zero."""
    x = node.args[0]
    if isinstance(x, Const) and x.value == 0.0:
        return dag.const(0.0, node.axes)
    return node


# One rule per node type, each correct on its own. The driver reads products and
# negations through `normal_term` with its context (inner and single-use operands), and
# sums through `_sum`, so for those types the table entries serve direct calls only.
RULES = {
    Var: _same, Const: _same, Delta: _same, Special: _same,
    Sum: lambda node, letters: _sum(list(node.args), node.axes, letters),
    Product: _product, Elementwise: _elementwise, Power: _power, Gather: _gather,
}
