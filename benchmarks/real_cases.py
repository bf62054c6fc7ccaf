"""The problems of benchmarks/real_problems.py: CVXPY code as people write it, one builder each.

Every builder takes no arguments and returns a fresh `cvxpy.Problem` built from seeded data
(`np.random.default_rng(seed)`), so two calls give the same problem. `CASES` maps each name
to a `Case` (name, kind, the builder, whether it has the size CVXPY's examples use); the
register order is the table's order. Variables carry explicit names that are identifiers,
unique within their problem, so a solution `result.x[name]` maps back to `variable.name()`
(tests/solvers/test_real_problems.py checks this for every case).

The problems are written the way CVXPY's examples write them (loops of constraints, `pos`,
`norm`, `huber`, attributes such as nonneg and PSD), not in the form our solvers like best,
and each is feasible and bounded: CVXPY with Clarabel solves it to optimality (the tests).
Kinds: lp, qp, socp, norm, smoothing (trend filtering, Kalman), control, entropy (exp, log,
entropy, kl_div, rel_entr, log_sum_exp), power (inv_pos, power, geo-mean-like), sdp (small
PSD variables), hinge (hinge and l1 models).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cvxpy as cp
import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Case:
    """One problem: `build()` returns a fresh cvxpy.Problem; `large` marks the sizes of CVXPY's
    examples (seconds for CVXPY and more for us), the rest are small variants."""

    name: str
    kind: str
    build: Callable[[], cp.Problem]
    large: bool = False


CASES: dict[str, Case] = {}


def case(kind: str, large: bool = False) -> Callable[[Callable[[], cp.Problem]], Callable[[], cp.Problem]]:
    """Register the decorated builder under its function name."""
    def register(build: Callable[[], cp.Problem]) -> Callable[[], cp.Problem]:
        assert build.__name__ not in CASES, f"two cases named {build.__name__}"
        CASES[build.__name__] = Case(build.__name__, kind, build, large)
        return build
    return register


def _second_difference(n: int) -> sp.csr_matrix:
    return sp.diags([np.ones(n - 2), -2 * np.ones(n - 2), np.ones(n - 2)], [0, 1, 2], shape=(n - 2, n)).tocsr()


def _bounded_lp(m: int, n: int, seed: int) -> cp.Problem:
    """CVXPY's LP example: min c'x s.t. Ax <= b, with c = -A'lambda so that it is bounded."""
    rng = np.random.default_rng(seed)
    s0 = rng.normal(size=m)
    lamb0, s0 = np.maximum(-s0, 0), np.maximum(s0, 0)
    A = rng.normal(size=(m, n))
    b = A @ rng.normal(size=n) + s0
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(-(A.T @ lamb0) @ x), [A @ x <= b])


# ----------------------------------------------------------------------------- LPs

@case("lp")
def lp_example() -> cp.Problem:
    return _bounded_lp(15, 10, 1)


@case("lp", large=True)
def lp_300x100() -> cp.Problem:
    return _bounded_lp(300, 100, 2)


@case("lp")
def lp_box() -> cp.Problem:
    rng = np.random.default_rng(3)
    c, A = rng.normal(size=20), rng.uniform(size=(5, 20))
    x = cp.Variable(20, name="x")
    return cp.Problem(cp.Minimize(c @ x), [x >= 0, x <= 1, A @ x <= 3])


@case("lp")
def lp_standard_form() -> cp.Problem:
    rng = np.random.default_rng(4)
    m, n = 10, 30
    A = rng.normal(size=(m, n))
    b = A @ rng.uniform(0.5, 1.5, size=n)
    c = A.T @ rng.normal(size=m) + rng.uniform(0.1, 1.0, size=n)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(c @ x), [A @ x == b, x >= 0])


@case("lp")
def lp_redundant_rows() -> cp.Problem:
    """Equality rows that repeat a sum of others (the issue's false 'unbounded')."""
    rng = np.random.default_rng(5)
    m, n = 6, 16
    A = rng.normal(size=(m, n))
    A = np.vstack([A, A[0] + A[1], 2 * A[2] - A[3]])
    b = A @ rng.uniform(0.5, 1.5, size=n)
    c = rng.uniform(0.5, 2.0, size=n)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(c @ x), [A @ x == b, x >= 0])


@case("lp")
def lp_transport() -> cp.Problem:
    rng = np.random.default_rng(6)
    supply, demand = rng.uniform(10, 20, size=5), rng.uniform(5, 10, size=7)
    cost = rng.uniform(1, 9, size=(5, 7))
    X = cp.Variable((5, 7), nonneg=True, name="X")
    return cp.Problem(cp.Minimize(cp.sum(cp.multiply(cost, X))),
                      [cp.sum(X, axis=1) <= supply, cp.sum(X, axis=0) == demand])


