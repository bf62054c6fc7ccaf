"""Element-wise definitions with affine indices (Urban & van der Smagt 2017, section 5):

    f[i, j] = exp(-sum(k, 0, 4, (a[i, k] + b[j, k])^2 * c[i, i] + d[i + k]^3))

read into an ordinary expression of the DAG. Every subexpression lives on the box of
the indices in scope (f's, then those of the enclosing sums, in order); an array access
`x[2*i + j - 1]` is a `Gather` of x over that box, restricted to the polytope the
enclosing sum ranges cut out; `sum(k, lo, hi, body)` (lo and hi inclusive, affine in the
outer indices) masks its body to lo <= k <= hi with an identity gather and contracts the
k axis with ones. The result has the axes `Axis(f, 0), Axis(f, 1), ...`, so it is used
like a variable f would be: differentiated (`derivative`, the gathers transpose by
Alg. 4), evaluated, compiled.

Index expressions must be integer-affine in the indices in scope; every access must stay
inside the declared shape for every element (checked here, exactly, on the box); errors
name the line, the column, the access and an element where it fails.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Mapping, NoReturn, Sequence, cast

import lark
import numpy as np

from tensorcalc import dag
from tensorcalc.dag import Axis, Expr
from tensorcalc.errors import ParseError
from tensorcalc.gather import affine
from tensorcalc.language.constants import ConstantValues
from tensorcalc.language.syntax import Syntax
from tensorcalc.language.syntax_errors import REJECTIONS, syntax_error
from tensorcalc.memo import memoized
from tensorcalc.numeric.evaluate import MAX_ENTRIES

MAX_INDEX = 10**9      # index coefficients and constants (int64 grids never overflow)
FUNCTIONS = tuple(f for f in dag.ELEMENTWISE if f not in ("neg", "recip")) + ("sqrt",)


@dataclass(frozen=True)
class Definition:
    """What a definition text says: the defined name, its indices and the body."""

    name: str
    indices: tuple[str, ...]
    body: Syntax
    line: int
    column: int


class _Build(lark.Transformer):
    def start(self, ch):
        name, *rest = ch
        idx = [t for t in rest[1:] if isinstance(t, lark.Token) and t.type == "NAME"]
        return Definition(str(name), tuple(map(str, idx)), rest[-1], name.line, name.column)

    def number(self, ch):
        return Syntax("number", _at(ch[0]), value=str(ch[0]))

    def name(self, ch):
        return Syntax("name", _at(ch[0]), value=str(ch[0]))

    def access(self, ch):
        return Syntax("access", _at(ch[0]), [c for c in ch[2:] if isinstance(c, Syntax)], value=str(ch[0]))

    def call(self, ch):
        return Syntax("call", _at(ch[0]), [c for c in ch[2:] if isinstance(c, Syntax)], value=str(ch[0]))

    def neg(self, ch):
        return Syntax("neg", _at(ch[0]), [ch[1]])

    def paren(self, ch):
        return ch[1]

    def __default__(self, data, children, meta):
        if data in ("add", "sub", "mul", "div", "pow"):
            return Syntax(data, _at(children[1]), [children[0], children[2]])
        return super().__default__(data, children, meta)


def _at(tok) -> tuple[int, int]:
    return (tok.line, tok.column)


@memoized(maxsize=1)
def _parser() -> lark.Lark:
    grammar = files("tensorcalc.language").joinpath("definition.lark").read_text()
    return lark.Lark(grammar, parser="lalr", lexer="basic", transformer=_Build(), keep_all_tokens=True)


def read_definition(text: str) -> Definition:
    if not isinstance(text, str):
        raise ParseError(f"expected the definition as a str, got {type(text).__name__}")
    if len(text) > 1_000_000:
        raise ParseError(f"definition is {len(text):,} characters long; at most 1,000,000 are accepted")
    try:
        return cast(Definition, _parser().parse(text))       # the transformer builds it
    except REJECTIONS as err:
        raise syntax_error(err, text) from None


# ----------------------------------------------------------------------------- scopes

@dataclass
class Scope:
    """The indices in scope: names, box lengths, the offset of each box coordinate
    (index value = coordinate + offset) and the polytope rows over the coordinates."""

    names: list[str]
    lengths: list[int]
    offsets: list[int]
    axes: list[Axis]
    domain: list[tuple[tuple[int, ...], int]] = field(default_factory=list)

    def inner(self, name: str, lo: int, hi: int) -> "Scope":
        pad = [(a + (0,), c) for a, c in self.domain]
        return Scope(self.names + [name], self.lengths + [hi - lo + 1], self.offsets + [lo],
                     self.axes + [Axis(f"{name}~{hi - lo + 1}", len(self.names))], pad)

    def row(self, coef: dict[str, int], const: int) -> tuple[tuple[int, ...], int]:
        """An affine function of index values as (coefficients, constant) over coordinates."""
        a = tuple(coef.get(n, 0) for n in self.names)
        return a, const + sum(v * o for v, o in zip(a, self.offsets))

    def values(self, a: Sequence[int], c: int) -> np.ndarray:
        """The affine function on the whole box (broadcast grids), masked by the domain."""
        grids = np.ogrid[tuple(slice(0, n) for n in self.lengths)] if self.lengths else []
        return affine.affine_values(grids, a, c)

    def mask(self) -> np.ndarray:
        m = np.ones(tuple(self.lengths), dtype=bool)
        for a, c in self.domain:
            m &= self.values(a, c) >= 0
        return m


class _Builder:
    def __init__(self, text: str, shapes: Mapping[str, tuple[int, ...]], arrays: Mapping[str, Expr]):
        self.text, self.shapes, self.arrays = text, shapes, arrays
        self.constants = ConstantValues()            # numbers alone must stay finite

    def fail(self, node: Syntax, message: str) -> NoReturn:
        raise ParseError(message, self.text, node.line, node.column)

    def build(self, node: Syntax, scope: Scope) -> Expr:
        expr = getattr(self, "_" + node.kind)(node, scope)
        problem = self.constants.problem(expr)
        if problem is not None:
            self.fail(node, problem)
        return expr

    def _number(self, node, scope):
        value = float(node.value)
        if not math.isfinite(value):
            self.fail(node, f"number {node.value} is too large for float64")
        return dag.const(value, scope.axes)

    def _name(self, node, scope):
        if node.value in scope.names:
            self.fail(node, f"index {node.value!r} used as a value; only arrays can be read (write x[{node.value}])")
        return self._read(node, scope, [])

    def _access(self, node, scope):
        return self._read(node, scope, node.args)

    def _read(self, node, scope, index_nodes):
        name = node.value
        if name not in self.shapes:
            known = ", ".join(sorted(self.shapes)) or "none"
            self.fail(node, f"unknown array {name!r}: give its shape (shapes has {known})")
        shape = self.shapes[name]
        if len(index_nodes) != len(shape):
            self.fail(node, f"{name!r} has {len(shape)} axes {tuple(shape)} but is indexed with {len(index_nodes)}")
        rows = [scope.row(*self.affine(i, scope)) for i in index_nodes]
        self._check_bounds(node, name, shape, rows, index_nodes, scope)
        x = self.arrays.get(name) or dag.var(name, [Axis(name, k) for k in range(len(shape))])
        return affine.gather(x, 0, scope.lengths, shape, [(a, c, 1) for a, c in rows], scope.domain, scope.axes)

    def _check_bounds(self, node, name, shape, rows, index_nodes, scope):
        mask = scope.mask()
        for k, ((a, c), n) in enumerate(zip(rows, shape)):
            values = np.broadcast_to(scope.values(a, c), mask.shape)
            bad = mask & ((values < 0) | (values >= n))
            if bad.any():
                at = tuple(int(v) for v in np.argwhere(bad)[0])
                where = ", ".join(f"{v}={p + o}" for v, p, o in zip(scope.names, at, scope.offsets))
                value = int(values[at])
                self.fail(index_nodes[k], f"index {k} of {name!r} is {value} at {where}, outside 0..{n - 1} "
                                          f"(its axis {k} has length {n}); narrow the ranges or the shape")

    def affine(self, node: Syntax, scope: Scope) -> tuple[dict[str, int], int]:
        """(coefficients by index name, constant) of an integer-affine index expression."""
        kind = node.kind
        if kind == "number":
            value = float(node.value)
            if not value.is_integer() or abs(value) > MAX_INDEX:
                self.fail(node, f"index expressions take whole numbers up to {MAX_INDEX:,}, got {node.value}")
            return {}, int(value)
        if kind == "name":
            if node.value not in scope.names:
                self.fail(node, f"unknown index {node.value!r}; indices in scope: {', '.join(scope.names) or 'none'}")
            return {node.value: 1}, 0
        if kind in ("add", "sub"):
            (ca, a0), (cb, b0) = (self.affine(x, scope) for x in node.args)
            s = 1 if kind == "add" else -1
            return {k: ca.get(k, 0) + s * cb.get(k, 0) for k in {**ca, **cb}}, a0 + s * b0
        if kind == "neg":
            ca, a0 = self.affine(node.args[0], scope)
            return {k: -v for k, v in ca.items()}, -a0
        if kind == "mul":
            (ca, a0), (cb, b0) = (self.affine(x, scope) for x in node.args)
            if ca and cb:
                self.fail(node, "index expressions must be affine: a product of two indices is not")
            (cf, f0), k = ((ca, a0), b0) if not cb else ((cb, b0), a0)
            if max([abs(f0 * k)] + [abs(v * k) for v in cf.values()]) > MAX_INDEX:
                self.fail(node, f"an index coefficient or constant over {MAX_INDEX:,}; indices must stay small")
            return {n: v * k for n, v in cf.items()}, f0 * k
        self.fail(node, f"index expressions must be integer-affine in the indices (+, -, whole-number *); "
                        f"{_WHAT.get(kind, kind)} is not")

    def _binary(self, node, scope):
        return _BINARY[node.kind](*(self.build(x, scope) for x in node.args))

    _add = _sub = _mul = _div = _binary

    def _neg(self, node, scope):
        return dag.neg(self.build(node.args[0], scope))

    def _pow(self, node, scope):
        base, exponent = node.args
        p = _constant(exponent)
        if p is None:
            self.fail(exponent, "the exponent must be a number (a constant power of each element)")
        return dag.power(self.build(base, scope), dag.const(p))

    def _call(self, node, scope):
        if node.value == "sum":
            return self._sum(node, scope)
        if node.value not in FUNCTIONS:
            self.fail(node, f"unknown function {node.value!r}; known: sum, {', '.join(FUNCTIONS)}")
        if len(node.args) != 1:
            self.fail(node, f"{node.value} takes one argument, got {len(node.args)}")
        arg = self.build(node.args[0], scope)
        return dag.power(arg, dag.const(0.5)) if node.value == "sqrt" else dag.elementwise(node.value, arg)

    def _sum(self, node, scope):
        if len(node.args) != 4 or node.args[0].kind != "name":
            self.fail(node, "write a sum as sum(k, lo, hi, body): an index name, inclusive affine bounds "
                            "(lo may be max(...), hi min(...) of several), the body")
        k = node.args[0].value
        if k in scope.names or k in self.shapes:
            self.fail(node.args[0], f"sum index {k!r} is already in use; pick a new name")
        lows, highs = self._bound(node.args[1], scope, "max"), self._bound(node.args[2], scope, "min")
        box = self._range(scope, lows, highs)
        if box is None:
            return dag.const(0.0, scope.axes)
        inner = scope.inner(k, *box)
        inner.domain += [(tuple(-v for v in a) + (1,), box[0] - c) for a, c in lows]     # k >= lo
        inner.domain += [(a + (-1,), c - box[0]) for a, c in highs]                        # k <= hi
        body = self.build(node.args[3], inner)
        n = len(inner.lengths)
        rows = [(tuple(int(i == j) for i in range(n)), 0, 1) for j in range(n)]
        masked = affine.gather(body, 0, inner.lengths, inner.lengths, rows, inner.domain, inner.axes)
        s = dag.LETTERS[:n]
        return dag.product(masked, dag.const(1.0, inner.axes[-1:]), (s, s[-1], s[:-1]))

    def _bound(self, node: Syntax, scope: Scope, pick: str) -> list:
        """Rows of an inclusive bound: one affine expression, or `max(...)` (a lower bound) /
        `min(...)` (an upper bound) of several."""
        if node.kind == "call" and node.value == pick:
            return [scope.row(*self.affine(b, scope)) for b in node.args]
        return [scope.row(*self.affine(node, scope))]

    def _range(self, scope: Scope, lows, highs) -> tuple[int, int] | None:
        """The smallest box [min lo, max hi] over the scope's points with lo <= hi."""
        shape = tuple(scope.lengths)
        lo = np.max([np.broadcast_to(scope.values(*r), shape) for r in lows], axis=0)
        hi = np.min([np.broadcast_to(scope.values(*r), shape) for r in highs], axis=0)
        mask = scope.mask() & (lo <= hi)
        if not mask.any():
            return None
        low, high = lo[mask].min(), hi[mask].max()
        if np.prod(scope.lengths, dtype=float) * (high - low + 1) > MAX_ENTRIES:
            raise ParseError(f"a sum over {int(high - low + 1):,} values inside a box of {scope.lengths} is too large")
        return int(low), int(high)


