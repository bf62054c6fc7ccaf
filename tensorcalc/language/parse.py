"""Syntax stage: text to a positioned syntax tree, following `grammar.lark`.

The tree is plain data (`Syntax` nodes with a line, a column and the span of text they
cover); names, orders and what each operator means are decided in the next stage,
`tensorcalc.language.meaning`. `read` reads the thesis input form or a bare expression (with `let`
lines), `read_problem` a problem file into `Statement`s for convexcheck. Every rejection
raises `ParseError` with a caret under the place.
"""
from __future__ import annotations

import math
from importlib.resources import files
from typing import Iterator

import lark
from lark.lark import PostLex

from tensorcalc.errors import ParseError
from tensorcalc.language.sugar import SIGNATURES as SUGAR
from tensorcalc.language.sugar import expand
from tensorcalc.language.syntax import Let, Slice, Statement, Syntax, SyntaxInput, Token
from tensorcalc.language.syntax_errors import REJECTIONS, STATEMENT_KEYWORDS, check_brackets, syntax_error
from tensorcalc.memo import memoized
from tensorcalc.store import cache

MAX_TEXT = 8_000_000  # characters; a longer input is rejected before parsing


def _pos(tok) -> tuple[int, int]:
    return (tok.line, tok.column)


def _token(tok) -> Token:
    return Token(str(tok), tok.line, tok.column, tok.end_line, tok.end_column, tok.type)


def _binary(kind):
    def build(self, ch):
        a, op, b = ch
        return Syntax(kind, (op.line, op.column), (a, b), span=(a.start, b.end))
    return build


class _Build(lark.Transformer):
    """Builds Syntax nodes while the LALR parser reduces (no recursion over the tree)."""

    add, sub, mul, div, hadamard, pow = (_binary(k) for k in ("add", "sub", "mul", "div", "hadamard", "pow"))

    def thesis(self, ch):
        decls = tuple(c for c in ch if isinstance(c, tuple))
        wrt = ch[-1] if isinstance(ch[-1], Statement) else None
        expr = next(c for c in ch if isinstance(c, Syntax))
        return SyntaxInput(decls, expr, wrt.tokens[-1] if wrt else None, True)

    def bare(self, ch):
        return SyntaxInput((), ch[-1], None, False, tuple(ch[:-1]))

    def decl(self, ch):
        return (_token(ch[0]), _token(ch[1]))

    def wrt(self, ch):
        return Statement("derivative", _token(ch[0]), (_token(ch[1]), _token(ch[2])))

    def let(self, ch):
        return Let(_token(ch[1]), ch[3], _token(ch[0]))

    constraint_let = let

    def number(self, ch):
        t = ch[0]
        return Syntax("number", (t.line, t.column), value=t.value, span=(t.start_pos, t.end_pos))

    def name(self, ch):
        t = ch[0]
        return Syntax("name", (t.line, t.column), value=t.value, span=(t.start_pos, t.end_pos))

    def call(self, ch):
        name = ch[0]
        node = Syntax("call", (name.line, name.column), ch[2:-1:2], name.value, (name.start_pos, ch[-1].end_pos))
        return expand(node) if name.value in SUGAR else node

    def access(self, ch):
        name = ch[0]
        value = (name.value, tuple(ch[2:-1:2]))
        return Syntax("access", (name.line, name.column), (), value, (name.start_pos, ch[-1].end_pos))

    def slice(self, ch):
        parts: list[list] = [[]]
        for c in ch:
            if isinstance(c, Syntax):
                parts[-1].append(c)
            else:
                parts.append([])
        first = next((c for c in ch if not isinstance(c, Syntax)), None)
        where = (ch[0].line, ch[0].column) if isinstance(ch[0], Syntax) else (first.line, first.column)
        return Slice(*where, *(p[0] if p else None for p in parts + [[]] * (3 - len(parts))))

    def paren(self, ch):
        inner = ch[1]
        inner.start, inner.end = ch[0].start_pos, ch[2].end_pos
        return inner

    def neg(self, ch):
        minus, a = ch
        return Syntax("neg", (minus.line, minus.column), (a,), span=(minus.start_pos, a.end))

    def transpose(self, ch):
        a, mark = ch
        return Syntax("transpose", (mark.line, mark.column), (a,), span=(a.start, mark.end_pos))

    def product(self, ch):
        left, star, _lpar, s1, _c, s2, _arrow, s3, _rpar, right = ch
        return Syntax("product", (star.line, star.column), (left, right), (s1, s2, s3), (left.start, right.end))

    def indices(self, ch):
        return [_token(t) for t in ch]

    # ------------------------------------------------------------------ problem statements
    def problem(self, ch):
        out = []
        for c in ch:
            out.extend(c if isinstance(c, list) else [_statement(c)])
        return out

    def declare(self, ch):
        return Statement("declare", _token(ch[0]), tuple(t for pair in ch[1:] for t in pair))

    def declaration(self, ch):
        return Statement(str(ch[0]), _token(ch[0]), tuple(_token(t) for t in ch[1:]))

    def definition(self, ch):
        return Statement("define", _token(ch[0]), tuple(_token(t) for t in ch[1:-2]), body=ch[-1])

    def objective(self, ch):
        sides, ops = ch[1]
        return Statement(str(ch[0]), _token(ch[0]), sides=sides, ops=ops)

    def subject(self, ch):
        out = [Statement("subject", _token(ch[0]))]
        for c in ch[2:]:
            if isinstance(c, Let):
                out.append(_statement(c))
            elif c[1] or c[0][0] is not None:
                out.append(Statement("constraint", None, sides=c[0], ops=c[1]))
        return out

    def relation(self, ch):
        sides, ops, current = [], [], None
        for c in ch:
            if isinstance(c, Syntax):
                current = c
            else:
                sides.append(current)
                ops.append(_token(c))
                current = None
        sides.append(current)
        return tuple(sides), tuple(ops)


