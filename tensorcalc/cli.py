"""The `tensorcalc` command: differentiate an expression given as text or as a file.

    tensorcalc diff "x' * A * x" --declare "x vector, A matrix" --wrt x
    tensorcalc diff "declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x derivative wrt x"
    tensorcalc diff examples/ridge.tc --wrt w --order 2

Three inputs: a bare expression whose names `--declare` gives; the thesis input
(`declare ... expression ... derivative wrt NAME`); a problem file of convexcheck (its
objective, differentiated in every variable by default), which the command reads through
the `read_problem` it is given (the `tensorcalc` command of `convexcheck_cli` gives
convexcheck's reader; tensorcalc itself does not import the packages above it).

Exit status: 0 done (and, with --check, the error is within --tol); 1 the check found an
error over --tol; 2 bad input (the message names line and column; no traceback).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings
from typing import Callable, Mapping, NamedTuple, TypeVar

from tensorcalc import dag
from tensorcalc.dag import Axis, Expr, Var
from tensorcalc.derivatives.check import check_derivative, derivative_chain
from tensorcalc.errors import TensorCalcError
from tensorcalc.language.meaning import parse, parse_expr
from tensorcalc.options import finite, whole
from tensorcalc.printing.text import to_text

T = TypeVar("T")

MAX_FILE = 8_000_000
MAX_POINTS = 1000   # each point costs finite differences in every entry of the variable
KINDS = {"scalar": 0, "vector": 1, "matrix": 2}
EXAMPLE = "tensorcalc diff \"x' * A * x\" --declare \"x vector, A matrix\" --wrt x --order 2 --check"


class Source(NamedTuple):
    """What to differentiate: the expression, its variables by name (also declared ones it
    does not use), and the names differentiated when --wrt is not given."""

    expr: Expr
    variables: Mapping[str, Var]
    wrt: tuple[str, ...]


ReadProblem = Callable[[str, "str | None"], Source]   # (text, file name) -> Source


def version() -> str:
    """The installed version of the distribution (convexcheck, which ships tensorcalc)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("convexcheck")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _names(text: str) -> tuple[str, ...]:
    """NAME or NAME,NAME,... (argparse type of --wrt)."""
    names = tuple(n.strip() for n in text.split(","))
    if not all(n.isidentifier() and n.isascii() for n in names):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, e.g. w,b; got {text!r:.60}")
    return names


