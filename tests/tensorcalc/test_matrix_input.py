"""Matrix notation in (issue 15, items 1 and 4): `tensorcalc.parse_expr` reads `x' * A * x`.

Every case is written in matrix notation, with a NumPy function that computes the same
value independently. For each: the value against NumPy; the first and second derivatives
against finite differences; and the derivatives printed in matrix notation
(`to_text(d, "matrix")`) read back by `parse_expr` to the same values. Pairs of spellings
check that the sugar lowers to exactly the nodes of the index notation (no node type and
no rule of its own), and the errors check that a misfit names both operands, their
shapes and the likely fix, with a caret, once.
"""
import pathlib
import re

import numpy as np
import pytest
from conftest import examples
from fuzz import mutated
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import VARIABLES, expressions

import convexcheck
import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.derivatives.check import axis_lengths, derivative_chain, sample_values

ROOT = pathlib.Path(__file__).parents[2]


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def _lse(z):
    return np.log(np.sum(np.exp(z)))


LOGISTIC = "sum(log(1 + exp(-y .* (X * w + b))))"
POISSON = "sum(exp(X * w + b) - y .* (X * w + b))"
RIDGE = "sum((X * w - y) .^ 2) + lam * w' * w"
REG = {"X": 2, "y": 1, "w": 1, "b": 0}

