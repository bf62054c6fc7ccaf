"""Second-order cones: 2-norms of affine arguments kept by the interior-point method
(`solvers.reformulate.cones`, `solvers.numerics.soc`, `solvers.constrained.conic`), checked
against CVXPY and against the cones' own algebra."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import solvers
from solvers.numerics import soc
from solvers.reformulate.cones import cones, norm_of
from solvers.task.prepare import prepare, read


def _inside(rng, k, m):
    v = rng.standard_normal((k, m))
    v[:, 0] = np.linalg.norm(v[:, 1:], axis=1) + rng.random(k) + 0.1
    return v


def test_scaling_maps_z_and_s_to_one_point():
    rng = np.random.default_rng(1)
    s, z = _inside(rng, 6, 4), _inside(rng, 6, 4)
    w = soc.Scaling(np, s, z)
    np.testing.assert_allclose(w.times(z), w.over(s), atol=1e-12)
    for j in range(4):                                   # inverse() is W^-1 as matrices
        e = np.zeros((6, 4))
        e[:, j] = 1.0
        np.testing.assert_allclose(w.inverse()[:, :, j], w.over(e), atol=1e-12)
    v = rng.standard_normal((6, 4))
    np.testing.assert_allclose(soc.product(w.lam, soc.divide(np, w.lam, v)), v, atol=1e-10)
    np.testing.assert_allclose(soc.product(s, soc.central(np, s)), np.tile([1.0, 0, 0, 0], (6, 1)), atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_max_step_reaches_the_boundary(seed):
    rng = np.random.default_rng(seed)
    s, ds = _inside(rng, 8, 3), 3 * rng.standard_normal((8, 3))
    a = soc.max_step(np, s, ds)
    if np.isfinite(a):
        assert soc.inside(np, s + 0.999 * a * ds)
        assert not soc.inside(np, s + 1.001 * a * ds)
    else:
        assert soc.inside(np, s + 1e6 * ds)


def _task(text, data):
    return read(text, data, None)


def test_norms_recognised_only_of_affine_arguments():
    names = frozenset({"x"})
    affine = _task("parameter A[m, n]\nvariable x[n]\nminimize norm2(A * x)", {"A": np.eye(3)})
    assert norm_of(affine.expr, names) is not None
    curved = _task("parameter A[m, n]\nvariable x[n]\nminimize norm2(A * exp(x))", {"A": np.eye(3)})
    assert norm_of(curved.expr, names) is None


def test_zero_residual_solved():
    rng = np.random.default_rng(0)
    A, b = rng.standard_normal((5, 5)), rng.standard_normal(5)
    r = solvers.minimize("parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize norm2(A * x - b)",
                         {"A": A, "b": b})
    assert r.success, r.message
    assert abs(r.fun) <= 1e-8
    np.testing.assert_allclose(r.x["x"], np.linalg.solve(A, b), atol=1e-7)
    assert set(r.x) == {"x"} and np.all(np.isfinite(r.jac["x"]))


def _cvxpy(make):
    x, prob = make()
    prob.solve(solver="CLARABEL")
    return prob.value


def test_fit_plus_norm_penalty_against_cvxpy():
    rng = np.random.default_rng(3)
    A, b, lam = rng.standard_normal((20, 6)), rng.standard_normal(20), 0.5

    def make():
        x = cp.Variable(6)
        return x, cp.Problem(cp.Minimize(cp.norm2(A @ x - b) + lam * cp.norm2(x)))
    ref = _cvxpy(make)
    r = solvers.minimize("parameter A[m, n]\nparameter b[m]\nparameter lam nonneg\nvariable x[n]\n"
                         "minimize norm2(A * x - b) + lam * norm2(x)", {"A": A, "b": b, "lam": lam})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))


def test_norm_ball_constraint_against_cvxpy():
    rng = np.random.default_rng(4)
    c = rng.standard_normal(5)

    def make():
        x = cp.Variable(5)
        return x, cp.Problem(cp.Minimize(c @ x), [cp.norm2(x) <= 1])
    ref = _cvxpy(make)
    r = solvers.minimize("parameter c[n]\nvariable x[n]\nminimize c' * x\nsubject to\n    norm2(x) <= 1", {"c": c})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert r.constr_violation <= 1e-8
    y = r.multipliers["constraint 1"]          # the ball's multiplier: c + y x / ||x|| = 0
    assert abs(y - np.linalg.norm(c)) <= 1e-6 * np.linalg.norm(c)


def test_ball_constraint_met_at_its_centre():
    """norm(x - p) <= 1 whose optimum is x = p (the kink): the old path stalled there."""
    p = np.array([0.3, -0.2, 0.5])
    r = solvers.minimize("parameter p[n]\nvariable x[n]\nminimize sum((x - p) .^ 2)\nsubject to\n"
                         "    norm2(x - p) <= 1", {"p": p})
    assert r.success, r.message
    np.testing.assert_allclose(r.x["x"], p, atol=1e-6)


def test_smallest_enclosing_circle_against_cvxpy():
    rng = np.random.default_rng(0)
    P = rng.standard_normal((60, 2))

    def make():
        c, r = cp.Variable(2), cp.Variable()
        return c, cp.Problem(cp.Minimize(r), [cp.norm(c - p) <= r for p in P])
    ref = _cvxpy(make)
    c, r = cp.Variable(2, name="c"), cp.Variable(name="r")
    res = solvers.minimize(cp.Problem(cp.Minimize(r), [cp.norm(c - p) <= r for p in P]))
    assert res.success, res.message
    assert abs(res.fun - ref) <= 1e-6 * abs(ref)
    assert res.constr_violation <= 1e-8
    assert set(res.x) == {"c", "r"}


def test_norm_away_from_its_kink_unchanged():
    rng = np.random.default_rng(5)
    A, b = rng.standard_normal((10, 3)), rng.standard_normal(10)
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    r = solvers.minimize("parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize norm2(A * x - b)",
                         {"A": A, "b": b})
    assert r.success, r.message
    assert abs(r.fun - np.linalg.norm(A @ x - b)) <= 1e-9          # the gap bounds f; x only to its square root
    np.testing.assert_allclose(r.x["x"], x, atol=1e-4)


def test_other_methods_keep_the_old_path():
    """L-BFGS meets the norm as written (no cone): away from its kink it solves as before."""
    r = solvers.minimize("variable x[n]\nminimize norm2(x - vector(1)) + sum(x .^ 2)", x0={"x": np.zeros(3)},
                         method="lbfgs")
    assert r.success, r.message
    np.testing.assert_allclose(r.x["x"], np.full(3, np.sqrt(3) / 6), atol=1e-6)    # sqrt(3) (1 - a) + 3 a^2


def test_norm_with_equalities_and_bounds_against_cvxpy():
    rng = np.random.default_rng(7)
    A, b = rng.standard_normal((8, 4)), rng.standard_normal(8)

    def make():
        x = cp.Variable(4)
        return x, cp.Problem(cp.Minimize(cp.norm2(A @ x - b)), [cp.sum(x) == 1, x >= 0])
    ref = _cvxpy(make)
    r = solvers.minimize("parameter A[m, n]\nparameter b[m]\nvariable x[n] nonneg\nminimize norm2(A * x - b)\n"
                         "subject to\n    sum(x) == 1", {"A": A, "b": b})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert r.constr_violation <= 1e-8 and r.x["x"].min() >= -1e-10


def test_frobenius_norm_of_a_matrix_against_cvxpy():
    rng = np.random.default_rng(7)
    C = rng.standard_normal((3, 3))

    def make():
        X = cp.Variable((3, 3))
        return X, cp.Problem(cp.Minimize(cp.norm(X - C, "fro") + 0.3 * cp.sum(X)), [cp.trace(X) == 1])
    ref = _cvxpy(make)
    r = solvers.minimize("parameter C[n, n]\nvariable X[n, n]\nminimize norm2(X - C) + 0.3 * sum(sum(X))\n"
                         "subject to\n    tr(X) == 1", {"C": C})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))


def test_one_vector_constraint_is_one_batch_of_cones():
    """norm over an axis <= r: one record, 40 cones; its multiplier an array of the rows' shape."""
    rng = np.random.default_rng(2)
    P = rng.standard_normal((40, 2))
    c, r = cp.Variable(2, name="c"), cp.Variable(name="r")
    prob = cp.Problem(cp.Minimize(r), [cp.norm(P - np.ones((40, 1)) @ cp.reshape(c, (1, 2), order="C"), axis=1) <= r])
    ref = _cvxpy(lambda: (c, prob))
    res = solvers.minimize(prob)
    assert res.success, res.message
    assert abs(res.fun - ref) <= 1e-6 * abs(ref)
    y = res.multipliers["constraint 1"]
    assert y.shape == (40,) and y.min() >= -1e-12 and abs(y.sum() - 1.0) <= 1e-6      # d/dr: 1 - sum y = 0


