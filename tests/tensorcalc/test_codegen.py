"""Code generation: compiled functions agree with evaluate, share work, cache paths, stay safe."""
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

RNG = np.random.default_rng(5)


def _agree(expr, variables, sizes=(2, 3, 4, 5), low=0.2, high=0.8):
    lengths = axis_lengths([expr, *variables.values()], sizes=sizes)
    values = sample_values(variables, lengths, RNG, low, high)
    with np.errstate(all="ignore"):
        expected = tc.evaluate(expr, values, lengths)
        got = tc.compile(expr)(values)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(expected).max(initial=0)))


@pytest.mark.parametrize("line", VALID)
@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_compiled_agrees_with_evaluate_on_thesis_examples(line, order):
    inp = tc.parse(line)
    if order == 3 and sum(inp.orders.values()) > 4:
        pytest.skip("order-3 derivative of a high-order tensor: covered by lower orders")
    d = tc.derivative(inp.expr, inp.declared[inp.wrt], order)
    if any(a.var == "" for n in dag.topo(d) for a in n.axes):
        pytest.skip("free axes need explicit lengths")
    _agree(d, inp.declared)


@settings(max_examples=examples(40))
@given(st.integers(0, 3).flatmap(lambda k: expressions(k, 3)), st.integers(0, 3))
def test_compiled_agrees_with_evaluate_on_random_expressions(text, order):
    e = tc.parse_expr(text, VARIABLES)
    names = sorted(tc.variables(e))
    d = tc.derivative(e, names[0], order=min(order, 1 if e.order + 3 > 5 else order)) if names else e
    note(f"{e}\n{d}")
    assume(not any(a.var == "" for n in dag.topo(d) for a in n.axes))    # free axes need explicit lengths
    _agree(d, tc.variables(e), sizes=(2, 3))


def test_shared_subexpressions_are_computed_once_across_outputs():
    inp = tc.parse(open("examples/thesis/logistic_regression.tc").read())
    f, g, h = inp.expr, tc.derivative(inp.expr, "w"), tc.hessian(inp.expr, "w")
    fn = tc.compile([f, g, h])
    assert fn.source.count("xp.exp(") == 1
    assert len(fn.plan.steps) == len(set(s.code.format(*s.args) for s in fn.plan.steps))
    X, y, w = RNG.normal(size=(8, 3)), RNG.choice([-1.0, 1.0], 8), RNG.normal(size=3)
    value, grad, hess = fn(X=X, y=y, w=w)
    np.testing.assert_allclose(value, np.sum(np.log1p(np.exp(-y * (X @ w)))))
    np.testing.assert_allclose(grad, tc.evaluate(g, {"X": X, "y": y, "w": w}))
    named = tc.compile({"f": f, "h": h})(X=X, y=y, w=w)
    assert set(named) == {"f", "h"} and named["h"].shape == (3, 3)


def test_contraction_paths_are_cached_per_shape_signature():
    e = tc.parse_expr("A *(ij,jk->ik) B *(ik,kl->il) C", {"A": 2, "B": 2, "C": 2})
    fn = tc.compile(e)
    (contraction,) = [c for c in fn._contractions if c.equation.count(",") == 2]
    for n in (3, 3, 4):
        values = {k: RNG.normal(size=(n, n)) for k in "ABC"}
        np.testing.assert_allclose(fn(values), values["A"] @ values["B"] @ values["C"])
    assert len(contraction.cache) == 2                    # shapes (3,3)x3 and (4,4)x3
    assert "optimize" not in fn.source and "np.einsum" not in fn.source


def test_unused_values_are_ignored_and_outputs_are_fresh_arrays():
    e = tc.parse_expr("A + 0 *(,ij->ij) B", {"A": 2, "B": 2})
    a = RNG.normal(size=(2, 2))
    out = tc.compile(e)(A=a, B=a, unrelated=np.ones(9))
    np.testing.assert_array_equal(out, a)
    assert out is not a and not np.shares_memory(out, a)


def test_source_is_inspectable_python():
    fn = tc.compile(tc.parse_expr("sin(x) *(i,i->) x", {"x": 1}))
    assert fn.source.startswith("def compiled(values, xp, n, _c):")
    assert "values['x']" in fn.source and "xp.sin(" in fn.source
    assert "return" in str(fn.plan)


@pytest.mark.parametrize("name", ["x; import os", "__import__('os').system('echo hi')", "a\nb", "1x", ""])
def test_hostile_names_never_reach_the_source(name):
    with pytest.raises(tc.TensorCalcError):
        tc.parse_expr("x", {name: 1})
    with pytest.raises(tc.TensorCalcError):
        dag.var(name, [dag.Axis(name, 0)])


def test_identifier_names_appear_only_as_string_keys():
    e = tc.parse_expr("exec + eval", {"exec": 1, "eval": 1})
    fn = tc.compile(e)
    assert "values['exec']" in fn.source and "values['eval']" in fn.source
    np.testing.assert_array_equal(fn(exec=np.ones(2), eval=np.ones(2)), [2.0, 2.0])


