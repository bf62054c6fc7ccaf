"""Derivatives of log(det(X)) and log(abs(det(X))) read inv(X)^T (the simplifier's
adj(Y) / det(Y) = inv(Y) and sign(a) / |a| = 1 / a), so Hessians and Hessian-vector
products cost O(p^3) per direction instead of the O(p^4) minors of d adj; det(X) and
adj(X) alone keep their exact rules, also at singular X. Oracles: central finite
differences (Richardson, `tensorcalc.derivatives.check.finite_difference`) and NumPy's inverse."""
import numpy as np
import pytest

import tensorcalc as tc
from convexcheck import analyze, load_problem
from tensorcalc import dag
from tensorcalc.dag import Special
from tensorcalc.derivatives.check import finite_difference

RNG = np.random.default_rng(20261123)
MLE = "C *(ij,ij->) X - log(det(X)) + lam * sum(X^2)"
ORDERS = {"X": 2, "C": 2, "lam": 0}


def pd_matrix(p: int) -> np.ndarray:
    a = RNG.normal(size=(p, p))
    return a @ a.T / p + 0.5 * np.eye(p)


def nonsymmetric(p: int, sign: float) -> np.ndarray:
    """A well-conditioned non-symmetric matrix whose det has the given sign."""
    while True:
        x = RNG.normal(size=(p, p)) + 1.5 * np.eye(p)
        x[0] *= sign * np.sign(np.linalg.det(x))
        if np.linalg.cond(x) < 50 and np.abs(x - x.T).max() > 0.1:
            return x


def specials(expr) -> set[str]:
    return {n.fn for n in dag.topo(expr) if isinstance(n, Special)}


def derivatives(text: str):
    """The expression, its gradient in X, the Hessian (order 4) and the HVP along V."""
    e = tc.parse_expr(text, ORDERS)
    g = tc.derivative(e, "X")
    return e, g, tc.derivative(g, "X"), tc.pushforward(g, "X", "V")


def assert_close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * np.abs(expected).max())


def check_against_differences(text: str, x: np.ndarray):
    e, g, h, hvp = derivatives(text)
    p = x.shape[0]
    values = {"X": x, "C": pd_matrix(p), "lam": 0.05, "V": RNG.normal(size=(p, p))}
    grad = tc.evaluate(g, values)
    assert_close(grad, finite_difference(e, "X", values))
    hess = tc.evaluate(h, values)
    assert hess.shape == (p,) * 4
    assert_close(hess, finite_difference(g, "X", values))
    assert_close(tc.evaluate(hvp, values), np.einsum("abcd,cd->ab", hess, values["V"]))
    return values, grad, hess


@pytest.mark.parametrize("p", [2, 3, 4, 5])
@pytest.mark.parametrize("kind", ["pd", "nonsymmetric"])
def test_log_det_derivatives_match_finite_differences(p, kind):
    x = pd_matrix(p) if kind == "pd" else nonsymmetric(p, 1.0)
    values, grad, hess = check_against_differences("log(det(X))", x)
    inv = np.linalg.inv(x)
    assert_close(grad, inv.T, 1e-12)
    assert_close(hess, -np.einsum("bc,da->abcd", inv, inv), 1e-12)


@pytest.mark.parametrize("p", [2, 3, 4, 5])
@pytest.mark.parametrize("kind", ["pd", "nonsymmetric"])
def test_mle_objective_derivatives_match_finite_differences(p, kind):
    x = pd_matrix(p) if kind == "pd" else nonsymmetric(p, 1.0)
    values, grad, _ = check_against_differences(MLE, x)
    assert_close(grad, values["C"] - np.linalg.inv(x).T + 2 * 0.05 * x, 1e-12)


@pytest.mark.parametrize("p", [2, 3, 4, 5])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_log_abs_det_derivatives_match_finite_differences(p, sign):
    x = nonsymmetric(p, sign)
    assert np.sign(np.linalg.det(x)) == sign
    _, grad, _ = check_against_differences("log(abs(det(X)))", x)
    assert_close(grad, np.linalg.inv(x).T, 1e-12)


