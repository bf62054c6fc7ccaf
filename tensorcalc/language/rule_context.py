"""What a meaning rule reads and writes of the analysis it runs in: the contract between
`tensorcalc.language.meaning` (whose `_Analysis` fulfils it) and the rules below it
(`meaning_rules`, `matrix_input`, `indexing`), written as a Protocol so the rules need
not import the module that calls them.
"""
from __future__ import annotations

from typing import Any, Mapping, NoReturn, Protocol

from tensorcalc.dag import Expr
from tensorcalc.language.axis_classes import UnionFind
from tensorcalc.language.syntax import Syntax


class Analysis(Protocol):
    """One analysis of one expression, as the rules see it (one table entry per pass)."""

    text: str                                     # the source, for messages
    orders: Mapping[str, int]                     # declared names -> their orders
    order: dict[Syntax, int | None]               # pass 1: every node's order (None: not yet fixed)
    row: set[Syntax]                              # vectors written as rows (x')
    ids: dict[Syntax, tuple[int, ...]]            # pass 2: every node's axis classes
    built: dict[Syntax, Expr]                     # pass 3: every node's expression
    plans: dict[Syntax, Any]                      # accesses: tensorcalc.language.indexing.Plan (above)
    misfits: dict[Syntax, tuple[str, str]]        # products whose operands do not fit
    binding: dict[Syntax, Syntax]                 # a name node -> the let expression it names
    uf: UnionFind                                 # the axis classes
    var_ids: dict[str, tuple[int, ...]]           # axis classes of each declared name the nodes read

    def fail(self, node: Syntax, message: str) -> NoReturn:
        """Raise a ParseError pointing at `node`."""

    def function(self, node: Syntax) -> str:
        """The function a call names, after checking its number of arguments."""

    def indices(self, node: Syntax) -> tuple[str, str, str]:
        """The index strings of a product, checked once."""

    def snippet(self, node: Syntax) -> str:
        """The source text of `node`, shortened for messages."""
