"""Problem files (docs/problem-format.md): what they declare, the parts they state, and
that every bad input is a ProblemError naming the line, the column and the fix."""
import pathlib
import random

import numpy as np
import pytest

import tensorcalc as tc
from convexcheck.problem.model import Attributes
from convexcheck.problem.reader import MAX_TEXT, ProblemError, load_problem, parse_problem

ROOT = pathlib.Path(__file__).parents[2]

RIDGE = """\
# ridge regression
parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
minimize sum((X *(ij,j->i) w - y)^2) + lam * sum(w^2)
"""

CONSTRAINED = """\
variable x pos
variable y pos
minimize x^2/y
subject to
  x + y <= 1
  x >= 0.1
  x - y == 0
"""


def test_ridge_regression():
    p = parse_problem(RIDGE)
    assert p.sense == "minimize" and p.constraints == ()
    assert {n: (d.kind, d.dims) for n, d in p.declarations.items()} == {
        "X": ("parameter", ("m", "n")), "y": ("parameter", ("m",)),
        "lam": ("parameter", ()), "w": ("variable", ("n",))}
    assert p.declarations["lam"].attributes == Attributes(lower=0.0)
    assert list(p.variables) == ["w"] and p.dimension_names() == ["m", "n"]
    obj = p.objective
    assert (obj.label, obj.need, obj.line) == ("objective", "convex", 6)
    assert obj.text == "minimize sum((X *(ij,j->i) w - y)^2) + lam * sum(w^2)"
    env = {"X": np.arange(6.0).reshape(3, 2), "y": np.ones(3), "lam": np.float64(0.5), "w": np.array([1.0, -1.0])}
    want = np.sum((env["X"] @ env["w"] - 1) ** 2) + 0.5 * 2
    assert np.isclose(tc.evaluate(obj.expr, env), want)


def test_constrained_problem():
    p = parse_problem(CONSTRAINED)
    assert p.declarations["x"].attributes == Attributes(lower=0.0, lower_strict=True)
    assert [(c.label, c.need, c.text, c.line) for c in p.constraints] == [
        ("constraint 1", "convex", "x + y <= 1", 5),
        ("constraint 2", "concave", "x >= 0.1", 6),
        ("constraint 3", "affine", "x - y == 0", 7)]
    orders = {"x": 0, "y": 0}
    for part, (g, h) in zip(p.constraints, [("x + y", "1"), ("x", "0.1"), ("x - y", "0")]):
        assert part.expr is tc.dag.sub(tc.parse_expr(g, orders), tc.parse_expr(h, orders))
    assert p.objective.expr is tc.parse_expr("x^2/y", orders)


def test_constraint_sides_share_one_unification():
    p = parse_problem("variable x[n]\nparameter A[n, n]\nminimize sum(x)\nsubject to\n"
                      "  x *(i,ij->j) A *(j,j->) x <= sum(x)\n")
    assert len(tc.variables(p.constraints[0].expr)) == 2


@pytest.mark.parametrize("attrs, want", [
    ("nonneg", Attributes(lower=0.0)),
    ("pos", Attributes(lower=0.0, lower_strict=True)),
    ("nonpos", Attributes(upper=0.0)),
    ("neg", Attributes(upper=0.0, upper_strict=True)),
    (">= -1.5", Attributes(lower=-1.5)),
    ("> 2", Attributes(lower=2.0, lower_strict=True)),
    ("<= 3e2", Attributes(upper=300.0)),
    ("< .5", Attributes(upper=0.5, upper_strict=True)),
    (">= -1 <= 1", Attributes(lower=-1.0, upper=1.0)),
    ("nonneg >= 2 > 1 pos", Attributes(lower=2.0)),           # the tightest bound is kept
    ("nonneg pos", Attributes(lower=0.0, lower_strict=True)),  # strict is tighter
    ("<= 5 < 5 <= 7", Attributes(upper=5.0, upper_strict=True)),
    (">= 1 <= 1", Attributes(lower=1.0, upper=1.0)),
])
def test_entrywise_attributes(attrs, want):
    assert parse_problem(f"variable x[n] {attrs}\nminimize sum(x)").declarations["x"].attributes == want


@pytest.mark.parametrize("attrs, symmetric, definite", [
    ("symmetric", True, None), ("psd", False, "psd"), ("pd", False, "pd"), ("nsd", False, "nsd"),
    ("nd", False, "nd"), ("psd pd", False, "pd"), ("symmetric nsd", True, "nsd"),
])
def test_matrix_attributes(attrs, symmetric, definite):
    a = parse_problem(f"parameter A[n, n] {attrs}\nminimize sum(A)").declarations["A"].attributes
    assert (a.symmetric, a.definite) == (symmetric, definite)
    assert a.is_symmetric


