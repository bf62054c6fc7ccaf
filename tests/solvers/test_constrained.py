"""Constraints, closed bounds and matrix cones in `solvers.minimize` (issue 16, items 1-4).

Each case is checked against an independent reference (CVXPY with Clarabel at tight
tolerances, or scipy.optimize.nnls): the objective to 1e-6 relative (1e-5 for the cone
problems), every constraint to 1e-8, and the KKT conditions by hand from `jac` and
`multipliers`. Larger sizes run under -m slow.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.optimize
from conftest import cupy_or_skip

import solvers
from solvers.numerics.space import View
from solvers.objective.constraints import Constraints
from solvers.objective.smooth import Objective
from solvers.task.prepare import prepare

PORTFOLIO = "examples/portfolio.tc"
MLE = "examples/covariance_mle.tc"
NNLS = "examples/nnls.tc"
MAXENT = "examples/maximum_entropy.tc"
BALL = "examples/logistic_ball.tc"


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def reference(problem, tol: float = 1e-10) -> float:
    """The optimal value by CVXPY's Clarabel at tolerance `tol` (exponential cones reach
    about 1e-9)."""
    problem.solve(solver="CLARABEL", tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
    assert problem.status == "optimal"
    return problem.value


# --------------------------------------------------------------------------- cases

def portfolio_data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((n, 3))
    S = F @ F.T / 3 + np.diag(rng.uniform(0.01, 0.1, n))
    mu = rng.uniform(0.0, 0.2, n)
    return {"S": S, "mu": mu, "rmin": 0.6 * float(mu.max())}


@pytest.mark.parametrize("method", ["newton", "auto", "lbfgs", "newton-cg"])
def test_portfolio_matches_cvxpy(method):
    cp = pytest.importorskip("cvxpy")
    data = portfolio_data(12)
    result = solvers.minimize(PORTFOLIO, data=data, method=method)
    assert result.status == 0 and result.success, result.message
    assert result.constr_violation <= 1e-8
    S, mu, rmin = data["S"], data["mu"], data["rmin"]
    w = cp.Variable(12, nonneg=True)
    best = reference(cp.Problem(cp.Minimize(cp.quad_form(w, S)), [cp.sum(w) == 1, mu @ w >= rmin]))
    assert rel(result.fun, best) <= 1e-6
    x = result.x["w"]
    assert x.min() >= 0 and abs(x.sum() - 1) <= 1e-8 and mu @ x >= rmin - 1e-8
    # KKT by hand: 2 S w + y1 * 1 + y2 * (-mu) - z = 0, z >= 0, y2 >= 0, z w = 0, y2 (rmin - mu w) = 0
    y1, y2 = result.multipliers["constraint 1"], result.multipliers["constraint 2"]
    z = result.multipliers["lower bound of w"]
    assert y2 >= 0 and z.min() >= 0
    np.testing.assert_allclose(2 * S @ x + y1 - y2 * mu - z, 0.0, atol=1e-7)
    np.testing.assert_allclose(result.jac["w"], 2 * S @ x, atol=1e-12)
    assert np.abs(z * x).max() <= 1e-8 and abs(y2 * (rmin - mu @ x)) <= 1e-8


def test_portfolio_interior_point_history_records_the_kkt_residual():
    result = solvers.minimize(PORTFOLIO, data=portfolio_data(12), method="auto")
    assert result.method == "newton" and result.nit <= 25
    kkt = [it.kkt for it in result.history]
    assert all(math.isfinite(k) for k in kkt) and kkt[-1] <= 1e-8 < kkt[0]
    assert all(it.violation >= 0 for it in result.history)
    assert result.history[-1].violation <= 1e-10


@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs", "gd"])
def test_nnls_matches_scipy(method):
    rng = np.random.default_rng(1)
    A, b = rng.standard_normal((30, 10)), rng.standard_normal(30)
    result = solvers.minimize(NNLS, data={"A": A, "b": b}, method=method,
                              max_iter=20000 if method == "gd" else None)
    assert result.status == 0, result.message
    x_ref, norm = scipy.optimize.nnls(A, b)
    assert rel(result.fun, norm ** 2) <= 1e-10
    x = result.x["x"]
    np.testing.assert_allclose(x, x_ref, atol=1e-7)
    assert x.min() == 0.0 and (x == 0).sum() == (x_ref == 0).sum()    # on the bound, exactly
    g = result.jac["x"]
    z = result.multipliers["lower bound of x"]
    np.testing.assert_allclose(z[x == 0], g[x == 0])                   # the multipliers are g there
    assert g[x == 0].min() > 0 and np.abs(g[x > 0]).max() <= 1e-8
    assert result.constr_violation == 0.0


def test_closed_bounds_are_projected_not_a_domain():
    # x <= 1.5 (closed): the first Newton trial from x = -3 lands at 36 and is projected
    # onto the bound, where f is finite and lower (the strict `< 1.5` is a domain:
    # tests/test_solvers_fallbacks.py)
    result = solvers.minimize("variable x <= 1.5\nminimize exp(x) - 2 * x", x0=-3.0)
    assert result.history[0].trials[0] == (1.0, pytest.approx(math.exp(1.5) - 3.0))
    assert result.status == 0 and result.x["x"] == pytest.approx(math.log(2), abs=1e-8)
    # the minimiser on the bound: exp(x) - 4x has its free minimum at log 4 > 1.2
    result = solvers.minimize("variable x <= 1.2\nminimize exp(x) - 4 * x")
    assert result.status == 0 and float(result.x["x"]) == 1.2
    assert result.multipliers["upper bound of x"] == pytest.approx(4 - math.exp(1.2))


@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs", "gd"])
def test_nonconvex_objective_on_a_box_reaches_a_corner(method):
    # -|x|^2 + 0.1 sum(x) on [-1, 1]^2 from 0, a maximum: the curvature check steps off it,
    # and at the corner (-1, -1), where both bounds bind, the masked Hessian says minimum
    result = solvers.minimize("variable x[n] >= -1 <= 1\nminimize -sum(x^2) + 0.1 * sum(x)",
                              x0=np.zeros(2), method=method)
    assert result.status == 0 and result.convexity != "convex", result.message
    np.testing.assert_array_equal(result.x["x"], [-1.0, -1.0])
    assert result.fun == pytest.approx(-2.2)
    np.testing.assert_allclose(result.multipliers["lower bound of x"], 2.1)


def test_mle_over_pd_matrices_from_the_identity_matches_cvxpy():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(2)
    p = 5
    C = np.cov(rng.standard_normal((12, p)).T)
    for method in ("newton", "newton-cg", "lbfgs"):
        result = solvers.minimize(MLE, data={"C": C, "lam": 0.1}, method=method)
        assert result.status == 0, (method, result.message)
        assert result.history[0].f == pytest.approx(np.trace(C) + 0.1 * p)   # X0 = I
        X = result.x["X"]
        np.testing.assert_array_equal(X, X.T)
        assert np.linalg.eigvalsh(X).min() > 0 and result.constr_violation == 0.0
        # stationarity: C - inv(X) + 2 lam X = 0 (symmetric, so the symmetric gradient is it)
        np.testing.assert_allclose(C - np.linalg.inv(X) + 0.2 * X, 0.0, atol=1e-8)
    V = cp.Variable((p, p), PSD=True)
    best = reference(cp.Problem(cp.Minimize(cp.trace(C @ V) - cp.log_det(V) + 0.1 * cp.sum_squares(V))), tol=1e-9)
    assert rel(result.fun, best) <= 1e-5 and result.fun <= best + 1e-7


def test_psd_variable_on_the_boundary_of_its_cone():
    # the projection of a symmetric A onto the psd cone clips its negative eigenvalues:
    # a solution on the cone's boundary, kept by the interior-point method's dual Z
    rng = np.random.default_rng(3)
    B = rng.standard_normal((5, 5))
    A = (B + B.T) / 2
    w, V = np.linalg.eigh(A)
    assert w.min() < 0 < w.max()
    result = solvers.minimize("parameter A[n, n]\nvariable X[n, n] psd\nminimize sum((X - A)^2)",
                              data={"A": A})
    assert result.status == 0 and result.method == "newton", result.message
    np.testing.assert_allclose(result.x["X"], (V * np.maximum(w, 0)) @ V.T, atol=1e-7)
    assert result.fun == pytest.approx(float(np.sum(np.minimum(w, 0) ** 2)), rel=1e-8)
    Z = result.multipliers["cone of X"]
    np.testing.assert_allclose(Z, 2 * (result.x["X"] - A), atol=1e-7)     # the cone's dual
    assert abs(np.sum(Z * result.x["X"])) <= 1e-8


@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_maximum_entropy_with_moments_matches_cvxpy(method):
    cp = pytest.importorskip("cvxpy")
    n = 15
    a = np.linspace(-1, 1, n)
    data = {"a": a, "m1": 0.3, "m2": 0.35}
    result = solvers.minimize(MAXENT, data=data, method=method)
    assert result.status == 0, result.message
    assert result.constr_violation <= 1e-8
    p = cp.Variable(n)
    best = reference(cp.Problem(cp.Maximize(cp.sum(cp.entr(p))),
                                [cp.sum(p) == 1, a @ p == 0.3, (a ** 2) @ p <= 0.35]), tol=1e-9)
    assert rel(result.fun, best) <= 1e-5 and result.fun >= best - 1e-7
    x = result.x["p"]
    # stationarity of the maximised entropy: -(log p + 1) = y1 + y2 a + y3 a^2 (y3 >= 0)
    y = [result.multipliers[f"constraint {k}"] for k in (1, 2, 3)]
    assert y[2] >= 0
    np.testing.assert_allclose(np.log(x) + 1 + y[0] + y[1] * a + y[2] * a ** 2, 0.0, atol=1e-6)


@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_logistic_regression_in_a_norm_ball_matches_cvxpy(method):
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 4))
    y = np.sign(X @ np.array([3.0, -2.0, 1.0, 0.5]) + 0.3 * rng.standard_normal(60))
    result = solvers.minimize(BALL, data={"X": X, "y": y, "r": 1.0}, method=method)
    assert result.status == 0, result.message
    w = cp.Variable(4)
    best = reference(cp.Problem(cp.Minimize(cp.sum(cp.logistic(-cp.multiply(y, X @ w)))),
                                [cp.sum_squares(w) <= 1.0]), tol=1e-9)
    assert rel(result.fun, best) <= 1e-6
    x = result.x["w"]
    assert x @ x <= 1.0 + 1e-8 and result.constr_violation <= 1e-8
    lam = result.multipliers["constraint 1"]
    assert lam > 0                                                  # the ball binds
    np.testing.assert_allclose(result.jac["w"] + 2 * lam * x, 0.0, atol=1e-6)


# --------------------------------------------------------------------------- honesty

def test_no_success_without_the_kkt_conditions():
    result = solvers.minimize(PORTFOLIO, data=portfolio_data(12), max_iter=3)
    assert result.status == 1 and not result.success
    assert result.history[-1].kkt > 1e-8
    # infeasible: sum(w) == 1 with w >= 0 cannot earn more than max(mu)
    data = portfolio_data(6)
    data["rmin"] = 2 * float(data["mu"].max())
    result = solvers.minimize(PORTFOLIO, data=data)
    assert not result.success and result.constr_violation > 1e-3


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("scale", [0.0, 1e-300, 1e8, 1e200])
@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_hostile_data_ends_in_a_status_or_a_documented_error(scale, method):
    # labels near 1e200 once made the interior point's shifted Cholesky loop forever
    rng = np.random.default_rng(8)
    X = rng.standard_normal((4, 2))
    y = np.array([scale, 0.7, scale, -0.6])
    try:
        result = solvers.minimize(BALL, data={"X": X, "y": y, "r": 1.3e8}, method=method, max_iter=50)
    except solvers.SolverError:
        return
    assert result.status in (0, 1, 2, 5) and result.success == (result.status == 0)


def test_maximize_with_constraints_reports_the_maximum():
    result = solvers.minimize("variable x[n]\nmaximize -sum(x^2) + sum(x)\nsubject to\n    sum(x) <= 1",
                              x0=np.zeros(3))
    assert result.status == 0
    np.testing.assert_allclose(result.x["x"], 1 / 3, atol=1e-8)
    assert result.fun == pytest.approx(1 - 1 / 3, abs=1e-10)
    assert result.multipliers["constraint 1"] == pytest.approx(1 / 3, abs=1e-8)


def test_constraint_derivatives_match_finite_differences():
    """The View's reduced gradient and Hessian (symmetric X by its upper triangle) and
    the constraint Jacobian, against central differences in the reduced coordinates."""
    problem = ("parameter C[n, n]\nvariable X[n, n] symmetric\nvariable v[n]\n"
               "minimize sum(C *(ij,ij->ij) X *(ij,ij->ij) X) + sum(v^4) + v *(i,ij->j) X *(j,j->) v\n"
               "subject to\n    sum(X^3) + sum(v) <= 4\n    sum(v) == 1")
    rng = np.random.default_rng(5)
    task = prepare(problem, {"C": rng.uniform(1, 2, (3, 3))}, {"X": np.eye(3), "v": np.ones(3)})
    view = View(Objective(task, np))
    cons = Constraints(task, view)
    y = rng.standard_normal(view.n)
    f, g, H = view.value_grad_hess(y)
    c, J = cons.values_jacobian(y)
    h = 1e-6
    for k in range(view.n):
        e = np.zeros(view.n)
        e[k] = h
        assert (view.value(y + e) - view.value(y - e)) / (2 * h) == pytest.approx(g[k], rel=1e-6, abs=1e-6)
        np.testing.assert_allclose((view.value_grad(y + e)[1] - view.value_grad(y - e)[1]) / (2 * h), H[:, k],
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose((cons.values(y + e) - cons.values(y - e)) / (2 * h), J[:, k], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(H, H.T, atol=1e-10)
    W = cons.hessian(y, np.array([2.0, 5.0]))
    dJ = np.stack([(cons.values_jacobian(y + h * e)[1][0] - cons.values_jacobian(y - h * e)[1][0]) / (2 * h)
                   for e in np.eye(view.n)], axis=1)
    np.testing.assert_allclose(W, 2.0 * dJ, rtol=1e-5, atol=1e-5)      # the affine one adds nothing


def test_cli_method_auto_writes_violation_and_multipliers(tmp_path, capsys):
    from convexcheck_cli import convexcheck_main as main
    data = tmp_path / "data.npz"
    np.savez(data, **portfolio_data(8))
    out = tmp_path / "w.npz"
    assert main(["solve", PORTFOLIO, "--data", str(data), "--method", "auto", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "largest constraint violation" in printed and "multiplier of constraint 2" in printed
    saved = np.load(out)
    assert float(saved["solve.constr_violation"]) <= 1e-8 and bool(saved["solve.success"])
    assert float(saved["solve.multipliers.constraint 2"]) >= 0
    assert saved["solve.multipliers.lower bound of w"].shape == (8,)
    assert main(["solve", PORTFOLIO, "--data", str(data), "--method", "auto", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["method"] == "newton" and report["constr_violation"] <= 1e-8
    assert set(report["multipliers"]) == {"constraint 1", "constraint 2", "lower bound of w"}
    assert all(h["kkt"] is not None for h in report["history"])


# --------------------------------------------------------------------------- sizes

@pytest.mark.slow
@pytest.mark.parametrize("n", [100, 400])
def test_portfolio_larger(n):
    cp = pytest.importorskip("cvxpy")
    data = portfolio_data(n, seed=n)
    result = solvers.minimize(PORTFOLIO, data=data, method="auto")
    assert result.status == 0 and result.constr_violation <= 1e-8
    w = cp.Variable(n, nonneg=True)
    best = reference(cp.Problem(cp.Minimize(cp.quad_form(w, data["S"])),
                                [cp.sum(w) == 1, data["mu"] @ w >= data["rmin"]]))
    assert rel(result.fun, best) <= 1e-6


@pytest.mark.slow
def test_nnls_larger():
    rng = np.random.default_rng(6)
    A, b = rng.standard_normal((2000, 200)), rng.standard_normal(2000)
    result = solvers.minimize(NNLS, data={"A": A, "b": b}, method="auto")
    x_ref, norm = scipy.optimize.nnls(A, b)
    assert result.status == 0 and rel(result.fun, norm ** 2) <= 1e-10


@pytest.mark.slow
def test_mle_larger_by_auto():
    rng = np.random.default_rng(7)
    p = 80                    # 6,400 entries: more than auto builds Hessians for
    C = np.cov(rng.standard_normal((200, p)).T)
    result = solvers.minimize(MLE, data={"C": C, "lam": 0.05}, method="auto")
    assert result.method == "lbfgs" and result.status == 0
    X = result.x["X"]
    np.testing.assert_allclose(C - np.linalg.inv(X) + 0.1 * X, 0.0, atol=1e-7)


def test_gpu_matches_cpu():
    """The constrained paths on CuPy arrays (skipped without a CUDA device)."""
    cupy_or_skip()
    rng = np.random.default_rng(1)
    cases = [(PORTFOLIO, portfolio_data(12), "newton"), (PORTFOLIO, portfolio_data(12), "lbfgs"),
             (NNLS, {"A": rng.standard_normal((30, 10)), "b": rng.standard_normal(30)}, "newton"),
             (MLE, {"C": np.cov(rng.standard_normal((12, 4)).T), "lam": 0.1}, "newton")]
    for problem, data, method in cases:
        cpu = solvers.minimize(problem, data=data, method=method)
        gpu = solvers.minimize(problem, data=data, method=method, device="gpu")
        assert gpu.status == 0 and gpu.constr_violation <= 1e-8, (problem, method, gpu.message)
        assert rel(gpu.fun, cpu.fun) <= 1e-9
        for name in cpu.x:
            np.testing.assert_allclose(gpu.x[name], cpu.x[name], atol=1e-7)
