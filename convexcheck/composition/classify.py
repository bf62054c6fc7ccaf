"""The compositional certificate's entry point: the walk of `compose`, its rule chain in
words, and the check that the domain the proof holds on is convex."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from convexcheck.budget import NEVER, Deadline
from convexcheck.composition import atoms
from convexcheck.composition.norms import exact, exponent_range
from convexcheck.composition.walk import WEIGHT, Walk, short_text, weighted
from convexcheck.hessian.certificate import Certificate
from convexcheck.problem.model import Attributes
from convexcheck.signs.definite import cone
from convexcheck.signs.domain import Side, check_domain
from convexcheck.signs.intervals import half_turn
from convexcheck.signs.signs import Interval
from tensorcalc import dag
from tensorcalc.dag import Const, Expr, Power, Special, Var
from tensorcalc.memo import memoized

CACHED = 512        # certificates kept, the most recently used (`tensorcalc.memo.clear` empties them)


@dataclass(frozen=True)
class _Question:
    """What a certificate answers: the key of the memo table. The deadline bounds the work
    of answering, and is no part of the question (a certificate holds whatever the budget)."""

    expr: Expr
    variables: tuple[Var, ...]
    attributes: frozenset
    lengths: frozenset
    deadline: Deadline = field(default=NEVER, compare=False)


def classify(expr: Expr, variables: list[Var], attributes: dict[str, Attributes],
             lengths: dict | None = None, deadline: Deadline = NEVER) -> Certificate:
    """A certificate for the curvature of the scalar `expr` jointly in `variables`: the
    composition walk, its rule chain in words, and the domain check. `lengths` gives the
    length of axes whose dimension is a fixed integer (others may have any length).
    `deadline`: checked at every step; BudgetSpent leaves nothing behind (only finished
    certificates are kept, so an interrupted one is never read as a result)."""
    cert = _answer(_Question(expr, tuple(variables), frozenset(attributes.items()),
                             frozenset((lengths or {}).items()), deadline))
    return Certificate(cert.convex, cert.concave, list(cert.rules), list(cert.failures))


@memoized(maxsize=CACHED)
def _answer(question: _Question) -> Certificate:
    return _classified(question.expr, question.variables, question.attributes, question.lengths,
                       question.deadline)


def _classified(expr: Expr, variables: tuple, attributes: frozenset, lengths: frozenset,
                deadline: Deadline) -> Certificate:
    names = frozenset(v.name for v in variables)
    walk = Walk(expr, names, dict(attributes), dict(lengths), deadline, classify)
    verdict = walk.run()
    c = verdict.curvature
    if not c.known:
        return Certificate(failures=[f"no rule or Hessian certificate for {f}" for f in walk.failures[:3]]
                           or ["no rule classifies the expression"])
    rules = [verdict.why, *[r for r in verdict.hessian if "domain" not in r and r not in verdict.why]]
    problem, checked = _domain(expr, walk, dict(attributes), dict(lengths))
    problem = problem or _restricted(expr, walk)
    if problem:
        return Certificate(failures=[problem])
    domain = ["the domain (declared bounds and implicit domains) is convex"] if checked else []
    return Certificate(c.convex, c.concave, rules + domain)


def _domain(expr: Expr, walk: Walk, attributes: dict, lengths: dict) -> tuple[str | None, bool]:
    """(Why the domain is not shown convex, or None; whether any argument was checked), by
    `signs.domain.check_domain`, the one rule. Each argument is classified on its own (its
    own implicit domain only, so nothing is assumed of the domain being shown), against
    the declarations and what the walk learned without the domain (`walk.declared`)."""
    def prove(arg: Expr, side: Side) -> bool:
        walk.deadline.check(lambda: f"the domain check of {short_text(arg)}")
        sub = classify(weighted(arg), [v for v in dag.variables(arg).values() if v.name in walk.names],
                       {**attributes, WEIGHT: Attributes(lower=0.0)}, lengths, walk.deadline)
        return bool(getattr(sub, side))

    found = check_domain(expr, lambda arg: bool(walk.reads.get(arg)), walk.declared.node, prove, interior=False)
    gap = found.gap
    if gap is None:
        return None, found.checked
    if gap.side is None:
        return f"the domain where {short_text(gap.arg)} != 0 is not shown convex (its sign is not fixed)", True
    return f"the domain where {short_text(gap.arg)} > 0 is not shown convex (it is not shown {gap.side})", True


def _restricted(expr: Expr, walk: Walk) -> str | None:
    """Why a domain `_domain` does not read is not shown convex, or None: tan needs its
    argument in one branch, arcsin and arccos |u| <= 1 (convex where u is affine), inv a
    matrix that is never singular (a pd or nd cone, `definite.cone`: {det != 0} is not
    convex), a power with a parameter exponent a positive base (x^p, p = -1, needs x != 0).
    Only the declarations count (`walk.declared`), never what the domain itself implies."""
    for node in dag.topo(expr):
        base = node.args[0] if node.args else None
        if base is None or not walk.reads.get(base):
            continue
        iv, fn = walk.declared.node(base), getattr(node, "fn", None)       # entrywise
        if fn == "tan" and half_turn(iv, Fraction(-1, 2)) is None:
            return f"the domain of tan({short_text(base)}) is not shown convex (not kept in one branch)"
        if fn in ("arcsin", "arccos") and not (iv.lo >= -1 and iv.hi <= 1 or walk.child(base).curvature.affine):
            return f"the domain where |{short_text(base)}| <= 1 is not shown convex"
        if isinstance(node, Special) and fn == "inv" and not _never_singular(base, walk):
            return f"the domain where {short_text(base)} is invertible is not shown convex (not shown pd or nd)"
        if isinstance(node, Power) and not isinstance(node.args[1], Const) and not _power_domain(node, iv, walk):
            return f"the domain of {short_text(node)} is not shown convex (its base is not declared > 0)"
    return None


def _power_domain(node: Power, iv: Interval, walk: Walk) -> bool:
    """Whether b^e, e an exponent expression that is not a plain number (1/4, a parameter),
    has a convex domain by the declarations: e a whole number >= 0, or b kept >= 0 (e >= 0)
    or > 0 (any e) by them, or an affine b for an exact fractional e (b >= 0 or b > 0 is a
    half-space)."""
    base, exponent = node.args
    value = exact(exponent)
    if value is None:
        lo = exponent_range(walk, exponent)[0]
        return atoms.one_sided(iv) > 0 or (lo >= 0 and iv.nonneg)
    if value.denominator == 1:
        return value >= 0 or atoms.one_sided(iv) != 0
    return (iv.nonneg if value > 0 else atoms.one_sided(iv) > 0) or walk.child(base).curvature.affine


def _never_singular(matrix: Expr, walk: Walk) -> bool:
    found = cone(matrix, walk.attributes, walk.declared.node)
    return found is not None and found.strict
