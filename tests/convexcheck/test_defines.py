"""Affine-index definitions in problem files (issue 7): the TensorAlgDiff demo's ranges,
total-variation and deconvolution files proven convex and solved, soundness of the
certificate through gathers, and errors that point into the file."""
import json

import numpy as np
import pytest

import convexcheck
import solvers
import tensorcalc as tc
from convexcheck import ProblemError
from convexcheck_cli import convexcheck_main as main
from tensorcalc.printing.index import element_derivatives, ranges

DEMO = "f[i, j] = exp(-sum(k, 0, 4, (a[i, k] + b[j, k])^2 * c[i, i] + d[i + k]^3))"
SHAPES = {"a": (3, 5), "b": (4, 5), "c": (3, 3), "d": (8,), "f": (3, 4)}


def _d_gather():
    """The transposed gather in the d-derivative of l = sum(df .* f)."""
    f = tc.parse_def(DEMO, SHAPES)
    df = tc.dag.var("df", f.axes)
    g = tc.derivative(tc.dag.contraction((df, f), ("ab", "ab", "")), "d")
    assert isinstance(g, tc.dag.Product) and isinstance(g.args[0], tc.dag.Gather)
    return g.args[0]


def test_demo_d_derivative_outer_sum_runs_from_max_0_d_minus_2_to_min_4_d():
    text = element_derivatives(DEMO, SHAPES)["d"]
    assert text.startswith("dd[dd_0] = sum{dd_z1}_(max(0, dd_0 - 2))^(min(4, dd_0)) (sum{dd_z0}_0^3 (")
    node = _d_gather()
    from tensorcalc.printing.index import lin
    (inner, outer), guards = ranges(node, [lin({"b": 1})], ["j", "k"])
    assert not guards
    for beta in range(8):             # evaluate the printed bounds: max(0, b-2) .. min(4, b)
        lo = max(sum(v * {"b": beta, "": 1}[n] for n, v in e.items()) for e in outer[0])
        hi = min(sum(v * {"b": beta, "": 1}[n] for n, v in e.items()) for e in outer[1])
        assert (lo, hi) == (max(0, beta - 2), min(4, beta))


def test_demo_c_derivative_has_a_kronecker_guard_and_a_b_derivative_a_plain_sum():
    texts = element_derivatives(DEMO, SHAPES)
    assert "if {-dc_0 + dc_1 = 0} then" in texts["c"]
    assert texts["b"].startswith("db[db_0, db_1] = sum{db_z0}_0^2 (")
    assert texts["a"].startswith("da[da_0, da_1] = sum{da_z0}_0^3 (")


def test_reshape_derivative_substitutes_the_solved_index():
    text = element_derivatives("f[i, j] = exp(x[3*i + j])", {"x": (12,), "f": (4, 3)})["x"]
    assert "df[dx_z0, dx_0 - 3*dx_z0] * exp(x[dx_0])" in text


def _data(name):
    with np.load(f"examples/data/{name}.npz") as z:
        return {k: z[k] for k in z.files}


def test_total_variation_file_is_proven_convex_and_solved_to_the_closed_form():
    problem = convexcheck.load_problem("examples/total_variation.tc")
    report = convexcheck.analyze(problem, samples=8, seed=1)
    assert report.verdict == "convex"
    d = _data("total_variation")
    res = solvers.minimize(problem, data=d)
    D = np.diff(np.eye(200), axis=0)
    ref = np.linalg.solve(np.eye(200) + 2 * d["lam"] * D.T @ D, d["y"])
    assert res.success and res.convexity == "convex"
    np.testing.assert_allclose(res.x["x"], ref, rtol=1e-10, atol=1e-12)


def test_deconvolution_file_is_proven_convex_and_solved_to_the_closed_form():
    problem = convexcheck.load_problem("examples/deconvolution.tc")
    assert convexcheck.analyze(problem, samples=8, seed=1).verdict == "convex"
    d = _data("deconvolution")
    C = np.column_stack([np.convolve(d["h"], e) for e in np.eye(120)])      # full convolution
    ref = np.linalg.solve(C.T @ C + 2 * d["lam"] * np.eye(120), C.T @ d["y"])
    for method in ("newton", "lbfgs"):
        res = solvers.minimize(problem, data=d, method=method, gtol=1e-10)
        assert res.success
        np.testing.assert_allclose(res.x["x"], ref, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["total_variation", "deconvolution"])
