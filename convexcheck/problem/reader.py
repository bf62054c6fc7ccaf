"""Problem files: text to a `convexcheck.problem.model.Problem` (the format: docs/problem-format.md).

Stages, one pass each: (1) the text is read by the one grammar of tensorcalc
(`tensorcalc/grammar.lark`, `tensorcalc.language.parse.read_problem`) into statements; (2) the
declarations are read (`convexcheck.problem.declarations`) and the definitions built
(`convexcheck.problem.defines`); (3) every objective and constraint is given its meaning by
`tensorcalc.language.meaning.build` with the declared orders and dimensions (matrix notation checks
the dimensions where operands meet), then checked to be a scalar whose tied axes have
equal dimensions. The thesis form (`declare NAME ORDER ... expression EXPR`) is read by
the same grammar. Every rejection of the input is a `ProblemError` that names the line
and column, what is wrong and the fix; no input raises any other exception. Parsed
problems are kept by their text (`parse_problem`): a re-solve of the same text skips all three.
"""
from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from functools import cached_property
from typing import NoReturn

import tensorcalc as tc
from convexcheck.problem.declarations import check_name, declaration
from convexcheck.problem.defines import read_define, substitute
from convexcheck.problem.model import Attributes, Declaration, Part, Problem
from convexcheck.problem.statements import Lines, TextStatement, line_col
from tensorcalc import Expr, ParseError, TensorCalcError, memo
from tensorcalc.collector import pausing
from tensorcalc.language.meaning import build, declarations
from tensorcalc.language.parse import read_problem
from tensorcalc.language.syntax import Statement, Syntax

MAX_TEXT = 1_000_000       # characters of text (bytes of a file); a longer problem is rejected
MAX_STATEMENTS = 10_000    # each is analysed on its own; more would take minutes
CACHED_PROBLEMS = 64       # parsed problems kept by text (parse_problem) ...
CACHED_CHARS = MAX_TEXT    # ... of this many characters in all (a parse holds ~80 bytes a character)
SENSES = {"minimize": "convex", "maximize": "concave", "expression": "any"}
SPELLINGS = {"minimise": "minimize", "maximise": "maximize"}
RELATIONS = {"<=": "convex", ">=": "concave", "==": "affine"}
_SCALAR_FIX = "a convex-analysis part must be a scalar: wrap it in sum(...)"


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
    """The problem that `text` states; `source` (a file name) labels errors and the result.

    The result is shared: the same text with the same source again returns the same
    (immutable) Problem without reading it again, from a cache of the last CACHED_PROBLEMS
    texts (CACHED_CHARS characters in all). A rejected text is not kept: it is read and
    rejected again, with the same message. `parse_problem.cache_clear()` empties the cache."""
    if type(text) is not str or not (source is None or type(source) is str):
        return _parse(text, source)                 # rejected, or a key we cannot trust
    key = (text, source)
    problem = _PARSED.get(key)
    if problem is None:
        problem = _parse(text, source)
        _PARSED.put(key, problem)
    return problem


@pausing                          # see tensorcalc.collector: syntax and nodes by the million, no cycles
def _parse(text: str, source: str | None) -> Problem:
    """`parse_problem` without the cache."""
    src = _Source(text, source)
    statements = src.read()
    if any(st.kind == "declare" for st in statements):
        return _thesis_problem(src, statements)
    decls: dict[str, Declaration] = {}
    for st in statements:
        if st.kind in ("variable", "parameter"):
            decl = declaration(src, st)
            if decl.name in decls:
                name = st.tokens[0]
                src.fail(f"{decl.name!r} is already declared on line {decls[decl.name].line}; "
                         f"declare each name once", name.line, name.column)
            decls[decl.name] = decl
    for st in statements:
        if st.kind == "define":
            d = read_define(src, src.define_statement(st), decls, src.defines)
            src.defines[d.name] = d
    src.lets = tuple(st.let for st in statements if st.kind == "let")
    (sense, objective), constraints = _parts(src, statements, decls)
    return Problem(decls, sense, objective, tuple(constraints), source, text)


