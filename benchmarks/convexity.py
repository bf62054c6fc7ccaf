"""convexcheck's verdicts, proofs and times over the examples and the corpus of issue 13.

    python benchmarks/convexity.py [--samples 20] [--repeat 3] [--limit 60] [--filter NAME] [--save]

Every examples/*.tc file and every problem of tests/convexity_cases.py is analysed by
`convexcheck.analyze(source, samples=--samples, dims=...)` (seed 0), plus
examples/softmax_regression.tc at n=200, m=500, k=10 (target: under 5 s). One markdown row
each: the problem verdict, the objective's convex and concave status, the first lines of the
proof (or of the reason there is none), the check against the known truth, and the time of
the first (cold) call and the median of --repeat more. An analysis that runs past --limit
seconds is stopped and reported as such; its repeats are skipped.

Truth is mathematical: the corpus carries it, and EXAMPLE_TRUTH below gives it for the
example files. A proof of a side that is false, or a witness against a side that is true,
is flagged WRONG; the exit status is 1 if any verdict is wrong or any analysis raised.
--save also writes the table to benchmarks/RESULTS_convexity.md with the git commit.
"""
from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import platform
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from tqdm import tqdm

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))     # tests/convexity_cases.py

from convexity_cases import CASES  # noqa: E402

import convexcheck  # noqa: E402

# Each example's objective as a function: (convex for every admissible parameter, concave).
EXAMPLE_TRUTH = {
    "constrained": (False, True), "deconvolution": (True, False), "elastic_net": (True, False),
    "geometric_mean": (False, True), "lasso": (True, False), "least_squares": (True, False),
    "log_det": (False, True), "log_sum_exp": (True, False), "logistic_intercept": (True, False),
    "logistic_regression": (True, False), "logistic_regression_l2": (True, False),
    "matrix_factorisation": (False, False), "poisson_intercept": (True, False),
    "pseudo_huber": (True, False), "quad_over_lin": (True, False),
    "quadratic_indefinite": (False, False), "quadratic_psd": (True, False), "ridge": (True, False),
    "rosenbrock": (False, False), "softmax_regression": (True, False), "sqrt_x2_plus_1": (True, False),
    "svm_hinge": (True, False), "total_variation": (True, False), "xlogx": (True, False),
}
BIG_SOFTMAX = dict(n=200, m=500, k=10)
TARGET_S = 5.0
RESULTS = ROOT / "benchmarks" / "RESULTS_convexity.md"


@dataclass(frozen=True)
class Case:
    """One analysis: `source` is a path or problem text; `truth` is (convex, concave), None unknown."""
    name: str
    source: str
    truth: tuple
    dims: dict | None = None


@dataclass
class Outcome:
    """What one case gave: the report of the first call (None if it raised or was stopped)."""
    case: Case
    report: object = None
    error: str = ""
    cold: float = float("nan")
    median: float = float("nan")


class _Stopped(BaseException):
    """Raised by the alarm; a BaseException so that no `except Exception` in the analysis keeps it."""


def all_cases() -> list[Case]:
    examples = [Case(f"examples/{p.name}", str(p), EXAMPLE_TRUTH.get(p.stem, (None, None)))
                for p in sorted((ROOT / "examples").glob("*.tc"))]
    corpus = [Case(name, text, (convex, concave)) for name, text, convex, concave in CASES]
    big = Case("examples/softmax_regression.tc " + " ".join(f"{k}={v}" for k, v in BIG_SOFTMAX.items()),
               str(ROOT / "examples" / "softmax_regression.tc"), EXAMPLE_TRUTH["softmax_regression"],
               BIG_SOFTMAX)
    return examples + corpus + [big]


def _alarm(signum, frame):
    raise _Stopped


def analyse_once(case: Case, samples: int, limit: int):
    """(report, seconds) of one analysis; _Stopped after `limit` seconds."""
    signal.alarm(limit)
    start = time.perf_counter()
    try:
        return convexcheck.analyze(case.source, samples=samples, dims=case.dims), time.perf_counter() - start
    finally:
        signal.alarm(0)


def measure(case: Case, samples: int, repeat: int, limit: int) -> Outcome:
    """The first call's report and time, and the median time of `repeat` more calls."""
    out = Outcome(case)
    try:
        out.report, out.cold = analyse_once(case, samples, limit)
        if repeat:
            out.median = statistics.median(analyse_once(case, samples, limit)[1] for _ in range(repeat))
    except _Stopped:
        out.error = f"stopped after {limit} s"
    except Exception as exc:                   # reported in the table; the exit status says so
        out.error = f"ERROR {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return out


def wrong_sides(out: Outcome) -> list[str]:
    """'proven convex' where convexity is false, 'disproved concave' where it holds, ..."""
    if out.report is None:
        return []
    sides = (out.report.objective.convex, out.report.objective.concave)
    wrong = []
    for kind, side, truth in zip(("convex", "concave"), sides, out.case.truth):
        if (side.status, truth) in (("proven", False), ("disproved", True)):
            wrong.append(f"{side.status} {kind}")
    return wrong


