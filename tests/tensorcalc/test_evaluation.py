"""Evaluation with NumPy: lengths from the arrays, checks and clear errors (issue 2, item 7)."""
import numpy as np
import pytest

import tensorcalc as tc
from tensorcalc.numeric.evaluate import adjugate

RNG = np.random.default_rng(3)


def test_einstein_products_match_numpy():
    a, b, x = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 5)), RNG.normal(size=4)
    values = {"A": a, "B": b, "x": x}
    orders = {"A": 2, "B": 2, "x": 1}
    cases = {"A *(ij,jk->ik) B": a @ b, "A *(ij,j->i) x": a @ x, "x *(i,j->ij) x": np.outer(x, x),
             "A *(ij,->ji) 1": a.T, "x *(i,i->) x": x @ x, "B *(ij,->) 1": b.sum(),
             }
    for text, expected in cases.items():
        np.testing.assert_allclose(tc.evaluate(tc.parse_expr(text, orders), values), expected, err_msg=text)


def test_diagonal_and_trace():
    m = RNG.normal(size=(4, 4))
    np.testing.assert_allclose(tc.evaluate(tc.parse_expr("M *(ii,->i) 1", {"M": 2}), {"M": m}), np.diag(m))
    np.testing.assert_allclose(tc.evaluate(tc.parse_expr("M *(ii,->) 1", {"M": 2}), {"M": m}), np.trace(m))


def test_delta_and_broadcast_constants_take_lengths_from_unified_axes():
    x = RNG.normal(size=(2, 3))
    value = tc.evaluate(tc.parse_expr("delta(2) *(ijkl,kl->ij) X + 1", {"X": 2}), {"X": x})
    np.testing.assert_allclose(value, x + 1)


def test_matrix_functions():
    a = RNG.normal(size=(4, 4))
    for fn, expected in [("det", np.linalg.det(a)), ("inv", np.linalg.inv(a)),
                         ("adj", np.linalg.det(a) * np.linalg.inv(a))]:
        np.testing.assert_allclose(tc.evaluate(tc.parse_expr(f"{fn}(A)", {"A": 2}), {"A": a}), expected)


def test_adjugate_of_a_singular_matrix_is_the_cofactor_transpose():
    a = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])           # rank 2
    cof = np.array([[np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) * (-1) ** (i + j)
                     for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(adjugate(a), cof.T, atol=1e-12)


def test_inverse_of_a_singular_matrix_is_a_domain_error():
    with pytest.raises(tc.DomainError, match="inv: the 2x2 matrix is singular"):
        tc.evaluate(tc.parse_expr("inv(A)", {"A": 2}), {"A": np.ones((2, 2))})


def test_mismatched_lengths_name_both_axes():
    e = tc.parse_expr("sin(x *(i,i->) y) + z", {"x": 1, "y": 1, "z": 0})
    with pytest.raises(tc.ShapeError, match=r"axis 0 of 'y' has length 4 but axis 0 of 'x' has length 3; "
                                            r"they must be equal: they meet in `x \*\(i,i->\) y`"):
        tc.evaluate(e, {"x": np.ones(3), "y": np.ones(4), "z": 1.0})


def test_square_functions_check_squareness():
    with pytest.raises(tc.ShapeError, match="axis 1 of 'A' has length 3 but axis 0 of 'A' has length 2; "
                                            "they must be equal: they meet in `det"):
        tc.evaluate(tc.parse_expr("det(A)", {"A": 2}), {"A": np.ones((2, 3))})


@pytest.mark.parametrize("values, pattern", [
    ({}, "no value given for variable 'x'"),
    ({"x": np.ones((2, 2))}, r"variable 'x' has order 1 but its value has shape \(2, 2\)"),
    ({"x": np.array([1.0, np.nan])}, r"value for 'x' is not finite at index \(1,\)"),
    ({"x": np.array(["a", "b"])}, "value for 'x' has dtype <U1; expected numbers"),
])
def test_bad_values_are_rejected(values, pattern):
    with pytest.raises(tc.ShapeError, match=pattern):
        tc.evaluate(tc.parse_expr("sin(x)", {"x": 1}), values)


def test_huge_intermediates_are_refused_before_allocation():
    d = tc.derivative(tc.parse_expr("x *(i,j->ij) x", {"x": 1}), "x", order=2)
    with pytest.raises(tc.ShapeError, match="over .* entries"):
        tc.evaluate(d, {"x": np.ones(200)})


def test_free_axes_need_a_length():
    e = tc.parse_expr("delta(1)", {})
    with pytest.raises(tc.ShapeError, match=r"cannot tell the length of axis \?0"):
        tc.evaluate(e, {})
    np.testing.assert_array_equal(tc.evaluate(e, {}, lengths={e.axes[0]: 3}), np.eye(3))


def test_unused_values_are_accepted_and_integers_converted():
    e = tc.parse_expr("x *(i,i->) x", {"x": 1})
    assert tc.evaluate(e, {"x": [1, 2, 3], "unused": np.ones(7)}) == 14.0


def test_derivative_reads_lengths_of_variables_it_no_longer_contains():
    d = tc.derivative(tc.parse_expr("1 *(i,i->) x", {"x": 1}), "x")
    assert "x" not in tc.variables(d)
    np.testing.assert_array_equal(tc.evaluate(d, {"x": np.zeros(4)}), np.ones(4))


def test_domain_violations_give_nan_not_errors():
    value = tc.evaluate(tc.parse_expr("log(x)", {"x": 1}), {"x": np.array([1.0, -1.0])})
    assert value[0] == 0 and np.isnan(value[1])
