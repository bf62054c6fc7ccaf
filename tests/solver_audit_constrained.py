"""The audit's constrained problems (bounds, constraints, cones, infeasible and unbounded ones).

Registered into `solver_audit_cases.CASES` on import; see that module for the `Case` contract.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
from solver_audit_cases import _reg, _v, case


def _nn(d, lo=0.0, hi=None):
    v = _v(d["X"].shape[1])
    cons = [v["w"] >= lo] + ([v["w"] <= hi] if hi is not None else [])
    return v, cp.Problem(cp.Minimize(cp.sum_squares(d["X"] @ v["w"] - d["y"])), cons)


case("nnls", """parameter X[m, n]
parameter y[m]
variable w[n] nonneg
minimize sum((X * w - y) .^ 2)""", _reg(40, 10), _nn)
case("nnls_n200", """parameter X[m, n]
parameter y[m]
variable w[n] nonneg
minimize sum((X * w - y) .^ 2)""", _reg(300, 200), _nn)
case("box_ls", """parameter X[m, n]
parameter y[m]
variable w[n] >= -1 <= 2
minimize sum((X * w - y) .^ 2)""", lambda rng: {k: 4 * v for k, v in _reg(40, 8)(rng).items()},
     lambda d: _nn(d, -1.0, 2.0))


def _proj(d, lo=0.0, hi=None):
    x = cp.Variable(d["c"].shape, name="x")
    cons = [x >= lo] + ([x <= hi] if hi is not None else [])
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum_squares(x - d["c"])), cons)


case("projection_at_bound", """parameter c[n]
variable x[n] nonneg
minimize sum((x - c) .^ 2)""", lambda rng: {"c": rng.standard_normal(12)}, _proj)
case("projection_at_upper", """parameter c[n]
variable x[n] <= 1
minimize sum((x - c) .^ 2)""", lambda rng: {"c": 2 * rng.standard_normal(12)},
     lambda d: _proj(d, -np.inf, 1.0))


def _simplex_data(rng, n=8):
    A = rng.standard_normal((n, n))
    return {"P": A @ A.T + 0.1 * np.eye(n), "q": rng.standard_normal(n)}


def _simplex(d):
    x = cp.Variable(d["q"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.quad_form(x, cp.psd_wrap(d["P"])) + d["q"] @ x),
                                [x >= 0, cp.sum(x) == 1])


case("simplex_qp", """parameter P[n, n] psd
parameter q[n]
variable x[n] nonneg
minimize x' * P * x + q' * x
subject to
    sum(x) == 1""", _simplex_data, _simplex)


def _portfolio_data(rng, n=20):
    F = rng.standard_normal((n, 3))
    return {"mu": 0.1 * rng.standard_normal(n), "S": F @ F.T + np.diag(rng.uniform(0.1, 0.5, n)), "gamma": 2.0}


def _portfolio(d):
    x = cp.Variable(d["mu"].shape, name="x")
    obj = cp.Maximize(d["mu"] @ x - d["gamma"] * cp.quad_form(x, cp.psd_wrap(d["S"])))
    return {"x": x}, cp.Problem(obj, [x >= 0, cp.sum(x) == 1])


case("portfolio_maximize", """parameter mu[n]
parameter S[n, n] psd
parameter gamma nonneg
variable x[n] nonneg
maximize mu' * x - gamma * x' * S * x
subject to
    sum(x) == 1""", _portfolio_data, _portfolio)


def _lp_data(rng, m=15, n=10):
    return {"A": rng.standard_normal((m, n)), "b": rng.uniform(0.5, 1.5, m), "c": rng.standard_normal(n)}


def _lp(d):
    x = cp.Variable(d["c"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(d["c"] @ x), [d["A"] @ x <= d["b"], x >= 0, x <= 1])


case("lp_box", """parameter A[m, n]
parameter b[m]
parameter c[n]
variable x[n] nonneg <= 1
minimize c' * x
subject to
    A * x <= b""", _lp_data, _lp)


def _lp_simplex(d):
    x = cp.Variable(d["c"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(d["c"] @ x), [x >= 0, cp.sum(x) == 1])


case("lp_simplex_vertex", """parameter c[n]
variable x[n] nonneg
minimize c' * x
subject to
    sum(x) == 1""", lambda rng: {"c": rng.standard_normal(6)}, _lp_simplex)


def _ball_lin(d):
    x = cp.Variable(d["c"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(d["c"] @ x), [cp.sum_squares(x) <= 1])


case("linear_over_ball", """parameter c[n]
variable x[n]
minimize c' * x
subject to
    x' * x <= 1""", lambda rng: {"c": rng.standard_normal(5)}, _ball_lin, cone=True)


def _ls_ball(d):
    v = _v(d["X"].shape[1])
    return v, cp.Problem(cp.Minimize(cp.sum_squares(d["X"] @ v["w"] - d["y"])), [cp.sum_squares(v["w"]) <= d["r"]])


