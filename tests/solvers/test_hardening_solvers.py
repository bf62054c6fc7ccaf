"""Issue 14, items 8 and 9: no false success from the solvers, and exact derivatives of det
and adj at singular matrices.

Item 8: a stationary point that is not a local minimum, or an objective without a
minimiser, used to be reported as "converged" (status 0) by every method. Item 9: the
second derivative of det and the first of adj were evaluated through inv(X): an error at
singular X, wrong near it; on array modules other than NumPy adj itself was det * inv.
"""
from __future__ import annotations

import math
import pathlib

import numpy as np
import pytest

import solvers
import tensorcalc as tc
from solvers.methods import stopping as certify
from solvers.methods.loop import Options
from solvers.objective.smooth import Objective
from solvers.task.prepare import prepare
from tensorcalc.codegen import runtime
from tensorcalc.numeric import minors

METHODS = list(solvers.METHODS)
MF = pathlib.Path(__file__).resolve().parents[2] / "examples" / "matrix_factorisation.tc"


def notes(result) -> list[str]:
    return [note for it in result.history for note in it.fallbacks]


# --------------------------------------------------------------------------- item 8: saddles

@pytest.mark.parametrize("method", METHODS)
def test_a_saddle_is_left_for_the_minimum_beyond_it(method):
    """x^4 - x^2 from 0 (the default start): f' = 0 at a local maximum. Every method steps
    along the negative curvature and converges to a minimum x = +-1/sqrt(2), f = -1/4."""
    result = solvers.minimize("variable x\nminimize x^4 - x^2", method=method)
    assert result.status == 0 and result.success, result.message
    assert abs(float(result.x["x"])) == pytest.approx(1 / math.sqrt(2), abs=1e-7)
    assert result.fun == pytest.approx(-0.25, abs=1e-12)
    first = result.history[0]
    assert first.gmax == 0.0 and first.step > 0
    assert any("not a local minimum" in n and "eigenvalue is -2" in n for n in first.fallbacks)
    # without the check the solve stops where it started, "converged" (the old behaviour)
    plain = solvers.minimize("variable x\nminimize x^4 - x^2", method=method, second_order=False)
    assert plain.status == 0 and float(plain.x["x"]) == 0.0


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")     # racing to -inf
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("problem", ["variable x\nminimize -x^2", "variable x\nminimize x^3",
                                     "variable x\nvariable y\nminimize x^2 - y^2"])
def test_no_false_success_where_there_is_no_minimum(method, problem):
    """-x^2 and x^2 - y^2 (negative curvature at 0) and x^3 (zero curvature: a higher-order
    saddle): no minimum at 0, and f falls without bound beyond. Each was "converged" at 0."""
    result = solvers.minimize(problem, method=method, max_iter=60)
    assert not result.success, result.message
    assert any("not a local minimum" in n for n in notes(result)), notes(result)
    assert max(abs(float(v)) for v in result.x.values()) > 1.0      # it left the saddle
    assert result.status == 5 and "no minimiser" in result.message
    assert "unbounded below or its infimum is not attained" in result.message
    assert solvers.minimize(problem, method=method, second_order=False, max_iter=60).status == 0


@pytest.mark.parametrize("method", METHODS)
def test_a_local_minimum_after_a_local_maximum(method):
    """x^3 - 3x^2 has a local maximum at 0 (where every method stopped) and a local minimum
    at 2. The step leaves 0 along +x (g = 0: the eigenvector with its largest entry
    positive) and the method converges at 2, where f'' = 6 > 0."""
    result = solvers.minimize("variable x\nminimize x^3 - 3 * x^2", method=method)
    assert result.status == 0 and result.success, result.message
    assert float(result.x["x"]) == pytest.approx(2.0, abs=1e-7) and result.fun == pytest.approx(-4.0)
    assert "not a local minimum" in result.history[0].fallbacks[0]


def test_a_saddle_with_no_iterations_left_is_reported():
    for sense, text, word in (("minimize", "x^4 - x^2", "minimum"), ("maximize", "x^2 - x^4", "maximum")):
        result = solvers.minimize(f"variable x\n{sense} {text}", max_iter=0)
        assert result.status == 4 and not result.success
        assert result.message.startswith(f"stopped at a stationary point that is not a local {word}")
        assert result.nit == 0 and float(result.x["x"]) == 0.0


