"""The result type: SciPy's `OptimizeResult`, printable whatever its fields hold.

SciPy formats nested dicts by the width of their longest key, so `print(result)` of a
plain OptimizeResult raises ValueError when a field is an empty dict (`multipliers` of an
unconstrained solve). This module imports scipy.optimize, so `solvers.methods.history` imports it
only when a result is built (`convexcheck analyze` never pays for SciPy).
"""
from __future__ import annotations

from scipy.optimize import OptimizeResult


class _Empty:
    """Printed as {} (not a dict, so SciPy's formatter reads no keys of it)."""

    def __repr__(self) -> str:
        return "{}"

    __str__ = __repr__


class Result(OptimizeResult):
    """An OptimizeResult (a dict with attribute access) whose repr shows empty dicts."""

    def __repr__(self) -> str:
        shown = {k: _Empty() if isinstance(v, dict) and not v else v for k, v in self.items()}
        return OptimizeResult.__repr__(OptimizeResult(shown))