# (name, text, orders, wrt, domain, NumPy value): domain "signed" entries of both signs,
# "pos" positive entries, "pd" square matrices positive definite.
CASES = [
    ("x'Ax", "x' * A * x", {"x": 1, "A": 2}, "x", "signed", lambda v: v["x"] @ v["A"] @ v["x"]),
    ("x'Ax in A", "x' * A * x", {"x": 1, "A": 2}, "A", "signed", lambda v: v["x"] @ v["A"] @ v["x"]),
    ("x'Ax + b'x + c", "x' * A * x + b' * x + c", {"x": 1, "A": 2, "b": 1, "c": 0}, "x", "signed",
     lambda v: v["x"] @ v["A"] @ v["x"] + v["b"] @ v["x"] + v["c"]),
    ("x' @ A @ x", "x' @ A @ x", {"x": 1, "A": 2}, "x", "signed", lambda v: v["x"] @ v["A"] @ v["x"]),
    ("logistic regression, intercept, in w", LOGISTIC, REG, "w", "signed",
     lambda v: np.sum(np.log1p(np.exp(-v["y"] * (v["X"] @ v["w"] + v["b"]))))),
    ("logistic regression, intercept, in b", LOGISTIC, REG, "b", "signed",
     lambda v: np.sum(np.log1p(np.exp(-v["y"] * (v["X"] @ v["w"] + v["b"]))))),
    ("logistic + ridge", LOGISTIC + " + lam * w' * w", {**REG, "lam": 0}, "w", "signed",
     lambda v: np.sum(np.log1p(np.exp(-v["y"] * (v["X"] @ v["w"] + v["b"])))) + v["lam"] * v["w"] @ v["w"]),
    ("logistic via softplus", "sum(softplus(-y .* (X * w + b)))", REG, "w", "signed",
     lambda v: np.sum(np.log1p(np.exp(-v["y"] * (v["X"] @ v["w"] + v["b"]))))),
    ("Poisson regression, intercept, in w", POISSON, REG, "w", "signed",
     lambda v: np.sum(np.exp(v["X"] @ v["w"] + v["b"]) - v["y"] * (v["X"] @ v["w"] + v["b"]))),
    ("Poisson regression, intercept, in b", POISSON, REG, "b", "signed",
     lambda v: np.sum(np.exp(v["X"] @ v["w"] + v["b"]) - v["y"] * (v["X"] @ v["w"] + v["b"]))),
    ("least squares", "sum((X * w - y) .^ 2)", {"X": 2, "y": 1, "w": 1}, "w", "signed",
     lambda v: np.sum((v["X"] @ v["w"] - v["y"]) ** 2)),
    ("least squares as r'r", "(X * w - y)' * (X * w - y)", {"X": 2, "y": 1, "w": 1}, "w", "signed",
     lambda v: np.sum((v["X"] @ v["w"] - v["y"]) ** 2)),
    ("ridge", RIDGE, {"X": 2, "y": 1, "w": 1, "lam": 0}, "w", "signed",
     lambda v: np.sum((v["X"] @ v["w"] - v["y"]) ** 2) + v["lam"] * v["w"] @ v["w"]),
    ("elastic net (smooth)", "0.5 * sum((X * w - y) .^ 2) + lam * sum(sqrt(w .^ 2 + eps)) + mu * w' * w",
     {"X": 2, "y": 1, "w": 1, "lam": 0, "mu": 0, "eps": 0}, "w", "pos",
     lambda v: 0.5 * np.sum((v["X"] @ v["w"] - v["y"]) ** 2) + v["lam"] * np.sum(np.sqrt(v["w"] ** 2 + v["eps"]))
     + v["mu"] * v["w"] @ v["w"]),
    ("pseudo-Huber, with a let", "let r = X * w - y\nsum(sqrt(1 + (r / d) .^ 2) - 1)",
     {"X": 2, "y": 1, "w": 1, "d": 0}, "w", "pos",
     lambda v: np.sum(np.sqrt(1 + ((v["X"] @ v["w"] - v["y"]) / v["d"]) ** 2) - 1)),
    ("tr(X'AX)", "tr(X' * A * X)", {"X": 2, "A": 2}, "X", "signed", lambda v: np.trace(v["X"].T @ v["A"] @ v["X"])),
    ("trace(AXBX')", "trace(A * X * B * X')", {"A": 2, "X": 2, "B": 2}, "X", "signed",
     lambda v: np.trace(v["A"] @ v["X"] @ v["B"] @ v["X"].T)),
    ("logdet", "logdet(X)", {"X": 2}, "X", "pd", lambda v: np.linalg.slogdet(v["X"])[1]),
    ("log det - tr(SX)", "log(det(X)) - tr(S * X)", {"X": 2, "S": 2}, "X", "pd",
     lambda v: np.linalg.slogdet(v["X"])[1] - np.trace(v["S"] @ v["X"])),
    ("det", "det(X)", {"X": 2}, "X", "signed", lambda v: np.linalg.det(v["X"])),
    ("det(A'A + I)", "det(A' * A + eye)", {"A": 2}, "A", "signed",
     lambda v: np.linalg.det(v["A"].T @ v["A"] + np.eye(v["A"].shape[1]))),
    ("tr(inv(X))", "tr(inv(X))", {"X": 2}, "X", "pd", lambda v: np.trace(np.linalg.inv(v["X"]))),
    ("matrix fraction in Y", "x' * inv(Y) * x", {"x": 1, "Y": 2}, "Y", "pd",
     lambda v: v["x"] @ np.linalg.inv(v["Y"]) @ v["x"]),
    ("matrix fraction in x", "x' * inv(Y) * x", {"x": 1, "Y": 2}, "x", "pd",
     lambda v: v["x"] @ np.linalg.inv(v["Y"]) @ v["x"]),
    ("c' inv(A) b", "c' * inv(A) * b", {"A": 2, "b": 1, "c": 1}, "A", "pd",
     lambda v: v["c"] @ np.linalg.inv(v["A"]) @ v["b"]),
    ("U V' factorisation in U", "sum((U * V' - Y) .^ 2)", {"U": 2, "V": 2, "Y": 2}, "U", "signed",
     lambda v: np.sum((v["U"] @ v["V"].T - v["Y"]) ** 2)),
    ("U V' factorisation in V", "norm2(U * V.T - Y) ^ 2", {"U": 2, "V": 2, "Y": 2}, "V", "signed",
     lambda v: np.sum((v["U"] @ v["V"].T - v["Y"]) ** 2)),
    ("masked factorisation", "sum((M .* (U * V' - Y)) .^ 2)", {"M": 2, "U": 2, "V": 2, "Y": 2}, "U", "signed",
     lambda v: np.sum((v["M"] * (v["U"] @ v["V"].T - v["Y"])) ** 2)),
    ("log-sum-exp", "log_sum_exp(x)", {"x": 1}, "x", "signed", lambda v: _lse(v["x"])),
    ("logsumexp(Ax)", "logsumexp(A * x)", {"A": 2, "x": 1}, "A", "signed", lambda v: _lse(v["A"] @ v["x"])),
    ("softmax cross-entropy", "log_sum_exp(W * x) - y' * W * x", {"W": 2, "x": 1, "y": 1}, "W", "signed",
     lambda v: _lse(v["W"] @ v["x"]) - v["y"] @ v["W"] @ v["x"]),
    ("entropy", "sum(entr(x))", {"x": 1}, "x", "pos", lambda v: -np.sum(v["x"] * np.log(v["x"]))),
    ("KL divergence", "sum(kl_div(x, y))", {"x": 1, "y": 1}, "y", "pos",
     lambda v: np.sum(v["x"] * np.log(v["x"] / v["y"]) - v["x"] + v["y"])),
    ("quad_form", "quad_form(x, A)", {"x": 1, "A": 2}, "x", "signed", lambda v: v["x"] @ v["A"] @ v["x"]),
    ("quad_over_lin", "quad_over_lin(x, s)", {"x": 1, "s": 0}, "s", "pos", lambda v: v["x"] @ v["x"] / v["s"]),
    ("Euclidean norm", "norm2(x)", {"x": 1}, "x", "signed", lambda v: np.linalg.norm(v["x"])),
    ("Frobenius norm of AX - B", "norm2(A * X - B)", {"A": 2, "X": 2, "B": 2}, "X", "signed",
     lambda v: np.linalg.norm(v["A"] @ v["X"] - v["B"])),
    ("x' diag(d) x", "x' * diag(d) * x", {"x": 1, "d": 1}, "x", "signed", lambda v: v["x"] @ np.diag(v["d"]) @ v["x"]),
    ("diag(A)' x", "diag(A)' * x", {"A": 2, "x": 1}, "A", "signed", lambda v: np.diag(v["A"]) @ v["x"]),
    ("column sums", "sum(A, 0)' * x", {"A": 2, "x": 1}, "A", "signed", lambda v: v["A"].sum(axis=0) @ v["x"]),
    ("row sums", "x' * sum(A, 1)", {"A": 2, "x": 1}, "A", "signed", lambda v: v["x"] @ v["A"].sum(axis=1)),
    ("ones' A ones", "ones' * A * ones", {"A": 2}, "A", "signed", lambda v: np.sum(v["A"])),
    ("vector(2)' x", "vector(2)' * exp(x)", {"x": 1}, "x", "signed", lambda v: 2 * np.sum(np.exp(v["x"]))),
    ("||A - I||^2", "sum((A - eye) .^ 2)", {"A": 2}, "A", "signed",
     lambda v: np.sum((v["A"] - np.eye(len(v["A"]))) ** 2)),
    ("outer product", "sum(exp(u * v'))", {"u": 1, "v": 1}, "v", "signed",
     lambda v: np.sum(np.exp(np.outer(v["u"], v["v"])))),
    ("tr(AB)", "tr(A * B)", {"A": 2, "B": 2}, "A", "signed", lambda v: np.trace(v["A"] @ v["B"])),
    ("sin(A) .* cos(A)", "sum(sin(A) .* cos(A))", {"A": 2}, "A", "signed",
     lambda v: np.sum(np.sin(v["A"]) * np.cos(v["A"]))),
    ("fourth powers", "sum(w .^ 4)", {"w": 1}, "w", "signed", lambda v: np.sum(v["w"] ** 4)),
    ("Rayleigh quotient", "x' * A * x / (x' * x)", {"x": 1, "A": 2}, "x", "signed",
     lambda v: v["x"] @ v["A"] @ v["x"] / (v["x"] @ v["x"])),
    ("||Ax||^2 with .T", "x' * A.T * A * x", {"x": 1, "A": 2}, "x", "signed", lambda v: np.sum((v["A"] @ v["x"]) ** 2)),
    ("smoothed hinge", "sum(log(1 + exp(1 - y .* (X * w + b)))) + lam * w' * w", {**REG, "lam": 0}, "w", "signed",
     lambda v: np.sum(np.log1p(np.exp(1 - v["y"] * (v["X"] @ v["w"] + v["b"])))) + v["lam"] * v["w"] @ v["w"]),
    ("huber regression", "sum(huber(X * w - y))", {"X": 2, "y": 1, "w": 1}, "w", "signed",
     lambda v: np.sum(np.where(np.abs(r := v["X"] @ v["w"] - v["y"]) <= 1, r ** 2, 2 * np.abs(r) - 1))),
    ("sum of reciprocals", "sum(1 ./ x) + sum(x ./ 2)", {"x": 1}, "x", "pos",
     lambda v: np.sum(1 / v["x"] + v["x"] / 2)),
    ("exp of a quadratic form", "exp(-x' * A * x / 4)", {"x": 1, "A": 2}, "x", "signed",
     lambda v: np.exp(-(v["x"] @ v["A"] @ v["x"]) / 4)),
    ("adj(X) .* Y", "sum(adj(X) .* Y)", {"X": 2, "Y": 2}, "X", "signed",
     lambda v: np.sum(np.linalg.det(v["X"]) * np.linalg.inv(v["X"]) * v["Y"])),
    ("mixed with index notation", "x' * A * x + sum(A *(ij,j->i) x)", {"x": 1, "A": 2}, "x", "signed",
     lambda v: v["x"] @ v["A"] @ v["x"] + np.sum(v["A"] @ v["x"])),
    ("geometric mean", "sqrt(s * t)", {"s": 0, "t": 0}, "s", "pos", lambda v: np.sqrt(v["s"] * v["t"])),
    ("x'(A .* B)x", "x' * (A .* B) * x", {"x": 1, "A": 2, "B": 2}, "x", "signed",
     lambda v: v["x"] @ (v["A"] * v["B"]) @ v["x"]),
]


