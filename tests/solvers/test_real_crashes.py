"""Issue 26: problems written as CVXPY users write them that crashed or ended in a wrong
status, each solved from the default start and compared with CVXPY's Clarabel, or
checked at the layer that crashed."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.numerics import cone

cp = pytest.importorskip("cvxpy")


def _agrees(problem, **kwargs) -> None:
    """minimize(method="auto") converges (status 0) to CVXPY's optimum within 1e-6 relative."""
    import solvers
    result = solvers.minimize(problem, method="auto", **kwargs)
    reference = problem.solve(solver=cp.CLARABEL)
    assert result.status == 0, result.message
    assert abs(result.fun - reference) <= 1e-6 * (1 + abs(reference)), (result.fun, reference)


# ----------------------------------------------------------------------------- norms of matrix variables

A = np.array([[1.0, 2.0], [3.0, 4.0]])
MATRIX_NORMS = {
    "norm(X - 1, 1)": lambda X: cp.norm(X - 1, 1),          # max(norm1(X - 1, axis=0)): a lifted max of lifted abs
    "norm(X - A, 1)": lambda X: cp.norm(X - A, 1),
    "norm(X, 'fro')": lambda X: cp.norm(X, "fro"),
    "sum(abs(X))": lambda X: cp.sum(cp.abs(X)),
    "norm(X, 'inf')": lambda X: cp.norm(X + A, "inf"),
}


@pytest.mark.parametrize("name", sorted(MATRIX_NORMS))
def test_norms_of_a_matrix_variable(name):
    """The lifted max's rows read an epigraph variable whose axes a parameter (c2, the
    data of the other term) names: once "cannot tell the length of axis c2[0]"."""
    X = cp.Variable((2, 2))
    _agrees(cp.Problem(cp.Minimize(MATRIX_NORMS[name](X) + 0.1 * cp.sum_squares(X - A))))


def test_matrix_one_norm_alone():
    X = cp.Variable((2, 2))
    _agrees(cp.Problem(cp.Minimize(cp.norm(X - 1, 1)), [X[0, 0] + X[1, 1] == 3]))


# ----------------------------------------------------------------------------- psd variables with entry equalities

def test_psd_with_diagonal_and_entry_equalities():
    """Once numpy's LinAlgError "Matrix is not positive definite" from cone.max_step."""
    C = cp.Variable((3, 3), PSD=True)
    weights = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 1.0]])
    _agrees(cp.Problem(cp.Minimize(cp.trace(weights @ C)), [cp.diag(C) == 1, C[0, 1] == 0.3]))


def test_max_step_is_the_distance_to_the_boundary():
    M, dM = np.diag([1.0, 4.0]), np.diag([-2.0, -2.0])
    assert cone.max_step(np, [(M, dM)]) == pytest.approx(0.5)
    assert cone.max_step(np, [(M, -dM)]) == np.inf


def test_max_step_never_raises(monkeypatch):
    """Outside the cone, a step that is not finite: 0 (no step); LAPACK failing: bisection."""
    inside, step = np.eye(3), -np.eye(3)
    assert cone.max_step(np, [(-inside, step)]) == 0.0
    assert cone.max_step(np, [(inside, np.full((3, 3), np.nan))]) == 0.0
    assert cone.max_step(np, [(inside, np.full((3, 3), np.inf))]) == 0.0
    monkeypatch.setattr(np.linalg, "eigvalsh", _no_convergence)
    assert cone.max_step(np, [(np.diag([1.0, 4.0, 2.0]), step)]) == pytest.approx(1.0, rel=1e-12)
    assert cone.max_step(np, [(inside, -step)]) == np.inf


def _no_convergence(a):
    raise np.linalg.LinAlgError("Eigenvalues did not converge")


# ----------------------------------------------------------------------------- redundant equalities

def _equalities(kind: str, rng) -> np.ndarray:
    A = rng.standard_normal((3, 6))
    extra = {"repeated": [A[0]], "combination": [A[1] + A[2]], "scaled": [3.0 * A[0]],
             "repeated and combination": [A[0], A[1] + A[2]]}[kind]
    return np.vstack([A, *extra])