@pytest.mark.parametrize("text", ["log(det(X))", "log(abs(det(X)))", MLE, "-2 * log(det(X)) + sum(X)"])
def test_log_det_derivatives_build_no_adjugate(text):
    e, g, h, hvp = derivatives(text)
    for expr in (g, h, hvp, tc.pushforward(e, "X", "V")):
        assert "adj" not in specials(expr) and "det" not in specials(expr)
        assert "inv" in specials(expr)
    compiled = tc.compile({"grad": g, "hess": h, "hvp": hvp})
    assert "'adj'" not in compiled.source and "dadj" not in compiled.source and "'inv'" in compiled.source


def test_hvp_of_the_mle_is_one_inverse_and_matrix_sized_contractions():
    """H v = inv(X)^T v^T inv(X)^T + 2 lam v: one inverse, then contractions whose results
    are p x p (opt_einsum pairs them at O(p^3)), never the p^4 minors tensor."""
    _, _, _, hvp = derivatives(MLE)
    compiled = tc.compile(hvp)
    assert [s.code for s in compiled.plan.steps if "_special" in s.code] == ["_special('inv', xp, {})"]
    assert all(len(eq.split("->")[1]) <= 2 for eq in compiled.plan.contractions), compiled.plan.contractions
    p = 40
    x = pd_matrix(p)
    values = {"X": x, "C": pd_matrix(p), "lam": 0.05, "V": RNG.normal(size=(p, p))}
    inv = np.linalg.inv(x)
    assert_close(compiled(**values), inv.T @ values["V"].T @ inv.T + 2 * 0.05 * values["V"], 1e-10)


def test_det_and_adj_alone_keep_their_exact_rules_at_singular_matrices():
    """d det = adj^T and d adj (the Hessian of det) stay exact at a singular X, where inv is
    not (the rewrite needs 1 / det(X), undefined there). Higher derivatives of adj are out
    of scope here: they are not exact at singular X (nor were they before the rewrite)."""
    for p in (2, 3, 4):
        x = RNG.normal(size=(p, p - 1)) @ RNG.normal(size=(p - 1, p))   # rank p - 1: det = 0, adj != 0
        values = {"X": x}
        det = tc.parse_expr("det(X)", {"X": 2})
        g = tc.derivative(det, "X")
        assert specials(g) == {"adj"}
        assert_close(tc.evaluate(g, values), finite_difference(det, "X", values), 1e-7)
        assert_close(tc.evaluate(tc.derivative(g, "X"), values), finite_difference(g, "X", values), 1e-7)
        adj = tc.parse_expr("sum(adj(X))", {"X": 2})
        assert_close(tc.evaluate(tc.derivative(adj, "X"), values), finite_difference(adj, "X", values), 1e-7)


def test_rewrite_needs_the_same_matrix_and_the_same_entry():
    orders = {"X": 2, "Y": 2, "x": 1, "y": 1}
    kept = ["adj(X) *(ij,->ij) (1 / det(Y))", "adj(X) *(ij,->ij) det(X)", "sign(x) *(i,i->i) (1 / abs(y))",
            "sign(x) *(i,j->ij) (1 / abs(x))"]
    for text in kept:
        assert "inv" not in specials(tc.simplify(tc.parse_expr(text, orders))), text
        assert "recip(x)" not in tc.to_text(tc.simplify(tc.parse_expr(text, orders)))
    e = tc.simplify(tc.parse_expr("sign(x) *(i,i->i) (1 / abs(x))", orders))
    x = RNG.normal(size=5)
    np.testing.assert_allclose(tc.evaluate(e, {"x": x}), 1 / x, rtol=1e-15)
    assert {n.fn for n in dag.topo(e) if isinstance(n, dag.Elementwise)} == {"recip"}


def test_matrix_notation_prints_the_transposed_inverse():
    g = tc.derivative(tc.parse_expr("log(det(X))", {"X": 2}), "X")
    assert tc.to_text(g, "matrix") == "inv(X)'"
    mle = tc.derivative(tc.parse_expr(MLE, ORDERS), "X")
    assert "inv(X)'" in tc.to_text(mle, "matrix") and "adj" not in tc.to_text(mle, "matrix")


@pytest.mark.parametrize("path, need", [("examples/covariance_mle.tc", "convex"), ("examples/log_det.tc", "concave")])
def test_log_det_problems_are_still_proven_convex(path, need):
    report = analyze(load_problem(path)).objective.to_dict()
    assert report[need] == "proven" and "inv(X) inv(X)" in report["proof"][need][0], report["proof"]
