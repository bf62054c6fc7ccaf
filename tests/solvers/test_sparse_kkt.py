"""The sparse KKT systems of the QP path (solvers/numerics/sparse.py): the factor solves
[[K, E'], [E, 0]] exactly where that system is nonsingular (dependent equality rows
included), refuses a K that is not positive definite, and the QP path run sparse and run
dense reach the same answer (objective, point, multipliers, status), which is CVXPY's
with Clarabel at tight tolerances to 1e-6 relative. Spies show which path ran: `sparse.SIZE`
and `sparse.ROWS` set to 0 send these small problems down the sparse path, `sparse.worth` set to refuse
sends them down the dense one.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import solvers
from solvers.constrained import kept, pathfollow
from solvers.numerics import sparse

cp = pytest.importorskip("cvxpy")


def _second_difference(n: int) -> sp.spmatrix:
    return sp.diags([np.ones(n - 2), -2 * np.ones(n - 2), np.ones(n - 2)], [0, 1, 2], shape=(n - 2, n))


def box_qp() -> cp.Problem:
    rng = np.random.default_rng(1)
    n = 120
    x = cp.Variable(n, name="x")
    d, q = rng.uniform(0.5, 2.0, n), 3 * rng.standard_normal(n)
    smooth = cp.sum_squares(x[1:] - x[:-1])                        # H tridiagonal
    return cp.Problem(cp.Minimize(0.5 * cp.sum(cp.multiply(d, cp.square(x))) + smooth + q @ x),
                      [x >= -1, x <= 1, x[1:] - x[:-1] <= 0.4])     # bounds and sparse rows


def trend_filter() -> cp.Problem:
    rng = np.random.default_rng(2)
    n = 100
    y = np.cumsum(rng.standard_normal(n))
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(y - x) + 5.0 * cp.norm1(_second_difference(n) @ x)))


def sparse_lp() -> cp.Problem:
    rng = np.random.default_rng(3)
    n, m = 150, 100
    A = sp.random(m, n, density=0.01, random_state=4, format="csr") + sp.eye(m, n)
    x0 = rng.uniform(0.2, 0.8, n)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(rng.standard_normal(n) @ x), [A @ x <= A @ x0 + 0.1, x >= 0, x <= 1])


def equalities(redundant: bool) -> cp.Problem:
    rng = np.random.default_rng(5)
    n = 80
    E = sp.diags([np.ones(n - 1), -np.ones(n - 1)], [0, 1], shape=(n - 1, n)).tocsr()[::4]
    if redundant:                                  # a repeated row and the sum of two: rank unchanged
        E = sp.vstack([E, E[2], E[0] + E[1]]).tocsr()
    a = rng.standard_normal(n)
    e = E @ rng.uniform(0.5, 1.5, n)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(x - a) + cp.sum(x[::3])), [E @ x == e, x >= 0])


CASES = {"box_qp": box_qp, "trend_filter": trend_filter, "sparse_lp": sparse_lp,
         "equalities": lambda: equalities(False), "redundant_equalities": lambda: equalities(True)}


def _clarabel(build) -> float:
    problem = build()
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert problem.status == "optimal"
    return float(problem.value)


def _solve(build, monkeypatch, path: str):
    """minimize on the path asked for, and how many sparse factors and general solves ran."""
    calls = {"sparse": 0, "general": 0}
    real_factor, real_general = sparse.factor, pathfollow.solve

    def factor(*args):
        calls["sparse"] += 1
        return real_factor(*args)

    def general(*args, **kwargs):
        calls["general"] += 1
        return real_general(*args, **kwargs)

    kept.clear()                   # equal data: the other path's kept QP would be reused
    with monkeypatch.context() as m:
        m.setattr(sparse, "factor", factor)
        m.setattr(pathfollow, "solve", general)
        if path == "sparse":
            m.setattr(sparse, "SIZE", 0)
            m.setattr(sparse, "ROWS", 0)
        else:
            m.setattr(sparse, "worth", lambda *a: False)
        return solvers.minimize(build(), method="auto"), calls


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_and_dense_paths_agree_with_clarabel(name, monkeypatch):
    build = CASES[name]
    best = _clarabel(build)
    thin, thin_calls = _solve(build, monkeypatch, "sparse")
    full, full_calls = _solve(build, monkeypatch, "dense")
    assert thin_calls == {"sparse": thin_calls["sparse"], "general": 0} and thin_calls["sparse"] > 0
    assert full_calls == {"sparse": 0, "general": 0}
    for result in (thin, full):
        assert result.status == 0 and result.success, result.message
        assert abs(result.fun - best) <= 1e-6 * max(1.0, abs(best))
        assert result.constr_violation <= 1e-7
    scale = max(1.0, float(np.abs(full.x["x"]).max()))
    np.testing.assert_allclose(thin.x["x"], full.x["x"], atol=1e-5 * scale)
    assert sorted(thin.multipliers) == sorted(full.multipliers)
    for label, value in full.multipliers.items():
        size = max(1.0, float(np.abs(value).max()))
        if "equality" in label or name == "redundant_equalities":
            continue                    # with dependent rows the equality duals are not unique
        np.testing.assert_allclose(thin.multipliers[label], value, atol=1e-5 * size, err_msg=label)


def _kkt_data(seed: int, n: int = 30, m: int = 20, p: int = 6):
    rng = np.random.default_rng(seed)
    F = sp.random(n, n, density=0.1, random_state=seed).toarray()
    H = F @ F.T + np.diag(rng.uniform(0.1, 1.0, n))
    G = sp.random(m, n, density=0.15, random_state=seed + 1).toarray()
    E = sp.random(p, n, density=0.2, random_state=seed + 2).toarray() + np.eye(p, n)
    return rng, H, G, E


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dependent", [False, True])
def test_factor_solves_the_kkt_system(seed, dependent):
    rng, H, G, E = _kkt_data(seed)
    if dependent:
        E = np.vstack([E, E[0] + 2 * E[1]])
    d, w = rng.uniform(0, 1, H.shape[0]), 10.0 ** rng.uniform(-6, 6, G.shape[0])   # w as on an active row
    K = H + np.diag(d) + G.T @ (w[:, None] * G)
    y_true = rng.standard_normal(H.shape[0])
    nu_true = np.linalg.lstsq(E.T, rng.standard_normal(H.shape[0]), rcond=None)[0]
    r, s = K @ y_true + E.T @ nu_true, E @ y_true                  # consistent, also with a dependent row
    fac = sparse.factor(sparse.pattern(H, G, E), d, w)
    assert fac is not None
    y, nu = fac.solve(r, s)
    np.testing.assert_allclose(y, y_true, atol=1e-8 * max(1.0, float(np.abs(y_true).max())))
    np.testing.assert_allclose(E.T @ nu, E.T @ nu_true, atol=1e-7 * max(1.0, float(np.abs(E.T @ nu_true).max())))


def test_factor_refuses_a_matrix_that_is_not_positive_definite():
    rng, H, G, E = _kkt_data(7)
    H = H - 50.0 * np.eye(H.shape[0])                              # no d, w small: K indefinite
    assert sparse.factor(sparse.pattern(H, G, E), np.zeros(H.shape[0]), np.full(G.shape[0], 1e-3)) is None


def test_worth_needs_size_and_sparsity():
    n = 300
    H, G, E = np.eye(n), np.eye(n)[:200], np.zeros((0, n))
    assert sparse.worth(H, G, E)
    assert not sparse.worth(np.ones((n, n)), G, E)                   # dense H
    assert not sparse.worth(np.eye(50), np.eye(50)[:20], np.zeros((0, 50)))   # small: LAPACK
    assert not sparse.worth(H, np.vstack([G, np.ones(n)]), E)      # a budget row: G'G, so K, is dense
    assert sparse.plan(H, G, E) is not None and sparse.plan(np.ones((n, n)), G, E) is None


@pytest.mark.parametrize("axis", [0, 1])
def test_blocks_matrix_is_the_block_diagonal_hessian(axis):
    from solvers.constrained.lowrank import matvec
    from solvers.numerics.linalg import Blocks
    rng = np.random.default_rng(8)
    shape = (3, 4)
    k, r = shape[axis], 12 // shape[axis]
    H = Blocks(rng.standard_normal((k, r, r)), axis, shape)
    v = rng.standard_normal(12)
    np.testing.assert_allclose(sparse.blocks_matrix(H) @ v, matvec(np, H, v), atol=1e-12)


def control(T: int = 10):
    """CVXPY's control example, small: the states enter the Newton matrix only through the
    dynamics (equalities), so K = H + G'WG + D is singular and has no Cholesky factor."""
    rng = np.random.default_rng(1)
    n, m = 3, 2
    A, B = np.eye(n) - 0.2 * rng.uniform(size=(n, n)), rng.normal(size=(n, m))
    x, u = cp.Variable((n, T + 1), name="x"), cp.Variable((m, T), name="u")
    cost = sum(cp.sum_squares(x[:, t + 1]) + cp.sum_squares(u[:, t]) for t in range(T))
    constr = [x[:, t + 1] == A @ x[:, t] + B @ u[:, t] for t in range(T)] + [cp.abs(u) <= 1]
    return cp.Problem(cp.Minimize(cost), constr + [x[:, T] == 0, x[:, 0] == 3 * rng.normal(size=n)])


