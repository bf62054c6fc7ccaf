"""The CVXPY bridge: every translated atom evaluates to CVXPY's value (tensorcalc.evaluate on
the same variable values and the translation's data as the oracle check), verdicts on
expressions DCP rejects or accepts, constrained problems, and rejections naming the atom.
Non-smooth atoms (abs, maximum, norms, huber, ...) are checked by value in the same way."""
import numpy as np
import pytest

import convexcheck
import tensorcalc as tc

cp = pytest.importorskip("cvxpy")

RNG = np.random.default_rng(7)
M = RNG.standard_normal((3, 3))
PSD = M @ M.T + 0.1 * np.eye(3)
INDEFINITE = np.diag([1.0, -1.0, 2.0])
LABELS = np.array([1.0, -1.0, 1.0])
HAS_HUBER = "huber" in tc.dag.ELEMENTWISE


def _variables():
    return dict(x=cp.Variable(name="x"), y=cp.Variable(name="y", pos=True), v=cp.Variable(3, name="v"),
                u=cp.Variable(3, name="u", pos=True), X=cp.Variable((3, 3), name="X"),
                S=cp.Variable((3, 3), name="S", PSD=True))


def _values(rng):
    g = rng.standard_normal((3, 3))
    return dict(x=rng.standard_normal(), y=rng.uniform(0.5, 2), v=rng.standard_normal(3),
                u=rng.uniform(0.5, 2, 3), X=rng.standard_normal((3, 3)), S=g @ g.T + np.eye(3))


