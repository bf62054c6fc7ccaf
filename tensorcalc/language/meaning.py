"""Meaning stage: syntax tree to expression DAG (thesis sections 3.2.1 to 3.2.4).

Passes over the syntax tree, each one loop over a precomputed order (no recursion):
  1. resolve names and calls; tensor orders bottom-up (and which vectors are rows), with
     constants of unknown order (None) broadcast top-down to the order their context needs;
  2. axis unification (union-find) and one canonical Axis per class;
  3. construction of the hash-consed DAG through the builders of `tensorcalc.dag`.
The rules, one per syntax kind, are in `tensorcalc.language.meaning_rules` (those of `*` in
`tensorcalc.language.matrix_input`). Errors point at the syntax
node where the problem is, once: a constant subexpression whose value is not finite
(`1/0`, `1e308*10`) is refused at its operator (`tensorcalc.language.constants`).

Matrix notation and the thesis' index notation are one language: `*` between vectors and
matrices is the matrix product (`tensorcalc.language.matrix_input`), `+ - / .*` broadcast a scalar,
and all of it, like the functions of `tensorcalc.language.sugar`, lowers to the existing nodes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Mapping, NoReturn

from tensorcalc import dag
from tensorcalc.collector import pausing
from tensorcalc.dag import Axis, Expr
from tensorcalc.derivatives.reverse import derivative
from tensorcalc.errors import ParseError, TensorCalcError
from tensorcalc.language.axis_classes import UnionFind
from tensorcalc.language.constants import ConstantValues
from tensorcalc.language.meaning_rules import (
    AXES,
    BUILD,
    CALLABLE,
    CHILD_ORDERS,
    FUNCTIONS,
    ORDER,
    small_whole,
)
from tensorcalc.language.parse import read
from tensorcalc.language.syntax import Let, Syntax, Token

RESERVED = FUNCTIONS + ("declare", "expression", "derivative", "wrt", "let")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*", re.ASCII)


@dataclass(frozen=True)
class Input:
    """A parsed thesis input: `declare ... expression ... [derivative wrt NAME]`."""

    expr: Expr
    wrt: str | None
    orders: dict[str, int]
    declared: Mapping[str, dag.Var] = field(repr=False)

    def derivative(self, order: int = 1, simplify: bool = True) -> Expr:
        """The derivative of `expr` with respect to `wrt` (which must be given)."""
        if self.wrt is None:
            raise TensorCalcError("this input names no variable: add 'derivative wrt NAME'")
        return derivative(self.expr, self.declared[self.wrt], order, simplify)


@pausing                                         # see `collector`: nodes by the million, no cycles
def parse(text: str) -> Input:
    """Parse the thesis input form, one line or a multi-line file with # comments."""
    syntax = read(text)
    if not syntax.is_input:
        lines = text.split("\n")
        line = next(i for i, t in enumerate(lines, 1) if t.split("#", 1)[0].strip())
        column = len(lines[line - 1]) - len(lines[line - 1].lstrip()) + 1
        raise ParseError("an input starts with 'declare' (declare NAME ORDER ... expression EXPR)",
                         text, line, column)
    orders = declarations(syntax.decls, text)
    expr, declared = build(text, syntax.expr, orders)
    wrt = syntax.wrt
    if wrt is not None and wrt.text not in orders:
        raise ParseError(f"derivative wrt {wrt.text!r}: {wrt.text!r} is not declared "
                         f"(declared: {', '.join(orders) or 'nothing'})", text, wrt.line, wrt.column)
    return Input(expr, wrt.text if wrt else None, orders, declared)


@pausing
def parse_expr(text: str, orders: dict[str, int], shapes: Mapping[str, tuple] | None = None) -> Expr:
    """Parse a bare expression whose variables have the given tensor orders: matrix
    notation (`x' * A * x`), index notation (`x *(i,ij->j) A *(j,j->) x`) or both, after
    any `let NAME = EXPR` lines (docs/problem-format.md). `shapes` (optional) gives
    variables' dimensions, lengths or names: matrix-notation operators check them where
    they meet, and constant indices and slices (`x[0]`, `X[1:3, :]`) need the lengths."""
    syntax = read(text)
    if syntax.is_input:
        raise ParseError("parse_expr takes a bare expression; use tensorcalc.parse for "
                         "'declare ... expression ...'", text, 1, 1)
    for name, order in orders.items():
        _check_name(name, order, text, None)
    if shapes is not None:
        for name, dims in shapes.items():
            if name not in orders or len(tuple(dims)) != orders[name]:
                raise ParseError(f"shapes[{name!r}] = {tuple(dims)!r} does not fit the order "
                                 f"{orders.get(name, 'of an undeclared name')}", text, 1, 1)
    return build(text, syntax.expr, dict(orders), shapes, lets=syntax.lets, every_let=True)[0]


