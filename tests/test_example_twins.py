"""The example problems are written in matrix notation (issue 15, item 3); each keeps its
index-notation twin in tests/data/einsum_examples/. Both spellings must get the same
verdict, part by part and variable by variable."""
import pathlib

import pytest

import convexcheck

ROOT = pathlib.Path(__file__).parents[1]
TWINS = sorted((ROOT / "tests" / "data" / "einsum_examples").glob("*.tc"))


def _verdicts(path) -> dict:
    report = convexcheck.analyze(str(path), samples=5, seed=1).to_dict()
    return {"problem": report["problem"],
            "parts": [(p["convex"], p["concave"]) for p in [report["objective"], *report["constraints"]]],
            "variables": {n: (v["convex"], v["concave"]) for n, v in report["variables"].items()}}


def test_every_twin_has_a_matrix_notation_example():
    assert len(TWINS) >= 15
    for twin in TWINS:
        example = ROOT / "examples" / twin.name
        assert example.read_text() != twin.read_text(), twin.name


@pytest.mark.parametrize("twin", TWINS, ids=lambda p: p.stem)
def test_matrix_notation_example_gets_the_verdict_of_its_einsum_twin(twin):
    example = ROOT / "examples" / twin.name
    matrix, einsum = convexcheck.load_problem(example), convexcheck.load_problem(twin)
    assert matrix.declarations == einsum.declarations and matrix.sense == einsum.sense
    assert _verdicts(example) == _verdicts(twin)


def test_some_examples_stay_in_index_notation():
    kept = [p.name for p in sorted((ROOT / "examples").glob("*.tc")) if "*(" in p.read_text()]
    assert len(kept) >= 3, kept
