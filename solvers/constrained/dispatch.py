"""Solves with constraints, closed bounds or matrix variables, and what they report.

Which method keeps what (`solve`):

- closed bounds alone (`nonneg`, `>= c`, `<= c`) and pd/nd matrices: the chosen method
  in the shared loop, on the `View` (symmetric matrices by their upper triangle, cones
  kept by the Cholesky test of `inside`), wrapped in `bounds.Projected` where there
  are closed bounds (projected Newton, L-BFGS, ...);
- general constraints, or psd/nsd matrices (whose solution may lie on the cone's
  boundary): "newton" runs the primal-dual interior-point method (`interior`), every
  other method the augmented Lagrangian (`lagrangian`) around itself, projected. A
  convex quadratic program (quadratic objective, affine constraints, no matrix
  variable) goes to Mehrotra's method on its matrices read once (`qp`); a separable
  objective keeps its block-diagonal Hessian in every Newton matrix (`lowrank`). A QP
  that either method leaves unfinished is NO_MINIMISER where HiGHS finds a feasible point
  and a recession direction (`recession`); any convex problem whose solve stops
  unfinished on its way along a recession direction is NO_MINIMISER where the way travelled
  passes `ray`'s checks; one that may be infeasible is left to phase one (`feasibility`,
  in `solvers.api`), and affine constraints to a Farkas certificate where phase one does
  not conclude (`farkas`).

Every solve reports `violation`, the largest violation of a constraint, bound or cone,
and `multipliers` by label: "constraint k" (a number, >= 0 for an inequality; an array
of the constraint's shape for a constraint between tensors, one entry per row), "lower
bound of x" / "upper bound of x" (arrays of x's shape, >= 0), "cone of X" (a psd
matrix). They are those of the minimised objective (for `maximize`, of -f): at a KKT
point grad f + sum_k y_k grad c_k - z_lower + z_upper - Z = 0.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

import tensorcalc as tc
from solvers.constrained import elimination, farkas, interior, kept, lagrangian, pathfollow, qp, ray, recession
from solvers.constrained.bounds import Projected
from solvers.constrained.kkt import Solved, bound_duals, bound_multipliers, finish
from solvers.methods import stopping as certify
from solvers.methods.loop import Method, run
from solvers.methods.options import Options
from solvers.numerics.space import View
from solvers.objective.constraints import Constraints, affine_in, bound_violation
from solvers.objective.smooth import Objective, block_axis
from solvers.result import Status
from solvers.task.device import to_host
from solvers.task.prepare import variables
from solvers.task.records import Task
from tensorcalc import Expr, dag
from tensorcalc.algebra.degree import degree
from tensorcalc.arrays import Array

AUTO_DENSE = 1000       # at most this many entries: auto builds the Hessian (Newton)
AUTO_QP = 4000          # and for a QP, whose augmented Lagrangian converges slowly
UNFINISHED = (Status.ITERATION_LIMIT, Status.LINE_SEARCH_FAILED)   # stops examined for no minimiser


def solve(task: Task, obj: Objective, name: str, make: Callable[[], Method], opts: Options, gtol: float,
          tol: float) -> Solved:
    """Minimise `task` with the method `name` (`make()` builds it); see the module
    docstring for which method keeps what."""
    boundary_cone = any(v.attributes.definite in ("psd", "nsd") for v in task.free)
    view, cons, entry = _parts(task, obj)
    if task.constraints or boundary_cone or task.cones or sparse_quadratic(task, obj, name):
        if name == "newton" or task.cones:           # second-order cones: only the interior point
            return _interior(task, view, cons, opts, gtol, tol, entry)
        if task.constraints:
            return _augmented(task, view, cons, make, opts, gtol, tol)
    method = make()
    chosen = Projected(method) if view.box is not None else method
    out = run(view, chosen, view.pack(task.x0), opts)
    for it in out.history:
        it.kkt, it.violation = it.gmax, 0.0
    return finish(view, cons, out.z, out.status, out.message, out.history, bound_duals(view, out.z, out.g))


def sparse_quadratic(task: Task, obj: Objective, name: str) -> bool:
    """Whether Newton's method on `task` takes the interior-point QP path although nothing
    constrains it: a quadratic of more than BIG^(1/2) unknowns on the host, whose Hessian
    reads sparse (`Objective.quadratic_hessian`), is one sparse factorisation there,
    where Newton's method forms and factors the dense n x n Hessian."""
    if name != "newton" or obj.xp is not np or obj.n * obj.n <= elimination.BIG:
        return False
    key = (task.expr, tuple((v.name, v.shape) for v in task.free))
    if key not in _ROUTES:                  # decided once per expression: a warm solve reads no Hessian here
        H = obj.quadratic_hessian() if qp.applies(task) else None
        while len(_ROUTES) >= ROUTES:
            _ROUTES.pop(next(iter(_ROUTES)))
        _ROUTES[key] = H is not None and H.nnz <= elimination.SPARSE * obj.n * obj.n
    return _ROUTES[key]


