"""The augmented Lagrangian method (as GENO: Laue, Mitterreiter, Giesen, NeurIPS 2019)
around any method of the shared loop, which keeps the closed bounds by projection and
pd matrices by its domain test; the constraints c_i(y) <= 0 and c_e(y) = 0 enter

    L(y) = f + sum_e (nu c_e + rho/2 c_e^2) + sum_i rho/2 (max(0, c_i + lam/rho)^2 - (lam/rho)^2)

(Powell-Hestenes-Rockafellar), whose gradient is g + J' w with the weights
w_e = nu + rho c_e, w_i = max(0, lam + rho c_i), and whose Hessian is the weighted
Lagrangian Hessian plus rho J_A' J_A over the equalities and the active inequalities.

Outer iterations (Birgin and Martinez, Practical Augmented Lagrangian Methods, alg. 4.1,
with their first penalty, section 12.4): rho_1 balances the penalty against f at the
start (`first_penalty`); each outer iteration minimises L from the last point to the
inner tolerance of `_tolerance` (a tenth of the stationarity at its start, or the
violation if less: Eckstein and Silva's relative error criterion, so that early outer
iterations are cheap and none is wasted at a point that already meets it), then w becomes
the multipliers (lam clipped to [0, BIG], nu to [-BIG, BIG]); rho grows tenfold when the
violation V = max(|c_e|, |min(-c_i, lam/rho)|) did not halve, unless V already meets the
stop. Scale-free: rho_1 and the tolerances follow the objective's size (an LP times 1e-9).

The inner method works in coordinates u = y / s (`Scaled`), s from the diagonal of L's
Hessian where that is cheap or needed (`jacobi`: a block-diagonal objective Hessian, such
as entropy's diag(1/p), or a small dense one over decades), refreshed every RESCALE inner
iterations: first-order and CG inner methods stall on diagonals spanning many decades.
The inner method keeps its memory across outer iterations while rho and the coordinates stay.

Stops (CONVERGED) when the inner solve converged, the Lagrangian's stationarity
max|y - P(y - g - J' w)| in the original coordinates is at most gtol (times the objective's
size where below 1) and V <= gtol / 100;
ITERATION_LIMIT when the iteration budget (inner iterations, all outer iterations
together) or MAX_OUTER outer iterations run out; otherwise with the inner solve's status
(LINE_SEARCH_FAILED, CALLBACK, NOT_A_MINIMUM, NO_MINIMISER: `solvers.result.Status`).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable, Mapping

from solvers.constrained.bounds import Projected
from solvers.constrained.kkt import Solved, bound_duals, finish
from solvers.methods.history import Iteration
from solvers.methods.loop import Method, Outcome, max_abs, run, stationarity
from solvers.methods.options import Options
from solvers.numerics.linalg import Blocks, objective_size
from solvers.numerics.space import Box, View, dense
from solvers.objective.constraints import Constraints
from solvers.objective.smooth import block_axis
from solvers.result import Family, Status, status_message
from solvers.task.records import Task
from tensorcalc.arrays import Array

RHO0 = 10.0          # the first penalty where f or c is not finite at the start
FEASIBLE_RHO = 1.0   # the first penalty at a feasible start where g = 0 (`first_penalty`)
GROW = 10.0          # rho's factor when the violation did not fall to SLOW times the last
SLOW = 0.5
BIG = 1e20           # the multipliers' safeguard
VIOLATION = 1e-2     # stop when the violation is at most this times gtol
MAX_OUTER = 100
FORCING = 0.1        # an inner solve reduces its stationarity at least this much
RANGE = 1e8          # the scaling evens out curvatures over at most this range
RESCALE = 20         # inner iterations between rescalings
DENSE = 1000         # `jacobi` reads a dense Hessian's diagonal up to this many coordinates
SPREAD = 1e4         # and scales by it where it spans more than this
EPS_TOL = 1e-15      # the tightest inner tolerance (in the scaled coordinates), relative to f's size


class Augmented:
    """L of the module docstring on a `View`, with the loop's objective interface."""

    def __init__(self, view: View, cons: Constraints, rho: float, diagonal: bool = False):
        self.view, self.cons, self.xp = view, cons, view.xp
        self.diagonal = diagonal         # scaled by the diagonal of the objective's Hessian (`jacobi`)
        self.n, self.counts, self.box = view.n, view.counts, view.box
        self.free, self.names = view.free, view.names
        xp, m = self.xp, cons.m
        self.eq = cons.equality
        self.mult = xp.zeros(m)          # lam for the inequalities, nu for the equalities
        self.rho = rho

    def pack(self, arrays: Mapping[str, Array]) -> Array:
        return self.view.pack(arrays)

    def unpack(self, y: Array) -> dict[str, Array]:
        return self.view.unpack(y)

    def project(self, y: Array) -> Array:
        return self.view.project(y)

    def inside(self, y: Array) -> bool:
        return self.view.inside(y)

    def weights(self, c: Array) -> Array:
        """w_e = nu + rho c_e; w_i = max(0, lam + rho c_i)."""
        xp = self.xp
        shifted = self.mult + self.rho * c
        return xp.where(self.eq, shifted, xp.maximum(shifted, 0.0))

    def _penalty(self, c: Array) -> float:
        xp, rho = self.xp, self.rho
        eq = xp.sum(xp.where(self.eq, self.mult * c + 0.5 * rho * c * c, 0.0))
        hinge = xp.maximum(c + self.mult / rho, 0.0)
        ineq = xp.sum(xp.where(self.eq, 0.0, 0.5 * rho * (hinge * hinge - (self.mult / rho) ** 2)))
        return float(eq + ineq)

    def value(self, y: Array, overflow: bool = False) -> float:
        f = self.view.value(y, overflow)
        if not math.isfinite(f):
            return f
        c = self.cons.values(y)
        return f + self._penalty(c) if bool(self.xp.isfinite(c).all()) else math.inf

    def value_grad(self, y: Array) -> tuple[float, Array]:
        f, g = self.view.value_grad(y)
        c, J = self.cons.values_jacobian(y)
        return f + self._penalty(c), g + J.T @ self.weights(c)

    def value_grad_hess(self, y: Array) -> tuple[float, Array, Array]:
        f, g, H = self.view.value_grad_hess(y)
        c, J = self.cons.values_jacobian(y)
        w = self.weights(c)
        if isinstance(H, Blocks):
            H = dense(self.xp, H)
        active = self.xp.where(self.eq | (w > 0), self.rho, 0.0)
        H = H + self.cons.hessian(y, w) + J.T @ (active[:, None] * J)
        return f + self._penalty(c), g + J.T @ w, H

    def hvp(self, y: Array, v: Array) -> Array:
        c, J = self.cons.values_jacobian(y)
        w = self.weights(c)
        active = self.xp.where(self.eq | (w > 0), self.rho, 0.0)
        return self.view.hvp(y, v) + self.cons.hvp(y, v, w) + J.T @ (active * (J @ v))

    def violation(self, c: Array) -> float:
        """V = max(|c_e|, |min(-c_i, lam / rho)|): zero exactly at a feasible point whose
        inequalities are complementary to lam."""
        xp = self.xp
        if not c.size:
            return 0.0
        return float(xp.max(xp.where(self.eq, xp.abs(c), xp.abs(xp.minimum(-c, self.mult / self.rho)))))


