"""The solvers package against references: scikit-learn, NumPy/SciPy, CVXPY, and known optima.

Every solve is checked on its objective value and on its optimality conditions (max|g|),
and the result's bookkeeping (history, counts, convexity, warnings) against the solve.
Instances are small: the whole file runs in a few seconds.
"""
from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
import scipy.special
from conftest import cupy_or_skip, examples
from hypothesis import given, settings
from hypothesis import strategies as st

import convexcheck
import solvers
import tensorcalc as tc
from solvers.numerics.linalg import Blocks, newton_step
from solvers.objective.smooth import Objective
from solvers.objective.structure import block_form
from solvers.task.prepare import prepare

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
METHODS = ["newton", "newton-cg", "lbfgs", "gd"]

# --------------------------------------------------------------------------- problems

LOGISTIC = """
parameter X[m, n]
parameter y[m]
parameter c pos
parameter lam nonneg
variable w[n]
minimize c * sum(log(1 + exp(-(y *(i,i->i) (X *(ij,j->i) w))))) + lam * sum(w^2)
"""

RIDGE = """
parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
minimize sum((X *(ij,j->i) w - y)^2) + lam * sum(w^2)
"""

LOG_SUM_EXP = """
parameter A[m, n]
parameter b[m]
variable x[n]
minimize log(sum(exp(A *(ij,j->i) x - b))) + 0.5 * sum(x^2)
"""

# exp(A x - t) summed, plus t^2 and |x|^2: jointly convex in (x, t), the two coupled
JOINT = """
parameter A[m, n]
parameter ones[m]
variable x[n]
variable t
minimize sum(exp(A *(ij,j->i) x - t * ones)) + t^2 + sum(x^2)
"""

# c.x + sum_i (B (1/x))_i over x > 0: optimum x_j = sqrt(colsum(B)_j / c_j)
INVERSE = """
parameter c[n] pos
parameter B[m, n] nonneg
variable x[n] pos
minimize c *(i,i->) x + sum(B *(ij,j->i) (1 / x))
"""


def logistic_data(seed=0, m=40, n=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X @ rng.normal(size=n) + rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


def logistic_value(X, y, w, C):
    m = len(y)
    return np.mean(np.logaddexp(0.0, -y * (X @ w))) + w @ w / (2 * C * m)


def gmax(result) -> float:
    return max(float(np.max(np.abs(g))) for g in result.jac.values())


def rel(a, b) -> float:
    return abs(a - b) / max(1.0, abs(b))


# --------------------------------------------------------------------------- scikit-learn

@pytest.fixture(scope="module")
def logistic_reference():
    from sklearn.linear_model import LogisticRegression
    X, y = logistic_data()
    C = 0.7
    clf = LogisticRegression(solver="newton-cholesky", fit_intercept=False, C=C, tol=1e-10,
                             max_iter=1000).fit(X, y)
    w = clf.coef_.ravel()
    data = {"X": X, "y": y, "c": 1.0 / len(y), "lam": 1.0 / (2 * C * len(y))}
    return data, w, logistic_value(X, y, w, C)


@pytest.mark.parametrize("method", METHODS)
def test_logistic_regression_matches_sklearn(logistic_reference, method):
    data, w_ref, f_ref = logistic_reference
    result = solvers.minimize(LOGISTIC, data=data, method=method,
                              max_iter=20000 if method == "gd" else None)
    assert result.success and result.status == 0, result.message
    assert result.method == method and result.device == "cpu"
    assert rel(result.fun, f_ref) < 1e-9
    assert result.fun <= f_ref + 1e-12           # sklearn's point is no better than ours
    assert gmax(result) <= 1e-8
    # the objective is strongly convex: the minimiser is unique, close to sklearn's
    np.testing.assert_allclose(result.x["w"], w_ref, atol=1e-6)
    # fun is the objective at x, computed independently
    X, y = data["X"], data["y"]
    assert rel(result.fun, logistic_value(X, y, result.x["w"], 0.7)) < 1e-12
    assert result.convexity == "convex" and result.warning is None
    assert result.nfev >= result.nit and result.njev >= result.nit
    if method == "newton":
        assert result.nhev >= 1 and result.nit <= 10      # quadratic convergence
    elif method == "newton-cg":
        assert result.nhev >= 1 and result.history[0].cg >= 1
    else:
        assert result.nhev == 0


# --------------------------------------------------------------------------- NumPy / SciPy

def test_least_squares_matches_lstsq():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 4)), rng.normal(size=30)
    result = solvers.minimize(RIDGE, data={"X": X, "y": y, "lam": 0.0})
    w_ref, residual, *_ = np.linalg.lstsq(X, y, rcond=None)
    assert result.status == 0
    np.testing.assert_allclose(result.x["w"], w_ref, rtol=1e-10, atol=1e-12)
    assert rel(result.fun, float(residual[0])) < 1e-10
    assert result.nit == 1           # Newton is exact on a positive definite quadratic
    assert gmax(result) <= 1e-8


