"""CVXPY variable bounds given on one side only: CVXPY stores the absent side as -inf or
inf, which is no bound (it was refused as 'infinite data')."""
import numpy as np
import pytest

import solvers
from convexcheck import from_cvxpy
from convexcheck.problem.reader import ProblemError

cp = pytest.importorskip("cvxpy")


@pytest.mark.parametrize("bounds, sense, want", [
    ([None, 1.0], cp.Maximize, 1.0), ([0.0, None], cp.Minimize, 0.0),
    ([-2.0, np.inf], cp.Minimize, -2.0), ([-np.inf, 3.0], cp.Maximize, 3.0)])
def test_one_sided_bounds(bounds, sense, want):
    x = cp.Variable(3, name="x", bounds=bounds)
    problem = cp.Problem(sense(cp.sum(x)))
    text = from_cvxpy(problem)[0].text
    assert "inf" not in text
    got = solvers.minimize(problem)
    assert got.success and np.allclose(got.x["x"], want)


def test_a_nan_bound_is_named():
    x = cp.Variable(2, name="x")
    x.attributes["bounds"] = [np.array(np.nan), np.array(1.0)]   # CVXPY itself refuses NaN at construction
    with pytest.raises(ProblemError, match="bounds of 'x' has NaN"):
        from_cvxpy(cp.Problem(cp.Minimize(cp.sum(x))))
