"""The compositional certificate's entry point: the walk of `compose`, its rule chain in
words, and the check that the domain the proof holds on is convex."""
from __future__ import annotations

import functools
import math

from tensorcalc import dag
from tensorcalc.dag import Const, Expr, Power, Var

from . import atoms
from .certificate import Certificate
from .compose import WEIGHT, Walk, short_text, weighted
from .model import Attributes
from .signs import Interval, domain_facts

def classify(expr: Expr, variables: list[Var], attributes: dict[str, Attributes],
             lengths: dict | None = None) -> Certificate:
    """A certificate for the curvature of the scalar `expr` jointly in `variables`: the
    composition walk, its rule chain in words, and the domain check. `lengths` gives the
    length of axes whose dimension is a fixed integer (others may have any length)."""
    cert = _classified(expr, tuple(variables), frozenset(attributes.items()),
                       frozenset((lengths or {}).items()))
    return Certificate(cert.convex, cert.concave, list(cert.rules), list(cert.failures))


@functools.lru_cache(maxsize=512)
def _classified(expr: Expr, variables: tuple, attributes: frozenset, lengths: frozenset) -> Certificate:
    names = frozenset(v.name for v in variables)
    walk = Walk(expr, names, dict(attributes), dict(lengths))
    verdict = walk.run()
    c = verdict.curvature
    if not c.known:
        return Certificate(failures=[f"no rule or Hessian certificate for {f}" for f in walk.failures[:3]]
                           or ["no rule classifies the expression"])
    rules = [verdict.why, *[r for r in verdict.hessian if "domain" not in r and r not in verdict.why]]
    problem, checked = _domain(expr, walk, dict(attributes), dict(lengths))
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
        sub = classify(weighted(arg), [v for v in dag.variables(arg).values() if v.name in walk.names],
                       {**attributes, WEIGHT: Attributes(lower=0.0)}, lengths)
        if not getattr(sub, side):
            return f"the domain where {short_text(arg)} > 0 is not shown convex (it is not shown {side})", True
    return None, bool(args)
