"""The Hessian certificate (convexcheck.hessian.certificate) on problems whose curvature is known
mathematically: the variance template's Cauchy-Schwarz bound summed over its index, outward
rounding of the interval arithmetic, scale, and the atoms read through the Hessian."""
import math

import pytest

import convexcheck
import tensorcalc
from convexcheck.hessian.certificate import axis_lengths, certify


def certificate(text: str, names=None, lengths: bool = True):
    """certify() on a problem's objective, in `names` (default: every variable it reads),
    with the integer dimensions of the declarations as axis lengths when `lengths`."""
    problem = convexcheck.load_problem(text)
    expr = problem.objective.expr
    present = tensorcalc.variables(expr)
    attrs = {n: d.attributes for n, d in problem.declarations.items()}
    names = names or [n for n in problem.variables if n in present]
    dims = {n: d.dims for n, d in problem.declarations.items()}
    return certify(expr, [present[n] for n in names], attrs,
                   lengths=axis_lengths(expr, dims) if lengths else None)


# ---------------------------------------------------------------- the variance template
# sum(x^2) - c sum(x)^2 has Hessian 2(I - c J): eigenvalues 2 and 2 - 2 c n.

@pytest.mark.parametrize("dim, c", [("n", 1), ("n", 0.5), (5, 0.25), (2, 1), (3, 0.5), ("n", 0.25)])
def test_variance_template_not_proven_where_false_for_some_length(dim, c):
    text = f"variable x[{dim}]\nminimize sum(x^2) - {c} * sum(x)^2"
    for lengths in (True, False):
        cert = certificate(text, lengths=lengths)
        assert not cert.convex and not cert.concave, (text, cert)


@pytest.mark.parametrize("n, c", [(4, 0.25), (4, 0.2), (1, 1), (3, 0.25)])
def test_variance_template_proven_with_known_length(n, c):
    assert c * n <= 1
    text = f"variable x[{n}]\nminimize sum(x^2) - {c} * sum(x)^2"
    cert = certificate(text)
    assert cert.convex, cert
    assert not cert.concave or c * n == 1, cert     # concave only where the form is zero
    assert any("Cauchy-Schwarz" in r for r in cert.rules)
    assert not certificate(text, lengths=False).convex       # any length: not convex


@pytest.mark.parametrize("dim", ["n", 3, 1])
def test_log_sum_exp_proven_for_every_length(dim):
    for body in ("log(sum(exp(x)))", "log(1 + sum(exp(x)))"):
        for lengths in (True, False):
            cert = certificate(f"variable x[{dim}]\nminimize {body}", lengths=lengths)
            assert cert.convex and not cert.concave, (body, cert)


def test_axis_lengths_reads_integer_dimensions_only():
    problem = convexcheck.load_problem("variable x[4]\nvariable y[n]\nminimize sum(x^2) + sum(y^2)")
    expr = problem.objective.expr
    lengths = axis_lengths(expr, {n: d.dims for n, d in problem.declarations.items()})
    present = tensorcalc.variables(expr)
    assert lengths == {present["x"].axes[0]: 4}


# ---------------------------------------------------------------- outward rounding

from fractions import Fraction  # noqa: E402

from convexcheck.signs import intervals as iv  # noqa: E402
from convexcheck.signs.signs import Signs  # noqa: E402


def contains(interval, exact) -> bool:
    return Fraction(interval.lo) <= exact <= Fraction(interval.hi)


def test_underflowing_negative_product_keeps_a_negative_lower_end():
    r = iv.mul(iv.point(-1e-200), iv.point(1e-200))
    assert r.lo < 0.0 and not r.nonneg
    assert r.hi == 0.0
    s = iv.mul(iv.point(1e-200), iv.point(1e-200))        # positive: 0.0 is a lower bound
    assert s.nonneg and s.hi > 0.0


def test_sums_and_products_are_exact_where_the_float_is():
    assert iv.add(iv.point(1.0), iv.mul(iv.point(-0.25), iv.point(4.0))) == iv.Interval(0.0, 0.0, False)
    r = iv.add(iv.point(0.1), iv.point(0.2))               # 0.1 + 0.2 rounds
    assert r.lo < r.hi and contains(r, Fraction(0.1) + Fraction(0.2))
    big = iv.add(iv.point(1e308), iv.point(1e308))         # overflow: a finite lower end
    assert big.lo == 1.7976931348623157e308 and big.hi == math.inf


