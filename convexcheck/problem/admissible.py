"""Random values that satisfy declared attributes: bounds, symmetry, definiteness.

`sample_point` draws every declaration of a problem at a cycling scale (`draw` one of
them); `satisfies` is the independent check that a value (a sample, or a point moved
along a witness direction) is admissible. `check_sizes` refuses, before anything is
allocated, sizes at which one declared array would exceed MAX_ENTRIES entries.

The declarations module refuses attributes that leave no value or a single degenerate
one; what is left can fail here only in float64 (bounds so large that a definite
matrix's eigenvalues overflow, or so close that rounding swallows the room between
them). `draw` reports that as a ProblemError at the declaration's line.
"""
from __future__ import annotations

import math
import re

import numpy as np

from convexcheck.problem.model import Attributes, Declaration, Problem
from convexcheck.problem.reader import ProblemError
from tensorcalc import TensorCalcError
from tensorcalc.arrays import Array

SCALES = (0.1, 1.0, 10.0)                  # magnitudes cycled through, for free entries and offsets
MAX_ENTRIES = 50_000_000                   # entries of one array (400 MB of float64) sampling may allocate
FLOAT_MAX = float(np.finfo(float).max)


class SizeError(TensorCalcError):
    """The sizes make one array of the analysis too large to allocate."""


class SampleError(TensorCalcError):
    """No float64 value of a shape meets the attributes (`draw` names the declaration)."""


REAL_KINDS = "fiub"                # dtype kinds accepted: floating, signed, unsigned, boolean
_NOT_REAL = {                      # dtype kind -> (what it holds, how to make numbers of it)
    "c": ("complex", "pass the real and imaginary parts (np.real, np.imag) as two arrays"),
    "U": ("text", "convert to numbers first, e.g. array.astype(float)"),
    "S": ("bytes", "convert to numbers first, e.g. array.astype(float)"),
    "M": ("dates", "convert to numbers, e.g. (t - t0) / np.timedelta64(1, 'D')"),
    "m": ("time spans", "convert to numbers, e.g. dt / np.timedelta64(1, 's')"),
    "O": ("Python objects", "convert to a numeric array, e.g. array.astype(float)"),
}


def not_real(dtype: np.dtype, where: str) -> str | None:
    """Why `dtype` is refused as data, or None for real numbers: floating, integer or
    boolean (read as 0 and 1). Complex values would lose their imaginary part; text,
    bytes, dates and Python objects are not numbers."""
    if dtype.kind in REAL_KINDS:
        return None
    what, fix = _NOT_REAL.get(dtype.kind, ("records", "save each field as its own array"))
    return (f"{where} is not an array of numbers: it has dtype {dtype} ({what}), and only "
            f"real numbers (floating, integer or boolean arrays) are accepted; {fix}")


def check_sizes(problem: Problem, sizes: dict[str, int] | None,
                fixed: dict[str, np.ndarray] | None = None) -> None:
    """SizeError naming the first declaration (not given in `fixed`) whose array at `sizes`
    has more than MAX_ENTRIES entries, with its dimensions and the fix."""
    for name, decl in problem.declarations.items():
        shape = decl.shape(sizes)
        entries = math.prod(shape)
        if name not in (fixed or {}) and entries > MAX_ENTRIES:
            named = ", ".join(dict.fromkeys(f"{d}={n}" for d, n in zip(decl.dims, shape) if isinstance(d, str)))
            raise SizeError(f"{decl.kind} {name}[{', '.join(map(str, decl.dims))}] would have {entries:,} "
                            f"entries at {named or 'its sizes'} (limit {MAX_ENTRIES:,} per array); "
                            f"choose smaller --dim lengths")