class _Cache:
    """Parsed problems by (text, source), least recently used first: at most `entries`
    of them and `chars` characters of text in all (a longer text is not kept). Safe to
    share between threads (two threads may parse one text at once; both results are equal)."""

    def __init__(self, entries: int, chars: int):
        self.entries, self.chars = entries, chars
        self._problems: OrderedDict[tuple[str, str | None], Problem] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str | None]) -> Problem | None:
        with self._lock:
            problem = self._problems.get(key)
            if problem is not None:
                self._problems.move_to_end(key)
            return problem

    def put(self, key: tuple[str, str | None], problem: Problem) -> None:
        if len(key[0]) > self.chars:
            return
        with self._lock:
            if key in self._problems:
                return
            self._problems[key] = problem
            self._size += len(key[0])
            while len(self._problems) > self.entries or self._size > self.chars:
                (text, _), _ = self._problems.popitem(last=False)
                self._size -= len(text)

    def cache_clear(self) -> None:
        """Empty the cache (listed in `tensorcalc.memo`, so `memo.clear()` does it too)."""
        with self._lock:
            self._problems.clear()
            self._size = 0

    def __len__(self) -> int:
        return len(self._problems)


_PARSED = memo.register(_Cache(CACHED_PROBLEMS, CACHED_CHARS))
setattr(parse_problem, "cache_clear", _PARSED.cache_clear)   # as an lru_cache's (its own: sized in characters)


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
    """The checked text (a leading byte-order mark blanked), its name, and what the
    statements define for the parts that follow (definitions, lets)."""

    def __init__(self, text, source):
        self.text, self.source = None, source
        self.statements: list[TextStatement] = []          # the definitions, as text statements
        self.defines, self.lets = {}, ()
        if not isinstance(text, str):
            self.fail(f"expected the problem as a str (text or path), got {type(text).__name__}")
        if len(text) > MAX_TEXT:
            self.fail(f"the problem is {len(text):,} characters long; at most {MAX_TEXT:,} are accepted")
        self.text = " " + text[1:] if text.startswith("\ufeff") else text
        if "\x00" in text:
            self.text = self.text.replace("\x00", " ")     # never print a NUL to a terminal
            self.fail("NUL byte in the problem text (is this a binary file?); remove it",
                      *line_col(text, text.index("\x00")))

    def fail(self, message: str, line: int = 0, column: int = 0) -> NoReturn:
        raise ProblemError(message, self.text, line, column, self.source)

    def read(self) -> list[Statement]:
        statements, err = _try(read_problem, self.text)
        if err is not None:
            self.fail(getattr(err, "reason", str(err)), getattr(err, "line", 0), getattr(err, "column", 0))
        if len(statements) > MAX_STATEMENTS:
            self.fail(f"more than {MAX_STATEMENTS:,} statements; split the problem",
                      _first_token(statements[MAX_STATEMENTS])[0], 1)
        return statements

    def define_statement(self, st: Statement) -> TextStatement:
        """A definition as the text after its keyword (what `convexcheck.problem.defines` reads)."""
        assert st.keyword is not None and st.body is not None, "the parser gives a definition both"
        stmt = TextStatement.between(self.text, st.keyword, st.body.end)
        self.statements.append(stmt)
        return stmt

    def where(self, node: Syntax) -> tuple[int, int]:
        """(line, column) of the first character of node's text (the line starts found once)."""
        return self.lines.line_col(node.start)

    @cached_property
    def lines(self) -> Lines:
        return Lines(self.text)

    def shown(self, start: int, end: int) -> str:
        """The text between two offsets, comments dropped, on one line."""
        return " ".join(re.sub(r"#[^\n]*", " ", self.text[start:end]).split())


def _first_token(st: Statement) -> tuple[int, int]:
    if st.keyword is not None:
        return st.keyword.line, st.keyword.column
    first = next(s for s in st.sides if s is not None)
    return first.line, first.column


def _try(fn, *args):
    """(fn(*args), None) or (None, the input error), outside the except block so that a
    ProblemError carries no chained tensorcalc traceback."""
    try:
        return fn(*args), None
    except (TensorCalcError, RecursionError) as err:
        return None, err


# ----------------------------------------------------------------------------- parts

