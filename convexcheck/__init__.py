"""convexcheck: convexity verdicts read from the symbolic Hessian that tensorcalc computes.

Verdicts (proof, verified counterexample, or "unknown") and the `convexcheck analyze`
command are not built yet; this package holds their place in the distribution.
"""
