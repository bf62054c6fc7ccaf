"""Rows that bound one variable become its bounds (`solvers.reformulate.bounds`), and the
result speaks of the rows again: their multipliers, from the KKT conditions of a
projection whose answer is known in closed form."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.reformulate.bounds import BOUNDS, read_row
from solvers.task.prepare import read

PROJECTION = """variable x[n]{decl}
parameter a[n]
minimize 0.5 * sum((x - a).^2)
subject to
{rows}"""
A = np.array([-2.0, -0.25, 0.3, 0.9, 1.5, 3.0])


def _task(rows: str, decl: str = "", data: dict | None = None):
    text = PROJECTION.format(decl=decl, rows=rows)
    return read(text, {"a": A, **(data or {})}, None)


@pytest.mark.parametrize("row, side, bound, scale", [
    ("x >= -1", "lower", -1.0, 1.0),
    ("x <= 1", "upper", 1.0, 1.0),
    ("2 * x - 4 <= 0", "upper", 2.0, 2.0),
    ("-3 * x <= 6", "lower", -2.0, 3.0),
    ("x - 1 >= -3", "lower", -2.0, 1.0),
    ("x >= c", "lower", 0.5, 1.0),            # fixed data the same in every entry
])
def test_a_row_on_one_whole_variable_is_read_as_its_bound(row, side, bound, scale):
    text = PROJECTION.format(decl="\nparameter c[n]", rows="  " + row)
    task = read(text, {"a": A, "c": np.full(A.size, 0.5)}, None)
    found = read_row(task.constraints[0], {v.name: v for v in task.free}, task.fixed)
    assert found is not None and (found.side, found.scale) == (side, scale)
    assert found.bound == pytest.approx(bound, rel=1e-15)


@pytest.mark.parametrize("row", [
    "x >= c",                                  # data that differs between entries
    "sum(x) <= 1",                             # not entry by entry
    "x .^ 2 <= 1",                             # not affine
    "x == 0.5",                                # an equality
    "x + y <= 1",                              # two variables
    "x *(i,i->i) c >= 0",                      # scaled by data that differs
    "0 * x <= 1",                              # no coefficient
])
def test_rows_that_are_no_bound_stay_rows(row):
    text = PROJECTION.format(decl="\nvariable y[n]\nparameter c[n]", rows="  " + row)
    task = read(text, {"a": A, "c": np.linspace(0.1, 0.6, A.size)}, None)
    assert read_row(task.constraints[0], {v.name: v for v in task.free}, task.fixed) is None
    assert BOUNDS.apply(task) == (task, None)


def test_the_tightest_row_owns_a_side_and_the_others_keep_zero_multipliers():
    result = solvers.minimize(PROJECTION.format(decl="", rows="  x >= -1\n  x >= 0\n  x <= 1\n  x <= 5"),
                              {"a": A})
    assert result.success
    np.testing.assert_allclose(result.x["x"], np.clip(A, 0, 1), atol=1e-7)
    # x - a - z_lower + z_upper = 0 at the projection: z_lower = max(-a, 0), z_upper = max(a - 1, 0)
    m = result.multipliers
    assert list(m) == ["constraint 1", "constraint 2", "constraint 3", "constraint 4"]
    np.testing.assert_allclose(m["constraint 2"], np.maximum(-A, 0), atol=1e-6)
    np.testing.assert_allclose(m["constraint 3"], np.maximum(A - 1, 0), atol=1e-6)
    assert not m["constraint 1"].any() and not m["constraint 4"].any()


def test_a_scaled_row_gets_its_bound_multiplier_divided_by_the_scale():
    result = solvers.minimize(PROJECTION.format(decl="", rows="  -2 * x <= 0\n  4 * x - 4 <= 0"), {"a": A})
    assert result.success
    np.testing.assert_allclose(result.multipliers["constraint 1"], np.maximum(-A, 0) / 2, atol=1e-6)
    np.testing.assert_allclose(result.multipliers["constraint 2"], np.maximum(A - 1, 0) / 4, atol=1e-6)


def test_a_declared_bound_keeps_its_multiplier_where_it_is_at_least_as_tight():
    looser = solvers.minimize(PROJECTION.format(decl=" nonneg", rows="  x >= -1\n  x <= 1"), {"a": A})
    assert looser.success and not looser.multipliers["constraint 1"].any()
    np.testing.assert_allclose(looser.multipliers["lower bound of x"], np.maximum(-A, 0), atol=1e-6)
    tighter = solvers.minimize(PROJECTION.format(decl=" nonneg", rows="  x >= 0.5\n  x <= 1"), {"a": A})
    assert tighter.success
    np.testing.assert_allclose(tighter.x["x"], np.clip(A, 0.5, 1), atol=1e-7)
    np.testing.assert_allclose(tighter.multipliers["constraint 1"], np.maximum(0.5 - A, 0), atol=1e-6)
    assert not tighter.multipliers["lower bound of x"].any()


def test_no_bound_entry_appears_that_the_problem_did_not_declare():
    result = solvers.minimize(PROJECTION.format(decl="", rows="  x >= 0"), {"a": A})
    assert result.success and set(result.multipliers) == {"constraint 1"}


def test_a_scalar_variable_gets_a_number():
    result = solvers.minimize("variable x\nminimize (x - 3)^2\nsubject to\n  x <= 1")
    assert result.success and result.x["x"] == pytest.approx(1.0, abs=1e-7)
    assert isinstance(result.multipliers["constraint 1"], float)
    assert result.multipliers["constraint 1"] == pytest.approx(4.0, rel=1e-6)   # 2 (x - 3) + y = 0


def test_rows_that_leave_no_interior_stay_rows():
    task = _task("  x >= 1\n  x <= 1")
    assert BOUNDS.apply(task) == (task, None)
    result = solvers.minimize(PROJECTION.format(decl="", rows="  x >= 1\n  x <= 1"), {"a": A})
    assert result.success
    np.testing.assert_allclose(result.x["x"], np.ones(A.size), atol=1e-7)