ROUTES = 256                                 # expressions whose route `sparse_quadratic` keeps
_ROUTES: dict[tuple, bool] = {}


def _parts(task: Task, obj: Objective) -> tuple[View, Constraints, kept.Kept | None]:
    """The task's View and Constraints: those kept for it (`kept`), or new ones, kept; and
    the entry that keeps them (None off the host)."""
    if obj.xp is not np:
        view = View(obj)
        return view, Constraints(task, view), None
    entry = kept.find(task)
    if entry is None:
        view = View(obj)
        entry = kept.keep(task, view, Constraints(task, view))
    return entry.view, entry.cons, entry


def _augmented(task: Task, view: View, cons: Constraints, make: Callable[[], Method], opts: Options, gtol: float,
               tol: float) -> Solved:
    out = lagrangian.solve(task, view, cons, make, opts, gtol, tol)
    out.status, out.message = _examined(task, view, cons, opts, out.status, out.message, view.space.reduce(out.z),
                                        lambda: interior.Interior(view, cons, opts, gtol, tol))
    return out


def _interior(task: Task, view: View, cons: Constraints, opts: Options, gtol: float, tol: float,
              entry: kept.Kept | None) -> Solved:
    ip = interior.Interior(view, cons, opts, gtol, tol)
    y0 = view.pack(task.x0)
    res = None
    if qp.applies(task):
        mth = entry.method if entry is not None and entry.method is not None else qp.prepare(ip, y0)
        res = qp.solve(ip, mth, y0, opts.max_iter, opts.sign)
        if res is not None and view.space.cones and res.status != Status.CONVERGED:
            res = None             # definite cones unfinished: `pathfollow`'s run-off and ray checks decide
        if res is not None and entry is not None:
            entry.method = mth                     # a re-solve of the same QP starts here
    if res is None:            # not a QP, or one whose Newton matrix is not positive definite
        ip = interior.Interior(view, cons, opts, gtol, tol)
        res = pathfollow.solve(ip, y0, opts.max_iter, opts.sign)
    status, message = _examined(task, view, cons, opts, res.status, res.message, res.st.y, lambda: ip)
    st = res.st
    rows = ip.xp.zeros(cons.m)
    rows[~ip.eq], rows[ip.eq] = st.lam, st.nu
    duals = cons.multipliers(rows)
    duals.update(bound_multipliers(view, st.zl, st.zu, ip.hasL, ip.hasU))
    duals.update({f"cone of {c.name}": to_host(Z) for c, Z in zip(view.space.cones, st.Z)})
    duals.update(cons.cones.multipliers([to_host(z) for z in st.zc]))
    return finish(view, cons, st.y, status, message, res.history, duals)


