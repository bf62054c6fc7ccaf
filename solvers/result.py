"""The result type and the statuses: SciPy's `OptimizeResult`, printable whatever its
fields hold; `Status`, how a solve ended; `MESSAGES`, the one table of their texts.

SciPy formats nested dicts by the width of their longest key, so `print(result)` of a
plain OptimizeResult raises ValueError when a field is an empty dict (`multipliers` of an
unconstrained solve). This module imports scipy.optimize, so `solvers.methods.history` imports it
only when a result is built (`convexcheck analyze` never pays for SciPy).
"""
from __future__ import annotations

import enum

from scipy.optimize import OptimizeResult


class Status(enum.IntEnum):
    """How a solve ended. An IntEnum, so `result.status` stays an int as in SciPy
    (`result.status == 6` holds) and only CONVERGED is a success."""

    CONVERGED = 0
    """The stopping test held (and, where checked, the point is a minimum)."""
    ITERATION_LIMIT = 1
    """The iteration (or sweep) limit came before convergence."""
    LINE_SEARCH_FAILED = 2
    """No step passed the line search, or the iterates stalled."""
    CALLBACK = 3
    """The user's callback asked to stop."""
    NOT_A_MINIMUM = 4
    """The point is stationary but not a local minimum, and no step left it."""
    NO_MINIMISER = 5
    """The objective has no minimiser: it falls without bound or towards an excluded bound."""
    INFEASIBLE = 6
    """The constraints have no common point (a certificate of infeasibility was found)."""

    def __str__(self) -> str:
        """The number, as Python 3.11's IntEnum prints it (3.10's printed the name)."""
        return int.__repr__(self)

    def __format__(self, spec: str) -> str:
        return int.__format__(self, spec)


class Family(enum.Enum):
    """Which iteration wrote a message: the wordings differ between the descent loop
    (`methods.loop`), block-coordinate Newton (`methods.alternate`), the interior-point
    path following (`constrained.pathfollow`, `constrained.qp`) and the augmented
    Lagrangian's outer iterations (`constrained.lagrangian`)."""

    DESCENT = "descent"
    ALTERNATE = "alternate"
    INTERIOR = "interior"
    AUGMENTED = "augmented"


MESSAGES: dict[Family, dict[Status, str]] = {
    Family.DESCENT: {
        Status.CONVERGED: "converged: max|g| <= gtol{newton}",
        Status.ITERATION_LIMIT: "stopped: the iteration limit was reached before convergence",
        Status.LINE_SEARCH_FAILED: "stopped: the line search found no decrease along the direction nor the "
                                   "negative gradient",
        Status.CALLBACK: "stopped by the callback",
    },
    Family.ALTERNATE: {
        Status.CONVERGED: "converged: every block has max|g| <= gtol and lambda^2/2 <= tol",
        Status.ITERATION_LIMIT: "stopped: the sweep limit was reached before convergence",
        Status.LINE_SEARCH_FAILED: "stopped: a block's line search found no decrease",
    },
    Family.INTERIOR: {
        Status.CONVERGED: "converged: KKT conditions hold (max|r_d| <= gtol, violation <= gtol / 100, duality "
                          "gap <= max(tol, 1e-10 (1 + |f|)))",
        Status.ITERATION_LIMIT: "stopped: the iteration limit was reached before the KKT conditions held",
        Status.LINE_SEARCH_FAILED: "stopped: no step along the Newton direction passed the line search (the "
                                   "constraints may be infeasible or have no interior, or the problem is badly "
                                   "scaled)",
        Status.CALLBACK: "stopped by the callback",
        Status.NO_MINIMISER: "stopped: no minimiser: the iterates run off to infinity (the objective is "
                             "unbounded below on the feasible set)",
    },
    Family.AUGMENTED: {
        Status.CONVERGED: "converged: KKT conditions hold (the augmented Lagrangian's max|g| <= gtol, violation "
                          "<= gtol / 100)",
        Status.ITERATION_LIMIT: "stopped: the iteration limit was reached before the KKT conditions held",
    },
}
"""The fixed texts of the statuses, by family. The texts that carry numbers (not a
local minimum, no minimiser found by the examination at the end, infeasibility
certificates) are written where the numbers are: `methods.stopping`, `constrained`."""


def status_message(family: Family, status: int, **fields: str) -> str:
    """The fixed text of `status` for `family`, with `fields` filled in (DESCENT's
    CONVERGED takes `newton`: "" or " and lambda^2/2 <= tol"). KeyError where the
    family has no fixed text for the status: that is a bug of the caller."""
    return MESSAGES[family][Status(status)].format(**fields)


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
