"""Atoms without a formula lowered by their epigraph in a DCP problem (`bridge.epigraphs`):
each solves to CVXPY's optimum; in an expression or a problem DCP rejects they are refused
(there the atom's position need not be monotone, and the lowering would not be exact)."""
import cvxpy as cp
import numpy as np
import pytest

import convexcheck
import solvers

solvers.register_cvxpy()
TIGHT = dict(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
RNG = np.random.default_rng(0)
A, B = RNG.standard_normal((8, 3)), RNG.standard_normal(8)
C = RNG.standard_normal((3, 3))
C = C + C.T


def _x() -> cp.Variable:
    return cp.Variable(3, name="x")


def _X() -> cp.Variable:
    return cp.Variable((3, 3), symmetric=True, name="X")


PROBLEMS = {
    "sum_largest": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum_largest(A @ x - B, 3) + 0.1 * cp.sum_squares(x))))(
        _x()),
    "cvar": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum_largest(A @ x - B, 2) / 2), [cp.sum(x) == 1]))(_x()),
    "sum_smallest": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum_smallest(A @ x - B, 3) - cp.sum_squares(x))))(
        _x()),
    "sum_largest_constraint": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum_squares(x - 1)),
                                                            [cp.sum_largest(A @ x, 2) <= 1]))(_x()),
    "cummax": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.cummax(A @ x - B)) + cp.sum_squares(x))))(_x()),
    "lambda_max": lambda: (lambda X: cp.Problem(cp.Minimize(cp.lambda_max(X - C) + cp.sum_squares(X))))(_X()),
    "lambda_min": lambda: (lambda X: cp.Problem(cp.Maximize(cp.lambda_min(X + C) - cp.sum_squares(X))))(_X()),
}


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_an_epigraph_atom_solves_to_cvxpys_optimum(name):
    problem = PROBLEMS[name]()
    reference = problem.solve(**TIGHT)
    assert problem.solve(method="convexcheck") == pytest.approx(reference, rel=1e-7, abs=1e-9)
    assert convexcheck.analyze(problem, samples=5).verdict == "convex"


def test_outside_a_dcp_problem_the_atoms_are_refused():
    x = _x()
    with pytest.raises(convexcheck.ProblemError, match="only in a problem CVXPY calls DCP"):
        convexcheck.from_cvxpy(cp.sum_largest(x, 2))
    not_dcp = cp.Problem(cp.Minimize(-cp.sum_largest(x, 2)), [x >= 0, x <= 1])
    assert not not_dcp.is_dcp()
    with pytest.raises(convexcheck.ProblemError, match="only in a problem CVXPY calls DCP"):
        convexcheck.from_cvxpy(not_dcp)