# name -> the expression, built from the variables (a scalar, or summed)
ATOMS = {
    "add_neg": lambda d: cp.sum(d["v"] - 2 * d["u"] + 1),
    "matvec": lambda d: cp.sum(M @ d["v"]),
    "vecmat": lambda d: cp.sum(d["v"] @ M),
    "matmat": lambda d: cp.sum(d["X"] @ M),
    "dot": lambda d: d["v"] @ d["u"],
    "multiply": lambda d: cp.sum(cp.multiply(d["v"], d["u"])),
    "multiply_scalar": lambda d: cp.sum(cp.multiply(d["x"], d["v"])),
    "scalar_times": lambda d: cp.sum(d["y"] * d["v"]) + d["x"] * d["y"],
    "div_scalar": lambda d: cp.sum(d["v"] / d["y"]) + d["x"] / 3,
    "div_elementwise": lambda d: cp.sum(d["v"] / d["u"]),
    "index": lambda d: d["v"][0] + cp.sum(d["v"][1:]) + d["X"][1, 2] + cp.sum(d["X"][:, 0]),
    "transpose": lambda d: cp.sum(d["X"].T @ np.arange(3.0)),
    "sum_axis": lambda d: (cp.sum(cp.multiply(cp.sum(d["X"], axis=0), np.arange(3.0)))
                           + cp.sum(cp.sum(d["X"], axis=1) @ M)),
    "exp_log": lambda d: cp.sum(cp.exp(d["v"])) + cp.sum(cp.log(d["u"])) + cp.log1p(d["y"]),
    "entr": lambda d: cp.sum(cp.entr(d["u"])),
    "power": lambda d: cp.sum(cp.power(d["u"], 2) + cp.power(d["u"], 0.5) + cp.power(d["u"], -1)
                              + cp.power(d["u"], 3) + cp.power(d["u"], 1.5)),
    "inv_pos_sqrt_square": lambda d: cp.sum(cp.inv_pos(d["u"]) + cp.sqrt(d["u"]) + cp.square(d["v"])),
    "log_sum_exp": lambda d: cp.log_sum_exp(d["v"]) + cp.sum(cp.log_sum_exp(d["X"], axis=1)),
    "logistic": lambda d: cp.sum(cp.logistic(d["v"])),
    "quad_form": lambda d: cp.quad_form(d["v"], PSD),
    "quad_over_lin": lambda d: cp.quad_over_lin(d["v"], d["y"]),
    "sum_squares": lambda d: cp.sum_squares(d["v"]) + cp.sum_squares(d["X"]),
    "kl_div_rel_entr": lambda d: cp.sum(cp.kl_div(d["u"], 2 * d["u"] + 1) + cp.rel_entr(d["u"], d["y"])),
    "trace": lambda d: cp.trace(d["X"]) + cp.trace(M @ d["S"]),
    "matrix_frac": lambda d: cp.matrix_frac(d["v"], d["S"]) + cp.matrix_frac(d["X"], d["S"]),
    "log_det": lambda d: cp.log_det(d["S"]),
    "tr_inv": lambda d: cp.tr_inv(d["S"]),
    "xexp": lambda d: cp.sum(cp.xexp(d["u"])),
    "stack_reshape": lambda d: cp.sum(cp.hstack([d["v"], d["u"]]) @ np.arange(6.0))
    + cp.sum(cp.multiply(cp.vstack([d["v"], d["u"]]), M[:2])) + cp.sum(cp.reshape(d["X"], (9,), order="F")[:4])
    + 2 * cp.sum(cp.cumsum(d["v"])) + cp.diag(d["X"]) @ np.arange(3.0),
}
# non-smooth atoms, lowered exactly to abs and relu (convexcheck/bridge_nonsmooth.py); convex by DCP
NON_SMOOTH = {
    "abs_pos_neg": lambda d: cp.sum(cp.abs(d["v"]) + cp.pos(d["v"]) + 2 * cp.neg(d["v"])) + cp.abs(d["x"])
    + cp.pos(d["x"] - 1) + cp.neg(d["x"] + 1),
    "maximum": lambda d: cp.sum(cp.maximum(d["v"], 1) + cp.maximum(0, d["v"], cp.square(d["v"]) - 2)
                                + cp.maximum(d["v"], d["x"])) + cp.maximum(d["x"], -d["x"], 0.5),
    "minimum_neg": lambda d: -cp.sum(cp.minimum(d["v"], 2 * d["v"] + 1, -d["x"])) - cp.minimum(d["x"], 0),
    "max_min": lambda d: cp.max(d["v"]) - cp.min(d["X"]) + cp.sum(cp.max(d["X"], axis=0))
    - cp.sum(cp.min(d["X"], axis=1)) + cp.max(cp.exp(d["v"]) + d["x"]) + cp.max(d["x"]),
    "norm1": lambda d: cp.norm1(d["v"]) + cp.norm(d["v"] - 1, 1) + cp.sum(cp.norm1(d["X"], axis=0)),
    "norm2": lambda d: cp.norm2(d["v"]) + cp.norm(M @ d["v"] + 1, 2) + cp.pnorm(d["v"], 2)
    + cp.sum(cp.norm(d["X"], 2, axis=1)) + cp.norm(d["x"], 2),
    "norm_fro": lambda d: cp.norm(d["X"], "fro") + cp.norm(d["X"] @ M - np.eye(3), "fro"),
    "pnorm": lambda d: cp.pnorm(d["v"], 3) + cp.pnorm(d["X"] - 1, 1.5),
    "norm_inf": lambda d: cp.norm_inf(d["v"]) + cp.norm(d["v"] - 2, "inf") + cp.sum(cp.norm_inf(d["X"], axis=1))
    + cp.norm(d["X"], 1),
    "hinge": lambda d: cp.sum(cp.pos(1 - cp.multiply(LABELS, M @ d["v"] + d["x"]))),
    "lasso": lambda d: cp.sum_squares(M @ d["v"] - 1) + 0.5 * cp.norm1(d["v"]),
}
HUBER = {"huber": lambda d: cp.sum(cp.huber(d["v"], 2)) + cp.huber(d["x"]) + cp.sum(cp.huber(d["X"] - 1, 0.5))}
ATOMS.update(NON_SMOOTH)
ATOMS.update(HUBER)


@pytest.mark.parametrize("name", sorted(ATOMS))
def test_translation_evaluates_to_cvxpy_value(name):
    if name in HUBER and not HAS_HUBER:
        pytest.skip("tensorcalc has no huber function yet")
    d = _variables()
    expr = ATOMS[name](d)
    problem, data = convexcheck.from_cvxpy(expr)
    rng = np.random.default_rng(sorted(ATOMS).index(name))
    for _ in range(3):
        values = _values(rng)
        for key, var in d.items():
            var.value = values[key]
        ours = tc.evaluate(problem.objective.expr, {**values, **data})
        assert np.isclose(float(ours), expr.value, rtol=1e-8, atol=1e-8), (name, problem.text)


def test_readme_examples_dcp_rejects_convexcheck_proves():
    x, v = cp.Variable(name="x"), cp.Variable(3, name="v")
    for expr in (x * x, v.T @ v):
        assert not expr.is_dcp()
        report = convexcheck.analyze_cvxpy(expr, samples=3)
        assert (report.verdict, report.objective.convex.status) == ("convex", "proven")
        assert report.objective.concave.status == "disproved"