class Scaled:
    """k `aug` in the coordinates u = y / s (s > 0 per coordinate): value k L and domain at
    s u, gradient k s g, Hessian k diag(s) H diag(s), the box over s. The same minimiser (over
    s), curvatures evened out, and k = 1 / f's size below 1: an inner method of scale 1."""

    def __init__(self, aug: Augmented, s: Array | None = None, k: float = 1.0):
        self.plain = s is None                 # s = 1: the coordinates of aug
        s = aug.xp.ones(aug.n) if s is None else s
        self.aug, self.s, self.xp, self.k = aug, s, aug.xp, k
        self.n, self.counts, self.free, self.names = aug.n, aug.counts, aug.free, aug.names
        b = aug.box
        self.box = None if b is None else Box(b.lower / s, b.upper / s, b.above / s, b.below / s)

    def pack(self, arrays: Mapping[str, Array]) -> Array:
        return self.aug.pack(arrays) / self.s

    def unpack(self, u: Array) -> dict[str, Array]:
        return self.aug.unpack(self.s * u)

    def project(self, u: Array) -> Array:
        return u if self.box is None else self.box.project(self.xp, u)

    def inside(self, u: Array) -> bool:
        return self.aug.inside(self.s * u)

    def value(self, u: Array, overflow: bool = False) -> float:
        return self.k * self.aug.value(self.s * u, overflow)

    def value_grad(self, u: Array) -> tuple[float, Array]:
        f, g = self.aug.value_grad(self.s * u)
        return self.k * f, self.k * self.s * g

    def value_grad_hess(self, u: Array) -> tuple[float, Array, Array]:
        f, g, H = self.aug.value_grad_hess(self.s * u)
        return self.k * f, self.k * self.s * g, self.k * self.s[:, None] * H * self.s[None, :]

    def hvp(self, u: Array, v: Array) -> Array:
        return self.k * self.s * self.aug.hvp(self.s * u, self.s * v)


