"""A start strictly inside the implicit domain, found by the solver (issue 26, item 1).

Every problem here has a default start (zeros, moved inside declared bounds) outside the
domain of its objective or constraints: log, entropy, kl_div, rel_entr, inv_pos, sqrt,
power 0.5, log_det, 2-norms and p-norms at 0, and the geometric mean sqrt(x y); where that
domain is CVXPY's own on a plain variable, the bridge declares it (`bridge.domains`) and the
default start is inside the declaration (DECLARED). Each is
solved from that default start to CVXPY's optimum (Clarabel, tight tolerances) within 1e-6
relative; a user's x0 outside the domain is moved the same way; an empty domain is a
SolverError that names the conditions; a start already inside is kept as given.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from cvxpy_reference import close, reference

import solvers
import tensorcalc as tc
from solvers.constrained.domain_start import inside
from solvers.task.domain import conditions, unmet
from solvers.task.prepare import SolverError, read

Q = np.array([0.2, 0.3, 0.5])
A = np.random.default_rng(5).normal(size=(4, 12))     # least norm: the start is moved onto A x = B
B = np.random.default_rng(6).normal(size=4)
C = np.array([0.5, 1.0, 2.0])    # inv_pos + C x: Newton from x = 1 stays on x > 0 (c < 3)


def _x() -> cp.Variable:
    return cp.Variable(3, name="x")


def _rel_entr() -> cp.Problem:
    x, y = _x(), cp.Variable(3, name="y")
    return cp.Problem(cp.Minimize(cp.sum(cp.rel_entr(x, y))),
                      [x == Q, cp.sum(y) == 1, y[0] >= 0.4])


def _log_det(psd: bool) -> cp.Problem:
    X = cp.Variable((2, 2), PSD=True) if psd else cp.Variable((2, 2), symmetric=True)
    return cp.Problem(cp.Maximize(cp.log_det(X)), [cp.trace(X) <= 3, X[0, 1] == 0.25])


CVXPY = {
    "log_budget": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum(cp.log(x))), [cp.sum(x) <= 6]))(_x()),
    "log_shifted": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(x) - cp.sum(cp.log(x - 1)))))(_x()),
    "log_affine": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum(cp.log(C @ x - 2))), [x <= 4]))(_x()),
    "entropy": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum(cp.entr(x))), [cp.sum(x) == 1, C @ x <= 1.8]))(_x()),
    "kl_div": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.kl_div(x, Q))), [cp.sum(x) == 1, x[0] >= 0.5]))(
        _x()),
    "rel_entr": _rel_entr,
    "inv_pos": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.inv_pos(x)) + C @ x)))(_x()),
    "inv_pos_constrained": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.inv_pos(x))), [cp.sum(x) <= 2]))(_x()),
    "sqrt": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum(cp.sqrt(x))), [C @ x <= 1]))(_x()),
    "power_half": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum(cp.power(x, 0.5))), [cp.sum(x) <= 2]))(_x()),
    "log_det_symmetric": lambda: _log_det(psd=False),
    "log_det_psd": lambda: _log_det(psd=True),
    "norm2_at_zero": lambda: (lambda x: cp.Problem(cp.Minimize(cp.norm(x, 2)), [C @ x == 1]))(_x()),
    "pnorm_at_zero": lambda: (lambda x: cp.Problem(cp.Minimize(cp.pnorm(x, 3)), [cp.sum(x) == 1]))(_x()),
    "norm2_objective_term": lambda: (lambda x: cp.Problem(cp.Minimize(cp.norm(x, 2) + cp.sum_squares(x - Q))))(_x()),
    "least_norm": lambda: (lambda x: cp.Problem(cp.Minimize(cp.norm(x, 2)), [A @ x == B]))(cp.Variable(12, name="x")),
    "sqrt_in_constraint": lambda: (lambda x: cp.Problem(cp.Minimize(C @ x), [cp.sqrt(x) >= 0.5]))(_x()),
}


INSIDE = {"log_det_psd"}      # a PSD variable log_det reads is declared pd: it starts at the identity
DECLARED = {                  # CVXPY's domain of an atom on a plain variable is its declaration (the bridge's
    "entropy", "inv_pos", "inv_pos_constrained", "kl_div", "log_budget", "log_det_symmetric",   # `domains`):
    "power_half", "rel_entr", "sqrt", "sqrt_in_constraint",          # the default start is inside it
}


@pytest.mark.parametrize("name", sorted(CVXPY))
def test_cvxpy_problem_solves_from_the_default_start(name):
    problem = CVXPY[name]()
    task = read(problem)
    outside = bool(unmet(conditions(task), task, task.x0))
    starts_inside = name in INSIDE | DECLARED
    assert outside != starts_inside, "the default start must be outside the domain"
    assert (inside(task) is task) == starts_inside
    result = solvers.minimize(problem, method="auto")
    ref = reference(problem)
    assert result.success, f"status {result.status}: {result.message}"
    assert close(result.fun, ref), (result.fun, ref)


TEXT = {
    "geometric_mean": ("variable x\nvariable y\nmaximize sqrt(x * y)\nsubject to\n    x + 2 * y <= 1\n"
                       "    x >= 0\n    y >= 0",
                       lambda x, y: cp.Problem(cp.Maximize(cp.geo_mean(cp.hstack([x, y]))), [x + 2 * y <= 1])),
    "log_of_sum": ("variable x[3]\nminimize sum(x .^ 2) - log(sum(x) - 1)",
                   None),
    "entropy_text": ("variable p[3]\nmaximize sum(entr(p))\nsubject to\n    sum(p) == 1\n    p[0] >= 0.5",
                     None),
}


def _text_reference(name: str) -> float:
    if name == "geometric_mean":
        x, y = cp.Variable(nonneg=True), cp.Variable(nonneg=True)
        return reference(TEXT[name][1](x, y))
    p = cp.Variable(3)
    if name == "log_of_sum":
        return reference(cp.Problem(cp.Minimize(cp.sum_squares(p) - cp.log(cp.sum(p) - 1))))
    return reference(cp.Problem(cp.Maximize(cp.sum(cp.entr(p))), [cp.sum(p) == 1, p[0] >= 0.5]))


@pytest.mark.parametrize("name", sorted(TEXT))
def test_text_problem_solves_from_the_default_start(name):
    text = TEXT[name][0]
    task = read(text)
    assert unmet(conditions(task), task, task.x0)
    result = solvers.minimize(text)
    assert result.success, f"status {result.status}: {result.message}"
    assert close(result.fun, _text_reference(name)), (result.fun, _text_reference(name))


def test_user_start_outside_the_domain_is_moved_inside():
    """x0 = -5 is outside log(x - 1)'s domain: phase one moves it (the answer is the same)."""
    text = "variable x[3]\nminimize sum(x) - sum(log(x - 1))"
    result = solvers.minimize(text, x0={"x": np.full(3, -5.0)})
    assert result.success and close(result.fun, 6.0)
    np.testing.assert_allclose(result.x["x"], 2.0, rtol=1e-7)


