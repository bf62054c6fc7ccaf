"""QP Newton matrices with coordinates that only a diagonal touches, eliminated.

In `qp` the Newton matrix is K = H + G' W G + D (W, D diagonal and changing every
iteration; H, G fixed). Let S be the coordinates j on which H is diagonal (H[j, k] = 0
for k != j) and of which every row of G touches at most one. Ordered y = (R, S),

    K = [[K_RR, K_RS], [K_RS', diag(k_S)]],

and K^-1 comes from the Schur complement K_RR - K_RS diag(1 / k_S) K_RS' (|R| x |R|) and
diagonal solves. The epigraph variables of a lifted lasso, hinge loss or L1 fit
(`epigraph`: one per entry, each in its own rows) are such coordinates: their system is
the size of the original variables, not twice it or more. G is kept sparse (CSR) where
most of its entries are 0 (a lifted lasso's rows have two), so forming K costs what G
holds (dense below BIG entries, where that is cheaper). Every solve is refined once from
K's parts, as `lowrank` does: the Schur complement subtracts large terms on active
constraints and its rounding would otherwise reach the step (Higham, Accuracy and
Stability of Numerical Algorithms, ch. 12).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from solvers.numerics.linalg import Cholesky, barrier_shifts, shifted, transpose
from tensorcalc.arrays import Array, ArrayModule

SPARSE = 0.05          # G kept sparse below this density, when it has more than BIG entries
BIG = 50_000           # (below, SciPy's sparse bookkeeping costs more than dense products)
WORTH = 0.1            # eliminate only when S holds at least this share of the coordinates
ROUNDING = 1e-13       # relative size of the shift that covers the Schur complement's rounding


@dataclass
class Structure:
    """The fixed parts: index sets R, S; H on R x R and its diagonal on S; G's columns R
    (sparse or dense) and each row's one entry in S (position in S, value; -1, 0: none)."""

    R: np.ndarray
    S: np.ndarray
    H_RR: np.ndarray
    h_S: np.ndarray
    G: Array
    GR: Array
    s_col: np.ndarray
    s_val: np.ndarray
    H: Array             # the whole H, sparse where mostly 0 (a lifted least squares': diagonal)
    Gt: Array            # G' (`linalg.transpose`)


