"""The CVXPY bridge's linear atoms (`convexcheck.bridge.linear`): selections read off one
application of the atom, factored by axis when large; every translation evaluates to
CVXPY's value (tensorcalc.evaluate on the translation's data), with the dense and the
factored forms both checked (DENSE set to 0 forces the factored one)."""
import numpy as np
import pytest

import convexcheck
import tensorcalc as tc
from convexcheck.bridge import linear

cp = pytest.importorskip("cvxpy")

RNG = np.random.default_rng(3)
MASK = RNG.random((4, 5)) < 0.5
C = RNG.standard_normal((4, 5))

SELECTIONS = {
    "entry": lambda v, U: v[3] + U[1, 2] + v[-1],
    "slices": lambda v, U: cp.sum(cp.multiply(U[0:3, 1:5] - U[1:4, 0:4], C[:3, :4])),
    "steps_and_flips": lambda v, U: v[::2] @ np.arange(3.0) + v[::-1] @ np.arange(6.0) + cp.sum(U[::-1, 1] * 2),
    "negative_steps_and_ends": lambda v, U: v[5:1:-2] @ np.arange(2.0) + v[-3:] @ np.ones(3) + U[-1, -2]
    + cp.sum(U[3:0:-1, ::2] * 1.5),
    "row_column": lambda v, U: U[2] @ np.arange(5.0) + U[:, 1] @ np.arange(4.0),
    "reshape_F_C": lambda v, U: cp.reshape(U, (1, 20), order="F") @ np.arange(20.0)
    + cp.reshape(U, (5, 4), order="C")[1] @ np.arange(4.0),
    "vstack_hstack": lambda v, U: cp.sum(cp.multiply(cp.vstack([U[0], U[1] - U[2]]), C[:2]))
    + cp.hstack([v, U[3]]) @ np.arange(11.0) + cp.sum(cp.multiply(cp.hstack([U, U[:, :1]]), np.ones((4, 6)))),
    "concatenate": lambda v, U: cp.sum(cp.multiply(cp.concatenate([U, 2 * U], axis=0), np.arange(40.0).reshape(8, 5))),
    "transpose_diag": lambda v, U: cp.sum(cp.multiply(U.T, C.T)) + cp.diag(U[:, :4]) @ np.arange(4.0)
    + cp.sum(cp.multiply(cp.diag(v), np.arange(36.0).reshape(6, 6))),
    "masks_and_arrays": lambda v, U: U[MASK] @ np.arange(float(MASK.sum())) + cp.sum(v[[0, 2, 2, 5]] * 3),
    "upper_tri_broadcast": lambda v, U: cp.sum(cp.upper_tri(U[:, :4]))
    + cp.sum(cp.multiply(cp.broadcast_to(v[:5], (4, 5)), C)),
    "cumsum (not a selection)": lambda v, U: cp.sum(cp.cumsum(v)) + cp.sum(cp.cumsum(U, axis=1)),
}


@pytest.mark.parametrize("factored", [False, True])
@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_linear_atoms_evaluate_to_cvxpys_value(name, factored, monkeypatch):
    if factored:
        monkeypatch.setattr(linear, "DENSE", 0)
    v, U = cp.Variable(6, name="v"), cp.Variable((4, 5), name="U")
    expr = SELECTIONS[name](v, U)
    problem, data = convexcheck.from_cvxpy(expr)
    rng = np.random.default_rng(sorted(SELECTIONS).index(name))
    for _ in range(2):
        v.value, U.value = rng.standard_normal(6), rng.standard_normal((4, 5))
        ours = tc.evaluate(problem.objective.expr, {"v": v.value, "U": U.value, **data})
        assert np.isclose(float(ours), expr.value, rtol=1e-10, atol=1e-10), problem.text


def test_factored_selections_hold_few_entries():
    """The total variation of a 40 x 40 image with its known pixels: once rejected
    ("Vstack is too large to translate (1521 inputs, 3042 outputs)"), or dense tensors of
    millions of entries; now a few factors of (out, length)."""
    m = 40
    known = np.random.default_rng(0).random((m, m)) < 0.5
    U = cp.Variable((m, m))
    problem = cp.Problem(cp.Minimize(cp.tv(U)), [U[known] == np.ones((m, m))[known]])
    _, data = convexcheck.from_cvxpy(problem)
    assert sum(a.size for a in data.values()) < 400_000        # dense: 2.3 million per flattening


def test_selection_is_checked_on_other_values():
    """An atom that maps 1..size into 0..size without selecting (a cumsum of few entries
    could) is read off unit arrays instead."""
    v = cp.Variable(2)
    assert linear.positions(cp.cumsum(v), 0) is None
    assert linear.positions(v[::-1], 0).tolist() == [2, 1]


def test_indexing_a_variable_is_a_subscript():
    """x[i] of a variable is the language's own subscript: no constant tensor, no
    parameter (5,000 of them once made the reader refuse 'more than 10,000 statements')."""
    v, U = cp.Variable(6, name="v"), cp.Variable((4, 5), name="U")
    problem, data = convexcheck.from_cvxpy(v[3] + cp.sum(U[0:3, 1:5]) + cp.sum(v[::-1]) + U[2] @ np.arange(5.0))
    assert "v[3]" in problem.text and "U[0:3, 1:5]" in problem.text and "U[2, 0:5]" in problem.text
    assert [a.size for a in data.values()] == [5]                 # arange(5), the only data
