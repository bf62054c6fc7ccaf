"""What a solve checks before it reports success, and where it goes instead.

max|g| <= gtol says that a point is stationary, not that it is a minimum, nor that the
objective has one. Where a method would stop, `examine` looks further:

1. Second order (skipped when convexcheck proved the objective convex: then every
   stationary point is a global minimum). The lowest eigenvalue of the Hessian: by
   Cholesky, then `eigh`, of the Hessian Newton builds; from Hessian-vector products for
   the other methods: the whole spectrum from n products up to `SMALL` variables, else a
   budgeted LOBPCG (`scipy.sparse.linalg.lobpcg`, a block Krylov method like Lanczos);
   central differences of the gradient where no compiled product exists. An eigenvalue
   below -NEGATIVE times the largest in magnitude is negative curvature: the point is a
   saddle or a maximum. One within FLAT of zero leaves the question to higher order: f
   is probed along the eigenvector at two distances each way, and a fall beyond the
   first-order term g.v t at both (x^3 at 0) shows the point is no minimum either.
2. Escape. Along negative curvature (the sum of the eigenvectors of every negative
   eigenvalue, so that one step leaves them all) the step t v is searched from the
   point's scale down with the sufficient-decrease test f(z + t v) <= f + c1 (t g.v +
   t^2 v.H.v / 2) of negative-curvature Newton methods (More and Sorensen); a probe's
   lower point is taken as it is. The caller continues from there; where it cannot (no iteration left, or
   the escape failed), the point is reported: status 4, not a local minimum.
3. No minimiser. Along the direction of travel (the last step, and the way from the
   start) f is evaluated at distances from 1/1024 to 16 times the point's scale
   max(1, |z|, |z - z0|) (infinity norms): if it falls strictly at every one, and goes
   on falling (or stays level) at every distance BEYOND, up to 1e18 times the scale, f
   falls without bound or towards an infimum it never attains (exp(x) as x -> -inf, -x):
   status 5. A rise farther out shows a minimiser beyond the point's scale (least squares
   with nearly collinear columns: one 1e12 away, which Newton reaches at a crawl), and no
   claim is made. At a minimum the first distances that pass it already rise, so this
   costs an evaluation or two.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable

import numpy as np

from solvers.methods.options import Options
from solvers.numerics.linalg import Blocks, cholesky
from solvers.objective.smooth import Objective
from solvers.protocol import Array, Smooth
from solvers.result import Status
from solvers.task.device import to_host

NEGATIVE = 1e-8      # an eigenvalue below -NEGATIVE * scale is negative curvature
FLAT = 1e-6          # one below FLAT * scale is decided by probing f at higher order
SMALL = 64           # up to this many variables, the Hessian from n Hessian-vector products
ITERATIONS = 40      # LOBPCG iterations (one Hessian-vector product each) beyond that
PROBES = (1e-2, 1e-1)                         # higher-order probes, in units of the scale
RAY = tuple(4.0 ** k for k in range(-5, 3))   # distances of the no-minimiser test
BEYOND = tuple(16.0 ** k for k in range(2, 16))   # and where it must go on falling (to 1.2e18)
OPEN = 1e-8                                   # how near a strict bound an infimum there is seen
EPS = float(np.finfo(float).eps)
ROUNDING = 16 * EPS   # the exact checks' relative tolerance (`farkas` per row, `ray` per coordinate)
LARGEST = 10 ** 6     # at most this many entries in a dense check's matrix (`farkas`, `ray`)

Step = tuple[float, Array, list[tuple[float, float]]]      # (t, d, the line-search trials (t, f))


@dataclass
class Curvature:
    """The lowest eigenvalue, the largest magnitude, and (unless the Hessian is positive
    definite, when it is None) a unit direction of the lowest curvature found, as a
    device array (see `_spectrum`)."""

    lowest: float
    scale: float
    vector: object = None
    along: float = math.nan      # the Rayleigh quotient of `vector`
    how: str = "eigh"


@dataclass
class Verdict:
    """The status of the stop examined (a minimum as far as checked), NOT_A_MINIMUM or
    NO_MINIMISER, with the `message` of a stop there; `point`: a lower point to continue
    from instead (the step t along `d`, the trials, and a `note` saying why), or None."""

    status: Status
    message: str = ""
    note: str = ""
    point: object = None
    d: object = None
    t: float = 0.0
    trials: list = field(default_factory=list)


def examine(obj: Smooth, z: Array, f: float, g: Array, hessian: Callable[[], Any] | None, opts: Options, start: Array,
            travel: tuple[Array | None, ...], stopped: int) -> Verdict:
    """The verdict at a point z where a method stopped with `stopped` (0, 1 or 2), having
    started at `start`. `hessian`: the Hessian (dense or Blocks), a function giving it,
    or None (Hessian-vector products). `travel`: directions the iterates moved along
    (None entries ignored)."""
    words = stop_words(opts.sign)
    if stopped == 0 and opts.second_order and not opts.convex and obj.n:
        verdict = _second_order(obj, z, f, g, hessian, opts, start, words)
        if verdict is not None:
            return verdict
    ray = no_minimiser(obj, z, f, [d for d in travel if d is not None], start)
    if ray is not None:
        far, distance = ray
        return Verdict(Status.NO_MINIMISER, f"stopped: no {words['min']}imiser: the objective keeps {words['falling']} "
                          f"along the direction of travel, from {opts.sign * f:.6g} at the point found to "
                          f"{opts.sign * far:.6g} at distance {distance:.3g} from it; it is unbounded "
                          f"{words['below']} or its {words['inf']} is not attained")
    return Verdict(Status(stopped))


def _second_order(obj, z, f, g, hessian, opts, start, words) -> Verdict | None:
    cur = curvature(obj, z, hessian() if callable(hessian) else hessian)
    if cur is None or cur.vector is None or cur.lowest > FLAT * cur.scale:
        return None
    v = _downhill(obj, g, cur.vector)
    T = scale(obj, z, start)
    if cur.lowest < -NEGATIVE * cur.scale:
        why = (f"a stationary point that is not a local {words['min']}imum: the Hessian's "
               f"{words['lowest']} eigenvalue is {opts.sign * cur.lowest:.3g} ({cur.how})")
        found = escape(obj, z, f, g, v, cur.along, T, opts)
    else:
        why = (f"a stationary point that is not a local {words['min']}imum: the objective "
               f"{words['falls']} along a direction of zero curvature (eigenvalue "
               f"{opts.sign * cur.lowest:.3g}, {cur.how}; a higher-order saddle)")
        found = probe(obj, z, f, g, v, T)
        if found is None:
            return None
    if found is None:
        return Verdict(Status.NOT_A_MINIMUM, f"stopped at {why}; no step along that direction decreased f")
    t, d, trials = found
    return Verdict(Status.NOT_A_MINIMUM, f"stopped at {why}", f"left {why}: stepped {t:.3g} along that direction",
                   z + t * d, d, t, trials)


def curvature(obj: Smooth, z: Array, H: Any) -> Curvature | None:
    """The lowest curvature at z; None when it cannot be told (non-finite values)."""
    xp = obj.xp
    if H is not None:
        return _blocks(xp, H) if isinstance(H, Blocks) else _dense(xp, H)
    hvp = _products(obj, z)
    if obj.n <= SMALL:
        eye = xp.eye(obj.n)
        H = xp.stack([hvp(eye[k]) for k in range(obj.n)], axis=1)
        return _dense(xp, (H + H.T) / 2, "from Hessian-vector products")
    return _lobpcg(obj, hvp)


def _dense(xp, H, how: str = "") -> Curvature | None:
    if not bool(xp.isfinite(H).all()):
        return None
    if cholesky(xp, H) is not None:
        return Curvature(math.inf, math.inf, None, math.inf, "Cholesky")
    w, V = xp.linalg.eigh(H)
    return _spectrum(xp, w, V, lambda v: v, " ".join(["eigh", how]).strip())


def _blocks(xp, H: Blocks) -> Curvature | None:
    if not bool(xp.isfinite(H.blocks).all()):
        return None
    if cholesky(xp, H.blocks) is not None:
        return Curvature(math.inf, math.inf, None, math.inf, "Cholesky of the blocks")
    w, V = xp.linalg.eigh(H.blocks)
    return _spectrum(xp, w, V, lambda v: H.join(xp, v), "eigh of the blocks")


def _spectrum(xp, w, V, flat, how: str) -> Curvature:
    """From eigenvalues w (..., R) and eigenvectors V (..., R, R), in blocks or not: with
    negative curvature, the sum of the eigenvectors of every negative eigenvalue (each
    with its largest entry positive), so that one step leaves all of them at once, its
    Rayleigh quotient their mean; else the lowest eigenvector."""
    lowest, scale = float(w.min()), float(xp.abs(w).max())
    take = w < -NEGATIVE * scale
    if not bool(take.any()):
        take = xp.zeros(w.size, dtype=bool)
        take[int(xp.argmin(w))] = True               # argmin of the flattened eigenvalues
        take = take.reshape(w.shape)
    big = xp.argmax(xp.abs(V), axis=-2)[..., None, :]
    signs = xp.sign(xp.take_along_axis(V, big, axis=-2))[..., 0, :]
    vector = flat(xp.sum(V * (signs * take)[..., None, :], axis=-1))
    along = float((w * take).sum()) / float(take.sum())
    return Curvature(lowest, scale, vector / float(xp.linalg.norm(vector)), along, how)


def _lobpcg(obj, hvp) -> Curvature | None:
    """The lowest Rayleigh quotient LOBPCG reaches in ITERATIONS iterations from a fixed
    random start. Unlike ARPACK's Lanczos (`eigsh`), which at the minimum of a matrix
    factorisation, where the lowest eigenvalues cluster at 0, needed some 900 products to
    converge, it gives a usable answer within any budget: a Rayleigh quotient, so an upper
    bound on the lowest eigenvalue, and a negative one proves negative curvature."""
    from scipy.sparse.linalg import LinearOperator, lobpcg
    n, xp = obj.n, obj.xp

    def apply(v: Array) -> np.ndarray:
        cols = v.reshape(n, -1)
        return np.stack([to_host(hvp(xp.asarray(c))) for c in cols.T], axis=1).reshape(v.shape)

    start = np.random.default_rng(0).standard_normal((n, 1))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # "did not reach the tolerance": a budget, not an error
            w, V = lobpcg(LinearOperator((n, n), matvec=apply, matmat=apply, dtype=float), start,
                          largest=False, maxiter=ITERATIONS, tol=1e-8)
        typical = np.linalg.norm(apply(start[:, 0])) / np.linalg.norm(start)
    except (np.linalg.LinAlgError, ValueError):
        return None
    if not (np.isfinite(w).all() and np.isfinite(typical)):
        return None
    lowest = float(w[0])
    return Curvature(lowest, max(abs(lowest), float(typical)), xp.asarray(V[:, 0]), lowest, "LOBPCG")


def _products(obj, z):
    """v -> H v: the compiled product, else central differences of the gradient."""
    from solvers.task.prepare import SolverError
    from tensorcalc import TensorCalcError
    try:
        obj.hvp(z, obj.xp.zeros(obj.n))
        return lambda v: obj.hvp(z, v)
    except (TensorCalcError, SolverError):
        h = 1e-6 * max(1.0, float(obj.xp.abs(z).max()))
        return lambda v: (obj.value_grad(z + h * v)[1] - obj.value_grad(z - h * v)[1]) / (2 * h)


def _downhill(obj, g, v):
    """v of unit length, with g.v <= 0 (its largest entry positive when g.v = 0)."""
    xp = obj.xp
    v = v / float(xp.linalg.norm(v))
    slope = float(g @ v)
    if slope > 0 or (slope == 0 and float(v[int(xp.argmax(xp.abs(v)))]) < 0):
        v = -v
    return v


def scale(obj: Smooth, z: Array, start: Array) -> float:
    """max(1, |z|, |z - start|) in the infinity norm: the unit of distance of the probes."""
    xp = obj.xp
    return max(1.0, float(xp.abs(z).max()), float(xp.abs(z - start).max()))


def escape(obj: Smooth, z: Array, f: float, g: Array, v: Array, curve: float, T: float,
           opts: Options) -> Step | None:
    """(t, v, trials) for the largest t = T / 2^k meeting the negative-curvature
    sufficient-decrease test (k < opts.max_trials; `curve` = v.H v < 0), or None."""
    slope, trials, t = float(g @ v), [], T
    for _ in range(opts.max_trials):
        ft = obj.value(z + t * v)
        trials.append((t, ft))
        if ft < f and ft <= f + opts.c1 * (t * slope + 0.5 * t * t * curve):
            return t, v, trials
        t /= 2
    return None


def probe(obj: Smooth, z: Array, f: float, g: Array, v: Array, T: float) -> Step | None:
    """(t, d, trials) with d = +-v where f falls beyond its first-order term g.d t at
    both t/2 and t (a higher-order saddle), or None."""
    for unit in PROBES:
        t = unit * T
        for d in (v, -v):
            near, far = obj.value(z + 0.5 * t * d), obj.value(z + t * d)
            margin = 8 * EPS * max(abs(f), abs(near), abs(far)) + abs(0.5 * t * float(g @ d))
            if near < f - margin and far < near - margin:
                return t, d, [(0.5 * t, near), (t, far)]
    return None


def no_minimiser(obj: Smooth, z: Array, f: float, directions: list[Array], start: Array) -> tuple[float, float] | None:
    """(f at the farthest probe, its distance) when f falls strictly at every distance of
    RAY along one of `directions` (or until it underflows to exactly 0 and stays there,
    after falling at the first: a separable logistic loss, whose infimum 0 no point
    attains; a minimum hit exactly rises beyond) and does not rise again BEYOND; else
    None."""
    xp = obj.xp
    T = scale(obj, z, start)
    for d in directions:
        size = float(xp.abs(d).max()) if obj.n else 0.0
        if not size > 0:
            continue
        last = f
        for k, r in enumerate(RAY):
            ft = obj.value(z + (r * T / size) * d, overflow=True)
            if ft == 0.0 < last and 0 < k < len(RAY) - 1 and _stays_zero(obj, z, d, T / size, RAY[k + 1:]):
                return ft, RAY[-1] * T            # fell until it underflowed to 0 (exp(-t) as t -> inf)
            if not ft < last - 8 * EPS * abs(last):
                break
            last = ft
            if ft == -math.inf:
                return last, r * T
        else:
            if not _rises_beyond(obj, z, d, T / size, last):
                return last, RAY[-1] * T
    return None


def _rises_beyond(obj, z, d, unit: float, last: float) -> bool:
    """Whether f, having fallen to `last` at every distance of RAY, rises above its lowest
    value by more than rounding at a distance of BEYOND (in units of `unit` along d), or
    leaves its domain there (f = inf: no evidence of a fall); False where it goes on
    falling, stays level, or overflows to -inf."""
    for r in BEYOND:
        ft = obj.value(z + (r * unit) * d, overflow=True)
        if ft == -math.inf:
            return False
        if not ft <= last + 8 * EPS * abs(last):
            return True
        last = min(last, ft)
    return False


def open_bound(obj: Smooth, z: Array, g: Array, gtol: float) -> list[str]:
    """The variables whose strict bounds (`pos`, `> c`, `< c`) hold the infimum: z sits
    within OPEN (1 + |bound|) of such a bound with the gradient pushing past it, and every
    other coordinate has |g| <= gtol (the KKT conditions of the closed bound). [] where
    that is not so, or there is no strict bound. Only an `Objective`'s z holds its free
    variables' entries as declared: a View's or a scaled objective's coordinates are not z's."""
    if not isinstance(obj, Objective) or not obj.n:
        return []
    free, offsets = obj.free, obj.offsets
    zh, gh = np.asarray(to_host(z), dtype=float), np.asarray(to_host(g), dtype=float)
    held, names = np.zeros(zh.size, bool), []
    for v, a, b in zip(free, offsets, offsets[1:]):
        at = v.attributes
        for bound, strict, push in ((at.lower, at.lower_strict, 1.0), (at.upper, at.upper_strict, -1.0)):
            if bound is None or not strict:
                continue
            near = (np.abs(zh[a:b] - bound) <= OPEN * (1 + abs(bound))) & (push * gh[a:b] > gtol)
            held[a:b] |= near
            names += [v.name] if near.any() else []
    return list(dict.fromkeys(names)) if names and bool(np.all(held | (np.abs(gh) <= gtol))) else []


def _stays_zero(obj, z, d, unit: float, farther) -> bool:
    """Whether f is exactly 0 at every farther distance: an underflow that goes on, not
    a minimum hit exactly (beyond which f rises again)."""
    return all(obj.value(z + (r * unit) * d, overflow=True) == 0.0 for r in farther)


def stop_words(sign: float) -> MappingProxyType:
    """The words a stop of a minimisation (sign > 0) or a maximisation uses (read-only:
    the same two mappings serve every stop)."""
    return _WORDS[bool(sign > 0)]


_KEYS = ("min", "falling", "falls", "below", "inf", "lowest")
_WORDS = {True: MappingProxyType(dict(zip(_KEYS, ("min", "decreasing", "decreases", "below", "infimum", "lowest")))),
          False: MappingProxyType(dict(zip(_KEYS, ("max", "increasing", "increases", "above", "supremum", "highest"))))}
