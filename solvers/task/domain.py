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
from tensorcalc.arrays import is_cupy, is_dask
from tensorcalc.dag import Const, Power, Special, topo
from tensorcalc.memo import memoized
from tensorcalc.store import cache

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
    """The arguments' compiled function (through the disk cache, as the objective's: a later
    process compiles nothing) and the names it reads."""
    program = cache.cached("compiled", (args,), lambda: tc.compile(list(args)), cache.compiled_data,
                           cache.compiled_from)[0]
    return program, tuple({n for a in args for n in tc.variables(a)})


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


@dataclass(frozen=True)
class Component:
    """The domain component a start lies in, as sides of its conditions' arguments: every
    entry that met its condition strictly at the start keeps its side (u > 0 stays > 0, a
    nonzero u keeps its sign, u >= 0 stays >= 0, a nonsingular matrix keeps the sign of
    its determinant). A convex objective written with a pole (inv_pos as x^-1 on x != 0)
    or a ratio (rel_entr's log(p / q), finite where p, q < 0 too) is convex on the
    component only; a step across the pole runs off into the other one. `args`: the
    entrywise arguments, then the matrices; `strict`, `signs`, `weak`: flat indices into
    the entrywise ones, raveled and joined (sign * u > 0 at `strict`, u >= 0 at `weak`);
    `dets`: each matrix's determinant sign at the start."""

    args: tuple[Expr, ...]
    entrywise: int                # how many of args are entrywise (the rest are matrices)
    strict: np.ndarray
    signs: np.ndarray
    weak: np.ndarray
    dets: tuple[float, ...]

    def holds(self, arrays: Mapping[str, object]) -> bool:
        """Whether the point `arrays` (by name: free and fixed; NumPy or CuPy) lies in the
        component: one compiled evaluation of every argument."""
        found = values(self.args, {n: _host(arrays[n]) for n in _program(self.args)[1]})
        got = [v for v in found if v is not None]
        if len(got) < len(found):
            return False
        if self.entrywise:
            flat = np.concatenate([v.reshape(-1) for v in got[:self.entrywise]])
            if not (np.all(flat[self.strict] * self.signs > 0) and np.all(flat[self.weak] >= 0)):
                return False
        return all(_det_sign(v) == s for v, s in zip(got[self.entrywise:], self.dets))


def component(task: Task, conds: tuple[Condition, ...]) -> Component | None:
    """The `Component` of the task's start x0 for `conds` (some of `conditions(task)`);
    None where none holds strictly there, there are none (nothing is evaluated), or the
    task's data are Dask arrays."""
    if not conds or any(is_dask(a) for a in task.fixed.values()):
        return None
    got = values(tuple(c.arg for c in conds), {**task.fixed, **task.x0})
    sides = [(c.arg, _sides(c.kind, v)) for c, v in zip(conds, got) if v is not None and c.kind != "nonsingular"]
    sides = [(arg, side) for arg, side in sides if side.any()]
    dets = [(c.arg, _det_sign(v)) for c, v in zip(conds, got) if c.kind == "nonsingular"]
    dets = [(arg, s) for arg, s in dets if s]
    if not sides and not dets:
        return None
    side = np.concatenate([s for _, s in sides]) if sides else np.zeros(0)
    strict = np.flatnonzero(np.abs(side) == 1)
    return Component(tuple(a for a, _ in sides) + tuple(a for a, _ in dets), len(sides), strict, side[strict],
                     np.flatnonzero(side == 2), tuple(s for _, s in dets))


def _sides(kind: str, v: np.ndarray) -> np.ndarray:
    """Per entry of v (raveled): +1 or -1 the strict side kept, 2 kept >= 0 (nonneg), 0 none."""
    v = v.reshape(-1)
    with np.errstate(invalid="ignore"):
        if kind == "nonneg":
            return np.where(v >= 0, 2.0, 0.0)
        if kind == "positive":
            return np.where(v > 0, 1.0, 0.0)
        return np.where(np.isfinite(v), np.sign(v), 0.0)


def _det_sign(m: np.ndarray | None) -> float:
    """The sign of det(m) (0 where singular or not finite; for a stack, where the signs differ)."""
    if m is None or m.ndim < 2 or not np.isfinite(m).all():
        return 0.0
    sign = np.linalg.slogdet(m)[0].reshape(-1)
    return float(sign[0]) if np.all(sign == sign[0]) else 0.0


def _host(a: Any) -> Any:
    return a.get() if is_cupy(a) else a
