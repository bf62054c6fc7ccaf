"""Expressions as data and back: the rows the disk cache stores, rebuilt as strictly as text.

`expr_data` writes a DAG as rows [type, params, argument rows, axes] in dependency order.
`exprs_from_data` reads them back through the node constructors users' text goes through
(`dag.var`, `dag.const`, `dag.delta`, `dag.contraction`, `affine.gather`, ...), after
checking every parameter's type and range (`BUILD`, one rule per node type), and keeps a
node only when the constructor gives back exactly the row: type, parameters, children and
axes. Whatever else a row holds is a ValueError, never a node.
"""
from __future__ import annotations

from typing import Iterable, TypeVar

from tensorcalc import dag
from tensorcalc.dag import Axis, Expr, Spec
from tensorcalc.errors import TensorCalcError
from tensorcalc.gather import affine

T = TypeVar("T")

MAX_ROWS = 1_000_000
MAX_INT = 2 ** 31
MAX_NAME = 256


class Uncacheable(Exception):
    """A key part that has no exact encoding: the caller computes without the cache."""


def expr_data(exprs: Iterable[Expr]) -> dict:
    """The DAG of `exprs` as rows [type, params, argument rows, axes] in dependency order."""
    nodes = dag.topo(*exprs)
    index = {node: i for i, node in enumerate(nodes)}
    rows = [[type(n).__name__, _params_data(n.params()), [index[a] for a in n.args],
             [[a.var, a.pos] for a in n.axes]] for n in nodes]
    return {"nodes": rows, "outputs": [index[e] for e in exprs]}


def _params_data(params):
    if isinstance(params, Spec):
        return {"spec": [list(params.inputs), params.out]}
    if isinstance(params, tuple):
        return [_params_data(p) for p in params]
    if isinstance(params, float):
        return {"f": params.hex()}
    if params is None or isinstance(params, (bool, int, str)):
        return params
    raise Uncacheable(f"no data form for a node parameter of type {type(params).__name__}")


# ----------------------------------------------------------------------------- reading back

def exprs_from_data(data: object) -> list[Expr]:
    """The expressions written by `expr_data`; ValueError on anything malformed."""
    if not (isinstance(data, dict) and isinstance(data.get("nodes"), list) and isinstance(data.get("outputs"), list)):
        raise ValueError("expression data is not {'nodes': [...], 'outputs': [...]}")
    if len(data["nodes"]) > MAX_ROWS:
        raise ValueError("too many expression rows")
    built: list[Expr] = []
    for row in data["nodes"]:
        built.append(_row(row, built))
    return [built[_index(i, len(built))] for i in data["outputs"]]


def _row(row, built: list) -> Expr:
    if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and row[0] in BUILD
            and isinstance(row[2], list) and isinstance(row[3], list)):
        raise ValueError("malformed expression row")
    name, params, args, axes = row
    if ARITY[name] is not None and len(args) != ARITY[name]:
        raise ValueError(f"expression row {name} has {len(args)} children, not {ARITY[name]}")
    args = tuple(built[_index(i, len(built))] for i in args)
    axes = tuple(_axis(a) for a in axes)
    try:
        node = BUILD[name](_params(params), args, axes)
    except (TensorCalcError, TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError) as exc:
        raise ValueError(f"expression row {name} is not a node the constructors build: {exc}") from None
    if type(node).__name__ != name or node.args != args or node.axes != axes:
        raise ValueError(f"expression row {name} does not rebuild as itself")
    return node


def _index(i, n: int) -> int:
    if type(i) is not int or not 0 <= i < n:
        raise ValueError("expression row refers to no earlier row")
    return i


def _int(v, low: int = -MAX_INT, high: int = MAX_INT) -> int:
    if type(v) is not int or not low <= v <= high:
        raise ValueError(f"expected an integer from {low} to {high}, got {v!r:.40}")
    return v


def _name(v) -> str:
    if type(v) is not str or len(v) > MAX_NAME:
        raise ValueError("expected a short string")
    return v


def _axis(a) -> Axis:
    if not (isinstance(a, list) and len(a) == 2):
        raise ValueError("malformed axis")
    return Axis(_name(a[0]), _int(a[1], 0, MAX_INT))


def _params(data):
    """Parameters from data: lists become tuples, {'spec'} a Spec of letter strings,
    {'f'} an exact float; only plain JSON scalars otherwise."""
    if isinstance(data, list):
        return tuple(_params(d) for d in data)
    if isinstance(data, dict) and set(data) == {"spec"}:
        inputs, out = data["spec"]
        return Spec(tuple(_letters(s) for s in inputs), _letters(out))
    if isinstance(data, dict) and set(data) == {"f"} and type(data["f"]) is str and len(data["f"]) < 40:
        return float.fromhex(data["f"])
    if data is None or type(data) in (bool, str) or (type(data) is int and abs(data) <= MAX_INT):
        return data
    raise ValueError("malformed node parameter")


def _letters(s) -> str:
    if type(s) is not str or not set(s) <= set(dag.LETTERS) or len(s) > dag.MAX_ORDER:
        raise ValueError("malformed index string")
    return s


def _one(params: object, kind: type[T]) -> T:
    if not (isinstance(params, tuple) and len(params) == 1 and isinstance(params[0], kind)
            and not (kind is int and isinstance(params[0], bool))):
        raise ValueError("malformed node parameter")
    return params[0]


def _no_params(params: object) -> None:
    if params != ():
        raise ValueError("malformed node parameter")


def _sum(params: object, args: tuple, axes: tuple) -> Expr:
    _no_params(params)
    return dag.add(*args)


def _power(params: object, args: tuple, axes: tuple) -> Expr:
    _no_params(params)
    return dag.power(*args)


def _gather(params, args: tuple, axes: tuple) -> Expr:
    if not (isinstance(params, tuple) and len(params) == 5):
        raise ValueError("malformed gather")
    batch, shape, source, rows, domain = params
    batch = _int(batch, 0, dag.MAX_ORDER)
    shape, source = tuple(_int(v, 1) for v in shape), tuple(_int(v, 1) for v in source)
    rows = tuple((tuple(map(_int, a)), _int(c), _int(d, 1)) for a, c, d in rows)
    domain = tuple((tuple(map(_int, a)), _int(c)) for a, c in domain)
    node = affine.gather(args[0], batch, shape, source, rows, domain, axes[batch:])
    if node.params() != (batch, shape, source, rows, domain):
        raise ValueError("gather does not rebuild as itself")
    return node


def _checked(node: Expr, params) -> Expr:
    if node.params() != params:
        raise ValueError(f"{type(node).__name__} does not rebuild with its parameters")
    return node


ARITY = {"Var": 0, "Const": 0, "Delta": 0, "Sum": 2, "Product": None, "Elementwise": 1, "Special": 1,
         "Power": 2, "Gather": 1}     # children a row of each type has (None: any number)
BUILD = {
    "Var": lambda p, a, x: dag.var(_name(_one(p, str)), x),
    "Const": lambda p, a, x: _checked(dag.const(_one(p, float), x), p),
    "Delta": lambda p, a, x: dag.delta(_one(p, int), x),
    "Sum": _sum,
    "Product": lambda p, a, x: _checked(dag.contraction(a, _one(p, Spec)), p),
    "Elementwise": lambda p, a, x: dag.elementwise(_one(p, str), *a),
    "Special": lambda p, a, x: dag.special(_one(p, str), *a),
    "Power": _power,
    "Gather": _gather,
}
assert set(BUILD) == set(ARITY) == {cls.__name__ for cls in dag.NODE_TYPES}
