"""Printing: expressions as text of the language, in index notation and in matrix notation."""
