"""The CVXPY bridge writes a large banded constant matrix times a variable as shifted
slices (`bridge.banded`): the translation evaluates to CVXPY's value, carries no matrix
of data, keeps the general rule where the band does not fit, and solves as CVXPY does."""
import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import convexcheck
import solvers
import tensorcalc as tc
from convexcheck.bridge import banded
from convexcheck.problem.reader import ProblemError


@pytest.fixture(autouse=True)
def small_bands(monkeypatch):
    monkeypatch.setattr(banded, "MIN_ENTRIES", 0)          # the rule at test sizes


def _second_difference(n: int) -> sp.csr_matrix:
    return sp.diags([np.ones(n - 2), -2 * np.ones(n - 2), np.ones(n - 2)], [0, 1, 2], shape=(n - 2, n)).tocsr()


def _agrees(expr, x, rng, shape) -> tuple:
    problem, data = convexcheck.from_cvxpy(expr)
    for _ in range(3):
        x.value = rng.standard_normal(shape)
        ours = tc.evaluate(problem.objective.expr, {**data, x.name(): x.value})
        assert np.isclose(float(ours), expr.value, rtol=1e-10, atol=1e-10), problem.text
    return problem, data


@pytest.mark.parametrize("dense", [False, True])
def test_a_difference_matrix_becomes_slices_with_number_coefficients(dense):
    rng = np.random.default_rng(0)
    n = 30
    D = _second_difference(n)
    x = cp.Variable(n, name="x")
    problem, data = _agrees(cp.norm1((D.toarray() if dense else D) @ x), x, rng, n)
    assert "x[0:28] + ((-2) * x[1:29]) + x[2:30]" in problem.text
    assert not data                                        # no matrix of data, no vector


def test_varying_diagonals_become_vectors_of_data_and_a_matrix_variable_its_rows():
    rng = np.random.default_rng(1)
    m, n = 12, 15
    D = sp.diags([rng.standard_normal(m), rng.standard_normal(m)], [1, 3], shape=(m, n))
    x, X = cp.Variable(n, name="x"), cp.Variable((n, 2), name="X")
    _, data = _agrees(cp.sum_squares(D @ x), x, rng, n)
    assert sorted(v.shape for v in data.values()) == [(m,), (m,)]
    problem, _ = _agrees(cp.sum(cp.abs(D @ X)), X, rng, (n, 2))
    assert "X[1:13, 0:2]" in problem.text and "X[3:15, 0:2]" in problem.text


@pytest.mark.parametrize("build", [
    lambda n: sp.diags([np.ones(n - 1), -np.ones(n)], [-1, 0], shape=(n, n)),    # below the diagonal
    lambda n: sp.random(n - 1, n, density=0.5, random_state=2),                 # no band
    lambda n: sp.diags([np.ones(n - 9)] * 10, list(range(10)), shape=(n - 9, n)),  # 10 diagonals
])
def test_matrices_without_a_fitting_band_keep_the_general_rule(build):
    rng = np.random.default_rng(3)
    n = 20
    D = build(n)
    x = cp.Variable(n, name="x")
    problem, data = _agrees(cp.sum_squares(D @ x - 1), x, rng, n)
    assert any(v.shape == D.shape for v in data.values()), problem.text


def test_nan_in_a_sparse_matrix_is_named():
    D = _second_difference(10).astype(float)
    D.data[4] = np.nan
    x = cp.Variable(10, name="x")
    with pytest.raises(ProblemError, match="NaN"):
        convexcheck.from_cvxpy(cp.norm1(D @ x))


def test_trend_filtering_in_slices_solves_to_cvxpys_optimum():
    rng = np.random.default_rng(4)
    n = 120
    y = np.cumsum(rng.standard_normal(n))
    x = cp.Variable(n, name="x")
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(y - x) + 5 * cp.norm1(_second_difference(n) @ x)))
    result = solvers.minimize(problem, method="auto")
    reference = problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert result.success
    assert result.fun == pytest.approx(reference, rel=1e-7)