def test_a_qp_whose_newton_matrix_only_equalities_fix_stays_on_the_qp_path(monkeypatch):
    """Small (the sparse path's size threshold not met), yet solved by the quasi-definite
    factor instead of leaving the QP to the general interior-point method."""
    best = _clarabel(control)
    result, calls = _solve(control, monkeypatch, "dense")
    assert calls["general"] == 0 and result.success, result.message
    assert abs(result.fun - best) <= 1e-6 * max(1.0, abs(best))
    assert result.constr_violation <= 1e-7


def min_fuel(T: int = 30):
    """Fuel (sum of |u_t|_1) to bring a double integrator to rest at the origin: an LP once
    lifted, whose K = G'WG + D has pivots that vanish near the optimum (coordinates only
    inactive rows touch) unless its diagonal is shifted (refinement undoes the shift)."""
    A = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)
    B = np.array([[0.5, 0], [0, 0.5], [1, 0], [0, 1]])
    x, u = cp.Variable((4, T + 1), name="x"), cp.Variable((2, T), name="u")
    constr = [x[:, 0] == np.array([10, 5, 0, 0]), x[:, T] == 0, cp.abs(u) <= 1]
    constr += [x[:, t + 1] == A @ x[:, t] + B @ u[:, t] for t in range(T)]
    return cp.Problem(cp.Minimize(cp.sum([cp.norm(u[:, t], 1) for t in range(T)])), constr)


