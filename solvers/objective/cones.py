"""The second-order cones of a task (`records.SecondOrder`) read as numbers: affine maps
s = G y + h of the `View`'s coordinates y, s = (t, u) per cone, the scalar first.

Cones of one dimension m are stacked into one `Block` (G as (k, m, n), h as (k, m)),
whatever record they came from: the interior-point method then treats all of them with
array operations (`solvers.numerics.soc`). Each map is read once, exactly, as u and t are
affine: the value at y = 0 and the symbolic derivative of u and t in each free variable,
evaluated (`tensorcalc.evaluate`). `Source` remembers where each record's cones sit, so
that multipliers and violations are reported per record.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import tensorcalc as tc
from solvers.numerics.space import View
from solvers.objective import affine
from solvers.protocol import Array
from solvers.task.prepare import Task, variables
from solvers.task.records import SecondOrder
from tensorcalc import Expr, dag
from tensorcalc.dag import Var
from tensorcalc.memo import memoized


@dataclass
class Block:
    """k cones of dimension m: s = G y + h, G (k, m, n), h (k, m)."""

    G: Array
    h: Array

    @property
    def k(self) -> int:
        return int(self.G.shape[0])

    def times(self, v: Array) -> Array:
        """G v, (k, m): one matrix-vector product over the stacked rows."""
        k, m, n = self.G.shape
        return (self.G.reshape(k * m, n) @ v).reshape(k, m)

    def values(self, y: Array) -> Array:
        """s at y, (k, m)."""
        return self.times(y) + self.h


@dataclass(frozen=True)
class Source:
    """Where one record's cones sit: block `block`, rows start:stop; `shape` the shape of
    its t (the cones' index)."""

    record: SecondOrder
    block: int
    start: int
    stop: int
    shape: tuple[int, ...]


class Cones:
    """Every second-order cone of `task` in the coordinates of `view`."""

    def __init__(self, task: Task, view: View):
        self.view, self.xp = view, view.xp
        by_size: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        rows: dict[int, int] = {}                      # cones stacked so far per size
        where: list[tuple[SecondOrder, int, int, tuple[int, ...]]] = []
        for rec in task.cones:
            G, h, shape = _read(task, view, rec)
            m = G.shape[1]
            where.append((rec, m, rows.get(m, 0), shape))
            rows[m] = rows.get(m, 0) + G.shape[0]
            by_size.setdefault(m, []).append((G, h))
        sizes = list(by_size)
        self.blocks = [Block(view.xp.asarray(np.concatenate([g for g, _ in by_size[m]])),
                             view.xp.asarray(np.concatenate([h for _, h in by_size[m]]))) for m in sizes]
        self.sources = [Source(rec, sizes.index(m), start, start + math.prod(shape), shape)
                        for rec, m, start, shape in where]

    def __len__(self) -> int:
        return len(self.blocks)

    def values(self, y: Array) -> list[Array]:
        """s = G y + h of every block."""
        return [b.values(y) for b in self.blocks]

    def violation(self, y: Array) -> float:
        """The largest ||u|| - t over every cone at y (0 inside)."""
        xp, worst = self.xp, 0.0
        for s in self.values(y):
            if s.size:
                worst = max(worst, float(xp.max(xp.sqrt(xp.sum(s[:, 1:] ** 2, axis=1)) - s[:, 0])))
        return worst

    def multipliers(self, zs: list[Array]) -> dict:
        """The t part of the duals of the cones that stand for a constraint, by its label:
        a number for a scalar constraint, an array of its shape for a tensor one (the
        multiplier of norm(U) - g <= 0 at a KKT point)."""
        out: dict = {}
        for src in self.sources:
            if src.record.label is None:
                continue
            z = np.asarray(zs[src.block][src.start:src.stop, 0])
            out[src.record.label] = float(z[0]) if not src.shape else z.reshape(src.shape)
        return out


def _read(task: Task, view: View, rec: SecondOrder) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """(G (k, m, n), h (k, m), t's shape) of one record, in y coordinates (NumPy)."""
    obj = view.obj
    u_val, u_jac = _affine(rec.u, task)
    t_val, t_jac = _affine(rec.t, task)
    shape = tuple(t_val.shape)
    k = math.prod(shape)
    u_val = u_val.transpose(rec.perm).reshape(k, -1)
    perm = rec.perm + tuple(range(len(rec.perm), u_jac.ndim))
    u_jac = u_jac.transpose(perm).reshape(k, u_val.shape[1], obj.n)
    h = np.concatenate([t_val.reshape(k, 1), u_val], axis=1)
    G = np.concatenate([t_jac.reshape(k, 1, obj.n), u_jac], axis=1)
    if rec.extra is not None:
        e_val, e_jac = _affine(rec.extra, task)
        h = np.concatenate([h, e_val.reshape(k, 1)], axis=1)
        G = np.concatenate([G, e_jac.reshape(k, 1, obj.n)], axis=1)
    space = view.space
    if not space.identity:
        G = G[:, :, space.up] + space.twin * G[:, :, space.down]
    return G, h, shape


def _affine(expr: Expr, task: Task) -> tuple[np.ndarray, np.ndarray]:
    """(expr at z = 0, its Jacobian: expr's axes then z's entries) of an affine expr: read
    by `affine.read`, or where it cannot, from the symbolic derivatives evaluated."""
    offsets = np.cumsum([0] + [v.size for v in task.free])
    free = {v.name: (int(o), v.shape) for v, o in zip(task.free, offsets)}
    found = affine.read(expr, free, task.fixed, int(offsets[-1]))
    if found is not None:
        return found
    zeros = {v.name: np.zeros(v.shape) for v in task.free}       # every free variable: a derivative carries its axes
    values = {**_data(expr, task), **zeros}
    value = np.asarray(tc.evaluate(expr, values), dtype=float)
    jac = np.zeros(value.shape + (sum(v.size for v in task.free),))
    offset = 0
    present = variables(expr)
    for v in task.free:
        if v.name in present:
            d = np.asarray(tc.evaluate(_derivative(expr, v.name), values), dtype=float)
            jac[..., offset:offset + v.size] = np.broadcast_to(d, value.shape + v.shape).reshape(value.shape + (-1,))
        offset += v.size
    return value, jac


def _data(expr: Expr, task: Task) -> dict:
    """The fixed arrays expr and its derivatives read or take an axis length from (only
    those: evaluate checks every array it is given)."""
    names = _names(expr, tuple(v.name for v in task.free if v.name in variables(expr)))
    return {n: task.fixed[n] for n in names if n in task.fixed}


@memoized(maxsize=1024)
def _names(expr: Expr, free: tuple[str, ...]) -> frozenset:
    nodes = dag.topo(expr, *(_derivative(expr, n) for n in free))
    return frozenset(a.var for node in nodes for a in node.axes) | frozenset(
        node.name for node in nodes if isinstance(node, Var))


@memoized(maxsize=1024)
def _derivative(expr: Expr, name: str) -> Expr:
    return tc.derivative(expr, tc.variables(expr)[name])
