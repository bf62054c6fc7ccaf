"""Semidefiniteness of the small Gram blocks of scalar halves.

A block is a symmetric matrix whose entries are the weights w_ab(F) of the pairs of halves
a, b (polynomials over atoms on the F letters 0..f-1). It is PSD for every F and every
admissible point when fraction-free elimination keeps it so: with a pivot p = a_kk > 0
(its interval excludes zero), A is PSD iff its Schur complement S = A' - a a^T / p is,
iff p S = p A' - a a^T is. Entries are multiplied out exactly (`tensorcalc.algebra.monomials.multiply`);
their signs come from `signs`. A constant matrix times one common weight is decided
exactly in rationals instead.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from convexcheck.signs.intervals import Interval, excludes_zero
from tensorcalc.algebra.monomials import Monomial, collect, multiply

Poly = list[Monomial]
MAX_ENTRY = 512                 # monomials an eliminated entry may reach


def rational_semidefinite(rows: list[list[Fraction]]) -> bool:
    """Whether the symmetric rational matrix is PSD, exactly: eliminate on a positive
    diagonal entry (its Schur complement is PSD iff the matrix is); without one, the rest
    must be zero."""
    m = [list(r) for r in rows]
    while m:
        i = next((k for k in range(len(m)) if m[k][k] > 0), None)
        if i is None:
            return all(v == 0 for r in m for v in r)
        p, col = m[i][i], [r[i] for r in m]
        m = [[m[r][c] - col[r] * col[c] / p for c in range(len(m)) if c != i] for r in range(len(m)) if r != i]
    return True


def symbolic_semidefinite(rows: list[list[Poly]], f: int, sign: Callable[[Poly, int], Interval]) -> bool:
    """Whether the symmetric matrix of polynomials is PSD wherever its atoms are defined
    (False when not shown)."""
    m = [[collect(e) for e in r] for r in rows]
    while len(m) > 2:
        reduced = _eliminate(m, f, sign)
        if reduced is None:
            return False
        m = reduced
    if len(m) == 1:
        return sign(m[0][0], f).nonneg
    (a, b), (_, c) = m
    det = collect([multiply(x, y, f) for x in a for y in c] +
                  [Monomial(-p.coef, p.factors) for p in (multiply(x, y, f) for x in b for y in b)])
    return sign(a, f).nonneg and sign(c, f).nonneg and sign(det, f).nonneg


def _eliminate(m: list[list[Poly]], f: int, sign) -> list[list[Poly]] | None:
    """One fraction-free step on a pivot > 0, or a zero row dropped; None when neither."""
    n = len(m)
    for z in range(n):
        if not m[z][z] and not any(m[z]):
            return [[m[i][j] for j in range(n) if j != z] for i in range(n) if i != z]
    k = next((k for k in range(n) if _positive(sign(m[k][k], f))), None)
    if k is None:
        return None
    p = m[k][k]
    out = []
    for i in range(n):
        if i == k:
            continue
        row = []
        for j in range(n):
            if j == k:
                continue
            entry = collect([multiply(x, y, f) for x in p for y in m[i][j]] +
                            [Monomial(-t.coef, t.factors) for t in
                             (multiply(x, y, f) for x in m[i][k] for y in m[k][j])])
            if len(entry) > MAX_ENTRY:
                return None
            row.append(entry)
        out.append(row)
    return out


def _positive(iv: Interval) -> bool:
    return iv.nonneg and excludes_zero(iv)
