"""The solver audit's corpus: problems the solvers had not seen, each with its CVXPY twin.

A `Case` holds the problem text, a data recipe (`data(rng)`: a dict of arrays from a seeded
generator) and `model(data)`: the same problem in CVXPY, as (variables by name, cp.Problem),
with every bound the text declares written as a constraint (so CVXPY can check any point).
`expect` is "optimal", "infeasible", "unbounded" or "error" (refused with a SolverError).
`cone` marks problems CVXPY solves as a cone program (exp, log, logdet, norms): their
reference is trusted to 1e-5, not 1e-6. Used by tests/test_solver_audit.py; sizes are
small (n = 2 to 300) so the whole corpus solves in seconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cvxpy as cp
import numpy as np


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    data: Callable[[np.random.Generator], dict]
    model: Callable[[dict], tuple[dict, cp.Problem]]
    expect: str = "optimal"
    cone: bool = False
    seed: int = 0
    methods: tuple = ("auto", "newton", "lbfgs", "newton-cg")
    scale_free: bool = False    # judge the objective relative to |reference| alone (tiny objectives)


def make_data(case: Case) -> dict:
    """The case's data from its seed (the same arrays on every call)."""
    return case.data(np.random.default_rng(case.seed))


def reference(case: Case, data: dict) -> tuple[float, str]:
    """CVXPY's optimal value and status (Clarabel). A scale-free case multiplies its
    objective by the parameter s: CVXPY solves it with s = 1 (its tolerances are absolute,
    so it would stop early on a tiny objective) and the value is scaled back."""
    s = data["s"] if case.scale_free else 1.0
    _, prob = case.model({**data, "s": 1.0} if case.scale_free else data)
    prob.solve(solver=cp.CLARABEL)
    return s * prob.value, prob.status


def evaluate(case: Case, data: dict, x: dict) -> tuple[float, float]:
    """The CVXPY objective and largest constraint violation at our point x."""
    variables, prob = case.model(data)
    for name, var in variables.items():
        var.value = np.reshape(np.asarray(x[name], dtype=float), var.shape)
    viol = max((float(np.max(c.violation())) for c in prob.constraints), default=0.0)
    return float(prob.objective.value), viol


# --------------------------------------------------------------------------- data recipes

def _reg(m, n, noise=0.1, scale=None, rank=None):
    def make(rng):
        X = rng.standard_normal((m, n))
        if rank is not None:
            X = X[:, :rank] @ rng.standard_normal((rank, n))
        if scale is not None:
            X = X * np.logspace(-3, 3, n)
        y = X @ rng.standard_normal(n) + noise * rng.standard_normal(m)
        return {"X": X, "y": y}
    return make


def _cls(m, n, lam=None, scale=False, flip=0.2):
    def make(rng):
        X = rng.standard_normal((m, n))
        if scale:
            X = X * np.logspace(-3, 3, n)
        z = X @ rng.standard_normal(n)
        y = np.where(z + 3 * flip * np.abs(z).mean() * rng.standard_normal(m) > 0, 1.0, -1.0)
        out = {"X": X, "y": y}
        if lam is not None:
            out["lam"] = lam
        return out
    return make


def _with(make, **extra):
    def wrapped(rng):
        out = make(rng)
        out.update({k: (v(rng) if callable(v) else v) for k, v in extra.items()})
        return out
    return wrapped


def _v(n, name="w", **kw):
    return {name: cp.Variable(n, name=name, **kw)}


def _logistic(z):
    return cp.sum(cp.logistic(z))


# --------------------------------------------------------------------------- the corpus

CASES: list[Case] = []


def case(*args, **kw):
    CASES.append(Case(*args, **kw))


def _ls(d, intercept=False, lam=0.0, weights=None):
    v = _v(d["X"].shape[1])
    r = d["X"] @ v["w"] - d["y"]
    if intercept:
        v["b"] = cp.Variable(name="b")
        r = r + v["b"]
    loss = cp.sum_squares(r) if weights is None else cp.sum(cp.multiply(weights, cp.square(r)))
    return v, cp.Problem(cp.Minimize(loss + lam * cp.sum_squares(v["w"])))


