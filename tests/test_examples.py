"""Every example's verdicts, as `convexcheck analyze` reports them (issue 4, item 6)."""
import json

import pytest

import convexcheck
from convexcheck.cli import main

P, D, U = "proven", "disproved", "unknown"

# file: (problem, objective convex, objective concave, {variable: (convex, concave)})
EXPECTED = {
    "logistic_regression": ("convex", P, D, {"w": (P, D)}),
    "least_squares": ("convex", P, D, {"w": (P, D)}),
    "ridge": ("convex", P, D, {"w": (P, D)}),
    "quadratic_psd": ("convex", P, D, {"x": (P, D)}),
    "quadratic_indefinite": ("nonconvex", D, D, {"x": (D, D)}),
    "log_sum_exp": ("convex", P, D, {"x": (P, D)}),
    "log_det": ("convex", D, P, {"X": (D, P)}),
    "matrix_factorisation": ("nonconvex", D, D, {"U": (P, D), "V": (P, D)}),
    "rosenbrock": ("nonconvex", D, D, {"x": (D, D), "y": (P, D)}),
    "sqrt_x2_plus_1": ("convex", P, D, {"x": (P, D)}),
    "xlogx": ("convex", P, D, {"x": (P, D)}),
    "quad_over_lin": ("convex", P, D, {"x": (P, D), "y": (P, D)}),
    "geometric_mean": ("convex", D, P, {"x": (D, P), "y": (D, P)}),
    "constrained": ("convex", D, P, {"p": (D, P)}),
    "chebyshev": ("convex", P, D, {"x": (P, D)}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_verdicts(name):
    problem, convex, concave, variables = EXPECTED[name]
    report = convexcheck.analyze(f"examples/{name}.tc", samples=5, seed=1).to_dict()
    assert report["problem"] == problem
    assert (report["objective"]["convex"], report["objective"]["concave"]) == (convex, concave)
    assert {n: (v["convex"], v["concave"]) for n, v in report["variables"].items()} == variables


# The models a practitioner writes first (issue 13): each convex jointly in its variables,
# never concave. Their proofs need the composition rules (sums of separately proven terms,
# abs and relu of affine arguments).
PRACTITIONER = ["logistic_intercept", "poisson_intercept", "elastic_net", "pseudo_huber", "lasso",
                "svm_hinge"]


@pytest.mark.parametrize("name", PRACTITIONER)
def test_practitioner_example_is_proven_convex(name):
    problem = convexcheck.load_problem(f"examples/{name}.tc")
    assert problem.sense == "minimize" and not problem.constraints
    report = convexcheck.analyze(problem, samples=5, seed=1).to_dict()
    assert report["problem"] == "convex"
    assert (report["objective"]["convex"], report["objective"]["concave"]) == (P, D)
    assert report["objective"]["proof"]["convex"]
    assert all(v["convex"] == P for v in report["variables"].values())


def test_softmax_regression_is_never_disproved_convex():
    report = convexcheck.analyze("examples/softmax_regression.tc", samples=5).to_dict()
    assert report["objective"]["convex"] in (P, U)
    assert report["objective"]["concave"] == D


def test_constrained_parts():
    report = convexcheck.analyze("examples/constrained.tc", samples=5).to_dict()
    parts = [(c["need"], c["convex"], c["concave"]) for c in report["constraints"]]
    assert parts == [("affine", P, P), ("convex", P, P), ("convex", P, D)]


def test_indefinite_quadratic_names_the_condition():
    report = convexcheck.analyze("examples/quadratic_indefinite.tc", samples=5).to_dict()
    assert "convex if A is psd" in report["objective"]["conditions"]


def test_cli_json_matches_api(capsys):
    assert main(["analyze", "examples/quad_over_lin.tc", "--json", "--samples", "3", "--seed", "2"]) == 0
    printed = json.loads(capsys.readouterr().out)
    direct = convexcheck.analyze("examples/quad_over_lin.tc", samples=3, seed=2).to_dict()
    assert printed == json.loads(json.dumps(direct))
    assert set(printed) >= {"problem", "objective", "constraints", "variables"}
    assert set(printed["objective"]) >= {"convex", "concave", "witness"}


def test_cli_text_table(capsys):
    assert main(["analyze", "examples/rosenbrock.tc"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("problem: nonconvex")
    assert "objective in y alone" in out


@pytest.mark.parametrize("args, phrase", [
    (["analyze", "examples/missing.tc"], "no such file"),
    (["analyze", "examples/rosenbrock.tc", "--dim", "q=3"], "no dimension 'q'"),
])
def test_cli_bad_input(args, phrase, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert phrase in err and "Traceback" not in err


@pytest.mark.parametrize("option", [["--dim", "n:3"], ["--samples", "0"]])
def test_cli_bad_option_is_an_argparse_error(option, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["analyze", "examples/rosenbrock.tc", *option])
    assert exc.value.code == 2
    assert f"argument {option[0]}:" in capsys.readouterr().err


def test_chebyshev_example_solves_to_cvxpys_value():
    cp = pytest.importorskip("cvxpy")
    import numpy as np

    import solvers
    rng = np.random.default_rng(0)
    A, b = rng.standard_normal((20, 4)), rng.standard_normal(20)
    result = solvers.minimize("examples/chebyshev.tc", data={"A": A, "b": b})
    x = cp.Variable(4)
    problem = cp.Problem(cp.Minimize(cp.norm_inf(A @ x - b)))
    problem.solve(solver="CLARABEL")
    assert result.success and result.lifted == ["t_abs", "t_max"]
    assert result.fun == pytest.approx(problem.value, rel=1e-6)
    assert np.abs(A @ result.x["x"] - b).max() == pytest.approx(result.fun, rel=1e-12)
