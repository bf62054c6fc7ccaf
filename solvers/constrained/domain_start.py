"""A start strictly inside the implicit domain, found before the solve: `inside`.

Where the start (given, or the default of `solvers.task.start`) meets every condition of
`solvers.task.domain` it is kept as it is. Otherwise phase one moves it:

    minimise  -s + (w/2) sum_v |x_v - x0_v|^2
    subject to  sign * u(x) >= s  for every condition on an affine argument u
                (positive, nonneg; nonzero with each entry's sign at x0),
                sym(M(x)) - s I = S, S psd, for a matrix M(x) that must be nonsingular
                (pd is enough), the task's affine constraints, its bounds and cones,
                s <= 1,

a convex problem solved by the interior-point method: the point nearest x0 whose smallest
margin s is as large as the weight w allows (w = 1e-2, then w = 0 where that margin is not
positive: the largest margin any point has). An entry of a nonzero argument that is 0 at
x0 is asked to be positive, then, where that leaves no margin, negative. An argument that
is not affine is split where that is sound: det(M) > 0 and recip(u) > 0 from M pd and
u > 0, a product without a summed index from positive factors, a power's value from a
positive base. The others (the sum of squares under a 2-norm's sqrt) have no target:
phase one then only moves x0 onto the affine constraints, and a deterministic
perturbation of its point (seeded, scales 1e-3 to 1) moves it off the kink. Every
candidate is checked by evaluating the conditions. A start is only a start: the problem
solved is the same.

An empty domain: where every target is exact (u > 0 or u >= 0 of an affine u; not a sign
chosen, a pd matrix, a split argument), phase one converged with a largest margin <=
MARGIN shows, to its tolerance, that no point strictly inside the domain meets the affine
constraints and bounds, and `inside` raises a `SolverError` that names them and the
conditions (the objective is defined nowhere on the feasible set: there is nothing to
solve, as CVXPY's "infeasible"). Where phase one does not conclude and no candidate
passes, the start is left as it was and the solve reports it as before.
"""
from __future__ import annotations

import dataclasses
from typing import Iterator

import numpy as np

import tensorcalc as tc
from convexcheck.problem.admissible import in_bounds
from convexcheck.problem.model import Attributes
from solvers.constrained import dispatch, kept
from solvers.methods.newton import Newton
from solvers.methods.options import Options
from solvers.objective.constraints import affine_in
from solvers.objective.smooth import Objective
from solvers.result import Status
from solvers.task.domain import Component, Condition, component, conditions, unmet, value
from solvers.task.records import Constraint, Free, SolverError, Task
from tensorcalc import Expr, dag
from tensorcalc.arrays import is_dask
from tensorcalc.dag import Const, Elementwise, Power, Product, Special
from tensorcalc.memo import memoized

WEIGHTS = (1e-2, 0.0)        # phase one's pull towards x0, then none
MARGIN = 1e-9                # a margin above this is strictly inside
SCALES = (1e-3, 1e-2, 1e-1, 1.0)
GTOL, TOL = 1e-9, 1e-12


@dataclasses.dataclass(frozen=True)
class Target:
    """What phase one asks of an affine argument: sign * u >= s entrywise (`sign` None:
    +1), or, `matrix`, sym(u) - s I psd. `exact`: whether the condition it stands for holds
    strictly only where the target's margin is positive (u > 0, u >= 0 of an affine u), not
    merely where it is (a sign chosen for u != 0, pd for nonsingular, a split argument)."""

    u: Expr
    sign: np.ndarray | None = None
    matrix: bool = False
    exact: bool = False
    chosen: bool = False          # a sign chosen where u is 0 at x0
    size: int = 0                 # the matrix's order


def inside(task: Task, ignored: frozenset[Expr] = frozenset()) -> Task:
    """`task` with its start moved strictly inside the domain where it is not there (the
    module docstring); SolverError where phase one shows that no point is. Conditions on
    the arguments in `ignored` (those a later reduction takes away: a 2-norm's sum of
    squares, kept as a cone) do not count."""
    if any(is_dask(a) for a in task.fixed.values()):
        return task
    conds = tuple(c for c in conditions(task) if c.arg not in ignored)
    if not conds or not unmet(conds, task, task.x0):
        return task
    start = (ignored, tuple((n, a.shape, a.tobytes()) for n, a in sorted(task.x0.items())))
    found = kept.STARTS.find(task, start)           # a re-solve from the same start: phase one done
    if found is not None:
        return dataclasses.replace(task, x0=dict(found))
    point = _phase_one(task, conds)
    for x in _candidates(task, point if point is not None else task.x0):
        if not unmet(conds, task, x):
            kept.STARTS.keep(task, {n: _read_only(a) for n, a in x.items()}, start)
            return dataclasses.replace(task, x0=x)
    return task


