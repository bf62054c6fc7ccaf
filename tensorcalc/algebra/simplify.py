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

import itertools
import math

import numpy as np

from tensorcalc import dag
from tensorcalc.algebra.monomials import (
    Factor,
    Monomial,
    canonical_items,
    drop_ones,
    fold,
    is_ones,
    ones,
    relabel_deltas,
)
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


# ----------------------------------------------------------------------------- reading terms

def normal_term(node: Expr, ctx: "Context | None" = None) -> Monomial:
    """`node` as one term in normal form: deltas become relabelling, ones that carry no
    needed letter go, factors on the same letters merge; zero kills the term."""
    coef, factors = term_of(node, ctx or Context())
    if coef == 0.0 or any(isinstance(f.node, Const) and f.node.value == 0.0 for f in factors):
        return Monomial(0.0, ())
    return Monomial(coef, _merge_same_letters(_identities(drop_ones(relabel_deltas(factors, node.order)))))


def term_of(node: Expr, ctx: "Context") -> tuple[float, list[Factor]]:
    """`node` as coefficient and factors on its output letters 0..k-1 (summed letters counted
    from k up). Read as factors: the node itself; the original products below it that only
    it uses (`ctx.inner`), all the way down; and one level of a simplified operand that only
    it uses or that sums over no index (an element-wise or broadcast product: inlining it
    never costs more). Anything else is a factor, its constant and sign moved into the
    coefficient (`algebra.fold`). Iterative, so product chains of any length are fine."""
    coef, factors, fresh = 1.0, [], itertools.count(node.order)
    stack = [(node, tuple(range(node.order)), "open")]
    while stack:
        n, o, mode = stack.pop()
        if mode == "operand":
            n, mode = ctx.resolve(n)
        while mode != "open" and isinstance(n, Elementwise) and n.fn == "neg":
            coef, n = -coef, n.args[0]
        if isinstance(n, Const):
            c = fold(coef, n.value)
            factors += [Factor(n, o)] if c is None else [Factor(ones(n.axes), o)] if n.order else []
            coef = coef if c is None else c
        elif mode == "open" and isinstance(n, Elementwise) and n.fn == "neg":
            coef = -coef
            stack.append((n.args[0], o, ctx.below_neg(n.args[0])))
        elif mode in ("open", "level") and isinstance(n, Product):
            stack.extend((x, t, ctx.below(x) if mode == "open" else "factor")
                         for x, t in reversed(_operands(n, o, fresh)))
        else:
            factors.append(Factor(n, o))
    return coef, factors


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


def _operands(n: Product, out: tuple[int, ...], fresh) -> list[tuple[Expr, tuple[int, ...]]]:
    inputs, spec_out = n.spec
    name = dict(zip(spec_out, out))
    for c in "".join(inputs):
        if c not in name:
            name[c] = next(fresh)
    return [(operand, tuple(name[c] for c in s)) for operand, s in zip(n.args, inputs)]


def _identities(factors: list[Factor]) -> list[Factor]:
    """`factors` with each of `IDENTITIES` applied while it finds a pair (each use removes a
    factor, so this ends)."""
    for rule in IDENTITIES:
        while (found := rule(factors)) is not None:
            factors = found
    return factors


def _peel(node: Expr, *fns: str) -> Expr | None:
    """a where node = fns[0](fns[1](... a)) (element-wise or matrix functions), else None."""
    for fn in fns:
        if not (isinstance(node, (Elementwise, Special)) and node.fn == fn):
            return None
        node = node.args[0]
    return node


def _pair(factors: list[Factor], first: tuple, second: str, scalar: bool, make) -> list[Factor] | None:
    """Factors f = first(a) and g = second(a) on the same letters (f any scalar when `scalar`)
    replaced by one factor make(a) on g's letters; None when there is no such pair. O(factors)."""
    def key(a: Expr, letters: tuple) -> tuple:
        return a, () if scalar else letters
    firsts = {key(a, f.letters): i for i, f in enumerate(factors)
              if f.power == 1.0 and not (scalar and f.letters) and (a := _peel(f.node, *first)) is not None}
    for j, g in enumerate(factors):
        a = _peel(g.node, second) if firsts and g.power == 1.0 else None
        i = None if a is None else firsts.get(key(a, g.letters))
        if i is not None:
            return [f for k, f in enumerate(factors) if k not in (i, j)] + [Factor(make(a), g.letters)]
    return None


