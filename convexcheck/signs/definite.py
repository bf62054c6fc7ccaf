"""Which matrix expressions are positive (negative) semidefinite or definite, read from the
declared cones: one rule per node type, so that an affine cut such as X + eye or 2 * X
(X psd) keeps its cone when `compose` abstracts it into a fresh variable, and log det,
inv and the matrix fraction of it are proven as they are of a declared pd variable.

    X (declared psd, pd, nsd, nd)        its cone
    eye = delta(1)                       pd
    c * 1 1' (a constant c >= 0)         psd
    A + B                                psd + psd is psd, pd if either is pd (nsd alike)
    -A, c * A                            the cone flipped for c < 0, kept for c > 0, weakened for c >= 0
    A'                                   A's cone
    C M C', C' M C (the same C)          M's cone, weakened (C may be singular)
    C C', C' C                           psd

Anything else is unknown (None). Sound: each rule is a theorem on symmetric matrices.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from convexcheck.signs.intervals import Interval
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Product, Spec, Sum, Var


class Cone(NamedTuple):
    """sign +1: psd side, -1: nsd side; strict: definite."""

    sign: int
    strict: bool

    def word(self) -> str:
        return {(1, True): "pd", (1, False): "psd", (-1, True): "nd", (-1, False): "nsd"}[self]


DECLARED = {"pd": Cone(1, True), "psd": Cone(1, False), "nd": Cone(-1, True), "nsd": Cone(-1, False)}


def cone(node: Expr, attributes: dict, interval: Callable[[Expr], Interval]) -> Cone | None:
    """The cone of the square matrix `node` (order 2), or None; `interval(n)` gives a
    scalar node's range (`signs.Signs.node`)."""
    if node.order != 2:
        return None
    rule = RULES.get(type(node))
    return rule(node, attributes, interval) if rule else None


def _var(node: Var, attributes, interval):
    attrs = attributes.get(node.name)
    return DECLARED.get(attrs.definite) if attrs is not None else None


def _delta(node: Delta, attributes, interval):
    return Cone(1, True) if node.n == 1 else None


def _const(node: Const, attributes, interval):
    return Cone(1 if node.value >= 0 else -1, False)        # c 1 1': rank one


def _sum(node: Sum, attributes, interval):
    found = [cone(a, attributes, interval) for a in node.args]
    parts = [p for p in found if p is not None]
    if len(parts) != len(found) or len({p.sign for p in parts}) != 1:
        return None
    return Cone(parts[0].sign, any(p.strict for p in parts))


def _neg(node: Elementwise, attributes, interval):
    if node.fn != "neg":
        return None
    inner = cone(node.args[0], attributes, interval)
    return None if inner is None else Cone(-inner.sign, inner.strict)


def _product(node: Product, attributes, interval):
    spec, args = node.spec, node.args
    if len(args) != 2:
        return None                      # the rules below read products of two operands
    if spec.inputs[0] == "" or spec.inputs[1] == "":                   # a scalar times a matrix
        k = 0 if spec.inputs[0] == "" else 1
        return _scaled(cone(args[1 - k], attributes, interval), interval(args[k]), spec.inputs[1 - k], spec.out)
    return _diagonal(node, interval) or _congruence(node, attributes, interval)


def _scaled(inner: Cone | None, iv, letters: str, out: str):
    if inner is None or sorted(letters) != sorted(out):                  # a transpose keeps the cone
        return None
    if _one_sided(iv):
        return Cone(inner.sign if iv.lo >= 0 else -inner.sign, inner.strict)
    if iv.lo >= 0 or iv.hi <= 0:
        return Cone(inner.sign if iv.lo >= 0 else -inner.sign, False)
    return None


def _one_sided(iv) -> bool:
    """Every value > 0, or every value < 0 (`pos`: lo = 0 with zero excluded)."""
    return iv.lo > 0 or iv.hi < 0 or (iv.nonzero and (iv.lo >= 0 or iv.hi <= 0))


def _diagonal(node: Product, interval):
    """diag(v), written v *(i,ij->ij) delta: pd where every entry of v is > 0, psd where
    >= 0 (nd, nsd likewise); None for any other product with a delta."""
    (s1, s2), out = node.spec.inputs, node.spec.out
    for k in (0, 1):
        v, d = node.args[k], node.args[1 - k]
        letters, pair = (s1, s2) if k == 0 else (s2, s1)
        if isinstance(d, Delta) and d.n == 1 and len(letters) == 1 and pair == out and \
                len(out) == 2 and letters in out:
            iv = interval(v)
            if iv.lo >= 0 or iv.hi <= 0:
                return Cone(1 if iv.lo >= 0 else -1, _one_sided(iv))
    return None


def _congruence(node: Product, attributes, interval):
    """C M C' and C' M C with one C node; C C' and C' C (Gram matrices)."""
    (s1, s2), out = node.spec.inputs, node.spec.out
    outer, C = node.args
    if (s1, s2, out) in (("ij", "kj", "ik"), ("ij", "ik", "jk")) and outer is C:
        return Cone(1, False)                                            # C C', C' C
    if not isinstance(outer, Product) or C not in outer.args or outer.args[0] is not C:
        return None
    inner = (outer.spec.inputs[0], outer.spec.inputs[1], outer.spec.out)
    sandwich = ((inner, (s1, s2, out)) in ((("ij", "jk", "ik"), ("ij", "kj", "ik")),     # (C M) C'
                                           (("ij", "ik", "jk"), ("ij", "jk", "ik"))))    # (C' M) C
    middle = cone(outer.args[1], attributes, interval) if sandwich else None
    return None if middle is None else Cone(middle.sign, False)


RULES: dict[type, Callable[..., Cone | None]] = {Var: _var, Delta: _delta, Const: _const, Sum: _sum,
                                                 Elementwise: _neg, Product: _product}

PAIR, ROW_TIMES = Spec(("i", "i"), ""), Spec(("i", "ij"), "j")     # u' v and u' K


def form(node: Expr, attributes: dict,
         interval: Callable[[Expr], Interval]) -> tuple[Expr, Expr | None] | None:
    """(u, None) where node is u' u (`u *(i,i->) u`, one u node), (u, K) where it is
    u' K u (`(u *(i,ij->j) K) *(i,i->) u`) with K psd: node >= 0 whatever u is (a norm
    squared, |u|^2 or |K^1/2 u|^2). None otherwise."""
    if not (isinstance(node, Product) and node.spec == PAIR):
        return None
    left, v = node.args
    if left is v:
        return v, None
    if not (isinstance(left, Product) and left.spec == ROW_TIMES):
        return None
    u, K = left.args
    found = cone(K, attributes, interval) if u is v else None
    return (u, K) if found is not None and found.sign > 0 else None


__all__ = ["Cone", "cone", "form"]
