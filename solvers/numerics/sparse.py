"""Sparse KKT systems of the QP interior-point method (`constrained.qp`), factored by qdldl.

The step of `qp` solves, with K = H + D + G' W G (D, W diagonal, W > 0, changing every
iteration; H, G, E fixed),

    [[K, E'], [E, 0]] [dy; dnu] = [r; s].

Here H, G, E are kept as CSR (made sparse once from the dense arrays the QP is read
into), K is assembled in a pattern fixed at the start (the upper triangle of H + G'G plus
the diagonal; G' W G's entries are `gram @ w`, one sparse product, an entry per pair of
entries in a row of G), and the equalities are folded in as the quasi-definite

    [[K, E'], [E, -delta I]],   delta = 1e-9 of the data's scale,

factored by qdldl's LDL' (`qdldl.Solver`: an AMD fill-reducing ordering and the symbolic
factor computed once, `update` refactoring the same pattern every iteration). A
quasi-definite matrix has an LDL' factor for every symmetric ordering (Vanderbei, SIAM J.
Optim. 5, 1995). Every solve is refined (at most REFINE steps) on the unregularised
system, its residual computed from the parts, so the answer is the exact system's where
that is nonsingular (Higham, Accuracy and Stability of Numerical Algorithms, ch. 12);
dependent consistent equality rows are harmless. By Sylvester's law of inertia the
matrix has n positive pivots exactly when K + E'E / delta is positive definite: with
fewer, `factor` returns None (H not positive semidefinite, or K singular where E does not
pin it), as the dense path's Cholesky does, and the caller leaves the problem to the
general method.

Why this form, measured (factoring one mid-run iteration's system, best of 5, one
thread; l1 trend filtering at n = 2,000 lifted to 3,998 unknowns
and 3,996 rows; CVXPY's control example at T = 100, 1,308 unknowns, 700 rows, 816
equalities): assembling K is 0.05 ms (SciPy's G' W G product alone costs 0.73 ms, more
than qdldl's refactorisation, refined solve and inertia check together, 0.49 ms; control
0.69 ms); SciPy's splu of the same system (SuperLU, an LU with no reuse of the ordering)
2.3 and 2.9 ms. The augmented form [[H + D, G'], [G, -W^-1]] refactors in about the same
time (0.36 ms) but needs a regularisation rho on the H + D block, which is 0 on an
epigraph variable (the t of t >= |D2 x|): pivoting on rho first, its factor lost the
step's accuracy, and on trend filtering at n = 2,000 stationarity jumped from 5e-3 to
3e2 at the tenth iteration; K itself is positive definite wherever the QP path runs, so
its pivots are a Cholesky's. The price: a row of G with many entries fills K (a budget
row makes it dense); `worth` then keeps the dense path. No sparse Cholesky (CHOLMOD) is
installed. The crossover (SIZE): trend filtering at n = 100 (394 unknowns and rows) took
2.9 ms per iteration sparse against 3.3 ms on the dense elimination, at n = 200 1.7 ms
against 5.0 ms; below, LAPACK on the small dense matrix and SciPy's fixed costs favour the
dense path.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import qdldl
import scipy.sparse as sp

from solvers.numerics.linalg import Blocks, transpose

Cones = tuple[tuple[sp.csr_matrix, int], ...]     # the second-order cones' rows: (G_c, k m x n, m) per block
REGULARISE = 1e-9    # rho and delta, relative to the data's scale (its largest diagonal or squared row entry)
SHIFTS = (0.0, 1.0, 1e3, 1e6)  # K's diagonal shifted by these times delta where a pivot vanishes (an LP's K
                          # is G'WG + D alone: a coordinate only inactive rows touch has a pivot near 0)
REFINE = 6           # refinement steps at most (each one solve with the factor and one product)
REFINED = 1e-14      # relative residual at which refinement stops
DENSITY = 0.05       # H, G, E are worth keeping sparse at this share of nonzeros or less
SIZE = 400           # ... in a system with at least this many unknowns and rows (below: dense LAPACK wins)
ROWS = 100           # a block-diagonal H: at least this many rows (below: `lowrank`'s Woodbury wins)


def plan(H: np.ndarray | sp.spmatrix, G: np.ndarray, E: np.ndarray, blocks: bool = False,
         cones: Cones = ()) -> Pattern | None:
    """The pattern for a QP where the sparse path pays (`worth`), else None; H, G, E are
    made CSR once (one pass over each dense array) only for a system of SIZE or more.
    `cones`: the second-order cones' rows, (G_c as CSR, k m x n, m) per block."""
    if _small(H, G, E, blocks, cones):
        return None
    H, G, E = sp.csr_matrix(H), sp.csr_matrix(G), sp.csr_matrix(E)
    return pattern(H, G, E, cones) if worth(H, G, E, blocks, cones) else None