@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs"])
def test_ridge_matches_closed_form(method):
    rng = np.random.default_rng(2)
    X, y, lam = rng.normal(size=(12, 6)), rng.normal(size=12), 0.3
    result = solvers.minimize(RIDGE, data={"X": X, "y": y, "lam": lam}, method=method)
    w = np.linalg.solve(X.T @ X + lam * np.eye(6), X.T @ y)
    f = np.sum((X @ w - y) ** 2) + lam * w @ w
    assert result.status == 0, result.message
    assert rel(result.fun, f) < 1e-12
    np.testing.assert_allclose(result.x["w"], w, atol=1e-8)
    # jac is the true gradient 2 X^T (X w - y) + 2 lam w at the returned x
    x = result.x["w"]
    np.testing.assert_allclose(result.jac["w"], 2 * X.T @ (X @ x - y) + 2 * lam * x, atol=1e-12)


@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs"])
def test_log_sum_exp_matches_scipy_bfgs(method):
    rng = np.random.default_rng(3)
    A, b = rng.normal(size=(7, 3)), rng.normal(size=7)

    def f(x):
        return scipy.special.logsumexp(A @ x - b) + 0.5 * x @ x

    def grad(x):
        p = scipy.special.softmax(A @ x - b)
        return A.T @ p + x

    ref = scipy.optimize.minimize(f, np.zeros(3), jac=grad, method="BFGS", options={"gtol": 1e-12})
    result = solvers.minimize(LOG_SUM_EXP, data={"A": A, "b": b}, method=method)
    assert result.status == 0, result.message
    assert result.convexity == "convex"
    assert result.fun <= ref.fun + 1e-13
    assert rel(result.fun, ref.fun) < 1e-12
    np.testing.assert_allclose(result.x["x"], ref.x, atol=1e-7)
    np.testing.assert_allclose(result.jac["x"], grad(result.x["x"]), atol=1e-12)
    assert np.abs(grad(result.x["x"])).max() <= 1e-8


QUADRATIC = """
parameter A[n, n] psd
parameter b[n]
variable x[n]
minimize 0.5 * x *(i,ij->j) A *(j,j->) x - b *(i,i->) x
"""


@settings(max_examples=examples(15))
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 6),
       method=st.sampled_from(["newton", "newton-cg", "lbfgs"]))
def test_random_quadratics_solve_to_the_linear_system(seed, n, method):
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(n, n))
    A = Q @ Q.T + 0.5 * np.eye(n)          # condition number is bounded by the shift
    b = rng.normal(size=n)
    result = solvers.minimize(QUADRATIC, data={"A": A, "b": b}, method=method)
    x = np.linalg.solve(A, b)
    assert result.status == 0, result.message
    assert result.fun <= -0.5 * b @ x + 1e-12 * max(1.0, abs(b @ x))
    np.testing.assert_allclose(A @ result.x["x"], b, atol=1e-8)
    if method == "newton":
        assert result.nit == 1


# --------------------------------------------------------------------------- CVXPY

def test_joint_variables_match_cvxpy():
    """Two variables coupled in one exp: one Newton system with a dense 4 x 4 Hessian."""
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(4)
    A = rng.normal(size=(5, 3))
    data = {"A": A, "ones": np.ones(5)}
    result = solvers.minimize(JOINT, data=data)
    assert result.status == 0, result.message
    assert set(result.x) == {"x", "t"} and result.x["t"].shape == ()
    # jointly convex, though convexcheck proves it only in x alone and in t alone
    assert result.convexity in ("convex", "unknown")
    assert (result.warning is None) == (result.convexity == "convex")
    x, t = cp.Variable(3), cp.Variable()
    ref = cp.Problem(cp.Minimize(cp.sum(cp.exp(A @ x - t)) + t ** 2 + cp.sum_squares(x)))
    ref.solve()
    assert result.fun <= ref.value + 1e-8
    assert rel(result.fun, ref.value) < 1e-7
    np.testing.assert_allclose(result.x["x"], x.value, atol=1e-4)
    np.testing.assert_allclose(result.x["t"], t.value, atol=1e-4)
    # optimality by hand: d/dx = A^T e + 2x, d/dt = -sum(e) + 2t with e = exp(A x - t)
    e = np.exp(A @ result.x["x"] - result.x["t"])
    assert np.abs(A.T @ e + 2 * result.x["x"]).max() <= 1e-8
    assert abs(-e.sum() + 2 * result.x["t"]) <= 1e-8
    # the joint Hessian is one dense symmetric positive definite matrix
    task = prepare(JOINT, data, result.x)
    obj = Objective(task, np)
    _, _, H = obj.value_grad_hess(obj.pack(task.x0))
    assert isinstance(H, np.ndarray) and H.shape == (4, 4)
    assert np.abs(H[:3, 3]).max() > 0                 # the coupling block is there
    np.testing.assert_allclose(H, H.T, atol=1e-14)
    assert np.linalg.eigvalsh(H).min() > 0


