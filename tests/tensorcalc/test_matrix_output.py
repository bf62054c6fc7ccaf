"""Matrix notation out (issue 15, item 2): `tensorcalc.to_text(e, "matrix")`.

Every case is written in index notation (what parse_expr reads today); its value and first
and second derivatives are printed in matrix notation and
- evaluated by an independent reader of the notation (tests/matrix_oracle.py) to the
  values tensorcalc.evaluate gives the derivative itself;
- parsed back with tensorcalc.parse_expr and evaluated to the same values: text that
  needs the matrix-notation parser (issue 15, item 1) is an expected failure until
  parse_expr reads `x' * A * x`, and must pass from then on;
- differentiated correctly: the printed chain is checked against finite differences.
"""
import numpy as np
import pytest
from conftest import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from matrix_oracle import OracleError, evaluate_matrix_text
from strategies import VARIABLES, expressions

import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.derivatives.check import axis_lengths, derivative_chain, sample_values


def _reads_matrix_notation() -> bool:
    try:
        return tc.parse_expr("x' * A * x", {"x": 1, "A": 2}).order == 0
    except Exception:                    # any failure: the matrix-notation reader is not there yet
        return False


MATRIX_INPUT = _reads_matrix_notation()
AWAITING_PARSER = "parse_expr does not read matrix notation yet (issue 15, item 1)"

LOGISTIC = "sum(log(1 + exp(-(y *(i,i->i) (X *(ij,j->i) w + b *(,i->i) 1)))))"
POISSON = "sum(exp(X *(ij,j->i) w + b *(,i->i) 1) - y *(i,i->i) (X *(ij,j->i) w + b *(,i->i) 1))"
LEAST_SQUARES = "sum((X *(ij,j->i) w - y)^2)"

