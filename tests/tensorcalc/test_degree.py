"""tensorcalc.algebra.degree: the polynomial degree read from an expression's structure.

`degree(f, names) <= 2` is what lets the solver treat a problem as a quadratic program
(its Hessian read once), so a claim of degree <= 2 must never be made for a function
that is not a quadratic polynomial: checked on random expressions by the third finite
difference along random lines (zero exactly for a quadratic, up to rounding).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import examples
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from strategies import VARIABLES, index_strings, number, variable

import tensorcalc as tc
from tensorcalc.algebra.degree import degree

DECLARED = {"x": 1, "y": 1, "S": 2, "c": 0, "M": 2}


@pytest.mark.parametrize("text, names, expected", [
    ("x *(i,ij->j) S *(j,j->) x", ("x",), 2),
    ("x *(i,ij->j) S *(j,j->) x", ("x", "S"), 3),
    ("sum((S *(ij,j->i) x - y)^2)", ("x",), 2),
    ("sum(x^3)", ("x",), 3),
    ("sum(x^0)", ("x",), 0),
    ("exp(c) * sum(x)", ("x",), 1),
    ("det(M) * sum(x)", ("x",), 1),
    ("det(M) * sum(x)", ("x", "M"), math.inf),
    ("sum(abs(x))", ("x",), math.inf),
    ("sum(abs(x)^2)", ("x",), math.inf),
    ("sum(sign(x) *(i,i->i) x)", ("x",), math.inf),
    ("sum(relu(x))", ("x",), math.inf),
    ("sum((x^2)^0.5)", ("x",), math.inf),
    ("sum(x^c)", ("x",), math.inf),
    ("sum(x^1.5)", ("x",), math.inf),
    ("-(sum(x) * sum(y))", ("x", "y"), 2),
    ("sum(x) / 2", ("x",), 1),
    ("2 / sum(x)", ("x",), math.inf),
    ("sum(inv(M) *(ij,j->i) x)", ("x",), 1),
    ("c^2 + 3", ("x",), 0),
])
def test_degree_of_examples(text, names, expected):
    assert degree(tc.parse_expr(text, DECLARED), names) == expected


POLY = VARIABLES


@st.composite
def polynomial_like(draw, order, depth):
    """Mostly polynomial expressions (sums, products, integer powers), with now and
    then a function that is not one (abs, relu, sign, exp, a fractional power)."""
    if depth <= 0:
        return draw(st.one_of(variable(order), number()))
    kind = draw(st.sampled_from(["add", "neg", "product", "product", "power", "leaf", "other"]))
    sub = lambda: draw(polynomial_like(order, depth - 1))  # noqa: E731
    if kind == "add":
        return f"({sub()} + {sub()})"
    if kind == "neg":
        return f"-({sub()})"
    if kind == "product":
        s1, s2, s3 = draw(index_strings(order))
        left, right = draw(polynomial_like(len(s1), depth - 1)), draw(polynomial_like(len(s2), depth - 1))
        return f"({left} *({s1},{s2}->{s3}) {right})"
    if kind == "power":
        return f"({sub()} ^ {draw(st.sampled_from(['0', '1', '2', '3', '0.5']))})"
    if kind == "other":
        return f"{draw(st.sampled_from(['abs', 'relu', 'sign', 'exp', 'tanh']))}({sub()})"
    return draw(st.one_of(variable(order), number()))


def _values(rng, expr):
    return {name: rng.uniform(-1.0, 1.0, (3,) * POLY[name]) for name in tc.variables(expr)}


@settings(max_examples=examples(150), deadline=None)
@given(polynomial_like(0, 4), st.integers(0, 2 ** 32 - 1))
def test_a_claimed_quadratic_has_zero_third_differences(text, seed):
    try:
        expr = tc.parse_expr(text, POLY)
    except tc.ParseError:          # a constant that is not finite, such as (-0.5) ^ 0.5: refused
        assume(False)
    names = tuple(tc.variables(expr))
    d = degree(expr, names)
    note(f"{text}: degree {d}")
    assume(names and d <= 2)
    rng = np.random.default_rng(seed)
    x, v = _values(rng, expr), _values(rng, expr)
    try:
        f = [float(tc.evaluate(expr, {n: x[n] + k * v[n] for n in names})) for k in range(4)]
    except tc.ShapeError:          # an axis no variable fixes (`s *(,pp->) 2`): not evaluable
        assume(False)
    assume(all(math.isfinite(a) for a in f))
    third = f[3] - 3 * f[2] + 3 * f[1] - f[0]
    assert abs(third) <= 1e-9 * (1 + sum(abs(a) for a in f))
    if d <= 1:
        assert abs(f[2] - 2 * f[1] + f[0]) <= 1e-9 * (1 + sum(abs(a) for a in f))