KINDS = ("repeated", "combination", "scaled", "repeated and combination")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("form", ["lp box", "lp nonneg", "qp", "qp equalities only"])
def test_redundant_equalities_reach_cvxpys_optimum(kind, form):
    """Consistent dependent rows: once status 5 "unbounded below" at f = -1.7e21."""
    rng = np.random.default_rng(sum(map(ord, kind + form)))
    A = _equalities(kind, rng)
    x, c = cp.Variable(6), rng.standard_normal(6)
    b = A @ rng.uniform(0.5, 2.0, 6)
    constraints = [A @ x == b]
    if form == "lp box":
        objective, constraints = c @ x, constraints + [x >= 0, x <= 3]
    elif form == "lp nonneg":
        objective, constraints = np.abs(c) @ x, constraints + [x >= 0]
    else:
        objective = cp.sum_squares(x - c) + c @ x
        constraints += [x >= -1] if form == "qp" else []
    _agrees(cp.Problem(cp.Minimize(objective), constraints))


@pytest.mark.parametrize("kind", KINDS)
def test_inconsistent_dependent_equalities_are_infeasible(kind):
    """A dependent row whose right-hand side disagrees: status 6, never a success."""
    import solvers
    rng = np.random.default_rng(sum(map(ord, kind)))
    A = _equalities(kind, rng)
    b = A @ rng.uniform(0.5, 2.0, 6)
    b[-1] += 1.0
    x = cp.Variable(6)
    result = solvers.minimize(cp.Problem(cp.Minimize(cp.sum(x)), [A @ x == b, x >= 0]), method="auto")
    assert result.status == 6, result.message
    assert not result.success


# ----------------------------------------------------------------------------- power constraints

POWERS = [(8, "<="), (6, "<="), (10, "<="), (4.5, "<="), (3, "<="), (0.8, ">="), (0.5, ">=")]


@pytest.mark.parametrize("p, relation", POWERS)
def test_power_constraints(p, relation):
    """power(x, 8) <= 1 from x = 0, where the constraint's gradient and curvature vanish:
    the Newton matrix is 1e-8 I, the first step 1e8 long, and the merit (penalty 0, since
    the start is feasible) accepted x = 1e8 with violation 1e64, and the iterates crawled
    back by a factor 7/8 per iteration; the merit now refuses a trial whose infeasibility
    passes theta_max (Waechter and Biegler), 1e4 times the start's or 1."""
    x = cp.Variable(3)
    if relation == "<=":
        problem = cp.Problem(cp.Minimize(-cp.sum(x)), [cp.power(x, p) <= 1])
    else:
        problem = cp.Problem(cp.Minimize(cp.sum(x)), [cp.power(x, p) >= 1])
    _agrees(problem)


# ----------------------------------------------------------------------------- long sums

def test_the_epigraph_lift_of_a_sum_of_5000_kinks():
    """A sum of 5,000 abs terms written term by term, as CVXPY code does: translated
    (x[i] as subscripts: once 5,000 parameters, past the reader's 10,000 statements),
    parsed and lifted without RecursionError, one variable and two rows per kink."""
    import convexcheck
    from solvers.reformulate import epigraph
    from solvers.task.prepare import read
    n = 5000
    x = cp.Variable(n + 1, name="x")
    objective = cp.sum([cp.abs(x[i + 1] - x[i]) for i in range(n)]) + cp.sum_squares(x)
    problem, data = convexcheck.from_cvxpy(cp.Problem(cp.Minimize(objective)))
    lifted = epigraph.lift(read(problem, data, None))
    assert lifted.added == ("t_abs_entries",) and len(lifted.task.constraints) == 2 * n
    assert [v.shape for v in lifted.task.free if v.name in lifted.added] == [(n,)]


def test_many_scalar_kinks_share_one_vector_variable():
    """More than epigraph.GROUP scalar kinks of one kind take the entries of one vector
    (a variable each made a Newton matrix program of one block per pair: 106 MB of source
    at 2,000 terms, which the source check refused); the solution is CVXPY's."""
    rng = np.random.default_rng(5)
    n, m = 80, 70
    y = np.repeat(rng.normal(size=4), n // 4) + 0.3 * rng.normal(size=n)
    x = cp.Variable(n, name="x")
    smoothing = cp.sum_squares(x - y) + cp.sum([cp.abs(x[i + 1] - x[i]) for i in range(n - 1)])
    _agrees(cp.Problem(cp.Minimize(smoothing)))
    A, labels = rng.standard_normal((m, 3)), np.sign(rng.standard_normal(m))
    w = cp.Variable(3, name="w")
    hinge = cp.sum([cp.pos(1 - labels[i] * (A[i] @ w)) for i in range(m)]) + cp.sum_squares(w)
    _agrees(cp.Problem(cp.Minimize(hinge)))
