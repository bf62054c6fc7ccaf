"""Affine index access: the Gather node, its transpose (Urban & van der Smagt 2017, Alg. 4)
and its vectorised evaluation.

A gather reads x at integer-affine combinations of the output indices,

    out[b, g] = x[b, (M g + c) / den]   for g in D,   0 elsewhere,

where D is the integer points g of the output box that satisfy the `domain` rows
(a . g + a0 >= 0) and make every row's numerator divisible by its den. It is linear in
x, so its pullback is its transpose:

    dx[b, beta] = sum over g in D with (M g + c) / den = beta of dout[b, g].

`transpose` solves M g = den * beta - c over the integers (Smith normal form, section 4.1:
g = I (den beta - c) + K z), keeps the cokernel condition C (den beta - c) = 0 and the
integrality of I (...) as the new gather's guards, substitutes g into D to get the
constraints on the kernel coordinates z, and bounds z by Fourier-Motzkin elimination
(section 4.2). The result is again a gather (over beta and z), summed over z: one gather
per element of dx, no scatter, and the family is closed under transposition, so
derivatives of any order stay in it.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import numpy as np

from tensorcalc import dag
from tensorcalc.arrays import Array, ArrayModule
from tensorcalc.dag import LETTERS, Axis, Expr, Gather, Ineq, Row
from tensorcalc.errors import TensorCalcError
from tensorcalc.gather import inequalities, intlinalg
from tensorcalc.memo import memoized


def gather(x: Expr, batch: int, shape: Sequence[int], source: Sequence[int], rows: Sequence[Row],
           domain: Sequence[Ineq], axes: Sequence[Axis]) -> Expr:
    """The Gather node; `axes` are the gathered output axes (lengths `shape`)."""
    if isinstance(batch, bool) or not isinstance(batch, int) or not 0 <= batch <= dag.MAX_ORDER:
        raise TensorCalcError(f"gather: the batch order must be an integer from 0 to {dag.MAX_ORDER}, got {batch!r}")
    shape, source, axes = tuple(map(int, shape)), tuple(map(int, source)), tuple(axes)
    rows = tuple(_reduced(tuple(map(int, a)), int(c), int(d)) for a, c, d in rows)
    kept = _simplified_domain(shape, domain)
    if x.order != batch + len(source) or len(rows) != len(source) or len(axes) != len(shape):
        raise TensorCalcError(f"gather: x has order {x.order}, expected batch {batch} + {len(source)} "
                              f"gathered axes, with one index row per gathered axis")
    if any(len(a) != len(shape) or d < 1 for a, _, d in rows) or any(n < 1 for n in shape):
        raise TensorCalcError("gather: malformed index rows or an empty output axis")
    if kept is None:
        return dag.const(0.0, x.axes[:batch] + axes)
    if isinstance(x, Gather) and x.batch == batch and all(d == 1 for _, _, d in rows + x.rows):
        return _composed(x, shape, rows, kept, axes)
    if isinstance(x, dag.Sum) or (isinstance(x, dag.Elementwise) and x.fn == "neg"):
        parts = [gather(a, batch, shape, source, rows, kept, axes) for a in x.args]   # linear
        return dag.add(*parts) if len(parts) == 2 else dag.neg(parts[0])
    return dag.intern(Gather, (batch, shape, source, rows, kept), (x,), x.axes[:batch] + axes)


def _composed(inner: Gather, shape, rows, domain, axes) -> Expr:
    """gather(gather(x)) is one gather of x: s = M2 g + c2 substituted into the inner
    rows and domain (integer maps only; the domain keeps both guards)."""
    def at(a, c):                                  # a . s + c with s = M2 g + c2
        coef = tuple(sum(a[k] * rows[k][0][j] for k in range(len(rows))) for j in range(len(shape)))
        return coef, c + sum(a[k] * rows[k][1] for k in range(len(rows)))
    new_rows = [(*at(a, c), 1) for a, c, _ in inner.rows]
    new_domain = list(domain) + [at(a, c) for a, c in inner.domain]
    return gather(inner.args[0], inner.batch, shape, inner.source, new_rows, new_domain, axes)


def _reduced(a: tuple[int, ...], c: int, d: int) -> Row:
    """(a, c, d) divided by the gcd of all three (the same quotients, the same guard)."""
    g = math.gcd(*a, c, d)
    return tuple(v // g for v in a), c // g, d // g


def _simplified_domain(shape: tuple[int, ...], domain) -> tuple[Ineq, ...] | None:
    """Rows that hold on the whole box are dropped; None when one fails on all of it."""
    kept = []
    for a, c in domain:
        a, c = tuple(map(int, a)), int(c)
        low = c + sum(min(0, v * (n - 1)) for v, n in zip(a, shape))
        high = c + sum(max(0, v * (n - 1)) for v, n in zip(a, shape))
        if high < 0:
            return None
        if low < 0:
            g = math.gcd(*a)
            kept.append((tuple(v // g for v in a), math.floor(Fraction(c, g))))
    return tuple(dict.fromkeys(kept))


def box_axis(length: int, k: int) -> Axis:
    """A fresh gathered axis of a known length (kernel coordinates of a transpose)."""
    return Axis(f"~{length}", k)


# ----------------------------------------------------------------------------- evaluation

@memoized(maxsize=256)
def index_arrays(shape: tuple[int, ...], rows: tuple[Row, ...], domain: tuple[Ineq, ...]
                 ) -> tuple[tuple[np.ndarray, ...], np.ndarray | None]:
    """(indices, mask) of a gather as NumPy arrays broadcast to `shape`; mask None when
    every point of the box is in the domain. Outside the domain the index is 0."""
    grids = np.ogrid[tuple(slice(0, n) for n in shape)] if shape else []
    mask = np.ones(shape, dtype=bool)
    for a, c in domain:
        mask &= affine_values(grids, a, c) >= 0
    nums = [affine_values(grids, a, c) for a, c, _ in rows]
    for (_, _, d), num in zip(rows, nums):
        if d != 1:
            mask &= num % d == 0
    full = bool(mask.all())
    index = tuple(np.broadcast_to(np.where(mask, num // d, 0), shape).astype(np.intp)
                  for num, (_, _, d) in zip(nums, rows))
    return index, (None if full else mask)


def affine_values(grids: Sequence[np.ndarray], a: Sequence[int], c: int) -> np.ndarray:
    """a . g + c on broadcast index grids (np.ogrid), in int64."""
    value = np.asarray(c, dtype=np.int64)
    for v, g in zip(a, grids):
        if v:
            value = value + v * g
    return value


def take(xp: ArrayModule, x: Array, batch: int, shape: tuple[int, ...], rows: tuple[Row, ...],
         domain: tuple[Ineq, ...]) -> Array:
    """The gather of array x in the array module xp (NumPy, CuPy): one fancy index."""
    index, mask = _device_arrays(xp, shape, rows, domain)
    if not rows:                                   # a 0-d source broadcast over the box
        value = xp.broadcast_to(x[(...,) + (None,) * len(shape)], x.shape + tuple(shape))
    else:
        value = x[(Ellipsis,) + index]
    return value if mask is None else xp.where(mask, value, 0.0)


def _device_arrays(xp: ArrayModule, shape: tuple[int, ...], rows: tuple[Row, ...],
                   domain: tuple[Ineq, ...]) -> tuple[tuple[Array, ...], Array | None]:
    index, mask = index_arrays(shape, rows, domain)
    if xp is np:
        return index, mask
    return _on_device(xp, shape, rows, domain)


@memoized(maxsize=64)
def _on_device(xp: ArrayModule, shape: tuple[int, ...], rows: tuple[Row, ...],
               domain: tuple[Ineq, ...]) -> tuple[tuple[Array, ...], Array | None]:
    index, mask = index_arrays(shape, rows, domain)
    return tuple(xp.asarray(i) for i in index), (None if mask is None else xp.asarray(mask))


# ----------------------------------------------------------------------------- transposition

def transpose(node: Gather, pullback: Expr, q: int) -> Expr:
    """The pullback through a gather: `pullback` has axes root (q) + node.axes; returns
    the gather of it that Alg. 4 derives, axes root + node.args[0].axes."""
    x = node.args[0]
    sol = Solution.of(node)
    if sol.empty:
        return dag.const(0.0, pullback.axes[:q] + x.axes)
    zaxes = tuple(box_axis(hi - lo + 1, k) for k, (lo, hi) in enumerate(sol.zbox))
    g = gather(pullback, q + node.batch, node.source + sol.zsize, node.shape, sol.rows, sol.domain,
               x.axes[node.batch:] + zaxes)
    if not zaxes:
        return g
    keep = LETTERS[:g.order - len(zaxes)]
    zs = LETTERS[g.order - len(zaxes):g.order]
    return dag.product(g, dag.const(1.0, zaxes), (keep + zs, zs, keep))


class Solution:
    """g = (P beta + p0 + s K z) / s, the integer solutions of M g + c = den * beta, with
    the constraints on (beta, z) that keep g in the gather's domain (Alg. 4, lines 5-10)."""

    def __init__(self, node: Gather) -> None:
        self.node = node
        n_out, n_in = len(node.shape), len(node.source)
        M = np.array([list(a) for a, _, _ in node.rows], dtype=object).reshape(n_in, n_out)
        self.P, self.p0, self.s, self.K = _parametrise(M, node.rows)
        self.kappa = self.K.shape[1]
        self.cokernel = [(a + (0,) * self.kappa, c) for a, c in _cokernel_rows(M, node.rows)]
        self.ineqs = self._constraints()
        self.system = self.ineqs + box_rows(node.source, n_in + self.kappa)     # beta in its box too
        self.zbox, feasible = self._kernel_box()
        self.empty = not feasible or any(lo > hi for lo, hi in self.zbox)

    @classmethod
    def of(cls, node: Gather) -> "Solution":
        return _solution(node)

    def _g_rows(self):
        """Numerators of g over (beta, z) and their constants: g = (G @ [beta; z] + g0) / s."""
        G = np.concatenate([self.P, self.s * self.K], axis=1)
        return G, self.p0

    def _constraints(self) -> list[Ineq]:
        """Inequalities over (beta, z): the domain and the box of g, times s; the cokernel."""
        G, g0 = self._g_rows()
        rows = []
        for a, c in list(self.node.domain) + box_rows(self.node.shape, len(self.node.shape)):
            row = np.array(a, dtype=object)
            rows.append((tuple(int(v) for v in row @ G), int(row @ g0 + self.s * c)))
        return rows + self.cokernel

    def _kernel_box(self) -> tuple[list[tuple[int, int]], bool]:
        """The integer range of each z over all beta in the source box, and whether the
        system has a real solution at all (Fourier-Motzkin, each z eliminated last once;
        every elimination of all variables gives the same feasibility test)."""
        n_in, box, feasible = len(self.node.source), [], None
        b = np.array([-c for _, c in self.system], dtype=object)
        for k in range(max(self.kappa, 1)):
            order = [i for i in range(n_in + self.kappa) if i != n_in + k] + [n_in + k][:self.kappa]
            elim = _eliminated(tuple(tuple(a[i] for i in order) for a, _ in self.system))
            if feasible is None:
                feasible = not (len(elim.feasible) and any(v > 0 for v in elim.feasible @ b))
            if self.kappa:
                lo, hi = inequalities.integer_bounds(elim, b, len(order) - 1, [])
                if lo is None or hi is None:
                    raise AssertionError("a kernel coordinate of a bounded box is unbounded")
                box.append((lo, hi))
        return box, bool(feasible)                  # set in the first pass: there is one

    @property
    def zsize(self) -> tuple[int, ...]:
        return tuple(hi - lo + 1 for lo, hi in self.zbox)

    @property
    def rows(self) -> list[Row]:
        """The transposed gather's index rows over (beta, z' = z - zlo)."""
        G, g0 = self._g_rows()
        shift = self._shift()
        return [(tuple(int(v) for v in G[k]), int(g0[k] + G[k] @ shift), self.s) for k in range(G.shape[0])]

    @property
    def domain(self) -> list[Ineq]:
        shift = self._shift()
        return [(a, int(c + np.array(a, dtype=object) @ shift)) for a, c in self.ineqs]

    def _shift(self):
        n_in = len(self.node.source)
        return np.array([0] * n_in + [lo for lo, _ in self.zbox], dtype=object)


