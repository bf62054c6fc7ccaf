"""Powers with parameter exponents, p-norms spelled with powers, sin and cos on intervals of
fixed curvature (`atoms.power_range`, `norms`, `intervals.half_turn`).

Every side the analyser must prove is first checked true with NumPy second differences
along random directions (for a parameter, at several values of its declared range); every
side it must not prove is first shown false there by a clearly negative (or positive)
second difference. The analyser is never the oracle."""
import math
from fractions import Fraction

import numpy as np
import pytest

import convexcheck
from convexcheck.signs.intervals import Interval, cos, cos_sign, half_turn, sin, sin_sign, up

RNG_SEED = 7
POINTS = 4000
STEP = 1e-3
M, N = 4, 3
A = np.random.default_rng(1).standard_normal((M, N))
B = np.random.default_rng(2).standard_normal(M)


def box(lo, hi):
    """Points of a box [lo, hi]^d (lo, hi per coordinate), STEP away from its faces."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return lambda rng: rng.uniform(lo + 2 * STEP, hi - 2 * STEP, (POINTS, lo.size))


def second_differences(f, draw, seed=RNG_SEED):
    """f(z + h d) - 2 f(z) + f(z - h d) over h^2 at random points z of `draw` and random
    unit directions d."""
    rng = np.random.default_rng(seed)
    z = draw(rng)
    d = rng.standard_normal(z.shape)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (f(z + STEP * d) - 2 * f(z) + f(z - STEP * d)) / STEP ** 2, np.abs(f(z))


def holds(kind, f, draw):
    """The side is true at every sampled point of f's domain (NaN off it; most points must
    be on it), to rounding: the second difference's error is about 4 eps |f| / h^2."""
    dd, size = second_differences(f, draw)
    inside = np.isfinite(dd)
    assert inside.mean() > 0.1, "the sampled points miss the function's domain"
    scale = 1e-9 + 8 * np.finfo(float).eps * size[inside] / STEP ** 2
    dd = dd[inside]
    return bool(np.all(dd >= -scale)) if kind == "convex" else bool(np.all(dd <= scale))


def fails(kind, f, draw):
    """A clear witness against the side: a second difference of the wrong sign, far above
    rounding."""
    dd = second_differences(f, draw)[0]
    return bool(np.any(dd < -1e-3)) if kind == "convex" else bool(np.any(dd > 1e-3))


def status(text, kind):
    part = convexcheck.analyze(text, samples=5, seed=0).objective
    assert not part.inconsistencies, part.inconsistencies
    return getattr(part, kind).status


def affine(z):
    return z[:, :N] @ A.T - B


POS = box([0.05], [6.0])
POS2 = box([0.05, 0.05], [4.0, 4.0])
FREE2 = box([-2.0, -2.0], [2.0, 2.0])
FREE1 = box([-2.0], [2.0])
FREEN = box([-2.0] * N, [2.0] * N)