@pytest.mark.parametrize("text", [
    "variable x[3]\nminimize sum(x)\nsubject to\n    norm2(x) <= -1",
    "variable x[3]\nminimize sum(x)\nsubject to\n    norm2(x - vector(1)) <= 1\n    x >= vector(5)",
])
def test_infeasible_cones_never_succeed(text):
    r = solvers.minimize(text)
    assert not r.success and r.status in (1, 2, 6), r.message
    assert r.constr_violation > 0.5


def test_maximised_concave_norm():
    r = solvers.minimize("variable x[3]\nmaximize -norm2(x - vector(1)) - sum(x .^ 2)")
    assert r.success, r.message
    np.testing.assert_allclose(r.x["x"], np.full(3, np.sqrt(3) / 6), atol=1e-5)
    assert abs(r.fun - (-np.sqrt(3) * (1 - np.sqrt(3) / 6) - 3 * (np.sqrt(3) / 6) ** 2)) <= 1e-9


def test_two_norms_in_one_row_against_cvxpy():
    """norm(x - p) + norm(x - q) <= 3 (an ellipse): each norm a new variable and its cones,
    the row kept; the violation reported is the original row's."""
    p, q, c = np.array([1.0, 0.0]), np.array([-1.0, 0.5]), np.array([0.3, -1.0])

    def make():
        x = cp.Variable(2)
        return x, cp.Problem(cp.Minimize(c @ x), [cp.norm2(x - p) + cp.norm2(x - q) <= 3])
    ref = _cvxpy(make)
    r = solvers.minimize("parameter p[n]\nparameter q[n]\nparameter c[n]\nvariable x[n]\nminimize c' * x\n"
                         "subject to\n    norm2(x - p) + norm2(x - q) <= 3", {"p": p, "q": q, "c": c})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    x = r.x["x"]
    assert set(r.x) == {"x"}
    assert r.constr_violation == pytest.approx(max(np.linalg.norm(x - p) + np.linalg.norm(x - q) - 3, 0.0), abs=1e-15)
    assert r.constr_violation <= 1e-8


