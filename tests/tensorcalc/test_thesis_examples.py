"""Every example input of the thesis parses and differentiates correctly (issue 2, done-when 1)."""
import pathlib

import numpy as np
import pytest
from conftest import DATA

import tensorcalc as tc
from tensorcalc.derivatives.check import axis_lengths, check_derivative

LINES = [line.strip() for line in (DATA / "thesis_examples.tc").read_text().splitlines()
         if line.strip() and not line.startswith("#")]
VALID, LAST = LINES[:-1], LINES[-1]


def test_vendored_copy_matches_shared():
    shared = pathlib.Path(__file__).parents[3] / "shared" / "thesis_examples.tc"
    if not shared.exists():
        pytest.skip("../shared is not beside this checkout")
    assert shared.read_text() == (DATA / "thesis_examples.tc").read_text()


@pytest.mark.parametrize("line", VALID)
def test_derivative_matches_finite_differences(line):
    inp = tc.parse(line)
    for seed in range(3):
        result = check_derivative(inp.expr, inp.declared[inp.wrt], seed=seed, variables=inp.declared)
        assert result.error <= 1e-6, (line, seed, result)
        assert np.isfinite(result.symbolic).all()


@pytest.mark.parametrize("line", VALID)
def test_second_derivative_matches_finite_differences(line):
    inp = tc.parse(line)
    result = check_derivative(inp.expr, inp.declared[inp.wrt], order=2, variables=inp.declared)
    assert result.error <= 1e-6, (line, result)


def test_axis_lengths_differ_where_unification_allows():
    inp = tc.parse("declare A 2 B 2 x 1 expression (A*(ij,ij->ij)B) *(ij,j->i) x derivative wrt x")
    lengths = axis_lengths([inp.expr, *inp.declared.values()])
    assert sorted(lengths.values()) == [2, 3]          # two axis classes: A's rows and columns
    assert all(2 <= n <= 5 for n in lengths.values())


def test_last_line_is_rejected_naming_a():
    with pytest.raises(tc.ParseError, match=r"line 1, column \d+: derivative wrt 'a': 'a' is not declared") as err:
        tc.parse(LAST)
    assert "^" in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize("line", VALID)
def test_all_orders_up_to_three(line):
    inp = tc.parse(line)
    x = inp.declared[inp.wrt]
    if inp.expr.order + 3 * x.order > 8:
        pytest.skip(f"a third derivative of order {inp.expr.order + 3 * x.order} has too many entries "
                    f"to check entry by entry with finite differences")
    for order in (2, 3):
        for seed in range(3):
            result = check_derivative(inp.expr, inp.declared[inp.wrt], order=order, seed=seed,
                                      variables=inp.declared)
            assert result.error <= 1e-6, (line, order, seed, result)
