"""Reverse-mode differentiation: conventions, second derivatives, special cases, growth."""
import numpy as np
import pytest
from growth import chain, shared
from workcount import python_calls

import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.derivatives.check import check_derivative, finite_difference

RNG = np.random.default_rng(7)


def test_hessian_of_quadratic_form_is_a_plus_a_transpose():
    inp = tc.parse("declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x derivative wrt x")
    hessian = tc.derivative(tc.derivative(inp.expr, "x", simplify=False), "x", simplify=False)
    assert hessian is tc.derivative(inp.expr, "x", order=2, simplify=False)
    for n in (2, 3, 5):
        a, x = RNG.normal(size=(n, n)), RNG.normal(size=n)
        np.testing.assert_allclose(tc.evaluate(hessian, {"x": x, "A": a}), a + a.T, rtol=1e-13, atol=1e-13)


def test_derivative_order_and_axis_convention():
    # d(A x)/dA for A 3x4, x 4: order 1 + 2, the expression's axis first (as jax.jacobian)
    e = tc.parse_expr("A *(ij,j->i) x", {"A": 2, "x": 1})
    d = tc.derivative(e, "A")
    assert d.order == 3
    assert d.axes == e.axes + dag.variables(e)["A"].axes
    a, x = RNG.normal(size=(3, 4)), RNG.normal(size=4)
    value = tc.evaluate(d, {"A": a, "x": x})
    expected = np.einsum("ik,l->ikl", np.eye(3), x)       # d(Ax)_i / dA_kl = delta_ik x_l
    np.testing.assert_allclose(value, expected)
    np.testing.assert_allclose(finite_difference(e, "A", {"A": a, "x": x}), expected, atol=1e-8)


def test_derivative_with_respect_to_an_unused_declared_variable_is_zero():
    inp = tc.parse("declare x 1 y 2 expression sin(x) derivative wrt y")
    d = inp.derivative()
    assert d.order == 3
    value = tc.evaluate(d, {"x": np.ones(2), "y": np.ones((3, 4))})
    assert value.shape == (2, 3, 4) and not value.any()


def test_order_zero_is_the_expression_itself():
    e = tc.parse_expr("sin(x)", {"x": 1})
    assert tc.derivative(e, "x", order=0) is e


@pytest.mark.parametrize("bad", [-1, 1.5, "2"])
def test_bad_order_is_rejected(bad):
    with pytest.raises(tc.TensorCalcError, match="order must be a whole number"):
        tc.derivative(tc.parse_expr("x", {"x": 1}), "x", order=bad)


def test_unknown_variable_is_rejected_with_the_known_ones():
    with pytest.raises(tc.TensorCalcError, match=r"no variable of that name \(its variables: x\)"):
        tc.derivative(tc.parse_expr("sin(x)", {"x": 1}), "y")


@pytest.mark.parametrize("text, orders, wrt", [
    ("A *(ii,->i) 1", {"A": 2}, "A"),                        # diagonal: a repeated index
    ("A *(ii,->) 1", {"A": 2}, "A"),                         # trace
    ("T *(iij,->j) 1", {"T": 3}, "T"),                      # partial trace of an order-3 tensor
    ("A *(ii,i->i) v", {"A": 2, "v": 1}, "A"),
    ("A *(ij,ij->) (B *(ij,jk->ik) A)", {"A": 2, "B": 2}, "A"),
    ("x ^ x", {"x": 0}, "x"),
    ("v ^ s", {"v": 1, "s": 0}, "s"),
    ("log(det(X)) + 1 *(ij,ij->) inv(X) + 1 *(ij,ij->) adj(X)", {"X": 2}, "X"),
    ("x *(i,j->ij) x", {"x": 1}, "x"),                       # outer product
    ("A *(ij,->ji) 1", {"A": 2}, "A"),                       # transpose
])
def test_special_cases_match_finite_differences(text, orders, wrt):
    e = tc.parse_expr(text, orders)
    for order in (1, 2):
        result = check_derivative(e, wrt, order=order)
        assert result.error <= 1e-6, (text, order, result)


def test_several_parents_contributions_are_summed():
    inp = tc.parse("declare v 1 expression sin(v) + cos(sin(v)) derivative wrt v")
    d = inp.derivative(simplify=False)
    assert str(d) == "(delta(1) + (delta(1) *(ij,j->ij) -(sin(sin(v))))) *(ij,j->ij) cos(v)"


def _edges(e: tc.Expr) -> int:
    return sum(len(n.args) for n in dag.topo(e))


@pytest.mark.parametrize("build, sizes", [(chain, (500, 1000, 2000)), (shared, (500, 1000, 2000))])
def test_differentiation_grows_linearly(build, sizes):
    """Nodes added and work done (Python calls, counted) grow linearly with the size."""
    counts, work = [], []
    for size in sizes:
        e = build(size)
        d, calls = python_calls(tc.derivative, e, "x", simplify=False)   # the thesis' claim is about reverse mode
        v_plus_e = tc.count_nodes(e) + _edges(e)
        added = tc.count_nodes(d, e) - tc.count_nodes(e)
        assert added <= 4 * v_plus_e, (size, added, v_plus_e)
        counts.append(tc.count_nodes(d))
        work.append(calls)
    slopes = [(counts[k + 1] - counts[k]) / (sizes[k + 1] - sizes[k]) for k in range(2)]
    assert 0.9 <= slopes[1] / slopes[0] <= 1.1, (counts, slopes)     # linear: constant slope
    assert all(work[k + 1] <= 2.2 * work[k] for k in range(2)), work  # twice the size, twice the work


def test_shared_dag_derivative_evaluates_correctly():
    e = shared(600)
    result = check_derivative(e, "x", sizes=(3,))
    assert result.error <= 1e-6


@pytest.mark.parametrize("text, orders, wrt", [
    ("x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2}, "x"),
    ("1 *(i,i->) log(1 + exp(-(y *(i,i->i) (X *(ij,j->i) w))))", {"X": 2, "y": 1, "w": 1}, "w"),
    ("log(det(X))", {"X": 2}, "X"),
    ("1 *(ij,ij->) (M *(ij,ij->ij) ((T - U *(ik,jk->ij) V) ^ 2))", {"M": 2, "T": 2, "U": 2, "V": 2}, "U"),
    ("sin(x) *(i,i->) exp(x)", {"x": 1}, "x"),
])
def test_third_derivatives_match_finite_differences(text, orders, wrt):
    e = tc.parse_expr(text, orders)
    d3 = tc.derivative(e, wrt, order=3)
    assert d3.order == 3 * tc.variables(e)[wrt].order
    result = check_derivative(e, wrt, order=3)
    assert result.error <= 1e-6, (text, result)
