"""Squares of wide affine maps lifted into a variable and an equality (`solvers.reformulate.squares`):
the same optimum as CVXPY's, the added variable never shown, narrow maps left alone."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import solvers
from solvers.reformulate import squares
from solvers.task.prepare import prepare

TEXT = ("parameter F[k, n]\nparameter d[n]\nparameter q[n]\nvariable x[n]\n"
        "minimize 0.5 * sum(d .* x .^ 2) + 0.5 * sum((F * x) .^ 2) + q' * x\n"
        "subject to\n    x <= 1\n    x >= -1")


def _data(n: int, k: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"F": rng.standard_normal((k, n)) / np.sqrt(n), "d": rng.uniform(0.5, 2.0, n),
            "q": 2 * rng.standard_normal(n)}


def _cvxpy(data: dict[str, np.ndarray]) -> float:
    x = cp.Variable(data["d"].size)
    objective = 0.5 * cp.sum(cp.multiply(data["d"], cp.square(x))) + 0.5 * cp.sum_squares(data["F"] @ x) + data["q"] @ x
    problem = cp.Problem(cp.Minimize(objective), [x <= 1, x >= -1])
    problem.solve(solver="CLARABEL")
    return float(problem.value)


def test_a_wide_map_is_lifted_and_a_narrow_one_is_not():
    wide = squares.lift(prepare(TEXT, _data(400, 20), None))
    assert wide.added == ("r_wide",)
    assert {v.name: v.shape for v in wide.task.free}["r_wide"] == (20,)
    assert [c.label for c in wide.task.constraints][-1] == "definition of r_wide"
    narrow = squares.lift(prepare(TEXT, _data(400, 200), None))         # 200 rows of 400: not wide
    small = squares.lift(prepare(TEXT, _data(60, 5), None))             # too few entries read
    assert narrow.added == small.added == ()


@pytest.mark.parametrize("n, k", [(400, 20), (600, 3)])
def test_the_lifted_box_qp_has_cvxpys_optimum(n, k):
    data = _data(n, k, seed=n + k)
    res = solvers.minimize(TEXT, data, method="auto")
    assert res.success, res.message
    ref = _cvxpy(data)
    assert abs(res.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert set(res.x) == {"x"} and not any("r_wide" in label for label in res.multipliers)
    x = res.x["x"]
    F, d, q = data["F"], data["d"], data["q"]
    assert res.fun == pytest.approx(0.5 * d @ x ** 2 + 0.5 * np.sum((F @ x) ** 2) + q @ x, rel=1e-12)
    np.testing.assert_allclose(res.jac["x"], d * x + F.T @ (F @ x) + q, atol=1e-9)


def test_other_methods_see_the_objective_as_written():
    data = _data(400, 20, seed=3)
    res = solvers.minimize(TEXT.replace("\nsubject to\n    x <= 1\n    x >= -1", ""), data, method="lbfgs")
    assert res.success, res.message
    assert set(res.x) == {"x"}
