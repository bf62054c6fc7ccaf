"""The task transformations as reductions: each applied once and inverted once, in
reverse order, at the result (`solvers.task.reductions`, `solvers.reformulate.lift`)."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.reformulate.lift import Lift
from solvers.result import Result
from solvers.task.prepare import prepare, read
from solvers.task.reductions import MAXIMIZE, Chain
from tensorcalc import dag

MAXIMISED = "variable x[n]\nmaximize -sum((x - 1).^2)"


def test_maximize_negates_the_objective_and_its_inverse_gives_the_sign_back():
    task = read(MAXIMISED, None, {"x": np.zeros(2)})
    assert task.sign == 1.0 and task.expr is task.problem.objective.expr
    reduced, sign = MAXIMIZE.apply(task)
    assert sign == -1.0 and reduced.sign == -1.0 and reduced.expr is dag.neg(task.expr)
    assert MAXIMIZE.apply(reduced) == (reduced, -1.0)              # applied once, whatever is asked
    result = MAXIMIZE.invert(Result(fun=2.0, jac={"x": np.array([1.0, -0.0])}), sign)
    assert result.fun == -2.0 and result.jac["x"].tolist() == [-1.0, 0.0]


def test_a_minimised_task_is_left_as_it_is():
    task = read("variable x\nminimize x^2", None, None)
    assert MAXIMIZE.apply(task) == (task, 1.0)


def test_prepare_is_the_read_task_reduced():
    start = {"x": np.zeros(2)}
    got, want = prepare(MAXIMISED, None, start), MAXIMIZE.apply(read(MAXIMISED, None, start))[0]
    assert (got.expr, got.sign, got.free, got.problem) == (want.expr, want.sign, want.free, want.problem)


class _Tag:
    """A reduction that records the order of its applications and inversions."""

    def __init__(self, name: str, log: list[str]):
        self.name, self.log = name, log

    def apply(self, task):
        self.log.append(f"apply {self.name}")
        return task, self.name

    def invert(self, result, inverse):
        self.log.append(f"invert {inverse}")
        return result


def test_a_chain_applies_in_order_and_inverts_in_reverse():
    log: list[str] = []
    chain = Chain((_Tag("a", log), _Tag("b", log)))
    task, undo = chain.apply(read(MAXIMISED, None, {"x": np.zeros(2)}))
    chain.invert(Result(), undo)
    assert undo == ("a", "b") and log == ["apply a", "apply b", "invert b", "invert a"]


def test_lift_adds_epigraph_variables_and_its_inverse_drops_them():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((20, 4)), rng.standard_normal(20)
    task = prepare("examples/lasso.tc", {"X": X, "y": y, "lam": 1.0}, None)
    lifted, lifting = Lift(np, 1e-8).apply(task)
    assert [v.name for v in lifted.free] == ["w", "t_abs"] and lifting.before is task
    result = solvers.minimize("examples/lasso.tc", {"X": X, "y": y, "lam": 1.0})
    assert list(result.x) == ["w"] and result.lifted == ["t_abs"]
    w = result.x["w"]
    assert result.fun == pytest.approx(0.5 * np.sum((X @ w - y) ** 2) + np.sum(np.abs(w)), rel=1e-12)


def test_lift_on_another_array_module_leaves_the_task():
    task = prepare("variable x\nminimize abs(x - 1) + x^2", None, None)
    same, lifting = Lift(object(), 1e-8).apply(task)
    assert same is task and lifting.lifted.added == ()
