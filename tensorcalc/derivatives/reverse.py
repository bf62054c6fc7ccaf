"""Reverse-mode differentiation (thesis chapter 4), written in the language itself.

The derivative of an order-q expression y with respect to an order-p variable x is an
order q+p expression: y's axes first, then x's (as `jax.jacobian`). The pullback of a
node v is dy/dv, with axes y.axes + v.axes; the root's pullback is delta(q) (eq. 4.2).
Nodes are visited once, parents before children; the contributions of several parents
are summed (eq. 4.1), so differentiation adds O(|V| + |E|) nodes (section 4.8).

Before differentiating, `prepare` rewrites the part of the DAG that depends on x:
products with missing indices get their sum made explicit (section 4.6), and a^b with x
in both a and b becomes exp(b * log(a)) (table 3.1).
"""
from __future__ import annotations

from typing import Any, Callable

from tensorcalc import dag, graph
from tensorcalc.algebra.simplify import simplify as simplified
from tensorcalc.collector import pausing
from tensorcalc.dag import LETTERS, Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.errors import TensorCalcError
from tensorcalc.gather import affine
from tensorcalc.memo import memoized
from tensorcalc.numeric.minors import adj_derivative


@pausing                                         # many nodes, no cycles: see `collector`
def derivative(expr: Expr, wrt: str | Var, order: int = 1, simplify: bool = True) -> Expr:
    """d^order expr / d wrt^order; `wrt` a variable name in `expr` or a Var node.

    With `simplify` (the default) each order is simplified before the next is taken;
    `simplify=False` gives the thesis' raw reverse-mode result.
    """
    if not isinstance(expr, Expr):
        raise TensorCalcError(f"derivative expects an expression, got {type(expr).__name__}")
    if not isinstance(order, int) or isinstance(order, bool) or order < 0:
        raise TensorCalcError(f"derivative order must be a whole number >= 0, got {order!r}")
    x = resolve(expr, wrt)
    for _ in range(order):
        expr = _reverse(expr, x)
        expr = simplified(expr) if simplify else expr
    return expr


def hessian(expr: Expr, wrt: str | Var, simplify: bool = True) -> Expr:
    """The second derivative: for a scalar expression and a variable of order p, an
    order-2p tensor (the variable's axes twice)."""
    return derivative(expr, wrt, 2, simplify)


def resolve(expr: Expr, wrt: str | Var) -> Var:
    """The variable `wrt` names in `expr` (a Var passes through)."""
    if isinstance(wrt, Var):
        return wrt
    found = dag.variables(expr)
    if wrt not in found:
        raise TensorCalcError(f"cannot differentiate with respect to {wrt!r}: the expression has no "
                              f"variable of that name (its variables: {', '.join(found) or 'none'})")
    return found[wrt]


def _reverse(expr: Expr, x: Var) -> Expr:
    expr, depends = prepare(expr, x)
    if expr not in depends:
        return dag.const(0.0, expr.axes + x.axes)
    root_axes = expr.axes
    pending: dict[Expr, list[Expr]] = {expr: [dag.delta(expr.order, root_axes + root_axes)]}
    for node in reversed(depends):
        if node not in pending:
            continue
        pullback = dag.add_all(pending.pop(node))
        if node is x:
            return pullback
        for i, child in enumerate(node.args):
            if child in depends:
                pending.setdefault(child, []).append(PULLBACKS[type(node)](node, pullback, i, len(root_axes)))
    raise AssertionError("the variable depends on itself but was never reached")


# ---------------------------------------------------------------------------- preparation

def prepare(expr: Expr, x: Var) -> tuple[Expr, dict[Expr, None]]:
    """Rewrite the part of `expr` that depends on x (sections 3.2.1, 4.6).

    Returns the rewritten expression and its nodes that depend on x (`depending`).
    """
    depends: set[Expr] = set()

    def rule(node: Expr, args: tuple[Expr, ...]) -> Expr:
        rebuilt = dag.rebuild(node, args)
        if node is x or not depends.isdisjoint(node.args):
            depends.add(node)
            rebuilt = _rewrite(rebuilt, [c in depends for c in node.args])
        return rebuilt
    rewritten = graph.rewrite(expr, rule)
    return rewritten, depending(rewritten, x)