def structure(xp: ArrayModule, H: Array, G: Array) -> Structure | None:
    """The elimination's structure for H (dense, or CSR as `qp.read` may give it) and rows
    G (host arrays), or None when too few coordinates qualify."""
    if xp is not np or not (isinstance(H, np.ndarray) or sp.issparse(H)) or H.ndim != 2:
        return None
    n, diag = H.shape[0], np.asarray(H.diagonal())
    per = np.diff(sp.csc_matrix(H).indptr) if sp.issparse(H) else np.count_nonzero(H, axis=0)
    candidate = per == (diag != 0)       # no entry off the diagonal (H symmetric)
    touched = G[:, candidate] != 0
    while touched.size:                   # rows touching two candidates: drop the densest first
        clash = touched.sum(axis=1) > 1
        if not clash.any():
            break
        counts = touched[clash].sum(axis=0)  # a weight or an intercept is in every row, t_i in two
        drop = counts >= max(1, int(counts.max()) // 2)
        candidate[np.nonzero(candidate)[0][drop]] = False
        touched = G[:, candidate] != 0
    S, R = np.nonzero(candidate)[0], np.nonzero(~candidate)[0]
    if S.size < max(1, WORTH * n):
        return None
    rows = np.arange(G.shape[0])
    has = touched.any(axis=1) if touched.size else np.zeros(G.shape[0], bool)
    s_col = np.where(has, touched.argmax(axis=1) if touched.size else 0, -1)
    s_val = np.where(has, G[rows, S[np.maximum(s_col, 0)]] if S.size else 0.0, 0.0)
    H_RR = sp.csr_matrix(H)[R][:, R].toarray() if sp.issparse(H) else H[np.ix_(R, R)]
    GR, Gs = sparse_if(G[:, R]), sparse_if(G)
    return Structure(R, S, H_RR, diag[S].copy(), Gs, GR, s_col, s_val, _whole(H, H_RR, R, S), transpose(Gs))


def _whole(H: Array, H_RR: np.ndarray, R: np.ndarray, S: np.ndarray) -> Array:
    """H as CSR when large and mostly 0, built from its parts on R x R and S (no pass over
    the dense n x n array: a lifted least squares' 2,020 x 2,020 H is diagonal), else H;
    a CSR H as it came."""
    if sp.issparse(H):
        return sp.csr_matrix(H)
    held = np.count_nonzero(H_RR) + S.size
    if H.size <= BIG or held >= SPARSE * H.size:
        return H
    i, j = np.nonzero(H_RR)
    rows, cols = np.concatenate([R[i], S]), np.concatenate([R[j], S])
    return sp.csr_matrix((np.concatenate([H_RR[i, j], np.diagonal(H)[S]]), (rows, cols)), shape=H.shape)


@dataclass
class EliminationFactor:
    """K^-1 by the Schur complement on R and diagonal solves on S, refined once (a
    `numerics.linalg.Factor`, solving vectors and the columns of matrices)."""

    st: Structure
    L: Cholesky | None   # the factor of the Schur complement, None when R is empty
    K_RS: Array          # sparse or dense, |R| x |S|
    k_S: np.ndarray
    w: np.ndarray        # the rows' weights
    d: np.ndarray        # the diagonal D

    def solve(self, rhs: Array) -> Array:
        x = self._once(rhs)
        return x + self._once(rhs - self.apply(x))

    def apply(self, x: Array) -> Array:
        """K x from its parts."""
        G = self.st.G
        Gx = G @ x
        Gx = self.w[:, None] * Gx if Gx.ndim == 2 else self.w * Gx
        dx = self.d[:, None] * x if x.ndim == 2 else self.d * x
        return self.st.H @ x + self.st.Gt @ Gx + dx

    def _once(self, rhs: Array) -> Array:
        st = self.st
        b = rhs.reshape(rhs.shape[0], -1)
        bR, bS = b[st.R], b[st.S] / self.k_S[:, None]
        xR = self.L.solve(bR - _dense(self.K_RS @ bS)) if self.L is not None else bR
        x = np.empty_like(b)
        x[st.R] = xR
        x[st.S] = bS - _dense(self.K_RS.T @ xR) / self.k_S[:, None]
        return x.reshape(rhs.shape)


def factor(st: Structure, w: np.ndarray, d: np.ndarray) -> EliminationFactor | None:
    """The factor of K = H + G' diag(w) G + diag(d), or None where K is not positive
    definite."""
    valid = st.s_col >= 0
    k_S = st.h_S + d[st.S] + np.bincount(st.s_col[valid], weights=(w * st.s_val ** 2)[valid],
                                         minlength=st.S.size)
    if not (k_S > 0).all() or not np.isfinite(k_S).all():
        return None
    rows = np.nonzero(valid)[0]
    if sp.issparse(st.GR):
        M = sp.csr_matrix(((w * st.s_val)[valid], (rows, st.s_col[valid])), shape=(w.size, st.S.size))
        K_RS, K_RR = st.GR.T @ M, st.H_RR + (st.GR.T @ sp.diags(w) @ st.GR).toarray()
    else:
        M = np.zeros((w.size, st.S.size))
        M[rows, st.s_col[valid]] = (w * st.s_val)[valid]
        K_RS, K_RR = st.GR.T @ M, st.H_RR + st.GR.T @ (w[:, None] * st.GR)
    K_RR[np.diag_indices(st.R.size)] += d[st.R]
    scaled = K_RS.multiply(1.0 / k_S[None, :]) if sp.issparse(K_RS) else K_RS / k_S[None, :]
    if not st.R.size:
        return EliminationFactor(st, None, K_RS, k_S, w, d)
    schur = K_RR - _dense(scaled @ K_RS.T)
    # the subtraction rounds at about eps * |K_RR|: a shift of that size (the rounding's,
    # which the refinement then removes) where the rounding left it not positive definite
    scale = float(np.abs(np.diagonal(K_RR)).max(initial=1.0))
    L = shifted(np, (schur + schur.T) / 2, barrier_shifts(ROUNDING * scale, ROUNDING * scale)).factor
    return None if L is None else EliminationFactor(st, L, K_RS, k_S, w, d)


def sparse_if(a: np.ndarray) -> Array:
    """`a` as CSR when large and mostly 0, else as it is."""
    return sp.csr_matrix(a) if a.size > BIG and np.count_nonzero(a) < SPARSE * a.size else a


def _dense(a: Array) -> np.ndarray:
    return a.toarray() if sp.issparse(a) else np.asarray(a)


__all__ = ["structure", "factor", "sparse_if", "EliminationFactor", "Structure"]
