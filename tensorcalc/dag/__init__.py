"""Expression DAG: a closed set of immutable, hash-consed node types and their builders.

Every node is built through `intern`, so structurally equal expressions are the same
object (the thesis' common subtree elimination, section 3.2.2): `a is b` is equality and
hashing is by identity, O(1) and free of recursion however deep the DAG.

Every node knows its axes: a tuple of `Axis` values, one per tensor axis (see
`tensorcalc.dag.axes`, which also holds the index strings of contractions, `Spec`).

Node types: Var, Const, Delta, Sum, Product (n-ary contraction), Elementwise, Special, Power,
Gather (affine index access, built and transposed in `tensorcalc.gather.affine`). Subtraction,
division, negation and the element-wise product are builders over these (table 3.1).
"""
from __future__ import annotations

import math
import weakref
from typing import Iterable, Protocol, Sequence, TypeVar, cast

from tensorcalc.dag.axes import LETTERS, Axis, Spec, as_spec, canonical_spec, format_axes, product_axes
from tensorcalc.errors import TensorCalcError

ELEMENTWISE = ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "tanh", "exp", "log",
               "sign", "relu", "abs", "huber", "neg", "recip")
SPECIAL = ("det", "inv", "adj")
MAX_ORDER = 32


class Printer(Protocol):
    """How nodes print: `tensorcalc.printing.text.to_text`, installed by `set_printer`."""

    def __call__(self, expr: Expr, notation: str = ..., limit: int | None = ...) -> str: ...


_PRINTER: list[Printer] = []          # the printer `set_printer` installed, if any


def set_printer(printer: Printer) -> None:
    """Install the function `str` and `repr` of a node print it with. The DAG sits below
    printing, so printing installs it when imported (`tensorcalc` imports it, so every
    program that holds a node has it); until then a node prints as its type and order."""
    _PRINTER[:] = [printer]


class Expr:
    """Base of all nodes. `args` are the children; `axes` one Axis per tensor axis."""

    __slots__ = ("args", "axes", "__weakref__")
    args: tuple[Expr, ...]
    axes: tuple[Axis, ...]
    _params: tuple[str, ...] = ()

    @property
    def order(self) -> int:
        return len(self.axes)

    def params(self) -> tuple:
        """The node's parameters (its name, value, spec, function ...), in `_params` order."""
        return tuple(getattr(self, p) for p in self._params)

    def __str__(self) -> str:
        return _PRINTER[0](self) if _PRINTER else f"<{type(self).__name__} order={self.order}>"

    def __repr__(self) -> str:
        if not _PRINTER:
            return f"<{type(self).__name__} order={self.order}>"
        return f"<{type(self).__name__} order={self.order}: {_PRINTER[0](self, limit=200)}>"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} nodes are immutable; build a new node instead")

    def __copy__(self) -> Expr:
        return self

    def __deepcopy__(self, memo: dict) -> Expr:
        return self

    def __reduce__(self) -> tuple:
        return (intern, (type(self), self.params(), self.args, self.axes))


class Var(Expr):
    __slots__ = ("name",)
    name: str
    _params = ("name",)


class Const(Expr):
    """A tensor filled with `value`, broadcast to its axes (section 3.2.3)."""
    __slots__ = ("value",)
    value: float
    _params = ("value",)


class Delta(Expr):
    """delta(n): order 2n, one where the first n indices equal the last n (eq. 4.2)."""
    __slots__ = ("n",)
    n: int
    _params = ("n",)


class Sum(Expr):
    __slots__ = ()


class Product(Expr):
    __slots__ = ("spec",)
    spec: Spec
    _params = ("spec",)


class Elementwise(Expr):
    __slots__ = ("fn",)
    fn: str
    _params = ("fn",)


class Special(Expr):
    """det, inv or adj of a square matrix."""
    __slots__ = ("fn",)
    fn: str
    _params = ("fn",)


class Power(Expr):
    """base ^ exponent, the exponent a scalar applied to every entry of the base."""
    __slots__ = ()


Row = tuple[tuple[int, ...], int, int]           # a Gather's index row: coefficients, constant, den
Ineq = tuple[tuple[int, ...], int]               # a Gather's guard: coefficients . g + constant >= 0


