"""The audit's edge cases: scaled objectives, degenerate constraints, kinks, cones at the boundary.

Registered into `solver_audit_cases.CASES` on import; see that module for the `Case` contract.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
from solver_audit_cases import _lasso, _reg, _v, case
from solver_audit_constrained import _lp, _lp_data, _simplex

SCALED_LS = """parameter X[m, n]
parameter y[m]
parameter s pos
variable w[n]
minimize s * sum((X * w - y) .^ 2)"""


def _scaled_ls(d):
    v = _v(d["X"].shape[1])
    return v, cp.Problem(cp.Minimize(d["s"] * cp.sum_squares(d["X"] @ v["w"] - d["y"])))


def _ls_scaled_data(s):
    return lambda rng: {**{k: (v + 1 if k == "y" else v) for k, v in _reg(40, 5)(rng).items()}, "s": s}


case("ls_objective_times_1e-12", SCALED_LS, _ls_scaled_data(1e-12), _scaled_ls, scale_free=True)
case("ls_objective_times_1e-15", SCALED_LS, _ls_scaled_data(1e-15), _scaled_ls, scale_free=True)
case("ls_objective_times_1e9", SCALED_LS, _ls_scaled_data(1e9), _scaled_ls, scale_free=True)


def _lp_scaled(d):
    variables, prob = _lp(d)
    return variables, cp.Problem(cp.Minimize(d["s"] * prob.objective.args[0]), prob.constraints)


LP_SCALED = """parameter A[m, n]
parameter b[m]
parameter c[n]
parameter s pos
variable x[n] nonneg <= 1
minimize s * c' * x
subject to
    A * x <= b"""
for _s in (1e-6, 1e-9):
    case(f"lp_objective_times_{_s:.0e}".replace("e-0", "e-"), LP_SCALED, lambda rng, s=_s: {**_lp_data(rng), "s": s},
         _lp_scaled, scale_free=True)


def _tie(d, twice=False):
    x = cp.Variable(3, name="x")
    cons = [cp.sum(x) <= 1, cp.sum(x) >= 1] if twice else [cp.sum(x) == 1, 2 * cp.sum(x) == 2]
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum_squares(x - 2)), cons)


case("redundant_equalities", """variable x[3]
minimize sum((x - vector(2)) .^ 2)
subject to
    sum(x) == 1
    2 * sum(x) == 2""", lambda rng: {}, _tie)
case("equality_as_two_inequalities", """variable x[3]
minimize sum((x - vector(2)) .^ 2)
subject to
    sum(x) <= 1
    sum(x) >= 1""", lambda rng: {}, lambda d: _tie(d, True))


def _inconsistent(d):
    x = cp.Variable(2, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum_squares(x)), [cp.sum(x) == 1, 2 * cp.sum(x) == 3])


case("infeasible_inconsistent_equalities", """variable x[2]
minimize x' * x
subject to
    sum(x) == 1
    2 * sum(x) == 3""", lambda rng: {}, _inconsistent, expect="infeasible")


def _unb_eq(d):
    x = cp.Variable(d["c"].shape, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(d["c"] @ x), [cp.sum(x) == 1])


case("unbounded_linear_with_equality", """parameter c[n]
variable x[n]
minimize c' * x
subject to
    sum(x) == 1""", lambda rng: {"c": rng.standard_normal(4)}, _unb_eq, expect="unbounded")


def _pos_inf(d):
    x = cp.Variable(3, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum(x) + cp.sum_squares(x)), [x >= 0])


case("unattained_infimum_on_open_orthant", """variable x[3] pos
minimize sum(x) + x' * x""", lambda rng: {}, _pos_inf, expect="unbounded")


def _outside(d):
    x = cp.Variable(3, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum(x) - cp.sum(cp.log(x - 1))))


case("start_outside_domain", """variable x[3]
minimize sum(x) - sum(log(x - 1))""", lambda rng: {}, _outside)


def _sdp_data(rng):
    S = rng.standard_normal((4, 4))
    return {"S": S + S.T}


def _sdp(d):
    X = cp.Variable((4, 4), symmetric=True, name="X")
    return {"X": X}, cp.Problem(cp.Minimize(cp.trace(d["S"] @ X)), [X >> 0, cp.trace(X) == 1])


case("sdp_min_eigenvalue", """parameter S[n, n] symmetric
variable X[n, n] psd
minimize tr(S * X)
subject to
    tr(X) == 1""", _sdp_data, _sdp, cone=True)


def _maxdet(d):
    X = cp.Variable((4, 4), symmetric=True, name="X")
    return {"X": X}, cp.Problem(cp.Maximize(cp.log_det(X)), [X >> 0, cp.trace(d["S"] @ X) <= 1])


def _cov4(rng):
    A = rng.standard_normal((12, 4))
    return {"S": A.T @ A / 12}


case("max_logdet_trace_constraint", """parameter S[n, n] psd
variable X[n, n] pd
maximize logdet(X)
subject to
    tr(S * X) <= 1""", _cov4, _maxdet, cone=True)


