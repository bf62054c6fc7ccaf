"""An independent reader of the matrix notation `tensorcalc.to_text(e, "matrix")` writes,
evaluating it with NumPy: the test oracle for the printer, written from the semantics in
docs/problem-format.md ("Matrix notation"), not from tensorcalc's parser.

Every value is a `Val`: a shape whose lengths may still be unknown (None) and a function
that makes the array once the shape is known, so `vector(1)`, `matrix(c)`, `eye` and
`delta(n)` take their lengths from whatever they meet, however late. A row vector (`x'`)
is a Val with `row` set; it only multiplies (`x' * y`, `u * v'`, `x' * A`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import lark
import numpy as np

GRAMMAR = r"""
start: (let _NL+)* expr _NL*
let: "let" NAME "=" expr
?expr: prod
     | "-" post                       -> neg
     | expr "+" prod                  -> add
     | expr "-" prod                  -> sub
?prod: pow
     | prod "*" pow                   -> mul
     | prod "/" pow                   -> div
     | prod ".*" pow                  -> had
     | prod "./" pow                  -> ediv
     | prod SPEC post                 -> einsum
?pow: post
    | atom "^" atom                   -> pow
    | atom ".^" atom                  -> epow
?post: atom
     | post "'"                       -> transpose
?atom: NUMBER                         -> number
     | NAME                           -> name
     | NAME "(" expr ("," expr)* ")"  -> call
     | "(" expr ")"
