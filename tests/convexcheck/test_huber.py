"""The element-wise huber function: huber(x) = x^2 for |x| <= 1, 2|x| - 1 beyond.

Oracles: a NumPy reference and CVXPY's own huber (values), central finite differences
away from the kinks |x| = 1 and closed forms (first and second derivatives, reverse and
forward mode), the evaluator (compiled code), the parser (printing), and sampled values
(the interval row convexcheck's sign analysis uses).
"""
import math

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import convexcheck
import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.codegen import program as codegen
from tensorcalc.derivatives.check import finite_difference
from tensorcalc.language import definitions
from tensorcalc.language import meaning as infer
from tensorcalc.printing.index import index_notation

RNG = np.random.default_rng(13)
KINK_GAP = 0.05      # finite differences only where every huber argument is this far from |x| = 1
EDGES = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0),
                  -np.nextafter(1.0, 2.0), 1.5, -2.0, 1e8, -1e8, 1e200, -1e200, 1e300, 1e308,
                  -1e308, 5e-324, 1e-200])      # inputs must be finite (evaluate refuses inf, nan)


def reference(x):
    """huber by its definition (x^2 overflows for |x| > 1e154, where 2|x| - 1 is chosen)."""
    a = np.abs(x)
    with np.errstate(over="ignore"):
        return np.where(a <= 1.0, x * x, 2.0 * a - 1.0)


def expr(text, **orders):
    return tc.parse_expr(text, orders)


def huber_arguments(e):
    return [n.args[0] for n in dag.topo(e) if isinstance(n, dag.Elementwise) and n.fn == "huber"]


def kink_free(e, values, tries=200, scale=2.0):
    """Random values (normal, times `scale`) resampled until every huber argument of `e` is
    KINK_GAP away from +-1; shapes as in `values`."""
    for _ in range(tries):
        drawn = {k: scale * RNG.normal(size=np.shape(v)) for k, v in values.items()}
        gaps = [np.abs(np.abs(tc.evaluate(a, drawn)) - 1.0) for a in huber_arguments(e)]
        if all(np.all(g > KINK_GAP) for g in gaps):
            return drawn
    raise AssertionError("no kink-free point found")


# ------------------------------------------------------------------------------ tables

def test_huber_is_in_every_function_table():
    assert "huber" in dag.ELEMENTWISE
    assert set(codegen.ELEMENTWISE_CODE) == set(dag.ELEMENTWISE)
    assert "huber" in infer.FUNCTIONS and "huber" in infer.RESERVED and "huber" in definitions.FUNCTIONS


def test_problem_files_accept_huber_and_reserve_the_name():
    problem = convexcheck.load_problem("variable x[n]\nminimize sum(huber(x))")
    assert [a.name for a in huber_arguments(problem.objective.expr)] == ["x"]
    with pytest.raises(convexcheck.problem.reader.ProblemError, match="'huber' is reserved"):
        convexcheck.load_problem("variable huber\nminimize huber^2")


def test_unknown_function_message_lists_huber():
    with pytest.raises(tc.ParseError, match="known functions: .*abs, .*huber,"):
        expr("hubr(x)", x=0)


# ------------------------------------------------------------------------------ values

def test_values_match_the_definition_exactly_also_at_the_kinks_and_far_out():
    e = expr("huber(x)", x=1)
    expected = reference(EDGES)
    with np.errstate(over="ignore"):                            # huber(1e308) = 2e308 - 1 is inf
        np.testing.assert_array_equal(tc.evaluate(e, {"x": EDGES}), expected)
        np.testing.assert_array_equal(tc.compile(e)(x=EDGES), expected)
    assert tc.evaluate(e, {"x": np.array([1.0, -1.0])}).tolist() == [1.0, 1.0]    # both branches agree
    assert tc.evaluate(e, {"x": np.array([1e200])})[0] == 2e200                    # x^2 would be inf


def test_scaled_huber_is_cvxpys_huber():
    cp = pytest.importorskip("cvxpy")
    x = np.concatenate([RNG.normal(scale=3.0, size=20), [0.0, 1.0, -2.0, 2.0, 0.5]])
    e = expr("M^2 * huber(1 / M * x)", x=1, M=0)      # the CVXPY bridge's lowering
    for m in (0.5, 1.0, 2.0, 3.7):
        expected = cp.huber(cp.Constant(x), m).value
        np.testing.assert_allclose(tc.evaluate(e, {"x": x, "M": np.float64(m)}), expected, rtol=1e-14, atol=1e-15)


def test_constants_fold():
    folded = tc.simplify(expr("huber(x - x + 3) + huber(0.5)", x=0))
    assert isinstance(folded, dag.Const) and folded.value == 5.25


# ------------------------------------------------------------------------------ derivatives

