"""Expressions expanded into polynomials over atoms, the form the certificate reads.

A node of order k becomes a sum of `Monomial`s: a coefficient times `Factor`s, each an
atom (a variable, an element-wise function, a matrix function, a sum kept whole, ...)
on integer index letters raised to a real power. Letters 0..k-1 are the node's axes;
larger letters are summed. Products distribute over sums, negations and constants fold
into coefficients, delta tensors become relabelling, and equal atoms on equal letters
multiply by adding powers (x * recip(x) = 1, x^2 * x^-1 = x). Every step is an identity on
the expression's domain (where recip, log, fractional powers and inv are defined), so a
sign read from the polynomial is a sign of the expression there.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from tensorcalc import affine, dag
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.graph import digest

MAX_MONOMIALS = 4096


class TooLarge(Exception):
    """The expansion would exceed MAX_MONOMIALS monomials."""


class Factor(NamedTuple):
    node: Expr
    letters: tuple[int, ...]
    power: float


class Monomial(NamedTuple):
    coef: float
    factors: tuple[Factor, ...]


def ones(axes: tuple) -> Const:
    return dag.const(1.0, axes)


def is_ones(node: Expr) -> bool:
    return isinstance(node, Const) and node.value == 1.0 and node.order > 0


class Expander:
    """Expands nodes once each (memoised); `separate` atoms never merge powers
    (the direction variables of a quadratic form stay two factors)."""

    def __init__(self, separate: frozenset = frozenset()):
        self.separate = separate
        self.memo: dict[Expr, list[Monomial]] = {}
        self.counter = len(dag.LETTERS)   # fresh letters lie above every output letter (0..order-1)

    def fresh(self) -> int:
        self.counter += 1
        return self.counter

    def expand(self, node: Expr) -> list[Monomial]:
        if node not in self.memo:
            raw = RULES[type(node)](self, node)
            if len(raw) > MAX_MONOMIALS:
                raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
            self.memo[node] = collect([normal(m, node.order, self.separate) for m in raw])
        return self.memo[node]

    def atom(self, node: Expr, power: float = 1.0) -> list[Monomial]:
        return [Monomial(1.0, (Factor(node, tuple(range(node.order)), power),))]


def _var(ex: Expander, node: Var) -> list[Monomial]:
    return ex.atom(node)


def _const(ex: Expander, node: Const) -> list[Monomial]:
    if node.value == 0.0:
        return []
    factors = (Factor(ones(node.axes), tuple(range(node.order)), 1.0),) if node.order else ()
    return [Monomial(node.value, factors)]


def _delta(ex: Expander, node: Delta) -> list[Monomial]:
    return ex.atom(node)


def _sum(ex: Expander, node: Sum) -> list[Monomial]:
    return ex.expand(node.args[0]) + ex.expand(node.args[1])


def _product(ex: Expander, node: Product) -> list[Monomial]:
    """The product distributes over the operands' sums; letters renamed per spec."""
    return _product_of(ex, node, [ex.expand(a) for a in node.args])


def _sums_nothing(node: Product) -> bool:
    return set("".join(node.spec.inputs)) <= set(node.spec.out)


def _product_of(ex: Expander, node: Product, operands: list[list[Monomial]]) -> list[Monomial]:
    out = {c: k for k, c in enumerate(node.spec.out)}
    chars = {c: out[c] if c in out else ex.fresh() for c in dict.fromkeys("".join(node.spec.inputs))}
    result = [Monomial(1.0, ())]
    for terms, s in zip(operands, node.spec.inputs):
        named = [_rename(m, [chars[c] for c in s], ex) for m in terms]
        result = [Monomial(a.coef * b.coef, a.factors + b.factors) for a in result for b in named]
        if len(result) > MAX_MONOMIALS:
            raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
    return result


