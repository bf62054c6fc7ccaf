"""The implicit domain of a task as conditions a start must meet: `conditions` and `unmet`.

A solve starts where the objective, the constraints and their derivatives are finite.
The arguments that decide it are those whose implicit domains convexcheck derives
(`convexcheck.signs.domain.domain_facts`, with `interior`: where the Hessian exists):

- "positive" (u > 0): the argument of log, the base of a power with a fractional exponent
  below 1 (sqrt, x^0.5: value finite at 0, gradient not; sqrt(sum(x^2)) of a 2-norm, whose
  gradient is 0/0 at x = 0) or below 0;
- "nonneg" (u >= 0): the base of a fractional power above 1;
- "nonzero" (u != 0): the argument of recip (x / y), and here also the base of a negative
  integer power (inv_pos's x^-1; the sign analysis needs no fact for it, the start does);
- "nonsingular": the matrix inv reads (tr_inv, matrix_frac; log(det(M)) is "positive" on
  det(M)).

Only arguments that read a free variable count: data is checked where it is read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

import tensorcalc as tc
from convexcheck.signs.domain import domain_facts
from convexcheck.signs.intervals import Interval, excludes_zero
from solvers.task.records import Task
from tensorcalc import Expr, TensorCalcError, dag
from tensorcalc.dag import Const, Power, Special, topo
from tensorcalc.memo import memoized

RULES = {"positive": "> 0", "nonneg": ">= 0", "nonzero": "!= 0", "nonsingular": "nonsingular"}
CONDITIONED = 1e12          # a "nonsingular" matrix's largest condition number


@dataclass(frozen=True)
class Condition:
    """`arg` must be `kind` (a key of RULES) at every entry; `where` names the part read."""

    arg: Expr
    kind: str
    where: str

    def describe(self) -> str:
        """The condition as text, e.g. "x - 1 > 0 in the objective"."""
        return f"{tc.to_text(self.arg, limit=80)} {RULES[self.kind]} in {self.where}"


def conditions(task: Task) -> tuple[Condition, ...]:
    """Every condition of the objective and the constraints on an argument that reads a
    free variable, each argument once (the first part that reads it names it)."""
    names = frozenset(v.name for v in task.free)
    where = ["the objective"] + [f"{c.label}: {c.text}" for c in task.constraints]
    found = _found((task.expr, *(c.expr for c in task.constraints)), names)
    return tuple(Condition(arg, kind, where[k]) for arg, kind, k in found)


@memoized(maxsize=64)
def _found(exprs: tuple[Expr, ...], names: frozenset[str]) -> tuple[tuple[Expr, str, int], ...]:
    """(argument, kind, index of the first expression with it) for `conditions`, kept per
    problem (one entry, however many constraints it has)."""
    found: dict[Expr, tuple[Expr, str, int]] = {}
    for k, expr in enumerate(exprs):
        for arg, kind in _kinds(expr).items():
            if arg not in found and names & set(tc.variables(arg)):
                found[arg] = (arg, kind, k)
    return tuple(found.values())


def _kinds(expr: Expr) -> dict[Expr, str]:
    """The kind of condition on each argument with one in `expr` (the module docstring)."""
    expr = _folded(expr)
    kinds = {arg: kind for arg, iv in domain_facts(expr, interior=True).items() if (kind := _kind(iv))}
    for node in topo(expr):
        if isinstance(node, Power) and isinstance(node.args[1], Const) and node.args[1].value < 0:
            kinds.setdefault(node.args[0], "nonzero")
        elif isinstance(node, Special) and node.fn == "inv":
            kinds.setdefault(node.args[0], "nonsingular")
    return kinds


def _folded(expr: Expr) -> Expr:
    """`expr` with every exponent that reads no variable a number (a p-norm's `^ (1 / 3)`
    is a quotient as written; the domain facts read numbers), in one walk."""
    new: dict[Expr, Expr] = {}
    for node in topo(expr):
        args = tuple(new.get(a, a) for a in node.args)
        if isinstance(node, Power) and not isinstance(args[1], Const) and not tc.variables(args[1]):
            args = (args[0], dag.const(float(tc.evaluate(args[1], {}))))
        if args != node.args:
            new[node] = dag.rebuild(node, args)
    return new.get(expr, expr)


def _kind(iv: Interval) -> str | None:
    if iv.nonneg:
        return "positive" if excludes_zero(iv) else "nonneg"
    return "nonzero" if excludes_zero(iv) else None


def unmet(conds: tuple[Condition, ...], task: Task, x: Mapping[str, np.ndarray]) -> list[Condition]:
    """The conditions that do not hold at x (arrays by free variable's name)."""
    if not conds:
        return []
    got = values(tuple(c.arg for c in conds), {**task.fixed, **x})
    return [c for c, v in zip(conds, got) if not holds(c, v)]


def values(args: tuple[Expr, ...], arrays: Mapping[str, object]) -> list[np.ndarray | None]:
    """Every argument evaluated by one compiled function (kept per tuple of arguments: a
    second solve of the problem compiles nothing; 500 norm constraints' arguments in 1.3 ms
    against 110 ms one by one); one by one (`value`) where one has no value (a singular inv)."""
    program, names = _program(args)
    try:
        with np.errstate(all="ignore"):
            return [np.asarray(v, dtype=float) for v in program({n: arrays[n] for n in names})]
    except TensorCalcError:
        return [value(a, arrays) for a in args]


@memoized(maxsize=64)
def _program(args: tuple[Expr, ...]) -> tuple[Any, tuple[str, ...]]:
    return tc.compile(list(args)), tuple({n for a in args for n in tc.variables(a)})


def value(arg: Expr, values: Mapping[str, object]) -> np.ndarray | None:
    """`arg` evaluated (None where it has no value: inv of a singular matrix)."""
    try:
        return np.asarray(tc.evaluate(arg, {n: values[n] for n in tc.variables(arg)}), dtype=float)
    except TensorCalcError:
        return None


def holds(c: Condition, got: np.ndarray | None) -> bool:
    """Whether the value `got` of `c.arg` meets `c` at every entry."""
    if got is None or not np.isfinite(got).all():
        return False
    if c.kind == "nonsingular":
        return bool(np.linalg.cond(got) < CONDITIONED)
    test = {"positive": got > 0, "nonneg": got >= 0, "nonzero": got != 0}[c.kind]
    return bool(np.all(test))