case("qcqp_ls_ball", """parameter X[m, n]
parameter y[m]
parameter r pos
variable w[n]
minimize sum((X * w - y) .^ 2)
subject to
    sum(w .^ 2) <= r""", lambda rng: {**_reg(30, 6)(rng), "r": 0.5}, _ls_ball, cone=True)


def _entropy_data(rng, n=10):
    return {"a": rng.uniform(-1, 1, n), "m1": 0.2}


def _entropy(d):
    p = cp.Variable(d["a"].shape, name="p")
    return {"p": p}, cp.Problem(cp.Maximize(cp.sum(cp.entr(p))), [cp.sum(p) == 1, d["a"] @ p == d["m1"]])


case("entropy_max", """parameter a[n]
parameter m1
variable p[n] pos
maximize sum(entr(p))
subject to
    sum(p) == 1
    a' * p == m1""", _entropy_data, _entropy, cone=True)


def _kl(d):
    x = cp.Variable(d["q"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum(cp.kl_div(x, d["q"]))), [d["A"] @ x == d["b"]])


def _kl_data(rng, n=8):
    A = rng.uniform(0, 1, (2, n))
    return {"q": rng.uniform(0.5, 2, n), "A": A, "b": A @ rng.uniform(0.5, 2, n)}


case("kl_projection", """parameter q[n] pos
parameter A[k, n]
parameter b[k]
variable x[n] pos
minimize sum(kl_div(x, q))
subject to
    A * x == b""", _kl_data, _kl, cone=True)


def _lse_data(rng, m=12, n=3):
    A = rng.standard_normal((m, n))
    return {"A": np.vstack([A, -A]), "b": rng.standard_normal(2 * m)}


def _lse(d):
    x = cp.Variable(d["A"].shape[1], name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.log_sum_exp(d["A"] @ x + d["b"])))


case("gp_log_sum_exp", """parameter A[m, n]
parameter b[m]
variable x[n]
minimize log_sum_exp(A * x + b)""", _lse_data, _lse, cone=True)


def _expsum(d):
    x = cp.Variable(d["A"].shape[1], name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum(cp.exp(d["A"] @ x + d["b"]))), [cp.sum(x) == 1])


case("gp_exp_sum_eq", """parameter A[m, n]
parameter b[m]
variable x[n]
minimize sum(exp(A * x + b))
subject to
    sum(x) == 1""", _lse_data, _expsum, cone=True)


def _barrier_data(rng, m=20, n=5):
    A = rng.standard_normal((m, n))
    return {"A": np.vstack([A, np.eye(n), -np.eye(n)]), "b": rng.uniform(1, 2, m + 2 * n),
            "c": rng.standard_normal(n)}


def _barrier(d):
    x = cp.Variable(d["c"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(d["c"] @ x - cp.sum(cp.log(d["b"] - d["A"] @ x))))


case("log_barrier", """parameter A[m, n]
parameter b[m]
parameter c[n]
variable x[n]
minimize c' * x - sum(log(b - A * x))""", _barrier_data, _barrier, cone=True)


def _sum_log(d):
    x = cp.Variable(d["a"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Maximize(cp.sum(cp.log(x))), [d["a"] @ x == 1, x >= 0])


case("max_sum_log_budget", """parameter a[n] pos
variable x[n] pos
maximize sum(log(x))
subject to
    a' * x == 1""", lambda rng: {"a": rng.uniform(0.5, 2, 6)}, _sum_log, cone=True)


def _cov_data(rng, n=5):
    A = rng.standard_normal((3 * n, n))
    return {"S": A.T @ A / (3 * n)}


def _logdet(d, lam=0.0, l1=0.0):
    X = cp.Variable(d["S"].shape, symmetric=True, name="X")
    obj = cp.trace(d["S"] @ X) - cp.log_det(X) + lam * cp.sum_squares(X) + l1 * cp.sum(cp.abs(X))
    return {"X": X}, cp.Problem(cp.Minimize(obj), [X >> 0])


case("logdet_trace", """parameter S[n, n] psd
variable X[n, n] pd
minimize tr(S * X) - logdet(X)""", _cov_data, _logdet, cone=True)
case("logdet_trace_ridge", """parameter S[n, n] psd
variable X[n, n] pd
minimize tr(S * X) - logdet(X) + 0.3 * sum(X .^ 2)""", _cov_data, lambda d: _logdet(d, 0.3), cone=True)
case("graphical_lasso", """parameter S[n, n] psd
variable X[n, n] pd
minimize tr(S * X) - logdet(X) + 0.1 * sum(abs(X))""", _cov_data, lambda d: _logdet(d, 0.0, 0.1), cone=True)


def _mls_data(rng, m=30, n=6, k=3):
    return {"A": rng.standard_normal((m, n)), "B": rng.standard_normal((m, k)), "lam": 0.2}


def _mls(d):
    W = cp.Variable((d["A"].shape[1], d["B"].shape[1]), name="W")
    obj = cp.sum_squares(d["A"] @ W - d["B"]) + d["lam"] * cp.sum_squares(W)
    return {"W": W}, cp.Problem(cp.Minimize(obj))


case("matrix_ls_ridge", """parameter A[m, n]
parameter B[m, k]
parameter lam nonneg
variable W[n, k]
minimize sum((A * W - B) .^ 2) + lam * sum(W .^ 2)""", _mls_data, _mls)


def _eq_ls(d):
    v = _v(d["X"].shape[1])
    return v, cp.Problem(cp.Minimize(cp.sum_squares(d["X"] @ v["w"] - d["y"])), [d["C"] @ v["w"] == d["e"]])


case("ls_equality", """parameter X[m, n]
parameter y[m]
parameter C[k, n]
parameter e[k]
variable w[n]
minimize sum((X * w - y) .^ 2)
subject to
    C * w == e""", lambda rng: {**_reg(30, 8)(rng), "C": rng.standard_normal((3, 8)), "e": rng.standard_normal(3)},
     _eq_ls)


def _minnorm(d):
    x = cp.Variable(d["A"].shape[1], name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum_squares(x)), [d["A"] @ x == d["b"]])


case("min_norm_equality", """parameter A[k, n]
parameter b[k]
variable x[n]
minimize x' * x
subject to
    A * x == b""", lambda rng: {"A": rng.standard_normal((4, 12)), "b": rng.standard_normal(4)}, _minnorm)


def _ls_ineq(d):
    v = _v(d["X"].shape[1])
    return v, cp.Problem(cp.Minimize(cp.sum_squares(d["X"] @ v["w"] - d["y"])), [cp.sum(v["w"]) <= d["t"]])


case("ls_halfspace_inactive", """parameter X[m, n]
parameter y[m]
parameter t
variable w[n]
minimize sum((X * w - y) .^ 2)
subject to
    sum(w) <= t""", lambda rng: {**_reg(30, 5)(rng), "t": 100.0}, _ls_ineq)


def _norm_fit(d):
    x = cp.Variable(d["A"].shape[1], name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.norm2(d["A"] @ x - d["b"]) + cp.sum_squares(x)))


