"""Differentiation: reverse mode (one pullback rule per node type), forward mode on the same
rules, and finite-difference checks of derivatives."""
