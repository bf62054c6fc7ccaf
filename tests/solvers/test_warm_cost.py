"""A warm re-solve (issue 26: the second `solvers.minimize` of one CVXPY problem) redoes no
work that depends only on the expressions: the epigraph sites' starts come from one kept
compiled call (no `tc.evaluate` per site), an affine tensor constraint is evaluated once
(at the start, which also gives its shape), and the weighted part of a tensor constraint,
needed only for the Hessian of a curved one, is never built for an affine one. Spy counts,
not wall time; the answers of the cold and the warm solve agree."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import solvers
from solvers.constrained import kept
from solvers.objective import constraints
from solvers.reformulate import epigraph
from solvers.task.prepare import prepare


def _fuel(T: int = 6) -> cp.Problem:
    """Minimum fuel control: abs kinks (epigraph sites) and affine tensor constraints only."""
    A = np.array([[1.0, 1.0], [0.0, 1.0]])
    B = np.array([[0.5], [1.0]])
    x, u = cp.Variable((2, T + 1), name="x"), cp.Variable((1, T), name="u")
    rows = [x[:, 0] == np.array([1.0, 0.0]), x[:, T] == 0]
    rows += [x[:, t + 1] == A @ x[:, t] + B @ u[:, t] for t in range(T)]
    return cp.Problem(cp.Minimize(cp.sum(cp.abs(u))), rows + [u <= 1, u >= -1])


class _Spy:
    """Counts calls of `owner.name` while installed (monkeypatch undoes it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> None:
        self.calls, inner = 0, getattr(owner, name)

        def counted(*args, **kwargs):
            self.calls += 1
            return inner(*args, **kwargs)
        monkeypatch.setattr(owner, name, counted)


def test_a_warm_solve_evaluates_no_site_on_its_own_and_each_affine_row_block_once(monkeypatch):
    problem = _fuel()
    cold = solvers.minimize(problem, method="auto")
    assert cold.status == 0, cold.message
    site = _Spy(monkeypatch, epigraph, "_value")
    rows_built = _Spy(monkeypatch, constraints.Rows, "__init__")
    rows_evaluated = _Spy(monkeypatch, constraints.Rows, "_evaluate")
    rows_read = _Spy(monkeypatch, constraints.Rows, "_read")
    parts_built = _Spy(monkeypatch, constraints.Part, "__init__")
    warm = solvers.minimize(problem, method="auto")
    assert site.calls == 0                                   # every site start from the kept compiled call
    assert rows_built.calls == rows_evaluated.calls == parts_built.calls == 0   # the QP's rows kept (`kept`)
    kept.clear()                                             # the same without the kept QP
    again = solvers.minimize(problem, method="auto")
    assert rows_built.calls > 0                              # the problem does have tensor constraints
    assert rows_read.calls == rows_built.calls               # affine: read once by `affine.read`,
    assert rows_evaluated.calls < rows_built.calls           # evaluated only where the walk cannot
    assert parts_built.calls < 2 * rows_built.calls          # no weighted part beside each affine block
    assert again.fun == pytest.approx(cold.fun, rel=1e-9, abs=1e-12)
    assert (warm.status, warm.message) == (cold.status, cold.message)
    assert warm.fun == pytest.approx(cold.fun, rel=1e-9, abs=1e-12)
    for name, value in cold.x.items():
        np.testing.assert_allclose(warm.x[name], value, rtol=1e-9, atol=1e-12)


def test_the_starts_of_nested_sites_come_from_the_kept_calls_in_waves():
    """t_max's site reads t_abs, added by the same lift: its start is evaluated in a second
    wave, after t_abs has one; both are max |argument| + 1 as one-by-one evaluation gives."""
    rng = np.random.default_rng(3)
    A, b, x0 = rng.standard_normal((5, 3)), rng.standard_normal(5), np.full(3, 0.3)
    text = "parameter A[5, 3]\nparameter b[5]\nvariable x[3]\nminimize max(abs(A * x - b)) + sum(x.^2)\n"
    for _ in range(2):                                       # cold, then from the kept programs
        lifted = epigraph.lift(prepare(text, {"A": A, "b": b}, {"x": x0}))
        assert lifted.added == ("t_abs", "t_max")
        starts = lifted.task.x0
        np.testing.assert_allclose(starts["t_abs"], np.abs(A @ x0 - b) + 1, rtol=1e-13)
        assert float(starts["t_max"]) == pytest.approx(float(np.max(starts["t_abs"])) + 1, rel=1e-13)


def test_a_large_sparse_affine_block_gives_its_values_from_a_csr_copy():
    """Second differences of 400 entries: the affine block's Jacobian is 398 x 400 with
    three entries a row, so its values come from a CSR copy, equal to the dense product."""
    from solvers.numerics.space import View
    from solvers.objective.smooth import Objective
    n = 400
    D = np.diff(np.eye(n), 2, axis=0)
    text = "parameter D[m, n]\nvariable x[n]\nminimize sum(x .^ 2)\nsubject to\n    D * x <= 1"
    task = prepare(text, {"D": D}, None)
    view = View(Objective(task, np))
    cons = constraints.Constraints(task, view)
    y = np.random.default_rng(0).standard_normal(n)
    c, J = cons.values_jacobian(y)
    (rows,) = cons.parts
    assert rows._rows is not None and rows._rows.nnz == 3 * (n - 2)
    np.testing.assert_allclose(cons.values(2 * y), J @ (2 * y) + (c - J @ y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(J, D, atol=0)


def test_affine_constraints_give_their_values_from_one_stacked_product():
    """Every part affine and read: one CSR product for all of them, equal to the loop
    over the parts (a scalar row, a tensor block, an equality)."""
    from solvers.numerics.space import View
    from solvers.objective.smooth import Objective
    rng = np.random.default_rng(4)
    A, b = rng.standard_normal((5, 4)), rng.standard_normal(5)
    text = ("parameter A[m, 4]\nparameter b[m]\nvariable x[4]\nminimize sum(x .^ 2)\nsubject to\n"
            "    A * x <= b\n    sum(x) == 1\n    x[0] - 2 * x[3] >= -1")
    task = prepare(text, {"A": A, "b": b}, None)
    cons = constraints.Constraints(task, View(Objective(task, np)))
    y = rng.standard_normal(4)
    assert cons._stacked() is not None                      # every part affine: read when built, scalars too
    c, J = cons.values_jacobian(y)
    z = rng.standard_normal(4)
    loop = np.concatenate([p.values(z).reshape(-1) for p in cons.parts])
    np.testing.assert_allclose(cons.values(z), loop, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(cons.values(z), J @ z + (c - J @ y), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("text", [
    "parameter A[3, 3]\nvariable X[3, 3] symmetric\nvariable u[3]\nminimize sum(X .^ 2) + sum(u .^ 2)\n"
    "subject to\n    A *(ij,jk->ik) X - 1 <= 0\n    X *(ij,j->i) u == 1",
    "parameter A[3, 3]\nvariable X[3, 3] symmetric\nvariable u[3]\nminimize sum(X .^ 2) + sum(u .^ 2)\n"
    "subject to\n    A *(ij,j->i) u + X[0:3, 0] <= 2",
    "parameter A[3, 3]\nvariable U[4, 5]\nvariable x[6]\nminimize sum(U .^ 2) + sum(x .^ 2)\n"
    "subject to\n    x[1:4] - x[0:3] + A *(ij,j->i) U[1:4, 2] <= 1\n    x[::2] - U[0:3, 4] == 0\n"
    "    x[::-1] + 2 * x <= 3",
])
def test_an_affine_block_read_by_the_walk_equals_its_compiled_jacobian(text):
    """`affine.read`'s Jacobian, mapped to y (a symmetric X by its upper triangle), is the
    one the compiled derivative gives, and so are the values."""
    from solvers.numerics.space import View
    from solvers.objective.smooth import Objective
    rng = np.random.default_rng(9)
    task = prepare(text, {"A": rng.standard_normal((3, 3))}, None)
    view = View(Objective(task, np))
    cons = constraints.Constraints(task, view)
    y = rng.standard_normal(view.n)
    blocks = [p for p in cons.parts if isinstance(p, constraints.Rows) and p.affine]
    assert blocks
    read_any = False
    for part in blocks:
        read = part._read(task)
        if read is None:                 # a node the walk cannot read (x[::2]): the compiled path
            continue
        read_any = True
        c, J = part._evaluate(y)
        jac = read[1].toarray() if sp.issparse(read[1]) else read[1]     # CSR where z is y
        np.testing.assert_allclose(jac, part._in_y(J), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(jac @ y + read[0].reshape(-1), c.reshape(-1), rtol=1e-12, atol=1e-12)
    assert read_any
