"""Shared checks of the audit corpora (tests/test_convexity_audit.py and _audit3.py): each
corpus is a list of (name, problem text, convex truth, concave truth), with a WRONG dict of
the cases that currently get a wrong verdict (run as strict xfails)."""
import pytest

import convexcheck


def params(cases, wrong: dict) -> list:
    """One pytest.param per case, xfail(strict=True) where `wrong` names the case."""
    return [pytest.param(text, convex, concave, id=name,
                         marks=[pytest.mark.xfail(strict=True, reason=wrong[name])] if name in wrong else [])
            for name, text, convex, concave in cases]


def check_well_formed(cases, wrong: dict, least: int) -> None:
    """Unique names, at least `least` cases, truths in (True, False, None), an objective in
    every text, and every WRONG name a case."""
    names = [c[0] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    assert len(cases) >= least
    for name, text, convex, concave in cases:
        assert convex in (True, False, None) and concave in (True, False, None), name
        assert "minimize" in text or "maximize" in text, name
    assert set(wrong) <= set(names), set(wrong) - set(names)


def check_never_contradicts(text: str, convex, concave, samples: int) -> None:
    """No internal inconsistency; a False side never proven, a True side never disproved."""
    part = convexcheck.analyze(text, samples=samples, seed=0).objective
    assert not part.inconsistencies, part.inconsistencies
    for kind, truth in (("convex", convex), ("concave", concave)):
        side = getattr(part, kind)
        if truth is False:
            assert side.status != "proven", (kind, side.proof)
        if truth is True:
            assert side.status != "disproved", (kind, side.witness)
