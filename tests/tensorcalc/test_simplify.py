"""Simplification: structure of the results (issue 3, item 1) and preserved values."""
import numpy as np
import pytest
from conftest import examples
from hypothesis import given, note, settings
from hypothesis import strategies as st
from strategies import VARIABLES, expressions
from test_thesis_examples import VALID

import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.algebra import simplify as simplify_module
from tensorcalc.dag import Delta, Product

RNG = np.random.default_rng(11)
EXAMPLES = pytest.importorskip("pathlib").Path(__file__).parents[2] / "examples" / "thesis"


def nodes(e):
    return dag.topo(e)


def has_delta(e):
    return any(isinstance(n, Delta) for n in nodes(e))


def reads(e, name):
    return name in tc.variables(e)


def contractions(e):
    return [n for n in nodes(e) if isinstance(n, Product)]


def test_quadratic_form_gradient_is_two_matrix_vector_products():
    e = tc.parse_expr("x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2})
    g = tc.derivative(e, "x")
    assert not has_delta(g)
    products = contractions(g)
    assert len(products) == 2 and all(len(p.args) == 2 for p in products)
    assert {tuple(type(a).__name__ for a in p.args) for p in products} == {("Var", "Var")}
    assert str(g) == "(x *(i,ij->j) A) + (x *(i,ji->j) A)"


def test_quadratic_form_hessian_is_a_plus_a_transpose_and_does_not_read_x():
    e = tc.parse_expr("x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2})
    h = tc.hessian(e, "x")
    assert str(h) == "A + (A *(ij,->ji) 1)"
    assert not has_delta(h) and not reads(h, "x")


def test_logistic_regression_hessian_is_one_weighted_gram_contraction():
    inp = tc.parse((EXAMPLES / "logistic_regression.tc").read_text())
    h = tc.hessian(inp.expr, "w")
    assert not has_delta(h)
    body = h.args[0] if isinstance(h, dag.Elementwise) and h.fn == "neg" else h
    assert isinstance(body, Product) and len(body.args) == 3
    x = tc.variables(inp.expr)["X"]
    assert body.args[0] is x and body.args[2] is x           # X^T diag(d) X ...
    assert body.spec.inputs == ("ij", "i", "ik") and body.spec.out == "jk"
    d = body.args[1]                                          # ... with d one shared node
    assert d.order == 1 and reads(d, "w") and reads(d, "y")
    values = {"X": RNG.normal(size=(7, 3)), "y": RNG.choice([-1.0, 1.0], 7), "w": RNG.normal(size=3)}
    z = values["y"] * (values["X"] @ values["w"])
    s = 1 / (1 + np.exp(-z))
    expected = values["X"].T @ np.diag(s * (1 - s)) @ values["X"]
    np.testing.assert_allclose(tc.evaluate(h, values), expected, rtol=1e-12)


def test_matrix_factorisation_hessian_is_delta_times_row_blocks():
    inp = tc.parse((EXAMPLES / "matrix_factorisation.tc").read_text())
    h = tc.hessian(inp.expr, "U")
    assert isinstance(h, Product) and len(h.args) == 2
    blocks, delta = h.args
    assert isinstance(delta, Delta) and delta.n == 1                 # delta on the row index
    assert blocks.order == 3                                         # (row, k, k): never (mk x mk)
    assert isinstance(blocks, Product)
    assert sorted(type(a).__name__ for a in blocks.args) == ["Const", "Var", "Var", "Var"]
    assert 2.0 in [a.value for a in blocks.args if isinstance(a, dag.Const)]
    m, t, u, v = (RNG.uniform(size=(4, 5)), RNG.normal(size=(4, 5)), RNG.normal(size=(4, 2)), RNG.normal(size=(5, 2)))
    values = {"M": m, "T": t, "U": u, "V": v}
    b = tc.evaluate(blocks, values)
    for i in range(4):                                               # 2 V^T diag(M[i,:]) V
        np.testing.assert_allclose(b[i], 2 * v.T @ np.diag(m[i]) @ v, rtol=1e-12)
    raw = tc.derivative(inp.expr, "U", order=2, simplify=False)
    np.testing.assert_allclose(tc.evaluate(h, values), tc.evaluate(raw, values), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("text, expected", [
    ("x - x", "(0 *(i,->i) 1)"),
    ("-(-(x))", "x"),
    ("2 *(,i->i) (3 *(,i->i) x)", "6 *(,i->i) x"),
    ("0 *(,i->i) x + y", "y"),
    ("sin(0) + x", "x"),
    ("x + x", "2 *(,i->i) x"),
    ("x - 2 *(,i->i) x", "-(x)"),
    ("(x ^ 1) + (x ^ 0)", "x + 1"),
    ("1 / (1 / x)", "x"),
    ("x *(i,i->i) y + y *(i,i->i) x", "2 *(,i->i) (y *(i,i->i) x)"),
    ("delta(1) *(ij,j->i) x", "x"),
    ("A *(ij,jk->ik) delta(1)", "A"),
    ("(A *(ij,->ji) 1) *(ij,->ji) 1", "A"),
])
def test_small_laws(text, expected):
    e = tc.parse_expr(text, {"x": 1, "y": 1, "A": 2})
    assert str(tc.simplify(e)) == expected


def test_sums_over_an_axis_keep_their_length():
    e = tc.parse_expr("delta(1) *(ij,ij->) 1", {})          # trace of the identity: n
    s = tc.simplify(e)
    for n in (2, 5):
        assert tc.evaluate(s, {}, lengths={e.args[0].axes[0]: n}) == n


@pytest.mark.parametrize("line", VALID)
def test_simplified_derivatives_equal_raw_ones(line):
    inp = tc.parse(line)
    x = inp.declared[inp.wrt]
    raw, simple = (tc.derivative(inp.expr, x, 1, simplify=f) for f in (False, True))
    assert sum(isinstance(n, Delta) for n in nodes(simple)) <= sum(isinstance(n, Delta) for n in nodes(raw))
    assert tc.simplify(simple) is simple                          # a fixed point
    from tensorcalc.derivatives.check import axis_lengths, sample_values
    lengths = axis_lengths([inp.expr, raw, *inp.declared.values()])
    values = sample_values(inp.declared, lengths, RNG, 0.2, 0.8)
    np.testing.assert_allclose(tc.evaluate(simple, values, lengths), tc.evaluate(raw, values, lengths),
                               rtol=1e-10, atol=1e-12)


def test_rule_table_covers_every_node_type():
    assert set(simplify_module.RULES) == set(dag.NODE_TYPES)


@settings(max_examples=examples(60))
@given(st.integers(0, 3).flatmap(lambda k: expressions(k, 4)))
def test_simplify_preserves_values(text):
    e = tc.parse_expr(text, VARIABLES)
    s = tc.simplify(e)
    note(f"{e}\n-> {s}")
    assert s.axes == e.axes
    from tensorcalc.derivatives.check import axis_lengths, sample_values
    variables = tc.variables(e)
    lengths = axis_lengths([e, *variables.values()], sizes=(2, 3))
    values = sample_values(variables, lengths, np.random.default_rng(0))
    with np.errstate(all="ignore"):
        a, b = tc.evaluate(e, values, lengths), tc.evaluate(s, values, lengths)
    np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(a).max(initial=0)))


def test_like_terms_over_different_axes_are_not_merged():
    """c (u.u) + c (v.v): the same shape of term, but u and v have their own lengths, so
    the factors differing between the terms cannot be added (a crash before the fix)."""
    import tensorcalc as tc
    e = tc.parse("declare c 0 u 1 v 1 expression c * (u *(i,i->) u) + c * (v *(i,i->) v)").expr
    values = dict(c=np.array(2.0), u=np.arange(3.0), v=np.arange(5.0))
    assert tc.evaluate(tc.simplify(e), values) == pytest.approx(2.0 * (5.0 + 30.0))
    merged = tc.parse("declare c 0 u 1 expression c * (u *(i,i->) u) + c * (u *(i,i->i) u *(i,i->) u)").expr
    assert tc.evaluate(tc.simplify(merged), values) == pytest.approx(2.0 * (5.0 + 9.0))