def _read_only(a: np.ndarray) -> np.ndarray:
    """A copy of `a` no one can write: a kept start is shared by the solves that find it."""
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a


def narrowing(task: Task) -> tuple[Condition, ...]:
    """The task's conditions whose start's component is narrower than where f is finite, so
    that only `domain.Component` keeps it: u != 0 (a pole, f finite on both sides), a
    nonsingular matrix, u > 0 or u >= 0 of an argument that is not affine (rel_entr's
    p / q > 0, also where p, q < 0; sqrt(x y)). u > 0 or u >= 0 of an affine u (log, entr,
    fractional powers) needs no check: f is nan or inf beyond it, so the domain is the
    component (and analytic_center's 10 iterations pay nothing, 0.8 ms)."""
    names = tuple(v.name for v in task.free)
    return _narrowing(conditions(task), names)


@memoized(maxsize=64)
def _narrowing(conds: tuple[Condition, ...], names: tuple[str, ...]) -> tuple[Condition, ...]:
    return tuple(c for c in conds if not (c.kind in ("positive", "nonneg") and affine_in(c.arg, names)))


def kept_component(task: Task) -> Component | None:
    """The start's `domain.Component` of the `narrowing` conditions, the one an
    `Objective` keeps; None where it has none."""
    return component(task, narrowing(task))


def closure_rows(task: Task, ignored: frozenset[Expr] = frozenset()) -> Task:
    """`task` with a row sign * u >= 0 (c = -sign * u <= 0, labelled "domain of ...") for
    every affine target (`_targets`; not a matrix, no sign chosen at 0) that holds strictly
    at every entry at the start, of a condition whose component is narrower than where it
    holds: u != 0 (the side of a pole), or u > 0 of an argument that is not affine (p / q);
    `task` itself where there is none. Their closure is that of the start's component,
    which the interior-point method approaches through its barrier: a convex objective
    finite on the boundary (rel_entr's p log(p / q) at p, q -> 0) has its infimum there,
    and a solve with no barrier jams there. u > 0 of an affine u (log, entr) gets no row:
    its domain is its component, and solves kept it before (rows cost kl_projection three
    iterations)."""
    conds = tuple(c for c in narrowing(task) if c.arg not in ignored)
    if not conds:
        return task
    at = {**task.fixed, **task.x0}
    found: dict[Expr, Target] = {}
    for t in (t for c in conds for t in _targets(task, c, 1.0)):
        got = None if t.matrix or t.chosen else value(t.u, at)
        side = 1.0 if t.sign is None else t.sign
        if got is not None and t.u not in found and bool(np.all(side * got > 0)):
            found[t.u] = t
    if not found:
        return task
    fresh = _Fresh(set(task.problem.declarations) | {v.name for v in task.free} | set(task.fixed))
    fixed, rows = dict(task.fixed), []
    for t in found.values():
        u = t.u
        if t.sign is not None:
            signs = dag.var(fresh("sign_domain"), u.axes)
            fixed[signs.name] = t.sign
            u = dag.hadamard(signs, u)
        text = tc.to_text(t.u, limit=60)
        rows.append(Constraint(f"domain of {text}", f"{text} on its side of 0", "<=", dag.neg(u)))
    return dataclasses.replace(task, fixed=fixed, constraints=task.constraints + tuple(rows))


def _targets(task: Task, cond: Condition, side: float) -> list[Target]:
    """What phase one asks so that `cond` holds: its argument's margin where affine, or
    the targets of the parts that imply it (module docstring); [] where none do. An
    argument that must be nonzero keeps each entry's sign at x0, `side` where it is 0."""
    names = tuple(v.name for v in task.free)
    return _split(cond.arg, cond.kind, names, {**task.fixed, **task.x0}, side)