def build(text: str, root: Syntax, orders: Mapping[str, int], dims: Mapping[str, tuple] | None = None,
          lets: tuple[Let, ...] = (), every_let: bool = False,
          fixed_lengths: bool = False) -> tuple[Expr, Mapping[str, dag.Var]]:
    """The expression `root` of `text` says, and the variables by name. `orders` gives each
    name's order (read, not copied: keep it unchanged while the result is used); `dims`
    (optional) each name's dimensions (names or lengths), which matrix-notation operators
    check where they meet; `lets` are named expressions that
    `root` (and later lets) may use: those it uses are analysed with it, or all of them
    with `every_let` (so that an unused let's errors are reported too). With
    `fixed_lengths` (an expression to evaluate, not only to differentiate), every axis
    must have its length fixed by a variable's axis or a constant index range: an axis
    that only a constant brings (`sum(vector(1))`) is a ParseError at that constant.

    The cost grows with the size of `root` (and the lets it uses), not with the number of
    declared names: only the names it mentions get axis classes and variables; the others'
    variables are built when the result is asked for them (`_Declared`)."""
    return _Analysis(text, orders, dims).run(root, lets, every_let, fixed_lengths)


class _Declared(Mapping[str, dag.Var]):
    """Every declared name's variable, in the order of `orders`: those an expression
    mentions with the axes its analysis gave them; any other, built when first asked for,
    with axes of its own, Axis(name, k): no contraction ties them to another class."""

    def __init__(self, orders: Mapping[str, int], mentioned: dict[str, dag.Var]):
        self.orders, self.vars = orders, mentioned

    def __getitem__(self, name: str) -> dag.Var:
        var = self.vars.get(name)
        if var is None:
            var = self.vars[name] = dag.var(name, [Axis(name, k) for k in range(self.orders[name])])
        return var

    def __iter__(self) -> Iterator[str]:
        return iter(self.orders)

    def __len__(self) -> int:
        return len(self.orders)


def declarations(decls: tuple[tuple[Token, Token], ...], text: str) -> dict[str, int]:
    orders: dict[str, int] = {}
    for name, order in decls:
        if name.text in orders:
            raise ParseError(f"{name.text!r} is declared twice", text, name.line, name.column)
        if not order.text.isdigit():
            raise ParseError(f"the order of {name.text!r} must be a whole number, found {order.text:.40}",
                             text, order.line, order.column)
        value = small_whole(order.text)
        _check_name(name.text, value if value is not None else f"{order.text:.40}", text, (name, order))
        assert value is not None, "_check_name refuses an order that is not a small whole number"
        orders[name.text] = value
    return orders


def _check_name(name, order, text, toks) -> None:
    at = (text, toks[0].line, toks[0].column) if toks else ()
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ParseError(f"{name!r} is not a valid variable name (ASCII letters, digits, _; a letter first)", *at)
    if name in RESERVED:
        raise ParseError(f"{name!r} is reserved (a function or keyword) and cannot name a tensor", *at)
    if not isinstance(order, int) or isinstance(order, bool) or not 0 <= order <= dag.MAX_ORDER:
        at = (text, toks[1].line, toks[1].column) if toks else ()
        raise ParseError(f"the order of {name!r} must be a whole number from 0 to {dag.MAX_ORDER}, "
                         f"found {order}", *at)


def _postorder(root: Syntax) -> list[Syntax]:
    """Children before parents (a tree: sugar copies what it uses twice)."""
    out, stack = [], [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            out.append(node)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.args))
    return out


