"""Sparse KKT systems of the QP interior-point method (`constrained.qp`), factored by qdldl.

The step of `qp` solves, with K = H + D + G' W G (D, W diagonal, W > 0, changing every
iteration; H, G, E fixed),

    [[K, E'], [E, 0]] [dy; dnu] = [r; s].

Here it is solved in its quasi-definite augmented form (v = W G dy the rows' part),

    [[H + D + rho I, G',      E'     ],     [dy ]   [r]
     [G,             -W^-1,   0      ],  x  [v  ] = [0]
     [E,             0,       -delta I]]    [dnu]   [s]

by qdldl's LDL' (`qdldl.Solver`: an AMD fill-reducing ordering and the symbolic factor
computed once, `update` refactoring the same pattern with each iteration's diagonal).
A quasi-definite matrix has an LDL' factor for every symmetric ordering (Vanderbei, SIAM
J. Optim. 5, 1995), so the ordering is chosen for fill alone. rho and delta are static
regularisations (1e-9 of the data's scale) that make the matrix quasi-definite when
H + D is singular (an LP) or E has dependent rows; every solve is refined (at most
REFINE steps) against the unregularised matrix, computed from its parts, so the answer is
that of the exact system where it is nonsingular (Higham, Accuracy and Stability of
Numerical Algorithms, ch. 12); dependent consistent equality rows are harmless (their
component of dnu is the least-norm one). By Sylvester's law of inertia the augmented
matrix has n positive pivots exactly when K + E'E / delta is positive definite: with
fewer, `factor` returns None (H not positive semidefinite, as the dense path's Cholesky
reports), and the caller leaves the problem to the general method.

Why this form, measured (`benchmarks/sparse_kkt.py`, one thread; l1 trend filtering,
n = 2,000, lifted to 3,998 unknowns and 3,996 rows): the normal-equations matrix K is
banded there, but forming G' W G in SciPy costs more each iteration (about 6 ms) than
the whole refactorisation of the augmented matrix, whose pattern never changes (only its
diagonal is written); SciPy's splu of K (SuperLU, a general LU with partial pivoting and
no symmetric ordering reuse) was slower again (about 10 ms each). And a row of G with
many entries (a budget constraint) would fill K completely, but adds one row to the
augmented matrix. No sparse Cholesky (CHOLMOD) is installed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import qdldl
import scipy.sparse as sp

from solvers.numerics.linalg import Blocks

REGULARISE = 1e-9    # rho and delta, relative to the data's scale (its largest diagonal or squared row entry)
REFINE = 6           # refinement steps at most (each one solve with the factor and one product)
REFINED = 1e-14      # relative residual at which refinement stops
DENSITY = 0.05       # H, G, E are worth keeping sparse at this share of nonzeros or less
SIZE = 400           # ... in a system with at least this many unknowns and rows (below: dense LAPACK wins)
ROWS = 100           # a block-diagonal H: at least this many rows (below: `lowrank`'s Woodbury wins)


def worth(H: np.ndarray | sp.spmatrix, G: np.ndarray, E: np.ndarray) -> bool:
    """Whether the sparse path pays for a QP with these (host) matrices: a large system
    whose matrices are mostly zeros (the crossover measured by the benchmark). A sparse H
    (from `Blocks`, which `constrained.lowrank` factors in O(n m^2)) needs ROWS rows too."""
    n, rows = H.shape[0], G.shape[0] + E.shape[0]
    if n + rows < SIZE or (sp.issparse(H) and rows < ROWS):
        return False
    held = H.nnz if sp.issparse(H) else np.count_nonzero(H)
    return held + np.count_nonzero(G) + np.count_nonzero(E) <= DENSITY * (n * n + G.size + E.size)


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
    solver: object = None          # the qdldl.Solver once the first factorisation made it

    @property
    def n(self) -> int:
        return self.H.shape[0]


def pattern(H: np.ndarray | sp.spmatrix, G: np.ndarray | sp.spmatrix, E: np.ndarray | sp.spmatrix) -> Pattern:
    """The pattern for H (n x n, symmetric), G (m x n), E (p x n): built once per QP."""
    H, G, E = sp.csr_matrix(H), sp.csr_matrix(G), sp.csr_matrix(E)
    n, p = H.shape[0], E.shape[0]
    N = n + p
    first, second, row = _pairs(G)
    lo, hi = np.minimum(G.indices[first], G.indices[second]), np.maximum(G.indices[first], G.indices[second])
    parts = [sp.triu(H).tocoo(), sp.coo_matrix(E.T)]
    rows = [parts[0].row, parts[1].row, lo, np.arange(N)]
    cols = [parts[0].col, parts[1].col + n, hi, np.arange(N)]
    vals = [parts[0].data, parts[1].data, np.zeros(lo.size), np.zeros(N)]
    upper = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(N, N)).tocsc()
    upper.sum_duplicates()                    # sorted indices: (column, row) keys ascend
    col = np.repeat(np.arange(N), np.diff(upper.indptr))
    keys = col.astype(np.int64) * N + upper.indices
    at = np.searchsorted(keys, hi.astype(np.int64) * N + lo)
    gram = sp.csr_matrix((G.data[first] * G.data[second], (at, row)), shape=(upper.nnz, G.shape[0]))
    scale = max(1.0, float(np.abs(H.diagonal()).max(initial=0.0)), _row_square(G), _row_square(E))
    return Pattern(H, G, E, upper, np.nonzero(upper.indices == col)[0], gram, REGULARISE * scale)


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
    solver: object
    d: np.ndarray
    w: np.ndarray

    def solve(self, r: np.ndarray, s: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Refined on the reduced system: its residual, not the augmented one, is what
        the step needs (a row's residual counts w times in K, and w reaches 1e10 on an
        active constraint)."""
        s = np.zeros(self.pat.E.shape[0]) if s is None else s
        y, nu = self._once(r, s)
        size = max(float(np.abs(r).max(initial=0.0)), float(np.abs(s).max(initial=0.0)))
        last = np.inf
        for _ in range(REFINE):
            top, low = self.apply(y, nu)
            res_r, res_s = r - top, s - low
            worst = max(float(np.abs(res_r).max(initial=0.0)), float(np.abs(res_s).max(initial=0.0)))
            if not worst > REFINED * size or not worst < 0.5 * last:
                break
            last = worst
            dy, dnu = self._once(res_r, res_s)
            y, nu = y + dy, nu + dnu
        return y, nu

    def _once(self, r: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self.solver.solve(np.concatenate([r, s]))
        return x[:self.pat.n], x[self.pat.n:]

    def apply(self, y: np.ndarray, nu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(K y + E' nu, E y), K = H + D + G' W G, from the parts."""
        pat = self.pat
        return pat.H @ y + self.d * y + pat.G.T @ (self.w * (pat.G @ y)) + pat.E.T @ nu, pat.E @ y


def factor(pat: Pattern, d: np.ndarray, w: np.ndarray) -> KKTFactor | None:
    """The factor for K = H + diag(d) + G' diag(w) G (w > 0) with the equalities, or None
    where the matrix does not have n positive and p negative pivots (K + E'E / delta not
    positive definite), a pivot is 0, or an entry is not finite."""
    n, p = pat.n, pat.E.shape[0]
    upper = pat.upper.copy()
    upper.data += pat.gram @ w
    upper.data[pat.diagonal] += np.concatenate([d, np.full(p, -pat.delta)])
    if not np.isfinite(upper.data).all():
        return None
    try:
        if pat.solver is None:
            pat.solver = qdldl.Solver(upper, upper=True)
        else:
            pat.solver.update(upper, upper=True)
    except RuntimeError:               # qdldl's one error: a zero pivot
        pat.solver = None
        return None
    pivots = pat.solver.factors()[1]
    if not np.isfinite(pivots).all() or int((pivots > 0).sum()) != n or int((pivots < 0).sum()) != p:
        return None
    return KKTFactor(pat, pat.solver, d, w)


def nonzeros(pat: Pattern) -> tuple[int, int]:
    """(entries of the augmented matrix's upper triangle, entries of its factor L) once factored."""
    L = pat.solver.factors()[0] if pat.solver is not None else None
    return int(pat.upper.nnz), int(L.nnz) if L is not None else 0


__all__ = ["worth", "blocks_matrix", "pattern", "factor", "nonzeros", "Pattern", "KKTFactor"]
