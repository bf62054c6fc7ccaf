"""Curvature facts of the language's functions (the composition rules' table, as cvxpy's atoms).

Every element-wise function and constant power is one row: given the interval of its
argument's entries (`signs.Interval`), the row says the function's curvature on that
interval and its monotonicity there. Facts hold on the whole interval, so they may depend on
the argument's sign (abs is nonincreasing where its argument is <= 0; x^3 is convex where
x >= 0 and concave where x <= 0). A row answers None where the function has no curvature on
the interval (sin on the real line, 1/x on an interval holding 0).

`compose(fact, arg)` is the DCP composition theorem, written once: h(g) is convex when h is
convex and, for its monotonicity, g is affine, convex (h nondecreasing) or concave (h
nonincreasing); concave symmetrically.
"""
from __future__ import annotations

from typing import NamedTuple

from convexcheck.signs.intervals import cos_sign, sin_sign
from convexcheck.signs.signs import Interval


class Curvature(NamedTuple):
    """What is proven of a function of the analysed variables, entry by entry.
    `constant`: reads none of them; affine = convex and concave."""

    convex: bool
    concave: bool
    constant: bool = False

    @property
    def affine(self) -> bool:
        return self.convex and self.concave

    @property
    def known(self) -> bool:
        return self.convex or self.concave

    def word(self) -> str:
        if self.constant:
            return "constant"
        return {(True, True): "affine", (True, False): "convex", (False, True): "concave"}.get(
            (self.convex, self.concave), "unknown")

    def flipped(self) -> "Curvature":
        return Curvature(self.concave, self.convex, self.constant)


CONSTANT = Curvature(True, True, True)
AFFINE = Curvature(True, True)
CONVEX = Curvature(True, False)
CONCAVE = Curvature(False, True)
UNKNOWN = Curvature(False, False)


class Fact(NamedTuple):
    """A function's curvature and monotonicity on an interval: `monotone` is +1
    (nondecreasing), -1 (nonincreasing) or 0 (neither shown)."""

    curvature: Curvature
    monotone: int
    name: str


def _sign_mono(iv: Interval) -> int:
    """+1 where the argument is >= 0, -1 where <= 0: the monotonicity of |x| and x^(2k)."""
    return 1 if iv.nonneg else -1 if iv.nonpos else 0


def one_sided(iv: Interval) -> int:
    """+1 where the argument is > 0, -1 where < 0, 0 where the interval may hold 0."""
    if iv.nonneg and (iv.nonzero or iv.lo > 0):
        return 1
    if iv.nonpos and (iv.nonzero or iv.hi < 0):
        return -1
    return 0


def _recip(iv: Interval) -> Fact | None:
    side = one_sided(iv)
    return None if side == 0 else Fact(CONVEX if side > 0 else CONCAVE, -1, "1/x")


def _saturating(name: str):
    """tanh, arctan: increasing, concave where x >= 0, convex where x <= 0."""
    def fact(iv: Interval) -> Fact | None:
        if iv.nonneg:
            return Fact(CONCAVE, 1, name)
        if iv.nonpos:
            return Fact(CONVEX, 1, name)
        return None
    return fact


def _trig(name: str, bend, slope):
    """sin, cos: sin'' = -sin and cos'' = -cos, so each is concave where it is >= 0 and
    convex where <= 0; sin' = cos, cos' = -sin give the monotonicity. `bend` and `slope`
    sign the function and its derivative on the whole interval (`intervals.half_turn`)."""
    def fact(iv: Interval) -> Fact | None:
        side = bend(iv)
        return None if side == 0 else Fact(CONCAVE if side > 0 else CONVEX, slope(iv), name)
    return fact


def _sign(iv: Interval) -> Fact | None:
    return Fact(CONSTANT, 0, "sign") if one_sided(iv) else None