def _small(H: np.ndarray | sp.spmatrix, G: np.ndarray | sp.spmatrix, E: np.ndarray | sp.spmatrix,
           blocks: bool, cones: Cones) -> bool:
    """Whether the system is below SIZE, or an H from `Blocks` (`blocks`) or a diagonal
    one has fewer than ROWS rows beside it (`lowrank` and `elimination` factor those)."""
    n, rows = H.shape[0], G.shape[0] + E.shape[0] + sum(Gc.shape[0] for Gc, _ in cones)
    return n + rows < SIZE or (rows < ROWS and (blocks or _diagonal(H)))


def _diagonal(H: np.ndarray | sp.spmatrix) -> bool:
    """Whether H is a CSR diagonal matrix (a box QP's diag(d) beside the 20 rows of its
    wide square F x: `elimination`'s algebra, not the sparse path)."""
    if not sp.issparse(H):
        return False
    coo = sp.coo_matrix(H)
    return bool((coo.row == coo.col).all())


def worth(H: np.ndarray | sp.spmatrix, G: np.ndarray | sp.spmatrix, E: np.ndarray | sp.spmatrix,
          blocks: bool = False, cones: Cones = ()) -> bool:
    """Whether the sparse path pays for a QP with these (host) matrices: a large system
    whose matrices, and G'G, are mostly zeros (the crossover measured by the benchmark).
    An H from `Blocks` (`blocks`: which `constrained.lowrank` factors in O(n m^2)) or a
    diagonal one needs ROWS rows too."""
    return not _small(H, G, E, blocks, cones) and _fills_little(H, G, E, cones)


def _fills_little(H: np.ndarray | sp.spmatrix, G: np.ndarray | sp.spmatrix, E: np.ndarray | sp.spmatrix,
                  cones: Cones) -> bool:
    """Whether H, G, E and the fill of G'G and of the cones' rows hold at most DENSITY of
    the augmented system."""
    n, rows = H.shape[0], G.shape[0] + E.shape[0] + sum(Gc.shape[0] for Gc, _ in cones)
    per_row = (np.diff(sp.csr_matrix(G).indptr) if sp.issparse(G) else np.count_nonzero(G, axis=1)).astype(float)
    fill = float(per_row @ (per_row + 1)) / 2                # G'G's entries at most: a long row fills K
    for Gc, m in cones:                                      # a cone's rows fill the pairs of columns it reads
        per_cone = np.diff(Gc.indptr[::m]).astype(float)
        fill += float(per_cone @ (per_cone + 1)) / 2
    return _held(H) + _held(G) + _held(E) + fill <= DENSITY * (n * n + n * rows)


def _held(A: np.ndarray | sp.spmatrix) -> int:
    return int(A.nnz) if isinstance(A, sp.spmatrix) else int(np.count_nonzero(A))


def blocks_matrix(H: Blocks) -> sp.csr_matrix:
    """A block-diagonal Hessian (`Blocks`) as the sparse n x n matrix it stands for."""
    k, r, _ = H.blocks.shape
    index = H.split(np, np.arange(k * r))                     # each block's flat coordinates, k x r
    rows = np.repeat(index[:, :, None], r, axis=2)
    cols = np.repeat(index[:, None, :], r, axis=1)
    return sp.csr_matrix((np.asarray(H.blocks).ravel(), (rows.ravel(), cols.ravel())), shape=(k * r, k * r))


