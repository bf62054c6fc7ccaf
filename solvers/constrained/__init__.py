"""Constrained solves: bounds, the augmented Lagrangian, interior-point methods, QP and
certificates of infeasibility and unboundedness."""
