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

Stages: `data` (checked inputs) -> `objective` (compiled value, gradient, Hessian or its
blocks, Hessian-vector products, on NumPy or CuPy) -> a method (`newton`, `firstorder`)
driven by `loop` with `linesearch` and `linalg` -> `api.minimize`; `alternate` runs
block-coordinate Newton (one Newton step per block of variables in turn). Constraints,
closed bounds and matrix variables go through `constrained`: `space` (symmetric
coordinates, cones), `bounds` (projected methods), `constraints` (compiled c(x)),
`interior` with `pathfollow` and `cone` (the interior-point method), `lagrangian`
(the augmented Lagrangian).
"""
from solvers.api import METHODS, minimize
from solvers.methods.alternate import alternate
from solvers.methods.history import Iteration
from solvers.task.prepare import SolverError

__all__ = ["minimize", "alternate", "SolverError", "Iteration", "METHODS"]
