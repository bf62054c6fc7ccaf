"""One monomial of a Hessian quadratic form read as  sum_F w(F) <u(F), K u(F)>.

A monomial of q(d) = d^T H d holds the direction twice. If an involution sigma of its index
letters swaps the two direction factors and maps the other factors onto each other, the
monomial is  sum_F w(F) sum_{R,R'} u(F,R) K(R,R') u(F,R')  where F are the letters sigma
fixes, u is the product of the factors on one side (the direction's "half"), w the
factors on F alone, and K the factors that sigma maps onto their own transpose. Such a
monomial is PSD when w >= 0 and K is PSD: K is a Schur (entrywise) and Kronecker product
of PSD kernels (psd parameters, inv of pd matrices, deltas), the rules A M A^T, c M and
Schur's product theorem of Klaus et al. A monomial whose two direction factors are on the
same letters as everything else is the scalar form sum_F w(F) d_a(F) d_b(F) instead, an
entry of a small Gram matrix (`certificate` collects those).
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import NamedTuple

from convexcheck.problem.model import Attributes
from tensorcalc.algebra.monomials import Factor, Monomial, canonical, is_ones
from tensorcalc.dag import Delta, Expr, Special, Var
from tensorcalc.graph import digest


@dataclass(frozen=True)
class ScalarKey:
    """A scalar half: the direction on letters of F (numbered 0..f-1), times the `lifted`
    factors (`_lifted`); one number per F."""

    direction: Expr
    letters: tuple[int, ...]
    lifted: tuple[Factor, ...] = ()


@dataclass(frozen=True)
class PairKey:
    """A half u with its kernel K, up to renaming: F letters are 0..f-1, the half's own
    letters f, f+1, ...; a kernel factor reads the right copy of letter a as Right(a)."""

    factors: tuple[Factor, ...]


@dataclass(frozen=True)
class Right:
    """Letter `letter` of the right copy of a half (left copies' letters are plain)."""

    letter: int


class Half(NamedTuple):
    """The monomial as w(F) * <u, K u>: `key` names (u, K) up to renaming; `weight` is w on
    letters 0..f-1; `sign` is +1/-1 for a PSD/NSD kernel."""

    key: Hashable                # a ScalarKey, a PairKey, or a kernels.KernelKey
    other: Hashable              # the other half's key (== key when the monomial is a square)
    weight: Monomial
    f: int
    sign: int


def split(m: Monomial, directions: frozenset, attributes: dict[str, Attributes],
          lifts: frozenset = frozenset()) -> Half | None:
    """The monomial's half decomposition, or None when no rule reads it. `lifts`: lifted
    scalar keys (a direction times factors, see `_lifted`) that squares may be read as."""
    where = [i for i, f in enumerate(m.factors) if f.node in directions]
    if len(where) != 2 or any(m.factors[i].power != 1.0 for i in where):
        return None
    d1, d2 = (m.factors[i] for i in where)
    rest = [f for i, f in enumerate(m.factors) if i not in where]
    diagonal = _diagonal(d1, d2, rest, m.coef, lifts)
    if diagonal is not None:
        return diagonal
    if d1.node is not d2.node:
        return None
    for flip in (False, True) if _symmetric_direction(d1.node, attributes) else (False,):
        for sigma, partner in _pairings(d1, d2, flip, rest, attributes):
            half = _half(m.coef, d1, sigma, partner, rest, attributes)
            if half is not None:
                return half
    return None


def _symmetric_direction(node: Expr, attributes) -> bool:
    name = getattr(node, "name", "")
    attrs = attributes.get(name.removeprefix("__d_"))
    return node.order == 2 and attrs is not None and attrs.is_symmetric


def _diagonal(d1: Factor, d2: Factor, rest: list[Factor], coef: float, lifts: frozenset) -> Half | None:
    """sum_F w(F) a(F) b(F) with scalar halves a, b: the directions on the same letters F
    (other letters summed in the weight w(F)), or lifted (`_lifted`)."""
    if set(d1.letters) != set(d2.letters):
        return _lifted(d1, d2, rest, coef) or _lifted(d2, d1, rest, coef)
    order = {c: k for k, c in enumerate(dict.fromkeys(d1.letters))}
    if d1.node is d2.node and lifts:
        square = _lifted_square(d1, rest, coef, order, lifts)
        if square is not None:
            return square
    return _scalar_half((d1, ()), (d2, ()), rest, coef, order)


def _scalar_half(a, b, weight: list[Factor], coef: float, order: dict) -> Half:
    """Half of the scalar form: a = (direction, extra factors), b likewise, on F = `order`."""
    ka, kb = (_scalar_key(d, extra, order) for d, extra in (a, b))
    ka, kb = sorted((ka, kb), key=_scalar_order)
    return Half(ka, kb, _renamed(coef, weight, order), len(order), 1)


def _scalar_key(d: Factor, extra, order: dict) -> ScalarKey:
    lifted = tuple(sorted((Factor(g.node, tuple(order[c] for c in g.letters), g.power) for g in extra),
                          key=lambda g: (digest(g.node), g.letters, g.power)))
    return ScalarKey(d.node, tuple(order[c] for c in d.letters), lifted)


def _scalar_order(key: ScalarKey):
    return (getattr(key.direction, "name", "~"), digest(key.direction), key.letters,
            tuple((digest(g.node), g.letters, g.power) for g in key.lifted))


def _lifted(big: Factor, small: Factor, rest: list[Factor], coef: float) -> Half | None:
    """sum_F w(F) d_a(F) [d_b(F') g(F)]: where d_b misses letters of d_a, the factors g
    carrying them join d_b's half (d_b's letters F' a part of F), so the half is one number
    per F (quad-over-lin: dx[K] and x[K] dt)."""
    letters, missing = set(big.letters), set(big.letters) - set(small.letters)
    if not set(small.letters) < letters:
        return None
    extra = [g for g in rest if set(g.letters) & missing]
    if not all(set(g.letters) <= letters for g in extra) or \
            not missing <= {c for g in extra for c in g.letters}:
        return None
    order = {c: k for k, c in enumerate(dict.fromkeys(big.letters))}
    return _scalar_half((big, ()), (small, extra), [g for g in rest if g not in extra], coef, order)


def _lifted_square(d: Factor, rest: list[Factor], coef: float, order: dict, lifts: frozenset) -> Half | None:
    """sum_F' w [d(F') g(F)]^2 read on F (the factors g off d's letters, at half their
    power, join both halves) when that lifted key occurs in a cross term."""
    extra = [g for g in rest if not set(g.letters) <= set(d.letters)]
    if not extra or any(g.power % 2 != 0 for g in extra):     # g^p = (g^(p/2))^2, p/2 whole: real halves
        return None
    order = dict(order)
    for g in extra:
        for c in g.letters:
            order.setdefault(c, len(order))
    halved = [Factor(g.node, g.letters, g.power / 2) for g in extra]
    key = _scalar_key(d, halved, order)
    if key not in lifts:
        return None
    return Half(key, key, _renamed(coef, [g for g in rest if g not in extra], order), len(order), 1)


def _renamed(coef: float, factors: list[Factor], order: dict) -> Monomial:
    """The weight on F letters 0..f-1 (`order`); its other letters are summed (numbered after)."""
    f = len(order)
    inner: dict = {}

    def name(c: int) -> int:
        return order[c] if c in order else inner.setdefault(c, f + len(inner))
    return Monomial(coef, canonical([Factor(g.node, tuple(name(c) for c in g.letters), g.power)
                                     for g in factors], f))


MAX_PAIRINGS = 64


def _pairings(d1, d2, flip, rest, attributes):
    """Candidate (sigma, partner): an involution of letters and a matching of the factors
    `rest` (partner index per factor), by backtracking; at most MAX_PAIRINGS of them."""
    sigma: dict = {}
    targets = d2.letters[::-1] if flip else d2.letters
    if not _bind_all(sigma, d1.letters, targets):
        return
    for count, found in enumerate(_match(rest, 0, sigma, {}, attributes)):
        if count == MAX_PAIRINGS:
            return
        yield found


def _bind_all(sigma: dict, a: tuple, b: tuple) -> bool:
    for x, y in zip(a, b):
        if sigma.get(x, y) != y or sigma.get(y, x) != x:
            return False
        sigma[x], sigma[y] = y, x
    return True


def _match(rest, i, sigma, partner, attributes):
    if i == len(rest):
        yield sigma, partner
        return
    if i in partner:
        yield from _match(rest, i + 1, sigma, partner, attributes)
        return
    f = rest[i]
    for j in range(i, len(rest)):
        g = rest[j]
        if j in partner or g.node is not f.node or g.power != f.power:
            continue
        options = [g.letters]
        if len(f.letters) == 2 and symmetric_node(f.node, attributes):
            options.append(g.letters[::-1])          # S[a,b] = S[b,a]: sigma may map onto the transpose
        for target in options:
            trial = dict(sigma)
            if _bind_all(trial, f.letters, target):
                yield from _match(rest, i + 1, trial, {**partner, i: j, j: i}, attributes)


def _half(coef, d1, sigma: dict, partner: dict, rest: list[Factor], attributes) -> Half | None:
    side = _sides(d1, sigma, partner, rest)
    if side is None:
        return None
    half, kernel, weight, sign = [d1], [], [], 1
    for i, f in enumerate(rest):
        if all(sigma.get(c, c) == c for c in f.letters):
            weight.append(f)
        elif partner[i] != i:
            if side.get(_first_paired(f, sigma)) == "L":
                half.append(f)
        else:
            s = kernel_sign(f, attributes)
            if s is None or len(f.letters) != 2 or side.get(f.letters[0]) == side.get(f.letters[1]):
                return None
            sign *= s
            kernel.append(f)
    # F: the fixed letters u or K reads; fixed letters only the weight reads are summed in it
    fixed = [c for c in dict.fromkeys(c for f in [*half, *kernel, *rest] for c in f.letters)
             if sigma.get(c, c) == c and any(c in f.letters for f in [*half, *kernel])]
    order = {c: k for k, c in enumerate(fixed)}
    # A key's letters hold Right (and kernels' Port) markers besides numbers, where tensorcalc's
    # Factor.letters says int: the one place the annotation is narrower than its use.
    key = _key([Factor(f.node, tuple(Right(sigma[c]) if c not in order and side.get(c) == "R" else c  # type: ignore[misc]
                                     for c in f.letters), f.power) for f in half + kernel], order)
    return Half(key, key, _renamed(coef, weight, order), len(order), sign)


def _key(factors: list[Factor], order: dict) -> PairKey:
    """A renaming-invariant key: F letters (`order`) become 0..f-1; the others, on the left
    and as Right(c) for the right partner of c, are numbered f, f+1, ... in order."""
    names: dict = {}

    def name(c):
        if isinstance(c, Right):
            return Right(name(c.letter))
        return order[c] if c in order else names.setdefault(c, len(order) + len(names))
    ordered = sorted(factors, key=lambda g: (digest(g.node), g.power))
    return PairKey(tuple(Factor(g.node, tuple(map(name, g.letters)), g.power) for g in ordered))


def _first_paired(f: Factor, sigma: dict):
    return next((c for c in f.letters if sigma.get(c, c) != c), None)


def _sides(d1, sigma, partner, rest) -> dict | None:
    """Left/right side of every swapped letter: d1's are left; a matched pair of factors puts
    one factor's swapped letters all on one side and its partner's on the other."""
    side: dict = {}

    def put(c, s):
        other = "R" if s == "L" else "L"
        if side.get(c, s) != s or side.get(sigma[c], other) != other:
            return False
        side[c], side[sigma[c]] = s, other
        return True

    if not all(put(c, "L") for c in d1.letters if sigma.get(c, c) != c):
        return None
    pairs = [(i, j) for i, j in partner.items() if i < j]
    for round_ in range(len(pairs) + 1):
        last = round_ == len(pairs)              # the last round places any pair left unplaced
        for i, _j in pairs:
            letters = [c for c in rest[i].letters if sigma.get(c, c) != c]
            known = {side[c] for c in letters if c in side}
            if len(known) > 1:
                return None
            s = known.pop() if known else ("L" if last else None)
            if s is not None and not all(put(c, s) for c in letters):
                return None
    return side


def symmetric_node(node: Expr, attributes: dict[str, Attributes]) -> bool:
    """Matrices known to equal their transpose."""
    if isinstance(node, Var):
        attrs = attributes.get(node.name)
        return attrs is not None and attrs.is_symmetric
    if isinstance(node, Delta) or is_ones(node):
        return True
    if isinstance(node, Special) and node.fn in ("inv", "adj"):
        return symmetric_node(node.args[0], attributes)
    return False


def kernel_sign(f: Factor, attributes: dict[str, Attributes]) -> int | None:
    """+1 when the factor is a PSD matrix kernel, -1 when NSD, None when not known.
    A Schur power of a PSD kernel is PSD; of an NSD one, PSD for even powers."""
    if f.power < 1 or not float(f.power).is_integer():
        return None
    base = _definite_sign(f.node, attributes)
    if base is None:
        return None
    return base ** int(f.power)


def _definite_sign(node: Expr, attributes) -> int | None:
    if isinstance(node, Delta) or is_ones(node):
        return 1
    if isinstance(node, Var):
        definite = getattr(attributes.get(node.name), "definite", None)
        return {"psd": 1, "pd": 1, "nsd": -1, "nd": -1}.get(definite or "")
    if isinstance(node, Special) and node.fn == "inv" and isinstance(node.args[0], Var):
        definite = getattr(attributes.get(node.args[0].name), "definite", None)
        return {"pd": 1, "nd": -1}.get(definite or "")
    return None
