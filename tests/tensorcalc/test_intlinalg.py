"""Tests of tensorcalc.gather.intlinalg: Smith normal form and integer equations (Urban & van der
Smagt 2017, sec. 4.1, Alg. 1-2) and Fourier-Motzkin elimination (sec. 4.2, Alg. 3).

Determinants, ranks and null spaces used as references are computed exactly here with
Fractions, independently of the module."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorcalc.gather.inequalities import fourier_motzkin, integer_bounds, integer_points
from tensorcalc.gather.intlinalg import cokernel, ext_gcd, hermite, kernel, pseudo_inverse, smith, solve

# ---------------------------------------------------------------- exact reference helpers

def mul(A, B):
    return np.asarray(A, dtype=object) @ np.asarray(B, dtype=object)


def rref(M):
    """(reduced rows as Fractions, pivot columns) of the matrix M (list of rows)."""
    R = [[Fraction(v) for v in row] for row in M]
    pivots, r = [], 0
    for c in range(len(R[0]) if R else 0):
        p = next((i for i in range(r, len(R)) if R[i][c] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        R[r] = [v / R[r][c] for v in R[r]]
        for i in range(len(R)):
            if i != r and R[i][c] != 0:
                R[i] = [a - R[i][c] * b for a, b in zip(R[i], R[r])]
        pivots.append(c)
        r += 1
    return R, pivots


def rank(M):
    return len(rref(np.asarray(M, dtype=object).tolist())[1])


def det(M):
    """Exact determinant by Fraction elimination."""
    R, d = [[Fraction(v) for v in row] for row in np.asarray(M, dtype=object).tolist()], Fraction(1)
    for c in range(len(R)):
        p = next((i for i in range(c, len(R)) if R[i][c] != 0), None)
        if p is None:
            return 0
        if p != c:
            R[c], R[p], d = R[p], R[c], -d
        d *= R[c][c]
        for i in range(c + 1, len(R)):
            R[i] = [a - R[i][c] / R[c][c] * b for a, b in zip(R[i], R[c])]
    return d


def primitive_null_vectors(A):
    """Rational null space basis of A, each vector scaled to a primitive integer vector."""
    n_cols = len(A[0])
    R, pivots = rref(A)
    out = []
    for free in (c for c in range(n_cols) if c not in pivots):
        v = [Fraction(0)] * n_cols
        v[free] = Fraction(1)
        for row, p in zip(R, pivots):
            v[p] = -row[free]
        scale = math.lcm(*(x.denominator for x in v))
        ints = [int(x * scale) for x in v]
        g = math.gcd(*ints)
        out.append([x // g for x in ints])
    return out


# ---------------------------------------------------------------- strategies

@st.composite
def full_matrices(draw, max_n=4, max_m=4, bound=6):
    n, m = draw(st.integers(1, max_n)), draw(st.integers(1, max_m))
    return draw(st.lists(st.lists(st.integers(-bound, bound), min_size=m, max_size=m),
                         min_size=n, max_size=n))


@st.composite
def low_rank_matrices(draw, max_n=4, max_m=4):
    """n x r times r x m products: rank <= r, often rank-deficient."""
    n, m = draw(st.integers(1, max_n)), draw(st.integers(1, max_m))
    r = draw(st.integers(0, min(n, m)))
    P = np.array(draw(st.lists(st.lists(st.integers(-3, 3), min_size=r, max_size=r),
                               min_size=n, max_size=n)), dtype=object).reshape(n, r)
    Q = np.array(draw(st.lists(st.lists(st.integers(-3, 3), min_size=m, max_size=m),
                               min_size=r, max_size=r)), dtype=object).reshape(r, m)
    return mul(P, Q).tolist()


zero_matrices = st.tuples(st.integers(1, 4), st.integers(1, 4)).map(
    lambda s: [[0] * s[1] for _ in range(s[0])])
matrices = st.one_of(full_matrices(), low_rank_matrices(), zero_matrices,
                     full_matrices(max_n=1), full_matrices(max_m=1))


# ---------------------------------------------------------------- Euclid (Alg. 2)

@given(st.integers(-10**30, 10**30), st.integers(-10**30, 10**30))
def test_ext_gcd_bezout_identity(a, b):
    g, s, t = ext_gcd(a, b)
    assert g == math.gcd(a, b) and g == s * a + t * b


@pytest.mark.parametrize("a, b", [(0, 0), (0, 7), (-7, 0), (0, -7), (12, 18), (-12, 18), (5, 5)])
def test_ext_gcd_zeros_and_signs(a, b):
    g, s, t = ext_gcd(a, b)
    assert g == math.gcd(a, b) >= 0 and g == s * a + t * b


# ---------------------------------------------------------------- Smith normal form (Alg. 1)

def check_smith(A):
    A = np.asarray(A, dtype=object)
    n, m = A.shape
    S, U, V, R = smith(A)
    assert S.shape == (n, m) and U.shape == (n, n) and V.shape == (m, m)
    assert (S == mul(mul(U, A), V)).all()
    assert abs(det(U)) == 1 and abs(det(V)) == 1
    diag = [S[i, i] for i in range(min(n, m))]
    assert all(S[i, j] == 0 for i in range(n) for j in range(m) if i != j)
    assert all(d > 0 for d in diag[:R]) and all(d == 0 for d in diag[R:])
    assert all(diag[i + 1] % diag[i] == 0 for i in range(R - 1))
    assert all(type(v) is int for v in [*S.flat, *U.flat, *V.flat])
    return R


@settings(max_examples=examples(80), deadline=None)
@given(matrices)
def test_smith_properties(A):
    R = check_smith(A)
    assert R == np.linalg.matrix_rank(np.array(A, dtype=float)) == rank(A)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (1, 4), (4, 1), (3, 2)])
def test_smith_degenerate_shapes(shape):
    assert check_smith(np.zeros(shape, dtype=int)) == 0
    ramp = np.arange(1, shape[0] * shape[1] + 1).reshape(shape)
    assert check_smith(ramp) == (rank(ramp) if 0 not in shape else 0)


def test_smith_known_example_and_chain_repair():
    assert smith([[2, 4, 4], [-6, 6, 12], [10, -4, -16]]).S.tolist() == \
        [[2, 0, 0], [0, 6, 0], [0, 0, 12]]
    # already diagonal but 2 does not divide 3: Alg. 1 steps 34-37 repair the chain
    assert smith([[2, 0], [0, 3]]).S.tolist() == [[1, 0], [0, 6]]
    assert smith([[6, 0, 0], [0, 10, 0], [0, 0, 15]]).S.tolist() == \
        [[1, 0, 0], [0, 30, 0], [0, 0, 30]]


def test_large_entries_do_not_overflow():
    big = 10**25
    S = smith([[big, 3 * big], [2 * big + 1, 7]]).S
    assert S[0, 0] * S[1, 1] == abs(big * 7 - 3 * big * (2 * big + 1))


# ---------------------------------------------------------------- pseudo-inverse, kernel, cokernel

@settings(max_examples=examples(50), deadline=None)
@given(matrices)
def test_pseudo_inverse_AIA_equals_A(A):
    N, den = pseudo_inverse(A)
    assert type(den) is int and den > 0 and N.shape == (len(A[0]), len(A))
    inverse = np.array([[Fraction(v, den) for v in row] for row in N.tolist()], dtype=object)
    inverse = inverse.reshape(N.shape)
    assert (mul(mul(A, inverse), A) == np.asarray(A, dtype=object)).all()


def test_pseudo_inverse_paper_fig3():
    N, den = pseudo_inverse([[1, -2]])
    assert (N.T.tolist(), den) == ([[1, 0]], 1)
    assert kernel([[1, -2]]).T.tolist() == [[2, 1]]


@settings(max_examples=examples(60), deadline=None)
@given(matrices, st.data())
def test_kernel_is_a_saturated_integer_basis(A, data):
    m, R = len(A[0]), smith(A).rank
    K = kernel(A)
    assert K.shape == (m, m - R) and (mul(A, K) == 0).all()
    assert rank(K.T) == m - R                    # full column rank
    nulls = primitive_null_vectors(A)
    coeffs = data.draw(st.lists(st.integers(-3, 3), min_size=len(nulls), max_size=len(nulls)))
    combo = [sum(c * v[i] for c, v in zip(coeffs, nulls)) for i in range(m)]
    for x in nulls + [combo]:        # primitive integer null vectors lie in the lattice of K
        z, _ = solve(K, x)
        assert z is not None and (mul(K, z) == np.array(x, dtype=object)).all()


@settings(max_examples=examples(50), deadline=None)
@given(matrices)
def test_cokernel_annihilates_A(A):
    C = cokernel(A)
    R = smith(A).rank
    assert C.shape == (len(A) - R, len(A)) and (mul(C, A) == 0).all()
    assert rank(C) == len(A) - R


# ---------------------------------------------------------------- solve

@settings(max_examples=examples(60), deadline=None)
@given(matrices, st.data())
def test_solve_recovers_all_solutions(A, data):
    m = len(A[0])
    x = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=m, max_size=m)), dtype=object)
    b = mul(A, x)
    x0, K = solve(A, b)
    assert x0 is not None and x0.shape == (m,) and (mul(A, x0) == b).all()
    z, _ = solve(K, x - x0)             # x = x0 + K z for an integer z
    assert z is not None


@pytest.mark.parametrize("A, b", [([[2]], [1]), ([[2, 4]], [3]), ([[1], [1]], [0, 1]),
                                  ([[2, 0], [0, 3]], [2, 1]), ([[0, 0]], [1])])
def test_solve_reports_no_integer_solution(A, b):
    assert solve(A, b)[0] is None


def test_solve_paper_fig4_pseudo_inverse():
    x0, K = solve([[1, -2, -2]], [3])
    assert (mul([[1, -2, -2]], x0) == [3]).all() and K.shape == (3, 2)


# ---------------------------------------------------------------- Hermite form

@settings(max_examples=examples(60), deadline=None)
@given(matrices)
def test_hermite_echelon_form(A):
    H, W = hermite(A)
    assert (H == mul(W, A)).all() and abs(det(W)) == 1
    leads = [next((j for j, v in enumerate(row) if v != 0), None) for row in H.tolist()]
    nonzero = [c for c in leads if c is not None]
    assert leads == nonzero + [None] * (len(leads) - len(nonzero))     # zero rows last
    assert nonzero == sorted(set(nonzero)) and len(nonzero) == rank(A)
    for r, c in enumerate(nonzero):
        assert H[r, c] > 0 and all(0 <= H[i, c] < H[r, c] for i in range(r))


# ---------------------------------------------------------------- Fourier-Motzkin (Alg. 3)

@st.composite
def boxed_systems(draw):
    """(A, b): the box -3 <= x <= 3 plus 1-3 random inequalities, rows shuffled."""
    m = draw(st.integers(1, 3))
    box = [([int(i == j) * s for j in range(m)], -3) for i in range(m) for s in (1, -1)]
    extra = draw(st.lists(st.tuples(st.lists(st.integers(-3, 3), min_size=m, max_size=m),
                                    st.integers(-6, 6)), min_size=1, max_size=3))
    rows = draw(st.permutations(box + extra))
    return [r for r, _ in rows], [c for _, c in rows]


def brute_force(A, b, lo=-3, hi=3):
    m = len(A[0])
    return {x for x in itertools.product(range(lo, hi + 1), repeat=m)
            if all(sum(a * v for a, v in zip(row, x)) >= c for row, c in zip(A, b))}


@settings(max_examples=examples(80), deadline=None)
@given(boxed_systems())
def test_integer_points_equal_brute_force(system):
    A, b = system
    points = integer_points(A, b)
    assert len(points) == len(set(points)) and set(points) == brute_force(A, b)


def real_point(elim, b):
    """x from the exact (not rounded) FM bounds, x_{m-1} first: the lower bound if any."""
    x = []
    for k in reversed(range(len(elim.lower))):
        (Lb, Lx), (Hb, Hx) = elim.lower[k], elim.upper[k]
        lows = list(mul(Lb, b) + mul(Lx, np.array(x, dtype=object)))
        highs = list(mul(Hb, b) + mul(Hx, np.array(x, dtype=object)))
        assert not lows or not highs or max(lows) <= min(highs)
        x.insert(0, max(lows) if lows else min(highs) if highs else Fraction(0))
    return x


@settings(max_examples=examples(80), deadline=None)
@given(st.integers(1, 3).flatmap(lambda m: st.tuples(
    st.lists(st.lists(st.integers(-3, 3), min_size=m, max_size=m), min_size=1, max_size=5),
    st.lists(st.integers(-5, 5), min_size=5, max_size=5))))
def test_feasibility_matrix_decides_real_solvability(system):
    A, b = system
    b = np.array(b[:len(A)], dtype=object)
    elim = fourier_motzkin(A)
    F = elim.feasible
    # each row of F is a non-negative combination y of the rows with y A = 0 (a Farkas
    # certificate), so F b > 0 somewhere proves A x >= b infeasible ...
    assert all(v >= 0 for v in F.flat) and (mul(F, A) == 0).all()
    if all(v <= 0 for v in mul(F, b)):
        x = real_point(elim, b)      # ... and F b <= 0 lets the FM bounds build a solution
        assert all(v >= c for v, c in zip(mul(A, x), b))
    for Bb, Bx in elim.lower + elim.upper:   # rows are normalised: duplicates are equal
        assert len({tuple(r) for r in np.hstack([Bb, Bx]).tolist()}) == Bb.shape[0]
    scaled = {tuple(v / max(r, key=abs) for v in r) for r in F.tolist()}
    assert len(scaled) == F.shape[0]


def test_feasibility_hand_cases():
    infeasible = fourier_motzkin([[1], [-1]])            # x >= 1 and x <= 0
    assert max(mul(infeasible.feasible, [1, 0])) > 0
    assert integer_points([[1], [-1]], [1, 0]) == []
    half = fourier_motzkin([[2], [-2]])                  # 2x = 1: real, not integer
    assert all(v <= 0 for v in mul(half.feasible, [1, -1]))
    assert integer_points([[2], [-2]], [1, -1]) == []
    assert integer_points([[2], [-2]], [2, -2]) == [(1,)]
    assert integer_points(np.zeros((2, 0), dtype=int), [0, -1]) == [()]
    assert integer_points(np.zeros((2, 0), dtype=int), [1, -1]) == []


def test_rational_coefficients():
    A = [[Fraction(1, 2)], [Fraction(-1, 3)]]            # x >= 2 and x <= 6
    assert integer_points(A, [1, -2]) == [(2,), (3,), (4,), (5,), (6,)]


def test_unbounded_variable_is_named():
    with pytest.raises(ValueError, match="x_0 is unbounded above"):
        integer_points([[1, 0], [0, 1], [0, -1]], [0, 0, -2])
    with pytest.raises(ValueError, match="x_1 is unbounded below"):
        integer_points([[1, 0], [-1, 0], [0, -1]], [0, 0, 0])


def test_paper_fig4_parallelogram():
    """Fig. 4: I = (1 0 0)^T, K = [[2,0],[1,1],[2,1]], beta = 3. With the ranges
    0 <= alpha_1 <= 5, 0 <= alpha_2 <= 4 of the figure's alpha_1-alpha_2 cut, eqs. (43)-(44)
    give Sigma(3) = {-1 <= z2 <= 5, max(-1, -z2) <= z1 <= min(1, 4 - z2)}, 15 points.
    The caption's A = (1 -2 -2) does not annihilate this K; A = (1 2 -2) does, and is
    used for the final check."""
    K, Ib = np.array([[2, 0], [1, 1]]), np.array([3, 0])
    lo, hi = np.array([0, 0]), np.array([5, 4])
    A = np.vstack([K, -K])
    b = np.concatenate([lo - Ib, -hi + Ib])
    elim = fourier_motzkin(A)
    assert integer_bounds(elim, b, 1, []) == (-1, 5)
    for z2 in range(-1, 6):
        assert integer_bounds(elim, b, 0, [z2]) == (max(-1, -z2), min(1, 4 - z2))
    points = integer_points(A, b)
    assert len(points) == 15
    alphas = [(3 + 2 * z1, z1 + z2, 2 * z1 + z2) for z1, z2 in points]
    assert len(set(alphas)) == 15
    assert (mul([[1, 2, -2]], [[2, 0], [1, 1], [2, 1]]) == 0).all()
    assert all(0 <= a1 <= 5 and 0 <= a2 <= 4 and a1 + 2 * a2 - 2 * a3 == 3
               for a1, a2, a3 in alphas)


@pytest.mark.parametrize("beta", range(8))
def test_tensoralgdiff_shifted_index_bounds(beta):
    """z = (j, k) with 0 <= beta - k <= 2, 0 <= j <= 3, 0 <= k <= 4 (by hand): the outer
    variable k ranges over max(0, beta - 2) .. min(4, beta), and j over 0..3."""
    A = [[0, -1], [0, 1], [1, 0], [-1, 0], [0, 1], [0, -1]]
    b = [-beta, beta - 2, 0, -3, 0, -4]
    elim = fourier_motzkin(A)
    assert integer_bounds(elim, b, 1, []) == (max(0, beta - 2), min(4, beta))
    assert integer_bounds(elim, b, 0, [1]) == (0, 3)
    count = max(0, min(4, beta) - max(0, beta - 2) + 1) * 4
    assert len(integer_points(A, b)) == count


# ---------------------------------------------------------------- errors

def test_errors_name_problem_and_fix():
    with pytest.raises(ValueError, match=r"A\[0, 1\] = 0.5 is not Integral.*not floats"):
        smith([[1, 0.5]])
    with pytest.raises(ValueError, match="2-D matrix.*np.zeros"):
        kernel([1, 2, 3])
    with pytest.raises(ValueError, match="b has 1 entries but the matrix has 2 rows"):
        solve([[1], [2]], [1])
    with pytest.raises(ValueError, match="x_later has 0 values"):
        integer_bounds(fourier_motzkin([[1, 1]]), [0], 0, [])
    with pytest.raises(ValueError, match="not Rational"):
        fourier_motzkin([[1.5]])
