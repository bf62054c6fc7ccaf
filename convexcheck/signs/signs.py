"""Sign and interval analysis of subexpressions (the rules' first table).

Every entry of a node lies in an `Interval` valid for all parameter values that satisfy
the declared attributes and every point of the domain: declared bounds, the implicit
domains of log (argument > 0), fractional powers (base >= 0, > 0 below exponent 1) and
recip (argument != 0). Intervals (`intervals`, re-exported here) are closed, with `nonzero`
marking an excluded zero, rounded outward, and sound rather than tight: an unknown sign is
(-inf, inf).

Polynomials over atoms (see `tensorcalc.algebra.monomials`) get signs three ways, in order: interval
arithmetic on the monomials; a common factor taken out first (x/y - x^2/y^2 = (x/y)(1 - x/y));
and the ratio rule z / (b + z) in [0, 1] for z, b >= 0 (the variance template's scalar
core: the logistic function's derivative sigma (1 - sigma) >= 0).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from convexcheck.problem.model import Attributes
from convexcheck.signs.definite import Cone, cone
from convexcheck.signs.definite import form as square_form
from convexcheck.signs.factoring import common_factor, divide, on_letters, past, summed_axes
from convexcheck.signs.intervals import (
    ANY,
    HALF_PI,
    INF,
    NONNEG,
    PI,
    POSITIVE,
    Interval,
    add,
    cos,
    exp,
    log,
    meet,
    mul,
    odd_bounded,
    point,
    power,
    recip,
    sin,
)
from convexcheck.signs.intervals import excludes_zero as _nz
from tensorcalc.algebra.monomials import (
    Expander,
    Factor,
    Monomial,
    TooLarge,
    canonical,
    close_sums,
    collect,
    is_ones,
    multiply,
    pending,
)
from tensorcalc.dag import Axis, Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var

MAX_OPEN = 512                  # monomials a polynomial's opened sums may reach
MAX_OPEN_POWER = 8              # a sum is opened to at most this power

def _huber(a: Interval) -> Interval:
    """huber(x) = x^2 for |x| <= 1, 2|x| - 1 beyond: on |x|'s interval, one ulp out."""
    ends = _ELEMENTWISE["abs"](a)
    lo, hi = (math.nextafter(v * v if v <= 1 else 2 * v - 1, to) for v, to in zip((ends.lo, ends.hi), (0.0, INF)))
    return Interval(lo, hi, _nz(a))


_ELEMENTWISE: dict[str, Callable[[Interval], Interval]] = {
    "exp": exp, "log": log,
    "sin": sin, "cos": cos,
    "tanh": odd_bounded(1.0), "arctan": odd_bounded(HALF_PI), "arcsin": odd_bounded(HALF_PI),
    "arccos": lambda a: Interval(0.0, PI),
    "abs": lambda a: Interval(0.0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi)),
                              max(abs(a.lo), abs(a.hi)), _nz(a)),
    "relu": lambda a: Interval(max(a.lo, 0.0), max(a.hi, 0.0), a.lo > 0),
    "huber": _huber,
    "sign": lambda a: Interval(-1.0 if a.lo < 0 else 0.0, 1.0 if a.hi > 0 else 0.0, _nz(a)),
    "neg": lambda a: Interval(-a.hi, -a.lo, a.nonzero),
    "recip": recip,
    "tan": lambda a: ANY,
}


def from_attributes(attrs: Attributes) -> Interval:
    lo = -INF if attrs.lower is None else attrs.lower
    hi = INF if attrs.upper is None else attrs.upper
    nonzero = (lo > 0 or hi < 0 or (lo == 0 and attrs.lower_strict) or (hi == 0 and attrs.upper_strict))
    return Interval(lo, hi, nonzero)


