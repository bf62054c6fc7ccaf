"""What the solvers do when the plain step does not work, and that `history` says so; and
bad input rejected with a SolverError that names the problem.

Each fallback is provoked by a crafted problem whose numbers are worked out in the test:
an indefinite Hessian, a Hessian no shift can factor, a Newton step that overshoots, a
step out of the domain, negative curvature in CG, and a skipped L-BFGS pair.
"""
from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

import solvers
import tensorcalc as tc
from solvers import SolverError
from solvers.methods.newton import checked_direction
from solvers.numerics.linalg import Blocks, cholesky, newton_step

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def notes(result) -> list[str]:
    return [note for it in result.history for note in it.fallbacks]


# --------------------------------------------------------------------------- indefinite Hessian

def test_indefinite_hessian_is_damped():
    # f = sum(x^4) - 2 sum(x^2): H = diag(12 x^2 - 4), negative at |x| < 1/sqrt(3)
    x0 = np.array([0.3, -0.2, 2.0])
    result = solvers.minimize("variable x[n]\nminimize sum(x^4) - 2 * sum(x^2)", x0=x0)
    first = result.history[0]
    diag = 12 * x0 ** 2 - 4
    assert first.damping > -diag.min()              # enough to make H + tau I positive definite
    assert any("not positive definite" in n for n in first.fallbacks)
    assert f"added {first.damping:.3g} I" in " ".join(first.fallbacks)
    # the damped step is (H + tau I) d = -g along the accepted step
    g = 4 * x0 ** 3 - 4 * x0
    d = -g / (diag + first.damping)
    assert first.decrement == pytest.approx(-(g @ d) / 2, rel=1e-12)
    assert result.status == 0 and result.convexity == "nonconvex" and result.warning
    np.testing.assert_allclose(np.abs(result.x["x"]), 1.0, atol=1e-9)
    np.testing.assert_allclose(np.sign(result.x["x"]), np.sign(x0))      # descends into its own well
    assert result.fun == pytest.approx(-3.0, abs=1e-13)
    # once in the convex region the plain Newton step is taken
    assert result.history[-2].damping == 0.0
    fs = [it.f for it in result.history]
    assert all(b < a for a, b in zip(fs, fs[1:]))


def test_damping_grows_until_cholesky_works():
    H = np.array([[1.0, 3.0], [3.0, 1.0]])      # eigenvalues 4, -2; positive diagonal
    step = newton_step(np, H, np.array([1.0, -2.0]))
    assert step.shifts >= 1 and step.tau > 2.0  # the first try, tau = 0, fails
    np.testing.assert_allclose((H + step.tau * np.eye(2)) @ step.d, -np.array([1.0, -2.0]))
    assert cholesky(np, H) is None
    assert cholesky(np, np.array([[np.nan, 0.0], [0.0, 1.0]])) is None
    good = np.array([[4.0, 2.0], [2.0, 3.0]])
    np.testing.assert_allclose(cholesky(np, good) @ cholesky(np, good).T, good)
    # blocks: one indefinite block shifts them all
    blocks = Blocks(np.stack([np.eye(2), H]), 0, (2, 2))
    step = newton_step(np, blocks, np.ones(4))
    assert step.tau > 2.0 and step.d.shape == (4,)


def test_cholesky_failing_for_every_shift_falls_back_to_the_gradient():
    # x^1.5 has Hessian 0.75 / sqrt(x) = inf at x = 0 (f and g are finite there):
    # no shift makes H + tau I factorisable, so the step is the negative gradient
    with np.errstate(divide="ignore", invalid="ignore"):
        result = solvers.minimize("variable x nonneg\nminimize x^1.5 + (x - 1)^2", x0=0.0)
    first = result.history[0]
    assert any("Cholesky failed for every shift" in n and "negative gradient" in n for n in first.fallbacks)
    assert math.isnan(first.decrement)
    assert result.status == 0
    x = float(result.x["x"])
    assert abs(1.5 * math.sqrt(x) + 2 * (x - 1)) <= 1e-8        # gtol
    assert abs(result.jac["x"]) <= 1e-8


def test_not_a_descent_direction_is_replaced_by_the_gradient():
    # a direction with g.d >= 0 (which the Cholesky step cannot produce) is refused
    g = np.array([1.0, -2.0])
    checked = checked_direction(g, np.array([1.0, 0.0]), 0.5, ["earlier note"])
    assert checked.gradient and np.array_equal(checked.d, -g)
    assert any("not a descent direction (g.d = 1)" in n for n in checked.fallbacks)
    assert math.isnan(checked.decrement) and checked.damping == 0.5
    kept = checked_direction(g, np.array([-1.0, 1.0]), 0.0, [])
    assert not kept.gradient and kept.decrement == pytest.approx(1.5)