def _examined(task: Task, view: View, cons: Constraints, opts: Options, status: Status, message: str, y: Array,
              method: Callable[[], interior.Interior]) -> tuple[Status, str]:
    """(status, message) of a constrained solve that stopped at y, or NO_MINIMISER where
    it stopped unfinished on a QP with a recession direction (`_unbounded`, on the
    interior-point algebra `method()` gives) or on its way along one (`_travelled`)."""
    if task.cones:                  # neither check reads second-order cones
        return status, message
    if status in UNFINISHED and view.xp is np and qp.applies(task) and not view.space.cones:   # nor definite
        status, message = _unbounded(method(), status, message, view.pack(task.x0))
    return _travelled(view, cons, y, task, opts, status, message)


def _unbounded(ip: interior.Interior, status: Status, message: str, y0: Array) -> tuple[Status, str]:
    """(status, message) as they were, or status 5 where the QP has a feasible point and
    a recession direction along which it falls without bound (`recession`). The QP's
    matrices are read at the start y0 (exact anywhere, and y0 is finite: the point the
    solve reached may not be)."""
    found = recession.unbounded(qp.read(ip, ip.start(y0).y))
    if found is None:
        return status, message             # perhaps infeasible: phase one (`feasibility`) decides
    words = certify.stop_words(ip.opts.sign)
    return Status.NO_MINIMISER, (
        f"stopped: no {words['min']}imiser: the objective is unbounded on the feasible set: it "
        f"{words['falls']} at the rate {abs(found[2]):.3g} along a direction the constraints allow "
        f"from a point that meets them (G d <= 0, E d = 0, H d = 0: a recession direction; both "
        f"found by linprog)")


def _travelled(view: View, cons: Constraints, y: Array, task: Task, opts: Options, status: Status,
               message: str) -> tuple[Status, str]:
    """(status, message) as they were, or status 5 where a convex problem's solve stopped
    (1 or 2) on the way along a recession direction down which f falls without bound,
    checked (`ray`)."""
    if status not in UNFINISHED or not opts.convex or view.xp is not np:
        return status, message
    found = ray.unbounded(view, cons, y, view.pack(task.x0))
    if found is None:
        return status, message
    words = certify.stop_words(opts.sign)
    return Status.NO_MINIMISER, (
        f"stopped: no {words['min']}imiser: the objective keeps {words['falling']} along the direction "
        f"of travel, rounded onto the constraints, from a point that meets them (to {opts.sign * found[0]:.6g} "
        f"at distance {found[1]:.3g}), and the constraints hold along it out to distance {found[2]:.3g} "
        f"(checked): it is unbounded {words['below']} on the feasible set or its {words['inf']} is not "
        f"attained")


def infeasible_rows(task: Task, obj: Objective) -> list[str] | None:
    """The labels of affine constraints and bounds a checked Farkas certificate shows
    cannot all hold (`farkas`), else None."""
    view = View(obj)
    return farkas.infeasible(view, Constraints(task, view))


def violation(task: Task, obj: Objective, x: dict[str, Array], within: Task | None = None) -> float:
    """The largest violation of the task's constraints and bounds at x (arrays by name).
    `within`: a task that holds every one of these constraints unchanged (an epigraph
    lift's, x holding its variables too): where its rows are kept (`kept`), their values
    are read there, not the same rows a second time (2,000 Kalman blocks: 0.7 s)."""
    entry = kept.find(within) if within is not None and obj.xp is np else None
    if entry is not None and within is not None and task.constraints and \
            set(task.constraints) <= set(within.constraints):
        view = View(obj)
        rows = _rows_violation(entry.cons, entry.view.pack(x), {c.label for c in task.constraints})
        found = max(rows, bound_violation(view, view.pack(x)))
    else:
        view, cons, _ = _parts(task, obj)
        y = view.pack(x)
        found = max(cons.violation(cons.values(y)) if task.constraints else 0.0, bound_violation(view, y))
    return found if math.isfinite(found) else math.inf


