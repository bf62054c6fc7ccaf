"""Chord witnesses: Jensen gaps that disprove a curvature the Hessian cannot see.

A function with kinks (abs, relu, max, norm_inf) has a Hessian that is zero, or of the
right sign, almost everywhere, so no sampled eigenvalue shows its wrong curvature; a
chord does. For points a and b and the midpoint m = (a + b) / 2, d = (b - a) / 2:

    gap = f(m + d) + f(m - d) - 2 f(m)

gap < 0 disproves convexity, gap > 0 concavity. Chords are screened with f's compiled
code; a gap of the wrong sign is then recomputed by `tensorcalc.evaluate`, independent of
the compiled code. Cancellation inside f can fake a gap in double precision, so a gap
counts only where the same three values, computed again in extended precision
(np.longdouble: a 64-bit mantissa on x86-64 Linux), give a gap that
agrees with it within AGREE: a rounding error large enough to fake the gap is about
2,000 times smaller in extended precision and would break the agreement. Where
longdouble is no wider than double (Windows, ARM macOS) or f cannot be evaluated in it
(inv, det: LAPACK has no extended precision), no chord witness is made.

Chords are drawn from the same admissible samples as the Hessian search (`values`):
from a sample a towards a second sample b, at the fractions SHRINK of the way, so kinks
near a are straddled at several scales.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

import tensorcalc
from convexcheck.budget import NEVER, Deadline
from convexcheck.problem.admissible import SCALES, draw, sample_point
from convexcheck.problem.model import Problem
from convexcheck.witness.sampled_hessians import work
from convexcheck.witness.sampling import ATTEMPTS, NOISE, WORK_LIMIT, Witness, value_along
from tensorcalc import dag
from tensorcalc.dag import Const, Elementwise, Expr, Power
from tensorcalc.memo import memoized

KINKED = ("relu", "abs", "sign", "huber")               # elementwise functions with kinks
EXTENDED = bool(np.finfo(np.longdouble).eps < 1e-18)   # longdouble wider than double
SHRINK = (1.0, 0.1, 0.01)      # chords from a towards b: these fractions of the way
AGREE = 0.1                    # relative agreement of the double and extended gaps
PER_PAIR = 3 * len(SHRINK) + 6  # evaluations of f per pair at most: the screen, then a confirmation


def chord_witnesses(expr: Expr, problem: Problem, variables: list[str], want: Iterable[str], *, pairs: int,
                    seed: int, sizes: dict[str, int] | None = None, fixed: dict[str, np.ndarray] | None = None,
                    deadline: Deadline = NEVER) -> dict[str, Witness]:
    """Chord witnesses by kind ("convex": a chord below, "concave": above) for the kinds in
    `want`, from up to `pairs` pairs of admissible samples (at most ATTEMPTS * pairs
    draws; fewer where the evaluations would pass `sampling.WORK_LIMIT` operations),
    deterministic in `seed`. Parameters in `fixed` keep their values; the others are
    shared by both ends of a chord. Empty without extended precision. Stops (keeping the
    witnesses found) when the `deadline` passes."""
    found: dict[str, Witness] = {}
    pairs = min(pairs, int(WORK_LIMIT // (PER_PAIR * max(work([expr], problem, sizes), 1.0))))
    if not EXTENDED or not want or pairs <= 0:
        return found
    rng, used = np.random.default_rng([seed, 1]), 0
    drawn: dict = {}
    for k in range(ATTEMPTS * pairs):
        if used >= pairs or set(want) <= set(found) or deadline.stop(lambda: f"chords (after {used} of {pairs} pairs)"):
            break
        a = _first_end(problem, variables, sizes, rng, k, fixed, drawn)
        b = _other_end(problem, variables, sizes, rng, k + 1)
        used += _try_pair(expr, problem, variables, a, b, [w for w in want if w not in found], found)
    return found


def _first_end(problem: Problem, variables, sizes, rng, k: int, fixed, drawn: dict) -> dict[str, np.ndarray]:
    """The k-th sample (`values.sample_point`), its parameters drawn once per parameter
    scale and then kept in `drawn` (large data is drawn at most len(SCALES) times)."""
    scale = (k // len(SCALES)) % len(SCALES)
    a = sample_point(problem, sizes, rng, k, {**(fixed or {}), **drawn.get(scale, {})})
    drawn.setdefault(scale, {n: a[n] for n in problem.declarations if n not in variables})
    return a


def _other_end(problem: Problem, variables: list[str], sizes, rng, k: int) -> dict[str, np.ndarray]:
    """Fresh values of the analysed variables only, at the k-th scale (the parameters of
    a chord are its first end's: drawing them again would be wasted at large sizes)."""
    decls = problem.declarations
    return {n: draw(problem, decls[n], sizes, rng, SCALES[k % len(SCALES)]) for n in variables}


def _try_pair(expr, problem, variables, a, b, want, found) -> bool:
    """Try the chords from a towards b; record witnesses in `found`. Whether any chord of
    the pair had finite values (the pair counts as used)."""
    usable = False
    for fraction in SHRINK:
        d = {n: fraction * (b[n] - a[n]) / 2 for n in variables}
        m = {**a, **{n: a[n] + d[n] for n in variables}}
        gap = _gap(expr, problem, m, d, np.float64, screen=True)
        usable |= gap is not None
        for kind in want:
            if kind not in found and gap is not None and _wrong(kind, gap):
                witness = _confirmed(expr, problem, m, d, kind)
                if witness is not None:
                    found[kind] = witness
    return usable


def _wrong(kind: str, gap: float) -> bool:
    return gap < 0 if kind == "convex" else gap > 0


def kinked(expr: Expr) -> bool:
    """Whether f may have kinks its Hessian cannot see: relu, abs, sign or huber, or a
    power whose exponent is not a constant whole number (|x|^p, sqrt(x^2) at 0)."""
    return any(isinstance(node, Elementwise) and node.fn in KINKED
               or isinstance(node, Power) and not _whole(node.args[1]) for node in dag.topo(expr))


def _whole(exponent) -> bool:
    return isinstance(exponent, Const) and float(exponent.value).is_integer() and exponent.value >= 0


@memoized(maxsize=64)
def _compiled(expr):
    return tensorcalc.compile(expr)


def _gap(expr, problem, m, d, dtype, screen: bool = False):
    """f(m + d) + f(m - d) - 2 f(m) in `dtype` (by f's compiled code for a `screen`), or
    None outside the domain, where f is not finite, where the gap is within rounding
    noise of the values, or where f cannot be evaluated at all (a chord is only evidence)."""
    try:
        compiled = _compiled(expr) if screen else None
        values = [value_along(expr, problem, m, d, t, dtype, compiled) for t in (1.0, 0.0, -1.0)]
    except tensorcalc.TensorCalcError:
        return None
    if any(v is None for v in values):
        return None
    gap = values[0] - 2 * values[1] + values[2]
    noise = NOISE * (abs(values[0]) + 2 * abs(values[1]) + abs(values[2]))
    return gap if abs(gap) > noise and np.isfinite(gap) else None


def _confirmed(expr, problem, m, d, kind: str) -> Witness | None:
    """The witness if the gap evaluated node by node has the wrong sign for `kind` in
    double and in extended precision, the two agreeing within AGREE."""
    gap = _gap(expr, problem, m, d, np.float64)
    wide = None if gap is None or not _wrong(kind, gap) else _gap(expr, problem, m, d, np.longdouble)
    if wide is None or not _wrong(kind, float(wide)) or abs(gap - wide) > AGREE * abs(wide):
        return None
    return Witness(dict(m), dict(d), float(wide), float(gap), 1.0, chord=True)
