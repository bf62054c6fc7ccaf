"""Emitting matrix notation: the plan of `matrixplan` as text (`matrix`) or as LaTeX.

    >>> import tensorcalc as tc
    >>> e = tc.parse_expr("x *(i,ij->j) A *(j,j->) x", {"x": 1, "A": 2})
    >>> print(tc.to_text(tc.derivative(e, "x"), "matrix"))
    A' * x + A * x

Plan, then emit. The emitter walks the DAG nodes the plan reaches, children first, once
each, and gives every node a piece of text (a rope: parts that are strings or the pieces
of children, so a deep expression costs linear memory). A node that two or more terms
refer to and whose text is longer than NAME_AT characters is printed once, as a `let`:

    let t1 = exp(-((X * w + b) .* y))
    -(X' * diag((t1 ./ (1 + t1) .^ 2 .* y - y ./ (1 + t1)) .* t1 .* y) * X)

Brackets follow one precedence table, from loose to tight: `+ -` (and a leading unary
minus), the products `* /`, `.* ./` and `*(ij,jk->ik)`, powers `^ .^`, the transpose
`'`, atoms. Products of different kinds never meet without brackets, so the text does not
depend on how a reader ranks `*` against `.*`.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

from tensorcalc import dag
from tensorcalc.dag import Expr, Var
from tensorcalc.errors import TensorCalcError
from tensorcalc.printing.einsum import number
from tensorcalc.printing.matrix_plan import plan
from tensorcalc.printing.matrix_terms import (
    Add,
    Call,
    Div,
    Einsum,
    Ew,
    Leaf,
    Mul,
    Neg,
    Num,
    Ones,
    Pow,
    Raw,
    Ref,
    T,
    Term,
    transpose,
)

NAME_AT = 10          # a shared subexpression gets a name when its text is longer than this
PUSH_DEPTH = 64       # transposes pushed into unnamed children at most this deep
ADD, MUL, POW, POSTFIX, ATOM = range(1, 6)


class Piece(NamedTuple):
    """Text as a rope, with the precedence level and operator family of its top."""

    parts: tuple
    level: int
    family: str
    length: int


def piece(parts: Iterable[str | Piece], level: int = ATOM, family: str = "atom") -> Piece:
    parts = tuple(parts)
    return Piece(parts, level, family, sum(len(p) if isinstance(p, str) else p.length for p in parts))


def flatten(root: Piece) -> str:
    out: list[str] = []
    stack: list = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        else:
            stack.extend(reversed(item.parts))
    return "".join(out)


def _bare(p: Piece, level: int, family: str, side: str) -> bool:
    """Whether operand p needs no brackets on `side` (left, right, strict: the right of
    `-`, `/`, `./`; or only: the operand of a prefix or postfix operator, or an exponent)
    of an operator of this level and family."""
    if p.level != level or side == "only":
        return p.level >= level if side == "only" else p.level > level
    if side == "left":
        return p.family == family or (p.family == "neg" and family == "add")
    return side == "right" and p.family == family


# ----------------------------------------------------------------------------- syntaxes

class MatrixSyntax:
    """The text syntax `parse_expr` reads (docs/problem-format.md, "Matrix notation")."""

    open, close, tick = "(", ")", "'"
    BINARY = {"*": " * ", "/": " / ", ".*": " .* ", "./": " ./ ", ".^": " .^ ", "^": " ^ ",
              "+": " + ", "-": " - "}

    def name(self, text: str) -> str:
        return text

    def leaf(self, text: str) -> str:
        """A variable's name, `eye` or `delta(n)`."""
        return text

    def raw(self, text: str) -> str:
        return text

    def number(self, value: float) -> str:
        return number(value)

    def ones(self, value: float, order: int) -> str:
        return f"{'vector' if order == 1 else 'matrix'}({self.number(value)})"

    def call(self, fn: str, args: list[Piece], emit: Emitter) -> Piece:
        inner = [part for k, a in enumerate(args) for part in ((", ",) if k else ()) + (a,)]
        return piece([fn, "(", *inner, ")"])

    def division(self, a: Piece, b: Piece, emit: Emitter) -> Piece:
        return piece([emit.wrap(a, MUL, "mul", "left"), " / ", emit.wrap(b, MUL, "mul", "strict")], MUL, "mul")

    def power(self, a: Piece, b: Piece, op: str, emit: Emitter) -> Piece:
        return piece([emit.wrap(a, ATOM), self.BINARY[op], emit.wrap(b, ATOM)], POW, "pow")

    def einsum(self, spec: str) -> str:
        return f" *({spec}) "

    def let(self, name: str, value: Piece) -> Piece:
        return piece(["let ", name, " = ", value, "\n"])

    def program(self, lets: list[Piece], result: Piece) -> Piece:
        return piece([*lets, result])


