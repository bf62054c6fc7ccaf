"""The objective and constraint functions as the methods see them: compiled, on one flat vector."""
