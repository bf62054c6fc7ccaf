"""Solvers against scikit-learn, SciPy and CVXPY: logistic regression, constrained problems,
matrix completion, and the cold start of a fresh process.

    python benchmarks/solvers.py [--quick] [--no-cvxpy] [--no-constrained] [--no-cold-start]
                                 [--repeats 5] [--cold-runs 5] [--cvxpy-timeout 120]
                                 [--threads 1] [--save] [--md FILE] [--png FILE]

Every row reports the first call and the warm call separately, and every ratio is
cold-to-cold or warm-to-warm. Within this process our first call is timed after clearing
the in-process caches with the disk cache off (the parser tables are built once before
any timing); what a user waits for in a fresh process, with and without the disk cache,
is measured in subprocesses (benchmarks/solver_coldstart.py). Constrained cases:
benchmarks/solver_constrained.py.

Logistic regression (generated, seeded data; 10,000 x 100 and 5,000 x 500): minimise
mean_i log(1 + exp(-y_i x_i.w)) + lam/2 ||w||^2 with lam = 1/m, which is scikit-learn's
LogisticRegression(C=1, fit_intercept=False) divided by m, to max|g| <= 1e-8 on this scaled
objective. Ours (newton, newton-cg, lbfgs, gd) via solvers.minimize; scikit-learn
newton-cholesky and lbfgs at several tol (1e-4 is its default); scipy.optimize.minimize
(method="trust-exact") on our compiled f, g and H (solvers.objective.smooth.Objective); CVXPY with
its default solver in a separate process with a time limit. Every row's objective is
compared with the reference, the lowest objective found. Warm times are medians of
--repeats calls, taken in interleaved rounds after the first call of each row (for ours
the first call includes the symbolic derivatives, compilation and the convexity check:
their caches are cleared before it). CVXPY runs in a child process: its first call is
solve() of the freshly built problem, its warm calls re-solve the same problem object
(warm_start=False: the canonicalisation is reused, the solver starts afresh as ours does).

Matrix completion (m = n = 1000, rank 5, 30% observed, low rank + noise 0.01): block
Newton sweeps with solvers.alternate over U and V (examples/matrix_factorisation.tc); time
per sweep is the median difference of the history's time_s between consecutive U steps.

BLAS is limited to --threads threads (default 1) here and in the CVXPY process: on the
2-core development VM, multi-threaded OpenBLAS calls intermittently take 100 times longer
(a 360 x 360 Cholesky 500 ms instead of 3 ms), which would swamp every comparison.

Prints markdown tables and the targets. Only with --save are they written to --md, with
the commit measured, and a plot of the objective gap against time for the logistic cases
to --png (default benchmarks/RESULTS_solvers.*; with --quick, smaller sizes for a smoke
test, files under the temporary directory): a default run never overwrites results.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import multiprocessing as mp
import os
import pathlib
import queue as queues
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

# Run as a script, this folder is sys.path[0] and this file would shadow the solvers
# package: put the repository root there instead.
ROOT = pathlib.Path(__file__).resolve().parent.parent
if sys.path and pathlib.Path(sys.path[0] or ".").resolve() == ROOT / "benchmarks":
    sys.path[0] = str(ROOT)

import numpy as np  # noqa: E402

import solvers  # noqa: E402
from benchmarks import solver_coldstart, solver_constrained  # noqa: E402
from convexcheck.hessian import certificate  # noqa: E402
from convexcheck.problem.reader import parse_problem  # noqa: E402
from solvers.objective import smooth as solvers_objective  # noqa: E402
from solvers.task import convexity as solvers_convexity  # noqa: E402
from solvers.task.prepare import prepare  # noqa: E402

LOGISTIC = (ROOT / "examples" / "logistic_regression_l2.tc").read_text()   # the problem file
MC_FILE = ROOT / "examples" / "matrix_factorisation.tc"
GTOL = 1e-8
SIZES = {"full": ([(10_000, 100), (5_000, 500)], 1000), "quick": ([(2_000, 50), (1_000, 200)], 200)}
FLOOR = 1e-17                     # relative gaps of 0 are drawn here on the log scale


# --------------------------------------------------------------------------- logistic data

def logistic_data(m: int, n: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    w_true = 3.0 * rng.normal(size=n) / np.sqrt(n)
    y = np.where(rng.uniform(size=m) < 1.0 / (1.0 + np.exp(-X @ w_true)), 1.0, -1.0)
    return {"X": X, "y": y, "s": 1.0 / m, "lam": 1.0 / m}


def f_and_gmax(d: dict, w) -> tuple[float, float]:
    """The objective and max|g| at w, in plain NumPy (independent of the solvers)."""
    z = d["y"] * (d["X"] @ w)
    f = np.mean(np.logaddexp(0.0, -z)) + d["lam"] / 2 * (w @ w)
    g = -d["X"].T @ (d["y"] / (1.0 + np.exp(z))) / len(z) + d["lam"] * w
    return float(f), float(np.abs(g).max())


# --------------------------------------------------------------------------- runners: () -> (w, info)

def cold() -> None:
    """Forget parsed problems, compiled programs and convexity verdicts: the next solve
    pays them again. The parser's tables stay built, as in any process that has parsed
    once (so not every memo table: `tensorcalc.memo.clear()` would also rebuild those)."""
    for cached in (parse_problem, solvers_convexity._verdict, solvers_objective.compiled_program,
                   solvers_objective._compiled, certificate._expanded):
        cached.cache_clear()


def ours(d: dict, method: str, max_iter=None):
    def call():
        r = solvers.minimize(LOGISTIC, data=d, method=method, gtol=GTOL, max_iter=max_iter)
        note = "" if r.success else r.message
        return r.x["w"], {"nit": r.nit, "note": note, "trace": [(it.time_s, it.f) for it in r.history]}
    return call


def sklearn(d: dict, solver: str, tol: float):
    from sklearn.linear_model import LogisticRegression

    def call():
        model = LogisticRegression(solver=solver, C=1.0 / (d["lam"] * len(d["y"])), fit_intercept=False,
                                   tol=tol, max_iter=10_000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # ConvergenceWarning at loose tol
            model.fit(d["X"], d["y"])
        return model.coef_.ravel(), {"nit": int(np.max(model.n_iter_))}
    return call


def trust_exact(d: dict):
    from scipy.optimize import minimize

    def call():
        obj = solvers_objective.Objective(prepare(LOGISTIC, d), np)
        trace, start = [], time.perf_counter()

        def record(intermediate_result):
            trace.append((time.perf_counter() - start, intermediate_result.fun))
        r = minimize(obj.value_grad, np.zeros(obj.n), jac=True, hess=lambda z: obj.value_grad_hess(z)[2],
                     method="trust-exact", options={"gtol": GTOL}, callback=record)
        return r.x, {"nit": r.nit, "note": "" if r.success else r.message, "trace": trace}
    return call


def _cvxpy_child(X, y, lam, threads, repeats, cap, out) -> None:
    import cvxpy as cp
    from threadpoolctl import threadpool_limits
    with threadpool_limits(threads):
        start = time.perf_counter()
        w = cp.Variable(X.shape[1])
        loss = cp.sum(cp.logistic(-cp.multiply(y, X @ w))) / X.shape[0]
        problem = cp.Problem(cp.Minimize(loss + lam / 2 * cp.sum_squares(w)))
        problem.solve()
        first, times = time.perf_counter() - start, []
        for _ in range(repeats if first < cap else 0):
            start = time.perf_counter()
            problem.solve(warm_start=False)
            times.append(time.perf_counter() - start)
        warm = statistics.median(times) if times else None
        out.put((w.value, first, warm, problem.solver_stats.solver_name, problem.status))


def cvxpy_row(d: dict, timeout: float, threads: int, repeats: int, cap: float) -> dict:
    """CVXPY (modelling + default solver) in a fresh process: the first solve, then the
    median of `repeats` re-solves (none after a first call over `cap` seconds);
    killed after `timeout` seconds per solve (plus a start-up allowance for the imports)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_cvxpy_child, args=(d["X"], d["y"], d["lam"], threads, repeats, cap, out), daemon=True)
    child.start()
    try:
        w, first, warm, solver, status = out.get(timeout=timeout * (1 + repeats) + 30)
    except queues.Empty:
        child.terminate()
        child.join()
        return {"lib": "cvxpy", "setting": "default solver", "first": None, "median": None,
                "note": f"timed out (> {timeout:g} s)"}
    child.join()
    row = {"lib": "cvxpy", "setting": f"default ({solver})", "median": warm, "first": first, "nit": None,
           "note": ("" if status == "optimal" else status) + ("" if warm else "single call (first call over --cap)")}
    if first > timeout:
        row.update(median=None, note=f"timed out ({first:.0f} s > {timeout:g} s)")
    return {**row, "w": w} if w is not None else row