# Identities on the term's domain (where the sides differ, a = 0 or det(Y) = 0, both are
# undefined). With them d log det Y = adj(Y)^T / det(Y) and d log|det Y| read inv(Y)^T, whose
# derivatives cost O(n^3) per direction; those of adj need the O(n^4) minors (`minors`).
# adj and det alone keep their exact rules, also at singular matrices.
IDENTITIES = (
    lambda fs: _pair(fs, ("recip", "abs"), "sign", False, dag.recip),                      # sign(a) / |a|
    lambda fs: _pair(fs, ("recip", "det"), "adj", True, lambda y: dag.special("inv", y)),  # adj(Y) / det(Y)
)


def _merge_same_letters(factors: list[Factor]) -> list[Factor]:
    """Factors on the very same letters become one element-wise product (in digest order:
    it commutes); the ones factors (each on a letter no other factor carries) become one."""
    groups: dict = {}
    for f in factors:
        groups.setdefault(None if is_ones(f.node) else f.letters, []).append(f)
    merged = []
    for letters, group in groups.items():
        if letters is None:
            merged.append(Factor(ones(tuple(ax for f in group for ax in f.node.axes)),
                                 tuple(c for f in group for c in f.letters)))
            continue
        node, *others = sorted((f.node for f in group), key=digest)
        for other in others:
            node = dag.hadamard(node, other)
        merged.append(Factor(node, letters))
    return merged


# ----------------------------------------------------------------------------- writing terms

def emit(term: Monomial, axes: tuple) -> Expr:
    """The node for a term on output letters 0..k-1 (axes: theirs)."""
    return _emit(term.coef, list(term.factors), tuple(range(len(axes))), axes)


def _emit(coef: float, factors: list[Factor], out: tuple[int, ...], axes: tuple) -> Expr:
    """Deltas that remain stay outside the contraction of the other factors, so block
    structure shows: the Hessian of a row-separable function is delta(1) times a tensor
    of per-row blocks."""
    if coef == 0.0 or not factors:
        return dag.const(coef, axes)
    deltas = [f for f in factors if isinstance(f.node, Delta)]
    if deltas and len(deltas) < len(factors):
        rest = [f for f in factors if not isinstance(f.node, Delta)]
        needed = set(out) | {c for f in deltas for c in f.letters}
        carried = {c for f in rest for c in f.letters}
        linked = {c for f in deltas for c in f.letters}            # block axes: rows first
        rest_out = tuple(dict.fromkeys([c for c in out if c in carried and c in linked] +
                                       [c for c in out if c in carried] +
                                       [c for f in rest for c in f.letters if c in needed]))
        axis = {c: ax for f in rest for c, ax in zip(f.letters, f.node.axes)}
        block = _emit(coef, rest, rest_out, tuple(axis[c] for c in rest_out))
        return _contract(1.0, [Factor(block, rest_out), *deltas], out)
    return _contract(coef, factors, out)


def _contract(coef: float, factors: list[Factor], out: tuple[int, ...]) -> Expr:
    """The contraction of the factors, the coefficient a scalar operand."""
    chars = _chars(factors, out)
    nodes = [f.node for f in factors]
    inputs = ["".join(chars[c] for c in f.letters) for f in factors]
    spec_out = "".join(chars[c] for c in out)
    if coef not in (1.0, -1.0):
        nodes.insert(0, dag.const(coef))
        inputs.insert(0, "")
    if len(nodes) == 1 and inputs[0] == spec_out:
        body = nodes[0]
    elif len(nodes) == 1:
        body = dag.contraction((nodes[0], dag.const(1.0)), (inputs[0], "", spec_out))
    else:
        body = dag.contraction(nodes, (*inputs, spec_out))
    return dag.neg(body) if coef == -1.0 else body


def _chars(factors: list[Factor], out: tuple[int, ...]) -> dict[int, str]:
    chars: dict[int, str] = {}
    for c in [c for f in factors for c in f.letters] + list(out):
        if c not in chars:
            if len(chars) == len(dag.LETTERS):
                raise TensorCalcError(f"a simplified product needs more than {len(dag.LETTERS)} indices")
            chars[c] = dag.LETTERS[len(chars)]
    return chars


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

    def __init__(self, first: Monomial):
        self.first, self.q, self.members = first, None, []

    def combined(self) -> Monomial:
        if not self.members:
            return self.first
        node, s, _ = self.first.factors[self.q]
        parts = [_scaled(self.first.coef, node)] + [_scaled(t.coef, t.factors[p].node) for t, p in self.members]
        factors = list(self.first.factors)
        factors[self.q] = Factor(_sum(parts, node.axes), s)
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
RULES = {
    Var: _same, Const: _same, Delta: _same, Special: _same,
    Sum: lambda node: _sum(list(node.args), node.axes),
    Product: _product, Elementwise: _elementwise, Power: _power, Gather: _gather,
}
