"""The constraints c_j(x) <= 0 and c_j(x) == 0 of a task, compiled like the objective.

Each constraint is an `Objective` of its own over the free variables it reads (tensorcalc
derivatives, compiled once per expression and cached), its gradient and Hessian
scattered into the coordinates y of the `View` (symmetric matrices by their upper
triangle). `values(y)` gives every c_j, `jacobian(y)` the rows grad c_j, and
`hessian(y, w)` / `hvp(y, v, w)` the weighted sum sum_j w_j H_j, skipping constraints of
zero weight and those whose symbolic Hessian is zero (affine constraints). A constraint
between tensors (`G * x <= h`) is one row per entry (`Rows`); `multipliers` gathers the
rows' multipliers back by label.
`violation(y)` is the largest violation: max(c_j, 0) for inequalities, |c_j| for
equalities, and the distance outside the closed bounds and the cones. Second-order cones
(`task.cones`) are read as affine maps apart from the rows (`cones`).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

import tensorcalc as tc
from solvers.numerics.linalg import Blocks
from solvers.numerics.space import View, dense
from solvers.objective import affine
from solvers.objective.cones import Cones
from solvers.objective.smooth import Objective
from solvers.protocol import Array
from solvers.task.device import to_host
from solvers.task.distributed import evaluated
from solvers.task.prepare import Task, variables
from solvers.task.records import Constraint
from tensorcalc import Expr, dag
from tensorcalc.algebra.degree import degree
from tensorcalc.memo import memoized

SPARSE_ROWS = 100_000      # an affine block's Jacobian of at least this many entries,
SPARSE_SHARE = 0.05        # at most this share of them nonzero, gives its values from a CSR copy


def _shape_carriers(task: Task, expr: Expr, present) -> dict[str, Array]:
    """Arrays of the shapes of the variables that name an axis of `expr` without being
    read by it (an epigraph variable keeps the axes of the kink it replaced, which a
    parameter of the objective may name): the compiled row reads those lengths from them."""
    owners = _axis_owners(expr) - set(present)
    shapes = {v.name: v.shape for v in task.free if v.name in owners}
    return {**{n: np.zeros(s) for n, s in shapes.items()}, **{n: task.fixed[n] for n in owners & task.fixed.keys()}}


@memoized(maxsize=1024)
def _axis_owners(expr: Expr) -> frozenset:
    """The variables naming an axis of some node of `expr` (depends on `expr` alone)."""
    return frozenset(a.var for node in dag.topo(expr) for a in node.axes) - {""}


class Part:
    """One scalar constraint's compiled functions and where its variables sit in z. The
    row interface (`rows`, `shape`, `values`, `values_jacobian`, `row_hessian`, `row_hvp`)
    is the one `Rows` has, for one row."""

    rows, shape = 1, ()

    def __init__(self, task: Task, constraint: Constraint, view: View):
        self.constraint, self.view = constraint, view
        obj = view.obj
        present = variables(constraint.expr)
        free = tuple(v for v in task.free if v.name in present)
        fixed = {n: task.fixed[n] for n in present if n in task.fixed}
        sub = dataclasses.replace(task, expr=constraint.expr, sign=1.0, free=free, constraints=(),
                                  fixed={**_shape_carriers(task, constraint.expr, present), **fixed})
        self.obj = Objective(sub, view.xp)
        self.index = np.concatenate([np.arange(a, b) for v, a, b in zip(obj.free, obj.offsets, obj.offsets[1:])
                                     if v.name in present])
        self.whole = self.index.size == obj.offsets[-1]          # every entry of z
        self.index = view.xp.asarray(self.index)
        self.affine = affine_in(constraint.expr, [v.name for v in free])
        self._linear: tuple[Array, Array] | None = None     # (gradient, value - gradient . y), affine

    def _z(self, y):
        z = self.view.space.lift(y)
        return z if self.whole else z[self.index]

    def _scatter(self, g_part):
        if self.whole:
            return g_part
        g = self.view.xp.zeros(self.view.obj.n)
        g[self.index] = g_part
        return g

    def value(self, y: Array) -> float:
        if self._linear is not None:
            return float(self._linear[0] @ y) + self._linear[1]
        return self.obj.value(self._z(y))

    def value_grad(self, y: Array) -> tuple[float, Array]:
        """c and its gradient; an affine constraint's gradient is computed once."""
        if self._linear is not None:
            return self.value(y), self._linear[0]
        f, g = self.obj.value_grad(self._z(y))
        g = self.view.space.grad(self._scatter(g))
        if self.affine and math.isfinite(f):
            self._linear = (g, f - float(g @ y))
        return f, g

    def hessian(self, y: Array) -> Array:
        H = self.obj.value_grad_hess(self._z(y))[2]
        xp = self.view.xp
        if isinstance(H, Blocks):
            H = dense(xp, H)
        if not self.whole:
            n = self.view.obj.offsets[-1]                   # z's entries
            full = xp.zeros((n, n))
            full[self.index[:, None], self.index[None, :]] = H
            H = full
        return self.view.space.hess(H)

    def hvp(self, y: Array, v: Array) -> Array:
        part = self.view.space.lift(v)
        part = part if self.whole else part[self.index]
        return self.view.space.grad(self._scatter(self.obj.hvp(self._z(y), part)))

    # ------------------------------------------------------------------ as one row
    def csr_rows(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """The kept gradient as one CSR row and the offset (an affine part, read)."""
        assert self._linear is not None
        g, offset = self._linear
        return sp.csr_matrix(np.reshape(g, (1, -1))), np.reshape(offset, -1)

    def values(self, y: Array) -> Array:
        return self.view.xp.asarray([self.value(y)], dtype=float)

    def values_jacobian(self, y: Array) -> tuple[Array, Array]:
        f, g = self.value_grad(y)
        return self.view.xp.asarray([f], dtype=float), g[None, :]

    def row_hessian(self, y: Array, w: Array) -> Array:
        return float(w[0]) * self.hessian(y)

    def row_hvp(self, y: Array, v: Array, w: Array) -> Array:
        return float(w[0]) * self.hvp(y, v)


class Rows:
    """A constraint of order >= 1: one row c_i(x) per entry of its expression g (`G * x
    <= h`), with the interface of `Part` for many rows. Values and the Jacobian (the
    symbolic derivative of g, its axes g's then the variable's) come from one compiled
    call, once for an affine g; the weighted Hessian sum_i w_i H_i is the Hessian of the
    scalar w . g (`Part` of it, w a fixed parameter set per call)."""

    def __init__(self, task: Task, constraint: Constraint, view: View, y0: Array):
        self.constraint, self.view = constraint, view
        names = tuple(v.name for v in task.free if v.name in variables(constraint.expr))
        self.part = Part(task, constraint, view)          # packing, data, coordinates
        self._names = names
        self.affine = self.part.affine
        self._linear: tuple[Array, Array] | None = None
        self._rows = None          # an affine J as CSR where mostly zeros (`_keep_linear`): values cost its entries
        read = self._read(task) if self.affine and view.xp is np else None
        if read is not None:       # an affine g read by one walk (`affine.read`): nothing compiled
            c, J = read
            self.shape, self.rows = tuple(c.shape), int(c.size)
            self._keep_linear(c.reshape(-1), J, view.xp.zeros(J.shape[1]))
        else:
            c, J = self._evaluate(y0)
            self.shape, self.rows = tuple(c.shape), int(c.size)
            self._keep_linear(c.reshape(-1), self._in_y(J), y0)     # an affine g: evaluated once, here
        self._task, self.weight = task, ""
        self._weighted: Part | None = None

    @property
    def weighted(self) -> Part:
        """The `Part` of the scalar w . g, built at its first use (an affine g never needs it)."""
        if self._weighted is None:
            constraint, task = self.constraint, self._task
            self.weight = _fresh("w_rows", tuple(task.fixed) + tuple(v.name for v in task.free))
            weighted = dataclasses.replace(constraint, expr=dag.product(
                dag.var(self.weight, constraint.expr.axes), constraint.expr,
                (dag.LETTERS[:len(self.shape)],) * 2 + ("",)))
            fixed = {**task.fixed, self.weight: np.zeros(self.shape)}
            self._weighted = Part(dataclasses.replace(task, fixed=fixed), weighted, self.view)
        return self._weighted

    @property
    def program(self) -> Any:
        """The compiled call of g and its derivatives (`_rows_program`), made at first use."""
        return _rows_program(self.constraint.expr, self._names)

    def _read(self, task: Task) -> tuple[np.ndarray, np.ndarray] | None:
        """(g at y = 0, its Jacobian in y) of an affine g by `affine.read`, or None where
        the walk cannot read a node (the compiled derivative is then evaluated instead)."""
        obj, space = self.view.obj, self.view.space
        free = {v.name: (int(o), v.shape) for v, o in zip(obj.free, obj.offsets)}
        found = affine.read(self.constraint.expr, free, task.fixed, int(obj.offsets[-1]), sparse=space.identity)
        if found is None:
            return None
        value, jac = found
        if sp.issparse(jac):          # z is y: CSR from the columns the rows read, never dense
            return value, jac
        full = jac.reshape(value.size, -1)
        return value, (full if space.identity else full[:, space.up] + space.twin * full[:, space.down])

    def _evaluate(self, y):
        obj, xp = self.part.obj, self.view.xp
        c, *grads = evaluated(self.program, obj._values(self.part._z(y)))
        rows = int(np.prod(c.shape, dtype=np.int64))
        J = xp.concatenate([d.reshape(rows, -1) for d in grads], axis=1) if grads else xp.zeros((rows, 0))
        return c, J

    def values(self, y: Array) -> Array:
        if self._rows is not None and self._linear is not None:
            return self._rows @ y + self._linear[1]
        return self.values_jacobian(y)[0]

    def values_jacobian(self, y: Array) -> tuple[Array, Array]:
        """(c, J): the rows' values and their gradients in y (rows x n)."""
        if self._linear is not None:
            J, offset = self._linear
            if sp.issparse(J):        # formed densely only for a caller that asks (the dense algebra)
                self._linear = (J := J.toarray(), offset)
            return J @ y + offset, J
        c, J = self._evaluate(y)
        c, J = c.reshape(-1), self._in_y(J)
        self._keep_linear(c, J, y)
        return c, J

    def csr_rows(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """The kept Jacobian as CSR (the copy `_keep_linear` made, where it made one) and the
        offsets (an affine block, read)."""
        assert self._linear is not None
        J, offset = self._linear
        return (self._rows if self._rows is not None else sp.csr_matrix(J)), np.reshape(offset, -1)

    def _keep_linear(self, c, J, y):
        """Keep an affine g's (J, c - J y) from its values c and Jacobian J at y, when finite."""
        if self.affine and bool(self.view.xp.isfinite(c).all()):
            self._linear = (J, c - J @ y)
            if sp.issparse(J):
                self._rows = J
            elif self.view.xp is np and J.size >= SPARSE_ROWS and np.count_nonzero(J) <= SPARSE_SHARE * J.size:
                self._rows = sp.csr_matrix(J)

    def _in_y(self, J):
        """Jacobian columns of the part's variables scattered into y's coordinates."""
        xp, space, part = self.view.xp, self.view.space, self.part
        full = J if part.whole else xp.zeros((J.shape[0], self.view.obj.n))
        if not part.whole:
            full[:, part.index] = J
        return full if space.identity else full[:, space.up] + space.twin * full[:, space.down]

    def row_hessian(self, y: Array, w: Array) -> Array:
        weighted = self.weighted
        weighted.obj.set_fixed(self.weight, w.reshape(self.shape))
        return weighted.hessian(y)

    def row_hvp(self, y: Array, v: Array, w: Array) -> Array:
        weighted = self.weighted
        weighted.obj.set_fixed(self.weight, w.reshape(self.shape))
        return weighted.hvp(y, v)


class Constraints:
    """Every constraint of `task` in the coordinates of `view`, one row per entry of a
    tensor constraint; see the module docstring."""

    def __init__(self, task: Task, view: View):
        self.view, self.xp = view, view.xp
        self.cones = Cones(task, view)          # second-order cones, kept apart (`cones`)
        self._affine = False
        self._stack: tuple[sp.csr_matrix, np.ndarray] | None = None       # see `_stacked`
        if not task.constraints:                # bounds or cones alone: nothing to compile
            self.parts, self.labels, self.slices, self.m = [], [], [], 0
            self.equality = view.xp.zeros(0, dtype=bool)
            return
        names = [v.name for v in task.free]
        read = [bool(c.expr.order) or (view.xp is np and affine_in(c.expr, names)) for c in task.constraints]
        y0 = view.pack(task.x0) if any(read) else None
        # tensor and (host) scalar affine constraints as rows: 700 scalar programs compiled one each took 18 s
        self.parts = [Rows(task, c, view, y0) if r else Part(task, c, view) for c, r in zip(task.constraints, read)]
        self.labels = [c.label for c in task.constraints]
        sizes = [p.rows for p in self.parts]
        self.slices = [slice(a, a + k) for a, k in zip(np.cumsum([0] + sizes[:-1]), sizes)]
        self.equality = view.xp.asarray(np.repeat([c.kind == "==" for c in task.constraints], sizes).astype(bool))
        self.m = int(sum(sizes))
        self._affine = view.xp is np and all(p.affine for p in self.parts)     # stackable (`_stacked`)

    def values(self, y: Array) -> Array:
        if not self.parts:
            return self.xp.zeros(0)
        stacked = self._stacked()
        if stacked is not None:
            return stacked[0] @ y + stacked[1]
        return self.xp.concatenate([p.values(y).reshape(-1) for p in self.parts])

    def _stacked(self) -> tuple[sp.csr_matrix, np.ndarray] | None:
        """Every row affine and read (each part keeps its gradient and offset): (A as CSR, b)
        with c = A y + b, built once, so that the values of 2,000 constraint blocks (a
        Kalman smoother's dynamics) cost one sparse product, not a Python loop over them."""
        if self._stack is None and self._affine and all(p._linear is not None for p in self.parts):
            rows = [p.csr_rows() for p in self.parts]
            self._stack = (sp.vstack([A for A, _ in rows], format="csr"),
                           np.concatenate([np.reshape(b, -1) for _, b in rows]))
        return self._stack

    def sparse_jacobian(self, y: Array) -> tuple[np.ndarray, sp.csr_matrix] | None:
        """(c, J as CSR) where every row is affine and read (`_stacked`), else None."""
        stacked = self._stacked() if self.parts else None
        return None if stacked is None else (stacked[0] @ y + stacked[1], stacked[0])

    def values_jacobian(self, y: Array) -> tuple[Array, Array]:
        """(c, J): every value, and the gradients as the rows of J (m x n)."""
        if not self.parts:
            return self.xp.zeros(0), self.xp.zeros((0, self.view.n))
        pairs = [p.values_jacobian(y) for p in self.parts]
        return (self.xp.concatenate([c.reshape(-1) for c, _ in pairs]),
                self.xp.concatenate([J.reshape(-1, self.view.n) for _, J in pairs]))

    def hessian(self, y: Array, weights: Array) -> Array:
        """sum_j w_j H_j (n x n), zero when every weighted constraint is affine."""
        H = self.xp.zeros((self.view.n, self.view.n))
        for p, w in self._weighted(weights):
            H += p.row_hessian(y, w)
        return H

    def hvp(self, y: Array, v: Array, weights: Array) -> Array:
        out = self.xp.zeros(self.view.n)
        for p, w in self._weighted(weights):
            out += p.row_hvp(y, v, w)
        return out

    def _weighted(self, weights):
        """(part, its rows' weights) for the curved parts with a weight that is not 0."""
        host = to_host(weights)
        for p, rows in zip(self.parts, self.slices):
            w = host[rows]
            if not p.affine and bool((w != 0).any()):
                yield p, self.xp.asarray(w)

    def multipliers(self, rows: Array) -> dict:
        """Row multipliers by label: a number per scalar constraint, an array of the
        constraint's shape per tensor one."""
        host = to_host(rows)
        return {label: float(host[s][0]) if not p.shape else host[s].reshape(p.shape)
                for label, p, s in zip(self.labels, self.parts, self.slices)}

    def affine(self) -> bool:
        return all(p.affine for p in self.parts)

    def violation(self, c: Array) -> float:
        """The largest violation among the values c (inequalities above 0, equalities off 0)."""
        if not self.m:
            return 0.0
        xp = self.xp
        excess = xp.where(self.equality, xp.abs(c), xp.maximum(c, 0.0))
        return float(excess.max()) if bool(xp.isfinite(excess).all()) else math.inf


def _fresh(name: str, taken) -> str:
    while name in taken:
        name += "_"
    return name


@memoized(maxsize=4096)       # one per constraint statement: hundreds must not cycle out (LRU)
def _rows_program(expr: Expr, names: tuple[str, ...]):
    """One compiled call giving a tensor constraint's values and its derivative by each
    variable of `names`."""
    found = tc.variables(expr)
    return tc.compile([expr, *(tc.derivative(expr, found[n]) for n in names)])


def bound_violation(view: View, y: Array) -> float:
    """The largest distance of y outside the closed bounds and the cones (0 inside)."""
    xp, worst = view.xp, 0.0
    if view.box is not None and view.n:
        below = xp.maximum(view.box.lower - y, 0.0)
        above = xp.maximum(y - view.box.upper, 0.0)
        worst = max(float(below.max()), float(above.max()))
    for sign, X in view.space.matrices(y):
        low = float(xp.linalg.eigvalsh(sign * (X + X.T) / 2).min())
        worst = max(worst, -low)
    return worst



def affine_in(expr: Expr, names: Sequence[str]) -> bool:
    """Whether `expr` is affine in the variables `names` (those it does not read count as
    affine): no gradient reads one of them. (A zero symbolic Hessian would not do: relu
    and abs have one and are not affine.)"""
    found = variables(expr)
    return _affine(expr, tuple(n for n in names if n in found))


@memoized(maxsize=16384)      # a row per constraint: 500 norm rows must not cycle out (LRU)
def _affine(expr: Expr, names: tuple[str, ...]) -> bool:
    if degree(expr, names) <= 1:                  # a polynomial of degree 1 (exact): no derivative needed
        return True
    found = tc.variables(expr)
    return not any(set(tc.variables(tc.derivative(expr, found[n]))) & set(names) for n in names)
