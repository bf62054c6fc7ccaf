"""Exact integer linear algebra: Smith normal form and the integer solutions of A x = b
(Fourier-Motzkin elimination of A x >= b is `tensorcalc.gather.inequalities`).

Follows section 4 of S. Urban & P. van der Smagt, "Automatic Differentiation for Tensor
Algebras" (2017):

* Alg. 2 (extended Euclid) -> `ext_gcd`, generalised to any signs and zeros;
* Alg. 1 (Smith normal form) -> `smith`, and from it (sec. 4.1) `pseudo_inverse`,
  `kernel`, `cokernel` and `solve`; `hermite` gives a row echelon (Hermite) form;
* Alg. 3 (Fourier-Motzkin, sec. 4.2) is in `tensorcalc.gather.inequalities`.

All arithmetic is exact: Python ints and `fractions.Fraction`, never floats, so there is
no overflow. Matrices may be given as nested sequences or NumPy arrays; every matrix
returned is a 2-D NumPy array of dtype=object holding Python ints, with the right shape
even when a dimension is 0. Vectors are
1-D object arrays. Variables are indexed from 0 here (x_0 .. x_{m-1}), where the paper
counts from 1.

>>> smith([[2, 4], [6, 8]]).S.tolist()
[[2, 0], [0, 4]]
>>> x0, K = solve([[1, -2]], [3]); (x0.tolist(), K.T.tolist())
([3, 0], [[2, 1]])
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tensorcalc.gather.exact import Matrix, Vector, dot, int_rows, int_vector, object_matrix

__all__ = ["ext_gcd", "Smith", "smith", "pseudo_inverse", "kernel", "cokernel", "solve", "hermite"]


def _identity(n: int) -> list[list[int]]:
    return [[int(i == j) for j in range(n)] for i in range(n)]


# ---------------------------------------------------------------- Euclid, Alg. 2

def ext_gcd(a: int, b: int) -> tuple[int, int, int]:
    """(g, s, t) with g = gcd(a, b) >= 0 and g == s*a + t*b, for any ints (Alg. 2 run on
    |a|, |b|, signs restored afterwards). ext_gcd(0, b) has s == 0; ext_gcd(0, 0) == (0, 1, 0).

    >>> ext_gcd(240, -46)
    (2, -9, -47)
    """
    a, b = int(a), int(b)
    r0, r1, s0, s1, t0, t1 = abs(a), abs(b), 1, 0, 0, 1
    while r1 != 0:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        s0, s1 = s1, s0 - q * s1
        t0, t1 = t1, t0 - q * t1
    return r0, (s0 if a >= 0 else -s0), (t0 if b >= 0 else -t0)


# ---------------------------------------------------------------- elementary operations

def _row_op(M, i: int, j: int, s: int, t: int, u: int, v: int) -> None:
    """Rows (i, j) of M <- (s M_i + t M_j, u M_i + v M_j), in place."""
    ri, rj = M[i], M[j]
    M[i] = [s * x + t * y for x, y in zip(ri, rj)]
    M[j] = [u * x + v * y for x, y in zip(ri, rj)]


def _col_op(M, i: int, j: int, s: int, t: int, u: int, v: int) -> None:
    """Columns (i, j) of M <- (s M_.i + t M_.j, u M_.i + v M_.j), in place."""
    for row in M:
        row[i], row[j] = s * row[i] + t * row[j], u * row[i] + v * row[j]


def _clearing_op(p: int, q: int) -> tuple[int, int, int, int]:
    """Coefficients of a unimodular 2x2 operation sending (p, q) to (g, 0), p != 0:
    plain subtraction when p | q (Alg. 1 steps 15-17), Bezout otherwise (steps 10-13)."""
    if q % p == 0:
        return 1, 0, -(q // p), 1
    g, s, t = ext_gcd(p, q)
    return s, t, -(q // g), p // g


# ---------------------------------------------------------------- Smith normal form, Alg. 1

class Smith(NamedTuple):
    """S = U @ A @ V with U, V unimodular and S = diag(s_1 | s_2 | ... | s_rank, 0, ...)."""
    S: np.ndarray
    U: np.ndarray
    V: np.ndarray
    rank: int


def _pick_pivot(S, a: int):
    """(i, j) of the pivot for active position a: S_aa itself when non-zero, else the
    non-zero entry of S[a:, a:] smallest in absolute value; None when that block is 0."""
    if S[a][a] != 0:
        return a, a
    cells = [(abs(S[i][j]), i, j) for i in range(a, len(S))
             for j in range(a, len(S[0])) if S[i][j] != 0]
    return min(cells)[1:] if cells else None


def _clear_cross(S, U, V, a: int) -> None:
    """Zero column a below and row a right of the non-zero pivot S_aa (Alg. 1 steps
    9-27), applying row operations to U and column operations to V."""
    n, m = len(S), len(S[0])
    while True:
        for i in range(a + 1, n):
            if S[i][a] != 0:
                op = _clearing_op(S[a][a], S[i][a])
                _row_op(S, a, i, *op)
                _row_op(U, a, i, *op)
        for j in range(a + 1, m):
            if S[a][j] != 0:
                op = _clearing_op(S[a][a], S[a][j])
                _col_op(S, a, j, *op)
                _col_op(V, a, j, *op)
        if all(S[i][a] == 0 for i in range(a + 1, n)):
            return


def _diagonalise(S, U, V, a: int) -> int:
    """Diagonalise S from active index a on (Alg. 1 steps 4-28); returns the rank."""
    while a < min(len(S), len(V)):
        pivot = _pick_pivot(S, a)
        if pivot is None:
            break
        i, j = pivot
        S[a], S[i] = S[i], S[a]
        U[a], U[i] = U[i], U[a]
        if j != a:
            _col_op(S, a, j, 0, 1, 1, 0)
            _col_op(V, a, j, 0, 1, 1, 0)
        _clear_cross(S, U, V, a)
        a += 1
    return a


def _fix_diagonal(S, V, rank: int):
    """Make s_1..s_rank positive; where s_a does not divide s_a+1, add column a+1 to
    column a and return a, to re-diagonalise from there (Alg. 1 steps 30-37); else None."""
    for a in range(rank):
        if S[a][a] < 0:
            for row in S + V:
                row[a] = -row[a]
    for a in range(rank - 1):
        if S[a + 1][a + 1] % S[a][a] != 0:
            _col_op(S, a, a + 1, 1, 1, 0, 1)
            _col_op(V, a, a + 1, 1, 1, 0, 1)
            return a
    return None


def smith(A: Matrix) -> Smith:
    """Smith normal form of the integer n x m matrix A (Alg. 1): S = U A V with U (n x n)
    and V (m x m) unimodular, S diagonal with s_1 | s_2 | ... | s_rank all positive,
    followed by zeros. Works for the zero matrix and for 0 x m and n x 0 shapes."""
    S, n, m = int_rows(A)
    U, V = _identity(n), _identity(m)
    if n == 0 or m == 0:
        return Smith(object_matrix(S, m), object_matrix(U, n), object_matrix(V, m), 0)
    restart = 0
    while restart is not None:
        rank = _diagonalise(S, U, V, restart)
        restart = _fix_diagonal(S, V, rank)
    return Smith(object_matrix(S, m), object_matrix(U, n), object_matrix(V, m), rank)


# ---------------------------------------------------------------- integer equations, sec. 4.1

def pseudo_inverse(A: Matrix) -> tuple[np.ndarray, int]:
    """(N, den): the pseudo-inverse I = V S^+ U of eq. (18) as N / den, with N an integer
    m x n matrix and den = s_rank > 0 (1 for rank 0). A @ I @ A == A exactly."""
    S, U, V, rank = smith(A)
    den = int(S[rank - 1, rank - 1]) if rank else 1
    n, m = U.shape[0], V.shape[0]
    N = [[sum((V[r, i] * (den // S[i, i]) * U[i, c] for i in range(rank)), 0)
          for c in range(n)] for r in range(m)]
    return object_matrix(N, n), den


def kernel(A: Matrix) -> np.ndarray:
    """m x (m - rank) integer basis of {x in Z^m : A x = 0}: the last columns of V.
    Every integer solution of A x = 0 is an integer combination of its columns."""
    _, _, V, rank = smith(A)
    return V[:, rank:]


def cokernel(A: Matrix) -> np.ndarray:
    """(n - rank) x n integer matrix C (rows rank.. of U) with C @ A == 0; A x = b is
    solvable over the rationals iff C @ b == 0 (eq. 16)."""
    _, U, _, rank = smith(A)
    return U[rank:, :]


def solve(A: Matrix, b: Vector) -> tuple[np.ndarray | None, np.ndarray]:
    """(x0, K): an integer x0 with A @ x0 == b (None when there is none: C b != 0 or
    I b not integral) and the kernel K; the integer solutions are exactly x0 + K z."""
    S, U, V, rank = smith(A)
    n, m = U.shape[0], V.shape[0]
    y = [dot(U[i, :], int_vector(b, n)) for i in range(n)]
    solvable = all(y[i] == 0 for i in range(rank, n)) and \
        all(y[i] % S[i, i] == 0 for i in range(rank))
    if not solvable:
        return None, V[:, rank:]
    xp = [y[i] // S[i, i] for i in range(rank)]
    x0 = np.array([dot(V[r, :rank], xp) for r in range(m)], dtype=object)
    return x0, V[:, rank:]


# ---------------------------------------------------------------- Hermite normal form

def _gather_pivot(H, W, r: int, c: int) -> bool:
    """Make H_rc = gcd of column c from row r down (positive), zero below it, by
    unimodular row operations also applied to W; False when that column part is 0."""
    for i in range(r + 1, len(H)):
        if H[i][c] != 0:
            op = _clearing_op(H[r][c], H[i][c]) if H[r][c] != 0 else (0, 1, 1, 0)
            _row_op(H, r, i, *op)
            _row_op(W, r, i, *op)
    if H[r][c] < 0:
        H[r], W[r] = [-v for v in H[r]], [-v for v in W[r]]
    return H[r][c] != 0


def hermite(A: Matrix) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) with H = W @ A, W unimodular and H in row echelon (Hermite) form: each
    pivot is positive and lies right of the previous one, zero rows are at the bottom,
    and the entries above a pivot p are reduced to 0 <= h < p."""
    H, n, m = int_rows(A)
    W = _identity(n)
    r = 0
    for c in range(m):
        if r == n:
            break
        if _gather_pivot(H, W, r, c):
            for i in range(r):
                q = H[i][c] // H[r][c]
                _row_op(H, i, r, 1, -q, 0, 1)
                _row_op(W, i, r, 1, -q, 0, 1)
            r += 1
    return object_matrix(H, m), object_matrix(W, n)
