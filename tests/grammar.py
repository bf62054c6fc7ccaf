"""A grammar fuzzer of valid problem files: `problem(seed)` is the text of one random problem.

Each problem declares variables and parameters of a few shapes (scalars, vectors and square
matrices of named or integer lengths, with random attributes) and states an objective and
up to two constraints, built top-down from the expression grammar of docs/problem-format.md
by shape: element-wise functions and operators, reductions to a scalar (norms, max,
log-sum-exp, quadratic forms, det, trace) and the matrix products between shapes. The text
is valid by construction apart from a few domain errors of constants, which `load_problem`
reports (ProblemError) and a driver counts as rejected. The same seed gives the same text.

`timed(seed, budget)` analyses one problem and returns its `Timing`: the time a grammar
input takes is what tests/test_budget.py checks against the analysis budget.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

SHAPES = ((), ("n",), (3,), ("n", "n"), (3, 3))
ATTRIBUTES = ("", "", "nonneg", "pos", "nonpos", ">= -1", "<= 2", ">= 1")
MATRIX_ATTRIBUTES = ("", "", "psd", "pd", "nsd", "symmetric")
NUMBERS = ("2", "0.5", "3", "1e-8", "1.5", "(-1)", "0.25", "10")
UNARY = ("exp", "log", "sqrt", "square", "abs", "relu", "huber", "log1p", "xexp", "softplus", "entr",
         "inv_pos", "sin", "cos", "tanh", "arctan", "pos", "log_sum_exp", "sign")
BINARY = ("+", "-", ".*", "./", "kl_div", "rel_entr", "maximum", "minimum", "multiply")
TO_SCALAR_VECTOR = ("sum", "norm1", "norm2", "norm", "mean", "log_sum_exp", "sum_squares", "geo_mean",
                    "max", "min", "norm_inf", "quad_over_lin", "quad_form", "inner", "matrix_frac")
TO_SCALAR_MATRIX = ("sum", "tr", "det", "logdet", "norm2", "sum_squares", "tr_inv", "max", "norm_inf")


def _fixed(shape: tuple) -> bool:
    return all(isinstance(d, int) for d in shape)


class _Grammar:
    """One problem's declarations and the expression builder over them."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.shapes = [()] + rng.sample(SHAPES[1:], rng.randint(0, 2))
        self.names: dict[tuple, list[str]] = {s: [] for s in self.shapes}
        self.lines: list[str] = []
        for k, shape in enumerate(self.shapes):
            self._declare(f"x{k}", "variable", shape)
            if rng.random() < 0.5:
                self._declare(f"p{k}", "parameter", shape)
        if rng.random() < 0.4:
            self._declare("s", "variable", ())

    def _declare(self, name: str, kind: str, shape: tuple) -> None:
        dims = f"[{', '.join(map(str, shape))}]" if shape else ""
        pool = MATRIX_ATTRIBUTES if len(shape) == 2 and self.rng.random() < 0.5 else ATTRIBUTES
        self.lines.append(f"{kind} {name}{dims} {self.rng.choice(pool)}".rstrip())
        self.names[shape].append(name)

    def expr(self, shape: tuple, depth: int) -> str:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.15:
            return self._leaf(shape)
        kind = rng.choice(["unary", "unary", "binary", "binary", "scale", "reduce", "power", "matrix"])
        if kind == "reduce" and shape == ():
            return self._reduction(depth)
        if kind == "matrix" and len(shape) >= 1:
            found = self._matrix(shape, depth)
            if found:
                return found
        if kind == "power":
            p = rng.choice(["2", "3", "0.5", "(-1)", "1.5", "4"])
            return f"({self.expr(shape, depth - 1)}) .^ {p}" if shape else f"({self.expr(shape, depth - 1)}) ^ {p}"
        if kind == "scale":
            return f"{rng.choice(NUMBERS)} * ({self.expr(shape, depth - 1)})"
        if kind == "binary":
            op = rng.choice(BINARY)
            a, b = self.expr(shape, depth - 1), self.expr(shape, depth - 1)
            return f"({a} {op} {b})" if op[0] in "+-." else f"{op}({a}, {b})"
        fn = rng.choice(UNARY)
        if fn == "log_sum_exp":                       # a reduction: only to a scalar
            fn = "exp"
        return f"{fn}({self.expr(shape, depth - 1)})"

    def _leaf(self, shape: tuple) -> str:
        names = self.names.get(shape)
        if names and self.rng.random() < 0.85:
            return self.rng.choice(names)
        if names:
            return f"({self.rng.choice(NUMBERS)} + {self.rng.choice(names)})"
        return self.rng.choice(NUMBERS)

    def _reduction(self, depth: int) -> str:
        rng = self.rng
        shape = rng.choice([s for s in self.shapes if s] or [()])
        if shape == ():
            return self.expr((), depth - 1)
        inner = self.expr(shape, depth - 1)
        fns = TO_SCALAR_VECTOR if len(shape) == 1 else TO_SCALAR_MATRIX
        fn = rng.choice([f for f in fns if _fixed(shape) or f not in ("max", "min", "norm_inf")])
        if fn == "inner":
            return f"({inner})' * ({self.expr(shape, depth - 1)})"
        if fn == "quad_over_lin":
            return f"quad_over_lin({inner}, {self.expr((), depth - 1)})"
        if fn in ("quad_form", "matrix_frac"):
            square = (shape[0], shape[0])
            matrix = rng.choice(self.names[square]) if self.names.get(square) else "eye"
            return f"{fn}({inner}, {matrix})"
        return f"{fn}({inner})"

    def _matrix(self, shape: tuple, depth: int) -> str | None:
        """A matrix product that has `shape`: A * v, diag(A), X' * X, A + eye, inv(A), diag(v)."""
        rng = self.rng
        if len(shape) == 1:
            square = (shape[0], shape[0])
            if square not in self.names:
                return None
            a = self.expr(square, depth - 1)
            return rng.choice([f"({a}) * ({self.expr(shape, depth - 1)})", f"diag({a})", f"sum({a}, 0)"])
        vector = (shape[0],)
        options = [f"({self.expr(shape, depth - 1)})' * ({self.expr(shape, depth - 1)})",
                   f"({self.expr(shape, depth - 1)}) + eye", f"inv({self.expr(shape, depth - 1)})"]
        if vector in self.names:
            options.append(f"diag({self.expr(vector, depth - 1)})")
        return rng.choice(options)

    def constraint(self, depth: int) -> str:
        shape = self.rng.choice(self.shapes)
        op = self.rng.choice(["<=", ">=", "=="])
        return f"  {self.expr(shape, depth)} {op} {self.expr(shape, max(depth - 2, 0))}"


