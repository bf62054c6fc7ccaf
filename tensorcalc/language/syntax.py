"""The syntax tree: what the text says, as plain positioned records, before any meaning.

`tensorcalc.language.parse` builds these from the text (`read`, `read_problem`); sugar
rewrites calls in them; `tensorcalc.language.meaning` gives them meaning.

    >>> Syntax("name", (1, 5), value="x", span=(4, 5)).kind
    'name'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


class Syntax:
    """One syntax node: `kind` in {number, name, call, access, add, sub, mul, div, hadamard,
    neg, pow, product, transpose} (and `compare`, built by convexcheck for a constraint).
    An access `x[...]` has no args: its value is (name, subscripts), each a Syntax or a
    Slice.
    (line, column) is where to point (the operator, the name); [start, end) is the text
    the node covers, brackets included."""

    __slots__ = ("kind", "line", "column", "args", "value", "start", "end")

    def __init__(self, kind: str, pos: tuple[int, int], args: Iterable[Syntax] = (), value: Any = None,
                 span: tuple[int, int] = (0, 0)) -> None:
        self.kind, (self.line, self.column), self.args, self.value = kind, pos, tuple(args), value
        self.start, self.end = span


@dataclass(frozen=True)
class Slice:
    """A subscript `start:stop:step` of an access (each part a Syntax, or None where
    left out); (line, column) is where it starts."""

    line: int
    column: int
    start: Syntax | None
    stop: Syntax | None
    step: Syntax | None


@dataclass(frozen=True)
class Token:
    text: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0     # just past the token
    kind: str = ""          # the grammar's terminal: NAME, NUMBER, LSQB, ...


@dataclass(frozen=True)
class Let:
    """`let NAME = EXPR`: NAME stands for the expression in what follows."""

    name: Token
    expr: Syntax
    keyword: Token | None = None


@dataclass(frozen=True)
class SyntaxInput:
    """What the text says, before any checking of meaning."""

    decls: tuple[tuple[Token, Token], ...]   # (name, order) pairs
    expr: Syntax
    wrt: Token | None
    is_input: bool                           # True for 'declare ... expression ...'
    lets: tuple[Let, ...] = ()


@dataclass(frozen=True)
class Statement:
    """One statement of a problem file. `kind` is its keyword ('variable', 'minimize', ...)
    or 'constraint' for a line after `subject to`; `tokens` are a declaration's (or a
    `declare`'s or a definition head's) tokens; `sides` and `ops` a relation: the
    expressions (None where one is missing) between the comparisons; `let` a let."""

    kind: str
    keyword: Token | None
    tokens: tuple[Token, ...] = ()
    sides: tuple[Syntax | None, ...] = ()
    ops: tuple[Token, ...] = ()
    let: Let | None = None
    body: Syntax | None = None               # a definition's body
