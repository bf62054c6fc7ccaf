"""The analysis' work budget (issue 24, item 11b): a spent budget skips the remaining steps
and leaves the undecided sides 'unknown: budget spent on ...'; nothing is proven from work
it cut short. Deterministic: the budget's clock is injected and counts the checks, so a
budget of n seconds is spent at the n-th step boundary, on every machine. The former
blowups are checked by counting work (tests/workcount.py's way), not by the clock."""
from __future__ import annotations

import json
import math

import pytest

import convexcheck
import tensorcalc as tc
from convexcheck import Budget, analysis
from convexcheck.cli import main
from convexcheck.composition.classify import classify
from tensorcalc import memo

PROBLEM = """
variable x
variable y pos
variable z[3]
parameter A[3, 3]
minimize x^2/y + z' * A * z + log_sum_exp(z)
subject to
  exp(x) * exp(x) <= 4
  sin(x) <= 1
  y + 2 * x <= 3
"""


class Ticks:
    """A clock that advances one second each time it is read: the n-th check spends n s."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def sides(report) -> dict[str, tuple]:
    parts = {p.part.label: p for p in (report.objective, *report.constraints)}
    parts |= {f"{n} alone": p for n, p in report.variables.items()}
    return {label: (p.convex, p.concave) for label, p in parts.items()}


def fresh(text: str = PROBLEM, **options):
    """The analysis with no certificate cached from before: all its work is its own."""
    memo.clear()
    return convexcheck.analyze(text, samples=4, **options)


@pytest.fixture(scope="module")
def full():
    ticks = Ticks()
    report = fresh(budget=Budget(math.inf, ticks))
    return report, int(ticks.now)


def test_budget_zero_decides_nothing_and_says_why():
    report = fresh(budget=0)
    assert report.budget_spent == "objective (x, y, z): the composition walk (node 1 of 16)"
    for label, pair in sides(report).items():
        for side in pair:
            assert side.status == "unknown", label
            assert side.failures[0] == f"budget spent on {report.budget_spent}"
    assert report.verdict == "unknown"
    text = report.to_text()
    assert "unknown: budget spent on objective (x, y, z): the composition walk" in text
    assert "the remaining stages were skipped" in " ".join(text.split())
    data = json.loads(json.dumps(report.to_dict()))
    assert data["budget_spent"] == report.budget_spent and data["settings"]["budget"] == 0


def test_the_full_analysis_decides_every_side(full):
    report, checks = full
    assert report.budget_spent is None and report.settings["budget"] is None
    assert {label: (a.status, b.status) for label, (a, b) in sides(report).items()} == {
        "objective": ("disproved", "disproved"), "constraint 1": ("proven", "disproved"),
        "constraint 2": ("disproved", "disproved"), "constraint 3": ("proven", "proven"),
        "x alone": ("proven", "disproved"), "y alone": ("proven", "disproved"),
        "z alone": ("disproved", "disproved")}
    assert checks > 40            # the steps the budgets below cut at


@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95])
def test_a_budget_spent_anywhere_keeps_only_finished_verdicts(full, fraction):
    """Cut at a step boundary spread over the whole run: each side is what the full
    analysis says, or unknown with the budget named; never a verdict it does not reach."""
    whole, checks = full
    report = fresh(budget=Budget(int(fraction * checks), Ticks()))
    assert report.budget_spent
    expected = sides(whole)
    for label, pair in sides(report).items():
        for side, truth in zip(pair, expected[label]):
            if side.status == "unknown" and truth.status != "unknown":
                assert side.failures[0] == f"budget spent on {report.budget_spent}", label
            else:
                assert side.status == truth.status, label


def test_late_budgets_keep_the_proofs_and_witnesses_found(full):
    whole, checks = full
    report = fresh(budget=Budget(checks - 3, Ticks()))
    assert report.budget_spent
    decided = [s for pair in sides(report).values() for s in pair if s.status != "unknown"]
    assert {s.status for s in decided} == {"proven", "disproved"}


def test_a_certificate_cut_short_is_neither_proof_nor_cached():
    """The walk stops at its first check: no proof, and the next, unlimited, call does the
    work afresh (an interrupted certificate is never stored)."""
    expr = tc.parse_expr("exp(x) * exp(x)", {"x": 0})
    x = tc.variables(expr)["x"]
    memo.clear()
    with pytest.raises(convexcheck.budget.BudgetSpent, match="budget spent on the composition walk"):
        classify(expr, [x], {}, deadline=Budget(0).start())
    assert classify(expr, [x], {}).convex


def test_sampling_stops_at_the_budget_and_keeps_its_witnesses():
    """Budgets from 1 check up: those spent while sampling return the points seen, with
    their verified witnesses (sin is neither convex nor concave)."""
    cut = []
    for n in range(1, 40):
        report = fresh("variable x\nminimize sin(x)\n", budget=Budget(n, Ticks()))
        if report.budget_spent and "sampling (after" in report.budget_spent:
            cut.append(report.objective)
    assert cut and all(p.evidence.samples < 4 for p in cut)
    assert {p.convex.status for p in cut} == {"unknown", "disproved"}
    assert all(p.convex.failures[0].startswith("budget spent on objective (x): sampling (after")
               for p in cut if p.convex.status == "unknown")


@pytest.mark.parametrize("seconds", [-1, math.nan, "60", True])
def test_a_bad_budget_is_refused(seconds):
    with pytest.raises(tc.TensorCalcError, match="budget: the seconds allowed must be a number >= 0"):
        convexcheck.analyze("variable x\nminimize x^2\n", budget=seconds)


def test_the_command_line_takes_a_budget(tmp_path, capsys):
    path = tmp_path / "p.tc"
    path.write_text("variable x\nvariable w\nminimize exp(x) + w^2 * x\n")
    memo.clear()
    assert main(["analyze", str(path), "--budget", "0"]) == 0
    out = capsys.readouterr().out
    assert "unknown: budget spent on objective (x, w)" in out and "(limit 0 s)" in out
    assert main(["analyze", str(path), "--budget", "inf", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["budget_spent"] is None
    with pytest.raises(SystemExit) as bad:
        main(["analyze", str(path), "--budget", "-2"])
    assert bad.value.code == 2 and "argument --budget: must be a finite number >= 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["analyze", "--help"])
    assert "--budget SECONDS" in capsys.readouterr().out


# ----------------------------------------------------------------------------- former blowups

def normal_calls(monkeypatch, fn, *args):
    """(fn(*args), the number of monomials normalised meanwhile: the certificate's work)."""
    from tensorcalc.algebra import monomials as algebra
    count, original = [0], algebra.normal

    def counting(*a, **k):
        count[0] += 1
        return original(*a, **k)
    monkeypatch.setattr(algebra, "normal", counting)
    memo.clear()
    return fn(*args), count[0]


def test_a_kinked_max_is_not_expanded_into_hessians(monkeypatch):
    """norm_inf(xexp(huber(X, 1e-8))) through the CVXPY bridge (28 s before): a max of 9
    entries is a chain of relu whose kinks no Hessian sign can pass, so the walk no
    longer forms and signs the Hessian of each link (97,295 monomials normalised
    before, 6,511 now)."""
    cp = pytest.importorskip("cvxpy")
    problem, _ = convexcheck.from_cvxpy(cp.norm_inf(cp.xexp(cp.huber(cp.Variable((3, 3)), 1e-8))))
    names = list(problem.variables)
    attrs = {n: d.attributes for n, d in problem.declarations.items()}
    cert, work = normal_calls(monkeypatch, analysis._certificate, problem, problem.objective, names, attrs,
                              convexcheck.budget.NEVER)
    assert not cert.concave
    assert work < 20_000


def test_nested_exponentials_grow_gently(monkeypatch):
    """kl_div(s, log1p(exp(...exp(x))) + x) (issue 24: 33 s, growing with the depth):
    the certificate's work at depth 8 is within a small multiple of depth 4's."""
    def work(depth):
        inner = "x"
        for _ in range(depth):
            inner = f"exp({inner})"
        problem = convexcheck.load_problem(f"variable x\nvariable s\nminimize kl_div(s, log1p({inner}) + x)\n")
        attrs = {n: d.attributes for n, d in problem.declarations.items()}
        return normal_calls(monkeypatch, analysis._certificate, problem, problem.objective, ["x", "s"], attrs,
                            convexcheck.budget.NEVER)[1]
    assert work(8) < 4 * work(4)


# ----------------------------------------------------------------------------- the grammar fuzz

FUZZ_BUDGET, FUZZ_MARGIN = 5.0, 10.0     # seconds; the margin: the longest step between two checks


@pytest.mark.slow
def test_grammar_inputs_end_within_the_budget():
    """3,000 random valid problems (tests/grammar.py): each is analysed or rejected with a
    documented error, within the budget and a margin, whatever it nests."""
    import grammar
    for seed in range(3000):
        timing = grammar.timed(seed, FUZZ_BUDGET)
        assert timing.outcome in ("ok", "rejected"), f"seed {seed}:\n{grammar.problem(seed)}"
        assert timing.seconds < FUZZ_BUDGET + FUZZ_MARGIN, \
            f"seed {seed}: {timing.seconds:.1f} s\n{grammar.problem(seed)}"
