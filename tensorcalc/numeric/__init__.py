"""Numbers: evaluation of expressions with NumPy, one rule per node type, and det/adj exact
also at singular matrices."""
