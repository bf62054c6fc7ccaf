"""Code generation: expressions planned and emitted as einsum programs, the gate in front of
exec, and the runtime compiled code calls."""
