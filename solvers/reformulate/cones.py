"""2-norms of affine arguments as second-order cones.

The language writes norm2(x) as sqrt(sum(x .^ 2)) (and CVXPY's norm through the bridge
the same way), whose gradient is 0/0 where the argument is 0: a solve whose optimum has
a zero residual, or a constraint norm(u) <= 1 met at u = 0, stalls there. Where the
function grows with such a norm (the objective, or the g of a constraint g <= 0, reached
through sums, negations, gathers and products by weights of known sign, an even number of
sign changes on the way, as `epigraph` walks) and its argument U is affine in the free
variables, the norm becomes a second-order cone the interior-point method keeps
(`solvers.numerics.soc`):

    a constraint  norm(U) + rest <= 0, rest affine:   the cones (U, -rest), the row dropped
    any other site:   a new variable t of the norm's shape, the cones (U, t)
    sum(U .^ 2) / T (quad_over_lin, scalar), T affine:   a new scalar t and the rotated
        cone ||U||^2 <= t T, as the cone ||(2U, t - T)|| <= t + T

(Boyd and Vandenberghe 4.4.2). It is exact: where the weight is positive a minimiser has
t = norm(U). A norm over some axes of U (sqrt(sum(U .^ 2, axis))) is one cone per entry
of the result; all the cones of one site are one `SecondOrder` record, so 500 rows of one
vector constraint are one batch. Recognised sums of squares: sum(U .^ 2) over any axes
(a contraction of U .^ 2 with ones), U' * U and a scalar's u ^ 2. Anything else is left as
it is.
"""
from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np

from convexcheck.problem.model import Attributes
from solvers.constrained import dispatch as constrained
from solvers.reformulate.restore import Undo, at_start, original
from solvers.task.prepare import Free, Task, variables
from solvers.task.records import Constraint, SecondOrder
from tensorcalc import Expr, dag
from tensorcalc.algebra.degree import degree
from tensorcalc.dag import Const, Elementwise, Power, Product, Sum, Var
from tensorcalc.memo import memoized


class Norm(NamedTuple):
    """A recognised norm node: its affine argument U and the permutation of U's axes
    that puts the norm's axes (the cones) first and the summed ones (the entries) last."""

    u: Expr
    perm: tuple[int, ...]


@dataclasses.dataclass
class Coned:
    """The task with cones, what was added (new variables' names) and which constraint
    labels became cones alone (their rows dropped)."""

    task: Task
    added: tuple[str, ...] = ()
    direct: tuple[str, ...] = ()


def cones(task: Task) -> Coned:
    """The task with every recognised norm replaced (see the module docstring); the task
    itself where there is none."""
    names = frozenset(v.name for v in task.free)
    nonneg = frozenset(n for n, d in task.problem.declarations.items()
                       if d.kind == "parameter" and d.attributes.lower is not None and d.attributes.lower >= 0)
    taken = names | frozenset(task.fixed) | frozenset(task.problem.declarations)
    expr, rows, found, direct, sites = _plan(task.expr, task.constraints, names, taken, nonneg)
    if not found and not sites:
        return Coned(task)
    kept = [c if e is c.expr else dataclasses.replace(c, expr=e) for c, e in zip(task.constraints, rows)
            if e is not None]
    found = list(found)
    free, x0 = list(task.free), dict(task.x0)
    values = at_start(tuple(norm.u for norm, _, _ in sites), task, x0)
    for (norm, t, over), value in zip(sites, values):
        value = value.transpose(norm.perm)
        size = np.sqrt(np.sum(value.reshape(value.shape[:t.order] + (-1,)) ** 2, axis=-1))
        free.append(Free(t.name, size.shape, Attributes()))
        x0[t.name] = size + 1.0 if over is None else size ** 2 + 1.0     # any finite start: the slacks start inside
        found.append(SecondOrder(None, norm.u, t, norm.perm) if over is None else  # ||U||^2 <= t T:
                     SecondOrder(None, dag.scale(dag.const(2.0), norm.u), dag.add(t, over), norm.perm,
                                 dag.sub(t, over)))                     # ||(2U, t - T)|| <= t + T
    coned = dataclasses.replace(task, expr=expr, free=tuple(free), x0=x0, constraints=tuple(kept),
                                cones=task.cones + tuple(found))
    return Coned(coned, tuple(t.name for _, t, _ in sites), direct)


