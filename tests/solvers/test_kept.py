"""Re-solves of one QP reuse its read matrices and factor ordering (`solvers.constrained.kept`)
only while the data are the same: a changed parameter, a data array written in place or a
read-only array made writable again is read afresh, and every answer matches CVXPY's."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import solvers
from solvers.constrained import kept, qp


class _Reads:
    """Counts `qp.prepare` calls (the QP read from its expressions) while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls, inner = 0, qp.prepare

        def counted(*args, **kwargs):
            self.calls += 1
            return inner(*args, **kwargs)
        monkeypatch.setattr(qp, "prepare", counted)


def _portfolio(mu: np.ndarray, gamma: cp.Parameter) -> cp.Problem:
    rng = np.random.default_rng(4)
    F = rng.standard_normal((len(mu), len(mu))) / 3
    w = cp.Variable(len(mu), name="w")
    return cp.Problem(cp.Maximize(mu @ w - gamma * cp.sum_squares(F @ w)), [cp.sum(w) == 1, w >= 0])


def _reference(problem: cp.Problem) -> float:
    problem.solve(solver="CLARABEL")
    return float(problem.value)


def test_a_re_solve_reads_the_qp_once_and_a_new_parameter_value_reads_it_again(monkeypatch):
    kept.clear()
    reads = _Reads(monkeypatch)
    mu, gamma = np.linspace(0.5, 1.5, 12), cp.Parameter(nonneg=True, value=0.4)
    problem = _portfolio(mu, gamma)
    first = solvers.minimize(problem, method="auto")
    second = solvers.minimize(problem, method="auto")
    assert reads.calls == 1
    assert first.success and second.success
    np.testing.assert_array_equal(first.x["w"], second.x["w"])      # the same arithmetic from the same parts
    gamma.value = 2.5
    third = solvers.minimize(problem, method="auto")
    assert reads.calls == 2
    assert third.success, third.message
    assert abs(third.fun - _reference(problem)) <= 1e-6 * max(1.0, abs(third.fun))
    assert np.abs(third.x["w"] - first.x["w"]).max() > 1e-3          # the new value changed the answer


TEXT = "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum((A * x - b) .^ 2)\nsubject to\n    sum(x) <= 0.1"


def test_data_written_in_place_is_read_again(monkeypatch):
    kept.clear()
    reads = _Reads(monkeypatch)
    rng = np.random.default_rng(2)
    A, b = rng.standard_normal((9, 4)), rng.standard_normal(9)
    data = {"A": A, "b": b}
    before = solvers.minimize(TEXT, data, method="newton")
    b *= -1.0                                          # the same array object, new values
    after = solvers.minimize(TEXT, data, method="newton")
    assert reads.calls == 2
    x = cp.Variable(4)
    ref = cp.Problem(cp.Minimize(cp.sum_squares(A @ x - b)), [cp.sum(x) <= 0.1])
    assert abs(after.fun - _reference(ref)) <= 1e-6 * max(1.0, abs(after.fun))
    assert before.fun != after.fun


def test_a_read_only_array_made_writable_and_changed_is_read_again(monkeypatch):
    kept.clear()
    reads = _Reads(monkeypatch)
    rng = np.random.default_rng(6)
    A, b = rng.standard_normal((7, 3)), rng.standard_normal(7)
    A.setflags(write=False)
    data = {"A": A, "b": b}
    solvers.minimize(TEXT, data, method="newton")
    solvers.minimize(TEXT, data, method="newton")
    assert reads.calls == 1                            # an equal A and b: kept
    A.setflags(write=True)
    A[0, 0] += 5.0
    A.setflags(write=False)
    solvers.minimize(TEXT, data, method="newton")
    assert reads.calls == 2


def test_at_most_keep_problems_are_kept(monkeypatch):
    kept.clear()
    rng = np.random.default_rng(8)
    for n in range(2, kept.KEEP + 5):                 # a structure each: x has n entries
        solvers.minimize(TEXT, {"A": rng.standard_normal((9, n)), "b": rng.standard_normal(9)}, method="newton")
    assert len(kept.PARTS) == kept.KEEP


def test_a_re_solve_from_the_same_start_finds_its_point_inside_the_domain(monkeypatch):
    """Phase one (`domain_start`) runs once for a start outside the domain; a re-solve of
    the same problem and data from the same start reuses its point, a new datum or a new
    start runs it again, and every answer is the same as a fresh solve's."""
    from solvers.constrained import domain_start
    kept.clear()
    calls = []
    real = domain_start._phase_one
    monkeypatch.setattr(domain_start, "_phase_one", lambda *a: calls.append(1) or real(*a))
    text = "parameter c[n]\nvariable x[n]\nminimize sum(c .* x) - sum(log(x))\nsubject to\n    sum(x) <= 3"
    data = {"c": np.array([1.0, 2.0, 0.5])}
    first = solvers.minimize(text, data, method="newton")
    again = solvers.minimize(text, data, method="newton")
    assert first.success and again.success and len(calls) == 1
    np.testing.assert_array_equal(first.x["x"], again.x["x"])
    solvers.minimize(text, {"c": np.array([1.0, 2.0, 0.7])}, method="newton")
    solvers.minimize(text, data, x0={"x": -np.ones(3)}, method="newton")
    assert len(calls) == 3