@pytest.mark.parametrize("method", METHODS)
def test_separable_saddles_are_left_at_once(method):
    """sum(X^4) - sum(X^2) from 0: the Hessian is -2 I (block diagonal for Newton); the
    step along every negative eigenvector together leaves all 12 entries at once."""
    result = solvers.minimize("variable X[n, k]\nminimize sum(X^4) - sum(X^2)", x0=np.zeros((4, 3)),
                              method=method)
    assert result.status == 0, result.message
    np.testing.assert_allclose(np.abs(result.x["X"]), 1 / math.sqrt(2), atol=1e-7)
    assert result.fun == pytest.approx(-3.0, abs=1e-12)
    assert sum("not a local minimum" in n for n in notes(result)) == 1


# --------------------------------------------------------------------------- item 8: no minimiser

@pytest.mark.parametrize("method", METHODS)
def test_exp_has_no_minimiser(method):
    """exp(x) is convex and bounded below, but its infimum 0 is not attained: every method
    used to report "converged" at x = -19 to -27, where f' < gtol."""
    result = solvers.minimize("variable x\nminimize exp(x)", method=method)
    assert result.status == 5 and not result.success
    assert result.message.startswith("stopped: no minimiser: the objective keeps decreasing")
    assert float(result.x["x"]) < -15
    assert result.convexity == "convex"


@pytest.mark.parametrize("method", METHODS)
def test_maximize_log_has_no_maximiser(method):
    """log(x) grows without bound: lbfgs and gd reported success at x = 1e8."""
    result = solvers.minimize("variable x nonneg\nmaximize log(x)", method=method)
    assert result.status == 5 and not result.success, result.message
    assert "no maximiser" in result.message and "unbounded above" in result.message
    assert float(result.x["x"]) > 1e6


@pytest.mark.parametrize("method", METHODS)
def test_linear_objective_is_unbounded(method):
    result = solvers.minimize("variable x\nminimize -x", method=method, max_iter=30)
    assert result.status == 5 and "no minimiser" in result.message


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_overflow_along_the_way_is_unbounded_not_a_failed_search():
    """x^3 with Newton overflows to -inf on the way down (f = -1e308): that is the objective
    falling without bound, not the line search failing (status 2, as it was)."""
    result = solvers.minimize("variable x\nminimize x^3", x0=-1.0)
    assert result.status == 5 and "no minimiser" in result.message


@pytest.mark.parametrize("problem, x0, expected", [
    ("variable x\nminimize x^4", 1.0, 0.0),                                # zero curvature at the minimum
    ("variable x\nminimize (x^2 - 1)^2", 0.5, 1.0),                        # nonconvex, a strict minimum
    ("variable x\nminimize sqrt(1 + x^2)", 10.0, 0.0),                     # flat far away
    ("variable x\nminimize (x - 1000000)^2", 0.0, 1e6),                    # far from the start
    ("variable x\nminimize exp(x) + exp(-x)", 3.0, 0.0),
])
@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_true_minima_still_converge(problem, x0, expected, method):
    result = solvers.minimize(problem, x0=x0, method=method, check=False)
    assert result.status == 0 and result.success, result.message
    assert float(result.x["x"]) == pytest.approx(expected, abs=2e-2 if "x^4" in problem else 1e-6)
    assert not any("not a local minimum" in n for n in notes(result))


# --------------------------------------------------------------------------- item 8: factorisation

@pytest.fixture(scope="module")
def completion():
    """Every entry observed: then every local minimum of |U V' - Y|^2 is global and every
    other stationary point a strict saddle (Baldi and Hornik, 1989), so the point reached
    from the escape does not hang on rounding. With six entries masked out, a valley of
    slow descent near f = 0.3 caught Newton-CG and alternating Newton on the Sandybridge
    and Nehalem BLAS kernels, and L-BFGS and gradient descent on Nehalem (docs/testing.md)."""
    rng = np.random.default_rng(2)
    m, n, r = 6, 5, 2
    Y = rng.normal(size=(m, r)) @ rng.normal(size=(n, r)).T        # exactly rank 2
    return {"M": np.ones((m, n)), "Y": Y}, {"U": np.zeros((m, r)), "V": np.zeros((n, r))}


@pytest.mark.parametrize("method", METHODS)
def test_factorisation_from_zero_leaves_the_saddle(completion, method):
    """U = V = 0: the gradient is 0 and the Hessian indefinite (its lowest eigenvalue is
    minus the largest singular value of 2 M.*Y). Every method stopped there as converged."""
    data, x0 = completion
    f0 = float(np.sum((data["M"] * data["Y"]) ** 2))
    result = solvers.minimize(MF, x0=x0, data=data, method=method)
    assert result.status == 0 and result.success, result.message
    assert result.fun <= 1e-12 * f0                    # the exact low-rank data are recovered
    assert any("not a local minimum" in n for n in result.history[0].fallbacks)
    stuck = solvers.minimize(MF, x0=x0, data=data, method=method, second_order=False)
    assert stuck.status == 0 and stuck.fun == pytest.approx(f0) and stuck.nit == 0