def test_fixed_variable_matches_cvxpy():
    """A variable given in data is held at that value; the others are solved for."""
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(4)
    A = rng.normal(size=(5, 3))
    result = solvers.minimize(JOINT, data={"A": A, "ones": np.ones(5), "t": 0.5})
    assert result.status == 0
    assert set(result.x) == {"x"} and set(result.jac) == {"x"}
    x = cp.Variable(3)
    ref = cp.Problem(cp.Minimize(cp.sum(cp.exp(A @ x - 0.5)) + 0.25 + cp.sum_squares(x)))
    ref.solve()
    assert rel(result.fun, ref.value) < 1e-7 and result.fun <= ref.value + 1e-8
    e = np.exp(A @ result.x["x"] - 0.5)
    np.testing.assert_allclose(A.T @ e + 2 * result.x["x"], 0, atol=1e-8)
    # fixed at a different value, a different answer
    other = solvers.minimize(JOINT, data={"A": A, "ones": np.ones(5), "t": -0.5})
    assert other.fun > result.fun + 0.1


def test_positive_variable_matches_cvxpy_and_closed_form():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(5)
    c, B = rng.uniform(0.5, 2.0, 4), rng.uniform(0.0, 1.0, (3, 4))
    result = solvers.minimize(INVERSE, data={"c": c, "B": B})
    assert result.status == 0 and result.convexity == "convex"
    x_opt = np.sqrt(B.sum(0) / c)
    np.testing.assert_allclose(result.x["x"], x_opt, rtol=1e-9)
    assert rel(result.fun, 2 * np.sqrt(c * B.sum(0)).sum()) < 1e-12
    x = cp.Variable(4, pos=True)
    ref = cp.Problem(cp.Minimize(c @ x + cp.sum(B @ cp.inv_pos(x))))
    ref.solve()
    assert rel(result.fun, ref.value) < 1e-7 and result.fun <= ref.value + 1e-8
    assert all(h.f < math.inf for h in result.history)


# --------------------------------------------------------------------------- maximize, inputs

@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs"])
def test_maximize_reports_the_objective_as_written(method):
    problem = "variable x[n] pos\nmaximize sum(log(x)) - sum(x)"
    x0 = np.array([0.2, 0.5, 3.0])
    result = solvers.minimize(problem, x0=x0, method=method)
    assert result.status == 0, result.message
    np.testing.assert_allclose(result.x["x"], 1.0, atol=1e-8)
    assert result.fun == pytest.approx(-3.0, abs=1e-13)      # the maximum, not its negative
    assert result.convexity == "convex" and result.warning is None   # concave, as maximize needs
    # jac: the gradient of sum(log x) - sum(x) as written, 1/x - 1, at a point not optimal
    stopped = solvers.minimize(problem, x0=x0, method=method, max_iter=0)
    assert stopped.status == 1 and stopped.nit == 0
    np.testing.assert_allclose(stopped.jac["x"], 1 / x0 - 1)
    assert stopped.fun == pytest.approx(np.sum(np.log(x0) - x0))
    # the history records the maximised values, which increase
    fs = [h.f for h in result.history]
    assert fs[0] == pytest.approx(np.sum(np.log(x0) - x0))
    assert all(b >= a - 1e-15 for a, b in zip(fs, fs[1:]))


def test_tensorcalc_expression_as_problem():
    rng = np.random.default_rng(6)
    A = rng.normal(size=(6, 3))
    expr = tc.parse_expr("sum(exp(A *(ij,j->i) x)) + sum(x^2)", {"A": 2, "x": 1})
    result = solvers.minimize(expr, x0=np.zeros(3), data={"A": A})
    assert result.status == 0 and set(result.x) == {"x"}
    x = result.x["x"]
    np.testing.assert_allclose(A.T @ np.exp(A @ x) + 2 * x, 0, atol=1e-8)
    # the thesis input form, through parse(...).expr; the optimum of sum(exp(x) - x) is x = 0
    inp = tc.parse("declare x 1\nexpression sum(exp(x)) - sum(x)")
    result = solvers.minimize(inp.expr, x0=np.ones(4))
    assert result.status == 0
    np.testing.assert_allclose(result.x["x"], 0, atol=1e-8)
    assert result.fun == pytest.approx(4.0, abs=1e-14)


