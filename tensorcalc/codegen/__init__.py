"""Code generation: expressions planned and emitted as einsum programs, the gate in front of exec, the runtime and NumPy evaluation."""
