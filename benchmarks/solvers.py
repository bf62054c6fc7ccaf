"""Solvers against scikit-learn, SciPy and CVXPY: L2 logistic regression and matrix completion.

    python benchmarks/solvers.py [--quick] [--no-cvxpy] [--repeats 5] [--cvxpy-timeout 120]
                                 [--threads 1] [--md FILE] [--png FILE]

Logistic regression (generated, seeded data; 10,000 x 100 and 5,000 x 500): minimise
mean_i log(1 + exp(-y_i x_i.w)) + lam/2 ||w||^2 with lam = 1/m, which is scikit-learn's
LogisticRegression(C=1, fit_intercept=False) divided by m, to max|g| <= 1e-8 on this scaled
objective. Ours (newton, newton-cg, lbfgs, gd) via solvers.minimize; scikit-learn
newton-cholesky and lbfgs at several tol (1e-4 is its default); scipy.optimize.minimize
(method="trust-exact") on our compiled f, g and H (solvers.objective.Objective); CVXPY with
its default solver in a separate process with a time limit. Every row's objective is
compared with the reference, the lowest objective found. Times are medians of --repeats
calls, taken in interleaved rounds after one warm-up call per row; the warm-up is reported
as "first call" (for ours it includes the symbolic derivatives, compilation and the
convexity check: their caches are cleared before it). CVXPY runs once.

Matrix completion (m = n = 1000, rank 5, 30% observed, low rank + noise 0.01): block
Newton sweeps with solvers.alternate over U and V (examples/matrix_factorisation.tc); time
per sweep is the median difference of the history's time_s between consecutive U steps.

BLAS is limited to --threads threads (default 1) here and in the CVXPY process: on the
2-core development VM, multi-threaded OpenBLAS calls intermittently take 100 times longer
(a 360 x 360 Cholesky 500 ms instead of 3 ms), which would swamp every comparison.

Prints markdown tables and the targets, writes them to --md and saves a plot of the
objective gap against time for the logistic cases to --png (benchmarks/RESULTS_solvers.*;
with --quick, smaller sizes for a smoke test, files under the temporary directory).
"""
from __future__ import annotations

import argparse
import importlib.util
import datetime
import multiprocessing as mp
import pathlib
import queue as queues
import statistics
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
from convexcheck import certificate  # noqa: E402
from solvers import api as solvers_api, objective as solvers_objective  # noqa: E402
from solvers.data import prepare  # noqa: E402

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
    """Forget compiled programs and convexity verdicts: the next solve pays them again."""
    for cached in (solvers_api._verdict, solvers_objective._program, solvers_objective._compiled,
                   certificate._expanded):
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


def _cvxpy_child(X, y, lam, threads, out) -> None:
    import cvxpy as cp
    from threadpoolctl import threadpool_limits
    with threadpool_limits(threads):
        start = time.perf_counter()
        w = cp.Variable(X.shape[1])
        loss = cp.sum(cp.logistic(-cp.multiply(y, X @ w))) / X.shape[0]
        problem = cp.Problem(cp.Minimize(loss + lam / 2 * cp.sum_squares(w)))
        problem.solve()
        out.put((w.value, time.perf_counter() - start, problem.solver_stats.solver_name, problem.status))


