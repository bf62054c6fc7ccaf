"""Declarations: one `variable` or `parameter` statement to a `convexcheck.problem.model.Declaration`.

`declaration(src, st)` reads the tokens after the keyword (`NAME[DIMS] ATTRIBUTES...`, as
the grammar hands them over in `st.tokens`) and returns the Declaration: the name, the
dimensions (names, or whole numbers from 1 to MAX_INT_DIM), and the Attributes, keeping
the tightest of repeated bounds. `src.fail(message, line, column)` raises; every
rejection goes through it, so it is a ProblemError that names the line and column of the
token that does not fit, what is wrong and the fix. `check_name` is the one rule for what
a declared name may be; the thesis form and `let` names use it too.
"""
from __future__ import annotations

import math
import re
from typing import NamedTuple, NoReturn

import tensorcalc as tc
from convexcheck.problem.model import DEFINITE, Attributes, Declaration
from convexcheck.problem.statements import Source
from tensorcalc.language.meaning import RESERVED as _TC_RESERVED
from tensorcalc.language.syntax import Statement

MAX_INT_DIM = 1_000_000    # largest integer dimension
KEYWORDS = ("variable", "parameter", "declare", "minimize", "maximize", "expression",
            "subject", "derivative", "define", "minimise", "maximise", "let")
RESERVED = _TC_RESERVED + KEYWORDS     # no name may be a function or a statement keyword
SIGNS = {"nonneg": (">=", 0.0), "pos": (">", 0.0), "nonpos": ("<=", 0.0), "neg": ("<", 0.0)}
CONES = ("symmetric",) + DEFINITE


def check_name(src: Source, name: str, where: tuple[int, int]) -> None:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name, re.ASCII):
        why = "names starting with '_' are reserved" if name.startswith("_") else "not a valid name"
        src.fail(f"{name!r}: {why}; use ASCII letters, digits and _, starting with a letter", *where)
    if name in RESERVED or name.lower() in KEYWORDS:
        src.fail(f"{name!r} is reserved (a function or keyword); choose another name", *where)


_KINDS = {"NAME": "name", "NUMBER": "num"}     # the rest: punctuation ("op"), or a keyword ("name")


class _Tok(NamedTuple):
    kind: str    # num, name or op
    text: str
    line: int
    column: int


class _Tokens:
    """The tokens of one declaration, read left to right; `fail` points at one, or just
    past the last when there is none."""

    def __init__(self, src: Source, st: Statement):
        self.src, self.pos = src, 0
        self.toks = [_Tok(_KINDS.get(t.kind, "name" if t.text.isalpha() else "op"), t.text, t.line, t.column)
                     for t in st.tokens]
        last = st.tokens[-1] if st.tokens else st.keyword
        self.end = (last.end_line, last.end_column) if last is not None else (0, 0)

    def peek(self, text: str | None = None):
        tok = self.toks[self.pos] if self.pos < len(self.toks) else None
        return tok if text is None else tok is not None and tok.text == text

    def take(self, what: str, kind: str | None = None) -> _Tok:
        tok = self.peek()
        if tok is None or (kind and tok.kind != kind):
            found = "the end of the statement" if tok is None else repr(tok.text)
            self.fail(tok, f"expected {what}, found {found}")
        self.pos += 1
        return tok

    def fail(self, tok: _Tok | None, message: str) -> NoReturn:
        self.src.fail(message, *((tok.line, tok.column) if tok else self.end))


def declaration(src: Source, st: Statement) -> Declaration:
    toks = _Tokens(src, st)
    tok = toks.take(f"a name after {st.kind!r}", "name")
    check_name(src, tok.text, (tok.line, tok.column))
    dims = _dims(toks, tok.text) if toks.peek("[") else ()
    return Declaration(tok.text, st.kind, dims, _attributes(toks, tok.text, dims),
                       st.keyword.line if st.keyword is not None else 0)


def _dims(toks: _Tokens, name: str) -> tuple[str | int, ...]:
    toks.take("'['")
    if toks.peek("]"):
        toks.fail(toks.peek(), f"empty brackets after {name!r}: leave them out for a scalar")
    dims = [_dim(toks, toks.take(f"a dimension of {name!r} (a name or a positive whole number)"), name)]
    while toks.take(f"',' or ']' in the dimensions of {name!r}").text == ",":
        dims.append(_dim(toks, toks.take(f"a dimension of {name!r} after ','"), name))
        if len(dims) > tc.dag.MAX_ORDER:
            toks.fail(toks.peek(), f"{name!r} has over {tc.dag.MAX_ORDER} dimensions, the most supported")
    return tuple(dims)


def _dim(toks: _Tokens, tok: _Tok, name: str) -> str | int:
    if tok.kind == "name" and not tok.text.startswith("_"):
        return tok.text
    if not (tok.text.isdigit() and len(tok.text) <= 7 and 0 < int(tok.text) <= MAX_INT_DIM):
        toks.fail(tok, f"a dimension of {name!r} is a name (a letter first) or a whole number from 1 "
                       f"to {MAX_INT_DIM:,}, found {tok.text[:40]!r}")
    return int(tok.text)


class _Bound(NamedTuple):
    value: float
    strict: bool
    word: str    # as written: 'pos' or '>= 2'
    tok: _Tok