def test_problem_object_and_path_give_the_same_answer():
    path = EXAMPLES / "logistic_regression.tc"
    X, y = logistic_data(seed=7, m=30, n=3)
    X[:, 0] *= 0.1      # not separable: a finite minimiser
    y = np.where(np.random.default_rng(7).random(30) < 0.3, -y, y)
    a = solvers.minimize(path, data={"X": X, "y": y})
    b = solvers.minimize(convexcheck.load_problem(path), data={"X": X, "y": y})
    c = solvers.minimize(path.read_text(), data={"X": X, "y": y}, check=False)
    assert a.status == b.status == c.status == 0
    assert a.fun == b.fun == c.fun
    np.testing.assert_array_equal(a.x["w"], b.x["w"])
    assert c.convexity == "not checked" and c.warning is None
    assert gmax(a) <= 1e-8


def test_default_start_is_inside_the_bounds():
    # x >= 2 starts at 3, x <= -1 at -2, both bounds at the midpoint; each minimiser known
    result = solvers.minimize("variable x >= 2\nvariable y <= -1\nvariable z > 0 < 4\n"
                              "minimize x - 2 * log(x - 1) + (y + 3)^2 + (z - 1)^2 - log(z) - log(4 - z)",
                              max_iter=0)
    assert result.x["x"] == 3.0 and result.x["y"] == -2.0 and result.x["z"] == 2.0
    result = solvers.minimize("variable x >= 2\nvariable y <= -1\nminimize x - 2 * log(x - 1) + (y + 3)^2")
    assert result.status == 0
    assert result.x["x"] == pytest.approx(3.0) and result.x["y"] == pytest.approx(-3.0)


@pytest.mark.parametrize("method", METHODS)
def test_separable_variables(method):
    """Variables that do not interact: the cross Hessian is zero, and a gradient without
    its own variable (a linear term) has a zero Hessian."""
    problem = ("variable x[n]\nvariable y[k]\nvariable s\n"
               "minimize sum((x - 1)^2) + sum(exp(y)) - sum(y) + 2 * s + exp(-s)")
    result = solvers.minimize(problem, x0={"x": np.zeros(2), "y": np.ones(3), "s": 0.0}, method=method,
                              max_iter=20000 if method == "gd" else None)
    assert result.status == 0, result.message
    np.testing.assert_allclose(result.x["x"], 1.0, atol=1e-8)
    np.testing.assert_allclose(result.x["y"], 0.0, atol=1e-8)
    assert result.x["s"] == pytest.approx(-math.log(2), abs=1e-8)     # exp(-s) = 2
    assert result.fun == pytest.approx(3 + 2 * -math.log(2) + 2, abs=1e-12)


# --------------------------------------------------------------------------- matrix variables

MF = EXAMPLES / "matrix_factorisation.tc"


@pytest.fixture(scope="module")
def completion():
    rng = np.random.default_rng(2)
    m, n, r = 6, 5, 2
    Y = rng.normal(size=(m, r)) @ rng.normal(size=(n, r)).T        # exactly rank 2
    M = np.ones((m, n))
    M[[0, 1, 2, 3, 4, 5], [0, 2, 4, 1, 3, 0]] = 0.0                # 6 of 30 entries unobserved
    x0 = {"U": rng.normal(size=(m, r)), "V": rng.normal(size=(n, r))}
    return {"M": M, "Y": Y}, x0


def test_matrix_completion_alternating(completion):
    data, x0 = completion
    result = solvers.alternate(MF, ["U", "V"], x0=x0, data=data)
    assert result.status == 0 and result.success, result.message
    assert result.convexity == {"U": "convex", "V": "convex"} and result.warning is None
    assert result.method == "block-newton"
    fs = [h.f for h in result.history]
    assert all(b <= a * (1 + 1e-14) + 1e-300 for a, b in zip(fs, fs[1:])), fs
    assert [h.block for h in result.history[:4]] == ["U", "V", "U", "V"]
    assert result.nit == len(result.history) and result.sweeps == math.ceil(result.nit / 2)
    assert gmax(result) <= 1e-6
    U, V = result.x["U"], result.x["V"]
    M, Y = data["M"], data["Y"]
    # the data are exactly rank 2 and well observed: the global minimum 0 is reached
    assert result.fun == pytest.approx(np.sum((M * (U @ V.T - Y)) ** 2), rel=1e-12, abs=1e-300)
    assert result.fun <= 1e-12
    assert result.fun < fs[0] * 1e-6
    # jac is the gradient of the whole objective at the answer: 2 (M*M*(UV^T - Y)) V, ...
    R = M * M * (U @ V.T - Y)
    np.testing.assert_allclose(result.jac["U"], 2 * R @ V, atol=1e-12)
    np.testing.assert_allclose(result.jac["V"], 2 * R.T @ U, atol=1e-12)