def problem(seed: int, depth: int | None = None) -> str:
    """The text of one random, valid (up to constants' domains) problem."""
    rng = random.Random(seed)
    g = _Grammar(rng)
    depth = rng.randint(1, 6) if depth is None else depth
    sense = rng.choice(["minimize", "maximize", "expression"])
    lines = [*g.lines, f"{sense} {g._reduction(depth) if rng.random() < 0.7 else g.expr((), depth)}"]
    constraints = [g.constraint(rng.randint(1, 3)) for _ in range(rng.choice([0, 0, 1, 2]))]
    return "\n".join(lines + (["subject to", *constraints] if constraints else [])) + "\n"


@dataclass
class Timing:
    """One grammar input: its seed, 'ok', 'rejected' (a documented error) or the escaped
    error's type, its wall-clock seconds, and the verdict."""

    seed: int
    outcome: str
    seconds: float
    verdict: str = ""


def timed(seed: int, budget: float | None = None, samples: int = 4) -> Timing:
    """Analyse problem(seed) with `samples` points per part and the given budget (None:
    the default), timing it."""
    import convexcheck
    import tensorcalc as tc
    from convexcheck.budget import Budget
    text = problem(seed)
    start = time.perf_counter()
    try:
        options = {} if budget is None else {"budget": Budget(seconds=budget)}
        report = convexcheck.analyze(text, samples=samples, **options)
        return Timing(seed, "ok", time.perf_counter() - start, report.verdict)
    except tc.TensorCalcError:
        return Timing(seed, "rejected", time.perf_counter() - start)
    except Exception as err:  # noqa: BLE001 - the driver reports what escaped
        return Timing(seed, f"{type(err).__name__}: {err}"[:300], time.perf_counter() - start)
