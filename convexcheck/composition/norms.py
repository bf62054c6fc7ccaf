"""Norms written with powers, and the exponents of powers (the composition walk's helpers).

A nonnegative combination S = sum_i c_i w_i^e_i + c (coefficients and constant >= 0) of
powers of functions w_i that are convex and >= 0, with every e_i >= q >= 1, is the q-th
power of a q-norm: S = |(c_i^(1/q) w_i^(e_i/q), c^(1/q))|_q^q. Each w_i^(e_i/q) is convex
and >= 0 (a power >= 1 of such a function), and a q-norm is convex and nondecreasing in
each entry on the nonnegative orthant, so S^(1/q) is convex, and so is S^r for every
r >= 1/q (the norm to the power r q >= 1). The same S with q >= 2 over a positive concave
function is a quadratic over linear (`patterns.quad_over_lin`). `degree` finds the
largest such q and the exponent nodes it was read from; the leaves it knows:
  - w^E, E a constant or parameter expression >= 1 on its whole range, w convex and >= 0;
  - u^E, E an even whole number, u affine, or convex and >= 0, or concave and <= 0
    (|u| is convex and u^E = |u|^E);
  - u' u and u' K u, u affine and K psd (|K^1/2 u|^2): degree 2;
  - any other function that is convex and >= 0: degree 1.

Exponents that read no variable are known exactly where they are numbers (1/4, 2 * 2: as
rationals, so 3 * (1/3) >= 1 holds exactly) and by their interval otherwise (a parameter
declared >= 1).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

from convexcheck.composition.verdict import WalkView
from convexcheck.signs.definite import form
from tensorcalc import dag
from tensorcalc.dag import Const, Elementwise, Expr, Gather, Power, Product, Sum


class Degree(NamedTuple):
    """S = |w|_q^q as above: `q` the least exponent (a Fraction, or a float bound);
    `exponents` the exponent nodes of its power leaves, None where some leaf is not a
    power w^E (a form, a degree-1 leaf)."""

    q: Fraction | float
    exponents: frozenset | None


def exact(node: Expr) -> Fraction | None:
    """The exact rational value of a scalar expression of numbers alone (sums, products,
    negations, reciprocals of constants), or None."""
    values: dict[Expr, Fraction] = {}
    for m in dag.topo(node):
        value = _exact_step(m, [values.get(a) for a in m.args])
        if value is None:
            return None
        values[m] = value
    return values[node]


def _exact_step(m: Expr, args: list) -> Fraction | None:
    if m.order or any(a is None for a in args):
        return None
    if isinstance(m, Const):
        return Fraction(m.value) if math.isfinite(m.value) else None
    if isinstance(m, Sum):
        return sum(args, Fraction(0))
    if isinstance(m, Product):
        return math.prod(args, start=Fraction(1))
    if isinstance(m, Elementwise) and m.fn == "neg":
        return -args[0]
    if isinstance(m, Elementwise) and m.fn == "recip" and args[0] != 0:
        return 1 / args[0]
    return None


def exponent_range(walk: WalkView, e: Expr) -> tuple:
    """(lo, hi): bounds on every value of the exponent `e` (which reads no variable),
    exact where `e` is a number, else its interval's ends; Fractions, or +-inf."""
    value = exact(e)
    if value is not None:
        return value, value
    iv = walk.interval(e)
    return _rational(iv.lo), _rational(iv.hi)


def _rational(x: float) -> Fraction | float:
    """A finite float as the exact Fraction (so products with it are exact), inf as itself."""
    return Fraction(x) if math.isfinite(x) else x


def degree(walk: WalkView, node: Expr) -> Degree | None:
    """The Degree of `node` read as a combination S (see the module docstring), or None.
    Walks the combination top-down once (an explicit stack: any depth; a shared part once)."""
    least, stack, seen = math.inf, [node], set()
    exponents: set | None = set()
    while stack:
        m = stack.pop()
        if m in seen:
            continue
        seen.add(m)
        if not walk.reads[m]:
            if not walk.interval(m).nonneg:
                return None
            continue
        leaf = _leaf(walk, m)
        if leaf is None:
            parts = _combination_parts(walk, m)
            if parts is not None:
                stack.extend(parts)
                continue
            c = walk.child(m).curvature
            leaf = (Fraction(1), None) if c.convex and walk.interval(m).nonneg else None
        if leaf is None:
            return None
        least = min(least, leaf[0])
        exponents = None if exponents is None or leaf[1] is None else exponents | {leaf[1]}
    if not least >= 1 or least == math.inf:
        return None
    return Degree(least, None if exponents is None else frozenset(exponents))


def _leaf(walk: WalkView, m: Expr):
    """(e, E) for a power leaf w^E (e a lower bound of E), (2, None) for a psd form, or None."""
    if isinstance(m, Power) and not walk.reads[m.args[1]]:
        w, e_node = m.args
        lo, hi = exponent_range(walk, e_node)
        c = walk.child(w).curvature
        if lo >= 1 and c.convex and walk.interval(w).nonneg:
            return lo, e_node
        if lo == hi and lo >= 2 and lo % 2 == 0 and _abs_convex(walk, w):
            return lo, e_node
        return None
    found = form(m, walk.attributes, walk.interval)
    if found is not None and (found[1] is None or not walk.reads[found[1]]) and walk.child(found[0]).curvature.affine:
        return Fraction(2), None
    return None


def _abs_convex(walk: WalkView, u: Expr) -> bool:
    """|u| is convex: u affine, or convex and >= 0, or concave and <= 0."""
    c, iv = walk.child(u).curvature, walk.interval(u)
    return c.affine or (c.convex and iv.nonneg) or (c.concave and iv.nonpos)


def _combination_parts(walk: WalkView, m: Expr) -> tuple | None:
    """The parts of which every entry of m is a nonnegative combination: a sum's terms, a
    gather's source (entries or zeros), a product's one reading operand when the others
    (read once, constants) are >= 0; None for anything else."""
    if isinstance(m, (Sum, Gather)):
        return m.args
    if isinstance(m, Product):
        reading = [a for a in m.args if walk.reads[a]]
        if len(reading) == 1 and m.args.count(reading[0]) == 1 and \
                all(walk.interval(a).nonneg for a in m.args if not walk.reads[a]):
            return (reading[0],)
    return None


def norm_power(walk: WalkView, base: Expr, exponent: Expr) -> str | None:
    """The norm, in words, when base^exponent is a q-norm to a power >= 1: the exponent is
    1/E for the one exponent E of every leaf (E >= 1: the E-norm itself, for a parameter E
    too), or q > 1 and every value r of the exponent has r q >= 1 (exactly). (For q = 1,
    a power >= 1 of a convex function >= 0, the fact table's composition says as much.)"""
    found = degree(walk, base)
    if found is None:
        return None
    if isinstance(exponent, Elementwise) and exponent.fn == "recip" and found.exponents == {exponent.args[0]}:
        lo, hi = exponent_range(walk, exponent.args[0])
        return f"a {float(lo):g}-norm" if lo == hi else f"a p-norm, p >= {float(found.q):g}"
    lo, _ = exponent_range(walk, exponent)
    return f"a {float(found.q):g}-norm to a power >= 1" if found.q > 1 and lo * found.q >= 1 else None