@pytest.mark.parametrize("x, y", [(0.1, 0.7), (1 / 3, 3.0), (-1e-170, 3e-170), (7.0, -1e-320), (1e200, 1e200)])
def test_products_contain_the_exact_product(x, y):
    r = iv.mul(iv.point(x), iv.point(y))
    if math.isinf(r.hi):                                    # overflow: above the largest float
        assert r.lo == 1.7976931348623157e308
    else:
        assert contains(r, Fraction(x) * Fraction(y))
    assert r.lo <= r.hi


@pytest.mark.parametrize("x", [3.0, 0.1, 1e-310, 7e307, -3.0])
def test_reciprocals_contain_the_exact_reciprocal(x):
    r = iv.recip(iv.point(x))
    if math.isfinite(r.lo) and math.isfinite(r.hi):
        assert contains(r, 1 / Fraction(x))
    assert (r.nonneg and r.nonzero) if x > 0 else (r.nonpos and r.nonzero)


@pytest.mark.parametrize("x, p", [(0.1, 3), (1.1, 2), (-0.3, 5), (3.0, -2)])
def test_integer_powers_contain_the_exact_power(x, p):
    assert contains(iv.power(iv.point(x), p), Fraction(x) ** p)


def test_elementary_functions_round_outward_and_keep_exact_signs():
    e = iv.exp(iv.Interval(-800.0, -745.0))                 # exp underflows to 0.0: still > 0
    assert e.nonneg and e.nonzero and e.hi > 0.0
    one = iv.exp(iv.point(1.0))
    assert one.lo < math.e < one.hi
    assert iv.log(iv.Interval(1.0, 5.0)).nonneg             # log >= 0 from 1 on, exactly
    assert iv.log(iv.Interval(0.5, 1.0)).nonpos
    third = iv.log(iv.point(3.0))
    assert third.lo < math.log(3.0) < third.hi
    assert iv.HALF_PI > math.pi / 2 and Fraction(iv.HALF_PI) > Fraction(math.pi) / 2
    assert iv.power(iv.Interval(-2.0, 3.0), 4).nonneg       # an even power stays >= 0


def test_polynomial_sign_survives_rounding():
    """1e16 - 1 - 1e16 is 0.0 in floats but -1 exactly: no sign may be claimed; 1 - 0.25 * 4
    (exact) stays >= 0; 0.1 + 0.2 - 0.3 contains its exact value."""
    from tensorcalc.algebra.monomials import Monomial
    signs = Signs({})

    def poly(*coefs):
        return signs.polynomial([Monomial(c, ()) for c in coefs], 0)
    assert poly(1.0, -0.25 * 4).nonneg
    cancelled = poly(1e16, -1.0, -1e16)
    assert cancelled.lo <= -1.0 and not cancelled.nonneg
    assert contains(poly(0.1, 0.2, -0.3), Fraction(0.1) + Fraction(0.2) - Fraction(0.3))


def test_collected_coefficients_keep_the_sign_of_the_exact_sum():
    from tensorcalc.algebra.monomials import Monomial, collect
    assert collect([Monomial(c, ()) for c in (1e16, -1.0, -1e16)]) == [Monomial(-1.0, ())]
    assert collect([Monomial(c, ()) for c in (0.5, -0.25, -0.25)]) == []


# ---------------------------------------------------------------- scale and even powers

def certificate_within_work(make, p, small):
    """certificate(make(p)), after checking that it made no more than a few times the Python
    calls of certificate(make(small)) (counted, not timed; what earlier tests cached can
    make either side up to 3 times cheaper): the power is never opened, which would cost
    work growing with p."""
    from workcount import python_calls
    certificate(make(small + 10))                             # what is cached for any exponent
    _, base = python_calls(certificate, make(small))
    cert, calls = python_calls(certificate, make(p))
    assert calls <= 5 * base, (p, calls, small, base)
    return cert


def affine_power(p):
    return f"parameter w[n]\nvariable x\nminimize (x * sum(w))^{p}"


@pytest.mark.parametrize("p", [4, 6, 3000])
def test_even_powers_of_affine_functions_with_unknown_sign_parameters(p):
    cert = certificate_within_work(affine_power, p, 4)
    assert cert.convex and not cert.concave, cert


@pytest.mark.parametrize("p", [3, 3001])
def test_odd_powers_of_affine_functions_are_not_proven(p):
    cert = certificate_within_work(affine_power, p, 3)
    assert not cert.convex and not cert.concave, cert


