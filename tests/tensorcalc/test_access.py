"""Constant indices and slices outside define statements (`x[0]`, `X[:, 1]`, `x[1:5:2]`):
values against NumPy's own indexing of the same subscripts (a property over random
shapes and subscripts), derivatives against finite differences, verdicts against the
mathematical truth, a solve against CVXPY, and errors that name the place and the fix."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convexcheck
import solvers
import tensorcalc as tc
from convexcheck import ProblemError

ORDERS = {1: "x", 2: "X", 3: "T"}


def _subscript_text(part) -> str:
    if isinstance(part, int):
        return str(part)
    text = "" if part.start is None else str(part.start)
    text += ":" + ("" if part.stop is None else str(part.stop))
    return text + ("" if part.step is None else f":{part.step}")


@st.composite
def accesses(draw):
    """(shape, subscripts as text, the NumPy index) of a random access."""
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    parts = []
    for n in shape[:draw(st.integers(1, len(shape)))]:
        if draw(st.booleans()):
            parts.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.none() | st.integers(-n - 2, n + 2)
            parts.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, 3, -1, -2]))))
    return shape, ", ".join(map(_subscript_text, parts)), tuple(parts)


@settings(max_examples=150, deadline=None)
@given(accesses(), st.integers(0, 2**31 - 1))
def test_an_access_reads_what_numpy_reads(access, seed):
    shape, subscripts, index = access
    name = ORDERS[len(shape)]
    value = np.random.default_rng(seed).standard_normal(shape)
    expected = value[index]
    text = f"{name}[{subscripts}]"
    if expected.size == 0:
        with pytest.raises(tc.ParseError, match="selects no entries"):
            tc.parse_expr(text, {name: len(shape)}, {name: shape})
        return
    got = tc.evaluate(tc.parse_expr(text, {name: len(shape)}, {name: shape}), {name: value})
    assert np.shape(got) == expected.shape, text
    assert np.array_equal(got, expected), text


@pytest.mark.parametrize("text, wrt", [
    ("x[0] * x[2] + exp(x[1]) * x[-1]", "x"),
    ("sum(log(1 + exp(X[:, 1] .* X[:, 0]))) + X[2, 2]^3", "X"),
    ("sum(X[1:3, ::2] .^ 2) * X[0, 1] + sum(X[::-1, 0] .* X[:, 2])", "X"),
    ("x[1:] ' * A * x[:3]", "x"),
])
def test_derivatives_through_accesses_match_finite_differences(text, wrt):
    expr = tc.parse_expr(text, {"x": 1, "X": 2, "A": 2}, {"x": (4,), "X": (4, 3), "A": (3, 3)})
    result = tc.check_derivative(expr, wrt, 2, seed=3)
    assert result.error < 1e-6, str(result)


# (text, convex truth, concave truth): None where not asserted
VERDICTS = [
    ("variable x[3]\nminimize x[0] * x[1]", False, False),
    ("variable x[3]\nminimize x[0]^2 + x[-1]^2", True, False),
    ("variable x[5]\nminimize sum(x[1:4] .^ 2) + exp(x[0])", True, False),
    ("variable x[5]\nminimize sum(x[1:4] .^ 2) - x[2]^2 - x[3]^2", None, False),   # x[1]^2: not seen
    ("variable x[5]\nminimize sum(x[1:4] .^ 2) - 2 * x[2]^2", False, False),
    ("parameter A[m, 3]\nvariable X[m, 3]\nminimize sum((X[:, 0] - A[:, 1]) .^ 2)", True, False),
    ("variable X[3, n]\nminimize -log(sum(X[0, :])) + sum(X .^ 2)", True, False),
    ("variable x[6]\nminimize sum(exp(x[::2])) - sum(x[1::2])", True, False),
    ("variable x[2]\nmaximize log(x[0]) + log(x[1] - x[0])", False, True),
    ("variable X[2, 2] pd\nminimize X[0, 1]^2 - log(det(X))", True, False),
    ("variable x[3]\nminimize (x[0] - x[1])^2 + (x[1] - x[2])^2", True, False),
    ("variable x[3]\nminimize x[0]^2 - x[1]^2", False, False),
    ("variable x[4]\nminimize x[0:2]' * x[2:4]", False, False),
    ("variable x[2] pos\nminimize x[0]^2 / x[1]", True, False),
]


@pytest.mark.parametrize("text, convex, concave", VERDICTS)
def test_verdicts_through_accesses_are_sound(text, convex, concave):
    report = convexcheck.analyze(text, samples=10)
    for side, truth in (("convex", convex), ("concave", concave)):
        status = getattr(report.objective, side).status
        if truth is False:
            assert status != "proven", (text, side)
        if truth is True:
            assert status == "proven", (text, side, status)


def test_a_problem_with_entry_constraints_solves_as_cvxpy_does():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(0)
    A, b = rng.standard_normal((8, 4)), rng.standard_normal(8)
    text = ("parameter A[8, 4]\nparameter b[8]\nvariable x[4]\nminimize sum((A * x - b) .^ 2) + x[0]^2\n"
            "subject to\n  x[0] + x[1] >= 1\n  x[1:3] <= 0.25\n  x[-1] == 0.5")
    ours = solvers.minimize(text, data={"A": A, "b": b})
    x = cp.Variable(4)
    ref = cp.Problem(cp.Minimize(cp.sum_squares(A @ x - b) + cp.square(x[0])),
                     [x[0] + x[1] >= 1, x[1:3] <= 0.25, x[3] == 0.5])
    ref.solve(solver=cp.CLARABEL)
    assert ours.success and ours.constr_violation <= 1e-8
    assert abs(ours.fun - ref.value) <= 1e-6 * max(1.0, abs(ref.value))
    assert np.allclose(ours.x["x"], x.value, atol=1e-5)


@pytest.mark.parametrize("text, line, column, message", [
    ("variable x[n]\nminimize x[0]^2", 2, 10, "which has length n, not a number: declare 'x' with numbers"),
    ("variable x[3]\nminimize x[i]", 2, 12, "to index by a letter, write a define statement"),
    ("variable x[3]\nminimize x[1.5]", 2, 12, "is a whole number (x[0], x[-1]) or a slice"),
    ("variable x[3]\nminimize x[-4]", 2, 12, "index -4 is out of range for axis 0 of 'x' (length 3): use 0 to 2"),
    ("variable x[3]\nminimize x[0, 1]", 2, 10, "x[...] has 2 subscripts but 'x' has order 1"),
    ("variable x[3]\nminimize sum(x[::0])", 2, 18, "a slice's step cannot be 0"),
    ("variable x[3]\nminimize sum(x[2:1])", 2, 14, "selects no entries of axis 0 of 'x' (length 3)"),
    ("variable x[3]\nminimize y[0]", 2, 10, "y[...] indexes a declared variable or parameter, and 'y' is not one"),
    ("variable x[3]\nminimize sum(x[:2] + x)", 2, 20, "cannot add x[:2] (a column vector of length 2) and x"),
    ("variable x[3]\nminimize x[]", 2, 12, "unexpected ']'"),
    ("variable x[3]\nminimize x[0:1:2:3]", 2, 17, "unexpected ':'"),
    ("variable x[3]\nminimize x[" + "9" * 40 + "]", 2, 12, "is a whole number"),
])
def test_bad_accesses_are_refused_at_their_place(text, line, column, message):
    with pytest.raises(ProblemError) as err:
        convexcheck.load_problem(text)
    assert message in str(err.value)
    assert (err.value.line, err.value.column) == (line, column)


def test_max_and_min_read_every_entry_as_numpy_does():
    rng = np.random.default_rng(4)
    env = {"x": rng.standard_normal(5), "A": rng.standard_normal((2, 3)), "s": np.float64(-0.3)}
    shapes = {"x": (5,), "A": (2, 3), "s": ()}
    for text, want in (("max(x)", env["x"].max()), ("min(A)", env["A"].min()), ("max(s)", -0.3),
                       ("max(abs(x)) - min(A .^ 2)", np.abs(env["x"]).max() - (env["A"] ** 2).min())):
        assert tc.evaluate(tc.parse_expr(text, {"x": 1, "A": 2, "s": 0}, shapes), env) == pytest.approx(want)


@pytest.mark.parametrize("text, convex, concave", [
    ("variable x[4]\nminimize max(x .^ 2) + max(exp(x))", "proven", "disproved"),
    ("variable x[4]\nmaximize min(log(x + 10))", "disproved", "proven"),
    ("parameter A[5, 3]\nparameter b[5]\nvariable x[3]\nminimize max(abs(A * x - b))", "proven", None),
    ("variable x[4]\nminimize max(-x .^ 2)", "disproved", None),
    ("variable x[4]\nminimize min(x .^ 2)", "not proven", None),    # its kinks hide from sampling
])
def test_max_and_min_get_the_verdicts_of_their_operands(text, convex, concave):
    report = convexcheck.analyze(text, samples=10)
    if convex == "not proven":
        assert report.objective.convex.status != "proven"
    else:
        assert report.objective.convex.status == convex
    if concave is not None:
        assert report.objective.concave.status == concave


def test_max_of_unknown_or_many_lengths_is_refused_with_the_fix():
    for text in ("variable x[n]\nminimize max(x)", "variable x[40]\nminimize max(x)"):
        with pytest.raises(ProblemError, match=r"max\(x\) reads every entry of x, so its lengths must be numbers "
                                               r"with at most 32 entries in all.*log_sum_exp"):
            convexcheck.load_problem(text)
