"""solvers: Newton, Newton-CG, L-BFGS and gradient descent on compiled tensorcalc derivatives.

    >>> import numpy as np, solvers
    >>> result = solvers.minimize('''
    ... parameter A[n, n] psd
    ... parameter b[n]
    ... variable x[n]
    ... minimize 0.5 * x *(i,ij->j) A *(j,j->) x - b *(i,i->) x
    ... ''', data={"A": np.array([[2.0, 1.0], [1.0, 3.0]]), "b": np.array([1.0, 2.0])})
    >>> result.success, result.nit, result.convexity
    (True, 1, 'convex')
    >>> np.round(result.x["x"], 6).tolist()     # A^-1 b
    [0.2, 0.6]

Stages, bottom to top (`tests/test_imports.py` checks that imports only look down):
`result` (the result type, `Status` and its messages) and `protocol` (`Smooth`, the
objective every method runs on) -> `numerics` (Newton systems and their factors, the
cones' barrier, symmetric coordinates) -> `task` (the checked `Task`: `prepare.read`, the
start, Dask data placement, `reductions`) -> `objective` (compiled value, gradient,
Hessian or its blocks, Hessian-vector products on NumPy or CuPy) -> `methods` (the loop with line search and
stopping, Newton, Newton-CG, L-BFGS, gradient descent, block-coordinate Newton and its
row factors on Dask) -> `constrained` (bounds, interior point, augmented Lagrangian,
phase one) -> `reformulate` (the epigraph lift) -> `api.minimize`, which chains the
reductions (maximise sign, lift) once and inverts them once at the result.
"""
from solvers.api import METHODS, minimize
from solvers.cvxpy_method import register as register_cvxpy
from solvers.methods.alternate import alternate
from solvers.methods.history import Iteration
from solvers.result import Status
from solvers.task.prepare import SolverError

__all__ = ["minimize", "alternate", "SolverError", "Status", "Iteration", "METHODS", "register_cvxpy"]
