"""The variance template: Cauchy-Schwarz absorbs one group of a Hessian form into another.

A negative group -c(F) <p(F), u(F)>^2 (c >= 0, the square of one combination of u) is
absorbed by a positive group w(F) |u(F)|^2_M (w > 0) of the same vector u when, for every F,

    c(F) <p(F), M^-1 p(F)> <= w(F),

since <p, u>^2 <= <p, M^-1 p> <u, M u> for M positive definite. Two readings of M:
diagonal (the positive group is sum_{F,K} w(F,K) u(F,K)^2, so M = diag(w) and the bound is
c sum_K p_K^2 / w_K <= 1: diag(z) - z z^T / sum z, softmax, log-sum-exp) and a Kronecker
product of invertible kernels (the positive group's half carries kernel factors, each
pairing one letter of u with its right copy: tr(X^-1 dX X^-1 dX) = |dX|^2 for M = X^-1 (x) X^-1,
with tr(X^-1 dX)^2 = <X^-1, dX>^2 <= n tr(X^-1 dX X^-1 dX): det(X)^(1/n)). In the concave
direction both groups are read negated. Group keys are `pairing`'s: ScalarKey or PairKey,
a kernel factor of a PairKey having one letter Right(a), the right copy of letter a.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Hashable
from fractions import Fraction
from typing import Callable, NamedTuple

from convexcheck.hessian.kernels import KernelKey
from convexcheck.hessian.pairing import PairKey, Right, ScalarKey, symmetric_node
from convexcheck.problem.model import Attributes
from convexcheck.signs.intervals import Interval
from tensorcalc.algebra.monomials import Factor, Monomial, collect, multiply, normal, ones
from tensorcalc.dag import Delta, Special, Var, special

MAX_ORIENTATIONS = 64           # transposes of symmetric factors tried in the kernel bound


class Group(NamedTuple):
    """One square group of the form: its key, its summed weight (kernel sign folded in) on
    the F letters 0..f-1, and f."""

    key: tuple
    weight: list[Monomial]
    f: int


Sign = Callable[[list[Monomial], int], Interval]


def absorbs(pos: Group, neg: Group, sign_of: Sign, attributes: dict[str, Attributes],
            sign: int = 1) -> str | None:
    """The bound (in words) under which the square `pos` (weight > 0 once multiplied by
    `sign`) absorbs the square of a combination `neg` (weight < 0 once multiplied by `sign`),
    their sum being PSD (sign +1) or NSD (sign -1); None when no reading shows it."""
    if isinstance(pos.key, KernelKey) or isinstance(neg.key, KernelKey):
        return None                    # halves of cross terms (`kernels`): not read here
    kernel = kernel_factors(pos.key)
    if kernel_factors(neg.key):
        return None                    # the combination's half must be kernel-free
    if kernel:
        found = _absorbs_kernel(pos, neg, kernel, sign_of, attributes, sign)
        return "c p' M^-1 p <= w (M: the kernels' Kronecker product)" if found else None
    return "sum_k p_k^2 / w_k <= 1" if _absorbs_diagonal(pos, neg, sign_of, sign) else None


def _absorbs_diagonal(pos: Group, neg: Group, sign_of: Sign, sign: int) -> bool:
    """Cauchy-Schwarz: with the square sum_{F,K} w(F,K) |u(F,K)|^2 (w > 0) and the negative
    group -c(F) |sum_K p(F,K) u(F,K)|^2 (c >= 0), the sum is >= 0 where for every F
    c(F) sum_K p(F,K)^2 / w(F,K) <= 1. The sum over K is kept whole: a letter of K that
    no factor carries counts the length of its axis. w may vanish: a factor of w left
    with a negative power in the bound has no sign unless it is nonzero, and one that
    cancels is a factor of p (then p = 0 where w = 0, the bound sums over w > 0) or of
    c (then the negative group is 0 where w is)."""
    f2, f1 = neg.f, pos.f
    h2, h1 = half_factors(neg.key), half_factors(pos.key)
    w1 = [Monomial(sign * m.coef, m.factors) for m in pos.weight]
    if h1 is None or h2 is None or len(w1) != 1:
        return False
    phi = _embed(h1, h2, f1, f2, range(f1))
    if phi is None:
        return False
    mapping, rest = phi
    (w,) = w1
    if w.coef <= 0 or any(x not in mapping for g in w.factors for x in g.letters):
        return False            # reads letters the map does not carry over
    inv_w = [Factor(g.node, tuple(mapping[x] for x in g.letters), -g.power) for g in w.factors]
    p2 = [Factor(g.node, g.letters, 2 * g.power) for g in rest]
    axes = {c: node.axes[j] for node, letters, _ in h2 for j, c in enumerate(letters)}
    counts = [Factor(ones((axes[x],)), (x,), 1.0) for x in sorted({mapping[a] for a in range(f1)}) if x >= f2]
    return _bound_holds(neg, w, p2 + inv_w + counts, sign_of, sign)


def _bound_holds(neg: Group, w: Monomial, factors: list[Factor], sign_of: Sign, sign: int) -> bool:
    """1 - sum_m (c_m / w) * factors >= 0 over the monomials -c_m of the negative group's
    weight (each keeps its own summed letters apart from the bound's)."""
    terms = [Monomial(1.0, ())]
    for m in neg.weight:
        bound = Monomial(_lower_quotient(sign * m.coef, w.coef), tuple(factors))
        terms.append(multiply(bound, Monomial(1.0, m.factors), neg.f))
    return sign_of(collect(terms), neg.f).nonneg


def _absorbs_kernel(pos: Group, neg: Group, kernel: list, sign_of: Sign, attributes, sign: int) -> bool:
    """The positive group is w(F) <u, M u> with M = the Kronecker product of its kernel
    factors, one per port letter a of u (K[a, a'], a' the right copy), each invertible and
    positive definite; the negative group -c(F) <p, u>^2 with p the factors of its half
    besides u's image. Bound: c <p, M^-1 p> <= w, M^-1 the product of the inverses."""
    f1, f2 = pos.f, neg.f
    h1, h2 = half_factors(pos.key), half_factors(neg.key)
    w1 = [Monomial(sign * m.coef, m.factors) for m in pos.weight]
    ports = _kronecker_ports(kernel, attributes)
    if h1 is None or h2 is None or ports is None or len(w1) != 1 or f1 != f2:
        return False
    (w,) = w1
    if w.coef <= 0 or any(x >= f1 for g in w.factors for x in g.letters):
        return False
    phi = _embed(h1, h2, f1, f2, [*range(f1), *ports])
    if phi is None:
        return False
    mapping, rest = phi
    if not set(ports) <= set(mapping):
        return False                    # every port is read by u's image
    quadratic = _inverse_form(rest, {mapping[a]: node for a, node in ports.items()}, f2, attributes)
    if quadratic is None:
        return False
    inv_w = [Factor(g.node, tuple(mapping[x] for x in g.letters), -g.power) for g in w.factors]
    return _bound_holds(neg, w, list(quadratic) + inv_w, sign_of, sign)


def _kronecker_ports(kernel: list, attributes) -> dict | None:
    """port letter -> the inverse of its kernel factor's node, when every kernel factor is
    K[a, a'] at power 1, one per letter a, K positive definite and invertible; else None."""
    ports: dict = {}
    for node, letters, power in kernel:
        left = [c for c in letters if not isinstance(c, Right)]
        right = [c.letter for c in letters if isinstance(c, Right)]
        inverse = _pd_inverse(node, attributes)
        if power != 1.0 or left != right or len(left) != 1 or left[0] in ports or inverse is None:
            return None
        ports[left[0]] = inverse
    return ports


def _pd_inverse(node, attributes):
    """The inverse of a kernel known positive definite (delta, inv of a pd variable, a pd
    variable), or None."""
    if isinstance(node, Delta):
        return node
    if isinstance(node, Special) and node.fn == "inv" and isinstance(node.args[0], Var):
        return node.args[0] if _pd(node.args[0], attributes) else None
    if isinstance(node, Var):
        return special("inv", node) if _pd(node, attributes) else None
    return None


def _pd(var: Var, attributes) -> bool:
    return getattr(attributes.get(var.name), "definite", None) == "pd"


def _inverse_form(p: list[Factor], inverses: dict, f: int, attributes) -> tuple[Factor, ...] | None:
    """<p, M^-1 p> as one monomial on output letters 0..f-1: p on its letters, a copy of p
    with its summed letters renamed, and M^-1[a, a*] per port a. Symmetric factors are
    read in every orientation (S[a,b] = S[b,a]) and the reading with fewest factors kept,
    so inv(X)[a,b] X[b,c] meets its cancellation whichever way the Hessian wrote it."""
    top = 1 + max([f] + [c for g in p for c in g.letters] + list(inverses))
    moved = lambda c: c if c < f else c + top      # noqa: E731
    copy = [Factor(g.node, tuple(moved(c) for c in g.letters), g.power) for g in p]
    kernel = [Factor(node, (a, moved(a)), 1.0) for a, node in inverses.items()]
    factors = [*p, *copy, *kernel]
    flippable = [i for i, g in enumerate(factors) if len(g.letters) == 2 and symmetric_node(g.node, attributes)]
    best = None
    for choice in itertools.islice(itertools.product((False, True), repeat=len(flippable)), MAX_ORIENTATIONS):
        flipped = set(i for i, t in zip(flippable, choice) if t)
        trial = [Factor(g.node, g.letters[::-1], g.power) if i in flipped else g for i, g in enumerate(factors)]
        m = normal(Monomial(1.0, tuple(trial)), f, frozenset())
        if best is None or len(m.factors) < len(best.factors):
            best = m
    return best.factors if best is not None else None


def _lower_quotient(a: float, b: float) -> float:
    """a / b rounded down (a lower bound on the exact quotient)."""
    q = a / b
    return q if Fraction(q) <= Fraction(a) / Fraction(b) else math.nextafter(q, -math.inf)


def half_factors(key: Hashable) -> list[Factor] | None:
    """The half's factors as (node, letters, power) without its kernel factors, or None for
    keys of another kind."""
    if isinstance(key, ScalarKey):
        return [Factor(key.direction, key.letters), *key.lifted]
    if not isinstance(key, PairKey):
        return None
    return [g for g in key.factors if not any(isinstance(c, Right) for c in g.letters)]


def kernel_factors(key: Hashable) -> list[Factor]:
    """The kernel factors of a PairKey (a letter Right(a) reads the right copy of a)."""
    return [g for g in key.factors if any(isinstance(c, Right) for c in g.letters)] if isinstance(key, PairKey) else []


def _embed(h1, h2, f1, f2, exposed):
    """An injective letter map sending every factor of h1 onto a distinct factor of h2,
    F1 (letters 0..f1-1) covering F2, the other letters of h1 onto letters >= f2; with the
    factors of h2 left over, which must read only F2 and the images of `exposed`."""
    def search(i, mapping, used):
        if i == len(h1):
            return mapping, used
        node, letters, power = h1[i]
        for j, (n2, l2, p2) in enumerate(h2):
            if j in used or n2 is not node or p2 != power:
                continue
            trial = dict(mapping)
            if all(trial.setdefault(a, b) == b for a, b in zip(letters, l2)) and \
                    len(set(trial.values())) == len(trial):
                found = search(i + 1, trial, used | {j})
                if found:
                    return found
        return None
    found = search(0, {}, frozenset())
    if found is None:
        return None
    mapping, used = found
    images = {mapping[a] for a in range(f1) if a in mapping}
    if set(range(f2)) - images or any(mapping.get(a, f2) < f2 for a in mapping if a >= f1):
        return None
    open_images = {mapping[a] for a in exposed if a in mapping}
    rest = [Factor(n, lt, p) for j, (n, lt, p) in enumerate(h2) if j not in used]
    if not all(set(g.letters) <= open_images | set(range(f2)) for g in rest):
        return None
    return mapping, rest
