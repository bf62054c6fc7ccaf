"""The rules of the meaning stage (`tensorcalc.language.meaning`): for every syntax kind, one rule per
pass, in four tables keyed by the kind (ORDER, CHILD_ORDERS, AXES, BUILD), and the
functions a call may name (CALLABLE).

Every rule lowers to the nodes of `tensorcalc.dag` through its builders: the matrix
product `A * x` is the contraction `A *(ij,j->i) x`, `A'` is `A *(ij,->ji) 1`, `tr(A)` is
`A *(ii,->) 1`, `diag(x)` is `x *(i,ij->ij) delta(1)`, a scalar s added to a tensor is
`s *(,i->i) 1` added, `eye` is `delta(1)`, `sum(e)` contracts e with the constant 1 and
`sqrt(e)` is `e ^ 0.5`; nothing here has a derivative or curvature rule of its own.
"""
from __future__ import annotations

from typing import Callable

from tensorcalc import dag
from tensorcalc.language import indexing as access
from tensorcalc.language.matrix_input import axes_mul, build_mul, like, meet, operand, order_mul, scalar_side
from tensorcalc.language.parse import number_value
from tensorcalc.language.rule_context import Analysis
from tensorcalc.language.sugar import SIGNATURES
from tensorcalc.language.syntax import Syntax

ELEMENTWISE = tuple(f for f in dag.ELEMENTWISE if f not in ("neg", "recip"))
FUNCTIONS = ELEMENTWISE + dag.SPECIAL + ("sum", "sqrt")       # names no tensor may have
CALLABLE = {
    **{f: (1, 1, f"{f}(x)") for f in ELEMENTWISE + ("sqrt",)},
    **{f: (1, 1, f"{f}(A)") for f in dag.SPECIAL + ("tr",)},
    "diag": (1, 1, "diag(x) or diag(A)"), "sum": (1, 2, "sum(x) or sum(A, axis)"), "mean": (1, 1, "mean(x)"),
    "max": (1, 1, "max(x)"), "min": (1, 1, "min(x)"),
    "delta": (1, 1, "delta(n)"), "vector": (1, 1, "vector(c)"), "matrix": (1, 1, "matrix(c)"),
    **{f: (s.count(",") + 1, s.count(",") + 1, s) for f, s in SIGNATURES.items()},
}
REDUCTIONS = ("sum", "mean", "max", "min")       # to a scalar (sum also along an axis)
CONSTANT_NAMES = {"eye": 2, "ones": 1}           # bare names that are constants unless declared


# ---------------------------------------------------------------------- small helpers