@memoized(maxsize=64)
def _plan(expr: Expr, constraints: tuple[Constraint, ...], names: frozenset, taken: frozenset, nonneg: frozenset):
    """(objective, each constraint's expression or None where it became cones alone, the
    cones of those, their labels, the norm sites) by one walk: a function of the
    expressions and names alone, kept for the next solve of the problem (500 rows: 5 ms)."""
    walk = _Walk(names, taken, nonneg)
    found: list[SecondOrder] = []
    rows: list[Expr | None] = []
    direct: list[str] = []
    for c in constraints:
        cone = _direct(c.expr, names) if c.kind == "<=" else None
        if cone is not None:
            found.append(dataclasses.replace(cone, label=c.label))
            direct.append(c.label)
        rows.append(None if cone is not None else walk.rewrite(c.expr) if c.kind == "<=" else c.expr)
    out = walk.rewrite(expr)
    return out, tuple(rows), tuple(found), tuple(direct), tuple(walk.sites)


@memoized(maxsize=4096)
def norm_of(node: Expr, names: frozenset) -> Norm | None:
    """The norm's argument and axes where node is sqrt of a sum of squares of an argument
    affine in `names` that reads one of them; else None."""
    if not (isinstance(node, Power) and _is(node.args[1], 0.5)):
        return None
    return _squares(node.args[0], names)


@memoized(maxsize=4096)
def quad_of(node: Expr, names: frozenset) -> tuple[Norm, Expr] | None:
    """(the sum's argument, T) where node is sum(U .^ 2) / T (quad_over_lin), a scalar, with
    U and T affine in `names` and T reading one of them; else None."""
    if not (isinstance(node, Product) and not node.axes and len(node.args) == 2):
        return None
    squares, recip = node.args if isinstance(node.args[1], Elementwise) else node.args[::-1]
    if not (isinstance(recip, Elementwise) and recip.fn == "recip" and not recip.axes and not squares.axes):
        return None
    norm, T = _squares(squares, names), recip.args[0]
    if norm is None or not names & variables(T).keys() or degree(T, names) > 1:
        return None                  # a constant T leaves a smooth quadratic: no cone needed
    return norm, T


def _squares(base: Expr, names: frozenset) -> Norm | None:
    """The argument and axes of a sum of squares of an affine argument (see `norm_of`); a
    scalar's square alone counts (CVXPY's quad_over_lin(x[i], y[i]) is x[i]^2 / y[i])."""
    if isinstance(base, Power) and _is(base.args[1], 2.0) and not base.axes:
        u = base.args[0]
        return Norm(u, ()) if names & variables(u).keys() and degree(u, names) <= 1 else None
    if not isinstance(base, Product):
        return None
    letters, args = base.spec.inputs, base.args
    squared = [k for k, a in enumerate(args) if isinstance(a, Power) and _is(a.args[1], 2.0)]
    if len(args) == 2 and args[0] is args[1] and letters[0] == letters[1]:
        u, own = args[0], letters[0]                      # U' * U
    elif len(squared) == 1 and all(_is(a, 1.0) for k, a in enumerate(args) if k != squared[0]):
        u, own = args[squared[0]].args[0], letters[squared[0]]
        if any(set(letters[k]) - set(own) for k in range(len(args)) if k != squared[0]):
            return None                                   # a ones factor over another axis: a multiple
    else:
        return None
    out = base.spec.out
    if len(set(own)) != len(own) or set(out) - set(own) or not own or not names & variables(u).keys():
        return None
    if degree(u, names) > 1:
        return None
    perm = tuple(own.index(a) for a in out) + tuple(k for k, a in enumerate(own) if a not in out)
    return Norm(u, perm)


def _is(node: Expr, value: float) -> bool:
    return isinstance(node, Const) and node.value == value


@memoized(maxsize=4096)
def _direct(expr: Expr, names: frozenset) -> SecondOrder | None:
    """The cones of a row norm(U) + rest <= 0 with rest affine (and not empty, so the
    cones may have an interior), else None."""
    terms = dag.addends(expr)
    norms = [(k, norm_of(a, names)) for k, a in enumerate(terms)]
    found = [(k, n) for k, n in norms if n is not None]
    if len(found) != 1 or len(terms) < 2:
        return None
    k, norm = found[0]
    rest = dag.add_all([a for j, a in enumerate(terms) if j != k])
    if rest.axes != terms[k].axes or degree(rest, names) > 1:
        return None
    return SecondOrder(None, norm.u, dag.neg(rest), norm.perm)