@dataclass
class Pattern:
    """The fixed parts: H, G, E as CSR; the upper triangle of [[H + G'G, E'], [E, 0]] plus a
    stored diagonal (CSC) whose values are H's and E's, with G'G's entries stored as 0; where
    its diagonal lies in `data`; `gram`, with gram @ w the data of G' diag(w) G in that
    pattern (an entry per pair of entries in a row of G); delta."""

    H: sp.csr_matrix
    G: sp.csr_matrix
    E: sp.csr_matrix
    upper: sp.csc_matrix
    diagonal: np.ndarray
    gram: sp.csr_matrix
    delta: float
    solver: qdldl.Solver | None = None          # the qdldl.Solver once the first factorisation made it
    Gt: sp.csr_matrix | None = None             # G' and E' as CSR (`linalg.transpose`), set by `pattern`
    Et: sp.csr_matrix | None = None
    cones: Cones = ()                           # the second-order cones' rows (G_c, m) per block
    cones_t: tuple[sp.csr_matrix, ...] = ()     # their G_c' as CSR (`linalg.transpose`)
    cone_gram: sp.csr_matrix | None = None      # cone_gram @ (the blocks' W^-2, flat): their G_c' W^-2 G_c

    @property
    def n(self) -> int:
        return self.H.shape[0]


def pattern(H: np.ndarray | sp.spmatrix, G: np.ndarray | sp.spmatrix, E: np.ndarray | sp.spmatrix,
            cones: Cones = ()) -> Pattern:
    """The pattern for H (n x n, symmetric), G (m x n), E (p x n) and the cones' rows
    (`plan`): built once per QP."""
    H, G, E = sp.csr_matrix(H), sp.csr_matrix(G), sp.csr_matrix(E)
    n, p = H.shape[0], E.shape[0]
    N = n + p
    first, second, row = _pairs(G)
    coned = [_cone_pairs(Gc, m) for Gc, m in cones]
    ends = [(Gc.indices[a], Gc.indices[b]) for (Gc, _), (a, b, _) in zip(cones, coned)]
    lo = np.concatenate([np.minimum(G.indices[first], G.indices[second])] + [i for i, _ in ends])
    hi = np.concatenate([np.maximum(G.indices[first], G.indices[second])] + [j for _, j in ends])
    parts = [sp.triu(H).tocoo(), sp.coo_matrix(E.T)]
    rows = [parts[0].row, parts[1].row, lo, np.arange(N)]
    cols = [parts[0].col, parts[1].col + n, hi, np.arange(N)]
    vals = [parts[0].data, parts[1].data, np.zeros(lo.size), np.zeros(N)]
    upper = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(N, N)).tocsc()
    upper.sum_duplicates()                    # sorted indices: (column, row) keys ascend
    col = np.repeat(np.arange(N), np.diff(upper.indptr))
    keys = col.astype(np.int64) * N + upper.indices
    at = np.searchsorted(keys, hi.astype(np.int64) * N + lo)
    gram = sp.csr_matrix((G.data[first] * G.data[second], (at[:first.size], row)), shape=(upper.nnz, G.shape[0]))
    scale = max(1.0, float(np.abs(H.diagonal()).max(initial=0.0)), _row_square(G), _row_square(E),
                *(_row_square(Gc) for Gc, _ in cones))
    return Pattern(H, G, E, upper, np.nonzero(upper.indices == col)[0], gram, REGULARISE * scale,
                   Gt=transpose(G), Et=transpose(E), cones=tuple(cones),
                   cones_t=tuple(transpose(Gc) for Gc, _ in cones),
                   cone_gram=_cone_gram(cones, coned, at[first.size:], upper.nnz) if cones else None)


def _cone_pairs(Gc: sp.csr_matrix, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, q): every ordered pair of stored entries a, b of one cone's m rows of Gc
    with column(a) <= column(b), as indices into Gc.data, and the flat index of their
    weight W^-2[row(a), row(b)] among the block's (k, m, m) weights."""
    row = np.repeat(np.arange(Gc.shape[0]), np.diff(Gc.indptr))
    cone = row // m
    start, end = Gc.indptr[cone * m], Gc.indptr[(cone + 1) * m]
    count = end - start
    first = np.repeat(np.arange(Gc.nnz), count)
    second = np.repeat(start, count) + np.arange(first.size) - np.repeat(np.cumsum(count) - count, count)
    keep = Gc.indices[first] <= Gc.indices[second]
    first, second = first[keep], second[keep]
    return first, second, cone[first] * m * m + (row[first] % m) * m + row[second] % m