def test_powers_of_large_sums_are_not_opened():
    """(1 + sum(exp(x)))^3000 - ...: the bound is checked before any product is formed."""
    cert = certificate_within_work(lambda p: f"variable x[n]\nparameter c\nminimize (c + sum(exp(x)))^{p}", 3000, 3)
    assert not cert.concave, cert


# ---------------------------------------------------------------- atoms through the Hessian

W = "parameter w[m] nonneg\n"
CONVEX = [   # convex and not concave, mathematically; the composition engine's abstracted forms first
    W + "variable t[m]\nminimize w *(i,i->) log(1 + exp(t))",
    W + "parameter e pos\nvariable t[m]\nminimize w *(i,i->) sqrt(t^2 + e *(,i->i) 1)",
    W + "variable t[m]\nminimize w *(i,i->) sqrt(1 + t^2)",
    W + "variable T[m, k]\nminimize w *(i,i->) log(exp(T) *(ic,c->i) 1)",
    "variable x\nvariable y pos\nminimize x^2 / y",
    "parameter X[m, n]\nparameter Y[m, k]\nvariable W[n, k]\n"
    "minimize sum(log(exp(X *(ij,jc->ic) W) *(ic,c->i) 1)) - sum(Y *(ic,ic->ic) (X *(ij,jc->ic) W))",
]


@pytest.mark.parametrize("text", CONVEX)
def test_convex_atoms_are_proven(text):
    cert = certificate(text)
    assert cert.convex and not cert.concave, cert


def test_per_sample_variance_template_needs_the_sum_over_classes():
    """w_i (sum_c T_ic^2 - sum_c T_ic^2 ... ): the per-sample template with a constant
    c = 1 is not convex for k >= 2 classes, with or without the nonneg weight."""
    text = W + "variable T[m, k]\nminimize w *(i,i->) ((T^2) *(ic,c->i) 1 - (T *(ic,c->i) 1)^2)"
    assert not certificate(text).convex
    text2 = W + "variable T[m, 2]\nminimize w *(i,i->) ((T^2) *(ic,c->i) 1 - 0.5 * (T *(ic,c->i) 1)^2)"
    assert certificate(text2).convex                      # c k = 1: PSD per sample


def test_variance_template_with_a_weight_that_may_vanish():
    """sum a_i x_i^2 - 0.01 sum(x)^2 with a >= 0 is -0.01 sum(x)^2 at a = 0: not convex;
    log(sum(exp(p x + q))) is convex for every p (the weight p^2 z / S cancels with p z)."""
    assert not certificate("parameter a[n] nonneg\nvariable x[n]\n"
                           "minimize a *(i,i->) x^2 - 0.01 * sum(x)^2").convex
    assert not certificate("parameter a[3] pos\nvariable x[3]\n"
                           "minimize a *(i,i->) x^2 - 0.01 * sum(x)^2").convex   # a may be tiny
    cert = certificate("parameter p[n]\nparameter q[n]\nvariable x[n]\n"
                       "minimize log(sum(exp(p *(i,i->i) x + q)))")
    assert cert.convex and not cert.concave


@pytest.mark.parametrize("dim, concave", [(4, True), (3, True), (5, False), ("n", False)])
def test_geometric_mean_concave_exactly_when_the_exponents_sum_to_at_most_one(dim, concave):
    """exp(sum(log x) / 4) = (prod x)^(1/4) is concave for n <= 4 and not for n > 4."""
    cert = certificate(f"variable x[{dim}] pos\nmaximize exp(sum(log(x)) / 4)")
    assert cert.concave == concave and not cert.convex, cert
    if concave:
        assert any("NSD pair" in r for r in cert.rules)


@pytest.mark.parametrize("body, concave", [
    ("1 / sum(1 / x)", True), ("2 / sum(1 / x)", True),
    ("1 / sum(1 / x^2)", False),          # n = 1: x^2
    ("1 / sum(1 / x)^2", False),          # n = 1: x^2
])
def test_harmonic_mean(body, concave):
    cert = certificate(f"variable x[n] pos\nmaximize {body}")
    assert cert.concave == concave and not cert.convex, (body, cert)