def _split(u: Expr, kind: str, names: tuple[str, ...], values: dict, side: float) -> list[Target]:
    """`_targets` of the condition that u is `kind`."""
    if not affine_in(u, names):
        return [t for part, k in _parts(u, kind) if set(names) & set(dag.variables(part))
                for t in _split(part, k, names, values, side)]
    if kind == "nonsingular":
        got = value(u, values)
        return [] if got is None else [Target(u, matrix=True, size=got.shape[0])]
    if kind == "nonzero":
        got = value(u, values)
        if got is None:
            return [Target(u)]
        sign = np.where(got < 0, -1.0, np.where(got > 0, 1.0, side))
        return [Target(u, None if (sign > 0).all() else sign, chosen=bool((got == 0).any()))]
    return [Target(u, exact=kind in ("positive", "nonneg"))]


def _parts(u: Expr, kind: str) -> list[tuple[Expr, str]]:
    """The arguments whose conditions imply u's `kind` (positive only), with theirs."""
    if kind != "positive":
        return []
    if isinstance(u, Special) and u.fn == "det":
        return [(u.args[0], "nonsingular")]
    if isinstance(u, Elementwise) and u.fn == "recip":
        return [(u.args[0], "positive")]
    if isinstance(u, Power) and isinstance(u.args[1], Const):
        return [(u.args[0], "positive")]
    if isinstance(u, Product) and set(u.spec.out) >= set("".join(u.spec.inputs)):
        return [(a, "positive") for a in u.args if not isinstance(a, Const)]
    return []


def _phase_one(task: Task, conds: tuple[Condition, ...]) -> dict[str, np.ndarray] | None:
    """The point phase one finds with a positive margin (with no target, the point nearest
    x0 that meets the affine constraints: a start near a 2-norm's kink that breaks them is
    a poor one); None where it has neither targets nor affine constraints, does not
    converge, or converges with no margin where a target is not exact (another sign, a
    matrix that is not pd, may still be inside); SolverError where every target is exact."""
    names = tuple(v.name for v in task.free)
    affine = any(affine_in(c.expr, names) for c in task.constraints)
    for side in (1.0, -1.0):
        targets = [t for c in conds for t in _targets(task, c, side)]
        if not targets and not affine:
            return None               # nothing to move towards: the candidates perturb x0
        found, margin = _margin(task, targets)
        if found is not None or margin is None:
            return found
        if targets and all(t.exact for t in targets):
            raise SolverError(_empty(task, conds, margin))
        if not any(t.chosen for t in targets):
            return None               # no sign chosen at 0: the other side is the same phase
    return None


def _margin(task: Task, targets: list[Target]) -> tuple[dict[str, np.ndarray] | None, float | None]:
    """(the phase-one point, None) where its margin is positive, else (None, the largest
    margin); (None, None) where phase one does not converge."""
    margin = -np.inf
    for weight in WEIGHTS:
        phase = Phase.of(task, targets, weight)
        x = _solve(phase.task)
        if x is None:
            return None, None
        margin = float(x[phase.margin])
        if margin > MARGIN:
            return {v.name: x[v.name] for v in task.free}, None
    return None, margin


def _solve(phase: Task) -> dict[str, np.ndarray] | None:
    """The phase-one point where the interior-point method converges, else None."""
    obj = Objective(phase, np)
    opts = Options(gtol=GTOL, tol=TOL, max_iter=200, convex=True, second_order=False)
    out = dispatch.solve(phase, obj, "newton", lambda: Newton(GTOL, TOL), opts, GTOL, TOL)
    if out.status != Status.CONVERGED:
        return None
    return {n: np.asarray(a, dtype=float) for n, a in obj.unpack(out.z).items()}


def _empty(task: Task, conds: tuple[Condition, ...], margin: float) -> str:
    """The SolverError's message: the affine constraints, the conditions, the margin, the fix."""
    names = tuple(v.name for v in task.free)
    affine = [f"{c.label} ({c.text})" for c in task.constraints if affine_in(c.expr, names)]
    meeting = f"meets {', '.join(affine)} and the declared bounds" if affine else "meets the declared bounds"
    return (f"no point strictly inside the domain {meeting}: the domain needs "
            f"{'; '.join(c.describe() for c in conds)}, and the largest margin any point reaches is "
            f"{margin:.3g} (phase one, a convex problem solved to {GTOL:g}), so the objective or a constraint "
            f"is defined nowhere on the feasible set; check the constraints against the domain")


