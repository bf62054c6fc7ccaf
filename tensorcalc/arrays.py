"""Which library an array belongs to: NumPy, CuPy or Dask, told by its type's module.

No library is imported to ask: a value is a Dask array only if Dask made it.

    >>> import numpy as np
    >>> library(np.ones(2)), is_dask(np.ones(2)), is_cupy(1.0)
    ('numpy', False, False)
"""
from __future__ import annotations

from typing import Any


def library(value: Any) -> str:
    """The top-level package of the value's type: 'numpy', 'cupy', 'dask', 'builtins', ..."""
    return type(value).__module__.split(".")[0]


def is_dask(value: Any) -> bool:
    """Whether the value is a Dask collection (an array chunked over a cluster)."""
    return library(value) == "dask"


def is_cupy(value: Any) -> bool:
    """Whether the value is a CuPy array (on a GPU)."""
    return library(value) == "cupy"


Array = Any
"""An array of any library a compiled function accepts (NumPy, CuPy, Dask, an Array-API
namespace's): their stubs share no type, so annotations say which role a value plays."""

ArrayModule = Any
"""An array module (`numpy`, `cupy`, `tensorcalc.codegen.chunked.Chunked`, an Array-API
namespace): the `xp` that generated code and runtime helpers call."""