def _rows_violation(cons: Constraints, y: Array, labels: set[str]) -> float:
    """The largest violation at y of the rows of `cons` whose constraint is one of `labels`."""
    values = cons.values(y)
    picked = [s for label, s in zip(cons.labels, cons.slices) if label in labels]
    c = np.concatenate([values[s] for s in picked])
    equality = np.concatenate([np.asarray(cons.equality[s]) for s in picked])
    excess = np.where(equality, np.abs(c), np.maximum(c, 0.0))
    return float(excess.max(initial=0.0)) if np.isfinite(excess).all() else math.inf


def auto(task: Task, eliminated: tuple[str, ...] = ()) -> str:
    """The method `method="auto"` picks: Newton (the interior-point method under
    constraints or psd cones) while the Hessian has at most AUTO_DENSE^2 entries (its
    variables at most AUTO_DENSE entries together; a symmetric matrix counts all n^2),
    or is block diagonal in a way every Newton matrix keeps (`_blocked`), or the problem
    is a QP of at most AUTO_QP entries, else L-BFGS (the augmented Lagrangian under
    constraints). `eliminated` names variables whose coordinates `qp` eliminates
    (epigraph variables): they do not count. Off the QP path (`pathfollow`) they stay in
    the dense Newton matrix, and still do not count: that path finishes where the augmented
    Lagrangian with L-BFGS around lifted kinks runs out of iterations (issue 26: hinge and L1
    fits, 1,000 to 2,000 of its 2,000 iterations). Measured (issue 16): portfolio n = 100 in 11
    interior-point iterations against 1,306 of L-BFGS; the log-det estimate at p = 50 in
    1.5 s by Newton (its Hessian has p^4 entries) and 0.07 s by L-BFGS; the lasso at
    2,000 x 2,000 in 4.3 s by the QP path and not within L-BFGS's 2,000 iterations (52 s)."""
    size = sum(v.size for v in task.free if v.name not in eliminated)
    if size <= AUTO_DENSE or _blocked(task) or (size <= AUTO_QP and qp.applies(task)):
        return "newton"
    if qp.applies(task) and _separable(task):
        return "newton"
    return "lbfgs"


def _separable(task: Task) -> bool:
    """Whether the objective's Hessian is block diagonal across the free variables (every
    second derivative between two of them symbolically 0) and within each one over an axis
    (`block_axis`), or that variable small (at most AUTO_DENSE entries): the QP path's sparse
    systems then cost what the constraints hold (a Kalman smoother of 12,000 unknowns;
    the augmented Lagrangian with L-BFGS stops there at its iteration limit)."""
    found = variables(task.expr)
    curved = [v for v in task.free if v.name in found and degree(task.expr, (v.name,)) > 1]
    if any(v.size > AUTO_DENSE and block_axis(task.expr, (v.name,)) is None for v in curved):
        return False
    grads = {v.name: tc.derivative(task.expr, found[v.name]) for v in curved}
    return all(_zero(tc.derivative(grads[u.name], found[v.name])) for u in curved for v in curved
               if u.name < v.name)


def _zero(expr: Expr) -> bool:
    """Whether expr is symbolically 0 (a constant 0, or a product with one)."""
    if isinstance(expr, dag.Const):
        return expr.value == 0
    return isinstance(expr, dag.Product) and any(_zero(a) for a in expr.args)


def _blocked(task: Task) -> bool:
    """Whether every Newton matrix is block diagonal (plus a few rows, `lowrank`) with
    at most AUTO_DENSE^2 entries in its blocks: one free variable, not symmetric, whose
    symbolic Hessian carries a delta over an axis (a separable objective: entropy, sums
    of f(x_i)), and affine constraints, whose Hessians add nothing to the blocks."""
    if len(task.free) != 1 or task.free[0].attributes.is_symmetric:
        return False
    v = task.free[0]
    if not all(affine_in(c.expr, (v.name,)) for c in task.constraints):
        return False
    axis = block_axis(task.expr, (v.name,))
    return axis is not None and v.size * (v.size // v.shape[axis]) <= AUTO_DENSE ** 2
