"""Printing in the language and the round trip (issue 2, item 6)."""
import pytest
from test_thesis_examples import VALID

import tensorcalc as tc
from tensorcalc import dag


@pytest.mark.parametrize("line", VALID)
def test_thesis_examples_and_their_derivatives_round_trip(line):
    inp = tc.parse(line)
    assert tc.parse_expr(str(inp.expr), inp.orders) is inp.expr
    for order in (1, 2):
        d = tc.derivative(inp.expr, inp.declared[inp.wrt], order, simplify=False)
        again = tc.parse_expr(str(d), inp.orders)
        assert tc.same_structure(again, d)
        assert str(again) == str(d)


@pytest.mark.parametrize("text, printed", [
    ("a - b", "a - b"),
    ("a / b", "a / b"),
    ("1 / b", "1 / b"),
    ("a - 2", "a - 2"),
    ("a + -2", "a - 2"),
    ("-a", "-(a)"),
    ("(-a) ^ 2", "(-(a)) ^ 2"),
    ("-a ^ 2", "-(a ^ 2)"),
    ("a ^ -1", "a ^ (-1)"),
    ("a ^ b ^ 2", "a ^ (b ^ 2)"),
    ("2.5e-3 * (,->) a", "0.0025 *(,->) a"),
    ("sin(a + b)", "sin(a + b)"),
    ("delta(0) + a", "delta(0) + a"),
])
def test_printed_forms(text, printed):
    orders = {"a": 0, "b": 0}
    e = tc.parse_expr(text, orders)
    assert str(e) == printed
    assert tc.parse_expr(printed, orders) is e


def test_whitespace_and_comments_do_not_matter():
    one_line = "declare x 1 A 2 expression x*(i,ij->j)A*(j,j->)x derivative wrt x"
    spread = """
        # the quadratic form x^T A x
        declare
            x 1   # a vector
            A 2
        expression
            x * ( i , i j -> j ) A
              * ( j , j -> ) x
        derivative   wrt   x
    """
    a, b = tc.parse(one_line), tc.parse(spread)
    assert a.expr is b.expr and a.wrt == b.wrt == "x" and a.orders == b.orders == {"x": 1, "A": 2}


def test_numbers_in_all_notations():
    for text, value in [("3", 3.0), ("3.", 3.0), ("0.25", 0.25), (".5", 0.5), ("1e3", 1000.0),
                        ("2.5E-2", 0.025), ("1e+2", 100.0)]:
        e = tc.parse_expr(text, {})
        assert isinstance(e, dag.Const) and e.value == value


def test_printing_a_huge_shared_dag_is_refused_clearly():
    e = tc.parse_expr("x", {"x": 0})
    for _ in range(40):
        e = dag.add(e, e)                    # 41 nodes, 2^40 leaves as text
    assert tc.count_nodes(e) == 41
    with pytest.raises(tc.TensorCalcError, match="prints to .* characters"):
        str(e)
    assert "characters" in repr(e)


def test_repr_is_short():
    e = tc.parse_expr("sin(x) + 1", {"x": 1})
    assert repr(e) == "<Sum order=1: sin(x) + 1>"


@pytest.mark.parametrize("text, printed, same_node", [
    ("a - b", "a - b", True),
    ("a + -2", "a - 2", True),
    ("-a", "-a", True),
    ("(-a) ^ 2", "(-a) ^ 2", True),
    ("-a ^ 2", "-(a ^ 2)", True),
    ("a ^ -1", "a ^ (-1)", True),
    ("a ^ b ^ 2", "a ^ (b ^ 2)", True),
    ("a - (b - c)", "a - (b - c)", True),
    ("(a / b) / c", "a / b / c", True),
    ("a / (b * c)", "a / (b * c)", True),
    ("a ^ 0.5", "sqrt(a)", True),
    ("a * (b * c)", "a * b * c", False),       # products are associative: equal values
    ("a * -b", "-(a * b)", False),
    ("a - -b", "a + b", False),
])
def test_matrix_notation_of_scalars_reads_back(text, printed, same_node):
    """Scalar text is the same in both notations, so today's parser reads it back."""
    orders = {"a": 0, "b": 0, "c": 0}
    e = tc.parse_expr(text, orders)
    assert tc.to_text(e, "matrix") == printed
    again = tc.parse_expr(printed, orders)
    values = {"a": 1.5, "b": -0.75, "c": 2.25}
    assert (again is e) == same_node and tc.evaluate(again, values) == pytest.approx(tc.evaluate(e, values))