def small_whole(digits: str) -> int | None:
    """int(digits) when it is at most MAX_ORDER, else None (also for 5000 digits, which
    int() refuses to convert)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 3 and int(digits) <= dag.MAX_ORDER else None


def _delta_n(an: Analysis, node: Syntax) -> int:
    arg = node.args[0]
    n = small_whole(arg.value) if arg.kind == "number" and arg.value.isdigit() else None
    if n is None:
        an.fail(arg, f"delta(n) takes a whole number n from 0 to {dag.MAX_ORDER}")
    return n


def _axis(an: Analysis, node: Syntax) -> int:
    """The axis k of sum(e, k): a whole number below the order of e."""
    arg, k = node.args
    order = an.order[arg]
    if not order:
        an.fail(node, "sum(e, axis) sums one axis of a vector, matrix or tensor; this argument is a scalar")
    if k.kind != "number" or not k.value.isdigit() or int(k.value[:4]) >= order:
        an.fail(k, f"the axis of sum(e, axis) is a whole number from 0 to {order - 1} (0: down the "
                   f"columns, 1: along the rows of a matrix)")
    return int(k.value)


# ---------------------------------------------------------------------- orders, bottom-up

def _order_name(an: Analysis, node: Syntax):
    target = an.binding.get(node)
    if target is not None:
        if an.order[target] is None:
            an.order[target] = 0                         # a let of numbers alone is a scalar
        like(an, node, target)
        return an.order[target]
    name = node.value
    if name in an.orders:
        return an.orders[name]
    if name in CONSTANT_NAMES:
        return CONSTANT_NAMES[name]
    if name in CALLABLE:
        an.fail(node, f"{name!r} is a function: write {name}(...)")
    an.fail(node, f"undeclared variable {name!r} (declared: {', '.join(an.orders) or 'nothing'})")


def _order_call(an: Analysis, node: Syntax):
    fn = an.function(node)
    arg = node.args[0]
    order = an.order[arg]
    if fn == "delta":
        return 2 * _delta_n(an, node)
    if fn == "sum" and len(node.args) == 2:
        _axis(an, node)                                  # fails unless the order is at least 1
        return (order or 0) - 1
    if fn in REDUCTIONS:
        return 0
    if fn in ("vector", "matrix"):
        if order not in (None, 0):
            an.fail(node, f"{fn}(c) fills a {fn} with the scalar c; its argument has order {order}")
        return 1 if fn == "vector" else 2
    if fn in dag.SPECIAL + ("tr",):
        if order not in (None, 2):
            an.fail(node, f"{fn} applies to a matrix (order 2); its argument has order {order}")
        return 0 if fn in ("det", "tr") else 2
    if fn == "diag":
        if order not in (1, 2):
            an.fail(node, f"diag takes a vector (giving the diagonal matrix) or a square matrix (giving its "
                          f"diagonal); its argument has order {order if order is not None else 0}")
        return 3 - order
    like(an, node, arg)
    return order


_VERBS = {"add": "add", "sub": "subtract", "div": "divide element-wise", "hadamard": "multiply element-wise"}


def _order_elementwise(an: Analysis, node: Syntax):
    """+ - / ./ .* and a comparison: equal orders, or a scalar with anything (not across a
    comparison); a row vector meets only row vectors."""
    a, b = node.args
    left, right = an.order[a], an.order[b]
    if left is None or right is None or left == right:
        if left == right == 1 and (a in an.row) != (b in an.row):
            an.fail(node, f"cannot {_VERBS.get(node.kind, 'compare')} {operand(an, a)} and {operand(an, b)}: "
                          f"transpose one of them")
        like(an, node, a if left else b)
        return left if left is not None else right
    if node.kind != "compare" and 0 in (left, right):
        like(an, node, a if left else b)
        return max(left, right)
    if node.kind == "compare":
        an.fail(node, f"the two sides of {node.value!r} do not fit: the left side has order {left} and the "
                      f"right side order {right}")
    an.fail(node, f"cannot {_VERBS[node.kind]} tensors of order {left} and {right}; only a scalar spreads over "
                  f"a tensor: combine the others with a product (A * x, u * v', *(s1,s2->s3))")


def _order_pow(an: Analysis, node: Syntax):
    base, exponent = node.args
    if an.order[exponent] not in (None, 0):
        an.fail(node, f"the exponent of ^ must be a scalar (order 0); it has order {an.order[exponent]}")
    like(an, node, base)
    return an.order[base]


def _order_product(an: Analysis, node: Syntax):
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


def _order_transpose(an: Analysis, node: Syntax):
    (arg,) = node.args
    order = an.order[arg]
    if order is not None and order > 2:
        an.fail(node, f"' transposes a vector or a matrix; this operand has order {order}: permute its axes "
                      f"with an index product such as *(ijk,->kji) 1")
    if order == 1 and arg not in an.row:
        an.row.add(node)
    return order


def _order_neg(an: Analysis, node: Syntax):
    like(an, node, node.args[0])
    return an.order[node.args[0]]


ORDER = {
    "number": lambda an, node: None, "name": _order_name, "call": _order_call, "access": access.order,
    "add": _order_elementwise, "sub": _order_elementwise, "div": _order_elementwise,
    "hadamard": _order_elementwise, "compare": _order_elementwise,
    "mul": order_mul, "neg": _order_neg, "pow": _order_pow, "product": _order_product,
    "transpose": _order_transpose,
}


# ---------------------------------------------------------------------- orders, top-down

def _child_orders_call(an: Analysis, node: Syntax):
    fn = node.value
    if fn in ("delta", "vector", "matrix", "mean", "max", "min") or (fn == "sum" and len(node.args) == 1):
        return (0,)       # delta's n is a number, not a tensor; sum(2) sums a scalar
    if fn in dag.SPECIAL + ("tr",):
        return (2,)
    return (an.order[node.args[0]], 0) if fn in ("sum", "diag") else (an.order[node],)


def _child_orders_scalar_multiple(an: Analysis, node: Syntax):
    return ((0, an.order[node]), (an.order[node], 0))[scalar_side(an, node)]


CHILD_ORDERS = {
    "number": lambda an, node: (), "name": lambda an, node: (), "access": lambda an, node: (),
    "call": _child_orders_call,
    "add": lambda an, node: (an.order[node],) * 2, "sub": lambda an, node: (an.order[node],) * 2,
    "div": lambda an, node: (an.order[node],) * 2, "compare": lambda an, node: (an.order[node],) * 2,
    "hadamard": _child_orders_scalar_multiple, "mul": _child_orders_scalar_multiple,
    "neg": lambda an, node: (an.order[node],), "transpose": lambda an, node: (an.order[node],),
    "pow": lambda an, node: (an.order[node], 0),
    "product": lambda an, node: tuple(len(s) for s in an.indices(node)[:2]),
}


# ---------------------------------------------------------------------- axes, bottom-up

def _axes_fresh(an: Analysis, node: Syntax) -> tuple[int, ...]:
    order = an.order[node]
    assert order is not None, "the order pass fixed every order"
    return tuple(an.uf.new() for _ in range(order))


def _axes_name(an: Analysis, node: Syntax):
    target = an.binding.get(node)
    if target is not None:
        return an.ids[target]
    if node.value in an.var_ids:
        return an.var_ids[node.value]
    one = an.uf.new()
    return (one, one) if node.value == "eye" else (one,)


def _axes_call(an: Analysis, node: Syntax):
    fn, arg = node.value, node.args[0]
    if fn == "delta":
        half = tuple(an.uf.new() for _ in range(_delta_n(an, node)))
        return half + half
    if fn in ("vector", "matrix"):
        return _axes_fresh(an, node)
    ids = an.ids[arg]
    if fn in REDUCTIONS:
        k = _axis(an, node) if len(node.args) == 2 else None
        return () if k is None else ids[:k] + ids[k + 1:]
    if fn == "diag" and len(ids) == 1:
        return ids + ids
    if fn in dag.SPECIAL + ("tr", "diag"):
        meet(an, node, ids[0], ids[1], lambda: f"{fn} needs a square matrix; {operand(an, arg)} is not square")
        return () if fn in ("det", "tr") else ids[:1] if fn == "diag" else ids
    return ids


def _axes_elementwise(an: Analysis, node: Syntax):
    a, b = node.args
    left, right = an.ids[a], an.ids[b]
    if len(left) != len(right):                     # a scalar spread over a tensor
        return left if len(left) > len(right) else right
    verb = _VERBS.get(node.kind)
    for x, y in zip(left, right):
        meet(an, node, x, y, lambda: (f"cannot {verb} {operand(an, a)} and {operand(an, b)}: their shapes "
                                       f"differ" if verb else f"the two sides of {node.value!r} do not fit: "
                                       f"{operand(an, a)} and {operand(an, b)}"))
    return left


def _axes_product(an: Analysis, node: Syntax):
    s1, s2, s3 = an.indices(node)
    letter: dict[str, int] = {}
    for c, i in zip(s1 + s2, an.ids[node.args[0]] + an.ids[node.args[1]]):
        if c in letter:
            an.uf.union(letter[c], i)
        else:
            letter[c] = i
    return tuple(letter[c] for c in s3)


def _axes_transpose(an: Analysis, node: Syntax):
    ids = an.ids[node.args[0]]
    return ids[::-1] if len(ids) == 2 else ids


AXES = {
    "number": _axes_fresh, "name": _axes_name, "call": _axes_call, "access": access.axes,
    "add": _axes_elementwise, "sub": _axes_elementwise, "div": _axes_elementwise,
    "hadamard": _axes_elementwise, "compare": _axes_elementwise, "mul": axes_mul,
    "neg": lambda an, node: an.ids[node.args[0]], "pow": lambda an, node: an.ids[node.args[0]],
    "product": _axes_product, "transpose": _axes_transpose,
}


# ---------------------------------------------------------------------- construction

def _sum_all(e):
    """The sum of all entries of e, a scalar: e *(s,->) 1 (e itself when a scalar)."""
    if e.order == 0:
        return e
    return dag.contraction((e, dag.const(1.0)), (dag.LETTERS[:e.order], "", ""))


def _build_sum(an: Analysis, node, args, axes):
    if len(node.args) == 1:
        return _sum_all(args[0])
    k, s = _axis(an, node), dag.LETTERS[:args[0].order]
    return dag.product(args[0], dag.const(1.0), (s, "", s[:k] + s[k + 1:]))


def _build_mean(an: Analysis, node, args, axes):
    """sum(x) over the count of x's entries, a sum of ones over x's axes."""
    return dag.div(_sum_all(args[0]), _sum_all(dag.const(1.0, args[0].axes)))


def _build_fill(an: Analysis, node, args, axes):
    c = args[0]
    if isinstance(c, dag.Const):
        return dag.const(c.value, axes)
    return dag.scale(c, dag.const(1.0, axes))


def _build_diag(an: Analysis, node, args, axes):
    a = args[0]
    if a.order == 1:
        return dag.product(a, dag.delta(1, axes), ("i", "ij", "ij"))
    return dag.product(a, dag.const(1.0), ("ii", "", "i"))


_CALLS: dict[str, Callable[..., dag.Expr]] = {
    "delta": lambda an, node, args, axes: dag.delta(_delta_n(an, node), axes),
    "sum": _build_sum, "mean": _build_mean, "max": access.build_max, "min": access.build_max,
    "vector": _build_fill, "matrix": _build_fill, "diag": _build_diag,
    "sqrt": lambda an, node, args, axes: dag.power(args[0], dag.const(0.5)),
    "tr": lambda an, node, args, axes: dag.product(args[0], dag.const(1.0), ("ii", "", "")),
    **{f: (lambda an, node, args, axes, f=f: dag.special(f, args[0])) for f in dag.SPECIAL},
    **{f: (lambda an, node, args, axes, f=f: dag.elementwise(f, args[0])) for f in ELEMENTWISE},
}


def _build_name(an: Analysis, node, args, axes, declared):
    target = an.binding.get(node)
    if target is not None:
        return an.built[target]
    if node.value in declared:
        return declared[node.value]
    return dag.delta(1, axes) if node.value == "eye" else dag.const(1.0, axes)


def _spread(args, axes):
    """A scalar next to a tensor, spread over the tensor's axes: s *(,ij->ij) 1."""
    return [dag.scale(e, dag.const(1.0, axes)) if e.order == 0 and axes else e for e in args]