def _parts(src: _Source, statements: list[Statement], decls: dict[str, Declaration]):
    """((sense, objective Part), constraint Parts) from the statements."""
    dims = {n: d.dims for n, d in decls.items()}
    dims.update({n: d.dims for n, d in src.defines.items()})
    orders = {n: len(d) for n, d in dims.items()}      # once: a part then costs what its own text does
    scope = (dims, orders, {**decls, **{n: d.declaration() for n, d in src.defines.items()}})
    for k, let in enumerate(src.lets):                 # each let once, used or not
        _, err = _try(build, src.text, let.expr, orders, dims, src.lets[:k])
        if err is not None:
            src.fail(getattr(err, "reason", str(err)), getattr(err, "line", 0), getattr(err, "column", 0))
    objective: tuple[str, Part] | None = None
    first: Statement | None = None
    constraints: list[Part] = []
    for st in statements:
        if st.kind in SENSES or st.kind in SPELLINGS:
            if first is not None:               # set with the objective
                src.fail(f"a second objective: line {_first_token(first)[0]} already has {first.kind!r}; "
                         f"give exactly one of minimize, maximize, expression", *_first_token(st))
            sense = SPELLINGS.get(st.kind, st.kind)
            first, objective = st, (sense, _objective(src, st, sense, scope))
        elif st.kind == "constraint":
            constraints.append(_constraint(src, st, len(constraints) + 1, scope))
    if objective is None:
        last = statements[-1]
        src.fail("no objective: add a line 'minimize EXPR', 'maximize EXPR' or 'expression EXPR'",
                 _first_token(last)[0], 1)
    return objective, constraints


def _objective(src: _Source, st: Statement, sense: str, scope) -> Part:
    body = st.sides[0]
    if st.ops:
        op = st.ops[0]
        src.fail(f"the objective contains the comparison {op.text!r}; constraints go on their own "
                 f"lines after a line 'subject to'", op.line, op.column)
    if body is None:
        src.fail(f"{st.kind!r} needs an expression: {st.kind} EXPR", *_first_token(st))
    expr = _analyse(src, body, "the objective", scope)
    text = f"{st.kind} {src.shown(body.start, body.end)}"
    return Part("objective", text, expr, SENSES[sense], _first_token(st)[0])


def _constraint(src: _Source, st: Statement, k: int, scope) -> Part:
    label, sides, ops = f"constraint {k}", st.sides, st.ops
    if len(ops) != 1:
        what = f"{len(ops)} comparisons (chains are several constraints)" if ops else "no comparison"
        src.fail(f"{label} has {what}; write EXPR <= EXPR, EXPR >= EXPR or EXPR == EXPR",
                 *((ops[1].line, ops[1].column) if ops else
                   src.where(sides[0]) if sides and sides[0] is not None else _first_token(st)))
    op = ops[0]
    if op.text not in RELATIONS:
        fix = "'==' for equality" if op.text == "=" else f"'{op.text}=': a convex constraint set is closed"
        src.fail(f"{label}: comparison {op.text!r} is not supported; use {fix}", op.line, op.column)
    for side, node in (("left", sides[0]), ("right", sides[1])):
        if node is None:
            src.fail(f"{label} has nothing on the {side} of {op.text!r}", op.line, op.column)
    left, right = sides
    assert left is not None and right is not None       # each side was checked above
    # g OP h is read as g - h, both sides in one axis unification
    relation = Syntax("compare", (op.line, op.column), (left, right), op.text, (left.start, right.end))
    expr = _analyse(src, relation, label, scope, entrywise=True)
    return Part(label, src.shown(left.start, right.end), expr, RELATIONS[op.text], src.where(left)[0])


def _analyse(src: _Source, node: Syntax, label: str, scope, entrywise: bool = False) -> Expr:
    """One part's expression: a scalar (with `entrywise`, a constraint, a tensor of any
    order: one constraint per entry) whose tied axes have equal dimensions, with the
    definitions it reads substituted."""
    dims, orders, decls = scope
    built, err = _try(build, src.text, node, orders, dims, src.lets, False, True)
    if isinstance(err, ParseError) and err.line:
        src.fail(err.reason, err.line, err.column)
    if err is not None:
        src.fail(f"{label} cannot be read: {getattr(err, 'reason', err)}", *src.where(node))
    expr = built[0]
    if expr.order and not entrywise:
        src.fail(f"{label} has order {expr.order}; {_SCALAR_FIX}", *src.where(node))
    _check_dims(src, node, expr, decls)
    return substitute(src, src.statements, expr, decls, src.defines)