# --------------------------------------------------------------------------- line search

def test_newton_overshoot_falls_back_to_the_gradient():
    # sqrt(1 + x^2) at x = 10: f'' = (1 + x^2)^-1.5, so the Newton step is -x(1 + x^2) = -1010;
    # 4 halvings still land far beyond 0, above f(10)
    result = solvers.minimize("variable x\nminimize sqrt(1 + x^2)", x0=10.0, max_trials=4)
    first = result.history[0]
    newton_trials = first.trials[:4]
    assert [t for t, _ in newton_trials] == [1.0, 0.5, 0.25, 0.125]
    assert newton_trials[0][1] == pytest.approx(math.sqrt(1 + 1000.0 ** 2))    # x = 10 - 1010
    assert all(f > first.f for _, f in newton_trials)
    assert any(n.startswith("line search failed along the Newton direction after 4 trials")
               and "tried the negative gradient" in n for n in first.fallbacks)
    # the gradient step 1 / max|g| (> 1, so 1) is accepted
    g = 10 / math.sqrt(101)
    assert first.trials[4] == (1.0, pytest.approx(math.sqrt(1 + (10 - g) ** 2)))
    assert first.step == 1.0
    assert result.status == 0 and result.convexity == "convex"
    assert result.x["x"] == pytest.approx(0.0, abs=1e-10) and result.fun == pytest.approx(1.0)
    # with the default 40 trials the Newton direction itself succeeds
    plain = solvers.minimize("variable x\nminimize sqrt(1 + x^2)", x0=10.0)
    assert not any("line search failed" in n for n in notes(plain))
    assert plain.status == 0


def test_both_searches_fail():
    # one trial only: the Newton step overshoots in x, and the gradient step 1 overshoots in y
    result = solvers.minimize("variable x\nvariable y\nminimize sqrt(1 + x^2) + 50 * y^2",
                              x0={"x": 10.0, "y": 0.01}, max_trials=1)
    assert result.status == 2 and not result.success
    assert "line search" in result.message
    assert result.nit == 0 and len(result.history) == 1
    it = result.history[0]
    assert len(it.trials) == 2 and all(f > it.f for _, f in it.trials)
    assert it.step == 0.0
    assert any("line search failed along the Newton direction" in n for n in it.fallbacks)
    assert result.x == {"x": 10.0, "y": 0.01}        # no step was taken


def test_gradient_descent_failure_is_status_2():
    # gradient descent has no fallback: a failed search ends the solve
    result = solvers.minimize("variable x\nvariable y\nminimize sqrt(1 + x^2) + 50 * y^2",
                              x0={"x": 10.0, "y": 0.01}, method="gd", max_trials=1)
    assert result.status == 2 and len(result.history[0].trials) == 1
    assert not any("tried the negative gradient" in n for n in notes(result))


# --------------------------------------------------------------------------- domain

def test_domain_violations_are_failed_trials():
    # x - log(x) from x = 3: the Newton step is -(x^2 - x) = -6, to x = -3 (outside x > 0),
    # then x = 0 (outside), then x = 1.5 is accepted
    seen = []
    result = solvers.minimize("variable x pos\nminimize x - log(x)", x0=3.0,
                              callback=lambda s: seen.append(float(s.x["x"])))
    first = result.history[0]
    assert first.trials[:2] == [(1.0, math.inf), (0.5, math.inf)]
    assert first.trials[2] == (0.25, pytest.approx(1.5 - math.log(1.5)))
    assert first.step == 0.25
    assert any("2 trial point(s) outside the domain" in n for n in first.fallbacks)
    assert result.status == 0 and result.x["x"] == pytest.approx(1.0, abs=1e-8)   # |f'| <= gtol
    assert result.fun == pytest.approx(1.0, abs=1e-15)
    assert all(x > 0 for x in seen) and seen[0] == 1.5
    # JSON output of a history with such trials has no Infinity
    text = json.dumps([it.to_dict() for it in result.history], allow_nan=False)
    assert json.loads(text)[0]["trials"][0] == [1.0, None]