# name, text, side, [functions: one per parameter value tried], points
PROVEN = [
    ("pow_param_ge1", "parameter p >= 1\nvariable x pos\nminimize x^p", "convex",
     [lambda z, p=p: z[:, 0] ** p for p in (1.0, 1.5, 2.0, 3.7)], POS),
    ("pow_param_01", "parameter p >= 0 <= 1\nvariable x pos\nmaximize x^p", "concave",
     [lambda z, p=p: z[:, 0] ** p for p in (0.0, 0.3, 0.5, 1.0)], POS),
    ("pow_param_nonpos", "parameter p nonpos\nvariable x pos\nminimize x^p", "convex",
     [lambda z, p=p: z[:, 0] ** p for p in (0.0, -0.5, -1.0, -2.5)], POS),
    ("pow_param_of_affine", "parameter p >= 1\nvariable x pos\nvariable y pos\nminimize (x + 2 * y + 1)^p", "convex",
     [lambda z, p=p: (z[:, 0] + 2 * z[:, 1] + 1) ** p for p in (1.0, 2.5)], POS2),
    ("pow_param_of_convex", "parameter p >= 1\nvariable x >= 0 <= 3\nminimize exp(x)^p", "convex",
     [lambda z, p=p: np.exp(z[:, 0]) ** p for p in (1.0, 1.5)], box([0.0], [3.0])),
    ("pow_param_01_of_concave", "parameter p >= 0 <= 1\nvariable x pos\nmaximize log(1 + x)^p", "concave",
     [lambda z, p=p: np.log1p(z[:, 0]) ** p for p in (0.2, 1.0)], POS),
    ("pow_param_nonpos_of_concave", "parameter p <= 0\nvariable x pos\nminimize (1 + sqrt(x))^p", "convex",
     [lambda z, p=p: (1 + np.sqrt(z[:, 0])) ** p for p in (-0.5, -3.0)], POS),
    ("pow_third", "variable x pos\nmaximize x^(1/3)", "concave", [lambda z: np.cbrt(z[:, 0])], POS),
    ("l4_norm", "variable x\nvariable y\nminimize (x^4 + y^4)^0.25", "convex",
     [lambda z: (z[:, 0] ** 4 + z[:, 1] ** 4) ** 0.25], FREE2),
    ("fourth_fourth", "variable x\nminimize (x^4)^(1/4)", "convex", [lambda z: (z[:, 0] ** 4) ** 0.25], FREE1),
    ("sqrt_x4y4", "variable x\nvariable y\nminimize sqrt(x^4 + y^4)", "convex",
     [lambda z: np.sqrt(z[:, 0] ** 4 + z[:, 1] ** 4)], FREE2),
    ("sqrt_x4", "variable x\nminimize sqrt(x^4)", "convex", [lambda z: np.sqrt(z[:, 0] ** 4)], FREE1),
    ("mixed_degrees", "variable x\nvariable y\nminimize (x^4 + y^2 + 1)^0.5", "convex",
     [lambda z: np.sqrt(z[:, 0] ** 4 + z[:, 1] ** 2 + 1)], FREE2),
    ("l3_nonneg", "variable x pos\nvariable y pos\nminimize (x^3 + 2 * y^3)^(1/3)", "convex",
     [lambda z: np.cbrt(z[:, 0] ** 3 + 2 * z[:, 1] ** 3)], POS2),
    ("l3_affine", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum(abs(A * x - b) .^ 3)^(1/3)",
     "convex", [lambda z: np.cbrt(np.sum(np.abs(affine(z)) ** 3, axis=1))], FREEN),
    ("l4_even_affine", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum((A * x - b) .^ 4)^(1/4)",
     "convex", [lambda z: np.sum(affine(z) ** 4, axis=1) ** 0.25], FREEN),
    ("l4_squared", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum((A * x - b) .^ 4)^0.5",
     "convex", [lambda z: np.sum(affine(z) ** 4, axis=1) ** 0.5], FREEN),
    ("lp_param", "parameter p >= 1\nparameter A[m, n]\nparameter b[m]\nvariable x[n]\n"
                 "minimize sum(abs(A * x - b) .^ p)^(1/p)", "convex",
     [lambda z, p=p: np.sum(np.abs(affine(z)) ** p, axis=1) ** (1 / p) for p in (1.0, 1.5, 3.0)], FREEN),
    ("quartic_over_linear", "variable x\nvariable y pos\nminimize x^4 / y", "convex",
     [lambda z: z[:, 0] ** 4 / z[:, 1]], box([-2.0, 0.05], [2.0, 3.0])),
    ("sin_0_3", "variable x >= 0 <= 3\nmaximize sin(x)", "concave", [lambda z: np.sin(z[:, 0])], box([0.0], [3.0])),
    ("sin_convex_half", "variable x >= 3.2 <= 6.2\nminimize sin(x)", "convex",
     [lambda z: np.sin(z[:, 0])], box([3.2], [6.2])),
    ("cos_pm1", "variable x >= -1 <= 1\nmaximize cos(x)", "concave", [lambda z: np.cos(z[:, 0])], box([-1.0], [1.0])),
    ("cos_of_affine", "variable x >= 0 <= 1\nvariable y >= 0 <= 1\nmaximize cos(x - y)", "concave",
     [lambda z: np.cos(z[:, 0] - z[:, 1])], box([0.0, 0.0], [1.0, 1.0])),
    ("cos_far", "variable x >= 100 <= 101\nmaximize cos(x)", "concave",
     [lambda z: np.cos(z[:, 0])], box([100.0], [101.0])),
    ("sin_of_concave", "variable x >= 0 <= 2\nmaximize sin(sqrt(x))", "concave",
     [lambda z: np.sin(np.sqrt(z[:, 0]))], box([0.0], [2.0])),
    ("sqrt_of_sin", "variable x >= 0.1 <= 3\nmaximize sqrt(sin(x))", "concave",
     [lambda z: np.sqrt(np.sin(z[:, 0]))], box([0.1], [3.0])),
]

