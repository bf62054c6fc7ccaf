"""Huber terms under constraints split as min_w w^2 + 2|A - w| (`solvers.reformulate.epigraph`), so
the interior point meets a QP; without constraints, or for L-BFGS, they stay smooth. Checked against
CVXPY; and `auto` sends a QP with a block-diagonal Hessian to Newton at any size."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import solvers
from solvers.constrained import dispatch
from solvers.reformulate import epigraph
from solvers.task.prepare import prepare

FIT = ("parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(huber(X * w - y))\n"
       "subject to\n    sum(w) == 1")


def _data(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 6))
    y = X @ rng.standard_normal(6) + rng.standard_normal(40)
    y[::5] += 8 * rng.standard_normal(8)                  # outliers: some residuals past the kink
    return {"X": X, "y": y}


def _reference(data: dict[str, np.ndarray], constrained: bool = True) -> float:
    w = cp.Variable(6)
    problem = cp.Problem(cp.Minimize(cp.sum(cp.huber(data["X"] @ w - data["y"]))),
                         [cp.sum(w) == 1] if constrained else [])
    problem.solve(solver="CLARABEL")
    return float(problem.value)


def test_split_under_constraints_only():
    data = _data()
    split = epigraph.lift(prepare(FIT, data, None))
    assert split.added == ("w_huber", "t_abs")
    free = prepare(FIT.replace("\nsubject to\n    sum(w) == 1", ""), data, None)
    assert epigraph.lift(free).added == ()                 # smooth Newton is faster there
    assert epigraph.lift(prepare(FIT, data, None), huber=False).added == ()


@pytest.mark.parametrize("seed", range(3))
def test_the_split_fit_has_cvxpys_optimum(seed):
    data = _data(seed)
    res = solvers.minimize(FIT, data, method="auto")
    assert res.success, res.message
    ref = _reference(data)
    assert abs(res.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert set(res.x) == {"w"} and res.constr_violation <= 1e-8
    assert res.lifted == ["w_huber", "t_abs"]


def test_lbfgs_keeps_the_smooth_huber():
    data = _data(4)
    res = solvers.minimize(FIT, data, method="lbfgs")
    assert res.success, res.message
    assert abs(res.fun - _reference(data)) <= 1e-5 * max(1.0, abs(res.fun))
    assert not getattr(res, "lifted", None)


def test_auto_takes_newton_for_a_large_separable_qp_only():
    n = 3000
    rng = np.random.default_rng(1)
    sep = prepare("parameter c[n]\nvariable x[n]\nvariable z[n]\nminimize sum(x .^ 2) + sum(z .^ 2) + c' * x\n"
                  "subject to\n    x + z == 1", {"c": rng.standard_normal(n)}, None)
    assert dispatch.auto(sep) == "newton"
    dense = prepare("parameter A[k, n]\nvariable x[n]\nvariable z[n]\nminimize sum((A * x) .^ 2) + sum(z .^ 2)\n"
                    "subject to\n    x + z == 1", {"A": rng.standard_normal((4, n))}, None)
    assert dispatch.auto(dense) == "lbfgs"                  # A'A couples every entry of x
    cross = prepare("variable x[n]\nvariable z[n]\nminimize sum((x + z) .^ 2)\nsubject to\n    x - z == 1",
                    None, {"x": np.zeros(n), "z": np.zeros(n)})
    assert dispatch.auto(cross) == "lbfgs"                  # a second derivative between x and z
