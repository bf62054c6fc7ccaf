"""The algebra of products: a coefficient times factors over integer index letters.

A `Monomial` of an order-k value is coef * (sum over its summed letters of the product of
its factors node[letters]^power): letters 0..k-1 are the value's axes, larger letters are
summed. `normal` relabels deltas, merges equal atoms by adding powers, drops needless ones
and renames summed letters canonically; `collect` adds like monomials, `multiply`
multiplies two. `Expander` reads a node as a sum of monomials over atoms (products
distribute over sums), the form the convexity certificate signs; `simplification` reads
each product as one monomial and writes it back. Every step is an identity on the
expression's domain (where recip, log, fractional powers and inv are defined), so a sign
read from the polynomial is a sign of the expression there. A constant whose product with
a coefficient would leave the float range stays a factor of its own (`fold`).
"""
from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from fractions import Fraction
from typing import Callable, Container, Iterator, NamedTuple

from tensorcalc import dag
from tensorcalc.algebra.lowering import LOWER
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.graph import digest

MAX_MONOMIALS = 4096


class TooLarge(Exception):
    """The expansion would exceed MAX_MONOMIALS monomials."""


class Factor(NamedTuple):
    node: Expr
    letters: tuple[int, ...]
    power: float = 1.0


class Monomial(NamedTuple):
    coef: float
    factors: tuple[Factor, ...]


def ones(axes: tuple) -> Const:
    return dag.const(1.0, axes)


def is_ones(node: Expr) -> bool:
    return isinstance(node, Const) and node.value == 1.0 and node.order > 0


def fold(a: float, b: float, p: float = 1.0) -> float | None:
    """a * b^p as one float, or None where it leaves the normal float range (overflows, or
    underflows although a and b are nonzero): then b stays a factor of its own."""
    if a == 0.0 or (b == 0.0 and p > 0):
        return 0.0
    try:
        c = a * b ** p
    except (OverflowError, ZeroDivisionError):
        return None
    return c if isinstance(c, float) and math.isfinite(c) and abs(c) >= sys.float_info.min else None


def scaled(a: float, b: float, factors: tuple[Factor, ...], p: float = 1.0) -> Monomial:
    """a * b^p * factors, with b^p folded into the coefficient where `fold` allows."""
    c = fold(a, b, p)
    return Monomial(a, factors + (Factor(dag.const(b), (), p),)) if c is None else Monomial(c, factors)


# ----------------------------------------------------------------------------- normal form

def normal(m: Monomial, k: int, separate: frozenset = frozenset()) -> Monomial:
    """Deltas become relabelling, equal atoms merge their powers (except `separate` ones),
    needless ones go, and summed letters are renamed canonically (k, k+1, ... in a stable
    factor order)."""
    if m.coef == 0.0:
        return m
    factors = relabel_deltas(_cancel_inverses(list(m.factors), k), k)
    return Monomial(m.coef, canonical(drop_ones(_merge_powers(factors, separate)), k))


def _cancel_inverses(factors: list[Factor], k: int) -> list[Factor]:
    """M[a,b] inv(M)[b,c] = delta[a,c] = inv(M)[a,b] M[b,c], where the summed letter b is read
    by these two factors alone."""
    while True:
        found = _inverse_pair(factors, Counter(c for f in factors for c in f.letters), k)
        if found is None:
            return factors
        i, j, a, c = found
        m = factors[i].node if not isinstance(factors[i].node, Special) else factors[j].node
        factors = [f for n, f in enumerate(factors) if n not in (i, j)] + \
            [Factor(dag.delta(1, (m.axes[0], m.axes[0])), (a, c))]


def _inverse_pair(factors: list[Factor], count: Counter, k: int):
    for i, f in enumerate(factors):
        if f.power != 1.0 or not (isinstance(f.node, Special) and f.node.fn == "inv"):
            continue
        for j, g in enumerate(factors):
            if j == i or g.node is not f.node.args[0] or g.power != 1.0:
                continue
            for (p, left), (q, right) in (((j, g), (i, f)), ((i, f), (j, g))):
                b = left.letters[1]
                if right.letters[0] == b and b >= k and count[b] == 2:
                    return p, q, left.letters[0], right.letters[1]
    return None