@case("lp")
def lp_diet() -> cp.Problem:
    rng = np.random.default_rng(7)
    nutrients = rng.uniform(0, 5, size=(8, 12))
    need, price = rng.uniform(5, 10, size=8), rng.uniform(1, 3, size=12)
    x = cp.Variable(12, name="x")
    return cp.Problem(cp.Minimize(price @ x), [nutrients @ x >= need, x >= 0, x <= 10])


@case("lp")
def lp_chebyshev_center() -> cp.Problem:
    """CVXPY's Chebyshev center of a polyhedron: an LP with the rows' norms as data."""
    rng = np.random.default_rng(8)
    A = rng.normal(size=(30, 2))
    b = 1 + rng.uniform(size=30)
    xc, r = cp.Variable(2, name="xc"), cp.Variable(name="r")
    return cp.Problem(cp.Maximize(r), [A[i] @ xc + r * np.linalg.norm(A[i]) <= b[i] for i in range(30)])


def _grid_incidence(k: int) -> sp.csr_matrix:
    """The node-edge incidence matrix of a k x k grid with edges both ways (sparse)."""
    edges = [(i * k + j, i * k + j + 1) for i in range(k) for j in range(k - 1)]
    edges += [(i * k + j, (i + 1) * k + j) for i in range(k - 1) for j in range(k)]
    edges += [(b, a) for a, b in edges]
    rows = [a for a, _ in edges] + [b for _, b in edges]
    values = [-1.0] * len(edges) + [1.0] * len(edges)
    return sp.csr_matrix((values, (rows, list(range(len(edges))) * 2)), shape=(k * k, len(edges)))


@case("lp", large=True)
def lp_min_cost_flow_grid() -> cp.Problem:
    """Min-cost flow on a 20 x 20 grid (1,520 arcs, a sparse incidence matrix), capacities 0..3."""
    rng = np.random.default_rng(9)
    incidence = _grid_incidence(20)
    supply = np.zeros(400)
    supply[rng.choice(400, 10, replace=False)] = -2.0          # sources
    supply[rng.choice(400, 10, replace=False)] += 2.0          # sinks
    cost = rng.uniform(1, 3, size=incidence.shape[1])
    f = cp.Variable(incidence.shape[1], name="f")
    return cp.Problem(cp.Minimize(cost @ f), [incidence @ f == supply, f >= 0, f <= 3])


# ----------------------------------------------------------------------------- QPs

@case("qp")
def qp_example() -> cp.Problem:
    """CVXPY's QP example: quad_form with equality and inequality rows."""
    rng = np.random.default_rng(10)
    m, n, p = 15, 10, 5
    P = rng.normal(size=(n, n))
    P = P.T @ P
    q, G, A = rng.normal(size=n), rng.normal(size=(m, n)), rng.normal(size=(p, n))
    x0 = rng.normal(size=n)
    h, b = G @ x0 + rng.uniform(size=m), A @ x0
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(0.5 * cp.quad_form(x, P) + q.T @ x), [G @ x <= h, A @ x == b])


def _box_qp(n: int, seed: int) -> cp.Problem:
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(20, n)) / np.sqrt(n)
    d, q = rng.uniform(0.5, 2.0, size=n), rng.normal(size=n) * 2
    x = cp.Variable(n, name="x")
    objective = 0.5 * cp.sum(cp.multiply(d, cp.square(x))) + 0.5 * cp.sum_squares(F @ x) + q @ x
    return cp.Problem(cp.Minimize(objective), [x >= -1, x <= 1])


@case("qp", large=True)
def qp_box_2000() -> cp.Problem:
    return _box_qp(2000, 11)


@case("qp")
def qp_box_50() -> cp.Problem:
    return _box_qp(50, 12)


@case("qp")
def qp_portfolio() -> cp.Problem:
    """CVXPY's portfolio example: long only, full investment, risk aversion gamma."""
    rng = np.random.default_rng(13)
    n = 30
    mu = np.abs(rng.normal(size=n))
    S = rng.normal(size=(n, n))
    Sigma = S.T @ S / n
    w = cp.Variable(n, name="w")
    return cp.Problem(cp.Maximize(mu @ w - 2.0 * cp.quad_form(w, Sigma)), [cp.sum(w) == 1, w >= 0])


@case("qp", large=True)
def qp_portfolio_factor() -> cp.Problem:
    """CVXPY's factor-model portfolio: leverage limit norm1(w) <= 2, factor exposure f."""
    rng = np.random.default_rng(14)
    n, k = 300, 10
    mu = np.abs(rng.normal(size=n)) / 10
    F = rng.normal(size=(n, k)) / np.sqrt(k)
    D = np.diag(rng.uniform(0, 0.9, size=n))
    Sigma_f = np.eye(k)
    w, f = cp.Variable(n, name="w"), cp.Variable(k, name="f")
    risk = cp.quad_form(f, Sigma_f) + cp.sum_squares(np.sqrt(D) @ w)
    return cp.Problem(cp.Maximize(mu @ w - 0.5 * risk), [cp.sum(w) == 1, f == F.T @ w, cp.norm(w, 1) <= 2])