def _cone_gram(cones: Cones, coned: list, at: np.ndarray, size: int) -> sp.csr_matrix:
    """The map from the blocks' flat W^-2 (each (k, m, m), in order) to the data of
    sum G_c' W^-2 G_c in the pattern (`at`: each pair's place in it)."""
    data, weights, offset = [], [], 0
    for (Gc, m), (a, b, q) in zip(cones, coned):
        data.append(Gc.data[a] * Gc.data[b])
        weights.append(q + offset)
        offset += Gc.shape[0] * m
    return sp.csr_matrix((np.concatenate(data), (at, np.concatenate(weights))), shape=(size, offset))


def _pairs(G: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, i): every pair of stored entries a <= b of one row i of G, as indices into G.data."""
    ends = np.repeat(G.indptr[1:], np.diff(G.indptr))            # each entry's row end
    count = ends - np.arange(G.nnz)                               # partners b >= a in its row
    first = np.repeat(np.arange(G.nnz), count)
    start = np.repeat(np.cumsum(count) - count, count)
    second = first + np.arange(first.size) - start
    row = np.repeat(np.repeat(np.arange(G.shape[0]), np.diff(G.indptr)), count)
    return first, second, row


def _row_square(A: sp.csr_matrix) -> float:
    """The largest squared norm of a row of A (0 without rows)."""
    return float(np.asarray(A.multiply(A).sum(axis=1)).max(initial=0.0))


@dataclass
class KKTFactor:
    """The factored augmented matrix for one iteration's d and w; `solve` returns
    (dy, dnu) for the right-hand sides (r, s) of the module docstring."""

    pat: Pattern
    solver: qdldl.Solver
    d: np.ndarray
    w: np.ndarray
    cone_w: tuple[np.ndarray, ...] = ()        # each block's W^-2, (k, m, m)

    def solve(self, r: np.ndarray, s: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Refined on the reduced system: its residual, not the augmented one, is what
        the step needs (a row's residual counts w times in K, and w reaches 1e10 on an
        active constraint)."""
        return refined(self._once, self.apply, r, np.zeros(self.pat.E.shape[0]) if s is None else s)

    def _once(self, r: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self.solver.solve(np.concatenate([r, s]))
        return x[:self.pat.n], x[self.pat.n:]

    def apply(self, y: np.ndarray, nu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(K y + E' nu, E y), K = H + D + G' W G, from the parts."""
        pat = self.pat
        top = pat.H @ y + self.d * y + pat.Gt @ (self.w * (pat.G @ y)) + pat.Et @ nu
        for (Gc, m), Gct, W in zip(pat.cones, pat.cones_t, self.cone_w):
            top += Gct @ np.einsum("kij,kj->ki", W, (Gc @ y).reshape(-1, m)).reshape(-1)
        return top, pat.E @ y


@dataclass
class WithRows:
    """The factor of the system whose K also holds U diag(w) U' (r dense rows of G kept out
    of the sparse pattern: a budget row sum(t) <= c would fill K), by Woodbury from the
    `KKTFactor` of the rest: r more solves per factorisation and an r x r capacitance
    matrix diag(1/w) + U' P U (P the base system's inverse on E's null space: positive
    definite). `solve` returns (dy, dnu) as `KKTFactor.solve` does."""

    base: KKTFactor
    U: np.ndarray          # n x r
    w: np.ndarray          # r
    Yt: np.ndarray         # the base's solves for the columns of U: n x r and p x r
    Yb: np.ndarray
    cap: np.ndarray        # r x r

    @classmethod
    def of(cls, base: KKTFactor, U: np.ndarray, w: np.ndarray) -> "WithRows | None":
        solves = [base.solve(U[:, j]) for j in range(U.shape[1])]
        Yt = np.stack([y for y, _ in solves], axis=1)
        Yb = np.stack([nu for _, nu in solves], axis=1)
        cap = np.diag(1.0 / w) + U.T @ Yt
        if not np.isfinite(cap).all():
            return None
        return cls(base, U, w, Yt, Yb, (cap + cap.T) / 2)

    def solve(self, r: np.ndarray, s: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Refined on the whole system, as `KKTFactor.solve` is: the Woodbury term subtracts
        large parts where a dense row is active (w ~ 1e10), and its rounding would reach the
        step (stationarity stalled at 1e-5 without)."""
        return refined(self._once, self.apply, r, np.zeros(self.Yb.shape[0]) if s is None else s)

    def apply(self, y: np.ndarray, nu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The base system's product plus U diag(w) U' y."""
        top, low = self.base.apply(y, nu)
        return top + self.U @ (self.w * (self.U.T @ y)), low

    def _once(self, r: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        y, nu = self.base.solve(r, s)
        coef = np.linalg.solve(self.cap, self.U.T @ y)
        return y - self.Yt @ coef, nu - self.Yb @ coef


Pair = tuple[np.ndarray, np.ndarray]
Augmented = KKTFactor | WithRows        # a factor of the whole KKT system: `solve(r, s)` -> (dy, dnu)
AUGMENTED = (KKTFactor, WithRows)


def refined(once: Callable[[np.ndarray, np.ndarray], Pair], apply: Callable[[np.ndarray, np.ndarray], Pair],
            r: np.ndarray, s: np.ndarray) -> Pair:
    """(y, nu) solving the system `apply` multiplies by, from the approximate solver `once`,
    with at most REFINE steps of iterative refinement (stopped at REFINED relative residual
    or where a step no longer halves it)."""
    y, nu = once(r, s)
    size = max(float(np.abs(r).max(initial=0.0)), float(np.abs(s).max(initial=0.0)))
    last = np.inf
    for _ in range(REFINE):
        top, low = apply(y, nu)
        res_r, res_s = r - top, s - low
        worst = max(float(np.abs(res_r).max(initial=0.0)), float(np.abs(res_s).max(initial=0.0)))
        if not worst > REFINED * size or not worst < 0.5 * last:
            break
        last = worst
        dy, dnu = once(res_r, res_s)
        y, nu = y + dy, nu + dnu
    return y, nu


def factor(pat: Pattern, d: np.ndarray, w: np.ndarray, cone_w: tuple[np.ndarray, ...] = ()) -> KKTFactor | None:
    """The factor for K = H + diag(d) + G' diag(w) G (w > 0) + sum G_c' W_c^-2 G_c (the
    cones' `cone_w`, each block (k, m, m)) with the equalities, or None where the matrix
    does not have n positive and p negative pivots (K + E'E / delta not positive
    definite), a pivot is 0, or an entry is not finite."""
    n, p = pat.n, pat.E.shape[0]
    upper = pat.upper.copy()
    upper.data += pat.gram @ w
    if pat.cone_gram is not None:
        upper.data += pat.cone_gram @ np.concatenate([W.reshape(-1) for W in cone_w])
    upper.data[pat.diagonal] += np.concatenate([d, np.full(p, -pat.delta)])
    if not np.isfinite(upper.data).all():
        return None
    base = upper.data[pat.diagonal[:n]].copy()
    for shift in SHIFTS:               # a static shift where K's pivots vanish (refinement undoes it)
        upper.data[pat.diagonal[:n]] = base + shift * pat.delta
        if _factored(pat, upper):
            return KKTFactor(pat, pat.solver, d, w, tuple(cone_w))
    return None


def _factored(pat: Pattern, upper: sp.csc_matrix) -> bool:
    """Whether `upper` factors with n positive and p negative pivots (into pat.solver)."""
    try:
        if pat.solver is None:
            pat.solver = qdldl.Solver(upper, upper=True)
        else:
            pat.solver.update(upper, upper=True)
    except RuntimeError:               # qdldl's one error: a zero pivot
        pat.solver = None
        return False
    pivots = pat.solver.factors()[1]
    n, p = pat.n, pat.E.shape[0]
    return bool(np.isfinite(pivots).all()) and int((pivots > 0).sum()) == n and int((pivots < 0).sum()) == p


def nonzeros(pat: Pattern) -> tuple[int, int]:
    """(entries of the augmented matrix's upper triangle, entries of its factor L) once factored."""
    L = pat.solver.factors()[0] if pat.solver is not None else None
    return int(pat.upper.nnz), int(L.nnz) if L is not None else 0


__all__ = ["plan", "worth", "blocks_matrix", "pattern", "factor", "nonzeros", "Pattern", "KKTFactor", "WithRows",
           "Augmented", "AUGMENTED"]
