"""CVXPY's implicit domains, carried into the translation as declarations.

CVXPY defines an atom only on its domain (`kl_div(x, y)` for x, y >= 0, `power(x, 3)` for
x >= 0, `inv_pos(x)` for x > 0, `log_det(A)` for A psd) and solves a problem on the
intersection of its atoms' domains. The translated formula alone has a larger natural
domain (x log(x / y) is finite for x, y < 0 too; x^3 for every x), where it may be
nonconvex: an analysis of the formula would report "nonconvex" with a witness outside the
domain CVXPY meant, on a problem CVXPY calls DCP. So the atom's own domain constraints
(CVXPY's `_domain`, not its arguments': each node adds its own) that bound one plain
variable become that variable's attributes: `0 <= x` is `nonneg`, `X >> 0` is `pd`; bounds
on entries of one (`quad_over_lin(x[i], y[i])` for every i) do once they cover every entry.
Where the translated formula is finite only inside (x log(x / y) at x = 0, inv(A) at a
singular A), the word is the strict one (`pos`, `pd`): the interior, whose closure is
CVXPY's domain. A constraint on an expression (`kl_div(x + 1, y)`) is not a declaration
and is left out (the formula's own domain then stands).

A variable whose declaration already says as much or more keeps it; a numeric bound on
the side a sign bounds gives way to the sign where that is tighter (bounds [-1, 5] and
power(x, 3): 0 <= x <= 5); a declaration that excludes the domain (nonpos, or <= -1, where
the atom needs nonneg) is left as written: CVXPY's problem is then infeasible as its
author wrote it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from convexcheck.bridge.linear import positions

STRICT = {"kl_div", "rel_entr"}          # x log(x / y): its perspective proof and value need x, y > 0
SIGNS = ("pos", "nonneg", "neg", "nonpos")
STRONGER = {"nonneg": "pos", "nonpos": "neg"}
DEFINITE = ("pd", "psd", "nd", "nsd")


def domain_words(e: Any) -> list[tuple[Any, str, frozenset | None]]:
    """(plain CVXPY Variable, attribute word, its entries) for each of the atom e's own
    domain constraints that bounds one plain variable or entries of one (`y[i]`: the flat
    entries, C order; None: all of them). See the module docstring."""
    own = getattr(e, "_domain", None)
    if own is None:
        return []
    try:
        constraints = own()
    except Exception:  # noqa: BLE001 - an atom whose domain CVXPY cannot state: none carried
        return []
    strict = type(e).__name__ in STRICT
    out = []
    for leaf, word, entries in (_word(c) for c in constraints):
        if leaf is not None and word is not None:
            out.append((leaf, STRONGER.get(word, word) if strict else word, entries))
    return out


def merged(words: list[str], word: str) -> list[str]:
    """The declaration's words with `word` added where it says more and contradicts nothing.
    A numeric bound on the side the sign bounds gives way where the sign is tighter
    (`>= -1` and nonneg: x >= 0, CVXPY's domain intersected with the bounds); bounds that
    contradict the sign are left as the author wrote them."""
    if any(w.startswith((">", "<")) for w in words):
        return _bounded(words, word)
    if word in SIGNS:
        present = [w for w in words if w in SIGNS]
        if not present:
            return words + [word]
        return [word if w == present[0] and STRONGER.get(w) == word else w for w in words]
    present = [w for w in words if w in DEFINITE]
    if present:
        return ["pd" if w == "psd" and word == "pd" else w for w in words]
    return [w for w in words if w != "symmetric"] + [word]


def _bounded(words: list[str], word: str) -> list[str]:
    """`merged` for a declaration with numeric bounds: the sign replaces a looser bound on
    its side; anything else stays."""
    side = {"nonneg": ">=", "pos": ">=", "nonpos": "<=", "neg": "<="}.get(word)
    if side is None or any(w in SIGNS for w in words):
        return words
    other = "<=" if side == ">=" else ">="
    strict = word in ("pos", "neg")
    if any(w.startswith(other) and _excludes(_number(w, other), side, strict) for w in words):
        return words                                     # the bounds exclude the domain: as written
    found = [w for w in words if w.startswith(side)]
    if not found:
        return words + [word]
    bound = _number(found[0], side)
    looser = bound < 0 if side == ">=" else bound > 0
    return [w for w in words if w != found[0]] + [word] if looser else words


def _excludes(bound: float, side: str, strict: bool) -> bool:
    """Whether an upper bound (for a sign that bounds from below; a lower one otherwise) leaves
    no point of the sign's side."""
    if side == ">=":
        return bound <= 0 if strict else bound < 0
    return bound >= 0 if strict else bound > 0


def _number(word: str, op: str) -> float:
    return float(word[len(op):].strip().strip("()"))


def _word(c: Any) -> tuple[Any, str | None, frozenset | None]:
    kind = type(c).__name__
    if kind == "Inequality":                                # lhs <= rhs
        lhs, rhs = c.args
        for zero, side, word in ((lhs, rhs, "nonneg"), (rhs, lhs, "nonpos")):
            if _zero(zero) and _plain(side):
                return side, word, None
            if _zero(zero) and (found := _entries(side)) is not None:
                return found[0], word, found[1]
    if kind == "PSD":
        leaf = plain_shifted(c.args[0])
        if leaf is not None:
            return leaf, "pd", None
    return None, None, None


def _entries(e: Any) -> tuple[Any, frozenset] | None:
    """(variable, the flat entries it picks) of an index of a plain variable (`y[i]`,
    `y[2:5]`), else None."""
    if type(e).__name__ != "index" or not _plain(e.args[0]):
        return None
    picked = positions(e, 0)
    if picked is None:
        return None
    flat = picked.reshape(-1)
    return e.args[0], frozenset(int(k) - 1 for k in flat[flat > 0])


def _plain(e: Any) -> bool:
    return type(e).__name__ == "Variable"


def _zero(e: Any) -> bool:
    if e.variables() or e.parameters():
        return False
    value = e.value
    return value is not None and not np.any(np.asarray(value.toarray() if hasattr(value, "toarray") else value))


def plain_shifted(e: Any) -> Any:
    """The variable of `X` or `X + 0` (how CVXPY writes `X >> 0`), else None."""
    if _plain(e):
        return e
    if type(e).__name__ == "AddExpression":
        leaves = [a for a in e.args if _plain(a)]
        if len(leaves) == 1 and all(_zero(a) for a in e.args if a is not leaves[0]):
            return leaves[0]
    return None
