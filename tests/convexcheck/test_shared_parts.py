"""Parts of one shape (the same expression up to parameter names, declared alike) share their
certificate and conditions, and the guard samples the first GUARD_MEMBERS of them
(convexcheck.problem.shapes, convexcheck.analysis._proof)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import convexcheck
from convexcheck import analysis
from convexcheck.hessian.certificate import Certificate
from convexcheck.problem.shapes import Shape, shape_of
from tensorcalc import dag

DECLS = """variable x[3]
variable t
parameter a1 nonneg
parameter a2
parameter a3 nonneg
parameter a4 nonpos
parameter a5
parameter a6 nonneg
parameter a7 nonneg
parameter v1[3]
parameter v2[3]
parameter w1[2]
parameter P1[3,3] psd
parameter P2[3,3] psd
parameter P3[3,3] psd
parameter P4[3,3]
parameter P5[3,3] psd
"""

MIXED = DECLS + """minimize t
subject to
  a1 * sum(x .^ 2) <= t
  a2 * sum(x .^ 2) <= t
  a3 * sum(x .^ 2) <= t
  a4 * sum(x .^ 2) <= t
  a5 * sum(x .^ 2) <= t
  a6 * sum(x .^ 2) <= t
  a7 * sum(x .^ 2) <= t
  x' * P1 * x <= t
  x' * P2 * x <= t
  x' * P3 * x <= t
  x' * P4 * x <= t
  x' * P5 * x + a1 <= t
  log(sum(exp(x + v1))) <= t
  log(sum(exp(x + v2))) <= t