def _corr(d):
    X = cp.Variable((4, 4), symmetric=True, name="X")
    return {"X": X}, cp.Problem(cp.Minimize(cp.trace(d["S"] @ X) - cp.log_det(X)), [X >> 0, cp.diag(X) == 1])


case("logdet_unit_diagonal", """parameter S[n, n] psd
variable X[n, n] pd
minimize tr(S * X) - logdet(X)
subject to
    diag(X) == vector(1)""", _cov4, _corr, cone=True)


def _zero_res(d):
    x = cp.Variable(5, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.norm2(d["A"] @ x - d["b"])))


case("norm2_zero_residual", """parameter A[m, n]
parameter b[m]
variable x[n]
minimize norm2(A * x - b)""", lambda rng: {"A": rng.standard_normal((5, 5)), "b": rng.standard_normal(5)},
     _zero_res, cone=True)


def _lasso_zero_data(rng):
    d = {"X": rng.standard_normal((30, 6)), "y": rng.standard_normal(30)}
    return {**d, "lam": 1.1 * np.abs(d["X"].T @ d["y"]).max()}


def _lasso0(d):
    v = _v(6)
    return v, cp.Problem(cp.Minimize(0.5 * cp.sum_squares(d["X"] @ v["w"] - d["y"]) + d["lam"] * cp.norm1(v["w"])))


case("lasso_solution_zero", """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
minimize 0.5 * sum((X * w - y) .^ 2) + lam * sum(abs(w))""", _lasso_zero_data, _lasso0)


def _inv(d):
    x = cp.Variable(5, name="x")
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum(cp.inv_pos(x))), [d["a"] @ x == 1, x >= 0])


case("inverse_sum_budget", """parameter a[n] pos
variable x[n] pos
minimize sum(1 ./ x)
subject to
    a' * x == 1""", lambda rng: {"a": rng.uniform(0.5, 2, 5)}, _inv, cone=True)


def _pow(d, p):
    x = cp.Variable(5, name="x")
    cons = [x >= 0] + ([cp.sum(x) <= 1] if p == 4 else [])
    return {"x": x}, cp.Problem(cp.Minimize(cp.sum(cp.power(x, p)) - d["a"] @ x), cons)


case("power4_budget", """parameter a[n]
variable x[n] nonneg
minimize sum(x .^ 4) - a' * x
subject to
    sum(x) <= 1""", lambda rng: {"a": rng.uniform(0.5, 2, 5)}, lambda d: _pow(d, 4), cone=True)
case("power1p5_nonneg", """parameter a[n]
variable x[n] nonneg
minimize sum(x .^ 1.5) - a' * x""", lambda rng: {"a": rng.uniform(-1, 2, 5)}, lambda d: _pow(d, 1.5), cone=True)


def _l1_model(d, kind):
    v = _v(6)
    r = d["X"] @ v["w"] - d["y"] if "X" in d else None
    if kind == "lasso_nonneg":
        objective = cp.Minimize(0.5 * cp.sum_squares(r) + 2 * cp.norm1(v["w"]))
        return v, cp.Problem(objective, [v["w"] >= 0, cp.sum(v["w"]) <= 1])
    if kind == "huber_eq":
        return v, cp.Problem(cp.Minimize(cp.sum(cp.huber(r, 1))), [cp.sum(v["w"]) == 1])
    if kind == "basis_pursuit":
        return v, cp.Problem(cp.Minimize(cp.norm1(v["w"])), [d["A"] @ v["w"] == d["b"]])
    return v, cp.Problem(cp.Minimize(cp.sum_squares(r)), [cp.norm1(v["w"]) <= 0.5])


_XY = _reg(30, 6, noise=1.0)
case("lasso_nonneg_budget", """parameter X[m, n]
parameter y[m]
variable w[n] nonneg
minimize 0.5 * sum((X * w - y) .^ 2) + 2 * sum(abs(w))
subject to
    sum(w) <= 1""", _XY, lambda d: _l1_model(d, "lasso_nonneg"))
case("huber_with_equality", """parameter X[m, n]
parameter y[m]
variable w[n]
minimize sum(huber(X * w - y))
subject to
    sum(w) == 1""", _XY, lambda d: _l1_model(d, "huber_eq"))
BASIS_PURSUIT = """parameter A[k, n]
parameter b[k]
variable w[n]
minimize sum(abs(w))
subject to
    A * w == b"""
for _seed in (0, 3):      # Newton-CG fails on seeds 3 to 7 of 0 to 7
    case(f"basis_pursuit_seed{_seed}", BASIS_PURSUIT, lambda rng: {"A": rng.standard_normal((3, 6)),
         "b": rng.standard_normal(3)}, lambda d: _l1_model(d, "basis_pursuit"), seed=_seed)