def test_alternating_newton_does_not_stop_at_the_joint_saddle(completion):
    """Each block is convex, so block convergence at U = V = 0 said "converged" (with no
    warning: both blocks are proven convex). The joint point is now examined; the sweeps
    go on from the step away from it."""
    data, x0 = completion
    f0 = float(np.sum((data["M"] * data["Y"]) ** 2))
    result = solvers.alternate(MF, ["U", "V"], x0=x0, data=data)
    assert result.fun < 1e-10 * f0
    assert [h.block for h in result.history[:3]] == ["U", "V", "escape"]
    assert "not a local minimum" in result.history[2].fallbacks[0]
    assert result.sweeps == math.ceil((len(result.history) - 1) / 2)
    stuck = solvers.alternate(MF, ["U", "V"], x0=x0, data=data, second_order=False)
    assert stuck.status == 0 and stuck.fun == pytest.approx(f0) and stuck.warning is None
    # rank 1: the sweeps from the escape converge (status 0)
    rng = np.random.default_rng(5)
    Y = rng.normal(size=(6, 1)) @ rng.normal(size=(5, 1)).T
    one = solvers.alternate(MF, ["U", "V"], x0={"U": np.zeros((6, 1)), "V": np.zeros((5, 1))},
                            data={"M": np.ones((6, 5)), "Y": Y})
    assert one.status == 0 and one.fun < 1e-12 and "escape" in [h.block for h in one.history]


def test_lobpcg_sees_no_negative_curvature_at_a_factorisation_minimum():
    """80 variables (> certify.SMALL): LOBPCG on Hessian-vector products. At the minimum the
    Hessian is singular (U G, V G^-T leave U V^T unchanged: r^2 = 4 zero eigenvalues), which
    must not read as a saddle; at 0 it is indefinite, which must."""
    rng = np.random.default_rng(3)
    m, n, r = 20, 20, 2
    data = {"M": np.ones((m, n)), "Y": rng.normal(size=(m, r)) @ rng.normal(size=(n, r)).T}
    start = {"U": rng.normal(size=(m, r)), "V": rng.normal(size=(n, r))}
    result = solvers.minimize(MF, x0=start, data=data, method="lbfgs")
    assert result.status == 0 and result.fun < 1e-12, result.message
    task = prepare(MF, data, result.x)
    obj = Objective(task, np)
    cur = certify.curvature(obj, obj.pack(task.x0), None)
    assert cur.how == "LOBPCG" and abs(cur.lowest) <= 1e-6 * cur.scale
    task = prepare(MF, data, {"U": np.zeros((m, r)), "V": np.zeros((n, r))})
    obj = Objective(task, np)
    cur = certify.curvature(obj, obj.pack(task.x0), None)
    top = np.linalg.svd(2 * data["Y"], compute_uv=False)[0]     # H(0) = [[0, -2Y (x) I], [., 0]]
    assert cur.lowest == pytest.approx(-top, rel=1e-6)


# --------------------------------------------------------------------------- item 8: curvature

def _quadratic(A: np.ndarray):
    task = prepare("parameter A[n, n]\nvariable x[n]\nminimize 0.5 * x *(i,ij->j) A *(j,j->) x",
                   {"A": A}, {"x": np.zeros(len(A))})
    obj = Objective(task, np)
    return obj, obj.pack(task.x0)


@pytest.mark.parametrize("n", [5, 100])
def test_lowest_curvature_matches_eigvalsh(n):
    rng = np.random.default_rng(n)
    Q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    w = np.concatenate(([-3.0], rng.uniform(1, 10, n - 1)))
    A = (Q * w) @ Q.T
    obj, z = _quadratic(A)
    for H in (A, None):                              # Newton's Hessian; Hessian-vector products
        cur = certify.curvature(obj, z, H)
        assert cur.lowest == pytest.approx(-3.0, rel=1e-6)
        v = cur.vector
        assert float(v @ A @ v) == pytest.approx(-3.0, rel=1e-6) and float(np.linalg.norm(v)) == pytest.approx(1.0)
    assert certify.curvature(obj, z, np.eye(n)).vector is None          # positive definite: Cholesky


