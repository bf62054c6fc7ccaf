"""What a solve is given, checked: the problem, its parameter arrays, the starting point.

`read(problem, data, x0)` turns a parsed problem (or a file path, problem text, a bare
tensorcalc expression, or a CVXPY Problem) plus arrays by name into a `Task`: the scalar
objective as written, the free variables with their shapes and declared bounds, the
fixed arrays, and the starting point; `prepare` is the task a solver minimises (a
`maximize` objective negated: `solvers.task.reductions.Maximize`). A variable given in `data` is held
fixed at that value (so `data={"V": V}` solves for U alone). Every rejection is a
`SolverError` naming the array, the axis or dimension, and the fix.

Constraints (`g <= h`, `g >= h`, `g == h`) become `Constraint`s c(x) <= 0 or c(x) == 0;
variables that appear only in constraints are free too. The starting point, given or
default, is made by `solvers.task.start`.
"""
from __future__ import annotations

import dataclasses
import math
import os
import weakref
from types import MappingProxyType
from typing import Mapping

import numpy as np

import tensorcalc as tc
from convexcheck import load_problem
from convexcheck.bridge.translate import frozen
from convexcheck.problem.admissible import in_bounds
from convexcheck.problem.model import Declaration, Declarations, Part, Problem
from solvers.task.distributed import lazy, prepared
from solvers.task.records import MAX_DATA_ENTRIES, Constraint, Free, SolverError, Task, check_real
from solvers.task.reductions import MAXIMIZE
from solvers.task.start import start
from tensorcalc import Expr, dag
from tensorcalc.arrays import is_cupy, is_dask, library
from tensorcalc.memo import memoized


def prepare(problem: object, data: Mapping[str, object] | None = None, x0: object = None) -> Task:
    """The task a solver minimises: `read`, a maximised objective negated (`Maximize`)."""
    return MAXIMIZE.apply(read(problem, data, x0))[0]


def read(problem: object, data: Mapping[str, object] | None = None, x0: object = None) -> Task:
    """Check everything a solve needs before any device work; see the module docstring.
    The task's objective is the one written (sign 1), to be reduced (`reductions`)."""
    problem, data = translated(problem, data)
    data = _arrays(data or {}, "data")
    problem = _as_problem(problem, data, x0)
    _check_solvable(problem)
    present = _variables_of(tuple(part.expr for part in problem.parts))
    declared = problem.variables                          # a dict built per access: once
    problem = _fix(problem, [n for n in data if n in declared])
    _check_names(problem, data, present)
    free_decls = [d for n, d in problem.variables.items() if n in present]
    if not free_decls:
        raise SolverError("nothing to optimise: every variable of the objective has a value in data")
    x0 = _start_values(x0, free_decls)
    sizes = _sizes(problem, {**data, **x0})
    free = tuple(Free(d.name, _shape(d, sizes), d.attributes) for d in free_decls)
    for decl in problem.parameters.values():
        if decl.name in data and not is_dask(data[decl.name]):
            _check_attributes(decl, data[decl.name])
    fixed = prepared({n: data[n] for n in data if n in present}, problem.declarations)
    constraints = [_constraint(part) for part in problem.constraints]
    names = {v.name for v in free}
    return Task(problem, problem.objective.expr, 1.0, free, fixed, start(free, x0),
                tuple(c for c in constraints if _reads(c, names) or not _holds(c, fixed)))


def _reads(c: Constraint, names: set[str]) -> bool:
    return bool(names & variables(c.expr).keys())