def _lasso(m: int, n: int, seed: int, lam: float) -> cp.Problem:
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, n))
    truth = rng.normal(size=n) * (rng.uniform(size=n) < 0.2)
    b = A @ truth + 0.1 * rng.normal(size=m)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(A @ x - b) + lam * cp.norm1(x)))


@case("qp")
def qp_lasso() -> cp.Problem:
    return _lasso(100, 50, 15, 1.0)


@case("qp", large=True)
def qp_lasso_500x200() -> cp.Problem:
    return _lasso(500, 200, 16, 5.0)


def _huber(m: int, n: int, seed: int) -> cp.Problem:
    """CVXPY's Huber regression example: a few outliers with flipped signs."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, n))
    truth = rng.normal(size=n)
    b = A @ truth + 0.1 * rng.normal(size=m)
    flip = rng.uniform(size=m) < 0.05
    b[flip] = -b[flip]
    beta = cp.Variable(n, name="beta")
    return cp.Problem(cp.Minimize(cp.sum(cp.huber(A @ beta - b, 1))))


@case("qp", large=True)
def qp_huber_450x300() -> cp.Problem:
    return _huber(450, 300, 17)


@case("qp")
def qp_huber_small() -> cp.Problem:
    return _huber(60, 10, 18)


@case("qp")
def qp_nonneg_least_squares() -> cp.Problem:
    rng = np.random.default_rng(19)
    A, b = rng.normal(size=(100, 30)), rng.normal(size=100)
    x = cp.Variable(30, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(A @ x - b)), [x >= 0])


@case("qp")
def qp_simplex_projection() -> cp.Problem:
    rng = np.random.default_rng(20)
    y = rng.normal(size=40)
    x = cp.Variable(40, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(x - y)), [cp.sum(x) == 1, x >= 0])


# ----------------------------------------------------------------------------- SOCPs

def _enclosing_circle(points: int, seed: int) -> cp.Problem:
    """The smallest circle around the points: one norm constraint per point, 3 unknowns."""
    P = np.random.default_rng(seed).normal(size=(points, 2))
    c, r = cp.Variable(2, name="c"), cp.Variable(name="r")
    return cp.Problem(cp.Minimize(r), [cp.norm(c - P[i]) <= r for i in range(points)])


@case("socp", large=True)
def socp_circle_500() -> cp.Problem:
    return _enclosing_circle(500, 21)


@case("socp")
def socp_circle_20() -> cp.Problem:
    return _enclosing_circle(20, 22)


@case("socp")
def socp_example() -> cp.Problem:
    """CVXPY's SOCP example: norm(A_i x + b_i) <= c_i'x + d_i and F x == g, feasible at x0."""
    rng = np.random.default_rng(23)
    m, n, p, n_i = 3, 10, 5, 5
    f, x0 = rng.normal(size=n), rng.normal(size=n)
    A = [rng.normal(size=(n_i, n)) for _ in range(m)]
    b = [rng.normal(size=n_i) for _ in range(m)]
    c = [rng.normal(size=n) for _ in range(m)]
    d = [np.linalg.norm(A[i] @ x0 + b[i], 2) - c[i] @ x0 + 1 for i in range(m)]
    F = rng.normal(size=(p, n))
    x = cp.Variable(n, name="x")
    cons = [cp.norm(A[i] @ x + b[i], 2) <= c[i].T @ x + d[i] for i in range(m)]
    return cp.Problem(cp.Minimize(f.T @ x + 0.1 * cp.sum_squares(x)), cons + [F @ x == F @ x0])


@case("socp")
def socp_robust_lp() -> cp.Problem:
    """A robust LP: every row a_i ranges over an ellipsoid a_i + P_i u, |u| <= 1."""
    rng = np.random.default_rng(24)
    m, n = 20, 8
    A, P = rng.normal(size=(m, n)), [0.2 * rng.normal(size=(n, n)) for _ in range(m)]
    b, c = 2 + rng.uniform(size=m), -A.T @ rng.uniform(size=m)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(c @ x), [A[i] @ x + cp.norm(P[i].T @ x) <= b[i] for i in range(m)])


@case("socp")
def socp_fermat_weber() -> cp.Problem:
    """The point of least total distance to 30 weighted points (a sum of norms)."""
    rng = np.random.default_rng(25)
    P, w = rng.normal(size=(30, 2)), rng.uniform(0.5, 2.0, size=30)
    x = cp.Variable(2, name="x")
    return cp.Problem(cp.Minimize(cp.sum([w[i] * cp.norm(x - P[i]) for i in range(30)])))


@case("socp")
def socp_norm_nu() -> cp.Problem:
    """`norm(nu) <= 1` with a linear objective (the dual of a least-norm problem)."""
    rng = np.random.default_rng(26)
    A, b = rng.normal(size=(5, 12)), rng.normal(size=5)
    nu = cp.Variable(5, name="nu")
    return cp.Problem(cp.Maximize(b @ nu), [cp.norm(A.T @ nu) <= 1])


@case("socp")
def socp_unit_ball() -> cp.Problem:
    c = np.random.default_rng(27).normal(size=10)
    nu = cp.Variable(10, name="nu")
    return cp.Problem(cp.Minimize(c @ nu), [cp.norm(nu) <= 1])


# ----------------------------------------------------------------------------- norm objectives

def _fit(m: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, cp.Variable]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, n)), rng.normal(size=m), cp.Variable(n, name="x")


@case("norm")
def norm2_fit() -> cp.Problem:
    A, b, x = _fit(100, 30, 30)
    return cp.Problem(cp.Minimize(cp.norm(A @ x - b)))


@case("norm")
def norm1_fit() -> cp.Problem:
    A, b, x = _fit(100, 30, 31)
    return cp.Problem(cp.Minimize(cp.norm(A @ x - b, 1)))


@case("norm")
def norm_inf_fit() -> cp.Problem:
    A, b, x = _fit(30, 10, 32)
    return cp.Problem(cp.Minimize(cp.norm(A @ x - b, "inf")))


@case("norm")
def pnorm3_fit() -> cp.Problem:
    A, b, x = _fit(60, 20, 33)
    return cp.Problem(cp.Minimize(cp.pnorm(A @ x - b, 3)))


@case("norm")
def pnorm_1_5_fit() -> cp.Problem:
    A, b, x = _fit(60, 20, 34)
    return cp.Problem(cp.Minimize(cp.pnorm(A @ x - b, 1.5)))


@case("norm")
def least_norm() -> cp.Problem:
    A, b, x = _fit(10, 30, 35)
    return cp.Problem(cp.Minimize(cp.norm(x)), [A @ x == b])


@case("norm")
def pnorm_constraint() -> cp.Problem:
    c = np.random.default_rng(36).normal(size=8)
    x = cp.Variable(8, name="x")
    return cp.Problem(cp.Minimize(c @ x), [cp.pnorm(x, 3) <= 1])


@case("norm")
def fro_norm_matrix() -> cp.Problem:
    """The nearest matrix with given row and column sums (Frobenius norm)."""
    rng = np.random.default_rng(37)
    M = rng.uniform(size=(6, 8))
    X = cp.Variable((6, 8), name="X")
    return cp.Problem(cp.Minimize(cp.norm(X - M, "fro")), [cp.sum(X, axis=1) == 2, cp.sum(X, axis=0) == 1.5])


@case("norm")
def matrix_norm1_2x2() -> cp.Problem:
    """`norm(X - 1, 1)` of a 2x2 matrix variable (CVXPY's induced 1-norm: the largest column sum)."""
    X = cp.Variable((2, 2), name="X")
    return cp.Problem(cp.Minimize(cp.norm(X - 1, 1) + cp.sum_squares(X)), [cp.trace(X) == 1])


# ----------------------------------------------------------------------------- smoothing

def _trend(n: int, seed: int, lam: float) -> cp.Problem:
    """CVXPY's l1 trend filtering example: a piecewise linear fit of a noisy walk."""
    rng = np.random.default_rng(seed)
    y = np.cumsum(rng.normal(size=n)) + rng.normal(size=n)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(y - x) + lam * cp.norm(_second_difference(n) @ x, 1)))


