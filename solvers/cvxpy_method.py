"""`problem.solve(method="convexcheck")`: a CVXPY problem, DCP or not, proven convex and
solved here, its answer written back as CVXPY's own solve writes it.

    >>> import cvxpy as cp, solvers
    >>> solvers.register_cvxpy()                 # adds the method to cp.Problem (once is enough)
    >>> x = cp.Variable(name="x")
    >>> problem = cp.Problem(cp.Minimize(x * x - 2 * x))     # x * x: not DCP, CVXPY refuses it
    >>> round(float(problem.solve(method="convexcheck")), 9), problem.status, round(float(x.value), 6)
    (-1.0, 'optimal', 1.0)

`register()` uses CVXPY's `Problem.register_solve`. `solve(problem, **options)` translates
the problem (`convexcheck.from_cvxpy`, which carries CVXPY's implicit domains), solves it
with `solvers.minimize(method="auto")` (its keyword options: tol, gtol, max_iter, x0,
device, verbose, ...), and refuses (`NotProvenConvex`, a `cvxpy.error.DCPError`, nothing
written) a problem that convexcheck does not prove convex: a point the solver stops at may
then be a local optimum only. Otherwise it writes through CVXPY's `Problem.unpack`:
`variable.value`, `constraint.dual_value` (CVXPY's signs: >= 0 on inequalities, as its
solvers give them), `problem.value` and `problem.status`: optimal, infeasible (status 6,
phase one's certificate) or unbounded (status 5). A solve that ends otherwise (iteration
limit, line search failure) raises `cvxpy.error.SolverError` with the solver's message,
as CVXPY does when its solver fails.

It lives in `solvers`, not in `convexcheck`, because imports flow from convexcheck to
solvers; cvxpy is imported only when a function here is called.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from convexcheck.bridge.translate import variables_of
from solvers.api import minimize
from solvers.result import Status

METHOD = "convexcheck"
DUALS = ("Inequality", "Equality", "Zero", "NonNeg", "NonPos", "PSD")    # constraints whose duals are written


def register(name: str = METHOD) -> None:
    """Add `solve` to CVXPY's Problem class as `problem.solve(method=name)`."""
    import cvxpy as cp
    cp.Problem.register_solve(name, solve)


def solve(problem: Any, **options: Any) -> float:
    """Prove `problem` convex, solve it and write the answer back (see the module
    docstring); returns `problem.value`."""
    import cvxpy as cp
    result = minimize(problem, method="auto", **options)
    if result.convexity != "convex":
        raise _refusal(cp)(f"convexcheck does not prove this problem convex (verdict: {result.convexity}), so it is "
                           f"not solved: a point found could be a local optimum only; convexcheck.analyze(problem) "
                           f"shows the proof attempt and any counterexample")
    sign = -1.0 if isinstance(problem.objective, cp.Maximize) else 1.0
    status = _status(cp, result.status)
    if status is None:
        raise cp.error.SolverError(f"convexcheck: {result.message}")
    names, labels = variables_of(problem)
    primal = {v.id: _shaped(result.x[name], v.shape) if status == cp.OPTIMAL else None
              for name, v in names.items()}
    duals = {c.id: _shaped(result.multipliers[labels[k]], c.shape) for k, c in enumerate(problem.constraints, 1)
             if labels.get(k) in result.multipliers and type(c).__name__ in DUALS}
    value = {cp.OPTIMAL: result.fun, cp.INFEASIBLE: sign * np.inf, cp.UNBOUNDED: -sign * np.inf}[status]
    problem.unpack(cp.reductions.solution.Solution(status, value, primal, duals if status == cp.OPTIMAL else {}, {}))
    return problem.value


@functools.cache
def _refusal(cp: Any) -> type:
    """The refusal's class, a CVXPY DCPError, made once (cvxpy is imported on first use)."""
    return type("NotProvenConvex", (cp.error.DCPError,), {"__doc__": "A problem convexcheck does not prove convex."})


def _status(cp: Any, status: int) -> str | None:
    return {Status.CONVERGED: cp.OPTIMAL, Status.INFEASIBLE: cp.INFEASIBLE,
            Status.NO_MINIMISER: cp.UNBOUNDED}.get(Status(status))


def _shaped(value: Any, shape: tuple) -> Any:
    array = np.asarray(value, dtype=float)
    return float(array) if shape == () else array.reshape(shape)


__all__ = ["register", "solve", "METHOD"]
