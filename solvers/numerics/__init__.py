"""Numerics that read no solver state: Newton systems and their factors (linalg), the log-det
barrier of definite matrix variables (cone), and the coordinates the constrained methods
move in (space)."""