def _check_dims(src: _Source, node: Syntax, expr: Expr, decls: dict[str, Declaration]) -> None:
    """Axes that unify (one canonical Axis) must carry the same dimension."""
    seen: dict[tc.Axis, tuple[str | int, str]] = {}
    for name, var in tc.variables(expr).items():
        for k, axis in enumerate(var.axes):
            dim, what = decls[name].dims[k], f"axis {k} of {name}"
            first = seen.setdefault(axis, (dim, what))
            if first[0] != dim:
                src.fail(f"{what} has dimension {dim} but meets {first[1]}, which has dimension "
                         f"{first[0]}; fix the declarations or the index strings", *_first_use(src, node, name))


def _first_use(src: _Source, node: Syntax, name: str) -> tuple[int, int]:
    """Where `name` is first written in node's text (node's start if it is not)."""
    found, stack = None, [node]
    while stack:
        n = stack.pop()
        if n.kind == "name" and n.value == name and n.start >= 0 and (found is None or n.start < found):
            found = n.start
        stack.extend(n.args)
    return src.where(node) if found is None else line_col(src.text, found)


# ----------------------------------------------------------------------------- the thesis form

_THESIS = ("declare", "expression", "derivative")


def _thesis_problem(src: _Source, statements: list[Statement]) -> Problem:
    """`declare NAME ORDER ... expression EXPR [derivative wrt NAME]`: variables whose
    dimensions are named after the canonical axis of their class (`x_0`, `A_1`, ...), so
    axes the expression ties together share a name."""
    for k, st in enumerate(statements):
        if st.kind not in _THESIS or st.kind != _THESIS[min(k, 2)] or k > 2:
            src.fail(f"{st.kind!r} cannot follow the thesis form 'declare NAME ORDER ... expression "
                     f"EXPR'; use 'variable NAME[DIMS]' declarations instead", *_first_token(st))
    if len(statements) < 2:
        src.fail("the thesis form needs 'expression EXPR' after 'declare NAME ORDER ...'", *_first_token(statements[0]))
    declare, objective = statements[:2]
    pairs = tuple(zip(declare.tokens[::2], declare.tokens[1::2]))
    orders, err = _try(declarations, pairs, src.text)
    if err is not None:
        src.fail(err.reason, err.line, err.column)
    body = objective.sides[0]
    if body is None or objective.ops:
        where = (objective.ops[0].line, objective.ops[0].column) if objective.ops else _first_token(objective)
        src.fail("the thesis form takes one expression: expression EXPR", *where)
    built, err = _try(build, src.text, body, orders, None, (), False, True)
    if err is not None:
        src.fail(getattr(err, "reason", str(err)), getattr(err, "line", 0), getattr(err, "column", 0))
    _check_wrt(src, statements, orders)
    expr, declared = built
    decls = {}
    for name, var in declared.items():
        check_name(src, name, _first_token(declare))
        dims = tuple(f"{ax.var}_{ax.pos}" for ax in var.axes)
        decls[name] = Declaration(name, "variable", dims, Attributes(), _first_token(declare)[0])
    where = _first_token(objective)
    if expr.order:
        src.fail(f"the objective has order {expr.order}; {_SCALAR_FIX}", *where)
    shown = f"expression {src.shown(body.start, body.end)}"
    return Problem(decls, "expression", Part("objective", shown, expr, "any", where[0]), (), src.source, src.text)


def _check_wrt(src: _Source, statements: list[Statement], orders: dict[str, int]) -> None:
    if len(statements) == 3:
        name = statements[2].tokens[-1]
        if name.text not in orders:
            src.fail(f"derivative wrt {name.text!r}: {name.text!r} is not declared "
                     f"(declared: {', '.join(orders) or 'nothing'})", name.line, name.column)
