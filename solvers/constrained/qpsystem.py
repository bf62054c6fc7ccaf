"""The Newton systems of `qp`'s interior-point method: the QP's data, its iterates, and the
algebra of one step (`Method`): K = H + G'WG + D (plus the second-order cones' G_c' W^-2 G_c,
`conic`) factored densely, by blocks (`lowrank`), with diagonal coordinates eliminated
(`elimination`), or sparse with the equalities in one quasi-definite system
(`numerics.sparse`); equalities otherwise through the Schur complement of K (rank-revealing,
`schur`), of K + rho E'E where K is singular on directions only E fixes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, NamedTuple

import numpy as np
import scipy.sparse as sp

from solvers.constrained import elimination, lowrank
from solvers.constrained.conic import Conic
from solvers.constrained.definite import Definite
from solvers.constrained.interior import Interior
from solvers.constrained.schur import schur_solver
from solvers.numerics import soc, sparse
from solvers.numerics.linalg import NO_SHIFT, Blocks, Factor, shifted, transpose
from solvers.numerics.space import dense
from solvers.task.device import to_host
from tensorcalc.arrays import Array, ArrayModule


@dataclass
class Data:
    """The QP read at y0: f(y) = f0 + q'y + y'Hy/2; the stacked inequality rows as G
    (dense), the bounded coordinates L, U with their bounds; equalities E y = e."""

    H: Array
    q: Array
    f0: float
    G: Array
    h: Array
    E: Array
    e: Array
    L: Array
    lo: Array
    U: Array
    up: Array

    def hy(self, xp: ArrayModule, y: Array) -> Array:
        """H y."""
        return lowrank.times(xp, self.H, y)

    def value(self, xp: ArrayModule, y: Array, Hy: Array) -> float:
        """f(y), given Hy = H y."""
        return self.f0 + float(self.q @ y) + 0.5 * float(y @ Hy)


class Residuals(NamedTuple):
    """r_d, the inequality rows' B y + t - b, the equalities' E y - e, the cones' G y + h - sc."""

    d: Array
    b: Array
    e: Array
    cone: list[Array]


class Direction(NamedTuple):
    """A step for every part of the iterate."""

    dy: Array
    dt: Array
    dz: Array
    dnu: Array
    dsc: list[Array]
    dzc: list[Array]
    dZ: list[Array] = []          # the definite variables' duals (`definite`); never changed in place


class Schur(NamedTuple):
    """With equalities: Y = K^-1 E', r -> (E Y)^+ r (`schur.schur_solver`), and rho where
    K + rho E'E was factored instead of K (0: K itself)."""

    Y: Array
    solve: Callable[[Array], Array]
    rho: float


class Iterate:
    """y, the stacked slacks t and duals z, the equality duals nu, the second-order cones'
    slacks sc and duals zc (one (k, m) array per block, `conic`) and the definite
    variables' duals Z (one matrix each, `definite`)."""

    def __init__(self, y: Array, t: Array, z: Array, nu: Array, sc: list[Array] | None = None,
                 zc: list[Array] | None = None, Z: list[Array] | None = None):
        self.y, self.t, self.z, self.nu = y, t, z, nu
        self.sc, self.zc, self.Z = sc or [], zc or [], Z or []