case("ls_in_l1_ball", """parameter X[m, n]
parameter y[m]
variable w[n]
minimize sum((X * w - y) .^ 2)
subject to
    sum(abs(w)) <= 0.5""", _XY, lambda d: _l1_model(d, "l1_ball"))


# --------------------------------------------------------------------------- n = 300 (slow)

def _simplex300(rng, n=300):
    A = rng.standard_normal((n, n)) / np.sqrt(n)
    return {"P": A @ A.T + 1e-3 * np.eye(n), "q": rng.standard_normal(n)}


case("simplex_qp_n300", """parameter P[n, n] psd
parameter q[n]
variable x[n] nonneg
minimize x' * P * x + q' * x
subject to
    sum(x) == 1""", _simplex300, _simplex)


def _sparse_reg(rng, m=200, n=300):
    X = rng.standard_normal((m, n))
    return {"X": X, "y": X[:, :10] @ rng.standard_normal(10) + 0.1 * rng.standard_normal(m), "lam": 2.0}


case("lasso_200x300", """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
minimize 0.5 * sum((X * w - y) .^ 2) + lam * sum(abs(w))""", _sparse_reg, _lasso)


def _entropy_moments(d):
    p = cp.Variable(d["a"].shape, name="p")
    cons = [cp.sum(p) == 1, d["a"] @ p == d["m1"], cp.square(d["a"]) @ p <= d["m2"]]
    return {"p": p}, cp.Problem(cp.Maximize(cp.sum(cp.entr(p))), cons)


case("entropy_moments_n300", """parameter a[n]
parameter m1
parameter m2
variable p[n] pos
maximize -sum(p .* log(p))
subject to
    sum(p) == 1
    a' * p == m1
    (a.^2)' * p <= m2""", lambda rng: {"a": rng.uniform(-1, 1, 300), "m1": 0.3, "m2": 0.3}, _entropy_moments,
     cone=True)


# --------------------------------------------------------------------------- cones and kinks at the start

def _psd_proj(d):
    X = cp.Variable((4, 4), symmetric=True, name="X")
    return {"X": X}, cp.Problem(cp.Minimize(cp.sum_squares(X - d["B"])), [X >> 0])


case("psd_projection", """parameter B[n, n] symmetric
variable X[n, n] psd
minimize sum((X - B) .^ 2)""", lambda rng: {"B": _sdp_data(rng)["S"]}, _psd_proj, cone=True)


def _geo(d):
    x, y = cp.Variable(name="x"), cp.Variable(name="y")
    objective = cp.Maximize(cp.geo_mean(cp.hstack([x, y])))
    return {"x": x, "y": y}, cp.Problem(objective, [x >= 0, y >= 0, x + 2 * y <= 2])


case("geometric_mean_budget", """variable x nonneg
variable y nonneg
maximize sqrt(x * y)
subject to
    x + 2 * y <= 2""", lambda rng: {}, _geo, cone=True)


def _group(d):
    w = cp.Variable(6, name="w")
    pen = cp.norm2(w[0:3]) + cp.norm2(w[3:6])
    return {"w": w}, cp.Problem(cp.Minimize(0.5 * cp.sum_squares(d["X"] @ w - d["y"]) + d["lam"] * pen))


case("group_lasso_kink_at_start", """parameter X[m, 6]
parameter y[m]
parameter lam nonneg
variable w[6]
minimize 0.5 * sum((X * w - y) .^ 2) + lam * (norm2(w[0:3]) + norm2(w[3:6]))""",
     lambda rng: {"X": rng.standard_normal((40, 6)), "y": rng.standard_normal(40), "lam": 1.0}, _group,
     cone=True)


# --------------------------------------------------------------------------- max, min, norm_inf (lifted)

def _cheb_data(rng):
    return {"A": rng.standard_normal((10, 3)), "b": rng.standard_normal(10)}


def _cheb(d, ball=False):
    x = cp.Variable(3, name="x")
    if ball:
        return {"x": x}, cp.Problem(cp.Minimize(cp.norm1(d["A"] @ x - d["b"])), [cp.norm_inf(x) <= 0.2])
    return {"x": x}, cp.Problem(cp.Minimize(cp.norm_inf(d["A"] @ x - d["b"])))


case("chebyshev_fit", """parameter A[10, 3]
parameter b[10]
variable x[3]
minimize norm_inf(A * x - b)""", _cheb_data, _cheb)
case("l1_fit_in_inf_ball", """parameter A[10, 3]
parameter b[10]
variable x[3]
minimize sum(abs(A * x - b))
subject to
    norm_inf(x) <= 0.2""", _cheb_data, lambda d: _cheb(d, True))


def _maxmin(d):
    x = cp.Variable(5, name="x")
    return {"x": x}, cp.Problem(cp.Maximize(cp.min(x)), [d["c"] @ x <= 1])


case("maximize_min_budget", """parameter c[5]
variable x[5]
maximize min(x)
subject to
    c' * x <= 1""", lambda rng: {"c": rng.uniform(0.5, 2, 5)}, _maxmin)