def test_norm_of_a_psd_matrix_variable_against_cvxpy():
    """Cones on a symmetric variable's coordinates (its upper triangle) beside its psd cone."""
    rng = np.random.default_rng(3)
    C = rng.standard_normal((3, 3))
    C = (C + C.T) / 2

    def make():
        X = cp.Variable((3, 3), PSD=True)
        return X, cp.Problem(cp.Minimize(cp.norm(X - C, "fro")), [cp.trace(X) == 1])
    ref = _cvxpy(make)
    r = solvers.minimize("parameter C[n, n]\nvariable X[n, n] psd\nminimize norm2(X - C)\nsubject to\n"
                         "    tr(X) == 1", {"C": C})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert np.linalg.eigvalsh(r.x["X"]).min() >= -1e-8


@pytest.mark.parametrize("m", [6, 3])          # 3 x 3: a zero residual, where y -> 0 and quad_over_lin is 0/0
def test_quad_over_lin_as_a_rotated_cone_against_cvxpy(m):
    rng = np.random.default_rng(5)
    A, b = rng.standard_normal((m, 3)), rng.standard_normal(m)

    def make():
        x, y = cp.Variable(3), cp.Variable()
        return x, cp.Problem(cp.Minimize(cp.quad_over_lin(A @ x - b, y) + y))
    ref = _cvxpy(make)
    r = solvers.minimize("parameter A[m, n]\nparameter b[m]\nvariable x[n]\nvariable y\n"
                         "minimize quad_over_lin(A * x - b, y) + y", {"A": A, "b": b})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert set(r.x) == {"x", "y"}


def test_scalar_quad_over_lin_terms_become_rotated_cones():
    # sum x_i^2 / y_i with x >= b, sum(y) = 1: y proportional to b, minimum (sum b)^2
    b = np.array([1.5, 1.2, 1.9, 1.1])
    terms = " + ".join(f"x[{i}] ^ 2 / y[{i}]" for i in range(4))
    text = f"parameter b[4]\nvariable x[4]\nvariable y[4]\nminimize {terms}\nsubject to\n  x >= b\n  sum(y) == 1"
    task = prepare(text, {"b": b}, None)
    coned = cones(task)
    assert len(coned.task.cones) == 4 and len(coned.added) == 4     # one rotated cone per term
    r = solvers.minimize(text, {"b": b})
    assert r.success, r.message
    assert r.fun == pytest.approx(b.sum() ** 2, rel=1e-8)
    np.testing.assert_allclose(r.x["y"], b / b.sum(), rtol=1e-6)
    assert set(r.x) == {"x", "y"}


