"""convexcheck: convexity verdicts read from the symbolic Hessian that tensorcalc computes.

    >>> import convexcheck
    >>> report = convexcheck.analyze('''
    ... variable x
    ... variable y pos
    ... minimize x^2/y
    ... ''')
    >>> report.to_dict()["objective"]["convex"], report.verdict
    ('proven', 'convex')

`load_problem` reads a problem file (docs/problem-format.md); `analyze(problem, data=None,
*, ...)` returns a `Report` (within a `Budget`, 60 s of wall clock by default) whose
`to_dict()` is what `convexcheck analyze --json` prints; it takes CVXPY expressions and
problems too, which `from_cvxpy` translates (cvxpy is imported only there; `analyze_cvxpy`
is `analyze` of one). `classify` is the full certificate of an expression's curvature
(composition rules, Hessians, the domain); `certify_hessian` the Hessian-only one.
"""
from convexcheck.api import analyze
from convexcheck.bridge.translate import analyze_cvxpy, from_cvxpy
from convexcheck.budget import Budget
from convexcheck.composition.classify import classify
from convexcheck.explanation import Explanation, explain
from convexcheck.hessian.certificate import Certificate
from convexcheck.hessian.certificate import certify as certify_hessian
from convexcheck.problem.model import Attributes, Declaration, Part, Problem
from convexcheck.problem.reader import ProblemError, load_problem
from convexcheck.report import Report

__all__ = ["analyze", "Budget", "load_problem", "classify", "certify_hessian", "Certificate", "Problem", "Part",
           "Declaration", "Attributes", "Report", "ProblemError", "from_cvxpy", "analyze_cvxpy", "explain",
           "Explanation"]
