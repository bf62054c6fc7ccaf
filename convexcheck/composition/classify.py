"""The compositional certificate's entry point: the walk of `compose`, its rule chain in
words, and the check that the domain the proof holds on is convex."""
from __future__ import annotations

import math
import threading
from collections import OrderedDict
from fractions import Fraction

from convexcheck.budget import NEVER, Deadline
from convexcheck.composition import atoms
from convexcheck.composition.norms import exact, exponent_range
from convexcheck.composition.walk import WEIGHT, Walk, short_text, weighted
from convexcheck.hessian.certificate import Certificate
from convexcheck.problem.model import Attributes
from convexcheck.signs.definite import cone
from convexcheck.signs.intervals import half_turn
from convexcheck.signs.signs import Interval, domain_facts
from tensorcalc import dag
from tensorcalc.dag import Const, Expr, Power, Special, Var

CACHED = 512        # certificates kept, the most recently used
_CACHE: OrderedDict = OrderedDict()
_LOCK = threading.Lock()            # analyses may run in threads (solvers call analyze)


def classify(expr: Expr, variables: list[Var], attributes: dict[str, Attributes],
             lengths: dict | None = None, deadline: Deadline = NEVER) -> Certificate:
    """A certificate for the curvature of the scalar `expr` jointly in `variables`: the
    composition walk, its rule chain in words, and the domain check. `lengths` gives the
    length of axes whose dimension is a fixed integer (others may have any length).
    `deadline`: checked at every step; BudgetSpent leaves nothing behind (only finished
    certificates are kept, so an interrupted one is never read as a result)."""
    key = (expr, tuple(variables), frozenset(attributes.items()), frozenset((lengths or {}).items()))
    with _LOCK:
        cert = _CACHE.get(key)
        if cert is not None:
            _CACHE.move_to_end(key)
    if cert is None:
        cert = _classified(*key, deadline)
        with _LOCK:
            _CACHE[key] = cert
            if len(_CACHE) > CACHED:
                _CACHE.popitem(last=False)
    return Certificate(cert.convex, cert.concave, list(cert.rules), list(cert.failures))


def _clear() -> None:
    with _LOCK:
        _CACHE.clear()


classify.cache_clear = _clear      # as an lru_cache's: the next call classifies afresh


def _classified(expr: Expr, variables: tuple, attributes: frozenset, lengths: frozenset,
                deadline: Deadline) -> Certificate:
    names = frozenset(v.name for v in variables)
    walk = Walk(expr, names, dict(attributes), dict(lengths), deadline)
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
    """(Why the domain is not shown convex, or None; whether any argument was checked). Every argument that log or a fractional
    power needs positive is concave (entrywise); an argument of recip or of a negative power
    keeps one sign by the declarations, concave where it is >= 0, convex where <= 0. Each
    argument is classified on its own (its own implicit domain only, so nothing is assumed
    of the domain being shown)."""
    declared = walk.declared                 # declared bounds and what the walk learned without the domain
    facts = domain_facts(expr)
    topo = dag.topo(expr)
    logs = {n.args[0] for n in topo if getattr(n, "fn", None) == "log"}
    nonzero = {n.args[0] for n in topo if getattr(n, "fn", None) == "recip" or
               (isinstance(n, Power) and isinstance(n.args[1], Const) and n.args[1].value < 0)}
    args = [a for a in dict.fromkeys([*facts, *nonzero]) if walk.reads.get(a)]
    for arg in args:
        known, side = declared.node(arg), "concave"
        if arg in nonzero and not facts.get(arg, Interval(-math.inf, math.inf)).nonneg:
            if atoms.one_sided(known):
                continue                  # the declarations keep it to one sign, away from 0
            if not (known.nonneg or known.nonpos):
                return f"the domain where {short_text(arg)} != 0 is not shown convex (its sign is not fixed)", True
            side = "concave" if known.nonneg else "convex"
        elif known.nonneg and (atoms.one_sided(known) or arg not in logs | nonzero):
            continue
        walk.deadline.check(lambda: f"the domain check of {short_text(arg)}")
        sub = classify(weighted(arg), [v for v in dag.variables(arg).values() if v.name in walk.names],
                       {**attributes, WEIGHT: Attributes(lower=0.0)}, lengths, walk.deadline)
        if not getattr(sub, side):
            return f"the domain where {short_text(arg)} > 0 is not shown convex (it is not shown {side})", True
    return None, bool(args)


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
