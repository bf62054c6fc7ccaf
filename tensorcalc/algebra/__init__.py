"""The algebra of products: monomials, simplification and polynomial degree."""
