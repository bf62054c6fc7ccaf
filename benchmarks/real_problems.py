"""Real problems: CVXPY code as people write it, solved by `solvers.minimize(problem, method="auto")`
from the default start, against CVXPY with Clarabel at tight tolerances in the same process.

    python benchmarks/real_problems.py [--only NAME[,NAME]] [--kind KIND[,KIND]] [--small]
                                       [--timeout 300] [--threads 1] [--repeats 3] [--list] [--json [FILE]]
                                       [--save] [--md FILE] [--plot [FILE]]

The problems are benchmarks/real_cases.py (`--list` prints them). Each runs in a fresh child
process (a guard: a case past --timeout seconds is killed and reported, and the run goes on),
with the disk cache off (CONVEXCHECK_CACHE=0) and BLAS limited to --threads threads. The child
first solves one tiny problem with each library (imports, parser tables, Clarabel's first
call), then builds the case and times, in this order: CVXPY's first call (`problem.solve()`,
canonicalisation included) and warm call (the same problem object solved again), our first
call (translation, analysis, compilation and solve) and our warm call (the same problem
object given to `minimize` again). A warm time is the median of --repeats calls (fewer once
they add up to WARM_BUDGET seconds): single calls of a millisecond are mostly noise.

Our answer is checked independently: its values are assigned to the CVXPY variables, and
CVXPY evaluates the objective and each constraint's violation, also of the atoms' domains
and the variables' attributes (nonneg, PSD), each scaled by max(1, the largest entry of the
constraint's sides). Verdicts: solved (success, scaled violation <= 1e-7 and
|f - f_clarabel| <= 1e-6 max(1, |f_clarabel|)); wrong (success that fails the check, or a
claim of status 5 'unbounded' or 6 'infeasible' where CVXPY finds an optimum); failed: the
status, the exception's class, or timeout. Ratios are ours over CVXPY's, first to first and
warm to warm. Messages of failures are listed below the table.

Only with --save is the table written to --md (default benchmarks/RESULTS_real_problems.md,
with the commit measured); --plot saves a PNG of the ratios (default the .md's name with .png).
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time

# Run as a script, this folder is sys.path[0] and this file's neighbours would shadow the
# solvers package: put the repository root there instead.
ROOT = pathlib.Path(__file__).resolve().parent.parent
if sys.path and pathlib.Path(sys.path[0] or ".").resolve() == ROOT / "benchmarks":
    sys.path[0] = str(ROOT)

from benchmarks.real_cases import CASES  # noqa: E402

TOLERANCES = ("tol_gap_abs", "tol_gap_rel", "tol_feas")
TIGHTS = (1e-10, 1e-9, None)       # Clarabel's tolerances, tightest first (None: its defaults, 1e-8)
VIOLATION, REL_ERROR = 1e-7, 1e-6
FALSE_CLAIMS = (5, 6)              # unbounded, infeasible: wrong where CVXPY finds an optimum
WARM_BUDGET = 2.0                  # seconds of warm calls after which no more are timed
MD = ROOT / "benchmarks" / "RESULTS_real_problems.md"


# --------------------------------------------------------------------------- the check

def attribute_violation(v) -> float:
    """How far the value of CVXPY variable v is from its attributes (nonneg, nonpos, PSD, NSD,
    symmetric), in the value's units (0 inside)."""
    import numpy as np
    val, a = np.asarray(v.value, dtype=float), v.attributes
    worst = 0.0
    if a.get("nonneg") or a.get("pos"):
        worst = max(worst, float(np.max(-val)))
    if a.get("nonpos") or a.get("neg"):
        worst = max(worst, float(np.max(val)))
    if a.get("PSD") or a.get("NSD") or a.get("symmetric"):
        worst = max(worst, float(np.max(np.abs(val - val.T))))
        sym, sign = (val + val.T) / 2, (-1.0 if a.get("NSD") else 1.0)
        if a.get("PSD") or a.get("NSD"):
            worst = max(worst, float(-np.linalg.eigvalsh(sign * sym)[0]))
    return worst