def _values(expr, domain, seed):
    """Distinct lengths for axes the expression does not tie (so a missing transpose
    shows); entries of both signs or positive; square matrices made pd for 'pd'."""
    rng = np.random.default_rng(seed)
    lengths = axis_lengths([expr])
    values = {}
    for name, var in tc.variables(expr).items():
        shape = tuple(lengths[a] for a in var.axes)
        magnitude = rng.uniform(0.5, 1.5, shape)
        values[name] = np.asarray(magnitude * (rng.choice((-1.0, 1.0), shape) if domain == "signed" else 1.0))
        if domain == "pd" and len(shape) == 2 and shape[0] == shape[1]:
            values[name] = values[name] @ values[name].T + shape[0] * np.eye(shape[0])
    return values


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request):
    name, text, orders, wrt, domain, oracle = request.param
    expr = tc.parse_expr(text, orders)
    chain = derivative_chain(expr, tc.variables(expr)[wrt], 2)
    return expr, orders, wrt, chain, _values(expr, domain, seed=len(name)), oracle


def test_there_are_forty_cases_or_more():
    assert len(CASES) >= 40


def test_the_value_is_what_numpy_computes(case):
    expr, orders, wrt, chain, values, oracle = case
    assert expr.order == 0
    assert np.allclose(tc.evaluate(expr, values), oracle(values), rtol=1e-10, atol=1e-12)