@pytest.mark.parametrize("text, convex", [
    ("variable x[n]\nvariable t pos\nminimize sum(x^2) / t", True),
    ("variable x[n, k]\nvariable t pos\nminimize sum(x^2) / t", True),
    ("variable x[n]\nvariable t[n] pos\nminimize sum(x^2 / t)", True),
    ("variable x[n]\nvariable t pos\nminimize sum(x^2) / t^2", False),     # n = 1: (x/t)^2, det < 0
    ("variable x[n]\nvariable t pos\nminimize sum(x^3) / t", False),
])
def test_vector_quad_over_lin(text, convex):
    cert = certificate(text)
    assert cert.convex == convex and not cert.concave, (text, cert)
    if convex:
        assert any("2x2 Gram block" in r for r in cert.rules)


@pytest.mark.parametrize("text, convex, concave", [
    ("variable X[n, n] pd\nminimize inv(X) *(ij,ij->) delta(1)", True, False),           # tr(inv X)
    ("variable X[n, n] pd\nminimize -(inv(X) *(ij,ij->) delta(1))", False, True),
    ("variable X[n, n] pd\nminimize log(det(inv(X)))", True, False),                     # -log det X
    ("variable X[n, n] pd\nminimize log(det(X))", False, True),
    ("variable X[n, n] pd\nparameter A[n, n] psd\nminimize inv(X) *(ij,ij->) A", True, False),
    ("variable X[n, n] pd\nminimize inv(X) *(ij,ij->) inv(X)", True, False),             # tr(X^-2)
    ("variable X[n, n] symmetric\nminimize inv(X) *(ij,ij->) delta(1)", False, False),   # not pd: no proof
    ("variable X[n, n] pd\nparameter A[n, n]\nminimize inv(X) *(ij,ij->) A", False, False),
])
def test_matrix_atoms(text, convex, concave):
    cert = certificate(text)
    assert (cert.convex, cert.concave) == (convex, concave), (text, cert)


# ---------------------------------------------------------------- Gram blocks larger than 2x2

S3 = "variable x\nvariable y\nvariable z pos\n"
P3 = "variable x pos\nvariable y pos\nvariable z pos\n"


@pytest.mark.parametrize("text, convex, concave", [
    (S3 + "minimize (x^2 + y^2) / z", True, False),
    (S3 + "minimize (x + y)^2 / z", True, False),
    (S3 + "minimize (x^2 - y^2) / z", False, False),
    (S3 + "minimize (x^2 + y^2) / z + x * y", False, False),    # z large: x y alone
    (P3 + "maximize (x * y * z)^(1/3)", False, True),
    (P3 + "maximize (x * y * z)^(1/2)", False, False),          # degree 3/2
    ("variable x\nvariable y\nvariable z\nminimize log(exp(x) + exp(y) + exp(z))", True, False),
])
def test_symbolic_gram_blocks(text, convex, concave):
    cert = certificate(text)
    assert (cert.convex, cert.concave) == (convex, concave), (text, cert)
    if convex or concave:
        assert any("3x3 Gram block" in r and "fraction-free" in r for r in cert.rules)


@pytest.mark.parametrize("text, convex", [
    ("parameter A[n, n] psd\nvariable x[n]\nminimize (x *(i,ij->j) A *(j,j->) x)^2", True),
    ("parameter A[n, n] nsd\nvariable x[n]\nminimize (x *(i,ij->j) A *(j,j->) x)^2", True),
    ("parameter A[n, n] psd\nvariable x[n]\nminimize exp(x *(i,ij->j) A *(j,j->) x)", True),
    ("parameter A[n, n] symmetric\nvariable x[n]\nminimize (x *(i,ij->j) A *(j,j->) x)^2", False),
])
def test_weights_that_are_quadratic_forms(text, convex):
    cert = certificate(text)
    assert cert.convex == convex and not cert.concave, (text, cert)


@pytest.mark.parametrize("text, convex", [
    ("variable x[n]\nminimize -log(1 - x *(i,i->) x)", True),        # the domain fact reaches 1 - sum(x * x)
    ("variable x[n]\nminimize log(1 + x *(i,i->) x)", False),        # n = 1: log(1 + x^2)
])
def test_domain_facts_reach_equal_values(text, convex):
    cert = certificate(text)
    assert cert.convex == convex and not cert.concave, (text, cert)


# ---------------------------------------------------------------- kernels: det^(1/n), matrix fraction

import numpy as np  # noqa: E402

from convexcheck.problem.admissible import sample_point, satisfies  # noqa: E402


