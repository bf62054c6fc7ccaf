"""Meaning stage: syntax tree to expression DAG (thesis sections 3.2.1 to 3.2.4).

Passes over the syntax tree, each one loop over a precomputed order (no recursion):
  1. resolve names and calls;
  2. tensor orders bottom-up, with constants of unknown order (None) broadcast top-down
     to the order their context needs;
  3. axis unification (union-find) and one canonical Axis per class;
  4. construction of the hash-consed DAG through the builders of `tensorcalc.dag`.
Errors point at the syntax node where the problem is, once: a constant subexpression
whose value is not finite (`1/0`, `1e308*10`) is refused at its operator
(`tensorcalc.constants`).

Sugar lowers to existing nodes here and has no node type of its own: `sum(e)` is the
contraction of e with the constant 1 onto no index, `sqrt(e)` is `e ^ 0.5`, and a plain
`a * b` with a scalar on one side is `dag.scale`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import dag
from .collector import pausing
from .constants import ConstantValues
from .dag import Axis, Expr
from .diff import derivative
from .errors import ParseError, TensorCalcError
from .parse import Syntax, SyntaxInput, Token, number_value, read

SUGAR = ("sum", "sqrt")  # functions that lower to other nodes (see _SUGAR_BUILDERS)
FUNCTIONS = tuple(f for f in dag.ELEMENTWISE if f not in ("neg", "recip")) + dag.SPECIAL + SUGAR
RESERVED = FUNCTIONS + ("delta", "declare", "expression", "derivative", "wrt")


@dataclass(frozen=True)
class Input:
    """A parsed thesis input: `declare ... expression ... [derivative wrt NAME]`."""

    expr: Expr
    wrt: str | None
    orders: dict[str, int]
    declared: dict[str, dag.Var] = field(repr=False)

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
    orders = _declarations(syntax.decls, text)
    expr, declared = _Analysis(text, orders).run(syntax.expr)
    wrt = syntax.wrt
    if wrt is not None and wrt.text not in orders:
        raise ParseError(f"derivative wrt {wrt.text!r}: {wrt.text!r} is not declared "
                         f"(declared: {', '.join(orders) or 'nothing'})", text, wrt.line, wrt.column)
    return Input(expr, wrt.text if wrt else None, orders, declared)


@pausing
def parse_expr(text: str, orders: dict[str, int]) -> Expr:
    """Parse a bare expression whose variables have the given tensor orders."""
    syntax = read(text)
    if syntax.is_input:
        raise ParseError("parse_expr takes a bare expression; use tensorcalc.parse for "
                         "'declare ... expression ...'", text, 1, 1)
    for name, order in orders.items():
        _check_name(name, order, text, None)
    return _Analysis(text, dict(orders)).run(syntax.expr)[0]


def _declarations(decls: tuple[tuple[Token, Token], ...], text: str) -> dict[str, int]:
    orders: dict[str, int] = {}
    for name, order in decls:
        if name.text in orders:
            raise ParseError(f"{name.text!r} is declared twice", text, name.line, name.column)
        if not order.text.isdigit():
            raise ParseError(f"the order of {name.text!r} must be a whole number, found {order.text:.40}",
                             text, order.line, order.column)
        value = _small_whole(order.text)
        _check_name(name.text, value if value is not None else f"{order.text:.40}", text, (name, order))
        orders[name.text] = value
    return orders


def _small_whole(digits: str) -> int | None:
    """int(digits) when it is at most MAX_ORDER, else None (also for 5000 digits, which
    int() refuses to convert)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 3 and int(digits) <= dag.MAX_ORDER else None


def _check_name(name, order, text, toks) -> None:
    at = (text, toks[0].line, toks[0].column) if toks else ()
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise ParseError(f"{name!r} is not a valid variable name (letters, digits, _; a letter first)", *at)
    if name in RESERVED:
        raise ParseError(f"{name!r} is reserved (a function or keyword) and cannot name a tensor", *at)
    if not isinstance(order, int) or not 0 <= order <= dag.MAX_ORDER:
        at = (text, toks[1].line, toks[1].column) if toks else ()
        raise ParseError(f"the order of {name!r} must be a whole number from 0 to {dag.MAX_ORDER}, "
                         f"found {order}", *at)