def test_first_and_second_derivatives_match_finite_differences(case):
    expr, orders, wrt, chain, values, oracle = case
    result = tc.check_derivative(expr, wrt, 2, seed=1, chain=chain)
    assert result.error < 1e-6, str(result)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_derivatives_printed_in_matrix_notation_read_back(case, k):
    expr, orders, wrt, chain, values, oracle = case
    text = tc.to_text(chain[k], "matrix")
    again = tc.parse_expr(text, orders)
    want = tc.evaluate(chain[k], values)
    lengths = {a: want.shape[p] for p, a in enumerate(again.axes) if not a.var}
    assert again.order == chain[k].order
    assert np.allclose(tc.evaluate(again, values, lengths), want, rtol=1e-10, atol=1e-12), text


@settings(max_examples=examples(40))
@given(data=st.data(), order=st.integers(0, 2), differentiate=st.booleans())
def test_random_expressions_read_back_from_matrix_notation(data, order, differentiate):
    """The expressions of tests/strategies.py (orders 0 to 2, some differentiated):
    parse_expr(to_text(e, 'matrix')) has the values of e."""
    original = tc.parse_expr(data.draw(expressions(order, depth=3)), VARIABLES)
    names = tc.variables(original)
    e = tc.derivative(original, data.draw(st.sampled_from(sorted(names)))) if differentiate and names else original
    assume(all(a.var for n in dag.topo(e) for a in n.axes))
    assume(not _ones_on_an_axis(e))      # a known gap: test_a_ones_tensor_on_a_variables_axis_reads_back
    again = tc.parse_expr(tc.to_text(e, "matrix"), VARIABLES)
    values = sample_values(names, axis_lengths([original, e]), np.random.default_rng(0))
    with np.errstate(all="ignore"):
        want = tc.evaluate(e, values)
        got = tc.evaluate(again, values, {a: want.shape[p] for p, a in enumerate(again.axes) if not a.var})
    assert got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)


