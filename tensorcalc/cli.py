"""The `tensorcalc` command: differentiate an input given as text or as a file.

Exit status: 0 done (and, with --check, the error is within --tol); 1 the check found an
error over --tol; 2 bad input (the message names line and column; no traceback).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from . import dag
from .check import check_derivative
from .diff import derivative
from .errors import TensorCalcError
from .infer import parse

MAX_FILE = 8_000_000


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorcalc", description="Symbolic derivatives of tensor expressions.",
        epilog="example: tensorcalc diff \"declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x "
               "derivative wrt x\" --order 2 --check")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    diff = sub.add_parser("diff", help="print the derivative of an input",
                          description="Print the derivative named by 'derivative wrt NAME'.")
    diff.add_argument("input", metavar="TEXT_OR_FILE",
                      help="the input text ('declare ... expression ... derivative wrt NAME'), "
                           "a path to a file holding it, or - for standard input")
    diff.add_argument("--order", type=int, default=1, help="derivative order (default 1)")
    diff.add_argument("--wrt", help="differentiate with respect to this variable instead")
    diff.add_argument("--check", action="store_true",
                      help="compare with central finite differences at random points")
    diff.add_argument("--seed", type=int, default=0, help="random seed for --check (default 0)")
    diff.add_argument("--points", type=int, default=3, help="random points for --check (default 3)")
    diff.add_argument("--tol", type=float, default=1e-6,
                      help="largest relative error --check accepts (default 1e-6)")
    diff.add_argument("--raw", action="store_true",
                      help="print the unsimplified reverse-mode result, as in the thesis")
    diff.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def read_input(arg: str) -> str:
    """The text of TEXT_OR_FILE: standard input for '-', a file's content, or arg itself."""
    if arg == "-":
        return sys.stdin.read(MAX_FILE + 1)
    if os.path.isfile(arg):
        if os.path.getsize(arg) > MAX_FILE:
            raise TensorCalcError(f"{arg}: file is over {MAX_FILE:,} bytes")
        try:
            with open(arg, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError) as err:
            raise TensorCalcError(f"{arg}: cannot read the file ({err})") from None
    if arg.endswith(".tc") and "\n" not in arg and " " not in arg:
        raise TensorCalcError(f"{arg}: no such file")
    return arg


def _diff(args: argparse.Namespace) -> int:
    if args.order < 0:
        raise TensorCalcError(f"--order must be >= 0, got {args.order}")
    inp = parse(read_input(args.input))
    wrt = args.wrt or inp.wrt
    if wrt is None:
        raise TensorCalcError("the input names no variable: add 'derivative wrt NAME' or pass --wrt NAME")
    if wrt not in inp.declared:
        raise TensorCalcError(f"--wrt {wrt}: not declared (declared: {', '.join(inp.orders)})")
    result = derivative(inp.expr, inp.declared[wrt], args.order, simplify=not args.raw)
    report = {"expression": str(inp.expr), "wrt": wrt, "order": args.order,
              "derivative": str(result), "nodes": dag.count_nodes(result)}
    status = 0
    if args.check and args.order >= 1:
        errors = [check_derivative(inp.expr, inp.declared[wrt], args.order, seed=args.seed + k,
                                   variables=inp.declared) for k in range(args.points)]
        worst = max(errors, key=lambda r: r.error)
        report["check"] = {"max_error": worst.error, "points": args.points, "tol": args.tol,
                           "lengths": worst.printed_lengths(), "passed": worst.error <= args.tol}
        status = 0 if worst.error <= args.tol else 1
    _print(report, args.json)
    return status


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report, indent=2))
        return
    print(report["derivative"])
    check = report.get("check")
    if check:
        verdict = "ok" if check["passed"] else f"FAILED (tolerance {check['tol']:g})"
        print(f"# finite-difference check at {check['points']} random point(s): "
              f"max relative error {check['max_error']:.2e} {verdict}", file=sys.stderr)


def guarded(prog: str, action, args) -> int:
    """Run `action(args)`; bad input becomes 'PROG: error: ...' on stderr and exit status 2
    (no traceback), an interrupt 130, a closed output pipe (`| head`) a quiet 0."""
    try:
        return action(args)
    except TensorCalcError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except (RecursionError, MemoryError) as err:
        print(f"{prog}: error: the input is too large to handle ({type(err).__name__})", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


def main(argv: list[str] | None = None) -> int:
    return guarded("tensorcalc", _diff, _parser().parse_args(argv))

if __name__ == "__main__":
    sys.exit(main())
