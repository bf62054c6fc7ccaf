"""The constrained cases of benchmarks/solvers.py: ours against CVXPY and SciPy.

Each case is problem text for `solvers.minimize`, its data, an independent NumPy
objective and constraint violation (used for every row), and builders for CVXPY and
SciPy. Every solver's first call and warm calls are timed separately:

- ours: the first call after clearing the in-process caches with the disk cache off
  (parse tables already built by then: the fresh-process cost is in the cold-start
  table), then the median of --repeats calls;
- CVXPY (default solver, Clarabel, SCS named): in one child process per case (imports
  excluded); the first call is `solve()` on a freshly built problem (canonicalisation
  included), warm calls re-solve that same problem object with warm_start=False (the
  canonicalisation is reused, the solver starts afresh as ours does); the child is stopped after
  --cvxpy-timeout seconds and the rows left say so;
- SciPy (`nnls`, `trust-constr` with exact derivatives): first call and median.
"""
from __future__ import annotations

import multiprocessing as mp
import pathlib
import queue as queues
import statistics
import time
import warnings

import numpy as np

import solvers

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
NNLS, PORTFOLIO, MLE, MAXENT, BALL, LASSO, SVM = (
    (EXAMPLES / f"{name}.tc").read_text()
    for name in ("nnls", "portfolio", "covariance_mle", "maximum_entropy", "logistic_ball", "lasso", "svm_hinge"))
CVXPY_SOLVERS = (None, "CLARABEL", "SCS")


# --------------------------------------------------------------------------- cases

def portfolio(n: int) -> dict:
    rng = np.random.default_rng(n)
    F = rng.standard_normal((n, 3))
    S = F @ F.T / 3 + np.diag(rng.uniform(0.01, 0.1, n))
    mu = rng.uniform(0.0, 0.2, n)
    d = {"S": (S + S.T) / 2, "mu": mu, "rmin": 0.6 * float(mu.max())}
    return {"name": f"portfolio n = {n:,}", "text": PORTFOLIO, "data": d, "var": "w", "sense": 1,
            "f": lambda w: float(w @ d["S"] @ w),
            "viol": lambda w: max(0.0, -w.min(), abs(w.sum() - 1), d["rmin"] - d["mu"] @ w)}


def nnls(m: int, n: int) -> dict:
    rng = np.random.default_rng(m + n)
    d = {"A": rng.standard_normal((m, n)), "b": rng.standard_normal(m)}
    return {"name": f"NNLS {m:,} x {n}", "text": NNLS, "data": d, "var": "x", "sense": 1,
            "f": lambda x: float(np.sum((d["A"] @ x - d["b"]) ** 2)), "viol": lambda x: max(0.0, -x.min())}


def mle(p: int) -> dict:
    rng = np.random.default_rng(p)
    d = {"C": np.cov(rng.standard_normal((2 * p, p)).T), "lam": 0.05}

    def f(X):
        sign, logdet = np.linalg.slogdet(X)
        return float(np.sum(d["C"] * X) - logdet + d["lam"] * np.sum(X * X)) if sign > 0 else np.inf
    return {"name": f"inverse-covariance MLE p = {p}", "text": MLE, "data": d, "var": "X", "sense": 1, "f": f,
            "viol": lambda X: max(0.0, -np.linalg.eigvalsh((X + X.T) / 2).min(), np.abs(X - X.T).max())}


def maxent(n: int) -> dict:
    a = np.linspace(-1, 1, n)
    d = {"a": a, "m1": 0.3, "m2": 0.35}

    def f(p):
        return float(-np.sum(p[p > 0] * np.log(p[p > 0])))
    return {"name": f"maximum entropy n = {n:,}", "text": MAXENT, "data": d, "var": "p", "sense": -1, "f": f,
            "viol": lambda p: max(0.0, -p.min(), abs(p.sum() - 1), abs(a @ p - 0.3), (a * a) @ p - 0.35)}


