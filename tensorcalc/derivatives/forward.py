"""Forward mode (Laue, Mitterreiter, Giesen 2018, section 3): pushforwards.

`pushforward(expr, wrt, direction)` is the directional derivative of `expr` at x along
`direction`: the derivative contracted with the direction over x's axes, an expression
of the order of `expr`. Tangents are propagated from the leaves up, one rule per node
type, in the same language; a subexpression that does not depend on x has no tangent.
"""
from __future__ import annotations

from typing import Any, Callable

from tensorcalc import dag
from tensorcalc.algebra.simplify import simplify as simplified
from tensorcalc.dag import LETTERS, Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.derivatives.reverse import ELEMENTWISE_DERIVATIVES, SPECIAL_DERIVATIVES, power_partials, resolve
from tensorcalc.errors import TensorCalcError


def pushforward(expr: Expr, wrt: str | Var, direction: str | Expr | None = None, simplify: bool = True) -> Expr:
    """d expr[x + t v] / dt at t = 0 for x = wrt and v = direction.

    `direction` is an expression with x's axes, or the name of a new variable that gets
    x's axes (default: 'd' + x's name).
    """
    x = resolve(expr, wrt)
    v = _direction(x, direction)
    tangent: dict[Expr, Expr | None] = {}
    for node in dag.topo(expr):
        if node is x:
            tangent[node] = v
        else:
            ts = [tangent[c] for c in node.args]
            tangent[node] = None if all(t is None for t in ts) else TANGENTS[type(node)](node, ts)
    found = tangent[expr]
    result = found if found is not None else dag.const(0.0, expr.axes)
    return simplified(result) if simplify else result


def _direction(x: Var, direction: str | Expr | None) -> Expr:
    if direction is None:
        direction = "d" + x.name
    if isinstance(direction, str):
        return dag.var(direction, x.axes)
    if not isinstance(direction, Expr) or direction.axes != x.axes:
        raise TensorCalcError(f"the direction must have the axes of {x.name!r}, {x.axes}")
    return direction


def _sum(node: Sum, ts: list) -> Expr:
    a, b = ts
    return a if b is None else b if a is None else dag.add(a, b)


def _product(node: Product, ts: list) -> Expr:
    """Leibniz: the sum over operands of the product with that operand's tangent."""
    return dag.add_all([dag.contraction(node.args[:k] + (t,) + node.args[k + 1:], (*node.spec.inputs, node.spec.out))
                        for k, t in enumerate(ts) if t is not None])


def _elementwise(node: Elementwise, ts: list) -> Expr:
    (a,), (t,) = node.args, ts
    return dag.hadamard(ELEMENTWISE_DERIVATIVES[node.fn](a), t)


def _special(node: Special, ts: list) -> Expr:
    """f'(X) has the range's axes, then X's; contract X's with the tangent."""
    (a,), (t,) = node.args, ts
    out = LETTERS[:node.order]
    dom = LETTERS[node.order:node.order + 2]
    return dag.product(SPECIAL_DERIVATIVES[node.fn](a), t, (out + dom, dom, out))


def _power(node: Power, ts: list) -> Expr:
    a = node.args[0]
    s = LETTERS[:a.order]
    in_base, in_exponent = power_partials(node)
    parts: list[Expr] = [dag.hadamard(in_base, ts[0])] if ts[0] is not None else []
    if ts[1] is not None:
        parts.append(dag.product(in_exponent, ts[1], (s, "", s)))
    return dag.add_all(parts)


def _leaf(node: Expr, ts: list) -> Expr:
    raise AssertionError(f"{type(node).__name__} has no tangent rule: it has no children")


TANGENTS: dict[type[Expr], Callable[[Any, list], Expr]] = {
    Var: _leaf, Const: _leaf, Delta: _leaf,
    Sum: _sum, Product: _product, Elementwise: _elementwise, Special: _special, Power: _power,
    Gather: lambda node, ts: dag.rebuild(node, (ts[0],)),          # linear: the gather of the tangent
}