def _rename(m: Monomial, slots: list, ex: Expander) -> Monomial:
    """Operand letters 0..k-1 become the product's letters `slots`; summed ones fresh."""
    mapping: dict[int, int] = dict(enumerate(slots))

    def name(letter):
        if letter not in mapping:
            mapping[letter] = ex.fresh()
        return mapping[letter]
    return Monomial(m.coef, tuple(Factor(f.node, tuple(name(c) for c in f.letters), f.power) for f in m.factors))


def _elementwise(ex: Expander, node: Elementwise) -> list[Monomial]:
    if node.fn == "neg":
        return [Monomial(-m.coef, m.factors) for m in ex.expand(node.args[0])]
    if node.fn == "recip":
        return _raise(ex, node.args[0], -1.0)
    return ex.atom(node)


def _power(ex: Expander, node: Power) -> list[Monomial]:
    base, exponent = node.args
    if isinstance(exponent, Const):
        return _raise(ex, base, exponent.value)
    return ex.atom(node)


def _raise(ex: Expander, base: Expr, p: float) -> list[Monomial]:
    """base^p: distributed over a single monomial without summed letters when p is a whole
    number ((c x y)^p = c^p x^p y^p) or the monomial is one atom; else an atom of its own."""
    if isinstance(base, Product) and float(p).is_integer() and _sums_nothing(base):
        return _product_of(ex, base, [_raise(ex, a, p) for a in base.args])
    terms = ex.expand(base)
    k = base.order
    if len(terms) == 1 and all(c < k for f in terms[0].factors for c in f.letters):
        (m,) = terms
        whole_number = float(p).is_integer()
        if (whole_number and m.coef != 0.0) or (m.coef == 1.0 and len(m.factors) == 1 and m.factors[0].power == 1.0):
            return [Monomial(m.coef ** p, tuple(Factor(f.node, f.letters, f.power * p) for f in m.factors))]
    return ex.atom(base, p)


def _special(ex: Expander, node: Special) -> list[Monomial]:
    """adj(X) = det(X) inv(X), inv(inv(Y)) = Y, det(inv(Y)) = 1 / det(Y), adj(inv(Y)) = Y / det(Y):
    identities where X and Y are invertible (a dense set, so a sign of a continuous Hessian
    read through them holds everywhere); det and inv are atoms otherwise."""
    x = node.args[0]
    inner = x.args[0] if isinstance(x, Special) and x.fn == "inv" else None
    if inner is not None and node.fn == "inv":
        return ex.expand(inner)                                   # inv(inv(Y)) = Y
    if inner is not None and node.fn == "det":
        return [Monomial(1.0, (Factor(dag.special("det", inner), (), -1.0),))]     # det(inv(Y)) = 1 / det(Y)
    if inner is not None and node.fn == "adj":                    # adj(inv(Y)) = Y / det(Y)
        scale = Factor(dag.special("det", inner), (), -1.0)
        return [Monomial(m.coef, (scale,) + m.factors) for m in ex.expand(inner)]
    if node.fn == "adj":
        return [Monomial(1.0, (Factor(dag.special("det", x), (), 1.0), Factor(dag.special("inv", x), (0, 1), 1.0)))]
    return ex.atom(node)


def selection(node: Gather) -> Expr:
    """E with gather(x)[b, g] = sum_s x[b, s] E[s, g]: E[s, g] = 1 where g is in the
    gather's domain and reads s, else 0 (a constant 0/1 tensor: the gather of a delta)."""
    x = node.args[0]
    src = x.axes[node.batch:]
    if not src:
        return affine.gather(dag.const(1.0), 0, node.shape, (), (), node.domain, node.axes[node.batch:])
    d = dag.delta(len(src), src + src)
    return affine.gather(d, len(src), node.shape, node.source, node.rows, node.domain, node.axes[node.batch:])