ELEMENTWISE = {
    "exp": lambda iv: Fact(CONVEX, 1, "exp"),
    "log": lambda iv: Fact(CONCAVE, 1, "log"),
    "neg": lambda iv: Fact(AFFINE, -1, "negation"),
    "recip": _recip,
    "abs": lambda iv: Fact(AFFINE if _sign_mono(iv) else CONVEX, _sign_mono(iv), "abs"),
    "relu": lambda iv: Fact(CONSTANT if iv.nonpos else AFFINE if iv.nonneg else CONVEX, 1, "relu"),
    "huber": lambda iv: Fact(CONVEX, _sign_mono(iv), "huber"),
    "tanh": _saturating("tanh"),
    "arctan": _saturating("arctan"),
    "sign": _sign,
    "sin": _trig("sin", sin_sign, cos_sign),
    "cos": _trig("cos", cos_sign, lambda iv: -sin_sign(iv)),
}


def power(p: float, iv: Interval) -> Fact | None:
    """x^p on the interval `iv` of x (a non-integer p means x >= 0; p < 0 needs x != 0)."""
    name = f"x^{p:g}"
    whole = float(p).is_integer()
    if p == 0:
        return Fact(CONSTANT, 0, name)
    if p == 1:
        return Fact(AFFINE, 1, name)
    if p > 1 and whole and int(p) % 2 == 0:
        return Fact(CONVEX, _sign_mono(iv), name)
    if p > 1 and whole:                          # odd: convex on x >= 0, concave on x <= 0
        return Fact(CONVEX, 1, name) if iv.nonneg else Fact(CONCAVE, 1, name) if iv.nonpos else None
    if p > 1:
        return Fact(CONVEX, 1, name)
    if p > 0:
        return Fact(CONCAVE, 1, name)
    side = 1 if not whole else one_sided(iv)    # a fractional negative power: x > 0
    if side == 0:
        return None
    if whole and int(p) % 2 == 0:
        return Fact(CONVEX, -side, name)
    return Fact(CONVEX, -1, name) if side > 0 else Fact(CONCAVE, -1, name)


def power_range(lo: float, hi: float, iv: Interval) -> Fact | None:
    """x^p for every p in [lo, hi] (a parameter's declared range, or a number known by
    bounds), on the interval `iv` of x, which must show the base's sign itself (no implicit
    domain is assumed for such powers): p >= 1 convex, nondecreasing on x >= 0; 0 <= p <= 1
    concave, nondecreasing on x >= 0; p <= 0 convex, nonincreasing on x > 0. None where the
    range crosses 0 or 1 (x^p is then convex for some p and concave for others)."""
    name = f"x^p, p {'= ' + format(float(lo), 'g') if lo == hi else f'in [{float(lo):g}, {float(hi):g}]'}"
    if lo >= 1 and iv.nonneg:
        return Fact(CONVEX, 1, name)
    if lo >= 0 and hi <= 1 and iv.nonneg:
        return Fact(CONCAVE, 1, name)
    if hi <= 0 and one_sided(iv) > 0:
        return Fact(CONVEX, -1, name)
    return None


def compose(fact: Fact, arg: Curvature) -> Curvature:
    """The curvature of h(g) from h's fact and g's curvature (the DCP composition rule)."""
    if arg.constant or fact.curvature.constant:
        return CONSTANT
    h = fact.curvature

    def holds(want_convex: bool) -> bool:
        if not (h.convex if want_convex else h.concave):
            return False
        if arg.affine:
            return True
        up = arg.convex if want_convex else arg.concave          # g bends the way h does
        down = arg.concave if want_convex else arg.convex
        return (fact.monotone > 0 and up) or (fact.monotone < 0 and down)
    return Curvature(holds(True), holds(False))


def combine(parts: list[Curvature]) -> Curvature:
    """The curvature of a sum (or any nonnegative combination) of the parts."""
    if all(p.constant for p in parts):
        return CONSTANT
    return Curvature(all(p.convex for p in parts), all(p.concave for p in parts))


def scaled(c: Interval, arg: Curvature) -> Curvature:
    """c * g entrywise for a coefficient c in the interval (0 * anything is affine)."""
    if arg.constant:
        return CONSTANT
    if arg.affine:
        return AFFINE
    if c.nonneg and c.nonpos:
        return AFFINE
    if c.nonneg:
        return arg
    if c.nonpos:
        return arg.flipped()
    return UNKNOWN