@pytest.mark.parametrize("build, convex, concave", [
    (lambda v, S: cp.quad_form(v, PSD), "proven", "disproved"),
    (lambda v, S: cp.quad_form(v, INDEFINITE), "disproved", "disproved"),
    (lambda v, S: cp.log_det(S), "disproved", "proven"),
    (lambda v, S: cp.sum(cp.entr(v)), "disproved", "proven"),
    (lambda v, S: cp.sum(cp.logistic(v)), "proven", "disproved"),
])
def test_verdicts_on_dcp_atoms(build, convex, concave):
    v, S = cp.Variable(3, name="v", pos=True), cp.Variable((3, 3), name="S", PSD=True)
    report = convexcheck.analyze_cvxpy(build(v, S), samples=10)
    assert (report.objective.convex.status, report.objective.concave.status) == (convex, concave), \
        report.problem.text
    if convex == "disproved":
        assert report.objective.convex.witness is not None


def test_constants_become_parameters_with_attributes_and_data():
    v = cp.Variable(3, name="v")
    problem, data = convexcheck.from_cvxpy(cp.quad_form(v, PSD) + np.ones(3) @ v - 2 * cp.sum(v))
    decls = problem.parameters
    assert decls["c0"].attributes.definite == "pd" and decls["c1"].attributes.lower == 0
    assert np.allclose(data["c0"], PSD) and np.array_equal(data["c1"], np.ones(3))
    rank_one = np.outer([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])     # lambda_min about -1e-16: psd, as in CVXPY
    problem, data = convexcheck.from_cvxpy(cp.quad_form(v, rank_one))
    assert problem.parameters["c0"].attributes.definite == "psd"
    assert np.abs(data["c0"] - rank_one).max() < 1e-9


def test_problem_with_constraints_and_parameters():
    x = cp.Variable(3, name="x", nonneg=True)
    lam = cp.Parameter(name="lambda", nonneg=True, value=0.5)       # 'lambda' is fine here; 'sum' is reserved
    total = cp.Variable(name="sum")
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x) + lam * total),
                      [cp.sum(x) == 1, x <= 1, cp.exp(x[0]) <= total, cp.sum(cp.log(x + 1)) >= 0.1,
                       cp.constraints.NonNeg(cp.log(x + 2))])
    problem, data = convexcheck.from_cvxpy(prob)
    assert "variable sum_  # CVXPY name 'sum'" in problem.text and data["lambda"] == 0.5
    report = convexcheck.analyze_cvxpy(prob, samples=5)
    assert report.verdict == "convex", report.to_text()
    # CVXPY stores a >= b as b <= a; NonNeg(g) is g >= 0; vector sides stay entrywise constraints
    assert [p.part.need for p in report.constraints] == ["affine", "convex", "convex", "convex", "concave"]
    assert "  x - 1 <= 0\n" in problem.text and "parameter w" not in problem.text
    bad = cp.Problem(cp.Maximize(cp.sum(x)), [cp.square(x) >= 1])
    assert convexcheck.analyze_cvxpy(bad, samples=10).verdict == "nonconvex"


def test_names_bounds_and_parameter_values():
    a, b, c = cp.Variable(name="x"), cp.Variable(name="x"), cp.Variable(2, bounds=[0, 5])
    rank_one = cp.Parameter((2, 2), PSD=True, name="2P", value=np.outer([1.0, 3.0], [1.0, 3.0]))
    problem, data = convexcheck.from_cvxpy(a * b + cp.sum(c) + cp.exp(a) + cp.quad_form(c, rank_one))
    names = list(problem.variables)
    assert names[:2] == ["x", "x_1"] and names[2].startswith("var")
    assert problem.variables[names[2]].attributes.describe() == ">= 0 <= 5"
    assert problem.parameters["v2P"].attributes.definite == "psd" and "v2P" in data
    assert convexcheck.analyze(problem, samples=3, data=data).variables[names[2]].convex.status == "proven"


@pytest.mark.parametrize("name", sorted(NON_SMOOTH) + sorted(HUBER))
def test_non_smooth_dcp_convex_is_never_disproved(name):
    """DCP proves each convex; through the bridge convexcheck never says otherwise."""
    if name in HUBER and not HAS_HUBER:
        pytest.skip("tensorcalc has no huber function yet")
    expr = ATOMS[name](_variables())
    assert expr.is_dcp() and expr.is_convex()
    report = convexcheck.analyze_cvxpy(expr, samples=4)
    assert report.objective.convex.status != "disproved", report.to_text()
    assert report.objective.concave.status != "proven", report.to_text()


@pytest.mark.parametrize("name", ["abs_pos_neg", "hinge", "lasso", "maximum", "minimum_neg", "norm1", "norm2",
                                  "norm_fro", "huber", "max_min", "norm_inf", "pnorm"])