def scaled_violation(constraint) -> float:
    """CVXPY's violation of `constraint` at the variables' values over max(1, the largest entry
    of its sides); inf where a side cannot be evaluated."""
    import numpy as np
    sides = [np.asarray(arg.value, dtype=float) for arg in constraint.args]
    if any(not np.all(np.isfinite(s)) for s in sides):
        return math.inf
    scale = max([1.0] + [float(np.max(np.abs(s))) for s in sides if s.size])
    return float(np.max(constraint.violation())) / scale


def check(problem, x: dict) -> dict:
    """Assign our x (by variable name) to the problem's variables; CVXPY's objective and the
    largest scaled violation of its constraints, the atoms' domains and the attributes (inf
    where x or any violation is not finite: NaN never passes as small)."""
    import numpy as np
    for v in problem.variables():
        if v.name() not in x:
            raise KeyError(f"the result has no variable {v.name()!r} (it has {', '.join(x)})")
        v.save_value(np.asarray(x[v.name()], dtype=float).reshape(v.shape))   # attributes checked below
    if not all(np.all(np.isfinite(v.value)) for v in problem.variables()):
        return {"f": math.nan, "violation": math.inf}
    domains = list(problem.objective.expr.domain)
    for c in problem.constraints:
        domains += [d for arg in c.args for d in arg.domain]
    found = [attribute_violation(v) / max(1.0, float(np.max(np.abs(v.value)))) for v in problem.variables()]
    found += [scaled_violation(c) for c in [*problem.constraints, *domains]]
    f = problem.objective.value
    return {"f": float(f) if f is not None else math.nan,
            "violation": max([0.0] + [v if not math.isnan(v) else math.inf for v in found])}


# --------------------------------------------------------------------------- the child process

def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0][:200]}"


def _emit(**row) -> None:
    print(json.dumps(row), flush=True)


def _warm_up() -> None:
    """One tiny solve with each library, so that the first call of a case does not pay for
    imports, parser tables or Clarabel's loading."""
    import cvxpy as cp

    import solvers
    x = cp.Variable(2, name="warmup")
    tiny = cp.Problem(cp.Minimize(cp.sum_squares(x - 1)), [x >= 0])
    tiny.solve(solver=cp.CLARABEL)
    try:
        solvers.minimize(tiny, method="auto")
    except Exception:               # the case's own first call meets it again and reports it
        pass


def _timed(call):
    start = time.perf_counter()
    out = call()
    return out, time.perf_counter() - start


def _warm(call, repeats: int) -> float:
    """The median time of up to `repeats` calls (at least one), fewer once they have taken
    WARM_BUDGET seconds."""
    times: list[float] = []
    while len(times) < max(1, repeats) and sum(times) < WARM_BUDGET:
        times.append(_timed(call)[1])
    return statistics.median(times)


def reference(build, repeats: int = 1) -> tuple[object, dict]:
    """(problem, row): CVXPY + Clarabel on a fresh `build()`, timed twice (first and warm), at
    the tightest of TIGHTS that Clarabel solves to status optimal (each try on a fresh
    problem, so that its first call is cold); the status names the tolerance used."""
    import cvxpy as cp
    for tol in TIGHTS:
        problem = build()
        options = {} if tol is None else {k: tol for k in TOLERANCES}
        try:
            _, first = _timed(lambda: problem.solve(solver=cp.CLARABEL, **options))
            warm = _warm(lambda: problem.solve(solver=cp.CLARABEL, **options), repeats)
        except cp.error.SolverError as exc:
            status, first, warm = _first_line(exc), math.nan, math.nan
        else:
            status = problem.status
        if status == cp.OPTIMAL:
            break
    value = problem.value if problem.value is not None else math.nan
    return problem, {"cvxpy_status": status + ("" if tol is None else f" (tol {tol:g})"), "f_ref": float(value),
                     "cvxpy_first": first, "cvxpy_warm": warm}