def curvature_range(text: str, points: int = 24, seed: int = 0) -> tuple[float, float]:
    """(least, greatest) second difference (f(p + h d) - 2 f(p) + f(p - h d)) / h^2 over
    random admissible points p (scales 0.1, 1, 10) along random directions d (symmetric for
    symmetric variables) and along p itself, each shifted by the rounding noise of its
    values so that a sign seen outside the noise is real; steps that leave the declared
    domain are skipped."""
    problem = convexcheck.load_problem(text)
    expr = problem.objective.expr
    names = [n for n in problem.variables if n in tensorcalc.variables(expr)]
    rng = np.random.default_rng(seed)
    low, high = math.inf, -math.inf
    for k in range(points):
        p = sample_point(problem, {}, rng, k)
        d = {n: rng.standard_normal(np.shape(p[n])) for n in names}
        d = {n: (v + v.T) / 2 if problem.declarations[n].attributes.is_symmetric else v for n, v in d.items()}
        d = d if k % 2 else {n: p[n] for n in names}
        for h in (1e-2, 1e-3):
            moved = [{**p, **{n: p[n] + t * h * d[n] for n in names}} for t in (-1, 0, 1)]
            if not all(satisfies(problem.declarations[n].attributes, m[n]) for m in moved for n in names):
                continue
            f = [float(tensorcalc.evaluate(expr, m)) for m in moved]
            s = (f[0] - 2 * f[1] + f[2]) / h ** 2
            size = max(float(np.max(np.abs(v))) for v in p.values())
            noise = 1e4 * np.finfo(float).eps * (1 + size + sum(map(abs, f))) / h ** 2
            low, high = min(low, s + noise), max(high, s - noise)
    return low, high


def check_against_samples(text: str, cert) -> None:
    """Every side the certificate proves holds at sampled points."""
    low, high = curvature_range(text)
    assert not cert.convex or low >= 0, (text, low)
    assert not cert.concave or high <= 0, (text, high)


@pytest.mark.parametrize("n, p, concave", [
    (3, "1/3", True), (2, "1/2", True), (3, "0.3", True), (4, "0.25", True), (1, "0.5", True),
    (3, "1/2", False), (2, "2/3", False), (3, "0.34", False), (2, "1", False),
])
def test_det_power_concave_exactly_when_p_is_at_most_one_over_n(n, p, concave):
    """det(X)^p on pd n x n X is concave iff p <= 1/n: tr(A)^2 <= n tr(A^2) (Cauchy-Schwarz
    in the inner product of the kernel inv(X) (x) inv(X))."""
    text = f"variable X[{n}, {n}] pd\nmaximize det(X)^({p})"
    cert = certificate(text)
    assert cert.concave == concave and not cert.convex, (text, cert)
    check_against_samples(text, cert)
    if concave and n > 1:
        assert any("Kronecker" in r for r in cert.rules), cert.rules
    if not concave and n > 1:
        assert curvature_range(text)[1] > 0, text              # the samples see it is not concave


def test_det_root_of_unknown_size_is_not_proven():
    cert = certificate("variable X[n, n] pd\nmaximize det(X)^(1/3)")         # n = 4: not concave
    assert not cert.concave and not cert.convex


MF = "x *(i,ij->j) inv(Y) *(j,j->) x"
XY = "variable x[3]\nvariable Y[3, 3] {}\n"