def _ones_on_an_axis(e) -> bool:
    """Whether e holds a constant tensor with axes (the ones of a derivative, on a
    variable's axis): its text is a bare number, whose axis the reader cannot recover."""
    return any(isinstance(n, dag.Const) and n.axes for n in dag.topo(e))


@pytest.mark.xfail(strict=True, raises=tc.TensorCalcError, reason=(
    "known gap (found by the random test above under other Hypothesis draws): d/du of an expression "
    "whose u-terms cancel is 2 * (0.5 *(,i->) 1) * u, with a ones tensor on u's axis; the text prints "
    "it as a bare 1, and the expression read back cannot tell that axis's length"))
def test_a_ones_tensor_on_a_variables_axis_reads_back():
    original = tc.parse_expr("(-((u *(i,j->ij) u)) *(pp,q->) ((u + (-0.5)) + -(u)))", VARIABLES)
    e = tc.derivative(original, "u")
    assert _ones_on_an_axis(e)
    again = tc.parse_expr(tc.to_text(e, "matrix"), VARIABLES)
    values = {"u": np.arange(1.0, 4.0)}
    want = tc.evaluate(e, values)
    got = tc.evaluate(again, values, {a: want.shape[p] for p, a in enumerate(again.axes) if not a.var})
    assert np.allclose(got, want)


# ----------------------------------------------------------------------------- the same nodes

SAME = [
    # (matrix notation, index notation): one node, so one derivative and one verdict
    ("x' * A * x", "x *(i,ij->j) A *(j,j->) x"),
    ("A * x", "A *(ij,j->i) x"),
    ("A' * x", "A *(ji,j->i) x"),
    ("x' * A", "x *(i,ij->j) A"),
    ("x * y'", "x *(i,j->ij) y"),
    ("A * B", "A *(ij,jk->ik) B"),
    ("A * B'", "A *(ik,jk->ij) B"),
    ("A'", "A *(ij,->ji) 1"),
    ("A.T", "A *(ij,->ji) 1"),
    ("x .* y", "x *(i,i->i) y"),
    ("x ./ y", "x / y"),
    ("x .^ 2", "x ^ 2"),
    ("2 .* x", "2 * x"),
    ("X * w + b", "X *(ij,j->i) w + b *(,i->i) 1"),
    ("b + X * w", "b *(,i->i) 1 + X *(ij,j->i) w"),
    ("sqrt(w .^ 2 + s)", "sqrt(w^2 + s *(,i->i) 1)"),
    ("r / s", "r / (s *(,i->i) 1)"),
    ("A - s", "A - s *(,ij->ij) 1"),
    ("tr(A)", "A *(ii,->) 1"),
    ("trace(A)", "A *(ii,->) 1"),
    ("diag(A)", "A *(ii,->i) 1"),
    ("diag(x)", "x *(i,ij->ij) delta(1)"),
    ("sum(A, 0)", "A *(ij,->j) 1"),
    ("sum(A, 1)", "A *(ij,->i) 1"),
    ("A + eye", "A + delta(1)"),
    ("A * ones", "A *(ij,j->i) 1"),
    ("logdet(A)", "log(det(A))"),
    ("log_det(A)", "log(det(A))"),
    ("log_sum_exp(x)", "log(sum(exp(x)))"),
    ("logsumexp(x)", "log(sum(exp(x)))"),
    ("softplus(x)", "log(1 + exp(x))"),
    ("logistic(x)", "log(1 + exp(x))"),
    ("entr(x)", "-(x *(i,i->i) log(x))"),
    ("kl_div(x, y)", "x *(i,i->i) log(x / y) - x + y"),
    ("quad_form(x, A)", "x *(i,ij->j) A *(j,j->) x"),
    ("quad_over_lin(x, s)", "sum(x ^ 2) / s"),
    ("norm2(x)", "sqrt(sum(x ^ 2))"),
    ("norm1(x)", "sum(abs(x))"),
    ("square(x)", "x ^ 2"),
    ("x ** 2", "x ^ 2"),
    ("x' * y", "x *(i,i->) y"),
    ("let t = x' * y\nt * t + t", "(x *(i,i->) y) * (x *(i,i->) y) + x *(i,i->) y"),
]
ORDERS = {"x": 1, "y": 1, "w": 1, "r": 1, "b": 0, "s": 0, "A": 2, "B": 2, "X": 2}