def _holds(c: Constraint, fixed: dict) -> bool:
    """Whether a constraint that reads no free variable holds for the data (it is then
    dropped); SolverError naming it when it does not: no point is feasible."""
    if any(is_dask(a) for a in fixed.values()):
        raise SolverError(f"{c.label} ({c.text}, line {c.line}) reads no variable; with Dask data "
                          f"check it before the solve and drop it")
    value = np.asarray(tc.evaluate(c.expr, {n: np.asarray(a) for n, a in fixed.items()}), dtype=float)
    excess = np.abs(value) if c.kind == "==" else np.maximum(value, 0.0)
    worst = float(excess.max(initial=0.0)) if np.isfinite(excess).all() else math.inf
    if worst > 1e-12 * max(1.0, float(np.abs(value).max(initial=0.0))):
        raise SolverError(f"{c.label} ({c.text}, line {c.line}) reads no variable and does not hold "
                          f"for the data (violated by {worst:.3g}): no point is feasible; fix the data "
                          f"or the constraint")
    return True


def _constraint(part: Part) -> Constraint:
    """c <= 0 or c == 0 from a constraint part (its expr is g - h)."""
    if part.need == "affine":
        return Constraint(part.label, part.text, "==", part.expr, part.line)
    expr = part.expr if part.need == "convex" else dag.neg(part.expr)
    return Constraint(part.label, part.text, "<=", expr, part.line)


def refuse_constraints(task: Task, what: str) -> None:
    """SolverError when `what` (a method that keeps no constraints) is given a task with
    constraints or symmetric matrix variables."""
    if task.constraints:
        first = task.constraints[0]
        raise SolverError(f"{what} handles no constraints; this problem has "
                          f"{len(task.constraints)} constraint(s), the first on line {first.line}: "
                          f"{first.text}; use solvers.minimize")
    for v in task.free:
        if v.attributes.is_symmetric:
            raise SolverError(f"{what} does not keep variable {v.name!r} {v.attributes.describe()}; "
                              f"use solvers.minimize")


# ----------------------------------------------------------------------------- the problem

def translated(problem: object, data: Mapping[str, object] | None) -> tuple[object, Mapping[str, object] | None]:
    """(problem, data), a CVXPY Problem or Expression translated by `convexcheck.from_cvxpy`
    (its parameter and constant values joined to `data`, which wins where both name an
    array); anything else as it is. CVXPY is imported only when given one of its objects."""
    if library(problem) != "cvxpy":
        return problem, data
    from convexcheck import from_cvxpy
    parsed, values = from_cvxpy(problem)
    return parsed, {**values, **(data or {})}


def _as_problem(problem, data: dict, x0) -> Problem:
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, Expr):
        return _expression_problem(problem, data)
    if isinstance(problem, (str, os.PathLike)):
        return load_problem(problem)
    raise SolverError(f"minimize takes a problem (convexcheck.load_problem), a .tc path, problem "
                      f"text, a tensorcalc expression or a CVXPY Problem, not {type(problem).__name__}")


@memoized(maxsize=4096)
def variables(expr: Expr) -> MappingProxyType:
    """`tc.variables(expr)`, kept: expressions are immutable and hash-consed, so the
    answer never changes; read-only, as it is shared."""
    return MappingProxyType(tc.variables(expr))


@memoized(maxsize=256)
def _variables_of(exprs: tuple[Expr, ...]) -> MappingProxyType:
    """The variables the expressions read, by name: the same for every solve of one problem
    (expressions are immutable and hash-consed), so kept; read-only, as it is shared."""
    return MappingProxyType({n: v for e in exprs for n, v in tc.variables(e).items()})


def _expression_problem(expr: Expr, data: dict) -> Problem:
    """A bare expression: names in `data` are parameters, the others variables; the
    dimensions are the unified axes, so tied axes share one dimension name."""
    if expr.order != 0:
        raise SolverError(f"the objective must be a scalar; this expression has order {expr.order}: "
                          f"wrap it in a sum")
    decls = {}
    for name, v in tc.variables(expr).items():
        dims = tuple(f"{a.var}.{a.pos}" if a.var else f"{name}.{k}" for k, a in enumerate(v.axes))
        kind = "parameter" if name in data else "variable"
        decls[name] = Declaration(name, kind, dims)
    text = tc.to_text(expr, limit=200)
    return Problem(Declarations(decls), "minimize", Part("objective", text, expr, "convex"))


