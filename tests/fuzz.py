"""Fuzzing harness: hostile inputs for every public entry point, and the one rule they obey.

The rule (issue 14): an entry point either returns or raises one of the documented error
classes, all subclasses of `tensorcalc.TensorCalcError` (ParseError, ShapeError,
DomainError, convexcheck's ProblemError and SizeError, solvers' SolverError). Anything else
that escapes (ZeroDivisionError, OverflowError, RecursionError, IndexError, a NumPy
ValueError, ...) is a bug, and so is an input that takes longer than SLOWEST_ALLOWED.

Inputs are valid seeds (the example problems, thesis inputs, element-wise definitions,
expressions of tests/strategies.py) mutated by hypothesis: tokens inserted, deleted and
replaced by hostile ones (huge and non-finite numbers, 0^-1, deep nesting, unicode, NUL,
Python code, huge dimensions), and data arrays of hostile values, dtypes and shapes.
`drive(target, value)` runs one input through one target and returns its `Outcome`.
"""
from __future__ import annotations

import pathlib
import re
import time
import warnings
from dataclasses import dataclass

import honesty
import numpy as np
from hypothesis import strategies as st
from strategies import VARIABLES, expressions

import convexcheck
import solvers
import tensorcalc as tc

ROOT = pathlib.Path(__file__).resolve().parents[1]
SLOWEST_ALLOWED = 20.0          # seconds one input may take (the issue's limit)
DOCUMENTED = (tc.TensorCalcError,)

HOSTILE = [
    "1e400", "-1e400", "1e308", "1e308^2", "0^-1", "1/0", "(0)^(-0.5)", "nan", "inf", "0", "-0", "1e-400",
    "9" * 60, "2^2000", "(2*x)^2000", "x^1e300", "(", ")", "((((((((((", "))))))))))", "*(i,i->)", "*(ij,jk->ik)",
    "*(,->)", "*(i,->i)", "*(ii,->)", "^", "'", ".T", "__import__('os').system('true')", "eval", "exec",
    "os", "x" * 300, "\x00", "\u00e9", "\u2211", "\u200b", "\n", ";", "[", "]", ",", "->", "-", "+", "*", "/",
    "sum(", "log(", "inv(", "det(", "adj(", "exp(" * 40, ")" * 40, "delta", "declare", "expression",
    "derivative wrt", "variable", "parameter", "minimize", "maximize", "subject to", ">=", "<=", "==", "pd",
    "psd", "nonneg", "pos", "[n,n]", "[0]", "[-1]", "[1e9, 1e9]", "[100000, 100000]", "{", "}", "#", "\t",
    "d[i+k]", "x[i - 100]", "sum(k, 0, 1e12, x[k])", "arcsin(3e2)", "sin(" * 200, "\r\n", "\\", '"', "$",
    ":", "[::-1]", "[1:]", "[:, 0]", "[0:1e9]", "[::0]", "[5:2]", "[-99999999999]", "max(", "min(", "mean(",
    "norm_inf(", "maximum(", "geo_mean(",
]
DIMENSIONS = {"n": 3, "m": 4, "k": 2, "p": 3}


@dataclass
class Outcome:
    """One input's fate: 'ok', 'documented' (a documented error), or 'bug' with the traceback's last line."""

    kind: str
    seconds: float
    detail: str = ""


def _seeds(pattern: str) -> list[str]:
    return [p.read_text() for p in sorted(ROOT.glob(pattern))]


PROBLEMS = _seeds("examples/*.tc")
THESIS = _seeds("examples/thesis/*.tc") + [
    "declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x derivative wrt x",
    "declare X 2 expression log(det(X)) derivative wrt X",
    "declare x 0 expression sin(x) * exp(x) / (1 + x^2) derivative wrt x",
]
DEFINITIONS = [
    ("f[i] = x[i + 1] - x[i]", {"x": (5,), "f": (4,)}),
    ("f[i, j] = exp(-sum(k, 0, 1, (a[i, k] + b[j, k])^2 * c[i, i] + d[i + k]^3))",
     {"a": (3, 2), "b": (2, 2), "c": (3, 3), "d": (4,), "f": (3, 2)}),
    ("f[i] = sum(k, i + 1, i, x[k]) + x[i]^2", {"x": (3,), "f": (3,)}),
]


NUMBERS = ["1e400", "1e308", "0", "1e-320", "(1/0)", "(0^-1)", "(1e308^2)", "(2^2000)", "(-1)", "(0/0)", "9" * 40,
           "1e308*10", "0.0", "-0", "2147483648", "1e-400", "3e2"]
NAMES = ["__import__", "os", "delta", "sum", "log", "x" * 300, "\u00e9t\u00e9", "inf", "nan", "True", "lambda", "exp",
         "declare", "minimize", "X1", "_", "__class__"]
