"""Differentiation: reverse mode, forward mode, det/adj, finite-difference checks and matrix views of derivative tensors."""