def test_integer_dimensions_and_square_integers():
    p = parse_problem("parameter A[3, 3] psd nonneg\nvariable x[3]\nminimize x *(i,ij->j) A *(j,j->) x")
    assert p.declarations["A"].dims == (3, 3) and p.declarations["x"].shape() == (3,)


def test_comments_blank_lines_and_multiline_statements():
    text = ("# header\n\nvariable x[n]   # a vector\n  nonneg  # attributes may continue\n"
            "parameter c\nminimize\n  sum(x^2)   # first line\n\n  + c * sum(x)\n"
            "subject to x *(i,i->) x <= 1  # on the same line as 'subject to'\n  sum(x) >= c\n")
    p = parse_problem(text)
    assert p.declarations["x"].attributes.lower == 0.0
    assert p.objective.text == "minimize sum(x^2) + c * sum(x)" and p.objective.line == 6
    assert [c.need for c in p.constraints] == ["convex", "concave"]
    assert [c.line for c in p.constraints] == [10, 11]


def test_maximize_and_expression_senses():
    assert parse_problem("variable x pos\nmaximize log(x)").objective.need == "concave"
    p = parse_problem("variable x\nexpression sin(x)\nderivative wrt x")
    assert (p.sense, p.objective.need) == ("expression", "any")


def test_crlf_bom_and_tabs():
    p = parse_problem("\ufeffvariable\tx\tpos\r\nminimize x^2\r\nsubject to\r\n  x >= 1\r\n")
    assert p.constraints[0].need == "concave"


@pytest.mark.parametrize("path", sorted((ROOT / "examples" / "thesis").glob("*.tc")), ids=lambda p: p.name)
def test_thesis_form_files(path):
    p = load_problem(path)
    assert p.sense == "expression" and p.objective.need == "any" and p.source == str(path)
    assert all(d.kind == "variable" for d in p.declarations.values())
    assert p.objective.expr is tc.parse(path.read_text()).expr


def test_thesis_form_dimensions_follow_axis_classes():
    p = parse_problem("declare x 1 A 2 B 2\nexpression x *(i,ij->j) A *(j,j->) x\nderivative wrt x")
    assert {n: d.dims for n, d in p.declarations.items()} == {
        "x": ("A_0",), "A": ("A_0", "A_0"), "B": ("B_0", "B_1")}
    assert p.objective.text == "expression x *(i,ij->j) A *(j,j->) x"
    one_line = parse_problem("declare a 1 b 1 expression a *(i,i->) b derivative wrt a")
    assert one_line.objective.text == "expression a *(i,i->) b"


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.tc")), ids=lambda p: p.name)
def test_example_files_load(path):
    assert load_problem(str(path)).text == path.read_text()


def test_load_problem_text_and_paths(tmp_path):
    assert load_problem(RIDGE).source is None
    f = tmp_path / "ridge.tc"
    f.write_text(RIDGE)
    assert load_problem(f).source == str(f) and load_problem(str(f)).objective.line == 6
    with pytest.raises(ProblemError, match="no such file: .*missing.tc"):
        load_problem(str(tmp_path / "missing.tc"))
    (tmp_path / "bad.tc").write_bytes(b"variable x\nminimize x\xff")
    with pytest.raises(ProblemError, match=r"not UTF-8 text \(byte 0xff"):
        load_problem(tmp_path / "bad.tc")
    (tmp_path / "big.tc").write_text("#" * (MAX_TEXT + 1))
    with pytest.raises(ProblemError, match="over 1,000,000 bytes"):
        load_problem(tmp_path / "big.tc")


def test_file_errors_name_the_file(tmp_path):
    f = tmp_path / "p.tc"
    f.write_text("variable x\nminimize y\n")
    with pytest.raises(ProblemError, match=r"p\.tc, line 2, column 10: undeclared variable 'y'"):
        load_problem(f)