def test_start_inside_the_domain_is_kept():
    """A start that meets every condition is the start the solve takes, untouched."""
    text = "variable x[3]\nminimize sum(x) - sum(log(x - 1))"
    task = read(text, x0={"x": np.array([1.5, 3.0, 7.0])})
    assert inside(task) is task


def test_user_start_at_zero_of_a_geometric_mean_is_moved():
    """x0 = 0 for sqrt(x y) on the nonnegative orthant: the gradient is 0/0 there."""
    text = "variable x nonneg\nvariable y nonneg\nmaximize sqrt(x * y)\nsubject to\n    x + 2 * y <= 1"
    result = solvers.minimize(text, x0={"x": np.asarray(0.0), "y": np.asarray(0.0)})
    assert result.success and close(result.fun, _text_reference("geometric_mean"))


def test_moved_start_is_strictly_inside_and_within_bounds():
    text = "variable x[3] <= 4\nmaximize sum(log(x - 3))"
    task = inside(read(text))
    assert not unmet(conditions(task), task, task.x0)
    assert np.all(task.x0["x"] > 3) and np.all(task.x0["x"] <= 4)


def test_empty_domain_is_a_clear_error():
    """log(x) with x <= -1: no point is inside the domain and feasible (CVXPY: infeasible).
    Written in CVXPY, log's domain is x's declaration (x >= 0), which phase one shows
    cannot hold with the constraint: status 6, naming both; written as text, where the
    domain is the formula's alone, a SolverError naming the condition."""
    x = _x()
    result = solvers.minimize(cp.Problem(cp.Maximize(cp.sum(cp.log(x))), [x <= -1]))
    assert result.status == 6 and "constraint 1 and lower bound of x cannot hold together" in result.message
    found = r"no point strictly inside the domain meets constraint 1 .*x > 0 in the objective"
    with pytest.raises(SolverError, match=found):
        solvers.minimize("variable x[3]\nmaximize sum(log(x))\nsubject to\n    x <= -1")


def test_domain_with_no_interior_is_a_clear_error():
    """log(x) with x <= 0: the domain and the constraint meet nowhere strictly inside."""
    with pytest.raises(SolverError, match="no point strictly inside the domain meets constraint 1"):
        solvers.minimize("variable x\nmaximize log(x)\nsubject to\n    x <= 0")


def test_nonzero_argument_takes_the_side_the_constraints_allow():
    """x^-1 needs x != 0; phase one tries x > 0, which x <= -0.5 rules out, then x < 0 (no
    false empty-domain claim: a sign chosen at 0 is not the whole domain)."""
    text = "variable x\nminimize x ^ 2 - x ^ (-1)\nsubject to\n    x <= -0.5"
    task = inside(read(text))
    assert task.x0["x"] < 0
    result = solvers.minimize(text)
    y = cp.Variable()
    ref = reference(cp.Problem(cp.Minimize(cp.square(y) + cp.inv_pos(y)), [y >= 0.5]))
    assert result.success and close(result.fun, ref), (result.fun, ref)


def test_conditions_name_their_kind():
    text = ("variable x[3]\nvariable y[3]\nvariable z[3]\nvariable X[2, 2] symmetric\n"
            "minimize sum(y .^ (-1)) - sum(log(x)) - logdet(X) + sum(z .^ 1.5) + sum(inv(X))")
    kinds = {tc.to_text(c.arg): c.kind for c in conditions(read(text))}
    assert kinds == {"y": "nonzero", "x": "positive", "det(X)": "positive", "z": "nonneg", "X": "nonsingular"}