def ball(m: int, n: int) -> dict:
    rng = np.random.default_rng(m + n)
    X = rng.standard_normal((m, n))
    y = np.sign(X @ rng.standard_normal(n) + 0.3 * rng.standard_normal(m))
    d = {"X": X, "y": y, "r": 1.0}
    return {"name": f"logistic in a norm ball {m:,} x {n}", "text": BALL, "data": d, "var": "w", "sense": 1,
            "f": lambda w: float(np.sum(np.logaddexp(0.0, -y * (X @ w)))), "viol": lambda w: max(0.0, w @ w - 1.0)}


def lasso(m: int, n: int) -> dict:
    rng = np.random.default_rng(m + n)
    X = rng.standard_normal((m, n))
    w0 = np.zeros(n)
    w0[:n // 20] = rng.standard_normal(n // 20)
    y = X @ w0 + 0.1 * rng.standard_normal(m)
    d = {"X": X, "y": y, "lam": 0.1 * np.sqrt(m)}
    return {"name": f"lasso {m:,} x {n}", "text": LASSO, "data": d, "var": "w", "sense": 1, "target": False,
            "f": lambda w: float(0.5 * np.sum((X @ w - y) ** 2) + d["lam"] * np.abs(w).sum()),
            "viol": lambda w: 0.0}


def svm(m: int, n: int) -> dict:
    rng = np.random.default_rng(m + n + 1)
    X = rng.standard_normal((m, n))
    y = np.sign(X @ rng.standard_normal(n) + 0.5 * rng.standard_normal(m))
    d = {"X": X, "y": y, "lam": 0.1}
    return {"name": f"hinge-loss SVM {m:,} x {n}", "text": SVM, "data": d, "var": ("w", "b"), "sense": 1,
            "target": False,
            "f": lambda wb: float(np.sum(np.maximum(0.0, 1 - y * (X @ wb[:-1] + wb[-1]))) + 0.1 * wb[:-1] @ wb[:-1]),
            "viol": lambda wb: 0.0}


def cases(quick: bool) -> list[dict]:
    if quick:
        return [portfolio(50), nnls(200, 50), mle(10), maxent(100), ball(300, 20), lasso(200, 50), svm(300, 10)]
    return [portfolio(100), portfolio(1000), nnls(200, 50), nnls(5000, 500), mle(15), mle(100),
            maxent(1000), ball(2000, 100), lasso(1000, 500), svm(2000, 50)]


# --------------------------------------------------------------------------- CVXPY (child process)

def cvxpy_problem(case: dict):
    import cvxpy as cp
    d, name = case["data"], case["name"]
    if name.startswith("portfolio"):
        w = cp.Variable(len(d["mu"]), nonneg=True)
        return w, cp.Problem(cp.Minimize(cp.quad_form(w, cp.psd_wrap(d["S"]))),
                             [cp.sum(w) == 1, d["mu"] @ w >= d["rmin"]])
    if name.startswith("NNLS"):
        x = cp.Variable(d["A"].shape[1], nonneg=True)
        return x, cp.Problem(cp.Minimize(cp.sum_squares(d["A"] @ x - d["b"])))
    if name.startswith("inverse"):
        X = cp.Variable(d["C"].shape, PSD=True)
        return X, cp.Problem(cp.Minimize(cp.trace(d["C"] @ X) - cp.log_det(X) + d["lam"] * cp.sum_squares(X)))
    if name.startswith("maximum"):
        p, a = cp.Variable(len(d["a"])), d["a"]
        return p, cp.Problem(cp.Maximize(cp.sum(cp.entr(p))),
                             [cp.sum(p) == 1, a @ p == d["m1"], (a * a) @ p <= d["m2"]])
    if name.startswith("lasso"):
        w = cp.Variable(d["X"].shape[1])
        return w, cp.Problem(cp.Minimize(0.5 * cp.sum_squares(d["X"] @ w - d["y"]) + d["lam"] * cp.norm1(w)))
    if name.startswith("hinge"):
        wb = cp.Variable(d["X"].shape[1] + 1)
        margin = cp.multiply(d["y"], d["X"] @ wb[:-1] + wb[-1])
        return wb, cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - margin)) + d["lam"] * cp.sum_squares(wb[:-1])))
    w = cp.Variable(d["X"].shape[1])
    return w, cp.Problem(cp.Minimize(cp.sum(cp.logistic(-cp.multiply(d["y"], d["X"] @ w)))),
                         [cp.sum_squares(w) <= d["r"]])


