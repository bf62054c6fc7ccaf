"""The CVXPY suite (`tests/cvxpy_suite.py`, 122 problems): every problem translates, every
one is proven convex (so none that CVXPY calls DCP is reported nonconvex, and every DCP
part is proven), and `problem.solve(method="convexcheck")` reaches CVXPY's optimum (1e-6
relative, Clarabel at tight tolerances) on the problems the benchmark does not solve;
those of `benchmarks/real_cases.py` are solved there (`benchmarks/real_problems.py`), and
here under the slow marker."""
import warnings

import cvxpy as cp
import numpy as np
import pytest
from cvxpy_suite import EXTRA, SUITE

import convexcheck
import solvers

solvers.register_cvxpy()
TIGHT = dict(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)


def test_the_suite_has_at_least_120_problems_and_both_kinds():
    assert len(SUITE) >= 120
    assert sum(not dcp for _, dcp in SUITE.values()) >= 10


@pytest.mark.parametrize("name", sorted(SUITE))
def test_every_problem_translates_and_is_proven_convex(name):
    build, dcp = SUITE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        report = convexcheck.analyze(build(), samples=5)
    assert report.verdict == "convex", (name, dcp, report.to_text())


def _solved(name: str) -> None:
    build, dcp = SUITE[name]
    problem = build()
    value = problem.solve(method="convexcheck")
    assert problem.status == cp.OPTIMAL
    assert np.isfinite(value) and value == pytest.approx(float(problem.objective.value), rel=1e-9, abs=1e-12)
    if dcp:
        with warnings.catch_warnings():            # Clarabel may call 1e-10 inaccurate and still be the reference
            warnings.simplefilter("ignore", category=UserWarning)
            reference = build().solve(**TIGHT)
        assert value == pytest.approx(reference, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_the_solve_method_reaches_cvxpys_optimum(name):
    _solved(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(SUITE) - set(EXTRA)))
def test_the_solve_method_reaches_cvxpys_optimum_on_the_benchmark_problems(name):
    _solved(name)