def _postorder(root: Syntax) -> list[Syntax]:
    out, stack = [], [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            out.append(node)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.args))
    return out


class _UnionFind:
    def __init__(self):
        self.parent: list[int] = []

    def new(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, a: int) -> int:
        root = a
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[a] != root:
            self.parent[a], a = root, self.parent[a]
        return root

    def union(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)


class _Analysis:
    """One analysis of one syntax tree; the tables below hold one rule per syntax kind."""

    def __init__(self, text: str, orders: dict[str, int]):
        self.text, self.orders = text, orders
        self.order: dict[Syntax, int | None] = {}
        self.ids: dict[Syntax, tuple[int, ...]] = {}
        self.specs: dict[Syntax, tuple[str, str, str]] = {}
        self.uf = _UnionFind()
        self.constants = ConstantValues()
        self.var_ids = {n: tuple(self.uf.new() for _ in range(k)) for n, k in orders.items()}

    def fail(self, node: Syntax, message: str):
        raise ParseError(message, self.text, node.line, node.column)

    def run(self, root: Syntax) -> tuple[Expr, dict[str, dag.Var]]:
        nodes = _postorder(root)
        for node in nodes:
            self.order[node] = _ORDER_RULES[node.kind](self, node)
        if self.order[root] is None:
            self.order[root] = 0
        for node in reversed(nodes):
            self._push_orders(node)
        for node in nodes:
            self.ids[node] = _AXES_RULES[node.kind](self, node)
        canon = self._canonical(nodes)
        declared = {n: dag.var(n, [canon[self.uf.find(i)] for i in ids]) for n, ids in self.var_ids.items()}
        built: dict[Syntax, Expr] = {}
        for node in nodes:
            axes = tuple(canon[self.uf.find(i)] for i in self.ids[node])
            try:
                built[node] = _BUILD_RULES[node.kind](self, node, [built[c] for c in node.args], axes, declared)
            except ParseError as err:
                if not err.line:
                    self.fail(node, err.reason)
                raise                                    # located already: locate once
            except TensorCalcError as err:
                self.fail(node, str(err))
            problem = self.constants.problem(built[node])
            if problem is not None:
                self.fail(node, problem)
        return built[root], declared

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

    # ------------------------------------------------------------------ orders, top-down
    def _push_orders(self, node: Syntax) -> None:
        need = _CHILD_ORDERS[node.kind](self, node)
        for child, order in zip(node.args, need):
            if self.order[child] is None:
                self.order[child] = order

    # ------------------------------------------------------------------ helpers used by rules
    def function(self, node: Syntax) -> str:
        name = node.value
        if name in FUNCTIONS or name == "delta":
            return name
        if name in self.orders:
            self.fail(node, f"{name!r} is a variable, not a function")
        self.fail(node, f"unknown function {name!r}; known functions: {', '.join(FUNCTIONS)}, delta")

    def delta_n(self, node: Syntax) -> int:
        arg = node.args[0]
        text = arg.value if arg.kind == "number" else None
        if text is None or not text.isdigit() or _small_whole(text) is None:
            self.fail(arg, f"delta(n) takes a whole number n from 0 to {dag.MAX_ORDER}")
        return _small_whole(text)

    def indices(self, node: Syntax) -> tuple[str, str, str]:
        if node not in self.specs:
            self.specs[node] = self._indices(node)
        return self.specs[node]

    def _indices(self, node: Syntax) -> tuple[str, str, str]:
        strings = []
        for toks in node.value:
            s = "".join(t.text for t in toks)
            bad = next((t for t in toks if not t.text.isalpha() or not t.text.isascii()), None)
            if bad is not None:
                raise ParseError(f"index string {bad.text!r} may contain only letters a-z, A-Z",
                                 self.text, bad.line, bad.column)
            strings.append(s)
        return tuple(strings)


