"""Iterates never leave the domain component they start in (issue 26, item 1).

Translated inv_pos (x^-1 on x != 0) and rel_entr (log(p / q), finite where p, q < 0 too)
have wider domains than CVXPY's; a step across the pole runs off to -inf in the other
component. Every line search refuses such a trial point (`domain.Component`,
`Objective.inside`), and a constrained task approaches the boundary of its component
through the interior-point barrier (`reformulate.closure`). Each problem is solved to
CVXPY's optimum (Clarabel, tight tolerances) within 1e-6.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from cvxpy_reference import close, reference

import solvers
from benchmarks.real_cases import rel_entr_two_distributions
from solvers.constrained.domain_start import kept_component
from solvers.objective.smooth import Objective
from solvers.task.prepare import read

Q = np.array([0.2, 0.3, 0.5])


def _kl_simplex() -> cp.Problem:
    x = cp.Variable(3, name="x")
    return cp.Problem(cp.Minimize(cp.sum(cp.kl_div(x, Q))), [cp.sum(x) == 1, x[2] <= 0.1])


def _rel_entr_means() -> cp.Problem:
    p, q = cp.Variable(5, name="p"), cp.Variable(5, name="q")
    s = np.linspace(0, 1, 5)
    return cp.Problem(cp.Minimize(cp.sum(cp.rel_entr(p, q))),
                      [cp.sum(p) == 1, cp.sum(q) == 1, s @ p == 0.2, s @ q == 0.7])


CVXPY = {"rel_entr_two_distributions": rel_entr_two_distributions, "kl_simplex": _kl_simplex,
         "rel_entr_means": _rel_entr_means}


@pytest.mark.parametrize("name", sorted(CVXPY))
def test_relative_entropy_reaches_cvxpy_optimum(name):
    problem = CVXPY[name]()
    result = solvers.minimize(problem)
    ref = reference(problem)
    assert result.success, f"status {result.status}: {result.message}"
    assert close(result.fun, ref), (result.fun, ref)
    assert all(float(np.min(a)) > 0 for a in result.x.values()), result.x     # the start's component
    assert not any(k.startswith("domain of") for k in result.multipliers), "the closure rows are not the user's"


@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs", "gd"])
@pytest.mark.parametrize("c", [5.0, 50.0])
def test_inv_pos_plus_linear_from_the_default_start(method, c):
    """From x0 = 1 Newton's first step for 1/x + c x is x = 2 - c < 0 (c > 3): across the pole."""
    x = cp.Variable(name="x")
    problem = cp.Problem(cp.Minimize(cp.inv_pos(x) + c * x))
    result = solvers.minimize(problem, method=method)
    ref = reference(problem)
    assert result.success, f"status {result.status}: {result.message}"
    assert close(result.fun, ref), (result.fun, ref)
    assert float(result.x["x"]) > 0


@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_inv_pos_constrained(method):
    x = cp.Variable(3, name="x")
    problem = cp.Problem(cp.Minimize(cp.sum(cp.inv_pos(x))), [cp.sum(x) <= 2])
    result = solvers.minimize(problem, method=method)
    ref = reference(problem)
    assert result.success, f"status {result.status}: {result.message}"
    assert close(result.fun, ref), (result.fun, ref)


@pytest.mark.parametrize("method", ["newton", "newton-cg", "lbfgs", "gd"])
def test_a_given_start_inside_does_not_cross_the_pole(method):
    """From x0 = 1 the Newton step for 1/x + 5 x is -f'/f'' = -4/2: to x = -1, across the
    pole, where f falls without bound. Every iterate keeps x > 0; the optimum 1/sqrt(5)."""
    seen: list[float] = []
    result = solvers.minimize("variable x\nminimize x^(-1) + 5 * x", x0={"x": 1.0}, method=method,
                              callback=lambda r: seen.append(float(r.x["x"])))
    assert result.success, result.message
    assert seen and all(v > 0 for v in seen), seen
    assert abs(float(result.x["x"]) - 1 / np.sqrt(5)) <= 1e-6


def test_no_component_where_the_value_keeps_it():
    """No component (nothing evaluated per trial) without domain conditions, nor where each
    is u > 0 of an affine u (log: f is nan beyond it); one for a pole and for p / q > 0."""
    assert kept_component(read("variable x[3]\nminimize sum((x - 1) .^ 2)")) is None
    assert kept_component(read("variable x[3]\nminimize sum(x) - sum(log(x))", x0={"x": np.ones(3)})) is None
    assert kept_component(read("variable x\nminimize x^(-1) + x", x0={"x": 1.0})) is not None
    ratio = read("variable p[2]\nvariable q[2]\nminimize sum(p .* log(p ./ q))",
                 x0={"p": np.ones(2), "q": np.ones(2)})
    assert len(kept_component(ratio).args) == 2


def test_objective_refuses_a_point_across_the_pole():
    task = read("variable x\nminimize x^(-1) + 5 * x", x0={"x": 1.0})
    obj = Objective(task, np, kept_component(task))
    assert np.isfinite(obj.value(np.array([0.5])))
    assert obj.value(np.array([-3.0])) == np.inf                  # finite there, but across the pole
    assert obj.value_grad(np.array([-3.0]))[0] == np.inf
    assert np.isfinite(Objective(task, np).value(np.array([-3.0])))   # without the component: as before