# name, text, side that must not be proven, the function(s) whose second differences refute it, points
REFUTED = [
    ("pow_param_0_2_convex", "parameter p >= 0 <= 2\nvariable x pos\nminimize x^p", "convex",
     [lambda z: z[:, 0] ** 0.5], POS),
    ("pow_param_0_2_concave", "parameter p >= 0 <= 2\nvariable x pos\nmaximize x^p", "concave",
     [lambda z: z[:, 0] ** 2], POS),
    ("pow_param_ge1_of_concave", "parameter p >= 1\nvariable x pos\nminimize sqrt(x)^p", "convex",
     [lambda z: np.sqrt(z[:, 0])], POS),
    ("pow_param_01_of_convex", "parameter p >= 0 <= 1\nvariable x pos\nmaximize exp(x)^p", "concave",
     [lambda z: np.exp(z[:, 0]) ** 0.5], POS),
    ("lp_param_below_1", "parameter p >= 0.5\nvariable x[n]\nminimize sum(abs(x) .^ p)^(1/p)", "convex",
     [lambda z: np.sum(np.sqrt(np.abs(z)), axis=1) ** 2], FREEN),
    ("l4_to_0.2", "variable x\nvariable y\nminimize (x^4 + y^4)^0.2", "convex",
     [lambda z: (z[:, 0] ** 4 + z[:, 1] ** 4) ** 0.2], FREE2),
    ("mixed_to_quarter", "variable x\nvariable y\nminimize (x^4 + y^2)^0.25", "convex",
     [lambda z: (z[:, 0] ** 4 + z[:, 1] ** 2) ** 0.25], FREE2),
    ("odd_without_abs", "variable x\nvariable y\nminimize (x^3 + y^3)^(1/3)", "convex",
     [lambda z: np.cbrt(z[:, 0] ** 3 + z[:, 1] ** 3)], FREE2),
    ("norm_of_concave", "variable x pos\nvariable y\nminimize (sqrt(x)^4 + y^4)^(1/4)", "convex",
     [lambda z: (z[:, 0] ** 2 + z[:, 1] ** 4) ** 0.25], box([0.05, -2.0], [4.0, 2.0])),
    ("abs_over_linear", "variable x\nvariable y pos\nminimize abs(x) / y", "convex",
     [lambda z: np.abs(z[:, 0]) / z[:, 1]], box([0.1, 0.05], [2.0, 3.0])),
    ("sin_0_4", "variable x >= 0 <= 4\nmaximize sin(x)", "concave", [lambda z: np.sin(z[:, 0])], box([0.0], [4.0])),
    ("cos_pm2", "variable x >= -2 <= 2\nmaximize cos(x)", "concave", [lambda z: np.cos(z[:, 0])], box([-2.0], [2.0])),
    ("sin_of_convex", "variable x >= 0 <= 1.2\nmaximize sin(x^2)", "concave",
     [lambda z: np.sin(z[:, 0] ** 2)], box([0.0], [1.2])),
    ("sin_free", "variable x\nmaximize sin(x)", "concave", [lambda z: np.sin(z[:, 0])], FREE1),
]


@pytest.mark.parametrize("name, text, kind, functions, draw", PROVEN, ids=[c[0] for c in PROVEN])
def test_true_side_is_proven(name, text, kind, functions, draw):
    assert all(holds(kind, f, draw) for f in functions), f"{name}: the oracle says the side is false"
    assert status(text, kind) == "proven"


@pytest.mark.parametrize("name, text, kind, functions, draw", REFUTED, ids=[c[0] for c in REFUTED])
def test_false_side_is_not_proven(name, text, kind, functions, draw):
    assert any(fails(kind, f, draw) for f in functions), f"{name}: the oracle finds no witness"
    assert status(text, kind) != "proven"


def test_oracle_sees_the_difference():
    """The second-difference oracle itself: it accepts x^2 as convex and refutes x^0.5."""
    assert holds("convex", lambda z: z[:, 0] ** 2, POS) and fails("convex", lambda z: z[:, 0] ** 0.5, POS)
    assert not holds("convex", lambda z: z[:, 0] ** 0.5, POS)


# ----------------------------------------------------------------------------- half turns of pi

def _grid_sign(fn, iv):
    """The sign fn keeps on a dense grid of iv, its ends included (0 when it changes)."""
    values = fn(np.concatenate([np.linspace(iv.lo, iv.hi, 2001), [iv.lo, iv.hi]]))
    return 1 if np.all(values >= 0) else -1 if np.all(values <= 0) else 0


@pytest.mark.parametrize("seed", range(5))
def test_half_turn_signs_agree_with_numpy(seed):
    """Random intervals: a sign claimed for sin or cos is the sign NumPy sees on the whole
    interval, and short intervals well inside a half-turn get one."""
    rng = np.random.default_rng(seed)
    claimed = 0
    for _ in range(400):
        lo = rng.uniform(-20, 20)
        iv = Interval(lo, lo + rng.uniform(0, 3.5))
        for fn, sign in ((np.sin, sin_sign), (np.cos, cos_sign)):
            s = sign(iv)
            if s:
                claimed += 1
                assert _grid_sign(fn, iv) in (s, 0) and s * fn(iv.lo) >= 0 and s * fn(iv.hi) >= 0, (iv, fn)
                assert _grid_sign(fn, iv) == s, (iv, fn)
    assert claimed > 100