def test_non_smooth_models_are_proven_convex(name):
    """The bridge's lowerings are in the forms the composition certificate proves."""
    if name in HUBER and not HAS_HUBER:
        pytest.skip("tensorcalc has no huber function yet")
    report = convexcheck.analyze_cvxpy(ATOMS[name](_variables()), samples=4)
    assert report.objective.convex.status == "proven", report.to_text()


@pytest.mark.parametrize("build, match", [
    (lambda v: cp.sum_largest(v, 2), "CVXPY sum_largest is not translated: a function of the largest"),
    (lambda v: cp.max(cp.Variable(40)), "max over 40 entries is not supported"),
    (lambda v: cp.sum(cp.max(cp.Variable((2, 3)), axis=0, keepdims=True)), "keepdims=True is not supported"),
    (lambda v: cp.pnorm(v, 0.5), "pnorm with p = 0.5 is not supported"),
    (lambda v: cp.geo_mean(v + 1, [1, 2, 3]), "geo_mean with unequal weights is supported of a variable"),
    (lambda v: cp.geo_mean(cp.Variable((2, 2), pos=True)), "geo_mean along an axis or of a matrix"),
    (lambda v: cp.Problem(cp.Minimize(cp.sum(v)), [cp.constraints.FiniteSet(v, [1.0, 2.0])]),
     "constraint 1: CVXPY FiniteSet constraints are not supported"),
    (lambda v: v, r"the expression has shape \(3,\); give a scalar"),
])
def test_rejections_name_the_atom(build, match):
    with pytest.raises(convexcheck.ProblemError, match=match):
        convexcheck.from_cvxpy(build(cp.Variable(3, name="v", pos=True)))


def test_a_translated_problem_with_vector_constraints_solves_as_cvxpy_does():
    import solvers
    x = cp.Variable(3, name="x", nonneg=True)
    A = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([1.0, -1.0, 2.0]))),
                      [A @ x <= np.array([1.0, 1.5]), cp.sum(x) == 1, x <= 0.8])
    problem, data = convexcheck.from_cvxpy(prob)
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    result = solvers.minimize(problem, data=data)
    assert result.status == 0 and result.fun == pytest.approx(prob.value, rel=1e-8)
    for k in (1, 3):
        np.testing.assert_allclose(result.multipliers[f"constraint {k}"], prob.constraints[k - 1].dual_value, atol=1e-6)


@pytest.mark.parametrize("weights", [None, [1, 3, 2], [2, 1, 0]])
def test_geo_mean_is_proven_concave_and_solves_as_cvxpy_does(weights):
    """geo_mean as exp(mean(log x)) (equal weights) or exp(sum_i w_i log x[i]): the
    certificate proves it concave and the solve reaches CVXPY's optimum."""
    import solvers
    x = cp.Variable(3, name="x", nonneg=True)
    gm = cp.geo_mean(x) if weights is None else cp.geo_mean(x, weights)
    problem = cp.Problem(cp.Maximize(gm), [cp.sum(x) <= 3, x[0] <= 0.5, x <= 2])
    assert convexcheck.analyze_cvxpy(problem, samples=4).verdict == "convex"
    result = solvers.minimize(problem, method="auto")
    problem.solve(solver="CLARABEL")
    assert result.success, result.message
    assert result.fun == pytest.approx(problem.value, rel=1e-6)


def test_repeated_constants_share_one_parameter():
    """A loop of constraints with one matrix A: one parameter for A, one per distinct vector."""
    A = np.array([[1.0, 0.5], [0.0, 1.0]])
    x = cp.Variable((2, 4), name="x")
    rows = [x[:, t + 1] == A @ x[:, t] for t in range(3)] + [x[:, 0] == np.array([1.0, 2.0]),
                                                              x[:, 3] == np.array([1.0, 2.5])]
    problem, data = convexcheck.from_cvxpy(cp.Problem(cp.Minimize(cp.sum_squares(x)), rows))
    shapes = sorted(np.shape(v) for v in data.values())
    assert shapes == [(2,), (2,), (2, 2)]
    assert sum(1 for v in data.values() if np.array_equal(v, A)) == 1


def test_integer_and_boolean_variables_are_relaxed_with_a_warning():
    from convexcheck.bridge.data import RelaxationWarning
    n, b = cp.Variable(2, integer=True, name="n"), cp.Variable(2, boolean=True, name="b")
    problem = cp.Problem(cp.Minimize(cp.sum_squares(n - 0.4) + cp.sum(b)), [cp.sum(b) >= 0.5])
    with pytest.warns(RelaxationWarning, match="continuous relaxation"):
        translated, _ = convexcheck.from_cvxpy(problem)
    assert "variable n[2]\n" in translated.text and "variable b[2] >= 0 <= 1" in translated.text