@pytest.mark.parametrize("text, convex, concave", [
    (XY.format("pd") + f"minimize {MF}", True, False),
    ("variable x[n]\nvariable Y[n, n] pd\nminimize " + MF, True, False),
    (XY.format("pd") + f"maximize -({MF})", False, True),
    (XY.format("nd") + f"maximize {MF}", False, True),                  # -x' inv(-Y) x
    (XY.format("pd") + "parameter b[3]\nminimize (x - b) *(i,ij->j) inv(Y) *(j,j->) (x - b)", True, False),
    (XY.format("pd") + "parameter A[3, 3]\n"
     "minimize (A *(ij,j->i) x) *(i,ij->j) inv(Y) *(j,j->) (A *(ij,j->i) x)", True, False),
    (XY.format("pd") + f"minimize exp({MF}) - log(det(Y))", True, False),
    (XY.format("pd") + f"minimize {MF} + (x *(i,i->) x) / t\nvariable t pos", True, False),
    ("variable W[3, 2]\nvariable Y[3, 3] pd\nminimize (inv(Y) *(ij,jk->ik) W) *(ik,ik->) W", True, False),
    ("variable W[3, 2]\nvariable Y[3, 3] pd\nparameter c[2] nonneg\n"
     "minimize ((inv(Y) *(ij,jk->ik) W) *(ik,ik->k) W) *(k,k->) c", True, False),
    # not convex: indefinite inv(Y), a negative weight, the wrong power or pairing of halves
    (XY.format("symmetric") + f"minimize {MF}", False, False),
    (XY.format("pd") + f"minimize {MF} - 0.5 * (x *(i,i->) x)", False, False),
    (XY.format("pd") + f"minimize {MF} + log(det(Y))", False, False),
    (XY.format("pd") + "minimize x *(i,ij->j) inv(Y) *(j,jk->k) inv(Y) *(k,k->) x", False, False),   # x^2 / y^2
    (XY.format("pd") + "minimize x *(i,ij->j) Y *(j,j->) x", False, False),
    (XY.format("pd") + "variable z[3]\nminimize x *(i,ij->j) inv(Y) *(j,j->) z", False, False),
    (XY.format("pd") + f"minimize sqrt({MF})", False, False),
    ("variable W[3, 2]\nvariable Y[3, 3] pd\nparameter c[2]\n"
     "minimize ((inv(Y) *(ij,jk->ik) W) *(ik,ik->k) W) *(k,k->) c", False, False),
])
def test_matrix_fraction_through_a_common_kernel(text, convex, concave):
    """x' inv(Y) x: 2 (dx - dY inv(Y) x)' inv(Y) (dx - dY inv(Y) x), a 2x2 Gram block of two
    different halves through the kernel inv(Y); the same block for affine x, matrix W,
    nonneg column weights, and inside compositions."""
    text = "\n".join(sorted(text.splitlines(), key=lambda line: not line.startswith(("variable", "parameter"))))
    cert = certificate(text)
    assert (cert.convex, cert.concave) == (convex, concave), (text, cert)
    check_against_samples(text, cert)
    low, high = curvature_range(text)
    if not convex:
        assert low < 0, text                   # the samples see it is not convex
    if convex:
        assert any("through inv(Y)" in r for r in cert.rules), cert.rules


KERNEL_DECLS = ("variable x[3]\nvariable z[3]\nvariable Y[3, 3] pd\nvariable S[3, 3] symmetric\n"
                "variable W[3, 2]\nparameter A[3, 3]\nparameter P[3, 3] psd\nvariable t pos\nparameter b[3]\n")


def _kernel_expression(rng, depth: int) -> str:
    """A random scalar built from quadratic forms through inv(Y), Y, P, A, inv(S) (some
    jointly convex, most not), quad-over-lin, tr(W' inv(Y) W), and sums, differences,
    multiples, squares and exponentials of those."""
    vec = lambda: rng.choice(["x", "z", "(x - b)", "(A *(ij,j->i) x)", "(x + z)", "(x - z)"])  # noqa: E731
    mat = lambda: rng.choice(["inv(Y)", "Y", "P", "(inv(Y) *(ij,jk->ik) inv(Y))", "inv(S)",  # noqa: E731
                              "(inv(Y) + P)", "A", "(inv(Y) *(ij,jk->ik) P)"])
    leaves = [lambda: f"{vec()} *(i,ij->j) {mat()} *(j,j->) {vec()}", lambda: f"({vec()} *(i,i->) {vec()}) / t",
              lambda: "(inv(Y) *(ij,jk->ik) W) *(ik,ik->) W", lambda: "log(det(Y))", lambda: "sum(x^2)"]
    if depth == 0:
        return rng.choice(leaves)()
    sub = lambda: _kernel_expression(rng, depth - 1)  # noqa: E731
    return rng.choice(leaves + [lambda: f"({sub()} + {sub()})", lambda: f"({sub()} - {sub()})",
                                lambda: f"2 * {sub()}", lambda: f"-({sub()})", lambda: f"exp({sub()})",
                                lambda: f"({sub()})^2"])()


@pytest.mark.parametrize("seed", range(6))
def test_kernel_readings_never_contradicted_by_second_differences(seed):
    import random
    rng = random.Random(seed)
    for _ in range(12):
        text = KERNEL_DECLS + "minimize " + _kernel_expression(rng, 2)
        check_against_samples(text, certificate(text))
