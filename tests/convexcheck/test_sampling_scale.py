"""convexcheck.witness.sampling at scale: beyond DENSE_LIMIT unknowns the Hessian is only applied
to vectors (Lanczos), agreeing with the dense path where both run; sizes that no
evaluation could hold are refused, by name, before anything is allocated."""
import tracemalloc

import numpy as np
import pytest

import convexcheck
import tensorcalc
from convexcheck.cli import main
from convexcheck.problem import admissible as values
from convexcheck.witness import sampled_hessians as hessians
from convexcheck.witness import sampling

SOFTMAX = "examples/softmax_regression.tc"
LOG_DET = "examples/log_det.tc"
FACTORISATION = "examples/matrix_factorisation.tc"
LOGISTIC = "examples/logistic_regression.tc"


def run(path, names, **kwargs):
    problem = convexcheck.load_problem(path)
    return problem, sampling.search(problem.objective.expr, problem, names, **kwargs)


def holds(expr, witness, sign):
    """The witness's second difference, recomputed from scratch, has `sign`."""
    h = witness.step
    f = lambda t: float(tensorcalc.evaluate(expr, {n: v + t * witness.direction.get(n, 0.0)  # noqa: E731
                                                   for n, v in witness.point.items()}))
    s = (f(h) - 2 * f(0) + f(-h)) / h ** 2
    return np.sign(s) == sign == np.sign(witness.curvature)


def kind_of_plan(path, names, sizes):
    problem = convexcheck.load_problem(path)
    hessian, layout = sampling._plan(problem.objective.expr, problem, names, sizes, (), None)
    return type(hessian), layout.size


def test_the_operator_path_starts_above_a_few_hundred_unknowns():
    assert kind_of_plan(SOFTMAX, ["W"], dict(n=20, m=30, k=10)) == (hessians.DenseHessian, 200)
    assert kind_of_plan(SOFTMAX, ["W"], dict(n=200, m=500, k=10)) == (hessians.HessianOperator, 2000)


@pytest.mark.parametrize("path, names, sizes", [
    (LOGISTIC, ["w"], dict(n=120, m=80)),              # rank-deficient: a zero eigenvalue
    (SOFTMAX, ["W"], dict(n=12, m=20, k=6)),           # inv-free, clustered spectrum
    (LOG_DET, ["X"], dict(n=9)),                       # symmetric basis, inv/adj/det distributed
    (FACTORISATION, ["U", "V"], dict(m=7, n=6, r=4)),  # two variables jointly, indefinite
])
def test_operator_path_is_exact_once_lanczos_spans_the_space(monkeypatch, path, names, sizes):
    _, dense = run(path, names, samples=4, sizes=sizes, want=())
    monkeypatch.setattr(sampling, "DENSE_LIMIT", 0)
    monkeypatch.setattr(sampling, "LANCZOS_STEPS", 200)
    _, operator = run(path, names, samples=4, sizes=sizes, want=())
    scale = max(abs(dense.min_curvature), abs(dense.max_curvature))
    assert operator.samples == dense.samples == 4
    assert operator.min_curvature == pytest.approx(dense.min_curvature, abs=1e-9 * scale)
    assert operator.max_curvature == pytest.approx(dense.max_curvature, abs=1e-9 * scale)


def test_mid_size_ritz_values_lie_inside_and_near_the_dense_extremes(monkeypatch):
    """250 unknowns, 60 Lanczos steps: inner bounds, and the well separated top is found."""
    sizes = dict(n=250, m=400)
    _, dense = run(LOGISTIC, ["w"], samples=3, sizes=sizes, want=())
    monkeypatch.setattr(sampling, "DENSE_LIMIT", 0)
    _, operator = run(LOGISTIC, ["w"], samples=3, sizes=sizes, want=())
    scale = dense.max_curvature
    assert dense.min_curvature - 1e-9 * scale <= operator.min_curvature <= operator.max_curvature
    assert operator.max_curvature <= dense.max_curvature + 1e-9 * scale
    assert operator.max_curvature == pytest.approx(dense.max_curvature, rel=1e-6)
    assert operator.min_curvature >= -1e-9 * scale                    # convex: nothing negative seen


def test_witnesses_of_both_kinds_above_the_dense_limit():
    sizes = dict(m=40, n=40, r=5)                                     # 400 unknowns
    assert kind_of_plan(FACTORISATION, ["U", "V"], sizes)[0] is hessians.HessianOperator
    problem, ev = run(FACTORISATION, ["U", "V"], samples=10, sizes=sizes)
    assert holds(problem.objective.expr, ev.convex_witness, -1)
    assert holds(problem.objective.expr, ev.concave_witness, +1)
    assert set(ev.convex_witness.direction) == {"U", "V"}
    assert ev.min_curvature < 0 < ev.max_curvature


