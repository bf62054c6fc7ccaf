"""Expression DAG: a closed set of immutable, hash-consed node types and their builders.

Every node is built through `intern`, so structurally equal expressions are the same
object (the thesis' common subtree elimination, section 3.2.2): `a is b` is equality and
hashing is by identity, O(1) and free of recursion however deep the DAG.

Every node knows its axes: a tuple of `Axis` values, one per tensor axis. An axis names
the variable axis it stands for (`Axis("x", 0)`: the first axis of x) after unification
(section 3.2.4), so differentiation never needs lengths, while evaluation checks them.
Axes no variable fixes (a lone `delta(1)`) are free: `Axis("", k)`.

Node types: Var, Const, Delta, Sum, Product (n-ary contraction), Elementwise, Special, Power,
Gather (affine index access, built and transposed in `tensorcalc.gather.affine`). Subtraction,
division, negation and the element-wise product are builders over these (table 3.1).
"""
from __future__ import annotations

import math
import weakref
from typing import Iterable, NamedTuple, TypeVar

from tensorcalc.errors import TensorCalcError
from tensorcalc.memo import memoized

ELEMENTWISE = ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "tanh", "exp", "log",
               "sign", "relu", "abs", "huber", "neg", "recip")
SPECIAL = ("det", "inv", "adj")
LETTERS = "ijklmnopqrstuvwxyzabcdefghABCDEFGHIJKLMNOPQRSTUVWXYZ"  # index alphabet, in order of use
MAX_ORDER = 32


class Axis(NamedTuple):
    """Axis `pos` of variable `var`; `var == ""` marks an axis no variable fixes."""

    var: str
    pos: int

    def __str__(self) -> str:
        return f"{self.var}[{self.pos}]" if self.var else f"?{self.pos}"


class Spec(NamedTuple):
    """Index strings of a contraction: one per operand, then the output; letters in
    canonical order. Binary products `a *(s1,s2->s3) b` are the case of two inputs."""

    inputs: tuple[str, ...]
    out: str

    @property
    def left(self) -> str:
        return self.inputs[0]

    @property
    def right(self) -> str:
        return self.inputs[1]

    def __str__(self) -> str:
        return f"{','.join(self.inputs)}->{self.out}"


class Expr:
    """Base of all nodes. `args` are the children; `axes` one Axis per tensor axis."""

    __slots__ = ("args", "axes", "__weakref__")
    _params: tuple[str, ...] = ()

    @property
    def order(self) -> int:
        return len(self.axes)

    def params(self) -> tuple:
        return tuple(getattr(self, p) for p in self._params)

    def __str__(self) -> str:
        from tensorcalc.printing.text import to_text
        return to_text(self)

    def __repr__(self) -> str:
        from tensorcalc.printing.text import to_text
        text = to_text(self, limit=200)
        return f"<{type(self).__name__} order={self.order}: {text}>"

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} nodes are immutable; build a new node instead")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (intern, (type(self), self.params(), self.args, self.axes))


class Var(Expr):
    __slots__ = ("name",)
    _params = ("name",)


class Const(Expr):
    """A tensor filled with `value`, broadcast to its axes (section 3.2.3)."""
    __slots__ = ("value",)
    _params = ("value",)


class Delta(Expr):
    """delta(n): order 2n, one where the first n indices equal the last n (eq. 4.2)."""
    __slots__ = ("n",)
    _params = ("n",)


class Sum(Expr):
    __slots__ = ()


class Product(Expr):
    __slots__ = ("spec",)
    _params = ("spec",)


class Elementwise(Expr):
    __slots__ = ("fn",)
    _params = ("fn",)


class Special(Expr):
    """det, inv or adj of a square matrix."""
    __slots__ = ("fn",)
    _params = ("fn",)


class Power(Expr):
    """base ^ exponent, the exponent a scalar applied to every entry of the base."""
    __slots__ = ()


class Gather(Expr):
    """out[b, g] = x[b, (M g + c) / den] for g in a polytope `domain`, else 0: a linear map
    of x (TensorAlgDiff's affine index access). `batch` leading axes pass through; the
    gathered axes have the concrete lengths `shape` (out) and `source` (x). `rows` holds
    one (coefficients, constant, den) per gathered axis of x; `domain` (coefficients,
    constant) rows meaning coefficients . g + constant >= 0, and every row's numerator
    divisible by its den. See `tensorcalc.gather.affine`."""
    __slots__ = ("batch", "shape", "source", "rows", "domain")
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
    node = _TABLE.get(key)
    if node is None:
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
        raise TensorCalcError(f"delta({n}) needs {2 * n} axes whose halves agree, got {_fmt(axes)}")
    return intern(Delta, (n,), (), axes)


def const_like(value: float, like: Expr) -> Const:
    """A constant with the axes of `like`."""
    return const(value, like.axes)


# ----------------------------------------------------------------------------- inner nodes

def add(a: Expr, b: Expr) -> Sum:
    if a.axes != b.axes:
        raise TensorCalcError(f"cannot add tensors with axes {_fmt(a.axes)} and {_fmt(b.axes)}")
    return intern(Sum, (), (a, b), a.axes)


