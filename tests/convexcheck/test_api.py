"""The public entry (issue 25): `convexcheck.analyze(problem, data=None, *, ...)`, the
parallel of `solvers.minimize`, takes problem text, files, Problems and CVXPY objects."""
import inspect

import numpy as np
import pytest

import convexcheck
import tensorcalc as tc
from convexcheck import analysis
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


@pytest.mark.parametrize("text, verdict", [
    ("variable x[n]\nminimize sum(x .^ 2)", "convex"),
    ("variable x[n]\nminimize sum(sin(x))", "nonconvex"),
    ("variable x[n]\nmaximize sum(log(x))", "convex"),
    ("variable x[n]\nvariable y[n]\nminimize sum(x .* y)\nsubject to\n  sum(x .^ 2) <= 1", "nonconvex"),
    ("variable x[n]\nminimize sum(x .^ 2)\nsubject to\n  sum(exp(x)) >= 1", "nonconvex"),
])
def test_verdict_only_gives_the_same_verdict_and_searches_only_what_it_reads(text, verdict):
    full, lean = (convexcheck.analyze(text, samples=6, verdict_only=only) for only in (False, True))
    assert full.verdict == lean.verdict == verdict
    for whole, part in zip((full.objective, *full.constraints), (lean.objective, *lean.constraints)):
        read = {"convex": ["convex"], "concave": ["concave"]}.get(part.part.need, ["convex", "concave"])
        for kind in read:                        # the sides the verdict reads: as the full analysis says
            assert getattr(part, kind).status == getattr(whole, kind).status
    assert lean.variables == {n: lean.objective for n in lean.variables}    # no analysis per variable alone


def test_verdict_only_samples_proven_parts_of_one_shape_for_the_guard_only():
    rows = "".join(f"  sum((x - c{k}) .^ 2) <= 1\n" for k in range(5))
    params = "".join(f"parameter c{k}[n]\n" for k in range(5))
    text = "variable x[n]\n" + params + "minimize sum(x)\nsubject to\n" + rows
    full, lean = (convexcheck.analyze(text, samples=6, verdict_only=only) for only in (False, True))
    assert all(c.evidence is not None for c in full.constraints)     # each sought a witness
    sampled = [c.evidence is not None for c in lean.constraints]
    assert sampled == [True] * analysis.GUARD_MEMBERS + [False] * (5 - analysis.GUARD_MEMBERS)
    assert all(c.guarded_by for c in lean.constraints[analysis.GUARD_MEMBERS:])
