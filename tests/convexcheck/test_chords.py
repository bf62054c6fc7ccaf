"""Chord witnesses (convexcheck.witness.chords): Jensen gaps for kinked functions, each re-checked
here with NumPy formulas written independently of tensorcalc, and refused where only
rounding makes the gap."""
import json

import numpy as np
import pytest

import convexcheck
from convexcheck import analysis
from convexcheck.hessian.certificate import Certificate
from convexcheck.problem.reader import parse_problem
from convexcheck.witness import chords, sampling

needs_extended = pytest.mark.skipif(not chords.EXTENDED, reason="longdouble is no wider than double here")

# (problem text, the side a chord must disprove, the function in NumPy, taking the witness point)
KINKED = [
    ("variable x[4]\nminimize max(x)", "concave", lambda p: np.max(p["x"])),
    ("variable x[n]\nminimize sum(pos(x))", "concave", lambda p: np.sum(np.maximum(p["x"], 0))),
    ("variable x\nminimize x^2 - abs(x)", "convex", lambda p: p["x"] ** 2 - abs(p["x"])),
    ("variable x\nminimize log(exp(x) + exp(-x)) - abs(x)", "convex",
     lambda p: np.logaddexp(p["x"], -p["x"]) - abs(p["x"])),
    ("parameter A[4, n]\nparameter b[4]\nvariable x[n]\nminimize norm_inf(A * x - b)", "concave",
     lambda p: np.max(np.abs(p["A"] @ p["x"] - p["b"]))),
    ("variable x[3]\nvariable y[3]\nminimize max(x) - max(y)", "convex", lambda p: np.max(p["x"]) - np.max(p["y"])),
]


def _numpy_gap(f, witness) -> float:
    ends = [{n: witness.point[n] + t * witness.direction.get(n, 0.0) for n in witness.point} for t in (1, -1)]
    return f(ends[0]) + f(ends[1]) - 2 * f(witness.point)


@needs_extended
@pytest.mark.parametrize("text, kind, f", KINKED)
def test_kinked_functions_are_disproved_by_a_chord_numpy_confirms(text, kind, f):
    side = getattr(convexcheck.analyze(text, samples=5, seed=0).objective, kind)
    assert side.status == "disproved"
    w = side.witness
    assert w.chord and w.step == 1.0
    gap = _numpy_gap(f, w)
    assert (gap < 0) if kind == "convex" else (gap > 0)
    assert gap == pytest.approx(w.second_difference, rel=1e-6, abs=1e-12)


def test_convex_pwl_functions_keep_their_proofs_and_no_chord_contradicts_them():
    for text in ("variable x[4]\nminimize max(x)", "variable x[5]\nminimize norm1(x) + norm_inf(x)",
                 "variable x\nvariable y\nminimize abs(x) + abs(y) + relu(x + y) + maximum(x, y)"):
        part = convexcheck.analyze(text, samples=20, seed=1).objective
        assert part.convex.status == "proven" and not part.inconsistencies, (text, part.inconsistencies)


def _cancelling():
    """x^2 written as (x + 1e8)^2 - 1e16 - 2e8 x: convex, but its double-precision values
    carry rounding errors of about 2, so chords of length < 1 show gaps of either sign."""
    return parse_problem("variable x\nminimize (x + 100000000)^2 - 10000000000000000 - 200000000 * x")


def test_a_gap_made_by_rounding_is_refused():
    problem = _cancelling()
    expr = problem.objective.expr
    refused = 0
    for k in range(200):
        m, d = {"x": np.array(0.3 + 0.01 * k)}, {"x": np.array(0.05)}
        gap = chords._gap(expr, problem, m, d, np.float64)
        if gap is not None and gap < 0:            # a false "not convex" in double precision
            assert chords._confirmed(expr, problem, m, d, "convex") is None
            refused += 1
    assert refused > 0, "the example should produce spurious negative gaps"


def test_cancellation_is_never_disproved_convex():
    part = convexcheck.analyze("variable x\nminimize (x + 100000000)^2 - 10000000000000000 - 200000000 * x",
                               samples=40, seed=3).objective
    assert part.convex.status != "disproved"


def test_without_extended_precision_no_chord_is_made(monkeypatch):
    monkeypatch.setattr(chords, "EXTENDED", False)
    part = convexcheck.analyze("variable x[4]\nminimize max(x)", samples=5, seed=0).objective
    assert part.concave.status == "unknown"


