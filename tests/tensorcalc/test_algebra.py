"""The one algebra of products (tensorcalc.algebra.monomials), shared by the simplifier and the
convexity certificate: expansions checked against evaluation (np.einsum over the integer
letters is the oracle), delta relabelling, constants whose folded value would leave the
float range, and expressions nested deeper than Python's recursion limit."""
import numpy as np
import pytest

import convexcheck
import tensorcalc as tc
from convexcheck.hessian.certificate import certify
from convexcheck.signs.signs import Signs
from tensorcalc import dag
from tensorcalc.algebra.monomials import Expander, Factor, Monomial, collect, fold, normal, ones

ORDERS = {"x": 1, "y": 1, "A": 2, "s": 0}
RNG = np.random.default_rng(7)
VALUES = {"x": RNG.uniform(0.5, 2, 3), "y": RNG.uniform(0.5, 2, 3), "A": RNG.normal(size=(3, 3)),
          "s": np.array(1.5)}


def value(monomials: list[Monomial], k: int) -> np.ndarray:
    """The sum of the monomials at VALUES, each an einsum over its letters."""
    total = 0.0
    for m in monomials:
        operands = []
        for f in m.factors:
            operands += [np.asarray(tc.evaluate(f.node, VALUES), float) ** f.power, list(f.letters)]
        total = total + m.coef * (np.einsum(*operands, list(range(k))) if operands else 1.0)
    return total


EXPRESSIONS = ["(x + y) *(i,i->i) (x - 2 *(,i->i) y)", "(A *(ij,j->i) x) *(i,i->) (A *(ij,j->i) x)",
               "(s *(,i->i) x + y)^3", "x / (x + y)", "(exp(s) *(,ij->ij) (x *(i,j->ij) y)) *(ij,->) 1",
               "A *(ij,jk->ik) A *(ik,k->i) x", "(x *(i,->) 1)^2 / (y *(i,->) 1)", "-(x *(i,i->i) y) + 3",
               "x *(i,j->ij) y", "delta(1) *(ij,j->i) x", "det(A *(ij,j->ij) x) *(,i->i) (adj(inv(A)) *(ij,j->i) x)"]


@pytest.mark.parametrize("text", EXPRESSIONS)
@pytest.mark.parametrize("order", [0, 1, 2])
def test_expansion_equals_evaluation(text, order):
    """The expansion of an expression and of its derivatives (deltas relabelled) has the
    expression's value."""
    expr = tc.parse_expr(text, ORDERS)
    if order:
        if expr.order + order > 4:
            pytest.skip("a large tensor")
        expr = tc.derivative(expr, "x", order)
    got = value(Expander().expand(expr), expr.order)
    np.testing.assert_allclose(got, tc.evaluate(expr, VALUES), rtol=1e-10, atol=1e-12)


def test_a_delta_summed_over_both_letters_counts_its_axis_length():
    """sum_ab delta[a,b] = n: the relabelled letter keeps a ones factor (it was read as 1)."""
    ax = dag.Axis("x", 0)
    identity_sum = dag.contraction((dag.delta(1, (ax, ax)), dag.const(1.0)), ("ab", "", ""))
    (m,) = Expander().expand(identity_sum)
    assert m.coef == 1.0 and [f.node for f in m.factors] == [ones((ax,))]
    assert Signs({}, lengths={ax: 3}).node(dag.add(identity_sum, dag.const(-2.0))).nonneg


def test_relabelling_keeps_a_diagonal_and_renames_a_summed_letter():
    ax, x = dag.Axis("x", 0), dag.var("x", (dag.Axis("x", 0),))
    d = dag.delta(1, (ax, ax))
    (m,) = [normal(Monomial(2.0, (Factor(d, (0, 5)), Factor(x, (5,)))), 1)]
    assert m == Monomial(2.0, (Factor(x, (0,)),))                 # sum_b delta[a,b] x[b] = x[a]
    (m,) = [normal(Monomial(1.0, (Factor(d, (0, 1)),)), 2)]
    assert m == Monomial(1.0, (Factor(d, (0, 1)),))                # a diagonal embedding stays


