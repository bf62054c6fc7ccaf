"""Terms: a product read as coefficient x factors with integer index letters.

`normal_term` reads a node as a term and normalises it (deltas become relabelling,
constants fold, ones that carry no needed index go, factors on the same indices merge);
`emit` writes a term back as a node of the language. `simplification` drives these over
a DAG and collects the terms of sums.
"""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from . import dag
from .dag import Const, Delta, Elementwise, Expr, Product
from .errors import TensorCalcError
from .graph import digest


@dataclass
class Term:
    """coef * (contraction of `factors`, each a (node, letters) pair, into `out`)."""

    coef: float
    factors: list[tuple[Expr, tuple[int, ...]]]
    out: tuple[int, ...]


class Letters:
    """Integer index letters, fresh on demand: terms never run out of letters."""

    def __init__(self):
        self._count = itertools.count()

    def fresh(self, n: int) -> tuple[int, ...]:
        return tuple(next(self._count) for _ in range(n))


def term_of(node: Expr, letters: Letters, out: tuple[int, ...], ctx: "Context | None" = None) -> Term:
    """`node` as a term whose output letters are `out`.

    Read as factors: the node itself; the original products below it that only it uses
    (`ctx.inner`), all the way down; and one level of a simplified operand that only it
    uses or that sums over no index (an element-wise or broadcast product: inlining it
    never costs more). Anything else is a factor, its constant and sign moved into the
    coefficient. Iterative, so product chains of any length are fine."""
    ctx = ctx or Context()
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


class Context:
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
        if isinstance(n, Elementwise) and n.fn == "neg":
            return n, "factor"                      # its sign is taken by the caller's loop
        if isinstance(n, Product) and (operand in self.single or _sums_nothing(n)):
            return n, "level"
        return n, "factor"


def _sums_nothing(product: Product) -> bool:
    return set("".join(product.spec.inputs)) <= set(product.spec.out)


def _operands(n: Product, out: tuple[int, ...], letters: Letters) -> list[tuple[Expr, tuple[int, ...]]]:
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
        nodes = sorted(nodes, key=digest)          # the element-wise product commutes
        node = nodes[0]
        for other in nodes[1:]:
            node = dag.hadamard(node, other)
        merged.append((node, s))
    term.factors = merged


def normal_term(node: Expr, letters: Letters, ctx: Context | None = None) -> Term:
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
