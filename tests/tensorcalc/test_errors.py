"""Bad input gets one documented exception type with line, column and caret (issue 2, item 3)."""
import numpy as np
import pytest

import tensorcalc as tc

CASES = [
    # (input, message pattern, line, column)
    ("declare x 1 expression foo(x)", r"unknown function 'foo'", 1, 24),
    ("declare x 1 expression x + $", r"unexpected character '\$'", 1, 28),
    ("declare x 1 expression y + x", r"undeclared variable 'y' \(declared: x\)", 1, 24),
    ("declare x 1 expression sin + x", r"'sin' is a function: write sin\(\.\.\.\)", 1, 24),
    ("declare x 1 expression (x + 1", r"unbalanced brackets: this '\(' is never closed", 1, 24),
    ("declare x 1 expression x + 1)", r"unbalanced brackets: this '\)' closes no '\('", 1, 29),
    ("declare x 1 expression sin(x", r"unbalanced brackets", 1, 27),
    ("declare x 1 expression x *(i,i->k) x", r"output index 'k' of \*\(i,i->k\) appears in neither input", 1, 26),
    ("declare x 1 expression x *(ij,i->) x",
     r"left index string 'ij' of \*\(ij,i->\) has 2 letter\(s\) but the left operand has order 1", 1, 26),
    ("declare x 1 A 2 expression x *(i,i->) A", r"right index string 'i' .* right operand has order 2", 1, 30),
    ("declare x 1 expression x *(i,i->ii) x", r"output index 'i' of \*\(i,i->ii\) appears twice", 1, 26),
    ("declare x 1 expression x *(i1,i->) x", r"index string 'i1' may contain only letters", 1, 28),
    ("declare x 1 expression det(x)", r"det applies to a matrix \(order 2\); its argument has order 1", 1, 24),
    ("declare T 3 expression inv(T)", r"inv applies to a matrix \(order 2\); its argument has order 3", 1, 24),
    ("declare x 1 expression x ^ x", r"the exponent of \^ must be a scalar \(order 0\); it has order 1", 1, 26),
    ("declare x 1 x 2 expression x", r"'x' is declared twice", 1, 13),
    ("declare x 1 expression x derivative wrt z", r"derivative wrt 'z': 'z' is not declared \(declared: x\)", 1, 41),
    ("declare x -1 expression x", r"unexpected '-'; expected a number \(the order of the declared tensor", 1, 11),
    ("declare x 33 expression x", r"the order of 'x' must be a whole number from 0 to 32, found 33", 1, 11),
    ("declare x 1.5 expression x", r"the order of 'x' must be a whole number, found 1.5", 1, 11),
    ("declare sin 1 expression sin", r"'sin' is reserved", 1, 9),
    ("declare x 1 y 2 expression x + y", r"cannot add tensors of order 1 and 2", 1, 30),
    ("declare x 1 y 2 expression x / y", r"cannot divide element-wise tensors of order 1 and 2", 1, 30),
    ("declare x 1 expression x(x)", r"'x' is a variable, not a function", 1, 24),
    ("declare x 1 expression delta(x)", r"delta\(n\) takes a whole number n", 1, 30),
    ("declare x 1 expression 1e999 + x", r"number 1e999 is too large for float64", 1, 24),
    ("declare x 1 expression", r"unexpected end of input; expected '\(', '-', a name or a number", 1, 23),
    ("declare x 1 expression x +", r"unexpected end of input", 1, 27),
    ("declare x 1 expression x x", r"unexpected 'x'; expected", 1, 26),
    ("x + 1", r"an input starts with 'declare'", 1, 1),
]


@pytest.mark.parametrize("text, pattern, line, column", CASES)
def test_error_names_place_and_problem(text, pattern, line, column):
    with pytest.raises(tc.ParseError, match=pattern) as info:
        tc.parse(text)
    err = info.value
    assert (err.line, err.column) == (line, column), str(err)
    assert str(err).startswith(f"line {line}, column {column}: ")
    shown, marker = str(err).splitlines()[-2:]
    assert marker.strip() == "^"
    source = text.splitlines()[line - 1] + " "   # the caret may stand just past the end
    assert (shown + " ")[marker.index("^")] == source[column - 1]


