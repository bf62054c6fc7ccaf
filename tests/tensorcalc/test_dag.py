"""Representation: immutable hash-consed nodes, orders and axes, rule tables (issue 2, item 4)."""
import copy
import pickle

import pytest

import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.dag import Axis
from tensorcalc.derivatives import reverse as diff
from tensorcalc.numeric import evaluate as evaluation
from tensorcalc.printing import einsum as printer


def test_identical_subexpressions_are_one_node():
    inp = tc.parse("declare X 2 expression (X+1) + X*(ij,ij->ij)(X+1)")
    left, right = inp.expr.args
    assert right.args[1] is left                      # X+1 appears once (thesis figure 3.2)
    assert tc.count_nodes(inp.expr) == 5              # X, 1, X+1, product, sum


def test_parsing_twice_gives_the_same_object():
    text = "declare A 2 x 1 expression sin(A *(ij,j->i) x) + 1"
    assert tc.parse(text).expr is tc.parse(text).expr


def test_index_letters_are_canonical():
    a = tc.parse_expr("A *(ij,j->i) x", {"A": 2, "x": 1})
    b = tc.parse_expr("A *(pq,q->p) x", {"A": 2, "x": 1})
    assert a is b
    assert str(a) == "A *(ij,j->i) x"


def test_nodes_are_immutable_and_copy_to_themselves():
    e = tc.parse_expr("x + 1", {"x": 1})
    with pytest.raises(AttributeError, match="immutable"):
        e.args = ()
    assert copy.deepcopy(e) is e and copy.copy(e) is e
    assert pickle.loads(pickle.dumps(e)) is e


def test_orders_of_nodes():
    e = tc.parse_expr("det(A) *(,i->i) (A *(ij,j->i) x) + x", {"A": 2, "x": 1})
    orders = {type(n).__name__ + getattr(n, "fn", ""): n.order for n in dag.topo(e)}
    assert orders["Specialdet"] == 0
    assert orders["Var"] in (1, 2)
    assert e.order == 1


def test_axes_name_the_variable_axes_they_stand_for():
    e = tc.parse_expr("A *(ij,jk->ik) B + C", {"A": 2, "B": 2, "C": 2})
    assert e.axes == (Axis("A", 0), Axis("B", 1))
    a, b, c = (dag.variables(e)[n] for n in "ABC")
    assert b.axes[0] == a.axes[1] == Axis("A", 1)    # j ties A's columns to B's rows
    assert c.axes == (Axis("A", 0), Axis("B", 1))    # the sum ties C to the product


def test_constants_broadcast_to_the_order_their_context_needs():
    cases = {"1 + det(X)": 0, "det(X + 1)": 2, "X + log(2)": 2, "1 *(i,i->) v": 1, "2": 0}
    for text, const_order in cases.items():
        e = tc.parse_expr(text, {"X": 2, "v": 1})
        consts = [n for n in dag.topo(e) if isinstance(n, dag.Const)]
        assert consts and all(c.order == const_order for c in consts), text


def test_constants_in_different_contexts_are_different_nodes():
    e = tc.parse_expr("(X + 1) *(ij,kl->ijkl) (Y + 1)", {"X": 2, "Y": 2})
    ones = {n for n in dag.topo(e) if isinstance(n, dag.Const)}
    assert len(ones) == 2                             # one per shape, never unified


def test_square_matrix_functions_tie_their_axes():
    e = tc.parse_expr("inv(X)", {"X": 2})
    assert e.axes == (Axis("X", 0), Axis("X", 0))


def test_delta_pairs_its_axes():
    e = tc.parse_expr("sin(delta(1)) *(ij,ij->) X", {"X": 2})
    x = dag.variables(e)["X"]
    assert x.axes[0] == x.axes[1]


def test_free_axes_are_marked():
    e = tc.parse_expr("delta(1)", {})
    assert e.axes == (Axis("", 0), Axis("", 0))
    assert str(e.axes[0]) == "?0"


def test_builders_enforce_invariants():
    x = tc.parse_expr("x", {"x": 1})
    y = tc.parse_expr("y", {"y": 1})
    with pytest.raises(tc.TensorCalcError, match="cannot add"):
        dag.add(x, dag.var("z", [Axis("z", 0), Axis("z", 1)]))
    with pytest.raises(tc.TensorCalcError, match="index 'i' binds axes x\\[0\\] and y\\[0\\]"):
        dag.product(x, y, "i,i->")
    with pytest.raises(tc.TensorCalcError, match="needs a square matrix"):
        dag.special("det", dag.var("A", [Axis("A", 0), Axis("A", 1)]))


@pytest.mark.parametrize("table", [diff.PULLBACKS, evaluation.RULES, printer.TEMPLATES])
def test_every_rule_table_covers_every_node_type(table):
    assert set(table) == set(dag.NODE_TYPES)


def test_every_function_has_a_derivative_and_an_evaluation():
    assert set(diff.ELEMENTWISE_DERIVATIVES) == set(dag.ELEMENTWISE) == set(evaluation.ELEMENTWISE_FUNCTIONS)
    assert set(diff.SPECIAL_DERIVATIVES) == set(dag.SPECIAL) == set(evaluation.SPECIAL_FUNCTIONS)


def test_substitutions_of_table_3_1():
    e = tc.parse_expr("a - b", {"a": 1, "b": 1})
    assert isinstance(e, dag.Sum) and e.args[1].fn == "neg"
    e = tc.parse_expr("a / b", {"a": 1, "b": 1})
    assert isinstance(e, dag.Product) and e.args[1].fn == "recip"
    x = dag.variables(tc.parse_expr("x ^ x", {"x": 0}))["x"]
    prepared, _ = diff.prepare(tc.parse_expr("x ^ x", {"x": 0}), x)
    assert str(prepared) == "exp(x *(,->) log(x))"


def test_missing_index_transformation_makes_the_sum_explicit():
    e = tc.parse_expr("A *(ij,j->) v", {"A": 2, "v": 1})
    a = dag.variables(e)["A"]
    prepared, _ = diff.prepare(e, a)
    assert str(prepared) == "(A *(ij,j->i) v) *(i,i->) 1"     # thesis figure 4.10, middle
    assert str(tc.derivative(e, "A", simplify=False)) == "(delta(0) *(,i->i) 1) *(i,j->ij) v"
