"""Compositional certificates: DCP composition rules walked bottom-up, the Hessian where they stop.

`classify(expr, variables, attributes, lengths)` walks the DAG once, children before
parents, and gives every node an entrywise curvature in the analysed variables (a
`Verdict`): constants and variables by definition; sums, nonnegative and nonpositive
multiples, linear maps and gathers by linearity; h(g) for a function of the fact table
(`atoms`) by the composition theorem, powers with a parameter exponent by its declared
range; and the patterns no single atom states (`norms`: q-norms written with powers;
`patterns`: log-sum-exp, quadratic over linear, `b + relu(a - b)` = max(a, b)). A node the
rules cannot classify gets the Hessian certificate (`certificate.certify`, Klaus et al.
2022) on an abstraction of it: its maximal affine subexpressions replaced by fresh free
variables (sound: convexity on all of their range implies it on the affine image), or
its classified children replaced by fresh
variables, whose monotonicity is then read from the sign of the gradient (the composition
theorem again). A tensor-valued node is certified entrywise through w . node with a
nonnegative weight w. A node so certified is an atom for its parents, so sums and
compositions of Hessian-certified parts are proven term by term; the root is also
certified whole, as before, for cancellations between terms.

A proof holds on the problem's domain (declared bounds and the implicit domains of log,
fractional and negative powers, recip), which must be convex: every argument such a
function needs positive is classified concave on its own (`_domain`).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import tensorcalc as tc
from convexcheck.budget import NEVER, Deadline
from convexcheck.composition import atoms, norms
from convexcheck.composition.atoms import AFFINE, CONSTANT, CONVEX, UNKNOWN, Curvature
from convexcheck.composition.patterns import (
    WHY_LIMIT,
    bilinear,
    describe,
    exp_sum,
    harmonic,
    hessian_rules,
    like_terms,
    max_pattern,
    max_range,
    max_splits,
    quad_over_lin,
)
from convexcheck.composition.perspective import perspective
from convexcheck.composition.verdict import Classifier, Verdict
from convexcheck.hessian.certificate import Certificate, certify
from convexcheck.problem.model import Attributes
from convexcheck.signs.definite import cone
from convexcheck.signs.domain import domain_facts
from convexcheck.signs.signs import NONNEG, Interval, Signs, meet, mul
from tensorcalc import dag
from tensorcalc.dag import LETTERS, Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.graph import substitute

NONPOS = Interval(-math.inf, 0.0)

WEIGHT = "__w"
FRESH = "__t"
# What forming and reading a Hessian may raise when the certificate does not apply: a
# TensorCalcError (no derivative rule for a node, a shape the algebra does not take) and an
# ArithmeticError (an interval bound or a coefficient beyond exact arithmetic: inf as a
# Fraction). Anything else, a KeyError from a rule table first, is a bug and propagates.
HESSIAN_ERRORS = (tc.TensorCalcError, ArithmeticError)
SMALL = 200          # nodes: an unclassified child's parent is certified up to this size


@dataclass
class Walk:
    root: Expr
    names: frozenset
    attributes: dict
    lengths: dict
    deadline: Deadline = NEVER         # checked per node and per Hessian tried
    classify: Classifier | None = None  # for the parts classified on their own (perspectives)
    verdicts: dict = field(default_factory=dict)
    reads: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)

    def __post_init__(self):
        self.signs = Signs(self.attributes, domain_facts(self.root, interior=False))
        self.declared = Signs(self.attributes)      # without the implicit domain: for the domain check

    def run(self) -> Verdict:
        order = dag.topo(self.root)
        for k, node in enumerate(order):
            self.deadline.check(lambda: f"the composition walk (node {k + 1} of {len(order)})")
            self.reads[node] = (isinstance(node, Var) and node.name in self.names) or \
                any(self.reads[c] for c in node.args)
            self.verdicts[node] = self._verdict(node)
        return self.verdicts[self.root]

    def _verdict(self, node: Expr) -> Verdict:
        if not self.reads[node]:
            return Verdict(CONSTANT, "constant")
        found = RULES.get(type(node), _none)(self, node)
        if found is None or not found.curvature.known:
            found = self._hessian(node) or Verdict(UNKNOWN, found.why if found else "no rule")
        if bilinear(self, node) and found.curvature.known and not found.curvature.affine:
            self._refine(node, NONNEG if found.curvature.convex else NONPOS)
        return found

    def _refine(self, node: Expr, iv: Interval) -> None:
        """A sign learned from the curvature: a convex quadratic form q(x) = x^T H x / 2
        (zero value and gradient at 0) is >= 0, a concave one <= 0 (a polynomial: no domain
        is assumed, so both analyses learn it)."""
        for signs in (self.signs, self.declared):
            signs.memo[node] = meet(signs.node(node), iv)

    def child(self, node: Expr) -> Verdict:
        return self.verdicts[node]

    def interval(self, node: Expr) -> Interval:
        return self.signs.node(node)

    # ------------------------------------------------------------------ the Hessian fallback

    def _hessian(self, node: Expr) -> Verdict | None:
        """The Hessian certificate of node abstracted: its affine parts (or their linear
        cores, or its classified children) as fresh variables, the root also whole. A node
        with an unclassified child (log of a det, a form in an inverse) is tried with its
        affine parts alone, when small: the abstraction is sound whatever the children."""
        children_known = all(self.child(c).curvature.known for c in node.args if self.reads[c])
        if not children_known and node is not self.root and dag.count_nodes(node) > SMALL:
            return None
        cuts = self._affine_cuts(node)
        tries = [cuts, *self._linear_cores(cuts)] if cuts else []
        if children_known:
            tries.append([c for c in dict.fromkeys(node.args) if self.reads[c] and not isinstance(c, Var)])
        if children_known or node is self.root:
            tries.append([])
        seen = set()
        for cuts in tries:
            key = frozenset(cuts)
            if key in seen:
                continue
            seen.add(key)
            self.deadline.check(lambda: f"the Hessian certificate of {short_text(node)}")
            found = self._abstract(node, cuts)
            if found is not None:
                return found
        return None

    def _affine_cuts(self, node: Expr) -> list[Expr]:
        """The maximal affine subexpressions of `node` that read the variables (not plain
        variables, not `node` itself), top-down."""
        cuts, stack, seen = [], list(node.args), set()
        while stack:
            m = stack.pop()
            if m in seen or not self.reads[m] or isinstance(m, Var):
                continue
            seen.add(m)
            if self.child(m).curvature.affine:
                cuts.append(m)
            else:
                stack.extend(m.args)
        return cuts

    def _linear_cores(self, cuts: list[Expr]) -> tuple[list[Expr], list[Expr]]:
        """(shared, deepest): each cut followed down through linear maps with constant
        coefficients (products linear in one operand, negations, gathers), so that u' P u,
        written (u' P) u, becomes a form in one fresh variable instead of two. `shared`
        stops at the first node another cut's chain also passes (u, when u = s v is
        itself a scalar s times a constant vector: the form stays in u, P psd); `deepest`
        goes on to the affine part at the bottom (s)."""
        chains = [self._chain(m) for m in cuts]
        shared = [next((m for m in chain if any(m in other for other in chains if other is not chain)), chain[-1])
                  for chain in chains]
        return list(dict.fromkeys(shared)), list(dict.fromkeys(chain[-1] for chain in chains))

    def _chain(self, m: Expr) -> list[Expr]:
        """m, then the one argument each linear map with constant coefficients reads, down
        to the first node that is not such a map (the map of a variable stays whole)."""
        chain = [m]
        while True:
            reading = [a for a in m.args if self.reads[a]]
            linear = isinstance(m, (Product, Gather)) or getattr(m, "fn", None) == "neg"
            if not (linear and len(reading) == 1 and m.args.count(reading[0]) == 1) or isinstance(reading[0], Var):
                return chain
            m = reading[0]
            chain.append(m)

    def _abstract(self, node: Expr, cuts: list[Expr]) -> Verdict | None:
        """The Hessian certificate of `node` with `cuts` replaced by fresh variables."""
        fresh = {m: dag.var(f"{FRESH}{k}", m.axes) for k, m in enumerate(cuts)}
        g = weighted(substitute(node, fresh))
        attrs = {**self.attributes, WEIGHT: Attributes(lower=0.0),
                 **{v.name: self._fresh_attributes(m) for m, v in fresh.items()}}
        present = dag.variables(g)
        xs = [v for n, v in present.items() if n in self.names] + [v for v in fresh.values() if v.name in present]
        try:
            cert = certify(g, xs, attrs, lengths=self.lengths, deadline=self.deadline)
            curvature = Curvature(cert.convex and self._monotone(g, fresh, attrs, True),
                                  cert.concave and self._monotone(g, fresh, attrs, False))
        except HESSIAN_ERRORS as err:
            self.failures.append(f"the Hessian of {short_text(node)} could not be formed ({type(err).__name__})")
            return None
        if not curvature.known:
            self._note_failure(node, cert)
            return None
        return Verdict(curvature, _hessian_why(node, fresh, cert), tuple(cert.rules))

    def _fresh_attributes(self, m: Expr) -> Attributes:
        """A cut's range: its entries' interval, and its cone (`definite`: X + eye is pd)."""
        found = cone(m, self.attributes, self.interval)
        iv = bounds(self.interval(m))
        return iv if found is None else dataclasses.replace(iv, definite=found.word())

    def _monotone(self, g: Expr, fresh: dict, attrs: dict, convex: bool) -> bool:
        """g nondecreasing in each fresh variable standing for a convex-only part (for a
        convex g; nonincreasing for a concave-only part), the mirror for a concave g."""
        signs = Signs(attrs, domain_facts(g))
        for m, v in fresh.items():
            c = self.child(m).curvature
            if c.affine or v.name not in dag.variables(g):
                continue
            up = c.convex == convex                # the part bends the way g must
            iv = signs.node(tc.derivative(g, v))
            if not (iv.nonneg if up else iv.nonpos):
                return False
        return True

    def _note_failure(self, node: Expr, cert: Certificate) -> None:
        failure = Failure(node, cert.failures[0] if cert.failures else "no rule signs its Hessian")
        if failure not in self.failures:
            self.failures.append(failure)


# ----------------------------------------------------------------------------- rules by node type

def _none(walk: Walk, node: Expr) -> None:
    return None


def _var(walk: Walk, node: Var) -> Verdict:
    return Verdict(AFFINE, node.name)


def _sum(walk: Walk, node: Sum) -> Verdict:
    parts = [walk.child(c) for c in node.args]
    total = atoms.combine([p.curvature for p in parts])
    splits = max_splits(walk, node)          # read once: the range and the curvature use them
    max_range(walk, node, splits)
    if not total.known:
        found = max_pattern(walk, splits) or like_terms(walk, node)
        if found is not None:
            return found
    why = "affine" if total.affine else _join("sum of", [p for c, p in zip(node.args, parts) if walk.reads[c]])
    return Verdict(total, why, hessian_rules(parts))


def _product(walk: Walk, node: Product) -> Verdict | None:
    """A product linear in one operand: the others' entries give the coefficients' sign."""
    reading = [k for k, a in enumerate(node.args) if walk.reads[a]]
    if len(reading) == 2:
        return quad_over_lin(walk, node, reading) or perspective(walk, node, reading)
    if len(reading) != 1:
        return None
    (k,) = reading
    coef = Interval(1.0, 1.0, True)
    for j, a in enumerate(node.args):
        if j != k:
            coef = mul(coef, walk.interval(a))
    inner = walk.child(node.args[k])
    curvature = atoms.scaled(coef, inner.curvature)
    if curvature.affine or not curvature.known:
        return Verdict(curvature, "affine" if curvature.affine else "a product of unknown sign", inner.hessian)
    word = "nonnegative" if coef.nonneg else "nonpositive"
    body = inner.why.removeprefix("nonnegative multiple of ")
    return Verdict(curvature, f"{word} multiple of {body}"[:WHY_LIMIT], inner.hessian)


def _elementwise(walk: Walk, node: Elementwise) -> Verdict | None:
    if node.fn == "log" and exp_sum(walk, node.args[0]):
        return Verdict(CONVEX, "log-sum-exp of convex functions", walk.child(node.args[0]).hessian)
    found = harmonic(walk, node.args[0]) if node.fn == "recip" else None
    if found is not None:
        return found
    row = atoms.ELEMENTWISE.get(node.fn)
    fact = row(walk.interval(node.args[0])) if row else None
    return _composed(walk, node, fact)


def _power(walk: Walk, node: Power) -> Verdict | None:
    """A q-norm to a power >= 1 (`norms`), else x^p by the fact table: a constant p by
    `atoms.power` (its implicit domain is the walk's), an exponent that is a whole number
    likewise, any other (1/3, a parameter) by its range (`atoms.power_range`)."""
    base, exponent = node.args
    if walk.reads[exponent]:
        return None
    if isinstance(exponent, Const) and exponent.value == -1:
        found = harmonic(walk, base)
        if found is not None:
            return found
    norm = norms.norm_power(walk, base, exponent)
    if norm is not None:
        why = f"{norm} (of convex functions >= 0): {walk.child(base).why}"
        return Verdict(CONVEX, why[:WHY_LIMIT], walk.child(base).hessian)
    iv = walk.interval(base)
    lo, hi = norms.exponent_range(walk, exponent)
    if isinstance(exponent, Const) or (lo == hi and isinstance(lo, Fraction) and lo.denominator == 1):
        return _composed(walk, node, atoms.power(float(lo), iv))
    return _composed(walk, node, atoms.power_range(lo, hi, iv))


def _composed(walk: Walk, node: Expr, fact) -> Verdict | None:
    if fact is None:
        return None
    inner = walk.child(node.args[0])
    curvature = atoms.compose(fact, inner.curvature)
    if curvature.affine:
        return Verdict(curvature, "affine", inner.hessian)
    mono = {1: "nondecreasing", -1: "nonincreasing", 0: ""}[fact.monotone]
    how = ", ".join(w for w in (fact.curvature.word() if not fact.curvature.constant else "", mono) if w)
    if inner.curvature.affine:
        how = fact.curvature.word()
    why = f"{fact.name} ({how}) of {describe(inner)}"
    return Verdict(curvature, why[:WHY_LIMIT], inner.hessian)


def _gather(walk: Walk, node: Gather) -> Verdict:
    inner = walk.child(node.args[0])
    return Verdict(inner.curvature, f"entries of {describe(inner)}"[:WHY_LIMIT], inner.hessian)


RULES: dict[type, Callable[[Walk, Any], Verdict | None]] = {
    Var: _var, Const: _none, Delta: _none, Sum: _sum, Product: _product,
    Elementwise: _elementwise, Special: _none, Power: _power, Gather: _gather}


# ----------------------------------------------------------------------------- helpers

def weighted(node: Expr) -> Expr:
    """w . node with a weight w of node's axes (node itself when scalar): convex in the
    variables for every w >= 0 exactly when every entry of node is."""
    if not node.order:
        return node
    s = LETTERS[:node.order]
    return dag.contraction((dag.var(WEIGHT, node.axes), node), (s, s, ""))


def bounds(iv: Interval) -> Attributes:
    """The attributes of a fresh variable ranging over the interval."""
    lo = iv.lo if iv.lo > -math.inf else None
    hi = iv.hi if iv.hi < math.inf else None
    return Attributes(lower=lo, lower_strict=lo == 0.0 and iv.nonzero,
                      upper=hi, upper_strict=hi == 0.0 and iv.nonzero and lo != 0.0)


@dataclass(frozen=True)
class Failure:
    """Why `node` has no certificate, written out only when read (`str`): a walk over a
    nested max notes hundreds, and a report shows three (printing them all was a quarter
    of the analysis of a CVXPY norm_inf)."""

    node: Expr
    reason: str

    def __str__(self) -> str:
        return f"{short_text(self.node)}: {self.reason}"


def short_text(node: Expr, limit: int = 70) -> str:
    return tc.to_text(node, limit=limit) if dag.count_nodes(node) < 400 else f"<{type(node).__name__}>"


def _hessian_why(node: Expr, fresh: dict, cert: Certificate) -> str:
    rule = next((r for r in cert.rules if "domain" not in r), "the Hessian is signed")
    cut = f", {len(fresh)} inner part(s) as variables" if fresh else ""
    return f"Hessian{cut}: {rule}"[:WHY_LIMIT]


def _join(head: str, parts: list[Verdict]) -> str:
    words = list(dict.fromkeys(describe(p) for p in parts))
    text = f"{head}: " + " + ".join(w[:WHY_LIMIT // 2] for w in words[:4])
    return text + (f" + {len(words) - 4} more" if len(words) > 4 else "")
