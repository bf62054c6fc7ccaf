"""solvers: Newton, Newton-CG, L-BFGS and gradient descent on compiled tensorcalc derivatives.

Not built yet; this package holds its place in the distribution.
"""
