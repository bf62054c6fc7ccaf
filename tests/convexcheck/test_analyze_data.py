"""analyze(..., data=): parameters held at the user's values (issue 6: verdicts about the
actual constants of a CVXPY expression)."""
import numpy as np
import pytest

import convexcheck
from tensorcalc import TensorCalcError

QUADRATIC = "parameter A[n, n] symmetric\nvariable x[n]\nminimize x *(i,ij->j) A *(j,j->) x"


def test_witness_uses_the_given_values():
    A = np.diag([1.0, -2.0, 3.0])
    report = convexcheck.analyze(QUADRATIC, data={"A": A}, samples=5)
    assert report.objective.convex.status == "disproved"
    witness = report.objective.convex.witness
    assert np.array_equal(witness.point["A"], A) and witness.curvature < 0
    assert report.settings["dims"] == {"n": 3}


def test_no_witness_for_psd_values_of_a_symmetric_parameter():
    report = convexcheck.analyze(QUADRATIC, data={"A": np.diag([1.0, 2.0, 3.0])}, samples=5)
    assert report.objective.convex.status == "unknown"       # no proof from 'symmetric' alone
    assert report.objective.concave.status == "disproved"


@pytest.mark.parametrize("data, words", [
    ({"A": np.array([[1.0, 2.0], [0.0, 1.0]])}, ["symmetric"]),
    ({"A": np.ones(3)}, ["shape", "[n, n]"]),
    ({"B": np.ones((2, 2))}, ["no parameter 'B'"]),
    ({"x": np.ones(2)}, ["no parameter 'x'"]),
    ({"A": np.array([[np.nan, 0.0], [0.0, 1.0]])}, ["NaN"]),
    ({"A": [["a", "b"], ["c", "d"]]}, ["not an array of numbers"]),
])
def test_bad_data_is_rejected(data, words):
    with pytest.raises(TensorCalcError) as err:
        convexcheck.analyze(QUADRATIC, data=data)
    for word in words:
        assert word in str(err.value)


def test_dimensions_must_agree_across_arrays():
    text = "parameter a[n]\nparameter b[n]\nvariable x[n]\nminimize sum(exp(a *(i,i->i) x + b))"
    with pytest.raises(TensorCalcError, match="dimension 'n'"):
        convexcheck.analyze(text, data={"a": np.ones(2), "b": np.ones(3)})