LS = """parameter X[m, n]
parameter y[m]
variable w[n]
minimize sum((X * w - y) .^ 2)"""
case("ls", LS, _reg(40, 5), _ls)
case("ls_n300", LS, _reg(400, 300), _ls)
case("ls_n2", LS, _reg(10, 2), _ls)
case("ls_rank_deficient", LS, _reg(30, 8, rank=4), _ls)
case("ls_badly_scaled", LS, _reg(60, 6, scale=True), _ls)

LS_B = """parameter X[m, n]
parameter y[m]
variable w[n]
variable b
minimize sum((X * w + b - y) .^ 2)"""
case("ls_intercept", LS_B, lambda rng: {k: (v + 3.0 if k == "y" else v) for k, v in _reg(50, 4)(rng).items()},
     lambda d: _ls(d, intercept=True))

RIDGE = """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
minimize sum((X * w - y) .^ 2) + lam * w' * w"""
case("ridge", RIDGE, _with(_reg(30, 10), lam=0.5), lambda d: _ls(d, lam=d["lam"]))
case("ridge_n200_wide", RIDGE, _with(_reg(50, 200), lam=1e-2), lambda d: _ls(d, lam=d["lam"]))

WLS = """parameter X[m, n]
parameter y[m]
parameter s[m] pos
variable w[n]
minimize sum(s .* (X * w - y) .^ 2)"""
case("weighted_ls", WLS, _with(_reg(40, 6), s=lambda rng: rng.uniform(0.01, 10, 40)),
     lambda d: _ls(d, weights=d["s"]))


def _logit(d, intercept=False, lam=0.0):
    v = _v(d["X"].shape[1])
    z = d["X"] @ v["w"]
    if intercept:
        v["b"] = cp.Variable(name="b")
        z = z + v["b"]
    return v, cp.Problem(cp.Minimize(_logistic(-cp.multiply(d["y"], z)) + lam * cp.sum_squares(v["w"])))


LOGIT = """parameter X[m, n]
parameter y[m]
variable w[n]
minimize sum(log(1 + exp(-y .* (X * w))))"""
case("logistic", LOGIT, _cls(100, 5, flip=0.5), _logit, cone=True)
case("logistic_separable", LOGIT, _cls(40, 3, flip=0.0), _logit, expect="unbounded", cone=True)
LOGIT_B = """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
variable b
minimize sum(softplus(-y .* (X * w + b))) + lam * w' * w"""
case("logistic_intercept_l2", LOGIT_B, _cls(120, 8, lam=0.1, flip=0.3),
     lambda d: _logit(d, True, d["lam"]), cone=True)
case("logistic_l2_badly_scaled", LOGIT_B, _cls(150, 5, lam=1e-3, scale=True, flip=0.5),
     lambda d: _logit(d, True, d["lam"]), cone=True)
case("logistic_l2_n300", LOGIT_B, _cls(200, 300, lam=1.0, flip=0.3),
     lambda d: _logit(d, True, d["lam"]), cone=True)


def _poisson_data(rng):
    X = 0.3 * rng.standard_normal((80, 4))
    y = rng.poisson(np.exp(X @ rng.standard_normal(4) + 0.5)).astype(float)
    return {"X": X, "y": y, "lam": 0.05}


def _poisson(d):
    v = _v(4)
    v["b"] = cp.Variable(name="b")
    eta = d["X"] @ v["w"] + v["b"]
    return v, cp.Problem(cp.Minimize(cp.sum(cp.exp(eta)) - d["y"] @ eta + d["lam"] * cp.sum_squares(v["w"])))


case("poisson_intercept", """parameter X[m, n]
parameter y[m] nonneg
parameter lam nonneg
variable w[n]
variable b
minimize sum(exp(X * w + b)) - y' * (X * w + b) + lam * w' * w""", _poisson_data, _poisson, cone=True)


def _huber_data(rng):
    d = _reg(60, 5, noise=0.5)(rng)
    d["y"][:6] += 20 * rng.standard_normal(6)
    return d


def _huber(d):
    v = _v(5)
    return v, cp.Problem(cp.Minimize(cp.sum(cp.huber(d["X"] @ v["w"] - d["y"], 1))))