# --------------------------------------------------------------------------- logistic benchmark

def runners(d: dict) -> list[dict]:
    rows = [{"lib": "ours", "setting": m, "call": ours(d, m, 2000 if m == "gd" else None), "ours": True}
            for m in ("newton", "newton-cg", "lbfgs", "gd")]
    try:
        import sklearn as _  # noqa: F401
        rows += [{"lib": "sklearn", "setting": f"newton-cholesky tol={t:g}", "call": sklearn(d, "newton-cholesky", t),
                  "tol": t} for t in (1e-4, 1e-6, 1e-8, 1e-10)]
        rows += [{"lib": "sklearn", "setting": f"lbfgs tol={t:g}", "call": sklearn(d, "lbfgs", t)}
                 for t in (1e-4, 1e-8)]
    except ImportError:
        print("# scikit-learn not installed: its rows are skipped", file=sys.stderr)
    rows.append({"lib": "scipy", "setting": "trust-exact, our f/g/H", "call": trust_exact(d)})
    return rows


def timed(call) -> tuple[float, tuple]:
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def logistic_case(m: int, n: int, args) -> dict:
    d = logistic_data(m, n, seed=m + n)
    rows = runners(d)
    for row in rows:                                           # warm-up: first call
        if row.get("ours"):
            cold()
        row["first"], (row["w"], row["info"]) = timed(row["call"])
        row["times"] = []
    for _ in range(args.repeats):                              # interleaved rounds
        for row in rows:
            if row["first"] < args.cap:
                seconds, (row["w"], row["info"]) = timed(row["call"])
                row["times"].append(seconds)
    for row in rows:
        row["median"] = statistics.median(row["times"]) if row["times"] else row["first"]
        row["nit"], row["note"] = row["info"]["nit"], row["info"].get("note", "")
        row["note"] += "" if row["times"] else f"single call (first call > {args.cap:g} s)"
    if not args.no_cvxpy:
        print(f"# logistic {m} x {n}: CVXPY (up to {args.cvxpy_timeout:g} s)", file=sys.stderr)
        rows.append(cvxpy_row(d, args.cvxpy_timeout, args.threads, args.repeats, args.cap))
    for row in rows:
        if "w" in row:
            row["f"], row["gmax"] = f_and_gmax(d, row["w"])
    reference = min(row["f"] for row in rows if "f" in row)
    for row in rows:
        if "f" in row:
            row["gap"] = (row["f"] - reference) / abs(reference)
    return {"m": m, "n": n, "rows": rows, "reference": reference}