@pytest.mark.parametrize("text", ["", "   \n  ", "# only a comment\n"])
def test_empty_input(text):
    with pytest.raises(tc.ParseError, match="empty input"):
        tc.parse(text)


def test_multiline_error_points_at_the_right_line():
    text = "# a comment\ndeclare x 1\nexpression\n  x *(ij,j->) x  # bad\n"
    with pytest.raises(tc.ParseError) as info:
        tc.parse(text)
    assert (info.value.line, info.value.column) == (4, 5)
    assert "x *(ij,j->) x" in str(info.value)


def test_all_errors_are_tensorcalc_errors_and_value_errors():
    assert issubclass(tc.ParseError, tc.TensorCalcError)
    assert issubclass(tc.ShapeError, tc.TensorCalcError)
    assert issubclass(tc.TensorCalcError, ValueError)


def test_parse_expr_rejects_bad_orders_and_names():
    with pytest.raises(tc.TensorCalcError, match="order of 'x' must be a whole number from 0 to 32"):
        tc.parse_expr("x", {"x": -1})
    with pytest.raises(tc.TensorCalcError, match="not a valid variable name"):
        tc.parse_expr("x", {"x; import os": 1})
    with pytest.raises(tc.TensorCalcError, match="parse_expr takes a bare expression"):
        tc.parse_expr("declare x 1 expression x", {"x": 1})


def test_deeply_nested_brackets_are_handled():
    text = "declare x 1 expression " + "(" * 10_000 + "x" + ")" * 10_000 + " derivative wrt x"
    inp = tc.parse(text)
    assert inp.expr is inp.declared["x"]


def test_deeply_nested_functions_differentiate_without_recursion_error():
    text = "declare x 1 expression " + "sin(" * 10_000 + "x" + ")" * 10_000 + " derivative wrt x"
    inp = tc.parse(text)
    d = inp.derivative()
    value = tc.evaluate(d, {"x": np.full(2, 0.3)})
    assert value.shape == (2, 2)
    assert len(str(inp.expr)) > 40_000


def test_deeply_nested_unbalanced_is_rejected():
    with pytest.raises(tc.ParseError, match="unbalanced"):
        tc.parse("declare x 1 expression " + "(" * 10_000 + "x" + ")" * 9_999)


@pytest.mark.slow
def test_one_megabyte_input_is_handled_slow():
    text = "declare x 1 expression x" + " + x *(i,i->i) x" * 65_000
    assert len(text) > 1_000_000
    inp = tc.parse(text)
    assert tc.count_nodes(inp.expr) <= 3 * 65_000 + 5


def test_parsing_work_grows_linearly():
    """Python calls (counted, not timed) at 1,000 and 2,000 terms."""
    from workcount import python_calls
    work = [python_calls(tc.parse, "declare x 1 expression x" + " + x *(i,i->i) x" * n)[1] for n in (1000, 2000)]
    assert work[1] <= 2.2 * work[0], work


def test_many_free_axes_are_numbered_in_linear_time():
    from workcount import python_calls
    work = []
    for n in (1000, 2000):
        e, calls = python_calls(lambda: tc.parse("declare x 0 expression x" + " + 1 *(i,->) 1" * n).expr)
        assert tc.count_nodes(e) > n
        work.append(calls)
    assert work[1] <= 2.2 * work[0], work


def test_oversized_input_is_rejected_quickly():
    with pytest.raises(tc.ParseError, match="at most"):
        tc.parse("x" * 9_000_000)


def test_hostile_text_is_never_executed():
    with pytest.raises(tc.ParseError):
        tc.parse("declare x 1 expression __import__('os').system('echo pwned')")
