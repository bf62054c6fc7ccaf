"""The objective as the solvers see it: functions of one flat vector z on one device.

z packs the free variables (each flattened in C order, in declaration order). The value,
gradient and Hessian come from tensorcalc's symbolic derivatives compiled to one
function per need, cached per expression and set of free variables (in memory, and on
disk by `tensorcalc.store.cache` for later processes), so a second solve of the same problem
compiles nothing:

- `value(z)`: f, inf outside the domain (non-finite value, a declared bound crossed, or
  the start's domain component left: `keep`);
- `value_grad(z)`: f and g;
- `value_grad_hess(z)`: f, g and H from one compiled call. H is the dense matrix, or,
  for a single variable whose symbolic Hessian carries a delta over one axis, the
  `Blocks` of the block-diagonal Hessian, never building the full one;
- `hvp(z, v)`: H v from the symbolic pushforward of the gradient (no Hessian built).
"""
from __future__ import annotations

import math
from typing import Any, Mapping, NamedTuple

import numpy as np
import scipy.sparse as sp

import tensorcalc as tc
from convexcheck.problem.admissible import in_bounds
from solvers.numerics.linalg import Blocks
from solvers.objective import affine
from solvers.objective.hoist import hoist
from solvers.objective.structure import block_form
from solvers.protocol import Array, Box
from solvers.task.device import to_device
from solvers.task.distributed import evaluated, kept, placed
from solvers.task.domain import Component
from solvers.task.prepare import SolverError, Task
from tensorcalc import Expr, ShapeError, dag
from tensorcalc.arrays import ArrayModule, is_dask
from tensorcalc.memo import memoized
from tensorcalc.store import cache

DENSE_ROWS = 64         # `quadratic_hessian` gives up where a node's Jacobian is dense beyond this times n entries


