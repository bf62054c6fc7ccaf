"""Problem files: text to a `convexcheck.model.Problem` (the format: docs/problem-format.md).

Stages, one pass each: (1) split the text into statements: a statement starts at a line
whose first word is a keyword and other lines continue it, except that after `subject to`
every line is one constraint; (2) read the declarations (`convexcheck.declarations`);
(3) parse every expression with `tensorcalc.parse_expr`, then check that it is a scalar
and that the axes it ties together have equal dimensions. The thesis form (`declare NAME
ORDER ... expression EXPR`) is read by `tensorcalc.parse` instead. Every rejection of the
input is a `ProblemError` that names the line and column, what is wrong and the fix; no
input raises any other exception.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import NamedTuple

import tensorcalc as tc
from tensorcalc import Expr, ParseError, TensorCalcError

from .declarations import KEYWORDS, check_name, declaration
from .defines import read_define, substitute
from .model import Attributes, Declaration, Part, Problem

MAX_TEXT = 1_000_000       # characters of text (bytes of a file); a longer problem is rejected
MAX_STATEMENTS = 10_000    # each is parsed on its own (about 0.3 ms); more would take minutes
SENSES = {"minimize": "convex", "maximize": "concave", "expression": "any"}
RELATIONS = {"<=": "convex", ">=": "concave", "==": "affine"}
_SCALAR_FIX = "a convex-analysis part must be a scalar: wrap it in sum(...)"
_WORD_END = r"(?![A-Za-z0-9_])"


class ProblemError(ParseError):
    """A rejected problem. `line`, `column` are 1-based (0 where there is no place); the
    message reads 'line L, column C: what is wrong; the fix', then the source line with a
    caret under the column; it starts with the file name when there is one (`source`)."""

    def __init__(self, message: str, text: str | None = None, line: int = 0, column: int = 0,
                 source: str | None = None):
        super().__init__(message, text, line, column)
        self.source = source
        if source:
            self.args = (f"{source}{', ' if line else ': '}{self.args[0]}",)


# ----------------------------------------------------------------------------- entry points

def load_problem(text_or_path: str | os.PathLike) -> Problem:
    """A problem read from a path (a PathLike, a str naming an existing file, or a str
    ending in '.tc': a missing file is an error) or else from the str as text."""
    value = text_or_path
    if isinstance(value, os.PathLike) or (isinstance(value, str) and _names_file(value)):
        return parse_problem(_read_file(os.fspath(value)), source=os.fspath(value))
    return parse_problem(value)


def _names_file(value: str) -> bool:
    if "\n" in value or "\x00" in value or len(value) > 4096:
        return False                   # text: no valid path looks like this
    return value.endswith(".tc") or os.path.isfile(value)


def parse_problem(text: str, source: str | None = None) -> Problem:
    """The problem that `text` states; `source` (a file name) labels errors and the result."""
    src = _Source(text, source)
    statements = _statements(src)
    if any(st.keyword == "declare" for st in statements):
        return _thesis_problem(src, statements)
    decls: dict[str, Declaration] = {}
    for st in statements:
        if st.keyword in ("variable", "parameter"):
            decl = declaration(src, st)
            if decl.name in decls:
                src.fail(f"{decl.name!r} is already declared on line {decls[decl.name].line}; "
                         f"declare each name once", *st.first())
            decls[decl.name] = decl
    src.statements, src.defines = statements, {}
    for st in statements:
        if st.keyword == "define":
            d = read_define(src, st, decls, src.defines)
            src.defines[d.name] = d
    (sense, objective), constraints = _parts(src, statements, decls)
    return Problem(decls, sense, objective, tuple(constraints), source, text)


def _read_file(path: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT + 1)
    except FileNotFoundError:
        raise ProblemError(f"no such file: {path} (give an existing .tc file or the problem text)") from None
    except (OSError, ValueError) as err:
        raise ProblemError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    if len(data) > MAX_TEXT:
        raise ProblemError(f"{path} is over {MAX_TEXT:,} bytes long; a problem file may have at most that")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ProblemError(f"{path} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
                           f"{err.start}); save it as UTF-8") from None


# ----------------------------------------------------------------------------- source and statements

class _Source:
    """The checked text (a leading byte-order mark blanked) and its name."""

    def __init__(self, text, source):
        self.text, self.source = None, source
        self.statements, self.defines = [], {}
        if not isinstance(text, str):
            self.fail(f"expected the problem as a str (text or path), got {type(text).__name__}")
        if len(text) > MAX_TEXT:
            self.fail(f"the problem is {len(text):,} characters long; at most {MAX_TEXT:,} are accepted")
        self.text = " " + text[1:] if text.startswith("\ufeff") else text
        if "\x00" in text:
            self.text = self.text.replace("\x00", " ")     # never print a NUL to a terminal
            self.fail("NUL byte in the problem text (is this a binary file?); remove it",
                      *_line_col(text, text.index("\x00")))

    def fail(self, message: str, line: int = 0, column: int = 0):
        raise ProblemError(message, self.text, line, column, self.source)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


class _Segment(NamedTuple):
    line: int    # 1-based line of the file
    start: int   # 0-based column of the file where `text` begins
    text: str


@dataclass
class _Statement:
    """A keyword (or 'constraint') and the text after it, one segment per source line."""

    keyword: str
    segments: list[_Segment]
    keyword_column: int = 0   # 1-based; 0 for a constraint line

    line = property(lambda self: self.segments[0].line)
    body = property(lambda self: "\n".join(s.text for s in self.segments))

    def keyword_at(self) -> tuple[int, int]:
        return self.line, self.keyword_column or self.segments[0].start + 1

    def first(self) -> tuple[int, int]:
        """Where the text after the keyword starts (the keyword when there is none)."""
        body = self.body
        return self.locate(len(body) - len(body.lstrip())) if body.strip() else self.keyword_at()

    def locate(self, offset: int) -> tuple[int, int]:
        """File (line, column) of character `offset` of `body`."""
        for seg in self.segments:
            if offset <= len(seg.text):
                return seg.line, seg.start + offset + 1
            offset -= len(seg.text) + 1
        return self.segments[-1].line, self.segments[-1].start + len(self.segments[-1].text) + 1

    def at(self, line: int, column: int) -> tuple[int, int]:
        """File (line, column) of a 1-based (line, column) of `body`, as tensorcalc reports them."""
        return self.locate(sum(len(s.text) + 1 for s in self.segments[:line - 1]) + column - 1)


_FIRST_WORD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)", re.ASCII)


def _statements(src: _Source) -> list[_Statement]:
    out: list[_Statement] = []
    in_constraints = False
    for number, raw in enumerate(src.text.split("\n"), 1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        match = _FIRST_WORD.match(line)
        word = match.group(1) if match else ""
        if word.lower() in KEYWORDS and word not in KEYWORDS:
            src.fail(f"keywords are lower case: write {word.lower()!r}", number, match.start(1) + 1)
        if word in KEYWORDS:
            segment = _Segment(number, match.end(), line[match.end():])
            out.append(_Statement(word, [segment], match.start(1) + 1))
            in_constraints = word == "subject"
            out.extend(_subject(src, out[-1]) if in_constraints else ())
        elif in_constraints:
            out.append(_Statement("constraint", [_Segment(number, 0, line)]))
        elif out:
            out[-1].segments.append(_Segment(number, 0, line))
        else:
            src.fail(f"a problem starts with a statement keyword ({', '.join(KEYWORDS[:6])}), found "
                     f"{line.split()[0][:40]!r}", number, len(line) - len(line.lstrip()) + 1)
        if len(out) > MAX_STATEMENTS:
            src.fail(f"more than {MAX_STATEMENTS:,} statements; split the problem", number, 1)
    if not out:
        src.fail("empty problem: declare variables and give 'minimize EXPR', 'maximize EXPR' or "
                 "'expression EXPR'", 1, 1)
    return out


def _subject(src: _Source, st: _Statement) -> list[_Statement]:
    """`subject to [CONSTRAINT]`: the constraint written on the same line, if any."""
    match = re.match(r"\s*to" + _WORD_END, st.body)
    if match is None:
        src.fail("write 'subject to', then one constraint a line", *st.keyword_at())
    rest = st.body[match.end():]
    seg = _Segment(st.line, st.segments[0].start + match.end(), rest)
    return [_Statement("constraint", [seg])] if rest.strip() else []


# ----------------------------------------------------------------------------- parts

def _parts(src: _Source, statements: list[_Statement], decls: dict[str, Declaration]):
    """((sense, objective Part), constraint Parts) from the statements."""
    orders = {n: len(d.dims) for n, d in decls.items()}
    orders.update({n: len(d.dims) for n, d in src.defines.items()})
    objective, first, constraints = None, None, []
    for st in statements:
        if st.keyword in SENSES:
            if objective is not None:
                src.fail(f"a second objective: line {first.line} already has {first.keyword!r}; "
                         f"give exactly one of minimize, maximize, expression", *st.keyword_at())
            first, objective = st, (st.keyword, _objective(src, st, orders, decls))
        elif st.keyword == "constraint":
            constraints.append(_constraint(src, st, len(constraints) + 1, orders, decls))
        elif st.keyword == "derivative" and not re.fullmatch(r"\s*wrt\s+[A-Za-z]\w*\s*", st.body):
            src.fail("write 'derivative wrt NAME' (accepted and ignored)", *st.keyword_at())
    if objective is None:
        src.fail("no objective: add a line 'minimize EXPR', 'maximize EXPR' or 'expression EXPR'",
                 statements[-1].line, 1)
    return objective, constraints


def _objective(src, st: _Statement, orders, decls) -> Part:
    if not st.body.strip():
        src.fail(f"{st.keyword!r} needs an expression: {st.keyword} EXPR", *st.keyword_at())
    ops = _comparisons(st.body)
    if ops:
        src.fail(f"the objective contains the comparison {ops[0][1]!r}; constraints go on their own "
                 f"lines after a line 'subject to'", *st.locate(ops[0][0]))
    expr = _parse(src, st, st.body, orders, decls, "the objective")
    return Part("objective", " ".join(f"{st.keyword} {st.body}".split()), expr, SENSES[st.keyword], st.line)


def _constraint(src, st: _Statement, k: int, orders, decls) -> Part:
    label, body = f"constraint {k}", st.body
    ops = _comparisons(body)
    if len(ops) != 1:
        what = f"{len(ops)} comparisons (chains are several constraints)" if ops else "no comparison"
        src.fail(f"{label} has {what}; write EXPR <= EXPR, EXPR >= EXPR or EXPR == EXPR",
                 *(st.locate(ops[1][0]) if ops else st.first()))
    at, op = ops[0]
    if op not in RELATIONS:
        fix = "'==' for equality" if op == "=" else f"'{op}=': a convex constraint set is closed"
        src.fail(f"{label}: comparison {op!r} is not supported; use {fix}", *st.locate(at))
    for side, text in (("left", body[:at]), ("right", body[at + 2:])):
        if not text.strip():
            src.fail(f"{label} has nothing on the {side} of {op!r}", *st.locate(at))
    # g OP h is read as g -(h): every character keeps its column, so tensorcalc's error
    # positions are file positions, and both sides share one axis unification
    expr = _parse(src, st, body[:at] + "-(" + body[at + 2:] + ")", orders, decls, label, (at, op))
    return Part(label, " ".join(body.split()), expr, RELATIONS[op], st.line)


def _comparisons(body: str) -> list[tuple[int, str]]:
    """(offset, operator) of each comparison outside brackets; '->' of index strings skipped."""
    found, depth = [], 0
    for m in re.finditer(r"->|<=|>=|==|[()<>=]", body):
        depth += {"(": 1, ")": -1}.get(m.group(), 0)
        if depth == 0 and m.group() not in ("->", "(", ")"):
            found.append((m.start(), m.group()))
    return found


def _parse(src, st: _Statement, body: str, orders, decls, label: str, op_at=None) -> Expr:
    """One expression of `st`: a scalar whose tied axes have equal dimensions."""
    expr, err = _try(tc.parse_expr, body, orders)
    if isinstance(err, ParseError) and err.line:
        where = st.at(err.line, err.column)
        if op_at and where == st.locate(op_at[0]):
            src.fail(f"the two sides of {op_at[1]!r} do not fit: {err.reason}", *where)
        src.fail(err.reason, *where)
    if err is not None:
        src.fail(f"{label} cannot be read: {getattr(err, 'reason', err)}", *st.first())
    if expr.order:
        src.fail(f"{label} has order {expr.order}; {_SCALAR_FIX}", *st.first())
    _check_dims(src, st, expr, {**decls, **{n: d.declaration() for n, d in src.defines.items()}})
    return substitute(src, src.statements, expr, decls, src.defines)


def _try(fn, *args):
    """(fn(*args), None) or (None, the input error), outside the except block so that a
    ProblemError carries no chained tensorcalc traceback."""
    try:
        return fn(*args), None
    except (TensorCalcError, RecursionError) as err:
        return None, err


def _check_dims(src, st: _Statement, expr: Expr, decls: dict[str, Declaration]) -> None:
    """Axes that unify (one canonical Axis) must carry the same dimension."""
    seen: dict[tc.Axis, tuple[str | int, str]] = {}
    for name, var in tc.variables(expr).items():
        for k, axis in enumerate(var.axes):
            dim, what = decls[name].dims[k], f"axis {k} of {name}"
            first = seen.setdefault(axis, (dim, what))
            if first[0] != dim:
                use = re.search(rf"(?<![A-Za-z0-9_]){name}{_WORD_END}", st.body)
                src.fail(f"{what} has dimension {dim} but meets {first[1]}, which has dimension "
                         f"{first[0]}; fix the declarations or the index strings",
                         *(st.locate(use.start()) if use else st.first()))


# ----------------------------------------------------------------------------- the thesis form

def _thesis_problem(src: _Source, statements: list[_Statement]) -> Problem:
    """`declare NAME ORDER ... expression EXPR [derivative wrt NAME]`: variables whose
    dimensions are named after the canonical axis of their class (`x_0`, `A_1`, ...), so
    axes the expression ties together share a name."""
    for st in statements:
        if st.keyword not in ("declare", "expression", "derivative"):
            src.fail(f"{st.keyword!r} cannot follow the thesis form 'declare NAME ORDER ... expression "
                     f"EXPR'; use 'variable NAME[DIMS]' declarations instead", *st.keyword_at())
    inp, err = _try(tc.parse, src.text)
    if err is not None:
        src.fail(getattr(err, "reason", str(err)), getattr(err, "line", 0), getattr(err, "column", 0))
    declare = next(st for st in statements if st.keyword == "declare")
    decls = {}
    for name, var in inp.declared.items():
        check_name(src, name, declare.keyword_at())
        dims = tuple(f"{ax.var}_{ax.pos}" for ax in var.axes)
        decls[name] = Declaration(name, "variable", dims, Attributes(), declare.line)
    blank = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), src.text)
    # tensorcalc lexes '2expression' as a number and the keyword, so digits may precede it
    start = re.search(r"(?<![A-Za-z_])expression" + _WORD_END, blank)
    end = re.search(r"(?<![A-Za-z_])derivative" + _WORD_END, blank[start.end():])
    where = _line_col(blank, start.start())
    if inp.expr.order:
        src.fail(f"the objective has order {inp.expr.order}; {_SCALAR_FIX}", *where)
    shown = " ".join(blank[start.start():start.end() + (end.start() if end else len(blank))].split())
    return Problem(decls, "expression", Part("objective", shown, inp.expr, "any", where[0]), (),
                   src.source, src.text)
