"""Hardening from issue 24, items 9, 10, 11 and the position part of 11b.

9. The epigraph walk (solvers/epigraph.py) is iterative: long sums, deep negations and
   deep maxes lift without Python's recursion limit.
10. Declarations no value can satisfy (or only one degenerate value) are named with
    their line, the contradictory attributes and the fix, by analyze and by minimize alike.
11. The CVXPY bridge: 0-d axes, constant matrix_frac, constant folding CVXPY refuses.
11b. Shape errors of problem text carry line, column and caret.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import convexcheck
import solvers
import tensorcalc as tc
from convexcheck import ProblemError, load_problem
from convexcheck.problem.admissible import SampleError, sample_value, satisfies
from convexcheck.problem.model import Attributes
from solvers.reformulate import epigraph
from solvers.task.prepare import prepare
from tensorcalc import TensorCalcError

# ----------------------------------------------------------------------------- item 9: the epigraph walk

def _abs_sum(n: int) -> str:
    return "variable x\nminimize " + " + ".join(f"abs(x - {k})" for k in range(n)) + "\n"


def test_a_sum_of_ten_thousand_kinks_lifts_each_once():
    lifted = epigraph.lift(prepare(_abs_sum(10_000)))       # past epigraph.GROUP: the entries of one vector
    assert lifted.added == ("t_abs_entries",)
    assert [v.shape for v in lifted.task.free if v.name in lifted.added] == [(10_000,)]
    assert len(lifted.labels) == 20_000


@pytest.mark.parametrize("depth, lifted", [(5_000, ("t_abs",)), (5_001, ())])
def test_five_thousand_nested_negations_keep_the_sign(depth, lifted):
    text = "variable x\nminimize " + "-" * depth + "abs(x - 1)\n"
    assert epigraph.lift(prepare(text)).added == lifted       # an odd count: the kink is concave, left alone


def test_deeply_nested_maxes_flatten_into_one_site():
    depth = 5_000
    text = "variable x\nminimize " + "maximum(" * depth + "x" + "".join(f", {k})" for k in range(depth)) + "\n"
    lifted = epigraph.lift(prepare(text))
    assert lifted.added == ("t_max",) and len(lifted.labels) == depth + 1


def test_the_reproducers_solve():
    result = solvers.minimize(_abs_sum(350))                    # the median of 0..349
    assert result.success, result.message
    assert 174 - 1e-6 <= float(result.x["x"]) <= 175 + 1e-6
    result = solvers.minimize("variable x\nminimize " + "-" * 500 + "(x - 3)^2\n")
    assert result.success and float(result.x["x"]) == pytest.approx(3.0), result.message


# ----------------------------------------------------------------------------- item 10: declarations

DEGENERATE = [          # (declaration, what the message names)
    ("parameter A[3,3] nonpos psd", "degenerate attributes on 'A': 'nonpos' and 'psd' leave only the zero matrix"),
    ("parameter A[3,3] nonneg nsd", "degenerate attributes on 'A': 'nonneg' and 'nsd' leave only the zero matrix"),
    ("variable A[3,3] nonpos psd", "degenerate attributes on 'A': 'nonpos' and 'psd' leave only the zero matrix"),
    ("variable A[3,3] <= 0 symmetric psd", "'<= 0' and 'psd' leave only the zero matrix"),
    ("variable A[n,n] >= 2 <= 2 psd", "'>= 2' and '<= 2' pin every entry to 2, .* the singular 2 times"),
    ("variable A[n,n] >= 2 <= 2 pd", "contradictory attributes on 'A': '>= 2' and '<= 2' pin every entry to 2"),
    ("variable A[n,n] nd >= -1 <= -1", "contradictory attributes on 'A': '>= -1' and '<= -1' pin"),
    ("variable A[n,n] nsd >= 1", "contradictory attributes on 'A': a nsd matrix has a diagonal that '>= 1'"),
]


def _uses(declaration: str) -> str:
    return f"{declaration}\nvariable x[3]\nminimize x' * x + sum(A * x)"


@pytest.mark.parametrize("declaration, message", DEGENERATE)
@pytest.mark.parametrize("entry", ["analyze", "minimize"])
def test_degenerate_declarations_are_named_with_line_and_fix(declaration, message, entry):
    text = _uses(declaration).replace("[n,n]", "[3,3]")
    run = convexcheck.analyze if entry == "analyze" else solvers.minimize
    with pytest.raises(ProblemError, match=message) as info:
        run(text, data={"A": np.zeros((3, 3))}) if entry == "minimize" and "parameter" in text else run(text)
    assert "line 1, column" in str(info.value) and str(info.value).count("^") == 1
    assert "drop" in str(info.value) or "widen" in str(info.value)


def test_bounds_beyond_float64_for_a_definite_matrix_are_named_at_the_declaration():
    text = _uses("parameter A[3,3] <= -1e308 nsd")
    message = "cannot draw a value of parameter 'A'.* '<= -1e\\+308 nsd'.* eigenvalue .* rescale the problem"
    with pytest.raises(ProblemError, match=message) as info:
        convexcheck.analyze(text)
    assert "line 1, column 11" in str(info.value)
    data = {"A": -1e308 * np.ones((3, 3)) - 1e307 * np.eye(3)}
    with pytest.raises(ProblemError, match="parameter 'A' \\(declared on line 1\\).*" + message.split(".*", 1)[1]):
        solvers.minimize(text, data=data)                # the verdict is for every admissible A


def test_large_but_representable_bounds_are_sampled():
    assert convexcheck.analyze(_uses("parameter A[3,3] >= 1e300 psd")).verdict == "convex"
    assert convexcheck.analyze("variable x >= -1.7e308 <= 1.7e308\nminimize x^2").verdict == "convex"


BOUNDS = [None, (">=", -1.0), (">", 0.0), (">=", 0.0), (">=", 1.0), (">=", 1e300)]
UPPER = [None, ("<=", 1.0), ("<", 0.0), ("<=", 0.0), ("<=", -1.0), ("<=", 1e300)]
CONES = ["", "symmetric", "psd", "pd", "nsd", "nd"]


@pytest.mark.parametrize("cone", CONES)
def test_every_accepted_declaration_can_be_sampled(cone):
    """The general rule: what the declarations module accepts, the sampler draws; what it
    refuses, it refuses as contradictory or degenerate, with the fix."""
    rng = np.random.default_rng(0)
    for lower, upper in itertools.product(BOUNDS, UPPER):
        words = " ".join(f"{b[0]} {b[1]:g}" for b in (lower, upper) if b) + f" {cone}"
        text = f"parameter A[3,3] {words}\nexpression sum(A)"
        try:
            decl = load_problem(text).declarations["A"]
        except ProblemError as exc:
            assert "contradictory" in str(exc) or "degenerate" in str(exc), str(exc)
            continue
        for scale in (0.1, 1.0, 10.0):
            value = sample_value(decl.attributes, (3, 3), rng, scale)
            assert satisfies(decl.attributes, value), (words, value)


def test_the_sampler_refuses_with_its_own_error():
    with pytest.raises(SampleError, match="no 2x2 matrix is '<= -1 psd'"):
        sample_value(Attributes(definite="psd", upper=-1.0), (2, 2), np.random.default_rng(0))
    assert issubclass(SampleError, TensorCalcError)


# ----------------------------------------------------------------------------- item 11: the CVXPY bridge

def _bridged(expr):
    cp = pytest.importorskip("cvxpy")
    problem, data = convexcheck.from_cvxpy(expr)
    return cp, problem, data, convexcheck.analyze(problem, data=data)


@pytest.mark.parametrize("axis", [0, -1])
def test_a_sum_over_the_axis_of_a_0d_variable_is_the_variable(axis):
    cp = pytest.importorskip("cvxpy")
    x = cp.Variable(name="x")
    _, problem, _, report = _bridged(cp.sum(x, axis=axis) ** 2)
    assert problem.text.endswith("expression (x ^ 2)") and report.verdict == "convex"


def test_a_promoted_scalar_keeps_its_length_where_nothing_around_fixes_it():
    cp = pytest.importorskip("cvxpy")
    s = cp.Variable(name="s")
    for expr, factor in ((cp.sum(cp.promote(s, (3,))), 3.0), (cp.norm1(cp.promote(s, (2, 2))), 4.0)):
        _, problem, data, report = _bridged(expr)
        assert report.verdict == "convex", problem.text
        assert float(tc.evaluate(problem.objective.expr, {"s": np.array(0.7), **data})) == pytest.approx(factor * 0.7)


def test_matrix_frac_of_a_constant_pd_matrix_translates():
    cp = pytest.importorskip("cvxpy")
    P = 2 * np.eye(3) + 0.1
    v = cp.Variable(3, name="v")
    _, problem, data, report = _bridged(cp.matrix_frac(v, cp.Constant(P)))
    assert "inv(c0)" in problem.text and "parameter c0[3, 3] pos pd" in problem.text
    assert report.verdict == "convex"
    w = np.array([1.0, -2.0, 0.5])
    expr = problem.objective.expr
    assert float(tc.evaluate(expr, {"v": w, **data})) == pytest.approx(w @ np.linalg.solve(P, w))


@pytest.mark.parametrize("atom, message", [
    ("log_det", "CVXPY cannot evaluate the constant subexpression log_det\\(.*\\): Input matrix was not "
                "Hermitian/symmetric; give constants in the domain"),
    ("tr_inv", "CVXPY cannot evaluate the constant subexpression tr_inv\\(.*\\): Input array to tr_inv was not "
               "Hermitian/symmetric; give constants in the domain"),
])
def test_constant_folding_that_cvxpy_refuses_is_a_problem_error(atom, message):
    cp = pytest.importorskip("cvxpy")
    x = cp.Variable(name="x")
    folded = getattr(cp, atom)(cp.Constant(np.array([[2.0, 1.0], [0.0, 2.0]])))
    with pytest.raises(ProblemError, match=message):
        convexcheck.from_cvxpy(folded + x)


def test_constant_folding_outside_the_domain_names_the_subexpression():
    cp = pytest.importorskip("cvxpy")
    x = cp.Variable(name="x")
    indefinite = cp.Constant(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ProblemError, match="the constant subexpression log_det\\(.*\\) is complex, NaN or infinite"):
        convexcheck.from_cvxpy(cp.log_det(indefinite) + x)


# ----------------------------------------------------------------------------- item 11b: located shape errors

UNFIXED = [          # (text, line, column, what the message names)
    ("variable x\nminimize sum(vector(1)) + x^2", 2, 14, "the length of 'vector\\(1\\)' is fixed by nothing"),
    ("variable x\nminimize sum(vector(1))", 2, 14, "the length of 'vector\\(1\\)' is fixed by nothing"),
    ("variable x\nminimize sum(eye) + x^2", 2, 14, "the length of axis 0 of 'eye' is fixed by nothing"),
    ("variable x[n]\nminimize x' * x + ones' * ones", 2, 19, "the length of 'ones' is fixed by nothing"),
    ("variable x[n]\nminimize x' * x\nsubject to\n  sum(vector(1)) <= 3", 4, 7, "'vector\\(1\\)' is fixed by nothing"),
    ("variable x[n]\nlet v = vector(1)\nminimize x' * x + sum(v)", 2, 9, "'vector\\(1\\)' is fixed by nothing"),
    ("declare x 0\nexpression x + sum(vector(2))", 2, 20, "'vector\\(2\\)' is fixed by nothing"),
]


@pytest.mark.parametrize("text, line, column, message", UNFIXED)
def test_an_axis_no_declaration_fixes_is_a_located_error(text, line, column, message):
    for run in (load_problem, convexcheck.analyze, solvers.minimize):
        with pytest.raises(ProblemError, match=message + ".* declared vector or matrix") as info:
            run(text)
        shown = str(info.value)
        assert f"line {line}, column {column}:" in shown and shown.count("line ") == 1, shown
        assert [row.strip() for row in shown.split("\n")].count("^") == 1, shown


@pytest.mark.parametrize("text", [
    "variable x[n]\nminimize x' * x + vector(1)' * x",
    "variable A[n, n]\nminimize sum(A * vector(1)) + tr(A' * A)",
    "variable x[n]\nlet v = vector(1)\nminimize x' * x + v' * x",
    "variable x[3]\nminimize sum(x[0:2] .* vector(2))^2",
])
def test_constants_whose_lengths_a_declaration_fixes_are_read(text):
    load_problem(text)
