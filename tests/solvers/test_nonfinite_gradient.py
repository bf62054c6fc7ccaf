"""A step accepted by its finite value can land where the gradient is not finite: the
loop stops there with status 2 and says so, never a traceback (issue 25, item 4)."""
from __future__ import annotations

import math
import pathlib

import numpy as np
import pytest

import solvers
from solvers.methods.firstorder import LBFGS
from solvers.methods.loop import NOT_FINITE, Evaluation, run
from solvers.methods.options import Options
from solvers.result import Status

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
FEASIBLE = {"a": [0.98, 0.974, 0.504, 0.753], "b": 0.6}
INFEASIBLE = {"a": [0.98, 0.974, 0.504, 0.753], "b": 0.5}      # a.p >= 0.504 on the simplex


def test_lbfgs_on_an_infeasible_entropy_problem_reports_infeasible():
    # the augmented Lagrangian's growing penalty drove p to 1e-311, where the gradient of
    # entr (through 1 / p) overflows: max|g| = inf, and the -g fallback tried the step 0
    got = solvers.minimize(str(EXAMPLES / "constrained.tc"), data=INFEASIBLE, method="lbfgs")
    reference = solvers.minimize(str(EXAMPLES / "constrained.tc"), data=INFEASIBLE)
    assert reference.status == got.status == Status.INFEASIBLE, got.message
    assert got.message.startswith("infeasible")
    assert got.constr_violation == pytest.approx(reference.constr_violation, rel=1e-6)
    assert got.constr_violation == pytest.approx(0.004 / 1.504, rel=1e-6)   # min over the simplex of the largest


def test_lbfgs_on_the_feasible_entropy_problem_agrees_with_newton():
    got = solvers.minimize(str(EXAMPLES / "constrained.tc"), data=FEASIBLE, method="lbfgs")
    reference = solvers.minimize(str(EXAMPLES / "constrained.tc"), data=FEASIBLE)
    assert got.status == reference.status == Status.CONVERGED, got.message
    assert got.fun == pytest.approx(reference.fun, rel=1e-7)
    np.testing.assert_allclose(got.x["p"], reference.x["p"], atol=1e-6)


class _Overflowing:
    """f(z) = -sum(z): finite everywhere, its gradient finite at the start only."""

    xp, n, box = np, 2, None

    def __init__(self):
        self.counts = {"nfev": 0, "njev": 0, "nhev": 0}

    def pack(self, arrays):
        return np.asarray(arrays["z"], dtype=float)

    def unpack(self, z):
        return {"z": z}

    def inside(self, z):
        return True

    def value(self, z, overflow=False):
        return -float(z.sum())

    def value_grad(self, z):
        g = -np.ones(2) if not z.any() else np.array([-math.inf, -1.0])
        return self.value(z), g

    def value_grad_hess(self, z):
        raise AssertionError("not asked")

    def hvp(self, z, v):
        raise AssertionError("not asked")


def test_a_gradient_that_overflows_after_a_step_stops_with_status_2():
    out = run(_Overflowing(), LBFGS(), np.zeros(2), Options(max_iter=10, convex=True))
    assert out.status == Status.LINE_SEARCH_FAILED
    assert "gradient is not finite" in out.message
    assert NOT_FINITE in out.history[-1].fallbacks and len(out.history) == 2


def test_evaluation_is_a_frozen_record():
    ev = Evaluation(1.0, np.zeros(2))
    assert ev.hessian is None and math.isnan(ev.decrement) and not ev.chord
    with pytest.raises(AttributeError):
        ev.f = 2.0          # type: ignore[misc]


def test_a_gradient_that_overflows_at_the_start_fails_the_search_not_the_process():
    """Found by the fuzz harness (constrained target): G = 1e308 makes the augmented
    Lagrangian's gradient overflow where its value is finite, so L-BFGS's first step
    1 / max|g| is 0. The line search refuses a step that is not positive (no trial, no
    ZeroDivisionError), and the solve goes on to phase one, which proves the rows
    1e308 x <= -1 and x == 1 infeasible, as every other method does."""
    data = {"P": np.array([[0.12573022]]), "t": np.array([0.12573022]), "G": np.array([[1e308]]),
            "h": np.array([-1.0])}
    text = (EXAMPLES / "inequality_qp.tc").read_text()
    for method in ("lbfgs", "newton"):
        result = solvers.minimize(text, data=data, method=method, max_iter=30)
        assert result.status == 6 and not result.success, (method, result.message)
        assert "infeasible" in result.message


def test_backtracking_from_a_zero_step_tries_nothing():
    from solvers.methods.linesearch import backtrack
    calls = []
    search = backtrack(lambda t: calls.append(t) or 0.0, 1.0, -1.0, step=0.0)
    assert search.step is None and search.trials == [] and calls == []