def declarations(text: str) -> dict[str, int]:
    """'x vector, A matrix, b scalar, T 3': names with their kinds or orders (--declare)."""
    words = [w for w in re.split(r"[,\s]+", text.strip()) if w]
    if len(words) % 2:
        raise argparse.ArgumentTypeError(f"{words[-1]!r} needs a kind after it: write NAME KIND pairs, "
                                         f"e.g. \"x vector, A matrix\" (KIND: scalar, vector, matrix or an "
                                         f"order 0 to {dag.MAX_ORDER})")
    orders: dict[str, int] = {}
    for name, kind in zip(words[::2], words[1::2]):
        order = KINDS.get(kind, int(kind) if kind.isdigit() and kind.isascii() else -1)
        if not (name.isidentifier() and name.isascii()) or not 0 <= order <= dag.MAX_ORDER or name in orders:
            raise argparse.ArgumentTypeError(
                f"{name} {kind}: write NAME KIND pairs with distinct names, KIND scalar, vector, matrix or "
                f"an order 0 to {dag.MAX_ORDER}, e.g. \"x vector, A matrix\"")
        orders[name] = order
    return orders


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tensorcalc", description="Symbolic derivatives of tensor expressions.",
                                     epilog=f"example: {EXAMPLE}")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    diff = sub.add_parser("diff", help="print the derivative of an expression",
                          description="Print derivatives, in matrix notation by default.", epilog=f"example: {EXAMPLE}")
    diff.add_argument("input", metavar="TEXT_OR_FILE",
                      help="an expression (with --declare), the thesis input ('declare ... expression ... "
                           "derivative wrt NAME'), a problem file (.tc), a path to a file holding any of "
                           "them, or - for standard input")
    diff.add_argument("--declare", type=declarations, metavar="\"NAME KIND, ...\"",
                      help="the names of an expression and their kinds: scalar, vector, matrix or an order, "
                           "e.g. \"x vector, A matrix\"")
    diff.add_argument("--wrt", type=_names, metavar="NAME[,NAME...]",
                      help="differentiate with respect to these variables (default: the input's 'derivative "
                           "wrt NAME', every variable of a problem file, every declared name)")
    diff.add_argument("--order", type=whole(0, dag.MAX_ORDER), default=1,
                      help=f"derivative order, 0 to {dag.MAX_ORDER} (default 1)")
    diff.add_argument("--notation", choices=("matrix", "einsum", "latex"), default="matrix",
                      help="matrix: A' * x + A * x (index notation where the order is over 2); einsum: the "
                           "thesis' index notation; latex (default matrix)")
    diff.add_argument("--check", action="store_true",
                      help="compare every order 1..k with central finite differences of the order "
                           "below at random points (entries of both signs where the domain allows)")
    diff.add_argument("--seed", type=whole(0), default=0, help="random seed for --check, >= 0 (default 0)")
    diff.add_argument("--points", type=whole(1, MAX_POINTS), default=3,
                      help=f"random points for --check, 1 to {MAX_POINTS} (default 3)")
    diff.add_argument("--tol", type=finite(0.0), default=1e-6,
                      help="largest relative error --check accepts (default 1e-6)")
    diff.add_argument("--raw", action="store_true",
                      help="print the unsimplified reverse-mode result, as in the thesis")
    diff.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def read_input(arg: str) -> tuple[str, str | None]:
    """The text of TEXT_OR_FILE and the file it came from: standard input for '-', a
    file's content, or arg itself."""
    if arg == "-":
        return sys.stdin.read(MAX_FILE + 1), None
    if os.path.isfile(arg):
        if os.path.getsize(arg) > MAX_FILE:
            raise TensorCalcError(f"{arg}: file is over {MAX_FILE:,} bytes")
        try:
            with open(arg, encoding="utf-8") as handle:
                return handle.read(), arg
        except (OSError, UnicodeDecodeError) as err:
            raise TensorCalcError(f"{arg}: cannot read the file ({err})") from None
    if arg.endswith(".tc") and "\n" not in arg and " " not in arg:
        raise TensorCalcError(f"{arg}: no such file")
    return arg, None


def source(text: str, path: str | None, declared: dict[str, int] | None,
           read_problem: ReadProblem | None) -> Source:
    """The Source of an input: an expression with --declare, the thesis input, or a problem."""
    if declared is not None:
        expr = parse_expr(text, declared)
        found = dag.variables(expr)
        variables = {n: found.get(n) or dag.var(n, [Axis(n, k) for k in range(o)]) for n, o in declared.items()}
        return Source(expr, variables, tuple(declared))
    if _first_word(text) == "declare":
        inp = parse(text)
        return Source(inp.expr, inp.declared, (inp.wrt,) if inp.wrt else ())
    if read_problem is None:
        raise TensorCalcError("the input is not 'declare ... expression ...': for an expression, declare its "
                              "names (--declare \"x vector, A matrix\"); problem files need the tensorcalc "
                              "command (python -m tensorcalc)")
    try:
        return read_problem(text, path)
    except TensorCalcError as err:
        if "\n" in text.strip():
            raise
        hint = "(for an expression, declare its names: --declare \"x vector, A matrix\")"
        raise TensorCalcError(f"{err}\n{hint}") from None


def _first_word(text: str) -> str:
    for line in text.split("\n"):
        words = line.split("#", 1)[0].split()
        if words:
            return words[0]
    return ""


