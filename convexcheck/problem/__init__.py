"""Problem files: text to a `convexcheck.problem.model.Problem`, and values that satisfy its declarations."""