# ---------------------------------------------------------------------- order rules (bottom-up)

def _order_name(an: _Analysis, node: Syntax):
    if node.value not in an.orders:
        if node.value in FUNCTIONS or node.value == "delta":
            an.fail(node, f"{node.value!r} is a function: write {node.value}(...)")
        an.fail(node, f"undeclared variable {node.value!r} (declared: {', '.join(an.orders) or 'nothing'})")
    return an.orders[node.value]


def _order_call(an: _Analysis, node: Syntax):
    fn, (arg,) = an.function(node), node.args
    if fn == "delta":
        return 2 * an.delta_n(node)
    if fn == "sum":
        return 0
    if fn in dag.SPECIAL:
        if an.order[arg] not in (None, 2):
            an.fail(node, f"{fn} applies to a matrix (order 2); its argument has order {an.order[arg]}")
        return 0 if fn == "det" else 2
    return an.order[arg]


def _order_same(an: _Analysis, node: Syntax):
    left, right = (an.order[c] for c in node.args)
    if None not in (left, right) and left != right:
        what = {"add": "add", "sub": "subtract", "div": "divide element-wise"}[node.kind]
        an.fail(node, f"cannot {what} tensors of order {left} and {right}; use a product "
                      f"*(s1,s2->s3) to combine tensors of different orders")
    return left if left is not None else right


def _order_pow(an: _Analysis, node: Syntax):
    base, exponent = node.args
    if an.order[exponent] not in (None, 0):
        an.fail(node, f"the exponent of ^ must be a scalar (order 0); it has order {an.order[exponent]}")
    return an.order[base]


def _scalar_side(an: _Analysis, node: Syntax) -> int:
    """Which operand of a plain `*` is the scalar (0: left, 1: right): a known scalar
    first, else a constant of yet unknown order, the left one when both are."""
    left, right = (an.order[c] for c in node.args)
    return 0 if left == 0 or (left is None and right != 0) else 1


def _order_mul(an: _Analysis, node: Syntax):
    left, right = (an.order[c] for c in node.args)
    if left and right:
        an.fail(node, f"plain * needs a scalar on one side; use *(s1,s2->s3) for a tensor "
                      f"product (here: orders {left} and {right})")
    known = [k for k in (left, right) if k is not None]
    return max(known) if known else None


def _order_product(an: _Analysis, node: Syntax):
    s1, s2, s3 = an.indices(node)
    for side, s, child in (("left", s1, node.args[0]), ("right", s2, node.args[1])):
        if an.order[child] is not None and len(s) != an.order[child]:
            an.fail(node, f"the {side} index string {s!r} of *({s1},{s2}->{s3}) has {len(s)} "
                          f"letter(s) but the {side} operand has order {an.order[child]}")
    for c in s3:
        if c not in s1 + s2:
            an.fail(node, f"output index {c!r} of *({s1},{s2}->{s3}) appears in neither input")
        if s3.count(c) > 1:
            an.fail(node, f"output index {c!r} of *({s1},{s2}->{s3}) appears twice")
    if len(set(s1 + s2)) > len(dag.LETTERS):
        an.fail(node, f"a product may use at most {len(dag.LETTERS)} distinct indices")
    return len(s3)


_ORDER_RULES = {
    "number": lambda an, node: None,
    "name": _order_name,
    "call": _order_call,
    "add": _order_same, "sub": _order_same, "div": _order_same,
    "mul": _order_mul,
    "neg": lambda an, node: an.order[node.args[0]],
    "pow": _order_pow,
    "product": _order_product,
}


def _child_orders_call(an: _Analysis, node: Syntax):
    fn = an.function(node)
    if fn in ("delta", "sum"):
        return (0,)  # delta's n is a number, not a tensor; sum(2) sums a scalar
    return (2,) if fn in dag.SPECIAL else (an.order[node],)


