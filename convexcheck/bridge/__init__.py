"""The CVXPY bridge: CVXPY expressions and problems as convexcheck problems."""
