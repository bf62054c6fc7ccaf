"""Terms of matrix notation: the plan that `matrixplan` builds and `matrixprint` emits.

A term is a small immutable record with its tensor `order` (0, 1, 2; more only for names,
calls and einsum products) and, for order 1, whether it is a row vector (`x'`). Every
vector a DAG node stands for is a column; rows exist only inside products (`x' * A * y`,
`u * v'`). The builders below keep these invariants and apply the algebra that makes the
text shorter without changing its value: `1 * a = a`, `(-1) * a = -a`, `(-a) * b = -(a * b)`,
`eye * A = A`, `a * (1 / s) = a / s`, `a .* a = a .^ 2`, transposes pushed through products
(`(A * B)' = B' * A'`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from tensorcalc.dag import Expr, Spec


@dataclass(frozen=True)
class Term:
    order: int
    row: bool


@dataclass(frozen=True)
class Ref(Term):
    """A DAG node, printed by its own plan or by the name a `let` gives it."""
    node: Expr


@dataclass(frozen=True)
class Leaf(Term):
    """A name, `eye`, `delta(n)`: printed as it is."""
    text: str


@dataclass(frozen=True)
class Num(Term):
    """A number; as an operand of + - .* ./ .^ it broadcasts to the other side's shape."""
    value: float


@dataclass(frozen=True)
class Ones(Term):
    """`vector(c)` / `matrix(c)`: a constant tensor whose shape the context fixes."""
    value: float


@dataclass(frozen=True)
class T(Term):
    arg: Term


@dataclass(frozen=True)
class Mul(Term):
    """Matrix product, or scalar multiplication when a side is a scalar (`*`)."""
    a: Term
    b: Term


@dataclass(frozen=True)
class Div(Term):
    """a / b with b a scalar."""
    a: Term
    b: Term


@dataclass(frozen=True)
class Ew(Term):
    """Element-wise `.*`, `./` or `.^` of operands of one shape (numbers broadcast)."""
    op: str
    a: Term
    b: Term


@dataclass(frozen=True)
class Pow(Term):
    """a ^ b with a scalar base."""
    a: Term
    b: Term


@dataclass(frozen=True)
class Add(Term):
    """a + b, or a - b when `minus`."""
    a: Term
    b: Term
    minus: bool


@dataclass(frozen=True)
class Neg(Term):
    arg: Term


@dataclass(frozen=True)
class Call(Term):
    fn: str
    args: tuple[Term, ...]


@dataclass(frozen=True)
class Einsum(Term):
    """A product the matrix notation cannot say, in the thesis' index notation."""
    spec: Spec
    args: tuple[Term, ...]


@dataclass(frozen=True)
class Raw(Term):
    """Text of another notation, kept as it is (an affine gather)."""
    text: str


TERM_TYPES = (Ref, Leaf, Num, Ones, T, Mul, Div, Ew, Pow, Add, Neg, Call, Einsum, Raw)


def ticks(term: Term) -> int:
    """The cost of the transposes the text of `term` writes: 1 for a name's (`A'`), 2 for a
    bracket's (`(A * B)'`), so `B' * A'` is preferred to `(A * B)'` on a tie."""
    count = (1 if isinstance(term.arg, (Ref, Leaf, Call, Ones)) else 2) if isinstance(term, T) else 0
    for value in vars(term).values():
        if isinstance(value, Term):
            count += ticks(value)
        elif isinstance(value, tuple):
            count += sum(ticks(v) for v in value if isinstance(v, Term))
    return count


# ----------------------------------------------------------------------------- builders

def ref(node: Expr) -> Ref:
    return Ref(node.order, False, node)


def num(value: float) -> Num:
    return Num(0, False, float(value))


def is_num(term: Term, value: float | None = None) -> bool:
    return isinstance(term, Num) and (value is None or term.value == value)


def is_eye(term: Term) -> bool:
    return isinstance(term, Leaf) and term.text == "eye"


def scalar(term: Term) -> bool:
    return term.order == 0


def transpose(term: Term) -> Term:
    """term'. Scalars, diagonal matrices, eye and constant fills are their own transposes;
    the transpose is pushed into products, sums and negations when that writes no more
    ticks than `(term)'` does: `(X' * D)' = D * X`, `(A + A')' = A' + A`."""
    if term.order == 0 or is_eye(term) or _is_diag(term) or (isinstance(term, Ones) and term.order == 2):
        return term
    if isinstance(term, T):
        return term.arg
    pushed = _pushed(term)
    if pushed is not None and ticks(pushed) <= ticks(term) + 2:
        return pushed
    return T(term.order, term.order == 1 and not term.row, term)


def _pushed(term: Term) -> Term | None:
    if isinstance(term, Neg):
        return neg(transpose(term.arg))
    if isinstance(term, Div):
        return div(transpose(term.a), term.b)
    if isinstance(term, Mul):
        return mul(transpose(term.b), transpose(term.a))
    if isinstance(term, Add) and term.order == 2:              # rows only multiply: no x' + y'
        return add(transpose(term.a), transpose(term.b), term.minus)
    if isinstance(term, Ew) and term.op != ".^" and term.order == 2:
        return Ew(2, False, term.op, transpose(term.a), transpose(term.b))
    return None


def _is_diag(term: Term) -> TypeGuard[Call]:
    return isinstance(term, Call) and term.fn == "diag" and term.order == 2


def neg(term: Term) -> Term:
    if isinstance(term, Neg):
        return term.arg
    if isinstance(term, Num):
        return num(-term.value)
    return Neg(term.order, term.row, term)