class _Analysis:
    """One analysis of one expression (and the lets it uses); `tensorcalc.language.meaning_rules` holds one
    rule per syntax kind for each pass."""

    def __init__(self, text: str, orders: Mapping[str, int], dims: Mapping[str, tuple] | None):
        self.text, self.orders, self.dims = text, orders, dims or {}
        self.order: dict[Syntax, int | None] = {}
        self.row: set[Syntax] = set()                    # vectors written as rows (x')
        self.ids: dict[Syntax, tuple[int, ...]] = {}
        self.built: dict[Syntax, Expr] = {}
        self.specs: dict[Syntax, tuple[str, str, str]] = {}
        self.plans: dict[Syntax, object] = {}             # accesses: tensorcalc.language.indexing.Plan
        self.misfits: dict[Syntax, tuple[str, str]] = {}  # products whose operands do not fit
        self.binding: dict[Syntax, Syntax] = {}          # a name node -> the let expression it names
        self.uf = UnionFind()
        self.constants = ConstantValues()
        self.var_ids: dict[str, tuple[int, ...]] = {}    # the declared names the nodes mention (_mention)

    def fail(self, node: Syntax, message: str) -> NoReturn:
        raise ParseError(message, self.text, node.line, node.column)

    def run(self, root: Syntax, lets: tuple[Let, ...], every_let: bool,
            fixed_lengths: bool = False) -> tuple[Expr, Mapping[str, dag.Var]]:
        nodes = self._nodes(root, lets, every_let)
        self._mention(nodes)
        for node in nodes:
            self.order[node] = ORDER[node.kind](self, node)
        if self.order[root] is None:
            self.order[root] = 0                         # a constant alone is a scalar
        for node in reversed(nodes):
            need = CHILD_ORDERS[node.kind](self, node)
            for child, order in zip(node.args, need):
                if self.order[child] is None:
                    self.order[child] = order
        for node in nodes:
            self.ids[node] = AXES[node.kind](self, node)
        if fixed_lengths:
            self._check_lengths(nodes)
        canon = self._canonical(nodes)
        mentioned = {n: dag.var(n, [canon[self.uf.find(i)] for i in ids]) for n, ids in self.var_ids.items()}
        for node in nodes:
            self._build(node, tuple(canon[self.uf.find(i)] for i in self.ids[node]), mentioned)
        return self.built[root], _Declared(self.orders, mentioned)

    def _mention(self, nodes: list[Syntax]) -> None:
        """Axis classes (with their declared dimensions) for each declared name that a
        name or an access among `nodes` reads, in the order of first mention."""
        for node in nodes:
            name = node.value if node.kind == "name" else node.value[0] if node.kind == "access" else None
            if isinstance(name, str) and name in self.orders and name not in self.var_ids:
                ids = self.var_ids[name] = tuple(self.uf.new() for _ in range(self.orders[name]))
                for i, d in zip(ids, self.dims.get(name, ())):
                    self.uf.dim[i] = d

    def _build(self, node: Syntax, axes: tuple[Axis, ...], declared) -> None:
        try:
            self.built[node] = BUILD[node.kind](self, node, [self.built[c] for c in node.args], axes, declared)
        except ParseError as err:
            if not err.line:
                self.fail(node, err.reason)
            raise                                    # located already: locate once
        except TensorCalcError as err:
            self.fail(node, str(err))
        problem = self.constants.problem(self.built[node])
        if problem is not None:
            self.fail(node, problem)

    def _nodes(self, root: Syntax, lets: tuple[Let, ...], every_let: bool) -> list[Syntax]:
        """Every node, children first: the lets `root` uses (directly or through other
        lets; all of them with `every_let`), in their order, then `root`."""
        named: dict[str, int] = {}
        for k, let in enumerate(lets):
            self._check_let(let, named)
            named[let.name.text] = k
        trees = [_postorder(let.expr) for let in lets] + [_postorder(root)]
        used = [every_let] * len(lets) + [True]
        for k in range(len(trees) - 1, -1, -1):
            if used[k]:
                for node in trees[k]:
                    j = named.get(node.value, len(lets)) if node.kind == "name" else len(lets)
                    if j < k and node.value not in self.orders:
                        used[j] = True
                        self.binding[node] = lets[j].expr
        return [node for k, tree in enumerate(trees) if used[k] for node in tree]

    def _check_let(self, let: Let, named: dict[str, int]) -> None:
        name = let.name
        where = (self.text, name.line, name.column)
        if name.text in self.orders:
            raise ParseError(f"let {name.text}: {name.text!r} is already declared; choose another name", *where)
        if name.text in named:
            raise ParseError(f"let {name.text}: {name.text!r} is already a let name; choose another name", *where)
        if name.text in RESERVED or name.text.startswith("_"):
            raise ParseError(f"let {name.text}: {name.text!r} is reserved; choose another name", *where)

    def _check_lengths(self, nodes: list[Syntax]) -> None:
        """Fail at the first (innermost) node with an axis whose class holds no variable's
        axis and no known length: its value would depend on a length nothing gives."""
        fixed = {self.uf.find(i) for ids in self.var_ids.values() for i in ids}
        for node in nodes:
            for k, i in enumerate(self.ids[node]):
                root = self.uf.find(i)
                if root not in fixed and self.uf.dim.get(root) is None:
                    which = f"axis {k} of " if len(self.ids[node]) > 1 else ""
                    self.fail(node, f"the length of {which}{self.snippet(node)!r} is fixed by nothing: it meets "
                                    f"no declared dimension; use it where it meets a declared vector or "
                                    f"matrix (as in A * vector(1)), or write the number it stands for")

    def _canonical(self, nodes: list[Syntax]) -> dict[int, Axis]:
        """One Axis per class: the least variable axis in it, else a numbered free axis."""
        canon: dict[int, Axis] = {}
        for name in sorted(self.var_ids):
            for pos, i in enumerate(self.var_ids[name]):
                canon.setdefault(self.uf.find(i), Axis(name, pos))
        free = 0
        for node in nodes:
            for i in self.ids[node]:
                root = self.uf.find(i)
                if root not in canon:
                    canon[root], free = Axis("", free), free + 1
        return canon

    # ------------------------------------------------------------------ helpers used by rules
    def function(self, node: Syntax) -> str:
        """The function a call names, after checking its number of arguments."""
        name = node.value
        if name not in CALLABLE:
            if name in self.orders:
                self.fail(node, f"{name!r} is a variable, not a function")
            self.fail(node, f"unknown function {name!r}; known functions: {', '.join(sorted(CALLABLE))}")
        low, high, signature = CALLABLE[name]
        if not low <= len(node.args) <= high:
            self.fail(node, f"{name} takes {_count(low, high)}: {signature}; got {len(node.args)}")
        return name

    def indices(self, node: Syntax) -> tuple[str, str, str]:
        """The index strings of a product, checked once."""
        if node not in self.specs:
            strings = []
            for toks in node.value:
                bad = next((t for t in toks if not t.text.isalpha() or not t.text.isascii()), None)
                if bad is not None:
                    raise ParseError(f"index string {bad.text!r} may contain only letters a-z, A-Z",
                                     self.text, bad.line, bad.column)
                strings.append("".join(t.text for t in toks))
            left, right, out = strings                     # the grammar's *(s1,s2->s3)
            self.specs[node] = (left, right, out)
        return self.specs[node]

    def snippet(self, node: Syntax) -> str:
        """The text of `node` as written (whitespace collapsed, long text cut)."""
        text = _render(node, self.text)
        return text if len(text) <= 40 else text[:37] + "..."


def _count(low: int, high: int) -> str:
    words = {1: "one argument", 2: "two arguments", 4: "four arguments"}
    return words[low] if low == high else f"{words[low].split()[0]} or {words[high]}"


def _render(node: Syntax, text: str, depth: int = 0) -> str:
    """The text of a node as written; for nodes that sugar wrote, their syntax written
    back (a few levels deep: this is for messages)."""
    if node.start >= 0:
        return " ".join(text[node.start:node.end].split())
    if depth > 3:
        return "..."
    args = [_render(a, text, depth + 1) for a in node.args]
    ops = {"add": " + ", "sub": " - ", "mul": " * ", "div": " ./ ", "hadamard": " .* ", "pow": " .^ "}
    if node.kind in ops:
        return "(" + ops[node.kind].join(args) + ")"
    if node.kind == "call":
        return f"{node.value}({', '.join(args)})"
    if node.kind == "transpose":
        return f"{args[0]}'"
    return f"-{args[0]}" if node.kind == "neg" else str(node.value)
