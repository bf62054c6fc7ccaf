"""Audit corpus: scalar objectives of independently checked curvature that the analyser was not
built against, for tests/test_convexity_audit.py: (name, problem text, convex truth, concave truth).

Truth is mathematical (each comment says why), never the analyser's answer: True means the side
holds for every admissible parameter value and on the function's natural domain (where log, 1/x,
fractional powers and inv are defined; a side is False when that domain is not convex), False that
it fails for some admissible point. Every truth was checked with NumPy, independently of
tensorcalc: 2,000 random admissible points and parameters per case (named lengths 2 to 4),
second differences f(x+hd) + f(x-hd) - 2f(x) for h from 1e-3 to 3 and midpoints of random pairs;
a True side survived every test, a False side has a witness found this way (for the fixed-length
Cauchy-Schwarz cases the bound is stated in the comment)."""

CASES = [
    # --- Boyd & Vandenberghe ch. 3 examples and CVXPY atoms
    ("bv_lse_vec", "variable x[n]\nminimize log_sum_exp(x)", True, False),  # log-sum-exp (B&V 3.1.5)
    ("bv_lse_affine", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize log(sum(exp(A * x + b)))", True, False),  # lse of affine
    ("bv_neg_lse_neg", "variable x[n]\nmaximize -log_sum_exp(-x)", False, True),  # soft-min is concave
    ("bv_lse_sq", "variable x[n]\nminimize log_sum_exp(x .^ 2)", True, False),  # lse (increasing, convex) of convex
    ("bv_lse_neg_sq", "variable x[n]\nminimize log_sum_exp(-(x .^ 2))", False, False),  # lse of concave: n=2 at 0 is log(2) - x1^2/2 - ..., concave there, convex far out
    ("bv_lse_log", "variable x[n] pos\nminimize log_sum_exp(log(x))", False, True),  # = log(sum x): concave, not convex
    ("bv_lse_minus_lin", "variable x[3]\nparameter y[3]\nminimize log_sum_exp(x) - x' * y", True, False),  # softmax loss: lse minus affine
    ("bv_lse_two", "variable x\nvariable y\nminimize log(exp(x) + exp(y))", True, False),  # lse of two scalars
    ("bv_lse_weighted", "variable x\nvariable y\nminimize log(2 * exp(x) + 3 * exp(-y))", True, False),  # lse with positive weights, affine args
    ("bv_log_exp_diff", "variable x\nvariable y\nmaximize log(exp(x) - exp(y))", False, True),  # x + log(1 - e^(y-x)), log(1-e^u) concave; domain x > y convex
    ("bv_log_exp_half_diff", "variable x\nvariable y\nmaximize log(exp(x) - 0.5 * exp(y))", False, True),  # x + log(1 - 0.5 e^(y-x)): concave
    ("bv_lse_exp_sq", "variable x\nvariable y\nminimize log(exp(x^2) + exp(y) + 1)", True, False),  # lse of convex args
    ("bv_exp_lse", "variable x[n]\nminimize exp(log_sum_exp(x))", True, False),  # = sum exp(x)
    ("bv_geo3", "variable x pos\nvariable y pos\nvariable z pos\nmaximize (x * y * z)^(1/3)", False, True),  # geometric mean of 3
    ("bv_geo3_sqrt", "variable x nonneg\nvariable y nonneg\nvariable z nonneg\nmaximize (x * y * z)^(1/2)", False, False),  # degree 3/2: along (1,1,1) t^1.5 convex; concave fails
    ("bv_wgeo", "variable x pos\nvariable y pos\nmaximize x^0.3 * y^0.7", False, True),  # weighted geometric mean
    ("bv_wgeo_over1", "variable x pos\nvariable y pos\nmaximize x^0.6 * y^0.6", False, False),  # degree 1.2 > 1: convex along rays, concave across
    ("bv_sqrt_prod", "variable x pos\nvariable y pos\nmaximize sqrt(x) * sqrt(y)", False, True),  # geometric mean spelled as a product
    ("bv_qol_vec", "variable x[n]\nvariable t pos\nminimize quad_over_lin(x, t)", True, False),  # quad-over-lin
    ("bv_qol_diff", "variable x[n]\nvariable y[n]\nvariable t pos\nminimize sum((x - y) .^ 2) / t", True, False),  # quad-over-lin of affine
    ("bv_qol_free_den", "variable x\nvariable y\nminimize x^2 / y", False, False),  # y free: concave on y < 0, domain y != 0 not convex
    ("bv_qol_one_minus", "variable x\nvariable y < 1\nminimize x^2 / (1 - y)", True, False),  # quad over positive affine
    ("bv_qol_sqrt_den", "variable x\nvariable y pos\nminimize x^2 / sqrt(y)", True, False),  # square over positive concave
    ("bv_qol_log_den", "variable x\nvariable y > 1\nminimize x^2 / log(y)", True, False),  # square over positive concave
    ("bv_qol_exp_den", "variable x\nvariable y\nminimize x^2 / exp(y)", False, False),  # Hessian det 2x^2 - 4x^2 < 0
    ("bv_qol_sum_num", "variable x nonneg\nvariable y\nminimize (x + y)^2 / (x + 1)", True, False),  # square of affine over positive affine
    ("bv_qol_self", "variable x pos\nvariable y pos\nminimize x^2 / (x + y)", True, False),  # quad over lin
    ("bv_two_qol", "variable x pos\nvariable y pos\nminimize x^2 / y + y^2 / x", True, False),  # sum of two quad-over-lin
    ("bv_vec_qol_elem", "variable x[n]\nvariable y[n] pos\nminimize sum(x .^ 2 ./ y)", True, False),  # sum of quad-over-lin entries
    ("bv_vec_ratio", "variable x[n] pos\nvariable y[n] pos\nminimize sum(x ./ y)", False, False),  # x/y indefinite Hessian
    ("bv_norm2_affine", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize norm2(A * x - b)", True, False),  # Euclidean norm of affine
    ("bv_norm2_cubed", "variable x[n]\nminimize norm2(x)^3", True, False),  # increasing convex power of a norm
    ("bv_norm1_affine", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize norm1(X * w - y)", True, False),  # l1 norm of affine
    ("bv_frob", "variable X[n, m]\nminimize norm2(X)", True, False),  # Frobenius norm
    ("bv_sq_norm_quarter", "variable x\nvariable y\nminimize (x^2 + y^2)^0.25", False, False),  # sqrt of a norm: concave along rays
    ("bv_norm_1_5", "variable x\nvariable y\nminimize (x^2 + y^2)^1.5", True, False),  # norm cubed
    ("bv_4norm", "variable x\nvariable y\nminimize (x^4 + y^4)^0.25", True, False),  # the l4 norm
    ("bv_3norm_nonneg", "variable x nonneg\nvariable y nonneg\nminimize (x^3 + y^3)^(1/3)", True, False),  # l3 norm on the nonneg orthant
    ("bv_half_norm", "variable x pos\nvariable y pos\nmaximize (sqrt(x) + sqrt(y))^2", False, True),  # the p = 1/2 'norm' is concave on the orthant
    ("bv_sum_sq_pow04", "variable x[n]\nminimize sum(x .^ 2)^0.4", False, False),  # norm^0.8: concave along rays
    ("bv_xlogx_vec", "variable x[n] pos\nminimize sum(x .* log(x))", True, False),  # negative entropy
    ("bv_entr", "variable x[n] pos\nmaximize sum(entr(x))", False, True),  # entropy
    ("bv_kl_div", "variable x[n] pos\nvariable y[n] pos\nminimize sum(kl_div(x, y))", True, False),  # KL divergence, jointly convex
    ("bv_rel_entr", "variable x pos\nvariable y pos\nminimize x * log(x) - x * log(y)", True, False),  # relative entropy x log(x/y)
    ("bv_persp_exp", "variable x pos\nvariable y\nminimize x * exp(y / x)", True, False),  # perspective of exp
    ("bv_persp_neglog", "variable x pos\nvariable y pos\nminimize -x * log(y / x)", True, False),  # perspective of -log
    ("bv_x3_over_y2", "variable x pos\nvariable y pos\nminimize x^3 / y^2", True, False),  # perspective of x^3: x^a y^b, a >= 1, b <= 0, a + b >= 1
    ("bv_x3_over_y", "variable x pos\nvariable y pos\nminimize x^3 / y", True, False),  # x^3 y^-1: a + b = 2 >= 1
    ("bv_x3_over_y3", "variable x pos\nvariable y pos\nminimize x^3 / y^3", False, False),  # (x/y)^3, a + b = 0 < 1
    ("bv_x2_over_y3", "variable x pos\nvariable y pos\nminimize x^2 / y^3", False, False),  # a + b = -1: not convex
    ("bv_x15_over_y05", "variable x pos\nvariable y pos\nminimize x^1.5 / y^0.5", True, False),  # perspective of x^1.5
    ("bv_inv_xy", "variable x pos\nvariable y pos\nminimize 1 / (x * y)", True, False),  # x^-1 y^-1 convex
    ("bv_inv_sqrt_xy", "variable x pos\nvariable y pos\nminimize (x * y)^(-0.5)", True, False),  # x^-1/2 y^-1/2 convex
    ("bv_harm2", "variable x pos\nvariable y pos\nmaximize (x^(-1) + y^(-1))^(-1)", False, True),  # half the harmonic mean
    ("bv_harm2_ratio", "variable x pos\nvariable y pos\nmaximize x * y / (x + y)", False, True),  # same function as a ratio
    ("bv_x2_over_y2", "variable x pos\nvariable y pos\nminimize x^2 / y^2", False, False),  # (x/y)^2: Hessian det < 0
    ("bv_abs_over_y", "variable x\nvariable y pos\nminimize abs(x) / y", False, False),  # x/y on x > 0
    ("bv_log_barrier", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize -sum(log(b - A * x))", True, False),  # log barrier, domain a polyhedron
    ("bv_interval_barrier", "variable x > 0 < 1\nminimize -log(x) - log(1 - x)", True, False),  # barrier of (0, 1)
    ("bv_log_one_minus_sq", "variable x[n]\nmaximize sum(log(1 - x .^ 2))", False, True),  # log of positive concave
    ("bv_log_one_minus_xx", "variable x[n]\nmaximize log(1 - x' * x)", False, True),  # log of positive concave
    ("bv_sqrt_one_minus_xx", "variable x[n]\nmaximize sqrt(1 - x' * x)", False, True),  # sqrt of nonneg concave
    ("bv_log_sumsq", "variable x[n]\nminimize -log(x' * x)", False, False),  # domain x != 0 not convex; -2 log r along rays is convex, across not
    ("bv_log_quad_pd", "parameter A[n, n] pd\nvariable x[n]\nminimize log(x' * A * x)", False, False),  # log of convex: 2 log t along rays
    # --- power functions on declared domains
    ("pow_inv_pos", "variable x pos\nminimize x^(-1)", True, False),  # x^p, p < 0
    ("pow_m05", "variable x pos\nminimize x^(-0.5)", True, False),  # x^p, p < 0
    ("pow_05", "variable x nonneg\nmaximize x^0.5", False, True),  # 0 < p < 1
    ("pow_03", "variable x nonneg\nmaximize x^0.3", False, True),  # 0 < p < 1
    ("pow_15", "variable x nonneg\nminimize x^1.5", True, False),  # p > 1 on nonneg
    ("pow_25", "variable x nonneg\nminimize x^2.5", True, False),  # p > 1 on nonneg
    ("pow_3_free", "variable x\nminimize x^3", False, False),  # cubic on R
    ("pow_3_nonneg", "variable x nonneg\nminimize x^3", True, False),  # cubic on nonneg
    ("pow_3_nonpos", "variable x nonpos\nmaximize x^3", False, True),  # cubic on nonpos
    ("pow_3_ge_m1", "variable x >= -1\nminimize x^3", False, False),  # 6x < 0 on [-1, 0)
    ("pow_4_free", "variable x\nminimize x^4", True, False),  # even power
    ("pow_m2_neg", "variable x neg\nminimize x^(-2)", True, False),  # x^-2 convex on x < 0
    ("pow_m1_neg", "variable x neg\nmaximize x^(-1)", False, True),  # 1/x concave on x < 0
    ("pow_m1_free", "variable x\nminimize 1 / x", False, False),  # domain x != 0 not convex; concave on x < 0
    ("pow_m2_free", "variable x\nminimize x^(-2)", False, False),  # domain x != 0 not convex (convex on each half)
    ("pow_third_free", "variable x\nmaximize x^(1/3)", False, True),  # fractional power: domain x >= 0, concave
    ("pow_cubic_shift", "variable x >= -1\nminimize x^3 + 3 * x^2", True, False),  # f'' = 6x + 6 >= 0 on the declared domain
    ("pow_cubic_minus_lin", "variable x nonneg\nminimize x^3 - 3 * x", True, False),  # f'' = 6x >= 0
    ("pow_quartic_well", "variable x\nminimize x^4 - x^2", False, False),  # f'' = 12x^2 - 2 < 0 near 0
    ("pow_quartic_well_ge1", "variable x >= 1\nminimize x^4 - x^2", True, False),  # f'' >= 10 on x >= 1
    ("pow_param_ge1", "parameter p >= 1\nvariable x pos\nminimize x^p", True, False),  # x^p, p >= 1 on x > 0
    ("pow_param_01", "parameter p >= 0 <= 1\nvariable x pos\nmaximize x^p", False, True),  # x^p, 0 <= p <= 1
    ("pow_param_free", "parameter p\nvariable x pos\nminimize x^p", False, False),  # p = 0.5 concave, p = 2 convex
    ("pow_param_nonpos", "parameter p nonpos\nvariable x pos\nminimize x^p", True, False),  # x^p, p <= 0
    ("pow_sqrt_abs", "variable x\nminimize sqrt(abs(x))", False, False),  # quasiconvex, not convex
    ("pow_abs_05", "variable x\nminimize abs(x)^0.5", False, False),  # same as sqrt(abs(x))
    ("pow_abs_3", "variable x\nminimize abs(x)^3", True, False),  # increasing convex power of abs
    ("pow_abs_shift_15", "variable x\nminimize abs(x - 1)^1.5", True, False),  # increasing convex power of abs
    ("pow_relu_05", "variable x\nminimize relu(x)^0.5", False, False),  # concave for x > 0, flat kink at 0
    # --- compositions several levels deep
    ("c_sq_nonneg_convex", "variable x\nminimize (x^2 + 1)^2", True, False),  # square of nonneg convex
    ("c_sq_exp_minus2", "variable x\nminimize (exp(x) - 2)^2", False, False),  # f'' = 4e^x (e^x - 1) < 0 for x < 0
    ("c_sq_x2_minus1", "variable x\nminimize (x^2 - 1)^2", False, False),  # double well
    ("c_relu_sq", "variable x\nminimize relu(x)^2", True, False),  # square of nonneg convex
    ("c_relu_x2m1_sq", "variable x\nminimize relu(x^2 - 1)^2", True, False),  # square of nonneg convex
    ("c_sqrt_1mx2", "variable x\nmaximize sqrt(1 - x^2)", False, True),  # sqrt of concave
    ("c_sqrt_1px2", "variable x\nminimize sqrt(1 + x^2)", True, False),  # norm of (x, 1)
    ("c_log_1px2", "variable x\nminimize log(1 + x^2)", False, False),  # f'' < 0 for |x| > 1
    ("c_log_x2", "variable x\nminimize log(x^2)", False, False),  # domain x != 0; concave on each half
    ("c_exp_exp", "variable x\nminimize exp(exp(x))", True, False),  # increasing convex of convex
    ("c_exp_negexp", "variable x\nminimize exp(-exp(x))", False, False),  # f'' = f e^x (e^x - 1)
    ("c_loglog", "variable x > 1\nmaximize log(log(x))", False, True),  # increasing concave of concave
    ("c_inv_log", "variable x > 1\nminimize 1 / log(x)", True, False),  # decreasing convex of positive concave
    ("c_inv_one_minus", "variable x < 1\nminimize 1 / (1 - x)", True, False),  # inv_pos of positive affine
    ("c_inv_sum", "variable x pos\nvariable y pos\nminimize 1 / (x + y)", True, False),  # inv_pos of affine
    ("c_inv_sqrt", "variable x pos\nminimize 1 / sqrt(x)", True, False),  # inv_pos of concave
    ("c_agnesi", "variable x\nminimize 1 / (x^2 + 1)", False, False),  # witch of Agnesi
    ("c_sum_inv", "variable x[n] pos\nminimize sum(1 ./ x)", True, False),  # sum of inv_pos
    ("c_x_exp_x", "variable x\nminimize x * exp(x)", False, False),  # f'' = (x + 2) e^x
    ("c_x_exp_x_nonneg", "variable x nonneg\nminimize x * exp(x)", True, False),  # f'' = (x + 2) e^x > 0 on x >= 0
    ("c_exp_over_x", "variable x pos\nminimize exp(x) / x", True, False),  # f'' = e^x (x^2 - 2x + 2) / x^3 > 0
    ("c_exp_sq", "variable x\nminimize exp(x^2)", True, False),  # exp of convex
    ("c_exp_negsq", "variable x\nminimize exp(-x^2)", False, False),  # Gaussian bump
    ("c_neg_exp_negsq", "variable x\nminimize -exp(-x^2)", False, False),  # negated bump
    ("c_exp_abs", "variable x\nminimize exp(abs(x))", True, False),  # exp of convex
    ("c_exp_relu", "variable x\nminimize exp(relu(x))", True, False),  # exp of convex
    ("c_log_relu_p1", "variable x\nminimize log(relu(x) + 1)", False, False),  # convex kink at 0, concave beyond
    ("c_logcosh", "variable x\nminimize log(exp(x) + exp(-x))", True, False),  # log cosh + log 2
    ("c_softplus_sum", "variable x[n]\nminimize sum(logistic(x))", True, False),  # CVXPY logistic
    ("c_softplus_neg", "variable x\nmaximize -softplus(x)", False, True),  # negated softplus
    ("c_softplus_sq", "variable x\nminimize log(1 + exp(x^2))", True, False),  # softplus (increasing) of convex
    ("c_softplus_negsq", "variable x\nminimize log(1 + exp(-x^2))", False, False),  # f''(0) < 0, f''(2) > 0
    ("c_tanh", "variable x\nminimize tanh(x)", False, False),  # sigmoidal
    ("c_tanh_nonneg", "variable x nonneg\nmaximize tanh(x)", False, True),  # concave on x >= 0
    ("c_arctan_nonpos", "variable x nonpos\nminimize arctan(x)", True, False),  # f'' = -2x/(1+x^2)^2 >= 0 on x <= 0
    ("c_sin", "variable x\nminimize sin(x)", False, False),  # periodic
    ("c_sin_0_3", "variable x >= 0 <= 3\nmaximize sin(x)", False, True),  # sin'' = -sin <= 0 on [0, pi]
    ("c_cos_pm1", "variable x >= -1 <= 1\nmaximize cos(x)", False, True),  # cos'' = -cos < 0 on [-1, 1]
    ("c_exp_minus_sq", "variable x\nminimize exp(x) - x^2", False, False),  # f'' = e^x - 2
    ("c_exp_minus_sq_ge1", "variable x >= 1\nminimize exp(x) - x^2", True, False),  # f'' = e^x - 2 > 0 on x >= 1
    ("c_xlogx_minus_x", "variable x pos\nminimize x * log(x) - x", True, False),  # f'' = 1/x
    ("c_log_minus_sq", "variable x pos\nmaximize log(x) - x^2", False, True),  # sum of concave
    ("c_log_plus_sq", "variable x pos\nminimize log(x) + x^2", False, False),  # f'' = 2 - 1/x^2
    ("c_exp_plus_log", "variable x pos\nminimize exp(x) + log(x)", False, False),  # f'' = e^x - 1/x^2
    ("c_loglog_barrier", "variable x > 0 < 1\nminimize -log(-log(x))", False, False),  # f'' = -(u - 1)/(x u)^2 with u = -log x: < 0 for x < 1/e, > 0 beyond
    ("c_huber_sqrt", "variable x nonneg\nmaximize huber(sqrt(x))", False, True),  # = x on [0,1], 2 sqrt(x) - 1 beyond: concave
    ("c_huber_sq", "variable x\nminimize huber(x^2)", True, False),  # huber increasing on nonneg, x^2 convex nonneg
    ("c_huber_squared", "variable x\nminimize huber(x)^2", True, False),  # square of nonneg convex
    ("c_huber_one_minus_sq", "variable x\nminimize huber(1 - x^2)", False, False),  # nonconvex at 0
    ("c_neg_huber", "variable x\nmaximize -huber(x)", False, True),  # negated huber
    ("c_huber_abs", "variable x\nminimize huber(abs(x))", True, False),  # = huber(x)
    ("c_huber_relu", "variable x\nminimize huber(relu(x))", True, False),  # huber increasing on nonneg of convex nonneg
    ("c_huber_reg", "parameter A[m, n]\nparameter b[m]\nparameter lam nonneg\nvariable x[n]\nminimize sum(huber(A * x - b)) + lam * norm1(x)", True, False),  # robust regression
    ("c_exp_xy_prod", "variable x\nvariable y\nminimize exp(x) * exp(y)", True, False),  # = exp(x + y)
    ("c_lse_prod", "variable x[n]\nminimize sum(exp(x)) * sum(exp(-x))", True, False),  # log-convex (its log is a sum of lse), so convex
    ("c_exp_x_sq", "variable x\nminimize exp(x) * x^2", False, False),  # f'' = e^x (x^2 + 4x + 2) < 0 at x = -2
    ("c_sq_exp_y", "variable x\nvariable y\nminimize x^2 * exp(y)", False, False),  # Hessian det -2x^2 e^2y
    ("c_sqrt_xy_p1", "variable x pos\nvariable y pos\nminimize sqrt(x * y + 1)", False, False),  # convex along (1,1), concave along (1,-1)
    ("c_sqrt_sum", "variable x[n] nonneg\nmaximize sqrt(sum(x))", False, True),  # sqrt of affine
    ("c_sum_sqrt", "variable x[n] nonneg\nmaximize sum(sqrt(x))", False, True),  # sum of concave
    ("c_sqrt_sumsq_p1", "variable x[n]\nminimize sqrt(sum(x .^ 2) + 1)", True, False),  # norm of (x, 1)
    ("c_sqrt_quad_psd", "parameter A[n, n] psd\nvariable x[n]\nminimize sqrt(x' * A * x)", True, False),  # ||A^1/2 x||
    ("c_sqrt_quad_psd_p1", "parameter A[n, n] psd\nvariable x[n]\nminimize sqrt(x' * A * x + 1)", True, False),  # norm of (A^1/2 x, 1)
    ("c_norm2_Xa", "variable X[n, m]\nparameter a[m]\nparameter b[n]\nminimize norm2(X * a - b)", True, False),  # norm of affine in X
    # --- max / relu / abs patterns
    ("m_max_xy", "variable x\nvariable y\nminimize x + relu(y - x)", True, False),  # max(x, y)
    ("m_min_xy", "variable x\nvariable y\nmaximize x - relu(x - y)", False, True),  # min(x, y)
    ("m_max_sq_lin", "variable x\nminimize x^2 + relu(1 - x - x^2)", True, False),  # max(x^2, 1 - x)
    ("m_min_sq_1", "variable x\nminimize x^2 - relu(x^2 - 1)", False, False),  # min(x^2, 1)
    ("m_one_minus_relu", "variable x\nminimize 1 - relu(1 - x^2)", False, False),  # min(x^2, 1) again
    ("m_relu_sum", "variable x\nvariable y\nminimize relu(x) + relu(y)", True, False),  # sum of relu
    ("m_relu_prod", "variable x\nvariable y\nminimize relu(x) * relu(y)", False, False),  # xy on the positive quadrant
    ("m_relu_relu_m1", "variable x\nminimize relu(relu(x) - 1)", True, False),  # increasing convex of convex
    ("m_abs_abs_m1", "variable x\nminimize abs(abs(x) - 1)", False, False),  # W shape
    ("m_tent", "variable x\nmaximize relu(1 - abs(x))", False, False),  # tent: concave kink at 0, convex kinks at +-1
    ("m_relu_abs_m1", "variable x\nminimize relu(abs(x) - 1)", True, False),  # increasing convex of convex
    ("m_abs_relu", "variable x\nminimize abs(relu(x))", True, False),  # = relu(x)
    ("m_neg_relu_neg", "variable x\nmaximize -relu(-x)", False, True),  # min(x, 0)
    ("m_abs_triangle_gap", "variable x\nvariable y\nminimize abs(x) + abs(y) - abs(x + y)", False, False),  # concave kink along y = 1
    ("m_relu_pm", "variable x\nminimize relu(x) + relu(-x)", True, False),  # = abs(x)
    ("m_relu_minus_relu", "variable x\nminimize relu(x) - relu(-x)", True, True),  # = x: affine
    ("m_abs_minus_relu", "variable x\nminimize abs(x) - relu(x)", True, False),  # = relu(-x)
    ("m_relu_x2m1", "variable x\nminimize relu(x^2 - 1)", True, False),  # increasing convex of convex
    ("m_relu_1mx2", "variable x\nminimize relu(1 - x^2)", False, False),  # bump
    ("m_relu_negsq", "variable x\nminimize relu(-x^2)", True, True),  # identically 0
    ("m_relu_log", "variable x pos\nminimize relu(log(x))", False, False),  # convex kink at 1, concave beyond
    ("m_relu_expm1", "variable x\nminimize relu(exp(x) - 1)", True, False),  # increasing convex of convex
    ("m_clamp", "variable x\nminimize relu(x) - relu(x - 1)", False, False),  # clamp to [0, 1]
    ("m_abs_pm1", "variable x\nminimize abs(x - 1) + abs(x + 1)", True, False),  # sum of abs
    ("m_abs_diff_pm1", "variable x\nminimize abs(x - 1) - abs(x + 1)", False, False),  # difference of abs
    ("m_abs_abs", "variable x\nminimize abs(abs(x))", True, False),  # = abs(x)
    ("m_abs_relu_m1", "variable x\nminimize abs(relu(x) - 1)", False, False),  # concave kink at 0
    ("m_abs_x2m2x", "variable x\nminimize abs(x^2 - 2 * x)", False, False),  # concave between the roots
    ("m_abs_exp", "variable x\nminimize abs(exp(x))", True, False),  # = exp(x)
    ("m_abs_log", "variable x pos\nminimize abs(log(x))", False, False),  # concave for x > 1
    ("m_abs_sq", "variable x\nminimize abs(x)^2", True, False),  # = x^2
    ("m_hinge_sq", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum(relu(A * x - b) .^ 2)", True, False),  # squared hinge
    ("m_hinge", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum(relu(A * x - b))", True, False),  # hinge
    ("m_l1_plus_norm", "parameter A[m, n]\nparameter b[m]\nparameter lam nonneg\nvariable x[n]\nminimize norm1(A * x - b) + lam * norm2(x)", True, False),  # sum of norms
    # --- products, differences and cancellations
    ("p_xy", "variable x\nvariable y\nminimize x * y", False, False),  # bilinear
    ("p_xy_pos", "variable x pos\nvariable y pos\nminimize x * y", False, False),  # bilinear on the orthant
    ("p_x_over_y", "variable x pos\nvariable y pos\nminimize x / y", False, False),  # indefinite Hessian
    ("p_x_log_y", "variable x pos\nvariable y pos\nminimize x * log(y)", False, False),  # indefinite
    ("p_logx_logy", "variable x > 1\nvariable y > 1\nminimize log(x) * log(y)", False, False),  # product of concave
    ("p_log_xy", "variable x pos\nvariable y pos\nmaximize log(x * y)", False, True),  # = log x + log y
    ("p_log_xy_free", "variable x\nvariable y\nmaximize log(x * y)", False, False),  # domain xy > 0: two quadrants, not convex
    ("p_log_sum", "variable x pos\nvariable y pos\nmaximize log(x + y)", False, True),  # log of affine
    ("p_sq_sq", "variable x\nvariable y\nminimize x^2 * y^2", False, False),  # degree-4 product
    ("p_xy_sq", "variable x\nvariable y\nminimize (x * y)^2", False, False),  # same function
    ("p_sq_diff", "variable x\nvariable y\nminimize (x + y)^2 - (x - y)^2", False, False),  # = 4xy
    ("p_sq_cancel_affine", "variable x\nminimize x^2 - (x - 1)^2", True, True),  # = 2x - 1
    ("p_sq_cancel_zero", "variable x\nvariable y\nminimize x^2 + 2 * x * y + y^2 - (x + y)^2", True, True),  # identically 0
    ("p_quad_psd_form", "variable x\nvariable y\nminimize x^2 + y^2 - x * y", True, False),  # [[1,-1/2],[-1/2,1]] pd
    ("p_quad_indef_form", "variable x\nvariable y\nminimize x^2 + y^2 - 3 * x * y", False, False),  # eigenvalue 1 - 3/2 < 0
    ("p_quad_perfect_sq", "variable x\nvariable y\nminimize x^2 - 2 * x * y + y^2", True, False),  # (x - y)^2
    ("p_quad_near_sq", "variable x\nvariable y\nminimize x^2 - 2.1 * x * y + y^2", False, False),  # eigenvalue 1 - 1.05 < 0
    ("p_sq_combo", "variable x\nminimize x^2 + (1 - x)^2 - 2 * x^2", True, True),  # = 1 - 2x
    ("p_exp_cancel", "variable x\nminimize exp(x) - exp(x)", True, True),  # identically 0
    ("p_exp_times_inv", "variable x\nminimize exp(x) * exp(-x)", True, True),  # identically 1
    ("p_log_ratio_const", "variable x pos\nminimize log(x) - log(2 * x)", True, True),  # = -log 2
    ("p_sqrt_sq", "variable x nonneg\nminimize sqrt(x)^2", True, True),  # = x
    ("p_exp_log", "variable x pos\nminimize exp(log(x))", True, True),  # = x
    ("p_log_exp", "variable x\nminimize log(exp(x))", True, True),  # = x
    ("p_sqrt_fourth", "variable x nonneg\nminimize sqrt(x)^4", True, False),  # = x^2
    ("p_sqrt_x2", "variable x\nminimize sqrt(x^2)", True, False),  # = abs(x)
    ("p_sqrt_x4", "variable x\nminimize sqrt(x^4)", True, False),  # = x^2
    ("p_cube_cuberoot", "variable x pos\nminimize (x^3)^(1/3)", True, True),  # = x
    ("p_exp_2log", "variable x pos\nminimize exp(2 * log(x))", True, False),  # = x^2
    ("p_dc_sum_exp_sq", "variable x\nminimize exp(x) - x^2 + x^2", True, False),  # = exp(x)
    ("p_dc_general", "variable x\nminimize x^2 - exp(x)", False, False),  # f'' = 2 - e^x
    ("p_sum_sq_var3", "variable x[3]\nminimize sum(x .^ 2) - sum(x)^2 / 3", True, False),  # 2(I - J/3) psd
    ("p_sum_sq_var3_over", "variable x[3]\nminimize sum(x .^ 2) - 0.34 * sum(x)^2", False, False),  # 2 - 2(0.34)(3) < 0
    ("p_sum_sq_half_2", "variable x[2]\nminimize sum(x .^ 2) - 0.5 * sum(x)^2", True, False),  # = (x1 - x2)^2 / 2
    ("p_sum_cube", "variable x[n]\nminimize sum(x)^3", False, False),  # cube of affine
    ("p_sum_sq", "variable x[n]\nminimize sum(x)^2", True, False),  # square of affine
    ("p_sum_exp_sq", "variable x[n]\nminimize sum(exp(x))^2", True, False),  # square of nonneg convex
    ("p_lse_minus_mean", "variable x[3]\nminimize log_sum_exp(x) - sum(x) / 3", True, False),  # lse minus affine
    # --- parameters with and without signs
    ("q_lam_free_sq", "parameter lam\nvariable x[n]\nminimize lam * x' * x", False, False),  # lam of either sign
    ("q_lam_nonpos_sq", "parameter lam nonpos\nvariable x[n]\nmaximize lam * x' * x", False, True),  # nonpositive multiple of convex
    ("q_lam_free_exp", "parameter lam\nvariable x\nminimize lam * exp(x)", False, False),  # lam of either sign
    ("q_lam_nonneg_exp", "parameter lam nonneg\nvariable x\nminimize lam * exp(x)", True, False),  # nonneg multiple
    ("q_lam_sq_exp", "parameter lam\nvariable x\nminimize lam^2 * exp(x)", True, False),  # lam^2 >= 0
    ("q_exp_lam_sq", "parameter lam\nvariable x\nminimize exp(lam) * x^2", True, False),  # exp(lam) > 0
    ("q_abs_lam_sq", "parameter lam\nvariable x\nminimize abs(lam) * x^2", True, False),  # abs(lam) >= 0
    ("q_lam_m1_ge1", "parameter lam >= 1\nvariable x\nminimize (lam - 1) * x^2", True, False),  # lam - 1 >= 0
    ("q_lam_m1_ge05", "parameter lam >= 0.5\nvariable x\nminimize (lam - 1) * x^2", False, False),  # lam - 1 may be negative
    ("q_lam_cancel", "parameter lam\nvariable x\nminimize lam * x^2 - lam * x^2", True, True),  # identically 0
    ("q_lam_diff_sq", "parameter lam\nvariable x\nvariable y\nminimize lam * (x^2 - y^2)", False, False),  # indefinite for lam != 0
    ("q_neg_lam_log", "parameter lam nonneg\nvariable x pos\nminimize -lam * log(x)", True, False),  # nonneg multiple of -log
    ("q_affine_param", "parameter a[n]\nvariable x[n]\nminimize a' * x", True, True),  # affine
    ("q_nonneg_w_exp", "parameter a[n] nonneg\nvariable x[n]\nminimize a' * exp(x)", True, False),  # nonneg weights
    ("q_free_w_exp", "parameter a[n]\nvariable x[n]\nminimize a' * exp(x)", False, False),  # weights of either sign
    ("q_c_ge_m1_exp", "parameter c >= -1\nvariable x[n]\nminimize c * sum(exp(x))", False, False),  # c may be negative
    ("q_a_nonneg_sq", "parameter a[n] nonneg\nvariable x[n]\nminimize sum(a .* x .^ 2)", True, False),  # nonneg weighted squares
    ("q_a_nonpos_sq", "parameter a[n] nonpos\nvariable x[n]\nmaximize sum(a .* x .^ 2)", False, True),  # nonpositive weighted squares
    ("q_diag_nonneg", "parameter a[n] nonneg\nvariable x[n]\nminimize x' * diag(a) * x", True, False),  # diag(a) psd
    ("q_w_log", "parameter w[n] nonneg\nvariable x[n] pos\nmaximize sum(w .* log(x))", False, True),  # nonneg weighted logs
    ("q_exp_ax", "parameter a\nvariable x\nminimize exp(a * x)", True, False),  # exp of affine
    ("q_exp_ax2_free", "parameter a\nvariable x\nminimize exp(a * x^2)", False, False),  # a < 0 gives a bump
    ("q_exp_ax2_nonneg", "parameter a nonneg\nvariable x\nminimize exp(a * x^2)", True, False),  # exp of convex
    ("q_exp_ax2_nonpos", "parameter a nonpos\nvariable x\nminimize exp(a * x^2)", False, False),  # a = 0 is constant but a < 0 a bump; a = -1 not concave far out
    ("q_log_ax", "parameter a pos\nvariable x pos\nmaximize log(a * x)", False, True),  # log of positive affine
    ("q_affine_sq", "parameter a\nparameter b\nvariable x\nminimize (a * x + b)^2", True, False),  # square of affine
    ("q_affine_4", "parameter a\nparameter b\nvariable x\nminimize (a * x + b)^4", True, False),  # even power of affine
    ("q_affine_3", "parameter a\nparameter b\nvariable x\nminimize (a * x + b)^3", False, False),  # cube of affine
    ("q_a_nonneg_x3", "parameter a nonneg\nvariable x nonneg\nminimize a * x^3", True, False),  # nonneg multiple
    ("q_a_free_x3", "parameter a\nvariable x nonneg\nminimize a * x^3", False, False),  # a of either sign
    ("q_quad_A_nsd", "parameter A[n, n] nsd\nvariable x[n]\nmaximize x' * A * x", False, True),  # nsd form
    ("q_quad_A_pd_lin", "parameter A[n, n] pd\nparameter b[n]\nvariable x[n]\nminimize x' * A * x + b' * x", True, False),  # pd form plus linear
    ("q_quad_A_sym", "parameter A[n, n] symmetric\nvariable x[n]\nminimize x' * A * x", False, False),  # indefinite A possible
    ("q_quad_A_free", "parameter A[n, n]\nvariable x[n]\nminimize x' * A * x", False, False),  # A arbitrary
    ("q_quad_AtA", "parameter A[m, n]\nvariable x[n]\nminimize x' * A' * A * x", True, False),  # A'A psd
    ("q_quad_AtA_paren", "parameter A[m, n]\nvariable x[n]\nminimize x' * (A' * A) * x", True, False),  # A'A psd
    ("q_quad_A_plus_At", "parameter A[n, n]\nvariable x[n]\nminimize x' * (A + A') * x", False, False),  # A + A' indefinite possible
    ("q_Ax_dot_Ax", "parameter A[m, n]\nvariable x[n]\nminimize (A * x)' * (A * x)", True, False),  # ||Ax||^2
    ("q_sum_exp_Ax", "parameter A[m, n]\nvariable x[n]\nminimize sum(exp(A * x))", True, False),  # sum of exp of affine
    ("q_even_param_sq", "parameter c\nvariable x\nminimize (c * x)^2 + c^2", True, False),  # square of affine plus constant
    # --- matrix variables
    ("x_logdet_trS", "parameter S[n, n] psd\nvariable X[n, n] pd\nmaximize logdet(X) - tr(S * X)", False, True),  # Gaussian ML
    ("x_logdet_trS_free", "parameter S[n, n]\nvariable X[n, n] pd\nmaximize logdet(X) - tr(S * X)", False, True),  # tr(SX) affine for any S
    ("x_neglogdet_trS", "parameter S[n, n] psd\nvariable X[n, n] pd\nminimize -logdet(X) + tr(S * X)", True, False),  # negated Gaussian ML
    ("x_logdet_plus_eye", "variable X[n, n] psd\nmaximize logdet(X + eye)", False, True),  # logdet of pd affine
    ("x_logdet_XX", "variable X[n, n] pd\nmaximize logdet(X * X)", False, True),  # = 2 logdet(X)
    ("x_neg_logdet_inv", "variable X[n, n] pd\nmaximize -logdet(inv(X))", False, True),  # = logdet(X)
    ("x_logdet_sym3", "variable X[3, 3] symmetric\nmaximize logdet(X)", False, False),  # det > 0 on symmetric 3x3 is not a convex set; indefinite X gives convex directions
    ("x_tr_inv_A", "parameter A[n, n] psd\nvariable X[n, n] pd\nminimize tr(inv(X) * A)", True, False),  # tr(A^1/2 X^-1 A^1/2)
    ("x_tr_inv_A_sym", "parameter A[n, n] symmetric\nvariable X[n, n] pd\nminimize tr(inv(X) * A)", False, False),  # A indefinite possible
    ("x_tr_AtinvXA", "parameter A[n, m]\nvariable X[n, n] pd\nminimize tr(A' * inv(X) * A)", True, False),  # sum of matrix fractions
    ("x_sum_inv", "variable X[n, n] pd\nminimize sum(inv(X))", True, False),  # 1' X^-1 1
    ("x_tr_inv_plus_tr", "variable X[n, n] pd\nminimize tr(inv(X)) + tr(X)", True, False),  # sum of convex
    ("x_mf_nd", "variable x[n]\nvariable X[n, n] nd\nmaximize x' * inv(X) * x", False, True),  # -x'(-X)^-1 x
    ("x_mf_shift", "variable x[n]\nvariable X[n, n] psd\nminimize x' * inv(X + eye) * x", True, False),  # matrix fractional of a pd affine
    ("x_tr_inv_sym", "variable X[n, n] symmetric\nminimize tr(inv(X))", False, False),  # nonsingular symmetric: not a convex set; concave on nd
    ("x_det_2", "variable X[2, 2] pd\nmaximize det(X)", False, False),  # ac - b^2: indefinite
    ("x_det_sqrt_2", "variable X[2, 2] pd\nmaximize det(X)^(1/2)", False, True),  # det^(1/n) concave
    ("x_det_quarter_2", "variable X[2, 2] pd\nmaximize det(X)^(1/4)", False, True),  # det^p, p <= 1/n
    ("x_inv_det_2", "variable X[2, 2] pd\nminimize 1 / det(X)", True, False),  # exp(-logdet): convex
    ("x_det_inv_2", "variable X[2, 2] pd\nminimize det(inv(X))", True, False),  # = 1/det(X)
    ("x_tr", "variable X[n, n]\nminimize tr(X)", True, True),  # linear
    ("x_tr_sq", "variable X[n, n]\nminimize tr(X)^2", True, False),  # square of linear
    ("x_tr_XX_sym", "variable X[n, n] symmetric\nminimize tr(X * X)", True, False),  # = ||X||_F^2 on symmetric
    ("x_tr_XX_free", "variable X[n, n]\nminimize tr(X * X)", False, False),  # sum X_ij X_ji: indefinite
    ("x_tr_XtX", "variable X[n, m]\nminimize tr(X' * X)", True, False),  # Frobenius squared
    ("x_tr_XtAX_psd", "parameter A[n, n] psd\nvariable X[n, m]\nminimize tr(X' * A * X)", True, False),  # sum of psd forms
    ("x_tr_XtAX_sym", "parameter A[n, n] symmetric\nvariable X[n, m]\nminimize tr(X' * A * X)", False, False),  # A indefinite possible
    ("x_tr_XtAX_nsd", "parameter A[n, n] nsd\nvariable X[n, m]\nmaximize tr(X' * A * X)", False, True),  # nsd forms
    ("x_tr_XAXt", "parameter A[m, m] psd\nvariable X[n, m]\nminimize tr(X * A * X')", True, False),  # sum of psd forms
    ("x_tr_AX", "parameter A[n, n]\nvariable X[n, n]\nminimize tr(A * X)", True, True),  # linear
    ("x_sum_XX", "variable X[n, m]\nminimize sum(X .* X)", True, False),  # Frobenius squared
    ("x_colsum_sq", "variable X[n, m]\nminimize sum(sum(X, 0) .^ 2)", True, False),  # squares of linear
    ("x_quad_both", "variable x[n]\nvariable X[n, n]\nminimize x' * X * x", False, False),  # trilinear-ish
    ("x_tr_XY", "variable X[n, n]\nvariable Y[n, n]\nminimize tr(X * Y)", False, False),  # bilinear
    ("x_logdet_barrier_box", "variable X[n, n] pd\nmaximize logdet(X) + logdet(eye - X)", False, False),  # X pd only: det(I - X) > 0 also with two eigenvalues > 1, a nonconvex domain
    # --- index notation
    ("i_logistic_idx", "parameter X[m, n]\nvariable w[n]\nminimize sum(log(1 + exp(X *(ij,j->i) w)))", True, False),  # softplus of affine
    ("i_ww", "variable w[n]\nminimize w *(i,i->) w", True, False),  # squared norm
    ("i_quad_nsd", "parameter A[n, n] nsd\nvariable x[n]\nmaximize x *(i,ij->j) A *(j,j->) x", False, True),  # nsd form
    ("i_hadamard_sq", "variable x[n]\nminimize (x *(i,i->i) x) *(i,i->) (x *(i,i->i) x)", True, False),  # sum x^4
    ("i_outer_trace", "variable x[n]\nminimize (x *(i,j->ij) x) *(ii,->) 1", True, False),  # tr(x x') = x'x
    ("i_exp_matvec", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(exp(X *(ij,j->i) w)) - y *(i,i->) (X *(ij,j->i) w)", True, False),  # Poisson loss without intercept
    ("i_bilinear", "variable x[n]\nvariable y[n]\nminimize x *(i,i->) y", False, False),  # bilinear
    # --- traps for the patterns (quad-over-lin, norm, max) and interval signs
    ("t_qol_sq_signchange", "variable x\nvariable y pos\nminimize (x^2 - 1)^2 / y", False, False),  # numerator root of a sign-changing convex fn
    ("t_qol_expm2", "variable x\nvariable y pos\nminimize (exp(x) - 2)^2 / y", False, False),  # sign-changing convex base
    ("t_qol_abs", "variable x\nvariable y pos\nminimize abs(x)^2 / y", True, False),  # = x^2/y
    ("t_qol_relu", "variable x\nvariable y pos\nminimize relu(x)^2 / y", True, False),  # square of nonneg convex over pos
    ("t_qol_nonneg_conv", "variable x\nvariable y pos\nminimize (x^2 + 1)^2 / y", True, False),  # quad-over-lin increasing in s >= 0 of nonneg convex
    ("t_qol_1my2", "variable x\nvariable y > -1 < 1\nminimize x^2 / (1 - y^2)", True, False),  # positive concave denominator
    ("t_qol_yz", "variable x\nvariable y pos\nvariable z pos\nminimize x^2 / (y * z)", False, False),  # x^2 y^-1 z^-1: exponent matrix indefinite (yz is not concave)
    ("t_qol_sqrt_yz", "variable x\nvariable y pos\nvariable z pos\nminimize x^2 / sqrt(y * z)", True, False),  # positive concave (geometric mean) denominator
    ("t_qol_log_pos", "variable x\nvariable y pos\nminimize x^2 / log(y)", False, False),  # log(y) < 0 for y < 1: domain y != 1, concave there
    ("t_qol_ym1_pos", "variable x\nvariable y pos\nminimize x^2 / (y - 1)", False, False),  # y - 1 may be negative
    ("t_qol_ym1_free", "variable x\nvariable y\nminimize x^2 / (y - 1)", False, False),  # denominator of either sign
    ("t_qol_sqrt_ym1", "variable x\nvariable y >= 1\nminimize x^2 / sqrt(y - 1)", True, False),  # domain y > 1, positive concave denominator
    ("t_qol_min_den", "variable x\nvariable y pos\nminimize x^2 / (y - relu(y - 1))", True, False),  # min(y, 1): positive concave
    ("t_qol_max_den", "variable x\nvariable y pos\nminimize x^2 / (y + relu(1 - y))", False, False),  # max(y, 1) is convex, not concave: x^2 / max(y,1) is x^2 const then x^2/y
    ("t_norm_over_t", "variable x[n]\nvariable t pos\nminimize norm2(x) / t", False, False),  # |x|/t: not convex
    ("t_normsq_over_t2", "variable x[n]\nvariable t pos\nminimize norm2(x)^2 / t^2", False, False),  # degree 0 homogeneous
    ("t_sumsq_over_sum", "variable x[n]\nvariable y[n] pos\nminimize sum(x .^ 2) / sum(y)", True, False),  # quad over lin
    ("t_sumsq_over_sumsq", "variable x[n]\nvariable y[n]\nminimize sum(x .^ 2) / (y' * y)", False, False),  # convex denominator
    ("t_sumsq_over_sqrt", "variable x[n]\nvariable y[n] pos\nminimize sum(x .^ 2) / sqrt(sum(y))", True, False),  # positive concave denominator
    ("t_sum_sq_over_sum", "variable x[n] pos\nminimize sum(x)^2 / sum(x)", True, True),  # = sum(x)
    ("t_norm_diffsq", "variable x\nvariable y\nminimize (x^2 - y^2)^0.5", False, False),  # domain |x| >= |y| not convex
    ("t_norm_perfect", "variable x\nvariable y\nminimize (x^2 + y^2 - 2 * x * y)^0.5", True, False),  # = |x - y|
    ("t_norm_indef", "variable x\nvariable y\nminimize (x^2 + y^2 - 3 * x * y)^0.5", False, False),  # indefinite form: domain not convex
    ("t_norm_xm1", "variable x\nminimize (x^2 - 1)^0.5", False, False),  # domain |x| >= 1
    ("t_norm_param_free", "parameter a\nvariable x\nvariable y\nminimize sqrt(a * x^2 + y^2)", False, False),  # a < 0: indefinite
    ("t_norm_param_nonneg", "parameter a nonneg\nvariable x\nvariable y\nminimize sqrt(a * x^2 + y^2)", True, False),  # weighted norm
    ("t_norm_affine_param", "parameter a\nparameter b\nvariable x\nminimize sqrt((a * x + b)^2 + 1)", True, False),  # norm of affine
    ("t_norm_075", "variable x\nvariable y\nminimize (x^2 + y^2)^0.75", True, False),  # norm^1.5
    ("t_norm_075_p1", "variable x\nvariable y\nminimize (x^2 + y^2 + 1)^0.75", True, False),  # norm of (x,y,1) to 1.5
    ("t_norm_03_p1", "variable x\nminimize (x^2 + 1)^0.3", False, False),  # norm^0.6: concave far out
    ("t_norm_exp", "variable x\nvariable y\nminimize sqrt(exp(x)^2 + y^2)", True, False),  # norm of (positive convex, affine)
    ("t_norm_signchange", "variable x\nvariable y\nminimize sqrt((x^2 - 1)^2 + y^2)", False, False),  # at y = 0 it is |x^2 - 1|
    ("t_norm_log", "variable x pos\nminimize sqrt(log(x)^2 + 1)", False, False),  # concave for large x
    ("t_sqrt_x4y4", "variable x\nvariable y\nminimize sqrt(x^4 + y^4)", True, False),  # norm of (x^2, y^2)
    ("t_x4y4_eighth", "variable x\nvariable y\nminimize (x^4 + y^4)^(1/8)", False, False),  # l4 norm to the 1/2
    ("t_abs_expm1", "variable x\nminimize abs(exp(x) - 1)", False, False),  # 1 - e^x concave for x < 0
    ("t_max3", "variable x\nvariable y\nvariable z\nminimize x + relu(y - x) + relu(z - x - relu(y - x))", True, False),  # max(x, y, z)
    ("t_min_conv", "variable x\nminimize x^2 - relu(x^2 - (x - 2)^2)", False, False),  # min of two convex
    ("t_max_conc", "variable x pos\nminimize log(x) + relu(1 - x - log(x))", False, False),  # max of two concave
    ("t_min_conc", "variable x pos\nmaximize log(x) - relu(log(x) - (1 - x))", False, True),  # min of two concave
    ("t_lam2_m1_ge1", "parameter lam >= 1\nvariable x\nminimize (lam^2 - 1) * x^2", True, False),  # lam^2 - 1 >= 0
    ("t_lam2_m1_ge09", "parameter lam >= 0.9\nvariable x\nminimize (lam^2 - 1) * x^2", False, False),  # lam = 0.9 gives -0.19
    ("t_lam2_mlam_nonneg", "parameter lam nonneg\nvariable x\nminimize (lam^2 - lam) * x^2", False, False),  # lam = 1/2 gives -1/4
    ("t_lam_cancel_sq", "parameter lam\nvariable x\nminimize (lam * x)^2 - lam^2 * x^2 + x^2", True, False),  # = x^2
    ("t_lam_gt_strict", "parameter lam > 0\nvariable x\nminimize -lam * x^2", False, True),  # lam > 0
    ("t_lam_lt_m1", "parameter lam <= -1\nvariable x\nminimize (lam + 1) * x^2", False, True),  # lam + 1 <= 0
    ("t_lam_le_m1_sq", "parameter lam <= -1\nvariable x\nminimize (lam + 2) * x^2", False, False),  # lam + 2 of either sign
    # --- exponents, implicit domains, Cauchy-Schwarz bounds, nonsmooth sums
    ("e_pow_m3_nonpos", "variable x nonpos\nmaximize x^(-3)", False, True),  # x^-3 on x < 0: f'' = 12 x^-5 < 0
    ("e_pow_m3_free", "variable x\nminimize x^(-3)", False, False),  # domain x != 0
    ("e_pow_m4_nonpos", "variable x nonpos\nminimize x^(-4)", True, False),  # even negative power on x < 0
    ("e_pow_m1_nonneg", "variable x nonneg\nminimize x^(-1)", True, False),  # domain x > 0
    ("e_pow_23_free", "variable x\nmaximize x^(2/3)", False, True),  # fractional power: x >= 0
    ("e_pow_15_free", "variable x\nminimize x^1.5", True, False),  # fractional power: x >= 0, convex
    ("e_pow_m15_free", "variable x\nminimize x^(-1.5)", True, False),  # domain x > 0, convex
    ("e_pow_2_float", "variable x\nminimize x^2.0", True, False),  # x^2
    ("e_pow_4_over_2", "variable x\nminimize x^(4/2)", True, False),  # x^2
    ("e_pow_3_over_1", "variable x\nminimize x^(3/1)", False, False),  # x^3
    ("e_pow_1p1", "variable x\nminimize x^(1+1)", True, False),  # x^2
    ("e_pow_negneg2", "variable x\nminimize x^(-(-2))", True, False),  # x^2
    ("e_pow_6_over_3", "variable x\nminimize x^(6/3)", True, False),  # x^2
    ("e_sqrt_cubed", "variable x nonneg\nminimize sqrt(x)^3", True, False),  # = x^1.5
    ("e_sqrt_sqrt", "variable x nonneg\nmaximize sqrt(sqrt(x))", False, True),  # x^(1/4)
    ("e_cube_sq", "variable x\nminimize (x^3)^2", True, False),  # x^6
    ("e_sq_third", "variable x\nminimize (x^2)^(1/3)", False, False),  # |x|^(2/3): cusp, concave away from 0
    ("e_fourth_fourth", "variable x\nminimize (x^4)^(1/4)", True, False),  # = |x|
    ("e_exp_sq_pow", "variable x\nminimize exp(x)^2", True, False),  # exp(2x)
    ("e_exp_inv", "variable x\nminimize exp(x)^(-1)", True, False),  # exp(-x)
    ("e_exp_half", "variable x\nminimize exp(x)^0.5", True, False),  # exp(x/2)
    ("e_log_sq_pos", "variable x pos\nminimize log(x)^2", False, False),  # f'' = 2(1 - log x)/x^2 < 0 for x > e
    ("e_log_sq_unit", "variable x > 0 < 1\nminimize log(x)^2", True, False),  # square decreasing on log(x) < 0 of concave
    ("e_log_cube_gt1", "variable x > 1\nminimize log(x)^3", False, False),  # f'' = (6u - 3u^2)/x^2, u = log x
    ("e_sqrt_log_gt1", "variable x > 1\nmaximize sqrt(log(x))", False, True),  # increasing concave of concave
    ("e_entr_plus_xlogx", "variable x pos\nminimize entr(x) + x * log(x)", True, True),  # identically 0
    ("e_kl_param", "parameter c pos\nvariable x pos\nminimize kl_div(x, c)", True, False),  # kl with a constant second arg
    ("e_kl_x_x2", "variable x pos\nminimize kl_div(x, x^2)", False, False),  # = -x log x - x + x^2: f'' = 2 - 1/x
    ("e_persp_log", "variable x pos\nvariable y pos\nmaximize y * log(x / y)", False, True),  # perspective of log
    ("e_persp_log1p", "variable x pos\nvariable y pos\nmaximize y * log(1 + x / y)", False, True),  # perspective of log(1 + u)
    ("e_persp_expneg", "variable x\nvariable y pos\nminimize y * exp(-x / y)", True, False),  # perspective of exp(-u)
    ("e_x_expneg", "variable x\nminimize x * exp(-x)", False, False),  # f'' = (x - 2) e^-x
    ("e_inv_xm1_pos", "variable x pos\nminimize 1 / (x - 1)", False, False),  # domain x != 1
    ("e_inv_x2m1", "variable x\nminimize 1 / (x^2 - 1)", False, False),  # poles at +-1
    ("e_inv_1mx2_box", "variable x > -1 < 1\nminimize 1 / (1 - x^2)", True, False),  # inv_pos of positive concave
    ("e_inv_1mx2_free", "variable x\nminimize 1 / (1 - x^2)", False, False),  # domain |x| != 1
    ("e_neglog_1mx2_free", "variable x\nminimize -log(1 - x^2)", True, False),  # implicit domain (-1, 1) convex
    ("e_neglog_x2m1", "variable x\nminimize -log(x^2 - 1)", False, False),  # domain |x| > 1 not convex
    ("e_sqrt_x2m1", "variable x\nmaximize sqrt(x^2 - 1)", False, False),  # domain |x| >= 1 not convex
    ("e_log_free", "variable x\nmaximize log(x)", False, True),  # implicit domain x > 0
    ("e_xlogx_free", "variable x\nminimize x * log(x)", True, False),  # implicit domain x > 0
    ("e_neglog_negx", "variable x\nminimize -log(-x)", True, False),  # implicit domain x < 0
    ("e_log_abs", "variable x\nmaximize log(abs(x))", False, False),  # domain x != 0
    ("e_log_relu", "variable x\nmaximize log(relu(x))", False, True),  # domain x > 0 where it is log x
    ("e_sigmoid", "variable x\nminimize exp(x) / (1 + exp(x))", False, False),  # sigmoid
    ("e_logcosh_minus_abs", "variable x\nminimize log(exp(x) + exp(-x)) - abs(x)", False, False),  # log(1 + e^-2|x|): concave kink at 0
    ("e_var4", "variable x[4]\nminimize sum(x .^ 2) / 4 - (sum(x) / 4)^2", True, False),  # variance
    ("e_negvar4", "variable x[4]\nmaximize (sum(x) / 4)^2 - sum(x .^ 2) / 4", False, True),  # minus the variance
    ("e_cs_a_05", "parameter a[4] >= -0.5 <= 0.5\nvariable x[4]\nminimize sum(x .^ 2) - (x' * a)^2", True, False),  # |a|^2 <= 1: I - a a' psd
    ("e_cs_a_09", "parameter a[4] >= -0.9 <= 0.9\nvariable x[4]\nminimize sum(x .^ 2) - (x' * a)^2", False, False),  # |a|^2 up to 3.24 > 1: I - a a' indefinite
    ("e_cs_w_ge4", "parameter w[4] >= 4\nvariable x[4]\nminimize sum(w .* x .^ 2) - sum(x)^2", True, False),  # Cauchy-Schwarz: sum 1/w <= 1
    ("e_cs_w_ge3", "parameter w[4] >= 3\nvariable x[4]\nminimize sum(w .* x .^ 2) - sum(x)^2", False, False),  # w = 3: 3I - J indefinite
    ("e_cs_two_vecs", "variable x[2]\nvariable y[2]\nminimize sum(x .^ 2) + sum(y .^ 2) - 0.5 * (sum(x) + sum(y))^2", False, False),  # 4 entries, c = 1/2: 2 - 4 < 0
    ("e_cs_two_vecs_ok", "variable x[2]\nvariable y[2]\nminimize sum(x .^ 2) + sum(y .^ 2) - 0.25 * (sum(x) + sum(y))^2", True, False),  # 4 entries, c = 1/4
    ("e_lse_plus_lse_neg", "variable x[n]\nminimize log_sum_exp(x) + log_sum_exp(-x)", True, False),  # sum of convex
    ("e_lse_diff", "variable x[n]\nvariable y[n]\nminimize log_sum_exp(x) - log_sum_exp(y)", False, False),  # convex minus convex
    ("e_lse_cancel", "variable x[n]\nminimize log_sum_exp(x) - log_sum_exp(x)", True, True),  # identically 0
    ("e_exp_half_lse", "variable x[n]\nminimize exp(log_sum_exp(x) / 2)", True, False),  # sqrt(sum exp x), exp of convex
    ("e_relu_lse_sq", "variable x[n]\nminimize relu(log_sum_exp(x))^2", True, False),  # square of nonneg convex
    ("e_huber_minus_sq", "variable x\nmaximize huber(x) - x^2", False, True),  # 0 inside, 2|x| - 1 - x^2 outside: concave
    ("e_huber_minus_abs", "variable x\nminimize huber(x) - abs(x)", False, False),  # concave kink at 0
    ("e_sq_minus_huber", "variable x\nminimize x^2 - huber(x)", True, False),  # 0 inside, (|x| - 1)^2 outside
    ("e_abs_minus_abs1", "variable x\nminimize abs(x) - abs(x - 1)", False, False),  # clamp
    ("e_relu_pm1", "variable x\nminimize relu(x - 1) + relu(1 - x)", True, False),  # = |x - 1|
    ("e_relu_sq_diff", "variable x\nminimize relu(x)^2 - relu(-x)^2", False, False),  # x|x|
    ("e_relu_sq_sum", "variable x\nminimize relu(x)^2 + relu(-x)^2", True, False),  # = x^2
    ("e_abs_sq_minus_sq", "variable x\nminimize abs(x)^2 - x^2", True, True),  # identically 0
    ("e_abs_times_x", "variable x\nminimize abs(x) * x", False, False),  # x|x|
    ("e_relu_times_x", "variable x\nminimize relu(x) * x", True, False),  # = relu(x)^2
    ("e_x_times_1mx", "variable x\nmaximize x * (1 - x)", False, True),  # -x^2 + x
    ("e_xy_plus_sq", "variable x\nvariable y\nminimize x * y + x^2 + y^2", True, False),  # [[2,1],[1,2]] pd
    ("e_xy_plus_04sq", "variable x\nvariable y\nminimize x * y + 0.4 * (x^2 + y^2)", False, False),  # [[0.8,1],[1,0.8]] indefinite
    ("e_sum_cube_nonneg", "variable x[n] nonneg\nminimize x' * (x .* x)", True, False),  # sum x^3 on nonneg
    ("e_sum_cube_free", "variable x[n]\nminimize x' * (x .* x)", False, False),  # sum x^3
    ("e_cross_terms", "variable x[n]\nminimize sum(x)^2 - sum(x .^ 2)", False, False),  # J - I indefinite
    ("e_prod_norms", "variable x[n]\nvariable y[n]\nminimize norm2(x) * norm2(y)", False, False),  # product of norms
    ("e_prod_sq_p1", "variable x\nvariable y\nminimize (x^2 + 1) * (y^2 + 1)", False, False),  # Hessian det < 0 at (2, 2)
    # --- matrix parameters and variables
    ("y_quad_A_minus_eye", "parameter A[n, n] psd\nvariable x[n]\nminimize x' * (A - eye) * x", False, False),  # A - I indefinite possible
    ("y_quad_A_plus_eye", "parameter A[n, n] psd\nvariable x[n]\nminimize x' * (A + eye) * x", True, False),  # A + I pd
    ("y_quad_AA_sym", "parameter A[n, n] symmetric\nvariable x[n]\nminimize x' * (A * A) * x", True, False),  # A^2 psd for symmetric A
    ("y_quad_AA_free", "parameter A[n, n]\nvariable x[n]\nminimize x' * (A * A) * x", False, False),  # A^2 not psd in general
    ("y_quad_AAt", "parameter A[n, m]\nvariable x[n]\nminimize x' * A * A' * x", True, False),  # AA' psd
    ("y_quad_AB_psd", "parameter A[n, n] psd\nparameter B[n, n] psd\nvariable x[n]\nminimize x' * A * B * x", False, False),  # AB of psd matrices: symmetric part indefinite
    ("y_quad_invA_pd", "parameter A[n, n] pd\nvariable x[n]\nminimize x' * inv(A) * x", True, False),  # inv of pd is pd
    ("y_quad_invA_sym", "parameter A[n, n] symmetric\nvariable x[n]\nminimize x' * inv(A) * x", False, False),  # inv of symmetric indefinite
    ("y_kron_psd", "parameter A[n, n] psd\nparameter B[m, m] psd\nvariable X[n, m]\nminimize tr(X' * A * X * B)", True, False),  # vec(X)'(B kron A)vec(X)
    ("y_kron_sym", "parameter A[n, n] psd\nparameter B[m, m] symmetric\nvariable X[n, m]\nminimize tr(X' * A * X * B)", False, False),  # B indefinite possible
    ("y_sum_inv_nd", "variable X[n, n] nd\nmaximize sum(inv(X))", False, True),  # -1'(-X)^-1 1
    ("y_logdet_negX", "variable X[n, n] nd\nmaximize logdet(-X)", False, True),  # logdet of pd
    ("y_tr_invXX", "variable X[n, n] pd\nminimize tr(inv(X * X))", True, False),  # tr f(X) with f(t) = t^-2 convex
    ("y_tr_X3_psd", "variable X[n, n] psd\nminimize tr(X * X * X)", True, False),  # tr f(X) with f = t^3 convex on t >= 0
    ("y_tr_X3_sym", "variable X[n, n] symmetric\nminimize tr(X * X * X)", False, False),  # t^3 on R
    ("y_det_third_2", "variable X[2, 2] pd\nmaximize det(X)^(1/3)", False, True),  # det^p, p <= 1/n
    ("y_cinvX_param", "parameter c[n]\nvariable X[n, n] pd\nminimize c' * inv(X) * c", True, False),  # matrix fractional in X
    ("y_cXc_param", "parameter c[n]\nvariable X[n, n]\nminimize c' * X * c", True, True),  # linear in X
    ("y_cinvXd_param", "parameter c[n]\nparameter d[n]\nvariable X[n, n] pd\nminimize c' * inv(X) * d", False, False),  # d = -c gives a concave function
    ("y_tr_AinvXAt", "parameter A[m, n]\nvariable X[n, n] pd\nminimize tr(A * inv(X) * A')", True, False),  # sum of matrix fractions
    ("y_logdet_AXAt", "parameter A[n, n]\nvariable X[n, n] psd\nmaximize logdet(A * X * A' + eye)", False, True),  # logdet of pd affine
    ("y_neglogdet_mf", "variable x[n]\nvariable X[n, n] pd\nminimize -logdet(X) + x' * inv(X) * x", True, False),  # sum of convex
    ("y_idx_sum_sq", "variable x[n]\nminimize sum(x *(i,i->i) x)", True, False),  # sum of squares
    ("y_idx_fixed_mix", "parameter A[3, n]\nparameter b[3]\nvariable x[n]\nminimize sum(exp(A *(ij,j->i) x + b))", True, False),  # sum exp affine, fixed and named dims
    # --- nonsmooth cancellations; index products; lets
    ("k_sq_minus_abs", "variable x\nminimize x^2 - abs(x)", False, False),  # concave kink at 0
    ("k_sq_minus_relu", "variable x\nminimize x^2 - 3 * relu(x)", False, False),  # concave kink at 0
    ("k_exp_minus_abs", "variable x\nminimize exp(x) - abs(x)", False, False),  # concave kink at 0
    ("k_sumsq_minus_norm1", "variable x[n]\nminimize sum(x .^ 2) - norm1(x)", False, False),  # concave kinks
    ("k_sumsq_minus_norm2", "variable x[n]\nminimize x' * x - norm2(x)", False, False),  # concave cone at 0
    ("k_sq_minus_sqrt_sq", "variable x\nminimize x^2 - sqrt(x^2)", False, False),  # = x^2 - |x|
    ("k_sq_minus_smooth_abs", "variable x\nminimize x^2 - sqrt(x^2 + 1e-4)", False, False),  # f''(0) = 2 - 100 < 0
    ("k_quartic_minus_relu", "variable x\nminimize x^4 - relu(x)", False, False),  # concave kink at 0
    ("k_softplus_minus_relu", "variable x\nminimize log(1 + exp(x)) - relu(x)", False, False),  # log(1 + e^-|x|): peak at 0
    ("k_2sq_minus_huber", "variable x\nminimize 2 * x^2 - huber(x)", True, False),  # f'' = 2 or 4
    ("k_huber_minus_halfsq", "variable x\nminimize huber(x) - 0.5 * x^2", False, False),  # f'' = 1 inside, -1 outside
    ("k_relusq_minus_sq", "variable x\nmaximize relu(x)^2 - x^2", False, True),  # = -relu(-x)^2
    ("k_abs_minus_x", "variable x\nminimize abs(x) - x", True, False),  # = 2 relu(-x)
    ("k_abs_minus_2relu", "variable x\nminimize abs(x) - 2 * relu(x)", True, True),  # = -x
    ("k_sq_minus_abs_pm1", "variable x\nminimize x^2 - abs(x - 1) - abs(x + 1)", False, False),  # concave kinks at +-1
    ("k_sq_minus_small_abs", "variable x\nminimize x^2 - 0.1 * abs(x)", False, False),  # concave kink at 0
    ("k_sq_plus_abs_minus_abs", "variable x\nminimize x^2 + abs(x) - abs(x)", True, False),  # = x^2
    ("k_abs15_minus_abs", "variable x\nminimize abs(x)^1.5 - abs(x)", False, False),  # concave kink at 0
    ("k_sq_minus_abs15", "variable x\nminimize x^2 - abs(x)^1.5", False, False),  # f'' -> -inf at 0
    ("k_qol_minus_x", "variable x\nvariable y pos\nminimize x^2 / y - x", True, False),  # quad-over-lin minus linear
    ("k_qol_minus_ysq", "variable x\nvariable y pos\nminimize x^2 / y - 0.1 * y^2", False, False),  # concave in y
    ("k_exp_x_minus_ysq", "variable x\nvariable y\nminimize exp(x - y^2)", False, False),  # exp of concave: bump in y
    ("k_log_x_plus_expy", "variable x pos\nvariable y\nminimize log(x + exp(y))", False, False),  # concave in x, convex in y
    ("k_sqrt_x_plus_ysq", "variable x pos\nvariable y\nminimize sqrt(x + y^2)", False, False),  # concave in x, convex in y
    ("k_sq_x_plus_ysq_nonneg", "variable x nonneg\nvariable y\nminimize (x + y^2)^2", True, False),  # square of nonneg convex
    ("k_sq_x_plus_ysq_free", "variable x\nvariable y\nminimize (x + y^2)^2", False, False),  # square of sign-changing convex
    ("k_expdot_exp", "variable x[n]\nminimize exp(x)' * exp(x)", True, False),  # sum exp(2x)
    ("k_expdot_expneg", "variable x[n]\nminimize exp(x)' * exp(-x)", True, True),  # = n
    ("k_expdot_y", "variable x[n]\nvariable y[n]\nminimize exp(x)' * y", False, False),  # y e^x indefinite
    ("k_x_dot_expx", "variable x[n]\nminimize x' * exp(x)", False, False),  # x e^x
    ("k_idx_XijXji", "variable X[n, n]\nminimize X *(ij,ji->) X", False, False),  # tr(X X)
    ("k_idx_XiiXjj", "variable X[n, n]\nminimize X *(ii,jj->) X", True, False),  # tr(X)^2
    ("k_idx_outer_sum", "variable x[n]\nminimize x *(i,j->) x", True, False),  # sum(x)^2
    ("k_idx_outer_xy", "variable x[n]\nvariable y[n]\nminimize (x *(i,j->ij) y) *(ij,->) 1", False, False),  # sum(x) sum(y)
    ("k_idx_delta", "variable x[n]\nminimize x *(i,ij->j) delta(1) *(j,j->) x", True, False),  # x' I x
    ("k_A_minus_At", "parameter A[n, n]\nvariable x[n]\nminimize x' * A * x - x' * A' * x", True, True),  # identically 0
    ("k_sumsq_times_sumy", "variable x[n]\nparameter y[m]\nminimize sum(x .^ 2) * sum(y)", False, False),  # sum(y) of either sign
    ("k_let_residual", "variable x[n]\nlet r = x - 1\nminimize r' * r", True, False),  # squared norm via let
    # --- matrix parameters: Schur products, congruences, adjugates
    ("z_A_nonneg_wsq", "parameter A[m, n] nonneg\nvariable x[n]\nminimize sum(A * x .^ 2)", True, False),  # nonneg combos of squares
    ("z_A_nonneg_quad", "parameter A[n, n] nonneg\nvariable x[n]\nminimize x' * A * x", False, False),  # entrywise nonneg is not psd
    ("z_A_pos_log", "parameter A[m, n] pos\nvariable x[n] pos\nmaximize sum(log(A * x))", False, True),  # log of positive affine
    ("z_A_pos_lse", "parameter A[m, n] pos\nvariable x[n]\nminimize log(sum(A * exp(x)))", True, False),  # lse with shifts log A
    ("z_schur_psd", "parameter A[n, n] psd\nparameter B[n, n] psd\nvariable x[n]\nminimize x' * (A .* B) * x", True, False),  # Schur product theorem
    ("z_schur_sym", "parameter A[n, n] psd\nparameter B[n, n] symmetric\nvariable x[n]\nminimize x' * (A .* B) * x", False, False),  # B indefinite
    ("z_schur_nsd", "parameter A[n, n] nsd\nparameter B[n, n] nsd\nvariable x[n]\nminimize x' * (A .* B) * x", True, False),  # (-A) o (-B) psd
    ("z_exp_psd", "parameter A[n, n] psd\nvariable x[n]\nminimize x' * exp(A) * x", True, False),  # entrywise exp of psd is psd (Schur power series)
    ("z_sq_psd", "parameter A[n, n] psd\nvariable x[n]\nminimize x' * (A .^ 2) * x", True, False),  # Schur square
    ("z_sq_sym", "parameter A[n, n] symmetric\nvariable x[n]\nminimize x' * (A .^ 2) * x", False, False),  # entrywise square of indefinite
    ("z_A_minus_B", "parameter A[n, n] psd\nparameter B[n, n] psd\nvariable x[n]\nminimize x' * (A - B) * x", False, False),  # difference of psd
    ("z_ABA", "parameter A[n, n] symmetric\nparameter B[n, n] psd\nvariable x[n]\nminimize x' * (A * B * A) * x", True, False),  # congruence of psd
    ("z_BA", "parameter A[n, n]\nparameter B[n, n] psd\nvariable x[n]\nminimize x' * B * A * x", False, False),  # BA not psd
    ("z_A3_nsd", "parameter A[n, n] nsd\nvariable x[n]\nmaximize x' * (A * A * A) * x", False, True),  # A^3 nsd
    ("z_invA_sq", "parameter A[n, n] pd\nvariable x[n]\nminimize x' * inv(A) * inv(A) * x", True, False),  # |A^-1 x|^2
    ("z_adj_pd", "parameter A[n, n] pd\nvariable x[n]\nminimize x' * adj(A) * x", True, False),  # adj = det inv, pd
    ("z_adj_nd3", "parameter A[3, 3] nd\nvariable x[3]\nminimize x' * adj(A) * x", True, False),  # det < 0, inv nd: adj pd
    ("z_adj_nd2", "parameter A[2, 2] nd\nvariable x[2]\nmaximize x' * adj(A) * x", False, True),  # det > 0, inv nd: adj nd
    ("z_trAAt_sq", "parameter A[n, n]\nvariable x[n]\nminimize tr(A * A') * x' * x", True, False),  # Frobenius norm^2 >= 0
    ("z_trAA_free", "parameter A[n, n]\nvariable x[n]\nminimize tr(A * A) * x' * x", False, False),  # tr(A^2) of either sign
    ("z_logdetA_sq", "parameter A[n, n] pd\nvariable x[n]\nminimize logdet(A) * x' * x", False, False),  # logdet of either sign
    ("z_offdiag_psd", "parameter A[n, n] psd\nvariable x[n]\nminimize x' * (A - diag(diag(A))) * x", False, False),  # zero-diagonal symmetric is indefinite
    # --- CVXPY-named atoms; max / min over entries
    ("n_max", "variable x[4]\nminimize max(x)", True, False),  # max of entries
    ("n_min", "variable x[4]\nmaximize min(x)", False, True),  # min of entries
    ("n_max_sq", "variable x[4]\nminimize max(x .^ 2)", True, False),  # max of convex
    ("n_max_negsq", "variable x[2]\nminimize max(-(x .^ 2))", False, False),  # max of concave
    ("n_min_sq", "variable x[3]\nminimize min(x .^ 2)", False, False),  # min of convex
    ("n_max_log", "variable x[2] pos\nminimize max(log(x))", False, False),  # max of concave
    ("n_min_log", "variable x[2] pos\nmaximize min(log(x))", False, True),  # min of concave
    ("n_max_affine", "parameter A[4, n]\nparameter b[4]\nvariable x[n]\nminimize max(A * x + b)", True, False),  # piecewise linear
    ("n_range", "variable x[4]\nminimize max(x) - min(x)", True, False),  # max plus (-min)
    ("n_max_plus_min", "variable x[4]\nminimize max(x) + min(x)", False, False),  # convex plus concave
    ("n_max_minus_max", "variable x[3]\nvariable y[3]\nminimize max(x) - max(y)", False, False),  # convex minus convex
    ("n_max_exp_minus_min", "variable x[3]\nminimize max(exp(x)) - min(x)", True, False),  # sum of convex
    ("n_norm_inf", "variable x[4]\nminimize norm_inf(x)", True, False),  # l-infinity norm
    ("n_norm_inf_affine", "parameter A[5, n]\nparameter b[5]\nvariable x[n]\nminimize norm_inf(A * x - b)", True, False),  # Chebyshev fit
    ("n_norm_inf_sq", "variable x[3]\nminimize norm_inf(x)^2", True, False),  # square of nonneg convex
    ("n_norm_inf_minus_norm1", "variable x[3]\nminimize norm_inf(x) - norm1(x)", False, False),  # convex minus convex: concave kinks
    ("n_maximum_sum", "variable x[n]\nvariable y[n]\nminimize sum(maximum(x, y))", True, False),  # elementwise max
    ("n_minimum_sum", "variable x[n]\nvariable y[n]\nmaximize sum(minimum(x, y))", False, True),  # elementwise min
    ("n_maximum_sq1", "variable x[n]\nminimize sum(maximum(x .^ 2, 1))", True, False),  # max of convex and constant
    ("n_minimum_sq1", "variable x[n]\nminimize sum(minimum(x .^ 2, 1))", False, False),  # min of convex and constant
    ("n_maximum_abs", "variable x\nminimize maximum(x, -x)", True, False),  # = |x|
    ("n_minimum_negabs", "variable x\nmaximize minimum(x, -x)", False, True),  # = -|x|
    ("n_pos_sum", "variable x[n]\nminimize sum(pos(x))", True, False),  # relu
    ("n_inv_pos_pos", "variable x[n] pos\nminimize sum(inv_pos(x))", True, False),  # 1/x on x > 0
    ("n_inv_pos_free", "variable x\nminimize inv_pos(x)", False, False),  # as written, 1/x: domain x != 0 (unlike CVXPY)
    ("n_power3_free", "variable x\nminimize power(x, 3)", False, False),  # x^3 on R
    ("n_power3_nonneg", "variable x nonneg\nminimize power(x, 3)", True, False),  # x^3 on x >= 0
    ("n_power_half", "variable x nonneg\nmaximize power(x, 0.5)", False, True),  # sqrt
    ("n_power_m1_free", "variable x\nminimize power(x, -1)", False, False),  # 1/x on x != 0
    ("n_log1p", "variable x[n]\nmaximize sum(log1p(x))", False, True),  # domain x > -1, concave
    ("n_xexp_free", "variable x\nminimize xexp(x)", False, False),  # x e^x on R
    ("n_xexp_nonneg", "variable x nonneg\nminimize xexp(x)", True, False),  # x e^x on x >= 0
    ("n_rel_entr", "variable x[n] pos\nvariable y[n] pos\nminimize sum(rel_entr(x, y))", True, False),  # relative entropy
    ("n_multiply", "parameter a[n] nonneg\nvariable x[n]\nminimize sum(multiply(a, x .^ 2))", True, False),  # nonneg weights
    ("n_matrix_frac", "variable x[n]\nvariable P[n, n] pd\nminimize matrix_frac(x, P)", True, False),  # matrix fractional
    ("n_tr_inv", "variable P[n, n] pd\nminimize tr_inv(P)", True, False),  # trace of inverse
    ("n_mean_var", "variable x[n]\nminimize mean(x .^ 2) - mean(x)^2", True, False),  # variance
    ("n_mean_var2", "variable x[n]\nminimize mean(x .^ 2) - 2 * mean(x)^2", False, False),  # along ones: 2/n - 4/n < 0
    ("n_neg_var", "variable x[n]\nmaximize mean(x)^2 - mean(x .^ 2)", False, True),  # minus the variance
    ("n_mean_exp", "variable x[n]\nminimize mean(exp(x))", True, False),  # mean of convex
    ("n_var_affine", "parameter A[m, n]\nvariable x[n]\nminimize mean((A * x) .^ 2) - mean(A * x)^2", True, False),  # variance of an affine map
    ("n_sum_squares", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum_squares(A * x - b)", True, False),  # least squares
    ("n_norm_sq", "variable x[n]\nminimize norm(x)^2", True, False),  # squared norm
]
