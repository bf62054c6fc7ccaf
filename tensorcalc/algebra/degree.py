"""The polynomial degree of an expression in some of its variables.

`degree(expr, names)` is the largest total degree in the variables `names` of the
polynomial `expr` is, read off its structure: sums take the largest degree of their
terms, products (contractions, Hadamard products) add their operands' degrees, a power
with a whole-number constant exponent k multiplies its base's degree by k, negation and
the linear maps (delta, gather) keep it. Any other function of a variable (exp, abs,
sign, relu, inv, det, a power with another exponent, ...) makes the degree infinite, as
does a variable in an exponent. Subexpressions free of `names` have degree 0, whatever
they contain.

The answer is an upper bound read from the syntax, never from derivatives: sign(x) and
relu(x) have a zero symbolic second derivative, yet are not polynomials; here they are
not. So `degree(f, names) <= 2` proves f a quadratic polynomial in `names` (its Hessian
is constant), and <= 1 proves it affine.
"""
from __future__ import annotations

import math
from typing import Iterable

from tensorcalc.dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var, topo

INF = math.inf


def degree(expr: Expr, names: Iterable[str]) -> float:
    """The degree of `expr` in the variables `names` (0 when none occurs; inf when it is
    not a polynomial in them); one walk over the graph."""
    wrt = frozenset(names)
    found: dict[Expr, float] = {}
    for node in topo(expr):
        found[node] = RULES[type(node)](node, [found[a] for a in node.args], wrt)
    return found[expr]


def _var(node: Var, args, names) -> float:
    return 1.0 if node.name in names else 0.0


def _constant(node, args, names) -> float:
    return 0.0


def _sum(node, args, names) -> float:
    return max(args, default=0.0)


def _product(node, args, names) -> float:
    return float(sum(args))


def _elementwise(node: Elementwise, args, names) -> float:
    if node.fn == "neg":
        return args[0]
    return 0.0 if args[0] == 0 else INF


def _special(node, args, names) -> float:
    return 0.0 if args[0] == 0 else INF


def _power(node: Power, args, names) -> float:
    base, exponent = args
    if base == 0 and exponent == 0:
        return 0.0
    e = node.args[1]
    if exponent == 0 and isinstance(e, Const) and e.value >= 0 and float(e.value).is_integer():
        return base * e.value if e.value else 0.0
    return INF


def _linear(node, args, names) -> float:
    return args[0]


RULES = {Var: _var, Const: _constant, Delta: _constant, Sum: _sum, Product: _product,
         Elementwise: _elementwise, Special: _special, Power: _power, Gather: _linear}

__all__ = ["degree"]
