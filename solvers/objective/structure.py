"""Block structure of a symbolic Hessian: a Kronecker delta over one axis of the variable.

For a variable x of order p, the Hessian H has 2p axes: x's axes, then x's axes again.
When every term of H carries a delta tying axis a of the first copy to axis a of the
second (matrix factorisation in U: H[i,k,i',l] = delta(i,i') B[i,k,l]), H is block
diagonal with one block per index of axis a, and `block_form` returns the expression B
of order 2p - 1 (x's axes, then x's axes without a): the blocks, computed without ever
building H. The rewrite is symbolic and exact; where it does not apply it returns None
and the caller builds the dense Hessian.
"""
from __future__ import annotations

from typing import Any, Callable

from tensorcalc import dag
from tensorcalc.dag import Delta, Elementwise, Expr, Product, Sum


def block_form(hessian: Expr, order: int) -> tuple[int, Expr] | None:
    """(a, B) for the first axis a of the variable over which `hessian` is block diagonal."""
    if hessian.order != 2 * order:
        return None
    for a in range(order):
        blocks = split_delta(hessian, a, order + a)
        if blocks is not None:
            return a, blocks
    return None


def split_delta(node: Expr, a: int, b: int) -> Expr | None:
    """E with node = delta(axis a, axis b) * E, E indexed by node's axes without b; or None."""
    rule = RULES.get(type(node))
    return rule(node, a, b) if rule else None


def _sum(node: Sum, a: int, b: int) -> Expr | None:
    parts = [split_delta(arg, a, b) for arg in node.args]
    found = [p for p in parts if p is not None]
    return dag.add_all(found) if len(found) == len(parts) else None


def _elementwise(node: Elementwise, a: int, b: int) -> Expr | None:
    if node.fn != "neg":
        return None
    inner = split_delta(node.args[0], a, b)
    return None if inner is None else dag.neg(inner)


def _delta(node: Delta, a: int, b: int) -> Expr | None:
    letters = dag.LETTERS[:2 * node.n]
    return _product_of((node, dag.const(1.0)), (letters, ""), letters, a, b)


def _product(node: Product, a: int, b: int) -> Expr | None:
    return _product_of(node.args, node.spec.inputs, node.spec.out, a, b)


def _product_of(operands, inputs, out: str, a: int, b: int) -> Expr | None:
    keep, drop = out[a], out[b]
    for k, (x, s) in enumerate(zip(operands, inputs)):
        if isinstance(x, Delta) and _paired(s, x.n, keep, drop):
            rest = _without_pair(x, s, keep, drop)
            others = [(y, t.replace(drop, keep)) for j, (y, t) in enumerate(zip(operands, inputs)) if j != k]
            return _build(others + rest, out[:b] + out[b + 1:], operands, inputs, keep)
    return None


def _paired(s: str, n: int, p: str, q: str) -> bool:
    return any({s[j], s[j + n]} == {p, q} for j in range(n))


def _without_pair(x: Delta, s: str, p: str, q: str) -> list[tuple[Expr, str]]:
    """The delta with the pair (p, q) removed: delta(n - 1) on the other pairs, or nothing."""
    n = x.n
    j = next(j for j in range(n) if {s[j], s[j + n]} == {p, q})
    if n == 1:
        return []
    left, right = s[:j] + s[j + 1:n], s[n:n + j] + s[n + j + 1:]
    axes = x.axes[:j] + x.axes[j + 1:n]
    return [(dag.delta(n - 1, axes + axes), left + right)]


def _build(pairs, out: str, operands, inputs, keep: str) -> Expr | None:
    if any(len(set(t)) != len(t) for _, t in pairs):
        return None                    # the tie lands twice on one operand: a diagonal, not handled
    if keep not in "".join(t for _, t in pairs):
        axis = next(ax for x, s in zip(operands, inputs) for c, ax in zip(s, x.axes) if c == keep)
        pairs.append((dag.const(1.0, (axis,)), keep))
    if len(pairs) == 1:
        pairs.append((dag.const(1.0), ""))
    exprs, specs = zip(*pairs)
    return dag.contraction(tuple(exprs), (*specs, out))


RULES: dict[type[Expr], Callable[[Any, int, int], Expr | None]] = {
    Sum: _sum, Elementwise: _elementwise, Delta: _delta, Product: _product}

__all__ = ["block_form", "split_delta"]