case("norm2_fit", """parameter A[m, n]
parameter b[m]
variable x[n]
minimize norm2(A * x - b) + x' * x""",
     lambda rng: {"A": rng.standard_normal((20, 5)), "b": rng.standard_normal(20)},
     _norm_fit, cone=True)


# --------------------------------------------------------------------------- no solution

def _infeas_neg(d):
    x = cp.Variable(4, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum_squares(x)), [x >= 0, cp.sum(x) == -1])


case("infeasible_simplex", """variable x[4] nonneg
minimize x' * x
subject to
    sum(x) == -1""", lambda rng: {}, _infeas_neg, expect="infeasible")


def _infeas_ball(d):
    x = cp.Variable(3, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum_squares(x) <= 1, cp.sum(x) >= 10])


case("infeasible_ball_halfspace", """variable x[3]
minimize sum(x)
subject to
    x' * x <= 1
    sum(x) >= 10""", lambda rng: {}, _infeas_ball, expect="infeasible")


def _infeas_lp(d):
    x = cp.Variable(5, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(d["c"] @ x), [x >= 0, x <= 1, cp.sum(x) >= 6])


case("infeasible_lp_box", """parameter c[n]
variable x[n] nonneg <= 1
minimize c' * x
subject to
    sum(x) >= 6""", lambda rng: {"c": rng.standard_normal(5)}, _infeas_lp, expect="infeasible")


def _unb_lin(d):
    x = cp.Variable(d["c"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(d["c"] @ x))


case("unbounded_linear", """parameter c[n]
variable x[n]
minimize c' * x""", lambda rng: {"c": rng.standard_normal(4)}, _unb_lin, expect="unbounded")


def _unb_lp(d):
    x = cp.Variable(5, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(-cp.sum(x)), [x >= 0, d["e"] @ x <= 1])


case("unbounded_lp_orthant", """parameter e[n]
variable x[n] nonneg
minimize -sum(x)
subject to
    e' * x <= 1""", lambda rng: {"e": np.eye(5)[0]}, _unb_lp, expect="unbounded")


def _unb_ls(d):
    v = _v(3)
    return v, cp.Problem(cp.Minimize(cp.sum_squares(d["X"] @ v["w"] - d["y"]) - d["c"] @ v["w"]))


case("unbounded_rank_deficient_quadratic", """parameter X[m, n]
parameter y[m]
parameter c[n]
variable w[n]
minimize sum((X * w - y) .^ 2) - c' * w""",
     lambda rng: {"X": np.outer(rng.standard_normal(10), [1.0, 1.0, 0.0]), "y": rng.standard_normal(10),
                  "c": np.array([0.0, 0.0, 1.0])}, _unb_ls, expect="unbounded")
