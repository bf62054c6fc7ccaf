"""Forward mode: pushforwards agree with reverse mode contracted with the direction."""
import numpy as np
import pytest
from conftest import examples
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from strategies import VARIABLES, expressions
from test_thesis_examples import VALID

import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.derivatives.check import axis_lengths, sample_values


def _reverse_times_direction(expr, x, direction):
    d = tc.derivative(expr, x)
    q, s = expr.order, dag.LETTERS[:expr.order + x.order]
    return dag.product(d, direction, (s, s[q:], s[:q]))


def _check(expr, x, rng, sizes=(2, 3, 4, 5)):
    direction = dag.var("direction", x.axes)
    forward = tc.pushforward(expr, x, direction)
    reverse = _reverse_times_direction(expr, x, direction)
    variables = {**tc.variables(expr), x.name: x, "direction": direction}
    lengths = axis_lengths([expr, forward, reverse, *variables.values()], sizes=sizes)
    values = sample_values(variables, lengths, rng, 0.2, 0.8)
    with np.errstate(all="ignore"):
        a, b = tc.evaluate(forward, values, lengths), tc.evaluate(reverse, values, lengths)
    assert a.shape == expr_shape(expr, lengths)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(b).max(initial=0)))


def expr_shape(expr, lengths):
    return tuple(lengths[a] for a in expr.axes)


@pytest.mark.parametrize("line", VALID)
def test_forward_agrees_with_reverse_on_thesis_examples(line):
    inp = tc.parse(line)
    _check(inp.expr, inp.declared[inp.wrt], np.random.default_rng(0))


@settings(max_examples=examples(50))
@given(st.integers(0, 3).flatmap(lambda k: expressions(k, 4)), st.data())
def test_forward_agrees_with_reverse_on_random_expressions(text, data):
    e = tc.parse_expr(text, VARIABLES)
    names = sorted(tc.variables(e))
    assume(names)                              # constants only: no variable to push forward along
    x = tc.variables(e)[data.draw(st.sampled_from(names))]
    note(f"{e} wrt {x.name}")
    _check(e, x, np.random.default_rng(1), sizes=(2, 3))


def test_default_direction_name_and_errors():
    e = tc.parse_expr("x *(i,i->) x", {"x": 1})
    p = tc.pushforward(e, "x")
    assert set(tc.variables(p)) == {"x", "dx"}
    x, dx = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    assert tc.evaluate(p, {"x": x, "dx": dx}) == pytest.approx(2 * x @ dx)
    with pytest.raises(tc.TensorCalcError, match="the direction must have the axes of 'x'"):
        tc.pushforward(e, "x", dag.var("v", [dag.Axis("v", 0), dag.Axis("v", 1)]))
