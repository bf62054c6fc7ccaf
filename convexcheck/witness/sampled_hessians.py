"""The Hessian of one part at a point, for `sampling.search`: a dense matrix for small
problems, a Hessian-vector operator with Lanczos for large ones.

Coordinates: `Layout` flattens the analysed variables into one vector (reduced to a basis
of symmetric directions for symmetric variables). `DenseHessian` evaluates all second
derivative blocks (N x N, exact extreme eigenpairs); `HessianOperator` compiles only the
pushforward of the gradient (Hessian-vector products, cost of a few gradients) and
`lanczos` takes a bounded number of products. Once compiled (symbolically, nothing
evaluated), `check_nodes` refuses code with an intermediate larger than
`values.MAX_ENTRIES` entries at the sizes, and `work` estimates the operations one
evaluation takes (what `sampling` can afford).
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import opt_einsum
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
import threadpoolctl

import tensorcalc
from convexcheck.problem.admissible import MAX_ENTRIES, SizeError
from convexcheck.problem.model import Problem
from tensorcalc import dag
from tensorcalc.codegen.runtime import Contraction
from tensorcalc.dag import Axis, Expr, Product, Sum
from tensorcalc.memo import memoized

Check = Callable[[Sequence[Expr]], None]        # raises SizeError for the programs about to run
Cost = Callable[[Sequence[Expr]], float]        # floating-point operations of one evaluation
Extremes = tuple[tuple[float, np.ndarray], tuple[float, np.ndarray]]   # (lowest, highest) Ritz pairs

# ----------------------------------------------------------------------------- coordinates

@dataclass(frozen=True)
class Layout:
    """The analysed variables as one flat vector (C order, in `names` order), and the
    orthonormal basis `basis` (N x m) of allowed directions: symmetric matrices (E_ii,
    (E_ij + E_ji)/sqrt 2) for symmetric variables, all entries otherwise; None: identity."""

    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    basis: scipy.sparse.csr_matrix | None = field(default=None, repr=False)

    @classmethod
    def build(cls, problem: Problem, names: list[str], sizes: dict[str, int]) -> Layout:
        decls = [problem.declarations[n] for n in names]
        shapes = tuple(d.shape(sizes) for d in decls)
        if not any(d.attributes.is_symmetric for d in decls):
            return cls(tuple(names), shapes)
        blocks = [symmetric_basis(s) if d.attributes.is_symmetric else scipy.sparse.identity(int(np.prod(s)))
                  for d, s in zip(decls, shapes)]
        return cls(tuple(names), shapes, scipy.sparse.block_diag(blocks, format="csr"))

    @property
    def size(self) -> int:
        return sum(int(np.prod(s)) for s in self.shapes)

    @property
    def reduced(self) -> int:
        return self.size if self.basis is None else self.basis.shape[1]

    def expand(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """Reduced coordinates to one array per variable (B v, split)."""
        flat = v if self.basis is None else self.basis @ v
        bounds = np.cumsum([0] + [int(np.prod(s)) for s in self.shapes])
        return {n: flat[a:b].reshape(s) for n, s, a, b in zip(self.names, self.shapes, bounds, bounds[1:])}

    def restrict(self, y: np.ndarray) -> np.ndarray:
        """B^T y for a vector or matrix y in full coordinates."""
        return y if self.basis is None else np.asarray(self.basis.T @ y)

    def reduce(self, h: np.ndarray) -> np.ndarray:
        """B^T H B for a symmetric N x N matrix H."""
        return h if self.basis is None else self.restrict(self.restrict(h).T)


def symmetric_basis(shape: tuple[int, ...]) -> scipy.sparse.csr_matrix:
    """Orthonormal basis (columns) of the symmetric n x n matrices, flattened in C order."""
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"a symmetric variable must be a square matrix, not shape {shape}")
    n = shape[0]
    i, j = np.triu_indices(n)
    k = np.arange(len(i))
    off = i != j
    rows = np.concatenate([i * n + j, (j * n + i)[off]])
    cols = np.concatenate([k, k[off]])
    data = np.where(np.concatenate([off, off[off]]), 1 / math.sqrt(2), 1.0)
    return scipy.sparse.csr_matrix((data, (rows, cols)), shape=(n * n, len(k)))


# ----------------------------------------------------------------------------- Hessians

def var_nodes(expr: Expr, problem: Problem, names: list[str]) -> list[dag.Var]:
    """The Var of each analysed name: the expression's own, or a fresh one (zero derivative)."""
    found = tensorcalc.variables(expr)
    return [found.get(n) or dag.var(n, [Axis(n, k) for k in range(len(problem.declarations[n].dims))])
            for n in names]


