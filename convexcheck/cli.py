"""The `convexcheck` command: `convexcheck analyze FILE` prints the verdicts of a problem
file; `convexcheck solve FILE --data DATA.npz` solves it (`solvers.cli`).

Exit status of analyze: 0 the analysis ran (whatever the verdict); 2 bad input (the
message names the line and column; no traceback); 130 interrupted. Solve: 0 converged,
1 stopped without converging, 2 bad input, 130 interrupted.
"""
from __future__ import annotations

import argparse
import json
import sys

from tensorcalc.cli import guarded
from tensorcalc.options import name_length, whole

from .analysis import analyze
from .problem import load_problem


MAX_SAMPLES = 100_000
MAX_LENGTH = 100_000    # of a named dimension (as `analysis` checks it)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="convexcheck", description="Convexity verdicts from the symbolic Hessian: a proof, "
        "a verified counterexample, or 'unknown'.",
        epilog="example: convexcheck analyze examples/logistic_regression.tc --dim n=1000 --dim m=2000")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("analyze", help="analyse a problem file (.tc)",
                         description="Decide convexity of the objective, each constraint, and the "
                                     "objective in each variable alone. Format: docs/problem-format.md.")
    run.add_argument("file", metavar="FILE", help="the problem file")
    run.add_argument("--json", action="store_true", help="print the report as JSON")
    run.add_argument("--samples", type=whole(1, MAX_SAMPLES), default=20,
                     help=f"points sampled per part when no proof settles it, 1 to {MAX_SAMPLES} (default 20)")
    run.add_argument("--seed", type=whole(0), default=0, help="random seed of the sampling, >= 0 (default 0)")
    run.add_argument("--dim", type=name_length(MAX_LENGTH), action="append", default=[], metavar="NAME=LENGTH",
                     help="length of a named dimension for sampling (repeatable; default 4)")
    run.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    from solvers.cli import add_parser   # the application layer: solvers build on convexcheck
    add_parser(sub)
    return parser


def _analyze(args: argparse.Namespace) -> int:
    problem = load_problem(args.file)
    report = analyze(problem, samples=args.samples, seed=args.seed, dims=dict(args.dim),
                     progress=not args.no_progress and not args.json and sys.stderr.isatty())
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.command == "solve":
        from solvers.cli import run
        return run(args)
    return _analyze(args)


def main(argv: list[str] | None = None) -> int:
    return guarded("convexcheck", _run, _parser().parse_args(argv))

if __name__ == "__main__":
    sys.exit(main())
