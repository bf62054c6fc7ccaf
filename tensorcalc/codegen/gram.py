"""x^T diag(d) x on NumPy arrays: the kernel both `runtime.gram` (every array module) and
`chunked` (one call per Dask chunk) run on host blocks, so neither imports the other.

    >>> import numpy as np
    >>> gram(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 4.0]), 0).tolist()
    [[37.0, 50.0], [50.0, 68.0]]
"""
from __future__ import annotations

import numpy as np


def gram(x: np.ndarray, d: np.ndarray, axis: int) -> np.ndarray:
    """x^T diag(d) x (axis 0 summed) or x diag(d) x^T (axis 1). With weights of one sign,
    as the sqrt(d)-scaled Gram matrix b^T b, which BLAS computes as a symmetric rank-k
    update (syrk) at half the cost of a general product; otherwise as one."""
    sign = 1.0 if bool((d >= 0).all()) else -1.0 if bool((d <= 0).all()) else 0.0
    if sign:
        b = x * np.sqrt(sign * d)[:, None] if axis == 0 else (x * np.sqrt(sign * d)[None, :]).T
        return b.T @ b if sign > 0 else -(b.T @ b)
    if axis == 0:
        return np.matmul(np.transpose(x * d[:, None]), x)
    return np.matmul(x * d[None, :], np.transpose(x))