def test_minimize_method_alternate_is_solvers_alternate(completion):
    """`minimize(problem, data, method="alternate", blocks=...)` runs `alternate`: the same
    iterates, max_iter counting sweeps."""
    data, x0 = completion
    a = solvers.alternate(MF, ["U", "V"], data, x0=x0, sweeps=7)
    b = solvers.minimize(MF, data, x0=x0, method="alternate", blocks=["U", "V"], max_iter=7)
    assert (a.status, a.message, a.nit) == (b.status, b.message, b.nit) and b.method == "block-newton"
    assert all(np.array_equal(a.x[n], b.x[n]) for n in ("U", "V"))
    with pytest.raises(solvers.SolverError, match="needs blocks"):
        solvers.minimize(MF, data, x0=x0, method="alternate")
    with pytest.raises(solvers.SolverError, match="blocks are for method='alternate'"):
        solvers.minimize(MF, data, x0=x0, blocks=["U", "V"])


def test_minimize_takes_data_second_and_the_rest_by_keyword():
    """`minimize(problem, data, *, x0=..., method=...)`, parallel to `convexcheck.analyze`."""
    with pytest.raises(TypeError):
        solvers.minimize("variable x\nminimize x^2", None, {"x": 1.0})


def test_minimize_takes_a_cvxpy_problem():
    """A CVXPY Problem is translated (`convexcheck.from_cvxpy`), its parameter values as data:
    the solution of the problem text with the same data."""
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((20, 5)), rng.standard_normal(20)
    w = cp.Variable(5, name="w")
    lam = cp.Parameter(nonneg=True, name="lam", value=0.1)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(X @ w - y) + lam * cp.sum_squares(w)))
    got = solvers.minimize(problem)
    want = solvers.minimize((EXAMPLES / "ridge.tc").read_text(), {"X": X, "y": y, "lam": 0.1})
    assert got.status == want.status == 0 and got.convexity == "convex"
    np.testing.assert_allclose(got.x["w"], want.x["w"], rtol=1e-12, atol=1e-14)
    problem.solve()
    np.testing.assert_allclose(got.x["w"], w.value, atol=1e-8)


def test_alternate_with_one_block_is_newton(completion):
    """With V fixed in data the problem is a least-squares problem in U: one block, one step."""
    data, x0 = completion
    fixed = {**data, "V": x0["V"]}
    a = solvers.alternate(MF, ["U"], x0={"U": x0["U"]}, data=fixed)
    b = solvers.minimize(MF, x0={"U": x0["U"]}, data=fixed)
    assert a.status == b.status == 0
    np.testing.assert_allclose(a.x["U"], b.x["U"], atol=1e-10)
    assert a.fun == pytest.approx(b.fun, rel=1e-10, abs=1e-14)
    assert b.nit == 1


def _dense_and_blocks(problem: str, data: dict, name: str, value):
    task = prepare(problem, data, {name: value})
    obj = Objective(task, np)
    z = obj.pack(task.x0)
    _, g, H = obj.value_grad_hess(z)
    expr = convexcheck.load_problem(problem).objective.expr
    dense = tc.hessian_matrix(expr, name)({**data, name: value})
    return g, H, dense


def test_block_hessian_equals_dense(completion):
    data, x0 = completion
    rng = np.random.default_rng(8)
    U, V = rng.normal(size=(6, 2)), rng.normal(size=(5, 2))
    problem = MF.read_text()
    expr = convexcheck.load_problem(problem).objective.expr
    assert block_form(tc.hessian(expr, "U"), 2) is not None
    assert block_form(tc.hessian(expr, "V"), 2) is not None
    g, H, dense = _dense_and_blocks(problem, {**data, "V": V}, "U", U)
    assert isinstance(H, Blocks) and H.axis == 0 and H.blocks.shape == (6, 2, 2)
    np.testing.assert_allclose(scipy.linalg.block_diag(*H.blocks), dense, rtol=1e-12, atol=1e-12)
    block_step, dense_step = newton_step(np, H, g), newton_step(np, dense, g)
    assert block_step.tau == dense_step.tau == 0.0
    np.testing.assert_allclose(block_step.d, dense_step.d, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dense @ block_step.d, -g, atol=1e-10)


