"""No unsound verdict: a `proven` that sampling contradicts, or a `disproved` whose witness
does not verify, is a bug. Functions CVXPY rejects as written but that are convex, and
functions users believe convex that are not."""
import numpy as np
import pytest

import convexcheck
from convexcheck.witness.sampling import search

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
    import tensorcalc as tc

    def f(t):
        return float(tc.evaluate(part.part.expr, {n: w.point[n] + t * w.direction.get(n, 0 * w.point[n])
                                                  for n in w.point}))
    h = w.step
    second = (f(h) - 2 * f(0) + f(-h)) / h ** 2
    assert second < 0 and np.isclose(second, w.second_difference, rtol=1e-6)


WRONG_PROOFS = [  # (declarations, objective, a curvature it does not have): once proven by mistake
    # the Hessian is blind to kinks: abs, relu, sign were read as affine (zero Hessian)
    ("variable x", "abs(x)", "concave"),
    ("variable x", "relu(x)", "concave"),
    ("variable x", "sign(x)", "convex"),
    ("variable x", "sign(x)", "concave"),
    ("variable x nonneg", "sign(x)", "convex"),
    ("variable x", "exp(-abs(x))", "convex"),
    # 1/g and g^(-k) need g != 0: the domain {x != 0} is not convex
    ("variable x", "x^(-2)", "convex"),
    ("variable x", "1/x^2", "convex"),
    ("variable x[n]", "sum(x^(-4))", "convex"),
]


@pytest.mark.parametrize("decls, objective, kind", WRONG_PROOFS)
def test_kinks_and_punctured_domains_are_not_proven(decls, objective, kind):
    part = _report(decls, objective).objective
    assert getattr(part, kind).status != "proven", getattr(part, kind).proof


@pytest.mark.parametrize("decls, objective, kind", [
    ("variable x nonneg", "abs(x)", "concave"),          # abs(x) = x there
    ("variable x pos", "sign(x) + x^2", "convex"),
    ("variable x nonneg", "1/x", "convex"),              # on its domain x > 0
    ("variable x nonpos", "-1/x", "convex"),
])
def test_one_signed_arguments_are_still_read(decls, objective, kind):
    part = _report(decls, objective).objective
    assert getattr(part, kind).status == "proven"


def test_an_assumption_that_empties_the_domain_does_not_crash():
    """Trying 'a nonpos' makes a^T X <= 0 meet log's a^T X > 0: an empty interval, whose
    reciprocal divided by zero (ZeroDivisionError from analyze)."""
    report = convexcheck.analyze("variable X[2, 3] pos\nparameter a[2]\n"
                                 "expression sum(log(a *(i,ij->j) X))", samples=4)
    assert report.objective.concave.status == "proven"


@pytest.mark.parametrize("text, kind, status", [
    # the variance template read a weight letter (a trace's summed index) it had no image for: KeyError
    ("parameter p0[2, 3] pos\nparameter p1 pos\nvariable U[2, 3] pos\n"
     "expression -((p0 *(ij,ij->) U + p1) * log(p0 *(ij,ij->) U + p1))", "convex", "disproved"),
    # trying 'p0 nonpos' makes log's argument < 0: math.log of a negative bound (ValueError)
    ("parameter p0[2, 3]\nparameter p1 neg\nvariable U[2, 3] pos\n"
     "expression log(1 + exp(log(p0 *(ij,ij->) U + p1)))", "concave", "proven"),
    # a lower bound beyond exp's range: math.exp overflowed (OverflowError)
    ("variable x >= 1000\nexpression exp(x)", "convex", "proven"),
])
def test_analyze_does_not_crash_on_corner_intervals(text, kind, status):
    assert getattr(convexcheck.analyze(text, samples=4).objective, kind).status == status
