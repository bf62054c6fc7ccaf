"""Every atom class of `cvxpy.atoms` is translated by a rule of the bridge or refused with a
documented reason (`bridge.refused.REFUSED`); the linear atoms read off unit arrays
(conv, kron) and the wrappers CVXPY puts around trusted data evaluate to CVXPY's values."""
import inspect

import cvxpy as cp
import numpy as np
import pytest
from cvxpy.atoms.atom import Atom

import convexcheck
import tensorcalc as tc
from convexcheck.bridge.refused import REFUSED
from convexcheck.bridge.translate import RULES

ATOM_CLASSES = sorted((c for _, c in inspect.getmembers(cp.atoms, inspect.isclass) if issubclass(c, Atom)),
                      key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", ATOM_CLASSES, ids=lambda c: c.__name__)
def test_every_cvxpy_atom_is_translated_or_refused_with_a_reason(cls):
    found = next((c.__name__ for c in cls.__mro__ if c.__name__ in RULES), None)
    assert found is not None, f"CVXPY atom {cls.__name__} has no rule and no documented refusal"
    if found in REFUSED:
        assert len(REFUSED[found]) > 20


def test_a_refused_atom_names_its_reason():
    x = cp.Variable(3, name="x")
    with pytest.raises(convexcheck.ProblemError, match=r"CVXPY lambda_max is not translated: .* calls DCP"):
        convexcheck.from_cvxpy(cp.lambda_max(cp.reshape(cp.hstack([x, x, x]), (3, 3), order="C")))
    with pytest.raises(convexcheck.ProblemError, match=r"CVXPY ceil is not translated: quasiconvex"):
        convexcheck.from_cvxpy(cp.sum(cp.ceil(x)))


@pytest.mark.parametrize("build", [
    lambda x: cp.sum_squares(cp.convolve(np.array([1.0, -2.0, 0.5]), x)),
    lambda x: cp.sum_squares(cp.convolve(np.array([0.5, 1.0]), x) - 1),
    lambda x: cp.sum(cp.kron(np.array([[1.0], [2.0]]), cp.reshape(x, (1, 4), order="C"))),
    lambda x: cp.quad_form(x, cp.psd_wrap(np.diag([1.0, 2.0, 3.0, 4.0]))),
])
def test_linear_atoms_and_wrappers_evaluate_to_cvxpys_value(build):
    rng = np.random.default_rng(0)
    x = cp.Variable(4, name="x")
    expr = build(x)
    problem, data = convexcheck.from_cvxpy(expr)
    for _ in range(3):
        x.value = rng.standard_normal(4)
        ours = tc.evaluate(problem.objective.expr, {**data, "x": x.value})
        assert np.isclose(float(ours), float(expr.value), rtol=1e-10, atol=1e-10), problem.text