def test_matrix_functions_without_extended_precision_make_no_chord():
    problem = parse_problem("variable X[2, 2] pd\nminimize tr(inv(X))")
    m = {"X": np.eye(2)}
    assert sampling.value_along(problem.objective.expr, problem, m, {"X": 0.1 * np.eye(2)}, 1.0, np.longdouble) is None
    expected = pytest.approx(2 / 1.1)
    assert sampling.value_along(problem.objective.expr, problem, m, {"X": 0.1 * np.eye(2)}, 1.0) == expected


@needs_extended
def test_a_chord_withdraws_a_wrong_proof(monkeypatch):
    monkeypatch.setattr(analysis, "_certificate", lambda *a: Certificate(True, True, ["(a wrong proof)"]))
    part = convexcheck.analyze("variable x[4]\nminimize max(x)", samples=5, seed=0).objective
    assert part.concave.status == "unknown"          # a contradicted proof is withdrawn, as a bug to report
    assert any("concave proof is contradicted" in text and "verified witness" in text for text in part.inconsistencies)
    assert part.convex.status == "proven"


@needs_extended
def test_chord_witness_round_trips_through_json_and_reads_in_the_report():
    report = convexcheck.analyze("variable x\nminimize x^2 - abs(x)", samples=5, seed=0)
    w = report.objective.convex.witness
    again = sampling.Witness.from_dict(json.loads(json.dumps(w.to_dict())))
    assert again.chord and again.step == 1.0 and np.array_equal(again.point["x"], w.point["x"])
    assert (again.curvature, again.second_difference) == (w.curvature, w.second_difference)
    assert "the chord from x - d to x + d" in report.to_text().replace("\n        ", " ")


# ----------------------------------------------------------------------------- random kinked sums

from conftest import examples  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = {   # text of a convex piece in x[3] and y, its NumPy twin (a, c: coefficients)
    "abs": (lambda a, c: f"abs({_lin(a, c)})", lambda a, c, x, y: abs(a[:3] @ x + a[3] * y + c)),
    "relu": (lambda a, c: f"relu({_lin(a, c)})", lambda a, c, x, y: max(a[:3] @ x + a[3] * y + c, 0.0)),
    "square": (lambda a, c: f"({_lin(a, c)})^2", lambda a, c, x, y: (a[:3] @ x + a[3] * y + c) ** 2),
    "max": (lambda a, c: f"max(x) + {c:g} * y", lambda a, c, x, y: np.max(x) + c * y),
    "huber": (lambda a, c: f"huber({_lin(a, c)})",
              lambda a, c, x, y: (lambda u: u * u if abs(u) <= 1 else 2 * abs(u) - 1)(a[:3] @ x + a[3] * y + c)),
}


def _lin(a, c) -> str:
    return f"{a[0]:g} * x[0] + {a[1]:g} * x[1] + {a[2]:g} * x[2] + {a[3]:g} * y + {c:g}"


_coef = st.integers(-3, 3).map(float)
_piece = st.tuples(st.sampled_from(sorted(_PIECES)), st.lists(_coef, min_size=4, max_size=4), _coef,
                   st.integers(-2, 3).map(float))


@settings(max_examples=examples(40))
@given(st.lists(_piece, min_size=1, max_size=4), st.integers(0, 3))
def test_random_kinked_sums_get_no_false_chord(pieces, seed):
    """Weighted sums of kinked pieces: with weights >= 0 the sum is convex and never
    disproved convex; whatever the weights, every chord witness is a real Jensen gap of
    the NumPy twin."""
    text = " + ".join(f"({w:g}) * ({_PIECES[k][0](a, c)})" for k, a, c, w in pieces)
    def f(p):
        return sum(w * _PIECES[k][1](np.array(a), c, p["x"], float(p["y"])) for k, a, c, w in pieces)
    part = convexcheck.analyze(f"variable x[3]\nvariable y\nminimize {text}", samples=5, seed=seed).objective
    assert not part.inconsistencies, part.inconsistencies
    if all(w >= 0 for *_, w in pieces):
        assert part.convex.status != "disproved", (text, part.convex.witness)
    for kind in ("convex", "concave"):
        w = getattr(part, kind).witness
        if w is not None and w.chord:
            gap = _numpy_gap(f, w)
            assert (gap < 0) if kind == "convex" else (gap > 0), (text, kind, gap)