# (name, expression, orders, wrt, domain): domain "signed" entries of both signs,
# "pos" positive entries, "pd" positive definite for every square matrix variable.
CASES = [
    ("quadratic form x'Ax, in x", "x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2}, "x", "signed"),
    ("quadratic form x'Ax, in A", "x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2}, "A", "signed"),
    ("x'Ax + b'x + c", "x *(i,ij->j) A *(j,j->) x + b *(i,i->) x + c", {"x": 1, "A": 2, "b": 1, "c": 0},
     "x", "signed"),
    ("logistic regression, in w", LOGISTIC, {"X": 2, "y": 1, "w": 1, "b": 0}, "w", "signed"),
    ("logistic regression, in b", LOGISTIC, {"X": 2, "y": 1, "w": 1, "b": 0}, "b", "signed"),
    ("logistic regression + ridge", LOGISTIC + " + lam * sum(w^2)", {"X": 2, "y": 1, "w": 1, "b": 0, "lam": 0},
     "w", "signed"),
    ("Poisson regression, in w", POISSON, {"X": 2, "y": 1, "w": 1, "b": 0}, "w", "signed"),
    ("Poisson regression, in b", POISSON, {"X": 2, "y": 1, "w": 1, "b": 0}, "b", "signed"),
    ("least squares", LEAST_SQUARES, {"X": 2, "y": 1, "w": 1}, "w", "signed"),
    ("least squares in X", LEAST_SQUARES, {"X": 2, "y": 1, "w": 1}, "X", "signed"),
    ("ridge", LEAST_SQUARES + " + lam * sum(w^2)", {"X": 2, "y": 1, "w": 1, "lam": 0}, "w", "signed"),
    ("elastic net", LEAST_SQUARES + " + lam * sum(abs(w)) + mu * sum(w^2)",
     {"X": 2, "y": 1, "w": 1, "lam": 0, "mu": 0}, "w", "signed"),
    ("tr(X'AX)", "X *(ij,ik->jk) A *(jk,kj->) X", {"X": 2, "A": 2}, "X", "signed"),
    ("tr(AXBX')", "(A *(ij,jk->ik) X *(ik,kl->il) B) *(il,il->) X", {"A": 2, "X": 2, "B": 2}, "X", "signed"),
    ("log det", "log(det(X))", {"X": 2}, "X", "pd"),
    ("log det - tr(SX)", "log(det(X)) - X *(ij,ji->) S", {"X": 2, "S": 2}, "X", "pd"),
    ("det", "det(X)", {"X": 2}, "X", "signed"),
    ("det(A'A + I)", "det(A *(ji,jk->ik) A + delta(1))", {"A": 2}, "A", "signed"),
    ("tr(inv(X))", "inv(X) *(ii,->) 1", {"X": 2}, "X", "pd"),
    ("matrix fraction, in Y", "x *(i,ij->j) inv(Y) *(j,j->) x", {"x": 1, "Y": 2}, "Y", "pd"),
    ("matrix fraction, in x", "x *(i,ij->j) inv(Y) *(j,j->) x", {"x": 1, "Y": 2}, "x", "pd"),
    ("c' inv(A) b, in A", "(inv(A) *(ij,j->i) b) *(i,i->) c", {"A": 2, "b": 1, "c": 1}, "A", "pd"),
    ("U V' factorisation, in U", "sum((U *(ik,jk->ij) V - Y)^2)", {"U": 2, "V": 2, "Y": 2}, "U", "signed"),
    ("U V' factorisation, in V", "sum((U *(ik,jk->ij) V - Y)^2)", {"U": 2, "V": 2, "Y": 2}, "V", "signed"),
    ("sum(exp(U V')), in V", "sum(exp(U *(ik,jk->ij) V))", {"U": 2, "V": 2}, "V", "signed"),
    ("log-sum-exp", "log(sum(exp(x)))", {"x": 1}, "x", "signed"),
    ("softmax cross-entropy", "log(sum(exp(W *(ij,j->i) x))) - y *(i,i->) (W *(ij,j->i) x)",
     {"W": 2, "x": 1, "y": 1}, "W", "signed"),
    ("sum of exponentials", "sum(exp(x))", {"x": 1}, "x", "signed"),
    ("squared norm", "x *(i,i->) x", {"x": 1}, "x", "signed"),
    ("Euclidean norm", "sqrt(x *(i,i->) x)", {"x": 1}, "x", "signed"),
    ("norm of the residual", "sqrt(" + LEAST_SQUARES + ")", {"X": 2, "y": 1, "w": 1}, "w", "signed"),
    ("softplus", "sum(log(1 + exp(x)))", {"x": 1}, "x", "signed"),
    ("sigmoid outputs", "sum(1 / (1 + exp(-(X *(ij,j->i) w))))", {"X": 2, "w": 1}, "w", "signed"),
    ("huber regression", "sum(huber(X *(ij,j->i) w - y))", {"X": 2, "y": 1, "w": 1}, "w", "signed"),
    ("Frobenius residual", "sum((A *(ij,jk->ik) X - B)^2)", {"A": 2, "X": 2, "B": 2}, "X", "signed"),
    ("bilinear x'ABy, in A", "x *(i,ij->j) A *(j,jk->k) B *(k,k->) y", {"x": 1, "A": 2, "B": 2, "y": 1},
     "A", "signed"),
    ("x'Ay via an outer product, in A", "(x *(i,j->ij) y) *(ij,ij->) A", {"x": 1, "y": 1, "A": 2}, "A", "signed"),
    ("sum(exp(Ax)), in A", "sum(exp(A *(ij,j->i) x))", {"A": 2, "x": 1}, "A", "signed"),
    ("exp of a quadratic form", "exp(x *(i,ij->j) A *(j,j->) x)", {"x": 1, "A": 2}, "x", "signed"),
    ("sum of logs", "sum(log(x))", {"x": 1}, "x", "pos"),
    ("KL divergence", "sum(x *(i,i->i) log(x / y))", {"x": 1, "y": 1}, "x", "pos"),
    ("weighted squares", "sum((x - y)^2 / z)", {"x": 1, "y": 1, "z": 1}, "z", "pos"),
    ("quad over lin", "x *(i,i->) x / s", {"x": 1, "s": 0}, "x", "pos"),
    ("Rayleigh quotient", "x *(i,ij->j) A *(j,j->) x / (x *(i,i->) x)", {"x": 1, "A": 2}, "x", "signed"),
    ("log(1 + |x|^2)", "log(1 + x *(i,i->) x)", {"x": 1}, "x", "signed"),
    ("sin(A) .* cos(A)", "sum(sin(A) *(ij,ij->ij) cos(A))", {"A": 2}, "A", "signed"),
    ("fourth powers", "sum(w^4)", {"w": 1}, "w", "signed"),
    ("tanh layer", "sum(tanh(X *(ij,j->i) w))", {"X": 2, "w": 1}, "w", "signed"),
    ("sum(AB), in A", "sum(A *(ij,jk->ik) B)", {"A": 2, "B": 2}, "A", "signed"),
    ("adj(X) .* Y", "adj(X) *(ij,ij->) Y", {"X": 2, "Y": 2}, "X", "signed"),
]


def _values(expr, domain, seed):
    """A point: distinct lengths for axes the expression does not tie (so a missing
    transpose shows), entries of both signs or positive, square matrices made pd."""
    rng = np.random.default_rng(seed)
    lengths = axis_lengths([expr])
    values = {}
    for name, var in tc.variables(expr).items():
        shape = tuple(lengths[a] for a in var.axes)
        magnitude = rng.uniform(0.5, 1.5, shape)
        signs = rng.choice((-1.0, 1.0), shape) if domain == "signed" else 1.0
        values[name] = np.asarray(magnitude * signs)
        if domain == "pd" and len(shape) == 2 and shape[0] == shape[1]:
            values[name] = values[name] @ values[name].T + shape[0] * np.eye(shape[0])
    return values


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request):
    name, text, orders, wrt, domain = request.param
    expr = tc.parse_expr(text, orders)
    chain = derivative_chain(expr, tc.variables(expr)[wrt], 2)
    return expr, orders, wrt, chain, _values(expr, domain, seed=len(name))


def test_there_are_forty_cases_or_more():
    assert len(CASES) >= 40


@pytest.mark.parametrize("k", [0, 1, 2])
def test_matrix_text_means_what_the_derivative_is(case, k):
    expr, orders, wrt, chain, values = case
    want = tc.evaluate(chain[k], values)
    text = tc.to_text(chain[k], "matrix")
    got = evaluate_matrix_text(text, values, want.shape)
    assert got.shape == want.shape and np.allclose(got, want, rtol=1e-10, atol=1e-12), text


@pytest.mark.parametrize("k", [0, 1, 2])
def test_matrix_text_parses_back(case, k):
    expr, orders, wrt, chain, values = case
    text = tc.to_text(chain[k], "matrix")
    try:
        again = tc.parse_expr(text, orders)
    except tc.ParseError:
        if MATRIX_INPUT:
            raise
        pytest.xfail(AWAITING_PARSER)
    want = tc.evaluate(chain[k], values)
    free = [a for a in again.axes if not a.var]
    lengths = {a: want.shape[p] for p, a in enumerate(again.axes) if a in free}
    got = tc.evaluate(again, values, lengths)
    assert again.order == chain[k].order and np.allclose(got, want, rtol=1e-10, atol=1e-12), text


def test_printed_derivatives_match_finite_differences(case):
    expr, orders, wrt, chain, values = case
    result = tc.check_derivative(expr, wrt, 2, seed=1, chain=chain)
    assert result.error < 1e-6, str(result)


def test_latex_is_balanced(case):
    expr, orders, wrt, chain, values = case
    for d in chain:
        text = tc.to_text(d, "latex")
        assert text and text.count("{") == text.count("}")
        assert text.count(r"\left(") == text.count(r"\right)")


# ----------------------------------------------------------------------------- structure

def _derivative(text, orders, wrt, k):
    expr = tc.parse_expr(text, orders)
    return derivative_chain(expr, tc.variables(expr)[wrt], k)[k]


def test_quadratic_form_prints_as_in_the_textbooks():
    orders = {"x": 1, "A": 2}
    assert tc.to_text(_derivative("x *(i,ij->j) A *(j,j->) x", orders, "x", 0), "matrix") == "x' * A * x"
    assert tc.to_text(_derivative("x *(i,ij->j) A *(j,j->) x", orders, "x", 1), "matrix") == "A' * x + A * x"
    assert tc.to_text(_derivative("x *(i,ij->j) A *(j,j->) x", orders, "x", 2), "matrix") == "A + A'"
    assert tc.to_text(_derivative("x *(i,ij->j) A *(j,j->) x", orders, "A", 1), "matrix") == "x * x'"


def test_logistic_hessian_is_a_weighted_gram_matrix():
    text = tc.to_text(_derivative(LOGISTIC, {"X": 2, "y": 1, "w": 1, "b": 0}, "w", 2), "matrix")
    *lets, result = text.split("\n")
    assert all(line.startswith("let ") for line in lets)
    assert result.count("X'") == 1 and result.count("* X") == 1 and "diag(" in result
    assert text.count("exp(") == 1                       # shared, not repeated


def test_matrix_fraction_gradient():
    d = _derivative("x *(i,ij->j) inv(Y) *(j,j->) x", {"x": 1, "Y": 2}, "Y", 1)
    assert tc.to_text(d, "matrix") == "-(inv(Y)' * x * x' * inv(Y)')"


def test_ridge_hessian_and_gradient():
    orders = {"X": 2, "y": 1, "w": 1, "lam": 0}
    text = LEAST_SQUARES + " + lam * sum(w^2)"
    assert tc.to_text(_derivative(text, orders, "w", 2), "matrix") == "2 * X' * X + 2 * lam * eye"
    assert tc.to_text(_derivative(text, orders, "w", 1), "matrix") == "2 * lam * w + 2 * X' * (X * w - y)"


def test_intercept_broadcast_reads_as_in_the_issue():
    e = tc.parse_expr(LOGISTIC, {"X": 2, "y": 1, "w": 1, "b": 0})
    assert tc.to_text(e, "matrix") == "sum(log(1 + exp(-(y .* (X * w + b)))))"


def test_third_derivative_of_log_det_is_shorter():
    # log(det(X) + 1): log(det(X)) itself now differentiates to inv(X) (short either way)
    d = _derivative("log(det(X) + 1)", {"X": 2}, "X", 3)
    matrix, einsum = tc.to_text(d, "matrix"), tc.to_text(d, "einsum")
    assert len(matrix) < 0.75 * len(einsum) and len(matrix) < 750
    assert "let t1 = " in matrix and "*(ij,kl->" in matrix      # order 4 and up: index notation


def test_order_three_and_up_keeps_index_notation():
    d = _derivative("U *(ik,jk->ij) V", {"U": 2, "V": 2}, "U", 1)
    assert tc.to_text(d, "matrix") == "V *(ij,kl->kilj) eye"


def test_let_names_avoid_the_variables():
    text = LOGISTIC.replace("w", "t1")
    d = _derivative(text, {"X": 2, "y": 1, "t1": 1, "b": 0}, "t1", 2)
    printed = tc.to_text(d, "matrix")
    assert "let t2 = " in printed and "let t1" not in printed


def test_shared_parts_are_named_once_even_from_different_nodes():
    # 2 *(,i->i) x and x *(i,->i) 2 are different nodes with the same text
    x = tc.parse_expr("x", {"x": 1})
    a = tc.parse_expr("2 *(,i->i) exp(x + 1)", {"x": 1})
    b = tc.parse_expr("exp(x + 1) *(i,->i) 2", {"x": 1})
    assert a is not b
    e = dag.add(dag.hadamard(a, x), dag.hadamard(b, b))
    text = tc.to_text(e, "matrix")
    assert text.startswith("let t1 = 2 * exp(x + 1)\n") and text.count("exp(") == 1


def test_einsum_stays_the_default():
    d = _derivative("x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2}, "x", 1)
    assert tc.to_text(d) == tc.to_text(d, "einsum") == "(x *(i,ij->j) A) + (x *(i,ji->j) A)"


def test_unknown_notation_is_refused():
    with pytest.raises(tc.TensorCalcError, match="notation 'numpy' is unknown: use one of einsum, matrix, latex"):
        tc.to_text(tc.parse_expr("x", {"x": 0}), "numpy")


def test_latex_of_the_logistic_gradient():
    d = _derivative(LOGISTIC, {"X": 2, "y": 1, "w": 1, "b": 0}, "w", 1)
    text = tc.to_text(d, "latex")
    assert text.startswith(r"-\left(X^\top \left(") and r"\quad\text{where}\quad t_{1} = \exp" in text
    assert r"\oslash" in text and r"\odot" in text


def test_deep_expressions_print_without_recursion():
    e = tc.parse_expr("x", {"x": 1})
    for k in range(5000):
        e = dag.elementwise("sin", e) if k % 2 else dag.hadamard(e, tc.parse_expr("x", {"x": 1}))
    text = tc.to_text(e, "matrix")
    assert text.count("sin(") == 2500 and text.count(".* x") == 2499 and text.count("x .^ 2") == 1


def test_a_shared_dag_prints_linearly():
    e = tc.parse_expr("exp(x)", {"x": 1})
    for _ in range(60):
        e = dag.hadamard(dag.elementwise("sin", e), dag.elementwise("cos", e))
    text = tc.to_text(e, "matrix")
    assert len(text) < 60 * 60 and text.count("\n") == 59      # exp(x) is short: not named


def test_long_text_is_abbreviated_with_a_limit():
    e = tc.parse_expr(LOGISTIC, {"X": 2, "y": 1, "w": 1, "b": 0})
    assert tc.to_text(e, "matrix", limit=10).startswith("<38 characters")


# ----------------------------------------------------------------------------- random expressions

@settings(max_examples=examples(40))
@given(data=st.data(), order=st.integers(0, 2), differentiate=st.booleans())
def test_random_expressions_mean_the_same_in_matrix_notation(data, order, differentiate):
    """The expressions of tests/strategies.py (orders 0 to 2, some differentiated): the
    matrix text, read by the oracle, has the values tensorcalc.evaluate gives."""
    original = tc.parse_expr(data.draw(expressions(order, depth=3)), VARIABLES)
    names = tc.variables(original)
    e = original
    if differentiate and names:
        e = tc.derivative(original, data.draw(st.sampled_from(sorted(names))))
    used = tc.variables(e)                                   # no text fixes the length of another axis
    assume(all(a.var in used for n in dag.topo(e) for a in n.axes))
    values = sample_values(names, axis_lengths([original, e]), np.random.default_rng(0))
    with np.errstate(all="ignore"):
        want = tc.evaluate(e, values)
        text = tc.to_text(e, "matrix")
        try:
            got = evaluate_matrix_text(text, values, want.shape)
        except OracleError:
            if _index_text_is_sized(e):
                raise
            assume(False)                                    # no text can: sum(vector(1)) is n
    assert got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True), text


def _index_text_is_sized(e) -> bool:
    """Whether the index-notation text of e, read back, fixes every axis length."""
    again = tc.parse_expr(tc.to_text(e), VARIABLES)
    return all(a.var for n in dag.topo(again) for a in n.axes)


@settings(max_examples=examples(40))
@given(data=st.data(), order=st.integers(0, 2), k=st.integers(0, 2))
def test_random_expressions_parse_back(data, order, k):
    """parse_expr(to_text(e, "matrix")) evaluates as e, for random expressions of orders 0
    to 2 and their first and second derivatives."""
    original = tc.parse_expr(data.draw(expressions(order, depth=3)), VARIABLES)
    names = tc.variables(original)
    e = tc.derivative(original, data.draw(st.sampled_from(sorted(names))), k) if k and names else original
    used = tc.variables(e)
    assume(all(a.var in used for n in dag.topo(e) for a in n.axes))
    assume(_index_text_is_sized(e))            # no text can: a count 1 *(i,j->j) x is len(i) x
    text = tc.to_text(e, "matrix")
    again = tc.parse_expr(text, VARIABLES)
    values = sample_values(names, axis_lengths([original, e]), np.random.default_rng(0))
    with np.errstate(all="ignore"):
        want = tc.evaluate(e, values)
        got = tc.evaluate(again, values, {a: want.shape[p] for p, a in enumerate(again.axes) if not a.var})
    assert got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True), text
