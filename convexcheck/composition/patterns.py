"""Patterns of the compositional walk that no single atom states (`compose` uses them).

Each takes the walk (its verdicts `child`, intervals `interval`, `reads`, and its two sign
analyses `signs` and `declared`) and a node, and returns a `Verdict` or None:
  - log of a nonnegative combination of exponentials of convex functions — `exp_sum`;
  - quadratic over linear, S / D with S a sum of squares (`sum_of_squares`: powers >= 2
    of convex functions >= 0, `norms`) and D concave and > 0;
  - c * relu(a - b) + c * b + rest = c * max(a, b) + rest, and the range of such a
    maximum (`max_range`: a minimum of positive functions is positive);
  - products of two linear operands (quadratic forms, whose sign follows their curvature);
  - harmonic means, 1 / (c + sum_k w_k / a_k) with a_k > 0 concave, c, w_k >= 0 — `harmonic`;
  - like terms merged, c1 t + c2 t = (c1 + c2) t, and kinks of one affine argument up to
    sign paired, relu(-u) = relu(u) - u and |u| = 2 relu(u) - u — `like_terms`.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from convexcheck.composition import atoms
from convexcheck.composition.atoms import CONCAVE, CONSTANT, CONVEX, Curvature
from convexcheck.composition.norms import degree
from convexcheck.composition.verdict import Verdict, WalkView
from convexcheck.signs.intervals import Interval, add, excludes_zero, meet, scale
from convexcheck.signs.signs import Signs
from tensorcalc.dag import Const, Elementwise, Expr, Gather, Power, Product, Sum, Var

WHY_LIMIT = 160


def hessian_rules(parts: Iterable[Verdict]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r for p in parts for r in p.hessian))


def describe(v: Verdict) -> str:
    """A verdict as 'convex (why)', or 'affine'."""
    word = v.curvature.word()
    return word if v.curvature.affine or v.curvature.constant or v.why == word else f"{word} ({v.why})"


def _nonneg_combination(walk: WalkView, node: Expr, leaf) -> bool:
    """Every entry a nonnegative combination of `leaf` nodes plus a nonnegative constant
    (through sums, gathers and products linear in one operand with coefficients >= 0)."""
    if not walk.reads[node]:
        return walk.interval(node).nonneg
    if leaf(node):
        return True
    if isinstance(node, (Sum, Gather)):
        return all(_nonneg_combination(walk, c, leaf) for c in node.args)
    if isinstance(node, Product):
        reading = [a for a in node.args if walk.reads[a]]
        return len(reading) == 1 and node.args.count(reading[0]) == 1 and \
            all(walk.interval(a).nonneg for a in node.args if not walk.reads[a]) and \
            _nonneg_combination(walk, reading[0], leaf)
    return False


def sum_of_squares(walk: WalkView, node: Expr) -> bool:
    """A nonnegative combination of powers >= 2 of convex functions >= 0, of squares of
    |affine| functions and of forms u' K u, K psd (`norms.degree` at least 2): a sum of
    squares v_i^2 of convex v_i >= 0, so S / D is a quadratic over linear."""
    found = degree(walk, node)
    return found is not None and found.q >= 2


def exp_sum(walk: WalkView, node: Expr) -> bool:
    """A nonnegative combination of exponentials of convex functions (its log is convex)."""
    return _nonneg_combination(walk, node, lambda m: isinstance(m, Elementwise) and m.fn == "exp"
                               and walk.child(m.args[0]).curvature.convex)


def harmonic(walk: WalkView, denominator: Expr) -> Verdict | None:
    """1 / D where every entry of D > 0 is a nonnegative combination of reciprocals 1 / a
    (recip or ^(-1)) of positive concave functions a, plus a constant >= 0: a weighted
    harmonic mean, concave and nondecreasing in each a (1/(1/x + 1/y), 1/mean(1./x))."""
    def reciprocal(m: Expr) -> bool:
        minus_one = isinstance(m, Power) and isinstance(m.args[1], Const) and m.args[1].value == -1
        if not (isinstance(m, Elementwise) and m.fn == "recip" or minus_one):
            return False
        a = m.args[0]
        return walk.child(a).curvature.concave and atoms.one_sided(walk.interval(a)) > 0
    if not (walk.reads[denominator] and atoms.one_sided(walk.interval(denominator)) > 0
            and _nonneg_combination(walk, denominator, reciprocal)):
        return None
    return Verdict(CONCAVE, "harmonic mean: 1 / (a nonnegative combination of 1/a, a > 0 concave)",
                   walk.child(denominator).hessian)


def quad_over_lin(walk: WalkView, node: Product, reading: list[int]) -> Verdict | None:
    """S *(..) recip(D) with S a sum of squares (`_sum_of_squares`) and D concave and > 0,
    the other operands >= 0: every entry is a sum of |u|^2 / v terms, convex."""
    a, b = (node.args[k] for k in reading)
    if isinstance(a, Elementwise) and a.fn == "recip":
        a, b = b, a
    if not (isinstance(b, Elementwise) and b.fn == "recip") or a is b:
        return None
    d = b.args[0]
    if not (sum_of_squares(walk, a) and walk.child(d).curvature.concave and atoms.one_sided(walk.interval(d)) > 0):
        return None
    if not all(walk.interval(c).nonneg for c in node.args if not walk.reads[c]):
        return None
    return Verdict(CONVEX, "quadratic over linear: a sum of squares of convex functions >= 0 over a "
                           "positive concave function", hessian_rules([walk.child(a), walk.child(d)]))


def _linear(walk: WalkView, node: Expr) -> bool:
    """Linear (affine and zero where the variables are zero) in the analysed variables."""
    if isinstance(node, Var):
        return walk.reads[node]
    if isinstance(node, Sum):
        return all(walk.reads[c] and _linear(walk, c) for c in node.args)
    if isinstance(node, (Gather, Elementwise)) and getattr(node, "fn", "neg") == "neg":
        return _linear(walk, node.args[0])
    if isinstance(node, Product):
        reading = [a for a in node.args if walk.reads[a]]
        return len(reading) == 1 and node.args.count(reading[0]) == 1 and _linear(walk, reading[0])
    return False


def bilinear(walk: WalkView, node: Expr) -> bool:
    """A product of two linear operands (with constant ones): a quadratic form in the variables."""
    if not isinstance(node, Product):
        return False
    reading = [a for a in node.args if walk.reads[a]]
    return len(reading) == 2 and all(_linear(walk, a) for a in reading)


def linear_terms(node: Expr, keep: Callable[[Expr], bool] = lambda m: False) -> list[tuple[float, Expr]]:
    """`node` as sum_k c_k t_k through sums, negations and scalar constant multiples; a
    node below the top for which `keep` is true stays one term."""
    out, stack = [], [(1.0, node, True)]
    while stack:
        c, m, top = stack.pop()
        if not top and keep(m):
            out.append((c, m))
        elif isinstance(m, Sum):
            stack.extend((c, a, False) for a in m.args)
        elif isinstance(m, Elementwise) and m.fn == "neg":
            stack.append((-c, m.args[0], False))
        elif isinstance(m, Product) and len(m.args) == 2 and _scalar_const(m) is not None:
            value, other = _scalar_const(m)
            stack.append((c * value, other, False))
        else:
            out.append((c, m))
    return out


def _scalar_const(m: Product):
    """(c, a) when m is the scalar multiple c *(,s->s) a (either order)."""
    for k in (0, 1):
        const, other = m.args[k], m.args[1 - k]
        if isinstance(const, Const) and const.order == 0 and m.spec.inputs[1 - k] == m.spec.out:
            return const.value, other
    return None


def max_pattern(walk: WalkView, splits: list) -> Verdict | None:
    """c * relu(a - b) + c * b + rest = c * max(A, B) + rest (A the a terms, B the b terms
    over c): convex for convex A, B and rest when c > 0; concave for convex A, B (a min of
    concave functions, y - relu(y - 1) = min(y, 1)) and concave rest when c < 0
    (`splits`: the sum's readings, from `max_splits`)."""
    for c, _, a, b, rest in splits:
        inside = atoms.combine([_scaled_curvature(walk, k, m) for k, m in a] +
                               [_scaled_curvature(walk, k / c, m) for k, m in b])
        outside = atoms.combine([_scaled_curvature(walk, k, m) for k, m in rest])
        rules = hessian_rules([walk.child(m) for _, m in a + b + rest])
        if inside.convex and c > 0 and outside.convex:
            return Verdict(CONVEX, "max of convex functions (b + relu(a - b)) plus convex terms", rules)
        if inside.convex and c < 0 and outside.concave:
            return Verdict(CONCAVE, "min of concave functions (a - relu(a - b)) plus concave terms", rules)
    return None


def max_splits(walk: WalkView, node: Sum) -> list:
    """Every reading of the sum as c * max(a, b) + rest (`_readings`), as a list."""
    return list(_readings(walk, node))


def _readings(walk: WalkView, node: Sum):
    """Every reading of the sum as c * max(a, b) + rest: the terms of b are those of a
    relu's argument that the sum holds with the opposite coefficient (times c), a is the
    rest of the argument. Tried with known parts kept whole (nested maxima) and with every
    sum opened. Yields (c, relu, a, b, rest), the last three lists of (coefficient, node):
    a and b are the argument's terms (b's as the sum holds them), rest the sum's other terms."""
    known = lambda m: isinstance(m, Sum) and walk.child(m).curvature.known      # noqa: E731
    for keep in (known, lambda m: False):
        terms = linear_terms(node, keep)
        for c, t in terms:
            if c != 0 and isinstance(t, Elementwise) and t.fn == "relu":
                split = _max_split(walk, terms, c, t, keep)
                if split is not None:
                    yield (c, t, *split)


def _max_split(walk: WalkView, terms, c: float, relu: Expr, keep):
    inner = linear_terms(relu.args[0], keep)
    rest = [(k, m) for k, m in terms if not (m is relu and k == c)]
    a, b = [], []
    for k, m in inner:         # each inner term is a's, or b's when the sum holds it negated
        match = next((i for i, (k2, m2) in enumerate(rest) if m2 is m and math.isclose(k2, -k * c)), None)
        if match is None:
            a.append((k, m))
        else:
            b.append(rest.pop(match))
    return (a, b, rest) if b else None


def max_range(walk: WalkView, node: Sum, splits: list) -> None:
    """Refine the interval of a sum read as c * max(A, B) + rest: max(A, B) lies in
    [max(lo A, lo B), max(hi A, hi B)], with A the a terms and B the b terms over c (so a
    minimum of positive functions is known positive)."""
    for c, _, a, b, rest in splits:
        for signs in (walk.signs, walk.declared):          # each analysis from its own intervals
            big_a, big_b = _linear_interval(signs, a), _linear_interval(signs, [(k / c, m) for k, m in b])
            lo, hi = max(big_a.lo, big_b.lo), max(big_a.hi, big_b.hi)
            top = Interval(lo, hi, any(x.nonneg and excludes_zero(x) for x in (big_a, big_b)) or
                           all(x.nonpos and excludes_zero(x) for x in (big_a, big_b)))
            signs.memo[node] = meet(signs.node(node), add(scale(c, top), _linear_interval(signs, rest)))


def _linear_interval(signs: Signs, terms) -> Interval:
    total = Interval(0.0, 0.0)
    for k, m in terms:
        total = add(total, scale(k, signs.node(m)))
    return total


def _scaled_curvature(walk: WalkView, k: float, m: Expr) -> Curvature:
    c = walk.child(m).curvature
    return c if k > 0 else c.flipped() if k < 0 else CONSTANT


def like_terms(walk: WalkView, node: Sum) -> Verdict | None:
    """The sum's curvature with like terms merged (x^2 + 3|x| - 2|x| = x^2 + |x|) and the
    kinks of one affine argument u up to sign paired through relu(-u) = relu(u) - u and
    |u| = 2 relu(u) - u (exact identities: relu(x) - relu(-x) = x is affine, |x| - 2 relu(x)
    = -x). None where nothing merges or the merged sum is still of unknown curvature."""
    terms = linear_terms(node)
    merged: dict[Expr, float] = {}
    kinks: dict[tuple, float] = {}
    for c, m in terms:
        key = _kink_key(walk, m)
        if key is None:
            merged[m] = merged.get(m, 0.0) + c
        else:                             # the coefficient of relu(u): c, or 2c for |u|
            kinks[key] = kinks.get(key, 0.0) + (2 * c if getattr(m, "fn", None) == "abs" else c)
    if len(merged) + len(kinks) == len(terms) and not any(v == 0 for v in merged.values()):
        return None
    parts = [_scaled_curvature(walk, c, m) for m, c in merged.items()]
    parts += [CONVEX if c > 0 else CONCAVE if c < 0 else CONSTANT for c in kinks.values()]
    total = atoms.combine(parts)
    if not total.known:
        return None
    rules = hessian_rules([walk.child(m) for _, m in terms])
    return Verdict(total, "a sum whose like terms and kinks of opposite arguments cancel", rules)


def _kink_key(walk: WalkView, m: Expr) -> tuple | None:
    """The terms of u, oriented so that u and -u give the same key, for relu(u) or |u| with
    u affine and reading the variables; None for any other term."""
    if not (isinstance(m, Elementwise) and m.fn in ("relu", "abs")):
        return None
    u = m.args[0]
    if not (walk.reads[u] and walk.child(u).curvature.affine):
        return None
    inner: dict[int, float] = {}          # by node id; -1 for the scalar constants together
    for c, t in linear_terms(u):
        key, c = (-1, c * float(t.value)) if isinstance(t, Const) and t.order == 0 else (id(t), c)
        inner[key] = inner.get(key, 0.0) + c
    ordered = sorted((i, c) for i, c in inner.items() if c != 0)
    if not ordered:
        return None
    flip = 1.0 if ordered[0][1] > 0 else -1.0
    return tuple((i, flip * c) for i, c in ordered)
