"""No test outcome depends on the CPU, the BLAS kernel or the thread count (issue 24).

OpenBLAS built with DYNAMIC_ARCH picks its kernels by CPU at load time, and
OPENBLAS_CORETYPE forces another; each kernel rounds dot products and matrix products
in its own order, so a method whose convergence hangs on the last bits passes on one
machine and fails on the next. This slow test reruns the solver audit's default
selection (tests/test_solver_audit.py: every method on every problem, the most
rounding-sensitive corpus we have) in subprocesses under two kernels, with 1 and 2
threads. It skips where numpy's BLAS is not OpenBLAS with DYNAMIC_ARCH (OPENBLAS_CORETYPE
would then be ignored). The whole suite under the same matrix: docs/testing.md.
"""
from __future__ import annotations

import os
import pathlib
import platform
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Prescott: plain SSE3, the oldest x86-64 kernel; Haswell: AVX2, what most CI machines
# pick (the one the suite is usually run under, so the pair differs from it in one)
KERNELS = ("Prescott", "Haswell")
# reported by threadpoolctl under each forced kernel (Prescott's kernel is named Katmai)
REPORTED = {"Prescott": "Katmai", "Haswell": "Haswell"}


def _openblas_config() -> str:
    """numpy's BLAS build line ('OpenBLAS 0.3.x ... DYNAMIC_ARCH ...'), '' if not OpenBLAS."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except (TypeError, KeyError):        # numpy < 1.26: no dict mode
        return ""
    return str(blas.get("openblas configuration", "")) if "openblas" in str(blas.get("name", "")) else ""


def _architecture(coretype: str) -> str | None:
    """The kernel OpenBLAS reports in a fresh process with OPENBLAS_CORETYPE=coretype."""
    code = ("import numpy, threadpoolctl\n"
            "print(*[i.get('architecture') for i in threadpoolctl.threadpool_info()"
            " if i['internal_api'] == 'openblas'])")
    env = {**os.environ, "OPENBLAS_CORETYPE": coretype}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    return out.stdout.strip() or None if out.returncode == 0 else None


def _skip_unless_dynamic_openblas() -> None:
    pytest.importorskip("threadpoolctl")
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"OPENBLAS_CORETYPE names x86-64 kernels; this machine is {platform.machine()}")
    if "DYNAMIC_ARCH" not in _openblas_config():
        pytest.skip("numpy's BLAS is not OpenBLAS built with DYNAMIC_ARCH: OPENBLAS_CORETYPE would be ignored")
    for kernel in KERNELS:
        if _architecture(kernel) != REPORTED[kernel]:
            pytest.skip(f"OpenBLAS does not switch to the {kernel} kernel on this machine")


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kernel", KERNELS)
def test_solver_audit_under_kernel(kernel, threads):
    _skip_unless_dynamic_openblas()
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "OPENBLAS_NUM_THREADS": str(threads)}
    env.pop("HYPOTHESIS_PROFILE", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
               "tests/solvers/test_solver_audit.py"]
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, (f"solver audit under OPENBLAS_CORETYPE={kernel}, "
                                 f"OPENBLAS_NUM_THREADS={threads}:\n{out.stdout[-4000:]}{out.stderr[-2000:]}")
