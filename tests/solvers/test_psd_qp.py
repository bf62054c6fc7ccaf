"""Definite matrix variables on the QP path (`solvers.constrained.definite`): semidefinite
programs with a linear or quadratic objective and affine constraints solved by Mehrotra's
method with HKM terms, checked against CVXPY with Clarabel and against their own KKT
conditions (C + sum nu_k A_k - Z = 0, Z psd, <X, Z> = 0)."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.constrained import pathfollow, qp

cp = pytest.importorskip("cvxpy")


def _clarabel(problem) -> float:
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert problem.status == "optimal"
    return float(problem.value)


def _paths(monkeypatch) -> dict[str, int]:
    """Counts of QP solves that finished (not None) and of `pathfollow` solves."""
    calls = {"qp": 0, "pathfollow": 0}
    real_qp, real_pf = qp.solve, pathfollow.solve

    def on_qp(*args, **kwargs):
        out = real_qp(*args, **kwargs)
        calls["qp"] += out is not None
        return out

    def on_pf(*args, **kwargs):
        calls["pathfollow"] += 1
        return real_pf(*args, **kwargs)
    monkeypatch.setattr(qp, "solve", on_qp)
    monkeypatch.setattr(pathfollow, "solve", on_pf)
    return calls


def _trace_sdp(n: int, p: int, seed: int):
    rng = np.random.default_rng(seed)
    C = rng.normal(size=(n, n))
    C = C @ C.T + np.eye(n)
    A = [(lambda a: a + a.T)(rng.normal(size=(n, n))) for _ in range(p)]
    X0 = rng.normal(size=(n, n))
    X0 = X0 @ X0.T + np.eye(n)
    return C, A, [float(np.trace(a @ X0)) for a in A]


@pytest.mark.parametrize("n, p, seed", [(3, 2, 1), (3, 2, 80), (4, 3, 2), (5, 4, 3), (6, 4, 81), (8, 5, 5)])
def test_a_trace_sdp_is_solved_to_clarabels_value_and_its_kkt(n, p, seed, monkeypatch):
    """Larger ones may leave the QP path where its steps stall (then `pathfollow` solves
    them): whichever finishes, the answer is checked; the 3 x 3 ones finish on the QP path
    in about 12 iterations, far from any stall."""
    C, A, b = _trace_sdp(n, p, seed)
    X = cp.Variable((n, n), PSD=True, name="X")
    problem = cp.Problem(cp.Minimize(cp.trace(C @ X)), [cp.trace(A[k] @ X) == b[k] for k in range(p)])
    best = _clarabel(problem)
    calls = _paths(monkeypatch)
    result = solvers.minimize(problem, method="auto")
    assert result.success, result.message
    if n == 3:
        assert calls == {"qp": 1, "pathfollow": 0}
    assert abs(result.fun - best) <= 1e-6 * max(1.0, abs(best))
    Xs, Z = result.x["X"], result.multipliers["cone of X"]
    nu = [result.multipliers[f"constraint {k + 1}"] for k in range(p)]
    scale = max(1.0, np.abs(C).max())
    np.testing.assert_allclose(C + sum(v * a for v, a in zip(nu, A)), Z, atol=1e-6 * scale)
    assert np.linalg.eigvalsh((Z + Z.T) / 2).min() >= -1e-8 * scale
    assert np.linalg.eigvalsh((Xs + Xs.T) / 2).min() >= -1e-8 * max(1.0, np.abs(Xs).max())
    assert abs(np.sum(Xs * Z)) <= 1e-6 * max(1.0, abs(best))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_nearest_correlation_matrix_is_a_qp_with_a_definite_cone(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    G = rng.uniform(-1, 1, size=(5, 5))
    G = (G + G.T) / 2
    np.fill_diagonal(G, 1.0)                          # symmetric, unit diagonal, mostly indefinite
    X = cp.Variable((5, 5), PSD=True, name="X")
    problem = cp.Problem(cp.Minimize(cp.sum_squares(X - G)), [cp.diag(X) == 1])
    best = _clarabel(problem)
    calls = _paths(monkeypatch)
    result = solvers.minimize(problem, method="auto")
    assert result.success, result.message
    assert calls == {"qp": 1, "pathfollow": 0}
    assert abs(result.fun - best) <= 1e-6 * max(1.0, abs(best))
    np.testing.assert_allclose(np.diagonal(result.x["X"]), np.ones(5), atol=1e-8)


def test_an_nsd_variable_keeps_its_sign_on_the_qp_path(monkeypatch):
    text = "parameter C[3, 3]\nvariable X[3, 3] nsd\nminimize tr(C * X)\nsubject to\n  tr(X) >= -2"
    C = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 3.0]])   # positive definite
    calls = _paths(monkeypatch)
    result = solvers.minimize(text, {"C": C}, method="auto")
    assert result.success, result.message
    assert calls == {"qp": 1, "pathfollow": 0}
    # the minimum puts all of the trace -2 on the eigenvector of C's largest eigenvalue
    high = np.linalg.eigvalsh(C).max()
    assert result.fun == pytest.approx(-2 * high, rel=1e-7)
    assert np.linalg.eigvalsh(result.x["X"]).max() <= 1e-8