LATEX_FUNCTIONS = {"exp": r"\exp", "log": r"\log", "sin": r"\sin", "cos": r"\cos", "tan": r"\tan",
                   "tanh": r"\tanh", "arcsin": r"\arcsin", "arccos": r"\arccos", "arctan": r"\arctan",
                   "det": r"\det"}


class LatexSyntax(MatrixSyntax):
    """LaTeX math: juxtaposed products, A^\\top, \\odot, \\frac, shared parts after 'where'."""

    open, close, tick = r"\left(", r"\right)", r"^\top"
    BINARY = {**MatrixSyntax.BINARY, "*": " ", ".*": r" \odot ", "./": r" \oslash "}

    def name(self, text: str) -> str:
        stem = text.rstrip("0123456789")
        if stem != text and stem and "_" not in stem:
            return f"{self.name(stem)}_{{{text[len(stem):]}}}"
        if len(text) == 1:
            return text
        return r"\mathit{" + text.replace("_", r"\_") + "}"

    def leaf(self, text: str) -> str:
        if text == "eye":
            return "I"
        if text.startswith("delta("):
            return r"\delta_{" + text[6:-1] + "}"
        return self.name(text)

    def raw(self, text: str) -> str:
        return r"\text{" + text + "}"

    def number(self, value: float) -> str:
        text = super().number(value)
        return text.replace("(", r"\left(").replace(")", r"\right)")

    def ones(self, value: float, order: int) -> str:
        return r"\mathbf{1}" if value == 1.0 else self.number(value) + r" \mathbf{1}"

    def call(self, fn: str, args: list[Piece], emit: Emitter) -> Piece:
        if fn == "sqrt":
            return piece([r"\sqrt{", args[0], "}"])
        if fn == "inv":
            return piece(["{", emit.wrap(args[0], ATOM), "}^{-1}"], POW, "pow")
        head = LATEX_FUNCTIONS.get(fn, r"\operatorname{" + fn + "}")
        inner = [part for k, a in enumerate(args) for part in ((", ",) if k else ()) + (a,)]
        return piece([head, r"\left(", *inner, r"\right)"])

    def division(self, a: Piece, b: Piece, emit: Emitter) -> Piece:
        return piece([r"\frac{", a, "}{", b, "}"])

    def power(self, a: Piece, b: Piece, op: str, emit: Emitter) -> Piece:
        circle = r"\circ " if op == ".^" else ""
        return piece(["{", emit.wrap(a, ATOM), "}^{", circle, b, "}"], POW, "pow")

    def einsum(self, spec: str) -> str:
        ins, out = spec.split("->")
        return r" \ast_{" + ins + r" \to " + (out or r"\cdot") + "} "

    def let(self, name: str, value: Piece) -> Piece:
        return piece([name, " = ", value])

    def program(self, lets: list[Piece], result: Piece) -> Piece:
        if not lets:
            return result
        where = [part for k, p in enumerate(lets) for part in ((r",\; ",) if k else ()) + (p,)]
        return piece([result, r" \quad\text{where}\quad ", *where])