def scaling(aug: Augmented, y: Array) -> Array | None:
    """s = sqrt(lo / max(d, lo)) from the diagonal d of L's Hessian at y (Jacobi scaling):
    1 on the softest coordinates, smaller on stiffer ones, lo = max(min d, max d / RANGE).
    None (no scaling) where the diagonal is not cheap (`_diagonal`) or not positive."""
    xp = aug.xp
    d = _diagonal(aug, y)
    if d is None or not bool(xp.isfinite(d).all()):
        return None
    top = float(xp.max(d)) if aug.n else 0.0
    if not top > 0:
        return None
    lo = max(float(xp.min(d)), top / RANGE)
    return xp.sqrt(lo / xp.maximum(d, lo))


def separable(task: Task, view: View) -> bool:
    """Whether the objective's Hessian is block diagonal where that is cheap to use: one
    variable whose symbolic Hessian carries a delta (`objective.smooth.block_axis`)."""
    return len(view.free) == 1 and block_axis(task.expr, view.names) is not None


def jacobi(task: Task, view: View, y: Array) -> bool:
    """Whether the inner solves are scaled by the diagonal of the objective's Hessian
    (`scaling`): where it is block diagonal (`separable`), or dense but small (n <= DENSE)
    with a positive diagonal at y spanning more than SPREAD (columns of the data in
    decades: L-BFGS on the lasso with X's columns over 1e-3..1e3 ran out of its 2,000
    iterations, and takes 131 scaled). A dense diagonal of one scale is left unscaled:
    rescaling resets the quasi-Newton memory, which the lifted kinks' active sets need."""
    if separable(task, view):
        return True
    if view.n > DENSE:
        return False
    d = _hessian_diagonal(view, y)
    d = d[view.xp.isfinite(d) & (d > 0)]
    return bool(d.size) and float(d.max()) > SPREAD * float(d.min())


def _hessian_diagonal(view: View, y: Array) -> Array:
    H, xp = view.value_grad_hess(y)[2], view.xp
    return H.join(xp, xp.diagonal(H.blocks, axis1=-2, axis2=-1)) if isinstance(H, Blocks) else xp.diagonal(H)


def _diagonal(aug: Augmented, y: Array) -> Array | None:
    """The diagonal of L's Hessian at y where `jacobi` chose it: the objective's (from the
    blocks of a block-diagonal Hessian, the cost of a gradient, or the small dense one),
    plus rho times the squared Jacobian entries of the equalities and the active
    inequalities (the constraints' own curvature left out); else None."""
    xp = aug.xp
    if not aug.diagonal:
        return None
    d = _hessian_diagonal(aug.view, y)
    c, J = aug.cons.values_jacobian(y)
    active = xp.where(aug.eq | (aug.weights(c) > 0), aug.rho, 0.0)
    return d + active @ (J * J)