def _diff(args: argparse.Namespace, read_problem: ReadProblem | None = None) -> int:
    src = source(*read_input(args.input), args.declare, read_problem)
    wrt = args.wrt or src.wrt
    if not wrt:
        raise TensorCalcError("the input names no variable: add 'derivative wrt NAME' or pass --wrt NAME")
    for name in wrt:
        if name not in src.variables:
            raise TensorCalcError(f"--wrt {name}: not declared (declared: {', '.join(src.variables) or 'nothing'})")
    reports = [_derivative(src, name, args) for name in dict.fromkeys(wrt)]
    report = {"expression": to_text(src.expr, args.notation), "order": args.order, "notation": args.notation,
              "derivatives": reports}
    _print(report, args.json)
    return 0 if all(r.get("check", {}).get("passed", True) for r in reports) else 1


def _derivative(src: Source, wrt: str, args: argparse.Namespace) -> dict:
    chain = derivative_chain(src.expr, src.variables[wrt], args.order, simplify=not args.raw)
    result = chain[-1]                                    # what is printed is what is checked
    report = {"wrt": wrt, "derivative": to_text(result, args.notation), "nodes": dag.count_nodes(result)}
    if args.check and args.order >= 1:
        report["check"] = _check(src, wrt, chain, args)
    return report


def _check(src: Source, wrt: str, chain: list, args: argparse.Namespace) -> dict:
    """Every order 1..k at --points points (seeds --seed, --seed + 1, ...)."""
    results = [check_derivative(src.expr, src.variables[wrt], args.order, seed=args.seed + k,
                                variables=src.variables, simplify=not args.raw, chain=chain)
               for k in range(args.points)]
    worst = max(results, key=lambda r: r.error)
    return {"max_error": worst.error, "order": worst.order, "points": args.points, "tol": args.tol,
            "errors_by_order": [max(r.errors[j] for r in results) for j in range(args.order)],
            "signed_points": sum(r.signed for r in results),
            "lengths": worst.printed_lengths(), "passed": worst.error <= args.tol}


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report, indent=2))
        return
    several = len(report["derivatives"]) > 1
    comment = "%" if report["notation"] == "latex" else "#"
    for part in report["derivatives"]:
        if several:
            print(f"{comment} {_title(part['wrt'], report['order'])}")
        print(part["derivative"])
        if "check" in part:
            print(_check_line(part["wrt"] if several else "", part["check"]), file=sys.stderr)


def _title(wrt: str, order: int) -> str:
    return f"d/d{wrt}" if order == 1 else f"d^{order}/d{wrt}^{order}"


def _check_line(wrt: str, check: dict) -> str:
    verdict = "ok" if check["passed"] else f"FAILED (tolerance {check['tol']:g})"
    count = len(check["errors_by_order"])
    orders = "order 1" if count == 1 else f"orders 1 to {count}"
    signed, points = check["signed_points"], check["points"]
    signs = ("entries of both signs" if signed == points else "positive entries (the function's domain "
             "needs them)" if not signed else f"entries of both signs at {signed} of them")
    return (f"# finite-difference check{' in ' + wrt if wrt else ''} of {orders} at {points} random point(s), "
            f"{signs}: max relative error {check['max_error']:.2e} (order {check['order']}) {verdict}")


def guarded(prog: str, action: Callable[[T], int], args: T) -> int:
    """Run `action(args)`; bad input becomes 'PROG: error: ...' on stderr and exit status 2
    (no traceback), an interrupt 130, a closed output pipe (`| head`) a quiet 0. Warnings
    (such as the disk cache's) print as one line 'PROG: warning: ...' each."""
    try:
        with warnings.catch_warnings():
            warnings.showwarning = lambda message, *rest: print(f"{prog}: warning: {message}", file=sys.stderr)
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


def main(argv: list[str] | None = None, read_problem: ReadProblem | None = None) -> int:
    """The tensorcalc command; problem files are read with `read_problem` when given."""
    return guarded("tensorcalc", lambda args: _diff(args, read_problem), _parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
