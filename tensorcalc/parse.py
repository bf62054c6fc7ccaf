"""Syntax stage: text to a positioned syntax tree, following `grammar.lark`.

The tree is plain data (`Syntax` nodes with line and column); names, orders and index
strings are given meaning in the next stage, `tensorcalc.infer`. Every rejection raises
`ParseError` with a caret under the place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

import lark

from .errors import ParseError

MAX_TEXT = 8_000_000  # characters; a longer input is rejected before parsing


class Syntax:
    """One syntax node: `kind` in {number, name, call, add, sub, mul, div, neg, pow, product}."""

    __slots__ = ("kind", "line", "column", "args", "value")

    def __init__(self, kind, pos, args=(), value=None):
        self.kind, (self.line, self.column), self.args, self.value = kind, pos, tuple(args), value


@dataclass(frozen=True)
class Token:
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class SyntaxInput:
    """What the text says, before any checking of meaning."""

    decls: tuple[tuple[Token, Token], ...]   # (name, order) pairs
    expr: Syntax
    wrt: Token | None
    is_input: bool                           # True for 'declare ... expression ...'


def _pos(tok) -> tuple[int, int]:
    return (tok.line, tok.column)


class _Build(lark.Transformer):
    """Builds Syntax nodes while the LALR parser reduces (no recursion over the tree)."""

    def input(self, ch):
        decls = tuple(c for c in ch if isinstance(c, tuple))
        wrt = next((c for c in ch if isinstance(c, Token)), None)
        expr = next(c for c in ch if isinstance(c, Syntax))
        return SyntaxInput(decls, expr, wrt, True)

    def bare(self, ch):
        return SyntaxInput((), ch[0], None, False)

    def decl(self, ch):
        return (_token(ch[0]), _token(ch[1]))

    def wrt(self, ch):
        return _token(ch[0])

    def number(self, ch):
        return Syntax("number", _pos(ch[0]), value=ch[0].value)

    def name(self, ch):
        return Syntax("name", _pos(ch[0]), value=ch[0].value)

    def call(self, ch):
        return Syntax("call", _pos(ch[0]), [ch[1]], value=ch[0].value)

    def add(self, ch):
        return Syntax("add", _pos(ch[1]), [ch[0], ch[2]])

    def sub(self, ch):
        return Syntax("sub", _pos(ch[1]), [ch[0], ch[2]])

    def mul(self, ch):
        return Syntax("mul", _pos(ch[1]), [ch[0], ch[2]])

    def div(self, ch):
        return Syntax("div", _pos(ch[1]), [ch[0], ch[2]])

    def neg(self, ch):
        return Syntax("neg", _pos(ch[0]), [ch[1]])

    def pow(self, ch):
        return Syntax("pow", _pos(ch[1]), [ch[0], ch[2]])

    def product(self, ch):
        left, star, s1, s2, _arrow, s3, right = ch
        return Syntax("product", _pos(star), [left, right], value=(s1, s2, s3))

    def indices(self, ch):
        return [_token(t) for t in ch]


def _token(tok) -> Token:
    return Token(str(tok), tok.line, tok.column)


@lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    grammar = files("tensorcalc").joinpath("grammar.lark").read_text()
    return lark.Lark(grammar, parser="lalr", lexer="basic", transformer=_Build())


def read(text: str) -> SyntaxInput:
    """Parse `text` (one line or a multi-line file with # comments) into syntax."""
    if not isinstance(text, str):
        raise ParseError(f"expected the input as a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ParseError(f"input is {len(text):,} characters long; at most {MAX_TEXT:,} are accepted")
    _check_brackets(text)
    if not _has_content(text):
        raise ParseError("empty input: expected 'declare NAME ORDER ... expression EXPR' or an expression",
                         text, 1, 1)
    try:
        return _parser().parse(text)
    except lark.exceptions.UnexpectedInput as err:
        raise _translate(err, text) from None


def _has_content(text: str) -> bool:
    return any(line.split("#", 1)[0].strip() for line in text.split("\n"))


def _check_brackets(text: str) -> None:
    """Reject unbalanced round brackets, pointing at the one without a partner."""
    open_at: list[tuple[int, int]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        for col, ch in enumerate(line.split("#", 1)[0], 1):
            if ch == "(":
                open_at.append((lineno, col))
            elif ch == ")":
                if not open_at:
                    raise ParseError("unbalanced brackets: this ')' closes no '('", text, lineno, col)
                open_at.pop()
    if open_at:
        line, col = open_at[-1]
        raise ParseError("unbalanced brackets: this '(' is never closed", text, line, col)


_DESCRIBE = {
    "NAME": "a name", "NUMBER": "a number", "LPAR": "'('", "RPAR": "')'", "PLUS": "'+'",
    "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'", "CARET": "'^'", "ARROW": "'->'",
    "COMMA": "','", "DECLARE": "'declare'", "EXPRESSION": "'expression'",
    "DERIVATIVE": "'derivative wrt NAME'", "WRT": "'wrt'", "$END": "end of input",
}


def _translate(err: lark.exceptions.UnexpectedInput, text: str) -> ParseError:
    if isinstance(err, lark.exceptions.UnexpectedCharacters):
        return ParseError(f"unexpected character {err.char!r}", text, err.line, err.column)
    tok = err.token
    found = "end of input" if tok.type == "$END" else f"{tok.value!r}"
    expected = sorted({_DESCRIBE.get(e, e.lower()) for e in err.expected})
    hint = ""
    if expected == ["a number"]:
        hint = " (the order of the declared tensor, a whole number from 0 to 32)"
    line, col = (tok.line, tok.column) if tok.type != "$END" else _end_of(text)
    return ParseError(f"unexpected {found}; expected {_join(expected)}{hint}", text, line, col)


def _end_of(text: str) -> tuple[int, int]:
    lines = text.rstrip().split("\n")
    return len(lines), len(lines[-1]) + 1


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def number_value(node: Syntax, text: str) -> float:
    value = float(node.value)
    if not math.isfinite(value):
        raise ParseError(f"number {node.value} is too large for float64", text, node.line, node.column)
    return value