ERRORS = [
    # (text, line, column, phrase)
    ("variable x pos nonpos\nminimize x", 1, 16, "contradictory bounds on 'x': 'pos' and 'nonpos'"),
    ("variable x >= 2 <= 1\nminimize x", 1, 17, "'>= 2' and '<= 1' leave no value"),
    ("variable x[n] psd\nminimize sum(x)", 1, 15, "'psd' needs a square matrix"),
    ("parameter A[m, n] symmetric\nminimize sum(A)", 1, 19, "'A' has dimensions [m, n]"),
    ("parameter A[n, n] psd nd\nminimize sum(A)", 1, 23, "contradictory attributes on 'A'"),
    ("parameter A[n, n] pd nonpos\nminimize sum(A)", 1, 22, "a pd matrix has a diagonal that 'nonpos' excludes"),
    ("variable x\nvariable x\nminimize x", 2, 10, "'x' is already declared on line 1"),
    ("variable sum\nminimize sum", 1, 10, "'sum' is reserved"),
    ("variable minimize\nminimize 1", 1, 10, "'minimize' is reserved"),
    ("variable __x\nminimize 1", 1, 10, "names starting with '_' are reserved"),
    ("variable \u00e9t\u00e9\nminimize 1", 1, 10, "names use ASCII letters"),
    ("variable x[0]\nminimize 1", 1, 12, "whole number from 1"),
    ("variable x[n, 2.5]\nminimize 1", 1, 15, "found '2.5'"),
    ("variable x[]\nminimize 1", 1, 12, "empty brackets"),
    ("variable x[n\nminimize 1", 1, 13, "expected ',' or ']'"),
    ("variable x huge\nminimize x", 1, 12, "unknown attribute 'huge' for 'x'"),
    ("variable x >= 1e999\nminimize x", 1, 15, "not a finite float64 number"),
    ("variable x\nminimize x\nmaximize x", 3, 1, "a second objective: line 2 already has 'minimize'"),
    ("variable x\n", 1, 1, "no objective"),
    ("x + 1\n", 1, 1, "a problem starts with a statement keyword"),
    ("variable x\nMinimize x", 2, 1, "keywords are lower case: write 'minimize'"),
    ("variable x[n]\nminimize x", 2, 10,
     "the objective has order 1; a convex-analysis part must be a scalar: wrap it in sum(...)"),
    ("variable x\nminimize x <= 1", 2, 12, "constraints go on their own lines after a line 'subject to'"),
    ("variable x\nminimize x\nsubject to\n  x + 1", 4, 3, "constraint 1 has no comparison"),
    ("variable x\nminimize x\nsubject to\n  0 <= x <= 1", 4, 10, "constraint 1 has 2 comparisons"),
    ("variable x\nminimize x\nsubject to\n  x < 1", 4, 5, "comparison '<' is not supported; use '<='"),
    ("variable x\nminimize x\nsubject to\n  x = 1", 4, 5, "use '==' for equality"),
    ("variable x\nminimize x\nsubject to\n  x <=", 4, 5, "nothing on the right of '<='"),
    ("variable x\nminimize x\nsubject\n  x <= 1", 3, 1, "write 'subject to'"),
    ("variable x\nminimize\n  x +\n  y", 4, 3, "undeclared variable 'y' (declared: x)"),
    ("variable x\nminimize\n  sum(x) +\n  (x", 4, 3, "unbalanced brackets"),
    ("variable x[n]\nvariable A[n, n]\nminimize sum(x)\nsubject to\n  sum(x) <= A", 5, 10, "the two sides of '<='"),
    ("parameter X[m, n]\nvariable w[m]\nminimize sum(X *(ij,j->i) w)", 3, 27,
     "axis 0 of w has dimension m but meets axis 1 of X, which has dimension n"),
    ("parameter A[m, n]\nminimize A *(ii,->) 1", 2, 10, "axis 1 of A has dimension n but meets axis 0 of A"),
    ("variable x[3]\nvariable y[4]\nminimize x *(i,i->) y", 3, 21,
     "dimension 4 but meets axis 0 of x, which has dimension 3"),
    ("variable x[n]\nvariable y[n]\nminimize x * y", 3, 12, "two column vectors do not multiply; did you mean x' * y"),
    ("declare x 1\nexpression x\n", 2, 1, "the objective has order 1"),
    ("declare x 1\nexpression x *(i,i->) y", 2, 23, "undeclared variable 'y'"),
    ("declare x 1 expression x *(i,i->) x\nminimize x", 2, 1, "'minimize' cannot follow the thesis form"),
    ("variable x\nminimize x\nderivative of x", 3, 1, "write 'derivative wrt NAME'"),
    ("variable x\nminimize x\x00", 2, 11, "NUL byte"),
]


