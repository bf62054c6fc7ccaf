"""`problem.solve(method="convexcheck")` (`solvers.cvxpy_method`): CVXPY's optimum and duals
on problems CVXPY solves, problems DCP refuses solved, statuses for infeasible and
unbounded ones, and a refusal that writes nothing where convexity is not proven."""
import cvxpy as cp
import numpy as np
import pytest

import solvers
from benchmarks.real_cases import CASES

solvers.register_cvxpy()
TIGHT = dict(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
WITH_DUALS = ["qp_example", "lp_diet", "entropy_max", "kl_projection", "qp_portfolio", "log_utility_portfolio",
              "qp_simplex_projection", "least_norm", "inv_pos_allocation", "sqrt_utility"]


def _duals(problem: cp.Problem) -> list:
    return [None if c.dual_value is None else np.array(c.dual_value, dtype=float) for c in problem.constraints]


@pytest.mark.parametrize("name", WITH_DUALS)
def test_the_method_gives_cvxpys_optimum_and_duals(name):
    problem = CASES[name].build()
    reference, duals = problem.solve(**TIGHT), _duals(problem)
    values = [v.value.copy() for v in problem.variables()]
    ours = problem.solve(method="convexcheck")
    assert problem.status == cp.OPTIMAL
    assert ours == pytest.approx(reference, rel=1e-6, abs=1e-8)
    for v, expected in zip(problem.variables(), values):
        assert v.value.shape == expected.shape
    for c, expected in zip(problem.constraints, duals):
        if expected is not None:
            np.testing.assert_allclose(np.array(c.dual_value, dtype=float), expected, rtol=1e-5, atol=1e-5)


def test_a_problem_dcp_refuses_is_solved():
    x, y = cp.Variable(name="x"), cp.Variable(name="y", pos=True)
    problem = cp.Problem(cp.Minimize(x * x + (x - 3) ** 2 / y + y), [x >= 0.5])
    assert not problem.is_dcp()
    value = problem.solve(method="convexcheck")
    assert problem.status == cp.OPTIMAL and value == pytest.approx(problem.objective.value, rel=1e-12)
    reference = cp.Problem(cp.Minimize(cp.square(x) + cp.quad_over_lin(x - 3, y) + y), [x >= 0.5]).solve(**TIGHT)
    assert value == pytest.approx(reference, rel=1e-6)


def test_infeasible_and_unbounded_problems_get_cvxpys_statuses():
    x = cp.Variable(3, name="x")
    infeasible = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1, cp.sum(x) <= 2])
    assert infeasible.solve(method="convexcheck") == np.inf and infeasible.status == cp.INFEASIBLE
    assert x.value is None
    unbounded = cp.Problem(cp.Maximize(cp.sum(x)), [x >= 1])
    assert unbounded.solve(method="convexcheck") == np.inf and unbounded.status == cp.UNBOUNDED


def test_a_problem_not_proven_convex_is_refused_and_nothing_is_written():
    x, y = cp.Variable(name="x"), cp.Variable(name="y")
    problem = cp.Problem(cp.Minimize(x * y), [x >= -1, x <= 1, y >= -1, y <= 1])
    with pytest.raises(cp.error.DCPError, match="does not prove this problem convex"):
        problem.solve(method="convexcheck")
    assert problem.status is None and x.value is None and y.value is None