def test_block_hessian_on_the_second_axis():
    """A variable W[r, n] whose Hessian is block diagonal over its columns (axis 1): the
    blocks are gathered and scattered through a transpose, and must still give the dense step."""
    problem = ("parameter M[m, n] nonneg\nparameter Y[m, n]\nparameter U[m, r]\nvariable W[r, n]\n"
               "minimize sum((M *(ij,ij->ij) (U *(ik,kj->ij) W - Y))^2) + sum(exp(W))")
    rng = np.random.default_rng(9)
    data = {"M": rng.uniform(0, 1, (5, 4)), "Y": rng.normal(size=(5, 4)), "U": rng.normal(size=(5, 3))}
    W = rng.normal(size=(3, 4))
    g, H, dense = _dense_and_blocks(problem, data, "W", W)
    assert isinstance(H, Blocks) and H.axis == 1 and H.blocks.shape == (4, 3, 3)
    # dense is block diagonal only after ordering the entries by column
    order = np.arange(12).reshape(3, 4).T.reshape(-1)
    np.testing.assert_allclose(scipy.linalg.block_diag(*H.blocks), dense[np.ix_(order, order)], atol=1e-12)
    block_step, dense_step = newton_step(np, H, g), newton_step(np, dense, g)
    np.testing.assert_allclose(block_step.d, dense_step.d, rtol=1e-10, atol=1e-12)
    # and the solve over W agrees with L-BFGS, which never builds a Hessian
    a = solvers.minimize(problem, x0={"W": W}, data=data)
    b = solvers.minimize(problem, x0={"W": W}, data=data, method="lbfgs")
    assert a.status == b.status == 0
    assert rel(a.fun, b.fun) < 1e-12 and gmax(a) <= 1e-8


# --------------------------------------------------------------------------- history, callback

def test_history_records_every_iterate(logistic_reference):
    data, _, _ = logistic_reference
    result = solvers.minimize(LOGISTIC, data=data)
    h = result.history
    assert len(h) == result.nit + 1 and [it.k for it in h] == list(range(len(h)))
    assert all(isinstance(it, solvers.Iteration) for it in h)
    fs = [it.f for it in h]
    assert all(b <= a for a, b in zip(fs, fs[1:]))              # Newton descends
    assert h[-1].f == result.fun and h[-1].step == 0.0
    assert h[0].f == pytest.approx(math.log(2))                  # w = 0: log(1 + 1) / m * m
    times = [it.time_s for it in h]
    assert all(b >= a for a, b in zip(times, times[1:])) and times[0] >= 0
    assert all(it.eval_s >= 0 and it.solve_s >= 0 for it in h)
    assert sum(it.eval_s + it.solve_s for it in h) <= times[-1] + 1e-9
    assert h[-1].gmax == pytest.approx(gmax(result), rel=1e-12, abs=1e-300)
    for it in h[:-1]:
        assert it.step > 0 and it.trials and it.trials[-1][0] == it.step
        assert it.decrement > 0 and it.damping == 0.0
        assert it.trials[-1][1] <= it.f
    chord = [bool(it.fallbacks) for it in h]
    assert all(not it.fallbacks or it.fallbacks[0].startswith("chord step") for it in h[:-1])
    # the stopping test holds at the end; the decrement shrinks superlinearly after a
    # Newton step and at least a hundredfold after a chord step (the previous Hessian reused)
    assert h[-1].gmax <= 1e-8 and h[-1].decrement <= 1e-12
    decrements = [it.decrement for it in h]
    for k, (a, b) in enumerate(zip(decrements, decrements[1:])):
        reused = chord[k] or chord[k + 1]        # a chord step from a, or b with an old factor
        assert b <= (0.01 * a if reused else a ** 1.5), decrements
    assert result.nhev == sum(not c for c in chord[:-1])         # no Hessian for a chord step
    for it in h:
        d = it.to_dict()
        text = json.dumps(d, allow_nan=False)
        assert json.loads(text)["k"] == it.k
        assert set(d) >= {"k", "f", "gmax", "block", "decrement", "step", "trials", "damping",
                          "fallbacks", "cg", "eval_s", "solve_s", "time_s"}