@case("smoothing", large=True)
def trend_l1_2000() -> cp.Problem:
    return _trend(2000, 40, 50.0)


@case("smoothing")
def trend_l1_200() -> cp.Problem:
    return _trend(200, 41, 10.0)


@case("smoothing")
def hodrick_prescott_500() -> cp.Problem:
    rng = np.random.default_rng(42)
    y = np.cumsum(rng.normal(size=500))
    x = cp.Variable(500, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(y - x) + 100 * cp.sum_squares(_second_difference(500) @ x)))


@case("smoothing")
def total_variation_300() -> cp.Problem:
    rng = np.random.default_rng(43)
    y = np.repeat(rng.normal(size=6), 50) + 0.3 * rng.normal(size=300)
    D = sp.diags([-np.ones(299), np.ones(299)], [0, 1], shape=(299, 300))
    x = cp.Variable(300, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(y - x) + 2 * cp.norm1(D @ x)))


@case("smoothing", large=True)
def total_variation_loop_300() -> cp.Problem:
    """Total variation written as a Python sum of abs terms, one per neighbour pair (as image
    in-painting code often is): a sum of ~300 terms."""
    rng = np.random.default_rng(46)
    n = 300
    y = np.repeat(rng.normal(size=6), n // 6) + 0.3 * rng.normal(size=n)
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(x - y) + cp.sum([cp.abs(x[i + 1] - x[i]) for i in range(n - 1)])))