def _attributes(toks: _Tokens, name: str, dims: tuple) -> Attributes:
    """The attributes after the dimensions; the tightest of repeated bounds is kept."""
    lower: list[_Bound] = []
    upper: list[_Bound] = []
    cones: list[_Tok] = []
    while (tok := toks.peek()) is not None:
        toks.pos += 1
        if tok.text in CONES:
            cones.append(tok)
            continue
        if tok.text in SIGNS:
            op, value = SIGNS[tok.text]
        elif tok.text in ("<", "<=", ">", ">="):
            op, value = tok.text, _bound_value(toks, tok, name)
        elif tok.text.lower() in KEYWORDS:
            toks.fail(tok, f"keywords are lower case: write {tok.text.lower()!r}")
        else:
            toks.fail(tok, f"unknown attribute {tok.text[:40]!r} for {name!r}; expected "
                           f"{', '.join((*SIGNS, *CONES))} or a bound such as '>= 0'")
        word = tok.text if tok.text in SIGNS else f"{op} {value:g}"
        (lower if op[0] == ">" else upper).append(_Bound(value, len(op) == 1, word, tok))
    lo = max(lower, key=lambda b: (b.value, b.strict), default=None)
    up = min(upper, key=lambda b: (b.value, not b.strict), default=None)
    if lo and up and (lo.value > up.value or (lo.value == up.value and (lo.strict or up.strict))):
        toks.fail(max(lo.tok, up.tok, key=lambda t: (t.line, t.column)),
                  f"contradictory bounds on {name!r}: {lo.word!r} and {up.word!r} leave no value; drop one")
    return Attributes(lower=lo.value if lo else None, lower_strict=bool(lo and lo.strict),
                      upper=up.value if up else None, upper_strict=bool(up and up.strict),
                      symmetric=any(t.text == "symmetric" for t in cones),
                      definite=_definite(toks, name, dims, cones, lo, up))


def _bound_value(toks: _Tokens, op: _Tok, name: str) -> float:
    sign = toks.take(f"a number after {op.text!r}").text if toks.peek("-") or toks.peek("+") else "+"
    tok = toks.take(f"a number after {op.text!r} in the bounds of {name!r}", "num")
    if not math.isfinite(float(tok.text)):
        toks.fail(tok, f"the bound {tok.text[:40]} of {name!r} is not a finite float64 number")
    return float(sign + tok.text)


def _definite(toks: _Tokens, name: str, dims: tuple, cones: list[_Tok], lo, up) -> str | None:
    """The strictest definiteness word, after checking it fits the shape and the bounds."""
    if not cones:
        return None
    if len(dims) != 2 or dims[0] != dims[1]:
        shape = f"dimensions [{', '.join(map(str, dims))}]" if dims else "no dimensions (a scalar)"
        toks.fail(cones[0], f"{cones[0].text!r} needs a square matrix (two equal dimensions, such "
                            f"as [n, n]); {name!r} has {shape}")
    words = {t.text for t in cones} - {"symmetric"}
    if words & {"psd", "pd"} and words & {"nsd", "nd"}:
        toks.fail(cones[-1], f"contradictory attributes on {name!r}: {' and '.join(sorted(words))}; keep one")
    definite = next((w for w in ("pd", "nd", "psd", "nsd") if w in words), None)
    if definite:
        _check_room(toks, name, definite, next(t for t in cones if t.text == definite), lo, up)
    return definite


def _check_room(toks: _Tokens, name: str, definite: str, word: _Tok, lo, up) -> None:
    """Refuse bounds that leave a definite matrix no value, or a single degenerate one.

    Mirrored for nsd/nd, a psd/pd matrix has a diagonal >= 0 (> 0) and off-diagonal entries
    no larger than its diagonal ones, so the bounds must leave entries above max(lower, 0)
    up to the upper bound: there is a pd matrix strictly inside exactly when
    max(lower, 0) < upper (c ones + d I, c between them, small d > 0). Otherwise either
    no matrix is left (upper < 0; upper = 0 for pd or strict), or one degenerate value:
    upper = 0 pins the diagonal, hence the whole matrix, to 0; lower = upper = c pins it
    to c ones, which is singular. Sampling, a start and a cone need room inside, so these
    are refused with the fix."""
    positive = definite in ("psd", "pd")
    bound, other = (up, lo) if positive else (lo, up)     # the bound on the diagonal's side
    if bound is None:
        return
    later = max(bound.tok, word, key=lambda t: (t.line, t.column))
    side = "positive" if positive else "negative"
    sign = 1 if positive else -1
    if sign * bound.value < 0 or (bound.value == 0 and (bound.strict or definite in ("pd", "nd"))):
        toks.fail(later, f"contradictory attributes on {name!r}: a {definite} matrix has a diagonal "
                         f"that {bound.word!r} excludes (its diagonal entries are {side}); drop one")
    if bound.value == 0:
        toks.fail(later, f"degenerate attributes on {name!r}: {bound.word!r} and {definite!r} leave only "
                         f"the zero matrix (a {definite} matrix with no {side} entry has a zero diagonal, "
                         f"so it is 0); write 0 in place of {name!r}, or drop {bound.word!r} or {definite!r}")
    if other is not None and other.value == bound.value:
        _pinned(toks, name, definite, word, lo, up)


def _pinned(toks: _Tokens, name: str, definite: str, word: _Tok, lo, up) -> None:
    """Bounds lower = upper = c pin a definite matrix to c ones: singular, so never pd/nd."""
    at = max(lo.tok, up.tok, word, key=lambda t: (t.line, t.column))
    pins = f"{lo.word!r} and {up.word!r} pin every entry to {lo.value:g}"
    ones = f"{lo.value:g} times the matrix of ones"
    if definite in ("pd", "nd"):
        toks.fail(at, f"contradictory attributes on {name!r}: {pins}, and {ones} is singular, never {definite} "
                      f"(at sizes above 1); widen the bounds or drop {definite!r}")
    toks.fail(at, f"degenerate attributes on {name!r}: {pins}, which leaves a {definite} matrix one value, "
                  f"the singular {ones}; widen the bounds or drop {definite!r}")