def _cvxpy_child(case: dict, repeats: int, cap: float, threads: int, out) -> None:
    from threadpoolctl import threadpool_limits
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for solver in CVXPY_SOLVERS:
            var, problem = cvxpy_problem(case)
            kwargs = {} if solver is None else {"solver": solver}
            start = time.perf_counter()
            try:
                problem.solve(**kwargs)
            except Exception as err:  # noqa: BLE001 - a solver failure is a row, not a crash
                out.put((solver, None, None, None, f"failed: {type(err).__name__}"))
                continue
            first, times = time.perf_counter() - start, []
            for _ in range(repeats if first < cap else 0):
                start = time.perf_counter()
                problem.solve(warm_start=False, **kwargs)
                times.append(time.perf_counter() - start)
            out.put((solver or f"default ({problem.solver_stats.solver_name})", var.value, first,
                     statistics.median(times) if times else None,
                     "" if problem.status == "optimal" else problem.status))


def cvxpy_rows(case: dict, repeats: int, cap: float, timeout: float, threads: int) -> list[dict]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_cvxpy_child, args=(_picklable(case), repeats, cap, threads, out), daemon=True)
    child.start()
    rows, deadline = [], time.perf_counter() + timeout * len(CVXPY_SOLVERS) + 30     # 30 s for the imports
    while len(rows) < len(CVXPY_SOLVERS) and time.perf_counter() < deadline:
        try:
            setting, x, first, warm, note = out.get(timeout=1.0)
        except queues.Empty:
            if not child.is_alive() and out.empty():
                break
            continue
        rows.append({"lib": "cvxpy", "setting": setting, "first": first, "warm": warm, "note": note,
                     **({"x": np.asarray(x)} if x is not None else {})})
    if child.is_alive():
        child.terminate()
    child.join(timeout=5)
    stopped = child.exitcode in (None, -15)
    why = f"not finished: the child was stopped after {timeout * len(CVXPY_SOLVERS) + 30:g} s" if stopped \
        else f"child exit code {child.exitcode}"
    missing = CVXPY_SOLVERS[len(rows):]
    return rows + [{"lib": "cvxpy", "setting": s or "default", "first": None, "warm": None,
                    "note": why if k == 0 else "not run (the child was stopped before)"} for k, s in enumerate(missing)]


def _picklable(case: dict) -> dict:
    return {k: v for k, v in case.items() if k in ("name", "data")}


# --------------------------------------------------------------------------- SciPy

def scipy_call(case: dict, cap: float):
    """A call () -> (x, note) for the SciPy row of `case`, or (None, reason)."""
    import scipy.optimize as so
    d, name = case["data"], case["name"]
    if name.startswith("NNLS"):
        return lambda: (so.nnls(d["A"], d["b"])[0], ""), "nnls"
    if name.startswith("inverse"):
        return None, "trust-constr: no positive-definite cone constraint; not run"
    if name.startswith("lasso"):
        return _sklearn_lasso(d), "sklearn Lasso (coordinate descent, tol 1e-10)"
    if name.startswith("hinge"):
        return None, "no SciPy or scikit-learn solver of this objective (LinearSVC penalises the intercept); not run"
    fun, cons, bounds, x0 = _trust_constr_parts(case)

    def call():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = so.minimize(fun, x0, jac=True, hess=fun.hess, method="trust-constr", constraints=cons,
                            bounds=bounds, options={"gtol": 1e-10, "xtol": 1e-12, "maxiter": 5000},
                            callback=lambda *a: time.perf_counter() - start > cap)
        stopped = time.perf_counter() - start > cap
        return r.x, (f"stopped at {cap:g} s" if stopped else "" if r.success else r.message)
    return call, "trust-constr (exact derivatives)"


