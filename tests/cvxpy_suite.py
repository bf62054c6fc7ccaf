"""A suite of CVXPY problems as users write them (issue 27): the 66 small problems of
`benchmarks/real_cases.py` (LPs to small SDPs, in the shapes of CVXPY's examples) and the 56
problems below, which reach what those do not: atoms with CVXPY domains, the cone
constraints, linear atoms, column variables, entries broadcast against columns, bounds that
differ by entry, and problems DCP rejects that are convex. `SUITE` maps a name to
(builder, dcp): `dcp` is CVXPY's own `is_dcp()` of the built problem, read, not asserted.
"""

from __future__ import annotations

from typing import Callable

import cvxpy as cp
import numpy as np

from benchmarks.real_cases import CASES

RNG = np.random.default_rng(2027)
A3 = RNG.standard_normal((4, 3))
B4 = RNG.standard_normal(4)
P3 = np.array([[2.0, 0.5, 0.0], [0.5, 1.5, 0.2], [0.0, 0.2, 1.0]])
Q6 = RNG.dirichlet(np.ones(6))


def _v(n: int = 3, name: str = "x", **attrs) -> cp.Variable:
    return cp.Variable(n, name=name, **attrs)


def _box(x: cp.Variable, lo: float = -2.0, hi: float = 2.0) -> list:
    return [x >= lo, x <= hi]


