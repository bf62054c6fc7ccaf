"""Solver honesty (issue 24): random small convex QPs from ill-posed families, and a check,
independent of the solvers, of what each result claims.

Every problem is one template (so convexcheck's verdict is computed once):

    minimise  |A x - y|^2 + q'x   subject to  G x <= h,  E x == e

with data built by NumPy from a seed (`case`), in one of five families whose truth is
known by construction: "scaled" (columns and rows scaled over eight decades), "singular"
(two columns nearly collinear, cond up to 1e16; q in the range of A', so a minimiser
exists), "redundant" (E of rank below its rows, e consistent), all three feasible (a
point x_f meets every row) with a minimiser; "infeasible" (two rows g'x <= -s, -g'x <= -s);
"unbounded" (a zero column j of A, untouched by G and E, with q_j = -1).

The rule (`judge`): an exception is documented (tensorcalc.TensorCalcError) or a bug;
status 0 must satisfy the KKT conditions as checked here (`kkt`: stationarity with
multipliers recovered by bounded least squares, each capped by complementary slackness,
and primal feasibility, each to a tolerance scaled by the data), else it is a false
success; status 5 (no minimiser) only for "unbounded", status 6 (infeasible) only for
"infeasible"; any other status is an honest stop.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import lsq_linear

import solvers
import tensorcalc as tc

TEXT = """parameter A[p, n]
parameter y[p]
parameter q[n]
parameter G[m, n]
parameter h[m]
parameter E[k, n]
parameter e[k]
variable x[n]
minimize sum((A * x - y) .^ 2) + q' * x
subject to
G * x <= h
E * x == e
"""
FREE = TEXT[:TEXT.index("subject to")].replace(
    "parameter G[m, n]\nparameter h[m]\nparameter E[k, n]\nparameter e[k]\n", "")   # no constraints
FAMILIES = ("scaled", "singular", "redundant", "infeasible", "unbounded")
TRUTH = {"scaled": "optimal", "singular": "optimal", "redundant": "optimal", "infeasible": "infeasible",
         "unbounded": "unbounded"}
METHODS = tuple(solvers.METHODS)
MAX_ITER = {"newton": 100, "newton-cg": 300, "lbfgs": 300, "gd": 300}   # honesty, not convergence
EPS = float(np.finfo(float).eps)
GTOL = 1e-8
COMP = 1e-8          # complementary slackness: lam_i (h - G x)_i <= COMP (1 + |f|) (the solvers
                     # stop at a duality gap of 1e-10 (1 + |f|))


@dataclass(frozen=True)
class Case:
    """One input: the family, the method, the data by parameter name."""

    seed: int
    family: str
    method: str
    data: dict

    def __repr__(self) -> str:
        return f"Case(seed={self.seed}, family={self.family!r}, method={self.method!r})"


def case(seed: int) -> Case:
    """The input of `seed`: family and method cycle with it, the data is drawn from it."""
    rng = np.random.default_rng(seed)
    family = FAMILIES[seed % len(FAMILIES)]
    method = METHODS[(seed // len(FAMILIES)) % len(METHODS)]
    return Case(seed, family, method, BUILD[family](rng))


def _base(rng, n: int | None = None) -> tuple[dict, np.ndarray]:
    """Feasible data: A of full column rank, rows G, E through a point x_f (some active);
    and x_f."""
    n = n or int(rng.integers(2, 6))
    p, m, k = int(rng.integers(n, n + 4)), int(rng.integers(1, 5)), int(rng.integers(1, n))
    A = rng.standard_normal((p, n))
    x_f = rng.standard_normal(n)
    G, E = rng.standard_normal((m, n)), rng.standard_normal((k, n))
    slack = np.where(rng.random(m) < 0.5, 0.0, rng.random(m))
    return {"A": A, "y": rng.standard_normal(p), "q": rng.standard_normal(n) * 0.1,
            "G": G, "h": G @ x_f + slack, "E": E, "e": E @ x_f}, x_f


def _scaled(rng) -> dict:
    d, _ = _base(rng)
    d["A"] = d["A"] * 10.0 ** rng.uniform(-4, 4, d["A"].shape[1])
    d["q"] = d["q"] * 10.0 ** rng.uniform(-4, 4)
    rows = 10.0 ** rng.uniform(-3, 3, d["G"].shape[0])
    d["G"], d["h"] = d["G"] * rows[:, None], d["h"] * rows
    return d


def _singular(rng) -> dict:
    d, _ = _base(rng)
    A = d["A"]
    A[:, 1] = A[:, 0] + 10.0 ** rng.uniform(-16, -6) * rng.standard_normal(A.shape[0])
    d["q"] = A.T @ (0.1 * rng.standard_normal(A.shape[0]))          # in the range of A': bounded
    d["y"] = d["y"] * 10.0 ** rng.uniform(-2, 2)
    return d if rng.random() < 0.5 else {k: d[k] for k in ("A", "y", "q")}     # half unconstrained


def _redundant(rng) -> dict:
    d, x_f = _base(rng, int(rng.integers(3, 7)))
    n = x_f.size
    r = int(rng.integers(1, n))
    E = rng.standard_normal((int(rng.integers(r + 1, n + 4)), r)) @ rng.standard_normal((r, n))
    E = E * 10.0 ** rng.uniform(-3, 3, (E.shape[0], 1))
    d["E"], d["e"] = E, E @ x_f
    return d


def _infeasible(rng) -> dict:
    d, _ = _base(rng)
    g = rng.standard_normal(d["A"].shape[1])
    s = float(np.abs(g).max()) * 10.0 ** rng.uniform(-2, 1)
    d["G"] = np.vstack([d["G"], g, -g])
    d["h"] = np.concatenate([d["h"], [-s, -s]])
    return d


def _unbounded(rng) -> dict:
    d, x_f = _base(rng)
    j = int(rng.integers(0, x_f.size))
    slack = d["h"] - d["G"] @ x_f
    for name in ("A", "G", "E"):
        d[name][:, j] = 0.0
    d["h"], d["e"] = d["G"] @ x_f + slack, d["E"] @ x_f           # x_f still meets every row
    d["q"][j] = -1.0
    return d


BUILD = {"scaled": _scaled, "singular": _singular, "redundant": _redundant, "infeasible": _infeasible,
         "unbounded": _unbounded}


def solve(c: Case):
    text = TEXT if "G" in c.data else FREE
    return solvers.minimize(text, data=c.data, method=c.method, max_iter=MAX_ITER[c.method], gtol=GTOL)


def kkt(d: dict, x: np.ndarray) -> str:
    """'' where the KKT conditions hold at x to tolerances scaled by the data, else what
    fails. Multipliers: bounded least squares (0 <= lam_i <= COMP (1 + |f|) / (h - G x)_i,
    nu free)."""
    n = x.size
    none = {"G": np.zeros((0, n)), "h": np.zeros(0), "E": np.zeros((0, n)), "e": np.zeros(0)}
    A, y, q, G, h, E, e = ({**none, **d}[k] for k in ("A", "y", "q", "G", "h", "E", "e"))
    size = 1.0 + float(np.abs(x).max())
    r = A @ x - y
    grad = 2 * A.T @ r + q
    row = np.abs(G).sum(axis=1) * size + np.abs(h)                 # the rows' rounding scales
    scale = max(row.max(initial=0.0), (np.abs(E).sum(axis=1) * size + np.abs(e)).max(initial=0.0))
    feas = 100 * GTOL + 1e3 * EPS * float(scale)
    over, off = float((G @ x - h).max(initial=0.0)), float(np.abs(E @ x - e).max(initial=0.0))
    if over > feas or off > feas:
        return f"infeasible x: max(G x - h) = {over:.3g}, max|E x - e| = {off:.3g} > {feas:.3g}"
    # each row's multiplier is capped by complementary slackness, lam_i (h - G x)_i <= COMP:
    # rows at their bound take any lam >= 0, rows with room only what the gap allows
    f = float(r @ r + q @ x)
    room = np.maximum(h - G @ x, 0.0)
    cap = np.where(room > 0, COMP * (1 + abs(f)) / np.where(room > 0, room, 1.0), np.inf)
    M = np.hstack([G.T, E.T])
    low = np.concatenate([np.zeros(G.shape[0]), np.full(E.shape[0], -np.inf)])
    high = np.concatenate([cap, np.full(E.shape[0], np.inf)])
    mult = _bounded_fit(M, -grad, low, high)
    resid = grad + M @ mult
    gscale = 2 * np.abs(A).T @ (np.abs(A) @ np.abs(x) + np.abs(y)) + np.abs(q) + np.abs(M) @ np.abs(mult)
    tol = 10 * GTOL + 1e3 * EPS * n * float(gscale.max())
    if float(np.abs(resid).max()) > tol:
        return f"not stationary: max|grad + J' mult| = {float(np.abs(resid).max()):.3g} > {tol:.3g}"
    return ""


class Dishonest(AssertionError):
    """A result that claims what is not so (raised by the fuzz target, tests/fuzz.py)."""


def _bounded_fit(M, b, low, high) -> np.ndarray:
    """argmin |M v - b| over low <= v <= high (BVLS), on M's columns scaled to unit length
    (rows of G a million apart in size otherwise cost BVLS digits)."""
    if not M.shape[1]:
        return np.zeros(0)
    norms = np.linalg.norm(M, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    fit = lsq_linear(M / norms, b, bounds=(low * norms, high * norms), method="bvls", tol=1e-15)
    return fit.x / norms


@dataclass
class Verdict:
    """'ok' (a verified success, a true claim, or an honest stop), 'documented' (a
    documented error), 'bug' (an undocumented exception or a false claim), 'false
    success'; and what happened."""

    kind: str
    status: int | None = None
    detail: str = ""


def judge(c: Case) -> Verdict:
    try:
        result = solve(c)
    except tc.TensorCalcError as exc:
        return Verdict("documented", None, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - anything else escaping is what this looks for
        return Verdict("bug", None, f"{type(exc).__name__}: {exc}")
    truth, status = TRUTH[c.family], int(result.status)
    if status == 0:
        why = kkt(c.data, np.asarray(result.x["x"], dtype=float))
        return Verdict("false success", 0, why + f"; {result.message}") if why else Verdict("ok", 0)
    if status == 5 and truth != "unbounded":
        return Verdict("bug", 5, f"'no minimiser' for a {truth} problem: {result.message}")
    if status == 6 and truth != "infeasible":
        return Verdict("bug", 6, f"'infeasible' for a {truth} problem: {result.message}")
    return Verdict("ok", status, result.message)