def cvxpy_row(d: dict, timeout: float, threads: int) -> dict:
    """One CVXPY solve (modelling + default solver) in a fresh process, killed after `timeout`
    seconds of solving (plus a start-up allowance for the imports)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_cvxpy_child, args=(d["X"], d["y"], d["lam"], threads, out), daemon=True)
    child.start()
    try:
        w, seconds, solver, status = out.get(timeout=timeout + 30)
    except queues.Empty:
        child.terminate()
        child.join()
        return {"lib": "cvxpy", "setting": "default solver", "median": None, "note": f"timed out (> {timeout:g} s)"}
    child.join()
    row = {"lib": "cvxpy", "setting": f"default ({solver})", "median": seconds, "first": None, "nit": None,
           "note": "" if status == "optimal" else status}
    if seconds > timeout:
        row.update(median=None, note=f"timed out ({seconds:.0f} s > {timeout:g} s)")
    return {**row, "w": w} if w is not None else row


# --------------------------------------------------------------------------- logistic benchmark

def runners(d: dict) -> list[dict]:
    rows = [{"lib": "ours", "setting": m, "call": ours(d, m, 2000 if m == "gd" else None), "ours": True}
            for m in ("newton", "newton-cg", "lbfgs", "gd")]
    try:
        import sklearn as _  # noqa: F401
        rows += [{"lib": "sklearn", "setting": f"newton-cholesky tol={t:g}", "call": sklearn(d, "newton-cholesky", t),
                  "tol": t} for t in (1e-4, 1e-6, 1e-8, 1e-10)]
        rows += [{"lib": "sklearn", "setting": f"lbfgs tol={t:g}", "call": sklearn(d, "lbfgs", t)} for t in (1e-4, 1e-8)]
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
        rows.append(cvxpy_row(d, args.cvxpy_timeout, args.threads))
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
            "eval": float(np.median([it.eval_s for it in steps])), "solve": float(np.median([it.solve_s for it in steps])),
            "fun": r.fun, "gmax": max(float(np.abs(g).max()) for g in r.jac.values()), "message": r.message,
            "rmse": float(np.sqrt(np.mean(((r.x["U"] @ r.x["V"].T) - Y)[held] ** 2))),
            "convexity": r.convexity}


# --------------------------------------------------------------------------- report

def _s(seconds) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def report(cases: list[dict], mc: dict, args) -> str:
    lines = ["## L2 logistic regression (mean log-loss + lam/2 ||w||^2, lam = 1/m)", "",
             f"Median of {args.repeats} calls after one warm-up (first call); relative gap = (f - f_ref) / |f_ref|, "
             "f_ref the lowest objective found; max|g| in NumPy at the returned w.", "",
             "| case | solver | setting | first call | median time | iterations | objective | rel. gap | max abs g | note |",
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
              "", "## Ratios and targets", ""]
    return "\n".join(lines + targets(cases, mc, args)) + "\n"


def targets(cases: list[dict], mc: dict, args) -> list[str]:
    case = cases[0]
    lines = [] if not args.quick else ["(quick sizes: the targets are stated for the full run)", ""]
    for c in cases:
        newton, sk = row_of(c, "ours", "newton"), matched(c)
        for r in [sk] + [r for r in c["rows"] if r.get("tol") == 1e-8 and r is not sk]:
            if r is not None:
                lines.append(f"- {c['m']:,} x {c['n']}: ours newton / sklearn {r['setting']} = "
                             f"{newton['median'] / r['median']:.2f} (rel. gaps: ours {newton['gap']:.1e}, "
                             f"sklearn {r['gap']:.1e})")
        cv = [r for r in c["rows"] if r["lib"] == "cvxpy"]
        if cv:
            speed = f"{cv[0]['median'] / newton['median']:.0f}" if cv[0]["median"] else f"> {args.cvxpy_timeout / newton['median']:.0f} ({cv[0]['note']})"
            lines.append(f"- {c['m']:,} x {c['n']}: CVXPY / ours newton = {speed}")
    newton, sk = row_of(case, "ours", "newton"), matched(case)
    ok1 = sk is not None and newton["gap"] <= 1e-9 and newton["median"] <= sk["median"]
    cv = [r for r in case["rows"] if r["lib"] == "cvxpy"]
    ratio = (cv[0]["median"] or float("inf")) / newton["median"] if cv else None
    lines += ["", f"Targets ({case['m']:,} x {case['n']} logistic; {mc['size']} x {mc['size']} matrix completion):", "",
              f"- Newton time <= 1.0x sklearn newton-cholesky at rel. gap <= 1e-9: "
              f"{'holds' if ok1 else 'does not hold'}"
              + (f" ({_s(newton['median'])} vs {_s(sk['median'])} at {sk['setting']})" if sk else " (no sklearn row)"),
              f"- >= 100x faster than CVXPY: " + ("not measured (--no-cvxpy)" if ratio is None else
                                                 f"{'holds' if ratio >= 100 else 'does not hold'} ({ratio:.0f}x)"),
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
                ax.loglog(t, [max((v - ref) / abs(ref), FLOOR) for v in f], marker=".", label=f"{r['lib']} {r['setting']}")
        for lib, start in (("sklearn", "newton-cholesky"), ("sklearn", "lbfgs")):
            pts = [(r["median"], max(r["gap"], FLOOR)) for r in case["rows"] if r["lib"] == lib and r["setting"].startswith(start)]
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


def header(args, argv) -> str:
    import platform
    import scipy
    versions = [f"NumPy {np.__version__}", f"SciPy {scipy.__version__}"]
    for name in ("sklearn", "cvxpy"):
        try:
            versions.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            pass
    return (f"# benchmarks/solvers.py, measured {datetime.date.today()}\n\nCommand: "
            f"`{' '.join(['python benchmarks/solvers.py', *argv])}`\n\nMachine: {platform.processor() or platform.machine()}, 2 cores shared with other "
            f"work (noisy: medians, interleaved rounds); BLAS limited to {args.threads} thread(s) with threadpoolctl "
            f"in every library (multi-threaded OpenBLAS calls on this VM intermittently take 100x longer). "
            f"{', '.join(versions)}.\n\n")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test (< 30 s)")
    parser.add_argument("--no-cvxpy", action="store_true", help="skip CVXPY")
    parser.add_argument("--repeats", type=int, default=None, help="timed calls per row after the warm-up "
                        "(default 5; 3 with --quick)")
    parser.add_argument("--cvxpy-timeout", type=float, default=None, help="seconds (default 120; 20 with --quick)")
    parser.add_argument("--cap", type=float, default=30.0, help="no repeats for a row whose first call is slower")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (threadpoolctl)")
    parser.add_argument("--md", type=pathlib.Path, default=None, help="markdown output")
    parser.add_argument("--png", type=pathlib.Path, default=None, help="plot output")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("matplotlib") is None:             # say so before the run
        print("# matplotlib is not installed: no plot at the end (pip install '.[plot]')", file=sys.stderr)
    where = pathlib.Path(tempfile.gettempdir()) / "RESULTS_solvers_quick" if args.quick else ROOT / "benchmarks" / "RESULTS_solvers"
    args.md = args.md or where.with_suffix(".md")
    args.png = args.png or where.with_suffix(".png")
    args.cvxpy_timeout = args.cvxpy_timeout or (20.0 if args.quick else 120.0)
    args.repeats = args.repeats or (3 if args.quick else 5)
    from threadpoolctl import threadpool_limits
    logistic_sizes, mc_size = SIZES["quick" if args.quick else "full"]
    with threadpool_limits(args.threads):
        cases = []
        for m, n in logistic_sizes:
            print(f"# logistic {m} x {n}", file=sys.stderr)
            cases.append(logistic_case(m, n, args))
        print(f"# matrix completion {mc_size} x {mc_size}", file=sys.stderr)
        mc = matrix_completion(mc_size)
    text = report(cases, mc, args)
    print(text)
    args.md.write_text(header(args, argv) + text)
    print(f"# results written to {args.md}", file=sys.stderr)
    plot(cases, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
