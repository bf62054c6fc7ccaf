"""The solver-honesty fuzz target (tests/honesty.py, `honesty` in tests/fuzz.py).

Default suite: 200 inputs, each family under each method. `-m slow`: 50,000 inputs (a
plain seeded loop: seeds 0 to 49,999, the method cycling with the seed, 12,500 per
method); the counts are printed (`-s`). A failure names the seed, the family, the method
and what was claimed.
"""
from __future__ import annotations

import collections
import time

import numpy as np
import pytest
from fuzz import SLOWEST_ALLOWED, drive
from honesty import FAMILIES, METHODS, case, kkt, solve


def _run(seeds) -> collections.Counter:
    """Every input run; the counts by outcome ('ok', 'documented', 'false success', and
    the other bugs by their kind); then a failure naming the first few bad inputs."""
    counts: collections.Counter = collections.Counter()
    bad = []
    for seed in seeds:
        outcome = drive("honesty", seed)
        kind = outcome.detail.split(":")[1].strip() if outcome.detail.startswith("Dishonest") else outcome.kind
        counts[kind] += 1
        if outcome.kind == "bug" or outcome.seconds >= SLOWEST_ALLOWED:
            bad.append(f"{case(seed)!r} ({outcome.seconds:.1f} s): {outcome.detail}"[:1000])
    print(f"\nhonesty: {dict(counts)}")
    assert not bad, f"{len(bad)} bad inputs, the first: " + "\n".join(bad[:5])
    return counts


def test_every_family_meets_every_method():
    seen = {(case(s).family, case(s).method) for s in range(len(FAMILIES) * len(METHODS))}
    assert seen == {(f, m) for f in FAMILIES for m in METHODS}


def test_honesty_smoke():
    _run(range(200))


def test_the_kkt_check_refuses_a_point_off_the_solution():
    """The checker is not vacuous: it passes the solution of a feasible case and refuses
    that point moved by 1e-3."""
    c = next(case(s) for s in range(500) if case(s).family == "redundant" and case(s).method == "newton")
    result = solve(c)
    assert result.status == 0, result.message
    x = np.asarray(result.x["x"], dtype=float)
    assert kkt(c.data, x) == ""
    assert kkt(c.data, x + 1e-3) != ""


@pytest.mark.slow
def test_honesty_many():
    start = time.perf_counter()
    try:
        _run(range(50_000))
    finally:
        print(f"honesty: 50,000 inputs in {time.perf_counter() - start:.0f} s")
