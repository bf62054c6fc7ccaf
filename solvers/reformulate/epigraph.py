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
way. For abs and relu, A is affine in the free variables (`tensorcalc.algebra.degree`), so the
new constraints are affine. A max is `b + relu(a - b)` as `maximum(a, b)` and `max(x)`
write it, nested maxes flattened; it grows with every operand, so each operand is
rewritten first, and a max whose operands are then smooth (no kink of the variables
left) is lifted: max(abs(A x - b)) with affine rows, maximum(x' * x, 1 - sum(x)) with a
smooth convex row for the interior point. Anything else (abs under a square, abs of a
curved argument, a kink that the objective falls with) is left as it is.

In a problem with constraints, huber(A) of an affine A where the function grows with it
is split as min over w of w^2 + 2 |A - w| (a new variable w, then the abs lifted as
above), so that a robust fit under constraints (the Kalman smoother) is a QP for `qp`'s
sparse path; without constraints Newton's method on the smooth Huber term is faster
(a 450 x 300 Huber fit: 37 ms, against 0.55 s split) and it stays.

More than GROUP scalar kinks of one kind (a sum written term by term, one abs per
neighbour pair) take the entries of one vector variable (`t_abs_entries`) instead of a
variable each: the Newton matrix's program has a block per pair of variables.

The lifted problem is smooth; with affine rows, a quadratic objective (lasso, SVM)
becomes a QP for `qp`. `solvers.api` reports the result in the original variables.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, NamedTuple

import numpy as np

import tensorcalc as tc
from convexcheck.problem.model import Attributes
from solvers.reformulate.restore import at_start
from solvers.task.prepare import Constraint, Free, Task, variables
from tensorcalc import Expr, dag
from tensorcalc.algebra.degree import degree
from tensorcalc.dag import Axis, Const, Elementwise, Product, Sum, Var
from tensorcalc.gather.affine import gather
from tensorcalc.graph import substitute
from tensorcalc.memo import memoized

KINKS = ("abs", "relu")
GROUP = 64                   # more scalar sites of one kind than this share one vector variable
LABEL = "epigraph"           # labels of the added constraints: "epigraph 1", ...


@dataclasses.dataclass
class Lifted:
    """The smooth task and what was added to it: the names of the new variables and the
    labels of the new constraints."""

    task: Task
    added: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()


def lift(task: Task, huber: bool = True) -> Lifted:
    """The task with every liftable kink of the objective and of its `<=` constraints
    replaced (see the module docstring), Huber terms split where `huber` and the task has
    constraints; the task itself when there is none."""
    declarations = task.problem.declarations
    names = frozenset(v.name for v in task.free)
    nonneg = frozenset(n for n, d in declarations.items()
                       if d.kind == "parameter" and d.attributes.lower is not None and d.attributes.lower >= 0)
    taken = names | frozenset(task.fixed) | frozenset(declarations)
    expr, rewritten, sites, splits = _rewritten(task.expr, tuple(c.expr if c.kind == "<=" else None
                                                                for c in task.constraints), names, taken, nonneg,
                                                huber and bool(task.constraints))
    if not sites:
        return Lifted(task)
    task, split = _with_splits(task, splits)
    sites, table, vectors = _vectorised(sites, set(taken) | {t.name for _, _, t in sites})
    if table:
        expr = substitute(expr, table)
        rewritten = tuple(None if e is None else substitute(e, table) for e in rewritten)
    constraints = [dataclasses.replace(c, expr=e) if e is not None else c for c, e in zip(task.constraints, rewritten)]
    free, x0 = list(task.free), dict(task.x0)
    added: list[str] = []
    labels: list[str] = []
    starts: dict[str, list] = {T.name: [] for _, T in vectors}
    for (fn, args, t), values in zip(sites, _site_values(sites, task)):
        values = values if values is not None else [_value(A, task, x0) for A in args]
        start = _start(values)
        if isinstance(t, Var):
            free.append(Free(t.name, values[0].shape, _attributes(fn)))
            x0[t.name] = start
            added.append(t.name)
        else:
            starts[t.args[0].name].append(start)
        rows = [dag.sub(A, t) for A in args] + ([dag.sub(dag.neg(args[0]), t)] if fn == "abs" else [])
        for row in rows:
            label = f"{LABEL} {len(labels) + 1}"
            constraints.append(Constraint(label, f"{fn}(...) <= {_shown(t)}", "<=", row, 0))
            labels.append(label)
    for fn, T in vectors:
        free.append(Free(T.name, (len(starts[T.name]),), _attributes(fn)))
        x0[T.name] = np.array(starts[T.name], dtype=float)
        added.append(T.name)
    lifted = dataclasses.replace(task, expr=expr, free=tuple(free), x0=x0, constraints=tuple(constraints))
    return Lifted(lifted, split + tuple(added), tuple(labels))


def _with_splits(task: Task, splits: tuple[tuple[Var, Expr], ...]) -> tuple[Task, tuple[str, ...]]:
    """The task with each Huber split's w a free variable (`_Walk._huber`), started at its
    minimiser clip(A, -1, 1) at the start; and their names."""
    if not splits:
        return task, ()
    free, x0 = list(task.free), dict(task.x0)
    for w, A in splits:
        value = _value(A, task, x0)
        free.append(Free(w.name, value.shape, Attributes()))
        x0[w.name] = np.clip(value, -1.0, 1.0)
    return dataclasses.replace(task, free=tuple(free), x0=x0), tuple(w.name for w, _ in splits)


def _attributes(fn: str) -> Attributes:
    """relu's t >= 0 as a bound; t >= |A| bounds t below already, and a bound t >= 0
    beside it would make three constraints meet where A = 0 (degenerate, and badly
    conditioned near there)."""
    return Attributes(lower=0.0) if fn == "relu" else Attributes()


def _vectorised(sites: tuple, taken: set) -> tuple[list, dict, list]:
    """(sites, table, vectors): the scalar sites of each kind past GROUP (a sum of
    thousands of abs(x[i + 1] - x[i]) terms, written term by term) take the entries
    T[k] of one vector variable T instead of a variable each, so that the Newton
    matrix's program has one block per pair of variables, not millions; `table` maps
    each replaced scalar variable to its entry, `vectors` lists (kind, T)."""
    out, table, vectors = list(sites), {}, []
    for fn in dict.fromkeys(fn for fn, _, _ in sites):
        scalars = [k for k, (kind, _, t) in enumerate(sites) if kind == fn and not t.axes]
        if len(scalars) <= GROUP:
            continue
        name = next(n for n in (f"t_{fn}_entries{'' if j == 0 else f'_{j}'}" for j in range(len(taken) + 1))
                    if n not in taken)
        taken.add(name)
        T = dag.var(name, (Axis(name, 0),))
        for j, k in enumerate(scalars):
            kind, args, t = sites[k]
            table[t] = gather(T, 0, (), (len(scalars),), [((), j, 1)], (), ())
            out[k] = (kind, args, table[t])
        vectors.append((fn, T))
    return out, table, vectors


def _shown(t: Expr) -> str:
    """An epigraph variable or entry (a gather of one) as the constraints' text names it."""
    if isinstance(t, Var):
        return t.name
    assert isinstance(t, dag.Gather) and isinstance(t.args[0], Var), type(t).__name__
    return f"{t.args[0].name}[{t.rows[0][1]}]"


@memoized(maxsize=128)
def _rewritten(expr: Expr, constraints: tuple[Expr | None, ...], names: frozenset, taken: frozenset,
               nonneg: frozenset, huber: bool = False):
    """(objective, `<=` constraints (None for the others), sites) rewritten by one walk:
    a function of the expressions and the names alone, so kept for the next solve of the
    same problem, which then walks nothing."""
    walk = _Walk(names, taken, nonneg, huber)
    out = walk.rewrite(expr)
    rows = tuple(None if c is None else walk.rewrite(c) for c in constraints)
    return out, rows, tuple(walk.sites), tuple(walk.splits)


class _Step(NamedTuple):
    """What one (node, sign) of the walk needs, and how its result is built from theirs."""

    children: tuple[tuple[Expr, int], ...]
    finish: Callable[[list[Expr]], Expr]


class _Walk:
    """Finds and replaces the liftable sites (one walk per expression, a cache per node):
    `names` the free variables, `taken` every name in use, `nonneg` the parameters
    declared >= 0; with `huber`, Huber terms of affine arguments are split (`_huber`)."""

    def __init__(self, names: frozenset, taken: frozenset, nonneg: frozenset, huber: bool = False):
        self.names, self.taken, self.nonneg, self.huber = names, set(taken), nonneg, huber
        self.sites: list[tuple[str, tuple[Expr, ...], Var]] = []
        self.splits: list[tuple[Var, Expr]] = []      # (w, A) of each huber(A) split (`_huber`)
        self.done: dict[tuple, Expr] = {}
        self.counts: dict[str, int] = {}           # the last number given to each kind of site

    def rewrite(self, root: Expr, sign: int = 1) -> Expr:
        """`root` with its liftable sites replaced; `sign` is +1 where the whole grows with
        `root`, -1 where it falls (under a negation or a negative weight).

        Iterative, in dependency order (each (node, sign) after what it needs, children
        left to right, as a recursive walk would meet them, so sites are numbered the
        same), each (node, sign) once: no depth of nesting reaches Python's recursion
        limit."""
        stack: list[tuple[tuple[Expr, int], _Step | None]] = [((root, sign), None)]
        while stack:
            key, step = stack.pop()
            if key in self.done:
                continue
            if step is None:
                step = self._step(*key)
                pending = [c for c in step.children if c not in self.done]
                if pending:
                    stack.append((key, step))
                    stack.extend((c, None) for c in reversed(pending))
                    continue
            self.done[key] = step.finish([self.done[c] for c in step.children])
        return self.done[(root, sign)]

    def _step(self, node: Expr, sign: int) -> _Step:
        operands = _max_operands(node) if sign > 0 else []
        if operands:
            return _Step(tuple((a, sign) for a in operands), lambda done: self._max(node, done))
        if isinstance(node, (Sum, dag.Gather)):             # a gather is linear: reads entries of its argument
            return _Step(tuple((a, sign) for a in node.args), lambda done: dag.rebuild(node, tuple(done)))
        if isinstance(node, Product):
            return self._product(node, sign)
        if isinstance(node, Elementwise) and node.fn == "neg":
            return _Step(((node.args[0], -sign),), lambda done: dag.rebuild(node, tuple(done)))
        if (sign > 0 and isinstance(node, Elementwise) and node.fn in KINKS
                and degree(node.args[0], self.names) <= 1):
            return _Step((), lambda done: self._site(node.fn, (node.args[0],), node.axes))
        if (self.huber and sign > 0 and isinstance(node, Elementwise) and node.fn == "huber"
                and degree(node.args[0], self.names) == 1):
            return _Step((), lambda done: self._huber(node.args[0], node.axes))
        return _Step((), lambda done: node)

    def _huber(self, A: Expr, axes) -> Expr:
        """huber(A) = min over w of w^2 + 2 |A - w| (the minimiser w = clip(A, -1, 1)): a new
        variable w and the abs site of A - w, so that a Huber fit becomes a QP."""
        w = dag.var(self._name("w_huber"), axes)
        self.splits.append((w, A))
        t = self._site("abs", (dag.sub(A, w),), axes)
        return dag.add(dag.power(w, dag.const(2.0)), dag.scale(dag.const(2.0), t))

    def _max(self, node: Expr, operands: list[Expr]) -> Expr:
        """A max of operands smooth after their own rewriting as a site; else the max
        of the rewritten operands, nested as written."""
        if all(self._smooth(a) for a in operands):
            return self._site("max", tuple(operands), node.axes)
        best = operands[0]
        for a in operands[1:]:
            best = dag.add(a, dag.elementwise("relu", dag.sub(best, a)))
        return best

    def _product(self, node: Product, sign: int) -> _Step:
        """Into the one factor that reads a free variable, when the others have one sign."""
        reading = [k for k, a in enumerate(node.args) if self.names & variables(a).keys()]
        signs = [self._sign(a) for k, a in enumerate(node.args) if k not in reading]
        if len(reading) != 1 or 0 in signs:
            return _Step((), lambda done: node)
        k = reading[0]
        replaced = lambda done: dag.rebuild(node, node.args[:k] + (done[0],) + node.args[k + 1:])  # noqa: E731
        return _Step(((node.args[k], sign * int(np.prod(signs))),), replaced)

    def _smooth(self, expr: Expr) -> bool:
        """No kink (abs, relu, sign) of the free variables left in expr."""
        return not any(isinstance(n, Elementwise) and n.fn in KINKS + ("sign",) and self.names & variables(n).keys()
                       for n in dag.topo(expr))

    def _sign(self, node: Expr) -> int:
        """+1 (-1) for a weight known >= 0 (<= 0), 0 when unknown; a reciprocal has its
        argument's sign and a product of known signs their product (`/ m` is `* recip(m)`)."""
        if isinstance(node, Const):
            return 1 if node.value >= 0 else -1
        if isinstance(node, Var):
            return 1 if node.name in self.nonneg else 0
        if isinstance(node, Elementwise) and node.fn == "recip":
            return self._sign(node.args[0])
        if isinstance(node, Product) and not self.names & variables(node).keys():
            return int(np.prod([self._sign(a) for a in node.args]))
        return 1 if isinstance(node, dag.Delta) else 0

    def _site(self, fn: str, args: tuple[Expr, ...], axes) -> Var:
        """A new variable t_fn (t_fn_2, t_fn_3, ... for the next, skipping names in use)."""
        t = dag.var(self._name(f"t_{fn}"), axes)
        self.sites.append((fn, args, t))
        return t

    def _name(self, base: str) -> str:
        """base, or base_2, base_3, ...: the first name not in use, now taken."""
        name = base
        while name in self.taken:
            self.counts[base] = self.counts.get(base, 1) + 1
            name = f"{base}_{self.counts[base]}"
        self.taken.add(name)
        return name


def _max_operands(node: Expr) -> list[Expr]:
    """The operands of a max written b + relu(a - b), nested maxes flattened (a, then b);
    [] for any other node. Iterative: maxes may nest deeply."""
    pair = _max_pair(node)
    if pair is None:
        return []
    operands, stack = [], list(reversed(pair))
    while stack:
        inner = stack.pop()
        pair = _max_pair(inner)
        if pair is None:
            operands.append(inner)
        else:
            stack.extend(reversed(pair))
    return operands


def _max_pair(node: Expr) -> tuple[Expr, Expr] | None:
    """(a, b) for a node b + relu(a - b), else None."""
    if not (isinstance(node, Sum) and isinstance(node.args[1], Elementwise) and node.args[1].fn == "relu"):
        return None
    b, inner = node.args[0], node.args[1].args[0]
    if not (isinstance(inner, Sum) and _negates(inner.args[1], b)):
        return None
    return inner.args[0], b


def _negates(node: Expr, b: Expr) -> bool:
    """node is -(b): a negation of b, or for a constant b the constant -b (dag.neg folds it)."""
    if isinstance(b, Const):
        return isinstance(node, Const) and node.axes == b.axes and node.value == -b.value
    return isinstance(node, Elementwise) and node.fn == "neg" and node.args[0] is b


def _start(values: list) -> np.ndarray:
    """An epigraph variable's start: strictly inside every row, max |argument| + 1."""
    return np.max([np.abs(v) for v in values], axis=0) + 1.0


def _site_values(sites: list, task: Task) -> list:
    """Each site's argument values at the start, in waves of one kept compiled call each:
    the sites reading only the task's starts and data, then those reading the variables
    the first wave added, and so on (a max of lifted abs); None for a site no wave reaches
    (one reading an entry of a vector variable), which `_value` evaluates as before."""
    found: list = [None] * len(sites)
    starts = dict(task.x0)
    while pending := [k for k, v in enumerate(found) if v is None]:
        known = _start_values(tuple(A for k in pending for A in sites[k][1]), task, starts)
        ready = [k for k in pending if all(A in known for A in sites[k][1])]
        if not ready:
            break
        for k in ready:
            found[k] = [known[A] for A in sites[k][1]]
            if isinstance(sites[k][2], Var):
                starts[sites[k][2].name] = _start(found[k])
    return found


def _start_values(args: tuple[Expr, ...], task: Task, x0: dict) -> dict[Expr, np.ndarray]:
    """The arguments whose variables all have a start in x0 or data, at the start (as
    `_value` gives them), from one compiled call kept per tuple of arguments: a warm
    re-solve evaluates no site on its own. The others are not in the answer."""
    known = x0.keys() | task.fixed.keys()
    batch = tuple(dict.fromkeys(A for A in args if variables(A).keys() <= known))
    if not batch:
        return {}
    names = {n for A in batch for n in variables(A)}
    values = {n: np.asarray(x0[n] if n in x0 else task.fixed[n]) for n in names}
    return {A: np.asarray(v, dtype=float) for A, v in zip(batch, _program(batch)(values))}


@memoized(maxsize=64)
def _program(args: tuple[Expr, ...]) -> Callable:
    """One compiled function of every argument in `args`."""
    return tc.compile(list(args))


def _value(A: Expr, task: Task, x0: dict) -> np.ndarray:
    """A at the start, a site the kept calls of `_site_values` did not give (`at_start`)."""
    return at_start((A,), task, x0)[0]


__all__ = ["lift", "Lifted", "LABEL"]
