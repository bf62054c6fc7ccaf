"""Unbounded convex QPs (solvers/recession.py): the interior point's stall becomes status 5
where a recession direction exists, as SciPy's linprog (LPs) or CVXPY (QPs) says;
bounded ones are untouched and solved to the reference value."""
import numpy as np
import pytest
from scipy.optimize import linprog

import solvers

C = np.array([0.3, -1.2, 0.5, 0.1])
# (text, data, the LP as linprog's (c, A_ub, b_ub, A_eq, b_eq, bounds), or a CVXPY twin)
LPS = [
    ("parameter c[n]\nvariable x[n]\nminimize c' * x\nsubject to\n    sum(x) == 1", {"c": C},
     (C, None, None, np.ones((1, 4)), [1.0], [(None, None)] * 4)),
    ("variable x[2]\nmaximize x[0] + x[1]\nsubject to\n    x[0] <= 1", {},
     ([-1.0, -1.0], [[1.0, 0.0]], [1.0], None, None, [(None, None)] * 2)),
    ("variable x[2] nonneg\nminimize x[0] - x[1]\nsubject to\n    x[1] <= 2", {},
     ([1.0, -1.0], [[0.0, 1.0]], [2.0], None, None, [(0, None)] * 2)),
    ("variable x[3] nonneg\nminimize x[0] - x[1] + x[2]\nsubject to\n    x[1] - x[2] <= 1", {},
     ([1.0, -1.0, 1.0], [[0.0, 1.0, -1.0]], [1.0], None, None, [(0, None)] * 3)),
]
QPS = [
    ("variable x[2]\nminimize x[0] ^ 2 - x[1]\nsubject to\n    x[0] + x[1] >= 0", {},
     lambda cp, x: (cp.Minimize(cp.square(x[0]) - x[1]), [x[0] + x[1] >= 0]), 2),
    ("parameter c[n]\nvariable x[n]\nminimize c' * x + sum_squares(x)\nsubject to\n    sum(x) == 1", {"c": C},
     lambda cp, x: (cp.Minimize(C @ x + cp.sum_squares(x)), [cp.sum(x) == 1]), 4),
]


def _check(result, unbounded: bool, value: float | None):
    if unbounded:
        assert result.status == 5 and not result.success, result.message
        assert "no m" in result.message
    else:
        assert result.success and result.fun == pytest.approx(value, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("method", ["auto", "newton", "lbfgs"])
@pytest.mark.parametrize("text, data, lp", LPS)
def test_lps_end_as_highs_says(text, data, lp, method):
    c, A_ub, b_ub, A_eq, b_eq, bounds = lp
    reference = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    assert reference.status in (0, 3)                  # solved or unbounded
    result = solvers.minimize(text, data=data, method=method)
    sign = -1.0 if "maximize" in text else 1.0          # linprog minimises the negated objective
    _check(result, reference.status == 3, None if reference.status == 3 else sign * reference.fun)


@pytest.mark.parametrize("method", ["auto", "newton", "lbfgs"])
@pytest.mark.parametrize("text, data, twin, n", QPS)
def test_qps_end_as_cvxpy_says(text, data, twin, n, method):
    cp = pytest.importorskip("cvxpy")
    x = cp.Variable(n)
    reference = cp.Problem(*twin(cp, x))
    reference.solve(solver="CLARABEL")
    assert reference.status in ("optimal", "unbounded")
    _check(solvers.minimize(text, data=data, method=method), reference.status == "unbounded", reference.value)
