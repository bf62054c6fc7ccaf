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
    text = files("tensorcalc.language").joinpath("grammar.lark").read_text()
    grammar, _ = load_grammar(text, "grammar.lark", [], False)
    _, rules, _ = grammar.compile(["start"], set())
    lalr.LALR_Analyzer(ParserConf(rules, None, ["start"]), strict=True).compute_lalr()


# CVXPY's names: (call, core spelling, NumPy meaning as CVXPY defines the atom) on
# x, y positive vectors, A a matrix, P pd
CVXPY_NAMES = [
    ("sum_squares(y)", "sum(y .^ 2)", lambda v: np.sum(v["y"] ** 2)),
    ("norm(y)", "sqrt(sum(y .^ 2))", lambda v: np.linalg.norm(v["y"])),
    ("sum(maximum(x, y))", "sum(y + relu(x - y))", lambda v: np.sum(np.maximum(v["x"], v["y"]))),
    ("sum(minimum(x, y))", "sum(-(-y + relu(-x - -y)))", lambda v: np.sum(np.minimum(v["x"], v["y"]))),
    ("sum(maximum(y, 0))", "sum(0 + relu(y - 0))", lambda v: np.sum(np.maximum(v["y"], 0))),
    ("sum(pos(y))", "sum(relu(y))", lambda v: np.sum(np.maximum(v["y"], 0))),
    ("sum(inv_pos(x))", "sum(1 ./ x)", lambda v: np.sum(1 / v["x"])),
    ("sum(power(x, 1.5))", "sum(x .^ 1.5)", lambda v: np.sum(v["x"] ** 1.5)),
    ("sum(log1p(x))", "sum(log(1 + x))", lambda v: np.sum(np.log1p(v["x"]))),
    ("sum(xexp(y))", "sum(y .* exp(y))", lambda v: np.sum(v["y"] * np.exp(v["y"]))),
    ("sum(rel_entr(x, x + 1))", "sum(x .* log(x ./ (x + 1)))",
     lambda v: np.sum(v["x"] * np.log(v["x"] / (v["x"] + 1)))),
    ("sum(multiply(x, y))", "sum(x .* y)", lambda v: v["x"] @ v["y"]),
    ("matrix_frac(y, P)", "y' * inv(P) * y", lambda v: v["y"] @ np.linalg.solve(v["P"], v["y"])),
    ("tr_inv(P)", "tr(inv(P))", lambda v: np.trace(np.linalg.inv(v["P"]))),
    ("norm_inf(y)", "max(abs(y))", lambda v: np.abs(v["y"]).max()),
    ("geo_mean(x)", "exp(mean(log(x)))", lambda v: np.prod(v["x"]) ** (1 / 3)),
]


@pytest.mark.parametrize("call, core, meaning", CVXPY_NAMES)
def test_cvxpy_names_lower_to_their_core_spelling_and_mean_what_cvxpy_means(call, core, meaning):
    orders = {"x": 1, "y": 1, "P": 2}
    shapes = {"x": (3,), "y": (3,), "P": (3, 3)}
    assert tc.parse_expr(call, orders, shapes) is tc.parse_expr(core, orders, shapes)
    rng = np.random.default_rng(1)
    B = rng.normal(size=(3, 3))
    env = {"x": rng.uniform(0.5, 2, 3), "y": rng.normal(size=3), "P": B @ B.T + np.eye(3)}
    assert np.isclose(tc.evaluate(tc.parse_expr(call, orders, shapes), env), meaning(env), rtol=1e-12)


@pytest.mark.parametrize("text, convex, concave", [
    ("variable x\nvariable y\nminimize maximum(x ^ 2, exp(y))", "proven", "disproved"),
    ("variable x pos\nvariable y pos\nmaximize minimum(log(x), sqrt(y))", "disproved", "proven"),
    ("variable x nonneg\nminimize power(x, 3) + xexp(x)", "proven", "disproved"),
    ("variable x\nminimize power(x, 3)", "disproved", "disproved"),
    ("variable x pos\nvariable y pos\nminimize rel_entr(x, y) + inv_pos(x)", "proven", "disproved"),
    ("variable x[n]\nvariable P[n, n] pd\nminimize matrix_frac(x, P) + tr_inv(P)", "proven", "disproved"),
    ("variable x\nvariable y\nminimize maximum(x * y, 0)", "disproved", "disproved"),
    ("variable x[n] pos\nmaximize geo_mean(x)", "disproved", "proven"),
])
def test_cvxpy_names_get_the_verdicts_of_their_atoms(text, convex, concave):
    import convexcheck
    report = convexcheck.analyze(text, samples=10)
    assert (report.objective.convex.status, report.objective.concave.status) == (convex, concave)


def test_mean_is_the_sum_over_the_count_with_its_derivative_and_verdicts():
    import convexcheck
    rng = np.random.default_rng(2)
    env = {"x": rng.normal(size=5), "A": rng.normal(size=(3, 4))}
    for text, want in (("mean(x .^ 2)", np.mean(env["x"] ** 2)), ("mean(A)", np.mean(env["A"])),
                       ("mean(2)", 2.0)):
        assert np.isclose(tc.evaluate(tc.parse_expr(text, {"x": 1, "A": 2}), env), want)
    check = tc.check_derivative(tc.parse_expr("mean(exp(x)) * mean(x)", {"x": 1}), "x", 2, seed=1)
    assert check.error < 1e-6, str(check)
    for text, sides in (("variable x[n]\nminimize mean(x .^ 2) - mean(x) ^ 2", ("proven", "disproved")),
                        ("variable x[n]\nminimize mean(x) ^ 2 - mean(x .^ 2)", ("disproved", "proven")),
                        ("variable x[n] pos\nmaximize mean(log(x))", ("disproved", "proven"))):
        report = convexcheck.analyze(text, samples=10)
        assert (report.objective.convex.status, report.objective.concave.status) == sides, text
