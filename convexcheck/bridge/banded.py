"""The CVXPY bridge's rule for a large banded constant matrix times a variable, D @ x:
written as a sum of shifted slices of x, one per nonzero diagonal of D,

    D @ x = sum_k d_k .* x[k : k + m]      (d_k[i] = D[i, i + k], m rows of D),

each d_k a number where the diagonal is constant (l1 trend filtering's second difference
is x[0:n-2] - 2 x[1:n-1] + x[2:n]), else a vector of data. A 1,998 x 2,000 difference
matrix written as data is 4 million entries that every later stage reads (the sampling
guard draws a value for it at each point, the solvers read its Jacobian densely); its
three diagonals are 3 slices. The rule applies where D is constant (dense or
scipy.sparse), has at least MIN_ENTRIES entries and at most BANDS nonzero diagonals, each
inside the slice of rows it needs (0 <= k <= n - m), and x is a variable whose first axis
D contracts; other products keep the general rule (`atoms.matmul`).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from convexcheck.bridge.text import Node
from convexcheck.problem.reader import ProblemError

BANDS = 8                  # nonzero diagonals at most
MIN_ENTRIES = 10_000       # a smaller D stays one array of data (one contraction). Measured at n = 500:
                           # Hodrick-Prescott (quadratic, a sparse Hessian) 9.6 -> 1.1 ms warm as slices;
                           # a smooth non-quadratic objective of D x on Newton's dense Hessian 26 -> 50 ms
                           # warm (its first call 0.30 -> 0.19 s)


def banded(t: Any, e: Any) -> Node | None:
    """The slices' node for the CVXPY product e = D @ x (see the module docstring), or None
    where the rule does not apply (`t`: the translator, which names x and the data)."""
    a, x = e.args
    if a.variables() or a.parameters() or len(a.shape) != 2 or type(x).__name__ != "Variable" \
            or len(x.shape) not in (1, 2) or a.shape[1] != x.shape[0] or a.size < MIN_ENTRIES:
        return None
    diagonals = _diagonals(a.value, a.shape)
    if diagonals is None:
        return None
    name = t.node(x).text
    m = a.shape[0]
    rest = "".join(f", 0:{int(d)}" for d in x.shape[1:])
    terms = [_term(t, d, f"{name}[{k}:{k + m}{rest}]", len(x.shape)) for k, d in diagonals]
    return Node("(" + " + ".join(terms) + ")", tuple(e.shape))


def _diagonals(value: Any, shape: tuple[int, int]) -> list[tuple[int, np.ndarray]] | None:
    """[(k, d_k)] for D's nonzero diagonals (offsets k, in order), or None where there are
    more than BANDS, one leaves the rows' slice, or D is not finite real data."""
    coo = sp.coo_matrix(value) if sp.issparse(value) else sp.coo_matrix(np.asarray(value))
    if np.iscomplexobj(coo.data) or not np.all(np.isfinite(coo.data)):
        raise ProblemError("a constant matrix of a product is complex, NaN or infinite; convexcheck takes "
                           "finite real data")
    keep = coo.data != 0
    rows, offsets, data = coo.row[keep], (coo.col - coo.row)[keep], coo.data[keep].astype(float)
    found = np.unique(offsets)
    m, n = shape
    if not found.size or found.size > BANDS or found[0] < 0 or found[-1] > n - m:
        return None
    out = []
    for k in found:
        d = np.zeros(m)
        on = offsets == k
        np.add.at(d, rows[on], data[on])                 # a COO input may repeat an entry: summed
        out.append((int(k), d))
    return out


def _term(t: Any, d: np.ndarray, piece: str, order: int) -> str:
    """d .* piece, d a number where every entry is the same (1 written as nothing)."""
    if np.all(d == d[0]):
        return piece if d[0] == 1 else f"({t.constant(d[:1].reshape(())).text} * {piece})"
    rows = "ij" if order == 2 else "i"
    return f"({t.constant(d).text} *(i,{rows}->{rows}) {piece})"
