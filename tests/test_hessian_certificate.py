"""The Hessian certificate (convexcheck.certificate) on problems whose curvature is known
mathematically: the variance template's Cauchy-Schwarz bound summed over its index, outward
rounding of the interval arithmetic, scale, and the atoms read through the Hessian."""
import math

import pytest

import convexcheck
import tensorcalc
from convexcheck.certificate import axis_lengths, certify


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
