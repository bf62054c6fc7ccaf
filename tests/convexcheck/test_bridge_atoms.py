"""The CVXPY bridge on every atom of the DCP generator's table (issue 6, "done when"):
each generated CVXPY expression translates, its translation takes the same values as
CVXPY's `.value`, and the verdicts through the bridge never contradict DCP."""
import math

import numpy as np
import pytest

cp = pytest.importorskip("cvxpy")

from dcp_atoms import ATOMS, evaluate, random_cases, sample_point  # noqa: E402

import convexcheck  # noqa: E402
import tensorcalc as tc  # noqa: E402


def _cases_by_atom(per_atom: int = 2, limit: int = 3000) -> dict:
    found: dict = {name: [] for name in ATOMS}
    for case in random_cases(limit, seed=7):
        for atom in set(case.atoms):
            if len(found[atom]) < per_atom:
                found[atom].append(case)
        if all(len(v) >= per_atom for v in found.values()):
            break
    return found


CASES = _cases_by_atom()


def test_every_atom_of_the_table_is_generated():
    assert [name for name, cases in CASES.items() if not cases] == []


@pytest.mark.parametrize("atom", sorted(ATOMS))
def test_bridge_translates_every_atom(atom):
    rng = np.random.default_rng(0)
    for case in CASES[atom]:
        expr, variables = case.cvxpy()
        problem, data = convexcheck.from_cvxpy(expr)
        for _ in range(3):
            point = sample_point(case, rng)
            want = evaluate(expr, variables, point)
            if not math.isfinite(want):
                continue
            with np.errstate(all="ignore"):
                got = float(tc.evaluate(problem.objective.expr, {**data, **point}))
            if not math.isfinite(got) and abs(want) > 700 and "exp(" in problem.text:
                continue      # log(1 + exp(z)) written out overflows where CVXPY's atom does not
            assert got == pytest.approx(want, rel=1e-8, abs=1e-8), (case.text, problem.text)
        report = convexcheck.analyze(problem, samples=4, data=data)
        if expr.is_convex():
            assert report.objective.convex.status != "disproved", (case.text, problem.text)
        if expr.is_concave():
            assert report.objective.concave.status != "disproved", (case.text, problem.text)


def test_bridge_translates_nested_compositions():
    """The second generator's CVXPY expressions (non-smooth atoms included) through the
    bridge take CVXPY's values."""
    from dcp_nested import random_cases as nested_cases
    rng = np.random.default_rng(1)
    for case in nested_cases(40, seed=11):
        expr, variables = case.cvxpy()
        problem, data = convexcheck.from_cvxpy(expr)
        for _ in range(2):
            point = sample_point(case, rng)
            want = evaluate(expr, variables, point)
            with np.errstate(all="ignore"):
                got = float(tc.evaluate(problem.objective.expr, {**data, **point}))
            if math.isfinite(want) and math.isfinite(got):
                assert got == pytest.approx(want, rel=1e-8, abs=1e-8), (case.text, problem.text)
            else:
                assert math.isnan(want) and math.isnan(got) or "exp(" in problem.text, (case.text, want, got)
