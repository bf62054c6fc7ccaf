"""Sugar (sum, sqrt, plain *) lowers to existing nodes: same DAG as the core spelling."""
from importlib.resources import files

import numpy as np
import pytest

import tensorcalc as tc
from tensorcalc import dag

ORDERS = {"x": 1, "y": 1, "A": 2, "s": 0, "t": 0}

SAME = [
    # (sugar, core language)
    ("sum(x)", "x *(i,->) 1"),
    ("sum(A)", "A *(ij,->) 1"),
    ("sum(s)", "s"),
    ("sum(2)", "2"),
    ("sqrt(x)", "x ^ 0.5"),
    ("sqrt(s + 1)", "(s + 1) ^ 0.5"),
    ("2 * x", "2 *(,i->i) x"),
    ("x * 2", "2 *(,i->i) x"),
    ("s * A", "s *(,ij->ij) A"),
    ("A * s", "s *(,ij->ij) A"),
    ("s * t", "s *(,->) t"),
    ("2 * (x + 1)", "2 *(,i->i) (x + 1)"),
    ("-2 * x", "-2 *(,i->i) x"),
    ("2 * 3 * x", "(2 *(,->) 3) *(,i->i) x"),
    ("x + 2 * 3", "x + (2 *(,i->i) 3)"),
    ("sum(x * 2)", "(2 *(,i->i) x) *(i,->) 1"),
    ("sum((A *(ij,j->i) x - y)^2) + s * sum(x^2)",
     "(((A *(ij,j->i) x) - y) ^ 2) *(i,->) 1 + s *(,->) ((x ^ 2) *(i,->) 1)"),
]


@pytest.mark.parametrize("sugar, core", SAME)
def test_sugar_lowers_to_the_core_node(sugar, core):
    assert tc.parse_expr(sugar, ORDERS) is tc.parse_expr(core, ORDERS)


@pytest.mark.parametrize("sugar, core", SAME)
def test_printed_sugar_reads_back(sugar, core):
    e = tc.parse_expr(sugar, ORDERS)
    assert tc.parse_expr(tc.to_text(e), ORDERS) is e


def test_sugar_makes_no_new_node_types():
    e = tc.parse_expr("sum(sqrt(x * 2)) * s", ORDERS)
    assert {type(n) for n in dag.topo(e)} <= set(dag.NODE_TYPES)


@pytest.mark.parametrize("text", ["x *(i,i->) y", "x * (i, i -> ) y", "x *(i, j -> i j) y", "s *(,->) t"])
def test_index_products_stay_products(text):
    e = tc.parse_expr(text, ORDERS)
    assert isinstance(e, dag.Product)


def test_sugar_evaluates_like_numpy():
    rng = np.random.default_rng(0)
    env = {"x": rng.uniform(0.5, 2, 3), "y": rng.normal(size=3), "A": rng.normal(size=(3, 3)),
           "s": np.float64(0.7), "t": np.float64(1.3)}
    e = tc.parse_expr("sum((A *(ij,j->i) x - y)^2) + s * sum(sqrt(x)) + 2 * t", ORDERS)
    want = np.sum((env["A"] @ env["x"] - env["y"]) ** 2) + 0.7 * np.sum(np.sqrt(env["x"])) + 2.6
    assert np.isclose(tc.evaluate(e, env), want)


def test_sugar_differentiates():
    inp = tc.parse("declare x 1 expression sum(x^2) * 3 derivative wrt x")
    g = tc.evaluate(inp.derivative(), {"x": np.array([1.0, -2.0])})
    assert np.allclose(g, [6.0, -12.0])


def test_star_between_tensors_is_the_matrix_product_or_names_the_fix():
    # issue 15: between vectors and matrices * is the matrix product; operands that do
    # not fit are named with their shapes and the likely missing transpose
    assert tc.parse("declare x 1 A 2 expression x' * A").expr is tc.parse_expr("x *(i,ij->j) A", ORDERS)
    with pytest.raises(tc.ParseError, match=r"cannot multiply x \(a column vector\) by A \(a matrix\): "
                                            r".*did you mean x' \* A\?") as info:
        tc.parse("declare x 1 A 2 expression x * A")
    assert (info.value.line, info.value.column) == (1, 30)
    with pytest.raises(tc.ParseError, match=r"for operands of orders 1 and 3 write an index product"):
        tc.parse("declare x 1 T 3 expression x * T")


@pytest.mark.parametrize("name", ["sum", "sqrt"])
def test_sugar_names_are_reserved(name):
    with pytest.raises(tc.ParseError, match=f"'{name}' is reserved"):
        tc.parse(f"declare {name} 1 expression {name}")
    with pytest.raises(tc.ParseError, match=f"'{name}' is a function"):
        tc.parse_expr(f"{name} + 1", {})


def test_grammar_has_no_lalr_conflicts():
    lalr = pytest.importorskip("lark.parsers.lalr_analysis")
    from lark.common import ParserConf
    from lark.load_grammar import load_grammar
    text = files("tensorcalc").joinpath("grammar.lark").read_text()
    grammar, _ = load_grammar(text, "grammar.lark", [], False)
    _, rules, _ = grammar.compile(["start"], set())
    lalr.LALR_Analyzer(ParserConf(rules, None, ["start"]), strict=True).compute_lalr()
