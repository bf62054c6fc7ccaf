"""The public entry (issue 25): `convexcheck.analyze(problem, data=None, *, ...)`, the
parallel of `solvers.minimize`, takes problem text, files, Problems and CVXPY objects."""
import inspect

import numpy as np
import pytest

import convexcheck
import tensorcalc as tc
from convexcheck.hessian.certificate import certify

NNLS = "parameter A[m, n]\nparameter b[m]\nvariable x[n] nonneg\nminimize sum((A * x - b) .^ 2)"


def test_the_signature_parallels_minimize():
    solvers = pytest.importorskip("solvers")
    ours, theirs = (inspect.signature(f).parameters for f in (convexcheck.analyze, solvers.minimize))
    assert list(ours)[:2] == list(theirs)[:2] == ["problem", "data"]
    assert all(p.kind is p.KEYWORD_ONLY for p in list(ours.values())[2:])


def test_data_is_the_second_argument_and_the_rest_are_keywords():
    data = {"A": np.eye(2), "b": np.ones(2)}
    report = convexcheck.analyze(NNLS, data, samples=3)
    assert report.objective.convex.status == "proven"
    with pytest.raises(TypeError):
        convexcheck.analyze(NNLS, data, 3)             # samples is keyword-only


def test_a_cvxpy_expression_goes_through_the_bridge():
    cp = pytest.importorskip("cvxpy")
    x = cp.Variable(name="x")
    report = convexcheck.analyze(x * x, samples=3)
    assert (report.verdict, report.objective.convex.status) == ("convex", "proven")
    assert "translated from CVXPY" in report.problem.text
    with pytest.raises(tc.TensorCalcError, match="Parameter.value"):
        convexcheck.analyze(x * x, {"x": 1.0})


def test_the_exports_say_which_certificate_they_are():
    assert convexcheck.certify_hessian is certify
    assert not hasattr(convexcheck, "certify")
    x = tc.parse_expr("exp(x)", {"x": 0})
    assert convexcheck.classify(x, [tc.dag.variables(x)["x"]], {}).convex
