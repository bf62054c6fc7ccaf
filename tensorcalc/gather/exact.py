"""Exact integer matrices: what `intlinalg` and `inequalities` accept (nested sequences or
NumPy arrays of Python ints, or Fractions where allowed) checked and converted to Python
numbers, and the object arrays they return. Never a float: a float entry is refused.

    >>> int_rows([[1, 2], [3, 4]])
    ([[1, 2], [3, 4]], 2, 2)
    >>> object_matrix([[1, 2]], 2).dtype
    dtype('O')
"""
from __future__ import annotations

import numbers
from typing import Any, Iterable, Sequence, Union

import numpy as np

Matrix = Union[np.ndarray, Sequence[Sequence[int]]]     # exact entries (ints; Fractions where allowed)
Vector = Union[np.ndarray, Sequence[int]]


def entries(A: Matrix, kind: type, what: str) -> list[list]:
    """Rows of the 2-D matrix A as lists of Python numbers of ABC `kind`; ValueError if
    A is not 2-D or holds something else."""
    arr = np.asarray(A, dtype=object)
    if arr.ndim != 2:
        raise ValueError(f"{what} must be a 2-D matrix, got an array of shape {arr.shape}; "
                         f"pass a nested list of rows, or np.zeros((0, m), dtype=int) "
                         f"for a matrix with no rows")
    for (i, j), v in np.ndenumerate(arr):
        if isinstance(v, bool) or not isinstance(v, kind):
            raise ValueError(f"{what}[{i}, {j}] = {v!r} is not {kind.__name__}; "
                             f"pass exact values (int, or Fraction where allowed), not floats")
    return [list(row) for row in arr]


def int_rows(A: Matrix, what: str = "A") -> tuple[list[list[int]], int, int]:
    """(rows as lists of Python ints, n, m) for an integer matrix A."""
    rows = [[int(v) for v in row] for row in entries(A, numbers.Integral, what)]
    shape = np.shape(np.asarray(A, dtype=object))
    return rows, shape[0], shape[1]


def int_vector(b: Vector, n: int, what: str = "b") -> list[int]:
    """b as a list of n Python ints; ValueError on a wrong length or a non-integer."""
    rows = entries(np.asarray(b, dtype=object).reshape(1, -1), numbers.Integral, what)[0]
    if len(rows) != n:
        raise ValueError(f"{what} has {len(rows)} entries but the matrix has {n} rows; "
                         f"pass one entry per row")
    return [int(v) for v in rows]


def object_matrix(rows: Sequence[Sequence], ncols: int) -> np.ndarray:
    """A 2-D object array of shape (len(rows), ncols) holding the given rows."""
    out = np.empty((len(rows), ncols), dtype=object)
    for i, row in enumerate(rows):
        out[i, :] = list(row)
    return out


def dot(row: Iterable[Any], vec: Iterable[Any]) -> Any:
    """Exact dot product of two equally long sequences (0 when empty)."""
    return sum((r * v for r, v in zip(row, vec)), 0)