def test_half_turn_ends_are_exact():
    """math.pi is just below pi: [0, math.pi] is inside sin's first half-turn, one float
    more is not (sin of it is negative); likewise cos at pi/2."""
    assert sin_sign(Interval(0.0, math.pi)) == 1 and np.sin(math.pi) > 0
    assert sin_sign(Interval(0.0, up(math.pi))) == 0 and np.sin(up(math.pi)) < 0
    assert cos_sign(Interval(-math.pi / 2, math.pi / 2)) == 1
    assert cos_sign(Interval(0.0, up(math.pi / 2))) == 0 and np.cos(up(math.pi / 2)) < 0
    assert sin_sign(Interval(-math.pi, 0.0)) == -1                                # -math.pi is above -pi
    assert sin_sign(Interval(-up(math.pi), 0.0)) == 0 and np.sin(-up(math.pi)) > 0
    assert sin_sign(Interval(-3.0, 0.0)) == -1
    assert half_turn(Interval(1.0, math.inf), Fraction(0)) is None
    assert sin(Interval(0.5, 2.5)) == Interval(0.0, 1.0) and cos(Interval(2.0, 4.0)) == Interval(-1.0, 0.0)
    assert sin(Interval(0.0, 7.0)) == Interval(-1.0, 1.0)


# ----------------------------------------------------------------------------- random compositions

LEAVES = [   # (text, NumPy function of x, y), over the box [0.1, 2]^2
    ("abs(x - {a} * y + {b})", lambda x, y, a, b: np.abs(x - a * y + b)),
    ("(x + {a} * y - {b})", lambda x, y, a, b: x + a * y - b),
    ("exp({a} * x - y)", lambda x, y, a, b: np.exp(a * x - y)),
    ("sqrt(x + {b})", lambda x, y, a, b: np.sqrt(x + b)),
    ("log(1 + {a} * y)", lambda x, y, a, b: np.log(1 + a * y)),
    ("(x - {b})^2", lambda x, y, a, b: (x - b) ** 2),
]
EXPONENTS = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0]
ROOTS = ["0.25", "(1/3)", "0.5", "(2/3)", "1", "1.5"]
TRIG = [("sin", np.sin), ("cos", np.cos)]


def _random_norm(rng):
    """(text, f): (sum_k leaf_k ^ e_k + c) ^ r with random leaves, exponents and root."""
    terms, parts = [], []
    for _ in range(rng.integers(1, 4)):
        k = int(rng.integers(len(LEAVES)))
        a, b = round(float(rng.uniform(0.2, 2)), 2), round(float(rng.uniform(0.2, 2)), 2)
        e = float(rng.choice(EXPONENTS))
        text, fn = LEAVES[k]
        terms.append(f"({text.format(a=a, b=b)})^{e:g}")
        parts.append(lambda x, y, fn=fn, a=a, b=b, e=e: fn(x, y, a, b) ** e)
    c, root = round(float(rng.uniform(0, 1)), 2), str(rng.choice(ROOTS))
    r = float(eval(root))
    text = f"variable x >= 0.1 <= 2\nvariable y >= 0.1 <= 2\nminimize ({' + '.join(terms)} + {c})^{root}"
    return text, lambda z: (sum(p(z[:, 0], z[:, 1]) for p in parts) + c) ** r


def _random_trig(rng):
    """(text, f): sin or cos of a x + b y + c over a random box."""
    name, fn = TRIG[int(rng.integers(2))]
    a, b, c = (round(float(v), 2) for v in rng.uniform(-2, 2, 3))
    lo = round(float(rng.uniform(-4, 4)), 2)
    width = round(float(rng.uniform(0.1, 1.5)), 2)
    text = (f"variable x >= {lo} <= {lo + width}\nvariable y >= {lo} <= {lo + width}\n"
            f"minimize {name}({a} * x + {b} * y + {c})")
    return text, lambda z: fn(a * z[:, 0] + b * z[:, 1] + c), box([lo, lo], [lo + width, lo + width])


@pytest.mark.parametrize("seed", range(4))
def test_random_compositions_prove_only_truths(seed):
    """Random norms of powers and random sin/cos of affine arguments on random boxes: every
    proven side holds by second differences; some are proven (the rules are exercised)."""
    rng = np.random.default_rng(100 + seed)
    proven = 0
    for _ in range(25):
        text, f = _random_norm(rng)
        draw = box([0.1, 0.1], [2.0, 2.0])
        if rng.integers(2):
            text, f, draw = _random_trig(rng)
        part = convexcheck.analyze(text, samples=5, seed=0).objective
        assert not part.inconsistencies, (text, part.inconsistencies)
        for kind in ("convex", "concave"):
            if getattr(part, kind).status == "proven":
                proven += 1
                assert holds(kind, f, draw), (text, kind, getattr(part, kind).proof)
    assert proven >= 5