def product(a: Expr, b: Expr, spec) -> Expr:
    """`a *(s1,s2->s3) b`; the letters are renamed to canonical order.

    The identity law `a *(s,->s) 1 = a` (and its mirror) is applied, so a printed
    constant whose order only a product can state reads back as that constant.
    """
    spec = _as_spec(spec)
    if len(spec.inputs) != 2:
        raise TensorCalcError(f"a binary product needs two index strings, got *({spec})")
    return contraction((a, b), spec)


def contraction(operands: tuple[Expr, ...], spec) -> Expr:
    """The multi-operand product C[out] = sum over the other letters of prod_k X_k[s_k]."""
    operands, spec = tuple(operands), canonical_spec(_as_spec(spec))
    axes = _product_axes(spec, tuple(x.axes for x in operands))
    if len(operands) == 2:
        for one, other, s in ((1, 0, spec.inputs[0]), (0, 1, spec.inputs[1])):
            if _is_one(operands[one]) and s == spec.out:
                return operands[other]
    return intern(Product, (spec,), operands, axes)


def elementwise(fn: str, a: Expr) -> Expr:
    if fn not in ELEMENTWISE:
        raise TensorCalcError(f"unknown element-wise function {fn!r}")
    return intern(Elementwise, (fn,), (a,), a.axes)


def special(fn: str, a: Expr) -> Special:
    if fn not in SPECIAL:
        raise TensorCalcError(f"unknown matrix function {fn!r}")
    if a.order != 2 or a.axes[0] != a.axes[1]:
        raise TensorCalcError(f"{fn} needs a square matrix, got axes {_fmt(a.axes)}")
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


def hadamard(a: Expr, b: Expr) -> Product:
    """The element-wise product a .* b of two tensors with equal axes."""
    if a.axes != b.axes:
        raise TensorCalcError(f"element-wise product needs equal axes, got {_fmt(a.axes)} and {_fmt(b.axes)}")
    s = LETTERS[:a.order]
    return product(a, b, (s, s, s))


def recip(a: Expr) -> Expr:
    return elementwise("recip", a)


def div(a: Expr, b: Expr) -> Expr:
    """a / b, lowered to a .* recip(b) (table 3.1); 1 / b is recip(b)."""
    if isinstance(a, Const) and a.value == 1.0 and a.axes == b.axes:
        return recip(b)
    return hadamard(a, recip(b))


def scale(c: Expr, a: Expr) -> Product:
    """Scalar c times tensor a: c *(,s->s) a."""
    s = LETTERS[:a.order]
    return product(c, a, ("", s, s))


# ----------------------------------------------------------------------------- index strings

def _is_one(node: Expr) -> bool:
    return isinstance(node, Const) and node.order == 0 and node.value == 1.0


def _as_spec(spec) -> Spec:
    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, str):
        ins, _, out = spec.replace(" ", "").partition("->")
        return Spec(tuple(ins.split(",")), out)
    *inputs, out = spec
    return Spec(tuple(inputs), out)


@memoized(maxsize=1 << 14)
def canonical_spec(spec: Spec) -> Spec:
    """Rename letters in order of first appearance (inputs, then out) to LETTERS.
    (Cached: every product built goes through here, and programs use few distinct specs.)"""
    rename: dict[str, str] = {}
    for c in "".join(spec.inputs) + spec.out:
        if c not in rename:
            if len(rename) == len(LETTERS):
                raise TensorCalcError(f"product *({spec}) needs more than {len(LETTERS)} distinct indices")
            rename[c] = LETTERS[len(rename)]
    return Spec(tuple("".join(rename[c] for c in s) for s in spec.inputs),
                "".join(rename[c] for c in spec.out))


@memoized(maxsize=1 << 14)
def _product_axes(spec: Spec, operand_axes: tuple[tuple[Axis, ...], ...]) -> tuple[Axis, ...]:
    """The axes of the product *(spec) of operands with these axes, after checking that the
    spec fits them (cached: it depends on nothing else)."""
    if len(spec.inputs) != len(operand_axes) or len(operand_axes) < 2:
        raise TensorCalcError(f"product *({spec}) has {len(spec.inputs)} index strings for "
                              f"{len(operand_axes)} operands (at least 2)")
    for k, (s, axes) in enumerate(zip(spec.inputs, operand_axes)):
        if len(s) != len(axes):
            side = {0: "left", 1: "right"}.get(k, f"operand {k}") if len(operand_axes) == 2 else f"operand {k}"
            raise TensorCalcError(f"product *({spec}): the {side} index string {s!r} has "
                                  f"{len(s)} letters but the {side} operand has order {len(axes)}")
    if len(set(spec.out)) != len(spec.out):
        raise TensorCalcError(f"product *({spec}): an output index appears twice")
    missing = set(spec.out) - set("".join(spec.inputs))
    if missing:
        raise TensorCalcError(f"product *({spec}): output index {sorted(missing)[0]!r} appears in no input")
    seen: dict[str, Axis] = {}
    for s, axes in zip(spec.inputs, operand_axes):
        for c, ax in zip(s, axes):
            if seen.setdefault(c, ax) != ax:
                raise TensorCalcError(f"product *({spec}): index {c!r} binds axes {seen[c]} and {ax}")
    return tuple(seen[c] for c in spec.out)


def _fmt(axes: tuple) -> str:
    return "(" + ", ".join(map(str, axes)) + ")"


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
                                      f"tuples {_fmt(other.axes)} and {_fmt(node.axes)}")
    return found