case("huber_regression", """parameter X[m, n]
parameter y[m]
variable w[n]
minimize sum(huber(X * w - y))""", _huber_data, _huber)


def _softmax_data(rng):
    X = rng.standard_normal((60, 4))
    labels = np.argmax(X @ rng.standard_normal((4, 3)) + rng.standard_normal((60, 3)), axis=1)
    return {"X": X, "Y": np.eye(3)[labels], "lam": 0.1}


def _softmax(d):
    W = cp.Variable((4, 3), name="W")
    Z = d["X"] @ W
    loss = cp.sum(cp.log_sum_exp(Z, axis=1)) - cp.sum(cp.multiply(d["Y"], Z)) + d["lam"] * cp.sum_squares(W)
    return {"W": W}, cp.Problem(cp.Minimize(loss))


case("softmax_l2", """parameter X[m, n]
parameter Y[m, k]
parameter lam nonneg
variable W[n, k]
minimize sum(log(exp(X * W) * ones)) - sum(Y .* (X * W)) + lam * sum(W .^ 2)""",
     _softmax_data, _softmax, cone=True)


def _l1fit(d, tau=None):
    v = _v(d["X"].shape[1])
    r = d["y"] - d["X"] @ v["w"]
    loss = cp.norm1(r) if tau is None else cp.sum(tau * cp.pos(r) + (1 - tau) * cp.pos(-r))
    return v, cp.Problem(cp.Minimize(loss))


case("l1_regression", """parameter X[m, n]
parameter y[m]
variable w[n]
minimize sum(abs(X * w - y))""", _huber_data, _l1fit)
case("quantile_regression", """parameter X[m, n]
parameter y[m]
variable w[n]
minimize sum(0.8 * relu(y - X * w) + 0.2 * relu(X * w - y))""", _huber_data,
     lambda d: _l1fit(d, 0.8))


def _lasso(d, mu=0.0):
    v = _v(d["X"].shape[1])
    w = v["w"]
    obj = 0.5 * cp.sum_squares(d["X"] @ w - d["y"]) + d["lam"] * cp.norm1(w) + mu * cp.sum_squares(w)
    return v, cp.Problem(cp.Minimize(obj))


LASSO = """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
minimize 0.5 * sum((X * w - y) .^ 2) + lam * sum(abs(w))"""
case("lasso", LASSO, _with(_reg(50, 20), lam=5.0), _lasso)
case("lasso_badly_scaled", LASSO, _with(_reg(60, 8, scale=True), lam=1.0), _lasso)
case("elastic_net", """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
minimize 0.5 * sum((X * w - y) .^ 2) + lam * norm1(w) + 0.5 * w' * w""",
     _with(_reg(40, 15), lam=3.0), lambda d: _lasso(d, 0.5))


def _svm(d):
    v = _v(d["X"].shape[1])
    v["b"] = cp.Variable(name="b")
    hinge = cp.sum(cp.pos(1 - cp.multiply(d["y"], d["X"] @ v["w"] + v["b"])))
    return v, cp.Problem(cp.Minimize(hinge + d["lam"] * cp.sum_squares(v["w"])))


case("svm_hinge", """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
variable b
minimize sum(relu(1 - y .* (X * w + b))) + lam * w' * w""", _cls(80, 5, lam=0.1, flip=0.3), _svm)


def _svm_l1(d):
    v = _v(d["X"].shape[1])
    v["b"] = cp.Variable(name="b")
    hinge = cp.sum(cp.pos(1 - cp.multiply(d["y"], d["X"] @ v["w"] - v["b"]))) / d["X"].shape[0]
    return v, cp.Problem(cp.Minimize(hinge + d["lam"] * cp.norm1(v["w"])))


# the mean hinge loss: `/ 200` is `* recip(200)`, a weight whose sign the lift must read
# (issue 26: unlifted, the relu went to the interior-point method as a kink; status 1 at 5e4 x the optimum)
case("svm_hinge_l1_mean", """parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
variable b
minimize sum(relu(1 - y .* (X * w - b))) / 200 + lam * sum(abs(w))""", _cls(200, 10, lam=0.02, flip=0.3),
     _svm_l1)
