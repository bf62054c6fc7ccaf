"""CVXPY's cone constraints and per-entry bounds in the translation (`bridge.cones`):
`X >> 0` on a variable is its declaration, on an expression a psd variable tied to it,
`cp.SOC` a 2-norm row, bounds that differ by entry constraints after CVXPY's; each solves
to CVXPY's optimum through `problem.solve(method="convexcheck")`, the PSD duals too."""
import cvxpy as cp
import numpy as np
import pytest

import convexcheck
import solvers

solvers.register_cvxpy()
TIGHT = dict(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)


def _sdp(variant: str) -> cp.Problem:
    rng = np.random.default_rng(3)
    n = 3
    C = rng.standard_normal((n, n))
    C = C @ C.T + np.eye(n)
    A = [a + a.T for a in (rng.standard_normal((n, n)) for _ in range(2))]
    X0 = rng.standard_normal((n, n))
    X0 = X0 @ X0.T + np.eye(n)
    X = cp.Variable((n, n), symmetric=variant == "symmetric", name="X")
    cone = X - 0.1 * np.eye(n) >> 0 if variant == "expression" else X >> 0
    return cp.Problem(cp.Minimize(cp.trace(C @ X)), [cone] + [cp.trace(A[i] @ X) == np.trace(A[i] @ X0)
                                                             for i in range(2)])


STALLS = pytest.mark.xfail(strict=True, reason="an LMI on an expression: its auxiliary psd variable beside a free "
                           "X leaves the QP path's K singular off the equalities, and path-following stalls at "
                           "stationarity 7e-8 (f within 1e-9 of CVXPY's); a solver limitation, not the translation's")


@pytest.mark.parametrize("variant", ["plain", "symmetric", pytest.param("expression", marks=STALLS)])
def test_psd_constraints_solve_with_cvxpys_optimum_and_duals(variant):
    problem = _sdp(variant)
    text = convexcheck.from_cvxpy(problem)[0].text
    assert ("variable X[3, 3] psd" in text) == (variant != "expression")
    reference = problem.solve(**TIGHT)
    duals = [np.array(c.dual_value, dtype=float) for c in problem.constraints]
    value = problem.solve(method="convexcheck")
    assert problem.status == cp.OPTIMAL and value == pytest.approx(reference, rel=1e-6)
    for c, expected in zip(problem.constraints, duals):
        np.testing.assert_allclose(np.array(c.dual_value, dtype=float), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_soc_constraints_solve_as_cvxpy_does(axis):
    if axis is None:
        t, x = cp.Variable(name="t"), cp.Variable(3, name="x")
        problem = cp.Problem(cp.Minimize(t + cp.sum(x)), [cp.SOC(t, x - 1), x >= -2])
    else:
        t, Y = cp.Variable(4 if axis == 0 else 3, name="t"), cp.Variable((3, 4), name="Y")
        problem = cp.Problem(cp.Minimize(cp.sum(t) - cp.sum(Y)), [cp.SOC(t, Y, axis=axis), Y <= 2])
    reference = problem.solve(**TIGHT)
    assert problem.solve(method="convexcheck") == pytest.approx(reference, rel=1e-7)


def test_bounds_that_differ_by_entry_are_constraints_of_the_problem():
    x = cp.Variable(3, name="x", bounds=[np.array([0.0, 1.0, -1.0]), np.array([2.0, 3.0, 0.5])])
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([3.0, 0.0, 0.0]))), [cp.sum(x) == 2])
    text = convexcheck.from_cvxpy(problem)[0].text
    assert text.splitlines()[-2:] == ["  x - c0 >= 0", "  x - c1 <= 0"]
    reference = problem.solve(**TIGHT)
    dual = float(problem.constraints[0].dual_value)
    assert problem.solve(method="convexcheck") == pytest.approx(reference, rel=1e-7)
    assert float(problem.constraints[0].dual_value) == pytest.approx(dual, rel=1e-5)
    with pytest.raises(convexcheck.ProblemError, match="supported in a problem"):
        convexcheck.from_cvxpy(cp.sum(x))


def test_an_lmi_on_an_expression_is_a_psd_variable_tied_to_its_symmetric_part():
    problem = _sdp("expression")
    translated, data = convexcheck.from_cvxpy(problem)
    assert "variable S1[3, 3] psd" in translated.text
    assert "*(kij,ij->k) (S1 - " in translated.text and translated.text.count("== 0") == 1
    assert convexcheck.analyze(problem, samples=5).verdict == "convex"


def test_exponential_and_power_cones_solve_as_cvxpy_does():
    x, y, z = cp.Variable(3, name="x"), cp.Variable(3, name="y"), cp.Variable(3, name="z")
    exp_cone = cp.Problem(cp.Minimize(cp.sum(z) + cp.sum_squares(x - 1) + cp.sum_squares(y - 2)),
                          [cp.constraints.ExpCone(x, y, z)])
    assert "variable y[3] pos" in convexcheck.from_cvxpy(exp_cone)[0].text
    reference = exp_cone.solve(**TIGHT)
    assert exp_cone.solve(method="convexcheck") == pytest.approx(reference, rel=1e-7)
    a, b, c = cp.Variable(2, name="a"), cp.Variable(2, name="b"), cp.Variable(2, name="c")
    pow_cone = cp.Problem(cp.Maximize(cp.sum(c) - cp.sum_squares(a) - cp.sum_squares(b)),
                          [cp.constraints.PowCone3D(a, b, c, 0.3)])
    reference = pow_cone.solve(**TIGHT)
    assert pow_cone.solve(method="convexcheck") == pytest.approx(reference, rel=1e-7)
    with pytest.raises(convexcheck.ProblemError, match="give one number alpha"):
        convexcheck.from_cvxpy(cp.Problem(cp.Maximize(cp.sum(c)), [cp.constraints.PowCone3D(a, b, c, [0.3, 0.6])]))
