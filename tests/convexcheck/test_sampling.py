"""convexcheck.witness.sampling: numeric curvature counterexamples, each checked again here
with an independent second difference of the original expression."""
import json

import numpy as np
import pytest

import tensorcalc
from convexcheck.problem.model import Attributes, Declaration, Part, Problem
from convexcheck.witness import sampled_hessians, sampling

QUADRATIC = "x *(i,ij->j) A *(j,j->) x"
LOGISTIC = "1 *(i,i->) log(1 + exp(-(y *(i,i->i) (X *(ij,j->i) w))))"


def problem(expr, **decls):
    """A problem whose declarations are name=(kind, dims, Attributes)."""
    declarations = {n: Declaration(n, k, dims, a) for n, (k, dims, a) in decls.items()}
    return Problem(declarations, "minimize", Part("objective", "", expr, "convex"))


def quadratic(definite=None, symmetric=False):
    expr = tensorcalc.parse_expr(QUADRATIC, {"x": 1, "A": 2})
    attrs = Attributes(symmetric=symmetric, definite=definite)
    return expr, problem(expr, x=("variable", ("n",), Attributes()), A=("parameter", ("n", "n"), attrs))


def second_difference(expr, witness):
    """Recomputed from scratch: (f(x + h d) - 2 f(x) + f(x - h d)) / h^2."""
    h = witness.step
    def f(t):
        values = {n: v + t * witness.direction.get(n, 0.0) for n, v in witness.point.items()}
        return float(tensorcalc.evaluate(expr, values))
    return (f(h) - 2 * f(0) + f(-h)) / h ** 2


def check(expr, witness, sign):
    """The witness holds: its recomputed second difference has `sign` and |d| = 1."""
    s = second_difference(expr, witness)
    assert np.sign(s) == sign == np.sign(witness.curvature)
    assert s == pytest.approx(witness.second_difference, rel=1e-6)
    norm = np.sqrt(sum(np.sum(d ** 2) for d in witness.direction.values()))
    assert norm == pytest.approx(1.0)


def test_convex_quadratic_has_only_a_concave_witness():
    expr, prob = quadratic("psd")
    ev = sampling.search(expr, prob, ["x"], samples=10)
    assert ev.convex_witness is None and ev.samples == 10
    assert ev.min_curvature > -1e-9 and ev.max_curvature > 0
    check(expr, ev.concave_witness, +1)


def test_indefinite_quadratic_has_a_convex_witness():
    expr, prob = quadratic(symmetric=True)
    ev = sampling.search(expr, prob, ["x"], want=("convex",))
    check(expr, ev.convex_witness, -1)
    assert ev.concave_witness is None            # not wanted, not looked for
    assert set(ev.convex_witness.point) == {"x", "A"} and set(ev.convex_witness.direction) == {"x"}


def test_rosenbrock_jointly_in_two_scalars():
    expr = tensorcalc.parse_expr("(1 - x)^2 + 100 *(,->) (y - x^2)^2", {"x": 0, "y": 0})
    prob = problem(expr, x=("variable", (), Attributes()), y=("variable", (), Attributes()))
    ev = sampling.search(expr, prob, ["x", "y"])
    check(expr, ev.convex_witness, -1)
    assert set(ev.convex_witness.direction) == {"x", "y"}
    assert all(abs(ev.convex_witness.direction[n]) > 0 for n in ("x", "y"))


def log_det(n=3):
    expr = tensorcalc.parse_expr("log(det(X))", {"X": 2})
    return expr, problem(expr, X=("variable", (n, n), Attributes(definite="pd")))


def test_log_det_is_concave_over_symmetric_directions():
    expr, prob = log_det()
    ev = sampling.search(expr, prob, ["X"], samples=12)
    assert ev.concave_witness is None and ev.max_curvature < 0
    witness = ev.convex_witness
    check(expr, witness, -1)
    d = witness.direction["X"]
    assert np.array_equal(d, d.T)
    assert np.all(np.linalg.eigvalsh(witness.point["X"]) > 0)