def _kalman(n: int, seed: int) -> cp.Problem:
    """CVXPY's robust Kalman smoother (its notebook, loops of constraints and all): a vehicle
    with position and velocity in the plane, forces w, measurements y with outliers."""
    rng = np.random.default_rng(seed)
    delt, gamma, tau, rho = 0.05, 0.05, 2.0, 2.0
    A = np.array([[1, 0, (1 - gamma * delt / 2) * delt, 0], [0, 1, 0, (1 - gamma * delt / 2) * delt],
                  [0, 0, 1 - gamma * delt, 0], [0, 0, 0, 1 - gamma * delt]])
    B = np.array([[delt ** 2 / 2, 0], [0, delt ** 2 / 2], [delt, 0], [0, delt]])
    C = np.array([[1, 0, 0, 0], [0, 1, 0, 0]])
    x_true, y = np.zeros((4, n + 1)), np.zeros((2, n))
    w_true = rng.normal(size=(2, n))
    v = rng.normal(size=(2, n))
    v[:, rng.uniform(size=n) < 0.2] *= 20                 # outliers
    for t in range(n):
        y[:, t] = C @ x_true[:, t] + v[:, t]
        x_true[:, t + 1] = A @ x_true[:, t] + B @ w_true[:, t]
    x, w, vv = cp.Variable((4, n + 1), name="x"), cp.Variable((2, n), name="w"), cp.Variable((2, n), name="v")
    constr = []
    for t in range(n):
        constr += [x[:, t + 1] == A @ x[:, t] + B @ w[:, t], y[:, t] == C @ x[:, t] + vv[:, t]]
    return cp.Problem(cp.Minimize(cp.sum_squares(w) + tau * cp.sum(cp.huber(vv, rho))), constr)


@case("smoothing", large=True)
def kalman_robust_1000() -> cp.Problem:
    return _kalman(1000, 44)


@case("smoothing")
def kalman_robust_50() -> cp.Problem:
    return _kalman(50, 45)


# ----------------------------------------------------------------------------- optimal control

def _control(n: int, m: int, T: int, seed: int) -> cp.Problem:
    """CVXPY's control example: linear dynamics, quadratic costs, |u_t|_inf <= 1, from x0 to 0."""
    rng = np.random.default_rng(seed)
    alpha, beta = 0.2, 3
    A = np.eye(n) - alpha * rng.uniform(size=(n, n))
    B = rng.normal(size=(n, m))
    x_0 = beta * rng.normal(size=n)
    x, u = cp.Variable((n, T + 1), name="x"), cp.Variable((m, T), name="u")
    cost, constr = 0, []
    for t in range(T):
        cost += cp.sum_squares(x[:, t + 1]) + cp.sum_squares(u[:, t])
        constr += [x[:, t + 1] == A @ x[:, t] + B @ u[:, t], cp.norm(u[:, t], "inf") <= 1]
    constr += [x[:, T] == 0, x[:, 0] == x_0]
    return cp.Problem(cp.Minimize(cost), constr)


@case("control", large=True)
def control_example() -> cp.Problem:
    return _control(8, 2, 50, 4)


@case("control")
def control_small() -> cp.Problem:
    return _control(3, 2, 10, 1)


def _double_integrator(T: int) -> tuple[np.ndarray, np.ndarray]:
    A = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)
    B = np.array([[0.5, 0], [0, 0.5], [1, 0], [0, 1]])
    return A, B


@case("control")
def control_min_fuel() -> cp.Problem:
    """Fuel (the sum of |u| per step) to move a double integrator from rest at (10, 5) to the origin."""
    T = 30
    A, B = _double_integrator(T)
    x, u = cp.Variable((4, T + 1), name="x"), cp.Variable((2, T), name="u")
    constr = [x[:, 0] == np.array([10, 5, 0, 0]), x[:, T] == 0]
    constr += [x[:, t + 1] == A @ x[:, t] + B @ u[:, t] for t in range(T)]
    return cp.Problem(cp.Minimize(cp.sum([cp.norm(u[:, t], 1) for t in range(T)])), constr + [cp.abs(u) <= 1])


