"""Printing: `to_text`, the one dispatch over notations, and the printer of every node.

`einsum` text is written by `tensorcalc.printing.einsum`, `matrix` and `latex` text by
`tensorcalc.printing.matrix_emit`. Importing this module installs `to_text` as the
function `str` and `repr` of nodes print with (`tensorcalc.dag.set_printer`).

    >>> from tensorcalc import dag
    >>> x = dag.var("x", [dag.Axis("x", 0)])
    >>> str(dag.add(x, x)), to_text(dag.add(x, x), "matrix")
    ('x + x', 'x + x')
"""
from __future__ import annotations

from tensorcalc import dag
from tensorcalc.dag import Expr
from tensorcalc.errors import TensorCalcError
from tensorcalc.printing.einsum import MAX_TEXT, einsum_text
from tensorcalc.printing.matrix_emit import to_matrix_text

NOTATIONS = ("einsum", "matrix", "latex")


def to_text(expr: Expr, notation: str = "einsum", limit: int | None = None) -> str:
    """The expression as text: `einsum`, the thesis' index notation (fully parenthesised);
    `matrix`, matrix notation where the order is at most 2 (`A' * x + A * x`), shared parts
    named in `let` lines, index notation for the rest; `latex`, the same as LaTeX math.
    Both `einsum` and `matrix` text parse back with `parse_expr`. With `limit`, a longer
    text is abbreviated to a note of its length."""
    if notation not in NOTATIONS:
        raise TensorCalcError(f"notation {notation!r} is unknown: use one of {', '.join(NOTATIONS)}")
    if notation != "einsum":
        return to_matrix_text(expr, notation, limit, MAX_TEXT)
    return einsum_text(expr, limit)


dag.set_printer(to_text)
