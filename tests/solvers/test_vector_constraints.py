"""Constraints between tensors, one constraint per entry (`G * x <= h`): their analysis
(convexcheck.problem.entrywise: the weighted scalar w . (g - h), w >= 0) and their solution
(solvers.objective.constraints.Rows), against CVXPY's answers and dual values."""
from __future__ import annotations

import json

import numpy as np
import pytest

import convexcheck
import solvers

LINEAR = """parameter G[m, n]
parameter h[m]
parameter q[n]
variable x[n] >= -1
minimize sum(x.^2) + q' * x
subject to
    G * x <= h
    sum(x) == 1
"""


def _verdicts(text):
    report = convexcheck.analyze(text, samples=10, seed=0)
    return report.verdict, [(c.convex.status, c.concave.status) for c in report.constraints]


@pytest.mark.parametrize("constraint, need, proven", [
    ("G * x <= h", "convex", True),                # affine rows
    ("exp(x) <= 3", "convex", True),
    ("x.^2 <= 1", "convex", True),
    ("log(x + 2) >= 0", "concave", True),
    ("G * x == h", "affine", True),
    ("x.^2 >= 0.5", "concave", False),              # each entry convex, not concave
    ("sin(x) <= 0.5", "convex", False),
    ("exp(x) == 1", "affine", False),
])
def test_entrywise_constraint_verdicts(constraint, need, proven):
    text = LINEAR.replace("    G * x <= h\n", f"    {constraint}\n")
    verdict, parts = _verdicts(text)
    convex, concave = parts[0]
    ok = {"convex": convex == "proven", "concave": concave == "proven",
          "affine": convex == concave == "proven"}[need]
    assert ok == proven
    assert (verdict == "convex") == proven
    if not proven:                                  # never proven, and a witness where one exists
        affine = "proven" if convex == concave == "proven" else "x"
        assert {"convex": convex, "concave": concave, "affine": affine}[need] != "proven"


def test_a_witness_against_one_entry_is_found():
    text = LINEAR.replace("    G * x <= h\n", "    x.^2 >= 0.5\n")
    report = convexcheck.analyze(text, samples=10, seed=0)
    assert report.constraints[0].concave.status == "disproved"


def _cvxpy_linear(G, h, q):
    cp = pytest.importorskip("cvxpy")
    x = cp.Variable(q.size)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x) + q @ x), [G @ x <= h, cp.sum(x) == 1, x >= -1])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return problem


@pytest.mark.parametrize("method", ["newton", "lbfgs", "newton-cg", "auto"])
@pytest.mark.parametrize("seed", range(3))
def test_linear_rows_match_cvxpy_values_and_duals(method, seed):
    rng = np.random.default_rng(seed)
    G, h, q = rng.standard_normal((6, 5)), rng.uniform(0, 1, 6), rng.standard_normal(5)
    result = solvers.minimize(LINEAR, data={"G": G, "h": h, "q": q}, method=method)
    reference = _cvxpy_linear(G, h, q)
    assert result.status == 0, result.message
    assert result.fun == pytest.approx(reference.value, rel=1e-7, abs=1e-9)
    assert result.constr_violation <= 1e-8
    lam = result.multipliers["constraint 1"]
    assert lam.shape == (6,) and lam.min() >= 0
    np.testing.assert_allclose(lam, reference.constraints[0].dual_value, atol=1e-5)
    x = result.x["x"]
    np.testing.assert_allclose(lam * (G @ x - h), 0.0, atol=1e-7)     # complementarity per row


