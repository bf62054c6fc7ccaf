"""Issue 24, items 5-8: ill-posed problems end with a right status, never an exception.

5. Least squares with nearly collinear columns ended "no minimiser" (status 5): Newton
   crawls towards a minimiser 1e11 away, and the objective fell at every distance the
   no-minimiser test probed (up to 16 times the point's scale); it must also go on
   falling far beyond (`certify.BEYOND`).
6. Linearly dependent equality rows made the equalities' Schur complement singular; LU
   returned finite garbage, the iterates ran to 1e15 and the run-off was called
   "unbounded". The Schur complement is now inverted rank-revealingly, and a run-off at
   points that violate the constraints is status 2, so phase one names inconsistent rows.
7. An infeasible QP: SciPy's ValueError escaped from the recession test, which read the
   QP at a non-finite iterate.
8. An nsd matrix variable with q' X q == 0 (no interior): numpy's LinAlgError escaped
   from the cone's inverse of a matrix Cholesky had admitted at rounding level.

Each expected outcome holds whatever the rounding: a status that is not a false claim,
and where a solve succeeds, the KKT conditions or the objective checked against NumPy.
"""
from __future__ import annotations

import numpy as np
import pytest

import solvers

METHODS = list(solvers.METHODS)
EPS = float(np.finfo(float).eps)
LS = "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum((X * w - y) .^ 2)"


# --------------------------------------------------------------------------- 5: least squares

def _collinear(seed: int, low: float, high: float):
    """X (m x n) whose column 1 is column 0 plus 10^U(low, high) times noise, and y."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(4, 40)), int(rng.integers(2, 8))
    X, noise = rng.standard_normal((m, n)), rng.standard_normal(m)
    X[:, 1] = X[:, 0] + 10.0 ** rng.uniform(low, high) * noise
    return X, rng.standard_normal(m) * 10.0 ** rng.uniform(-2, 2)


def _lowest(X, y) -> float:
    """min |X w - y|^2 over the span of X's columns, from an orthonormal basis of the
    span of column 0, the difference D of columns 1 and 0 (exact in floating point:
    Sterbenz) scaled to unit length, and the other columns: the same span, kept by a
    well-conditioned matrix, so no rounding of X's conditioning reaches the bound."""
    D = X[:, 1] - X[:, 0]
    Q = np.linalg.qr(np.column_stack([X[:, 0], D / np.linalg.norm(D), X[:, 2:]]))[0]
    r = y - Q @ (Q.T @ y)
    return float(r @ r)


@pytest.mark.parametrize("method", METHODS)
def test_nearly_collinear_least_squares_is_never_unbounded(method):
    """cond(X) = 2.8e14: Newton crawls along the near-null direction (its minimiser lies
    1e11 away) and ended with status 5. Now: no claim of 'no minimiser'; a success has
    the gradient 2 X'(X w - y) within gtol (plus its rounding) and an objective no lower
    than the least possible."""
    X, y = _collinear(99, -16, -14)
    assert np.linalg.cond(X) > 1e14
    result = solvers.minimize(LS, data={"X": X, "y": y}, method=method)
    assert result.status != 5, result.message
    w = result.x["w"]
    f = float(np.sum((X @ w - y) ** 2))
    assert result.fun == pytest.approx(f, rel=1e-9)
    assert f <= float(y @ y)                                 # it descended from w = 0
    # |X w - y| as computed is off by at most err per entry (n products of size |X| |w|)
    err = 2 * X.shape[1] * EPS * (np.abs(X).max() * np.abs(w).max() + np.abs(y).max())
    assert f >= _lowest(X, y) * (1 - 1e-12) - 2 * np.sqrt(X.shape[0] * f) * err - X.shape[0] * err ** 2
    if result.success:
        g = 2 * X.T @ (X @ w - y)
        rounding = 64 * EPS * X.shape[0] * np.abs(X).max() * (np.abs(X).max() * np.abs(w).sum() + np.abs(y).max())
        assert np.abs(g).max() <= 1e-8 + rounding


