"""`convexcheck analyze FILE`: the verdicts of a problem file. The `convexcheck` command
assembles this subcommand with `solve` (`solvers.cli`) in `convexcheck_cli`, above both
packages; `main` here is analyze alone.

Exit status of analyze: 0 the analysis ran (whatever the verdict); 2 bad input (the
message names the line and column; no traceback); 130 interrupted.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

from convexcheck.analysis import analyze
from convexcheck.budget import DEFAULT_SECONDS
from convexcheck.problem.reader import load_problem
from tensorcalc.cli import guarded, version
from tensorcalc.options import finite, name_length, whole

MAX_SAMPLES = 100_000
MAX_LENGTH = 100_000    # of a named dimension (as `analysis` checks it)


def parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The `convexcheck` parser with `analyze` registered, and its subcommands (to add to)."""
    top = argparse.ArgumentParser(
        prog="convexcheck", description="Convexity verdicts from the symbolic Hessian: a proof, "
        "a verified counterexample, or 'unknown'.",
        epilog="example: convexcheck analyze examples/logistic_regression.tc --dim n=1000 --dim m=2000")
    top.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_parser(sub)
    return top, sub


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `analyze` on the subcommands of the convexcheck parser."""
    cmd = sub.add_parser("analyze", help="analyse a problem file (.tc)",
                         description="Decide convexity of the objective, each constraint, and the "
                                     "objective in each variable alone. Format: docs/problem-format.md.")
    cmd.add_argument("file", metavar="FILE", help="the problem file")
    cmd.add_argument("--json", action="store_true", help="print the report as JSON")
    cmd.add_argument("--samples", type=whole(1, MAX_SAMPLES), default=20,
                     help=f"points sampled per part when no proof settles it, 1 to {MAX_SAMPLES} (default 20)")
    cmd.add_argument("--seed", type=whole(0), default=0, help="random seed of the sampling, >= 0 (default 0)")
    cmd.add_argument("--dim", type=name_length(MAX_LENGTH), action="append", default=[], metavar="NAME=LENGTH",
                     help="length of a named dimension for sampling (repeatable; default 4)")
    cmd.add_argument("--budget", type=seconds, default=DEFAULT_SECONDS, metavar="SECONDS",
                     help=f"wall-clock seconds the analysis may take, >= 0 or 'inf' "
                          f"(default {DEFAULT_SECONDS:g}); once spent, the remaining steps are skipped and the "
                          "sides they would have decided are 'unknown: budget spent on ...' "
                          "(proofs and witnesses found stand)")
    cmd.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def seconds(text: str) -> float:
    """A number of seconds >= 0, or 'inf' for no limit."""
    return math.inf if text.strip().lower() in ("inf", "infinity", "none") else finite(0.0)(text)



def run(args: argparse.Namespace) -> int:
    """`convexcheck analyze` with parsed arguments."""
    problem = load_problem(args.file)
    report = analyze(problem, samples=args.samples, seed=args.seed, dims=dict(args.dim),
                     progress=not args.no_progress and not args.json and sys.stderr.isatty(),
                     budget=args.budget)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


def main(argv: list[str] | None = None) -> int:
    """`convexcheck analyze` alone (the full command: `convexcheck_cli.convexcheck`)."""
    return guarded("convexcheck", run, parser()[0].parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
