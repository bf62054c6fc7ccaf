"""convexcheck: convexity verdicts read from the symbolic Hessian that tensorcalc computes.

    >>> import convexcheck
    >>> report = convexcheck.analyze('''
    ... variable x
    ... variable y pos
    ... minimize x^2/y
    ... ''')
    >>> report.to_dict()["objective"]["convex"], report.verdict
    ('proven', 'convex')

`load_problem` reads a problem file (docs/problem-format.md); `analyze` returns a `Report`
(within a `Budget`, 60 s of wall clock by default)
whose `to_dict()` is what `convexcheck analyze --json` prints. `from_cvxpy` and
`analyze_cvxpy` translate CVXPY expressions and problems (cvxpy is imported only there).
"""
from convexcheck.analysis import analyze
from convexcheck.bridge.translate import analyze_cvxpy, from_cvxpy
from convexcheck.budget import Budget
from convexcheck.hessian.certificate import Certificate, certify
from convexcheck.problem.model import Attributes, Declaration, Part, Problem
from convexcheck.problem.reader import ProblemError, load_problem
from convexcheck.report import Report

__all__ = ["analyze", "Budget", "load_problem", "certify", "Certificate", "Problem", "Part", "Declaration",
           "Attributes", "Report", "ProblemError", "from_cvxpy", "analyze_cvxpy"]
