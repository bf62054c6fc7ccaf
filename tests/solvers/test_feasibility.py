"""Infeasible constraints (solvers.constrained.feasibility): status 6 with the least largest violation
that phase one finds, checked against SciPy's linprog and CVXPY solving the same phase-one
problem; the conflicting constraints named; feasible problems left as they were."""
import json

import numpy as np
import pytest
from scipy.optimize import linprog

import solvers
from convexcheck_cli import convexcheck_main as main


def _lp_phase_one(G, h, E=None, e=None):
    """min t over x >= 0, t >= -1 with G x - h <= t and |E x - e| <= t (SciPy's HiGHS)."""
    m, n = G.shape
    rows, rhs = [np.hstack([G, -np.ones((m, 1))])], [h]
    if E is not None:
        ones = -np.ones((len(e), 1))
        rows += [np.hstack([E, ones]), np.hstack([-E, ones])]
        rhs += [e, -e]
    c = np.zeros(n + 1)
    c[-1] = 1.0
    res = linprog(c, A_ub=np.vstack(rows), b_ub=np.concatenate(rhs), bounds=[(0, None)] * n + [(-1, None)])
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("method", ["newton", "lbfgs"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_infeasible_system_is_status_6_with_linprogs_least_violation(method, seed):
    rng = np.random.default_rng(seed)
    G = rng.uniform(0.5, 1.5, (3, 4))                 # G x >= 0 for x >= 0, so G x <= h < 0 fails
    h = -rng.uniform(0.5, 2.0, 3)
    text = "parameter G[3, 4]\nparameter h[3]\nvariable x[4] nonneg\nminimize sum(x .^ 2)\nsubject to\n  G * x <= h"
    result = solvers.minimize(text, data={"G": G, "h": h}, method=method)
    least = _lp_phase_one(G, h)
    assert least > 0.1
    assert result.status == 6 and not result.success
    assert result.message.startswith("infeasible: constraint 1 and lower bound of x cannot hold together")
    assert abs(result.constr_violation - least) <= 1e-6 * max(1.0, least)
    assert result.x["x"].min() >= 0
    assert np.max(G @ result.x["x"] - h) <= least + 1e-6      # x is a point of least violation


def test_conflicting_equalities_name_both():
    text = "variable x[2]\nminimize sum(x .^ 2)\nsubject to\n  x' * vector(1) == 1\n  x' * vector(1) == 2"
    result = solvers.minimize(text)
    E = np.ones((2, 2))
    assert result.status == 6
    assert "constraint 1 and constraint 2 cannot hold together" in result.message
    free = linprog([0, 0, 1], A_ub=[[1, 1, -1], [-1, -1, -1], [1, 1, -1], [-1, -1, -1]],
                   b_ub=[1, -1, 2, -2], bounds=[(None, None)] * 2 + [(-1, None)])
    assert abs(result.constr_violation - free.fun) <= 1e-6
    assert np.allclose(E @ result.x["x"], 1.5, atol=1e-5)


def test_a_curved_infeasible_pair_matches_cvxpys_phase_one():
    cp = pytest.importorskip("cvxpy")
    text = "variable x[3]\nminimize sum(exp(x))\nsubject to\n  x' * x <= 1\n  sum(x) >= 3"
    result = solvers.minimize(text)
    x, t = cp.Variable(3), cp.Variable()
    ref = cp.Problem(cp.Minimize(t), [cp.sum_squares(x) - 1 <= t, 3 - cp.sum(x) <= t, t >= -1])
    ref.solve(solver=cp.CLARABEL)
    assert result.status == 6
    assert abs(result.constr_violation - ref.value) <= 1e-6
    assert "constraint 1 and constraint 2" in result.message


def test_a_feasible_problem_is_not_touched():
    text = "variable x[3] nonneg\nminimize sum((x - 1) .^ 2)\nsubject to\n  sum(x) <= 2"
    result = solvers.minimize(text)
    assert result.status == 0 and result.success and "infeasible" not in result.message
    assert np.allclose(result.x["x"], 2 / 3, atol=1e-7)


def test_a_feasible_problem_stopped_early_says_the_constraints_can_be_met():
    text = "variable x[3] nonneg\nminimize sum(exp(x) - x)\nsubject to\n  sum(x) >= 2"
    result = solvers.minimize(text, max_iter=2, method="lbfgs")
    assert result.status == 1 and result.constr_violation > 1e-3
    assert result.message.endswith("; the constraints can be met (with room to spare: phase one minimised the "
                                   "largest violation), so the solve itself stopped early")


def test_the_cli_reports_an_infeasible_problem_and_exits_1(tmp_path, capsys):
    path = tmp_path / "infeasible.tc"
    path.write_text("variable x[2] nonneg\nminimize sum(x .^ 2)\nsubject to\n  x' * vector(1) <= -1\n")
    assert main(["solve", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == 6 and out["success"] is False
    assert out["message"].startswith("infeasible: constraint 1 and lower bound of x cannot hold together")
