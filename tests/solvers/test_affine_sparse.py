"""`affine.read` keeps the Jacobian of long gathers, their sums, negations, entrywise
scalings and contractions as CSR (never the value's size times the columns densely), and
`Objective.quadratic_hessian` reads a quadratic's Hessian from its gradient that way:
both checked against values evaluated at random points and against the dense reads."""
import numpy as np
import pytest
import scipy.sparse as sp

import tensorcalc as tc
from solvers.objective import affine
from solvers.objective.smooth import Objective
from solvers.task.prepare import prepare

N = 300
TEXT = "parameter w[298]\nparameter A[5, 298]\nparameter b[5]\nvariable x[300]\nvariable t[298]\n"
EXPRS = [
    "x[2:300] - 2 * x[1:299] + x[0:298] - t",
    "-(w *(i,i->i) (x[1:299] - x[0:298])) + 3 * t",
    "A * (x[2:300] - x[1:299]) + b",
]


def _data(rng):
    return {"w": rng.standard_normal(N - 2), "A": rng.standard_normal((5, N - 2)), "b": rng.standard_normal(5)}


def _read(expr_text: str, rng, sparse: bool):
    data = _data(rng)
    task = prepare(TEXT + f"minimize sum(x .^ 2) + sum(t .^ 2)\nsubject to\n    {expr_text} <= 0", data, None)
    expr = task.constraints[0].expr
    free = {"x": (0, (N,)), "t": (N, (N - 2,))}
    return expr, data, affine.read(expr, free, task.fixed, 2 * N - 2, sparse=sparse)


@pytest.mark.parametrize("text", EXPRS)
def test_a_long_gathers_jacobian_is_csr_and_gives_the_values(text):
    rng = np.random.default_rng(EXPRS.index(text))
    expr, data, (c, J) = _read(text, rng, sparse=True)
    assert sp.issparse(J) and J.shape == (c.size, 2 * N - 2)
    assert J.nnz <= (5 * (N - 1) if "A *" in text else 4 * (N - 2))      # the entries it reads, no dense block
    for _ in range(2):
        x, t = rng.standard_normal(N), rng.standard_normal(N - 2)
        value = np.asarray(tc.evaluate(expr, {**data, "x": x, "t": t}), dtype=float).reshape(-1)
        np.testing.assert_allclose(J @ np.concatenate([x, t]) + c.reshape(-1), value, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("text", EXPRS)
def test_the_csr_read_equals_the_dense_read(text, monkeypatch):
    _, _, (c, J) = _read(text, np.random.default_rng(7), sparse=True)
    monkeypatch.setattr(affine, "SPARSE", 10 ** 12)                     # every block dense
    _, _, (c_dense, J_dense) = _read(text, np.random.default_rng(7), sparse=False)
    np.testing.assert_array_equal(c, c_dense)
    np.testing.assert_allclose(J.toarray(), J_dense.reshape(c.size, -1), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("objective", [
    "0.5 * sum((x - y) .^ 2) + 7 * sum(t) + sum((x[2:300] - 2 * x[1:299] + x[0:298]) .^ 2)",
    "sum((w *(i,i->i) (x[1:299] - x[0:298]) - t) .^ 2) + sum((A * x[0:298] - b) .^ 2) + sum(x)",
])
def test_a_quadratics_hessian_read_from_its_gradient_is_the_compiled_one(objective):
    rng = np.random.default_rng(11)
    data = {**_data(rng), "y": rng.standard_normal(N)}
    task = prepare(TEXT + "parameter y[300]\n" + f"minimize {objective}", data, None)
    obj = Objective(task, np)
    H = obj.quadratic_hessian()
    assert sp.issparse(H) and H.shape == (obj.n, obj.n)
    dense = obj.value_grad_hess(rng.standard_normal(obj.n))[2]
    np.testing.assert_allclose(H.toarray(), dense, rtol=1e-12, atol=1e-12)
    assert H.nnz < 0.05 * obj.n ** 2 or "A *" in objective


def test_a_dense_hessian_is_left_to_the_compiled_one():
    """diag(d) + F'F over 300 unknowns: F'F is dense, so `quadratic_hessian` gives up
    (None) before forming it in CSR; the diagonal part alone is read sparse."""
    rng = np.random.default_rng(12)
    data = {"d": rng.uniform(0.5, 2.0, N), "F": rng.standard_normal((20, N))}
    head = "parameter d[300]\nparameter F[20, 300]\nvariable x[300]\n"
    dense = Objective(prepare(head + "minimize sum(d .* x .^ 2) + sum((F * x) .^ 2)", data, None), np)
    assert dense.quadratic_hessian() is None
    diagonal = Objective(prepare(head + "minimize sum(d .* x .^ 2) + sum(x)", data, None), np)
    H = diagonal.quadratic_hessian()
    assert H.nnz == N
    np.testing.assert_allclose(H.diagonal(), 2 * data["d"], rtol=1e-14)


def test_an_unconstrained_quadratic_with_a_sparse_hessian_is_one_sparse_solve(monkeypatch):
    """Hodrick-Prescott over 500 points in slices: Newton's method goes to the QP path
    (one sparse factorisation, not the dense 500 x 500 Hessian) and lands on the closed
    form (I + lam D'D)^-1 y; a dense Hessian stays with Newton's method."""
    import solvers
    from solvers.constrained import qp
    n, lam = 500, 100.0
    y = np.cumsum(np.random.default_rng(13).standard_normal(n))
    D = np.diff(np.eye(n), 2, axis=0)
    calls = []
    solve = qp.solve
    monkeypatch.setattr(qp, "solve", lambda *a, **k: calls.append(1) or solve(*a, **k))
    text = (f"parameter y[{n}]\nvariable x[{n}]\nminimize sum((y - x) .^ 2) + "
            f"{lam} * sum((x[0:{n - 2}] - 2 * x[1:{n - 1}] + x[2:{n}]) .^ 2)")
    r = solvers.minimize(text, {"y": y})
    assert r.success and calls
    np.testing.assert_allclose(r.x["x"], np.linalg.solve(np.eye(n) + lam * D.T @ D, y), rtol=1e-9, atol=1e-9)
    calls.clear()
    F = np.random.default_rng(14).standard_normal((n + 100, n))     # tall: no wide-squares lift
    r = solvers.minimize(f"parameter F[{n + 100}, {n}]\nparameter y[{n}]\nvariable x[{n}]\n"
                         "minimize sum((y - x) .^ 2) + sum((F * x) .^ 2)", {"F": F, "y": y})
    assert r.success and not calls
    np.testing.assert_allclose(r.x["x"], np.linalg.solve(np.eye(n) + F.T @ F, y), rtol=1e-9, atol=1e-9)