SPEC: /\*\([a-zA-Z,]*->[a-zA-Z]*\)/
NAME: /[A-Za-z][A-Za-z0-9_]*/
NUMBER: /(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/
_NL: /\n/
%ignore " "
"""


class OracleError(ValueError):
    pass


@dataclass(frozen=True)
class Val:
    shape: tuple                         # ints, or None where the context has not fixed it
    make: Callable = field(repr=False)   # shape -> ndarray
    row: bool = False
    tie: int = 0                         # eye, delta(n): axis k has the length of axis k + tie

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def at(self, shape: tuple) -> np.ndarray:
        shape = _tied(unify(self.shape, shape), self.tie)
        if None in shape:
            raise OracleError(f"a length is never fixed (shape {shape})")
        return np.asarray(self.make(shape), dtype=float)

    def value(self) -> np.ndarray:
        return self.at(self.shape)


def unify(a: tuple, b: tuple) -> tuple:
    if len(a) != len(b):
        raise OracleError(f"shapes {a} and {b} have different orders")
    out = []
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y:
            raise OracleError(f"lengths {x} and {y} meet (shapes {a} and {b})")
        out.append(x if x is not None else y)
    return tuple(out)


def _tied(shape: tuple, tie: int) -> tuple:
    if not tie:
        return shape
    shape = list(shape)
    for k in range(tie):
        shape[k] = shape[k] if shape[k] is not None else shape[k + tie]
        shape[k + tie] = shape[k + tie] if shape[k + tie] is not None else shape[k]
    return tuple(shape)


def known(array, row: bool = False) -> Val:
    array = np.asarray(array, dtype=float)
    return Val(array.shape, lambda s: array, row)


def lazy(shape: tuple, make: Callable, row: bool = False, tie: int = 0) -> Val:
    """A Val, made at once when its shape is known."""
    shape = _tied(shape, tie)
    return known(make(shape), row) if None not in shape else Val(shape, make, row, tie)


def fill(value: float, order: int, kind: str = "c") -> Val:
    if kind == "c":
        return Val((None,) * order, lambda s: np.full(s, value))
    n = order // 2
    return Val((None,) * order, lambda s: value * np.eye(int(np.prod(s[:n]))).reshape(s), tie=n)


ELEMENTWISE = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan,
               "tanh": np.tanh, "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan,
               "abs": np.abs, "sign": np.sign, "sqrt": np.sqrt, "relu": lambda x: np.maximum(x, 0.0),
               "huber": lambda x: np.where(np.abs(x) <= 1, x * x, 2 * np.abs(x) - 1)}


def elementwise(op, a: Val, b: Val) -> Val:
    """op of equal shapes; a scalar broadcasts. Rows meet rows only."""
    if a.ndim and b.ndim:
        if a.row != b.row:
            raise OracleError("a row vector meets a column vector element-wise")
        shape = _tied(_tied(unify(a.shape, b.shape), a.tie), b.tie)
    else:
        shape = a.shape if a.ndim else b.shape
    return lazy(shape, lambda s: op(a.at(s if a.ndim else ()), b.at(s if b.ndim else ())),
                a.row or b.row, a.tie if a.ndim else b.tie)


def matmul(a: Val, b: Val) -> Val:
    if not a.ndim or not b.ndim:
        return elementwise(np.multiply, a, b)
    if a.ndim > 2 or b.ndim > 2:
        raise OracleError("* between tensors of order 3 or more")
    if a.ndim == 1 and b.ndim == 1:
        if a.row and not b.row:
            n = unify(a.shape, b.shape)
            return lazy((), lambda s: np.dot(a.at(n), b.at(n)))
        if not a.row and b.row:
            return lazy(a.shape + b.shape, lambda s: np.outer(a.at(s[:1]), b.at(s[1:])))
        raise OracleError("two column (or two row) vectors multiplied: write x' * y or x * y'")
    if a.ndim == 1 and not a.row or b.ndim == 1 and b.row:
        raise OracleError("a column vector on the left of a matrix (or a row on its right)")
    (inner,) = unify(_tied(a.shape, a.tie)[-1:], _tied(b.shape, b.tie)[:1])
    outer_a = _tied(a.shape[:-1] + (inner,), a.tie)[:-1]
    outer_b = _tied((inner,) + b.shape[1:], b.tie)[1:]
    def make(s):
        n = inner if inner is not None else s[0] if a.tie else s[-1] if b.tie else None   # eye * v
        return np.matmul(a.at(s[:len(outer_a)] + (n,)), b.at((n,) + s[len(outer_a):]))
    return lazy(outer_a + outer_b, make, a.row)


def transpose(x: Val) -> Val:
    if x.ndim > 2:
        raise OracleError("transpose of an order-3 tensor")
    if x.ndim < 2:
        return Val(x.shape, x.make, x.ndim == 1 and not x.row, x.tie)
    return Val(x.shape[::-1], lambda s: x.at(s[::-1]).T, False, x.tie)


def call(fn: str, args: list) -> Val:
    a = args[0]
    if fn in ("vector", "matrix"):
        return fill(float(a.value()), 1 if fn == "vector" else 2)
    if fn == "delta":
        return fill(1.0, 2 * int(a.value()), "delta")
    if fn in ELEMENTWISE:
        return lazy(a.shape, lambda s: ELEMENTWISE[fn](a.at(s)), a.row, a.tie)
    if fn == "diag" and a.ndim == 1:
        return lazy(a.shape * 2, lambda s: np.diag(a.at(s[:1])), tie=1)
    if fn == "diag" and a.ndim == 2:
        return lazy(_tied(a.shape, 1)[:1], lambda s: np.diagonal(a.at(s * 2)).copy())
    square = fn in ("det", "inv", "adj", "tr") or (fn == "diag" and a.ndim == 2)
    m = a.at(_tied(a.shape, 1)) if square and a.ndim == 2 else a.value()     # square: lengths tie
    if square and (m.ndim != 2 or m.shape[0] != m.shape[1]):
        raise OracleError(f"{fn} needs a square matrix, got {m.shape}")
    table = {"det": np.linalg.det, "inv": np.linalg.inv, "tr": np.trace, "sum": np.sum,
             "adj": adjugate,
             "diag": lambda m: np.diag(m) if m.ndim == 1 else np.diagonal(m).copy()}
    return known(table[fn](m))


def adjugate(m: np.ndarray) -> np.ndarray:
    """Cofactors, transposed (defined for singular matrices too)."""
    n = m.shape[0]
    out = np.empty_like(m)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(m, j, axis=0), i, axis=1)
            out[i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if n > 1 else 1.0)
    return out


def einsum(spec: str, a: Val, b: Val) -> Val:
    inputs, out = spec[2:-1].split("->")
    letters = inputs.split(",")
    operands = [x if x.ndim == len(s) else fill(float(x.value()), len(s)) for x, s in zip((a, b), letters)]
    sizes: dict[str, int | None] = {}
    for s, x in zip(letters, operands):
        for c, n in zip(s, _tied(x.shape, x.tie)):
            if n is not None:
                sizes[c] = n
    for s, x in zip(letters, operands):            # ties of delta(n): fill in their partners
        shape = _tied(tuple(sizes.get(c) for c in s), x.tie)
        sizes.update({c: n for c, n in zip(s, shape) if n is not None})

    def make(shape):
        sizes.update(zip(out, shape))
        arrays = [x.at(tuple(sizes.get(c) for c in s)) for s, x in zip(letters, operands)]
        return np.einsum(f"{letters[0]},{letters[1]}->{out}", *arrays)
    return lazy(tuple(sizes.get(c) for c in out), make)


class Evaluate(lark.visitors.Interpreter):
    def __init__(self, values, shape):
        self.env = {name: known(v) for name, v in values.items()}
        self.shape = shape

    def start(self, tree):
        *lets, result = tree.children
        for let in lets:
            self.visit(let)
        value = self.visit(result)
        return value.value() if self.shape is None else value.at(tuple(self.shape))

    def let(self, tree):
        name, value = tree.children
        if str(name) in self.env:
            raise OracleError(f"let {name}: the name is taken")
        self.env[str(name)] = self.visit(value)

    def number(self, tree):
        return known(float(tree.children[0]))

    def name(self, tree):
        name = str(tree.children[0])
        if name == "eye" and name not in self.env:
            return fill(1.0, 2, "eye")
        return self.env[name]

    def call(self, tree):
        fn, *args = tree.children
        return call(str(fn), [self.visit(a) for a in args])

    def _two(self, tree):
        return [self.visit(c) for c in tree.children]

    def neg(self, tree):
        return elementwise(np.multiply, known(-1.0), self.visit(tree.children[0]))

    def add(self, tree):
        return elementwise(np.add, *self._two(tree))

    def sub(self, tree):
        return elementwise(np.subtract, *self._two(tree))

    def had(self, tree):
        return elementwise(np.multiply, *self._two(tree))

    def ediv(self, tree):
        return elementwise(np.divide, *self._two(tree))

    def epow(self, tree):
        a, b = self._two(tree)
        if b.ndim:
            raise OracleError(".^ needs a scalar exponent")
        return elementwise(np.power, a, b)

    def pow(self, tree):
        a, b = self._two(tree)
        if a.ndim or b.ndim:
            raise OracleError("^ needs scalars (use .^)")
        return known(np.power(a.value(), b.value()))

    def mul(self, tree):
        return matmul(*self._two(tree))

    def div(self, tree):
        a, b = self._two(tree)
        if b.ndim:
            raise OracleError("/ needs a scalar denominator (use ./)")
        return elementwise(np.divide, a, b)

    def transpose(self, tree):
        return transpose(self.visit(tree.children[0]))

    def einsum(self, tree):
        a, spec, b = tree.children
        return einsum(str(spec), self.visit(a), self.visit(b))


_PARSER = lark.Lark(GRAMMAR, parser="lalr")


def evaluate_matrix_text(text: str, values: dict, shape: tuple | None = None) -> np.ndarray:
    """The value of matrix-notation `text` at `values` (arrays by variable name); `shape`
    fixes the lengths of the result that nothing in the text fixes (`2 * eye`)."""
    return Evaluate(values, shape).visit(_PARSER.parse(text.strip() + "\n"))