@memoized(maxsize=8192)
def _solution(node: Gather) -> Solution:
    return Solution(node)


@memoized(maxsize=1024)
def _eliminated(A: tuple[tuple[int, ...], ...]) -> inequalities.Elimination:
    """`inequalities.fourier_motzkin(A)`, kept: it depends on the coefficients alone, which
    the gathers of one slice at different offsets (x[0:4, t] for every t of a loop of
    constraints) share; only their constants differ. Read-only, as it is shared."""
    return inequalities.fourier_motzkin([list(a) for a in A])


def box_rows(lengths: Sequence[int], width: int, start: int = 0) -> list[Ineq]:
    """0 <= v[start + k] <= lengths[k] - 1 as rows over `width` coordinates."""
    rows = []
    for k, n in enumerate(lengths):
        unit = tuple(int(i == start + k) for i in range(width))
        rows += [(unit, 0), (tuple(-v for v in unit), n - 1)]
    return rows


def _parametrise(M, rows):
    """(P, p0, s, K): g = (P beta + p0) / s + K z solves M g = den beta - c, with a kernel
    basis chosen readable (`readable_kernel`) and the particular solution zero on its
    pivot coordinates where the basis allows."""
    N, s = intlinalg.pseudo_inverse(M)
    dens = np.array([d for _, _, d in rows], dtype=object)
    consts = np.array([c for _, c, _ in rows], dtype=object)
    P = N * dens[None, :] if len(rows) else N
    p0 = -(N @ consts) if len(rows) else np.zeros(M.shape[1], dtype=object)
    K, pivots = readable_kernel(intlinalg.kernel(M))
    if pivots is not None and K.shape[1]:
        P = P - K @ P[pivots, :]
        p0 = p0 - K @ p0[pivots]
    return np.asarray(P, dtype=object).reshape(M.shape[1], M.shape[0]), np.asarray(p0, dtype=object), s, K


