"""Interval arithmetic with outward rounding, the number system of `signs`.

An `Interval` is closed, with `nonzero` marking an excluded zero. Every operation returns an
interval that contains every exact result for arguments in the given intervals: a lower end
is rounded down and an upper end up. Sums and products are exact where the float result is
(checked exactly: the TwoSum error term, rational arithmetic), so 1 - 0.25 * 4 stays [0, 0];
otherwise the end moves one float outward, so a negative product that underflows to 0.0
keeps a negative lower end. Elementary functions (exp, log, non-integer powers) come from
libm, whose error is below one ulp; their ends move two floats outward. Signs that hold
mathematically (exp > 0, an even power >= 0, log >= 0 from 1 on) are kept exactly.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

INF = math.inf
LIBM_ULPS = 2                   # outward steps for a libm result (its error is below one ulp)
EXACT_POWER = 64                # integer powers up to this exponent are rounded exactly


class Interval(NamedTuple):
    lo: float
    hi: float
    nonzero: bool = False

    @property
    def nonneg(self) -> bool:
        return self.lo >= 0.0

    @property
    def nonpos(self) -> bool:
        return self.hi <= 0.0

    def __str__(self) -> str:
        if self.nonneg:
            return "> 0" if self.nonzero else ">= 0"
        if self.nonpos:
            return "< 0" if self.nonzero else "<= 0"
        return "sign unknown"


ANY = Interval(-INF, INF)
POSITIVE = Interval(0.0, INF, True)
NONNEG = Interval(0.0, INF)


def point(v: float) -> Interval:
    return Interval(v, v, v != 0.0)


def excludes_zero(iv: Interval) -> bool:
    return iv.nonzero or iv.lo > 0 or iv.hi < 0


def down(x: float, steps: int = 1) -> float:
    for _ in range(steps):
        x = math.nextafter(x, -INF)
    return x


def up(x: float, steps: int = 1) -> float:
    for _ in range(steps):
        x = math.nextafter(x, INF)
    return x


def _settle(value: float, exact: Fraction) -> tuple[float, float]:
    """Bounds (lo, hi) on the real `exact` whose rounded float is `value` (finite or not)."""
    if math.isinf(value):                            # a finite value beyond the largest float
        return (down(INF), INF) if value > 0 else (-INF, up(-INF))
    error = exact - Fraction(value)
    return (down(value) if error < 0 else value, up(value) if error > 0 else value)


def _sum_bounds(x: float, y: float) -> tuple[float, float]:
    s = x + y
    if s != s:                                       # inf - inf: an end with no bound
        return -INF, INF
    if math.isinf(s):
        if math.isinf(x) or math.isinf(y):
            return s, s
        return (down(INF), INF) if s > 0 else (-INF, up(-INF))
    bp = s - x                                       # TwoSum: the rounding error, exactly
    err = (x - (s - bp)) + (y - bp)
    return (down(s) if err < 0 else s, up(s) if err > 0 else s)


def _product_bounds(x: float, y: float) -> tuple[float, float]:
    if x == 0.0 or y == 0.0:
        return 0.0, 0.0
    p = x * y
    if math.isinf(x) or math.isinf(y):
        return p, p
    if math.isinf(p):
        return (down(INF), INF) if p > 0 else (-INF, up(-INF))
    return _settle(p, Fraction(x) * Fraction(y))


def add(a: Interval, b: Interval) -> Interval:
    lo, hi = _sum_bounds(a.lo, b.lo)[0], _sum_bounds(a.hi, b.hi)[1]
    same = (a.nonneg and b.nonneg) or (a.nonpos and b.nonpos)
    return Interval(lo, hi, same and (excludes_zero(a) or excludes_zero(b)) or lo > 0 or hi < 0)


def mul(a: Interval, b: Interval) -> Interval:
    ends = [_product_bounds(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return Interval(min(e[0] for e in ends), max(e[1] for e in ends), excludes_zero(a) and excludes_zero(b))


def scale(c: float, a: Interval) -> Interval:
    return mul(point(c), a)


def _reciprocal_bounds(x: float) -> tuple[float, float]:
    if math.isinf(x):
        return 0.0, 0.0
    r = 1.0 / x
    if math.isinf(r):
        return (down(INF), INF) if r > 0 else (-INF, up(-INF))
    return _settle(r, 1 / Fraction(x))


def recip(a: Interval) -> Interval:
    """1/a; an empty a (0 excluded from [0, 0], where attributes contradict a domain) gives
    the unknown sign."""
    if a.lo >= 0 and excludes_zero(a) and a.hi > 0:
        lo = max(_reciprocal_bounds(a.hi)[0], 0.0)
        return Interval(lo, _reciprocal_bounds(a.lo)[1] if a.lo > 0 else INF, True)
    if a.hi <= 0 and excludes_zero(a) and a.lo < 0:
        hi = min(_reciprocal_bounds(a.lo)[1], 0.0)
        return Interval(_reciprocal_bounds(a.hi)[0] if a.hi < 0 else -INF, hi, True)
    return Interval(-INF, INF, True)


def _power_bounds(x: float, p: float) -> tuple[float, float]:
    """Bounds on x^p for x >= 0 (p > 0)."""
    if x == 0.0 or math.isinf(x):
        return (x, x)
    try:
        v = x ** p
    except OverflowError:
        return down(INF), INF
    if float(p).is_integer() and p <= EXACT_POWER:
        return _settle(v, Fraction(x) ** int(p))
    return max(down(v, LIBM_ULPS), 0.0), up(v, LIBM_ULPS)


def power(a: Interval, p: float) -> Interval:
    """a^p entrywise; a non-integer p means a >= 0 on the domain (> 0 when p < 0)."""
    if p == 1.0:
        return a
    if p == 0.0:
        return point(1.0)
    if p < 0:                       # defined only where a != 0 (> 0 for a fractional p)
        if not float(p).is_integer():
            a = Interval(max(a.lo, 0.0), max(a.hi, 0.0), True)
        return recip(power(Interval(a.lo, a.hi, True), -p))
    if not float(p).is_integer():
        a = Interval(max(a.lo, 0.0), max(a.hi, 0.0), a.nonzero)
    if float(p).is_integer() and int(p) % 2 == 0:
        top = _power_bounds(max(abs(a.lo), abs(a.hi)), p)[1]
        low = 0.0 if a.lo <= 0 <= a.hi else _power_bounds(min(abs(a.lo), abs(a.hi)), p)[0]
        return Interval(low, top, excludes_zero(a))
    return Interval(_odd_power(a.lo, p)[0], _odd_power(a.hi, p)[1], excludes_zero(a))


def _odd_power(x: float, p: float) -> tuple[float, float]:
    """Bounds on sign(x) |x|^p, an increasing function."""
    lo, hi = _power_bounds(abs(x), p)
    return (-hi, -lo) if x < 0 else (lo, hi)


def meet(a: Interval, b: Interval) -> Interval:
    return Interval(max(a.lo, b.lo), min(a.hi, b.hi), a.nonzero or b.nonzero)


def exp(a: Interval) -> Interval:
    """exp a; exact where exp is (exp(0) = 1), so exp of a nonnegative argument is >= 1."""
    lo = 0.0 if a.lo == -INF else max(down(math.exp(min(a.lo, 700.0)), LIBM_ULPS), 1.0 if a.lo >= 0 else 0.0)
    hi = up(math.exp(a.hi), LIBM_ULPS) if a.hi < 700.0 else INF
    hi = min(hi, 1.0) if a.hi <= 0 else hi
    return Interval(lo, hi, True)


def log(a: Interval) -> Interval:
    """log a; log >= 0 exactly from 1 on and <= 0 up to 1."""
    if a.hi <= 0:                   # log is defined nowhere on a (an assumption that empties the domain)
        return ANY
    lo = down(math.log(a.lo), LIBM_ULPS) if a.lo > 0 else -INF
    hi = up(math.log(a.hi), LIBM_ULPS) if a.hi < INF else INF
    lo, hi = (max(lo, 0.0) if a.lo >= 1 else lo), (min(hi, 0.0) if a.hi <= 1 else hi)
    return Interval(lo, hi, a.lo > 1 or a.hi < 1)


HALF_PI = up(math.pi / 2)           # math.pi / 2 is below pi/2; one step up bounds it
PI = up(math.pi)


def odd_bounded(bound: float) -> Callable[[Interval], Interval]:
    """An increasing odd function with values in (-bound, bound): tanh, arctan, arcsin."""
    return lambda a: Interval(-bound if a.lo < 0 else 0.0, bound if a.hi > 0 else 0.0, excludes_zero(a))


PI_BELOW, PI_ABOVE = Fraction(math.pi), Fraction(up(math.pi))      # math.pi < pi < its next float


def _pi_times(m: Fraction) -> tuple[Fraction, Fraction]:
    """Exact rational bounds (lo, hi) on m * pi."""
    ends = (m * PI_BELOW, m * PI_ABOVE)
    return min(ends), max(ends)


def half_turn(a: Interval, shift: Fraction) -> int | None:
    """The integer m with a inside [(m + shift) pi, (m + 1 + shift) pi], proven with exact
    rational bounds on pi; None when no such m is shown (a wider interval, an infinite end)."""
    if not (math.isfinite(a.lo) and math.isfinite(a.hi)):
        return None
    guess = math.floor(a.lo / math.pi - float(shift))
    for m in (guess - 1, guess, guess + 1):
        if Fraction(a.lo) >= _pi_times(m + shift)[1] and Fraction(a.hi) <= _pi_times(m + 1 + shift)[0]:
            return m
    return None


def sin_sign(a: Interval) -> int:
    """+1 where sin >= 0 on all of a (a in [2k pi, (2k+1) pi]), -1 where sin <= 0, else 0."""
    m = half_turn(a, Fraction(0))
    return 0 if m is None else 1 if m % 2 == 0 else -1


def cos_sign(a: Interval) -> int:
    """+1 where cos >= 0 on all of a (a in [(2k - 1/2) pi, (2k + 1/2) pi]), -1 where cos <= 0, else 0."""
    m = half_turn(a, Fraction(-1, 2))
    return 0 if m is None else 1 if m % 2 == 0 else -1


def sin(a: Interval) -> Interval:
    """sin a: within [-1, 1], of one sign where a lies in a half-turn of fixed sign."""
    side = sin_sign(a)
    return Interval(0.0 if side > 0 else -1.0, 0.0 if side < 0 else 1.0)


def cos(a: Interval) -> Interval:
    """cos a: within [-1, 1], of one sign where a lies in a half-turn of fixed sign."""
    side = cos_sign(a)
    return Interval(0.0 if side > 0 else -1.0, 0.0 if side < 0 else 1.0)