def depending(expr: Expr, x: Var) -> dict[Expr, None]:
    """The nodes of `expr` whose value depends on x, children before parents (a dict as an
    ordered set: the reverse pass visits only these, in reverse)."""
    found: dict[Expr, None] = {}
    for node in dag.topo(expr):
        if node is x or not found.keys().isdisjoint(node.args):
            found[node] = None
    return found


def _rewrite(node: Expr, dependent: list[bool]) -> Expr:
    if isinstance(node, Product):
        return _explicit_sum(node)
    if isinstance(node, Power) and all(dependent):
        base, exponent = node.args
        return dag.elementwise("exp", dag.scale(exponent, dag.elementwise("log", base)))
    return node


def _explicit_sum(node: Product) -> Expr:
    """A product with indices summed inside one operand only, such as
    a *(s1,s2->s3) b with m in s1 but not in s2 or s3, becomes
    (a *(s1,s2->s3 m) b) *(s3 m, m->s3) 1 (section 4.6), so every operand's pullback
    is a valid product."""
    inputs, out = node.spec
    missing = "".join(dict.fromkeys(c for k, s in enumerate(inputs) for c in s
                                    if c not in out and not any(c in t for j, t in enumerate(inputs) if j != k)))
    if not missing:
        return node
    inner = dag.contraction(node.args, (*inputs, out + missing))
    ones = dag.const(1.0, inner.axes[len(out):])
    return dag.product(inner, ones, (out + missing, missing, out))


# ---------------------------------------------------------------------------- index helpers

@memoized(maxsize=1 << 12)
def _fresh(count: int, used: str) -> str:
    """The first `count` letters not in `used` (cached: a rule asks this for every node)."""
    free = [c for c in LETTERS if c not in used]
    if count > len(free):
        raise TensorCalcError(f"the derivative needs more than {len(LETTERS)} distinct indices in one product")
    return "".join(free[:count])


def contract(operands: tuple[Expr, ...], inputs: tuple[str, ...], target: str) -> Expr:
    """The contraction of `operands` into `target`, which may repeat a letter: a repeated
    letter places the result on a diagonal, written as a product with a delta tensor."""
    unique = "".join(dict.fromkeys(target))
    result = dag.contraction(operands, (*inputs, unique))
    if unique == target:
        return result
    axis = dict(zip("".join(inputs), (ax for x in operands for ax in x.axes)))
    seen: set[str] = set()
    renamed: list[str] = []
    first: list[str] = []
    extra: list[str] = []
    for c in target:
        if c in seen:
            m = _fresh(1, "".join(inputs) + target + "".join(extra))
            first.append(c)
            extra.append(m)
            renamed.append(m)
        else:
            seen.add(c)
            renamed.append(c)
    d = dag.delta(len(first), [axis[c] for c in first] * 2)
    return dag.product(result, d, (unique, "".join(first + extra), "".join(renamed)))


# ---------------------------------------------------------------------------- rules

def _sum(node: Sum, pullback: Expr, i: int, q: int) -> Expr:
    return pullback


def _product(node: Product, pullback: Expr, i: int, q: int) -> Expr:
    """The pullback times every other operand: G *(s4 out, s_j..., -> s4 s_i) others."""
    inputs, out = node.spec
    s4 = _fresh(q, "".join(inputs) + out)
    others = [k for k in range(len(inputs)) if k != i]
    return contract((pullback, *(node.args[k] for k in others)),
                    (s4 + out, *(inputs[k] for k in others)), s4 + inputs[i])


def _chain(pullback: Expr, q: int, fprime: Expr, child: Expr, out_order: int | None) -> Expr:
    """pullback *(s4 s2, s2 s1 -> s4 s1) f', s2 the node's and s1 the child's indices;
    for an element-wise f the two coincide and f' is stored diagonal: *(s4 s1, s1 -> s4 s1)."""
    s1 = LETTERS[:child.order]
    s4 = _fresh(q, s1)
    if out_order is None:
        return dag.product(pullback, fprime, (s4 + s1, s1, s4 + s1))
    s2 = _fresh(out_order, s1 + s4)
    return dag.product(pullback, fprime, (s4 + s2, s2 + s1, s4 + s1))


def _square(a: Expr) -> Expr:
    return dag.hadamard(a, a)


def _arcsin_prime(x: Expr) -> Expr:
    return dag.recip(dag.power(dag.sub(dag.const_like(1, x), _square(x)), dag.const(0.5)))


