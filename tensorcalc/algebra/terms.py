"""Terms of simplification: a product read as one monomial in normal form, and written back.

`normal_term` reads a node as a coefficient times factors with integer index letters
(`tensorcalc.algebra.monomials`; output letters 0..k-1, summed letters above), without
distributing products over sums: nested products merge, deltas become relabelling,
constants fold, needless ones go, sign(a) / abs(a) and adj(Y) / det(Y) become 1 / a and
inv(Y) (`IDENTITIES`), and factors on the same letters merge. `emit` writes a term back as
a contraction of the language with the given axes.

    >>> from tensorcalc import dag
    >>> x = dag.var("x", [dag.Axis("x", 0)])
    >>> term = normal_term(dag.scale(dag.const(2.0), dag.scale(dag.const(3.0), x)))
    >>> term.coef, emit(term, x.axes) is dag.scale(dag.const(6.0), x)
    (6.0, True)
"""
from __future__ import annotations

import itertools
from collections.abc import Collection

from tensorcalc import dag
from tensorcalc.algebra.monomials import (
    Factor,
    Monomial,
    drop_ones,
    fold,
    is_ones,
    ones,
    relabel_deltas,
)
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Product, Special
from tensorcalc.errors import TensorCalcError
from tensorcalc.graph import digest

# ----------------------------------------------------------------------------- reading terms

def normal_term(node: Expr, ctx: "Context | None" = None) -> Monomial:
    """`node` as one term in normal form: deltas become relabelling, ones that carry no
    needed letter go, factors on the same letters merge; zero kills the term."""
    coef, factors = term_of(node, ctx or Context())
    if coef == 0.0 or any(isinstance(f.node, Const) and f.node.value == 0.0 for f in factors):
        return Monomial(0.0, ())
    return Monomial(coef, tuple(_merge_same_letters(_identities(drop_ones(relabel_deltas(factors, node.order))))))


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

    def __init__(self, inner: Collection[Expr] = frozenset(), single: Collection[Expr] = frozenset(),
                 new: dict[Expr, Expr] | None = None) -> None:
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