def test_first_order_history_has_no_decrement(logistic_reference):
    data, _, _ = logistic_reference
    result = solvers.minimize(LOGISTIC, data=data, method="lbfgs")
    assert all(math.isnan(it.decrement) for it in result.history)
    assert all(it.to_dict()["decrement"] is None for it in result.history)
    assert len(result.history) == result.nit + 1


def test_verbose_prints_one_row_per_iterate(capsys):
    result = solvers.minimize("variable x\nminimize exp(x) + exp(-x)", x0=1.0, verbose=True)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split()[:3] == ["iter", "f", "max|g|"]
    assert len(lines) == 1 + len(result.history)
    assert result.x["x"] == pytest.approx(0.0, abs=1e-10)


def test_callback_true_stops():
    seen = []

    def callback(state):
        seen.append(state)
        return state.nit == 2

    problem = "variable x\nminimize exp(x) + exp(-2 * x)"
    result = solvers.minimize(problem, x0=3.0, callback=callback)
    assert result.status == 3 and not result.success and "callback" in result.message
    assert len(seen) == 2 and [s.nit for s in seen] == [1, 2]
    assert result.nit == 2 and len(result.history) == 3
    x = float(result.x["x"])
    # what the callback saw and what came back describe the same point
    assert seen[-1].x["x"] == x and seen[-1].fun == result.fun
    assert result.fun == pytest.approx(math.exp(x) + math.exp(-2 * x), rel=1e-14)
    assert float(result.jac["x"]) == pytest.approx(math.exp(x) - 2 * math.exp(-2 * x), rel=1e-12)
    assert result.history[-1].f == result.fun
    assert isinstance(seen[0].iteration, solvers.Iteration) and seen[0].iteration.k == 0
    # not converged yet: the full solve goes further
    full = solvers.minimize(problem, x0=3.0)
    assert full.status == 0 and full.nit > 2 and full.fun < result.fun


def test_callback_stop_iteration_stops():
    def callback(state):
        raise StopIteration

    result = solvers.minimize("variable x\nminimize (x - 2)^4", x0=0.0, method="lbfgs", callback=callback)
    assert result.status == 3 and result.nit == 1
    assert result.fun == pytest.approx((float(result.x["x"]) - 2) ** 4)
    assert result.fun < 16.0


def test_callback_false_does_not_stop():
    calls = []
    result = solvers.minimize("variable x\nminimize (x - 2)^2", x0=0.0, callback=lambda s: calls.append(s) is not None)
    assert result.status == 0 and len(calls) == result.nit


# --------------------------------------------------------------------------- nonconvex

def test_rosenbrock_warns_but_solves():
    result = solvers.minimize(EXAMPLES / "rosenbrock.tc", x0={"x": -1.2, "y": 1.0})
    assert result.status == 0, result.message
    assert result.convexity == "nonconvex"
    assert result.warning and "not proven convex" in result.warning and "x, y" in result.warning
    assert result.x["x"] == pytest.approx(1.0, abs=1e-8) and result.x["y"] == pytest.approx(1.0, abs=1e-8)
    assert result.fun <= 1e-16
    fs = [h.f for h in result.history]
    assert all(b <= a for a, b in zip(fs, fs[1:]))


@pytest.mark.parametrize("method", METHODS)
def test_double_well_reaches_a_minimum(method):
    result = solvers.minimize("variable x\nminimize x^4 - 2 * x^2", x0=0.3, method=method,
                              max_iter=20000 if method == "gd" else None)
    assert result.status == 0, result.message
    assert result.convexity != "convex" and result.warning
    assert abs(result.x["x"]) == pytest.approx(1.0, abs=1e-8)
    assert result.fun == pytest.approx(-1.0, abs=1e-14)


def test_maximize_nonconcave_warning_says_concave():
    result = solvers.minimize("variable x\nmaximize x^2 - x^4", x0=0.5)
    assert result.status == 0 and result.warning and "not proven concave" in result.warning
    assert result.fun == pytest.approx(0.25, abs=1e-14)


# --------------------------------------------------------------------------- GPU

def _gpu():
    return cupy_or_skip()


def test_gpu_matches_cpu(logistic_reference):
    cupy = _gpu()
    data, w_ref, f_ref = logistic_reference
    for method in ("newton", "newton-cg", "lbfgs"):
        gpu = solvers.minimize(LOGISTIC, data=data, method=method, device="gpu")
        cpu = solvers.minimize(LOGISTIC, data=data, method=method, device="cpu")
        assert gpu.status == 0 and gpu.device == "gpu"
        assert isinstance(gpu.x["w"], np.ndarray) and isinstance(gpu.jac["w"], np.ndarray)
        assert rel(gpu.fun, cpu.fun) < 1e-12 and rel(gpu.fun, f_ref) < 1e-9
        np.testing.assert_allclose(gpu.x["w"], cpu.x["w"], atol=1e-7)
    # cupy arrays are accepted as data
    gpu = solvers.minimize(LOGISTIC, data={**data, "X": cupy.asarray(data["X"])}, device="gpu")
    assert rel(gpu.fun, f_ref) < 1e-9