def test_symmetric_basis_is_orthonormal_and_symmetric():
    b = sampled_hessians.symmetric_basis((4, 4)).toarray()
    assert b.shape == (16, 10)
    assert np.allclose(b.T @ b, np.eye(10))
    for column in b.T:
        assert np.array_equal(column.reshape(4, 4), column.reshape(4, 4).T)


def test_operator_path_agrees_with_dense(monkeypatch):
    expr, prob = log_det(4)
    dense = sampling.search(expr, prob, ["X"], samples=3, want=())
    monkeypatch.setattr(sampling, "DENSE_LIMIT", 0)
    lanczos = sampling.search(expr, prob, ["X"], samples=3, want=())
    assert lanczos.min_curvature == pytest.approx(dense.min_curvature, rel=1e-6)
    assert lanczos.max_curvature == pytest.approx(dense.max_curvature, rel=1e-6)
    check(expr, sampling.search(expr, prob, ["X"]).convex_witness, -1)


def test_lanczos_ritz_values_lie_inside_and_become_exact():
    rng = np.random.default_rng(3)
    g = rng.standard_normal((50, 50))
    h = (g + g.T) / 2
    eig = np.linalg.eigvalsh(h)
    op = sampling.scipy.sparse.linalg.aslinearoperator(h)
    (low, v_low), (high, v_high) = sampled_hessians.lanczos(op, 20)
    assert eig[0] <= low < high <= eig[-1]
    assert v_low @ h @ v_low == pytest.approx(low) and v_high @ h @ v_high == pytest.approx(high)
    (low, _), (high, _) = sampled_hessians.lanczos(op, 50)
    assert (low, high) == pytest.approx((eig[0], eig[-1]))


def logistic(n, m):
    expr = tensorcalc.parse_expr(LOGISTIC, {"X": 2, "y": 1, "w": 1})
    return expr, problem(expr, X=("parameter", ("m", "n"), Attributes()),
                         y=("parameter", ("m",), Attributes()), w=("variable", ("n",), Attributes()))


def test_logistic_regression_large_is_not_concave():
    expr, prob = logistic("n", "m")
    ev = sampling.search(expr, prob, ["w"], sizes={"n": 1000, "m": 2000}, want=("concave",))
    assert ev.concave_witness is not None and ev.convex_witness is None
    assert ev.concave_witness.point["X"].shape == (2000, 1000)
    assert ev.concave_witness.second_difference > 0


def test_logistic_regression_small_is_convex():
    expr, prob = logistic("n", "m")
    ev = sampling.search(expr, prob, ["w"], sizes={"n": 5, "m": 8})
    assert ev.convex_witness is None and ev.concave_witness is not None


def test_deterministic_under_seed():
    expr, prob = quadratic(symmetric=True)
    a, b = (sampling.search(expr, prob, ["x"], seed=7) for _ in range(2))
    assert a.convex_witness.to_dict() == b.convex_witness.to_dict()
    assert (a.samples, a.min_curvature, a.max_curvature) == (b.samples, b.min_curvature, b.max_curvature)
    other = sampling.search(expr, prob, ["x"], seed=8)
    assert not np.array_equal(other.convex_witness.point["A"], a.convex_witness.point["A"])


def test_domain_skips_points_outside():
    expr = tensorcalc.parse_expr("log(x)", {"x": 0})
    prob = problem(expr, x=("variable", (), Attributes()))
    ev = sampling.search(expr, prob, ["x"], samples=10, want=("concave",))
    assert ev.samples == 10 and ev.skipped > 0 and ev.concave_witness is None
    assert ev.max_curvature < 0
    witness = sampling.search(expr, prob, ["x"]).convex_witness
    check(expr, witness, -1)
    assert witness.point["x"] > 0


def test_no_witness_outside_declared_bounds():
    expr = tensorcalc.parse_expr("x^3", {"x": 0})            # convex on x >= 0 only
    prob = problem(expr, x=("variable", (), Attributes(lower=0.0)))
    ev = sampling.search(expr, prob, ["x"])
    assert ev.convex_witness is None and ev.min_curvature >= 0
    free = problem(expr, x=("variable", (), Attributes()))
    check(expr, sampling.search(expr, free, ["x"]).convex_witness, -1)