class Method:
    """The algebra on one QP (see the module docstring)."""

    def __init__(self, ip: Interior, qp: Data, quasi_definite: bool = False):
        self.xp, self.soc, self.psd = ip.xp, ip.soc, Definite(ip.space)
        self.curved = bool(self.soc.count or self.psd.degree)      # cone terms in K: dense
        if self.curved and isinstance(qp.H, Blocks):     # the cones' terms fill K
            qp = replace(qp, H=dense(self.xp, qp.H))
        self.pattern, self.dense_rows = (None, None) if self.psd.degree else _sparse_pattern(
            self.xp, qp, quasi_definite, _cone_rows(self.xp, self.soc))
        if self.pattern is not None:           # H, G, E as CSR: every product then costs what they hold
            G = self.pattern.G if self.dense_rows is None else sp.csr_matrix(qp.G)
            qp = replace(qp, H=self.pattern.H, G=G, E=self.pattern.E)
        elif sp.issparse(qp.G) or sp.issparse(qp.E):     # rows read sparse, but the dense algebra pays
            qp = replace(qp, G=_dense_of(qp.G), E=_dense_of(qp.E))       # (a CSR H is read where it is used)
        self.qp = qp
        self.independent: bool | None = None      # whether E has full row rank (`_schur`)
        self.mg = qp.G.shape[0]
        self.m = self.mg + qp.L.size + qp.U.size
        self.L, self.U = _span(self.xp, qp.L), _span(self.xp, qp.U)     # the bounded coordinates
        self.b = self.xp.concatenate([qp.h, -qp.lo, qp.up])
        structured = isinstance(qp.H, Blocks) or self.pattern is not None or self.curved
        self.elim = None if structured else elimination.structure(self.xp, qp.H, qp.G)
        self.G = qp.G if self.elim is None else self.elim.G      # sparse where mostly 0
        if self.elim is not None:                                 # H y costs what H holds
            self.qp = qp = replace(qp, H=self.elim.H)
        elif self.pattern is None and sp.issparse(qp.H):          # the dense K is formed from it
            self.qp = qp = replace(qp, H=qp.H.toarray())
        if self.pattern is None and self.elim is None and self.xp is np and not isinstance(qp.H, Blocks):
            self.G = elimination.sparse_if(qp.G)            # G' W G then costs what G holds
        self.Gt, self.Et = transpose(self.G), transpose(qp.E)

    def B(self, v: Array) -> Array:
        """B v (the stacked inequality rows)."""
        return self.xp.concatenate([self.G @ v, -v[self.L], v[self.U]])

    def Bt(self, w: Array) -> Array:
        """B' w."""
        mg, nl = self.mg, self.qp.L.size
        out = self.Gt @ w[:mg]
        out[self.L] -= w[mg:mg + nl]
        out[self.U] += w[mg + nl:]
        return out

    def exact(self, y: Array, t: Array) -> Array:
        """t with the bound rows' slacks recomputed from y."""
        qp, mg, nl = self.qp, self.mg, self.qp.L.size
        t = t.copy()
        t[mg:mg + nl], t[mg + nl:] = y[self.L] - qp.lo, qp.up - y[self.U]
        return t

    def residuals(self, it: Iterate, Hy: Array) -> Residuals:
        """The dual residual, the inequality rows', the equalities' and the cones' (G y + h - sc)."""
        qp = self.qp
        rd = Hy + qp.q + self.Bt(it.z) + self.Et @ it.nu
        if self.soc.count:
            rd = rd - self.soc.dual(it.zc)
        if self.psd.degree:
            rd = rd - self.psd.dual(it.Z)
        return Residuals(rd, self.B(it.y) + it.t - self.b, qp.E @ it.y - qp.e, self.soc.primal(it.y, it.sc))

    def factor(self, it: Iterate, scal: list[soc.Scaling], inverses: list[Array] | None = None
               ) -> tuple[Factor | sparse.Augmented | None, Schur | None]:
        """The factor of K (with the cones' G' W^-2 G for their scalings `scal`, the definite
        variables' HKM terms for `inverses`, inv(M) at it.y, and it.Z) and, with
        equalities, the Schur complement's parts (`Schur`); None where K is not positive
        definite. On the sparse path, the factor of the whole KKT system (`numerics.sparse`,
        equalities included) and no Schur complement."""
        xp, qp, mg, nl = self.xp, self.qp, self.mg, self.qp.L.size
        w = it.z / it.t
        d = xp.zeros(qp.q.shape[0])
        d[self.L] += w[mg:mg + nl]
        d[self.U] += w[mg + nl:]
        fac: Factor | None
        if self.pattern is not None:
            return self._sparse(d, w[:mg], scal), None
        if isinstance(qp.H, Blocks):
            fac = lowrank.factor(xp, qp.H, d, qp.G, w[:mg])
        elif self.elim is not None and (found := elimination.factor(self.elim, w[:mg], d)) is not None:
            fac = found
        else:
            K = _dense_of(qp.H) + _gwg(self.G, w[:mg])       # elimination's H is CSR where mostly 0
            K.reshape(-1)[::K.shape[0] + 1] += d        # the diagonal, as a view of the fresh K
            self.soc.newton(scal, K)
            if self.psd.degree:
                self.psd.newton(inverses or [], it.Z, K)
            return self._dense(K, w[:mg], d)
        if fac is None or not qp.E.shape[0]:
            return fac, None
        return fac, self._schur(fac, 0.0)

    def _sparse(self, d: Array, w: Array, scal: list[soc.Scaling]) -> sparse.Augmented | None:
        """The sparse factor (the cones' W^-2 from their scalings `scal`); with dense rows
        kept out of the pattern, their Woodbury term."""
        pattern = self.pattern
        assert pattern is not None
        cone_w = tuple(s.inverse() @ s.inverse() for s in scal)
        if self.dense_rows is None:
            return sparse.factor(pattern, d, w, cone_w)
        rows, dense = self.dense_rows
        base = sparse.factor(pattern, d, w[~rows], cone_w)
        return None if base is None else sparse.WithRows.of(base, dense, w[rows])

    def _dense(self, K: Array, w: Array, d: Array) -> tuple[Factor | sparse.Augmented | None, Schur | None]:
        """K's Cholesky factor, or where it fails: with equalities and cones, that of
        K + rho E'E (the same steps: E dy = s is imposed; positive definite where K is on
        E's null space, as an optimal control's K is not on the states only E fixes);
        without cones, the quasi-definite system (`_quasi_definite`)."""
        xp, E = self.xp, self.qp.E
        fac, rho = shifted(xp, K, NO_SHIFT).factor, 0.0
        if fac is None and E.shape[0] and self.curved:
            rho = max(1.0, float(xp.abs(K.diagonal()).max(initial=0.0))) / max(1.0, float((E * E).sum(axis=1).max()))
            fac = shifted(xp, K + rho * (E.T @ E), NO_SHIFT).factor
        if fac is None and xp is np and self.elim is None and not self.curved:
            return self._quasi_definite(d, w), None
        if fac is None or not E.shape[0]:
            return fac, None
        return fac, self._schur(fac, rho)

    def _schur(self, fac: Factor, rho: float) -> Schur:
        E = self.qp.E
        if self.independent is None:             # E is fixed: its rank is checked once
            self.independent = bool(np.linalg.matrix_rank(to_host(E)) == E.shape[0])
        Y = fac.solve(E.T)
        return Schur(Y, schur_solver(self.xp, E @ Y, self.independent), rho)

    def _quasi_definite(self, d: Array, w: Array) -> sparse.KKTFactor | None:
        """The factor of the quasi-definite system (`numerics.sparse`, which shifts vanishing
        pivots and refines the shift away), kept for the iterations after: where K's dense
        Cholesky failed (an LP's K near a vertex, whose pivots vanish as the weights of the
        inactive rows go to 0), instead of restarting in `pathfollow`."""
        qp = self.qp
        H = sparse.blocks_matrix(qp.H) if isinstance(qp.H, Blocks) else qp.H
        self.pattern = sparse.pattern(H, qp.G, qp.E)
        return sparse.factor(self.pattern, d, w)

    def kkt(self, fac: Factor | sparse.Augmented, schur: Schur | None, r: Array, s: Array) -> tuple[Array, Array]:
        """(dy, dnu) with K dy + E' dnu = r, E dy = s (least squares in dnu for dependent rows)."""
        if isinstance(fac, sparse.AUGMENTED):    # the sparse path: the equalities are in the factor
            return fac.solve(r, s)
        if schur is None:
            return fac.solve(r), self.xp.zeros(s.shape[0])
        E = self.qp.E
        dy = fac.solve(r + schur.rho * (self.Et @ s) if schur.rho else r)
        dnu = schur.solve(E @ dy - s)
        return dy - schur.Y @ dnu, dnu

    def step(self, fac: Factor | sparse.Augmented, schur: Schur | None, it: Iterate, r: Residuals, rc: Array,
             scal: list[soc.Scaling], rz: list[Array], definite: tuple[list[Array], list[Array]] = ([], [])
             ) -> Direction:
        """The step for the residuals r, the complementarity target rc (t z - its target),
        the cones' rz (lam o lam - their target) and, for the definite variables,
        `definite` = (their R, inv(M) at it.y) (`definite.Definite`)."""
        z, t = it.z, it.t
        R, inverses = definite
        rhs = -r.d - self.Bt((z * r.b - rc) / t)
        if self.soc.count:
            rhs = rhs - self.soc.rhs(scal, r.cone, rz)
        if self.psd.degree:
            rhs = rhs - self.psd.rhs(R)
        dy, dnu = self.kkt(fac, schur, rhs, -r.e)
        dt = -r.b - self.B(dy)
        dz = (-rc - z * dt) / t
        dsc, dzc = self.soc.steps(scal, dy, r.cone, rz) if self.soc.count else ([], [])
        dZ = self.psd.steps(inverses, dy, it.Z, R) if self.psd.degree else []
        return Direction(dy, dt, dz, dnu, dsc, dzc, dZ)