@pytest.mark.parametrize("matrix, index", SAME)
def test_matrix_notation_is_sugar_for_the_index_notation(matrix, index):
    e = tc.parse_expr(matrix, ORDERS)
    assert e is tc.parse_expr(index, ORDERS)
    assert {type(n) for n in dag.topo(e)} <= set(dag.NODE_TYPES)


def test_delta_is_a_name_where_it_cannot_be_confused():
    e = tc.parse_expr("delta' * A * delta + sum(A .* delta(1))", {"delta": 1, "A": 2})
    assert "delta" in tc.variables(e)
    inp = tc.parse("declare delta 1 expression delta' * delta derivative wrt delta")
    assert tc.evaluate(inp.derivative(), {"delta": np.array([1.0, 2.0])}).tolist() == [2.0, 4.0]


def test_eye_and_ones_are_names_when_declared():
    e = tc.parse_expr("sum(eye .* ones)", {"eye": 2, "ones": 2})
    assert set(tc.variables(e)) == {"eye", "ones"}


def test_lets_name_shared_parts_once():
    e = tc.parse_expr("let s = exp(x)\nlet t = 1 + s\nsum(s ./ t) + sum(t)", {"x": 1})
    text = "sum(exp(x) ./ (1 + exp(x))) + sum(1 + exp(x))"
    assert e is tc.parse_expr(text, {"x": 1})


# ----------------------------------------------------------------------------- errors

ERRORS = [
    # (text, orders, message pattern, line, column)
    ("x * y", {"x": 1, "y": 1}, r"cannot multiply x \(a column vector\) by y \(a column vector\): two column "
     r"vectors do not multiply; did you mean x' \* y \(or x \* y', the outer product\)\?", 1, 3),
    ("x * A", {"x": 1, "A": 2}, r"did you mean x' \* A\?", 1, 3),
    ("A * x'", {"x": 1, "A": 2},
     r"a row vector does not multiply a matrix from the right; did you mean A \* x\?", 1, 3),
    ("x' * y'", {"x": 1, "y": 1}, r"two row vectors do not multiply; did you mean x' \* y\?", 1, 4),
    ("(x + y) * A", {"x": 1, "y": 1, "A": 2}, r"did you mean \(x \+ y\)' \* A\?", 1, 9),
    ("sum(exp(x) * A)", {"x": 1, "A": 2}, r"did you mean exp\(x\)' \* A\?", 1, 12),
    ("x * T", {"x": 1, "T": 3}, r"for operands of orders 1 and 3 write an index product", 1, 3),
    ("x' + y", {"x": 1, "y": 1}, r"cannot add x' \(a row vector\) and y \(a column vector\): transpose one", 1, 4),
    ("x + A", {"x": 1, "A": 2}, r"cannot add tensors of order 1 and 2; only a scalar spreads", 1, 3),
    ("T'", {"T": 3}, r"' transposes a vector or a matrix; this operand has order 3", 1, 2),
    ("tr(x)", {"x": 1}, r"tr applies to a matrix \(order 2\); its argument has order 1", 1, 1),
    ("diag(s)", {"s": 0}, r"diag takes a vector .* or a square matrix", 1, 1),
    ("sum(A, 2)", {"A": 2}, r"the axis of sum\(e, axis\) is a whole number from 0 to 1", 1, 8),
    ("sum(s, 0)", {"s": 0}, r"sums one axis of a vector, matrix or tensor", 1, 1),
    ("kl_div(x)", {"x": 1}, r"kl_div takes two arguments: kl_div\(x, y\); got 1", 1, 1),
    ("exp(x, x)", {"x": 1}, r"exp takes one argument: exp\(x\); got 2", 1, 1),
    ("vector(x)", {"x": 1}, r"vector\(c\) fills a vector with the scalar c", 1, 1),
    ("x[1]", {"x": 1}, r"x\[\.\.\.\] picks entries of axis 0 of 'x', which has a length not known here", 1, 1),
    ("let x = 1\nx", {"x": 0}, r"let x: 'x' is already declared", 1, 5),
    ("let t = 1\nlet t = 2\nt", {}, r"let t: 't' is already a let name", 2, 5),
    ("let t = u\nlet u = 1\nt", {}, r"undeclared variable 'u'", 1, 9),
    ("let t = 1\n", {}, r"unexpected end of input", 1, 10),
    ("x'' * y", {"x": 1, "y": 1}, r"two column vectors do not multiply; did you mean x' \* y", 1, 5),
    ("x .* 'y", {"x": 1, "y": 1}, r"unexpected \"'\"", 1, 6),
]