def test_gpu_cholesky_rejects_indefinite():
    cupy = _gpu()
    from solvers.numerics.linalg import cholesky
    indefinite = cupy.asarray([[1.0, 2.0], [2.0, 1.0]])
    assert cholesky(cupy, indefinite) is None
    assert cholesky(cupy, cupy.asarray([[1.0, 0.0], [0.0, -1e-3]])) is None
    batch = cupy.stack([cupy.eye(2), indefinite])
    assert cholesky(cupy, batch) is None
    good = cupy.asarray([[4.0, 2.0], [2.0, 3.0]])
    L = cholesky(cupy, good)
    assert L is not None
    np.testing.assert_allclose(cupy.asnumpy(L @ L.T), cupy.asnumpy(good), atol=1e-14)
    step = newton_step(cupy, indefinite, cupy.asarray([1.0, 0.0]))
    assert step.tau > 0 and step.d is not None


def test_gpu_block_newton():
    _gpu()
    rng = np.random.default_rng(2)
    Y = rng.normal(size=(6, 2)) @ rng.normal(size=(5, 2)).T
    x0 = {"U": rng.normal(size=(6, 2)), "V": rng.normal(size=(5, 2))}
    data = {"M": np.ones((6, 5)), "Y": Y}
    gpu = solvers.alternate(MF, ["U", "V"], x0=x0, data=data, device="gpu")
    cpu = solvers.alternate(MF, ["U", "V"], x0=x0, data=data, device="cpu")
    assert gpu.status == cpu.status == 0
    assert gpu.fun == pytest.approx(cpu.fun, abs=1e-12)


def test_results_print_and_pickle_with_empty_dict_fields():
    import pickle

    from scipy.optimize import OptimizeResult
    result = solvers.minimize("variable x[3]\nminimize sum((x - 1) .^ 2)")
    assert result.multipliers == {} and isinstance(result, OptimizeResult)
    text = repr(result)                    # SciPy's formatter alone fails on the empty dict
    assert "multipliers: {}" in text and "converged" in text
    again = pickle.loads(pickle.dumps(result))
    assert again.fun == result.fun and np.array_equal(again.x["x"], result.x["x"])


@pytest.mark.parametrize("scale", [1e-15, 1e-12, 1.0])
@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs"])
def test_an_objective_of_tiny_scale_is_minimised_not_stopped_at_its_start(scale, method):
    # s |X w - y|^2 meets max|g| <= gtol at the start for tiny s: the predicted decrease,
    # large against |f|, keeps the method going (loop._more_to_gain)
    rng = np.random.default_rng(7)
    X, y = rng.standard_normal((40, 5)), rng.standard_normal(40) + 1.0
    result = solvers.minimize("parameter X[m, n]\nparameter y[m]\nparameter s pos\nvariable w[n]\n"
                              "minimize s * sum((X * w - y) .^ 2)", data={"X": X, "y": y, "s": scale},
                              method=method)
    best = np.linalg.lstsq(X, y, rcond=None)[0]
    reference = scale * np.sum((X @ best - y) ** 2)
    assert result.success and result.fun == pytest.approx(reference, rel=1e-9)


@pytest.mark.parametrize("method", ["newton", "newton-cg"])
def test_an_objective_of_huge_scale_converges_at_float64_precision(method):
    # 1e9 |X w - y|^2 is ~3e10: its gradient's rounding stays above an absolute gtol; Newton's
    # step at the rounding level of w ends the solve (loop._at_rounding_level), as success
    rng = np.random.default_rng(7)
    X, y = rng.standard_normal((40, 5)), rng.standard_normal(40) + 1.0
    result = solvers.minimize("parameter X[m, n]\nparameter y[m]\nparameter s pos\nvariable w[n]\n"
                              "minimize s * sum((X * w - y) .^ 2)", data={"X": X, "y": y, "s": 1e9},
                              method=method)
    best = np.linalg.lstsq(X, y, rcond=None)[0]
    assert result.success, result.message
    assert result.fun == pytest.approx(1e9 * np.sum((X @ best - y) ** 2), rel=1e-12)
    np.testing.assert_allclose(result.x["w"], best, rtol=1e-7, atol=1e-9)