EXTRA: dict[str, Callable[[], cp.Problem]] = {
    # atoms whose CVXPY domain the bridge declares
    "power3_min": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.power(x, 3)) - cp.sum(x)), [x <= 2]))(_v()),
    "inv_pos_sum": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.inv_pos(x)) + cp.sum(x))))(_v()),
    "power_neg": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.power(x, -2)) + cp.sum(x))))(_v()),
    "quad_over_lin_var": lambda: (lambda x, y: cp.Problem(cp.Minimize(cp.quad_over_lin(x - 1, y) + y)))(
        _v(), _v(1, "y")
    ),
    "kl_div_vec": lambda: (lambda p: cp.Problem(cp.Minimize(cp.sum(cp.kl_div(p, Q6))), [cp.sum(p) == 1, p[0] >= 0.3]))(
        _v(6, "p")
    ),
    "rel_entr_scalar": lambda: (lambda s, t: cp.Problem(cp.Minimize(cp.rel_entr(s, t) + (t - 2) ** 2), [s >= 1]))(
        _v(1, "s"), _v(1, "t")
    ),
    "entr_max": lambda: (lambda p: cp.Problem(cp.Maximize(cp.sum(cp.entr(p))), [cp.sum(p) == 1, p[1] <= 0.1]))(
        _v(5, "p")
    ),
    "log_det_plain": lambda: (lambda X: cp.Problem(cp.Maximize(cp.log_det(X)), [cp.trace(X) <= 3]))(
        cp.Variable((2, 2), name="X")
    ),
    "tr_inv_plain": lambda: (lambda X: cp.Problem(cp.Minimize(cp.tr_inv(X)), [cp.trace(X) <= 3]))(
        cp.Variable((2, 2), name="X")
    ),
    "matrix_frac_plain": lambda: (
        lambda x, X: cp.Problem(
            cp.Minimize(cp.matrix_frac(x, X) + cp.trace(X) - cp.log_det(X)), [x == np.array([1.0, 2.0])]
        )
    )(_v(2), cp.Variable((2, 2), name="X")),
    "xexp_min": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.xexp(x)) - cp.sum(x)), [x <= 3]))(_v()),
    "sqrt_max": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum(cp.sqrt(x))), [cp.sum(x) <= 3]))(_v()),
    "log1p_max": lambda: (lambda x: cp.Problem(cp.Maximize(cp.sum(cp.log1p(x))), [cp.sum(x) <= 3]))(_v()),
    "geo_mean_weights": lambda: (lambda x: cp.Problem(cp.Maximize(cp.geo_mean(x, [1, 2, 3])), [cp.sum(x) <= 3]))(_v()),
    "logistic_sum": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.logistic(A3 @ x)) + cp.sum_squares(x))))(_v()),
    "huber_fit": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.huber(A3 @ x - B4, 0.5)))))(_v()),
    # cone constraints
    "psd_plain": lambda: (lambda X: cp.Problem(cp.Minimize(cp.trace(P3 @ X)), [X >> 0, cp.trace(X) == 1]))(
        cp.Variable((3, 3), symmetric=True, name="X")
    ),
    "soc_vector": lambda: (lambda t, x: cp.Problem(cp.Minimize(t), [cp.SOC(t, A3 @ x - B4)]))(_v(1, "t"), _v()),
    "soc_columns": lambda: (
        lambda t, X: cp.Problem(cp.Minimize(cp.sum(t) - cp.sum(X)), [cp.SOC(t, X, axis=0), X <= 1])
    )(_v(3, "t"), cp.Variable((2, 3), name="X")),
    "exp_cone": lambda: (
        lambda x, y, z: cp.Problem(
            cp.Minimize(cp.sum(z) + cp.sum_squares(x - 1) + cp.sum_squares(y - 2)), [cp.constraints.ExpCone(x, y, z)]
        )
    )(_v(2), _v(2, "y"), _v(2, "z")),
    "pow_cone": lambda: (
        lambda a, b, c: cp.Problem(
            cp.Maximize(cp.sum(c) - cp.sum_squares(a) - cp.sum_squares(b)), [cp.constraints.PowCone3D(a, b, c, 0.4)]
        )
    )(_v(2, "a"), _v(2, "b"), _v(2, "c")),
    # linear atoms, shapes, broadcasting, bounds
    "convolve_fit": lambda: (
        lambda x: cp.Problem(cp.Minimize(cp.sum_squares(cp.convolve(np.array([1.0, 0.5]), x) - 1)))
    )(_v(4)),
    "kron_fit": lambda: (lambda X: cp.Problem(cp.Minimize(cp.sum_squares(cp.kron(np.eye(2), X) - 1))))(
        cp.Variable((2, 2), name="X")
    ),
    "cumsum_fit": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum_squares(cp.cumsum(x) - np.arange(4.0)))))(_v(4)),
    "diff_smooth": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum_squares(x - B4) + cp.sum_squares(cp.diff(x)))))(
        _v(4)
    ),
    "quad_form_column": lambda: (lambda x: cp.Problem(cp.Minimize(cp.quad_form(x, P3) - cp.sum(x))))(
        cp.Variable((3, 1), name="x")
    ),
    "entry_broadcast": lambda: (
        lambda a: cp.Problem(cp.Minimize(cp.sum_squares(a[1:2] * np.ones((3, 1)) - 1) + cp.sum_squares(a)))
    )(_v(4, "a")),
    "hstack_vstack": lambda: (
        lambda x, y: cp.Problem(
            cp.Minimize(cp.sum_squares(cp.hstack([x, y])) + cp.sum(cp.vstack([x, y]))),
        )
    )(_v(2), _v(2, "y")),
    "reshape_trace": lambda: (
        lambda x: cp.Problem(cp.Minimize(cp.sum_squares(x) - cp.trace(cp.reshape(x, (2, 2), order="C"))))
    )(_v(4)),
    "entry_bounds": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum_squares(x - 3)), [cp.sum(x) <= 4]))(
        cp.Variable(3, name="x", bounds=[np.array([0.0, 1.0, 0.5]), np.array([2.0, 2.5, 3.0])])
    ),
    "max_min_mix": lambda: (lambda x: cp.Problem(cp.Minimize(cp.max(A3 @ x - B4) - cp.min(x)), _box(x)))(_v()),
    "norm_inf_pos": lambda: (lambda x: cp.Problem(cp.Minimize(cp.norm_inf(x - 1) + cp.sum(cp.pos(-x)))))(_v()),
    "pnorm_objective": lambda: (lambda x: cp.Problem(cp.Minimize(cp.pnorm(A3 @ x - B4, 4))))(_v()),
    "maximum_pair": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.maximum(x, 1 - x, 0.2)))))(_v()),
    # convex, not DCP
    "x_times_x": lambda: (lambda x: cp.Problem(cp.Minimize(x @ x - cp.sum(x))))(_v()),
    "log_one_plus_exp": lambda: (
        lambda x: cp.Problem(cp.Minimize(cp.sum(cp.log(1 + cp.exp(A3 @ x))) + cp.sum_squares(x)))
    )(_v()),
    "sqrt_square_plus_one": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sqrt(x[0] ** 2 + 1) - 0.5 * x[0])))(_v(1)),
    "square_over_pos": lambda: (lambda x, y: cp.Problem(cp.Minimize(x[0] ** 2 / y[0] + y[0]), [x >= 1]))(
        _v(1), _v(1, "y", pos=True)
    ),
    "product_root": lambda: (lambda x: cp.Problem(cp.Maximize((x[0] * x[1] * x[2]) ** (1 / 3)), [cp.sum(x) <= 3]))(
        _v(3, pos=True)
    ),
    "quad_products": lambda: (lambda x: cp.Problem(cp.Minimize(x @ P3 @ x + (x[0] - 1) * (x[0] - 1))))(_v()),
    "entropy_products": lambda: (
        lambda p: cp.Problem(cp.Minimize(cp.sum(cp.multiply(p, cp.log(p)))), [cp.sum(p) == 1])
    )(_v(4, "p", pos=True)),
    "inverse_plus": lambda: (lambda y: cp.Problem(cp.Minimize(1 / y[0] + y[0])))(_v(1, "y", pos=True)),
    "log_sum_exp_written": lambda: (
        lambda x: cp.Problem(cp.Minimize(cp.log(cp.sum(cp.exp(x))) + cp.sum_squares(x - 1)))
    )(_v()),
    "exp_times_exp": lambda: (lambda x, y: cp.Problem(cp.Minimize(cp.exp(x[0]) * cp.exp(y[0]) - x[0] - y[0])))(
        _v(1), _v(1, "y")
    ),
    "norm_written": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sqrt(cp.sum_squares(A3 @ x - B4)))))(_v()),
    # more shapes CVXPY's examples use
    "lp_matrix_var": lambda: (
        lambda X: cp.Problem(
            cp.Minimize(cp.sum(cp.multiply(P3, X))), [X >= 0, cp.sum(X, axis=0) == 1, cp.sum(X, axis=1) <= 2]
        )
    )(cp.Variable((3, 3), name="X")),
    "least_squares_matrix": lambda: (lambda X: cp.Problem(cp.Minimize(cp.sum_squares(A3 @ X - np.ones((4, 2))))))(
        cp.Variable((3, 2), name="X")
    ),
    "norm_axis_rows": lambda: (
        lambda X: cp.Problem(cp.Minimize(cp.sum(cp.norm(X - 1, 2, axis=1)) + cp.sum_squares(X)))
    )(cp.Variable((3, 2), name="X")),
    "fro_norm_constraint": lambda: (lambda X: cp.Problem(cp.Maximize(cp.trace(X)), [cp.norm(X, "fro") <= 2]))(
        cp.Variable((2, 2), name="X")
    ),
    "nuclear_free_trace": lambda: (lambda X: cp.Problem(cp.Minimize(cp.trace(P3 @ X) - cp.log_det(X))))(
        cp.Variable((3, 3), symmetric=True, name="X")
    ),
    "sum_squares_param": lambda: (lambda x, g: cp.Problem(cp.Minimize(cp.sum_squares(x - g) + cp.norm1(x))))(
        _v(), cp.Parameter(3, name="g", value=np.array([2.0, -0.1, 0.5]))
    ),
    "param_scaled_entropy": lambda: (lambda p, w: cp.Problem(cp.Maximize(w * cp.sum(cp.entr(p))), [cp.sum(p) == 1]))(
        _v(4, "p"), cp.Parameter(nonneg=True, name="w", value=2.0)
    ),
    "exp_fit": lambda: (lambda x: cp.Problem(cp.Minimize(cp.sum(cp.exp(A3 @ x)) - B4 @ (A3 @ x) + cp.sum_squares(x))))(
        _v()
    ),
    "mixed_norms": lambda: (lambda x: cp.Problem(cp.Minimize(cp.norm1(x) + cp.norm2(x - 1) + cp.norm_inf(x + 1))))(
        _v()
    ),
    "multiply_nonneg": lambda: (
        lambda x: cp.Problem(cp.Minimize(cp.sum(cp.multiply(np.array([1.0, 2.0, 3.0]), cp.square(x - 1)))))
    )(_v()),
    "hinge_small": lambda: (
        lambda w: cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - cp.multiply(np.sign(B4), A3 @ w))) + cp.sum_squares(w)))
    )(_v(3, "w")),
}

SUITE: dict[str, tuple[Callable[[], cp.Problem], bool]] = {
    **{name: (c.build, c.build().is_dcp()) for name, c in CASES.items() if not c.large},
    **{name: (build, build().is_dcp()) for name, build in EXTRA.items()},
}