def _statement(c) -> Statement:
    return Statement("let", c.keyword, let=c) if isinstance(c, Let) else c


class Lines(PostLex):
    """A line break is whitespace, except outside brackets at the end of a `let` line
    (_LNL) and of each line after `subject to` (_CNL); blank and comment lines are one
    line break. A `let` on the last line gets its _LNL at the end of the text."""

    always_accept = ("NL",)
    # what each token that matters does to (depth, let, subject); every other token passes
    _EFFECT = {"LPAR": (1, None, None), "LSQB": (1, None, None), "RPAR": (-1, None, None),
               "RSQB": (-1, None, None), "LET": (0, True, None), "SUBJECT": (0, None, True),
               **{k.upper(): (0, None, False) for k in STATEMENT_KEYWORDS if k not in ("subject", "let")}}

    def process(self, stream: Iterator[lark.Token]) -> Iterator[lark.Token]:
        depth, let, subject, tok = 0, False, False, None
        effects = self._EFFECT
        for tok in stream:
            effect = effects.get(tok.type)
            if effect is not None:
                depth = max(depth + effect[0], 0)
                let = let if effect[1] is None else effect[1]
                subject = subject if effect[2] is None else effect[2]
            elif tok.type == "NL":
                if depth == 0 and (subject or let):
                    yield lark.Token.new_borrow_pos("_CNL" if subject else "_LNL", "", tok)
                    let = False
                continue
            yield tok
        if let and not subject and tok is not None:
            yield lark.Token("_LNL", "", tok.end_pos, tok.end_line, tok.end_column)


@memoized(maxsize=1)
def _parser() -> lark.Lark:
    grammar = files("tensorcalc.language").joinpath("grammar.lark").read_text()
    runtime = {"postlex": Lines(), "transformer": _Build()}
    return cache.parser(grammar, lambda: lark.Lark(grammar, parser="lalr", lexer="contextual",
                                                   start=["start", "problem"], **runtime), **runtime)


def read(text: str) -> SyntaxInput:
    """Parse `text` (one line or a multi-line file with # comments) into syntax: the
    thesis input form, or a bare expression after any `let` lines."""
    return _read(text, "start", "empty input: expected 'declare NAME ORDER ... expression EXPR' or an expression")


def read_problem(text: str) -> list[Statement]:
    """The statements of a problem file, in order (docs/problem-format.md)."""
    return _read(text, "problem", "empty problem: declare variables and give 'minimize EXPR', "
                                  "'maximize EXPR' or 'expression EXPR'")


def _read(text: str, start: str, empty: str):
    if not isinstance(text, str):
        raise ParseError(f"expected the input as a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ParseError(f"input is {len(text):,} characters long; at most {MAX_TEXT:,} are accepted")
    check_brackets(text)
    if not _has_content(text):
        raise ParseError(empty, text, 1, 1)
    try:
        return _parser().parse(text, start=start)
    except REJECTIONS as err:
        raise syntax_error(err, text, start == "problem") from None


def _has_content(text: str) -> bool:
    return any(line.split("#", 1)[0].strip() for line in text.split("\n"))


def number_value(node: Syntax, text: str) -> float:
    """The value of a number node; a ParseError at the node for one beyond float64."""
    value = float(node.value)
    if not math.isfinite(value):
        raise ParseError(f"number {node.value} is too large for float64", text, node.line, node.column)
    return value