def _build_hadamard(an: Analysis, node, args, axes, declared):
    if args[0].order != args[1].order:
        s = 0 if args[0].order == 0 else 1
        return dag.scale(args[s], args[1 - s])
    return dag.hadamard(*args)


def _build_transpose(an: Analysis, node, args, axes, declared):
    a = args[0]
    return dag.product(a, dag.const(1.0), ("ij", "", "ji")) if a.order == 2 else a


BUILD = {
    "number": lambda an, node, args, axes, declared: dag.const(number_value(node, an.text), axes),
    "name": _build_name, "access": access.build,
    "call": lambda an, node, args, axes, declared: _CALLS[node.value](an, node, args, axes),
    "add": lambda an, node, args, axes, declared: dag.add(*_spread(args, axes)),
    "sub": lambda an, node, args, axes, declared: dag.sub(*_spread(args, axes)),
    "div": lambda an, node, args, axes, declared: dag.div(*_spread(args, axes)),
    "compare": lambda an, node, args, axes, declared: dag.sub(*args),
    "hadamard": _build_hadamard, "mul": build_mul, "transpose": _build_transpose,
    "neg": lambda an, node, args, axes, declared: dag.neg(*args),
    "pow": lambda an, node, args, axes, declared: dag.power(*args),
    "product": lambda an, node, args, axes, declared: dag.product(args[0], args[1], an.indices(node)),
}