def test_verify_refuses_an_unfounded_candidate():
    expr = tensorcalc.parse_expr("x *(i,i->) x", {"x": 1})
    prob = problem(expr, x=("variable", (3,), Attributes()))
    point, direction = {"x": np.array([1e8, -1e8, 3.0])}, {"x": np.array([0.6, 0.8, 0.0])}
    assert sampling.verify(expr, prob, point, direction, -2.0) is None
    assert sampling.verify(expr, prob, point, direction, 2.0) is not None


def test_verify_refuses_rounding_noise():
    """Identically zero, but evaluated with cancellation: at the smallest step the second
    difference is negative noise above the rounding tolerance; it must not verify even
    when the claimed curvature matches it, since it does not hold at the next step."""
    expr = tensorcalc.parse_expr("(x + y)^2 - (x^2 + 2 *(,->) x *(,->) y + y^2)", {"x": 0, "y": 0})
    prob = problem(expr, x=("variable", (), Attributes()), y=("variable", (), Attributes()))
    point, direction = {"x": np.array(1.234e4), "y": np.array(3.1)}, {"x": np.array(0.6), "y": np.array(0.8)}
    h = sampling.STEPS[-1] * 1.234e4 / 0.8
    noise = second_difference(expr, sampling.Witness(point, direction, -1.0, 0.0, h))
    assert noise < 0
    assert sampling.verify(expr, prob, point, direction, noise) is None


def test_variable_absent_from_the_expression():
    expr = tensorcalc.parse_expr("-(x *(i,i->) x)", {"x": 1})
    prob = problem(expr, x=("variable", (3,), Attributes()), z=("variable", (2,), Attributes()))
    ev = sampling.search(expr, prob, ["x", "z"])
    check(expr, ev.convex_witness, -1)
    assert ev.max_curvature == 0 and ev.concave_witness is None


@pytest.mark.parametrize("attrs", [
    Attributes(lower=0.0), Attributes(lower=0.0, lower_strict=True),
    Attributes(upper=-1.0, upper_strict=True),
    Attributes(lower=1.0, upper=2.0), Attributes(symmetric=True, lower=-1.0, upper=1.0),
    Attributes(definite="psd"), Attributes(definite="pd", lower=0.0), Attributes(definite="nd"),
    Attributes(definite="psd", lower=1.0, upper=3.0), Attributes(definite="nsd", lower=-0.5),
])
def test_sampled_values_meet_attributes(attrs):
    rng = np.random.default_rng(0)
    for scale in sampling.SCALES:
        value = sampling.sample_value(attrs, (4, 4), rng, scale)
        assert sampling.satisfies(attrs, value), (attrs.describe(), value)


def test_unsatisfiable_attributes_are_refused():
    with pytest.raises(ValueError, match="psd"):
        sampling.sample_value(Attributes(definite="psd", upper=-1.0), (2, 2), np.random.default_rng(0))


def test_bad_arguments_are_named():
    expr, prob = quadratic()
    with pytest.raises(ValueError, match="'A'"):
        sampling.search(expr, prob, ["A"])
    with pytest.raises(ValueError, match="want"):
        sampling.search(expr, prob, ["x"], want=("affine",))


def test_witness_round_trips_through_json():
    expr, prob = quadratic(symmetric=True)
    witness = sampling.search(expr, prob, ["x"]).convex_witness
    data = json.loads(json.dumps(witness.to_dict()))
    assert set(data) == {"point", "direction", "curvature", "second_difference", "step", "chord"}
    assert data["chord"] is False
    again = sampling.Witness.from_dict(data)
    assert all(np.array_equal(again.point[n], witness.point[n]) for n in witness.point)
    assert again.curvature == witness.curvature and again.step == witness.step


def test_progress_bar_is_optional(capsys):
    expr, prob = quadratic("psd")
    ev = sampling.search(expr, prob, ["x"], samples=3, progress=True)
    assert ev.samples >= 1
