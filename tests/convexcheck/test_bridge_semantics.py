"""CVXPY's semantics in the translation: its implicit domains become declarations (an
atom CVXPY calls DCP is never reported nonconvex for a point outside its domain), and
arrays of one entry broadcast as NumPy does (regression tests of two bridge bugs)."""
import cvxpy as cp
import numpy as np
import pytest

import convexcheck
import solvers
import tensorcalc as tc
from convexcheck.bridge.domains import merged


def _values_agree(expr, variables, rng):
    problem, data = convexcheck.from_cvxpy(expr)
    for _ in range(3):
        for v in variables:
            v.value = rng.standard_normal(v.shape)
        ours = tc.evaluate(problem.objective.expr, {**data, **{v.name(): v.value for v in variables}})
        assert np.isclose(float(ours), np.asarray(expr.value).item(), rtol=1e-10, atol=1e-10), problem.text


@pytest.mark.parametrize("shape", [(3, 1), (1, 1), (3,)])
def test_quad_form_of_a_column_variable_translates(shape):
    n = shape[0]
    P = np.eye(n) + 0.1
    x = cp.Variable(shape, name="x")
    _values_agree(cp.quad_form(x, P), [x], np.random.default_rng(0))


@pytest.mark.parametrize("build", [
    lambda a, B: cp.sum(a[1:2] * B), lambda a, B: cp.sum(cp.multiply(a[1:2], B)), lambda a, B: cp.sum(a[1:2] + B),
    lambda a, B: cp.sum(B - a[2:3]), lambda a, B: cp.sum_squares(a[1:2] - B),
    lambda a, B: cp.sum(cp.multiply(a[1:2], a[2:3])),
])
def test_an_entry_of_shape_one_broadcasts_against_a_column(build):
    rng = np.random.default_rng(1)
    a, B = cp.Variable(4, name="a"), rng.standard_normal((5, 1))
    _values_agree(build(a, B), [a], rng)


X = cp.Variable(3, name="x")
Y = cp.Variable(name="y")
W = cp.Variable(name="w")
Z = cp.Variable(3, name="z")
A = cp.Variable((3, 3), name="A")
DOMAINS = {
    "power 3": (cp.sum(cp.power(X, 3)), "convex"), "power -1": (cp.sum(cp.power(X, -1)), "convex"),
    "power 0.5": (cp.sum(cp.power(X, 0.5)), "concave"), "inv_pos": (cp.sum(cp.inv_pos(X)), "convex"),
    "quad_over_lin": (cp.quad_over_lin(X, Y), "convex"), "kl_div": (cp.sum(cp.kl_div(X, Z)), "convex"),
    "rel_entr": (cp.sum(cp.rel_entr(X, Z)), "convex"), "rel_entr scalar": (cp.rel_entr(Y, W), "convex"),
    "log_det": (cp.log_det(A), "concave"), "tr_inv": (cp.tr_inv(A), "convex"),
    "matrix_frac": (cp.matrix_frac(X, A), "convex"), "xexp": (cp.sum(cp.xexp(X)), "convex"),
}


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_an_atom_is_proven_on_cvxpys_domain(name):
    expr, side = DOMAINS[name]
    report = convexcheck.analyze(expr, samples=10)
    assert getattr(report.objective, side).status == "proven", report.problem.text


def test_declarations_take_the_domain_only_where_it_says_more():
    assert merged([], "nonneg") == ["nonneg"]
    assert merged(["nonneg"], "pos") == ["pos"]
    assert merged(["pos"], "nonneg") == ["pos"]
    assert merged(["nonpos"], "nonneg") == ["nonpos"]             # the author's contradiction stands
    assert merged([">= -1", "<= 5"], "nonneg") == ["<= 5", "nonneg"]   # CVXPY's domain within the bounds
    assert merged([">= 2"], "nonneg") == [">= 2"]                # a tighter bound stands
    assert merged(["<= -1"], "nonneg") == ["<= -1"]              # bounds that exclude the domain stand
    assert merged(["<= 0"], "pos") == ["<= 0"]
    assert merged(["psd"], "pd") == ["pd"]
    assert merged(["symmetric"], "pd") == ["pd"]
    assert merged(["nsd"], "pd") == ["nsd"]


def test_kl_divergence_problem_solves_as_cvxpy_does():
    rng = np.random.default_rng(2)
    q = rng.dirichlet(np.ones(6))
    p = cp.Variable(6, name="p")
    support = np.arange(6.0)
    problem = cp.Problem(cp.Minimize(cp.sum(cp.kl_div(p, q))), [cp.sum(p) == 1, support @ p == 2.0])
    r = solvers.minimize(problem, method="auto")
    reference = problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert r.success, r.message
    assert r.fun == pytest.approx(reference, rel=1e-7, abs=1e-9)


def test_a_parameter_without_a_sign_takes_its_values_sign_and_is_read_again():
    x = cp.Variable(3, name="x")
    p = cp.Parameter(3, name="p", value=np.array([1.0, 2.0, 0.5]))
    problem = cp.Problem(cp.Maximize(p @ cp.sqrt(x)), [cp.sum(x) <= 1])
    report = convexcheck.analyze(problem, samples=5)
    assert "parameter p[3] pos" in report.problem.text and report.verdict == "convex"
    p.value = np.array([1.0, -2.0, 0.5])                  # the translation was not kept: read again
    assert "parameter p[3]\n" in convexcheck.from_cvxpy(problem)[0].text
    assert convexcheck.analyze(problem, samples=5).verdict != "convex"


def test_a_bound_looser_than_the_domain_gives_way_to_it():
    x = cp.Variable(3, name="x", bounds=[-1, 5])
    problem = cp.Problem(cp.Minimize(cp.sum(cp.power(x, 3)) - cp.sum(x)))
    report = convexcheck.analyze(problem, samples=5)
    assert report.problem.text.splitlines()[1] == "variable x[3] <= 5 nonneg" and report.verdict == "convex"
    reference = problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert solvers.minimize(problem).fun == pytest.approx(reference, rel=1e-7)