def test_cli_analyze_and_solve(name, tmp_path, capsys):
    assert main(["analyze", f"examples/{name}.tc", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["problem"] == "convex"
    out = tmp_path / "x.npz"
    assert main(["solve", f"examples/{name}.tc", "--data", f"examples/data/{name}.npz", "--out", str(out)]) == 0
    assert "convexity: convex" in capsys.readouterr().out
    assert np.load(out)["x"].shape == {"total_variation": (200,), "deconvolution": (120,)}[name]


NONCONVEX = [
    "variable x[10]\ndefine g[i < 9] = x[i + 1] * x[i]\nminimize sum(g)",
    "variable x[10]\ndefine g[i < 9] = x[i + 1]^2 - x[i]^2\nminimize sum(g)",
    "variable x[10]\ndefine g[i < 5] = x[2*i] * x[2*i + 1]\nminimize sum(g^2) - sum(x^2)",
    "variable x[6]\ndefine g[i < 6] = sum(k, 0, i, x[k] * x[i - k])\nminimize sum(g)",
    "variable x[10]\ndefine g[i < 8] = x[i + 2] + x[i + 1] + x[i]\ndefine h[i < 8] = x[i + 1]\n"
    "minimize sum(g^2) - 4 * sum(h^2)",                         # a 3x3 Gram block, indefinite
]


@pytest.mark.parametrize("text", NONCONVEX)
def test_nonconvex_definitions_are_never_proven_convex(text):
    report = convexcheck.analyze(convexcheck.load_problem(text), samples=20, seed=0)
    assert report.objective.convex != "proven"
    assert report.verdict in ("nonconvex", "unknown")


CONVEX = [
    ("variable x[10]\ndefine g[i < 8] = x[i + 2] - 2 * x[i + 1] + x[i]\nminimize sum(g^2)", "convex"),
    ("variable x[10]\ndefine g[i < 8] = x[i + 2] - 2 * x[i + 1] + x[i]\nmaximize -sum(g^2)", "convex"),
    ("variable x[12]\ndefine g[i < 4, j < 3] = x[3*i + j]\nminimize sum(exp(g))", "convex"),
    ("variable x[9]\ndefine g[i < 3] = sum(k, 0, 2, x[3*i + k])^2\nminimize sum(g)", "convex"),
]


@pytest.mark.parametrize("text, verdict", CONVEX)
def test_convex_definitions_are_proven(text, verdict):
    assert convexcheck.analyze(convexcheck.load_problem(text), samples=10, seed=0).verdict == verdict


@pytest.mark.parametrize("text, phrase, line", [
    ("variable x[10]\ndefine g[i] = x[i]\nminimize sum(g)", "'i < N'", 2),
    ("variable x[10]\ndefine g[i < 10] = x[i + 1]\nminimize sum(g)", "outside 0..9", 2),
    ("variable x[n]\ndefine g[i < 3] = x[i]\nminimize sum(g)", "named dimensions", 2),
    ("variable x[10]\ndefine g[i < 3] = x[i * i]\nminimize sum(g)", "affine", 2),
    ("variable x[10]\ndefine x[i < 3] = x[i]\nminimize sum(x)", "already declared", 2),
    ("variable x[10]\ndefine g[i < 3] = y[i]\nminimize sum(g)", "unknown array 'y'", 2),
    ("variable x[10]\ndefine g[i < 3] = x[i]\nminimize sum(g *(i,i->) x)", "dimension", 3),
    ("variable x[10]\ndefine g = x\nminimize sum(x)", "define NAME[i < N", 2),
])
def test_bad_definitions_name_the_line_and_the_problem(text, phrase, line):
    with pytest.raises(ProblemError) as err:
        convexcheck.load_problem(text)
    assert phrase in str(err.value) and err.value.line == line


def test_definition_reads_an_earlier_definition_and_unified_axes():
    text = ("parameter y[8]\nvariable x[10]\ndefine g[i < 9] = x[i + 1] - x[i]\n"
            "define s[i < 8] = g[i + 1] - g[i]\nminimize sum((s - y)^2) + sum(x^2)")
    problem = convexcheck.load_problem(text)
    assert convexcheck.analyze(problem, samples=8, seed=0).verdict == "convex"
    y = np.linspace(-1, 1, 8)
    res = solvers.minimize(problem, data={"y": y})
    D2 = np.diff(np.eye(10), n=2, axis=0)
    ref = np.linalg.solve(D2.T @ D2 + np.eye(10), D2.T @ y)
    np.testing.assert_allclose(res.x["x"], ref, rtol=1e-9, atol=1e-12)
