"""Kinks lifted into epigraph variables (solvers/epigraph.py): the lasso, the hinge loss,
an L1 fit, an L1 ball, against scikit-learn and CVXPY; what is not lifted, and why."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.reformulate import epigraph
from solvers.task.prepare import prepare


def _clarabel(problem):
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert problem.status == "optimal"
    return problem.value


@pytest.mark.parametrize("method", ["auto", "newton", "lbfgs"])
def test_lasso_matches_scikit_learn(method):
    sklearn = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 30))
    w0 = np.zeros(30)
    w0[:4] = rng.standard_normal(4)
    y = X @ w0 + 0.1 * rng.standard_normal(200)
    lam = 5.0
    result = solvers.minimize("examples/lasso.tc", data={"X": X, "y": y, "lam": lam}, method=method)
    assert result.status == 0 and result.success, result.message
    assert list(result.x) == ["w"] and result.lifted == ["t_abs"]
    assert not any("epigraph" in k or "t_abs" in k for k in result.multipliers)
    reference = sklearn.Lasso(alpha=lam / 200, fit_intercept=False, tol=1e-14, max_iter=10**6).fit(X, y)
    f = lambda w: 0.5 * np.sum((X @ w - y) ** 2) + lam * np.abs(w).sum()   # noqa: E731
    w = result.x["w"]
    assert result.fun == pytest.approx(f(w), rel=1e-12)                      # the original objective
    assert f(w) <= f(reference.coef_) * (1 + 1e-9)
    np.testing.assert_allclose(result.jac["w"], X.T @ (X @ w - y) + lam * np.sign(w), atol=1e-9)
    # optimality: |X'(Xw - y)| <= lam, with equality where w != 0
    smooth = X.T @ (X @ w - y)
    assert np.abs(smooth).max() <= lam * (1 + 1e-6)


def test_hinge_loss_svm_matches_cvxpy():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 10))
    y = np.sign(X @ rng.standard_normal(10) + 0.3 * rng.standard_normal(120))
    w, b = cp.Variable(10), cp.Variable()
    best = _clarabel(cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - cp.multiply(y, X @ w + b))) + 0.1 * cp.sum_squares(w))))
    result = solvers.minimize("examples/svm_hinge.tc", data={"X": X, "y": y, "lam": 0.1})
    assert result.status == 0 and result.lifted == ["t_relu"]
    assert result.fun == pytest.approx(best, rel=1e-7)
    assert set(result.x) == {"w", "b"}


def test_l1_regression_and_an_l1_ball_match_cvxpy():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(2)
    A, b, c = rng.standard_normal((80, 6)), rng.standard_normal(80), rng.standard_normal(5)
    x = cp.Variable(6)
    best = _clarabel(cp.Problem(cp.Minimize(cp.norm1(A @ x - b))))
    result = solvers.minimize("parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum(abs(A * x - b))\n",
                              data={"A": A, "b": b})
    assert result.status == 0 and result.fun == pytest.approx(best, rel=1e-7)
    x = cp.Variable(5)
    best = _clarabel(cp.Problem(cp.Minimize(cp.sum_squares(x - c)), [cp.norm1(x) <= 1]))
    text = "parameter c[n]\nvariable x[n]\nminimize sum((x - c).^2)\nsubject to\n    1 >= sum(abs(x))\n"
    result = solvers.minimize(text, data={"c": c})
    assert result.status == 0 and result.fun == pytest.approx(best, rel=1e-7)
    assert np.abs(result.x["x"]).sum() <= 1 + 1e-8 and list(result.multipliers) == ["constraint 1"]
    assert result.multipliers["constraint 1"] > 0                             # the ball binds


def test_a_kink_under_negations_of_a_maximisation_is_lifted():
    cp = pytest.importorskip("cvxpy")
    c = np.random.default_rng(3).standard_normal(5)
    x = cp.Variable(5)
    best = _clarabel(cp.Problem(cp.Maximize(-cp.norm1(x - c) - cp.sum_squares(x))))
    result = solvers.minimize("parameter c[n]\nvariable x[n]\nmaximize -sum(abs(x - c)) - sum(x.^2)\n",
                              data={"c": c})
    assert result.status == 0 and result.lifted == ["t_abs"]
    assert result.fun == pytest.approx(best, rel=1e-7)


@pytest.mark.parametrize("text, data", [
    ("variable x[n]\nminimize -sum(abs(x)) + sum(x.^4)\n", {}),                       # falls with the kink
    ("variable x[n]\nminimize sum(abs(x.^2 - 1))\n", {}),                              # curved argument
    ("parameter c\nvariable x[n]\nminimize c * sum(abs(x)) + sum(x.^2)\n", {"c": 2.0}),  # weight of no known sign
    ("variable x[n]\nminimize sum(abs(x)).^2\n", {}),                                   # under a square
])
def test_kinks_that_are_not_lifted(text, data):
    task = prepare(text, data, {"x": np.full(3, 0.5)})
    assert epigraph.lift(task).added == ()


def test_a_variable_only_the_constraints_read():
    text = "variable x[n]\nvariable s\nminimize sum(x.^2)\nsubject to\n    sum(x) + s >= 1\n    s <= 0.5\n"
    for method in ("newton", "lbfgs"):
        result = solvers.minimize(text, x0={"x": np.zeros(3)}, method=method)
        assert result.status == 0
        np.testing.assert_allclose(result.x["x"], 1 / 6, atol=1e-7)
        assert float(result.x["s"]) == pytest.approx(0.5, abs=1e-7)


def test_auto_takes_the_qp_path_for_a_lifted_lasso_beyond_the_dense_limit():
    from solvers.constrained.dispatch import auto
    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((60, 1200)), rng.standard_normal(60)
    task = prepare("examples/lasso.tc", {"X": X, "y": y, "lam": 1.0}, None)
    lifted = epigraph.lift(task)
    assert sum(v.size for v in lifted.task.free) == 2400
    assert auto(lifted.task, lifted.added) == "newton"                  # 1,200 dense entries, a QP
    assert auto(lifted.task) == "newton"                                 # 2,400 <= AUTO_QP as well
    text = "variable x[n]\nvariable z[k]\nminimize sum(exp(x)) + sum(z.^2)\nsubject to\n    sum(z) >= 1\n"
    big = prepare(text, {}, {"x": np.zeros(800), "z": np.zeros(800)})
    assert auto(big) == "lbfgs"                                          # not a QP, 1,600 entries


def test_the_cli_names_the_lifted_variables(tmp_path, capsys):
    import json

    from convexcheck_cli import convexcheck_main as main
    rng = np.random.default_rng(6)
    data = tmp_path / "lasso.npz"
    np.savez(data, X=rng.standard_normal((30, 5)), y=rng.standard_normal(30), lam=1.0)
    assert main(["solve", "examples/lasso.tc", "--data", str(data)]) == 0
    assert "kinks lifted into epigraph variables (solved smooth): t_abs" in capsys.readouterr().out
    assert main(["solve", "examples/lasso.tc", "--data", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lifted"] == ["t_abs"] and list(report["x"]) == ["w"] and report["status"] == 0


def test_denormal_data_does_not_break_the_quasi_newton_update():
    # the fuzz target 'kinks' found it: y.y underflowed to 0 while s.y did not, and
    # L-BFGS divided by it (ZeroDivisionError)
    data = {"X": np.array([[0.12573022]]), "y": np.array([0.12573022]), "lam": 1e-320}
    result = solvers.minimize("examples/svm_hinge.tc", data=data, method="lbfgs", max_iter=30)
    assert result.status in (0, 1, 2)


@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_callbacks_see_the_original_variables_only(method):
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((30, 5)), rng.standard_normal(30)
    seen = []
    result = solvers.minimize("examples/lasso.tc", data={"X": X, "y": y, "lam": 1.0}, method=method,
                              callback=lambda r: seen.append(sorted(r.x)))
    assert result.success and seen and all(keys == ["w"] for keys in seen)


MAXES = [
    # (problem text, CVXPY objective of x; the data are A[8, 3], b[8])
    ("parameter A[8, 3]\nparameter b[8]\nvariable x[3]\nminimize max(abs(A * x - b))",
     lambda cp, A, b, x: cp.norm_inf(A @ x - b), ["t_abs", "t_max"]),
    ("parameter A[8, 3]\nparameter b[8]\nvariable x[3]\nminimize sum(maximum(A * x - b, -0.5 * (A * x - b)))"
     " + 0.1 * sum_squares(x)",
     lambda cp, A, b, x: cp.sum(cp.maximum(A @ x - b, -0.5 * (A @ x - b))) + 0.1 * cp.sum_squares(x), ["t_max"]),
    ("parameter A[8, 3]\nparameter b[8]\nvariable x[3]\nminimize max(A[0:4] * x - b[0:4]) + sum_squares(x)",
     lambda cp, A, b, x: cp.max(A[0:4] @ x - b[0:4]) + cp.sum_squares(x), ["t_max"]),
    ("variable x[3]\nminimize maximum(x' * x, 1 - sum(x))",
     lambda cp, A, b, x: cp.maximum(cp.sum_squares(x), 1 - cp.sum(x)), ["t_max"]),
]


@pytest.mark.parametrize("method", ["auto", "lbfgs"])
@pytest.mark.parametrize("text, cvxpy_objective, lifted", MAXES)
def test_maxes_are_lifted_and_solved_as_cvxpy_does(text, cvxpy_objective, lifted, method):
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(1)
    A, b = rng.standard_normal((8, 3)), rng.standard_normal(8)
    result = solvers.minimize(text, data={"A": A, "b": b} if "A[" in text else {}, method=method)
    x = cp.Variable(3)
    problem = cp.Problem(cp.Minimize(cvxpy_objective(cp, A, b, x)))
    problem.solve(solver="CLARABEL")
    assert problem.status == "optimal"
    reference = problem.value
    assert result.success and result.lifted == lifted and list(result.x) == ["x"]
    assert result.fun == pytest.approx(reference, rel=1e-6, abs=1e-8)
    assert result.fun <= reference + 1e-9 * max(1.0, abs(reference))     # no worse than Clarabel's


def test_maximising_the_smallest_entry_on_the_simplex_spreads_evenly():
    result = solvers.minimize("variable x[4] nonneg\nmaximize min(x)\nsubject to\n  sum(x) == 1")
    assert result.success and result.lifted == ["t_max"]
    np.testing.assert_allclose(result.x["x"], 0.25, atol=1e-8)
    assert result.fun == pytest.approx(0.25, abs=1e-10)


def test_the_original_constraints_violation_is_reported_after_lifting():
    rng = np.random.default_rng(5)
    X, y = rng.standard_normal((30, 8)), rng.standard_normal(30)
    text = ("parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum_squares(X * w - y)\n"
            "subject to\n  sum(abs(w)) <= 0.5")
    for method in ("newton", "lbfgs"):
        result = solvers.minimize(text, data={"X": X, "y": y}, method=method)
        actual = max(0.0, np.abs(result.x["w"]).sum() - 0.5)
        assert result.constr_violation == pytest.approx(actual, abs=1e-15)
        assert result.success == (result.status == 0) and (not result.success or actual <= 1e-10)


def test_the_original_rows_violation_is_read_from_the_lifted_solve(monkeypatch):
    """After a lift, the original constraints' violation comes from the rows the lifted
    solve kept (`dispatch.violation(within=...)`), not from reading them a second time,
    and it is the value a fresh read gives."""
    from solvers.constrained import dispatch, kept
    from solvers.objective import constraints
    from solvers.objective.smooth import Objective
    from solvers.task.prepare import read
    rng = np.random.default_rng(21)
    data = {"A": rng.standard_normal((12, 4)), "b": rng.standard_normal(12)}
    text = ("parameter A[m, 4]\nparameter b[m]\nvariable x[4]\nminimize sum(abs(A * x - b))\nsubject to\n"
            "  sum(x) == 1\n  x[0] - x[1] <= -0.5")
    built = []
    real = constraints.Constraints.__init__
    monkeypatch.setattr(constraints.Constraints, "__init__", lambda self, *a: built.append(1) or real(self, *a))
    kept.clear()
    result = solvers.minimize(text, data, method="newton")
    assert result.success, result.message
    assert len(built) == 1                           # the lifted task's rows only
    task = read(text, data, None)
    fresh = dispatch.violation(task, Objective(task, np), result.x)
    assert result.constr_violation == pytest.approx(fresh, abs=1e-13)
    assert result.x["x"][0] - result.x["x"][1] <= -0.5 + 1e-9