def matched(case: dict) -> dict | None:
    """The sklearn newton-cholesky row at the loosest tol within 1e-9 of the reference."""
    rows = [r for r in case["rows"] if "tol" in r and r.get("gap", 1.0) <= 1e-9]
    return max(rows, key=lambda r: r["tol"]) if rows else None


def row_of(case: dict, lib: str, setting: str) -> dict:
    return next(r for r in case["rows"] if r["lib"] == lib and r["setting"] == setting)


# --------------------------------------------------------------------------- matrix completion

def matrix_completion(size: int, rank: int = 5, observed: float = 0.3, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    Y = rng.normal(size=(size, rank)) @ rng.normal(size=(size, rank)).T + 0.01 * rng.normal(size=(size, size))
    M = (rng.uniform(size=(size, size)) < observed).astype(float)
    x0 = {"U": 0.1 * rng.normal(size=(size, rank)), "V": 0.1 * rng.normal(size=(size, rank))}
    data = {"M": M, "Y": Y * M}
    cold()
    first, _ = timed(lambda: solvers.alternate(str(MC_FILE), ["U", "V"], x0=x0, data=data, sweeps=1))
    r = solvers.alternate(str(MC_FILE), ["U", "V"], x0=x0, data=data, sweeps=100, gtol=GTOL)
    u_times = [it.time_s for it in r.history if it.block == "U"]
    steps = r.history
    held = M == 0
    return {"size": size, "rank": rank, "observed": M.mean(), "first": first, "sweeps": r.sweeps,
            "median_sweep": float(np.median(np.diff(u_times))), "mean_sweep": r.time_s / r.sweeps,
            "eval": float(np.median([it.eval_s for it in steps])),
            "solve": float(np.median([it.solve_s for it in steps])),
            "fun": r.fun, "gmax": max(float(np.abs(g).max()) for g in r.jac.values()), "message": r.message,
            "rmse": float(np.sqrt(np.mean(((r.x["U"] @ r.x["V"].T) - Y)[held] ** 2))),
            "convexity": r.convexity}


# --------------------------------------------------------------------------- report

def _s(seconds) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def report(cases: list[dict], mc: dict, constrained: list, cold_rows: list | None, args) -> str:
    lines = ["## L2 logistic regression (mean log-loss + lam/2 ||w||^2, lam = 1/m)", "",
             f"Warm call: median of {args.repeats} calls after the first call; relative gap = (f - f_ref) / |f_ref|, "
             "f_ref the lowest objective found; max|g| in NumPy at the returned w.", "",
             "| case | solver | setting | first call | warm call (median) | iterations | objective | rel. gap "
             "| max abs g | note |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for case in cases:
        for r in case["rows"]:
            f = f"{r['f']:.15g}" if "f" in r else "-"
            gap = f"{r['gap']:.1e}" if "gap" in r else "-"
            gmax = f"{r['gmax']:.1e}" if "gmax" in r else "-"
            lines.append(f"| {case['m']:,} x {case['n']} | {r['lib']} | {r['setting']} | {_s(r.get('first'))} | "
                         f"{_s(r['median'])} | {r.get('nit') or '-'} | {f} | {gap} | {gmax} | {r['note']} |")
    lines += ["", "## Matrix completion, block Newton sweeps (solvers.alternate over U, V)", "",
              "| m = n | rank | observed | first call (compile, check, 1 sweep) | sweeps | median sweep | "
              "mean sweep | eval / block step | solve / block step | objective | max abs g | held-out RMSE |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|",
              f"| {mc['size']} | {mc['rank']} | {mc['observed']:.1%} | {_s(mc['first'])} | {mc['sweeps']} | "
              f"{_s(mc['median_sweep'])} | {_s(mc['mean_sweep'])} | {_s(mc['eval'])} | {_s(mc['solve'])} | "
              f"{mc['fun']:.10g} | {mc['gmax']:.1e} | {mc['rmse']:.4g} |", "",
              f"{mc['message']}; block convexity {mc['convexity']}; noise level 0.01 (the held-out RMSE to reach).",
              ""]
    if constrained:
        lines += solver_constrained.report(constrained, args)
    if cold_rows:
        lines += solver_coldstart.report(cold_rows, cases[0]["m"], cases[0]["n"])
    lines += ["## Ratios (cold-to-cold and warm-to-warm) and targets", ""]
    lines += targets(cases, mc, args)
    if constrained:
        lines += ["", "Constrained cases (target: our warm call at most CVXPY's default solver's, and SciPy's "
                  "nnls on NNLS):", ""] + solver_constrained.targets(constrained)
    if cold_rows:
        lines += ["", "Cold start (target: a fresh process with a warm disk cache within 1.5x of scikit-learn's "
                  "first call):", "", solver_coldstart.target(cold_rows)]
    return "\n".join(lines) + "\n"


def _ratio(a, b) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def targets(cases: list[dict], mc: dict, args) -> list[str]:
    """Ratios other / ours newton, first call to first call and warm to warm."""
    lines = [] if not args.quick else ["(quick sizes: the targets are stated for the full run)", ""]
    for c in cases:
        newton, sk = row_of(c, "ours", "newton"), matched(c)
        others = [sk] + [r for r in c["rows"] if r.get("tol") == 1e-8 and r is not sk]
        others += [r for r in c["rows"] if r["lib"] == "cvxpy"]
        for r in others:
            if r is None:
                continue
            if r["median"] is None:
                lines.append(f"- {c['m']:,} x {c['n']}: {r['lib']} {r['setting']}: {r['note']}")
                continue
            lines.append(f"- {c['m']:,} x {c['n']}: {r['lib']} {r['setting']} / ours newton: first call "
                         f"{_ratio(r['first'], newton['first'])} ({_s(r['first'])} / {_s(newton['first'])}), warm "
                         f"{_ratio(r['median'], newton['median'])} ({_s(r['median'])} / {_s(newton['median'])}); "
                         f"rel. gaps {r.get('gap', float('nan')):.1e} / {newton['gap']:.1e}")
    case = cases[0]
    newton, sk = row_of(case, "ours", "newton"), matched(case)
    ok1 = sk is not None and newton["gap"] <= 1e-9 and newton["median"] <= sk["median"]
    lines += ["", f"Targets ({case['m']:,} x {case['n']} logistic; {mc['size']} x {mc['size']} matrix completion):", "",
              f"- Newton warm call <= 1.0x sklearn newton-cholesky's warm call at rel. gap <= 1e-9: "
              f"{'holds' if ok1 else 'does not hold'}"
              + (f" ({_s(newton['median'])} vs {_s(sk['median'])} at {sk['setting']})" if sk else " (no sklearn row)"),
              f"- matrix completion sweep < 100 ms: {'holds' if mc['median_sweep'] < 0.1 else 'does not hold'} "
              f"({_s(mc['median_sweep'])} median)"]
    return lines


def plot(cases: list[dict], path: pathlib.Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# matplotlib not installed: no plot (pip install '.[plot]')", file=sys.stderr)
        return
    fig, axes = plt.subplots(1, len(cases), figsize=(6.5 * len(cases), 5.4), squeeze=False)
    for ax, case in zip(axes[0], cases):
        ref = case["reference"]
        for r in case["rows"]:
            trace = r.get("info", {}).get("trace")
            if trace:
                t, f = zip(*trace)
                ax.loglog(t, [max((v - ref) / abs(ref), FLOOR) for v in f], marker=".",
                          label=f"{r['lib']} {r['setting']}")
        for lib, start in (("sklearn", "newton-cholesky"), ("sklearn", "lbfgs")):
            pts = [(r["median"], max(r["gap"], FLOOR)) for r in case["rows"]
                   if r["lib"] == lib and r["setting"].startswith(start)]
            if pts:
                ax.loglog(*zip(*pts), marker="s", linestyle="--", label=f"sklearn {start}, one point per tol (median)")
        for r in case["rows"]:
            if r["lib"] == "cvxpy" and r["median"]:
                ax.loglog([r["median"]], [max(r["gap"], FLOOR)], marker="*", markersize=14, linestyle="", label="cvxpy")
        ax.set_title(f"logistic {case['m']:,} x {case['n']}")
        ax.set_xlabel("seconds (ours, scipy: each iterate, last timed call)")
        ax.set_ylabel(f"relative objective gap (0 drawn at {FLOOR:g})")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=110)
    print(f"# plot saved to {path}", file=sys.stderr)


def commit() -> str:
    """The commit measured, with '+ local edits' when the measured sources differ from it."""
    def git(*a):
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = [line for line in git("status", "--porcelain", "--", "solvers", "tensorcalc", "convexcheck",
                                  "benchmarks").splitlines() if line.endswith((".py", ".lark"))]   # not results
    return head + (" + local edits" if dirty else "")


def header(args, argv) -> str:
    import platform

    import scipy
    versions = [f"NumPy {np.__version__}", f"SciPy {scipy.__version__}"]
    for name in ("sklearn", "cvxpy"):
        try:
            versions.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            pass
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return (f"# benchmarks/solvers.py, commit {commit()}, measured {datetime.date.today()}\n\nCommand: "
            f"`{' '.join(['python benchmarks/solvers.py', *argv])}`\n\n"
            f"Machine: {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores shared with other work (load average at the end {load}: noisy; ratios are taken "
            f"within one run, medians of interleaved rounds); BLAS limited to {args.threads} thread(s) "
            "with threadpoolctl "
            f"in every library (multi-threaded OpenBLAS calls on this VM intermittently take 100x longer). "
            f"{', '.join(versions)}.\n\n")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--no-cvxpy", action="store_true", help="skip CVXPY")
    parser.add_argument("--no-constrained", action="store_true", help="skip the constrained cases")
    parser.add_argument("--no-cold-start", action="store_true", help="skip the fresh-process measurements")
    parser.add_argument("--repeats", type=int, default=None, help="timed calls per row after the first "
                        "(default 5; 3 with --quick)")
    parser.add_argument("--cold-runs", type=int, default=None, help="fresh processes per cold-start setting "
                        "(default 5; 2 with --quick)")
    parser.add_argument("--cvxpy-timeout", type=float, default=None, help="seconds (default 120; 20 with --quick)")
    parser.add_argument("--cap", type=float, default=30.0, help="no repeats for a row whose first call is slower")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (threadpoolctl)")
    parser.add_argument("--save", action="store_true", help="write the tables (--md) and the plot (--png)")
    parser.add_argument("--md", type=pathlib.Path, default=None, help="markdown output with --save")
    parser.add_argument("--png", type=pathlib.Path, default=None, help="plot output with --save")
    args = parser.parse_args(argv)
    if args.save and importlib.util.find_spec("matplotlib") is None:       # say so before the run
        print("# matplotlib is not installed: no plot at the end (pip install '.[plot]')", file=sys.stderr)
    where = (pathlib.Path(tempfile.gettempdir()) / "RESULTS_solvers_quick" if args.quick
             else ROOT / "benchmarks" / "RESULTS_solvers")
    args.md = args.md or where.with_suffix(".md")
    args.png = args.png or where.with_suffix(".png")
    args.cvxpy_timeout = args.cvxpy_timeout or (20.0 if args.quick else 120.0)
    args.repeats = args.repeats or (3 if args.quick else 5)
    args.cold_runs = args.cold_runs or (2 if args.quick else 5)
    os.environ["CONVEXCHECK_CACHE"] = "0"           # in-process first calls never read the disk cache
    solvers.minimize(LOGISTIC, data=logistic_data(20, 3, 0))     # parser tables and imports, before any timing
    from threadpoolctl import threadpool_limits
    logistic_sizes, mc_size = SIZES["quick" if args.quick else "full"]
    with threadpool_limits(args.threads):
        cases = []
        for m, n in logistic_sizes:
            print(f"# logistic {m} x {n}", file=sys.stderr)
            cases.append(logistic_case(m, n, args))
        constrained = []
        for case in ([] if args.no_constrained else solver_constrained.cases(args.quick)):
            print(f"# {case['name']}", file=sys.stderr)
            constrained.append((case, solver_constrained.measure(case, args, cold)))
        print(f"# matrix completion {mc_size} x {mc_size}", file=sys.stderr)
        mc = matrix_completion(mc_size)
    cold_rows = None
    if not args.no_cold_start:
        print(f"# cold start, {args.cold_runs} fresh processes per setting", file=sys.stderr)
        cold_rows = solver_coldstart.measure(*logistic_sizes[0], args.cold_runs, args.threads)
    text = report(cases, mc, constrained, cold_rows, args)
    print(text)
    if args.save:
        args.md.write_text(header(args, argv) + text)
        print(f"# results written to {args.md}", file=sys.stderr)
        plot(cases, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
