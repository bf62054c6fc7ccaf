"""A CVXPY Problem's translation is kept for its next call (`from_cvxpy`): parameters are
read again, the text is not rebuilt, and nothing the user owns is changed."""
import numpy as np
import pytest

import solvers
from convexcheck import from_cvxpy

cp = pytest.importorskip("cvxpy")


def _ridge():
    rng = np.random.default_rng(5)
    A, b = rng.standard_normal((15, 4)), rng.standard_normal(15)
    x = cp.Variable(4, name="x")
    lam = cp.Parameter(nonneg=True, name="lam", value=0.5)
    return cp.Problem(cp.Minimize(cp.sum_squares(A @ x - b) + lam * cp.sum_squares(x))), x, lam, A


def test_second_translation_is_the_same_problem_with_new_parameter_values():
    problem, _, lam, _ = _ridge()
    first, data = from_cvxpy(problem)
    lam.value = 2.0
    second, again = from_cvxpy(problem)
    assert second is first                                   # not translated again
    assert data["lam"] == 0.5 and again["lam"] == 2.0
    assert set(again) == set(data)


def test_a_resolve_after_a_parameter_change_is_cvxpys_new_optimum():
    problem, x, lam, _ = _ridge()
    for value in (0.5, 3.0, 0.0):
        lam.value = value
        got = solvers.minimize(problem)
        problem.solve(solver="CLARABEL")
        assert got.success
        np.testing.assert_allclose(got.x["x"], x.value, atol=1e-7)


def test_the_users_arrays_stay_writable_and_the_kept_copies_do_not():
    problem, _, _, A = _ridge()
    _, data = from_cvxpy(problem)
    _, again = from_cvxpy(problem)
    assert A.flags.writeable
    kept = [a for n, a in again.items() if n != "lam"]
    assert kept and not any(a.flags.writeable for a in kept)
    assert all(a.flags.writeable for n, a in data.items() if n != "lam")


def test_a_parameter_that_loses_its_value_is_missing_from_the_data():
    problem, _, lam, _ = _ridge()
    from_cvxpy(problem)
    lam.value = None
    assert "lam" not in from_cvxpy(problem)[1]


def test_bounds_given_by_a_parameter_are_read_again():
    ub = cp.Parameter(name="ub", value=1.0)
    x = cp.Variable(3, name="x", bounds=[-5, ub])
    problem = cp.Problem(cp.Maximize(cp.sum(x)))
    first, _ = from_cvxpy(problem)
    ub.value = 2.0
    second, _ = from_cvxpy(problem)
    assert second is not first and "<= 2" in second.text and "<= 1" in first.text


def test_an_expression_is_translated_each_time():
    x = cp.Variable(2, name="x")
    e = cp.sum_squares(x)
    assert from_cvxpy(e)[0] is not None