def _sklearn_lasso(d: dict):
    from sklearn.linear_model import Lasso
    m = d["X"].shape[0]
    return lambda: (Lasso(alpha=d["lam"] / m, fit_intercept=False, tol=1e-10, max_iter=10**6)
                    .fit(d["X"], d["y"]).coef_, "")


def _trust_constr_parts(case: dict):
    import scipy.optimize as so
    d, name = case["data"], case["name"]
    if name.startswith("portfolio"):
        S, n = d["S"], len(d["mu"])
        fun = _FG(lambda w: (w @ S @ w, 2 * S @ w), lambda w: 2 * S)
        cons = [so.LinearConstraint(np.vstack([np.ones(n), d["mu"]]), [1, d["rmin"]], [1, np.inf])]
        return fun, cons, so.Bounds(0, np.inf), np.full(n, 1.0 / n)
    if name.startswith("maximum"):
        a, n = d["a"], len(d["a"])
        fun = _FG(lambda p: (np.sum(p * np.log(p)), np.log(p) + 1), lambda p: np.diag(1 / p))
        cons = [so.LinearConstraint(np.vstack([np.ones(n), a, a * a]), [1, d["m1"], -np.inf], [1, d["m1"], d["m2"]])]
        return fun, cons, so.Bounds(1e-300, np.inf), np.full(n, 1.0 / n)
    X, y = d["X"], d["y"]

    def fg(w):
        z = y * (X @ w)
        return np.sum(np.logaddexp(0, -z)), -X.T @ (y / (1 + np.exp(z)))

    def h(w):
        s = 1 / (1 + np.exp(-y * (X @ w)))
        Z = np.sqrt(s * (1 - s))[:, None] * X
        return Z.T @ Z
    ball = so.NonlinearConstraint(lambda w: w @ w, -np.inf, d["r"], jac=lambda w: 2 * w[None],
                                  hess=lambda w, v: 2 * v[0] * np.eye(len(w)))
    return _FG(fg, h), [ball], None, np.zeros(X.shape[1])


class _FG:
    """f and g from one evaluation (jac=True), the Hessian alongside."""

    def __init__(self, fg, hess):
        self.fg, self.hess = fg, hess

    def __call__(self, x):
        return self.fg(x)


# --------------------------------------------------------------------------- ours

def ours_call(case: dict):
    def call():
        r = solvers.minimize(case["text"], data=case["data"], method="auto")
        names = case["var"] if isinstance(case["var"], tuple) else (case["var"],)
        x = np.concatenate([np.ravel(r.x[n]) for n in names]) if len(names) > 1 else np.asarray(r.x[names[0]])
        return x, (f"{r.method}, {r.nit} it" + ("" if r.success else f"; {r.message}"))
    return call


# --------------------------------------------------------------------------- one case

def measure(case: dict, args, cold) -> list[dict]:
    """Rows (lib, setting, first, warm, x, note) for `case`; `cold()` clears our caches."""
    rows = []
    call = ours_call(case)
    cold()
    rows.append(_timed_row("ours", "auto", call, args.repeats))
    sp, setting = scipy_call(case, args.cap)
    lib = "sklearn" if setting.startswith("sklearn") else "scipy"
    if sp is None:
        rows.append({"lib": lib, "setting": "-", "first": None, "warm": None, "note": setting})
    else:
        fast = setting == "nnls" or lib == "sklearn"                 # cheap enough to repeat
        rows.append(_timed_row(lib, setting, sp, args.repeats if fast else 1))
    if not args.no_cvxpy:
        rows += cvxpy_rows(case, args.repeats, args.cap, args.cvxpy_timeout, args.threads)
    _score(case, rows)
    return rows


