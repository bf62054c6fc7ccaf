"""The unconstrained methods: the shared loop, line search, Newton, Newton-CG, L-BFGS, gradient descent, stopping."""