def test_bad_arguments_give_clear_errors():
    fn = tc.compile(tc.parse_expr("A *(ij,j->i) x", {"A": 2, "x": 1}))
    with pytest.raises(tc.ShapeError, match="no value given for variable 'x'"):
        fn(A=np.ones((2, 3)))
    with pytest.raises(tc.ShapeError, match="variable 'x' has order 1 but its value has shape"):
        fn(A=np.ones((2, 3)), x=np.ones((3, 1)))
    with pytest.raises(tc.ShapeError, match="axis 0 of 'x' has length 4 but another axis tied to it has length 3"):
        fn(A=np.ones((2, 3)), x=np.ones(4))


def test_runs_on_jax_arrays_when_installed():
    jnp = pytest.importorskip("jax.numpy")
    e = tc.hessian(tc.parse_expr("1 *(i,i->) log(1 + exp(A *(ij,j->i) x))", {"A": 2, "x": 1}), "x")
    a, x = RNG.normal(size=(5, 3)), RNG.normal(size=3)
    fn = tc.compile(e)
    out = fn(A=jnp.asarray(a, dtype=jnp.float32), x=jnp.asarray(x, dtype=jnp.float32))
    assert "jax" in type(out).__module__
    np.testing.assert_allclose(np.asarray(out), fn(A=a, x=x), rtol=1e-4, atol=1e-5)


def test_cupy_arrays_stay_on_the_device():
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception as err:  # noqa: BLE001 - no usable GPU
        pytest.skip(f"CuPy has no usable GPU: {err}")
    e = tc.hessian(tc.parse_expr("x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2}), "x")
    a = cp.asarray(RNG.normal(size=(4, 4)))
    out = tc.compile(e)(A=a, x=cp.ones(4))
    assert isinstance(out, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(out), cp.asnumpy(a + a.T))


def test_hessian_matrix_is_a_view_of_the_tensor():
    e = tc.parse(open("examples/thesis/matrix_factorisation.tc").read()).expr
    hm = tc.hessian_matrix(e, "U")
    values = {"M": RNG.uniform(size=(4, 5)), "T": RNG.normal(size=(4, 5)), "U": RNG.normal(size=(4, 2)),
              "V": RNG.normal(size=(5, 2))}
    tensor = hm.tensor(values)
    matrix = tc.as_matrix(tensor, 2)
    assert matrix.shape == (8, 8) and np.shares_memory(matrix, tensor)   # C-ordered: a view
    np.testing.assert_allclose(hm(values), matrix)
    np.testing.assert_allclose(matrix, matrix.T, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(matrix) >= -1e-10)            # convex in U for M >= 0


def test_huge_outputs_are_refused_before_allocation():
    e = tc.parse(open("examples/thesis/matrix_factorisation.tc").read()).expr
    fn = tc.compile(tc.hessian(e, "U"))
    n = 30_000                                   # the dense Hessian would have (5n)^2 entries
    with pytest.raises(tc.ShapeError, match="over .* entries"):
        fn({"M": _Shape((n, n)), "T": _Shape((n, n)), "U": _Shape((n, 5)), "V": _Shape((n, 5))})


class _Shape:
    """An argument with a shape and no data: the size check must fire before any use."""

    def __init__(self, shape):
        self.shape = shape


def test_lists_are_accepted():
    fn = tc.compile(tc.parse_expr("x *(i,i->) x", {"x": 1}))
    assert fn(x=[1, 2, 3]) == 14.0


@pytest.mark.parametrize("text, reference", [
    ("X *(ij,i->ij) d *(ij,ik->jk) X", lambda X, d, c: X.T @ np.diag(d) @ X),
    ("X *(ji,i->ji) e *(ji,ki->jk) X", lambda X, e, c: X @ np.diag(e) @ X.T),
    ("c *(,ij->ij) (X *(ij,i->ij) d) *(ij,ik->jk) X", lambda X, d, c: c * X.T @ np.diag(d) @ X),
])
@pytest.mark.parametrize("sign", [1.0, -1.0, 0.0])
def test_weighted_gram_products_match_numpy(text, reference, sign):
    """X^T diag(d) X runs as a symmetric rank-k update when d has one sign (sign 0: mixed
    signs, the general product); a scalar parameter leaves the contraction."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((7, 4))
    d = rng.random(7) * sign if sign else rng.standard_normal(7)
    e = rng.random(4) * sign if sign else rng.standard_normal(4)
    expr = tc.parse(f"declare X 2 d 1 e 1 c 0 expression {text}").expr
    f = tc.compile(expr)
    assert "_gram(" in f.source
    weights = d if "d" in text else e
    got = f(X=X, d=d, e=e, c=np.array(-2.5))
    np.testing.assert_allclose(got, reference(X, weights, -2.5), rtol=1e-12, atol=1e-12)
