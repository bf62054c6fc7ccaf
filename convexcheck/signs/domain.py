"""The implicit domain of an expression, and the ONE check that it is convex.

`domain_facts` reads what the implicit domains of log, recip and fractional powers say of
their arguments; the sign analysis (`signs.Signs`) assumes them. `check_domain` decides
whether the set on which a proof holds is convex: the rule lives only here, and both
proofs use it, the Hessian certificate (`hessian.certificate`) and the composition walk
(`composition.classify`), each passing its own way of proving an argument concave.

The rule. A proof holds where every argument is inside its implicit domain:
- log(u) and x^p with 0 < p < 1 (the base u) need u > 0. For log this is its domain. For
  u^p it is where the Hessian exists (none at u = 0), and also where the sign analysis
  places u (`domain_facts` says u > 0 below exponent 1), so every proof that reads those
  signs (the composition walk's, whose abstractions are certified on a cut u > 0) holds
  on {u > 0} only. {u > 0} is convex when u is concave (entrywise), or when the
  declarations alone keep u > 0 (then it is the declared domain).
- recip(u) and u^p with p < 0 need u != 0: the declarations must keep u to one sign;
  where they keep it > 0 (< 0) nothing more is needed, where only >= 0 (<= 0) u must be
  concave (convex), so that {u > 0} ({u < 0}) is convex.
- a fractional power with p > 1 needs u >= 0: u concave, unless declared >= 0.
Only the declarations count ("declared"), never what the domain itself implies.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from convexcheck.signs.intervals import ANY, INF, NONNEG, POSITIVE, Interval, excludes_zero, meet
from tensorcalc.dag import Const, Elementwise, Expr, Power, topo

Side = Literal["concave", "convex"]
Prover = Callable[[Expr, Side], bool]       # (argument, side) -> whether the argument is shown that side


def domain_facts(expr: Expr, interior: bool = True) -> dict[Expr, Interval]:
    """What the implicit domain of `expr` says: log's argument > 0, a fractional power's base
    >= 0 (> 0 below exponent 0, and below exponent 1 too when `interior`: where the Hessian
    exists), recip's argument != 0."""
    return _facts(topo(expr), interior)


def _facts(nodes: list[Expr], interior: bool) -> dict[Expr, Interval]:
    """`domain_facts` of the nodes of one expression, children first."""
    facts: dict[Expr, Interval] = {}
    below = 1 if interior else 0
    for node in nodes:
        if _fn(node) == "log":
            facts[node.args[0]] = POSITIVE
        elif _fn(node) == "recip":
            facts.setdefault(node.args[0], Interval(-INF, INF, True))
        elif _exponent(node, lambda p: not float(p).is_integer()):
            base, p = node.args[0], node.args[1].value  # type: ignore[attr-defined]
            facts[base] = POSITIVE if p < below else meet(facts.get(base, NONNEG), NONNEG)
    return facts


@dataclass(frozen=True)
class DomainGap:
    """Why the domain is not shown convex: `arg`'s sign is not fixed by the declarations
    (`side` None: {arg != 0} is not convex), or `arg` is not shown `side` ({arg > 0} for
    concave, {arg < 0} for convex)."""

    arg: Expr
    side: Side | None


@dataclass(frozen=True)
class DomainCheck:
    """The outcome: `gap` None when the domain is shown convex; `checked` whether any
    argument that reads the variables has an implicit domain at all."""

    gap: DomainGap | None
    checked: bool


def check_domain(expr: Expr, reads: Callable[[Expr], bool], declared: Callable[[Expr], Interval],
                 prove: Prover, interior: bool) -> DomainCheck:
    """Whether the domain on which a proof of `expr`'s curvature holds is convex (the rule
    in the module docstring). `reads(u)`: whether u reads the analysed variables (others
    are constants); `declared(u)`: u's interval by the declarations alone; `prove(u, side)`:
    whether u is shown concave or convex (entrywise) on its own implicit domain."""
    nodes = topo(expr)
    facts = _facts(nodes, interior)
    positive = {n.args[0] for n in nodes if _fn(n) == "log" or interior and _exponent(n, lambda p: 0 < p < 1)}
    nonzero = {n.args[0] for n in nodes if _fn(n) == "recip" or _exponent(n, lambda p: p < 0)}
    args = [a for a in dict.fromkeys([*facts, *nonzero]) if reads(a)]
    for arg in args:
        known = declared(arg)
        side: Side = "concave"
        if arg in nonzero and not facts.get(arg, ANY).nonneg:
            if _one_sided(known):
                continue                  # the declarations keep it to one sign, away from 0
            if not (known.nonneg or known.nonpos):
                return DomainCheck(DomainGap(arg, None), True)
            side = "concave" if known.nonneg else "convex"
        elif known.nonneg and (_one_sided(known) or arg not in positive | nonzero):
            continue
        if not prove(arg, side):
            return DomainCheck(DomainGap(arg, side), True)
    return DomainCheck(None, bool(args))


def _fn(node: Expr) -> str | None:
    """The function of an element-wise node, None for any other node."""
    return node.fn if isinstance(node, Elementwise) else None


def _exponent(node: Expr, test: Callable[[float], bool]) -> bool:
    """Whether `node` is a power whose exponent is a number that passes `test`."""
    return isinstance(node, Power) and isinstance(node.args[1], Const) and test(node.args[1].value)


def _one_sided(iv: Interval) -> bool:
    """Whether the interval keeps one sign and excludes 0."""
    return (iv.nonneg or iv.nonpos) and excludes_zero(iv)