def _gather(ex: Expander, node: Gather) -> list[Monomial]:
    """A gather is linear: x *(b s, s g -> b g) E with the selection E an atom."""
    x = node.args[0]
    if node in ex.separate or isinstance(x, (Var, Delta)) or (isinstance(x, Const) and x.order == 0):
        return ex.atom(node)                # a gathered direction or variable, or a selection
    b = dag.LETTERS[:node.batch]
    s = dag.LETTERS[node.batch:x.order]
    g = dag.LETTERS[x.order:x.order + len(node.shape)]
    return ex.expand(dag.contraction((x, selection(node)), (b + s, s + g, b + g)))


RULES = {Var: _var, Const: _const, Delta: _delta, Sum: _sum, Product: _product,
         Elementwise: _elementwise, Power: _power, Special: _special, Gather: _gather}


# ----------------------------------------------------------------------------- normal form

def normal(m: Monomial, k: int, separate: frozenset) -> Monomial:
    """Deltas become relabelling, equal atoms merge their powers, needless ones go, and
    summed letters are renamed canonically (k, k+1, ... in a stable factor order)."""
    if m.coef == 0.0:
        return m
    factors = _relabel_deltas(_cancel_inverses(list(m.factors), k), k)
    factors = _merge_powers(factors, separate)
    factors = _drop_ones(factors, k)
    return Monomial(m.coef, canonical(factors, k))


def _cancel_inverses(factors: list[Factor], k: int) -> list[Factor]:
    """M[a,b] inv(M)[b,c] = delta[a,c] = inv(M)[a,b] M[b,c], where the summed letter b is read
    by these two factors alone."""
    while True:
        count: dict = {}
        for f in factors:
            for c in f.letters:
                count[c] = count.get(c, 0) + 1
        found = _inverse_pair(factors, count, k)
        if found is None:
            return factors
        i, j, a, c = found
        m = factors[i].node if not isinstance(factors[i].node, Special) else factors[j].node
        factors = [f for n, f in enumerate(factors) if n not in (i, j)] + \
            [Factor(dag.delta(1, (m.axes[0], m.axes[0])), (a, c), 1.0)]


def _inverse_pair(factors: list[Factor], count: dict, k: int):
    for i, f in enumerate(factors):
        if f.power != 1.0 or not (isinstance(f.node, Special) and f.node.fn == "inv"):
            continue
        for j, g in enumerate(factors):
            if j == i or g.node is not f.node.args[0] or g.power != 1.0:
                continue
            for (p, left), (q, right) in (((j, g), (i, f)), ((i, f), (j, g))):
                b = left.letters[1]
                if right.letters[0] == b and not _is_out(b, k) and count[b] == 2:
                    return p, q, left.letters[0], right.letters[1]
    return None


def _relabel_deltas(factors: list[Factor], k: int) -> list[Factor]:
    alias: dict = {}

    def find(c):
        while c in alias:
            c = alias[c]
        return c

    kept, deltas = [], []
    for f in factors:
        (deltas if isinstance(f.node, Delta) and f.power == 1.0 else kept).append(f)
    extra = []
    for d in deltas:
        n = d.node.n
        for a, b, ax in zip(d.letters[:n], d.letters[n:], d.node.axes):
            a, b = find(a), find(b)
            if a == b:
                extra.append(Factor(ones((ax,)), (a,), 1.0))
            elif _is_out(a, k) and _is_out(b, k):
                extra.append(Factor(dag.delta(1, (ax, ax)), (a, b), 1.0))
            else:
                old, new = (a, b) if not _is_out(a, k) else (b, a)
                alias[old] = new
    out = kept + extra
    return [Factor(f.node, tuple(find(c) for c in f.letters), f.power) for f in out]


def _is_out(letter, k: int) -> bool:
    return isinstance(letter, int) and letter < k


def _merge_powers(factors: list[Factor], separate: frozenset) -> list[Factor]:
    merged: dict[tuple, float] = {}
    rest = []
    for f in factors:
        if f.node in separate:
            rest.append(f)
            continue
        key = (f.node, f.letters)
        merged[key] = merged.get(key, 0.0) + f.power
    result = [Factor(node, letters, p) for (node, letters), p in merged.items()]
    return rest + result