@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs", "gd"])
def test_iterates_stay_inside_the_declared_bounds(method):
    # sum(x) - sum(log(x)) from far out: every step towards x = 1 tries points below 0
    problem = "variable x[n] pos\nminimize sum(x) - sum(log(x))"
    x0 = np.array([0.01, 3.0, 7.0])
    seen = []
    result = solvers.minimize(problem, x0=x0, method=method, callback=lambda s: seen.append(s.x["x"]),
                              max_iter=20000 if method == "gd" else None)
    assert result.status == 0, result.message
    assert all((x > 0).all() for x in seen)
    assert all(math.isfinite(it.f) for it in result.history)
    for it in result.history:
        outside = sum(1 for _, f in it.trials if f == math.inf)
        assert (outside > 0) == any("outside the domain" in n for n in it.fallbacks)
    assert any("outside the domain" in n for n in notes(result))
    np.testing.assert_allclose(result.x["x"], 1.0, atol=1e-8)
    assert result.fun == pytest.approx(3.0, abs=1e-14)


def test_upper_and_two_sided_bounds():
    # exp(x) - 2x with x < 1.5 declared: the optimum log(2) is inside, and the function is
    # defined everywhere, but from x = -3 the Newton step -(e^x - 2)/e^x = 2e^3 - 1 lands
    # near x = 36: the declared strict bound (a domain; a closed bound `<= 1.5` is kept by
    # projection instead, tests/test_constrained.py), not the function, makes those trials inf
    seen = []
    result = solvers.minimize("variable x < 1.5\nminimize exp(x) - 2 * x", x0=-3.0,
                              callback=lambda s: seen.append(float(s.x["x"])))
    first = result.history[0]
    assert first.trials[0] == (1.0, math.inf)
    x_trials = [-3.0 + t * (2 * math.exp(3) - 1) for t, _ in first.trials]
    assert all((f == math.inf) == (x > 1.5) for x, (_, f) in zip(x_trials, first.trials))
    assert any("outside the domain" in n for n in first.fallbacks)
    assert all(x <= 1.5 for x in seen)
    assert result.status == 0 and result.x["x"] == pytest.approx(math.log(2), abs=1e-8)
    # 3x - log(1 - x) - log(1 + x) over -1 < x < 1 (declared > -1 < 1): f' = 0 is
    # 3 = 2x / (1 - x^2), i.e. 3x^2 - 2x - 3 = 0, whose root in (-1, 1) is (2 - sqrt(40)) / 6;
    # the default start is the midpoint 0
    result = solvers.minimize("variable x > -1 < 1\nminimize 3 * x - log(1 - x) - log(1 + x)")
    assert result.history[0].f == 0.0
    assert result.status == 0
    assert result.x["x"] == pytest.approx((2 - math.sqrt(40)) / 6, abs=1e-9)


# --------------------------------------------------------------------------- first-order and CG notes

def test_newton_cg_negative_curvature_along_the_gradient():
    # x^4 - 2x^2 at x = 0.3: f'' = 12 * 0.09 - 4 < 0, met by CG's first direction (the gradient)
    result = solvers.minimize("variable x\nminimize x^4 - 2 * x^2", x0=0.3, method="newton-cg")
    first = result.history[0]
    assert any("negative curvature along the gradient" in n and "took the negative gradient" in n
               for n in first.fallbacks)
    assert math.isnan(first.decrement)
    assert result.status == 0 and abs(result.x["x"]) == pytest.approx(1.0)


def test_newton_cg_truncates_at_negative_curvature():
    # 1.5 x^2 + y^4/4 - y^2/2 at (0.1, 0.3): g = (0.3, -0.273), H = diag(3, -0.73);
    # g.H.g > 0, but CG's second direction has negative curvature: the first step is kept
    result = solvers.minimize("variable x\nvariable y\nminimize 1.5 * x^2 + y^4 / 4 - y^2 / 2",
                              x0={"x": 0.1, "y": 0.3}, method="newton-cg")
    first = result.history[0]
    assert first.cg == 1
    assert "negative curvature met at CG iteration 1: direction truncated" in first.fallbacks
    g = np.array([0.3, 0.3 ** 3 - 0.3])
    h = np.array([3.0, 3 * 0.09 - 1])
    alpha = (g @ g) / (g @ (h * g))
    assert first.decrement == pytest.approx(alpha * (g @ g) / 2, rel=1e-12)    # d = -alpha g
    assert result.status == 0
    assert result.x["x"] == pytest.approx(0.0, abs=1e-9) and abs(result.x["y"]) == pytest.approx(1.0)
    assert result.fun == pytest.approx(-0.25, abs=1e-14)


