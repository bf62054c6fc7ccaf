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

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from . import dag
from .dag import Const, Delta, Elementwise, Expr, Power, Product, Special, Sum, Var
from .errors import TensorCalcError


@dataclass
class Term:
    """coef * (contraction of `factors`, each a (node, letters) pair, into `out`)."""

    coef: float
    factors: list[tuple[Expr, tuple[int, ...]]]
    out: tuple[int, ...]


class _Letters:
    """Integer index letters, fresh on demand: terms never run out of letters."""

    def __init__(self):
        self._count = itertools.count()

    def fresh(self, n: int) -> tuple[int, ...]:
        return tuple(next(self._count) for _ in range(n))


def simplify(expr: Expr) -> Expr:
    """An equal expression, usually with far fewer nodes (see the module docstring)."""
    if not isinstance(expr, Expr):
        raise TensorCalcError(f"simplify expects an expression, got {type(expr).__name__}")
    nodes = dag.topo(expr)
    inner_sums, inner_products, single = _inner(nodes, expr)
    letters = _Letters()
    new: dict[Expr, Expr] = {}
    for node in nodes:
        if node in inner_sums or node in inner_products:
            continue
        if isinstance(node, Sum):
            result = _sum(_addends(node, inner_sums, new), node.axes, letters)
        else:
            if _opens(node):
                result = emit(normal_term(node, letters, _Context(inner_products, single, new)), node.axes)
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


# ----------------------------------------------------------------------------- reading terms

def term_of(node: Expr, letters: _Letters, out: tuple[int, ...], ctx: "_Context | None" = None) -> Term:
    """`node` as a term whose output letters are `out`.

    Read as factors: the node itself; the original products below it that only it uses
    (`ctx.inner`), all the way down; and one level of a simplified operand that only it
    uses or that sums over no index (an element-wise or broadcast product: inlining it
    never costs more). Anything else is a factor, its constant and sign moved into the
    coefficient. Iterative, so product chains of any length are fine."""
    ctx = ctx or _Context()
    term = Term(1.0, [], out)
    stack = [(node, out, "open")]
    while stack:
        n, o, mode = stack.pop()
        if mode == "operand":
            n, mode = ctx.resolve(n)
        while mode != "open" and isinstance(n, Elementwise) and n.fn == "neg":
            term.coef, n = -term.coef, n.args[0]
        if isinstance(n, Const):
            term.coef *= n.value
            if n.order:
                term.factors.append((dag.const(1.0, n.axes), o))
        elif mode == "open" and isinstance(n, Elementwise) and n.fn == "neg":
            term.coef = -term.coef
            stack.append((n.args[0], o, ctx.below_neg(n.args[0])))
        elif mode in ("open", "level") and isinstance(n, Product):
            stack.extend((x, t, ctx.below(x) if mode == "open" else "factor")
                         for x, t in reversed(_operands(n, o, letters)))
        else:
            term.factors.append((n, o))
    return term


class _Context:
    """What `term_of` may open: inner originals, and simplified operands (`new`) that
    have a single parent (`single`) or sum over nothing. Without `new`, the node read
    is itself simplified (a sum's addend), and a negation's body is its term."""

    def __init__(self, inner=frozenset(), single=frozenset(), new=None):
        self.inner, self.single, self.new = inner, single, new

    def below(self, operand: Expr) -> str:
        return "open" if operand in self.inner else "operand"

    def below_neg(self, operand: Expr) -> str:
        return "open" if operand in self.inner or self.new is None else "operand"

    def resolve(self, operand: Expr) -> tuple[Expr, str]:
        n = operand if self.new is None else self.new.get(operand, operand)
        while isinstance(n, Elementwise) and n.fn == "neg":
            return n, "factor"                      # its sign is taken by the caller's loop
        if isinstance(n, Product) and (operand in self.single or _sums_nothing(n)):
            return n, "level"
        return n, "factor"


def _sums_nothing(product: Product) -> bool:
    return set("".join(product.spec.inputs)) <= set(product.spec.out)