def _drop_ones(factors: list[Factor], k: int) -> list[Factor]:
    """A factor of power 0 or a ones factor is dropped when its letters are carried by others;
    otherwise it stays as a ones factor (a broadcast, or a sum that counts an axis length)."""
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
                kept.append(Factor(ones((ax,)), (c,), 1.0))
    return kept


def canonical(factors: list[Factor], k: int) -> tuple[Factor, ...]:
    """Factors sorted by (atom, power, output-letter pattern), summed letters renamed
    k, k+1, ... in order of appearance; twice, so the renaming feeds the order."""
    for _ in range(2):
        factors = sorted(factors, key=lambda f: _key(f, k))
        names: dict = {}
        for f in factors:
            for c in f.letters:
                if not _is_out(c, k) and c not in names:
                    names[c] = k + len(names)
        factors = [Factor(f.node, tuple(c if _is_out(c, k) else names[c] for c in f.letters), f.power)
                   for f in factors]
    return tuple(factors)


def _key(f: Factor, k: int):
    return (digest(f.node), f.power, tuple(c if _is_out(c, k) else -1 for c in f.letters), f.letters)


def collect(monomials: list[Monomial]) -> list[Monomial]:
    """Like monomials (equal canonical factors) add their coefficients; zeros go. The sums are
    correctly rounded (math.fsum), so a coefficient keeps the sign of the exact sum and is
    dropped only where that sum is zero."""
    parts: dict[tuple, list[float]] = {}
    for m in monomials:
        if m.coef != 0.0:
            parts.setdefault(m.factors, []).append(m.coef)
    total = {f: (c[0] if len(c) == 1 else math.fsum(c)) for f, c in parts.items()}
    return [Monomial(c, f) for f, c in total.items() if c != 0.0]


def close_sums(m: Monomial, k: int) -> Monomial:
    """The same value with sums taken inside atoms: a summed letter that one factor alone
    carries, once and at power 1 (or -1, summing 1 / atom), is summed in that factor's atom (sum_a c w[a] y =
    c (w *(a,a->) 1) y); equal atoms then merge, so S S S^2 = S^4 reads as an even power."""
    count: dict = {}
    for f in m.factors:
        for c in f.letters:
            count[c] = count.get(c, 0) + 1
    factors, changed = [], False
    for f in m.factors:
        lone = [j for j, c in enumerate(f.letters) if c >= k and count[c] == 1]
        if not lone or f.power not in (1.0, -1.0) or is_ones(f.node):   # a ones factor counts a length
            factors.append(f)
            continue
        base = f.node if f.power == 1.0 else dag.elementwise("recip", f.node)
        factors.append(Factor(_summed(base, lone), tuple(c for j, c in enumerate(f.letters) if j not in lone), 1.0))
        changed = True
    return normal(Monomial(m.coef, tuple(factors)), k, frozenset()) if changed else m


def _summed(node: Expr, positions: list[int]) -> Expr:
    """The node summed over its axes at `positions`, as the language writes it (x *(i,->) 1)."""
    s = dag.LETTERS[:node.order]
    summed = "".join(s[j] for j in positions)
    return dag.contraction((node, dag.const(1.0)), (s, "", "".join(c for c in s if c not in summed)))


def multiply(a: Monomial, b: Monomial, k: int, separate: frozenset = frozenset()) -> Monomial:
    """The product of two monomials on the same output letters 0..k-1 (inner letters kept apart)."""
    shift = 1 + max([c for f in a.factors for c in f.letters if c >= k] + [k])
    moved = tuple(Factor(f.node, tuple(c if c < k else c + shift for c in f.letters), f.power) for f in b.factors)
    return normal(Monomial(a.coef * b.coef, a.factors + moved), k, separate)
