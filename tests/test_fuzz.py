"""The fuzzing harness (tests/fuzz.py) against every public entry point.

Default suite: a smoke run of a few hundred inputs. `-m slow -k fuzz`: over 50,000
(FUZZ_SLOW below), each input within fuzz.SLOWEST_ALLOWED seconds. A failure names the
input and what escaped; the counts per target are printed (`-s` shows them).
"""
from __future__ import annotations

import collections

import pytest
from fuzz import (
    DEFINITIONS,
    PROBLEMS,
    SLOWEST_ALLOWED,
    THESIS,
    constrained_sets,
    data_sets,
    drive,
    expression_texts,
    kink_sets,
    mutated,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

STRATEGIES = {
    "thesis": mutated(THESIS),
    "expression": expression_texts(),
    "definition": st.tuples(mutated([t for t, _ in DEFINITIONS]), st.sampled_from([s for _, s in DEFINITIONS])),
    "problem": st.tuples(mutated(PROBLEMS), st.integers(0, 7).map(lambda k: k == 0)),   # 1 in 8 analysed
    "solve": data_sets(),
    "constrained": constrained_sets(),
    "kinks": kink_sets(),
}
FUZZ_SMOKE = {"thesis": 80, "expression": 80, "definition": 60, "problem": 80, "solve": 40, "constrained": 40,
              "kinks": 30}
FUZZ_SLOW = {"thesis": 14000, "expression": 12000, "definition": 8000, "problem": 12000, "solve": 5000,
             "constrained": 3000, "kinks": 2000}
COUNTS: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


def _check(target: str, value) -> None:
    outcome = drive(target, value)
    COUNTS[target][outcome.kind] += 1
    assert outcome.kind != "bug", f"{target}: {outcome.detail}\ninput: {value!r}"[:3000]
    assert outcome.seconds < SLOWEST_ALLOWED, f"{target}: {outcome.seconds:.1f} s\ninput: {value!r}"[:3000]


def _fuzz(target: str, n: int):
    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(STRATEGIES[target])
    def run(value):
        _check(target, value)
    run()
    print(f"\nfuzz {target}: {dict(COUNTS[target])}")


@pytest.mark.parametrize("target", sorted(FUZZ_SMOKE))
def test_fuzz_smoke(target):
    """A few hundred inputs in all: only documented errors escape."""
    _fuzz(target, FUZZ_SMOKE[target])


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(FUZZ_SLOW))
def test_fuzz_many(target):
    """Over 50,000 inputs in all (issue 14): only documented errors escape, none slow."""
    _fuzz(target, FUZZ_SLOW[target])
