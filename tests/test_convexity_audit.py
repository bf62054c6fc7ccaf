"""Soundness on the audit corpus (tests/convexity_audit_cases.py): objectives of independently
checked curvature that the analyser was not written against. A side whose truth is False is never
proven, a side whose truth is True is never disproved, and no proof is withdrawn by the sampling
guard. 'unknown' is always allowed here: the corpus measures soundness, not coverage.

A case that currently gets a wrong verdict goes into WRONG (name -> the bug) and runs as
xfail(strict=True), so the suite stays green and the fix shows up as an unexpected pass."""
import sys
from pathlib import Path

import pytest

import convexcheck

sys.path.insert(0, str(Path(__file__).parent))
from convexity_audit_cases import CASES  # noqa: E402

WRONG: dict[str, str] = {}  # name -> the wrong verdict it gets (none at commit time)
SAMPLES = 5                 # proofs do not depend on samples; witnesses need only a few


def _params() -> list:
    """One pytest.param per case, xfail(strict=True) where WRONG names the case."""
    return [pytest.param(text, convex, concave, id=name,
                         marks=[pytest.mark.xfail(strict=True, reason=WRONG[name])] if name in WRONG else [])
            for name, text, convex, concave in CASES]


def test_corpus_is_well_formed():
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    assert len(CASES) >= 150
    for name, text, convex, concave in CASES:
        assert convex in (True, False, None) and concave in (True, False, None), name
        assert "minimize" in text or "maximize" in text, name
    assert set(WRONG) <= set(names), set(WRONG) - set(names)


@pytest.mark.parametrize("text, convex, concave", _params())
def test_audit_never_contradicts_the_truth(text, convex, concave):
    part = convexcheck.analyze(text, samples=SAMPLES, seed=0).objective
    assert not part.inconsistencies, part.inconsistencies
    for kind, truth in (("convex", convex), ("concave", concave)):
        side = getattr(part, kind)
        if truth is False:
            assert side.status != "proven", (kind, side.proof)
        if truth is True:
            assert side.status != "disproved", (kind, side.witness)