def test_curved_rows_match_cvxpy():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(7)
    q, r = rng.standard_normal(6), rng.uniform(0.5, 2.0, 6)
    text = ("parameter q[n]\nparameter r[n]\nvariable x[n]\nminimize q' * x + 0.1 * sum(x.^2)\n"
            "subject to\n    x.^2 <= r\n")
    x = cp.Variable(6)
    problem = cp.Problem(cp.Minimize(q @ x + 0.1 * cp.sum_squares(x)), [cp.square(x) <= r])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    for method in ("newton", "lbfgs"):
        result = solvers.minimize(text, data={"q": q, "r": r}, method=method)
        assert result.status == 0, result.message
        assert result.fun == pytest.approx(problem.value, rel=1e-7)
        assert result.constr_violation <= 1e-8
        np.testing.assert_allclose(result.multipliers["constraint 1"], problem.constraints[0].dual_value, atol=1e-5)


def test_matrix_rows_match_cvxpy():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(3)
    A, B, C = rng.standard_normal((4, 3)), rng.standard_normal((3, 2)), rng.uniform(0.0, 1.0, (4, 2))
    text = ("parameter A[m, n]\nparameter B[n, k]\nparameter C[m, k]\nvariable X[n, k]\n"
            "minimize sum((X - B).^2)\nsubject to\n    A * X <= C\n")
    X = cp.Variable((3, 2))
    problem = cp.Problem(cp.Minimize(cp.sum_squares(X - B)), [A @ X <= C])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    result = solvers.minimize(text, data={"A": A, "B": B, "C": C}, method="auto")
    assert result.status == 0 and result.fun == pytest.approx(problem.value, rel=1e-7, abs=1e-10)
    mult = result.multipliers["constraint 1"]
    assert mult.shape == (4, 2)
    np.testing.assert_allclose(mult, problem.constraints[0].dual_value, atol=1e-5)


def test_equality_rows_and_the_cli(tmp_path, capsys):
    rng = np.random.default_rng(5)
    A, b = rng.standard_normal((2, 5)), rng.standard_normal(2)
    text = "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum(x.^2)\nsubject to\n    A * x == b\n"
    result = solvers.minimize(text, data={"A": A, "b": b})
    x = np.linalg.lstsq(A, b, rcond=None)[0]                      # the least-norm solution
    assert result.status == 0
    np.testing.assert_allclose(result.x["x"], x, atol=1e-8)
    nu = result.multipliers["constraint 1"]
    np.testing.assert_allclose(2 * result.x["x"] + A.T @ nu, 0.0, atol=1e-7)
    from convexcheck_cli import convexcheck_main as main
    problem, data, out = tmp_path / "p.tc", tmp_path / "d.npz", tmp_path / "x.npz"
    problem.write_text(text)
    np.savez(data, A=A, b=b)
    assert main(["solve", str(problem), "--data", str(data), "--out", str(out)]) == 0
    assert "constraint 1" in capsys.readouterr().out
    np.testing.assert_allclose(np.load(out)["solve.multipliers.constraint 1"], nu)
    assert main(["solve", str(problem), "--data", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(report["multipliers"]["constraint 1"], nu)


@pytest.mark.parametrize("constraint", ["sum(h) >= 0", "h >= 0", "h == 1"])
def test_a_constraint_on_the_data_alone_that_holds_is_dropped(constraint):
    text = f"parameter h[m]\nvariable x[n]\nminimize sum(x.^2)\nsubject to\n    {constraint}\n    sum(x) == 1\n"
    result = solvers.minimize(text, data={"h": np.ones(3)}, x0={"x": np.zeros(2)})
    assert result.status == 0 and list(result.multipliers) == ["constraint 2"]
    np.testing.assert_allclose(result.x["x"], 0.5)


@pytest.mark.parametrize("constraint", ["sum(h) >= 5", "h >= 5", "h == 2"])
def test_a_constraint_on_the_data_alone_that_fails_is_named(constraint):
    text = f"parameter h[m]\nvariable x[n]\nminimize sum(x.^2)\nsubject to\n    {constraint}\n"
    with pytest.raises(solvers.SolverError, match=r"constraint 1 \(.*line 5\) reads no variable and does not hold"):
        solvers.minimize(text, data={"h": np.ones(3)}, x0={"x": np.zeros(2)})
