"""Audit corpus, round 3: objectives as practitioners and outside evaluation suites write them,
for tests/test_convexity_audit3.py: (name, problem text, convex truth, concave truth).

Families not in tests/convexity_audit_cases.py: multiclass softmax cross-entropy with intercepts,
GLM negative log-likelihoods (Poisson, Gamma, negative binomial, Tweedie), quantile, expectile,
Huber-with-scale and other robust losses, elastic net, group lasso, 1-D and 2-D total variation,
smoothed max with a temperature, entropies and divergences against parameter distributions,
perspectives, quadratic forms, Rayleigh-like ratios, factorisations, optimisation test
functions, tr/logdet/inv of affine matrix expressions, norms of matrix expressions, max/min,
geometric, harmonic and power means, log barriers (with constraints, which do not change the
objective's curvature), sign traps, domain traps, mixtures, and cancellations that hide a domain.

Truth is mathematical (each comment says why), never the analyser's answer: True means the side
holds for every admissible parameter value (at every length of a named dimension) on the
function's natural domain (where log, 1/x, fractional powers, inv and logdet are defined; a side
is False when that domain is not convex), False that it fails for some admissible point. Every
truth was re-derived with NumPy alone (tests/audit_truth/spec3.py states each case again as a
NumPy function; tests/audit_truth/checker.py samples 2,000 admissible points and parameters per
case, named lengths 2 to 4, second differences for h from 1e-3 to 3 and midpoints of random
pairs): every True side survived, every False side has a witness."""

