"""Soundness on the audit corpus (tests/convexity_audit_cases.py): objectives of independently
checked curvature that the analyser was not written against. A side whose truth is False is never
proven, a side whose truth is True is never disproved, and no proof is withdrawn by the sampling
guard. 'unknown' is always allowed here: the corpus measures soundness, not coverage.

A case that currently gets a wrong verdict goes into WRONG (name -> the bug) and runs as
xfail(strict=True), so the suite stays green and the fix shows up as an unexpected pass."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from audit_corpus import check_never_contradicts, check_well_formed, params  # noqa: E402
from convexity_audit_cases import CASES  # noqa: E402

WRONG: dict[str, str] = {}  # name -> the wrong verdict it gets (none at commit time)
SAMPLES = 5                 # proofs do not depend on samples; witnesses need only a few


def test_corpus_is_well_formed():
    check_well_formed(CASES, WRONG, 150)


@pytest.mark.parametrize("text, convex, concave", params(CASES, WRONG))
def test_audit_never_contradicts_the_truth(text, convex, concave):
    check_never_contradicts(text, convex, concave, SAMPLES)