def test_an_lp_whose_pivots_vanish_near_the_optimum_stays_on_the_qp_path(monkeypatch):
    best = _clarabel(min_fuel)
    result, calls = _solve(min_fuel, monkeypatch, "dense")
    assert calls["general"] == 0 and result.success, result.message
    assert abs(result.fun - best) <= 1e-6 * max(1.0, abs(best))
    assert result.constr_violation <= 1e-7


def test_a_dense_budget_row_is_added_by_woodbury_to_the_sparse_factor(monkeypatch):
    """An L1 leverage limit sum(|w|) <= 2 lifts into rows |w_i| <= t_i (sparse) and one row
    sum(t) <= 2 that would fill K: it is kept out of the sparse pattern and added by Woodbury
    (`sparse.WithRows`), and the answer is CVXPY's."""
    calls = []
    real = sparse.WithRows.of
    monkeypatch.setattr(sparse.WithRows, "of", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(14)
    n = 300
    mu, d = np.abs(rng.normal(size=n)) / 10, rng.uniform(0.1, 0.9, size=n)

    def build():
        w = cp.Variable(n, name="w")
        return cp.Problem(cp.Maximize(mu @ w - 0.5 * cp.sum(cp.multiply(d, cp.square(w)))),
                          [cp.sum(w) == 1, cp.norm(w, 1) <= 2])
    ref = build()
    ref.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    res = solvers.minimize(build(), method="auto")
    assert res.success, res.message
    assert calls
    assert abs(res.fun - ref.value) <= 1e-6 * max(1.0, abs(ref.value))
    assert res.constr_violation <= 1e-8


def test_read_rows_reach_the_sparse_pattern_without_a_dense_jacobian(monkeypatch):
    """Trend filtering at n = 300 lifts into 596 rows of 4 entries over 598 unknowns: the QP
    read takes the rows' stacked CSR (`Constraints.sparse_jacobian`), never the dense 596 x
    598 Jacobian, and the answer is CVXPY's."""
    from solvers.constrained import qp
    from solvers.objective.constraints import Constraints
    dense_reads = []
    real = Constraints.values_jacobian
    monkeypatch.setattr(Constraints, "values_jacobian", lambda self, y: dense_reads.append(1) or real(self, y))
    reads = []
    real_read = qp.read
    monkeypatch.setattr(qp, "read", lambda *a, **k: reads.append(real_read(*a, **k)) or reads[-1])
    rng = np.random.default_rng(3)
    n = 300
    y = np.cumsum(rng.standard_normal(n))

    def build():
        x = cp.Variable(n, name="x")
        return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(y - x) + 5.0 * cp.norm1(_second_difference(n) @ x)))
    kept.clear()
    result = solvers.minimize(build(), method="auto")
    best = _clarabel(build)
    assert result.success, result.message
    assert abs(result.fun - best) <= 1e-6 * max(1.0, abs(best))
    assert reads and sp.issparse(reads[0].G) and not dense_reads
    data = reads[0]
    assert data.G.shape[0] == 2 * (n - 2) and data.G.nnz <= 4 * data.G.shape[0]


def test_a_large_qp_reads_its_hessian_sparse_from_its_blocks(monkeypatch):
    """A Kalman-like QP in three variables (1,202 unknowns, H diagonal) has H read as CSR from
    its blocks (`Objective.value_grad_hess(sparse=True)`), never as the dense n x n array,
    and the answer is CVXPY's."""
    from solvers.constrained import qp
    reads = []
    real_read = qp.read
    monkeypatch.setattr(qp, "read", lambda *a, **k: reads.append(real_read(*a, **k)) or reads[-1])
    rng = np.random.default_rng(8)
    T = 200
    A = np.array([[1.0, 0.1], [0.0, 1.0]])
    y = np.cumsum(rng.standard_normal((2, T)), axis=1)

    def build():
        x, w, v = cp.Variable((2, T + 1), name="x"), cp.Variable((2, T), name="w"), cp.Variable((2, T), name="v")
        rows = [x[:, 1:] == A @ x[:, :-1] + w, y == x[:, :-1] + v]
        return cp.Problem(cp.Minimize(cp.sum_squares(w) + 4 * cp.sum_squares(v)), rows)
    kept.clear()
    result = solvers.minimize(build(), method="auto")
    best = _clarabel(build)
    assert result.success, result.message
    assert abs(result.fun - best) <= 1e-6 * max(1.0, abs(best))
    assert reads and sp.issparse(reads[0].H) and reads[0].H.nnz <= reads[0].H.shape[0]