SYNTAXES = {"matrix": MatrixSyntax(), "latex": LatexSyntax()}


# ----------------------------------------------------------------------------- emitter

class Emitter:
    """Pieces of text for the terms of one plan; `names` holds the `let` names given so far."""

    def __init__(self, plans: dict[Expr, Term], syntax: MatrixSyntax) -> None:
        self.plans, self.syntax = plans, syntax           # plans: terms by node
        self.pieces: dict[Expr, Piece] = {}
        self.names: dict[Expr, str] = {}                 # as the syntax writes them

    def wrap(self, p: Piece, level: int, family: str = "", side: str = "only") -> Piece:
        if _bare(p, level, family, side):
            return p
        return piece([self.syntax.open, p, self.syntax.close])

    def emit(self, term: Term, depth: int = 0) -> Piece:
        return EMIT[type(term)](self, term, depth)

    def _ref(self, term: Ref, depth: int) -> Piece:
        name = self.names.get(term.node)
        return piece([name]) if name else self.pieces[term.node]

    def _transpose(self, term: T, depth: int) -> Piece:
        arg = term.arg
        if isinstance(arg, Ref) and arg.node not in self.names and depth < PUSH_DEPTH:
            pushed = transpose(self.plans[arg.node])
            if not isinstance(pushed, T) or pushed.arg != self.plans[arg.node]:
                return self.emit(pushed, depth + 1)
        return piece([self.wrap(self.emit(arg, depth), ATOM), self.syntax.tick], POSTFIX, "postfix")

    def _binary(self, term, depth: int, op: str, family: str, strict: bool = False) -> Piece:
        a, b = self.emit(term.a, depth), self.emit(term.b, depth)
        return piece([self.wrap(a, MUL, family, "left"), self.syntax.BINARY[op],
                      self.wrap(b, MUL, family, "strict" if strict else "right")], MUL, family)

    def _mul(self, term: Mul, depth: int) -> Piece:
        return self._binary(term, depth, "*", "mul")

    def _div(self, term: Div, depth: int) -> Piece:
        return self.syntax.division(self.emit(term.a, depth), self.emit(term.b, depth), self)

    def _ew(self, term: Ew, depth: int) -> Piece:
        if term.op == ".^":
            return self.syntax.power(self.emit(term.a, depth), self.emit(term.b, depth), ".^", self)
        return self._binary(term, depth, term.op, "ew", strict=term.op == "./")

    def _pow(self, term: Pow, depth: int) -> Piece:
        return self.syntax.power(self.emit(term.a, depth), self.emit(term.b, depth), "^", self)

    def _add(self, term: Add, depth: int) -> Piece:
        a, b = self.emit(term.a, depth), self.emit(term.b, depth)
        op = "-" if term.minus else "+"
        left = self.wrap(a, ADD, "add", "left")
        family = "neg" if left.family == "neg" else "add"    # -a + b: brackets wherever -a needs them
        return piece([left, self.syntax.BINARY[op],
                      self.wrap(b, ADD, "add", "strict" if term.minus else "right")], ADD, family)

    def _neg(self, term: Neg, depth: int) -> Piece:
        return piece(["-", self.wrap(self.emit(term.arg, depth), POSTFIX)], ADD, "neg")

    def _call(self, term: Call, depth: int) -> Piece:
        return self.syntax.call(term.fn, [self.emit(a, depth) for a in term.args], self)

    def _einsum(self, term: Einsum, depth: int) -> Piece:
        inputs, out = term.spec
        have = inputs[0]
        result = self.emit(term.args[0], depth)
        for k in range(1, len(inputs)):
            later = "".join(inputs[k + 1:]) + out
            keep = out if k == len(inputs) - 1 else "".join(
                c for c in dict.fromkeys(have + inputs[k]) if c in later)
            right = self.wrap(self.emit(term.args[k], depth), POSTFIX)
            result = piece([self.wrap(result, POSTFIX), self.syntax.einsum(f"{have},{inputs[k]}->{keep}"),
                            right], MUL, "einsum")
            have = keep
        return result