def child(name: str, threads: int, repeats: int) -> None:
    """Run one case, printing one JSON line per stage (read back by `run_case`)."""
    import warnings

    import numpy as np
    from threadpoolctl import threadpool_limits

    import solvers
    warnings.simplefilter("ignore")
    with threadpool_limits(threads), np.errstate(all="ignore"):
        _warm_up()
        problem, row = reference(CASES[name].build, repeats)
        _emit(stage="built", unknowns=sum(v.size for v in problem.variables()),
              constraints=sum(c.size for c in problem.constraints))
        _emit(stage="cvxpy", **row)
        for v in problem.variables():               # nothing of CVXPY's solution can reach ours
            v.value = None
        try:
            result, first = _timed(lambda: solvers.minimize(problem, method="auto"))
        except Exception as exc:                    # a crash is a row of the table, not the end of the run
            _emit(stage="ours", error=_first_line(exc))
            return
        row = {"status": int(result.status), "success": bool(result.success), "method": str(result.method),
               "message": " ".join(str(result.message).split())[:200], "ours_first": first}
        try:
            row.update(check(problem, result.x))
        except Exception as exc:
            row["check_error"] = _first_line(exc)
        _emit(stage="ours", **row)
        try:
            warm = _warm(lambda: solvers.minimize(problem, method="auto"), repeats)
            _emit(stage="warm", ours_warm=warm)
        except Exception as exc:
            _emit(stage="warm", warm_error=_first_line(exc))


# --------------------------------------------------------------------------- the parent

def run_case(name: str, timeout: float, threads: int, repeats: int = 3) -> dict:
    """One row: the child's stages merged, its verdict, and `timeout` or the child's crash noted."""
    env = {**os.environ, "CONVEXCHECK_CACHE": "0", "PYTHONWARNINGS": "ignore",
           **{k: str(threads) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}}
    cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--child", name, "--threads", str(threads),
           "--repeats", str(repeats)]
    row = {"name": name, "kind": CASES[name].kind}
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        out, crashed = done.stdout, (done.stderr.strip().splitlines() or [""])[-1] if done.returncode else ""
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        crashed = f"timeout after {timeout:g} s"
    for line in out.splitlines():
        if line.startswith("{"):
            row.update({k: v for k, v in json.loads(line).items() if k != "stage"})
    if crashed:
        stages = (("ours_warm", ""), ("status", "our warm call"), ("f_ref", "our first call"))
        stage = next((what for key, what in stages if key in row), "the build or CVXPY's solve")
        row["crash"] = crashed + (f", during {stage}" if stage else "")
    row["verdict"] = verdict(row)
    return row


def rel_error(row: dict) -> float:
    if "f" not in row or "f_ref" not in row:
        return math.nan
    return abs(row["f"] - row["f_ref"]) / max(1.0, abs(row["f_ref"]))


def verdict(row: dict) -> str:
    """solved / wrong / failed: <why>, from the merged stages (see the module docstring)."""
    if row.get("status") is None:
        if row.get("error"):
            return f"failed: {row['error'].split(':')[0]}"
        crash = row.get("crash", "")
        return "failed: " + ("timeout" if crash.startswith("timeout") else f"crash ({crash.split(':')[0]})"
                             if crash else "no result")
    if row.get("check_error"):
        return "failed: check (" + row["check_error"].split(":")[0] + ")"
    if not row["success"]:
        if row["status"] in FALSE_CLAIMS and str(row.get("cvxpy_status", "")).startswith("optimal"):
            return f"wrong: status {row['status']}"
        return f"failed: status {row['status']}"
    if not str(row.get("cvxpy_status", "")).startswith("optimal"):
        return "unchecked: no CVXPY optimum"
    ok = row["violation"] <= VIOLATION and rel_error(row) <= REL_ERROR
    return "solved" if ok else "wrong"


# --------------------------------------------------------------------------- the table

COLUMNS = ("problem", "kind", "n", "m", "ours", "verdict", "rel err", "viol", "first", "warm",
           "cvxpy first", "cvxpy warm", "warm ratio", "first ratio")


def ratio(row: dict, which: str) -> float:
    ours, theirs = row.get(f"ours_{which}"), row.get(f"cvxpy_{which}")
    return ours / theirs if ours is not None and theirs and math.isfinite(theirs) else math.nan


def _num(v: float | None, fmt: str) -> str:
    return "-" if v is None or not math.isfinite(v) else format(v, fmt)