def mul(a: Term, b: Term) -> Term:
    """a * b: scalar multiplication (the scalar written first) or a matrix product."""
    if isinstance(a, Neg) or isinstance(b, Neg):
        return _signed(mul, a, b)
    if scalar(b) and not scalar(a) or isinstance(b, Num) and not isinstance(a, Num):
        a, b = b, a                             # scalars, and numbers, first: 2 * x * A
    if isinstance(b, Mul) and scalar(b.a) and not scalar(a):
        return mul(b.a, mul(a, b.b))            # A * (2 * x) = 2 * A * x
    if is_num(a, 1.0):
        return b
    if is_num(b, 1.0):
        return a
    if is_num(a, -1.0) and scalar(a):
        return neg(b)
    if _is_recip(b) and scalar(b):
        return div(a, b.b)
    if _is_recip(a) and scalar(a):
        return div(b, a.b)
    if isinstance(a, Div) and not scalar(a):
        return div(mul(a.a, b), a.b)            # (x' / s) * y = x' * y / s
    if isinstance(b, Div) and not scalar(b):
        return div(mul(a, b.a), b.b)
    if is_eye(a) and not scalar(b):
        return b
    if is_eye(b) and not scalar(a):
        return a
    if isinstance(a, Mul) and scalar(a.a) and is_eye(a.b) and not scalar(b):
        return mul(a.a, b)                      # (2 * eye) * A = 2 * A
    if scalar(a) and scalar(b) and a == b:
        return power(a, num(2))
    return Mul(*_product_kind(a, b), a, b)


def _signed(build, a: Term, b: Term) -> Term:
    """build(a, b) with the negations of a and b taken out: (-a) * (-b) = a * b."""
    odd = isinstance(a, Neg) != isinstance(b, Neg)
    term = build(a.arg if isinstance(a, Neg) else a, b.arg if isinstance(b, Neg) else b)
    return neg(term) if odd else term


def _product_kind(a: Term, b: Term) -> tuple[int, bool]:
    if scalar(a):
        return b.order, b.row
    if scalar(b):
        return a.order, a.row
    if a.order == 1 and a.row and b.order == 1 and not b.row:
        return 0, False                         # x' * y
    if a.order == 1 and not a.row and b.order == 1 and b.row:
        return 2, False                         # x * y'
    if a.order == 2 and b.order == 2:
        return 2, False
    if a.order == 2 and b.order == 1 and not b.row:
        return 1, False
    if a.order == 1 and a.row and b.order == 2:
        return 1, True
    raise AssertionError(f"no matrix product of {a} and {b}")


def _is_recip(term: Term) -> TypeGuard[Div | Ew]:
    return isinstance(term, (Div, Ew)) and is_num(term.a, 1.0) and (isinstance(term, Div) or term.op == "./")


def div(a: Term, b: Term) -> Term:
    """a / b for a scalar b."""
    if isinstance(a, Neg) or isinstance(b, Neg):
        return _signed(div, a, b)
    if is_num(b, 1.0):
        return a
    return Div(a.order, a.row, a, b)


def recip(a: Term) -> Term:
    """1 / a for a scalar, 1 ./ a for a tensor."""
    if isinstance(a, Neg):
        return neg(recip(a.arg))
    if scalar(a):
        return Div(0, False, num(1), a)
    return Ew(a.order, a.row, "./", num(1), a)


def hadamard(a: Term, b: Term) -> Term:
    """a .* b of equal shapes; a number or a scalar on either side is scalar multiplication."""
    if scalar(a) or scalar(b):
        return mul(a, b)
    if isinstance(a, Neg) or isinstance(b, Neg):
        return _signed(hadamard, a, b)
    if isinstance(a, Ones) and a.value == 1.0:
        return b
    if isinstance(b, Ones) and b.value == 1.0:
        return a
    if _is_recip(b):
        return Ew(a.order, a.row, "./", a, b.b)
    if _is_recip(a):
        return Ew(b.order, b.row, "./", b, a.b)
    if a == b:
        return power(a, num(2))
    return Ew(a.order, a.row, ".*", a, b)


def power(a: Term, b: Term) -> Term:
    """a ^ b (scalar a), a .^ b (tensor a); an exponent 0.5 is sqrt."""
    if is_num(b, 0.5):
        return call("sqrt", a)
    if is_num(b, 1.0):
        return a
    if scalar(a):
        return Pow(0, False, a, b)
    return Ew(a.order, a.row, ".^", a, b)


def add(a: Term, b: Term, minus: bool = False) -> Term:
    """a + b (a - b when minus); a negated or negative right side turns the sign, and a
    negated left side moves right."""
    if isinstance(b, Neg):
        return add(a, b.arg, not minus)
    if isinstance(b, Num) and b.value < 0:
        return add(a, num(-b.value), not minus)
    if isinstance(a, Neg) and not minus:
        return add(b, a.arg, True)                  # -a + b = b - a
    shaped = a if a.order else b                # a scalar side broadcasts: 1 + x is a vector
    return Add(shaped.order, shaped.row, a, b, minus)


def call(fn: str, *args: Term, order: int | None = None) -> Term:
    """fn(args); `order` defaults to the first argument's (element-wise functions)."""
    first = args[0]
    if order is None:
        order = first.order
    if fn == "tr" and _is_diag(first):
        return call("sum", first.args[0], order=0)
    return Call(order, False, fn, tuple(args))


def ones(value: float, order: int) -> Term:
    return Ones(order, False, float(value)) if order else num(value)


def leaf(text: str, order: int) -> Leaf:
    return Leaf(order, False, text)
