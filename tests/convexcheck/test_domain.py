"""The one convex-domain check (`convexcheck.signs.domain`), issue 25.

The Hessian certificate and the composition walk each had a copy; they drifted on x^p,
0 < p < 1: the certificate asked its base to be shown > 0 (no Hessian at 0), the walk
did not, yet the walk's signs assumed the base > 0 (and certified its abstractions on a
cut > 0). `(x^2)^0.5 + sign(x^2)` = |x| + 1 off 0 and 0 at 0 was "proven convex" that way.
Now one rule serves both, with `interior` saying which set the proof reads: the open one
where the Hessian exists (the certificate) or the closed one (the walk, whose signs now
assume only base >= 0 for such powers).
"""
import pytest

import convexcheck
import tensorcalc as tc
from convexcheck.composition.classify import classify
from convexcheck.hessian.certificate import certify
from convexcheck.signs.domain import DomainGap, check_domain, domain_facts
from convexcheck.signs.intervals import NONNEG, POSITIVE
from convexcheck.signs.signs import Signs
from tensorcalc import dag, memo
from tensorcalc.derivatives import forward


def _expr(text):
    return tc.parse_expr(text, {"x": 0, "y": 0})


def _objective(text):
    return convexcheck.analyze(text, samples=10).objective


def test_a_kink_hidden_at_a_root_is_no_longer_proven_convex():
    """The drifted case: f(0) = 0, f(x) = |x| + 1 elsewhere, so f(1/2) = 3/2 > (f(0) + f(1)) / 2 = 1."""
    f = _expr("(x^2)^0.5 + sign(x^2)")
    value = {t: tc.evaluate(f, {"x": t}) for t in (0.0, 0.5, 1.0)}
    assert value[0.5] > (value[0.0] + value[1.0]) / 2          # not convex: the old verdict was wrong
    x = dag.variables(f)["x"]
    assert not classify(f, [x], {}).convex
    assert _objective("variable x\nminimize (x^2)^0.5 + sign(x^2)").convex.status != "proven"


def test_the_certificate_needs_the_open_domain():
    """A Hessian proof reads the set where the Hessian exists: the base of x^p, 0 < p < 1,
    must be shown > 0 (concave), even where the declarations keep it >= 0."""
    f = _expr("(x^2)^0.5")
    declared = Signs({}).node
    reads = lambda u: "x" in dag.variables(u)  # noqa: E731
    never = lambda u, side: False  # noqa: E731
    found = check_domain(f, reads, declared, never, interior=True)
    assert found.gap == DomainGap(_expr("x^2"), "concave")
    assert check_domain(f, reads, declared, never, interior=False).gap is None
    assert domain_facts(f)[_expr("x^2")] == POSITIVE
    assert domain_facts(f, interior=False)[_expr("x^2")] == NONNEG


def test_both_users_share_the_rule_for_recip():
    """recip needs its argument kept to one sign by the declarations: both proofs refuse."""
    f = _expr("1 / x")
    x = dag.variables(f)["x"]
    assert not certify(f, [x], {}).convex
    assert not classify(f, [x], {}).convex
    found = check_domain(f, lambda u: True, Signs({}).node, lambda u, side: True, interior=False)
    assert found.gap == DomainGap(dag.variables(f)["x"], None) and found.checked


def test_compositions_on_the_closed_domain_stay_proven():
    """Norms, the geometric mean and x^2/sqrt(y) hold on the closed domain (base >= 0)."""
    assert _objective("variable x\nvariable y\nminimize (x^2+y^2)^0.5").convex.status == "proven"
    assert _objective("variable x[n]\nminimize sqrt(sum(x.^2))").convex.status == "proven"
    assert _objective("variable x nonneg\nvariable y nonneg\nmaximize (x*y)^0.5").concave.status == "proven"
    assert _objective("variable x\nvariable y nonneg\nminimize x^2/sqrt(y)").convex.status == "proven"


def test_a_broken_rule_table_raises_instead_of_reading_unknown(monkeypatch):
    """A KeyError from a rule table is a bug: the walk's Hessian fallback lets it propagate
    (issue 25: `HESSIAN_ERRORS` no longer catches it, so it cannot pass for "unknown")."""
    f = _expr("exp(x) * exp(y) * exp(x * y)")       # no composition rule: the Hessian is tried
    variables = list(dag.variables(f).values())
    monkeypatch.delitem(forward.TANGENTS, dag.Elementwise)
    memo.clear()
    try:
        with pytest.raises(KeyError):
            classify(f, variables, {})
    finally:
        memo.clear()
