"""Cones of matrix expressions (convexcheck/definite.py), each inference checked on random
admissible matrices by NumPy's eigenvalues; and the verdicts they open: log det, inv and
the matrix fraction of affine pd arguments (DCP's log_det(affine), matrix_frac(x, affine))."""
import numpy as np
import pytest

import convexcheck
import tensorcalc as tc
from convexcheck.problem.model import Attributes
from convexcheck.signs.definite import cone
from convexcheck.signs.signs import Signs

ATTRS = {"P": Attributes(definite="pd"), "S": Attributes(definite="psd"), "N": Attributes(definite="nd"),
         "A": Attributes(), "c": Attributes(lower=0.0), "k": Attributes(lower=1.0), "m": Attributes(upper=-1.0)}
ORDERS = {"P": 2, "S": 2, "N": 2, "A": 2, "c": 0, "k": 0, "m": 0}


def _draw(rng, n=4):
    B = rng.standard_normal((n, n))
    C = rng.standard_normal((n, 2))
    return {"P": B @ B.T + 0.1 * np.eye(n), "S": C @ C.T, "N": -(B @ B.T) - 0.1 * np.eye(n),
            "A": rng.standard_normal((n, n)), "c": np.float64(rng.uniform(0, 2)),
            "k": np.float64(rng.uniform(1, 3)), "m": np.float64(-rng.uniform(1, 3))}


@pytest.mark.parametrize("text, word", [
    ("P", "pd"), ("S + eye", "pd"), ("2 * S", "psd"), ("k * P", "pd"), ("c * P", "psd"), ("m * N", "pd"),
    ("-N", "pd"), ("-S", "nsd"), ("A * S * A'", "psd"), ("A' * P * A", "psd"), ("A * A'", "psd"),
    ("A' * A", "psd"), ("P'", "pd"), ("c * S + eye", "pd"), ("-2 * N + S", "pd"), ("S + 1", "psd"),
    ("A", None), ("S - eye", None), ("S + A", None), ("A * S * A", None), ("P * P", None), ("m * P + S", None),
])
def test_cones_hold_on_random_matrices(text, word):
    expr = tc.parse_expr(text, ORDERS)
    found = cone(expr, ATTRS, Signs(ATTRS).node)
    assert (found.word() if found else None) == word
    if word is None:
        return
    rng = np.random.default_rng(0)
    for _ in range(200):
        M = np.asarray(tc.evaluate(expr, _draw(rng)))
        eig = np.linalg.eigvalsh((M + M.T) / 2)
        assert np.allclose(M, M.T, atol=1e-9)
        scale = max(1.0, np.abs(eig).max())
        if word in ("pd", "psd"):
            assert eig.min() > (0 if word == "pd" else -1e-9 * scale)
        else:
            assert eig.max() < (0 if word == "nd" else 1e-9 * scale)


@pytest.mark.parametrize("text, convex, concave", [
    ("variable X[n, n] psd\nmaximize logdet(X + eye)", "disproved", "proven"),
    ("variable X[n, n] pd\nmaximize logdet(2 * X) - tr(X)", "disproved", "proven"),
    ("parameter A[n, n]\nvariable X[n, n] psd\nmaximize logdet(A * X * A' + eye)", "disproved", "proven"),
    ("variable X[n, n] nd\nmaximize log_det(-X)", "disproved", "proven"),
    ("variable x[n]\nvariable X[n, n] psd\nminimize x' * inv(X + eye) * x", "proven", "disproved"),
    ("variable x[n]\nvariable X[n, n] pd\nminimize matrix_frac(x, X + eye) + tr(X)", "proven", "disproved"),
    ("variable X[n, n] pd\nminimize tr_inv(X + eye)", "proven", "disproved"),
    # the cone is what makes them hold: without it, or off it, no proof
    ("variable X[n, n] symmetric\nmaximize logdet(X + eye)", "disproved", "disproved"),
    ("variable X[n, n] psd\nmaximize logdet(X - eye)", "disproved", "disproved"),
    ("variable x[n]\nvariable X[n, n] symmetric\nminimize x' * inv(X + eye) * x", "disproved", "disproved"),
])
def test_log_det_and_inverses_of_affine_pd_arguments(text, convex, concave):
    report = convexcheck.analyze(text, samples=10)
    assert (report.objective.convex.status, report.objective.concave.status) == (convex, concave)
    assert not report.objective.inconsistencies


@pytest.mark.parametrize("text, convex, concave", [
    # norms of psd forms and of inner products (u' K u = |K^1/2 u|^2, u' u = |u|^2): >= 0, roots convex
    ("parameter A[n, n] psd\nvariable x[n]\nminimize sqrt(x' * A * x)", "proven", "disproved"),
    ("parameter A[n, n] psd\nparameter b[n]\nvariable x[n]\nminimize sqrt(quad_form(x - b, A) + 1) + sum(x)",
     "proven", "disproved"),
    ("parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sqrt((A * x - b)' * (A * x - b))",
     "proven", "disproved"),
    ("parameter A[n, n] psd\nvariable x[n]\nvariable t pos\nminimize x' * A * x / t", "proven", "disproved"),
    ("parameter A[n, n] symmetric\nvariable x[n]\nminimize sqrt(x' * A * x)", "disproved", "disproved"),
    ("parameter A[n, n] psd\nvariable x[n]\nminimize sqrt(exp(x)' * A * exp(x))", "disproved", "disproved"),
    # min written a - relu(a - b): concave, and positive where both are
    ("variable y\nmaximize y - relu(y - 1)", "disproved", "proven"),   # not convex: a chord across the kink
    ("variable x\nvariable y\nmaximize x - 2 * relu(x - y)", "disproved", "proven"),
    ("variable x\nvariable y pos\nminimize x ^ 2 / (y - relu(y - 1))", "proven", "disproved"),
    ("variable x pos\nmaximize log(x) - relu(log(x) - (1 - x))", "disproved", "proven"),
    ("variable x\nvariable y\nmaximize y - relu(y - x ^ 2)", "not proven", "not proven"),   # min(y, x^2)
])
def test_norms_of_forms_and_mins_written_with_relu(text, convex, concave):
    report = convexcheck.analyze(text, samples=10)
    for side, want in (("convex", convex), ("concave", concave)):
        got = getattr(report.objective, side).status
        assert got != "proven" if want == "not proven" else got == want, (side, got)
    assert not report.objective.inconsistencies