def check(out: Outcome) -> str:
    """The truth column: WRONG ..., ok (every side with a known truth decided), open: ..., or -."""
    if out.report is None:
        return "-"
    wrong = wrong_sides(out)
    if wrong:
        return "**WRONG: " + ", ".join(wrong) + "**"
    sides = {"convex": out.report.objective.convex, "concave": out.report.objective.concave}
    open_ = [k for (k, s), t in zip(sides.items(), out.case.truth) if t is not None and s.status == "unknown"]
    if all(t is None for t in out.case.truth):
        return "-"
    return "open: " + ", ".join(open_) if open_ else "ok"


def proof_text(out: Outcome, lines: int = 2, width: int = 100) -> str:
    """The first lines of the proof of a proven side, else the first reason there is none,
    else the curvature a witness found."""
    if out.report is None:
        return out.error
    obj = out.report.objective
    sides = (("convex", obj.convex), ("concave", obj.concave))
    for kind, side in sides:
        if side.status == "proven" and side.proof:
            return f"{kind}: " + " / ".join(_clip(p, width) for p in side.proof[:lines])
    fails = list(dict.fromkeys(obj.convex.failures + obj.concave.failures))
    if fails:
        return "no proof: " + _clip(fails[0], width)
    return "; ".join(f"not {kind}: witness d'Hd = {side.witness.curvature:.3g}"
                     for kind, side in sides if side.witness is not None)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _cell(text: str) -> str:
    """Markdown-safe: `|` would end the cell and `*` (in `*(ij,j->i)`) start emphasis."""
    return text.replace("|", "\\|").replace("*", "\\*")


def _seconds(x: float) -> str:
    return "-" if x != x else f"{x:.3f}"


def row(out: Outcome) -> str:
    rep = out.report
    cells = [out.case.name, rep.verdict if rep else "-", rep.objective.convex.status if rep else "-",
             rep.objective.concave.status if rep else "-", proof_text(out), check(out),
             _seconds(out.cold), _seconds(out.median)]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def table(outcomes: list[Outcome], repeat: int) -> list[str]:
    head = ["problem", "verdict", "convex", "concave", "proof (first lines)", "vs truth", "cold s",
            f"median of {repeat} s"]
    return ["| " + " | ".join(head) + " |", "|" + "---|" * 5 + ":---|" + "---:|" * 2] + [row(o) for o in outcomes]


def summary(outcomes: list[Outcome]) -> list[str]:
    """Counts over the sides whose truth is known, the errors, and the softmax target."""
    known = [(s.status, t) for o in outcomes if o.report
             for s, t in zip((o.report.objective.convex, o.report.objective.concave), o.case.truth)
             if t is not None]
    right = sum((s, t) in (("proven", True), ("disproved", False)) for s, t in known)
    wrong = sum(len(wrong_sides(o)) for o in outcomes)
    lines = [f"Sides with a known truth: {len(known)}; decided right {right}, unknown "
             f"{sum(s == 'unknown' for s, _ in known)}, WRONG {wrong}."]
    errors = [o.case.name for o in outcomes if o.error.startswith("ERROR")]
    lines += [f"Analyses that raised: {', '.join(errors)}."] if errors else []
    big = [o for o in outcomes if o.case.dims]
    lines += [f"{o.case.name}: " + (o.error or f"cold {o.cold:.2f} s, median {_seconds(o.median)} s")
              + f" (target under {TARGET_S:g} s: {'met' if o.cold < TARGET_S else 'missed'})" for o in big]
    return lines


def provenance(args) -> list[str]:
    """The header of the saved file: commit, whether the analyser's sources had local edits, machine."""
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(git + ["status", "--porcelain", "convexcheck", "tensorcalc"],
                           capture_output=True, text=True).stdout.strip()
    return ["# convexcheck: verdicts, proofs and times (benchmarks/convexity.py)", "",
            f"Commit {commit}{' with uncommitted changes in convexcheck/ or tensorcalc/' if dirty else ''}; "
            f"{datetime.date.today()}; Python {platform.python_version()} on {platform.machine()}, "
            f"{os.cpu_count()} CPUs; samples {args.samples}, seed 0, {args.repeat} repeats, limit {args.limit} s.",
            ""]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20, help="points sampled per part (default 20)")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls after the first (default 3)")
    parser.add_argument("--limit", type=int, default=60,
                        help="seconds before an analysis is stopped (default 60; 0: never)")
    parser.add_argument("--filter", default="", metavar="NAME", help="only problems whose name contains NAME")
    parser.add_argument("--save", action="store_true", help="also write benchmarks/RESULTS_convexity.md")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    header = provenance(args)                  # before the run: the sources as they were imported
    signal.signal(signal.SIGALRM, _alarm)
    cases = [c for c in all_cases() if args.filter in c.name]
    outcomes = [measure(c, args.samples, args.repeat, args.limit)
                for c in tqdm(cases, desc="analyses", unit="problem", file=sys.stderr)]
    lines = table(outcomes, args.repeat) + [""] + summary(outcomes)
    print("\n".join(lines))
    if args.save:
        RESULTS.write_text("\n".join(header + lines) + "\n")
    failed = any(wrong_sides(o) or o.error.startswith("ERROR") for o in outcomes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