"""


def _part(text: str, k: int):
    problem = convexcheck.load_problem(text)
    return problem, problem.parts[k]


def _key(text: str, k: int):
    problem, part = _part(text, k)
    return shape_of(problem, part.expr).key


def _unshared(monkeypatch) -> None:
    """Every part its own shape: the analysis as it was before shapes were shared."""
    def own(problem, expr):
        return Shape(None, expr, {n: d for n, d in problem.declarations.items()
                                  if n in dag.variables(expr)}, {})
    monkeypatch.setattr(analysis, "shape_of", own)


def _verdicts(report) -> list[tuple]:
    return [(p.part.label, p.convex.status, p.concave.status, tuple(p.convex.conditions + p.concave.conditions),
             p.satisfies()) for p in (report.objective, *report.constraints)]


def test_the_same_expression_declared_alike_is_one_shape():
    assert _key(MIXED, 1) == _key(MIXED, 3) == _key(MIXED, 6) == _key(MIXED, 7) is not None
    assert _key(MIXED, 8) == _key(MIXED, 9) == _key(MIXED, 10) is not None
    assert _key(MIXED, 13) == _key(MIXED, 14) is not None


def test_a_different_declaration_is_a_different_shape():
    assert _key(MIXED, 1) != _key(MIXED, 2)            # nonneg and free
    assert _key(MIXED, 1) != _key(MIXED, 4)            # nonneg and nonpos
    assert _key(MIXED, 2) == _key(MIXED, 5)            # free and free
    assert _key(MIXED, 8) != _key(MIXED, 11)           # psd and no attribute
    assert _key(MIXED, 8) != _key(MIXED, 12)           # another expression (+ a1)
    dims = DECLS + "minimize t\nsubject to\n  sum(exp(x[0:2] + w1)) <= t\n  sum(exp(x + v1)) <= t\n"
    assert _key(dims, 1) != _key(dims, 2)              # dimensions [2] and [3]


def test_dimension_names_and_variables_are_in_the_key():
    text = ("variable x[n]\nvariable y[n]\nparameter p[n]\nparameter q[m]\nparameter r[n] nonneg\n"
            "parameter s[n]\nminimize 0\nsubject to\n  sum(x) * sum(p) <= 1\n  sum(x) * sum(q) <= 1\n"
            "  sum(y) * sum(p) <= 1\n  sum(x) * sum(r) <= 1\n  sum(x) * sum(s) <= 1\n")
    keys = [_key(text, k) for k in range(1, 6)]
    assert len(set(keys[:4])) == 4 and keys[4] == keys[0]


def test_the_canonical_form_reads_the_parts_own_names():
    problem, part = _part(MIXED, 10)
    shape = shape_of(problem, part.expr)
    assert shape.names == {"_p0_": "P3"} and set(shape.declarations) == {"x", "t", "_p0_"}
    assert shape.named("the weight of dx _p0_ is > 0; _p00 and a_p0_ stay") == \
        "the weight of dx P3 is > 0; _p00 and a_p0_ stay"


def test_verdicts_and_texts_are_those_of_the_unshared_analysis(monkeypatch):
    shared = convexcheck.analyze(MIXED, samples=8, seed=3)
    _unshared(monkeypatch)
    alone = convexcheck.analyze(MIXED, samples=8, seed=3)
    assert _verdicts(shared) == _verdicts(alone)
    words = lambda rules: [sorted(rule.split()) for rule in rules]  # noqa: E731 - the order may follow the names
    for a, b in zip(shared.constraints, alone.constraints):
        assert words(a.convex.proof) == words(b.convex.proof) and words(a.concave.proof) == words(b.concave.proof)
    assert "_p0_" not in shared.to_text() and "_p0_" not in json.dumps(shared.to_dict())
    assert "dx P3" in shared.to_text() and "convex if a5 is nonneg" in shared.to_text()


def test_a_sign_splits_the_proof():
    """The proof for `a1 * sum(x^2)`, a1 nonneg, is not lent to a4 nonpos or a2 free."""
    report = convexcheck.analyze(MIXED, samples=5)
    c = report.constraints
    assert [c[k].convex.status for k in (0, 2, 5, 6)] == ["proven"] * 4
    assert c[3].convex.status == "disproved" and c[3].concave.status == "proven"
    assert c[1].convex.status == "disproved" and c[1].convex.conditions == ["convex if a2 is nonneg"]
    assert c[4].convex.conditions == ["convex if a5 is nonneg"]
    assert c[10].convex.status == "disproved" and c[10].convex.conditions == ["convex if P4 is psd"]


def test_the_guard_runs_on_the_representatives_and_is_reported():
    report = convexcheck.analyze(MIXED, samples=5)
    c = report.constraints
    assert [c[k].guarded_by for k in (0, 2, 5, 6)] == [None, None, "constraint 1", "constraint 1"]
    assert c[0].evidence is not None and c[0].evidence.samples >= 1
    assert c[9].guarded_by == "constraint 8" and "checked by sampling constraint 8" in report.to_text()
    assert [p["guarded_by"] for p in report.to_dict()["constraints"]][5] == "constraint 1"
    assert len(report.to_dict()["constraints"]) == 14


def test_an_unproven_side_is_searched_on_every_part():
    """The concave side of every `a_i * sum(x^2)` (a_i nonneg) has a witness of its own."""
    report = convexcheck.analyze(MIXED, samples=5)
    for k in (0, 2, 5, 6):
        side = report.constraints[k].concave
        assert side.status == "disproved" and side.witness is not None
        assert set(side.witness.point) == {"x", "t", f"a{k + 1}"}    # the names the part reads


def test_a_wrong_proof_is_caught_on_a_representative_and_withdrawn_from_its_shape(monkeypatch):
    """A certificate that claims too much: the representatives' guard withdraws it, and every
    part of the shape loses it (the others then search the side as unproven)."""
    text = ("variable x\nparameter a1 pos\nparameter a2 pos\nparameter a3 pos\nparameter a4 pos\n"
            "minimize 0\nsubject to\n  a1 * x^2 <= 1\n  a2 * x^2 <= 1\n  a3 * x^2 <= 1\n  a4 * x^2 <= 1\n")
    monkeypatch.setattr(analysis, "classify", lambda *a, **k: Certificate(True, True, ["a wrong claim"]))
    report = convexcheck.analyze(text, samples=5)
    assert report.constraints[0].inconsistencies and "concave proof is contradicted" in \
        report.constraints[0].inconsistencies[0]
    for part in report.constraints:
        assert part.convex.status == "proven" and part.concave.status != "proven"
    for part in report.constraints[2:]:
        assert part.guarded_by == "constraint 1"            # for the convex proof, which stands
        assert any("on constraint 1, of the same shape" in f for f in part.certificate.failures)
        assert part.concave.status == "disproved"           # searched on its own data


def test_the_enclosing_circle_shares_by_sign():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(5)
    points = rng.normal(size=(12, 2))
    c, r = cp.Variable(2, name="c"), cp.Variable(name="r")
    problem = cp.Problem(cp.Minimize(r), [cp.norm(c - points[i]) <= r for i in range(12)])
    report = convexcheck.analyze(problem, samples=5)
    assert report.verdict == "convex"
    assert all(p.convex.status == "proven" and p.concave.status == "disproved" for p in report.constraints)
    assert sum(p.guarded_by is not None for p in report.constraints) >= 12 - 2 * 3     # pos, neg, mixed
    point = report.constraints[7].concave.witness.point
    assert set(point) == {"c", "r", *(f"c{k}" for k in range(12))}     # and the data given, all of it


def test_a_representative_whose_guard_saw_no_point_vouches_for_nobody(monkeypatch):
    """Where the guard of a part sampled nothing (every draw outside the domain, or the budget
    spent), the next part of its shape runs the guard of its own."""
    from convexcheck.witness.sampling import Evidence
    text = ("variable x\nparameter a1 pos\nparameter a2 pos\nparameter a3 pos\nparameter a4 pos\n"
            "parameter a5 pos\nminimize 0\nsubject to\n" + "".join(f"  a{k} * x^2 <= 1\n" for k in range(1, 6)))
    search, calls = analysis.search, []

    def blind_at_first(expr, *args, **kwargs):          # constraint 1's search sees no point
        calls.append(expr)
        if len(calls) == 1:                             # (the objective, 0, samples nothing)
            return Evidence(0, float("nan"), float("nan"), None, None, skipped=5)
        return search(expr, *args, **kwargs)
    monkeypatch.setattr(analysis, "search", blind_at_first)
    report = convexcheck.analyze(text, samples=5)
    assert [p.guarded_by for p in report.constraints] == [None, None, None, "constraint 2", "constraint 2"]
    assert all(p.convex.status == "proven" for p in report.constraints)


def test_errors_name_the_parts_own_declarations():
    from convexcheck.problem.admissible import SizeError
    text = ("variable x[n]\nparameter a1[n, n]\nparameter a2[n, n]\nminimize 0\nsubject to\n"
            "  sum(x) + sum(a1) <= 1\n  sum(x) + sum(a2) <= 1\n")
    with pytest.raises(SizeError, match=r"parameter a1\[n, n\]"):
        convexcheck.analyze(text, samples=5, dims={"n": 100_000})


def test_a_declaration_without_a_value_is_named_as_written(monkeypatch):
    from convexcheck.problem import admissible
    from convexcheck.problem.reader import ProblemError
    sample_value = admissible.sample_value

    def none_above_one(attrs, *args, **kwargs):
        if attrs.lower == 1.0:
            raise admissible.SampleError("no value (a test)")
        return sample_value(attrs, *args, **kwargs)
    monkeypatch.setattr(admissible, "sample_value", none_above_one)
    text = ("variable x\nparameter a1 > 1\nparameter a2 > 1\nminimize 0\nsubject to\n"
            "  a1 * x^2 <= 1\n  a2 * x^2 <= 1\n")
    with pytest.raises(ProblemError, match="parameter 'a1'") as raised:
        convexcheck.analyze(text, samples=5)
    assert "_p0_" not in str(raised.value)


def test_affine_parts_are_proven_without_sampling_and_curved_ones_keep_the_guard():
    text = ("variable x[n]\nparameter A[m, n]\nparameter b[m]\nminimize sum(x .^ 2)\nsubject to\n"
            "  A * x - b <= 0\n  sum(x) == 1\n")
    report = convexcheck.analyze(text, samples=5, dims={"n": 4, "m": 3})
    assert report.verdict == "convex"
    for part in report.constraints:                 # affine: degree 1, nothing for the guard
        assert part.convex.status == part.concave.status == "proven"
        assert part.evidence is None
    assert report.objective.evidence is not None and report.objective.evidence.samples > 0