CASES = [
    # --- multiclass softmax cross-entropy, logistic-type losses
    ("sm_ce_intercept", "parameter X[m, n]\nparameter Y[m, k]\nvariable W[k, n]\nvariable b[k]\nminimize sum(log(sum(exp(X * W' + ones * b'), 1))) - sum(Y .* (X * W' + ones * b'))", True, False),  # per-row log-sum-exp of affine minus linear, any Y
    ("sm_ce_weighted", "parameter X[m, n]\nparameter Y[m, k]\nvariable W[k, n]\nvariable b[k]\nparameter s[m] nonneg\nminimize s' * log(sum(exp(X * W' + ones * b'), 1)) - sum(Y .* (X * W' + ones * b'))", True, False),  # nonneg sample weights on convex per-row lse
    ("sm_ce_weights_free", "parameter X[m, n]\nparameter Y[m, k]\nvariable W[k, n]\nvariable b[k]\nparameter s[m]\nminimize s' * log(sum(exp(X * W' + ones * b'), 1)) - sum(Y .* (X * W' + ones * b'))", False, False),  # a negative weight makes a row's lse concave; positive ones convex
    ("sm_ce_ridge", "parameter X[m, n]\nparameter Y[m, k]\nvariable W[k, n]\nvariable b[k]\nparameter lam nonneg\nminimize sum(log(sum(exp(X * W' + ones * b'), 1))) - sum(Y .* (X * W' + ones * b')) + lam * sum_squares(W)", True, False),  # softmax loss plus nonneg ridge
    ("sm_ce_temperature", "parameter X[m, n]\nparameter Y[m, k]\nvariable W[k, n]\nvariable b[k]\nparameter T pos\nminimize sum(log(sum(exp((X * W' + ones * b') / T), 1)))", True, False),  # lse of affine (1/T > 0 scales the argument)
    ("sm_ce_rowsum_nonneg", "parameter X[m, n]\nparameter Y[m, k] nonneg\nvariable W[k, n]\nvariable b[k]\nminimize sum(sum(Y, 1) .* log(sum(exp(X * W' + ones * b'), 1))) - sum(Y .* (X * W' + ones * b'))", True, False),  # soft labels: row sums of nonneg Y weight convex lse
    ("sm_ce_rowsum_free", "parameter X[m, n]\nparameter Y[m, k]\nvariable W[k, n]\nvariable b[k]\nminimize sum(sum(Y, 1) .* log(sum(exp(X * W' + ones * b'), 1))) - sum(Y .* (X * W' + ones * b'))", False, False),  # Y of either sign: a negative row sum makes that lse concave
    ("sm_softmax_prob", "variable z[3]\nmaximize exp(z[0]) / sum(exp(z))", False, False),  # softmax probability: a sigmoid in z0 - z1, neither
    ("sm_log_softmax", "variable z[3]\nmaximize z[0] - log_sum_exp(z)", False, True),  # log-softmax: affine minus lse
    ("sm_binary_ce_prob", "parameter y[n] >= 0 <= 1\nvariable p[n] > 0 < 1\nminimize -sum(y .* log(p) + (1 - y) .* log(1 - p))", True, False),  # nonneg weights on -log of positive affine
    ("sm_binary_ce_yfree", "parameter y[n]\nvariable p[n] > 0 < 1\nminimize -sum(y .* log(p) + (1 - y) .* log(1 - p))", False, False),  # y > 1 gives a negative weight on -log(1 - p), y < 0 on -log p
    ("sm_sigmoid_ce_logits", "parameter y[n]\nvariable z[n]\nminimize sum(softplus(z) - y .* z)", True, False),  # softplus minus linear, any labels
    ("sm_focal_prob", "variable p > 0 < 1\nminimize -(1 - p)^2 * log(p)", True, False),  # f'' = -2 log p + 2(1-p)/p + (1-p^2)/p^2 > 0 on (0, 1)
    ("sm_exp_loss", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(exp(-y .* (X * w)))", True, False),  # AdaBoost exponential loss: exp of affine
    ("sm_logistic_l1_intercept", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nvariable b\nparameter lam nonneg\nminimize sum(softplus(-y .* (X * w + b))) + lam * norm1(w)", True, False),  # logistic loss plus l1
    ("sm_multiclass_hinge", "variable z[4]\nminimize maximum(max(z[1:4] - z[0] + 1), 0)", True, False),  # Crammer-Singer hinge: max of affine functions and 0
    # --- GLM negative log-likelihoods
    ("glm_poisson", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nvariable b\nminimize sum(exp(X * w + b) - y .* (X * w + b))", True, False),  # Poisson log link: exp of affine minus linear
    ("glm_poisson_yfree", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(exp(X * w) - y .* (X * w))", True, False),  # the y term is linear whatever its sign
    ("glm_poisson_offset", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nparameter e[m] pos\nminimize sum(exp(X * w + log(e)) - y .* (X * w))", True, False),  # exposure offset log(e) is a constant
    ("glm_poisson_identity", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nminimize sum(X * w - y .* log(X * w))", True, False),  # identity link: -y log of affine, domain Xw > 0 convex
    ("glm_poisson_identity_yfree", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(X * w - y .* log(X * w))", False, False),  # y < 0 makes -y log(u) concave
    ("glm_gamma_log", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nminimize sum(y .* exp(-(X * w)) + X * w)", True, False),  # Gamma log link: nonneg multiple of exp of affine plus linear
    ("glm_gamma_log_yfree", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(y .* exp(-(X * w)) + X * w)", False, False),  # a negative y weights a convex exp negatively
    ("glm_gamma_canonical", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(y .* (X * w) - log(X * w))", True, False),  # inverse link: linear minus log of affine
    ("glm_negbin", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nparameter r pos\nminimize sum((y + r) .* log(r + exp(X * w)) - y .* (X * w))", True, False),  # log(r + e^u) = log r + softplus(u - log r), weight y + r > 0
    ("glm_negbin_rfree", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nparameter r\nminimize sum((y + r) .* log(r + exp(X * w)) - y .* (X * w))", False, False),  # r < 0: log(e^u - |r|) is concave; r > 0 convex
    ("glm_binomial", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nparameter t[m] nonneg\nminimize sum(t .* softplus(X * w) - y .* (X * w))", True, False),  # binomial counts: nonneg multiples of softplus
    ("glm_tweedie15", "parameter X[m, n]\nparameter y[m] nonneg\nvariable w[n]\nminimize sum(2 * y .* exp(-0.5 * (X * w)) + 2 * exp(0.5 * (X * w)))", True, False),  # Tweedie p = 1.5: nonneg combination of exps of affine
    ("glm_inverse_gaussian", "parameter y nonneg\nvariable u\nminimize y * exp(-2 * u) / 2 - exp(-u)", False, False),  # f'' = 2y e^{-2u} - e^{-u} changes sign
    ("glm_gauss_sigma", "parameter X[4, n]\nparameter y[4]\nvariable w[n]\nvariable s pos\nminimize 4 * log(s) + sum_squares(y - X * w) / (2 * s^2)", False, False),  # in s: -4/s^2 + 3 r^2/s^4 changes sign
    ("glm_gauss_precision", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nvariable tau pos\nminimize -2 * log(tau) + tau * sum_squares(y - X * w) / 2", False, False),  # tau times a convex quadratic: a bilinear-type cross term
    ("glm_concomitant_scale", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nvariable s pos\nminimize sum_squares(y - X * w) / (2 * s) + 2 * s", True, False),  # scaled lasso: quad-over-lin plus linear
    # --- robust and quantile losses
    ("rl_pinball", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter tau >= 0 <= 1\nminimize sum(tau * relu(X * w - y) + (1 - tau) * relu(y - X * w))", True, False),  # pinball loss, nonneg weights
    ("rl_pinball_tau_free", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter tau\nminimize sum(tau * relu(X * w - y) + (1 - tau) * relu(y - X * w))", True, False),  # tau relu(r) - tau relu(-r) = tau r, so this is tau r + relu(-r) for every tau
    ("rl_pinball_max", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter tau\nminimize sum(maximum(tau * (X * w - y), (tau - 1) * (X * w - y)))", True, False),  # max of two affine functions, any tau
    ("rl_pinball_neg_max", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter tau >= 0 <= 1\nmaximize -sum(tau * relu(X * w - y) + (1 - tau) * relu(y - X * w))", False, True),  # minus the pinball loss
    ("rl_expectile", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter tau >= 0 <= 1\nminimize sum(tau * relu(X * w - y) .^ 2 + (1 - tau) * relu(y - X * w) .^ 2)", True, False),  # asymmetric squares, nonneg weights
    ("rl_expectile_tau_free", "parameter tau\nvariable r\nminimize tau * relu(r)^2 + (1 - tau) * relu(-r)^2", False, False),  # tau > 1 makes the r < 0 branch (1 - tau) r^2 concave; tau < 0 the other
    ("rl_hinge_sq", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(relu(1 - y .* (X * w)) .^ 2)", True, False),  # squared hinge
    ("rl_hinge_sq_ridge", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter lam nonneg\nminimize sum(square(pos(1 - y .* (X * w)))) + lam * w' * w", True, False),  # squared hinge plus ridge, CVXPY spelling
    ("rl_logcosh", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(log(exp(X * w - y) + exp(y - X * w)))", True, False),  # log-cosh (+ log 2) of affine
    ("rl_logcosh_scaled", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter a pos\nminimize a * sum(log(exp((X * w - y) / a) + exp((y - X * w) / a)))", True, False),  # positive multiple of log-cosh of affine
    ("rl_huber_M", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter M pos\nminimize M^2 * sum(huber((X * w - y) / M))", True, False),  # CVXPY huber(r, M) = M^2 huber(r / M)
    ("rl_huber_M_free", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter M\nminimize M^2 * sum(huber((X * w - y) / M))", True, False),  # M^2 > 0 and huber(r / M) is convex for either sign of M
    ("rl_huber_M_var", "variable r\nvariable M pos\nminimize M^2 * huber(r / M)", False, False),  # for M < |r| it is 2M|r| - M^2, concave in M
    ("rl_pseudo_huber", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter d pos\nminimize sum(d^2 * (sqrt(1 + ((X * w - y) / d) .^ 2) - 1))", True, False),  # pseudo-Huber with scale: a shifted norm
    ("rl_cauchy", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(log(1 + (X * w - y) .^ 2))", False, False),  # Cauchy loss: log(1 + r^2) is concave for |r| > 1
    ("rl_welsch", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(1 - exp(-(X * w - y) .^ 2))", False, False),  # Welsch loss: bounded, not convex; convex near 0
    ("rl_l1_plus_l2", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize norm1(X * w - y) + norm2(X * w - y)", True, False),  # sum of norms of affine
    ("rl_eps_insensitive", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter eps nonneg\nminimize sum(relu(abs(X * w - y) - eps))", True, False),  # SVR loss: relu of convex
    ("rl_eps_insensitive_free", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter eps\nminimize sum(pos(abs(X * w - y) - eps))", True, False),  # relu (increasing convex) of |r| - eps for any eps
    ("rl_eps_insensitive_sq", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter eps nonneg\nminimize sum(relu(abs(X * w - y) - eps) .^ 2)", True, False),  # square of nonneg convex
    ("rl_truncated_sq", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nminimize sum(minimum((X * w - y) .^ 2, 1))", False, False),  # trimmed square: min of convex and a constant
    ("rl_smooth_l1", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter beta pos\nminimize beta / 2 * sum(huber((X * w - y) / beta))", True, False),  # SmoothL1 (PyTorch) up to scale
    # --- regularisers: elastic net, group lasso, total variation
    ("rg_enet", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter l1 nonneg\nparameter l2 nonneg\nminimize sum_squares(X * w - y) + l1 * norm1(w) + l2 * sum_squares(w)", True, False),  # elastic net
    ("rg_enet_l1_free", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter l1\nparameter l2 nonneg\nminimize sum_squares(X * w - y) + l1 * norm1(w) + l2 * sum_squares(w)", False, False),  # l1 < 0: a concave kink at w = 0 beats the quadratic
    ("rg_enet_l2_ge_m1", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter l2 >= -1\nminimize sum_squares(X * w - y) + l2 * sum_squares(w)", False, False),  # X'X - I is indefinite when X has a small singular value
    ("rg_enet_glmnet", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter lam nonneg\nparameter alpha >= 0 <= 1\nminimize mean((X * w - y) .^ 2) / 2 + lam * (alpha * norm1(w) + (1 - alpha) / 2 * sum_squares(w))", True, False),  # glmnet objective
    ("rg_ridge_minus", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter lam nonneg\nminimize sum_squares(X * w - y) - lam * sum_squares(w)", False, False),  # lam > |X|^2 makes it concave in some direction; lam = 0 convex
    ("rg_group_rows", "variable W[n, k]\nminimize sum(sqrt(sum(W .^ 2, 1)))", True, False),  # group lasso over rows: sum of Euclidean norms
    ("rg_group_cols", "variable W[n, k]\nminimize sum(sqrt(sum(W .^ 2, 0)))", True, False),  # sum of column norms
    ("rg_group_pow05", "variable W[n, k]\nminimize sum(sum(W .^ 2, 1) .^ 0.5)", True, False),  # same, power spelling
    ("rg_group_slices", "variable w[5]\nminimize norm2(w[0:2]) + norm2(w[2:5])", True, False),  # norms of blocks
    ("rg_group_weighted", "variable W[n, k]\nparameter g[n] nonneg\nminimize g' * sqrt(sum(W .^ 2, 1))", True, False),  # nonneg weights on row norms
    ("rg_group_weighted_free", "variable W[n, k]\nparameter g[n]\nminimize g' * sqrt(sum(W .^ 2, 1))", False, False),  # a negative weight on a norm: concave cone
    ("rg_sparse_group", "variable w[4]\nparameter lam nonneg\nparameter mu nonneg\nminimize lam * norm1(w) + mu * (norm2(w[0:2]) + norm2(w[2:4]))", True, False),  # sparse group lasso
    ("rg_group_smooth", "variable W[n, k]\nparameter eps pos\nminimize sum(sqrt(sum(W .^ 2, 1) + eps))", True, False),  # smoothed group norms: norms of (w, sqrt(eps))
    ("rg_group_quarter", "variable W[n, k]\nminimize sum(sum(W .^ 2, 1) .^ 0.25)", False, False),  # square root of a norm: cusp at 0, concave along rays
    ("rg_group_fit", "parameter X[m, n]\nparameter Y[m, k]\nvariable W[n, k]\nparameter lam nonneg\nminimize sum_squares(X * W - Y) + lam * sum(sqrt(sum(W .^ 2, 1)))", True, False),  # multitask group lasso
    ("rg_tv1d", "variable x[6]\nminimize sum(abs(x[1:6] - x[0:5]))", True, False),  # 1-D total variation
    ("rg_tv1d_denoise", "variable x[6]\nparameter y[6]\nparameter lam nonneg\nminimize sum_squares(x - y) + lam * sum(abs(x[1:6] - x[0:5]))", True, False),  # TV denoising
    ("rg_tv1d_lam_free", "variable x[6]\nparameter y[6]\nparameter lam\nminimize sum_squares(x - y) + lam * sum(abs(x[1:6] - x[0:5]))", False, False),  # lam < 0: concave kinks where neighbours are equal
    ("rg_tv2d_aniso", "variable X[4, 4]\nminimize sum(abs(X[1:4, :] - X[0:3, :])) + sum(abs(X[:, 1:4] - X[:, 0:3]))", True, False),  # anisotropic 2-D TV
    ("rg_tv2d_iso", "variable X[4, 4]\nminimize sum(sqrt((X[1:4, 0:3] - X[0:3, 0:3]) .^ 2 + (X[0:3, 1:4] - X[0:3, 0:3]) .^ 2))", True, False),  # isotropic 2-D TV: sum of norms of affine pairs
    ("rg_tv2d_iso_smooth", "variable X[4, 4]\nparameter eps pos\nminimize sum(sqrt((X[1:4, 0:3] - X[0:3, 0:3]) .^ 2 + (X[0:3, 1:4] - X[0:3, 0:3]) .^ 2 + eps))", True, False),  # smoothed isotropic TV
    ("rg_tv2d_iso_sq_root4", "variable X[3, 3]\nminimize sum(((X[1:3, 0:2] - X[0:2, 0:2]) .^ 2 + (X[0:2, 1:3] - X[0:2, 0:2]) .^ 2) .^ 0.25)", False, False),  # square root of a norm per pixel: cusp
    ("rg_laplacian", "variable x[6]\nminimize sum((x[1:6] - x[0:5]) .^ 2)", True, False),  # graph Laplacian quadratic form
    ("rg_trend_l1", "variable x[7]\nminimize sum(abs(x[2:7] - 2 * x[1:6] + x[0:5]))", True, False),  # l1 trend filtering
    ("rg_hp_filter", "variable x[7]\nparameter y[7]\nparameter lam nonneg\nminimize sum_squares(y - x) + lam * sum_squares(x[2:7] - 2 * x[1:6] + x[0:5])", True, False),  # Hodrick-Prescott filter
    ("rg_tv_define", "variable x[6]\ndefine d[i < 5] = x[i + 1] - x[i]\nminimize sum(abs(d))", True, False),  # TV through an element-wise definition
    ("rg_tv_minus_l1", "variable x[5]\nminimize sum(abs(x[1:5] - x[0:4])) - norm1(x)", False, False),  # convex minus convex: at x = 0 along e_0 it is |t| - |t| = 0 but along (1,1,..) -5|t|
    ("rg_fused_lasso", "variable x[6]\nparameter l1 nonneg\nparameter l2 nonneg\nminimize l1 * norm1(x) + l2 * sum(abs(x[1:6] - x[0:5]))", True, False),  # fused lasso penalty
    ("rg_l1_over_l2", "variable x[n]\nminimize norm1(x) / norm2(x)", False, False),  # scale invariant, domain x != 0
    ("rg_l1_minus_l2", "variable x[n]\nminimize norm1(x) - norm2(x)", False, False),  # L1 - L2: concave cone at 0 along a ray mix
    ("rg_log_penalty", "variable x[n]\nparameter eps pos\nminimize sum(log(abs(x) + eps))", False, False),  # reweighted l1 surrogate: concave for x != 0, convex kink at 0
    ("rg_huber_penalty", "variable w[n]\nminimize sum(huber(w))", True, False),  # Huber penalty
    ("rg_entropic_ot", "parameter C[n, k]\nvariable P[n, k] pos\nparameter eps nonneg\nminimize sum(C .* P) - eps * sum(entr(P))", True, False),  # entropic optimal transport objective
    # --- smoothed max, log-sum-exp with a temperature
    ("sx_lse_temp_param", "variable x[n]\nparameter t pos\nminimize t * log_sum_exp(x / t)", True, False),  # positive multiple of lse of affine
    ("sx_lse_temp_var", "variable x[n]\nvariable t pos\nminimize t * log_sum_exp(x / t)", True, False),  # perspective of log-sum-exp
    ("sx_lse_temp_free", "variable x[n]\nparameter t\nminimize t * log_sum_exp(x / t)", False, False),  # t < 0 gives minus a perspective: concave
    ("sx_lse_temp_neg", "variable x[n]\nparameter t neg\nmaximize t * log_sum_exp(x / t)", False, True),  # t < 0: -|t| lse(-x / |t|), a soft minimum
    ("sx_lse_temp_neg_var", "variable x[n]\nvariable t neg\nmaximize t * log_sum_exp(x / t)", False, True),  # minus the perspective of lse at (-x, -t)
    ("sx_lse_temp_affine", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nparameter t pos\nminimize t * log(sum(exp((A * x + b) / t)))", True, False),  # smoothed max of affine functions
    ("sx_softmin", "variable x[n]\nparameter t pos\nmaximize -t * log_sum_exp(-x / t)", False, True),  # soft minimum
    ("sx_lse_minus_max", "variable x[3]\nminimize log_sum_exp(x) - max(x)", False, False),  # bounded between 0 and log 3, not constant
    ("sx_lse_over_temp_var", "variable x[n]\nvariable t pos\nminimize log_sum_exp(x / t)", False, False),  # for x = (-1, 0) it is about log 2 - 1/(2t) for large t: concave in t
    ("sx_smooth_relu_persp", "variable x\nvariable t pos\nminimize t * softplus(x / t)", True, False),  # perspective of softplus
    ("sx_smooth_abs", "variable x[n]\nparameter t pos\nminimize sum(t * log(exp(x / t) + exp(-x / t)))", True, False),  # smoothed absolute value
    ("sx_lse_three_terms", "variable x\nvariable y\nminimize log(exp(x) + exp(y) + exp(x + y))", True, False),  # lse of affine
    ("sx_lse_times_param_free", "variable x[n]\nparameter c\nminimize c * log_sum_exp(x)", False, False),  # c of either sign
    # --- entropy, KL, cross-entropy against a parameter distribution
    ("en_kl_x_q", "variable x[n] pos\nparameter q[n] pos\nminimize sum(x .* log(x ./ q))", True, False),  # negative entropy plus linear
    ("en_kl_p_x", "variable x[n] pos\nparameter p[n] pos\nminimize sum(p .* log(p ./ x))", True, False),  # -p log x plus constant
    ("en_ce_p_x", "variable x[n] pos\nparameter p[n] nonneg\nminimize -sum(p .* log(x))", True, False),  # nonneg weights on -log
    ("en_ce_p_free", "variable x[n] pos\nparameter p[n]\nminimize -sum(p .* log(x))", False, False),  # p of either sign
    ("en_kl_div_x_q", "variable x[n] pos\nparameter q[n] pos\nminimize sum(kl_div(x, q))", True, False),  # kl_div in its first argument
    ("en_kl_div_q_x", "variable x[n] pos\nparameter q[n] pos\nminimize sum(kl_div(q, x))", True, False),  # kl_div in its second argument: -q log x + x
    ("en_js_half", "variable x[n] pos\nparameter q[n] pos\nminimize sum(rel_entr(x, (x + q) / 2))", True, False),  # relative entropy (jointly convex) of an affine map
    ("en_js_joint", "variable x[n] pos\nvariable y[n] pos\nminimize sum(rel_entr(x, (x + y) / 2) + rel_entr(y, (x + y) / 2))", True, False),  # Jensen-Shannon divergence, jointly convex
    ("en_entropy_linear", "variable x[n] pos\nparameter c[n]\nmaximize c' * x + sum(entr(x))", False, True),  # entropy plus linear
    ("en_binary_entropy", "variable x > 0 < 1\nmaximize -(x * log(x) + (1 - x) * log(1 - x))", False, True),  # binary entropy
    ("en_binary_entropy_free", "variable x\nmaximize -(x * log(x) + (1 - x) * log(1 - x))", False, True),  # natural domain (0, 1) is convex
    ("en_tsallis", "variable x[n] pos\nparameter q > 0 < 1\nmaximize sum(x .^ q)", False, True),  # x^q concave for 0 < q < 1
    ("en_tsallis_q_free", "variable x[n] pos\nparameter q\nmaximize sum(x .^ q)", False, False),  # q > 1 convex, 0 < q < 1 concave
    ("en_kl_normalised", "variable x[n] pos\nminimize sum(x .* log(x / sum(x)))", True, False),  # rel_entr(x_i, 1'x) jointly convex of affine; linear along rays
    ("en_itakura_saito_x", "variable x[n] pos\nparameter y[n] pos\nminimize sum(x ./ y - log(x ./ y) - 1)", True, False),  # linear minus log in x
    ("en_itakura_saito_y", "variable y[n] pos\nparameter x[n] pos\nminimize sum(x ./ y - log(x ./ y) - 1)", False, False),  # x/y + log y: f'' = 2x/y^3 - 1/y^2 changes sign
    ("en_hellinger", "variable x[n] nonneg\nparameter q[n] nonneg\nminimize sum((sqrt(x) - sqrt(q)) .^ 2)", True, False),  # x - 2 sqrt(q x) + q
    ("en_hellinger_joint", "variable x[n] pos\nvariable y[n] pos\nminimize sum((sqrt(x) - sqrt(y)) .^ 2)", True, False),  # x + y - 2 sqrt(xy): minus a geometric mean
    ("en_chi2_joint", "variable x[n]\nvariable y[n] pos\nminimize sum((x - y) .^ 2 ./ y)", True, False),  # quad-over-lin entries
    ("en_bhattacharyya", "variable x[n] pos\nparameter q[n] pos\nminimize -log(sum(sqrt(x .* q)))", True, False),  # -log of a positive concave function
    ("en_sqrt_kl_trap", "variable x[n] pos\nparameter q[n] pos\nminimize sqrt(sum(x .* log(x ./ q)))", False, False),  # sqrt of a sign-changing convex function: domain KL >= 0 is not convex in general
    # --- perspectives and Fenchel-type forms
    ("ps_yexp_vec", "variable x[n]\nvariable y[n] pos\nminimize sum(y .* exp(x ./ y))", True, False),  # perspective of exp, entrywise
    ("ps_yexp_minus_y", "variable x[n]\nvariable y[n] pos\nminimize sum(y .* exp(x ./ y) - y)", True, False),  # perspective plus linear
    ("ps_y_softplus", "variable x\nvariable y pos\nminimize y * log(1 + exp(x / y))", True, False),  # perspective of softplus
    ("ps_y_huber", "variable x\nvariable y pos\nminimize y * huber(x / y)", True, False),  # perspective of huber
    ("ps_x4_y3", "variable x\nvariable y pos\nminimize x^4 / y^3", True, False),  # perspective of x^4
    ("ps_neg_sqrt_xy", "variable x pos\nvariable y pos\nminimize -sqrt(x * y)", True, False),  # minus the geometric mean
    ("ps_qol_affine_den", "parameter A[m, n]\nparameter b[m]\nparameter c[n]\nparameter d\nvariable x[n]\nminimize sum_squares(A * x - b) / (c' * x + d)", False, False),  # denominator of either sign: domain c'x + d != 0 not convex
    ("ps_qol_pos_den", "parameter A[m, n]\nparameter b[m]\nvariable x[n] pos\nminimize sum_squares(A * x - b) / (sum(x) + 1)", True, False),  # square over positive affine
    ("ps_y_abs_x_over_y", "variable x\nvariable y pos\nminimize y * abs(x / y)", True, False),  # = |x|
    ("ps_y_sq_plus1", "variable x\nvariable y pos\nminimize y * ((x / y)^2 + 1)", True, False),  # x^2/y + y
    ("ps_y_exp_sq", "variable x\nvariable y pos\nminimize y * exp((x / y)^2)", True, False),  # perspective of exp(u^2)
    ("ps_yexp_free", "variable x\nvariable y\nminimize y * exp(x / y)", False, False),  # domain y != 0 is two half-planes
    ("ps_yexp_neg", "variable x\nvariable y neg\nmaximize y * exp(x / y)", False, True),  # minus the perspective of exp at (-x, -y)
    ("ps_fenchel_bilinear", "variable x\nvariable y\nmaximize x * y - y^2 / 2", False, False),  # jointly indefinite: Hessian [[0, 1], [1, -1]]
    ("ps_exp_over_y", "variable x\nvariable y pos\nminimize exp(x) / y", True, False),  # log-convex: log f = x - log y
    ("ps_xlog_x_over_c", "variable x pos\nparameter c pos\nminimize x * log(x / c)", True, False),  # negative entropy plus linear
    ("ps_xy_over_xpy_sq", "variable x pos\nvariable y pos\nminimize (x + y)^2 / (x * y)", False, False),  # = x/y + y/x + 2: degree 0 and not constant
    ("ps_sum_sq_over_prod", "variable x pos\nvariable y pos\nminimize (x^2 + y^2) / sqrt(x * y)", True, False),  # sum of squares over a positive concave function
    # --- quadratic forms with psd and indefinite parameters
    ("qf_mahalanobis", "parameter S[n, n] pd\nparameter mu[n]\nvariable x[n]\nminimize (x - mu)' * inv(S) * (x - mu)", True, False),  # inverse of pd is pd
    ("qf_mahalanobis_sym", "parameter S[n, n] symmetric\nparameter mu[n]\nvariable x[n]\nminimize (x - mu)' * inv(S) * (x - mu)", False, False),  # inverse of an indefinite matrix
    ("qf_AtA_lam", "parameter A[m, n]\nparameter lam nonneg\nvariable x[n]\nminimize x' * (A' * A + lam * eye) * x", True, False),  # Gram matrix plus nonneg identity
    ("qf_AtA_lam_ge_m1", "parameter A[m, n]\nparameter lam >= -1\nvariable x[n]\nminimize x' * (A' * A + lam * eye) * x", False, False),  # A'A - I is indefinite for small A
    ("qf_psd_affine", "parameter P[n, n] psd\nparameter q[n]\nparameter r\nvariable x[n]\nminimize 0.5 * x' * P * x + q' * x + r", True, False),  # convex quadratic
    ("qf_nsd_max", "parameter P[n, n] nsd\nparameter q[n]\nvariable x[n]\nmaximize x' * P * x + q' * x", False, True),  # concave quadratic
    ("qf_P_minus_t", "parameter P[n, n] psd\nparameter t nonneg\nvariable x[n]\nminimize x' * (P - t * eye) * x", False, False),  # t above the least eigenvalue: indefinite
    ("qf_svm_dual", "parameter K[n, n] psd\nparameter y[n]\nvariable a[n]\nmaximize sum(a) - 0.5 * (a .* y)' * K * (a .* y)", False, True),  # minus a psd form of a linear map
    ("qf_kernel_ridge", "parameter K[n, n] psd\nparameter y[n]\nparameter lam nonneg\nvariable a[n]\nminimize a' * K * K * a - 2 * a' * K * y + lam * a' * K * a", True, False),  # K^2 and K psd
    ("qf_kernel_ridge_Kfree", "parameter K[n, n]\nparameter lam nonneg\nvariable a[n]\nminimize a' * K * K * a + lam * a' * K * a", False, False),  # K^2 of a general matrix is indefinite
    ("qf_quad_form_affine", "parameter P[m, m] psd\nparameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize quad_form(A * x - b, P)", True, False),  # psd form of affine
    ("qf_sum_psd", "parameter P[n, n] psd\nparameter Q[n, n] psd\nvariable x[n]\nminimize x' * (P + Q) * x", True, False),  # sum of psd
    ("qf_trace_XtPX", "parameter P[n, n] psd\nvariable X[n, k]\nminimize tr(X' * P * X)", True, False),  # sum of psd forms of columns
    ("qf_trace_XtPX_sym", "parameter P[n, n] symmetric\nvariable X[n, k]\nminimize tr(X' * P * X)", False, False),  # indefinite P
    ("qf_bilinear", "parameter A[n, n]\nvariable x[n]\nvariable y[n]\nminimize x' * A * y", False, False),  # Hessian [[0, A], [A', 0]] indefinite
    ("qf_product_of_squares", "variable x[n]\nvariable y[n]\nminimize (x' * x) * (y' * y)", False, False),  # product of convex functions of separate variables
    ("qf_diff_rank1", "parameter a[n]\nparameter b[n]\nvariable x[n]\nminimize (a' * x)^2 - (b' * x)^2", False, False),  # aa' - bb' is indefinite
    ("qf_lowrank_diag", "parameter F[n, k]\nparameter d[n] nonneg\nvariable x[n]\nminimize x' * (F * F' + diag(d)) * x", True, False),  # factor model covariance, psd
    ("qf_lowrank_diag_free", "parameter F[n, k]\nparameter d[n]\nvariable x[n]\nminimize x' * (F * F' + diag(d)) * x", False, False),  # a negative diagonal entry beyond F F'
    ("qf_ls_expanded", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize x' * (A' * A) * x - 2 * (A' * b)' * x", True, False),  # least squares expanded
    ("qf_gauss_nll_precision", "parameter S[n, n] psd\nvariable P[n, n] pd\nminimize tr(S * P) - logdet(P)", True, False),  # Gaussian NLL in the precision
    ("qf_portfolio", "parameter S[n, n] psd\nparameter mu[n]\nparameter g\nvariable x[n]\nminimize x' * S * x - g * mu' * x", True, False),  # psd form plus linear, any g
    ("qf_portfolio_sqrt", "parameter S[n, n] psd\nparameter mu[n]\nparameter k nonneg\nvariable x[n]\nminimize -mu' * x + k * sqrt(x' * S * x)", True, False),  # nonneg multiple of a seminorm
    ("qf_portfolio_sqrt_kfree", "parameter S[n, n] psd\nparameter mu[n]\nparameter k\nvariable x[n]\nminimize -mu' * x + k * sqrt(x' * S * x)", False, False),  # k < 0: minus a seminorm
    ("qf_times_free_param", "parameter S[n, n] psd\nparameter g\nvariable x[n]\nminimize g * x' * S * x", False, False),  # g of either sign
    ("qf_bilinear_reg", "parameter A[n, n]\nvariable x[n]\nvariable y[n]\nminimize x' * A * y + sum_squares(x) + sum_squares(y)", False, False),  # convex iff the spectral norm of A is at most 2
    ("qf_bilinear_reg_small", "parameter A[3, 3] >= -0.1 <= 0.1\nvariable x[3]\nvariable y[3]\nminimize x' * A * y + sum_squares(x) + sum_squares(y)", True, False),  # |A|_2 <= |A|_F <= 0.3 < 2: [[2I, A], [A', 2I]] pd
    # --- Rayleigh-like ratios
    ("ry_rayleigh_sym", "parameter A[n, n] symmetric\nvariable x[n]\nminimize x' * A * x / (x' * x)", False, False),  # degree 0, domain x != 0
    ("ry_rayleigh_psd", "parameter A[n, n] psd\nvariable x[n]\nmaximize x' * A * x / (x' * x)", False, False),  # degree 0, not constant
    ("ry_rank1", "parameter a[n]\nvariable x[n]\nminimize (a' * x)^2 / (x' * x)", False, False),  # cos^2 of an angle
    ("ry_generalised", "parameter A[n, n] psd\nparameter B[n, n] pd\nvariable x[n]\nminimize x' * A * x / (x' * B * x)", False, False),  # generalised Rayleigh quotient
    ("ry_sharpe", "parameter mu[n]\nparameter S[n, n] pd\nvariable x[n]\nmaximize mu' * x / sqrt(x' * S * x)", False, False),  # Sharpe ratio: degree 0
    ("ry_linear_fractional", "parameter a[n]\nparameter c[n]\nparameter d\nvariable x[n]\nminimize (a' * x + 1) / (c' * x + d)", False, False),  # quasilinear; domain c'x + d != 0
    ("ry_cosine", "variable x[n]\nvariable y[n]\nmaximize x' * y / (norm2(x) * norm2(y))", False, False),  # cosine similarity
    ("ry_sum_over_norm", "variable x[n]\nminimize sum(x) / norm2(x)", False, False),  # degree 0
    ("ry_lin_frac_pos", "variable x pos\nvariable y pos\nminimize (x + 1) / (y + 1)", False, False),  # linear-fractional: Hessian [[0, -1/v^2], [-1/v^2, 2u/v^3]] indefinite
    # --- bilinear, matrix factorisation
    ("bf_mf", "parameter M[m, n]\nvariable U[m, k]\nvariable V[n, k]\nminimize sum_squares(U * V' - M)", False, False),  # matrix factorisation: nonconvex jointly
    ("bf_mf_reg", "parameter M[m, n]\nparameter lam nonneg\nvariable U[m, k]\nvariable V[n, k]\nminimize sum_squares(U * V' - M) + lam * (sum_squares(U) + sum_squares(V))", False, False),  # regularised factorisation
    ("bf_mf_masked", "parameter M[m, n]\nparameter Wt[m, n] nonneg\nvariable U[m, k]\nvariable V[n, k]\nminimize sum_squares(Wt .* (U * V' - M))", False, False),  # masked factorisation (Wt = 0 gives a constant, not concave otherwise)
    ("bf_mf_U_only", "parameter M[m, n]\nparameter V[n, k]\nvariable U[m, k]\nminimize sum_squares(U * V' - M)", True, False),  # least squares in U
    ("bf_trace_bilinear", "parameter A[m, n]\nvariable U[m, k]\nvariable V[n, k]\nminimize tr(U' * A * V)", False, False),  # bilinear
    ("bf_rank1", "parameter M[m, n]\nvariable u[m]\nvariable v[n]\nminimize sum_squares(u * v' - M)", False, False),  # rank-one fit
    ("bf_nmf_kl", "parameter M[m, n] pos\nvariable W[m, k] pos\nvariable H[k, n] pos\nminimize sum(kl_div(M, W * H))", False, False),  # KL-NMF, nonconvex jointly
    ("bf_nmf_kl_H", "parameter M[m, n] pos\nparameter W[m, k] pos\nvariable H[k, n] pos\nminimize sum(kl_div(M, W * H))", True, False),  # kl_div convex in its second argument, affine map
    ("bf_dictionary", "parameter X[m, n]\nparameter lam nonneg\nvariable D[m, k]\nvariable A[k, n]\nminimize sum_squares(X - D * A) + lam * norm1(A)", False, False),  # dictionary learning
    ("bf_inner_minus_1_sq", "variable x[n]\nvariable y[n]\nminimize (x' * y - 1)^2", False, False),  # square of a bilinear form
    ("bf_linear_autoencoder", "parameter X[m, n]\nvariable W[n, k]\nminimize sum_squares(X - X * W * W')", False, False),  # quartic in W
    ("bf_procrustes_R", "parameter A[m, n]\nparameter B[m, k]\nvariable R[n, k]\nminimize sum_squares(A * R - B)", True, False),  # least squares in R
    ("bf_bilinear_plus_sq_param", "parameter c\nvariable x\nvariable y\nminimize c * x * y + x^2 + y^2", False, False),  # convex iff |c| <= 2
    ("bf_bilinear_plus_sq_small", "parameter c >= -2 <= 2\nvariable x\nvariable y\nminimize c * x * y + x^2 + y^2", True, False),  # Hessian [[2, c], [c, 2]] psd for |c| <= 2
    # --- optimisation test functions
    ("rb_rosen_2d", "variable x\nvariable y\nminimize (1 - x)^2 + 100 * (y - x^2)^2", False, False),  # Rosenbrock
    ("rb_rosen_vec", "variable x[4]\nminimize sum(100 * (x[1:4] - x[0:3] .^ 2) .^ 2 + (1 - x[0:3]) .^ 2)", False, False),  # chained Rosenbrock
    ("rb_rosen_y_only", "parameter x\nvariable y\nminimize (1 - x)^2 + 100 * (y - x^2)^2", True, False),  # a parabola in y
    ("rb_beale", "variable x\nvariable y\nminimize (1.5 - x + x * y)^2 + (2.25 - x + x * y^2)^2 + (2.625 - x + x * y^3)^2", False, False),  # Beale
    ("rb_himmelblau", "variable x\nvariable y\nminimize (x^2 + y - 11)^2 + (x + y^2 - 7)^2", False, False),  # Himmelblau: four minima
    ("rb_booth", "variable x\nvariable y\nminimize (x + 2 * y - 7)^2 + (2 * x + y - 5)^2", True, False),  # Booth: sum of squares of affine
    ("rb_matyas", "variable x\nvariable y\nminimize 0.26 * (x^2 + y^2) - 0.48 * x * y", True, False),  # Matyas: Hessian eigenvalues 0.04 and 1.48
    ("rb_three_hump", "variable x\nvariable y\nminimize 2 * x^2 - 1.05 * x^4 + x^6 / 6 + x * y + y^2", False, False),  # three-hump camel
    ("rb_zakharov", "variable x[n]\nparameter c[n]\nminimize sum(x .^ 2) + (c' * x)^2 + (c' * x)^4", True, False),  # Zakharov: squares and a fourth power of affine
    ("rb_styblinski", "variable x[n]\nminimize sum(x .^ 4 - 16 * x .^ 2 + 5 * x) / 2", False, False),  # Styblinski-Tang: 12x^2 - 32 changes sign
    ("rb_rastrigin", "variable x[n]\nminimize sum(x .^ 2 - 10 * cos(6.283185307179586 * x))", False, False),  # Rastrigin
    ("rb_quartic_sq", "variable x[n]\nminimize sum(x .^ 4) + sum_squares(x)", True, False),  # even powers
    ("rb_trid", "variable x[4]\nminimize sum((x - 1) .^ 2) - sum(x[1:4] .* x[0:3])", True, False),  # Trid: Hessian 2I minus the path adjacency, eigenvalues 2 - 2cos(k pi/5) > 0
    ("rb_trid_2", "variable x[4]\nminimize sum(x .^ 2) - 2 * sum(x[1:4] .* x[0:3])", False, False),  # 2I - 2 adjacency: eigenvalue 2 - 4cos(pi/5) < 0
    ("rb_sum_squares_weighted", "variable x[4]\nminimize sum(x[0:2] .^ 2) - 0.5 * x[3]^2", False, False),  # a negative weight on a square
    # --- tr, logdet, inv of affine matrix expressions
    ("mx_logdet_X_plus_A", "parameter A[n, n] psd\nvariable X[n, n] pd\nmaximize logdet(X + A)", False, True),  # logdet of a pd affine map
    ("mx_neglogdet_pencil", "parameter A0[n, n] pd\nparameter A1[n, n] psd\nvariable x nonneg\nminimize -logdet(A0 + x * A1)", True, False),  # -logdet of a pd affine pencil
    ("mx_neglogdet_pencil_sym", "parameter A0[n, n] pd\nparameter A1[n, n] symmetric\nvariable x\nminimize -logdet(A0 + x * A1)", False, False),  # det > 0 also where the pencil has an even number of negative eigenvalues: domain not an interval
    ("mx_logdet_two_pd", "parameter A1[n, n] pd\nparameter A2[n, n] pd\nvariable x1 pos\nvariable x2 pos\nmaximize logdet(x1 * A1 + x2 * A2)", False, True),  # logdet of a pd affine combination
    ("mx_tr_inv_shift", "parameter A[n, n] psd\nvariable X[n, n] pd\nminimize tr(inv(X + A))", True, False),  # trace of inverse of pd affine
    ("mx_tr_inv_minus", "parameter A[n, n] pd\nvariable X[n, n] pd\nminimize tr(inv(X - A))", False, False),  # X - A indefinite: inv defined off a non-convex set
    ("mx_logdet_eye_XtX", "variable X[n, n]\nminimize logdet(eye + X' * X)", False, False),  # like log(1 + x^2)
    ("mx_graphical_lasso", "parameter S[n, n] psd\nparameter lam nonneg\nvariable X[n, n] pd\nminimize -logdet(X) + tr(S * X) + lam * sum(abs(X))", True, False),  # graphical lasso
    ("mx_gauss_cov_nll", "parameter C[n, n] pd\nvariable S[n, n] pd\nminimize logdet(S) + tr(inv(S) * C)", False, False),  # Gaussian NLL in the covariance: log s + c/s
    ("mx_logdet_diag", "variable x[n] pos\nmaximize logdet(diag(x))", False, True),  # = sum log x
    ("mx_tr_XAXt", "parameter A[k, k] psd\nvariable X[n, k]\nminimize tr(X * A * X')", True, False),  # psd forms of rows
    ("mx_tr_XtX", "variable X[n, k]\nminimize tr(X' * X)", True, False),  # Frobenius norm squared
    ("mx_tr_X_sq_free", "variable X[2, 2]\nminimize tr(X * X)", False, False),  # x11^2 + x22^2 + 2 x12 x21
    ("mx_inv_sum_quad", "parameter A[n, n] pd\nparameter B[n, n] psd\nvariable x[n]\nminimize x' * inv(A + B) * x", True, False),  # inverse of pd
    ("mx_logdet_XplusXt", "variable X[n, n]\nmaximize logdet(X + X')", False, False),  # det > 0 on symmetric matrices is not convex
    ("mx_logdet_plus_xxt", "variable X[n, n] pd\nvariable x[n]\nmaximize logdet(X + x * x')", False, False),  # logdet X + log(1 + x' inv(X) x)
    ("mx_tr_inv_plus_logdet", "variable X[n, n] pd\nminimize tr(inv(X)) + logdet(X)", False, False),  # 1/x + log x
    ("mx_logdet_sym_var", "variable X[n, n] symmetric\nmaximize logdet(X)", False, False),  # natural domain det > 0 not convex
    ("mx_logdet_cong", "parameter A[n, n]\nvariable X[n, n] pd\nmaximize logdet(A * X * A')", False, True),  # 2 log|det A| + logdet X (a singular A, empty domain, is skipped)
    ("mx_tr_AX_minus_logdet_free", "parameter S[n, n] symmetric\nvariable X[n, n] pd\nminimize tr(S * X) - logdet(X)", True, False),  # linear minus logdet, any S
    ("mx_det_pd_3", "variable X[3, 3] pd\nmaximize det(X)", False, False),  # degree 3 on the cone
    # --- norms of matrix expressions
    ("nm_fro_affine", "parameter A[m, n]\nparameter B[m, k]\nvariable X[n, k]\nminimize norm2(A * X - B)", True, False),  # Frobenius norm of affine
    ("nm_Xw_param", "parameter w[n]\nvariable X[m, n]\nminimize norm2(X * w)", True, False),  # norm of a linear map of X
    ("nm_Xw_both", "variable w[n]\nvariable X[m, n]\nminimize norm2(X * w)", False, False),  # bilinear inside a norm
    ("nm_l1_AXB", "parameter A[m, n]\nparameter B[k, p]\nvariable X[n, k]\nminimize norm1(A * X * B)", True, False),  # entrywise l1 of linear
    ("nm_fro_diff", "variable X[n, k]\nvariable Y[n, k]\nminimize norm2(X - Y)", True, False),  # norm of a difference
    ("nm_fro_sq_minus_proj", "parameter a[k]\nvariable X[n, k]\nminimize sum_squares(X) - sum_squares(X * a)", False, False),  # tr(X (I - aa') X'): indefinite when |a| > 1
    ("nm_norm_rowsums", "variable X[n, k]\nminimize norm2(sum(X, 1))", True, False),  # norm of linear
    ("nm_norm_of_norms", "variable X[n, k]\nminimize norm2(sqrt(sum(X .^ 2, 1)))", True, False),  # = Frobenius norm
    ("nm_norm_exp", "variable x[n]\nminimize norm2(exp(x))", True, False),  # norm increasing on the orthant of convex positive
    ("nm_norm_log", "variable x[n] pos\nminimize norm2(log(x))", False, False),  # norm of sign-changing concave
    ("nm_col_norms_AX", "parameter A[m, n]\nvariable X[n, k]\nminimize sum(sqrt(sum((A * X) .^ 2, 0)))", True, False),  # sum of column norms of linear
    ("nm_norm_inf_mat", "parameter A[2, 3]\nvariable X[2, 3]\nminimize norm_inf(X - A)", True, False),  # max entry magnitude
    ("nm_norm_times_norm", "variable X[n, k]\nvariable y[n]\nminimize norm2(X) * norm2(y)", False, False),  # product of norms
    # --- max and min
    ("mm_max_minus_mean", "variable x[4]\nminimize max(x) - mean(x)", True, False),  # max plus linear
    ("mm_maximum_sq_y", "variable x[n]\nvariable y[n]\nminimize sum(maximum(x .^ 2, y))", True, False),  # max of convex and affine
    ("mm_minimum_x_1", "variable x[n]\nmaximize sum(minimum(x, 1))", False, True),  # min of affine
    ("mm_maximum_lse_norm", "variable x[n]\nminimize maximum(log_sum_exp(x), norm2(x))", True, False),  # max of convex
    ("mm_maximum_sqrt_log", "variable x pos\nmaximize maximum(sqrt(x), log(x))", False, True),  # sqrt(x) > log(x) for every x > 0, so this is sqrt(x)
    ("mm_minimum_sq_exp", "variable x\nminimize minimum(x^2, exp(x))", False, False),  # the pieces cross near x = -0.70: a concave kink
    ("mm_minimum_exp_exp2", "variable x\nminimize minimum(exp(x), exp(2 * x))", False, False),  # slopes 2 then 1 at 0: a concave kink
    ("mm_range", "variable x[3]\nminimize max(x) + max(-x)", True, False),  # max minus min
    ("mm_abs_via_maximum", "variable x\nvariable y\nminimize 2 * maximum(x, y) - x - y", True, False),  # = |x - y|
    ("mm_min_affine", "parameter A[4, n]\nparameter b[4]\nvariable x[n]\nmaximize min(A * x + b)", False, True),  # min of affine functions
    ("mm_neg_min", "variable x[4]\nminimize -min(x)", True, False),  # minus a min
    ("mm_max_sq", "variable x[3]\nminimize max(x)^2", False, False),  # square of a sign-changing convex function
    ("mm_relu_max_sq", "variable x[3]\nminimize relu(max(x))^2", True, False),  # square of a nonneg convex function
    ("mm_max_c_ge_m1", "variable x[3]\nparameter c >= -1\nminimize c * max(x)", False, False),  # c of either sign
    ("mm_max_c_sq_p1", "variable x[3]\nparameter c\nminimize (c^2 + 1) * max(x)", True, False),  # positive multiple
    ("mm_maximum_param", "variable x[n]\nparameter a[n]\nminimize sum(maximum(x, a))", True, False),  # max of affine
    ("mm_cvar", "parameter L[4, n]\nvariable x[n]\nvariable t\nminimize t + sum(relu(L * x - t)) / 2", True, False),  # Rockafellar-Uryasev CVaR
    ("mm_maximum_negsq_m1", "variable x\nmaximize maximum(-x^2, -1)", False, False),  # convex kinks at |x| = 1
    ("mm_max_exp_affine", "parameter A[3, n]\nvariable x[n]\nminimize max(exp(A * x))", True, False),  # max of convex
    # --- geometric, harmonic and power means
    ("gm_geo_mean", "variable x[n] pos\nmaximize geo_mean(x)", False, True),  # geometric mean
    ("gm_geo_mean_affine", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nmaximize geo_mean(A * x + b)", False, True),  # geometric mean of affine, domain a polyhedron
    ("gm_geo_exp", "variable x[n]\nminimize geo_mean(exp(x))", True, False),  # = exp(mean(x))
    ("gm_geo_sq", "variable x[n]\nminimize geo_mean(x .^ 2)", False, False),  # n = 2: |x1 x2|
    ("gm_neg_geo", "variable x[n] pos\nminimize -geo_mean(x)", True, False),  # minus a concave function
    ("gm_log_geo", "variable x[n] pos\nmaximize log(geo_mean(x))", False, True),  # = mean(log x)
    ("gm_geo_sqrt", "variable x[n] pos\nmaximize geo_mean(sqrt(x))", False, True),  # = sqrt(geo_mean(x))
    ("gm_geo_squared", "variable x[n] pos\nminimize geo_mean(x)^2", False, False),  # degree 2: convex along rays, concave across
    ("gm_harm_mean", "variable x[n] pos\nmaximize 1 / mean(1 ./ x)", False, True),  # harmonic mean
    ("gm_harm_sum", "variable x[n] pos\nmaximize 1 / sum(1 ./ x)", False, True),  # parallel sum
    ("gm_harm_free", "variable x[n]\nmaximize 1 / mean(1 ./ x)", False, False),  # domain x_i != 0 not convex
    ("gm_harm_affine_free", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nmaximize 1 / mean(1 ./ (A * x + b))", False, False),  # 1/u needs only u != 0: the natural domain is not convex
    ("gm_harm_shift", "variable x[n] pos\nmaximize 1 / mean(1 ./ (x + 1))", False, True),  # harmonic mean of positive affine
    ("gm_mean_inv", "variable x[n] pos\nminimize mean(1 ./ x)", True, False),  # mean of convex
    ("gm_inv_mean", "variable x[n] pos\nminimize 1 / mean(x)", True, False),  # 1/t of positive affine
    ("gm_pmean_m2_sq", "variable x[n] pos\nmaximize 1 / mean(x .^ (-2))", False, False),  # the square of the p = -2 mean: degree 2
    ("gm_pmean_m2", "variable x[n] pos\nmaximize mean(x .^ (-2)) ^ (-0.5)", False, True),  # power mean p = -2 is concave
    ("gm_pmean_half", "variable x[n] pos\nmaximize mean(sqrt(x))^2", False, True),  # power mean p = 1/2
    ("gm_pmean_3", "variable x[n] nonneg\nminimize mean(x .^ 3)^(1/3)", True, False),  # power mean p = 3: a scaled 3-norm on the orthant
    ("gm_geo_over_mean", "variable x[n] pos\nmaximize geo_mean(x) / mean(x)", False, False),  # degree 0, not constant
    ("gm_geo_fixed3", "variable x[3] pos\nmaximize geo_mean(x)", False, True),  # geometric mean of three
    # --- log barriers (constraints do not change the objective's curvature)
    ("lb_lp_barrier", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nparameter c[n]\nminimize c' * x - sum(log(b - A * x))", True, False),  # LP barrier
    ("lb_box", "variable x[n]\nminimize -sum(log(x)) - sum(log(1 - x))", True, False),  # box barrier, domain (0, 1)^n
    ("lb_soc", "variable x[n]\nvariable t\nminimize -log(t - norm2(x))", True, False),  # -log of positive concave
    ("lb_soc_sq", "variable x[n]\nvariable t pos\nminimize -log(t^2 - x' * x)", True, False),  # second-order cone barrier: -log(t - |x|) - log(t + |x|) on t > |x|
    ("lb_soc_sq_free", "variable x[n]\nvariable t\nminimize -log(t^2 - x' * x)", False, False),  # t free: the domain |t| > |x| is two cones
    ("lb_simplex_barrier", "variable x[n]\nparameter c[n]\nminimize c' * x - sum(log(x))\nsubject to\nsum(x) == 1", True, False),  # barrier with an equality constraint
    ("lb_neg_barrier", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nmaximize sum(log(b - A * x))", False, True),  # log of positive affine
    ("lb_barrier_t", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nparameter c[n]\nparameter t nonneg\nminimize t * c' * x - sum(log(b - A * x))", True, False),  # central path objective
    ("lb_ellipsoid", "parameter P[n, n] psd\nvariable x[n]\nminimize -log(1 - x' * P * x)", True, False),  # domain an ellipsoidal cylinder, -log of positive concave
    ("lb_ellipsoid_sym", "parameter P[n, n] symmetric\nvariable x[n]\nminimize -log(1 - x' * P * x)", False, False),  # indefinite P: domain not convex
    ("lb_barrier_minus_sq", "variable x[n] pos\nparameter lam\nminimize -sum(log(x)) + lam * sum_squares(x)", False, False),  # lam < 0: concave for large x
    ("lb_exp_barrier", "variable x[n]\nminimize -log(1 - sum(exp(x)))", True, False),  # -log of positive concave
    ("lb_lse_barrier", "variable x[n]\nminimize -log(-log_sum_exp(x))", True, False),  # -log of positive concave (-lse)
    ("lb_inv_barrier", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nminimize sum(1 ./ (b - A * x))", False, False),  # 1/u needs only u != 0: the natural domain is not convex
    ("lb_central_path_eq", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nparameter c[n]\nparameter mu nonneg\nminimize c' * x - mu * sum(log(x))\nsubject to\nA * x == b", True, False),  # barrier with equality constraints
    ("lb_constrained_nonconvex", "variable x\nvariable y\nminimize x * y\nsubject to\nx + y <= 1\nx >= 0", False, False),  # constraints do not make x y convex
    ("lb_constrained_convex", "variable x[n]\nparameter c[n]\nminimize sum(exp(x)) - c' * x\nsubject to\nsum(x) <= 1\nx >= -1", True, False),  # objective curvature is that of the function
    ("lb_max_concave_constrained", "variable x[n] pos\nmaximize sum(log(x))\nsubject to\nsum(x) == 1", False, True),  # maximize a concave function
    # --- sign traps: parameters multiplying curved terms
    ("sg_c_ge_m1_sq", "variable x[n]\nparameter c >= -1\nminimize c * sum_squares(x)", False, False),  # c of either sign
    ("sg_c_plus1_sq", "variable x[n]\nparameter c >= -1\nminimize (c + 1) * sum_squares(x)", True, False),  # c + 1 >= 0
    ("sg_c_plus2_exp", "variable x[n]\nparameter c >= -1\nminimize (c + 2) * sum(exp(x))", True, False),  # c + 2 >= 1
    ("sg_c_sq_exp", "variable x[n]\nparameter c\nminimize c^2 * sum(exp(x))", True, False),  # c^2 >= 0
    ("sg_abs_c_norm1", "variable x[n]\nparameter c\nminimize abs(c) * norm1(x)", True, False),  # |c| >= 0
    ("sg_exp_c_sq", "variable x[n]\nparameter c\nminimize exp(c) * sum_squares(x)", True, False),  # exp(c) > 0
    ("sg_c_nonpos_log", "variable x[n] pos\nparameter c nonpos\nminimize c * sum(log(x))", True, False),  # c <= 0 times concave; c < 0 is not concave
    ("sg_c_ge_m1_log", "variable x[n] pos\nparameter c >= -1\nminimize c * sum(log(x))", False, False),  # c of either sign
    ("sg_c_cancel", "variable x[n] pos\nparameter c\nminimize c * sum(log(x)) - c * sum(log(x))", True, True),  # identically 0 on x > 0
    ("sg_c_sq_minus1", "variable x[n]\nparameter c\nminimize (c^2 - 1) * sum_squares(x)", False, False),  # c^2 - 1 of either sign
    ("sg_neg_c_sq_p1", "variable x[n]\nparameter c\nmaximize -(c^2 + 1) * sum(exp(x))", False, True),  # negative multiple of convex
    ("sg_c_norm_plus_sq", "variable x[n]\nparameter c >= -1\nminimize c * norm2(x) + sum_squares(x)", False, False),  # c < 0: concave cone at 0
    ("sg_c_norm_plus_sq_nonneg", "variable x[n]\nparameter c nonneg\nminimize c * norm2(x) + sum_squares(x)", True, False),  # nonneg combination
    ("sg_neg_lam_huber", "variable x[n]\nparameter lam nonneg\nmaximize -lam * sum(huber(x))", False, True),  # nonpos multiple of convex; lam = 0 is both, lam > 0 not convex
    ("sg_c_le1_exp", "variable x[n]\nparameter c <= 1\nmaximize (c - 1) * sum(exp(x))", False, True),  # c - 1 <= 0
    ("sg_c_gt1_sq", "variable x[n]\nparameter c > 1\nminimize (c - 1) * sum_squares(x)", True, False),  # c - 1 > 0
    ("sg_ab_nonneg", "variable x[n]\nparameter a nonneg\nparameter b nonneg\nminimize a * b * sum_squares(x)", True, False),  # product of nonneg
    ("sg_ab_mixed", "variable x[n]\nparameter a nonneg\nparameter b nonpos\nmaximize a * b * sum_squares(x)", False, True),  # product nonpos
    ("sg_div_c_pos", "variable x[n]\nparameter c pos\nminimize sum_squares(x) / c", True, False),  # positive divisor
    ("sg_div_c_free", "variable x[n]\nparameter c\nminimize sum_squares(x) / c", False, False),  # divisor of either sign
    ("sg_div_c_neg", "variable x[n]\nparameter c neg\nmaximize sum_squares(x) / c", False, True),  # negative divisor
    ("sg_div_c_sq", "variable x[n]\nparameter c\nminimize sum_squares(x) / c^2", True, False),  # c^2 > 0 where defined
    ("sg_w_sq_exp", "variable x[n]\nparameter w[n]\nminimize (w .^ 2)' * exp(x)", True, False),  # squared weights
    ("sg_exp_minus_c_sq", "variable x\nparameter c nonpos\nminimize exp(x) - c * x^2", True, False),  # -c >= 0
    ("sg_quartic_small_neg", "variable x[n]\nparameter c >= -0.001\nminimize sum(exp(x)) + c * sum(x .^ 4)", False, False),  # c < 0 wins for large |x|
    ("sg_one_plus_c_norm", "variable x[n]\nparameter c >= -1\nminimize (1 + c) * norm2(x)", True, False),  # 1 + c >= 0
    ("sg_c_times_affine_sq", "variable x\nparameter c\nminimize (c * x + 1)^2", True, False),  # square of affine for every c
    ("sg_c_exp_cx", "variable x\nparameter c\nminimize exp(c * x)", True, False),  # exp of affine for every c
    ("sg_c_log_cx", "variable x\nparameter c\nmaximize log(c * x)", False, True),  # log of affine; domain a half-line
    ("sg_c_pow3", "variable x nonneg\nparameter c\nminimize (c * x)^3", False, False),  # c < 0: (c x)^3 <= 0 concave; c > 0 convex
    # --- domain traps
    ("dm_sqrt_affine", "parameter a[n]\nparameter b\nvariable x[n]\nmaximize sqrt(a' * x + b)", False, True),  # sqrt of affine, domain a half-space
    ("dm_sqrt_quad_sym", "parameter A[n, n] symmetric\nvariable x[n]\nminimize sqrt(x' * A * x)", False, False),  # domain x'Ax >= 0 is a double cone
    ("dm_log_affine_vec", "parameter A[m, n]\nparameter b[m]\nvariable x[n]\nmaximize sum(log(A * x + b))", False, True),  # log of affine on a polyhedron
    ("dm_log_diff", "variable x\nvariable y\nmaximize log(x - y)", False, True),  # log of affine
    ("dm_logdet_free_var", "variable X[n, n]\nmaximize logdet(X)", False, False),  # det > 0 on all matrices is not convex
    ("dm_sqrt_one_minus", "variable x\nmaximize sqrt(1 - x)", False, True),  # domain x <= 1
    ("dm_log_y_minus_sq", "variable x\nvariable y\nmaximize log(y - x^2)", False, True),  # log of concave; domain above a parabola is convex
    ("dm_log_y_plus_sq", "variable x\nvariable y\nminimize log(y + x^2)", False, False),  # domain y > -x^2 is not convex
    ("dm_sqrt_xy_free", "variable x\nvariable y\nmaximize sqrt(x * y)", False, False),  # domain xy >= 0: two quadrants
    ("dm_pow15_affine", "parameter a[n]\nparameter b\nvariable x[n]\nminimize (a' * x + b)^1.5", True, False),  # t^1.5 increasing convex on t >= 0
    ("dm_pow_mhalf_affine", "parameter a[n]\nparameter b\nvariable x[n]\nminimize (a' * x + b)^(-0.5)", True, False),  # t^-0.5 convex on t > 0
    ("dm_inv_affine", "parameter a[n]\nparameter b\nvariable x[n]\nminimize 1 / (a' * x + b)", False, False),  # domain u != 0 not convex
    ("dm_inv_affine_sq", "parameter a[n]\nparameter b\nvariable x[n]\nminimize 1 / (a' * x + b)^2", False, False),  # convex on each side, domain u != 0 not convex
    ("dm_log_sq_affine", "parameter a[n]\nparameter b\nvariable x[n]\nminimize log((a' * x + b)^2)", False, False),  # domain u != 0
    ("dm_sqrt_sq_affine", "parameter a[n]\nparameter b\nvariable x[n]\nminimize sqrt((a' * x + b)^2)", True, False),  # = |u|
    ("dm_xlogx_affine", "parameter a[n]\nparameter b\nvariable x[n]\nminimize (a' * x + b) * log(a' * x + b)", True, False),  # u log u of affine
    ("dm_entr_free", "variable x[n]\nmaximize sum(entr(x))", False, True),  # domain x > 0 is convex
    ("dm_logdet_X_minus_A", "parameter A[n, n] pd\nvariable X[n, n] pd\nmaximize logdet(X - A)", False, False),  # det(X - A) > 0 also with two negative eigenvalues
    ("dm_sqrt_one_minus_norm", "variable x[n]\nmaximize sqrt(1 - norm2(x))", False, True),  # sqrt of nonneg concave
    ("dm_log_norm_minus_1", "variable x[n]\nminimize log(norm2(x) - 1)", False, False),  # domain |x| > 1 not convex
    ("dm_log_1_minus_abs", "variable x\nmaximize log(1 - abs(x))", False, True),  # log of positive concave
    ("dm_sqrt_log", "variable x\nmaximize sqrt(log(x))", False, True),  # concave increasing of concave; domain x >= 1
    ("dm_log_sqrt_affine", "parameter a[n]\nparameter b\nvariable x[n]\nmaximize log(sqrt(a' * x + b))", False, True),  # half the log of affine
    ("dm_inv_sqrt_free", "variable x\nminimize 1 / sqrt(x)", True, False),  # domain x > 0
    ("dm_inv_log", "variable x\nminimize 1 / log(x)", False, False),  # domain x > 0, x != 1: two intervals
    ("dm_pow_third_neg", "variable x\nminimize -x^(1/3)", True, False),  # fractional power: domain x >= 0, minus a concave function
    # --- maximize vs minimize, mixtures of convex and nonconvex terms
    ("mx2_lse_plus_bilinear", "variable x\nvariable y\nminimize log(exp(x) + exp(y)) + x * y", False, False),  # Hessian of lse is rank one: the bilinear term wins
    ("mx2_ridge_plus_cos", "variable x[n]\nminimize sum_squares(x) + sum(cos(x))", True, False),  # f'' = 2 - cos x >= 1
    ("mx2_ridge_plus_3cos", "variable x[n]\nminimize sum_squares(x) + 3 * sum(cos(x))", False, False),  # f'' = 2 - 3 cos x < 0 near 0
    ("mx2_logistic_minus_sq", "parameter X[m, n]\nparameter y[m]\nvariable w[n]\nparameter lam nonneg\nminimize sum(softplus(-y .* (X * w))) - lam * sum_squares(w)", False, False),  # lam = 0 convex; large lam concave far out
    ("mx2_exp_minus_linear_max", "variable x[n]\nparameter c[n]\nmaximize c' * x - sum(exp(x))", False, True),  # concave: linear minus convex
    ("mx2_max_convex", "variable x[n]\nmaximize sum(exp(x))", True, False),  # maximize of a convex function (the sense does not change curvature)
    ("mx2_min_concave", "variable x[n] pos\nminimize sum(log(x))", False, True),  # minimize of a concave function
    ("mx2_huber_plus_sin", "variable x\nminimize huber(x) + 0.5 * sin(x)", False, False),  # beyond |x| > 1 huber is linear and sin curves both ways
    ("mx2_sq_plus_small_sin", "variable x\nminimize x^2 + 0.5 * sin(x)", True, False),  # f'' = 2 - 0.5 sin x > 0
    ("mx2_norm_minus_half_norm", "variable x[n]\nminimize norm2(x) - 0.5 * norm2(x)", True, False),  # = 0.5 norm2(x)
    ("mx2_abs_sum_minus_abs_of_sum", "variable x[n]\nminimize norm1(x) - abs(sum(x))", False, False),  # triangle-inequality gap: concave kink of -|sum x|
    ("mx2_sq_sum_minus_sum_sq", "variable x[n]\nminimize sum(x)^2 - sum_squares(x)", False, False),  # 11' - I indefinite for n >= 2
    ("mx2_n_sumsq_minus_sum_sq", "variable x[4]\nminimize 4 * sum_squares(x) - sum(x)^2", True, False),  # 4I - 11' psd (n times the variance)
    ("mx2_exp_times_exp_neg", "variable x\nvariable y\nminimize exp(x) * exp(-x - y^2)", False, False),  # = exp(-y^2)
    ("mx2_sqrt_sumsq_p1_minus_1", "variable x[n]\nminimize sqrt(1 + sum_squares(x)) - 1", True, False),  # shifted norm of (1, x)
    ("mx2_log1p_norm", "variable x[n]\nminimize log(1 + norm2(x))", False, False),  # concave along rays away from 0
    ("mx2_norm_over_1p_norm", "variable x[n]\nminimize norm2(x) / (1 + norm2(x))", False, False),  # bounded, not constant
    ("mx2_softplus_diff", "variable x\nminimize softplus(x) - softplus(x - 1)", False, False),  # sigmoid-shaped, bounded
    ("mx2_softplus_sum_shift", "variable x\nminimize softplus(x) + softplus(-x)", True, False),  # sum of convex
    ("mx2_log_sigmoid", "variable x\nmaximize -softplus(-x)", False, True),  # log sigmoid is concave
    ("mx2_tanh_sq", "variable x[n]\nminimize sum(tanh(x) .^ 2)", False, False),  # bounded, not constant
    ("mx2_relu_net", "parameter A[k, n]\nparameter v[k] nonneg\nvariable x[n]\nminimize v' * relu(A * x)", True, False),  # nonneg combination of relu of affine (a one-layer net in its input)
    ("mx2_relu_net_vfree", "parameter A[k, n]\nparameter v[k]\nvariable x[n]\nminimize v' * relu(A * x)", False, False),  # a negative output weight makes a concave kink
    ("mx2_relu_net_weights", "parameter x[n]\nparameter v[k]\nvariable A[k, n]\nminimize v' * relu(A * x)", False, False),  # in the first-layer weights: v of either sign
    ("mx2_two_layer", "parameter x[n]\nvariable A[k, n]\nvariable v[k]\nminimize v' * relu(A * x)", False, False),  # bilinear in (v, A)
    # --- cancellations that hide a domain, and parameter exponents
    ("cx_x2_over_x", "variable x\nminimize x^2 / x", False, False),  # = x on x != 0: domain not convex
    ("cx_x2_over_x_pos", "variable x pos\nminimize x^2 / x", True, True),  # = x on x > 0
    ("cx_diff_quotient", "variable x\nminimize (x^2 - 1) / (x - 1)", False, False),  # = x + 1 on x != 1
    ("cx_x_times_inv", "variable x\nminimize x * (1 / x)", False, False),  # = 1 on x != 0
    ("cx_x_over_x", "variable x\nminimize x / x", False, False),  # = 1 on x != 0
    ("cx_x_over_x_pos", "variable x pos\nminimize x / x", True, True),  # = 1 on x > 0
    ("cx_inv_inv", "variable x\nminimize 1 / (1 / x)", False, False),  # = x on x != 0
    ("cx_inv_inv_pos", "variable x pos\nminimize 1 / (1 / x)", True, True),  # = x on x > 0
    ("cx_sum_x2_over_x", "variable x[n]\nminimize sum(x .^ 2 ./ x)", False, False),  # = sum(x) off the coordinate hyperplanes
    ("cx_tr_invX_X", "variable X[n, n]\nminimize tr(inv(X) * X)", False, False),  # = n where det X != 0: not a convex set
    ("cx_tr_invX_X_2", "variable X[2, 2]\nminimize tr(inv(X) * X)", False, False),  # = 2 where det X != 0: not a convex set (I and -I, midpoint 0)
    ("cx_tr_invX_X_plus_sq", "variable X[2, 2]\nminimize tr(inv(X) * X) + sum_squares(X)", False, False),  # = 2 + |X|^2 on det X != 0: domain not convex
    ("cx_sum_inv_inv", "variable X[2, 2]\nminimize sum(inv(inv(X)))", False, False),  # = sum(X) on det X != 0
    ("cx_det_times_det_inv_free", "variable X[2, 2]\nminimize det(X) * det(inv(X))", False, False),  # = 1 on det X != 0
    ("cx_logdet_invX_X", "variable X[2, 2]\nmaximize logdet(inv(X) * X)", False, False),  # = 0 on det X != 0
    ("cx_quad_invX_X", "parameter a[2]\nvariable X[2, 2]\nminimize a' * inv(X) * X * a", False, False),  # = a'a on det X != 0
    ("cx_tr_inv_minus_tr_inv", "variable X[2, 2]\nminimize tr(inv(X)) - tr(inv(X))", False, False),  # = 0 on det X != 0
    ("cx_tr_inv_cancel_plus_sq", "variable X[2, 2]\nminimize tr(inv(X)) - tr(inv(X)) + sum_squares(X)", False, False),  # = |X|^2 on det X != 0
    ("cx_sum_inv_cancel_sym", "variable X[2, 2] symmetric\nminimize sum(inv(X)) - sum(inv(X))", False, False),  # = 0 on symmetric X with det X != 0
    ("cx_invX_X_twice", "variable X[2, 2]\nminimize sum(inv(X) * X * inv(X) * X)", False, False),  # = sum(I) = 2 on det X != 0
    ("cx_tr_cyclic_inv", "parameter A[2, 2]\nvariable X[2, 2]\nminimize tr(inv(X) * A) - tr(A * inv(X))", False, False),  # = 0 (trace is cyclic) on det X != 0
    ("cx_xx_via_invX_X", "variable x[2]\nvariable X[2, 2]\nminimize x' * inv(X) * X * x", False, False),  # = x'x on det X != 0: domain not convex
    ("cx_det_inv_cancel", "variable X[2, 2]\nminimize det(inv(X)) - det(inv(X))", False, False),  # = 0 on det X != 0
    ("cx_tr_invX_X_plus_sq_sym3", "variable X[3, 3] symmetric\nminimize tr(inv(X) * X) + sum_squares(X)", False, False),  # = 3 + |X|^2 on symmetric X with det X != 0
    ("cx_logdet_plus_logdet_inv", "variable X[n, n] pd\nminimize logdet(X) + logdet(inv(X))", True, True),  # = 0 on the pd cone
    ("cx_det_times_det_inv", "variable X[n, n] pd\nminimize det(X) * det(inv(X))", True, True),  # = 1 on the pd cone
    ("cx_logdet_2X_minus", "variable X[n, n] pd\nminimize logdet(2 * X) - logdet(X)", True, True),  # = n log 2
    ("cx_logdet_XX_free", "variable X[n, n]\nmaximize logdet(X * X)", False, False),  # det(X)^2 > 0 means det X != 0: not convex
    ("cx_sqrt_sq_free", "variable x\nminimize sqrt(x)^2", True, True),  # = x on x >= 0
    ("cx_exp_log_free", "variable x\nminimize exp(log(x))", True, True),  # = x on x > 0
    ("cx_log_exp_sq", "variable x\nminimize log(exp(x^2))", True, False),  # = x^2
    ("cx_log_x2_half_pos", "variable x pos\nmaximize log(x^2) / 2", False, True),  # = log x
    ("cx_log_x2_half_free", "variable x\nmaximize log(x^2) / 2", False, False),  # = log|x| on x != 0
    ("cx_xy2_over_y2", "variable x\nvariable y pos\nminimize (x * y)^2 / y^2", True, False),  # = x^2
    ("cx_polarisation", "variable x[n]\nvariable y[n]\nminimize sum_squares(x - y) - sum_squares(x) - sum_squares(y)", False, False),  # = -2 x'y
    ("cx_quad_cancel_psd", "parameter A[n, n] psd\nvariable x[n]\nminimize x' * (A + eye) * x - x' * A * x", True, False),  # = x'x
    ("cx_lse_shift", "variable x[n]\nminimize log_sum_exp(x + 1) - log_sum_exp(x)", True, True),  # = 1
    ("cx_lse_2x_minus_2lse", "variable x[n]\nminimize log_sum_exp(2 * x) - 2 * log_sum_exp(x)", False, False),  # log of sum of squared softmax: bounded, not constant
    ("cx_c2x2_minus_cx2", "variable x\nparameter c\nminimize c^2 * x^2 - (c * x)^2", True, True),  # = 0
    ("cx_abs_c_minus_c", "variable x\nparameter c\nminimize abs(c) * x^2 - c * x^2", True, False),  # |c| - c >= 0; > 0 when c < 0
    ("cx_skew_form", "parameter A[n, n]\nvariable x[n]\nminimize x' * (A - A') * x", True, True),  # a skew form is 0
    ("cx_inv_inv_matrix", "parameter A[n, n] pd\nvariable x[n]\nminimize x' * inv(inv(A)) * x", True, False),  # = x'Ax
    ("cx_max_shift", "variable x[3]\nminimize max(x) - max(x + 1)", True, True),  # = -1
    ("cx_norm_2x_minus", "variable x[n]\nminimize norm2(2 * x) - norm2(x)", True, False),  # = norm2(x)
    ("cx_norm_minus_norm_neg", "variable x[n]\nminimize norm2(x) - norm2(-x)", True, True),  # = 0
    ("cx_sqrt_xx_sq", "variable x[n]\nminimize sqrt(x' * x)^2", True, False),  # = x'x
    ("cx_abs_log", "variable x pos\nminimize sqrt(log(x)^2)", False, False),  # = |log x|: concave for x > 1
    ("cx_pow_p_ge1_free", "variable x\nparameter p >= 1\nminimize x^p", False, False),  # p = 3 is admissible and x^3 is defined on all of R
    ("cx_pow_p_01_free", "variable x\nparameter p > 0 < 1\nmaximize x^p", False, True),  # a fractional power: domain x >= 0
    ("cx_pow_p_le_m1_free", "variable x\nparameter p <= -1\nminimize x^p", False, False),  # p = -1 is admissible: 1/x on x != 0
    ("cx_abs_pow_p", "variable x\nparameter p >= 1\nminimize abs(x)^p", True, False),  # |x|^p, p >= 1
]