@pytest.mark.parametrize("method", METHODS)
def test_least_squares_at_cond_1e16_matches_lstsq(method):
    """cond(X) ~ 1e16 (two columns equal to 1e-15): the near-null direction changes
    the objective by at most 2 sigma_min |w| |r| + (sigma_min |w|)^2 with sigma_min ~ 1e-15
    |X|; wherever the solve stops, it is not status 5, and a success has the objective of
    np.linalg.lstsq to 1e-9 (the objective, not w, is determined)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 4))
    X[:, 3] = X[:, 2] * (1 + 1e-15)
    y = rng.standard_normal(20)
    assert np.linalg.cond(X) > 1e15
    reference = np.linalg.lstsq(X, y, rcond=None)[0]
    best = float(np.sum((X @ reference - y) ** 2))
    result = solvers.minimize(LS, data={"X": X, "y": y}, method=method)
    assert result.status != 5, result.message
    if result.success:
        assert np.abs(result.x["w"]).max() < 1e6           # where the bound below holds
        assert result.fun == pytest.approx(best, rel=1e-9)


# --------------------------------------------------------------------------- 6: dependent rows

EQ = ("parameter A[k, n]\nparameter b[k]\nparameter c[n]\nvariable x[n]\n"
      "minimize sum((x - c) .^ 2)\nsubject to\nA * x == b")


def _dependent(inconsistent: bool):
    """A = U B of rank 2 with 7 rows, b = A x_t (or off the range of U), c; and the
    projection of c onto {x : B x = B x_t}, from the well-conditioned B."""
    rng = np.random.default_rng(0)
    B = rng.standard_normal((2, 7))
    U = rng.standard_normal((7, 2))
    x_t, c = rng.standard_normal(7), rng.standard_normal(7)
    b = U @ (B @ x_t)
    if inconsistent:
        b = b + rng.standard_normal(7)
    x_star = c - B.T @ np.linalg.solve(B @ B.T, B @ c - B @ x_t)
    return {"A": U @ B, "b": b, "c": c}, x_star


@pytest.mark.parametrize("method", METHODS)
def test_redundant_equalities_are_solved(method):
    data, x_star = _dependent(False)
    assert np.linalg.matrix_rank(data["A"]) == 2
    result = solvers.minimize(EQ, data=data, method=method)
    assert result.status == 0, result.message
    np.testing.assert_allclose(result.x["x"], x_star, atol=1e-6 * (1 + np.abs(x_star).max()))
    assert result.fun == pytest.approx(float(np.sum((x_star - data["c"]) ** 2)), rel=1e-8)
    assert result.constr_violation <= 1e-8


@pytest.mark.parametrize("method", METHODS)
def test_inconsistent_equalities_are_infeasible(method):
    data, _ = _dependent(True)
    # no x has A x = b: b is off the range of A (rank 2), by this much
    off = data["b"] - data["A"] @ np.linalg.lstsq(data["A"], data["b"], rcond=None)[0]
    assert np.abs(off).max() > 0.1
    result = solvers.minimize(EQ, data=data, method=method)
    assert result.status == 6, result.message
    assert result.message.startswith("infeasible: constraint 1 cannot hold;")
    assert result.constr_violation > 1e-3


# --------------------------------------------------------------------------- 7: an infeasible QP

INF = "parameter a[n]\nparameter t\nvariable x[n]\nminimize sum(x .^ 2)\nsubject to\na' * x <= 0\na' * x >= t"


@pytest.mark.parametrize("method", METHODS)
def test_an_infeasible_qp_is_named(method):
    a = np.array([0.12573022, -0.13210486, 0.64042265])
    result = solvers.minimize(INF, data={"a": a, "t": 1.0}, method=method)
    assert result.status == 6, result.message
    assert "constraint 1 and constraint 2 cannot hold together" in result.message
    assert result.constr_violation == pytest.approx(0.5, rel=1e-6)     # the least: a.x = t / 2


@pytest.mark.parametrize("method", METHODS)
def test_an_infeasible_qp_at_scale_1e37_ends_without_an_exception(method):
    """a ~ 1e14, t ~ 4e37: x would be 1e23; the interior point's iterates left float64's
    range and the recession test read the QP there (ValueError from linprog). Now an
    honest stop; never success, never 'unbounded'."""
    a = np.array([8.04863526e+13, 4.91636390e+13, 3.91057003e+13])
    result = solvers.minimize(INF, data={"a": a, "t": 3.559571770342106e+37}, method=method)
    assert result.status not in (0, 5), result.message
    assert np.isfinite(result.x["x"]).all()


# --------------------------------------------------------------------------- 8: no interior

NSD = "parameter q[3]\nvariable X[3,3] nsd\n{sense} {objective}\nsubject to\nq' * X * q == 0"
Q = np.array([0.12573022, -0.13210486, 0.64042265])


@pytest.mark.parametrize("method", METHODS)
def test_nsd_with_no_interior_unbounded_is_not_a_success(method):
    """X nsd with q'Xq = 0 forces X q = 0: X = -s (I - q q'/|q|^2) is feasible for every
    s >= 0, so tr(X) has no minimum; the feasible set has no interior in the cone."""
    result = solvers.minimize(NSD.format(sense="minimize", objective="tr(X)"), data={"q": Q}, method=method)
    assert result.status not in (0, 6), result.message


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("sense, objective", [("minimize", "-tr(X)"), ("maximize", "tr(X)")])
def test_nsd_with_no_interior_bounded(method, sense, objective):
    """The maximum of tr(X) over the same set is 0, at X = 0; a success finds it."""
    result = solvers.minimize(NSD.format(sense=sense, objective=objective), data={"q": Q}, method=method)
    assert result.status not in (5, 6), result.message
    if result.success:
        assert abs(result.fun) <= 1e-6
        assert np.abs(result.x["X"]).max() <= 1e-4
