"""The composition rules: atoms' curvature facts walked bottom-up (DCP and beyond)."""
