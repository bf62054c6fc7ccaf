"""Whole-graph helpers over expression DAGs: bottom-up rewriting, substitution, structural
equality and stable fingerprints.

    >>> from tensorcalc import dag
    >>> x, y = dag.var("x", ()), dag.var("y", ())
    >>> e = dag.add(x, dag.elementwise("exp", x))
    >>> from tensorcalc.printing.text import to_text
    >>> to_text(substitute(e, {x: y}))
    'y + exp(y)'
"""
from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable, Mapping

from tensorcalc.dag import Expr, rebuild, topo

Rule = Callable[[Expr, tuple[Expr, ...]], Expr]


def rewrite(root: Expr, rule: Rule) -> Expr:
    """One bottom-up pass: `rule(node, args)` gives each node's result from the node and
    its children's results (`rebuild(node, args)` keeps the node as it is). Each node is
    visited once, children first; the result of `root` is returned."""
    new: dict[Expr, Expr] = {}
    for node in topo(root):
        new[node] = rule(node, tuple(new[c] for c in node.args))
    return new[root]


def substitute(root: Expr, table: Mapping[Expr, Expr]) -> Expr:
    """`root` with every node that is a key of `table` replaced by its value, in one pass
    (a value is not searched for further keys)."""
    return rewrite(root, lambda node, args: table[node] if node in table else rebuild(node, args))


def same_structure(a: Expr, b: Expr) -> bool:
    """True when a and b have the same node types, parameters and children, axis labels aside.

    Printing keeps structure but not every axis label (a derivative's constant may stand
    for an axis of a variable it no longer reads), so this is the equality that a
    derivative's text round trip preserves; for parsed expressions `a is b` holds.
    """
    seen: set[tuple[int, int]] = set()
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y or (id(x), id(y)) in seen:
            continue
        if type(x) is not type(y) or x.params() != y.params() or len(x.args) != len(y.args) \
                or x.order != y.order:
            return False
        seen.add((id(x), id(y)))
        stack.extend(zip(x.args, y.args))
    return True


_DIGESTS: "weakref.WeakKeyDictionary[Expr, bytes]" = weakref.WeakKeyDictionary()


def digest(expr: Expr) -> bytes:
    """A structural fingerprint, equal for equal nodes in every run (ids are not):
    a stable key for ordering commutative operands and comparing terms. Each node is
    fingerprinted once; the walk stops at nodes already done."""
    stack = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if node in _DIGESTS:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in node.args if c not in _DIGESTS)
            continue
        parts = [type(node).__name__, repr(node.params()), repr(node.axes)]
        parts += [_DIGESTS[c].hex() for c in node.args]
        _DIGESTS[node] = hashlib.blake2b("|".join(parts).encode(), digest_size=12).digest()
    return _DIGESTS[expr]
