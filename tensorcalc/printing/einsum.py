"""Einsum notation: every expression as text of the input language, fully parenthesised,
one template per node type (TEMPLATES).

Contract: `parse_expr(einsum_text(e), orders)` rebuilds `e` (the same hash-consed node)
whenever the text determines every axis of `e` (always for parsed expressions). Text is
tree-shaped, so a DAG with heavy sharing can print exponentially long: the length is
computed first and a text over MAX_TEXT characters is refused with a TensorCalcError.

    >>> x = dag.var("x", [dag.Axis("x", 0)])
    >>> einsum_text(dag.product(x, dag.elementwise("exp", x), ("i", "i", "")))
    'x *(i,i->) exp(x)'
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from tensorcalc import dag
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.errors import TensorCalcError

MAX_TEXT = 20_000_000


class _Bare:
    """Marks a child printed without its outer brackets (a function argument)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


def number(value: float) -> str:
    """A constant as the language writes it: `2`, `0.5`, `(-3)` (negatives bracketed)."""
    if value == int(value) and abs(value) < 1e16:
        text = str(int(value))
    else:
        text = repr(value)
    return f"({text})" if value < 0 else text


def _is_neg(node: Expr) -> bool:
    return isinstance(node, Elementwise) and node.fn == "neg"


def _is_division(node: Product) -> bool:
    if len(node.args) != 2:
        return False
    a, b = node.args
    s = node.spec
    return (isinstance(b, Elementwise) and b.fn == "recip" and s.left == s.right == s.out
            and not (isinstance(a, Const) and a.value == 1.0))


def _sum(node: Sum) -> list:
    a, b = node.args
    if _is_neg(b):
        return ["(", a, " - ", b.args[0], ")"]
    if isinstance(b, Const) and b.value < 0:
        return ["(", a, " - ", number(-b.value), ")"]
    return ["(", a, " + ", b, ")"]


def _product(node: Product) -> list:
    """Binary products print as they parse; a contraction of n > 2 operands prints as a
    left fold of binary products, each keeping the letters still needed."""
    if _is_division(node):
        return ["(", node.args[0], " / ", node.args[1].args[0], ")"]
    inputs, out = node.spec
    parts: list = [node.args[0]]
    have = inputs[0]
    for k in range(1, len(inputs)):
        later = "".join(inputs[k + 1:]) + out
        keep = out if k == len(inputs) - 1 else "".join(c for c in dict.fromkeys(have + inputs[k]) if c in later)
        parts = ["(", *parts, f" *({have},{inputs[k]}->{keep}) ", node.args[k], ")"]
        have = keep
    return parts


def _elementwise(node: Elementwise) -> list:
    (a,) = node.args
    if node.fn == "neg":
        return ["-(", _Bare(a), ")"]
    if node.fn == "recip":
        return ["(1 / ", a, ")"]
    return [node.fn, "(", _Bare(a), ")"]


def _power(node: Power) -> list:
    base, exponent = node.args
    if _is_neg(base):
        return ["((", base, ") ^ ", exponent, ")"]
    return ["(", base, " ^ ", exponent, ")"]


TEMPLATES: dict[type[Expr], Callable[[Any], list]] = {
    Var: lambda n: [n.name],
    Const: lambda n: [number(n.value)],
    Delta: lambda n: [f"delta({n.n})"],
    Sum: _sum,
    Product: _product,
    Elementwise: _elementwise,
    Special: lambda n: [n.fn, "(", _Bare(n.args[0]), ")"],
    Power: _power,
    Gather: lambda n: ["gather(", _Bare(n.args[0]), "; " + describe_gather(n) + ")"],
}


def describe_gather(node: Gather) -> str:
    """`i<3, j<4, k<5 -> [i + k] if k - i <= 0`: the box, the index map and the guards
    (not part of the input language: affine access is written with `parse_def`)."""
    names = [f"g{k}" for k in range(len(node.shape))]
    box = ", ".join(f"{v}<{n}" for v, n in zip(names, node.shape))
    index = ", ".join(_frac(affine_text(a, c, names), d) for a, c, d in node.rows)
    guards = [f"{affine_text(a, c, names)} >= 0" for a, c in node.domain]
    return f"{box} -> [{index}]" + (" if " + " and ".join(guards) if guards else "")


def _frac(text: str, den: int) -> str:
    return text if den == 1 else f"({text}) / {den}"


def affine_text(coefficients: Sequence[int], constant: int, names: Sequence[str]) -> str:
    """sum of coefficient * name + constant, written as people write it: `i + k - 1`."""
    out = ""
    for v, name in list(zip(coefficients, names)) + [(constant, "")]:
        if v == 0:
            continue
        term = name if abs(v) == 1 and name else f"{abs(v)}*{name}" if name else str(abs(v))
        out += (" - " if v < 0 else " + ") + term if out else ("-" if v < 0 else "") + term
    return out or "0"


def text_length(expr: Expr) -> int:
    """Length of the printed text, computed on the DAG without printing."""
    size: dict[Expr, int] = {}
    for node in dag.topo(expr):
        parts = TEMPLATES[type(node)](node)
        size[node] = sum(len(p) if isinstance(p, str) else size[_unwrap(p)] for p in parts)
    return size[expr]


def _unwrap(part) -> Expr:
    return part.node if isinstance(part, _Bare) else part


def _order_in_text(expr: Expr) -> bool:
    """Whether the text of expr states its order (else it would read back as a scalar)."""
    known: dict[Expr, bool] = {}
    for node in dag.topo(expr):
        if isinstance(node, (Sum, Elementwise, Power)):
            known[node] = any(known[c] for c in node.args[:1 if isinstance(node, Power) else 2])
        else:
            known[node] = not isinstance(node, Const)
    return known[expr]


def einsum_text(expr: Expr, limit: int | None = None) -> str:
    """The expression in the thesis' index notation, fully parenthesised (see the module);
    with `limit`, a longer text is abbreviated to a note of its length."""
    length = text_length(expr)
    if limit is not None and length > limit:
        return f"<{length:,} characters, {dag.count_nodes(expr)} nodes>"
    if length > MAX_TEXT:
        raise TensorCalcError(f"the expression prints to {length:,} characters (over {MAX_TEXT:,}); "
                              f"it has {dag.count_nodes(expr)} shared nodes: inspect it as a DAG instead")
    out: list[str] = []
    stack: list = [_Bare(expr)]
    if expr.order and not _order_in_text(expr):
        s = dag.LETTERS[:expr.order]
        stack = [")", f" *({s},->{s}) 1", expr, "("]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        parts = TEMPLATES[type(_unwrap(item))](_unwrap(item))
        if isinstance(item, _Bare) and parts[0].startswith("(") and parts[-1] == ")":
            parts = [parts[0][1:], *parts[1:-1]]      # every template's brackets pair up
        stack.extend(reversed(parts))
    return "".join(out)