def _operands(n: Product, out: tuple[int, ...], letters: _Letters) -> list[tuple[Expr, tuple[int, ...]]]:
    inputs, spec_out = n.spec
    name = dict(zip(spec_out, out))
    for c in "".join(inputs):
        if c not in name:
            name[c] = letters.fresh(1)[0]
    return [(operand, tuple(name[c] for c in s)) for operand, s in zip(n.args, inputs)]


def _eliminate_deltas(term: Term) -> None:
    """Relabel indices instead of multiplying by deltas: sum_b delta[a,b] g[b] = g[a].

    A pair is kept when both its letters are outputs (a diagonal embedding) or when
    no other factor carries either letter (then it is a broadcast or sums to an axis
    length). Letters are merged with a union-find and counted, so a term of F factors
    costs O(F)."""
    alias: dict[int, int] = {}

    def find(c: int) -> int:
        while c in alias:
            c = alias[c]
        return c

    count = Counter(c for _, s in term.factors for c in s)   # factor occurrences only
    out, factors = set(term.out), []
    for node, s in term.factors:
        if not isinstance(node, Delta):
            factors.append((node, s))
            continue
        kept = []
        for a, b, ax in zip(s[:node.n], s[node.n:], node.axes):
            a, b = find(a), find(b)
            if a == b and count[a] > 2:
                count[a] -= 2
            elif a == b or (a in out and b in out) or count[a] + count[b] <= 2:
                kept.append((a, b, ax))
            else:
                old, new = (b, a) if b not in out else (a, b)
                alias[old] = new
                count[new] += count.pop(old) - 2
        if kept:
            d = dag.delta(len(kept), [ax for _, _, ax in kept] * 2)
            factors.append((d, tuple(a for a, _, _ in kept) + tuple(b for _, b, _ in kept)))
    term.factors = [(node, tuple(find(c) for c in s)) for node, s in factors]


def _drop_ones(term: Term) -> None:
    """Drop ones factors, one at a time, while each of their letters is still carried by
    another remaining factor (a letter only a ones factor carries is a broadcast or a
    sum over an axis length, which only that factor can say)."""
    count = Counter(c for _, s in term.factors for c in s)
    kept = []
    for node, s in term.factors:
        own = Counter(s)
        if isinstance(node, Const) and node.value == 1.0 and all(count[c] > own[c] for c in own):
            count -= own
        else:
            kept.append((node, s))
    term.factors = kept


def _merge_same_indices(term: Term) -> None:
    """Factors on the very same index tuple become one element-wise product."""
    groups: dict[tuple[int, ...], list[Expr]] = {}
    for node, s in term.factors:
        groups.setdefault(s, []).append(node)
    merged = []
    for s, nodes in groups.items():
        nodes = sorted(nodes, key=dag.digest)          # the element-wise product commutes
        node = nodes[0]
        for other in nodes[1:]:
            node = dag.hadamard(node, other)
        merged.append((node, s))
    term.factors = merged


def normal_term(node: Expr, letters: _Letters, ctx: _Context | None = None) -> Term:
    term = term_of(node, letters, letters.fresh(node.order), ctx)
    for f, _ in term.factors:
        if isinstance(f, Const) and f.value == 0.0:
            term.coef = 0.0
    if term.coef == 0.0:
        return Term(0.0, [], term.out)
    _eliminate_deltas(term)
    _drop_ones(term)
    _merge_same_indices(term)
    return term


# ----------------------------------------------------------------------------- writing terms

def emit(term: Term, axes: tuple) -> Expr:
    """The node for a term (axes: those of its output letters). Deltas that remain stay
    outside the contraction of the other factors, so block structure shows: the
    Hessian of a row-separable function is delta(1) times a tensor of per-row blocks."""
    if term.coef == 0.0 or not term.factors:
        return dag.const(term.coef, axes)
    deltas = [(f, s) for f, s in term.factors if isinstance(f, Delta)]
    if deltas and len(deltas) < len(term.factors):
        rest = [(f, s) for f, s in term.factors if not isinstance(f, Delta)]
        needed = set(term.out) | {c for _, s in deltas for c in s}
        carried = {c for _, s in rest for c in s}
        linked = {c for _, s in deltas for c in s}            # block axes: rows first
        rest_out = tuple(dict.fromkeys([c for c in term.out if c in carried and c in linked] +
                                       [c for c in term.out if c in carried] +
                                       [c for _, s in rest for c in s if c in needed]))
        axis = {c: ax for f, s in rest for c, ax in zip(s, f.axes)}
        block = emit(Term(term.coef, rest, rest_out), tuple(axis[c] for c in rest_out))
        return _contract(Term(1.0, [(block, rest_out), *deltas], term.out))
    return _contract(term)