@case("control")
def control_norm2_thrust() -> cp.Problem:
    """The same with the Euclidean thrust norm per step (an SOCP) and a quadratic smoothing."""
    T = 30
    A, B = _double_integrator(T)
    x, u = cp.Variable((4, T + 1), name="x"), cp.Variable((2, T), name="u")
    constr = [x[:, 0] == np.array([10, 5, 0, 0]), x[:, T] == 0]
    constr += [x[:, t + 1] == A @ x[:, t] + B @ u[:, t] for t in range(T)]
    constr += [cp.norm(u[:, t]) <= 1 for t in range(T)]
    cost = cp.sum([cp.norm(u[:, t]) for t in range(T)]) + 0.01 * cp.sum_squares(u)
    return cp.Problem(cp.Minimize(cost), constr)


# ----------------------------------------------------------------------------- entropy, log, exp

@case("entropy")
def entropy_max() -> cp.Problem:
    """CVXPY's entropy maximisation: a distribution with moment inequalities."""
    rng = np.random.default_rng(60)
    n, m = 20, 5
    A = rng.normal(size=(m, n))
    b = A @ rng.dirichlet(np.ones(n)) + 0.1
    x = cp.Variable(n, name="x")
    return cp.Problem(cp.Maximize(cp.sum(cp.entr(x))), [A @ x <= b, cp.sum(x) == 1])


@case("entropy")
def kl_projection() -> cp.Problem:
    rng = np.random.default_rng(61)
    q = rng.dirichlet(np.ones(15))
    F = rng.normal(size=(3, 15))
    x = cp.Variable(15, name="x")
    return cp.Problem(cp.Minimize(cp.sum(cp.kl_div(x, q))), [F @ x == F @ rng.dirichlet(np.ones(15)),
                                                            cp.sum(x) == 1])


@case("entropy")
def rel_entr_two_distributions() -> cp.Problem:
    """Two distributions, each with a mean fixed apart, as close as possible in relative entropy."""
    support = np.linspace(0, 1, 12)
    p, q = cp.Variable(12, name="p"), cp.Variable(12, name="q")
    return cp.Problem(cp.Minimize(cp.sum(cp.rel_entr(p, q))),
                      [cp.sum(p) == 1, cp.sum(q) == 1, support @ p == 0.3, support @ q == 0.6])


@case("entropy")
def analytic_center() -> cp.Problem:
    """The analytic center of a polyhedron: maximise sum(log(b - Ax))."""
    rng = np.random.default_rng(63)
    A = rng.normal(size=(50, 10))
    b = 1 + rng.uniform(size=50)
    x = cp.Variable(10, name="x")
    return cp.Problem(cp.Maximize(cp.sum(cp.log(b - A @ x))))


@case("entropy")
def log_sum_exp_gp() -> cp.Problem:
    """A geometric program in convex form: min lse(A0 y + b0) s.t. lse(A_i y + b_i) <= 0."""
    rng = np.random.default_rng(64)
    A0, b0 = rng.normal(size=(6, 4)), rng.normal(size=6)
    A1, A2 = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    y = cp.Variable(4, name="y")
    return cp.Problem(cp.Minimize(cp.log_sum_exp(A0 @ y + b0)),
                      [cp.log_sum_exp(A1 @ y - 3) <= 0, cp.log_sum_exp(A2 @ y - 3) <= 0])


@case("entropy")
def logistic_regression_l1() -> cp.Problem:
    """CVXPY's sparse logistic regression: sum of logistic losses + lam * norm1(beta)."""
    rng = np.random.default_rng(65)
    m, n = 200, 20
    X = rng.normal(size=(m, n))
    beta_true = rng.normal(size=n) * (rng.uniform(size=n) < 0.3)
    y = np.where(X @ beta_true + 0.5 * rng.normal(size=m) > 0, 1.0, 0.0)
    beta = cp.Variable(n, name="beta")
    log_likelihood = cp.sum(cp.multiply(y, X @ beta) - cp.logistic(X @ beta))
    return cp.Problem(cp.Maximize(log_likelihood / m - 0.02 * cp.norm1(beta)))


@case("entropy")
def log_utility_portfolio() -> cp.Problem:
    """Kelly betting: maximise the expected log return over scenarios."""
    rng = np.random.default_rng(66)
    R = np.exp(0.05 + 0.2 * rng.normal(size=(100, 8)))
    w = cp.Variable(8, name="w")
    return cp.Problem(cp.Maximize(cp.sum(cp.log(R @ w)) / 100), [cp.sum(w) == 1, w >= 0])


@case("entropy")
def exp_constraint() -> cp.Problem:
    rng = np.random.default_rng(67)
    c = rng.uniform(0.5, 1.5, size=10)
    x = cp.Variable(10, name="x")
    return cp.Problem(cp.Minimize(cp.sum(cp.exp(x)) - c @ x), [cp.sum(x) <= 1])


# ----------------------------------------------------------------------------- powers