class Objective:
    """f of the flat vector z for `task` on the array module `xp`: a `protocol.Smooth`
    (its box None: declared bounds of an `Objective` are strict, kept by `inside`).
    `keep`: the domain component of the start (`domain.component`); a point outside it is
    outside the domain (`inside` False, f = inf), so that no search crosses a pole."""

    box: Box | None = None

    def __init__(self, task: Task, xp: ArrayModule, keep: Component | None = None):
        self.task, self.xp, self.keep = task, xp, keep
        self._judged: tuple = (None, True)      # (the last z `in_component` judged, its answer)
        self.free = task.free
        at = _layout(tuple(self.free))
        self.names, self.orders, self.offsets, self.n = at.names, at.orders, list(at.offsets), at.offsets[-1]
        self.fixed = {name: placed(xp, name, a) if is_dask(a) else to_device(xp, a)
                      for name, a in task.fixed.items()}
        self.bounded = list(at.bounded)
        self.counts = {"nfev": 0, "njev": 0, "nhev": 0}
        self._slots, self._limits, self._squares = at.slots, at.limits, at.squares
        self._invariants: dict[Expr, object] = {}      # hoisted values by expression
        self._quadratic: tuple | None = None           # (`quadratic_hessian`,) once read
        self._hoisted: dict[str, dict] = {}            # by kind: the hoisted values a program reads
        self._programs: dict[str, tuple] = {}          # by kind: `compiled_program`'s answer
        self._local = not any(map(is_dask, self.fixed.values()))   # no Dask data: no dask.compute

    def set_fixed(self, name: str, array: Any) -> None:
        """Hold the fixed array `name` at a new value of the same shape (block methods);
        a Dask array (a row factor on the workers) is kept as it is."""
        self.fixed[name] = placed(self.xp, name, array) if is_dask(array) else to_device(self.xp, array)
        self._invariants = {e: v for e, v in self._invariants.items() if name not in tc.variables(e)}
        self._hoisted, self._judged = {}, (None, True)
        self._local = not any(map(is_dask, self.fixed.values()))

    # ------------------------------------------------------------------ packing
    def pack(self, arrays: Mapping[str, Array]) -> Array:
        parts = [to_device(self.xp, arrays[v.name]).reshape(-1) for v in self.free]
        return parts[0].copy() if len(parts) == 1 else self.xp.concatenate(parts)

    def unpack(self, z: Array) -> dict:
        return {name: z[a:b].reshape(shape) for name, a, b, shape in self._slots}

    def _values(self, z, extra=None) -> dict:
        return {**self.fixed, **self.unpack(z), **(extra or {})}

    def inside(self, z: Array) -> bool:
        """Whether z meets the declared bounds of the free variables and lies in `keep`."""
        return all(in_bounds(attributes, z[a:b]) for attributes, a, b in self._limits) and self.in_component(z)

    def in_component(self, z: Array) -> bool:
        """Whether z lies in the start's domain component `keep` (True without one): one
        compiled evaluation of the conditions' arguments, none for the z judged last."""
        if self.keep is None:
            return True
        if self._judged[0] is not z:
            self._judged = (z, self.keep.holds(self._values(z)))
        return self._judged[1]

    # ------------------------------------------------------------------ evaluations
    def value(self, z: Array, overflow: bool = False) -> float:
        """f(z), inf outside the domain; with `overflow`, -inf where f overflows downwards."""
        if not self.inside(z):
            return math.inf
        self.counts["nfev"] += 1
        f = float(self._call("value", z)[0])
        return f if overflow and f == -math.inf else finite_value(f)

    def value_grad(self, z: Array) -> tuple[float, Array]:
        """f(z) and g(z); f = inf outside `keep` (g as computed)."""
        f, *grads = self._call("grad", z)
        self.counts["nfev"] += 1
        self.counts["njev"] += 1
        return self._kept_value(f, z), self._flat(grads)

    def value_grad_hess(self, z: Array, sparse: bool = False) -> tuple[float, Array, Any]:
        """f(z), g(z) and H(z); f = inf outside `keep`. With `sparse` (on the host, several
        variables), H as CSR assembled from its blocks, the zero ones skipped: never the
        dense n x n array (a Kalman smoother's 8,004^2 entries, 0.5 GB, nearly all 0)."""
        f, *rest = self._call("hess", z)
        k = len(self.free)
        grads, hess = rest[:k], rest[k:]
        for key in ("nfev", "njev", "nhev"):
            self.counts[key] += 1
        sparse = sparse and self.xp is np and len(hess) > 1 and self._program("hess")[1] is None
        return self._kept_value(f, z), self._flat(grads), self._sparse_hessian(hess) if sparse else self._hessian(hess)

    def quadratic_hessian(self) -> sp.csr_matrix | None:
        """The constant H of a quadratic objective as CSR, read as the Jacobian of each
        variable's symbolic gradient by `affine.read` (never the dense n x n array: the
        identity of 0.5 ||y - x||^2 over 2,000 unknowns is 2,000 entries, not 4 million);
        None where a gradient has a node the walk does not read, or a node whose Jacobian is
        dense beyond DENSE_ROWS entries a column (the compiled dense H is then cheaper: a
        box QP's diag(d) + F'F). The caller knows f is
        quadratic (a Hessian read at a point is then the Hessian everywhere)."""
        if self.xp is not np:
            return None
        if self._quadratic is None:
            self._quadratic = (self._read_hessian(),)
        return self._quadratic[0]

    def _read_hessian(self) -> sp.csr_matrix | None:
        free = {v.name: (int(o), v.shape) for v, o in zip(self.free, self.offsets)}
        rows, present = [], tc.variables(self.task.expr)
        for v in self.free:
            grad = tc.derivative(self.task.expr, present[v.name]) if v.name in present else None
            if grad is None or not set(tc.variables(grad)) & set(free):      # a constant gradient
                rows.append(sp.csr_matrix((v.size, int(self.n))))
                continue
            found = affine.read(grad, free, self.task.fixed, int(self.n), sparse=True, dense_limit=DENSE_ROWS * self.n)
            if found is None:
                return None
            rows.append(found[1])
        self.counts["nhev"] += 1
        return sp.csr_matrix(sp.vstack(rows)) if len(rows) > 1 else rows[0]

    def hvp(self, z: Array, v: Array) -> Array:
        self.counts["nhev"] += 1
        directions = {d: part for d, part in zip(_directions(self.names), self.unpack(v).values())}
        return self._flat(self._call("hvp", z, directions))

    # ------------------------------------------------------------------ helpers
    def _kept_value(self, f, z) -> float:
        return finite_value(f) if self.keep is None or self.in_component(z) else math.inf

    def _call(self, kind: str, z, extra=None):
        program, _, invariants = self._program(kind)
        try:
            hoisted = self._hoisted.get(kind)
            if hoisted is None:
                hoisted = self._hoisted[kind] = {name: self._invariant(e, z) for name, e in invariants.items()}
            values = self._values(z, {**hoisted, **(extra or {})})
            # hoisted values read the fixed data only; z and extra are Dask only for a row factor
            if self._local and not is_dask(z) and not (extra and any(map(is_dask, extra.values()))):
                return program(values)
            return evaluated(program, values)
        except ShapeError as exc:
            raise SolverError(f"{exc}; for large variables use method='newton-cg' or 'lbfgs', "
                              f"which never build the Hessian") from None

    def _program(self, kind: str):
        """`compiled_program` of this objective for `kind`, looked up once."""
        found = self._programs.get(kind)
        if found is None:
            found = self._programs[kind] = compiled_program(self.task.expr, self.names, kind, self.orders)
        return found

    def _invariant(self, expr: Expr, z):
        """The value of a hoisted subexpression, computed once per fixed data."""
        if expr not in self._invariants:
            self._invariants[expr] = kept(_compiled(expr)(self._values(z)))
        return self._invariants[expr]

    def _flat(self, parts):
        flat = [p.reshape(-1) for p in parts]
        return flat[0] if len(flat) == 1 else self.xp.concatenate(flat)

    def _sparse_hessian(self, parts) -> sp.csr_matrix:
        """H as CSR from its blocks (`_squares`: rows a:b, columns c:d, mirrored off the
        diagonal), each read for its nonzeros only."""
        rows, cols, vals = [], [], []
        for (a, b, c, d), part in zip(self._squares, parts):
            block = np.asarray(part).reshape(b - a, d - c)
            i, j = np.nonzero(block)
            for r, s_ in ((a + i, c + j), (c + j, a + i)) if a != c else ((a + i, c + j),):
                rows.append(r)
                cols.append(s_)
                vals.append(block[i, j])
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(self.n, self.n))

    def _hessian(self, parts):
        blocks = self._program("hess")[1]
        if blocks is not None:
            axis, _ = blocks
            v = self.free[0]
            rest = v.size // v.shape[axis]
            moved = self.xp.moveaxis(parts[0].reshape(v.shape + (rest,)), axis, 0)
            return Blocks(moved.reshape(v.shape[axis], rest, rest), axis, v.shape)
        if len(parts) == 1:                          # one variable: its block is all of H
            return parts[0].reshape(self.n, self.n).copy()
        H = self.xp.empty((self.n, self.n))
        for (a, b, c, d), part in zip(self._squares, parts):
            H[a:b, c:d] = part.reshape(b - a, d - c)
            if a != c:
                H[c:d, a:b] = H[a:b, c:d].T
        return H


