"""No unsound verdict: a `proven` that sampling contradicts, or a `disproved` whose witness
does not verify, is a bug. Functions CVXPY rejects as written but that are convex, and
functions users believe convex that are not."""
import numpy as np
import pytest

import convexcheck
from convexcheck.sampling import search

CONVEX = [  # (declarations, objective): convex in the variables, not DCP as written
    ("variable x", "x * x"),
    ("variable v[n]", "v *(i,i->) v"),
    ("variable U[n, k]", "sum(U *(ik,jk->ij) U)"),
    ("parameter A[n, n] psd\nvariable X[n, k]", "X *(ji,jk->ik) A *(ik,ki->) X"),
    ("variable x", "log(1 + exp(x))"),
    ("variable x", "sqrt(x^2 + 1)"),
    ("variable x pos", "x * log(x)"),
    ("variable x\nvariable y pos", "x^2 / y"),
    ("variable x pos\nvariable y pos", "x * log(x / y)"),
    ("variable x\nvariable y pos", "y * exp(x / y)"),
    ("variable x[n]", "log(sum(exp(x)))"),
    ("variable x[n]", "log(1 + sum(exp(x)))"),
    ("variable x pos", "1 / x"),
    ("variable x nonneg", "x^3"),
    ("variable x[n]", "sum(exp(x))"),
    ("variable x pos", "x^(-0.5)"),
    ("parameter a[n]\nvariable x[n]", "sum(log(1 + exp(a *(i,i->i) x)))"),
]
NONCONVEX = [  # functions users have believed convex
    ("variable x", "x^3"),
    ("variable x\nvariable y", "x * y"),
    ("variable x pos", "log(x)"),
    ("variable x pos\nvariable y pos", "sqrt(x * y)"),
    ("variable x", "sin(x)"),
    ("variable x[n]", "sum(x)^2 - sum(x^2)"),
    ("variable x", "exp(-x^2)"),
    ("variable x\nvariable y pos", "x / y"),
    ("variable x pos", "x^0.5"),
    ("variable x[n]\nparameter A[n, n] symmetric", "x *(i,ij->j) A *(j,j->) x"),
]


def _report(decls, objective, seed=0):
    return convexcheck.analyze(f"{decls}\nminimize {objective}", samples=10, seed=seed)


@pytest.mark.parametrize("decls, objective", CONVEX)
def test_convex_functions_are_never_disproved(decls, objective):
    part = _report(decls, objective).objective
    assert part.convex.status != "disproved", part.convex.witness
    if part.convex.status == "proven":      # an independent numeric look at many points
        problem = part.part
        evidence = search(problem.expr, convexcheck.load_problem(f"{decls}\nminimize {objective}"),
                          part.variables, samples=40, seed=7, want=("convex",))
        assert evidence.convex_witness is None


@pytest.mark.parametrize("decls, objective", CONVEX)
def test_convex_functions_are_proven(decls, objective):
    assert _report(decls, objective).objective.convex.status == "proven"


@pytest.mark.parametrize("decls, objective", NONCONVEX)
def test_nonconvex_functions_are_disproved_with_a_verifying_witness(decls, objective):
    part = _report(decls, objective).objective
    assert part.convex.status == "disproved"
    w = part.convex.witness
    problem = convexcheck.load_problem(f"{decls}\nminimize {objective}")
    import tensorcalc as tc
    f = lambda t: float(tc.evaluate(part.part.expr, {n: w.point[n] + t * w.direction.get(n, 0 * w.point[n])
                                                      for n in w.point}))
    h = w.step
    second = (f(h) - 2 * f(0) + f(-h)) / h ** 2
    assert second < 0 and np.isclose(second, w.second_difference, rtol=1e-6)