def solve(task: Task, view: View, cons: Constraints, make: Callable[[], Method], opts: Options, gtol: float,
          tol: float) -> Solved:
    """Minimise by augmented Lagrangian outer iterations (see the module docstring);
    `make()` gives a fresh inner method."""
    y = view.pack(task.x0)
    history: list[Iteration] = []
    f0, g0 = view.value_grad(y)
    size = objective_size(view.xp, f0, g0, y)
    aug = Augmented(view, cons, first_penalty(view, cons, y, size), jacobi(task, view, y))
    inner = _Inner(aug, make, opts, history)
    need = gtol * size                      # stationarity, in the objective's own scale
    feasible = VIOLATION * gtol * opts.feasibility
    before, target, message = math.inf, need, ""
    status = Status.ITERATION_LIMIT
    for k in range(MAX_OUTER):
        scaled = Scaled(aug, scaling(aug, y), 1.0 / size)
        u = y / scaled.s
        inner_tol = _tolerance(_start(scaled, u), _unmet(aug.violation(cons.values(y)), feasible), target)
        y, out = inner.solve(scaled, y, inner_tol)
        c, J = cons.values_jacobian(y)
        stationary, V = _stationarity(aug, y, c, J), aug.violation(c)
        w = aug.weights(c)
        aug.mult = aug.xp.where(aug.eq, aug.xp.clip(w, -BIG, BIG), aug.xp.clip(w, 0.0, BIG))
        _note(history[-1], cons.violation(c), stationary, aug)
        status, message = out.status, out.message
        if out.status == Status.CONVERGED and stationary <= need and V <= feasible:
            break
        if out.status not in (Status.CONVERGED, Status.ITERATION_LIMIT) or inner.budget <= 0:
            finished = out.status in (Status.CONVERGED, Status.ITERATION_LIMIT)
            status = Status.ITERATION_LIMIT if inner.budget <= 0 and finished else out.status
            break
        if out.status == Status.CONVERGED and inner_tol <= target and stationary > need:
            # converged in u, not in y (s < 1 shrinks the gradient): tighten the target
            target = max(target * 0.5 * need / stationary, EPS_TOL * size)
        if V > SLOW * before and V > feasible:
            aug.rho *= GROW
        before = V if V > 0 else math.inf     # V = 0 (feasible, inactive): no rate to judge
    else:
        status, message = Status.ITERATION_LIMIT, f"stopped: {MAX_OUTER} outer iterations without the KKT conditions"
    message = _message(status, message)
    duals = cons.multipliers(aug.mult)
    f, g = view.value_grad(y)
    duals.update(bound_duals(view, y, g + cons.values_jacobian(y)[1].T @ aug.mult))
    return finish(view, cons, y, status, message, history, duals)


class _Inner:
    """The inner solves of one augmented Lagrangian solve: the shared iteration budget,
    and the inner method, kept (with its quasi-Newton memory) while the coordinates and
    rho stay; a scaled solve is rescaled every RESCALE iterations (the diagonal moves
    with the iterate: entropy's 1/p over a p that falls by decades)."""

    def __init__(self, aug: Augmented, make: Callable[[], Method], opts: Options, history: list[Iteration]):
        self.aug, self.make, self.opts, self.history = aug, make, opts, history
        self.budget = opts.max_iter
        self.method: Method | None = None
        self.kept: float | None = None

    def solve(self, scaled: Scaled, y: Array, tol: float) -> tuple[Array, Outcome]:
        """(y, the last run's Outcome) after minimising L to `tol` from y."""
        while True:
            aug = self.aug
            kept = self.method
            if kept is None or not (scaled.plain and self.kept == aug.rho):
                kept = self.method = self.make()
            self.kept = aug.rho if scaled.plain else None
            limit = self.budget if scaled.plain else min(self.budget, RESCALE)
            inner = dataclasses.replace(self.opts, gtol=tol * scaled.k, max_iter=limit)
            method = Projected(kept) if aug.box is not None else kept
            out = run(scaled, method, y / scaled.s, inner)
            _append(self.history, out.history)
            self.budget -= len(out.history) - 1
            y = scaled.s * out.z
            if out.status != Status.ITERATION_LIMIT or scaled.plain or self.budget <= 0:
                return y, out
            scaled = Scaled(aug, scaling(aug, y), scaled.k)


def _tolerance(start: float, V: float, target: float) -> float:
    """The inner tolerance: FORCING times the stationarity at the start, or the violation V
    if less and not 0 (Eckstein and Silva's relative error criterion: the inner accuracy
    follows the outer progress; V = 0, a feasible point whose inequalities are inactive,
    says nothing of it), at least `target`; below `target` (to VIOLATION times it) only
    where the start already meets it: the multipliers still move, so the inner must step."""
    tol = max(target, min(FORCING * start, V) if V > 0 else FORCING * start)
    return tol if tol < start else max(VIOLATION * target, FORCING * start)