@pytest.mark.parametrize("text, orders, pattern, line, column", ERRORS)
def test_errors_name_the_operands_their_shapes_and_the_fix(text, orders, pattern, line, column):
    with pytest.raises(tc.ParseError, match=pattern) as info:
        tc.parse_expr(text, orders)
    err = info.value
    assert (err.line, err.column) == (line, column), str(err)
    assert str(err).count("line ") == 1 and str(err).startswith(f"line {line}, column {column}: ")
    shown, marker = str(err).splitlines()[-2:]
    assert marker.strip() == "^"
    source = text.split("\n")[line - 1] + " "
    assert (shown + " ")[marker.index("^")] == source[column - 1]


def test_deep_matrix_products_parse_without_recursion():
    e = tc.parse_expr("x' * " + "A * " * 3000 + "x", {"x": 1, "A": 2})
    assert e.order == 0 and tc.count_nodes(e) == 3003
    e = tc.parse_expr("x" + "'" * 5001 + " * x", {"x": 1})
    assert e is tc.parse_expr("x' * x", {"x": 1})


# ----------------------------------------------------------------------------- the documentation

def _documented_examples():
    """The rows of the MatrixCalculus.org table of docs/problem-format.md."""
    text = (ROOT / "docs" / "problem-format.md").read_text()
    table = text.split("<!-- matrixcalculus-examples -->")[1].split("<!-- /matrixcalculus-examples -->")[0]
    rows = [[c.strip().strip("`") for c in line.strip("|").split("|")] for line in table.strip().splitlines()[2:]]
    return [(theirs, ours, [d.strip().strip("`") for d in decls.split("`, `")]) for theirs, ours, decls in rows]


@pytest.mark.parametrize("theirs, ours, decls", _documented_examples())
def test_matrixcalculus_examples_read_as_documented(theirs, ours, decls):
    """Their spelling and ours are one expression; it differentiates correctly in every
    variable the row declares."""
    found = [re.fullmatch(r"(variable|parameter) (\w+)(?:\[(.*)\])?( \w+)?", d) for d in decls]
    orders = {m[2]: len(m[3].split(",")) if m[3] else 0 for m in found}
    e = tc.parse_expr(ours, orders)
    assert tc.parse_expr(theirs, orders) is e
    for m in found:
        if m[1] == "variable":
            assert tc.check_derivative(e, m[2], 1, seed=2).error < 1e-6
    if e.order == 0:                                 # a problem file reads it too
        p = convexcheck.load_problem("\n".join(decls) + f"\nexpression {ours}\n")
        assert p.objective.expr is tc.parse_expr(ours, orders)


@settings(max_examples=examples(150), deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(case=st.sampled_from(CASES).flatmap(lambda c: mutated([c[1]]).map(lambda text: (text, c[2]))))
def test_mutated_matrix_notation_is_read_or_refused_with_one_place(case):
    """Hostile edits of the cases (tests/fuzz.py's mutations: transposes, brackets, huge
    numbers, unicode, ...) parse, or raise a ParseError located once, with its caret."""
    text, orders = case
    try:
        tc.parse_expr(text, orders)
    except tc.ParseError as err:
        message = str(err)
        if err.line:
            assert len(re.findall(r"line \d+, column \d+", message)) == 1, message
            assert message.splitlines()[-1].strip() == "^", message
    except tc.TensorCalcError:
        pass