class Gather(Expr):
    """out[b, g] = x[b, (M g + c) / den] for g in a polytope `domain`, else 0: a linear map
    of x (TensorAlgDiff's affine index access). `batch` leading axes pass through; the
    gathered axes have the concrete lengths `shape` (out) and `source` (x). `rows` holds
    one (coefficients, constant, den) per gathered axis of x; `domain` (coefficients,
    constant) rows meaning coefficients . g + constant >= 0, and every row's numerator
    divisible by its den. See `tensorcalc.gather.affine`."""
    __slots__ = ("batch", "shape", "source", "rows", "domain")
    batch: int
    shape: tuple[int, ...]
    source: tuple[int, ...]
    rows: tuple[Row, ...]
    domain: tuple[Ineq, ...]
    _params = ("batch", "shape", "source", "rows", "domain")


E = TypeVar("E", bound=Expr)

NODE_TYPES = (Var, Const, Delta, Sum, Product, Elementwise, Special, Power, Gather)

_TABLE: "weakref.WeakValueDictionary[tuple, Expr]" = weakref.WeakValueDictionary()


def intern(cls: type[E], params: tuple, args: tuple[Expr, ...], axes: tuple[Axis, ...]) -> E:
    """The one node of type `cls` with these parameters, children and axes: made on first
    request, the same object afterwards (while it lives). It checks nothing: the builders
    below check their operands and then call it; code that builds a node no builder makes
    (`Gather` in `tensorcalc.gather.affine`, evaluation-only nodes in
    `tensorcalc.numeric.minors`) calls it directly and owns those checks."""
    key = (cls, params, args, axes)
    found = _TABLE.get(key)
    if found is not None:
        return cast(E, found)          # the key holds the type: the node found is a `cls`
    node = object.__new__(cls)
    object.__setattr__(node, "args", args)
    object.__setattr__(node, "axes", axes)
    for name, value in zip(cls._params, params):
        object.__setattr__(node, name, value)
    _TABLE[key] = node
    return node


def rebuild(node: Expr, args: tuple[Expr, ...]) -> Expr:
    """`node` with new children of the same axes (the generic rewrite of every pass)."""
    if args == node.args:
        return node
    return intern(type(node), node.params(), args, node.axes)


# ----------------------------------------------------------------------------- leaves

def var(name: str, axes: Iterable[Axis]) -> Var:
    axes = tuple(axes)
    if not name.isidentifier():
        raise TensorCalcError(f"variable name {name!r} is not a valid identifier")
    if len(axes) > MAX_ORDER:
        raise TensorCalcError(f"variable {name!r} has order {len(axes)}; at most {MAX_ORDER} is supported")
    return intern(Var, (name,), (), axes)


def const(value: float, axes: Iterable[Axis] = ()) -> Const:
    value = float(value)
    if not math.isfinite(value):
        raise TensorCalcError(f"constant {value} is not a finite number")
    return intern(Const, (value + 0.0,), (), tuple(axes))


def delta(n: int, axes: Iterable[Axis]) -> Delta:
    axes = tuple(axes)
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_ORDER:
        raise TensorCalcError(f"delta's order must be an integer from 0 to {MAX_ORDER}, got {n!r}")
    if len(axes) != 2 * n or axes[:n] != axes[n:]:
        raise TensorCalcError(f"delta({n}) needs {2 * n} axes whose halves agree, got {format_axes(axes)}")
    return intern(Delta, (n,), (), axes)


def const_like(value: float, like: Expr) -> Const:
    """A constant with the axes of `like`."""
    return const(value, like.axes)


# ----------------------------------------------------------------------------- inner nodes

def add(a: Expr, b: Expr) -> Sum:
    if a.axes != b.axes:
        raise TensorCalcError(f"cannot add tensors with axes {format_axes(a.axes)} and {format_axes(b.axes)}")
    return intern(Sum, (), (a, b), a.axes)


def product(a: Expr, b: Expr, spec: Spec | str | Sequence[str]) -> Expr:
    """`a *(s1,s2->s3) b`; the letters are renamed to canonical order.

    The identity law `a *(s,->s) 1 = a` (and its mirror) is applied, so a printed
    constant whose order only a product can state reads back as that constant.
    """
    spec = as_spec(spec)
    if len(spec.inputs) != 2:
        raise TensorCalcError(f"a binary product needs two index strings, got *({spec})")
    return contraction((a, b), spec)


def contraction(operands: Sequence[Expr], spec: Spec | str | Sequence[str]) -> Expr:
    """The multi-operand product C[out] = sum over the other letters of prod_k X_k[s_k]."""
    args, canonical = tuple(operands), canonical_spec(as_spec(spec))
    axes = product_axes(canonical, tuple(x.axes for x in args))
    if len(args) == 2:
        for one, other, s in ((1, 0, canonical.inputs[0]), (0, 1, canonical.inputs[1])):
            if _is_one(args[one]) and s == canonical.out:
                return args[other]
    return intern(Product, (canonical,), args, axes)