def test_indefinite_quadratic_witness_on_a_thousand_unknowns():
    problem, ev = run("examples/quadratic_indefinite.tc", ["x"], samples=3, sizes=dict(n=1000),
                      want=("convex",))
    assert holds(problem.objective.expr, ev.convex_witness, -1)


def test_deterministic_in_the_seed_on_the_operator_path():
    a, b, c = (run(FACTORISATION, ["U", "V"], samples=2, seed=s, sizes=dict(m=30, n=30, r=6))[1]
               for s in (3, 3, 4))
    assert a.convex_witness.to_dict() == b.convex_witness.to_dict()
    assert (a.min_curvature, a.max_curvature) == (b.min_curvature, b.max_curvature)
    assert a.min_curvature != c.min_curvature


def count_products(monkeypatch) -> list:
    """Hessian-vector products per Lanczos run of the searches that follow (and no dense
    Hessian: every run gets an operator), counted, not timed."""
    runs, lanczos = [], hessians.lanczos

    def counting(op, steps):
        runs.append(0)

        def matvec(v):
            runs[-1] += 1
            return op.matvec(v)
        return lanczos(sampling.scipy.sparse.linalg.LinearOperator(op.shape, matvec=matvec, dtype=float), steps)
    monkeypatch.setattr(hessians, "lanczos", counting)
    return runs


def test_softmax_at_2000_unknowns_is_bounded_work(monkeypatch):
    problem = convexcheck.load_problem(SOFTMAX)
    sizes = dict(n=200, m=500, k=10)
    runs = count_products(monkeypatch)
    witness = sampling.search(problem.objective.expr, problem, ["W"], sizes=sizes, want=("concave",))
    guard = sampling.search(problem.objective.expr, problem, ["W"], samples=5, sizes=sizes, want=(), guard=5)
    assert holds(problem.objective.expr, witness.concave_witness, +1)
    assert guard.samples == 5 and guard.convex_witness is None
    assert guard.min_curvature >= -1e-9 * guard.max_curvature        # convex: the guard sees no contradiction
    assert len(runs) == witness.samples + witness.skipped + 5 and max(runs) <= sampling.LANCZOS_STEPS


def test_a_matrix_variable_of_ten_thousand_entries_is_never_held_densely():
    problem = convexcheck.load_problem(LOG_DET)
    tracemalloc.start()
    try:
        ev = sampling.search(problem.objective.expr, problem, ["X"], samples=2, sizes=dict(n=100))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100e6                          # a dense 10^4 x 10^4 Hessian alone is 800 MB
    assert holds(problem.objective.expr, ev.convex_witness, -1)
    assert ev.concave_witness is None and ev.max_curvature < 0


def test_distribute_keeps_the_value_and_drops_the_order_four_intermediate():
    # log(det(X) + 1): the Hessian of log(det(X)) is now inv(X) (x) inv(X), order 4 only in the product
    f = tensorcalc.parse_expr("log(det(X) + 1)", {"X": 2})
    x = tensorcalc.variables(f)["X"]
    d = tensorcalc.dag.var("D", x.axes)
    hvp = tensorcalc.pushforward(tensorcalc.derivative(f, x), x, d)
    flat = hessians.distribute(hvp)
    rng = np.random.default_rng(1)
    g = rng.standard_normal((5, 5))
    point = {"X": g @ g.T + 5 * np.eye(5), "D": rng.standard_normal((5, 5))}
    assert np.allclose(tensorcalc.evaluate(flat, point), tensorcalc.evaluate(hvp, point))
    orders = lambda e: max(n.order for n in tensorcalc.dag.topo(tensorcalc.simplify(e)))  # noqa: E731
    assert orders(hvp) == 4 and orders(flat) == 2


def test_hoist_splits_what_does_not_read_the_direction():
    expr = tensorcalc.parse_expr("exp(A *(ij,j->i) x) *(i,i->) d", {"A": 2, "x": 1, "d": 1})
    fixed, (moved,) = hessians.hoist([expr], {"d"}, {"A", "x", "d"})
    assert list(fixed) == ["_at0"] and set(tensorcalc.variables(moved)) == {"_at0", "d"}
    rng = np.random.default_rng(2)
    point = {"A": rng.standard_normal((3, 4)), "x": rng.standard_normal(4), "d": rng.standard_normal(3)}
    at = {"_at0": tensorcalc.evaluate(fixed["_at0"], point), "d": point["d"]}
    assert tensorcalc.evaluate(moved, at) == pytest.approx(tensorcalc.evaluate(expr, point))