def test_finite_differences_stand_in_for_a_missing_product(monkeypatch):
    A = np.diag([2.0, -1.0, 4.0])
    obj, z = _quadratic(A)

    def missing(*args):
        raise tc.TensorCalcError("no compiled product")
    monkeypatch.setattr(obj, "hvp", missing)
    cur = certify.curvature(obj, z + 0.3, None)
    assert cur.lowest == pytest.approx(-1.0, rel=1e-6)


def test_no_minimiser_needs_a_fall_at_every_distance():
    obj, z = _quadratic(np.eye(2))
    opts = Options()
    # at the minimum 0 of |x|^2 / 2, f rises along any direction of travel
    assert certify.examine(obj, z, 0.0, z, None, opts, z + 1.0, (np.ones(2),), 0).status == 0
    assert certify.no_minimiser(obj, z + 5.0, 25.0, [-np.ones(2)], z) is None   # the minimum lies ahead


# --------------------------------------------------------------------------- item 9: det and adj

def det_ref(a: np.ndarray) -> float:
    """Laplace expansion along the first row: exact for small integer matrices."""
    if a.shape[0] == 0:
        return 1.0
    return sum((-1) ** j * a[0, j] * det_ref(np.delete(np.delete(a, 0, 0), j, 1)) for j in range(a.shape[0]))


def adj_ref(a: np.ndarray) -> np.ndarray:
    n = a.shape[0]
    return np.array([[(-1) ** (i + j) * det_ref(np.delete(np.delete(a, j, 0), i, 1)) for j in range(n)]
                     for i in range(n)]).reshape(n, n)


def adj_jacobian_ref(a: np.ndarray) -> np.ndarray:
    """d adj[a,b] / dX[c,d] = adj(X + E_cd) - adj(X): each entry of adj is a minor, affine in
    every single entry of X, so this difference is exact."""
    n = a.shape[0]
    out = np.zeros((n,) * 4)
    for c in range(n):
        for d in range(n):
            e = np.zeros((n, n))
            e[c, d] = 1.0
            out[:, :, c, d] = adj_ref(a + e) - adj_ref(a)
    return out


def singular_cases():
    rng = np.random.default_rng(14)
    for n in (1, 2, 3, 4):
        for rank in range(n):
            u = rng.integers(-3, 4, size=(n, rank)).astype(float)
            v = rng.integers(-3, 4, size=(rank, n)).astype(float)
            yield n, rank, u @ v


DET = tc.parse_expr("det(X)", {"X": 2})
ADJ = tc.parse_expr("adj(X)", {"X": 2})
X_VAR = tc.variables(DET)["X"]


@pytest.mark.parametrize("n, rank, X", list(singular_cases()))
def test_det_and_adj_derivatives_are_exact_at_singular_matrices(n, rank, X):
    scale = max(1.0, np.abs(adj_jacobian_ref(X)).max())
    d_adj = tc.derivative(ADJ, X_VAR)
    d2_det = tc.derivative(DET, X_VAR, order=2)
    d_det = tc.derivative(DET, X_VAR)
    expected = adj_jacobian_ref(X)
    for value in (tc.evaluate(d_adj, {"X": X}), tc.compile(d_adj)({"X": X})):
        np.testing.assert_allclose(value, expected, atol=1e-12 * scale)
    for value in (tc.evaluate(d2_det, {"X": X}), tc.compile(d2_det)({"X": X})):
        np.testing.assert_allclose(value, np.transpose(expected, (1, 0, 2, 3)), atol=1e-12 * scale)
    np.testing.assert_allclose(tc.evaluate(d_det, {"X": X}), adj_ref(X).T, atol=1e-12 * scale)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_adj_derivative_matches_finite_differences_near_and_at_singular(n):
    rng = np.random.default_rng(n)
    d_adj = tc.compile(tc.derivative(ADJ, X_VAR))
    u, v = rng.normal(size=(n, n - 1)), rng.normal(size=(n - 1, n))
    for X in (u @ v, u @ v + 1e-9 * rng.normal(size=(n, n)), np.zeros((n, n))):
        T = rng.normal(size=(n, n))
        h = 1e-4
        fd = (minors.adjugate(X + h * T) - minors.adjugate(X - h * T)) / (2 * h)     # exact to O(h^2)
        along = np.einsum("abcd,cd->ab", d_adj({"X": X}), T)
        np.testing.assert_allclose(along, fd, atol=1e-7 * max(1.0, np.abs(fd).max()))
        np.testing.assert_allclose(d_adj({"X": X}), adj_jacobian_ref(X), atol=1e-9)


