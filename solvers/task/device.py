"""Devices: the array module a solve runs on, and moving arrays to it and back.

`device="cpu"` is NumPy; `device="gpu"` is CuPy on the current CUDA device. Arrays move
to the device once, before the loop; inside it only scalars come back to the host (the
objective value, max|g|, the line-search test), and the solution comes back at the end.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from solvers.task.prepare import SolverError
from tensorcalc.arrays import is_cupy

DEVICES = ("cpu", "gpu")


def array_module(device: str) -> ModuleType:
    """NumPy for "cpu", CuPy for "gpu"; a clear SolverError when no GPU can be used."""
    if device == "cpu":
        return np
    if device != "gpu":
        raise SolverError(f"device {device!r} is not one of {', '.join(DEVICES)}")
    try:
        import cupy
    except ImportError:
        raise SolverError("device='gpu' needs CuPy and a CUDA GPU, and CuPy is not installed: "
                          "pip install 'convexcheck[gpu]', or use device='cpu'") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - CUDA reports a missing driver in several ways
        raise SolverError(f"device='gpu': CuPy finds no usable CUDA device ({exc}); use "
                          f"device='cpu'") from None
    if count < 1:
        raise SolverError("device='gpu': CuPy finds no CUDA device; use device='cpu'")
    return cupy


def to_device(xp: ModuleType, array: Any) -> Any:
    """`array` as a float64 array of module `xp` (one copy to the device for CuPy)."""
    return xp.asarray(array, dtype=xp.float64)


def to_host(array: Any) -> np.ndarray:
    """A NumPy copy of a NumPy or CuPy array."""
    return np.array(array.get() if is_cupy(array) else array, dtype=np.float64)