@case("power")
def inv_pos_allocation() -> cp.Problem:
    """Minimise sum w_i / x_i (delays) under a budget: negative powers via inv_pos."""
    rng = np.random.default_rng(70)
    w, c = rng.uniform(1, 3, size=20), rng.uniform(1, 2, size=20)
    x = cp.Variable(20, name="x")
    return cp.Problem(cp.Minimize(w @ cp.inv_pos(x)), [c @ x <= 20])


@case("power")
def geo_mean_like() -> cp.Problem:
    """Maximise t with t^2 <= x*y (sqrt(x*y) as a hyperbolic constraint, quad_over_lin)."""
    x, y, t = cp.Variable(name="x"), cp.Variable(name="y"), cp.Variable(name="t")
    return cp.Problem(cp.Maximize(t), [cp.quad_over_lin(t, x) <= y, x + 2 * y <= 4, x >= 0.1, y >= 0.1])


@case("power")
def power_8_constraint() -> cp.Problem:
    c = np.random.default_rng(72).normal(size=6)
    x = cp.Variable(6, name="x")
    return cp.Problem(cp.Minimize(c @ x), [cp.power(x, 8) <= 1])


@case("power")
def power_0_8_constraint() -> cp.Problem:
    c = np.random.default_rng(73).uniform(0.5, 2.0, size=6)
    x = cp.Variable(6, nonneg=True, name="x")
    return cp.Problem(cp.Minimize(c @ x + cp.sum_squares(x)), [cp.power(x, 0.8) >= 1])


@case("power")
def power_4_5_constraint() -> cp.Problem:
    c = np.random.default_rng(74).uniform(0.5, 2.0, size=6)
    x = cp.Variable(6, nonneg=True, name="x")
    return cp.Problem(cp.Maximize(c @ x), [cp.sum(cp.power(x, 4.5)) <= 1])


@case("power")
def power_4_5_entrywise() -> cp.Problem:
    c = np.random.default_rng(78).uniform(0.5, 2.0, size=6)
    x = cp.Variable(6, nonneg=True, name="x")
    return cp.Problem(cp.Maximize(c @ x - cp.sum_squares(x)), [cp.power(x, 4.5) <= 1, cp.sum(x) <= 4])


@case("power")
def geo_mean_allocation() -> cp.Problem:
    """The geometric mean of three shares, one capped (cp.geo_mean, CVXPY's DCP way to write
    sqrt(x*y)-like objectives)."""
    x = cp.Variable(3, name="x")
    return cp.Problem(cp.Maximize(cp.geo_mean(x)), [cp.sum(x) <= 3, x[0] <= 0.5])


@case("power")
def sqrt_utility() -> cp.Problem:
    rng = np.random.default_rng(75)
    a, p = rng.uniform(1, 2, size=15), rng.uniform(1, 2, size=15)
    x = cp.Variable(15, name="x")
    return cp.Problem(cp.Maximize(a @ cp.sqrt(x)), [p @ x <= 10])


@case("power")
def quad_over_lin_ratio() -> cp.Problem:
    """sum x_i^2 / y_i over a split y of the unit budget (a variable denominator)."""
    rng = np.random.default_rng(76)
    b = rng.uniform(1, 2, size=8)
    x, y = cp.Variable(8, name="x"), cp.Variable(8, name="y")
    return cp.Problem(cp.Minimize(cp.sum([cp.quad_over_lin(x[i], y[i]) for i in range(8)])),
                      [x >= b, cp.sum(y) == 1])


@case("power")
def power_1_5_fit() -> cp.Problem:
    A, b, x = _fit(40, 10, 77)
    return cp.Problem(cp.Minimize(cp.sum(cp.power(cp.abs(A @ x - b), 1.5))))


# ----------------------------------------------------------------------------- SDP-lite

def _sdp(n: int, p: int, seed: int) -> cp.Problem:
    """CVXPY's SDP example: min trace(C X) s.t. trace(A_i X) == b_i, X PSD (here an attribute)."""
    rng = np.random.default_rng(seed)
    C = rng.normal(size=(n, n))
    C = C @ C.T + np.eye(n)
    A = [rng.normal(size=(n, n)) for _ in range(p)]
    A = [a + a.T for a in A]
    X0 = rng.normal(size=(n, n))
    X0 = X0 @ X0.T + np.eye(n)
    X = cp.Variable((n, n), PSD=True, name="X")
    return cp.Problem(cp.Minimize(cp.trace(C @ X)), [cp.trace(A[i] @ X) == np.trace(A[i] @ X0) for i in range(p)])


@case("sdp")
def sdp_trace_3x3() -> cp.Problem:
    return _sdp(3, 2, 80)


@case("sdp")
def sdp_trace_6x6() -> cp.Problem:
    return _sdp(6, 4, 81)