_CHILD_ORDERS = {
    "number": lambda an, node: (), "name": lambda an, node: (),
    "call": _child_orders_call,
    "add": lambda an, node: (an.order[node],) * 2,
    "sub": lambda an, node: (an.order[node],) * 2,
    "div": lambda an, node: (an.order[node],) * 2,
    "mul": lambda an, node: ((0, an.order[node]), (an.order[node], 0))[_scalar_side(an, node)],
    "neg": lambda an, node: (an.order[node],),
    "pow": lambda an, node: (an.order[node], 0),
    "product": lambda an, node: tuple(len(s) for s in an.indices(node)[:2]),
}


# ---------------------------------------------------------------------- axis rules (bottom-up)

def _axes_fresh(an: _Analysis, node: Syntax):
    return tuple(an.uf.new() for _ in range(an.order[node]))


def _axes_call(an: _Analysis, node: Syntax):
    fn = an.function(node)
    if fn == "delta":
        half = tuple(an.uf.new() for _ in range(an.delta_n(node)))
        return half + half
    arg = an.ids[node.args[0]]
    if fn == "sum":
        return ()
    if fn in dag.SPECIAL:
        an.uf.union(arg[0], arg[1])
        return () if fn == "det" else arg
    return arg


def _axes_same(an: _Analysis, node: Syntax):
    left, right = (an.ids[c] for c in node.args)
    for a, b in zip(left, right):
        an.uf.union(a, b)
    return left


def _axes_product(an: _Analysis, node: Syntax):
    s1, s2, s3 = an.indices(node)
    letter: dict[str, int] = {}
    for c, i in zip(s1 + s2, an.ids[node.args[0]] + an.ids[node.args[1]]):
        if c in letter:
            an.uf.union(letter[c], i)
        else:
            letter[c] = i
    return tuple(letter[c] for c in s3)


_AXES_RULES = {
    "number": _axes_fresh,
    "name": lambda an, node: an.var_ids[node.value],
    "call": _axes_call,
    "add": _axes_same, "sub": _axes_same, "div": _axes_same,
    "mul": lambda an, node: an.ids[node.args[1 - _scalar_side(an, node)]],
    "neg": lambda an, node: an.ids[node.args[0]],
    "pow": lambda an, node: an.ids[node.args[0]],
    "product": _axes_product,
}


# ---------------------------------------------------------------------- construction

def _sum_all(e: Expr) -> Expr:
    """The sum of all entries of e, a scalar: e *(s,->) 1 (e itself when a scalar)."""
    if e.order == 0:
        return e
    return dag.contraction((e, dag.const(1.0)), (dag.LETTERS[:e.order], "", ""))


_SUGAR_BUILDERS = {
    "sum": _sum_all,
    "sqrt": lambda e: dag.power(e, dag.const(0.5)),
}


def _build_call(an: _Analysis, node: Syntax, args, axes, declared):
    fn = an.function(node)
    if fn == "delta":
        return dag.delta(an.delta_n(node), axes)
    if fn in _SUGAR_BUILDERS:
        return _SUGAR_BUILDERS[fn](args[0])
    return (dag.special if fn in dag.SPECIAL else dag.elementwise)(fn, args[0])


def _build_mul(an: _Analysis, node: Syntax, args, axes, declared):
    scalar = _scalar_side(an, node)
    return dag.scale(args[scalar], args[1 - scalar])


_BUILD_RULES = {
    "number": lambda an, node, args, axes, declared: dag.const(number_value(node, an.text), axes),
    "name": lambda an, node, args, axes, declared: declared[node.value],
    "call": _build_call,
    "add": lambda an, node, args, axes, declared: dag.add(*args),
    "sub": lambda an, node, args, axes, declared: dag.sub(*args),
    "div": lambda an, node, args, axes, declared: dag.div(*args),
    "mul": _build_mul,
    "neg": lambda an, node, args, axes, declared: dag.neg(*args),
    "pow": lambda an, node, args, axes, declared: dag.power(*args),
    "product": lambda an, node, args, axes, declared: dag.product(*args, an.indices(node)),
}