def test_lbfgs_skips_a_pair_with_negative_curvature():
    # x^4 - 2x^2 from 0.05: the first step (length 1 along -g) stays in the concave region,
    # |x| < 1/sqrt(3), where the gradient falls: s.y < 0
    result = solvers.minimize("variable x\nminimize x^4 - 2 * x^2", x0=0.05, method="lbfgs")
    x0, x1 = 0.05, 0.05 + (4 * 0.05 - 4 * 0.05 ** 3)
    assert abs(x1) < 1 / math.sqrt(3)
    s, y = x1 - x0, (4 * x1 ** 3 - 4 * x1) - (4 * x0 ** 3 - 4 * x0)
    assert s * y < 0
    skipped = result.history[1].fallbacks
    assert any(f"curvature s.y = {s * y:.3g} <= 0: update skipped" == n for n in skipped)
    assert result.status == 0 and result.x["x"] == pytest.approx(1.0, abs=1e-8)


# --------------------------------------------------------------------------- bad input

LS = "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum((X *(ij,j->i) w - y)^2)"
DATA = {"X": np.ones((4, 3)), "y": np.ones(4)}
PSD = "parameter A[n, n] psd\nvariable x[n]\nminimize x *(i,ij->j) A *(j,j->) x"


def raises(*words, **kwargs):
    """The SolverError of minimize(**kwargs), checked to name every one of `words`."""
    with pytest.raises(SolverError) as info:
        solvers.minimize(**kwargs)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    assert isinstance(info.value, ValueError)
    return message


def test_unknown_method():
    raises("'bfgs'", "newton", "lbfgs", problem=LS, data=DATA, method="bfgs")


def test_unknown_device():
    raises("'tpu'", "cpu", "gpu", problem=LS, data=DATA, device="tpu")


def test_gpu_without_cupy_or_device():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            pytest.skip("a CUDA device is available")
    except ImportError:
        raises("CuPy", "device='cpu'", problem=LS, data=DATA, device="gpu")
        return
    except Exception:  # noqa: BLE001 - CuPy present, driver missing
        pass
    raises("device='gpu'", "device='cpu'", problem=LS, data=DATA, device="gpu")


def test_missing_parameter():
    raises("'y'", "data", problem=LS, data={"X": DATA["X"]})


def test_data_with_nan():
    X = DATA["X"].copy()
    X[1, 2] = np.nan
    raises("data['X']", "NaN", "(1, 2)", problem=LS, data={**DATA, "X": X})
    raises("data['y']", "infinite", problem=LS, data={**DATA, "y": np.array([1, np.inf, 1, 1])})


def test_wrong_shape():
    raises("axis 0 of 'y'", "length 5", "'m'", "length 4", problem=LS, data={**DATA, "y": np.ones(5)})
    raises("'y'", "1 axes", "(4, 1)", problem=LS, data={**DATA, "y": np.ones((4, 1))})
    raises("axis 1 of 'X'", "declaration says 2", problem="parameter X[m, 2]\nvariable w[2]\n"
           "minimize sum((X *(ij,j->i) w)^2)", data={"X": np.ones((3, 3))})


def test_undeclared_array():
    raises("'z'", "does not declare", problem=LS, data={**DATA, "z": 1.0})


def test_data_not_numbers():
    raises("data['X']", "not an array of numbers", problem=LS, data={**DATA, "X": "abc"})
    raises("dict", problem=LS, data=[1, 2])


def test_x0_wrong_shape_name_or_outside_bounds():
    raises("'w'", "length 2", "'n'", problem=LS, data=DATA, x0={"w": np.ones(2)})
    raises("'v'", "not a free variable", problem=LS, data=DATA, x0={"v": np.ones(3)})
    raises("x0['x']", "outside the declared bounds", "> 0",
           problem="variable x pos\nminimize x - log(x)", x0=-1.0)
    raises("x0 must be a dict", problem="variable x\nvariable y\nminimize x^2 + y^2", x0=1.0)
    raises("axis 0 of 'x'", "length 3", "dimension 'n' has length 2",
           problem="parameter a[n]\nvariable x[n]\nminimize sum((x - a)^2)",
           data={"a": np.ones(2)}, x0=np.ones(3))


def test_dimension_of_a_variable_unknown():
    raises("dimension 'n'", "x0['x']", problem="variable x[n]\nminimize sum(x^2)")


def test_objective_not_finite_at_x0():
    with np.errstate(all="ignore"):      # an overflow, not an implicit domain: x0 is refused
        raises("not finite", "x0", problem="variable x\nminimize exp(exp(x))", x0=10.0)


