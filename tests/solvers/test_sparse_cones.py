"""Second-order cones on the sparse KKT path (`numerics.sparse` with cone rows): the
factor solves the system with every cone's G_c' W^-2 G_c, as the dense matrix does, and
an optimal control problem with a norm per step solves on it as CVXPY does."""
import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import solvers
from solvers.constrained import qpsystem
from solvers.numerics import soc, sparse


def _inside(rng, k, m):
    v = rng.standard_normal((k, m))
    v[:, 0] = np.linalg.norm(v[:, 1:], axis=1) + rng.uniform(0.1, 2.0, k)
    return v


@pytest.mark.parametrize("m", [3, 5])
def test_the_factor_with_cone_rows_solves_the_dense_system(m):
    rng = np.random.default_rng(m)
    n, k, p = 60, 7, 4
    H = sp.random(n, n, density=0.05, random_state=1)
    H = sp.csr_matrix(H @ H.T + sp.identity(n))
    G = sp.csr_matrix(sp.random(30, n, density=0.1, random_state=2))
    E = sp.csr_matrix(sp.random(p, n, density=0.3, random_state=3))
    Gc = sp.csr_matrix(sp.random(k * m, n, density=0.15, random_state=4))
    d, w = rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 5.0, 30)
    scaling = soc.Scaling(np, _inside(rng, k, m), _inside(rng, k, m))
    W2 = scaling.inverse() @ scaling.inverse()
    pat = sparse.pattern(H, G, E, ((Gc, m),))
    fac = sparse.factor(pat, d, w, (W2,))
    assert fac is not None
    K = (H + sp.diags(d) + G.T @ sp.diags(w) @ G).toarray()
    Gd = Gc.toarray().reshape(k, m, n)
    K += np.einsum("kai,kab,kbj->ij", Gd, W2, Gd)
    r, s = rng.standard_normal(n), rng.standard_normal(p)
    full = np.block([[K, E.toarray().T], [E.toarray(), np.zeros((p, p))]])
    expected = np.linalg.solve(full, np.concatenate([r, s]))
    dy, dnu = fac.solve(r, s)
    np.testing.assert_allclose(dy, expected[:n], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(dnu, expected[n:], rtol=1e-9, atol=1e-10)


def test_optimal_control_with_a_norm_per_step_solves_on_the_sparse_path(monkeypatch):
    T = 60
    A = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)     # a double integrator
    B = np.array([[0.5, 0], [0, 0.5], [1, 0], [0, 1]])
    x, u = cp.Variable((4, T + 1), name="x"), cp.Variable((2, T), name="u")
    constr = [x[:, 0] == np.array([10, 5, 0, 0]), x[:, T] == 0]
    constr += [x[:, t + 1] == A @ x[:, t] + B @ u[:, t] for t in range(T)]
    constr += [cp.norm(u[:, t]) <= 1 for t in range(T)]
    problem = cp.Problem(cp.Minimize(cp.sum([cp.norm(u[:, t]) for t in range(T)]) + 0.01 * cp.sum_squares(u)),
                         constr)
    paths = []
    init = qpsystem.Method.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        paths.append((self.pattern is not None, self.soc.count))
    monkeypatch.setattr(qpsystem.Method, "__init__", spy)
    r = solvers.minimize(problem, method="auto")
    reference = problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert r.success, r.message
    assert (True, 2 * T) in paths or (True, T) in paths, paths          # sparse, with the cones in it
    assert r.fun == pytest.approx(reference, rel=1e-7)
