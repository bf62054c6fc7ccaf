"""The truths of tests/convexity_audit_cases.py re-derived by NumPy alone, independently of
tensorcalc (tests/audit_truth: `spec.py` states each case again with a NumPy function,
`checker.py` samples admissible points and parameters and tests midpoints of random pairs and
second differences f(x + h d) + f(x - h d) - 2 f(x) for h from 1e-3 to 3). The case lists must
agree (always); under `-m slow` every True side survives the sampling and every False side
(or its domain) shows a witness, so the corpus's truths are reproducible from the repository."""
import importlib.util
import pathlib

import pytest
from convexity_audit_cases import CASES

HERE = pathlib.Path(__file__).resolve().parents[1] / "audit_truth"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"audit_truth_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SPEC, CHECKER = _load("spec"), _load("checker")
NUMPY = {name: (text, cv, cc, fn) for name, text, cv, cc, _why, fn in SPEC.C}


def test_the_numpy_twins_state_the_same_cases():
    assert {name: (text, cv, cc) for name, (text, cv, cc, _) in NUMPY.items()} == \
        {name: (text, cv, cc) for name, text, cv, cc in CASES}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NUMPY))
def test_the_truths_hold_numerically(name):
    text, convex, concave, fn = NUMPY[name]
    found, tests = CHECKER.check(text, fn, trials=500)
    assert tests > 100, "too few admissible tests"
    for side, truth in (("convex", convex), ("concave", concave)):
        if truth is True:
            assert found[side] is None and found["domain"] is None, (side, found[side] or found["domain"])
        elif truth is False:
            assert found[side] is not None or found["domain"] is not None, side
