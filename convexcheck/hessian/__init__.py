"""The symbolic certificate: the Hessian quadratic form read as a sum of squares."""