def _candidates(task: Task, x: dict[str, np.ndarray]) -> Iterator[dict[str, np.ndarray]]:
    """x, then x moved by a deterministic positive vector at each of SCALES (relative to
    1 + max|x_v|), forwards and back, within the declared bounds; symmetric matrix
    variables stay where they are."""
    yield x
    rng = np.random.default_rng(0)
    pushes = {v.name: rng.uniform(0.5, 1.0, v.shape) for v in task.free if not v.attributes.is_symmetric}
    if not pushes:
        return
    for scale in SCALES:
        for sign in (1.0, -1.0):
            moved = {n: a + sign * scale * (1.0 + float(np.abs(a).max(initial=0.0))) * pushes[n]
                     if n in pushes else a for n, a in x.items()}
            if all(in_bounds(v.attributes, moved[v.name]) for v in task.free):
                yield moved


@dataclasses.dataclass(frozen=True)
class Phase:
    """The phase-one task of the module docstring and the name of its margin s."""

    task: Task
    margin: str

    @classmethod
    def of(cls, task: Task, targets: list[Target], weight: float) -> "Phase":
        """Phase one for `task` with its `targets`, pulled towards task.x0 with `weight`."""
        fresh = _Fresh(set(task.problem.declarations) | {v.name for v in task.free} | set(task.fixed))
        s = dag.var(fresh("s_margin"), ())
        fixed, free, x0, rows = dict(task.fixed), list(task.free), dict(task.x0), []
        for k, target in enumerate(targets, 1):
            label = f"domain {k}"
            if target.matrix:
                slack = dag.var(fresh("S_domain"), target.u.axes)
                free.append(Free(slack.name, (target.size, target.size), Attributes(definite="psd")))
                x0[slack.name] = np.eye(target.size)
                rows.append(Constraint(label, "sym(M) - s I psd", "==", _matrix_row(target.u, s, slack)))
            else:
                rows.append(Constraint(label, "margin <= argument", "<=", _margin_row(target, s, fresh, fixed)))
        names = tuple(v.name for v in task.free)
        rows += [c for c in task.constraints if affine_in(c.expr, names)]
        free.append(Free(s.name, (), Attributes(upper=1.0)))
        x0[s.name] = np.asarray(-1.0)
        expr = _pull(task, s, weight, fresh, fixed)
        phase = dataclasses.replace(task, expr=expr, sign=1.0, free=tuple(free), fixed=fixed, x0=x0,
                                    constraints=tuple(rows))
        return cls(phase, s.name)


def _margin_row(target: Target, s: Expr, fresh: "_Fresh", fixed: dict) -> Expr:
    """s - sign * u (sign a new fixed array where it is not all +1)."""
    u = target.u
    if target.sign is not None:
        signs = dag.var(fresh("sign_domain"), u.axes)
        fixed[signs.name] = target.sign
        u = dag.hadamard(signs, u)
    return dag.sub(dag.scale(s, dag.const(1.0, u.axes)) if u.order else s, u)


def _matrix_row(u: Expr, s: Expr, slack: Expr) -> Expr:
    """(u + u')/2 - s I - S, zero where sym(u) - s I is the psd S."""
    transposed = dag.product(u, dag.const(1.0), ("ab", "", "ba"))
    sym = dag.scale(dag.const(0.5), dag.add(u, transposed))
    return dag.sub(dag.sub(sym, dag.scale(s, dag.delta(1, u.axes))), slack)


def _pull(task: Task, s: Expr, weight: float, fresh: "_Fresh", fixed: dict) -> Expr:
    """-s + (weight / 2) sum_v |x_v - x0_v|^2 (x0_v new fixed arrays)."""
    if weight == 0:
        return dag.neg(s)
    found = {n: v for e in (task.expr, *(c.expr for c in task.constraints)) for n, v in dag.variables(e).items()}
    terms = []
    for v in task.free:
        x = found[v.name]
        at = dag.var(fresh(f"x0_{v.name}"), x.axes)
        fixed[at.name] = task.x0[v.name]
        d = dag.sub(x, at)
        index = "abcdefgh"[:x.order]
        terms.append(dag.product(d, d, (index, index, "")))
    return dag.add(dag.neg(s), dag.scale(dag.const(weight / 2), dag.add_all(terms)))


class _Fresh:
    """Names not yet taken: `fresh("s")` is "s", "s_", ... the first one free, then taken."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken)

    def __call__(self, name: str) -> str:
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name