def relabel_deltas(factors: list[Factor], k: int) -> list[Factor]:
    """Deltas become relabelling: sum_b delta[a,b] g[b] = g[a]. A pair on two output letters
    stays (a diagonal embedding; the pairs a delta keeps stay one delta); a letter a pair
    merges into, when no other factor carries it, gets a ones factor (a broadcast, or a sum
    that counts an axis length). Letters merge by union-find: F factors cost O(F)."""
    alias: dict[int, int] = {}

    def find(c: int) -> int:
        while c in alias:
            c = alias[c]
        return c

    kept, merged = [], {}
    for f in factors:
        if not isinstance(f.node, Delta) or f.power != 1.0:
            kept.append(f)
            continue
        n, pairs = f.node.n, []
        for a, b, ax in zip(f.letters[:n], f.letters[n:], f.node.axes):
            a, b = find(a), find(b)
            if a != b and a < k and b < k:
                pairs.append((a, b, ax))
                continue
            if a != b:
                old, new = (a, b) if a >= k else (b, a)
                alias[old], a = new, new
            merged[a] = ax
        if pairs:
            d = dag.delta(len(pairs), [ax for _, _, ax in pairs] * 2)
            kept.append(Factor(d, tuple(a for a, _, _ in pairs) + tuple(b for _, b, _ in pairs)))
    kept = [Factor(f.node, tuple(find(c) for c in f.letters), f.power) for f in kept]
    carried = {c for f in kept for c in f.letters}
    lone = {find(c): ax for c, ax in merged.items()}
    return kept + [Factor(ones((ax,)), (c,)) for c, ax in lone.items() if c not in carried]


def _merge_powers(factors: list[Factor], separate: frozenset) -> list[Factor]:
    merged: dict[tuple, float] = {}
    for f in factors:
        if f.node not in separate:
            merged[f.node, f.letters] = merged.get((f.node, f.letters), 0.0) + f.power
    return [f for f in factors if f.node in separate] + [Factor(n, s, p) for (n, s), p in merged.items()]


def drop_ones(factors: list[Factor]) -> list[Factor]:
    """A factor of power 0 or a ones factor is dropped when its letters are carried by others;
    otherwise a ones factor stays on each letter no other carries (a broadcast, or a sum
    that counts an axis length)."""
    def trivial(f):
        return f.power == 0.0 or is_ones(f.node)
    carried = {c for f in factors if not trivial(f) for c in f.letters}
    kept, seen = [], set()
    for f in factors:
        if not trivial(f):
            kept.append(f)
            continue
        for c, ax in zip(f.letters, f.node.axes):
            if c not in carried and c not in seen:
                seen.add(c)
                kept.append(Factor(ones((ax,)), (c,)))
    return kept


def canonical_items(factors: list[Factor], k: int, idents: list) -> list[tuple]:
    """(ident, factor) pairs sorted by (ident, power, output-letter pattern), summed letters
    renamed k, k+1, ... in order of appearance; twice, so the renaming feeds the order."""
    items = list(zip(idents, factors))
    for _ in range(2):
        items.sort(key=lambda it: (it[0], it[1].power, tuple(c if c < k else -1 for c in it[1].letters),
                                   it[1].letters))
        names: dict[int, int] = {}
        for _, f in items:
            for c in f.letters:
                if c >= k and c not in names:
                    names[c] = k + len(names)
        items = [(i, Factor(f.node, tuple(names.get(c, c) for c in f.letters), f.power)) for i, f in items]
    return items


def canonical(factors: list[Factor], k: int) -> tuple[Factor, ...]:
    """The factors in canonical order and lettering (identified by their atoms' digests)."""
    return tuple(f for _, f in canonical_items(factors, k, [digest(f.node) for f in factors]))


