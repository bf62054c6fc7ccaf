"""Affine index access: the Gather node and the exact integer linear algebra behind it."""