class _Layout(NamedTuple):
    """Where the free variables sit in z, and what evaluations read of them."""

    names: tuple[str, ...]
    orders: tuple[int, ...]
    offsets: tuple[int, ...]
    bounded: tuple             # the variables with a declared bound
    slots: tuple               # (name, start, stop, shape) per variable
    limits: tuple              # (attributes, start, stop) per bounded variable
    squares: tuple             # (a, b, c, d): the Hessian's block H[a:b, c:d], one per pair i <= j


@memoized(maxsize=256)
def _layout(free: tuple) -> _Layout:
    """The `_Layout` of the free variables: the same for every solve of a problem."""
    names = tuple(v.name for v in free)
    offsets = tuple(_offsets([v.size for v in free]))
    bounded = tuple(v for v in free if v.attributes.lower is not None or v.attributes.upper is not None)
    ends = tuple(zip(offsets, offsets[1:]))
    return _Layout(names, tuple(len(v.shape) for v in free), offsets, bounded,
                   tuple((v.name, a, b, v.shape) for v, (a, b) in zip(free, ends)),
                   tuple((v.attributes, a, b) for v, (a, b) in zip(free, ends) if v in bounded),
                   tuple((*ends[i], *ends[j]) for i, j in _pairs(len(free))))


def finite_value(value: Any) -> float:
    """`value` as a float, +inf where it is not finite (NaN, -inf: outside the domain)."""
    f = float(value)
    return f if math.isfinite(f) else math.inf