def collect(monomials: list[Monomial]) -> list[Monomial]:
    """Like monomials (equal canonical factors) add their coefficients; zeros go. The sums are
    correctly rounded (math.fsum), so a coefficient keeps the sign of the exact sum and is
    dropped only where that sum is zero; like monomials whose sum is beyond the float range
    stay apart."""
    parts: dict[tuple, list[float]] = {}
    for m in monomials:
        if m.coef != 0.0:
            parts.setdefault(m.factors, []).append(m.coef)
    return [Monomial(c, f) for f, coefs in parts.items() for c in _added(coefs) if c != 0.0]


def _added(coefs: list[float]) -> list[float]:
    try:
        return [coefs[0] if len(coefs) == 1 else math.fsum(coefs)]
    except OverflowError:               # fsum overflows in between: the exact sum may not
        try:
            return [float(sum(map(Fraction, coefs)))]
        except OverflowError:
            return coefs


def close_sums(m: Monomial, k: int) -> Monomial:
    """The same value with sums taken inside atoms: a summed letter that one factor alone
    carries, once and at power 1 (or -1, summing 1 / atom), is summed in that factor's atom (sum_a c w[a] y =
    c (w *(a,a->) 1) y); equal atoms then merge, so S S S^2 = S^4 reads as an even power."""
    count = Counter(c for f in m.factors for c in f.letters)
    factors, changed = [], False
    for f in m.factors:
        lone = [j for j, c in enumerate(f.letters) if c >= k and count[c] == 1]
        if not lone or f.power not in (1.0, -1.0) or is_ones(f.node):   # a ones factor counts a length
            factors.append(f)
            continue
        base = f.node if f.power == 1.0 else dag.elementwise("recip", f.node)
        factors.append(Factor(_summed(base, lone), tuple(c for j, c in enumerate(f.letters) if j not in lone)))
        changed = True
    return normal(Monomial(m.coef, tuple(factors)), k) if changed else m


def _summed(node: Expr, positions: list[int]) -> Expr:
    """The node summed over its axes at `positions`, as the language writes it (x *(i,->) 1)."""
    s = dag.LETTERS[:node.order]
    summed = "".join(s[j] for j in positions)
    return dag.contraction((node, dag.const(1.0)), (s, "", "".join(c for c in s if c not in summed)))


def multiply(a: Monomial, b: Monomial, k: int, separate: frozenset = frozenset()) -> Monomial:
    """The product of two monomials on the same output letters 0..k-1 (b's summed letters
    are moved past every letter of a)."""
    shift = 1 + max([c for f in a.factors for c in f.letters if c >= k] + [k])
    moved = tuple(Factor(f.node, tuple(c if c < k else c + shift for c in f.letters), f.power) for f in b.factors)
    return normal(scaled(a.coef, b.coef, a.factors + moved), k, separate)


# ----------------------------------------------------------------------------- expansion

def pending(root: Expr, done: Container[Expr],
            reads: Callable[[Expr], tuple[Expr, ...]] = lambda node: node.args) -> Iterator[Expr]:
    """The nodes from `root` down that are not in `done`, each after the nodes it `reads`,
    on an explicit stack (any depth); the caller puts each into `done` before the next."""
    stack = [root]
    while stack:
        n = stack[-1]
        todo = [c for c in reads(n) if c not in done] if n not in done else None
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        if todo is not None:
            yield n


class Expander:
    """Expands nodes into polynomials over atoms, each node once (memoised) and in
    dependency order on an explicit stack, so nesting of any depth is fine. More than
    MAX_MONOMIALS monomials for one node raises TooLarge. `separate` atoms never merge
    powers (the direction variables of a quadratic form stay two factors)."""

    def __init__(self, separate: frozenset = frozenset()) -> None:
        self.separate = separate
        self.memo: dict[Expr, list[Monomial]] = {}
        self.lowered: dict[Expr, Expr] = {}

    def expand(self, node: Expr) -> list[Monomial]:
        for n in pending(node, self.memo, self._reads):
            low = self._lower(n)
            self.memo[n] = self.memo[low] if low is not n else self._expanded(n)
        return self.memo[node]

    def _expanded(self, node: Expr) -> list[Monomial]:
        raw = RULES[type(node)](self, node)
        if len(raw) > MAX_MONOMIALS:
            raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
        return collect([normal(m, node.order, self.separate) for m in raw])

    def _lower(self, node: Expr) -> Expr:
        """An equal node whose expansion is this node's (an identity), or the node itself."""
        if node not in self.lowered:
            self.lowered[node] = (LOWER[type(node)](node, self.separate) if type(node) in LOWER else None) or node
        return self.lowered[node]

    def _reads(self, node: Expr) -> tuple[Expr, ...]:
        """The nodes whose expansions the node's rule reads."""
        low = self._lower(node)
        if low is not node:
            return (low,)
        if isinstance(node, (Sum, Product)):
            return node.args
        if isinstance(node, Power) and isinstance(node.args[1], Const):
            return node.args[:1]
        return ()