@pytest.mark.parametrize("a, b, p, folded", [
    (2.0, 3.0, 1.0, 6.0), (1.0, 2.0, 2000.0, None), (-1.0, 2.0, 3.0, -8.0),
    (1e-200, 1e-200, 1.0, None), (1.0, 0.5, 3000.0, None), (5.0, 0.0, 2.0, 0.0)])
def test_fold_refuses_what_leaves_the_float_range(a, b, p, folded):
    assert fold(a, b, p) == folded


@pytest.mark.parametrize("objective, side", [
    ("(2*p)^2000 + x^2", "convex"), ("exp((2*p)^2000 * x)", "convex"), ("log((2*p)^2000 + x)", "concave"),
    ("((2*p)^2000 + 1) * x^2", "convex"), ("(2*p)^2000 * x^2 - (2*p)^2000 * x^2", "concave")])
def test_huge_powers_of_parameters_give_a_verdict(objective, side):
    """(2 p)^2000 overflows a float: it stays a factor of its own (issue 14: an OverflowError
    from the expansion's power rule), and the curvature is still proven."""
    report = convexcheck.analyze(f"parameter p\nvariable x\nminimize {objective}", samples=3)
    assert getattr(report.objective, side).status == "proven", report.objective


@pytest.mark.parametrize("objective", ["-(1e-200*x) * (1e-200*x)", "-(0.5^3000) * x^2", "-exp(-1000) * x^2",
                                       "-(1e-200 * x) * (1e-200 * x) * (1e-200 * x) * (1e-200 * x)"])
def test_underflowing_constants_are_not_read_as_zero(objective):
    """A coefficient 1e-400 is positive, not 0: these are concave and not convex (a Hessian
    read as zero proved them both)."""
    report = convexcheck.analyze(f"variable x\nminimize {objective}", samples=3)
    assert report.objective.convex.status != "proven", objective
    x = dag.var("x", ())
    expr = tc.parse_expr(objective, {"x": 0})
    assert not certify(expr, [x], {}).convex


def test_like_terms_whose_sum_overflows_stay_apart():
    """1e308 x^2 + 1e308 x^2: the coefficient 2e308 is not a float, so the two terms stay two
    (the simplifier refused the problem with "constant inf is not a finite number")."""
    big = [Monomial(1e308, ()), Monomial(1e308, ())]
    assert collect(big) == big and collect(big + [Monomial(-1e308, ())]) == [Monomial(1e308, ())]
    report = convexcheck.analyze("variable x\nminimize 1e308*x^2 + 1e308*x^2", samples=3)
    assert report.objective.convex.status == "proven"
    e = tc.simplify(tc.parse_expr("1e308 * x + 1e308 * x", {"x": 0}))
    assert tc.evaluate(e, {"x": np.array(1e-300)}) == pytest.approx(2e8)


def test_simplify_keeps_an_underflowing_product_of_constants():
    x = tc.parse_expr("x", {"x": 0})
    e = tc.simplify(tc.parse_expr("(1e-200 * x) * (1e-200 * x)", {"x": 0}))
    assert tc.evaluate(e, {"x": np.array(1e200)}) == pytest.approx(1.0)
    assert tc.simplify(tc.parse_expr("2 * (3 * x)", {"x": 0})) == tc.simplify(tc.parse_expr("6 * x", {"x": 0}))
    assert x in dag.topo(e)


DEPTH = 5000        # well past Python's default recursion limit of 1000


def _deep() -> dag.Expr:
    x = dag.var("x", ())
    e = x
    for k in range(DEPTH):
        e = dag.add(dag.hadamard(e, dag.const(0.5)), dag.const(1.0)) if k % 2 else dag.add(e, x)
    return e


def test_expansion_and_signs_are_iterative():
    """Nesting deeper than the recursion limit expands and signs (no RecursionError)."""
    e = _deep()
    monomials = Expander().expand(e)
    assert len(monomials) == 2                                    # a x + b
    assert Signs({}).node(dag.elementwise("exp", e)).nonneg
    x = dag.var("x", ())
    assert certify(dag.hadamard(e, e), [x], {}).convex
