"""The second DCP generator: nested compositions that are DCP-valid by construction.

Where tests/dcp_atoms.py draws atoms freely (and lets CVXPY judge), this generator follows
DCP's rules: `convex(...)` and `concave(...)` draw a row of NESTED whose arguments have the
curvature (and, for inv_pos, sqrt and log, the positivity) the rule needs. The kinds of
issue 13: exp of sums of convex terms, log_sum_exp of stacks (hstack of scalars, vstack of
vectors) with convex entries, powers of exp, inv_pos and negative powers of positive concave
terms, nonnegative multiples and sums, abs and pos of affine and convex arguments, maximum,
max of a vector, norm1, norm2, norm_inf, huber (when tensorcalc has it), hinge and
lasso-like forms; on the concave side negation, sqrt, log, entr, minimum. Affine pieces are
the first generator's affine maps (`dcp_atoms.ATOMS` rows of kind 'affine').

The rendering is the first generator's: a `dcp_atoms.Node` with the problem text and a
function building the CVXPY twin; non-smooth atoms are written as the CVXPY bridge lowers
them (max(a, b) = b + relu(a - b), norm2 = sqrt(sum(a ^ 2)), norm1 = sum(abs(a))), so the
two renderings are the same function everywhere on the declared domain. `Case.curvature`
is the curvature built; tests check `expr.is_dcp()` and that CVXPY sees it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import cvxpy as cp
import numpy as np
from dcp_atoms import (
    ATOMS,
    POS,
    SCALAR,
    VECTOR,
    Case,
    Data,
    Draws,
    Node,
    _join,
    _seed,
    _variable,
    full,
    nonneg,
    par,
    pointwise,
    positive,
)
from hypothesis import strategies as st

import tensorcalc.dag

HAS_HUBER = "huber" in tensorcalc.dag.ELEMENTWISE
SHAPES = (SCALAR, VECTOR)


@dataclass(frozen=True)
class Row:
    """One rule: `curvature` of the result ('convex' or 'concave'), the shapes it makes,
    whether its result is > 0 on the declared domain (`positive`), and
    `make(draw, data, shape, depth)` -> Node."""

    name: str
    curvature: str
    shapes: tuple
    make: Callable
    positive: bool = False
    weight: int = 2


# ----------------------------------------------------------------------------- drawing

def affine(draw, data, shape, want=None) -> Node:
    """An affine map of one variable (the first generator's rows), > 0 if want is POS."""
    options = [a for a in ATOMS.values() if a.kind in ("leaf", "affine") and shape in a.out and want in a.signs]
    return draw.choice(options).make(draw, data, shape, 1, want)


def convex(draw, data, shape, depth) -> Node:
    if depth <= 0:
        return affine(draw, data, shape)
    return _row(draw, "convex", shape, False).make(draw, data, shape, depth)


def concave(draw, data, shape, depth, positive_only=False) -> Node:
    if depth <= 0:
        return affine(draw, data, shape, POS if positive_only else None)
    return _row(draw, "concave", shape, positive_only).make(draw, data, shape, depth)


def _row(draw, curvature, shape, positive_only) -> Row:
    return draw.choice([r for r in NESTED.values() for _ in range(r.weight) if r.curvature == curvature
                        and shape in r.shapes and (r.positive or not positive_only)])


def _node(name, text, cvx, shape, *args, positive=False) -> Node:
    return Node(text, cvx, shape, POS if positive else None, **_join(name, *args))


def _fold_max(texts):
    """maximum as the bridge writes it: max(a, b) = b + relu(a - b), nested."""
    out = texts[0]
    for b in texts[1:]:
        out = f"({b} + relu({out} - {b}))"
    return out


def _entries(data, text: str) -> list[str]:
    """The entries of a vector's text, each picked by a 0/1 parameter."""
    return [f"({data.add(np.eye(3)[k])[0]} {full(VECTOR)} {par(text)})" for k in range(3)]


def _sum_cvx(nodes):
    def cvx(vs):
        out = nodes[0].cvx(vs)
        for n in nodes[1:]:
            out = out + n.cvx(vs)
        return out
    return cvx


# ----------------------------------------------------------------------------- convex rows

def make_exp_sum(draw, data, shape, depth):
    terms = [convex(draw, data, shape, depth - 1) for _ in range(draw.integer(1, 3))]
    return _node("exp_sum", f"exp({' + '.join(par(t.text) for t in terms)})",
                 lambda vs: cp.exp(_sum_cvx(terms)(vs)), shape, *terms, positive=True)


def make_lse_stack(draw, data, shape, depth):
    inner = draw.choice(SHAPES)
    terms = [convex(draw, data, inner, depth - 1) for _ in range(draw.integer(2, 3))]
    if inner == SCALAR:
        text = " + ".join(f"exp({t.text})" for t in terms)
        return _node("lse_stack", f"log({text})", lambda vs: cp.log_sum_exp(cp.hstack([t.cvx(vs) for t in terms])),
                     SCALAR, *terms)
    text = " + ".join(f"sum(exp({t.text}))" for t in terms)
    return _node("lse_stack", f"log({text})", lambda vs: cp.log_sum_exp(cp.vstack([t.cvx(vs) for t in terms])),
                 SCALAR, *terms)


def make_pow_exp(draw, data, shape, depth):
    p = draw.choice((1.5, 2, 3))
    c = convex(draw, data, shape, depth - 1)
    return _node("pow_exp", f"exp({c.text}) ^ {p:g}", lambda vs: cp.power(cp.exp(c.cvx(vs)), p), shape, c,
                 positive=True)


def make_inv_concave(draw, data, shape, depth):
    p = draw.choice((-1, -0.5, -2))
    g = concave(draw, data, shape, depth - 1, positive_only=True)
    if p == -1 and draw.boolean():
        return _node("inv_concave", f"1 / {par(g.text)}", lambda vs: cp.inv_pos(g.cvx(vs)), shape, g, positive=True)
    return _node("inv_concave", f"{par(g.text)} ^ ({p:g})", lambda vs: cp.power(g.cvx(vs), p), shape, g,
                 positive=True)


def _combination(curvature):
    """a c1 + b c2 (+ ...) with scalars a, b > 0 and terms of one curvature."""
    def make(draw, data, shape, depth):
        rng = _seed(draw)
        terms = [(convex if curvature == "convex" else concave)(draw, data, shape, depth - 1)
                 for _ in range(draw.integer(1, 3))]
        scales = [data.add(positive(rng, ())) for _ in terms]
        text = " + ".join(f"{name} * {par(t.text)}" for (name, _), t in zip(scales, terms))
        return _node(f"comb_{curvature}", text,
                     lambda vs: sum((c * t.cvx(vs) for (_, c), t in zip(scales, terms)), start=0), shape, *terms)
    return make


def _reduce(curvature):
    """sum(v) or w . v with weights w >= 0, v a vector of one curvature."""
    def make(draw, data, shape, depth):
        rng = _seed(draw)
        v = (convex if curvature == "convex" else concave)(draw, data, VECTOR, depth - 1)
        if draw.boolean():
            return _node(f"sum_{curvature}", f"sum({v.text})", lambda vs: cp.sum(v.cvx(vs)), SCALAR, v)
        w_name, w = data.add(nonneg(rng, VECTOR))
        return _node(f"sum_{curvature}", f"{w_name} {full(VECTOR)} {par(v.text)}", lambda vs: w @ v.cvx(vs),
                     SCALAR, v)
    return make


def make_abs(draw, data, shape, depth):
    a = affine(draw, data, shape)
    return _node("abs", f"abs({a.text})", lambda vs: cp.abs(a.cvx(vs)), shape, a)


def make_pos(draw, data, shape, depth):
    c = convex(draw, data, shape, depth - 1)
    return _node("pos", f"relu({c.text})", lambda vs: cp.pos(c.cvx(vs)), shape, c)


def make_maximum(draw, data, shape, depth):
    terms = [convex(draw, data, shape, depth - 1) for _ in range(draw.integer(2, 3))]
    return _node("maximum", _fold_max([par(t.text) for t in terms]),
                 lambda vs: cp.maximum(*[t.cvx(vs) for t in terms]), shape, *terms)


def make_max(draw, data, shape, depth):
    v = convex(draw, data, VECTOR, min(depth - 1, 1))       # its text is written three times
    return _node("max", _fold_max(_entries(data, v.text)), lambda vs: cp.max(v.cvx(vs)), SCALAR, v)


def make_norm(draw, data, shape, depth):
    a = affine(draw, data, VECTOR)
    kind = draw.choice(("norm1", "norm2", "norm_inf"))
    if kind == "norm1":
        return _node("norm1", f"sum(abs({a.text}))", lambda vs: cp.norm1(a.cvx(vs)), SCALAR, a)
    if kind == "norm2":
        return _node("norm2", f"sqrt(sum(({a.text}) ^ 2))", lambda vs: cp.norm(a.cvx(vs), 2), SCALAR, a)
    return _node("norm_inf", _fold_max(_entries(data, f"abs({a.text})")), lambda vs: cp.norm_inf(a.cvx(vs)), SCALAR, a)


def make_hinge(draw, data, shape, depth):
    """sum(pos(1 - y o (A v + b))), labels y = +-1."""
    rng = _seed(draw)
    a = affine(draw, data, VECTOR)
    y_name, y = data.add(rng.permutation([1.0, -1.0, float(rng.choice([-1.0, 1.0]))]))
    return _node("hinge", f"sum(relu(1 - {y_name} {pointwise(VECTOR)} {par(a.text)}))",
                 lambda vs: cp.sum(cp.pos(1 - cp.multiply(y, a.cvx(vs)))), SCALAR, a)


def make_lasso(draw, data, shape, depth):
    """sum_squares(A v - b) + lam norm1(x), x a vector variable."""
    rng = _seed(draw)
    a = affine(draw, data, VECTOR)
    x = _variable(draw, VECTOR, draw.choice((None, POS)))
    lam_name, lam = data.add(positive(rng, ()))
    return _node("lasso", f"sum(({a.text}) ^ 2) + {lam_name} * sum(abs({x.text}))",
                 lambda vs: cp.sum_squares(a.cvx(vs)) + lam * cp.norm1(x.cvx(vs)), SCALAR, a, x)


def make_huber(draw, data, shape, depth):
    m = draw.choice((0.5, 1, 2))
    a = affine(draw, data, shape)
    text = f"huber({a.text})" if m == 1 else f"{m * m:g} * huber(({a.text}) / {m:g})"
    return _node("huber", text, lambda vs: cp.huber(a.cvx(vs), m), shape, a)


def make_square(draw, data, shape, depth):
    a = affine(draw, data, shape)
    return _node("square_affine", f"({a.text}) ^ 2", lambda vs: cp.square(a.cvx(vs)), shape, a)


# ----------------------------------------------------------------------------- concave rows

def make_neg(draw, data, shape, depth):
    c = convex(draw, data, shape, depth - 1)
    return _node("neg", f"-({c.text})", lambda vs: -c.cvx(vs), shape, c)


def _concave_of_positive(name, text, cvx, positive_result):
    """f(g), f concave and increasing on g > 0, g concave and positive."""
    def make(draw, data, shape, depth):
        g = concave(draw, data, shape, depth - 1, positive_only=True)
        return _node(name, text(g.text), lambda vs: cvx(g.cvx(vs)), shape, g, positive=positive_result)
    return make


def make_entr(draw, data, shape, depth):
    a = affine(draw, data, shape, POS)
    op = "*" if shape == SCALAR else pointwise(shape)
    return _node("entr_affine", f"-({par(a.text)} {op} log({a.text}))", lambda vs: cp.entr(a.cvx(vs)), shape, a)


def make_minimum(draw, data, shape, depth, positive_only=False):
    terms = [concave(draw, data, shape, depth - 1, positive_only) for _ in range(2)]
    text = f"(-{_fold_max([f'(-{par(t.text)})' for t in terms])})"
    return _node("minimum", text, lambda vs: cp.minimum(*[t.cvx(vs) for t in terms]), shape, *terms,
                 positive=positive_only)


def make_positive_concave(draw, data, shape, depth):
    """A positive concave term: minimum or a combination of positive concave terms."""
    if draw.boolean():
        return make_minimum(draw, data, shape, depth, positive_only=True)
    rng = _seed(draw)
    terms = [concave(draw, data, shape, depth - 1, positive_only=True) for _ in range(draw.integer(1, 2))]
    scales = [data.add(positive(rng, ())) for _ in terms]
    return _node("comb_concave", " + ".join(f"{n} * {par(t.text)}" for (n, _), t in zip(scales, terms)),
                 lambda vs: sum((c * t.cvx(vs) for (_, c), t in zip(scales, terms)), start=0), shape, *terms,
                 positive=True)


ROWS = [
    Row("exp_sum", "convex", SHAPES, make_exp_sum, weight=3),
    Row("lse_stack", "convex", (SCALAR,), make_lse_stack, weight=3),
    Row("pow_exp", "convex", SHAPES, make_pow_exp),
    Row("inv_concave", "convex", SHAPES, make_inv_concave),
    Row("comb_convex", "convex", SHAPES, _combination("convex")),
    Row("sum_convex", "convex", (SCALAR,), _reduce("convex")),
    Row("abs", "convex", SHAPES, make_abs, weight=1),
    Row("pos", "convex", SHAPES, make_pos),
    Row("maximum", "convex", SHAPES, make_maximum),
    Row("max", "convex", (SCALAR,), make_max, weight=1),
    Row("norm", "convex", (SCALAR,), make_norm, weight=4),
    Row("hinge", "convex", (SCALAR,), make_hinge),
    Row("lasso", "convex", (SCALAR,), make_lasso),
    Row("square_affine", "convex", SHAPES, make_square, weight=1),
    *([Row("huber", "convex", SHAPES, make_huber, weight=1)] if HAS_HUBER else []),
    Row("neg", "concave", SHAPES, make_neg, weight=4),
    Row("sqrt_concave", "concave", SHAPES,
        _concave_of_positive("sqrt_concave", lambda g: f"sqrt({g})", cp.sqrt, True), positive=True),
    Row("log_concave", "concave", SHAPES, _concave_of_positive("log_concave", lambda g: f"log({g})", cp.log, False)),
    Row("log1p", "concave", SHAPES,
        _concave_of_positive("log1p", lambda g: f"log(1 + {par(g)})", lambda e: cp.log(1 + e), True), positive=True),
    Row("entr_affine", "concave", SHAPES, make_entr),
    Row("minimum", "concave", SHAPES, make_minimum, weight=1),
    Row("comb_concave", "concave", SHAPES, _combination("concave"), weight=1),
    Row("pow_frac", "concave", SHAPES, _concave_of_positive("pow_frac", lambda g: f"{par(g)} ^ 0.5",
                                                              lambda e: cp.power(e, 0.5), True), positive=True),
    Row("positive_concave", "concave", SHAPES, make_positive_concave, positive=True),
    Row("sum_concave", "concave", (SCALAR,), _reduce("concave"), weight=1),
]
NESTED: dict[str, Row] = {r.name: r for r in ROWS}
# atom names a nested case may use (Node.atom), for per-atom tables: the rows' own and the affine maps'
NAMES = sorted({"norm1", "norm2", "norm_inf", *NESTED} - {"norm", "positive_concave"})


# ----------------------------------------------------------------------------- cases

def build_case(draw: Draws, depth=None) -> Case:
    """A DCP-valid scalar expression of nesting depth 1 to 3, convex or concave (drawn)."""
    depth = draw.integer(1, 3) if depth is None else depth
    curvature = draw.choice(("convex", "concave"))
    data = Data()
    node = (convex if curvature == "convex" else concave)(draw, data, SCALAR, depth)
    return Case(node, data.params, curvature)


@st.composite
def cases(draw, depth=None):
    """The hypothesis strategy of nested `Case`s."""
    return build_case(Draws(draw), depth)


def random_cases(n: int, seed: int = 0, depth=None) -> list[Case]:
    rng = random.Random(seed)
    return [build_case(Draws(rng=rng), depth) for _ in range(n)]