class DenseHessian:
    """The joint Hessian as an N x N matrix: blocks d(d expr/d a)/d b, a's axes first,
    compiled with the value into one function."""

    def __init__(self, expr: Expr, xs: list, layout: Layout, check: Check | None = None) -> None:
        self.layout, n = layout, len(xs)
        grads = [tensorcalc.derivative(expr, x) for x in xs]
        self.pairs = [(a, b) for a in range(n) for b in range(a, n)]
        self.fn = tensorcalc.compile([expr] + [tensorcalc.derivative(grads[a], xs[b]) for a, b in self.pairs])
        if check:
            check(self.fn.exprs)

    def work(self, cost: Cost, steps: int) -> float:
        """Operations per point: `cost` of the compiled code, and the eigensolver's N^3."""
        return cost(self.fn.exprs) + float(self.layout.reduced) ** 3

    def __call__(self, point) -> tuple[float, np.ndarray]:
        value, *blocks = self.fn(point)
        sizes = [int(np.prod(s)) for s in self.layout.shapes]
        starts = np.cumsum([0] + sizes)
        h = np.empty((starts[-1], starts[-1]))
        for (a, b), block in zip(self.pairs, blocks):
            block = block.reshape(sizes[a], sizes[b])
            h[starts[a]:starts[a + 1], starts[b]:starts[b + 1]] = block
            h[starts[b]:starts[b + 1], starts[a]:starts[a + 1]] = block.T
        return float(value), self.layout.reduce((h + h.T) / 2)


class HessianOperator:
    """Hessian-vector products (the pushforward of the gradient along direction
    variables), for Hessians too large to hold. Products are distributed over sums of
    higher order than themselves (`distribute`), so a derivative of inv or adj (order 4)
    is never formed before its contraction with the direction; everything that does not
    read the direction (exp(X W), inv(X), ...) is computed once per point (`hoist`)."""

    def __init__(self, expr: Expr, xs: list, layout: Layout, taken: set[str], check: Check | None = None) -> None:
        self.layout = layout
        dirs = [dag.var(_fresh("_dir_" + x.name, taken), x.axes) for x in xs]
        self.dir_names = [d.name for d in dirs]
        grads = [tensorcalc.derivative(expr, x) for x in xs]
        hvps = [tensorcalc.simplify(distribute(dag.add_all([tensorcalc.pushforward(g, x, d)
                                                            for x, d in zip(xs, dirs)]))) for g in grads]
        fixed, hvps = hoist(hvps, set(self.dir_names), taken | set(self.dir_names))
        self.point_part = tensorcalc.compile({"_value": expr, **fixed})
        self.hvp = tensorcalc.compile(hvps)
        if check:
            check(self.point_part.exprs + self.hvp.exprs)

    def work(self, cost: Cost, steps: int) -> float:
        """Operations per point: the direction-free part once, `steps` products and the
        Lanczos vector work (`steps`^2 N for the reorthogonalisation)."""
        return cost(self.point_part.exprs) + steps * cost(self.hvp.exprs) + 4.0 * steps ** 2 * self.layout.size

    def __call__(self, point) -> tuple[float, scipy.sparse.linalg.LinearOperator]:
        at = self.point_part(point)
        value = at.pop("_value")
        at = {**point, **at}

        def matvec(v):
            d = self.layout.expand(np.ravel(v))
            out = self.hvp({**at, **{k: d[n] for k, n in zip(self.dir_names, self.layout.names)}})
            return self.layout.restrict(np.concatenate([np.ravel(o) for o in out]))
        m = self.layout.reduced
        operator = scipy.sparse.linalg.LinearOperator((m, m), matvec=matvec, dtype=float)
        return float(value), operator


def _fresh(name: str, taken) -> str:
    while name in taken:
        name += "_"
    return name