@pytest.mark.parametrize("text, line, column, phrase", ERRORS)
def test_errors_name_line_column_and_fix(text, line, column, phrase):
    with pytest.raises(ProblemError) as info:
        parse_problem(text)
    err = info.value
    assert phrase in str(err)
    assert (err.line, err.column) == (line, column), str(err)
    assert str(err).startswith(f"line {line}, column {column}: ")
    shown, marker = str(err).splitlines()[-2:]
    assert marker.strip() == "^"
    source = text.split("\n")[line - 1].replace("\x00", " ") + " "
    assert (shown + " ")[marker.index("^")] == source[column - 1]


@pytest.mark.parametrize("text", ["", "  \n# nothing\n\n"])
def test_empty_problem(text):
    with pytest.raises(ProblemError, match="empty problem"):
        parse_problem(text)


def test_problem_errors_are_tensorcalc_errors():
    assert issubclass(ProblemError, tc.ParseError) and issubclass(ProblemError, tc.TensorCalcError)
    with pytest.raises(ProblemError, match="expected the problem as a str"):
        parse_problem(b"variable x")


def test_oversized_text_is_rejected_quickly():
    with pytest.raises(ProblemError, match="at most 1,000,000"):
        parse_problem("variable x\nminimize x" + " + x" * 300_000)


def test_too_many_statements():
    with pytest.raises(ProblemError, match="more than 10,000 statements"):
        parse_problem("variable x\nminimize x\nsubject to\n" + "x <= 1\n" * 10_001)


def test_deep_nesting_and_long_lines():
    deep = "variable x\nminimize " + "sqrt(" * 5_000 + "x" + ")" * 5_000
    assert parse_problem(deep).objective.expr.order == 0
    with pytest.raises(ProblemError, match="unbalanced brackets"):
        parse_problem("variable x\nminimize " + "(" * 5_000 + "x" + ")" * 4_999)
    long = "variable x\nminimize x" + " + x" * 20_000 + " + $"
    with pytest.raises(ProblemError, match="unexpected character '\\$'") as info:
        parse_problem(long)
    assert info.value.column == len(long.split("\n")[1]) and "..." in str(info.value)


def test_mutated_files_raise_only_problem_errors():
    rng = random.Random(7)
    pieces = list("xywAn[](),*^/+-<>=#\n 0.5e\t") + ["sum(", "psd", "pos", "subject to\n", "minimize ",
                                                     "variable ", "declare ", "*(i,i->)", "\u00e9", "\x00"]
    for _ in range(1500):
        text = list(rng.choice([RIDGE, CONSTRAINED, "declare x 1 A 2\nexpression x *(i,ij->j) A *(j,j->) x\n"]))
        for _ in range(rng.randint(1, 5)):
            i = rng.randrange(len(text))
            text[i:i + rng.randint(0, 1)] = [rng.choice(pieces)]
        try:
            parse_problem("".join(text))
        except ProblemError as err:
            assert err.line > 0, "".join(text)


@pytest.mark.parametrize("value", [None, 3, b"variable x\nminimize x"])
def test_load_problem_rejects_other_types(value):
    with pytest.raises(ProblemError, match="expected the problem as a str"):
        load_problem(value)


# ----------------------------------------------------------------------------- matrix notation (issue 15)

LOGISTIC_MATRIX = """\
parameter X[m, n]
parameter y[m]
parameter lam nonneg
variable w[n]
variable b
minimise sum(log(1 + exp(-y .* (X * w + b)))) + lam * w' * w
"""


def test_matrix_notation_problem_is_the_index_notation_problem():
    p = parse_problem(LOGISTIC_MATRIX)
    orders = {"X": 2, "y": 1, "lam": 0, "w": 1, "b": 0}
    twin = "sum(log(1 + exp(-y .* (X *(ij,j->i) w + b *(,i->i) 1)))) + (lam *(,i->i) w) *(i,i->) w"
    assert p.sense == "minimize" and p.objective.need == "convex"
    assert p.objective.expr is tc.parse_expr(twin, orders)
    assert p.objective.text == "minimise sum(log(1 + exp(-y .* (X * w + b)))) + lam * w' * w"


def test_maximise_and_lets():
    text = ("variable X[n, n] pd\nparameter S[n, n] psd\nlet fit = tr(S * X)\n"
            "maximise logdet(X) - fit\nsubject to\n  let t = tr(X)\n  t <= 1\n  fit >= 0\n")
    p = parse_problem(text)
    assert p.sense == "maximize" and p.objective.need == "concave"
    orders = {"X": 2, "S": 2}
    assert p.objective.expr is tc.parse_expr("log(det(X)) - S *(ij,jk->ik) X *(ii,->) 1", orders)
    assert [(c.text, c.line) for c in p.constraints] == [("t <= 1", 7), ("fit >= 0", 8)]
    assert p.constraints[0].expr is tc.parse_expr("X *(ii,->) 1 - 1", orders)


