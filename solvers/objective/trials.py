"""Line-search trials on Dask data: f(z + t d) from products computed once per direction.

A generalised linear model reads its data X only through products linear in the
variables (X w in logistic, Poisson and least squares regression). Such a product P is
multilinear, so P(z + t d) = P(z) + t P(d): with P(z) and P(d) computed once per
direction (one pass over X, persisted on the workers), every later trial of the search
evaluates the rest of the objective from P(z) + t P(d), vectors over the rows, without
reading X again. Which products qualify is read from the compiled expression, not from a
list of problems (`split`): a contraction (`Product`) whose one operand that depends on
the variables is a variable itself and whose other operands read data. The rewrite is
used only when it removes every data array those products read from the rest of the
objective (otherwise a trial would still pass over them); the products are computed at
the second trial of a direction (the first is the method's own evaluation, kept for the
next iterate), so a direction whose first trial is accepted costs nothing more.

`along(obj, z, d)` gives the trial function for one direction, or None where the data
are not Dask arrays or the objective has no such structure (trials then call obj.value).
"""
from __future__ import annotations

import math
from typing import Callable

import tensorcalc as tc
from solvers.objective.hoist import hoist
from solvers.objective.smooth import Objective
from solvers.protocol import Array, Smooth
from solvers.task.distributed import client, evaluated, fits, persisted
from tensorcalc import dag
from tensorcalc.arrays import is_dask
from tensorcalc.dag import Expr, Product, Var
from tensorcalc.graph import rewrite
from tensorcalc.memo import memoized


def along(obj: Smooth, z: Array, d: Array) -> Callable[[float, Array], float] | None:
    """f(z + t d) as a function of (t, point) for the trials of one direction, or None
    (see the module)."""
    if type(obj) is not Objective or not any(map(is_dask, obj.fixed.values())):
        return None
    split = _split(obj.task.expr, obj.names)
    return None if split is None else _Along(obj, z, d, *split)


class _Along:
    def __init__(self, obj, z, d, program, products, invariants):
        self.obj, self.z, self.d = obj, z, d
        self.program, self.products, self.invariants = program, products, invariants
        self.parts = None

    def __call__(self, t: float, point) -> float:
        obj = self.obj
        if not obj.inside(point):
            return math.inf
        if self.parts is None:
            self.parts = self._products()
        obj.counts["nfev"] += 1
        hoisted = {name: obj._invariant(e, point) for name, e in self.invariants.items()}
        moved = {name: a + t * b for name, (a, b) in self.parts.items()}
        f = float(evaluated(self.program, {**obj.fixed, **obj.unpack(point), **hoisted, **moved})[0])
        return f if math.isfinite(f) else math.inf

    def _products(self) -> dict:
        """{name: (P(z), P(d))}, persisted on the workers in one computation."""
        import dask
        obj, names = self.obj, list(self.products)
        at = [self.products[n](obj._values(self.z))[0] for n in names]
        towards = [self.products[n](obj._values(self.d))[0] for n in names]
        parts = list(zip(at, towards))
        size = sum(getattr(a, "nbytes", 0) for pair in parts for a in pair)
        if fits(size) or client() is None:          # local: vectors over the rows, 1/n of X
            parts = list(zip(*[iter(dask.persist(*(a for pair in parts for a in pair)))] * 2))
        else:
            parts = [tuple(map(_computed_if_small, pair)) for pair in parts]
        return dict(zip(names, parts))


def _computed_if_small(a):
    return a.compute() if is_dask(a) and not persisted(a) and a.npartitions == 1 else a


@memoized(maxsize=32)
def _split(expr, names: tuple[str, ...]):
    """(compiled rest of the objective, {name: compiled product}, rest's invariants) or
    None: see the module."""
    nodes = dag.topo(expr)
    depends: dict[Expr, bool] = {}
    reads: dict[Expr, bool] = {}
    for node in nodes:
        depends[node] = (isinstance(node, Var) and node.name in names) or any(depends[c] for c in node.args)
        reads[node] = (isinstance(node, Var) and node.name not in names) or any(reads[c] for c in node.args)
    taken = {n.name for n in nodes if isinstance(n, Var)}
    products: dict[str, Expr] = {}

    def rule(node: Expr, args: tuple[Expr, ...]) -> Expr:
        if _linear(node, depends, reads):
            name = _fresh(f"along{len(products)}", taken)
            products[name] = node
            return dag.var(name, node.axes)
        return dag.rebuild(node, args) if depends[node] else node

    rest = rewrite(expr, rule)
    if not products:
        return None
    data = {v for p in products.values() for v in tc.variables(p) if v not in names}
    if data & set(tc.variables(rest)):
        return None
    (rest,), invariants = hoist([rest], names + tuple(products))
    return tc.compile([rest]), {name: tc.compile([p]) for name, p in products.items()}, invariants


def _linear(node, depends: dict, reads: dict) -> bool:
    """A contraction with exactly one operand that depends on the variables, that operand
    a variable, and another operand that reads data: linear in that variable."""
    if not isinstance(node, Product):
        return False
    moving = [a for a in node.args if depends[a]]
    return len(moving) == 1 and isinstance(moving[0], Var) and \
        any(reads[a] for a in node.args if not depends[a])


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name