def _contract(term: Term) -> Expr:
    """The contraction of the term's factors, its coefficient a scalar operand."""
    chars = _chars(term)
    nodes = [f for f, _ in term.factors]
    inputs = ["".join(chars[c] for c in s) for _, s in term.factors]
    out = "".join(chars[c] for c in term.out)
    if term.coef not in (1.0, -1.0):
        nodes.insert(0, dag.const(term.coef))
        inputs.insert(0, "")
    if len(nodes) == 1 and inputs[0] == out:
        body = nodes[0]
    elif len(nodes) == 1:
        body = dag.contraction((nodes[0], dag.const(1.0)), (inputs[0], "", out))
    else:
        body = dag.contraction(nodes, (*inputs, out))
    return dag.neg(body) if term.coef == -1.0 else body


def _chars(term: Term) -> dict[int, str]:
    chars: dict[int, str] = {}
    for c in [c for _, s in term.factors for c in s] + list(term.out):
        if c not in chars:
            if len(chars) == len(dag.LETTERS):
                raise TensorCalcError(f"a simplified product needs more than {len(dag.LETTERS)} indices")
            chars[c] = dag.LETTERS[len(chars)]
    return chars


# ----------------------------------------------------------------------------- sums

def _key(term: Term, skip: int | None) -> tuple:
    """Term structure with output letters by position and summed letters renamed in a
    canonical order; factor `skip` replaced by a placeholder with its index pattern."""
    outpos = {c: ("o", k) for k, c in enumerate(term.out)}
    items = [(b"*" if k == skip else dag.digest(f), tuple(outpos.get(c, ("s",)) for c in s), s)
             for k, (f, s) in enumerate(term.factors)]
    items.sort(key=lambda it: (it[0], it[1]))
    rename: dict[int, tuple] = dict(outpos)
    for _, _, s in items:
        for c in s:
            rename.setdefault(c, ("s", len(rename)))
    return tuple((ident, tuple(rename[c] for c in s)) for ident, _, s in items)


def _sum(addends: list[Expr], axes: tuple, letters: _Letters) -> Expr:
    addends = [leaf for a in addends for leaf in (_leaves(a) if isinstance(a, Sum) else [a])]
    terms = [normal_term(a, letters) for a in addends]
    terms = _collect(terms, axes, letters)
    nodes = [emit(t, axes) for t in terms if t.coef != 0.0]
    if not nodes:
        return dag.const(0.0, axes)
    total = nodes[0]
    for n in nodes[1:]:
        total = dag.add(total, n)
    return total


def _collect(terms: list[Term], axes: tuple, letters: _Letters) -> list[Term]:
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

    def combined(self, letters: _Letters) -> Term:
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

def _product(node: Product, letters: _Letters) -> Expr:
    return emit(normal_term(node, letters), node.axes)


def _elementwise(node: Elementwise, letters: _Letters) -> Expr:
    (arg,) = node.args
    if isinstance(arg, Const):
        from .evaluation import ELEMENTWISE_FUNCTIONS
        with np.errstate(all="ignore"):
            value = float(ELEMENTWISE_FUNCTIONS[node.fn](np.float64(arg.value)))
        if np.isfinite(value):
            return dag.const(value, node.axes)
    if node.fn == "neg":
        return emit(normal_term(node, letters), node.axes)
    if node.fn == "recip" and isinstance(arg, Elementwise) and arg.fn == "recip":
        return arg.args[0]
    return node


def _power(node: Power, letters: _Letters) -> Expr:
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


def _same(node: Expr, letters: _Letters) -> Expr:
    return node


RULES = {
    Var: _same, Const: _same, Delta: _same, Special: _same,
    Sum: lambda node, letters: _sum(list(node.args), node.axes, letters),
    Product: _product, Elementwise: _elementwise, Power: _power,
}