def distribute(expr: Expr) -> Expr:
    """An equal expression in which every product with a sum operand of higher order than
    the product itself is the sum of the products with each addend (one pass in dependency
    order): (A (x) B - B (x) A) : D becomes A (x) B : D - B (x) A : D, which the contraction
    planner evaluates without the order-4 intermediate."""
    new: dict[Expr, Expr] = {}
    for node in dag.topo(expr):
        node_ = dag.rebuild(node, tuple(new[c] for c in node.args))
        k = next((k for k, a in enumerate(node_.args) if isinstance(a, Sum) and a.order > node_.order), None)
        if isinstance(node_, Product) and k is not None:
            args = node_.args
            node_ = dag.add_all([dag.contraction(args[:k] + (t,) + args[k + 1:], node_.spec)
                                 for t in dag.addends(args[k])])
        new[node] = node_
    return new[expr]


def hoist(exprs: Sequence[Expr], moving: set, taken: set[str]) -> tuple[dict, list]:
    """Split `exprs` at the variables named in `moving`: ({name: subexpression}, exprs
    with each largest subexpression that reads none of `moving` (and is not a leaf)
    replaced by a new variable of that name and its axes)."""
    new: dict[Expr, Expr] = {}
    fixed: dict[str, Expr] = {}
    moves: set = set()
    for node in dag.topo(*exprs):
        args = tuple(new[c] for c in node.args)
        if isinstance(node, dag.Var) and node.name in moving or any(c in moves for c in node.args):
            moves.add(node)
            args = tuple(_hoisted(a, c, fixed, taken, moves) for a, c in zip(args, node.args))
        new[node] = dag.rebuild(node, args)
    return fixed, [_hoisted(new[e], e, fixed, taken, moves) for e in exprs]


def _hoisted(node, original, fixed: dict, taken, moves: set):
    """`node` itself if it reads a moving variable or is a leaf, else its new variable."""
    if original in moves or not node.args:
        return node
    name = next((n for n, e in fixed.items() if e is node), None) or _fresh(f"_at{len(fixed)}", taken | fixed.keys())
    fixed[name] = node
    return dag.var(name, node.axes)


def check_nodes(exprs: Sequence[Expr], problem: Problem, sizes: dict[str, int] | None, where: str) -> None:
    """SizeError naming the largest node of `exprs` if it has more than MAX_ENTRIES entries
    at `sizes` (axes of declared names; others count as length 1), before anything is
    evaluated. Check what is evaluated: a compiled function's (simplified) `exprs`;
    intermediates inside one multi-operand contraction are the planner's."""
    length = axis_length(problem, sizes)
    worst = max(dag.topo(*exprs), key=lambda node: math.prod(length(a) for a in node.axes))
    entries = math.prod(length(a) for a in worst.axes)
    if entries > MAX_ENTRIES:
        dims = " x ".join(str(length(a)) for a in worst.axes)
        raise SizeError(f"{where}: evaluating it needs an intermediate of {dims} = {entries:,} entries "
                        f"(limit {MAX_ENTRIES:,}): {str(worst)[:80]}; choose smaller --dim lengths")


def axis_length(problem: Problem, sizes: dict[str, int] | None) -> Callable[[Axis], int]:
    """The length of an Axis at `sizes`: of a declared name's axis, else 1."""
    shapes = {n: d.shape(sizes) for n, d in problem.declarations.items()}
    return lambda a: shapes[a.var][a.pos] if a.var in shapes and a.pos < len(shapes[a.var]) else 1


def work(exprs: Sequence[Expr], problem: Problem, sizes: dict[str, int] | None) -> float:
    """Floating-point operations one evaluation of `exprs` at `sizes` takes, estimated node
    by node before anything is evaluated: a contraction as the runtime does it (letters of
    one operand alone summed first, then opt_einsum's plan, whose cost it counts), a matrix
    function n^3, any other node one per entry."""
    length, total = axis_length(problem, sizes), 0.0
    for node in dag.topo(*exprs):
        if isinstance(node, Product):
            plan = Contraction(str(node.spec))
            shapes = [tuple(length(a) for a in x.axes) for x in node.args]
            total += sum(math.prod(shape) for shape, axes in zip(shapes, plan.sums) if axes)
            kept = [tuple(n for k, n in enumerate(shape) if k not in axes) for shape, axes in zip(shapes, plan.sums)]
            total += float(opt_einsum.contract_path(plan.equation, *kept, shapes=True)[1].opt_cost)
        elif isinstance(node, dag.Special):
            total += float(length(node.args[0].axes[0])) ** 3
        else:
            total += math.prod(length(a) for a in node.axes)
    return total


# ----------------------------------------------------------------------------- extreme eigenpairs