def _unmet(V: float, feasible: float) -> float:
    """The violation V as `_tolerance` weighs it: 0 where V meets the stop (V <= feasible).
    V at the constraints' rounding level says nothing of the outer progress and is in
    their units, not the objective's: an LP whose costs are 1e-9 needs a stationarity of
    1e-17, which an inner tolerance held at V = 1e-15 never asked for."""
    return 0.0 if V <= feasible else V


def _start(scaled: Scaled, u: Array) -> float:
    """The inner method's stationarity max|u - P(u - grad)| at its start u, in L's units."""
    return max_abs(scaled, stationarity(scaled, u, scaled.value_grad(u)[1])) / scaled.k


def first_penalty(view: View, cons: Constraints, y: Array, size: float = 1.0) -> float:
    """rho_1 = 10 max(1, |f|) / max(1, sum of the squared violations / 2) at the start,
    within [1e-8, 1e8] (Birgin and Martinez, Practical Augmented Lagrangian Methods,
    section 12.4): the penalty term starts no larger than ten times the objective, so
    that a start far outside the feasible set is not pulled in by a penalty that
    dwarfs f (pushing coordinates against their strict bounds). Times `size`, the
    objective's size where below 1 (`objective_size`): L is the same for s f and s rho.

    A start that violates nothing (the epigraph variables of lifted kinks start on their
    constraints) leaves that balance nothing to weigh: the formula would fall back to
    10 |f|, a penalty as stiff as the objective is large, whose first inner problem is
    the whole non-smooth problem smoothed over a width 1 / rho, where first-order inner
    methods crawl for hundreds of iterations, their count set by rounding. Such a start
    gets the median |g| entry, the scale of the multipliers at a KKT point (grad f = -J' w;
    the median, not the largest: a column of X 1e3 times the others would set a stiff rho;
    FEASIBLE_RHO times size where it is 0): the lasso's L-BFGS 331 -> 250 iterations, at
    200 x 300 1,071 -> 909, the mean hinge + l1 by Newton-CG 200 (the limit) -> 136."""
    f, g = view.value_grad(y)
    c = cons.values(y)
    xp = view.xp
    v = xp.where(cons.equality, c, xp.maximum(c, 0.0))
    squares = 0.5 * float(v @ v) if c.size else 0.0
    if not (math.isfinite(f) and math.isfinite(squares)):
        return size * RHO0
    if squares == 0.0:
        typical = float(xp.median(xp.abs(g))) if g.size else 0.0
        return min(max(typical, 1e-8 * size), 1e8) if math.isfinite(typical) and typical > 0 else size * FEASIBLE_RHO
    return size * min(max(10 * max(1.0, abs(f)) / max(1.0, squares), 1e-8), 1e8)


def _stationarity(aug: Augmented, y: Array, c: Array, J: Array) -> float:
    """max|y - P(y - grad L)| in the unscaled coordinates (max|grad L| without bounds)."""
    g = aug.view.value_grad(y)[1] + J.T @ aug.weights(c)
    return max_abs(aug, stationarity(aug, y, g))


def _append(history: list[Iteration], inner: list[Iteration]) -> None:
    """Inner iterations continue the numbering; an outer iteration's first iterate is
    the last one of the outer iteration before, so it is kept once."""
    start = len(history)
    for j, it in enumerate(inner if not history else inner[1:]):
        it.k = start + j
        history.append(it)


def _note(it: Iteration, violation: float, stationarity: float, aug: Augmented) -> None:
    it.violation = violation
    it.kkt = max(violation, stationarity)
    it.fallbacks.append(f"augmented Lagrangian: multipliers updated, rho = {aug.rho:.3g}")


def _message(status: Status, inner: str) -> str:
    """The message of the outer iterations' `status`; `inner`: the last inner solve's (or
    the outer iteration limit's)."""
    if status == Status.CONVERGED or (status == Status.ITERATION_LIMIT and "outer iterations" not in inner):
        return status_message(Family.AUGMENTED, status)
    return inner