def _check_solvable(problem: Problem) -> None:
    if problem.sense == "expression":
        raise SolverError("an `expression` problem has nothing to optimise: write `minimize` or "
                          "`maximize` before the objective")


def _fix(problem: Problem, names: list[str]) -> Problem:
    """Variables given values become parameters (of the analysis as well)."""
    if not names:
        return problem
    decls = {n: dataclasses.replace(d, kind="parameter") if n in names else d
             for n, d in problem.declarations.items()}
    return dataclasses.replace(problem, declarations=Declarations(decls))


def _check_names(problem: Problem, data: dict, present) -> None:
    for name in data:
        if name not in problem.declarations:
            known = ", ".join(problem.declarations) or "none"
            raise SolverError(f"data has an array {name!r} that the problem does not declare "
                              f"(declared: {known})")
    missing = [n for n in problem.parameters if n in present and n not in data]
    if missing:
        raise SolverError(f"no value for parameter(s) {', '.join(map(repr, missing))}: pass them in "
                          f"data (convexcheck solve: --data FILE.npz with arrays of these names)")


# ----------------------------------------------------------------------------- arrays

def _arrays(values, what: str) -> dict[str, np.ndarray]:
    if not hasattr(values, "items"):
        raise SolverError(f"{what} must be a dict of arrays by name, not {type(values).__name__}")
    return {str(name): _array(value, f"{what}[{name!r}]") for name, value in values.items()}


def _array(value, where: str) -> np.ndarray:
    """`value` as a checked float64 NumPy array; a Dask array stays one (`distributed.lazy`)."""
    if type(value) is np.ndarray and value.dtype == np.float64:       # already one: its size, its entries
        return _finite_array(value, where)
    if is_dask(value):
        return lazy(value, where)
    if is_cupy(value):
        value = value.get()
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise SolverError(f"{where} is not an array of numbers ({exc})") from None
    check_real(array.dtype, where)
    if array.size > MAX_DATA_ENTRIES:
        raise SolverError(f"{where} has {array.size:,} entries, over {MAX_DATA_ENTRIES:,}")
    return _finite_array(array.astype(np.float64, copy=False), where)


def _finite_array(array: np.ndarray, where: str) -> np.ndarray:
    """`array` (float64) after the checks of its size and of finite entries (a bridge's
    frozen constant once: `convexcheck.bridge.translate.frozen`, its values cannot change)."""
    if array.size > MAX_DATA_ENTRIES:
        raise SolverError(f"{where} has {array.size:,} entries, over {MAX_DATA_ENTRIES:,}")
    if _FINITE.get(id(array)) is array and frozen(array):
        return array
    if not np.isfinite(array).all():
        bad = np.argwhere(~np.isfinite(array))
        place = tuple(int(i) for i in bad[0])
        raise SolverError(f"{where} has {len(bad)} entries that are NaN or infinite, the first at "
                          f"index {place}: clean or impute the data first")
    if frozen(array):
        _FINITE[id(array)] = array
    return array


_FINITE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()     # id -> a frozen constant found finite


def _start_values(x0, free_decls: list[Declaration]) -> dict[str, np.ndarray]:
    if x0 is None:
        return {}
    if not hasattr(x0, "items"):
        if len(free_decls) != 1:
            raise SolverError(f"x0 must be a dict by variable name: the problem has "
                              f"{len(free_decls)} free variables")
        x0 = {free_decls[0].name: x0}
    values = _arrays(x0, "x0")
    names = {d.name for d in free_decls}
    for name in values:
        if name not in names:
            raise SolverError(f"x0 has a value for {name!r}, which is not a free variable of the "
                              f"objective (free: {', '.join(sorted(names))})")
    return values


