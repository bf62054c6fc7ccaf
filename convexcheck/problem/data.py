"""The data an analysis is given, checked before anything is sampled: parameter values
(`check_data`), the dimension lengths they imply (`data_dims`) and named lengths asked
for (`check_dims`); each error names the array or dimension and what is wrong with it."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import tensorcalc as tc
from convexcheck.problem.admissible import not_real, satisfies
from convexcheck.problem.model import Declaration, Problem
from tensorcalc.arrays import is_dask


def check_dims(problem: Problem, dims: dict[str, int]) -> dict[str, int]:
    """`dims` when each names a dimension of the problem and is a length from 1 to 100000."""
    known = problem.dimension_names()
    for name, length in dims.items():
        if name not in known:
            raise tc.TensorCalcError(f"--dim {name}={length}: the problem has no dimension {name!r} "
                                     f"(its dimensions: {', '.join(known) or 'none'})")
        if not isinstance(length, int) or not 1 <= length <= 100_000:
            raise tc.TensorCalcError(f"--dim {name}={length}: a dimension length must be a whole number "
                                     f"from 1 to 100000")
    return dict(dims)


def check_data(problem: Problem, data: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Parameter values as float arrays, checked: declared parameters, finite numbers, the
    declared number of axes and integer lengths, and the declared attributes."""
    fixed = {}
    for name, value in data.items():
        decl = problem.declarations.get(name)
        if decl is None or decl.kind != "parameter":
            raise tc.TensorCalcError(f"data[{name!r}]: the problem has no parameter {name!r} "
                                     f"(parameters: {', '.join(problem.parameters) or 'none'})")
        if is_dask(value):
            check_form(name, decl, value)                 # dtype and shape: nothing computed
            continue
        try:
            array = np.asarray(value)
        except (TypeError, ValueError):
            raise tc.TensorCalcError(f"data[{name!r}] is not an array of numbers") from None
        array = check_form(name, decl, array).astype(float)
        if not np.isfinite(array).all():
            raise tc.TensorCalcError(f"data[{name!r}] has NaN or infinite entries")
        if not satisfies(decl.attributes, array):
            raise tc.TensorCalcError(f"data[{name!r}] does not satisfy its declared attributes "
                                     f"({decl.attributes.describe()})")
        fixed[name] = array
    return fixed


def check_form(name: str, decl: Declaration, array: Any) -> Any:
    """`array` when its dtype holds real numbers and its shape fits the declaration."""
    problem_text = not_real(np.dtype(array.dtype), f"data[{name!r}]")
    if problem_text:
        raise tc.TensorCalcError(problem_text)
    if array.ndim != len(decl.dims) or any(isinstance(d, int) and d != n for d, n in zip(decl.dims, array.shape)):
        raise tc.TensorCalcError(f"data[{name!r}] has shape {array.shape}; {name!r} is declared "
                                 f"with dimensions [{', '.join(map(str, decl.dims))}]")
    return array


def data_dims(problem: Problem, fixed: dict[str, np.ndarray]) -> dict[str, int]:
    """The lengths of the named dimensions the arrays in `fixed` have (one per name)."""
    dims: dict[str, int] = {}
    for name, array in fixed.items():
        for dim, length in zip(problem.declarations[name].dims, array.shape):
            if isinstance(dim, str) and dims.setdefault(dim, length) != length:
                raise tc.TensorCalcError(f"data[{name!r}]: dimension {dim!r} has length {length} "
                                         f"here but {dims[dim]} in another array")
    return dims