def test_the_issue_example():
    """X = u v with u 3x2, v 2x3: entry [2,1,2,2] of d2 det/dX2 was -2 (exact: 0, two
    derivatives in one row); at an exactly singular X it raised."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3, 2)) @ rng.normal(size=(2, 3))
    H = tc.evaluate(tc.derivative(DET, X_VAR, order=2), {"X": X})
    assert abs(H[2, 1, 2, 2]) <= 1e-15
    assert np.abs(np.einsum("ajak->ajk", H)).max() <= 1e-15            # any two entries of one row
    exact = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    np.testing.assert_allclose(tc.evaluate(tc.derivative(DET, X_VAR, order=2), {"X": exact}),
                               np.transpose(adj_jacobian_ref(exact), (1, 0, 2, 3)), atol=1e-12)


def test_det_power_and_hessian_vector_products_at_a_singular_matrix():
    X = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])            # rank 2, det 0
    cube = tc.parse_expr("det(X)^3", {"X": 2})
    H = tc.compile(tc.derivative(cube, "X", order=2))({"X": X})
    np.testing.assert_allclose(H, 0.0, atol=1e-12)               # 3 det^2 (...) + 6 det adj adj: all 0
    x = tc.variables(DET)["X"]
    hvp = tc.compile(tc.pushforward(tc.derivative(DET, x), x, "T"))
    T = np.arange(9.0).reshape(3, 3)
    expected = np.einsum("abcd,cd->ba", adj_jacobian_ref(X), T)
    np.testing.assert_allclose(hvp({"X": X, "T": T}), expected, atol=1e-12)
    assert "'dadj'" in hvp.source and "'inv'" not in hvp.source


class OtherArrays:
    """NumPy under another name: runtime code takes its non-NumPy branch (as for JAX)."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize("n, rank, X", [c for c in singular_cases() if c[0] >= 2])
def test_other_array_modules_compute_the_same_adjugate(n, rank, X):
    """adj on a non-NumPy module was det(X) * inv(X): an error or nan at singular X."""
    other = OtherArrays()
    np.testing.assert_allclose(runtime.special("adj", other, X), adj_ref(X), atol=1e-12)
    np.testing.assert_allclose(runtime.special("adj", other, X), runtime.special("adj", np, X), atol=1e-13)
    np.testing.assert_allclose(runtime.special("dadj", other, X), adj_jacobian_ref(X), atol=1e-11)


def test_printed_derivative_is_unchanged_and_nonfinite_input_is_nan():
    """The symbolic rule keeps the language's form (convexcheck reads adj = det inv
    through it); only its evaluation changed. A matrix with nan gives nan, not an SVD error."""
    text = str(tc.derivative(ADJ, X_VAR))
    assert "inv(X)" in text and tc.parse_expr(text, {"X": 2}) is tc.derivative(ADJ, X_VAR)
    bad = np.array([[1.0, np.nan], [0.0, 1.0]])
    assert np.isnan(minors.adjugate(bad)).all() and np.isnan(minors.adj_jacobian(bad)).all()


@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_separable_logistic_regression_has_no_minimiser(method):
    # the loss falls towards 0 along w -> inf and underflows to exactly 0 on the way:
    # status 5, not a success at some large w
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X @ rng.standard_normal(3) > 0, 1.0, -1.0)
    result = solvers.minimize("parameter X[m, n]\nparameter y[m]\nvariable w[n]\n"
                              "minimize sum(log(1 + exp(-y .* (X * w))))", data={"X": X, "y": y}, method=method)
    assert result.status == 5 and not result.success
    assert "no minimiser" in result.message


@pytest.mark.parametrize("method", ["newton", "lbfgs"])
@pytest.mark.parametrize("text, sense, where", [
    ("variable x[3] pos\nminimize sum(x) + x' * x", "infimum", np.zeros(3)),
    ("variable x[2] pos\nminimize (x[0] - 1) ^ 2 + x[1]", "infimum", np.array([1.0, 0.0])),
    ("variable x < 1\nmaximize x - x ^ 2 / 4", "supremum", np.array(1.0)),
])
def test_an_optimum_on_a_strict_bound_is_status_5(text, sense, where, method):
    # the closed problem's solution lies on the bound that `pos` (`< 1`) excludes
    result = solvers.minimize(text, method=method)
    assert result.status == 5 and not result.success and f"its {sense} is not attained" in result.message
    np.testing.assert_allclose(result.x["x"], where, atol=1e-6)


def test_an_interior_optimum_beside_a_strict_bound_converges():
    result = solvers.minimize("variable x pos\nminimize x + 1 / x")
    assert result.status == 0 and result.x["x"] == pytest.approx(1.0)
