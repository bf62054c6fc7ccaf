"""Kinks lifted into constraints: abs and relu of affine arguments, and maxes, as epigraph
variables.

The Newton and quasi-Newton methods need a twice differentiable objective; the lasso's
lam * sum(abs(w)), the hinge loss sum(relu(1 - y .* (X * w))), an L1 fit or a max (read
as b + relu(a - b)) have kinks exactly where their solutions lie, and a method walking
on them stalls there. Each such term met where the function grows with it is replaced
by a new variable t of its shape, with entrywise constraints

    abs(A):   A - t <= 0,  -A - t <= 0          relu(A):   A - t <= 0,  t >= 0
    max(A_1, ..., A_k):   A_i - t <= 0 for every i

(the standard epigraph reformulation, Boyd and Vandenberghe 4.1.3). It is exact: where
the term's weight is positive, a minimiser has t = |A| (relu(A), the max); where it is 0,
t does not matter. "Grows with it": the site is reached from the objective (or from the g
of a constraint g <= 0) through sums, negations, gathers and products whose other factors
are constants or parameters declared nonneg, with an even number of sign changes on the
way. For abs and relu, A is affine in the free variables (`tensorcalc.degree`), so the
new constraints are affine. A max is `b + relu(a - b)` as `maximum(a, b)` and `max(x)`
write it, nested maxes flattened; it grows with every operand, so each operand is
rewritten first, and a max whose operands are then smooth (no kink of the variables
left) is lifted: max(abs(A x - b)) with affine rows, maximum(x' * x, 1 - sum(x)) with a
smooth convex row for the interior point. Anything else (abs under a square, abs of a
curved argument, a kink that the objective falls with) is left as it is.

The lifted problem is smooth; with affine rows, a quadratic objective (lasso, SVM)
becomes a QP for `qp`. `solvers.api` reports the result in the original variables.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

import tensorcalc as tc
from convexcheck.model import Attributes
from tensorcalc import Expr, dag
from tensorcalc.dag import Const, Elementwise, Product, Sum, Var
from tensorcalc.degree import degree

from .data import Constraint, Free, Task, variables

KINKS = ("abs", "relu")
LABEL = "epigraph"           # labels of the added constraints: "epigraph 1", ...


@dataclasses.dataclass
class Lifted:
    """The smooth task and what was added to it: the names of the new variables and the
    labels of the new constraints."""

    task: Task
    added: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()


def lift(task: Task) -> Lifted:
    """The task with every liftable kink of the objective and of its `<=` constraints
    replaced (see the module docstring); the task itself when there is none."""
    declarations = task.problem.declarations
    names = frozenset(v.name for v in task.free)
    nonneg = frozenset(n for n, d in declarations.items()
                       if d.kind == "parameter" and d.attributes.lower is not None and d.attributes.lower >= 0)
    expr, rewritten, sites = _rewritten(task.expr, tuple(c.expr if c.kind == "<=" else None for c in task.constraints),
                                        names, names | frozenset(task.fixed) | frozenset(declarations), nonneg)
    if not sites:
        return Lifted(task)
    constraints = [dataclasses.replace(c, expr=e) if e is not None else c for c, e in zip(task.constraints, rewritten)]
    free, x0, added, labels = list(task.free), dict(task.x0), [], []
    for k, (fn, args, t) in enumerate(sites, 1):
        values = [_value(A, task, x0) for A in args]
        # t >= |A| bounds t below already: a bound t >= 0 beside it would make three
        # constraints meet where A = 0 (degenerate, and badly conditioned near there)
        free.append(Free(t.name, values[0].shape, Attributes(lower=0.0) if fn == "relu" else Attributes()))
        x0[t.name] = np.max([np.abs(v) for v in values], axis=0) + 1.0   # strictly inside every row
        added.append(t.name)
        rows = [dag.sub(A, t) for A in args] + ([dag.sub(dag.neg(args[0]), t)] if fn == "abs" else [])
        for row in rows:
            label = f"{LABEL} {len(labels) + 1}"
            constraints.append(Constraint(label, f"{fn}(...) <= {t.name}", "<=", row, 0))
            labels.append(label)
    lifted = dataclasses.replace(task, expr=expr, free=tuple(free), x0=x0, constraints=tuple(constraints))
    return Lifted(lifted, tuple(added), tuple(labels))


@lru_cache(maxsize=128)
def _rewritten(expr: Expr, constraints: tuple[Expr | None, ...], names: frozenset, taken: frozenset,
               nonneg: frozenset):
    """(objective, `<=` constraints (None for the others), sites) rewritten by one walk:
    a function of the expressions and the names alone, so kept for the next solve of the
    same problem, which then walks nothing."""
    walk = _Walk(names, taken, nonneg)
    out = walk.rewrite(expr)
    rows = tuple(None if c is None else walk.rewrite(c) for c in constraints)
    return out, rows, tuple(walk.sites)


class _Walk:
    """Finds and replaces the liftable sites (one walk per expression, a cache per node):
    `names` the free variables, `taken` every name in use, `nonneg` the parameters
    declared >= 0."""

    def __init__(self, names: frozenset, taken: frozenset, nonneg: frozenset):
        self.names, self.taken, self.nonneg = names, set(taken), nonneg
        self.sites: list[tuple[str, Expr, Var]] = []
        self.done: dict[tuple, Expr] = {}

    def rewrite(self, node: Expr, sign: int = 1) -> Expr:
        """`node` with its liftable sites replaced; `sign` is +1 where the whole grows with
        `node`, -1 where it falls (under a negation or a negative weight)."""
        key = (node, sign)
        if key not in self.done:
            self.done[key] = self._rewrite(node, sign)
        return self.done[key]

    def _rewrite(self, node: Expr, sign: int) -> Expr:
        operands = _max_operands(node) if sign > 0 else []
        if operands:
            return self._max(node, [self.rewrite(a, sign) for a in operands])
        if isinstance(node, Sum):
            return dag.rebuild(node, tuple(self.rewrite(a, sign) for a in node.args))
        if isinstance(node, Product):
            return self._product(node, sign)
        if isinstance(node, dag.Gather):                   # linear: reads entries of its argument
            return dag.rebuild(node, (self.rewrite(node.args[0], sign),))
        if isinstance(node, Elementwise) and node.fn == "neg":
            return dag.rebuild(node, (self.rewrite(node.args[0], -sign),))
        if (sign > 0 and isinstance(node, Elementwise) and node.fn in KINKS
                and degree(node.args[0], self.names) <= 1):
            return self._site(node.fn, (node.args[0],), node.axes)
        return node

    def _max(self, node: Expr, operands: list[Expr]) -> Expr:
        """A max of operands smooth after their own rewriting as a site; else the max
        of the rewritten operands, nested as written."""
        if all(self._smooth(a) for a in operands):
            return self._site("max", tuple(operands), node.axes)
        best = operands[0]
        for a in operands[1:]:
            best = dag.add(a, dag.elementwise("relu", dag.sub(best, a)))
        return best

    def _product(self, node: Product, sign: int) -> Expr:
        """Into the one factor that reads a free variable, when the others have one sign."""
        reading = [k for k, a in enumerate(node.args) if self.names & variables(a).keys()]
        signs = [self._sign(a) for k, a in enumerate(node.args) if k not in reading]
        if len(reading) != 1 or 0 in signs:
            return node
        args = list(node.args)
        args[reading[0]] = self.rewrite(args[reading[0]], sign * int(np.prod(signs)))
        return dag.rebuild(node, tuple(args))

    def _smooth(self, expr: Expr) -> bool:
        """No kink (abs, relu, sign) of the free variables left in expr."""
        return not any(isinstance(n, Elementwise) and n.fn in KINKS + ("sign",) and self.names & variables(n).keys()
                       for n in dag.topo(expr))

    def _sign(self, node: Expr) -> int:
        """+1 (-1) for a weight known >= 0 (<= 0), 0 when unknown."""
        if isinstance(node, Const):
            return 1 if node.value >= 0 else -1
        if isinstance(node, Var):
            return 1 if node.name in self.nonneg else 0
        return 1 if isinstance(node, dag.Delta) else 0

    def _site(self, fn: str, args: tuple[Expr, ...], axes) -> Var:
        name = f"t_{fn}"
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        t = dag.var(name, axes)
        self.sites.append((fn, args, t))
        return t


def _max_operands(node: Expr) -> list[Expr]:
    """The operands of a max written b + relu(a - b), nested maxes flattened (a, then b);
    [] for any other node."""
    if not (isinstance(node, Sum) and isinstance(node.args[1], Elementwise) and node.args[1].fn == "relu"):
        return []
    b, inner = node.args[0], node.args[1].args[0]
    if not (isinstance(inner, Sum) and isinstance(inner.args[1], Elementwise) and inner.args[1].fn == "neg"
            and inner.args[1].args[0] is b):
        return []
    a = inner.args[0]
    return (_max_operands(a) or [a]) + (_max_operands(b) or [b])


def _value(A: Expr, task: Task, x0: dict) -> np.ndarray:
    """A at the start (its shape is the new variable's)."""
    present = variables(A)
    values = {n: np.asarray(a) for n, a in {**task.fixed, **x0}.items() if n in present}
    return np.asarray(tc.evaluate(A, values), dtype=float)


__all__ = ["lift", "Lifted", "LABEL"]