_BINARY = {"add": dag.add, "sub": dag.sub, "mul": dag.hadamard, "div": dag.div}   # element-wise
_WHAT = {"access": "an array access", "call": "a function call", "div": "division", "pow": "a power"}


def _constant(node: Syntax) -> float | None:
    if node.kind == "number":
        return float(node.value)
    if node.kind == "neg":
        inner = _constant(node.args[0])
        return None if inner is None else -inner
    return None


def parse_def(text: str, shapes: Mapping[str, tuple[int, ...]], arrays: Mapping[str, Expr] | None = None,
              axes: tuple[Axis, ...] | None = None) -> Expr:
    """The tensor an element-wise definition defines, as an expression (see the module
    docstring). `shapes` gives every array's shape and the defined tensor's; `arrays`
    may give expressions to read in place of variables (a previous definition); `axes`
    the axes of the result (default: named `f~3` after the defined tensor and its length).

    >>> import numpy as np
    >>> from tensorcalc import evaluate
    >>> tv = parse_def("g[i] = x[i + 1] - x[i]", {"x": (4,), "g": (3,)})
    >>> evaluate(tv, {"x": np.array([1.0, 4.0, 9.0, 16.0])}).tolist()
    [3.0, 5.0, 7.0]
    """
    definition = read_definition(text)
    shapes = _checked_shapes(shapes, text)
    if definition.name not in shapes:
        raise ParseError(f"give the shape of the defined tensor {definition.name!r} in shapes", text,
                         definition.line, definition.column)
    out = shapes[definition.name]
    if len(out) != len(definition.indices) or len(set(definition.indices)) != len(out):
        raise ParseError(f"{definition.name!r} has shape {out}: write {len(out)} distinct indices",
                         text, definition.line, definition.column)
    given = list(axes) if axes is not None else []
    if len(given) != len(out):                                              # lengths in the name
        given = [Axis(f"{definition.name}~{n}", k) for k, n in enumerate(out)]
    scope = Scope(list(definition.indices), list(out), [0] * len(out), given)
    reads = {k: v for k, v in shapes.items() if k != definition.name}
    try:
        return _Builder(text, reads, dict(arrays or {})).build(definition.body, scope)
    except RecursionError:
        raise ParseError(f"the definition is nested too deeply (over about {sys.getrecursionlimit() // 3} "
                         f"levels); split it into several definitions") from None


def _checked_shapes(shapes, text) -> dict[str, tuple[int, ...]]:
    out = {}
    for name, shape in dict(shapes).items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ParseError(f"array name {name!r} is not an identifier")
        shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
        if not isinstance(shape, (tuple, list)):
            raise ParseError(f"the shape of {name!r} must be a tuple of positive whole numbers, got {shape!r}")
        if any(not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1 for n in shape):
            raise ParseError(f"the shape of {name!r} must be positive whole numbers, got {shape}")
        if math.prod(shape) > MAX_ENTRIES:
            raise ParseError(f"the shape {shape} of {name!r} has over {MAX_ENTRIES:,} entries")
        out[name] = tuple(int(n) for n in shape)
    return out

