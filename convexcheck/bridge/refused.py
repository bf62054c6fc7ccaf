"""The CVXPY atoms the bridge refuses, each with its reason (`REFUSED`), and the rule that
refuses them naming it. Every class of `cvxpy.atoms` is either translated by a rule of
`translate.RULES` or listed here (tests/convexcheck/test_bridge_coverage.py walks them).
"""
from __future__ import annotations

from typing import Any

from convexcheck.bridge.text import Node
from convexcheck.problem.reader import ProblemError

EPIGRAPH = ("a convex function of the largest entries or eigenvalues, which needs an epigraph variable or a "
            "semidefinite cone to lower and has no smooth formula; not lowered yet")
LIFTED = ("a function of the largest entries or eigenvalues with no formula, lowered by its epigraph (a fresh "
          "variable) only in a problem CVXPY calls DCP, where that is exact; not in an expression or a problem "
          "DCP rejects")
QUASI = "quasiconvex or piecewise constant (CVXPY's DQCP, qcp=True): no convexity for the solvers to use"
GEOMETRIC = "an atom of geometric programming (CVXPY's DGP, gp=True): log-log curvature, not convexity"
COMPLEX = "complex-valued: convexcheck reads real data and variables"
MATRIX = "a function of a matrix's eigenvalues beyond log det and trace inverse: not in the language"

REFUSED = {
    "sum_largest": LIFTED, "sum_smallest": LIFTED, "dotsort": EPIGRAPH, "cummax": LIFTED,
    "lambda_max": LIFTED, "lambda_min": LIFTED, "lambda_sum_largest": EPIGRAPH,
    "lambda_sum_smallest": EPIGRAPH, "sigma_max": EPIGRAPH, "normNuc": EPIGRAPH,
    "ceil": QUASI, "floor": QUASI, "sign": QUASI, "length": QUASI, "dist_ratio": QUASI,
    "condition_number": QUASI, "gen_lambda_max": QUASI,
    "Prod": GEOMETRIC, "cumprod": GEOMETRIC, "one_minus_pos": GEOMETRIC, "pf_eigenvalue": GEOMETRIC,
    "eye_minus_inv": GEOMETRIC, "gmatmul": GEOMETRIC,
    "imag": COMPLEX, "hermitian_wrap": COMPLEX,
    "von_neumann_entr": MATRIX, "quantum_rel_entr": MATRIX,
    "perspective": "CVXPY's perspective(f, s) of a function object: write s * f(x / s) with the atom itself, "
                   "which convexcheck proves as a perspective",
}


def refused(t: Any, e: Any, *args: Node) -> Node:
    """The rule of every atom in REFUSED: a ProblemError naming the atom and the reason."""
    name = type(e).__name__
    reason = next((REFUSED[c.__name__] for c in type(e).__mro__ if c.__name__ in REFUSED), "not translated")
    raise ProblemError(f"CVXPY {name} is not translated: {reason}; rewrite it with translated atoms, or leave "
                       f"it to CVXPY")