def sample_point(problem: Problem, sizes: dict[str, int] | None, rng: np.random.Generator,
                 k: int, fixed: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Values for every declaration of the k-th draw. Variables' scale cycles through
    SCALES with k and parameters' with k // len(SCALES), so nine draws see every pair.
    Parameters given in `fixed` keep those values (the user's data). SizeError if an
    array would be too large (`check_sizes`)."""
    check_sizes(problem, sizes, fixed)
    point = dict(fixed or {})
    for name, decl in problem.declarations.items():
        if name in point:
            continue
        j = k if decl.kind == "variable" else k // len(SCALES)
        point[name] = draw(problem, decl, sizes, rng, SCALES[j % len(SCALES)])
    return point


def draw(problem: Problem, decl: Declaration, sizes: dict[str, int] | None, rng: np.random.Generator,
         scale: float) -> np.ndarray:
    """`sample_value` for one declaration; a ProblemError at its line when none can be drawn."""
    try:
        return sample_value(decl.attributes, decl.shape(sizes), rng, scale)
    except SampleError as exc:
        line, column = _place(problem, decl)
        where = f" (declared on line {decl.line})" if decl.line and not line else ""
        raise ProblemError(f"cannot draw a value of {decl.kind} {decl.name!r}{where} that is "
                           f"{decl.attributes.describe()!r}: {exc}", problem.text or None, line, column,
                           problem.source) from None


def _place(problem: Problem, decl: Declaration) -> tuple[int, int]:
    """The line and column of the declared name in the problem text; (0, 0) without text."""
    lines = problem.text.split("\n") if problem.text else []
    if not 0 < decl.line <= len(lines):
        return 0, 0
    found = re.search(rf"\b{re.escape(decl.name)}\b", lines[decl.line - 1])
    return decl.line, found.start() + 1 if found else 1


def sample_value(attrs: Attributes, shape: tuple[int, ...], rng: np.random.Generator,
                 scale: float = 1.0) -> np.ndarray:
    """A random array of `shape` strictly inside the declared bounds and cones.

    Raises SampleError if the attributes cannot be met in float64 (the declarations
    module refuses those no real value meets), SizeError before allocating if `shape`
    has more than MAX_ENTRIES entries."""
    if math.prod(shape) > MAX_ENTRIES:
        raise SizeError(f"a sample of shape {tuple(shape)} would have {math.prod(shape):,} entries "
                        f"(limit {MAX_ENTRIES:,} per array); choose smaller --dim lengths")
    for _ in range(10):                      # exact rounding onto a bound is possible but rare
        if attrs.definite:
            value = _definite(attrs, shape, rng, scale)
        else:
            value = _box(attrs.lower, attrs.upper, shape, rng, scale)
            value = (value + value.T) / 2 if attrs.is_symmetric else value
        if satisfies(attrs, value):
            return value
    raise SampleError(f"no draw of shape {shape} met the attributes in float64 (bounds {attrs.describe()!r} "
                      f"too close for rounding to leave room between them); widen them or rescale the problem")


def _box(lower, upper, shape, rng, scale) -> np.ndarray:
    """Entries inside (lower, upper), offsets from a single bound of the given scale."""
    if lower is not None and upper is not None:               # no overflow for bounds far apart
        u = rng.uniform(size=shape)
        return lower * (1 - u) + upper * u
    if lower is not None:
        return lower + scale * rng.exponential(size=shape)
    if upper is not None:
        return upper - scale * rng.exponential(size=shape)
    return scale * rng.standard_normal(size=shape)


def _definite(attrs: Attributes, shape, rng, scale) -> np.ndarray:
    """nsd/nd are the negatives of psd/pd with mirrored bounds."""
    if len(shape) != 2 or shape[0] != shape[1]:
        raise SampleError(f"{attrs.definite} needs a square matrix, not shape {shape}; declare two equal dimensions")
    if attrs.definite in ("nsd", "nd"):
        mirrored = Attributes(None if attrs.upper is None else -attrs.upper, attrs.upper_strict,
                              None if attrs.lower is None else -attrs.lower, attrs.lower_strict,
                              True, "psd" if attrs.definite == "nsd" else "pd")
        return -_positive(mirrored, shape[0], rng, scale, attrs)
    return _positive(attrs, shape[0], rng, scale, attrs)


def _positive(attrs: Attributes, n: int, rng, scale, declared: Attributes) -> np.ndarray:
    """shift * ones + t * P, P = G G^T / n (+ I if pd): a rank-one psd shift lifts the
    entries above a positive lower bound, and t keeps them below the upper one. t grows
    with the shift, so that rounding of the shift does not swallow P, and the entries stay
    below FLOAT_MAX / (4 n), so that the eigenvalues (up to n times the largest entry)
    are finite."""
    lo, hi = attrs.lower, attrs.upper
    g = rng.standard_normal((n, n))
    g = np.abs(g) if lo is not None and lo >= 0 else g   # nonneg entries under a nonneg bound
    p = g @ g.T / n + (0.5 * np.eye(n) if attrs.definite == "pd" else 0.0)
    shift = lo if lo is not None and lo > 0 else 0.0
    if hi is not None and hi <= shift:
        raise SampleError(f"no {n}x{n} matrix is {declared.describe()!r}: its diagonal needs entries above "
                          f"{shift:g} and below {hi:g}; widen the bounds")
    top = FLOAT_MAX / (4 * n) if hi is None else min(hi, FLOAT_MAX / (4 * n))
    if top <= shift:
        raise SampleError(f"every {n}x{n} matrix that is {declared.describe()!r} has an eigenvalue of magnitude at "
                          f"least {n} times {shift:g}, beyond float64 (about {FLOAT_MAX:.3g}); rescale the "
                          f"problem so that its bounds are smaller")
    room = min(top - shift, math.inf if lo is None or lo >= 0 else -lo)
    t = min(scale * max(1.0, shift), 0.5 * room / max(np.max(np.abs(p)), 1e-300))
    m = shift + t * p
    return (m + m.T) / 2


def satisfies(attrs: Attributes, value: np.ndarray) -> bool:
    """Whether `value` is finite and meets the bounds, symmetry and definiteness declared."""
    value = np.asarray(value)
    if not np.all(np.isfinite(value)) or not in_bounds(attrs, value):
        return False
    if attrs.is_symmetric and (value.ndim != 2 or not np.array_equal(value, value.T)):
        return False
    if attrs.definite:
        eig = np.linalg.eigvalsh(value) * (1 if attrs.definite in ("psd", "pd") else -1)
        return bool(eig.min() > 0 if attrs.definite in ("pd", "nd") else eig.min() >= 0)
    return True


def in_bounds(attrs: Attributes, value: Array) -> bool:
    """Whether every entry meets the declared bounds; `value` is a NumPy or CuPy array
    (only its comparison operators and `.all()` are used)."""
    lo, hi = attrs.lower, attrs.upper
    if lo is not None and not bool((value > lo if attrs.lower_strict else value >= lo).all()):
        return False
    return hi is None or bool((value < hi if attrs.upper_strict else value <= hi).all())