def _atom(ex: Expander, node: Expr) -> list[Monomial]:
    return [Monomial(1.0, (Factor(node, tuple(range(node.order))),))]


def _const(ex: Expander, node: Const) -> list[Monomial]:
    if node.value == 0.0:
        return []
    return [Monomial(node.value, (Factor(ones(node.axes), tuple(range(node.order))),) if node.order else ())]


def _delta(ex: Expander, node: Delta) -> list[Monomial]:
    """delta(n) is the product of n one-axis deltas (the kernels `pairing` reads)."""
    n = node.n
    return [Monomial(1.0, tuple(Factor(dag.delta(1, (ax, ax)), (j, n + j)) for j, ax in enumerate(node.axes[:n])))]


def _sum(ex: Expander, node: Sum) -> list[Monomial]:
    return ex.memo[node.args[0]] + ex.memo[node.args[1]]


def _product(ex: Expander, node: Product) -> list[Monomial]:
    """The product distributes over the operands' sums. Output letters are the spec's;
    summed ones are fresh, counted from the node's order up."""
    fresh = itertools.count(node.order)
    out = {c: k for k, c in enumerate(node.spec.out)}
    chars = {c: out[c] if c in out else next(fresh) for c in dict.fromkeys("".join(node.spec.inputs))}
    result = [Monomial(1.0, ())]
    for x, s in zip(node.args, node.spec.inputs):
        terms = ex.memo[x]
        if len(result) * len(terms) > MAX_MONOMIALS:
            raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
        named = [_rename(m, [chars[c] for c in s], fresh) for m in terms]
        result = [scaled(a.coef, b.coef, a.factors + b.factors) for a in result for b in named]
    return result


def _rename(m: Monomial, slots: list[int], fresh) -> Monomial:
    """Operand letters 0..k-1 become the product's letters `slots`; summed ones fresh."""
    mapping: dict[int, int] = dict(enumerate(slots))
    return Monomial(m.coef, tuple(Factor(f.node, tuple(mapping[c] if c in mapping else mapping.setdefault(
        c, next(fresh)) for c in f.letters), f.power) for f in m.factors))


def _power(ex: Expander, node: Power) -> list[Monomial]:
    """base^p distributed over a single monomial without summed letters when p is a whole
    number ((c x y)^p = c^p x^p y^p) or the monomial is one atom; else an atom of its own."""
    base, exponent = node.args
    if not isinstance(exponent, Const):
        return _atom(ex, node)
    p, terms, k = exponent.value, ex.memo[base], base.order
    if len(terms) == 1 and all(c < k for f in terms[0].factors for c in f.letters):
        (m,) = terms
        if (float(p).is_integer() and m.coef != 0.0) or \
                (m.coef == 1.0 and len(m.factors) == 1 and m.factors[0].power == 1.0):
            return [scaled(1.0, m.coef, tuple(Factor(f.node, f.letters, f.power * p) for f in m.factors), p)]
    return [Monomial(1.0, (Factor(base, tuple(range(k)), p),))]


RULES: dict[type, Callable] = {Var: _atom, Const: _const, Delta: _delta, Sum: _sum, Product: _product,
                               Elementwise: _atom, Power: _power, Special: _atom, Gather: _atom}