class Signs:
    """Intervals of nodes and polynomials under declared attributes and domain facts.

    `attributes`: name -> Attributes of every declared variable and parameter;
    `facts`: node -> Interval the domain guarantees (from `domain_facts`);
    `lengths`: axis -> length of the axes whose length is a fixed integer (any other
    axis may have any positive length)."""

    def __init__(self, attributes: dict[str, Attributes], facts: dict[Expr, Interval] | None = None,
                 lengths: dict[Axis, int] | None = None):
        self.attributes = attributes
        self.lengths = lengths or {}
        self.facts = facts or {}
        self.partners = _partners(self.facts)
        self.by_value: dict | None = None           # facts by expanded value, built on first use
        self.memo: dict[Expr, Interval] = {}
        self.expander = Expander()

    def node(self, node: Expr) -> Interval:
        """The node's interval. The nodes below it are done first, in dependency order on an
        explicit stack, so a rule's reads of its operands are cache hits at any depth."""
        for n in pending(node, self.memo):
            self.memo[n] = ANY                      # a guard against cycles through partners
            iv = self._node(n)
            if n in self.facts:
                iv = meet(iv, self.facts[n])
            elif isinstance(n, (Sum, Product)) and self.facts:
                iv = meet(iv, self._fact_of_value(n))
            for other in self.partners.get(n, ()):
                if self.node(other).nonneg and _nz(self.node(other)):   # a * other > 0, other > 0
                    iv = meet(iv, POSITIVE)
            self.memo[n] = iv
        return self.memo[node]

    def _fact_of_value(self, node: Expr) -> Interval:
        """A domain fact about a different node with the same expansion (the Hessian writes
        1 - x'x as 1 - sum(x * x)), or no information."""
        if self.by_value is None:
            self.by_value = {}
            for fact_node, iv in self.facts.items():
                key = self._value_key(fact_node)
                if key is not None:
                    self.by_value[key] = meet(self.by_value.get(key, ANY), iv)
        key = self._value_key(node)
        return self.by_value.get(key, ANY) if key is not None else ANY

    def _value_key(self, node: Expr):
        try:
            return (node.order, frozenset(self.expander.expand(node)))
        except TooLarge:
            return None

    def _node(self, node: Expr) -> Interval:
        if isinstance(node, Var):
            attrs = self.attributes.get(node.name)
            return from_attributes(attrs) if attrs else ANY
        if isinstance(node, Const):
            return point(node.value)
        if isinstance(node, Delta):
            return Interval(0.0, 1.0)
        if isinstance(node, Elementwise):
            return _ELEMENTWISE[node.fn](self.node(node.args[0]))
        if isinstance(node, Power) and isinstance(node.args[1], Const):
            return power(self.node(node.args[0]), node.args[1].value)
        if isinstance(node, Power):                 # a^e, e not a number: >= 0 where a >= 0, > 0 where a > 0
            a = self.node(node.args[0])
            return Interval(0.0, INF, _nz(a)) if a.nonneg else ANY
        if isinstance(node, Gather):              # the source's values, and 0 off the domain
            iv = self.node(node.args[0])
            return Interval(min(iv.lo, 0.0), max(iv.hi, 0.0)) if node.domain or _guarded(node) else iv
        if isinstance(node, Special):
            return self._special(node)
        if isinstance(node, (Sum, Product)):
            try:
                iv = self.polynomial(self.expander.expand(node), node.order)
            except TooLarge:
                iv = ANY
            if square_form(node, self.attributes, self.node):   # u' u, u' K u (K psd): expanding hid it
                iv = meet(iv, NONNEG)
            return meet(iv, self._structural(node))
        return ANY

    def _structural(self, node: Sum | Product) -> Interval:
        """The node's interval from its operands' (which may know more than their
        expansion, e.g. a refined maximum): a sum's add up; a product that sums no
        letter multiplies them."""
        if isinstance(node, Product) and set("".join(node.spec.inputs)) != set(node.spec.out):
            return ANY
        combine = add if isinstance(node, Sum) else mul
        iv = self.node(node.args[0])
        for a in node.args[1:]:
            iv = combine(iv, self.node(a))
        return iv

    def _special(self, node: Special) -> Interval:
        """det of a pd matrix (`definite.cone`: X, X + eye, 2 * X with X pd), or of the
        inverse of one, is > 0."""
        if node.fn == "det":
            x = node.args[0]
            if isinstance(x, Special) and x.fn == "inv":
                x = x.args[0]
            if cone(x, self.attributes, self.node) == Cone(1, True):
                return POSITIVE
        return ANY

    def factor(self, f: Factor) -> Interval:
        if is_ones(f.node):
            return point(1.0)
        return power(self.node(f.node), f.power)

    def monomial(self, m: Monomial, k: int) -> Interval:
        """coef times its factors, summed over the summed letters: N terms in one interval
        sum to N times it, with N the product of the summed axes' lengths (known ones
        exactly; an axis of unknown length counts any N >= 1). Where taking sums inside
        atoms merges factors (w[a] w[b] S^2 = S^4), that reading is met with this one."""
        iv = self._summed(m, k)
        closed = close_sums(m, k)
        if len(closed.factors) < len(m.factors):
            iv = meet(iv, self._summed(closed, k))
        return iv

    def _summed(self, m: Monomial, k: int) -> Interval:
        m, forms = self._quadratic_forms(m, k)
        iv = point(m.coef)
        for form in forms:
            iv = mul(iv, form)
        for f in m.factors:
            iv = mul(iv, self.factor(f))
        summed = summed_axes(m, k)
        if not summed:
            return iv
        known = [self.lengths[ax] for ax in summed.values() if ax in self.lengths]
        total = mul(iv, point(float(math.prod(known))))
        if len(known) == len(summed):
            return total
        return Interval(total.lo if iv.lo >= 0 else -INF, total.hi if iv.hi <= 0 else INF, iv.nonzero)

    def _quadratic_forms(self, m: Monomial, k: int) -> tuple[Monomial, list[Interval]]:
        """Factors K[a,b] g[a] g[b] with a, b summed letters that these three alone carry and
        K semidefinite: the quadratic form g' K g, >= 0 for K PSD (<= 0 for K NSD), taken out."""
        count: dict = {}
        for f in m.factors:
            for c in f.letters:
                count[c] = count.get(c, 0) + 1
        factors, forms = list(m.factors), []
        for kernel in list(factors):
            sign = self._definite(kernel)
            if sign is None or kernel not in factors or len(kernel.letters) != 2:
                continue
            a, b = kernel.letters
            if a == b or a < k or b < k or count[a] != 2 or count[b] != 2:
                continue
            ga = next((g for g in factors if g is not kernel and g.letters == (a,)), None)
            gb = next((g for g in factors if g is not kernel and g.letters == (b,)), None)
            if ga is None or gb is None or ga.node is not gb.node or ga.power != gb.power:
                continue
            factors = [g for g in factors if g is not kernel and g is not ga and g is not gb]
            forms.append(NONNEG if sign > 0 else Interval(-INF, 0.0))
        return (Monomial(m.coef, tuple(factors)), forms) if forms else (m, [])

    def _definite(self, f: Factor) -> int | None:
        """+1 for a PSD matrix factor (a psd/pd parameter, inv of a pd one), -1 for NSD."""
        node, flip = f.node, 1
        if f.power != 1.0:
            return None
        if isinstance(node, Special) and node.fn == "inv":
            node, flip = node.args[0], 0
        attrs = self.attributes.get(node.name) if isinstance(node, Var) else None
        table = {"psd": 1, "pd": 1, "nsd": -1, "nd": -1} if flip else {"pd": 1, "nd": -1}
        return table.get(getattr(attrs, "definite", None) or "")

    def polynomial(self, monomials: list[Monomial], k: int, depth: int = 2) -> Interval:
        """An interval for a sum of monomials on output letters 0..k-1."""
        if not monomials:
            return point(0.0)
        total = point(0.0)
        for m in monomials:
            total = add(total, self._ratio(m, k) or self.monomial(m, k))
        if total.nonneg or total.nonpos or depth == 0:
            return total
        common, rest = common_factor(monomials, k)
        if common:
            head = Interval(1.0, 1.0, True)
            for f in common:
                head = mul(head, self.factor(f))
            better = mul(head, self.polynomial(rest, k, depth - 1))
            if better.nonneg or better.nonpos:
                return better
        opened = self._open_sums(monomials, k)
        if opened is not None:
            return self.polynomial(opened, k, depth - 1)
        return total

    def _ratio(self, m: Monomial, k: int) -> Interval | None:
        """m = c * N * B^-q with B = sum of nonneg monomials of which one is beta * N^(1/q)'s
        match: then (N^(1/q) / B)^q lies in [0, beta^-q], the rest by intervals."""
        for f in m.factors:
            if f.power >= 0 or not float(f.power).is_integer() or any(c >= k for c in f.letters):
                continue
            q = -int(f.power)
            if not isinstance(f.node, (Sum, Product)):
                continue
            try:
                start = past(m.factors, k)
                parts = [on_letters(b, f.letters, start) for b in self.expander.expand(f.node)]
            except TooLarge:
                continue
            if not all(self.monomial(b, k).nonneg for b in parts):
                continue
            others = [g for g in m.factors if g is not f]
            for b in parts:
                if q == 1 and b.coef > 0 and canonical(others, k) == canonical(list(b.factors), k):
                    return mul(point(m.coef), Interval(0.0, recip(point(b.coef)).hi, _nz(self.monomial(b, k))))
            for b in sorted(parts, key=lambda b: -len(b.factors)):
                left = divide(others, b.factors, q, start)
                if left is not None and b.coef > 0:
                    # (b / B)^q, > 0 where b is
                    share = Interval(0.0, power(point(b.coef), -q).hi, _nz(self.monomial(b, k)))
                    return mul(share, self.monomial(Monomial(m.coef, tuple(left)), k))
        return None

    def _open_sums(self, monomials: list[Monomial], k: int) -> list[Monomial] | None:
        """Sums raised to a positive whole power written out (S^1 - x^2 with S = x^2 + 1 is 1).
        The work is bounded before any product is formed: at most MAX_OPEN monomials, each
        sum opened at most MAX_OPEN_POWER times (a power of 3000 is left whole)."""
        out: list[Monomial] = []
        opened = False
        for m in monomials:
            terms = [Monomial(m.coef, ())]
            for f in m.factors:
                if isinstance(f.node, (Sum, Product)) and f.power >= 1 and float(f.power).is_integer() \
                        and all(c < k for c in f.letters):
                    if f.power > MAX_OPEN_POWER:
                        return None
                    opened = True
                    try:
                        inner = [on_letters(b, f.letters, k) for b in self.expander.expand(f.node)]
                    except TooLarge:
                        return None
                    if len(terms) * len(inner) ** int(f.power) + len(out) > MAX_OPEN:
                        return None
                    for _ in range(int(f.power)):
                        terms = [multiply(t, b, k) for t in terms for b in inner]
                else:
                    terms = [multiply(t, Monomial(1.0, (f,)), k) for t in terms]
            out.extend(terms)
        return collect(out) if opened else None


def _guarded(node: Gather) -> bool:
    return any(d != 1 for _, _, d in node.rows)


def _partners(facts: dict[Expr, Interval]) -> dict[Expr, list[Expr]]:
    """For each positive element-wise product a * b in the facts: a's partner b and b's a."""
    partners: dict[Expr, list[Expr]] = {}
    for node, iv in facts.items():
        if isinstance(node, Product) and len(node.args) == 2 and iv.nonneg and iv.nonzero \
                and all(s == node.spec.out for s in node.spec.inputs):
            a, b = node.args
            partners.setdefault(a, []).append(b)
            partners.setdefault(b, []).append(a)
    return partners