def cells(row: dict) -> list[str]:
    ours = "-" if row.get("status") is None else f"{row['status']} {row.get('method', '')}".strip()
    return [row["name"], row["kind"], str(row.get("unknowns", "-")), str(row.get("constraints", "-")), ours,
            row["verdict"], _num(rel_error(row), ".1e"), _num(row.get("violation"), ".0e"),
            *(_num(row.get(k), ".3f") for k in ("ours_first", "ours_warm", "cvxpy_first", "cvxpy_warm")),
            _num(ratio(row, "warm"), ".1f"), _num(ratio(row, "first"), ".1f")]


def _median(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f}x" if xs else "-"


def footer(rows: list[dict]) -> list[str]:
    counts = {v: sum(r["verdict"].split(":")[0] == v for r in rows) for v in ("solved", "wrong", "failed")}
    warm = [x for x in (ratio(r, "warm") for r in rows) if math.isfinite(x)]
    first = [x for x in (ratio(r, "first") for r in rows) if math.isfinite(x)]
    worst = max(((ratio(r, "warm"), r["name"]) for r in rows if math.isfinite(ratio(r, "warm"))), default=None)
    return [f"{len(rows)} problems: {counts['solved']} solved, {counts['wrong']} wrong, {counts['failed']} failed"
            + (f", {len(rows) - sum(counts.values())} unchecked" if len(rows) > sum(counts.values()) else ""),
            f"warm ratio (ours / CVXPY, {len(warm)} rows with both times): median {_median(warm)}, "
            f"max {f'{worst[0]:.1f}x ({worst[1]})' if worst else '-'}",
            f"first-call ratio ({len(first)} rows): median {_median(first)}"]


def failures(rows: list[dict]) -> list[str]:
    """One line per row that is not solved: its verdict and the message, exception or crash."""
    out = []
    for r in rows:
        if r.get("error"):
            out.append(f"- {r['name']}: failed: {r['error']}")
        elif r["verdict"] != "solved" and r.get("status") is not None:
            why = r.get("check_error") or r.get("message") or ""
            extra = f" (rel err {rel_error(r):.1e}, violation {r.get('violation', math.nan):.1e})" \
                if r["verdict"].startswith("wrong") else ""
            out.append(f"- {r['name']}: {r['verdict']}{extra}" + (f": {why}" if why else ""))
        if r.get("crash"):
            out.append(f"- {r['name']}: {'failed: ' if r.get('status') is None else ''}{r['crash']}")
        if r.get("warm_error"):
            out.append(f"- {r['name']}: the warm call raised {r['warm_error']}")
    return out


NAMED = ("socp_circle_500", "qp_box_2000", "trend_l1_2000", "kalman_robust_1000")   # within 2x warm, 3x first


def targets(rows: list[dict]) -> list[str]:
    """Issue 26's targets, each with the measured number and met / not met."""
    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"
    warm = [x for x in (ratio(r, "warm") for r in rows) if math.isfinite(x)]
    solved = sum(r["verdict"] == "solved" for r in rows)
    out = [f"- every problem solved: {solved} of {len(rows)}, {met(solved == len(rows))}"]
    if warm:
        out += [f"- median warm ratio <= 1.0x: {_median(warm)}, {met(statistics.median(warm) <= 1.0)}",
                f"- no warm ratio over 5x: {sum(x > 5 for x in warm)} over, {met(max(warm) <= 5)}"]
    for r in (r for r in rows if r["name"] in NAMED):
        w, f = ratio(r, "warm"), ratio(r, "first")
        out.append(f"- {r['name']} warm <= 2x, first <= 3x: {_num(w, '.1f')}, {_num(f, '.1f')}, "
                   f"{met(r['verdict'] == 'solved' and w <= 2 and f <= 3)}")
    return out


def notes(rows: list[dict]) -> list[str]:
    """Rows whose reference Clarabel reached only at looser tolerances than TIGHTS[0]."""
    tight = f"optimal (tol {TIGHTS[0]:g})"
    return [f"- {r['name']}: the reference is CVXPY's {r['cvxpy_status']}" for r in rows
            if "cvxpy_status" in r and r["cvxpy_status"] != tight]