def test_names_that_are_only_functions_elsewhere():
    p = parse_problem("variable delta[n]\nparameter to\nparameter tr\nminimize delta' * delta + to * tr\n"
                      "subject to\n  sum(delta(1) * delta) <= to")
    assert set(p.declarations) == {"delta", "to", "tr"} and len(p.constraints) == 1


def test_a_statement_may_span_lines_but_a_let_is_one_line_outside_brackets():
    p = parse_problem("variable x[n]\nlet s = sum(exp(x)\n  + 1)\nminimize\n  log(s)\n  + x' * x\n")
    assert p.objective.text == "minimize log(s) + x' * x"
    with pytest.raises(ProblemError, match="unexpected '\\+'") as err:
        parse_problem("variable x[n]\nlet s = sum(x)\n  + 1\nminimize s\n")
    assert (err.value.line, err.value.column) == (3, 3)


MATRIX_ERRORS = [
    # (text, line, column, phrase): shapes from the declarations, and the likely fix
    ("parameter X[m, n]\nvariable w[m]\nminimize sum(X * w)", 3, 16,
     "cannot multiply X (an m-by-n matrix) by w (a column vector of length m): the inner dimensions n and m "
     "differ; did you mean X' * w?"),
    ("parameter A[m, n]\nvariable x[n]\nminimize x' * A * x", 3, 13,
     "x' (a row vector of length n) by A (an m-by-n matrix): the inner dimensions n and m differ; did you "
     "mean x' * A'?"),
    ("parameter X[m, n]\nparameter y[n]\nvariable w[n]\nminimize sum((X * w - y) .^ 2)", 4, 21,
     "cannot subtract X * w (a column vector of length m) and y (a column vector of length n)"),
    ("variable x[n]\nparameter A[n, n]\nminimize sum(x * A)", 3, 16,
     "x (a column vector of length n) by A (an n-by-n matrix): a column vector does not multiply a matrix "
     "from the left; did you mean x' * A?"),
    ("variable x[n]\nvariable y[m]\nminimize x' * y", 3, 13, "the inner dimensions n and m differ"),
    ("variable X[n, m]\nmaximize logdet(X)", 2, 10, "det needs a square matrix; X (an n-by-m matrix) is not square"),
    ("variable x[n]\nvariable A[n, n]\nminimize sum(x)\nsubject to\n  sum(x) <= A", 5, 10,
     "the two sides of '<=' do not fit: the left side has order 0 and the right side order 2"),
    ("variable x[n]\nminimize x[1]", 2, 10, "x[...] picks entries of axis 0 of 'x', which has length n, not a "
     "number: declare 'x' with numbers (x[5]), or take the axis whole (:), or write a define statement"),
    ("variable x[3]\nminimize x[i]", 2, 12, "a subscript of x[...] outside a define statement is a whole number"),
    ("variable x[3]\nminimize x[3]", 2, 12, "index 3 is out of range for axis 0 of 'x' (length 3)"),
    ("variable x[n]\nlet x = 1\nminimize x' * x", 2, 5, "let x: 'x' is already declared"),
    ("variable x[n]\nminimize x' * x\nsubject to\n  x' * x <= 1\n  x' * x", 5, 3, "constraint 2 has no comparison"),
]


@pytest.mark.parametrize("text, line, column, phrase", MATRIX_ERRORS)
def test_matrix_notation_errors_name_shapes_place_and_fix(text, line, column, phrase):
    test_errors_name_line_column_and_fix(text, line, column, phrase)


def test_thesis_form_in_matrix_notation():
    p = parse_problem("declare x 1 A 2\nexpression x' * A * x\nderivative wrt x")
    assert p.objective.expr is tc.parse_expr("x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2})
    assert {n: d.dims for n, d in p.declarations.items()} == {"x": ("A_0",), "A": ("A_0", "A_0")}


def test_an_unused_let_is_checked_too():
    with pytest.raises(ProblemError, match="undeclared variable 'z'") as err:
        parse_problem("variable x\nlet t = z + 1\nminimize x^2\n")
    assert (err.value.line, err.value.column) == (2, 9)
    with pytest.raises(tc.ParseError, match="undeclared variable 'z'"):
        tc.parse_expr("let t = z\nx", {"x": 0})