# ----------------------------------------------------------------------------- size refusals

def test_a_declared_array_too_large_is_refused_by_name():
    problem = convexcheck.load_problem(LOG_DET)
    with pytest.raises(values.SizeError, match=r"variable X\[n, n\] would have 10,000,000,000 entries "
                                               r"at n=100000 \(limit 50,000,000 per array\)"):
        sampling.search(problem.objective.expr, problem, ["X"], sizes=dict(n=100_000))


def test_a_large_parameter_is_refused_too_but_not_given_data():
    problem = convexcheck.load_problem(LOGISTIC)
    with pytest.raises(values.SizeError, match=r"parameter X\[m, n\] would have 60,000,000 entries at m=6000, "
                                               r"n=10000"):
        sampling.search(problem.objective.expr, problem, ["w"], sizes=dict(m=6000, n=10000))
    values.check_sizes(problem, dict(m=6000, n=10000), fixed={"X": np.zeros((1, 1))})


def test_an_intermediate_too_large_is_refused_before_evaluation():
    problem = convexcheck.load_problem("variable x[n]\nminimize sum((x *(i,j->ij) x)^2)")
    with pytest.raises(values.SizeError, match=r"the expression: evaluating it needs an intermediate of "
                                               r"10000 x 10000 = 100,000,000 entries \(limit 50,000,000\): x"):
        sampling.search(problem.objective.expr, problem, ["x"], sizes=dict(n=10_000))


def test_dense_blocks_too_large_fall_back_to_products(monkeypatch):
    sizes = dict(n=120, m=60)                      # X: 7,200 entries; the dense Hessian: 14,400
    problem = convexcheck.load_problem(LOGISTIC)
    monkeypatch.setattr(hessians, "MAX_ENTRIES", 10_000)
    with pytest.raises(values.SizeError, match=r"the Hessian in w: .* 120 x 120 = 14,400 entries \(limit 10,000\)"):
        hessians.check_nodes([tensorcalc.hessian(problem.objective.expr, "w")], problem, sizes, "the Hessian in w")
    assert kind_of_plan(LOGISTIC, ["w"], sizes)[0] is hessians.HessianOperator
    ev = sampling.search(problem.objective.expr, problem, ["w"], samples=2, sizes=sizes, want=("concave",))
    assert holds(problem.objective.expr, ev.concave_witness, +1)


def test_the_command_line_reports_the_refusal(capsys):
    assert main(["analyze", LOG_DET, "--dim", "n=100000", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "variable X[n, n] would have 10,000,000,000 entries" in err and "Traceback" not in err


def test_lanczos_keeps_its_basis_within_the_entry_limit(monkeypatch):
    monkeypatch.setattr(hessians, "MAX_ENTRIES", 10 * 500)
    h = np.diag(np.linspace(-1.0, 2.0, 500))
    calls = []
    op = sampling.scipy.sparse.linalg.LinearOperator((500, 500), matvec=lambda v: calls.append(1) or h @ v,
                                                        dtype=float)
    (low, _), (high, _) = hessians.lanczos(op, 60)
    assert len(calls) == 10 and -1.0 <= low < high <= 2.0


@pytest.mark.parametrize("equation", ["ij,kl->li", "ij,jk->ik", "ii,kl->k", "ij,kl->", "i,i->", "ijk,kl,lm->jm",
                                      "ij->", "ij,k->ijk"])
def test_contractions_sum_lone_letters_first(equation):
    """Letters summed in one operand only are summed before the contraction (the Hessian-
    vector product of sum(inv(X)) has 'ij,kl->li'), with np.einsum as the oracle."""
    from tensorcalc.codegen.runtime import Contraction
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal([4] * len(s)) for s in equation.split("->")[0].split(",")]
    assert np.allclose(Contraction(equation)(*arrays), np.einsum(equation, *arrays))


def test_sum_of_inverse_entries_at_n_100_takes_120_products(monkeypatch):
    problem = convexcheck.load_problem("variable X[n,n] pd\nminimize sum(inv(X))")
    runs = count_products(monkeypatch)
    ev = sampling.search(problem.objective.expr, problem, ["X"], samples=2, sizes=dict(n=100), want=())
    assert ev.samples == 2 and ev.min_curvature >= -1e-9 * ev.max_curvature   # convex, rank-deficient
    assert runs == [sampling.LANCZOS_STEPS] * 2