def _timed_row(lib: str, setting: str, call, repeats: int) -> dict:
    start = time.perf_counter()
    x, note = call()
    first, times = time.perf_counter() - start, []
    for _ in range(repeats):
        start = time.perf_counter()
        x, note = call()
        times.append(time.perf_counter() - start)
    return {"lib": lib, "setting": setting, "first": first, "warm": statistics.median(times) if times else None,
            "x": x, "note": note}


def _score(case: dict, rows: list[dict]) -> None:
    """Objective and violation of every row in NumPy; the reference is the best objective
    among rows feasible to 1e-6; the gap is how much worse each row is, relative."""
    for r in rows:
        if r.get("x") is not None:
            x = np.asarray(r["x"], dtype=float)
            x = x if case["var"] == "X" else x.ravel()
            r["f"], r["viol"] = case["f"](x), case["viol"](x)
    feasible = [r["f"] for r in rows if "f" in r and r["viol"] <= 1e-6 and np.isfinite(r["f"])]
    case["reference"] = (max if case["sense"] < 0 else min)(feasible) if feasible else None
    for r in rows:
        if "f" in r and case["reference"] is not None:
            r["gap"] = case["sense"] * (r["f"] - case["reference"]) / abs(case["reference"])


# --------------------------------------------------------------------------- report

def _s(seconds) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def report(results: list[tuple[dict, list[dict]]], args) -> list[str]:
    lines = ["## Constrained problems", "",
             "First call: ours after clearing the in-process caches, disk cache off (what a script's first solve "
             "costs once the package is imported); CVXPY: solve() of a freshly built problem (canonicalisation "
             "included); SciPy: the first call. Warm: median of "
             f"{args.repeats} further calls (CVXPY re-solving the same problem object, warm_start=False). "
             "Objective and violation "
             "computed in NumPy for every row; gap = how much worse than the best row feasible to 1e-6, relative.", "",
             "| case | solver | setting | first call | warm call | objective | rel. gap | violation | note |",
             "|---|---|---|---|---|---|---|---|---|"]
    for case, rows in results:
        for r in rows:
            f = f"{r['f']:.12g}" if "f" in r else "-"
            gap = f"{r['gap'] + 0.0:.1e}" if "gap" in r else "-"
            viol = f"{r['viol']:.1e}" if "viol" in r else "-"
            lines.append(f"| {case['name']} | {r['lib']} | {r['setting']} | {_s(r['first'])} | {_s(r['warm'])} | "
                         f"{f} | {gap} | {viol} | {r['note']} |")
    return lines + [""]


def targets(results: list[tuple[dict, list[dict]]]) -> list[str]:
    """Warm-to-warm and cold-to-cold ratios against CVXPY's default solver (and SciPy's nnls)."""
    lines = []
    for case, rows in results:
        ours = rows[0]
        others = [r for r in rows if r["lib"] == "cvxpy" and r["setting"].startswith("default")]
        others += [r for r in rows if r["lib"] == "scipy" and r["setting"] == "nnls"]
        for other in others:
            if other["warm"] is None or ours["warm"] is None:
                lines.append(f"- {case['name']}: vs {other['lib']} {other['setting']}: not measured ({other['note']})")
                continue
            ok = ours["warm"] <= other["warm"] and ours.get("gap", 1) <= 1e-6 and ours.get("viol", 1) <= 1e-8
            verdict = (f"target ours <= theirs at gap <= 1e-6 and violation <= 1e-8: "
                       f"{'holds' if ok else 'does not hold'}"
                       if case.get("target", True) else "not one of issue 16's cases: no target")
            lines.append(f"- {case['name']}: warm ours {_s(ours['warm'])} vs {other['lib']} {other['setting']} "
                         f"{_s(other['warm'])} ({other['warm'] / ours['warm']:.1f}x; {verdict}); first call ours "
                         f"{_s(ours['first'])} vs {_s(other['first'])} ({other['first'] / ours['first']:.1f}x)")
    return lines