def test_cones_beside_a_curved_constraint_against_cvxpy():
    rng = np.random.default_rng(9)
    A, b = rng.standard_normal((6, 3)), rng.standard_normal(6)

    def make():
        x = cp.Variable(3)
        return x, cp.Problem(cp.Minimize(cp.norm2(A @ x - b)), [cp.sum(cp.exp(x)) <= 2, cp.norm2(x) <= 0.8])
    ref = _cvxpy(make)
    r = solvers.minimize("parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize norm2(A * x - b)\nsubject to\n"
                         "    sum(exp(x)) <= 2\n    norm2(x) <= 0.8", {"A": A, "b": b})
    assert r.success, r.message
    assert abs(r.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert r.constr_violation <= 1e-8 and set(r.multipliers) >= {"constraint 1", "constraint 2"}


def test_callback_sees_the_original_variables():
    seen = []
    r = solvers.minimize("parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize norm2(A * x - b)",
                         {"A": np.eye(3), "b": np.ones(3)}, callback=lambda res: seen.append(set(res.x)))
    assert r.success, r.message
    assert seen and all(names == {"x"} for names in seen)


def _no_pathfollow(monkeypatch):
    """Make the general interior-point method fail the test where it is reached: the QP's
    Mehrotra method (`qp`, with cones) must finish these problems itself."""
    from solvers.constrained import pathfollow

    def refused(*args, **kwargs):
        raise AssertionError("the QP path handed this cone program to pathfollow")
    monkeypatch.setattr(pathfollow, "solve", refused)


def test_cone_programs_finish_on_the_qp_path(monkeypatch):
    """A linear objective with norm constraints and a norm objective with equalities: the
    QP method with Nesterov-Todd scaled cones solves them, to CVXPY's optimum."""
    _no_pathfollow(monkeypatch)
    rng = np.random.default_rng(11)
    P, A, b = rng.standard_normal((40, 2)), rng.standard_normal((6, 9)), rng.standard_normal(6)

    def circle():
        c, r = cp.Variable(2, name="c"), cp.Variable(name="r")
        return c, cp.Problem(cp.Minimize(r), [cp.norm(c - p) <= r for p in P])

    def least_norm():
        x = cp.Variable(9, name="x")
        return x, cp.Problem(cp.Minimize(cp.norm(x - 1)), [A @ x == b, x <= 2])
    for make in (circle, least_norm):
        ref = _cvxpy(make)
        res = solvers.minimize(make()[1])
        assert res.success, res.message
        assert abs(res.fun - ref) <= 1e-6 * max(1.0, abs(ref)), (make.__name__, res.fun, ref)
        assert res.constr_violation <= 1e-8


def test_cones_with_states_only_equalities_fix(monkeypatch):
    """Optimal control with norm-bounded thrust: the states enter only the dynamics
    (equalities), so K is singular on them and the QP path factors K + rho E'E."""
    _no_pathfollow(monkeypatch)
    T, rng = 12, np.random.default_rng(3)
    A = np.eye(4) + 0.1 * rng.standard_normal((4, 4))
    B = rng.standard_normal((4, 2))
    x0 = rng.standard_normal(4)

    def make():
        x, u = cp.Variable((4, T + 1), name="x"), cp.Variable((2, T), name="u")
        cons = [x[:, 0] == x0, x[:, T] == 0] + [x[:, t + 1] == A @ x[:, t] + B @ u[:, t] for t in range(T)]
        cons += [cp.norm(u[:, t]) <= 3 for t in range(T)]
        return x, cp.Problem(cp.Minimize(sum(cp.norm(u[:, t]) for t in range(T))), cons)
    ref = _cvxpy(make)
    res = solvers.minimize(make()[1])
    assert res.success, res.message
    assert abs(res.fun - ref) <= 1e-6 * max(1.0, abs(ref))
    assert res.constr_violation <= 1e-8


def test_no_phase_one_for_norms_kept_as_cones(monkeypatch):
    """A 2-norm at the zero start: its sqrt is not differentiable there, but the interior
    point keeps it as a cone, so no phase one moves the start; L-BFGS meets the sqrt and
    still gets a start inside its domain."""
    from solvers.constrained import domain_start
    calls = []
    real = domain_start._phase_one
    monkeypatch.setattr(domain_start, "_phase_one", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(2)
    A, b = rng.standard_normal((8, 3)), rng.standard_normal(8)
    text = "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize norm2(A * x - b) + sum(x .^ 2)"
    coned = solvers.minimize(text, {"A": A, "b": b}, method="auto")
    assert coned.success, coned.message
    assert not calls
    smooth = solvers.minimize(text, {"A": A, "b": b}, x0={"x": np.linalg.lstsq(A, b, rcond=None)[0]},
                              method="lbfgs")
    assert smooth.success, smooth.message
    assert abs(coned.fun - smooth.fun) <= 1e-6 * max(1.0, abs(coned.fun))
