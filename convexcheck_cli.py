"""The commands of the convexcheck distribution, assembled from each package's own part:

- `convexcheck`: `analyze` (convexcheck.cli) and `solve` (solvers.cli);
- `tensorcalc`: `diff` (tensorcalc.cli), which reads problem files with convexcheck's reader.

This is the one module that imports all three packages, so none of them imports a package
above it (tensorcalc <- convexcheck <- solvers). `python -m convexcheck_cli` runs the
`convexcheck` command; `python -m convexcheck` and `python -m tensorcalc` run these too.
"""
from __future__ import annotations

import sys

import convexcheck.cli
import solvers.cli
import tensorcalc.cli
from convexcheck.problem.reader import parse_problem
from tensorcalc import dag

RUN = {"analyze": convexcheck.cli.run, "solve": solvers.cli.run}


def convexcheck_main(argv: list[str] | None = None) -> int:
    """`convexcheck analyze ...` and `convexcheck solve ...`."""
    parser, sub = convexcheck.cli.parser()
    solvers.cli.add_parser(sub)
    args = parser.parse_args(argv)
    return tensorcalc.cli.guarded("convexcheck", RUN[args.command], args)


def tensorcalc_main(argv: list[str] | None = None) -> int:
    """`tensorcalc diff ...`, problem files included."""
    return tensorcalc.cli.main(argv, read_problem=problem_source)


def problem_source(text: str, path: str | None) -> tensorcalc.cli.Source:
    """A problem file as tensorcalc diff sees it: its objective, differentiated by default in
    every variable the objective depends on (in a parameter, or in a variable it does not
    read, when --wrt names one)."""
    problem = parse_problem(text, source=path)
    expr = problem.objective.expr
    found = dag.variables(expr)
    declared = {n: found.get(n) or dag.var(n, [dag.Axis(n, k) for k in range(len(d.dims))])
                for n, d in problem.declarations.items()}
    return tensorcalc.cli.Source(expr, declared, tuple(n for n in problem.variables if n in found))


if __name__ == "__main__":
    sys.exit(convexcheck_main())
