"""The smooth and linear atoms' rules of the CVXPY bridge (`translate.RULES`): each takes the
translator t, the CVXPY atom e and its translated arguments (`text.Node`) and returns the
node of its formula in the problem language. The non-smooth atoms' rules are `nonsmooth`.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from convexcheck.bridge.data import number, value_of
from convexcheck.bridge.linear import linear as _linear
from convexcheck.bridge.text import Node, axis_sum, entry, fit, scalar, times
from convexcheck.problem.reader import ProblemError

Rule = Callable[..., Node]     # (translator, CVXPY atom, translated arguments) -> the formula's node

MATMUL = {(1, 1): "i,i->", (2, 1): "ij,j->i", (1, 2): "i,ij->j", (2, 2): "ij,jk->ik"}


def matmul(t: Any, e: Any, a: Node, b: Node) -> Node:
    if scalar(a) is not None or scalar(b) is not None:
        return Node(times(a, b, tuple(e.shape)), tuple(e.shape))
    spec = MATMUL.get((len(a.shape), len(b.shape)))
    if spec is None:
        raise ProblemError(f"@ of shapes {a.shape} and {b.shape} is not supported (vectors and matrices only)")
    return Node(f"({a.text} *({spec}) {b.text})", tuple(e.shape))


def div(t: Any, e: Any, a: Node, b: Node) -> Node:
    sb, shape = scalar(b), tuple(e.shape)
    if sb is not None:
        return Node(f"({a.text} / {sb})" if not shape else f"((1 / {sb}) * {fit(a, shape)})", shape)
    return Node(f"({fit(a, shape)} / {b.text})", shape)


def transpose(t: Any, e: Any, a: Node) -> Node:
    if len(a.shape) == 2 and e.get_data()[0] in (None, (1, 0), [1, 0]):
        return Node(f"({a.text} *(ij,->ji) 1)", tuple(e.shape))
    return a if len(a.shape) < 2 else _linear(t, e, a)


def total(t: Any, e: Any, a: Node) -> Node:
    axis, keepdims = e.get_data()
    return _linear(t, e, a) if keepdims else Node(axis_sum(a.text, a.shape, axis), tuple(e.shape))


def power(t: Any, e: Any, a: Node) -> Node:
    p = e.get_data()[0]
    if hasattr(p, "parameters") and p.parameters():
        raise ProblemError("power with a parameter exponent is not supported; give a number")
    p = float(value_of(p, "the exponent of power"))
    return a if p == 1 else Node(f"({a.text} ^ {number(p)})", a.shape)


def log_sum_exp(t: Any, e: Any, a: Node) -> Node:
    axis, keepdims = e.get_data()
    if keepdims:
        raise ProblemError("log_sum_exp with keepdims=True is not supported; drop keepdims")
    return Node(f"log({axis_sum(f'exp({a.text})', a.shape, axis)})", tuple(e.shape))


def quad_form(t: Any, e: Any, x: Node, p: Node) -> Node:
    """x' P x; x a vector, a scalar, or a column or row of one (n x 1, 1 x n)."""
    if all(d == 1 for d in x.shape):
        one = entry(x)
        return Node(f"({one} * {entry(p)} * {one})", ())
    if len(x.shape) == 2:                       # (n, 1) or (1, n): the vector's axis is the long one
        v = "ik" if x.shape[1] == 1 else "ki"
        w = v.replace("i", "j")
        return Node(f"({x.text} *({v},ij->{w}) {p.text} *({w},{w}->) {x.text})", ())
    return Node(f"({x.text} *(i,ij->j) {p.text} *(j,j->) {x.text})", ())


def quad_over_lin(t: Any, e: Any, x: Node, y: Node) -> Node:
    if e.get_data()[0] is not None:
        raise ProblemError("quad_over_lin with an axis is not supported; give axis=None")
    return Node(f"({axis_sum(f'({x.text} ^ 2)', x.shape, None)} / {entry(y)})", ())


def rel_entr(t: Any, e: Any, x: Node, y: Node, kl: bool = False) -> Node:
    """x log(x/y), and for kl_div (kl) that - x + y, element-wise with broadcasting."""
    s = tuple(e.shape)
    xs, ys = Node(fit(x, s), s), fit(y, s)
    text = times(xs, Node(f"log({xs.text} / {ys})", s), s)
    return Node(f"({text} - {xs.text} + {ys})" if kl else text, s)


def geo_mean(t: Any, e: Any, a: Node) -> Node:
    """CVXPY's geo_mean(x, p) = prod x_i ^ w_i, w = p / sum(p), of a vector: the language's
    geo_mean(x) (exp(mean(log(x)))) for equal weights; for others, of a declared vector,
    exp(sum_i w_i log(x[i])) over the nonzero weights (concave, proven: the weights are
    numbers the certificate reads). log's domain makes x > 0 where CVXPY's is x >= 0."""
    if getattr(e, "axis", None) is not None or len(a.shape) > 1:
        raise ProblemError("geo_mean along an axis or of a matrix is not supported; give a vector "
                           "(cp.vec(X)) and axis=None")
    if not a.shape:
        return a
    weights = [Fraction(v) for v in e.p]
    if len(set(weights)) == 1:
        return Node(f"geo_mean({a.text})", ())
    if a.text not in t.decls:
        raise ProblemError("geo_mean with unequal weights is supported of a variable or parameter only; "
                           "give it a variable (x == expression) or equal weights")
    total = sum(weights)
    terms = [f"({number(float(w / total))} * log({a.text}[{k}]))" for k, w in enumerate(weights) if w]
    return Node(f"exp({' + '.join(terms)})", ())


def matrix_frac(t: Any, e: Any, x: Node, p: Node) -> Node:
    if len(x.shape) == 2:
        return Node(f"((inv({p.text}) *(ij,jk->ik) {x.text}) *(ik,ik->) {x.text})", ())
    return Node(f"({x.text} *(i,ij->j) inv({p.text}) *(j,j->) {x.text})", ())


def call(template: str) -> Rule:
    """A rule for a function of one argument whose text is {0}, keeping the atom's shape."""
    return lambda t, e, a: Node(template.format(a.text), tuple(e.shape))


def applied(function: str, a: Node) -> Node:
    return Node(f"{function}({a.text})", a.shape)