TERMS = [" + 1/0", " + 0^-1", " + 1e308*10", " + (2*x)^2000", " * 0", " ^ 2000", " ^ -1", " ^ 0.5", " + log(-1)",
         " + sqrt(-1)", " + arcsin(3e2)", " + x^1e300", " + (x)^-0.5", " / 0", " * 1e-320"]
TOKEN = re.compile(r"\d+\.?\d*(?:e[+-]?\d+)?|[A-Za-z_]\w*|\s+|.", re.S)


@st.composite
def mutated(draw, seeds: list[str]) -> str:
    """A seed with up to 6 mutations: a number or name token replaced by a hostile one, a
    hostile term inserted after an operand (most of these keep the text well-formed), or
    characters inserted, deleted or replaced by hostile tokens."""
    tokens = TOKEN.findall(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 6))):
        k = draw(st.integers(0, max(len(tokens) - 1, 0))) if tokens else 0
        tok = tokens[k] if tokens else ""
        how = draw(st.sampled_from(["token", "term", "chars"]))
        if how == "token" and tok[:1].isdigit():
            tokens[k] = draw(st.sampled_from(NUMBERS))
        elif how == "token" and (tok[:1].isalpha() or tok[:1] == "_"):
            tokens[k] = draw(st.sampled_from(NAMES + NUMBERS))
        elif how == "term" and (tok[:1].isalnum() or tok == ")"):
            tokens.insert(k + 1, draw(st.sampled_from(TERMS)))
        else:
            end = min(len(tokens), k + draw(st.integers(0, 3)))
            token = draw(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=8)))
            tokens[k:end] = [token] if draw(st.booleans()) else []
    return "".join(tokens)


@st.composite
def expression_texts(draw) -> str:
    """A well-formed expression of tests/strategies.py, sometimes mutated."""
    text = draw(expressions(draw(st.integers(0, 2)), depth=3))
    return draw(mutated([text])) if draw(st.booleans()) else text


