"""The quadratic-program path of the interior-point method (solvers/qp.py), the
block-diagonal-plus-low-rank Newton matrices (solvers/lowrank.py), and the one factor
protocol and shift policy they share (solvers/numerics/linalg.py).

A QP (quadratic objective, affine constraints) is solved by Mehrotra's method on H, q,
G, h, E, e read once; each case is checked against CVXPY (Clarabel, tight tolerances):
objective to 1e-7 relative, every constraint to 1e-8, and the KKT conditions by hand
from `jac` and `multipliers`. A spy on `pathfollow.solve` shows which path ran.
"""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.constrained import elimination, lowrank, pathfollow
from solvers.numerics.linalg import NO_SHIFT, Blocks, Factor, Shifts, barrier_shifts, newton_shifts, shifted

QP = """parameter P[n, n] psd
parameter q[n]
parameter a[n]
parameter c[n]
parameter d[k]
parameter b1
parameter b2
variable x[n] >= -1
variable y[k] <= 2
minimize x' * P * x + q' * x + sum(d .* y.^2) - sum(y)
subject to
    a' * x + sum(y) <= b1
    c' * x == b2
"""


def qp_data(seed: int, n: int = 8, k: int = 4):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((n, n // 2))
    return {"P": F @ F.T + 0.01 * np.eye(n), "q": rng.standard_normal(n), "a": rng.standard_normal(n),
            "c": rng.uniform(0.5, 1.5, n), "d": rng.uniform(0.5, 2.0, k), "b1": -1.0, "b2": 1.0}


@pytest.fixture
def general_calls(monkeypatch):
    """How many times the general interior-point iteration ran."""
    calls = []
    real = pathfollow.solve
    monkeypatch.setattr(pathfollow, "solve", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def _cvxpy_qp(data):
    """QP in CVXPY, solved by Clarabel at tight tolerances."""
    cp = pytest.importorskip("cvxpy")
    x, y = cp.Variable(data["q"].size), cp.Variable(data["d"].size)
    objective = cp.quad_form(x, data["P"]) + data["q"] @ x + cp.sum(cp.multiply(data["d"], y ** 2)) - cp.sum(y)
    problem = cp.Problem(cp.Minimize(objective), [x >= -1, y <= 2, data["a"] @ x + cp.sum(y) <= data["b1"],
                                                  data["c"] @ x == data["b2"]])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return problem


def _reference_qp(data):
    problem = _cvxpy_qp(data)
    assert problem.status == "optimal"
    return problem.value


@pytest.mark.parametrize("seed", range(5))
def test_qp_path_matches_cvxpy_with_kkt(seed, general_calls):
    data = qp_data(seed)
    result = solvers.minimize(QP, data=data, method="auto")
    assert result.status == 0 and result.success, result.message
    assert not general_calls                                        # the QP path solved it
    best = _reference_qp(data)
    assert abs(result.fun - best) <= 1e-7 * max(1.0, abs(best))
    x, y = result.x["x"], result.x["y"]
    assert result.constr_violation <= 1e-8 and x.min() >= -1 and y.max() <= 2
    lam, nu = result.multipliers["constraint 1"], result.multipliers["constraint 2"]
    zl, zu = result.multipliers["lower bound of x"], result.multipliers["upper bound of y"]
    assert lam >= 0 and zl.min() >= 0 and zu.min() >= 0
    np.testing.assert_allclose(result.jac["x"] + lam * data["a"] + nu * data["c"] - zl, 0.0, atol=1e-7)
    np.testing.assert_allclose(result.jac["y"] + lam + zu, 0.0, atol=1e-7)
    assert abs(lam * (data["a"] @ x + y.sum() - data["b1"])) <= 1e-8
    assert np.abs(zl * (x + 1)).max() <= 1e-8 and np.abs(zu * (2 - y)).max() <= 1e-8


def test_linear_program_on_the_simplex(general_calls):
    # H = 0; every coordinate bounded, so K is positive definite: the QP path
    rng = np.random.default_rng(3)
    mu = rng.uniform(0, 1, 10)
    text = "parameter mu[n]\nvariable w[n] nonneg <= 0.3\nmaximize mu' * w\nsubject to\n    sum(w) == 1\n"
    result = solvers.minimize(text, data={"mu": mu})
    assert result.status == 0 and not general_calls
    top = np.sort(mu)[::-1]
    assert result.fun == pytest.approx(0.3 * top[:3].sum() + 0.1 * top[3], rel=1e-9)


def test_separable_qp_uses_the_blocks(general_calls, monkeypatch):
    cp = pytest.importorskip("cvxpy")
    factors = []
    real = lowrank.factor
    monkeypatch.setattr(lowrank, "factor", lambda *a: factors.append(1) or real(*a))
    rng = np.random.default_rng(5)
    d, q, a = rng.uniform(0.5, 2, 30), rng.standard_normal(30), rng.standard_normal(30)
    text = ("parameter d[n]\nparameter q[n]\nparameter a[n]\nvariable x[n] nonneg\n"
            "minimize sum(d .* x.^2) - q' * x\nsubject to\n    a' * x <= 0.5\n    sum(x) == 2\n")
    result = solvers.minimize(text, data={"d": d, "q": q, "a": a})
    assert result.status == 0 and not general_calls and factors
    x = cp.Variable(30, nonneg=True)
    problem = cp.Problem(cp.Minimize(cp.sum(cp.multiply(d, x ** 2)) - q @ x), [a @ x <= 0.5, cp.sum(x) == 2])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert abs(result.fun - problem.value) <= 1e-7 * max(1.0, abs(problem.value))
    assert result.constr_violation <= 1e-8


def test_nonconvex_qp_is_left_to_the_general_method(general_calls):
    text = "variable x[n] >= -1 <= 1\nminimize -sum(x^2) + 0.1 * sum(x)\nsubject to\n    sum(x) <= 1\n"
    result = solvers.minimize(text, x0=np.zeros(3), method="newton")
    assert general_calls == [1]                                    # K not positive definite
    assert np.isfinite(result.fun)


def test_not_a_quadratic_is_not_a_qp(general_calls):
    # abs has a zero symbolic Hessian, but it is not a quadratic: the general method (the
    # weight c, of no declared sign, keeps the kink from being lifted: solvers.reformulate.epigraph)
    text = "parameter c\nvariable x[n]\nminimize sum(x^2) + c * sum(abs(x - 1))\nsubject to\n    sum(x) == 1\n"
    solvers.minimize(text, data={"c": 1.0}, x0=np.zeros(3), method="newton")
    assert general_calls == [1]


def test_infeasible_qp_is_left_to_the_general_method(general_calls):
    text = "variable w[n] nonneg\nminimize sum(w^2)\nsubject to\n    sum(w) == 1\n    sum(w) <= 0.5\n"
    result = solvers.minimize(text, x0=np.full(4, 0.25), method="newton")
    assert general_calls[:1] == [1] and not result.success and result.constr_violation > 1e-3
    assert result.status == 6              # then phase one (solvers.constrained.feasibility) shows it infeasible


# --------------------------------------------------------------------------- factors and shifts

def test_every_factor_of_a_newton_matrix_is_a_factor():
    # the dense Cholesky, the block-plus-low-rank and the eliminated factor of one K all
    # solve with K through the one protocol
    rng = np.random.default_rng(3)
    n, m = 6, 4
    H = np.diag(rng.uniform(1.0, 2.0, n))
    G = np.zeros((m, n))
    G[:, :2] = rng.standard_normal((m, 2))
    G[np.arange(m), 2 + np.arange(m)] = 1.0              # one coordinate of its own per row
    w, d = rng.uniform(0.5, 2.0, m), rng.uniform(0.0, 1.0, n)
    K = H + G.T @ (w[:, None] * G) + np.diag(d)
    st = elimination.structure(np, H, G)
    assert st is not None
    factors = [shifted(np, K, NO_SHIFT).factor,
               lowrank.factor(np, Blocks(np.diagonal(H).reshape(n, 1, 1), 0, (n,)), d, G, w),
               elimination.factor(st, w, d)]
    v = rng.standard_normal(n)
    for fac in factors:
        assert isinstance(fac, Factor)
        np.testing.assert_allclose(K @ fac.solve(v), v, atol=1e-10)


def test_the_shift_policies():
    beta = 1e-3 * 3.0                                     # Newton: BETA times the largest |diagonal|
    assert newton_shifts(-2.0, 3.0).taus()[:4] == (beta + 2.0, 2 * (beta + 2.0), 4 * (beta + 2.0),
                                                   8 * (beta + 2.0))
    assert newton_shifts(1.0, 3.0).taus()[:3] == (0.0, beta, 2 * beta)
    assert barrier_shifts(1e-8, 1e10).taus()[:4] == (0.0, 1e-8, 100 * 1e-8, 100 * (100 * 1e-8))
    K = np.array([[1.0, 3.0], [3.0, 1.0]])                # eigenvalues 4 and -2
    found = shifted(np, K, barrier_shifts(1e-3, 1e10))
    assert found.factor is not None and found.tau == 10.0 and found.failed == 3      # 0, 1e-3, 0.1 fail
    np.testing.assert_allclose((K + 10.0 * np.eye(2)) @ found.factor.solve(np.ones(2)), np.ones(2))
    # 10 is past the limit 1: none, and the shift the policy would have tried next
    past = shifted(np, K, barrier_shifts(1e-3, 1.0))
    assert past.factor is None and past.tau == 10.0 and past.failed == 20
    # the same matrix again (no shift to grow): stop at once
    same = shifted(np, K, Shifts(0.0, 0.0, 100.0, 20, 0.0))
    assert same.factor is None and same.tau == 0.0
    assert shifted(np, K, NO_SHIFT).factor is None
    assert shifted(np, np.eye(2), NO_SHIFT).factor is not None


# --------------------------------------------------------------------------- lowrank

@pytest.mark.parametrize("shape, axis", [((6,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 2), 2)])
@pytest.mark.parametrize("m", [0, 3])
def test_lowrank_factor_solves_like_the_dense_matrix(shape, axis, m):
    rng = np.random.default_rng(len(shape) + axis + m)
    n = int(np.prod(shape))
    k, r = shape[axis], n // shape[axis]
    F = rng.standard_normal((k, r, r))
    H = Blocks(F @ np.swapaxes(F, 1, 2) + 0.1 * np.eye(r), axis, shape)
    dense = np.zeros((n, n))
    at = H.split(np, np.arange(n))
    dense[at[:, :, None], at[:, None, :]] = H.blocks
    diagonal, rows, weights = rng.uniform(0, 1, n), rng.standard_normal((m, n)), rng.uniform(0, 1e6, m)
    K = dense + np.diag(diagonal) + rows.T @ (weights[:, None] * rows)
    fac = lowrank.factor(np, H, diagonal, rows, weights)
    v, V = rng.standard_normal(n), rng.standard_normal((n, 2))
    np.testing.assert_allclose(K @ fac.solve(v), v, atol=1e-8 * np.abs(K).max())
    np.testing.assert_allclose(K @ fac.solve(V), V, atol=1e-8 * np.abs(K).max())
    np.testing.assert_allclose(lowrank.matvec(np, H, v), dense @ v, atol=1e-12)


def test_lowrank_factor_refuses_an_indefinite_block():
    H = Blocks(np.array([[[1.0]], [[-2.0]], [[3.0]]]), 0, (3,))
    assert lowrank.factor(np, H, np.zeros(3), np.ones((1, 3)), np.ones(1)) is None
    assert lowrank.factor(np, H, np.full(3, 2.5), np.ones((1, 3)), np.ones(1)) is not None


def test_maximum_entropy_by_blocks_matches_the_dense_newton_matrix(monkeypatch):
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, 50)
    text = ("parameter a[n]\nvariable p[n] pos\nmaximize -sum(p .* log(p))\nsubject to\n"
            "    sum(p) == 1\n    a' * p == 0.1\n    (a.^2)' * p <= 0.3\n")
    by_blocks = solvers.minimize(text, data={"a": a})
    monkeypatch.setattr(lowrank, "factor", lambda *args: None)    # every K built densely
    dense = solvers.minimize(text, data={"a": a})
    assert by_blocks.status == dense.status == 0
    assert by_blocks.fun == pytest.approx(dense.fun, rel=1e-10)
    np.testing.assert_allclose(by_blocks.x["p"], dense.x["p"], atol=1e-7)
    assert by_blocks.constr_violation <= 1e-8


@pytest.mark.parametrize("n", [3, 10, 50])
@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
def test_separable_qp_endgame_on_an_active_constraint(n, scale):
    # the slack of sum(x) <= 1 goes to 0 and its weight z / s to inf: the blocks' Woodbury
    # solve, unrefined, lost the step's accuracy there and the iterates ran away (once
    # 925 times the solution after 100 iterations) from a point that nearly held the KKT
    # conditions
    text = f"variable x[n]\nmaximize -{scale} * sum(x^2) + {scale} * sum(x)\nsubject to\n    sum(x) <= 1\n"
    result = solvers.minimize(text, x0=np.zeros(n))
    assert result.status == 0, result.message
    # the stop holds the duality gap to 1e-10 (1 + |f|) in the objective's units: on the
    # flattest scale (1e-3) that fixes x to about 1e-7 (with either starting point)
    assert result.fun == pytest.approx(scale * (1 - 1 / n), rel=1e-10, abs=1e-10)
    np.testing.assert_allclose(result.x["x"], 1 / n, atol=1e-7)
    assert result.multipliers["constraint 1"] == pytest.approx(scale * (1 - 2 / n), rel=1e-7, abs=1e-10)



def test_auto_keeps_newton_for_large_separable_problems():
    from solvers.constrained.dispatch import auto
    from solvers.task.prepare import prepare
    maxent = ("parameter a[n]\nvariable p[n] pos\nmaximize -sum(p .* log(p))\nsubject to\n"
              "    sum(p) == 1\n    a' * p == 0.1\n")
    a = np.random.default_rng(0).uniform(-1, 1, 5000)
    assert auto(prepare(maxent, {"a": a}, None)) == "newton"           # diagonal Hessian, affine rows
    result = solvers.minimize(maxent, data={"a": a}, method="auto")
    assert result.method == "newton" and result.status == 0 and result.constr_violation <= 1e-10
    curved = maxent + "    sum(p^2) <= 1\n"                              # its Hessian adds to the blocks
    assert auto(prepare(curved, {"a": a}, None)) == "lbfgs"
    dense = "parameter a[n]\nvariable p[n]\nminimize (a' * p)^2 + sum(p^2)\n"   # a dense Hessian
    assert auto(prepare(dense, {"a": a}, None)) == "lbfgs"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(60))
def test_random_qps_match_cvxpy(seed, general_calls):
    # sizes, bounds and right-hand sides drawn at random; every one CVXPY calls optimal
    # must be solved to its value with the KKT conditions (any path)
    rng = np.random.default_rng(100 + seed)
    n, k = int(rng.integers(2, 30)), int(rng.integers(1, 10))
    data = qp_data(seed, n, k)
    data["b1"], data["b2"] = float(rng.uniform(-3, 3)), float(rng.uniform(-2, 4))
    problem = _cvxpy_qp(data)
    result = solvers.minimize(QP, data=data, method="auto")
    if problem.status != "optimal":
        assert not result.success
        return
    assert result.status == 0 and result.success, result.message
    assert abs(result.fun - problem.value) <= 1e-7 * max(1.0, abs(problem.value))
    assert result.constr_violation <= 1e-8


@pytest.mark.parametrize("sparse_rows", [False, True])
def test_elimination_solves_like_the_dense_matrix(sparse_rows):
    from solvers.constrained import elimination
    rng = np.random.default_rng(11)
    r, s, m = 5, 12, 24
    F = rng.standard_normal((r, r))
    H = np.zeros((r + s, r + s))
    H[:r, :r] = F @ F.T + 0.1 * np.eye(r)
    H[r:, r:] = np.diag(rng.uniform(0, 1, s))
    G = np.zeros((m, r + s))
    G[:, :r] = rng.standard_normal((m, r)) * (rng.uniform(size=(m, r)) < (0.03 if sparse_rows else 1.0))
    G[np.arange(m), r + rng.integers(0, s, m)] = rng.standard_normal(m)      # one S entry per row
    st = elimination.structure(np, H, G)
    assert st is not None and list(st.S) == list(range(r, r + s))
    w, d = rng.uniform(0, 1e6, m), rng.uniform(0, 1, r + s)
    K = H + G.T @ (w[:, None] * G) + np.diag(d)
    fac = elimination.factor(st, w, d)
    v, V = rng.standard_normal(r + s), rng.standard_normal((r + s, 3))
    np.testing.assert_allclose(K @ fac.solve(v), v, atol=1e-8 * np.abs(K).max())
    np.testing.assert_allclose(K @ fac.solve(V), V, atol=1e-8 * np.abs(K).max())


def test_elimination_keeps_a_large_mostly_zero_h_sparse():
    # a lifted least squares in a box: H diagonal on 300 + 5 coordinates, no rows
    import scipy.sparse as sp

    from solvers.constrained import elimination
    rng = np.random.default_rng(12)
    n = 305
    H, G = np.diag(rng.uniform(0.5, 2.0, n)), np.zeros((0, n))
    st = elimination.structure(np, H, G)
    assert st is not None and st.R.size == 0 and sp.issparse(st.H)
    d, v = rng.uniform(0, 1e3, n), rng.standard_normal(n)
    fac = elimination.factor(st, np.zeros(0), d)
    np.testing.assert_allclose(fac.apply(v), (H + np.diag(d)) @ v, rtol=1e-14)
    np.testing.assert_allclose(fac.solve(v), v / (np.diagonal(H) + d), rtol=1e-12)


def test_elimination_declines_rows_touching_two_diagonal_coordinates():
    from solvers.constrained import elimination
    H = np.diag([1.0, 2.0, 3.0])
    G = np.array([[1.0, 1.0, 0.0]])                 # touches coordinates 0 and 1: only 2 can go
    st = elimination.structure(np, H, G)
    assert st is not None and list(st.S) == [2] and list(st.R) == [0, 1]


@pytest.mark.parametrize("scale", [1e-9, 1e-6, 1.0])
def test_an_lp_with_tiny_costs_is_solved_to_its_own_scale(scale):
    # the duality gap the stop asks for shrinks with the objective's size (pathfollow.gap_needed)
    from scipy.optimize import linprog
    rng = np.random.default_rng(2)
    A, b, c = rng.standard_normal((15, 10)), rng.uniform(0.5, 1.5, 15), rng.standard_normal(10)
    text = ("parameter A[15, 10]\nparameter b[15]\nparameter c[10]\nvariable x[10] nonneg <= 1\n"
            "minimize c' * x\nsubject to\n  A * x <= b")
    result = solvers.minimize(text, data={"A": A, "b": b, "c": scale * c}, method="newton")
    reference = linprog(scale * c, A_ub=A, b_ub=b, bounds=[(0, 1)] * 10, method="highs")
    assert result.success and result.fun == pytest.approx(reference.fun, rel=1e-7)


@pytest.mark.parametrize("method", ["lbfgs", "newton-cg"])
def test_the_augmented_lagrangian_claims_no_success_on_an_lp_with_tiny_costs(method):
    # its stationarity is measured in the objective's own scale (lagrangian._size): it may
    # stop at its limit, but a success must be the optimum
    from scipy.optimize import linprog
    rng = np.random.default_rng(2)
    A, b, c = rng.standard_normal((15, 10)), rng.uniform(0.5, 1.5, 15), 1e-9 * rng.standard_normal(10)
    text = ("parameter A[15, 10]\nparameter b[15]\nparameter c[10]\nvariable x[10] nonneg <= 1\n"
            "minimize c' * x\nsubject to\n  A * x <= b")
    result = solvers.minimize(text, data={"A": A, "b": b, "c": c}, method=method, max_iter=300)
    reference = linprog(c, A_ub=A, b_ub=b, bounds=[(0, 1)] * 10, method="highs")
    assert not result.success or result.fun == pytest.approx(reference.fun, rel=1e-6)


def test_schur_solver_by_cholesky_or_pseudo_inverse():
    """Independent rows: S's Cholesky factor; dependent ones: the rank-revealing
    pseudo-inverse, which answers the consistent right-hand side exactly."""
    from solvers.constrained.schur import schur_solver
    rng = np.random.default_rng(0)
    E = rng.standard_normal((4, 9))
    K = np.eye(9) + 0.1 * np.ones((9, 9))
    S = E @ np.linalg.solve(K, E.T)
    r = rng.standard_normal(4)
    np.testing.assert_allclose(schur_solver(np, S, True)(r), np.linalg.solve(S, r), rtol=1e-10)
    Ed = np.vstack([E, E[0] + E[1]])                     # a dependent row
    Sd = Ed @ np.linalg.solve(K, Ed.T)
    rd = Sd @ rng.standard_normal(5)                      # consistent
    x = schur_solver(np, Sd, False)(rd)
    np.testing.assert_allclose(Sd @ x, rd, atol=1e-9 * np.abs(rd).max())
