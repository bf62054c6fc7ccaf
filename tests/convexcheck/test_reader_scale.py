"""Reading a problem costs what its statements say, not statements x declarations: each
statement's meaning builds axis classes and variables only for the names it mentions.
Counted (calls of `tensorcalc.dag.var` and of `UnionFind.new`), never timed; and a
statement's errors still name the statement's place and the name."""
import pytest

import tensorcalc as tc
from convexcheck.problem.reader import ProblemError, parse_problem
from tensorcalc import dag
from tensorcalc.language.axis_classes import UnionFind

N = 2000          # parameters p1..pN, one constraint each: 2002 declarations, 2001 parts


def _circle(n: int, decls: str = "", extra: str = "") -> str:
    """The smallest enclosing circle of n points: one norm constraint per point; `decls`
    and `extra` are more declarations and statements."""
    lines = ["variable r", "variable c[2]", *(f"parameter p{k}[2]" for k in range(1, n + 1)), decls, "minimize r",
             "subject to", *(f"  sqrt(sum((c - p{k}) ^ 2)) <= r" for k in range(1, n + 1)), extra]
    return "\n".join(lines) + "\n"


def _counting(monkeypatch) -> dict[str, int]:
    """Counts of the calls that build a variable and an axis class, from now on."""
    counts = {"var": 0, "axis class": 0}
    var, new = dag.var, UnionFind.new

    def counted_var(*args, **kwargs):
        counts["var"] += 1
        return var(*args, **kwargs)

    def counted_new(self):
        counts["axis class"] += 1
        return new(self)

    monkeypatch.setattr(dag, "var", counted_var)
    monkeypatch.setattr(UnionFind, "new", counted_new)
    return counts


def test_variables_and_axis_classes_grow_with_the_statements_not_their_product(monkeypatch):
    counts = _counting(monkeypatch)
    problem = parse_problem(_circle(N), source="scale-test")
    assert len(problem.constraints) == N and len(problem.declarations) == N + 2
    size = N + len(problem.declarations)
    # each statement mentions 3 names (r, c, its point) and writes ~10 nodes; all N
    # declarations per statement would be N * N = 4,000,000 variables
    assert 0 < counts["var"] <= 5 * size, counts
    assert 0 < counts["axis class"] <= 20 * size, counts


def test_a_statement_means_the_same_whatever_else_is_declared():
    big = parse_problem(_circle(N), source="scale-test-big")
    k = N - 7
    alone = parse_problem(f"variable r\nvariable c[2]\nparameter p{k}[2]\nminimize r\nsubject to\n"
                          f"  sqrt(sum((c - p{k}) ^ 2)) <= r\n")
    assert big.constraints[k - 1].expr is alone.constraints[0].expr       # hash-consed: one node
    assert big.objective.expr is alone.objective.expr
    assert big.constraints[k - 1].text == alone.constraints[0].text == f"sqrt(sum((c - p{k}) ^ 2)) <= r"


LAST = 2 * N + 6  # the line of the statement after the N constraints (`decls` on one line)


@pytest.mark.parametrize("decls, extra, column, what", [
    ("", "  sum(q) <= r", 7, r"undeclared variable 'q' \(declared: r, c, p1, p2, .*, p2000\)"),
    ("parameter s[3]", "  sum(c - s) <= r", 9, r"cannot subtract c \(.*length 2\) and s \(.*length 3\)"),
    ("parameter u[m]\nvariable v[n]", "  u *(i,i->) v <= r", 14, "axis 0 of v has dimension n but meets "
                                                                  "axis 0 of u, which has dimension m"),
    ("", "  c[5] <= r", 5, r"index 5 is out of range for axis 0 of 'c' \(length 2\)"),
])
def test_errors_of_a_late_statement_name_its_place_and_the_name(decls, extra, column, what):
    line = LAST + decls.count("\n")
    with pytest.raises(ProblemError, match=f"^line {line}, column {column}: {what}"):
        parse_problem(_circle(N, decls, extra))


def test_names_a_statement_does_not_mention_keep_their_own_axes():
    inp = tc.parse("declare x 1 y 2 z 0\nexpression x *(i,i->) x\nderivative wrt y")
    assert list(inp.declared) == ["x", "y", "z"] and len(inp.declared) == 3
    assert inp.declared["y"] is dag.var("y", [dag.Axis("y", 0), dag.Axis("y", 1)])
    assert inp.declared["z"].axes == () and inp.declared["x"] is tc.variables(inp.expr)["x"]
