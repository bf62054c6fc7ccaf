"""CVXPY's optimum with Clarabel at tight tolerances, the reference the solver tests compare
against, and the relative closeness they ask for."""
from __future__ import annotations

import cvxpy as cp


def reference(problem: cp.Problem) -> float:
    """The optimal value by Clarabel at tolerances of 1e-10 (asserting CVXPY calls it optimal)."""
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert problem.status == "optimal", problem.status
    return float(problem.value)


def close(got: float, ref: float, rtol: float = 1e-6) -> bool:
    """|got - ref| <= rtol max(1, |ref|)."""
    return abs(got - ref) <= rtol * max(1.0, abs(ref))