DENSE_ROWS = 8       # at most this many rows of G, each reading over DENSE_SHARE of the unknowns (and
DENSE_SHARE = 0.1    # DENSE_MIN at least), kept out of the sparse pattern and added by Woodbury
DENSE_MIN = 64


def _cone_rows(xp: ArrayModule, cones: Conic) -> sparse.Cones:
    """The second-order cones' rows for the sparse pattern: (G_c as CSR, k m x n, m) per
    block (none off the host)."""
    if xp is not np:
        return ()
    return tuple((sp.csr_matrix(b.G.reshape(-1, b.G.shape[2])), int(b.G.shape[1])) for b in cones.blocks)


def _sparse_pattern(xp: ArrayModule, qp: Data, quasi_definite: bool = False, cones: sparse.Cones = ()
                    ) -> tuple[sparse.Pattern | None, tuple[np.ndarray, np.ndarray] | None]:
    """(the sparse KKT pattern, None) where H, G, E are host matrices worth keeping sparse
    (`sparse.plan`), or, with `quasi_definite`, at any size (see `_method`); where only a
    few dense rows of G (a budget) keep the rest from being worth it, the pattern of the rest
    and (which rows, those rows dense as U = G_d': n x r); else (None, None)."""
    if xp is not np:
        return None, None
    H = sparse.blocks_matrix(qp.H) if isinstance(qp.H, Blocks) else qp.H
    if quasi_definite:
        return sparse.pattern(H, qp.G, qp.E, cones), None
    found = sparse.plan(H, qp.G, qp.E, isinstance(qp.H, Blocks), cones)
    if found is not None or not qp.G.shape[0]:
        return found, None
    per_row = np.asarray((qp.G != 0).sum(axis=1)).reshape(-1)
    rows = per_row > max(DENSE_MIN, DENSE_SHARE * qp.G.shape[1])
    if not rows.any() or rows.sum() > DENSE_ROWS or rows.all():
        return None, None
    found = sparse.plan(H, qp.G[~rows], qp.E, isinstance(qp.H, Blocks), cones)
    if found is None:
        return None, None
    dense_rows = qp.G[rows]
    return found, (rows, np.asarray(dense_rows.toarray() if sp.issparse(dense_rows) else dense_rows).T)


def _gwg(G: Array, w: Array) -> Array:
    """G' diag(w) G, dense, for G dense or CSR."""
    if sp.issparse(G):
        return (G.T @ sp.diags(w) @ G).toarray()
    rows = w[:, None] * G                 # one row: G' W G is an outer product, one multiply
    return G.T * rows if G.shape[0] == 1 else G.T @ rows      # per entry as in matmul


def _span(xp: ArrayModule, index: Array) -> slice | Array:
    """`index` (increasing coordinates) as a slice where it is a run of consecutive ones
    (every coordinate bounded below, say): the same entries, read and written as views
    instead of gathered and scattered; else `index` itself."""
    n = int(index.size)
    if n == 0:
        return slice(0, 0)
    first = int(index[0])
    if int(index[-1]) - first + 1 == n and (n == 1 or bool((xp.diff(index) == 1).all())):
        return slice(first, first + n)
    return index


def _dense_of(A: Array) -> Array:
    return A.toarray() if sp.issparse(A) else A