def readable_kernel(K: np.ndarray) -> tuple[np.ndarray, list[int] | None]:
    """A basis of the same lattice in echelon form from the last coordinate backwards, so
    that each kernel coordinate is one of the original indices where it can be (the
    d-derivative of the TensorAlgDiff demo sums over k, as printed there). Returns
    (K', pivots); pivots is None when some pivot is not 1."""
    m, kappa = K.shape
    if kappa == 0:
        return K, []
    H, _ = intlinalg.hermite(np.array(K.T[:, ::-1]))
    H = H[:, ::-1]
    pivots = []
    for row in H:
        nz = [i for i in range(m) if row[i] != 0]
        pivots.append(nz[-1])
    Kr = np.array(H.T, dtype=object)
    order = np.argsort(pivots, kind="stable")
    Kr, pivots = Kr[:, order], [pivots[i] for i in order]
    if kappa == 1 and Kr[pivots[0], 0] != 1:       # a unit entry elsewhere still names an index
        units = [i for i in range(m) if abs(Kr[i, 0]) == 1]
        if units:
            Kr, pivots = Kr * Kr[units[-1], 0], [units[-1]]
    if any(Kr[p, k] != 1 for k, p in enumerate(pivots)):
        return Kr, None
    return Kr, pivots


def _cokernel_rows(M, rows) -> list[Ineq]:
    """C (den beta - c) = 0, as two inequalities per cokernel row, over (beta, z)."""
    C = intlinalg.cokernel(M)
    dens = [d for _, _, d in rows]
    consts = [c for _, c, _ in rows]
    out = []
    for crow in C:
        a = tuple(int(v * d) for v, d in zip(crow, dens))
        c0 = -int(sum(v * c for v, c in zip(crow, consts)))
        out += [(a, c0), (tuple(-v for v in a), -c0)]
    return out