def hostile_values(draw, shape: tuple[int, ...]) -> np.ndarray:
    kind = draw(st.sampled_from(["normal", "nan", "inf", "zero", "huge", "tiny", "negative", "mixed"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.normal(size=shape)
    special = {"nan": np.nan, "inf": np.inf, "zero": 0.0, "huge": 1e308, "tiny": 1e-320, "negative": -1.0}
    if kind in special:
        x = np.full(shape, special[kind])
    elif kind == "mixed":
        x.flat[::2] = draw(st.sampled_from([np.nan, np.inf, -np.inf, 1e308, 0.0]))
    return x


@st.composite
def data_sets(draw):
    """Data for examples/least_squares.tc: hostile values, dtypes, shapes and names."""
    m, n = draw(st.integers(0, 5)), draw(st.integers(0, 4))
    data = {"X": hostile_values(draw, (m, n)), "y": hostile_values(draw, (m,))}
    change = draw(st.sampled_from(["none", "complex", "str", "object", "datetime", "bool", "int", "shape",
                                   "missing", "extra", "scalar", "list", "nested"]))
    if change == "complex":
        data["X"] = data["X"] + 1j
    elif change in ("str", "object", "datetime", "bool", "int"):
        dtype = {"str": "U3", "object": object, "datetime": "datetime64[s]", "bool": bool, "int": np.int64}[change]
        data["y"] = np.zeros(m, dtype=dtype)
    elif change == "shape":
        data["y"] = np.zeros((m + 1, 2))
    elif change == "missing":
        del data["y"]
    elif change == "extra":
        data["__class__"] = np.zeros(2)
    elif change == "scalar":
        data["X"] = 3.0
    elif change == "list":
        data["y"] = [1.0, "a"]
    elif change == "nested":
        data["y"] = {"a": 1}
    x0 = draw(st.sampled_from([None, "nan", "shape", "inf"]))
    method = draw(st.sampled_from(["newton", "lbfgs", "gd", "newton-cg"]))
    return data, x0, method


@st.composite
def constrained_sets(draw):
    """Data for examples/inequality_qp.tc (a QP with a row constraint G x <= h, an
    equality and box bounds): half clean and well posed or not (infeasible rows, a
    singular P, scales from 1e-8 to 1e8), half hostile values and shapes; every method."""
    m, n = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    if draw(st.booleans()):
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        scale = 10.0 ** draw(st.integers(-8, 8))
        F = rng.normal(size=(n, draw(st.integers(0, n))))
        data = {"P": scale * F @ F.T, "t": rng.normal(size=n), "G": rng.normal(size=(m, n)),
                "h": rng.normal(size=m) * draw(st.sampled_from([0.0, 0.1, 1.0, 10.0]))}
    else:
        F = hostile_values(draw, (n, n))
        with np.errstate(all="ignore"):            # huge entries overflow to inf: hostile too
            P = F @ F.T if draw(st.booleans()) else F
        data = {"P": P, "t": hostile_values(draw, (n,)), "G": hostile_values(draw, (m, n)),
                "h": hostile_values(draw, (m,))}
        if draw(st.booleans()):
            data[draw(st.sampled_from(sorted(data)))] = hostile_values(draw, (draw(st.integers(0, 3)),))
    return data, draw(st.sampled_from(["newton", "lbfgs", "newton-cg", "auto"]))


@st.composite
def kink_sets(draw):
    """Data for examples/lasso.tc or svm_hinge.tc (kinks lifted into epigraphs): clean,
    degenerate (zero or duplicated columns, lam 0 or huge) or hostile; every method."""
    m, n = draw(st.integers(0, 6)), draw(st.integers(0, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if draw(st.booleans()):
        X = rng.normal(size=(m, n)) * 10.0 ** draw(st.integers(-6, 6))
        if n and draw(st.booleans()):
            X[:, -1] = X[:, 0] if draw(st.booleans()) else 0.0
        data = {"X": X, "y": np.sign(rng.normal(size=m)), "lam": draw(st.sampled_from([0.0, 1e-8, 1.0, 1e8]))}
    else:
        data = {"X": hostile_values(draw, (m, n)), "y": hostile_values(draw, (m,)),
                "lam": float(hostile_values(draw, ()))}
    problem = draw(st.sampled_from([LASSO, SVM_HINGE]))
    return problem, data, draw(st.sampled_from(["newton", "lbfgs", "newton-cg", "auto"]))


# ----------------------------------------------------------------------------- targets

def thesis(text: str) -> None:
    inp = tc.parse(text)
    _run_both(inp.derivative() if inp.wrt else inp.expr, inp.orders)


def expression(text: str) -> None:
    expr = tc.parse_expr(text, VARIABLES)
    names = sorted(tc.variables(expr))
    d = tc.derivative(expr, names[0]) if names else expr
    _run_both(d, VARIABLES)


def definition(case) -> None:
    text, shapes = case
    expr = tc.parse_def(text, shapes)
    _run_both(expr, {n: len(s) for n, s in shapes.items()}, shapes)


def problem(case) -> None:
    text, analyse = case
    p = convexcheck.load_problem(text)
    if analyse:
        dims = {n: v for n, v in DIMENSIONS.items() if n in p.dimension_names()}
        convexcheck.analyze(p, samples=2, dims=dims)


def solve(case) -> None:
    data, x0, method = case
    start = {"nan": {"w": np.full(4, np.nan)}, "shape": {"w": np.zeros(7)}, "inf": {"w": np.full(4, np.inf)}}
    solvers.minimize(LEAST_SQUARES, data=data, x0=start.get(x0), method=method, max_iter=20)


LEAST_SQUARES = convexcheck.load_problem(ROOT / "examples" / "least_squares.tc")
INEQUALITY_QP = convexcheck.load_problem(ROOT / "examples" / "inequality_qp.tc")
LASSO = convexcheck.load_problem(ROOT / "examples" / "lasso.tc")
SVM_HINGE = convexcheck.load_problem(ROOT / "examples" / "svm_hinge.tc")


def kinks(case) -> None:
    problem, data, method = case
    solvers.minimize(problem, data=data, method=method, max_iter=30)


def constrained(case) -> None:
    data, method = case
    solvers.minimize(INEQUALITY_QP, data=data, method=method, max_iter=30)


def _run_both(expr, orders: dict, shapes: dict | None = None) -> None:
    """Evaluate and compile-and-run `expr` at small arrays of every variable it reads."""
    rng = np.random.default_rng(0)
    present = tc.variables(expr)
    values = {n: rng.normal(size=(shapes or {}).get(n, (2,) * orders.get(n, present[n].order))) for n in present}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tc.evaluate(expr, values)
        tc.compile(expr)(**values)


def honest(seed: int) -> None:
    """Solver honesty (tests/honesty.py): the input of `seed` solved; a false success or a
    false 'no minimiser' / 'infeasible' raises Dishonest (a bug), as an escaping
    undocumented exception does."""
    verdict = honesty.judge(honesty.case(seed))
    if verdict.kind == "documented":
        raise tc.TensorCalcError(verdict.detail)
    if verdict.kind != "ok":
        raise honesty.Dishonest(f"{verdict.kind}: {verdict.detail}")


TARGETS = {"thesis": thesis, "expression": expression, "definition": definition, "problem": problem,
           "solve": solve, "constrained": constrained, "kinks": kinks, "honesty": honest}


def drive(target: str, value) -> Outcome:
    """Run one input; a documented error is an outcome, anything else a bug (with its type)."""
    start = time.perf_counter()
    try:
        TARGETS[target](value)
        kind, detail = "ok", ""
    except DOCUMENTED as err:
        kind, detail = "documented", type(err).__name__
    except Exception as err:  # noqa: BLE001 - the harness reports what escaped
        kind, detail = "bug", f"{type(err).__name__}: {str(err)[:300]}"
    return Outcome(kind, time.perf_counter() - start, detail)