def extremes(h: np.ndarray | scipy.sparse.linalg.LinearOperator, steps: int) -> Extremes | None:
    """(smallest, largest) eigenpairs of a dense matrix, or Ritz pairs of an operator after
    at most `steps` products (inner bounds of the spectrum); None if not finite."""
    if isinstance(h, np.ndarray):
        return _dense_extremes(h) if np.all(np.isfinite(h)) else None
    return lanczos(h, steps)


def _dense_extremes(h: np.ndarray):
    n = len(h)
    if n <= 200:
        w, v = np.linalg.eigh(h)
        return (w[0], v[:, 0]), (w[-1], v[:, -1])
    ends = []
    for k in (0, n - 1):                       # one end at a time: no full eigendecomposition
        w, v = scipy.linalg.eigh(h, subset_by_index=[k, k], driver="evx", check_finite=False)
        ends.append((w[0], v[:, 0]))
    return tuple(ends)


def lanczos(op: scipy.sparse.linalg.LinearOperator, steps: int) -> Extremes | None:
    """The extreme Ritz pairs of `op` after at most `steps` Lanczos steps with full
    reorthogonalisation, from a fixed start: a bounded cost (`steps` products), and one
    Krylov space for both ends. Exact once `steps` reaches the dimension; None if a
    product is not finite. (ARPACK, run to convergence, can take thousands of products
    on the clustered spectra of rank-deficient Hessians, and then returns no vector.)
    The Krylov basis is kept within MAX_ENTRIES numbers (fewer steps for huge operators).

    Between products everything is vector work bound by memory traffic, which BLAS threads
    do not speed up; on a busy machine they wait for each other (a norm of 10^5 numbers
    took 15 ms instead of 20 us), so that part runs with one BLAS thread. The products
    themselves (matrix products, the actual computing) keep BLAS's threads. Where BLAS runs
    one thread already, nothing is switched (50 us a step)."""
    m = op.shape[0]
    q = np.zeros((max(1, min(m, steps, MAX_ENTRIES // max(m, 1))), m))
    alpha: list[float] = []
    beta: list[float] = []
    v = np.random.default_rng(0).standard_normal(m)
    v /= np.linalg.norm(v)
    single = _single()                         # already one thread: no switch per step
    for j in range(len(q)):
        q[j] = v
        w = op.matvec(v)
        with _one_blas_thread(single):
            if not np.all(np.isfinite(w)):
                return None
            alpha.append(float(v @ w))
            w = w - alpha[-1] * v - (beta[-1] * q[j - 1] if j else 0.0)     # the three-term recurrence
            w = _orthogonalised(w, q[:j + 1])
            beta.append(float(np.linalg.norm(w)))
        if beta[-1] <= 1e-10 * max(abs(x) for x in alpha + beta[:-1] + [1e-300]):
            break                              # an invariant subspace: the Ritz pairs are exact
        v = w / beta[-1]
    theta, s = scipy.linalg.eigh_tridiagonal(np.array(alpha), np.array(beta[:-1]))
    with _one_blas_thread(single):
        vectors = q[:len(alpha)].T @ s[:, [0, -1]]
    return (theta[0], vectors[:, 0]), (theta[-1], vectors[:, 1])


@memoized(maxsize=1)
def _blas() -> threadpoolctl.ThreadpoolController:
    return threadpoolctl.ThreadpoolController()


def _one_blas_thread(single: bool = False):
    """A context in which the BLAS libraries NumPy and SciPy loaded use one thread; none
    where `single` says they already run one (`_single`: switching costs 50 us a step)."""
    return contextlib.nullcontext() if single else _blas().limit(limits=1, user_api="blas")


def _single() -> bool:
    """Whether every BLAS library loaded runs one thread now."""
    return all(lib.get("num_threads") == 1 for lib in _blas().select(user_api="blas").info())


def _orthogonalised(w: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """`w` less its components along the orthonormal rows of `basis` (classical Gram-Schmidt),
    with a second pass only when the first cancelled more than 1 - 1/sqrt(2) of its norm
    ("twice is enough": Kahan, Parlett). After the three-term recurrence little is left to
    remove, so one pass over the basis per step is the rule, not two."""
    for _ in range(2):
        before = np.linalg.norm(w)
        w = w - basis.T @ (basis @ w)
        if np.linalg.norm(w) > before / math.sqrt(2):
            break
    return w
