"""Reformulations applied before a solve: kinks lifted into epigraph constraints."""
