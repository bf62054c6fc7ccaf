"""Numeric search for curvature counterexamples, used where no symbolic proof exists.

Plan, then execute: `search` builds the joint Hessian of one part over the analysed
variables once (compiled, `tensorcalc.compile`; a dense matrix up to DENSE_LIMIT
unknowns, Hessian-vector products with Lanczos beyond, see `hessians`), then draws
points that satisfy the declared attributes, takes the extreme eigenpairs of the
Hessian at each, and tries the eigenvectors as directions of wrong curvature. A
candidate becomes a `Witness` only if a second difference of the ORIGINAL expression,
evaluated with `tensorcalc.evaluate` and independent of the Hessian code, confirms it
at two consecutive step sizes: a false "disproved" is the worst bug this module can
have, a missed witness only costs evidence.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse.linalg  # noqa: F401 (re-exported)

import tensorcalc
from convexcheck.budget import NEVER, Deadline
from convexcheck.problem.admissible import SCALES, SizeError, check_sizes, sample_point, sample_value, satisfies  # noqa: F401
from convexcheck.problem.model import Declarations, Part, Problem
from convexcheck.witness.sampled_hessians import (
    DenseHessian,
    HessianOperator,
    Layout,
    check_nodes,
    extremes,
    var_nodes,
    work,
)
from tensorcalc.dag import Expr
from tensorcalc.memo import memoized

KINDS = ("convex", "concave")
STEPS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)   # relative step sizes of the second difference
ATTEMPTS = 5                               # draws allowed per wanted valid sample
DENSE_LIMIT = 300                          # more unknowns: Hessian-vector products and Lanczos
LANCZOS_STEPS = 60                         # Hessian-vector products per point beyond DENSE_LIMIT
WORK_LIMIT = 5e11       # floating-point operations of one search: about two minutes at a few GFLOP/s
GUARD_TOLERANCE = 1e-6                     # relative curvature that contradicts a proof
GUARD_FLOOR = 1e-9      # below this curvature scale, rounding noise of an affine function: only a witness counts
NOISE = 1e3 * np.finfo(float).eps          # relative rounding error allowed per evaluation
PLANS = 64                                 # compiled Hessians kept (`_built`)


@dataclass(frozen=True)
class Witness:
    """A verified counterexample: at `point` (values of ALL declared names: variables and
    parameters), along `direction` (name -> array, for the variables analysed; absent for
    the others), the second difference of the function shows curvature of the wrong sign.

    `curvature` is d^T H d from the symbolic Hessian with |d| = 1 overall;
    `second_difference` is (f(x+hd) - 2f(x) + f(x-hd)) / h^2 for the step `step` = h,
    of the same sign as `curvature`."""

    point: dict[str, np.ndarray] = field(repr=False)
    direction: dict[str, np.ndarray] = field(repr=False)
    curvature: float
    second_difference: float
    step: float
    chord: bool = False

    # A chord witness (`chords`) has no Hessian behind it: `second_difference` is the
    # gap f(x + d) + f(x - d) - 2 f(x) in double precision, `curvature` the same gap in
    # extended precision, and `step` 1.

    def to_dict(self) -> dict:
        """JSON-ready: arrays as nested lists of Python floats (which JSON round-trips exactly)."""
        return {"point": {n: np.asarray(v, dtype=float).tolist() for n, v in self.point.items()},
                "direction": {n: np.asarray(v, dtype=float).tolist() for n, v in self.direction.items()},
                "curvature": float(self.curvature), "second_difference": float(self.second_difference),
                "step": float(self.step), "chord": bool(self.chord)}

    @classmethod
    def from_dict(cls, data: dict) -> "Witness":
        """The inverse of `to_dict`."""
        arrays = lambda d: {n: np.asarray(v, dtype=float) for n, v in d.items()}  # noqa: E731
        return cls(arrays(data["point"]), arrays(data["direction"]), float(data["curvature"]),
                   float(data["second_difference"]), float(data["step"]), bool(data.get("chord", False)))


@dataclass(frozen=True)
class Evidence:
    """What sampling saw for one part and one set of variables.

    `samples` points had a finite value and Hessian; `skipped` draws did not (outside the
    implicit domain). `min_curvature`/`max_curvature` are the extreme eigenvalues of the
    Hessian (over symmetric directions for symmetric variables) seen, nan if none; beyond
    DENSE_LIMIT unknowns they are Lanczos Ritz values, which lie inside the spectrum (up
    to rounding of the Hessian-vector products), so they can only understate its range."""

    samples: int
    min_curvature: float
    max_curvature: float
    convex_witness: Witness | None       # verified negative curvature: not convex
    concave_witness: Witness | None      # verified positive curvature: not concave
    skipped: int = 0


# ----------------------------------------------------------------------------- verification

def verify(expr: Expr, problem: Problem, point: dict, direction: dict, curvature: float) -> Witness | None:
    """A Witness if the second difference of `expr` along `direction` at `point` has the
    sign of `curvature`, beyond rounding, and agrees with it within 50% at two consecutive
    step sizes (rounding noise scales as 1/h^2, so it cannot agree at both); x +- h d must
    satisfy the declared attributes and give finite values."""
    x_inf = max(float(np.max(np.abs(point[n]), initial=0.0)) for n in direction)
    d_inf = max(float(np.max(np.abs(v), initial=0.0)) for v in direction.values())
    if curvature == 0 or not math.isfinite(curvature) or d_inf == 0:
        return None
    g0 = value_along(expr, problem, point, direction, 0.0)
    previous = None
    for rel in STEPS:
        h = rel * max(1.0, x_inf) / d_inf
        s = _second_difference(expr, problem, point, direction, h, g0)
        ok = s is not None and np.sign(s) == np.sign(curvature) and abs(s - curvature) <= 0.5 * abs(curvature)
        if ok and previous is not None and s is not None:
            return Witness(dict(point), dict(direction), float(curvature), float(s), float(h))
        previous = s if ok else None
    return None


def _second_difference(expr, problem, point, direction, h, g0) -> float | None:
    """(g(h) - 2 g(0) + g(-h)) / h^2, or None if out of the domain or within rounding noise."""
    gp = value_along(expr, problem, point, direction, h)
    gm = value_along(expr, problem, point, direction, -h)
    if gp is None or gm is None or g0 is None:
        return None
    s = (gp - 2 * g0 + gm) / h ** 2
    tol = NOISE * (abs(gp) + 2 * abs(g0) + abs(gm)) / h ** 2
    return s if abs(s) > tol and math.isfinite(s) else None


def value_along(expr: Expr, problem: Problem, point: dict[str, np.ndarray], direction: dict[str, np.ndarray],
                t: float, dtype: type = np.float64, compiled: Any = None) -> Any:
    """f(x + t d) by plain evaluation, or None if x + t d breaks an attribute or f is not finite.

    The point x + t d is formed in double precision; with `dtype` np.longdouble every
    input is then widened and f evaluated in extended precision (a value of that type,
    or None where some operation cannot compute in it, such as LAPACK's inv and det).
    `compiled`: f's compiled code (`tensorcalc.compile`) to call instead of evaluating
    the expression node by node (faster; for screening, not for verifying)."""
    moved = dict(point)
    for name, d in direction.items():
        moved[name] = point[name] + t * d
        if not satisfies(problem.declarations[name].attributes, moved[name]):
            return None
    if dtype is not np.float64:
        moved = {name: np.asarray(v, dtype=dtype) for name, v in moved.items()}
    unsupported = (TypeError,) if dtype is not np.float64 else ()     # LAPACK: double precision only
    try:
        value = np.asarray(tensorcalc.evaluate(expr, moved) if compiled is None else compiled(moved))
    except (tensorcalc.DomainError, np.linalg.LinAlgError, *unsupported):
        return None
    if dtype is np.float64:
        return float(value) if math.isfinite(float(value)) else None
    return value[()] if value.dtype == dtype and np.isfinite(value) else None



# ----------------------------------------------------------------------------- search

@dataclass
class _Tally:
    """Mutable accumulator of one search (local to it)."""

    want: set
    samples: int = 0
    skipped: int = 0
    low: float = math.inf
    high: float = -math.inf
    found: dict = field(default_factory=dict)
    guard: int = 0

    def done(self, samples: int) -> bool:
        wanted = bool(self.want) and self.want <= set(self.found)
        return self.samples >= samples or (wanted and self.samples >= self.guard)

    def evidence(self) -> Evidence:
        seen = self.samples > 0
        return Evidence(self.samples, self.low if seen else math.nan, self.high if seen else math.nan,
                        self.found.get("convex"), self.found.get("concave"), self.skipped)


def search(part_expr: Expr, problem: Problem, variables: list[str], *, samples: int = 20, seed: int = 0,
           sizes: dict[str, int] | None = None, want: Iterable[str] = KINDS, progress: bool | None = None,
           fixed: dict[str, np.ndarray] | None = None, guard: int = 0, deadline: Deadline = NEVER) -> Evidence:
    """Look for points where the Hessian of `part_expr` over `variables` (jointly; all other
    names are sampled and held fixed) shows curvature disproving the kinds in `want`.

    Up to `samples` valid points (fewer where WORK_LIMIT affords fewer, see `_affordable`)
    among at most ATTEMPTS * samples draws, deterministic in `seed`; returns as soon as a
    verified witness of every wanted kind is found. Parameters in `fixed` are held at
    those values instead of being sampled. `guard`: at least that many points are
    examined (for the soundness guard of proven sides), and curvature of either kind
    beyond GUARD_TOLERANCE of the scale seen is verified as a witness too. `deadline`:
    checked before the Hessian is compiled (BudgetSpent) and before each point (the
    search stops there and returns what it saw: its witnesses are verified)."""
    deadline.check("compiling the Hessian for sampling")
    hessian, layout = _plan(part_expr, problem, variables, sizes, want, fixed)
    samples = _affordable(hessian, part_expr, problem, sizes, samples, guard, variables)
    rng, tally = np.random.default_rng(seed), _Tally(set(want), guard=guard)
    with progress_bar(progress, samples, desc="sampling", leave=False) as bar:
        for k in range(ATTEMPTS * samples):
            if tally.done(samples) or deadline.stop(lambda: f"sampling (after {tally.samples} of {samples} "
                                                            f"points)"):
                break
            point = sample_point(problem, sizes, rng, k, fixed)
            if _examine(part_expr, problem, hessian, layout, point, tally):
                bar.update(1)
    return tally.evidence()


def _plan(expr, problem: Problem, variables: list[str], sizes, want, fixed):
    """Check the arguments and sizes (SizeError before any large allocation); build the
    compiled Hessian once: dense up to DENSE_LIMIT unknowns unless its code needs too
    large an intermediate, Hessian-vector products otherwise."""
    _check_arguments(expr, problem, variables, want)
    check_sizes(problem, sizes, fixed)
    check_nodes([expr], problem, sizes, "the expression")          # what `verify` evaluates
    return _built(expr, tuple(variables), Declarations(problem.declarations), tuple(sorted((sizes or {}).items())))


@memoized(maxsize=PLANS)
def _built(expr, variables: tuple[str, ...], declarations: Declarations, sized: tuple):
    """The compiled Hessian of `_plan`, kept for the next search of the same expression with
    the same declarations and sizes (`sized`: their sorted items; the parts of one shape,
    searched in canonical names)."""
    problem, sizes = Problem(declarations, "expression", Part("expression", "", expr, "any")), dict(sized)
    layout = Layout.build(problem, list(variables), sizes)
    xs = var_nodes(expr, problem, list(variables))
    check = lambda exprs: check_nodes(exprs, problem, sizes, f"the Hessian in {', '.join(variables)}")  # noqa: E731
    if layout.size <= DENSE_LIMIT:
        try:
            return DenseHessian(expr, xs, layout, check), layout
        except SizeError:
            pass                                                   # the blocks are too large: products only
    taken = set(problem.declarations) | set(tensorcalc.variables(expr))
    return HessianOperator(expr, xs, layout, taken, check), layout


def _affordable(hessian, expr, problem: Problem, sizes, samples: int, guard: int, variables) -> int:
    """The number of points, at most `samples`, whose Hessians (and the second differences
    that verify a witness, 2 len(STEPS) + 1 values per kind) fit in WORK_LIMIT operations,
    estimated before anything is evaluated; SizeError naming the sizes if not even
    max(guard, 1) points fit (the guard's points are what a proof's check needs)."""
    cost = lambda exprs: work(exprs, problem, sizes)  # noqa: E731
    per_point = hessian.work(cost, LANCZOS_STEPS) + (4 * len(STEPS) + 2) * cost([expr])
    needed = max(guard, 1)
    if needed * per_point > WORK_LIMIT:
        dims = ", ".join(f"{k}={v}" for k, v in (sizes or {}).items())
        raise SizeError(f"sampling the Hessian in {', '.join(variables)} at {dims or 'the default sizes'} "
                        f"would take about {per_point:.1e} floating-point operations per point, {needed} "
                        f"point(s) at least (limit {WORK_LIMIT:.0e} in all); choose smaller --dim lengths")
    return min(samples, int(WORK_LIMIT // per_point))


def _check_arguments(expr, problem: Problem, variables: list[str], want) -> None:
    unknown = [n for n in variables if n not in problem.variables]
    if not variables or unknown:
        raise ValueError(f"search needs variables of the problem; not variables: {unknown or 'none given'}")
    if expr.order != 0:
        raise ValueError(f"search needs a scalar expression; this one has order {expr.order}")
    undeclared = [n for n in tensorcalc.variables(expr) if n not in problem.declarations]
    if undeclared:
        raise ValueError(f"the expression reads undeclared names: {', '.join(undeclared)}")
    if not set(want) <= set(KINDS):
        raise ValueError(f"want must name kinds among {KINDS}, got {tuple(want)}")


def _examine(expr, problem, hessian, layout: Layout, point, tally: _Tally) -> bool:
    """Evaluate the Hessian at `point`, record its extremes and try their eigenvectors as
    witnesses; False (and counted as skipped) if the point is outside the domain."""
    with np.errstate(all="ignore"):
        try:
            value, h = hessian(point)
            pairs = extremes(h, LANCZOS_STEPS) if math.isfinite(value) else None
        except (tensorcalc.DomainError, np.linalg.LinAlgError):
            pairs = None
    if pairs is None:
        tally.skipped += 1
        return False
    (low, v_low), (high, v_high) = pairs
    tally.samples += 1
    tally.low, tally.high = min(tally.low, low), max(tally.high, high)
    for kind, lam, v in (("convex", low, v_low), ("concave", high, v_high)):
        wrong = lam < 0 if kind == "convex" else lam > 0
        beyond = abs(lam) > GUARD_TOLERANCE * max(abs(low), abs(high))
        if (kind in tally.want or (tally.guard and beyond)) and kind not in tally.found and wrong:
            witness = verify(expr, problem, point, layout.expand(v), float(lam))
            if witness is not None:
                tally.found[kind] = witness
    return True


def progress_bar(progress: bool | None, total: int, **options: Any) -> Any:
    """A tqdm bar on stderr that appears only after a second; disabled when not wanted
    (`options`: tqdm's desc, unit, leave)."""
    from tqdm import tqdm
    return tqdm(total=total, delay=1.0, file=sys.stderr, disable=not progress, **options)