@case("sdp")
def sdp_psd_completion() -> cp.Problem:
    """`C == Variable((3,3), PSD=True)` with diagonal and entry equalities (the issue's crash)."""
    C = cp.Variable((3, 3), PSD=True, name="C")
    return cp.Problem(cp.Minimize(C[0, 2]), [cp.diag(C) == 1, C[0, 1] == 0.5, C[1, 2] == 0.5])


@case("sdp")
def log_det_max_volume() -> cp.Problem:
    """The largest log det of a 4x4 covariance with a trace budget and fixed off-diagonals."""
    S = cp.Variable((4, 4), PSD=True, name="S")
    return cp.Problem(cp.Maximize(cp.log_det(S)), [cp.trace(S) <= 4, S[0, 1] == 0.3, S[2, 3] == -0.2])


@case("sdp")
def log_det_covariance_mle() -> cp.Problem:
    """The maximum likelihood inverse covariance: log det(S) - trace(S Y), an l1 penalty."""
    rng = np.random.default_rng(84)
    Z = rng.normal(size=(40, 5))
    Y = Z.T @ Z / 40
    S = cp.Variable((5, 5), PSD=True, name="S")
    return cp.Problem(cp.Maximize(cp.log_det(S) - cp.trace(S @ Y) - 0.05 * cp.sum(cp.abs(S))))


@case("sdp")
def lowner_john_ellipse() -> cp.Problem:
    """The least-volume ellipse {x : |A x + b| <= 1} around 15 points: -log det(A), norm rows."""
    P = np.random.default_rng(85).normal(size=(15, 2))
    A, b = cp.Variable((2, 2), PSD=True, name="A"), cp.Variable(2, name="b")
    return cp.Problem(cp.Minimize(-cp.log_det(A)), [cp.norm(A @ P[i] + b) <= 1 for i in range(15)])


@case("sdp")
def tr_inv_design() -> cp.Problem:
    """A-optimal experiment design over 3x3 information: trace of the inverse under a budget."""
    X = cp.Variable((3, 3), PSD=True, name="X")
    return cp.Problem(cp.Minimize(cp.tr_inv(X)), [cp.trace(X) <= 3, X[0, 0] >= 0.5])


# ----------------------------------------------------------------------------- hinge and l1 models

def _svm(m: int, n: int, seed: int, lam: float) -> cp.Problem:
    """CVXPY's SVM example: hinge loss plus an l1 penalty, an offset v."""
    rng = np.random.default_rng(seed)
    beta_true = rng.normal(size=(n, 1)) * (rng.uniform(size=(n, 1)) < 0.2)
    offset = 0
    X = rng.normal(0, 5, size=(m, n))
    Y = np.sign(X.dot(beta_true) + offset + rng.normal(0, 5, size=(m, 1)))
    beta, v = cp.Variable((n, 1), name="beta"), cp.Variable(name="v")
    loss = cp.sum(cp.pos(1 - cp.multiply(Y, X @ beta - v)))
    return cp.Problem(cp.Minimize(loss / m + lam * cp.norm(beta, 1)))


@case("hinge", large=True)
def svm_1000x20() -> cp.Problem:
    return _svm(1000, 20, 90, 0.1)


@case("hinge")
def svm_100x10() -> cp.Problem:
    return _svm(100, 10, 91, 0.01)


@case("hinge")
def quantile_regression() -> cp.Problem:
    rng = np.random.default_rng(92)
    A = rng.normal(size=(200, 8))
    b = A @ rng.normal(size=8) + rng.exponential(size=200)
    x = cp.Variable(8, name="x")
    r = b - A @ x
    return cp.Problem(cp.Minimize(cp.sum(0.9 * cp.pos(r) + 0.1 * cp.neg(r))))


@case("hinge")
def l1_fit_box() -> cp.Problem:
    A, b, x = _fit(80, 15, 93)
    return cp.Problem(cp.Minimize(cp.norm1(A @ x - b)), [cp.abs(x) <= 0.2])


@case("hinge")
def sparse_equality_l1() -> cp.Problem:
    """Basis pursuit: the least l1 norm solution of an underdetermined system."""
    rng = np.random.default_rng(94)
    A = rng.normal(size=(15, 40))
    truth = rng.normal(size=40) * (rng.uniform(size=40) < 0.15)
    x = cp.Variable(40, name="x")
    return cp.Problem(cp.Minimize(cp.norm1(x)), [A @ x == A @ truth])


@case("hinge")
def max_affine_minimax() -> cp.Problem:
    """Minimise the largest of 12 affine functions (cp.max of a vector) in a box."""
    rng = np.random.default_rng(95)
    A, b = rng.normal(size=(12, 5)), rng.normal(size=12)
    x = cp.Variable(5, name="x")
    return cp.Problem(cp.Minimize(cp.max(A @ x + b)), [x >= -1, x <= 1])
