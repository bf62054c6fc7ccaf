"""`convexcheck.explain` on classic DCP errors: the rejected subexpression with CVXPY's
reason, convexcheck's proof of the part, and the DCP spelling where one exists, which
must itself be DCP and equal to the original at random points of the domain."""
import cvxpy as cp
import numpy as np
import pytest

import convexcheck

x, w = cp.Variable(name="x"), cp.Variable(name="w")
y, z = cp.Variable(name="y", pos=True), cp.Variable(name="z", pos=True)
v = cp.Variable(3, name="v")
Q = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 3.0]])

# (expression, side it is proven, the DCP spelling or None, the reason's words)
CLASSIC = {
    "x*x": (x * x, "convex", "cp.square(x)", "a product of two expressions"),
    "log(1+exp)": (cp.log(1 + cp.exp(x)), "convex", "cp.logistic(x)", "log is concave and increasing"),
    "x^2/y": (x ** 2 / y, "convex", "cp.quad_over_lin(x, y)", "a division by an expression"),
    "x*x/y": (x * x / y, "convex", "cp.quad_over_lin(x, y)", "a product of two expressions"),
    "1/y": (1 / y, "convex", "cp.inv_pos(y)", "a division by an expression"),
    "3/y": (3 / y, "convex", "3 * cp.inv_pos(y)", "a division by an expression"),
    "sqrt(x^2+1)": (cp.sqrt(x ** 2 + 1), "convex", "cp.norm(cp.hstack([x, 1]), 2)", "power is concave"),
    "sqrt(x^2+4)": (cp.sqrt(x ** 2 + 4), "convex", "cp.norm(cp.hstack([x, 2]), 2)", "power is concave"),
    "sqrt(sum_squares)": (cp.sqrt(cp.sum_squares(v)), "convex", "cp.norm(v, 2)", "power is concave"),
    "log(sum(exp))": (cp.log(cp.sum(cp.exp(v))), "convex", "cp.log_sum_exp(v)", "log is concave and increasing"),
    "y*log(y)": (y * cp.log(y), "convex", "-cp.entr(y)", "a product of two expressions"),
    "y*log(y/z)": (y * cp.log(y / z), "convex", "cp.rel_entr(y, z)", "a division by an expression"),
    "sqrt(y*z)": (cp.sqrt(y * z), "concave", "cp.geo_mean(cp.hstack([y, z]))", "a product of two expressions"),
    "(y*z*y)^(1/3)": ((y * z * (y + 1)) ** (1 / 3), "concave", "cp.geo_mean(cp.hstack([y, z, y + 1.0]))",
                      "a product of two expressions"),
    "v.T@v": (v.T @ v, "convex", "cp.sum_squares(v)", "a product of two expressions"),
    "v@Q@v+v@v": (v @ Q @ v + v @ v, "convex", "cp.sum_squares(v)", "a product of two expressions"),
    "exp(x)*exp(w)": (cp.exp(x) * cp.exp(w), "convex", None, "a product of two expressions"),
    "(x+w)^2/y": ((x + w) ** 2 / y, "convex", "cp.quad_over_lin(x + w, y)", "a division by an expression"),
    "x^4+x^2 via products": (x * x * x * x + x * x, "convex", "cp.square(x)", "a product of two expressions"),
    "sqrt(exp(x))": (cp.sqrt(cp.exp(x)), "convex", None, "power is concave and increasing"),
}


@pytest.mark.parametrize("name", sorted(CLASSIC))
def test_explain_names_the_rejection_the_proof_and_the_spelling(name):
    expr, side, spelled, reason = CLASSIC[name]
    assert not expr.is_dcp()
    explanation = convexcheck.explain(expr, samples=5)
    text = str(explanation)
    (part,) = explanation.rejections
    assert part.verdict == f"{side}, proven" and part.rules, text
    assert any(reason in why for _, why in part.rejected), text
    if spelled is None:
        assert not part.spellings, text
        return
    assert spelled in part.spellings, text
    assert "DCP spelling: " in text


PARTIAL = {"v@Q@v+v@v", "x^4+x^2 via products"}       # the spelling is of a subexpression


@pytest.mark.parametrize("name", sorted(n for n, c in CLASSIC.items() if c[2] and n not in PARTIAL))
def test_a_whole_spelling_is_dcp_and_the_same_function(name):
    expr, side, spelled, _ = CLASSIC[name]
    dcp = eval(spelled, {"cp": cp, **_names()})                    # noqa: S307 - our own test table
    assert dcp.is_dcp() and (dcp.is_convex() if side == "convex" else dcp.is_concave())
    rng = np.random.default_rng(0)
    for _ in range(3):
        for var in expr.variables():
            var.value = rng.uniform(0.2, 2.0, var.shape)
        assert np.isclose(float(dcp.value), float(expr.value), rtol=1e-10)


def _names() -> dict:
    return {"x": x, "w": w, "y": y, "z": z, "v": v}


def test_a_problem_names_each_part_and_a_dcp_problem_is_accepted():
    problem = cp.Problem(cp.Minimize(y * cp.log(y / z) + x * x), [cp.sqrt(x ** 2 + 1) <= 3, y + z == 1])
    explanation = convexcheck.explain(problem, samples=5)
    assert explanation.verdict == "convex"
    assert [r.where for r in explanation.rejections] == ["the objective", "constraint 1"]
    assert explanation.rejections[0].spellings == ("cp.rel_entr(y, z)", "cp.square(x)")
    accepted = convexcheck.explain(cp.Problem(cp.Minimize(cp.sum_squares(v))), samples=5)
    assert accepted.rejections == () and "CVXPY's DCP accepts it" in str(accepted)
