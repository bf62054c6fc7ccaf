"""The cache target of the fuzz harness (tests/cache_fuzz.py): mutated, truncated,
swapped, planted and non-regular entries of a real cache. Default suite: 300 inputs;
`-m slow`: 50,000. Counts per mutation are printed (`-s`)."""
from __future__ import annotations

import collections
import functools

import pytest
from cache_fuzz import MUTATIONS, Bench, attack, inputs
from hypothesis import HealthCheck, given, settings

COUNTS: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


@functools.cache
def _bench() -> Bench:
    return Bench()


def _fuzz(n: int):
    bench = _bench()
    assert {name.partition("-")[0] for name in bench.pristine} >= {"parser", "program", "compiled", "verdict"}

    @settings(max_examples=n, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(inputs(bench))
    def run(case):
        name, how, seed = case
        verdict = attack(bench, name, how, seed)
        COUNTS[how][verdict.kind] += 1
        assert verdict.kind != "bug", f"{how} of {name} (seed {seed}): {verdict.detail}"
    run()
    print("\ncache fuzz:", {how: dict(COUNTS[how]) for how in MUTATIONS})


def test_cache_fuzz_smoke():
    _fuzz(300)


@pytest.mark.slow
def test_cache_fuzz_many():
    _fuzz(50_000)