def test_x0_outside_the_domain_is_moved_inside():
    """1/x at 0, log(x - 1) at 0.5, sqrt at the edge of its domain (finite f, infinite
    gradient): x0 is moved strictly inside the domain first (`domain_start`, issue 26)."""
    assert solvers.minimize("variable x\nminimize log(x - 1) ^ 2 + x", x0=0.5).success
    assert solvers.minimize("variable x nonneg\nminimize (x - 1)^2 - sqrt(x)", x0=0.0).success
    assert solvers.minimize("variable x\nminimize 1 / x", x0=0.0).status == 5     # inf 0, not attained


def test_constraints_are_refused_by_block_newton():
    # minimize keeps constraints (tests/test_constrained.py); block-coordinate Newton does not
    with pytest.raises(SolverError, match="3 constraint.*sum\\(p\\) == 1"):
        solvers.alternate(EXAMPLES / "constrained.tc", ["p"], data={"a": np.ones(3), "b": 1.0})
    a = np.array([1.0, 2.0, 3.0])
    result = solvers.minimize(EXAMPLES / "constrained.tc", data={"a": a, "b": 1.8})
    assert result.status == 0 and result.constr_violation <= 1e-10
    p = result.x["p"]
    assert abs(p.sum() - 1) <= 1e-10 and a @ p == pytest.approx(1.8, abs=1e-9)     # the mean bound binds


def test_expression_problem_is_refused():
    raises("expression", "minimize", problem="variable x\nexpression x^2")


def test_options_out_of_range():
    raises("max_iter", "-1", problem=LS, data=DATA, max_iter=-1)
    raises("max_iter", problem=LS, data=DATA, max_iter=2.5)
    raises("tol", "-1.0", problem=LS, data=DATA, tol=-1.0)
    raises("gtol", "nan", problem=LS, data=DATA, gtol=float("nan"))
    raises("c1", problem=LS, data=DATA, c1=1.5)
    raises("max_trials", problem=LS, data=DATA, max_trials=0)
    raises("callback must be callable", problem=LS, data=DATA, callback=3)


def test_parameter_attributes_are_checked():
    raises("'A'", "psd", "eigenvalue -1", problem=PSD, data={"A": np.diag([1.0, -1.0])})
    raises("'A'", "not symmetric", problem=PSD, data={"A": np.array([[1.0, 1.0], [0.0, 1.0]])})
    raises("'lam'", ">= 0", "min -1", problem="parameter lam nonneg\nvariable x\nminimize lam * x^2",
           data={"lam": -1.0})
    # and a psd matrix passes
    result = solvers.minimize(PSD, data={"A": np.array([[2.0, 1.0], [1.0, 2.0]])}, x0=np.ones(2))
    assert result.status == 0 and np.abs(result.x["x"]).max() <= 1e-12


def test_other_bad_problems():
    raises("not int", problem=42)
    raises("nothing to optimise", problem="variable x\nminimize x^2", data={"x": 1.0})
    raises("x0['A']", "not symmetric", problem="variable A[n, n] psd\nminimize sum(A^2)",
           x0=np.array([[1.0, 1.0], [0.0, 1.0]]))
    raises("x0['A']", "inside the psd cone", problem="variable A[n, n] psd\nminimize sum(A^2)",
           x0=np.diag([1.0, 0.0]))
    raises("scalar", "order 1", problem=tc.parse_expr("x^2", {"x": 1}), x0=np.ones(2))


def test_alternate_blocks_must_cover_the_free_variables():
    mf = EXAMPLES / "matrix_factorisation.tc"
    data = {"M": np.ones((3, 2)), "Y": np.ones((3, 2))}
    x0 = {"U": np.ones((3, 1)), "V": np.ones((2, 1))}
    cases = [(["U"], ["every free variable", "'V'"]),
             (["U", "V", "W"], ["'W'", "not a free variable"]),
             (["U", "V", "U"], ["exactly once", "'U'"]),
             ([["U", "V"], "V"], ["exactly once", "'V'"])]
    for blocks, words in cases:
        with pytest.raises(SolverError) as info:
            solvers.alternate(mf, blocks, x0=x0, data=data)
        for word in words:
            assert word in str(info.value), (word, str(info.value))
    with pytest.raises(SolverError, match="sweeps"):
        solvers.alternate(mf, ["U", "V"], x0=x0, data=data, sweeps=-1)
    # one block of both is joint Newton: allowed
    result = solvers.alternate(mf, [["U", "V"]], x0={"U": np.full((3, 1), 0.5), "V": np.full((2, 1), 0.5)},
                               data=data)
    assert result.status == 0 and result.fun == pytest.approx(0.0, abs=1e-14)
    assert result.convexity == {"U,V": "nonconvex"} and result.warning