def _huber_prime(x: Expr) -> Expr:
    """huber'(x) = 2 clip(x, -1, 1), written 2 (x .* r + sign(x) .* (1 - r)) with the indicator
    r = relu(sign(1 - |x|)) of |x| < 1: exact for every x (a difference such as
    x - sign(x) relu(|x| - 1) cancels to 0 for |x| > 1e16), and its own derivative is 2 r,
    2 on |x| < 1 (also at 0), 0 elsewhere, and in [0, 2] to interval arithmetic."""
    one = dag.const_like(1, x)
    r = dag.elementwise("relu", dag.elementwise("sign", dag.sub(one, dag.elementwise("abs", x))))
    clip = dag.add(dag.hadamard(x, r), dag.hadamard(dag.elementwise("sign", x), dag.sub(one, r)))
    return dag.scale(dag.const(2.0), clip)


ELEMENTWISE_DERIVATIVES = {  # f'(x) for the element-wise functions (table 4.1)
    "sin": lambda x: dag.elementwise("cos", x),
    "cos": lambda x: dag.neg(dag.elementwise("sin", x)),
    "tan": lambda x: dag.recip(_square(dag.elementwise("cos", x))),
    "arcsin": _arcsin_prime,
    "arccos": lambda x: dag.neg(_arcsin_prime(x)),
    "arctan": lambda x: dag.recip(dag.add(dag.const_like(1, x), _square(x))),
    "tanh": lambda x: dag.sub(dag.const_like(1, x), _square(dag.elementwise("tanh", x))),
    "exp": lambda x: dag.elementwise("exp", x),
    "log": lambda x: dag.recip(x),
    "sign": lambda x: dag.const_like(0, x),
    "relu": lambda x: dag.elementwise("relu", dag.elementwise("sign", x)),
    "abs": lambda x: dag.elementwise("sign", x),
    "huber": _huber_prime,
    "neg": lambda x: dag.const_like(-1, x),
    "recip": lambda x: dag.neg(dag.recip(_square(x))),
}


def _elementwise(node: Elementwise, pullback: Expr, i: int, q: int) -> Expr:
    child = node.args[0]
    return _chain(pullback, q, ELEMENTWISE_DERIVATIVES[node.fn](child), child, None)


def _inv_derivative(x: Expr) -> Expr:
    """d inv(X)[a,b] / dX[c,d] = -inv[a,c] inv[d,b], as -(inv(X)) *(ij,kl->kjli) inv(X)."""
    inv = dag.special("inv", x)
    return dag.product(dag.neg(inv), inv, ("ij", "kl", "kjli"))


SPECIAL_DERIVATIVES = {  # f'(X), axes: f's range first, then X's (table 4.1)
    "det": lambda x: dag.product(dag.special("adj", x), dag.const(1.0), ("ij", "", "ji")),
    "inv": _inv_derivative,
    "adj": adj_derivative,               # evaluated exactly, also at singular X: see `minors`
}


def _special(node: Special, pullback: Expr, i: int, q: int) -> Expr:
    child = node.args[0]
    return _chain(pullback, q, SPECIAL_DERIVATIVES[node.fn](child), child, node.order)


def power_partials(node: Power) -> tuple[Expr, Expr]:
    """The element-wise partials of a^b: b a^(b-1) in a and a^b .* log(a) in b (4.2.4)."""
    a, b = node.args
    return (dag.scale(b, dag.power(a, dag.sub(b, dag.const(1.0)))),
            dag.hadamard(node, dag.elementwise("log", a)))


def _power(node: Power, pullback: Expr, i: int, q: int) -> Expr:
    """In a: the element-wise chain rule; in the scalar b: summed over a's entries."""
    a = node.args[0]
    fprime = power_partials(node)[i]
    if i == 0:
        return _chain(pullback, q, fprime, a, None)
    s1 = LETTERS[:a.order]
    s4 = _fresh(q, s1)
    return dag.product(pullback, fprime, (s4 + s1, s1, s4))


def _leaf(node: Expr, pullback: Expr, i: int, q: int) -> Expr:
    raise AssertionError(f"{type(node).__name__} has no children")


PULLBACKS: dict[type[Expr], Callable[[Any, Expr, int, int], Expr]] = {
    Var: _leaf, Const: _leaf, Delta: _leaf,
    Sum: _sum, Product: _product, Elementwise: _elementwise, Special: _special, Power: _power,
    Gather: lambda node, pullback, i, q: affine.transpose(node, pullback, q),
}