def _sizes(problem: Problem, arrays: dict[str, np.ndarray]) -> dict[str, int]:
    """Named dimension lengths read off the arrays; every place a name is read must agree."""
    sizes: dict[str, int] = {}
    where: dict[str | int, str] = {}
    for name, array in arrays.items():
        decl = problem.declarations[name]
        if array.ndim != len(decl.dims):
            raise SolverError(f"{name!r} is declared with {len(decl.dims)} axes {_dims(decl)} but "
                              f"its array has shape {array.shape}")
        for k, (dim, length) in enumerate(zip(decl.dims, array.shape)):
            here = f"axis {k} of {name!r}"
            if isinstance(dim, int) and dim != length:
                raise SolverError(f"{here} has length {length}, but the declaration says {dim}")
            if length == 0:
                raise SolverError(f"dimension {dim!r} has length 0 ({here}): there is nothing to "
                                  f"solve over empty data; give at least one entry")
            if isinstance(dim, str) and sizes.setdefault(dim, length) != length:
                raise SolverError(f"{here} has length {length}, but dimension {dim!r} has length "
                                  f"{sizes[dim]} from {where[dim]}")
            where.setdefault(dim, here)
    return sizes


def _shape(decl: Declaration, sizes: dict[str, int]) -> tuple[int, ...]:
    for dim in decl.dims:
        if isinstance(dim, str) and dim not in sizes:
            raise SolverError(f"cannot tell the length of dimension {dim!r} of variable "
                              f"{decl.name!r}: no array in data has it; pass x0[{decl.name!r}]")
    return tuple(d if isinstance(d, int) else sizes[d] for d in decl.dims)


def _dims(decl: Declaration) -> str:
    return "[" + ", ".join(map(str, decl.dims)) + "]"


def _check_attributes(decl: Declaration, array: np.ndarray) -> None:
    """Parameters must satisfy what they are declared to be: the verdict depends on it."""
    a, name = decl.attributes, decl.name
    if not in_bounds(a, array):
        raise SolverError(f"parameter {name!r} is declared {a.describe()} but has entries outside "
                          f"(min {array.min():g}, max {array.max():g})")
    if a.is_symmetric:
        # np.allclose's test (|a - a'| <= atol + rtol |a'|) without its inf/nan handling:
        # the entries are finite by now, and this runs on every solve
        if not (np.abs(array - array.T) <= 1e-12 * max(1.0, np.abs(array).max()) + 1e-10 * np.abs(array.T)).all():
            raise SolverError(f"parameter {name!r} is declared {a.describe()} but is not symmetric")
        if a.definite:
            _check_definite(name, a.definite, array)


def _check_definite(name: str, definite: str, array: np.ndarray) -> None:
    """SolverError unless sign * array is positive definite (pd, nd) or semidefinite up to
    1e-10 of its largest eigenvalue (psd, nsd). A Cholesky factor of the matrix (shifted
    by 1e-10 of its largest diagonal entry, at most that eigenvalue, for psd) accepts it
    at a quarter of the cost of the eigenvalues (n = 1000), computed only to refuse."""
    sign = 1.0 if definite in ("psd", "pd") else -1.0
    M = sign * (array + array.T) / 2
    if definite in ("psd", "nsd"):
        M = M + 1e-10 * max(1.0, float(np.abs(np.diagonal(M)).max(initial=0.0))) * np.eye(len(M))
    from scipy.linalg import lapack
    if lapack.dpotrf(M, lower=1, clean=0)[1] == 0:      # scipy.linalg.cholesky's test, unwrapped
        return
    eig = np.linalg.eigvalsh((array + array.T) / 2)
    scale = max(1.0, float(np.abs(eig).max()))
    low = float((sign * eig).min())
    ok = low > 0 if definite in ("pd", "nd") else low >= -1e-10 * scale
    if not ok:
        raise SolverError(f"parameter {name!r} is declared {definite} but has eigenvalue "
                          f"{sign * low:.3g}")
