"""The augmented Lagrangian (`solvers.constrained.lagrangian`, methods "lbfgs" and "newton-cg" under
general constraints) converges on the constrained benchmark families at small sizes:
maximum entropy with moment constraints (several moments, among them ones whose
solution has p over ten decades, and starts far outside the feasible set), the
long-only portfolio and logistic regression in a norm ball. Each answer is checked
against CVXPY (Clarabel at tight tolerances) and, where it converges, the interior-point
method (method="newton"), with the violation <= 1e-8 and the KKT conditions by hand.
The pieces (scaled coordinates, first penalty, inner tolerance) are checked on their own.
"""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.api import MAX_ITER
from solvers.constrained import lagrangian
from solvers.numerics.linalg import objective_size
from solvers.numerics.space import View
from solvers.objective.constraints import Constraints
from solvers.objective.smooth import Objective
from solvers.task.prepare import prepare

MAXENT, PORTFOLIO, BALL = "examples/maximum_entropy.tc", "examples/portfolio.tc", "examples/logistic_ball.tc"
METHODS = ["lbfgs", "newton-cg"]
# (m1, m2): the benchmark's moments, then ones whose solution crowds p against 0 or 1
MOMENTS = [(0.3, 0.35), (0.9, 0.95), (0.0, 0.05), (0.3, 0.2), (-0.6, 0.6)]


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def clarabel(problem, tol: float = 1e-10) -> float:
    problem.solve(solver="CLARABEL", tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
    assert problem.status == "optimal"
    return problem.value


def converged(result, method: str) -> None:
    """Status 0 well inside the iteration limit, feasible to 1e-8."""
    assert result.status == 0 and result.success, (method, result.message)
    assert result.nit <= 0.9 * MAX_ITER[method], (method, result.nit)
    assert result.constr_violation <= 1e-8


# --------------------------------------------------------------------------- maximum entropy

def maxent_data(n: int, m1: float, m2: float) -> dict:
    return {"a": np.linspace(-1, 1, n), "m1": m1, "m2": m2}


@pytest.fixture(scope="module")
def maxent_references():
    cp = pytest.importorskip("cvxpy")
    out = {}
    for m1, m2 in MOMENTS:
        a = maxent_data(100, m1, m2)["a"]
        p = cp.Variable(100)
        out[m1, m2] = clarabel(cp.Problem(cp.Maximize(cp.sum(cp.entr(p))),
                                          [cp.sum(p) == 1, a @ p == m1, (a * a) @ p <= m2]), tol=1e-9)
    return out


@pytest.mark.parametrize("moments", MOMENTS)
@pytest.mark.parametrize("method", METHODS)
def test_maximum_entropy_converges_and_matches_cvxpy(method, moments, maxent_references):
    data = maxent_data(100, *moments)
    result = solvers.minimize(MAXENT, data=data, method=method)
    converged(result, method)
    assert rel(result.fun, maxent_references[moments]) <= 1e-6
    p, a = result.x["p"], data["a"]
    assert p.min() > 0
    # stationarity of the maximised entropy: log p + 1 + y1 + y2 a + y3 a^2 = 0, y3 >= 0
    y = [result.multipliers[f"constraint {k}"] for k in (1, 2, 3)]
    assert y[2] >= 0 and abs(y[2] * ((a * a) @ p - moments[1])) <= 1e-8
    np.testing.assert_allclose(np.log(p) + 1 + y[0] + y[1] * a + y[2] * a * a, 0.0, atol=1e-6)
    interior = solvers.minimize(MAXENT, data=data, method="newton")
    if interior.status == 0:
        assert rel(result.fun, interior.fun) <= 1e-6


@pytest.mark.parametrize("method", METHODS)
def test_maximum_entropy_from_starts_outside_or_near_the_boundary(method):
    data = maxent_data(30, 0.3, 0.35)
    reference = solvers.minimize(MAXENT, data=data, method="newton")
    assert reference.status == 0
    for p0 in (np.full(30, 1e-6), np.linspace(1e-3, 2.0, 30), np.full(30, 50.0)):
        result = solvers.minimize(MAXENT, data=data, method=method, x0={"p": p0})
        converged(result, method)
        assert rel(result.fun, reference.fun) <= 1e-8


# --------------------------------------------------------------------------- portfolio, ball

@pytest.mark.parametrize("method", METHODS)
def test_portfolio_converges_and_matches_cvxpy(method):
    cp = pytest.importorskip("cvxpy")
    n = 50
    rng = np.random.default_rng(n)
    F = rng.standard_normal((n, 3))
    S = F @ F.T / 3 + np.diag(rng.uniform(0.01, 0.1, n))
    mu = rng.uniform(0.0, 0.2, n)
    data = {"S": S, "mu": mu, "rmin": 0.6 * float(mu.max())}
    result = solvers.minimize(PORTFOLIO, data=data, method=method)
    converged(result, method)
    w = cp.Variable(n, nonneg=True)
    best = clarabel(cp.Problem(cp.Minimize(cp.quad_form(w, S)), [cp.sum(w) == 1, mu @ w >= data["rmin"]]))
    assert rel(result.fun, best) <= 1e-6
    assert rel(result.fun, solvers.minimize(PORTFOLIO, data=data, method="newton").fun) <= 1e-6
    x, y1, y2 = result.x["w"], result.multipliers["constraint 1"], result.multipliers["constraint 2"]
    z = result.multipliers["lower bound of w"]
    np.testing.assert_allclose(2 * S @ x + y1 - y2 * mu - z, 0.0, atol=1e-7)


@pytest.mark.parametrize("method", METHODS)
def test_logistic_in_a_ball_converges_and_matches_cvxpy(method):
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(320)
    X = rng.standard_normal((300, 20))
    y = np.sign(X @ rng.standard_normal(20) + 0.3 * rng.standard_normal(300))
    result = solvers.minimize(BALL, data={"X": X, "y": y, "r": 1.0}, method=method)
    converged(result, method)
    w = cp.Variable(20)
    best = clarabel(cp.Problem(cp.Minimize(cp.sum(cp.logistic(-cp.multiply(y, X @ w)))),
                               [cp.sum_squares(w) <= 1.0]), tol=1e-9)
    assert rel(result.fun, best) <= 1e-6
    x, lam = result.x["w"], result.multipliers["constraint 1"]
    np.testing.assert_allclose(result.jac["w"] + 2 * lam * x, 0.0, atol=1e-6)


@pytest.mark.parametrize("method", METHODS + ["gd"])
def test_pd_matrix_under_a_nonlinear_constraint_matches_the_interior_point(method):
    rng = np.random.default_rng(0)
    B = rng.standard_normal((4, 4))
    data = {"A": (B + B.T) / 2}
    problem = ("parameter A[n, n]\nvariable X[n, n] pd\nminimize sum((X - A)^2) - log(det(X))\n"
               "subject to\n    sum(X *(ij,ij->ij) X) <= 3")
    interior = solvers.minimize(problem, data=data, method="newton")
    result = solvers.minimize(problem, data=data, method=method)
    assert interior.status == 0 and result.status == 0, result.message
    assert result.constr_violation <= 1e-8 and rel(result.fun, interior.fun) <= 1e-8
    assert result.multipliers["constraint 1"] == pytest.approx(interior.multipliers["constraint 1"], rel=1e-5)


def test_an_inactive_inequality_never_raises_the_penalty():
    # V = 0 (feasible, lam = 0) at every outer iteration: no rate to judge, rho stays
    result = solvers.minimize("variable x[n]\nminimize sum((x - 0.1)^2)\nsubject to\n    sum(x^2) <= 1",
                              x0=np.zeros(3), method="lbfgs")
    assert result.status == 0 and result.multipliers["constraint 1"] == 0.0
    np.testing.assert_allclose(result.x["x"], 0.1, atol=1e-9)
    notes = {f for it in result.history for f in it.fallbacks if f.startswith("augmented Lagrangian")}
    assert len(notes) == 1, notes


# --------------------------------------------------------------------------- honesty

def test_outer_iteration_limit_is_status_1_not_success(monkeypatch):
    monkeypatch.setattr(lagrangian, "MAX_OUTER", 2)
    result = solvers.minimize(MAXENT, data=maxent_data(30, 0.3, 0.35), method="lbfgs")
    assert result.status == 1 and not result.success
    assert result.message.startswith("stopped: 2 outer iterations without the KKT conditions; the constraints "
                                     "can be met (")   # feasibility
    assert result.history[-1].kkt > 1e-8


# --------------------------------------------------------------------------- the pieces

def augmented(problem: str, data: dict, rho: float, mult) -> lagrangian.Augmented:
    task = prepare(problem, data, None)
    view = View(Objective(task, np))
    aug = lagrangian.Augmented(view, Constraints(task, view), rho, lagrangian.separable(task, view))
    aug.mult = np.asarray(mult, dtype=float)
    return aug


def test_scaled_coordinates_derivatives_match_finite_differences():
    aug = augmented(MAXENT, maxent_data(8, 0.3, 0.35), 7.0, [1.5, -0.5, 0.4])
    rng = np.random.default_rng(9)
    y = np.exp(rng.uniform(-8, 0, 8))                   # p over decades: a spread diagonal
    s = lagrangian.scaling(aug, y)
    assert s is not None and s.max() == 1.0 and s.min() > 0
    # the diagonal it evens out: entropy's 1/p plus rho J_A' J_A's
    c, J = aug.cons.values_jacobian(y)
    active = np.where(aug.eq | (aug.weights(c) > 0), aug.rho, 0.0)
    d = 1 / y + active @ (J * J)
    np.testing.assert_allclose(s, np.sqrt(d.min() / d), rtol=1e-12)
    scaled = lagrangian.Scaled(aug, s)
    u = y / s
    f, g = scaled.value_grad(u)
    assert f == pytest.approx(aug.value(y), rel=1e-14)
    v = rng.standard_normal(8)
    for k in range(8):
        h = 1e-6 * u[k]
        e = np.zeros(8)
        e[k] = h
        assert (scaled.value(u + e) - scaled.value(u - e)) / (2 * h) == pytest.approx(g[k], rel=1e-6, abs=1e-8)
    h = 1e-6 * u.min()
    fd = (scaled.value_grad(u + h * v)[1] - scaled.value_grad(u - h * v)[1]) / (2 * h)
    np.testing.assert_allclose(scaled.hvp(u, v), fd, rtol=1e-5, atol=1e-6)
    H = scaled.value_grad_hess(u)[2]
    np.testing.assert_allclose(H @ v, scaled.hvp(u, v), rtol=1e-10, atol=1e-10)
    assert scaled.box is not None and scaled.box.above == pytest.approx(0.0)


def test_no_scaling_where_the_objective_hessian_is_dense():
    rng = np.random.default_rng(1)
    S = np.cov(rng.standard_normal((10, 4)).T) + np.eye(4)
    aug = augmented(PORTFOLIO, {"S": S, "mu": np.full(4, 0.1), "rmin": 0.05}, 1.0, [0.0, 0.0])
    assert lagrangian.scaling(aug, np.full(4, 0.25)) is None
    assert lagrangian.Scaled(aug).plain


def test_first_penalty_balances_the_penalty_against_the_objective():
    problem = "variable x[n]\nminimize sum(x^2)\nsubject to\n    sum(x) == 1\n    x *(i,i->) x <= 2"
    task = prepare(problem, None, {"x": np.full(4, 3.0)})
    view = View(Objective(task, np))
    cons = Constraints(task, view)
    # f = 36, c = (11, 34): rho = 10 * 36 / ((121 + 1156) / 2)
    assert lagrangian.first_penalty(view, cons, view.pack(task.x0)) == pytest.approx(360 / 638.5)
    task = prepare(problem, None, {"x": np.zeros(4)})    # f = 0, c = (-1, -2): 10 * 1 / max(1, 1/2)
    assert lagrangian.first_penalty(View(Objective(task, np)), Constraints(task, view), np.zeros(4)) == 10.0


def test_inner_tolerance_follows_the_outer_progress():
    assert lagrangian._tolerance(start=1.0, V=5.0, target=1e-8) == pytest.approx(0.1)    # a tenth of the start
    assert lagrangian._tolerance(start=1.0, V=1e-3, target=1e-8) == 1e-3                  # the violation
    assert lagrangian._tolerance(start=1.0, V=1e-12, target=1e-8) == 1e-8                 # at least the target
    # a start that already meets the target must still step: a tenth of it, to 1e-10
    assert lagrangian._tolerance(start=5e-9, V=1e-9, target=1e-8) == pytest.approx(5e-10)
    assert lagrangian._tolerance(start=1e-12, V=1e-9, target=1e-8) == pytest.approx(1e-10)


def test_first_penalty_at_a_feasible_start():
    """A start that violates nothing (lifted kinks start on their epigraph) has no violation to
    balance f against: the median |g|, the multipliers' scale, not 10 |f| (svm_hinge's rho = 1600 left
    L-BFGS 1,400 of its 2,000 iterations in the first two outer iterations, one BLAS kernel
    passing, others not); FEASIBLE_RHO where g = 0."""
    problem = "variable x[n]\nminimize sum(x^2)\nsubject to\n    sum(x) <= 100"
    for x0, rho in ((3.0, 6.0), (0.0, lagrangian.FEASIBLE_RHO)):
        task = prepare(problem, None, {"x": np.full(4, x0)})
        view = View(Objective(task, np))
        assert lagrangian.first_penalty(view, Constraints(task, view), view.pack(task.x0)) == rho


# --------------------------------------------------------------------------- scale (issue 26, item 4)

LP = "parameter c[n]\nparameter s pos\nvariable x[n] nonneg <= 1\nminimize s * c' * x\nsubject to\n    sum(x) <= 1.5"


@pytest.mark.parametrize("s", [1.0, 1e-9])
def test_the_penalty_and_the_stop_follow_the_objective_size(s):
    """An LP times s is the same problem: rho_1 scales with it (a penalty of 1 on costs of
    1e-9 crawled to the iteration limit), the inner method sees L / s (`Scaled`'s k: L-BFGS's
    first step min(1, 1 / max|g|) moved 1e-9 per iteration), and the stop asks for a
    stationarity in its scale. (From x0 = 0 L-BFGS still runs out where s <= 1e-7: the
    violation's stop is absolute, so rho ends near the same value as for s = 1, stiff for L / s.)"""
    c = np.array([-3.0, -1.0, 2.0, -2.0])
    task = prepare(LP, {"c": c, "s": s}, {"x": np.zeros(4)})
    view = View(Objective(task, np))
    y = view.pack(task.x0)
    f, g = view.value_grad(y)
    size = objective_size(np, f, g, y)
    assert size == pytest.approx(min(1.0, 3 * s))       # f = 0, max|g| = 3 s at x0 = 0
    assert lagrangian.first_penalty(view, Constraints(task, view), y, size) == pytest.approx(2 * s)   # median |g|
    for method in METHODS:
        result = solvers.minimize(LP, data={"c": c, "s": s}, method=method)
        assert result.status == 0, (method, result.message)
        np.testing.assert_allclose(result.x["x"], [1.0, 0.0, 0.0, 0.5], atol=1e-8)
        assert result.multipliers["constraint 1"] == pytest.approx(2 * s, rel=1e-6)


def test_a_met_violation_does_not_floor_the_inner_tolerance():
    assert lagrangian._unmet(1e-15, feasible=1e-10) == 0.0
    assert lagrangian._unmet(1e-3, feasible=1e-10) == 1e-3


def test_projected_stationarity_has_no_rounding_of_z_minus_g():
    """z - P(z - g) rounds z - g to eps |z|: a gradient of 1e-9 showed an error of 1e-7 of
    itself; g clipped to [z - u, z - l] is the same in exact arithmetic and exact inside."""
    from solvers.methods.loop import stationarity
    task = prepare("variable x[n] nonneg <= 1\nminimize sum(x)", None, {"x": np.full(3, 0.5)})
    view = View(Objective(task, np))
    z = np.array([0.3, 0.0, 1.0])
    g = np.array([1e-9 / 3, 2.0, 5.0])
    np.testing.assert_array_equal(stationarity(view, z, g), [1e-9 / 3, 0.0, 1.0])
    g = np.array([-7e-10, -1.0, -5.0])
    np.testing.assert_array_equal(stationarity(view, z, g), [-7e-10, -1.0, 0.0])


def test_jacobi_scaling_where_the_objective_hessian_spans_decades():
    lasso = "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum((X * w - y) .^ 2)"
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20, 4))
    for columns, scaled in ((np.ones(4), False), (np.logspace(-3, 3, 4), True)):
        task = prepare(lasso, {"X": X * columns, "y": rng.standard_normal(20)}, None)
        view = View(Objective(task, np))
        assert lagrangian.jacobi(task, view, view.pack(task.x0)) is scaled
    task = prepare(MAXENT, maxent_data(8, 0.3, 0.35), None)      # block diagonal: always
    view = View(Objective(task, np))
    assert lagrangian.jacobi(task, view, np.full(8, 0.125))