def test_first_and_second_derivatives_in_closed_form_everywhere():
    """huber' = 2 clip(x, -1, 1) everywhere; huber'' = 2 inside (also at 0), 0 outside, and one
    of the one-sided values 0, 2 at the kinks."""
    e = expr("huber(x)", x=0)
    d1, d2 = tc.derivative(e, "x"), tc.derivative(e, "x", 2)
    finite = EDGES
    got1 = np.array([tc.evaluate(d1, {"x": v}) for v in finite])
    got2 = np.array([tc.evaluate(d2, {"x": v}) for v in finite])
    np.testing.assert_array_equal(got1, 2.0 * np.clip(finite, -1.0, 1.0))
    inside, outside = np.abs(finite) < 1.0, np.abs(finite) > 1.0
    assert (got2[inside] == 2.0).all() and (got2[outside] == 0.0).all()
    assert set(got2[np.abs(finite) == 1.0]) <= {0.0, 2.0}


@pytest.mark.parametrize("point", [-3.0, -1.2, -0.9, -0.3, 0.0, 0.4, 0.95, 1.05, 2.5, 40.0])
def test_scalar_derivatives_match_finite_differences(point):
    e = expr("huber(x)", x=0)
    d1 = tc.derivative(e, "x")
    values = {"x": np.array(point)}
    np.testing.assert_allclose(tc.evaluate(d1, values), finite_difference(e, "x", values), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(tc.evaluate(tc.derivative(e, "x", 2), values),
                               finite_difference(d1, "x", values), rtol=1e-7, atol=1e-7)


COMPOSED = [
    ("huber(x)", {"x": 1}, "x"),
    ("sum(huber(x))", {"x": 1}, "x"),
    ("sum(huber(X *(ij,j->i) w - y))", {"X": 2, "w": 1, "y": 1}, "w"),
    ("sum(huber(X *(ij,j->i) w - y))", {"X": 2, "w": 1, "y": 1}, "X"),
    ("huber(sin(x)) *(i,i->i) exp(0.3 * huber(x))", {"x": 1}, "x"),
    ("sum(huber(2 * huber(x) - x))", {"x": 1}, "x"),
    ("huber(x *(i,ij->j) A *(j,j->) x / 4)", {"x": 1, "A": 2}, "x"),
]
SHAPES = {"x": (4,), "X": (5, 3), "w": (3,), "y": (5,), "A": (4, 4)}


def _point(text, orders):
    e = expr(text, **orders)
    start = {name: np.zeros(SHAPES[name]) for name in orders}
    return e, kink_free(e, start)


@pytest.mark.parametrize("text, orders, wrt", COMPOSED)
def test_composed_derivatives_match_finite_differences(text, orders, wrt):
    e, values = _point(text, orders)
    for order in (1, 2):
        lower = tc.derivative(e, wrt, order - 1)
        symbolic = tc.evaluate(tc.derivative(e, wrt, order), values)
        numeric = finite_difference(lower, wrt, values)
        scale = max(1.0, np.max(np.abs(numeric)))
        np.testing.assert_allclose(symbolic, numeric, rtol=0, atol=1e-6 * scale, err_msg=f"order {order}")


def test_regression_hessian_is_the_gram_form_with_huber_weights():
    e = expr("sum(huber(X *(ij,j->i) w - y))", X=2, w=1, y=1)
    values = {"X": RNG.normal(size=(7, 3)), "w": RNG.normal(size=3), "y": RNG.normal(size=7)}
    r = values["X"] @ values["w"] - values["y"]
    np.testing.assert_allclose(tc.evaluate(tc.derivative(e, "w"), values),
                               values["X"].T @ (2.0 * np.clip(r, -1.0, 1.0)), rtol=1e-13, atol=1e-13)
    weights = 2.0 * (np.abs(r) < 1.0) + 0.0 * (np.abs(r) == 1.0)
    np.testing.assert_allclose(tc.evaluate(tc.hessian(e, "w"), values),
                               values["X"].T @ (weights[:, None] * values["X"]), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("text, orders, wrt", COMPOSED[:3] + COMPOSED[4:])
def test_forward_mode_agrees_with_reverse_mode(text, orders, wrt):
    e, values = _point(text, orders)
    x = dag.variables(e)[wrt]
    values["v"] = RNG.normal(size=SHAPES[wrt])
    s = dag.LETTERS[:e.order]
    t = dag.LETTERS[e.order:e.order + x.order]
    jvp = tc.evaluate(tc.pushforward(e, wrt, "v"), values)
    jac = tc.evaluate(tc.derivative(e, wrt), values)
    np.testing.assert_allclose(jvp, np.einsum(f"{s}{t},{t}->{s}", jac, values["v"]), rtol=1e-12, atol=1e-12)
    if e.order == 0:
        second = tc.pushforward(tc.pushforward(e, wrt, "v"), wrt, "v")
        hess = tc.evaluate(tc.hessian(e, wrt), values)
        quad = np.einsum(f"{t}{t.upper()},{t},{t.upper()}->", hess, values["v"], values["v"])
        np.testing.assert_allclose(tc.evaluate(second, values), quad, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------ compiled, printed

@pytest.mark.parametrize("text, orders, wrt", COMPOSED)
def test_compiled_equals_evaluated_for_values_and_derivatives(text, orders, wrt):
    e, values = _point(text, orders)
    values = {k: 3.0 * v for k, v in values.items()}          # kinks or not, both must agree
    outputs = [e, tc.derivative(e, wrt), tc.derivative(e, wrt, 2)]
    for got, out in zip(tc.compile(outputs)(values), outputs):
        np.testing.assert_allclose(got, tc.evaluate(out, values), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("text, orders, wrt", COMPOSED)
def test_printing_round_trips_through_the_parser(text, orders, wrt):
    """Parsed text comes back as the same node; an unsimplified derivative's text keeps its
    structure (its deltas may carry axes the text cannot name, as in test_printing), and a
    simplified one's text evaluates to the same values."""
    e = expr(text, **orders)
    assert tc.parse_expr(tc.to_text(e), orders) is e
    for order in (1, 2):
        raw = tc.derivative(e, wrt, order, simplify=False)
        assert tc.same_structure(tc.parse_expr(tc.to_text(raw), orders), raw)
    _, values = _point(text, orders)
    values["v"] = RNG.normal(size=SHAPES[wrt])
    for out in (tc.derivative(e, wrt), tc.derivative(e, wrt, 2), tc.pushforward(e, wrt, "v")):
        again = tc.parse_expr(tc.to_text(out), {**orders, "v": orders[wrt]})
        assert again.order == out.order
        np.testing.assert_allclose(tc.evaluate(again, values), tc.evaluate(out, values), rtol=1e-13, atol=1e-13)


def test_index_notation_and_definitions():
    e = expr("huber(A *(ij,j->i) x - y)", A=2, x=1, y=1)
    assert index_notation(e, "f", {"A": (3, 4), "x": (4,), "y": (3,)}).startswith("f[f_0] = huber(")
    f = tc.parse_def("f[i] = huber(x[i] - x[i+1])", {"x": (5,), "f": (4,)})
    x = np.array([0.0, 0.5, 3.0, -1.0, 0.0])
    np.testing.assert_array_equal(tc.evaluate(f, {"x": x}), reference(x[:-1] - x[1:]))


# ------------------------------------------------------------------------------ properties

FLOATS = hnp.arrays(np.float64, st.integers(1, 12),
                    elements=st.floats(-1e150, 1e150, allow_nan=False, allow_subnormal=True))
H, D1, D2 = (tc.derivative(expr("huber(x)", x=0), "x", k) for k in range(3))
HV = expr("huber(x)", x=1)
HV_COMPILED = tc.compile(HV)


@given(FLOATS)
def test_property_values_slopes_and_curvature(x):
    note(f"x = {x!r}")
    np.testing.assert_array_equal(tc.evaluate(HV, {"x": x}), reference(x))
    np.testing.assert_array_equal(HV_COMPILED(x=x), reference(x))
    np.testing.assert_array_equal(tc.evaluate(HV, {"x": -x}), tc.evaluate(HV, {"x": x}))
    slopes = np.array([tc.evaluate(D1, {"x": v}) for v in x])
    np.testing.assert_array_equal(slopes, 2.0 * np.clip(x, -1.0, 1.0))
    curvature = np.array([tc.evaluate(D2, {"x": v}) for v in x])
    assert set(curvature) <= {0.0, 2.0}
    off = np.abs(np.abs(x) - 1.0) > 0
    np.testing.assert_array_equal(curvature[off], 2.0 * (np.abs(x[off]) < 1.0))


@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.floats(0.0, 1.0))
def test_property_convex_and_above_its_tangents(a, b, t):
    f = lambda v: float(tc.evaluate(H, {"x": np.float64(v)}))                  # noqa: E731
    m = t * a + (1 - t) * b
    slack = 1e-12 * (1.0 + f(a) + f(b))
    assert f(m) <= t * f(a) + (1 - t) * f(b) + slack
    assert f(b) >= f(a) + float(tc.evaluate(D1, {"x": np.float64(a)})) * (b - a) - slack


@given(st.floats(-50, 50), st.floats(0, 50), st.floats(0.0, 1.0))
def test_property_interval_row_holds_every_sampled_value(lo, width, t):
    from convexcheck.signs.signs import _ELEMENTWISE, Interval
    a = Interval(lo, lo + width, lo > 0 or lo + width < 0)
    iv = _ELEMENTWISE["huber"](a)
    v = float(reference(np.float64(lo + t * width)))
    assert iv.lo <= v <= iv.hi and iv.lo >= 0.0
    assert iv.nonzero == (not a.lo <= 0.0 <= a.hi)
    assert math.isfinite(iv.hi)