class _Walk:
    """Finds and replaces the norms the function grows with (iteratively, each (node,
    sign) once): `names` the free variables, `taken` every name in use, `nonneg` the
    parameters declared >= 0."""

    def __init__(self, names: frozenset, taken: frozenset, nonneg: frozenset):
        self.names, self.taken, self.nonneg = names, set(taken), nonneg
        self.sites: list[tuple[Norm, Var, Expr | None]] = []    # (argument, new variable, T of a quad)
        self.done: dict[tuple[Expr, int], Expr] = {}

    def rewrite(self, root: Expr) -> Expr:
        stack: list[tuple[tuple[Expr, int], bool]] = [((root, 1), False)]
        while stack:
            key, ready = stack.pop()
            if key in self.done:
                continue
            children = self._children(*key)
            pending = [c for c in children if c not in self.done]
            if pending and not ready:
                stack.append((key, True))
                stack.extend((c, False) for c in reversed(pending))
                continue
            self.done[key] = self._finish(key, [self.done[c] for c in children])
        return self.done[(root, 1)]

    def _children(self, node: Expr, sign: int) -> tuple[tuple[Expr, int], ...]:
        if sign > 0 and (norm_of(node, self.names) is not None or quad_of(node, self.names) is not None):
            return ()
        if isinstance(node, (Sum, dag.Gather)):
            return tuple((a, sign) for a in node.args)
        if isinstance(node, Elementwise) and node.fn == "neg":
            return ((node.args[0], -sign),)
        if isinstance(node, Product):
            k, weight = self._reading(node)
            return () if k is None else ((node.args[k], sign * weight),)
        return ()

    def _finish(self, key: tuple[Expr, int], done: list[Expr]) -> Expr:
        node, sign = key
        norm = norm_of(node, self.names) if sign > 0 else None
        quad = quad_of(node, self.names) if sign > 0 else None
        if quad is not None:
            return self._site(quad[0], node, quad[1])
        if norm is not None:
            return self._site(norm, node, None)
        if isinstance(node, Product):
            k, _ = self._reading(node)
            return node if k is None else dag.rebuild(node, node.args[:k] + (done[0],) + node.args[k + 1:])
        return dag.rebuild(node, tuple(done)) if done else node

    def _reading(self, node: Product) -> tuple[int | None, int]:
        """(the one factor reading a free variable, the sign of the others' product), or
        (None, 0) where there is not one such factor or another's sign is unknown."""
        reading = [k for k, a in enumerate(node.args) if self.names & variables(a).keys()]
        signs = [self._sign(a) for k, a in enumerate(node.args) if k not in reading]
        if len(reading) != 1 or 0 in signs:
            return None, 0
        return reading[0], int(np.prod(signs))

    def _sign(self, node: Expr) -> int:
        if isinstance(node, Const):
            return 1 if node.value >= 0 else -1
        if isinstance(node, Var):
            return 1 if node.name in self.nonneg else 0
        return 1 if isinstance(node, dag.Delta) else 0

    def _site(self, norm: Norm, node: Expr, over: Expr | None) -> Var:
        """A new variable t_norm (t_norm_2, ...; t_quad for a sum of squares over T)."""
        kind = "norm" if over is None else "quad"
        name, count = f"t_{kind}", 1
        while name in self.taken:
            count += 1
            name = f"t_{kind}_{count}"
        self.taken.add(name)
        t = dag.var(name, node.axes)
        self.sites.append((norm, t, over))
        return t


@dataclasses.dataclass(frozen=True)
class SecondOrderCones:
    """The reduction (`solvers.task.reductions.Reduction`) of recognised norms to cones,
    for the interior-point method on the CPU: `method` "newton", or "auto" where it picks
    Newton for the coned task; any other method or device gets the task as it is.
    `invert` drops the added variables, reports `fun` and `jac` of the original objective
    at x (jac with 0 where a norm's gradient is 0/0: a subgradient there) and, where a
    norm was replaced inside a constraint by a variable, the original constraints'
    violation, held to gtol / 100 as the solve's own are (a success becomes status 1
    where it is not met)."""

    xp: Any
    method: str
    gtol: float = 1e-8

    def apply(self, task: Task) -> tuple[Task, Undo]:
        if self.xp is not np or self.method not in ("newton", "auto") or not (task.constraints or _has_norm(task)):
            return task, Undo(task, Coned(task))
        coned = cones(task)
        if self.method == "auto" and coned.task is not task and constrained.auto(coned.task) != "newton":
            return task, Undo(task, Coned(task))
        return coned.task, Undo(task, coned)

    def invert(self, result: Any, inverse: Undo) -> Any:
        task, coned = inverse.before, inverse.made
        if coned.task is task:
            return result
        check = bool(coned.added and task.constraints and any(set(coned.added) & variables(c.expr).keys()
                                                              for c in coned.task.constraints))
        return original(result, task, self.xp, coned.added,
                        lambda k: any(k.endswith(f"bound of {n}") for n in coned.added), check, self.gtol,
                        ("coned", "(a row's norms, each within its cone's tolerance, add up); "
                                  "a smaller gtol keeps them"))


def _has_norm(task: Task) -> bool:
    names = frozenset(v.name for v in task.free)
    return any(norm_of(n, names) is not None or quad_of(n, names) is not None for n in dag.topo(task.expr))


__all__ = ["cones", "Coned", "norm_of", "Norm", "SecondOrderCones"]