def _offsets(sizes: list[int]) -> list[int]:
    offsets = [0]
    for size in sizes:
        offsets.append(offsets[-1] + size)
    return offsets


def _pairs(k: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(k) for j in range(i, k)]


def _directions(names: tuple[str, ...]) -> list[str]:
    """Names of the direction variables of a Hessian-vector product, clear of `names`."""
    out = []
    for name in names:
        d = f"{name}_dir"
        while d in names or d in out:
            d += "_"
        out.append(d)
    return out


def block_axis(expr: Expr, names: tuple[str, ...]) -> int | None:
    """The axis of the one variable in `names` over which the symbolic Hessian of `expr`
    is block diagonal (`structure.block_form`), or None (several variables, or none)."""
    if len(names) != 1:
        return None
    blocks = compiled_program(expr, names, "hess")[1]
    return None if blocks is None else blocks[0]


@memoized(maxsize=4096)       # also one per constraint part: hundreds must not cycle out (LRU)
def compiled_program(expr: Expr, names: tuple[str, ...], kind: str,
                     orders: tuple[int, ...] = ()) -> tuple[Any, Any, dict[str, Expr]]:
    """(compiled function, block structure or None, hoisted invariants by name) for one
    kind of evaluation; the invariants are computed once (`hoist`) and passed back in.
    `orders`, one per name, lets a variable the expression does not read (one only the
    constraints read) have its zero derivatives."""
    return cache.cached("program", (expr, names, kind, orders), lambda: _built(expr, names, kind, orders),
                        _program_data, _program_from)[0]


def _built(expr: Expr, names: tuple[str, ...], kind: str, orders: tuple[int, ...] = ()):
    exprs, blocks = _outputs(expr, names, kind, orders)
    exprs, invariants = hoist(exprs, names + tuple(_directions(names)))
    return tc.compile(exprs), blocks, invariants


def _program_data(program) -> dict:
    fn, blocks, invariants = program
    return {"fn": cache.compiled_data(fn), "invariants": {k: cache.expr_data([e]) for k, e in invariants.items()},
            "blocks": None if blocks is None else [blocks[0], cache.expr_data([blocks[1]])]}


def _program_from(data: dict):
    blocks = data["blocks"]
    blocks = None if blocks is None else (int(blocks[0]), cache.exprs_from_data(blocks[1])[0])
    invariants = {str(k): cache.exprs_from_data(e)[0] for k, e in data["invariants"].items()}
    return cache.compiled_from(data["fn"]), blocks, invariants


@memoized(maxsize=256)
def _compiled(expr: Expr):
    return cache.cached("compiled", (expr,), lambda: tc.compile(expr), cache.compiled_data,
                        cache.compiled_from)[0]


def _outputs(expr: Expr, names: tuple[str, ...], kind: str, orders: tuple[int, ...] = ()):
    if kind == "value":
        return [expr], None
    # Var nodes, not names: a gradient need not contain every variable (x^2 + y^2, or a
    # linear term), and differentiating it by a name it lacks raises; by the node it is 0.
    # A name the expression does not read at all gets a node of its own axes.
    found = tc.variables(expr)
    for n, order in zip(names, orders):
        found.setdefault(n, dag.var(n, tuple(dag.Axis(n, k) for k in range(order))))
    xs = [found[n] for n in names]
    grads = [tc.derivative(expr, x) for x in xs]
    if kind == "grad":
        return [expr, *grads], None
    if kind == "hvp":
        dirs = _directions(names)
        return [dag.add_all([tc.pushforward(g, x, d) for x, d in zip(xs, dirs)]) for g in grads], None
    if len(names) == 1:
        H = tc.derivative(grads[0], xs[0])
        blocks = block_form(H, grads[0].order)
        return ([expr, grads[0], blocks[1]], blocks) if blocks else ([expr, grads[0], H], None)
    return [expr, *grads, *(tc.derivative(grads[i], xs[j]) for i, j in _pairs(len(names)))], None