EMIT: dict[type[Term], Callable[[Emitter, Any, int], Piece]] = {
    Ref: Emitter._ref, T: Emitter._transpose, Mul: Emitter._mul, Div: Emitter._div, Ew: Emitter._ew,
    Pow: Emitter._pow, Add: Emitter._add, Neg: Emitter._neg, Call: Emitter._call, Einsum: Emitter._einsum,
    Leaf: lambda self, t, d: piece([self.syntax.leaf(t.text)]),
    Num: lambda self, t, d: piece([self.syntax.number(t.value)]),
    Ones: lambda self, t, d: piece([self.syntax.ones(t.value, t.order)]),
    Raw: lambda self, t, d: piece([self.syntax.raw(t.text)]),
}


# ----------------------------------------------------------------------------- sharing

def references(root: Expr, plans: dict[Expr, Term]) -> dict[Expr, int]:
    """How many terms refer to each node reachable from root through the plans."""
    count: dict[Expr, int] = {root: 1}
    stack = [root]
    while stack:
        for child in _refs(plans[stack.pop()]):
            count[child] = count.get(child, 0) + 1
            if count[child] == 1:
                stack.append(child)
    return count


def _refs(term: Term):
    stack = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, Ref):
            yield t.node
        else:
            stack.extend(_children(t))


def render(expr: Expr, notation: str = "matrix") -> Piece:
    """The text of expr as one piece: `let` lines for shared parts, then the expression."""
    found = plan(expr)
    root = found.same[expr]
    emitter = Emitter(found.terms, SYNTAXES[notation])
    count = references(root, found.terms)
    taken = {node.name for node in count if isinstance(node, Var)}
    sized: dict[Expr, bool] = {}
    lets: list[Piece] = []
    for node in dag.topo(root):
        if node not in count:
            continue
        p = emitter.emit(found.terms[node])
        emitter.pieces[node] = p
        sized[node] = _sized(found.terms[node], sized)
        if node is not root and count[node] > 1 and p.length > NAME_AT and sized[node]:
            name = _fresh(len(lets) + 1, taken)
            emitter.names[node] = emitter.syntax.name(name)
            lets.append(emitter.syntax.let(emitter.names[node], p))
    return emitter.syntax.program(lets, emitter.pieces[root])


def _sized(term: Term, sized: dict[Expr, bool]) -> bool:
    """Whether the text of term fixes its shape (it names a variable): only such a part can
    stand alone in a `let` (`vector(1)`, `eye` and numbers take their shape from around)."""
    if isinstance(term, Leaf):
        return term.text[0].isalpha() and term.text != "eye" and not term.text.startswith("delta(")
    if isinstance(term, Ref):
        return sized[term.node]
    return any(_sized(t, sized) for t in _children(term))


def _children(term: Term):
    for value in vars(term).values():
        if isinstance(value, Term):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, Term))


def _fresh(k: int, taken: set[str]) -> str:
    while f"t{k}" in taken:
        k += 1
    taken.add(f"t{k}")
    return f"t{k}"


def to_matrix_text(expr: Expr, notation: str = "matrix", limit: int | None = None, max_text: int = 0) -> str:
    """The text of `render`, or a note of its length when over `limit` (over `max_text`,
    an error)."""
    whole = render(expr, notation)
    if limit is not None and whole.length > limit:
        return f"<{whole.length:,} characters, {dag.count_nodes(expr)} nodes>"
    if max_text and whole.length > max_text:
        raise TensorCalcError(f"the expression prints to {whole.length:,} characters (over {max_text:,}); "
                              f"it has {dag.count_nodes(expr)} shared nodes: inspect it as a DAG instead")
    return flatten(whole)