def markdown(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    fails, looser = failures(rows), notes(rows)
    return "\n".join(lines + [""] + footer(rows) + ["", "Targets (issue 26):"] + targets(rows)
                     + (["", "Not solved:"] + fails if fails else [])
                     + (["", "References at looser tolerances:"] + looser if looser else []))


# --------------------------------------------------------------------------- main

def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "--", "solvers", "convexcheck",
                                                 "tensorcalc", "benchmarks/real_cases.py") else ""
    return (git("rev-parse", "--short", "HEAD") or "unknown") + dirty


def save(rows: list[dict], md: pathlib.Path, args: argparse.Namespace) -> None:
    head = ["# Real problems: solvers.minimize(method='auto') against CVXPY + Clarabel", "",
            f"Commit {_commit()}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
            f"{args.threads} BLAS thread(s), timeout {args.timeout:g} s per problem "
            f"(`python benchmarks/real_problems.py {' '.join(sys.argv[1:])}`). Times in seconds; "
            f"n unknowns, m constraint rows; ours = status and method. See the script's docstring.", ""]
    md.write_text("\n".join(head) + markdown(rows) + "\n")
    print(f"wrote {md}")


def plot(rows: list[dict], png: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [r["name"] for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, 0.22 * len(rows)), 5))
    for k, (which, colour) in enumerate((("warm", "tab:blue"), ("first", "tab:orange"))):
        values = [ratio(r, which) for r in rows]
        ax.bar([i + 0.4 * k for i in range(len(rows))], values, 0.4,
               color=colour, label=f"{which} call")
    for i, r in enumerate(rows):
        if r["verdict"] != "solved":
            ax.annotate("x", (i + 0.2, 1), color="red", ha="center")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("time ours / CVXPY+Clarabel (x: not solved)")
    ax.set_xticks([i + 0.2 for i in range(len(rows))], names, rotation=90, fontsize=7)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    print(f"wrote {png}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--only", help="NAME[,NAME]: these problems only (see --list)")
    p.add_argument("--kind", help="KIND[,KIND]: problems of these kinds only")
    p.add_argument("--small", action="store_true", help="leave out the problems at CVXPY-example size")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per problem before it is killed (300)")
    p.add_argument("--repeats", type=int, default=3,
                   help=f"warm calls timed, at most (3; fewer past {WARM_BUDGET:g} s)")
    p.add_argument("--threads", type=int, default=1, help="BLAS threads in each child (1)")
    p.add_argument("--list", action="store_true", help="print the problems and their kinds, then stop")
    p.add_argument("--json", nargs="?", const="-", metavar="FILE", help="also write the rows as JSON (- stdout)")
    p.add_argument("--save", action="store_true", help="write the table to --md (and the plot beside it)")
    p.add_argument("--md", type=pathlib.Path, default=MD, help=f"the file --save writes ({MD.name})")
    p.add_argument("--plot", nargs="?", const="", metavar="FILE", help="save a PNG of the ratios")
    p.add_argument("--child", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def selected(args: argparse.Namespace) -> list[str]:
    names = list(CASES)
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in CASES]
        if unknown:
            raise SystemExit(f"--only: no problem named {', '.join(unknown)}; see --list")
        names = wanted
    if args.kind:
        kinds = set(args.kind.split(","))
        names = [n for n in names if CASES[n].kind in kinds]
    return [n for n in names if not (args.small and CASES[n].large)]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        return child(args.child, args.threads, args.repeats)
    if args.list:
        for c in CASES.values():
            print(f"{c.name:32s} {c.kind:10s} {'large' if c.large else ''}")
        return
    rows = []
    for name in selected(args):
        rows.append(run_case(name, args.timeout, args.threads, args.repeats))
        print(" | ".join(cells(rows[-1])), flush=True, file=sys.stderr)
    print(markdown(rows))
    if args.json:
        text = json.dumps(rows, indent=1)
        print(text) if args.json == "-" else pathlib.Path(args.json).write_text(text + "\n")
    if args.save:
        save(rows, args.md, args)
    if args.plot is not None or args.save:
        plot(rows, pathlib.Path(args.plot) if args.plot else args.md.with_suffix(".png"))


if __name__ == "__main__":
    main()
