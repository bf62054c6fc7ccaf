"""Problems with known curvature, shared by tests/test_composition.py and
benchmarks/convexity.py: (name, problem text, convex truth, concave truth).

Truth is mathematical (each comment says why), never what the analyser answers: True means
the side holds for every admissible parameter value, False that it fails for some
(a test then checks that no proof is given), None that it is not asserted."""

CASES = [
    # --- the unsound proofs of the variance template: Hessian 2(I - c J), eigenvalue 2 - 2cn
    ("sum_sq_minus_sq_sum", "variable x[n]\nminimize sum(x^2) - sum(x)^2", False, False),
    ("sum_sq_minus_half_sq_sum", "variable x[n]\nminimize sum(x^2) - 0.5 * sum(x)^2", False, False),
    ("sum_sq_minus_quarter_sq_sum_5", "variable x[5]\nminimize sum(x^2) - 0.25 * sum(x)^2", False, False),
    ("sum_sq_minus_sq_sum_2", "variable x[2]\nminimize sum(x^2) - sum(x)^2", False, False),
    # convex variants: c n <= 1
    ("sum_sq_minus_quarter_sq_sum_4", "variable x[4]\nminimize sum(x^2) - 0.25 * sum(x)^2", True, False),
    ("sum_sq_minus_fifth_sq_sum_4", "variable x[4]\nminimize sum(x^2) - 0.2 * sum(x)^2", True, False),
    # --- sums and compositions of proven parts
    ("sqrt_plus_square", "variable x\nminimize sqrt(x^2 + 1) + x^2", True, False),
    ("logistic_intercept",
     "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nvariable b\n"
     "minimize sum(log(1 + exp(-(y *(i,i->i) (X *(ij,j->i) w + b *(,i->i) 1)))))", True, False),
    ("logistic_intercept_ridge",
     "parameter X[m, n]\nparameter y[m]\nparameter lam nonneg\nvariable w[n]\nvariable b\n"
     "minimize sum(log(1 + exp(-(y *(i,i->i) (X *(ij,j->i) w + b *(,i->i) 1))))) + lam * sum(w^2)",
     True, False),
    ("poisson_intercept",
     "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nvariable b\n"
     "minimize sum(exp(X *(ij,j->i) w + b *(,i->i) 1)) - sum(y *(i,i->i) (X *(ij,j->i) w + b *(,i->i) 1))",
     True, False),
    ("poisson_intercept_ridge",
     "parameter X[m, n]\nparameter y[m] nonneg\nparameter lam nonneg\nvariable w[n]\nvariable b\n"
     "minimize sum(exp(X *(ij,j->i) w + b *(,i->i) 1)) - sum(y *(i,i->i) (X *(ij,j->i) w + b *(,i->i) 1))"
     " + lam * sum(w^2)", True, False),
    ("smooth_elastic_net",
     "parameter X[m, n]\nparameter y[m]\nparameter lam nonneg\nparameter mu nonneg\nparameter eps pos\n"
     "variable w[n]\n"
     "minimize 0.5 * sum((X *(ij,j->i) w - y)^2) + lam * sum(sqrt(w^2 + eps *(,i->i) 1)) + mu * sum(w^2)",
     True, False),
    ("pseudo_huber",
     "parameter X[m, n]\nparameter y[m]\nparameter dl pos\nvariable w[n]\n"
     "minimize sum(sqrt(1 + ((X *(ij,j->i) w - y) / (dl *(,i->i) 1))^2) - 1)", True, False),
    ("softmax_regression",
     "parameter X[m, n]\nparameter Y[m, k]\nvariable W[n, k]\n"
     "minimize sum(log(exp(X *(ij,jc->ic) W) *(ic,c->i) 1)) - sum(Y *(ic,ic->ic) (X *(ij,jc->ic) W))",
     True, False),
    ("sum_sq_over_t", "variable x[n]\nvariable t pos\nminimize sum(x^2) / t", True, False),
    # --- more atoms
    ("matrix_fraction", "variable x[n]\nvariable Y[n, n] pd\nminimize x *(i,ij->j) inv(Y) *(j,j->) x", True, False),
    # Y only symmetric: inv(Y) may be indefinite (x = e1, Y = diag(-1, 1): -x1^2)
    ("matrix_fraction_symmetric", "variable x[n]\nvariable Y[n, n] symmetric\n"
     "minimize x *(i,ij->j) inv(Y) *(j,j->) x", False, False),
    # det(X)^p on pd n x n X is concave iff p <= 1/n (along X itself it is t^(n p))
    ("det_cube_root", "variable X[3, 3] pd\nmaximize det(X)^(1/3)", False, True),
    ("det_sqrt_3x3", "variable X[3, 3] pd\nmaximize det(X)^(1/2)", False, False),
    ("trace_inv", "variable X[n, n] pd\nminimize inv(X) *(ij,ij->) delta(1)", True, False),
    ("neg_log_det_inv", "variable X[n, n] pd\nminimize log(det(inv(X)))", True, False),
    ("neg_log_det", "variable X[n, n] pd\nminimize -log(det(X))", True, False),
    ("quad_form_squared", "parameter A[n, n] psd\nvariable x[n]\nminimize (x *(i,ij->j) A *(j,j->) x)^2",
     True, False),
    ("neg_log_one_minus_xx", "variable x[n]\nminimize -log(1 - x *(i,i->) x)", True, False),
    ("even_power_unknown_sign", "parameter w[n]\nvariable x\nminimize (x * sum(w))^4", True, False),
    ("harmonic_mean", "variable x[n] pos\nmaximize 1 / sum(1 / x)", False, True),
    ("geometric_mean_2", "variable x nonneg\nvariable y nonneg\nmaximize sqrt(x * y)", False, True),
    # exp(sum(log x) / 4) is the geometric mean only for 4 entries (degree n/4 > 1 beyond)
    ("geometric_mean_n", "variable x[4] pos\nmaximize exp(sum(log(x)) / 4)", False, True),
    ("geometric_mean_5_over_4", "variable x[5] pos\nmaximize exp(sum(log(x)) / 4)", False, False),
    # --- nonsmooth atoms, by composition
    ("lasso",
     "parameter X[m, n]\nparameter y[m]\nparameter lam nonneg\nvariable w[n]\n"
     "minimize 0.5 * sum((X *(ij,j->i) w - y)^2) + lam * sum(abs(w))", True, False),
    ("svm_hinge",
     "parameter X[m, n]\nparameter y[m]\nparameter lam nonneg\nvariable w[n]\nvariable b\n"
     "minimize sum(relu(1 - y *(i,i->i) (X *(ij,j->i) w + b *(,i->i) 1))) + lam * sum(w^2)", True, False),
    ("abs_free", "variable x\nminimize abs(x)", True, False),
    ("exp_neg_abs", "variable x\nminimize exp(-abs(x))", False, False),
    ("abs_square_diff", "variable x\nminimize abs(x^2 - 1)", False, False),
    # x + relu(x - x) is max(x, x) = x: the max reading once left its a side empty (a = 0,
    # so the sum read as max(0, x) >= 0) and relu of it was proven affine
    ("relu_of_max_x_x", "variable x\nminimize relu(x + relu(x - x))", True, False),
    ("relu_of_max_2x_x", "variable x\nminimize relu(x + relu(2 * x - x))", True, False),
    # (s v)' P (s v), s = a'x + c scalar, v a constant vector, P psd: s^2 v'P v. The cores
    # of u'P and u went down to s alone, whose weight v'P v (v = p3 p2) was read as
    # sign unknown (found by the DCP-agreement property); the shared core u keeps P whole
    ("quad_form_scalar_times_vector",
     "parameter p0[3]\nparameter p1 pos\nparameter p2[2, 3]\nparameter p3[2]\nparameter p4[3, 3] psd\n"
     "variable x[3]\nminimize (p3 *(i,ij->j) ((p0 *(i,i->) (x) + p1) * p2)) *(i,ij->j) p4 *(j,j->) "
     "(p3 *(i,ij->j) ((p0 *(i,i->) (x) + p1) * p2))", True, False),
    ("quad_form_scalar_times_product", "parameter a[3]\nparameter B[2, 3]\nparameter c[2]\n"
     "parameter P[3, 3] psd\nvariable x[3]\nminimize ((a' * x + 1) * (c' * B)) * P * ((a' * x + 1) * (c' * B))'",
     True, False),
    # like terms merged and kinks of one affine argument up to sign paired (patterns.like_terms):
    # relu(-u) = relu(u) - u, |u| = 2 relu(u) - u; the coefficient of relu(u) decides
    ("like_abs_cancel", "variable x\nminimize x^2 + 3 * abs(x) - 2 * abs(x)", True, False),       # x^2 + |x|
    ("like_relu_odd", "variable x\nminimize relu(x) - relu(-x)", True, True),                    # = x
    ("like_abs_minus_relu", "variable x\nminimize abs(x) - relu(x)", True, False),               # = relu(-x)
    ("like_abs_minus_3relu", "variable x\nminimize abs(x) - 3 * relu(x)", False, True),          # = -relu(x) - x
    ("like_shifted", "variable x\nminimize relu(x - 1) - relu(1 - x)", True, True),              # = x - 1
    ("like_not_paired", "variable x\nminimize relu(x - 1) - relu(2 - x)", False, False),         # slopes 1, 2, 1
    ("like_two_vars", "variable x\nvariable y\nminimize relu(x - y) + relu(y - x) - 3 * abs(y - x) + x^2",
     False, False),                                                                            # x^2 - 2|x - y|
    ("like_two_vars_ok", "variable x\nvariable y\nminimize relu(x - y) + relu(y - x) - 0.5 * abs(y - x)",
     True, False),                                                                             # 0.5 |x - y|
    # harmonic means: 1 / (c + sum_k w_k / a_k), a_k > 0 concave, c, w_k >= 0 (patterns.harmonic)
    ("harm_mean", "variable x[n] pos\nmaximize 1 / mean(1 ./ x)", False, True),
    ("harm_pow", "variable x[n] pos\nmaximize 1 / sum(x .^ (-1))", False, True),
    ("harm_weighted_const", "variable x[n] pos\nmaximize (1 + sum(2 ./ sqrt(x)))^(-1)", False, True),
    ("harm_pair_affine", "variable x pos\nvariable y pos\nmaximize 1 / (1 / (x + y) + 1 / (2 * x + 1))", False, True),
    ("harm_convex_inner", "variable x[n] pos\nmaximize 1 / sum(1 ./ x .^ 2)", None, False),   # n = 1: x^2
    ("harm_free", "variable x[n]\nmaximize 1 / sum(1 ./ x)", False, False),                 # domain not convex
    ("harm_difference", "variable x pos\nvariable y pos\nmaximize 1 / (1 / x - 1 / (x + y))", None, False),
    # domains `_domain` did not read (classify._restricted): the functions cancel, the domains stay
    ("dom_tan_cancel", "variable x\nminimize tan(x) - tan(x)", False, False),         # x != pi/2 + k pi
    ("dom_tan_branch", "variable x >= -1 <= 1\nminimize tan(x) - tan(x)", True, True),  # one branch: 0
    ("dom_arcsin_cancel", "variable x\nvariable y\nminimize arcsin(x * y) - arcsin(x * y)", False, False),
    ("dom_arcsin_affine", "variable x\nvariable y\nminimize arcsin(x - y) - arcsin(x - y)", True, True),
    ("dom_inv_cancel", "variable X[2, 2]\nminimize tr(inv(X) * X)", False, False),     # det X != 0
    ("dom_inv_pd_cancel", "variable X[2, 2] pd\nminimize tr(inv(X) * X)", True, True),  # = 2 on pd
    ("dom_param_power", "parameter p\nvariable x\nminimize x^p - x^p", False, False),  # p = -1: x != 0
    ("dom_cube_root_product", "variable x\nvariable y\nmaximize (x * y)^(1/3) - (x * y)^(1/3)", False, False),
    # perspectives t * G(u / t), t > 0 and u affine (convexcheck/perspective.py)
    ("persp_lse", "variable x[n]\nvariable t pos\nminimize t * log_sum_exp(x / t)", True, False),
    ("persp_exp", "variable x\nvariable y pos\nminimize y * exp(x / y)", True, False),
    ("persp_rel_entr", "variable x pos\nvariable t pos\nminimize t * (-log(x / t))", True, False),  # t log(t/x)
    ("persp_shifted", "variable x[n]\nvariable t pos\nminimize (t + 1) * log_sum_exp((x + 1) / (t + 1))", True, False),
    ("persp_log_sum", "variable x[n] pos\nvariable t pos\nmaximize t * log(sum(x / t))", False, True),
    ("persp_free_t", "variable x[n]\nvariable t\nminimize t * log_sum_exp(x / t)", False, False),  # t < 0: concave
    ("persp_sin", "variable x\nvariable t pos\nminimize t * sin(x / t)", False, False),
    ("persp_t_outside", "variable x\nvariable t pos\nminimize t * exp(x / t + t)", None, False),
    # definite cones (definite.py): a positive variable times a pd matrix is pd, diag(v) of v > 0 is pd
    ("cone_pos_times_pd", "parameter A1[n, n] pd\nparameter A2[n, n] pd\nvariable x1 pos\nvariable x2 pos\n"
     "maximize logdet(x1 * A1 + x2 * A2)", False, True),
    ("cone_diag_pos", "variable x[n] pos\nmaximize logdet(diag(x))", False, True),              # sum(log(x))
    ("cone_diag_neg_inv", "variable x[n] neg\nminimize tr(inv(diag(x)))", False, True),          # sum(1 / x), x < 0
    # n = 1: log x, x < 0 excluded; n = 2: x1 x2 > 0 not convex
    ("cone_diag_free", "variable x[n]\nmaximize logdet(diag(x))", None, False),
]