def elementwise(fn: str, a: Expr) -> Expr:
    if fn not in ELEMENTWISE:
        raise TensorCalcError(f"unknown element-wise function {fn!r}")
    return intern(Elementwise, (fn,), (a,), a.axes)


def special(fn: str, a: Expr) -> Special:
    if fn not in SPECIAL:
        raise TensorCalcError(f"unknown matrix function {fn!r}")
    if a.order != 2 or a.axes[0] != a.axes[1]:
        raise TensorCalcError(f"{fn} needs a square matrix, got axes {format_axes(a.axes)}")
    return intern(Special, (fn,), (a,), () if fn == "det" else a.axes)


def power(base: Expr, exponent: Expr) -> Power:
    if exponent.order != 0:
        raise TensorCalcError(f"the exponent of ^ must be a scalar, got order {exponent.order}")
    return intern(Power, (), (base, exponent), base.axes)


# ----------------------------------------------------------------------------- sugar

def neg(a: Expr) -> Expr:
    """-(a); a constant folds into a negative constant."""
    if isinstance(a, Const):
        return const(-a.value, a.axes)
    return elementwise("neg", a)


def add_all(terms: list[Expr]) -> Expr:
    """terms[0] + terms[1] + ..., a left fold of sums (at least one term)."""
    total = terms[0]
    for term in terms[1:]:
        total = add(total, term)
    return total


def sub(a: Expr, b: Expr) -> Expr:
    """a - b, lowered to a + -(b) (table 3.1)."""
    return add(a, neg(b))


def hadamard(a: Expr, b: Expr) -> Expr:
    """The element-wise product a .* b of two tensors with equal axes."""
    if a.axes != b.axes:
        raise TensorCalcError(f"element-wise product needs equal axes, "
                              f"got {format_axes(a.axes)} and {format_axes(b.axes)}")
    s = LETTERS[:a.order]
    return product(a, b, (s, s, s))


def recip(a: Expr) -> Expr:
    return elementwise("recip", a)


def div(a: Expr, b: Expr) -> Expr:
    """a / b, lowered to a .* recip(b) (table 3.1); 1 / b is recip(b)."""
    if isinstance(a, Const) and a.value == 1.0 and a.axes == b.axes:
        return recip(b)
    return hadamard(a, recip(b))


def scale(c: Expr, a: Expr) -> Expr:
    """Scalar c times tensor a: c *(,s->s) a."""
    s = LETTERS[:a.order]
    return product(c, a, ("", s, s))


def _is_one(node: Expr) -> bool:
    return isinstance(node, Const) and node.order == 0 and node.value == 1.0


# ----------------------------------------------------------------------------- traversal

def addends(total: Expr) -> list[Expr]:
    """The terms of a nest of sums, left to right (a node that is not a Sum is its own)."""
    out, stack = [], [total]
    while stack:
        node = stack.pop()
        if isinstance(node, Sum):
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


def topo(*roots: Expr) -> list[Expr]:
    """All nodes reachable from `roots`, children before parents; iterative, each node once.

    The order is that of a recursive depth-first walk (roots, then each node's children,
    left to right). A node is marked when first reached (in a DAG a marked node is never
    an unfinished ancestor), and the walk keeps only nodes and child positions on its
    stacks: no per-node allocation, which on graphs of a million nodes would wake the
    garbage collector to scan them all, again and again."""
    order: list[Expr] = []
    seen: set[Expr] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        nodes, positions = [root], [0]
        while nodes:
            node, k = nodes[-1], positions[-1]
            args = node.args
            while k < len(args) and args[k] in seen:
                k += 1
            if k < len(args):
                positions[-1] = k + 1
                seen.add(args[k])
                nodes.append(args[k])
                positions.append(0)
            else:
                nodes.pop()
                positions.pop()
                order.append(node)
    return order


def count_nodes(*roots: Expr) -> int:
    return len(topo(*roots))


def variables(expr: Expr) -> dict[str, Var]:
    """The variables of `expr` by name, in order of first appearance."""
    found: dict[str, Var] = {}
    for node in topo(expr):
        if isinstance(node, Var):
            other = found.setdefault(node.name, node)
            if other is not node:
                raise TensorCalcError(f"variable {node.name!r} appears with two different axis "
                                      f"tuples {format_axes(other.axes)} and {format_axes(node.axes)}")
    return found
