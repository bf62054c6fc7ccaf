"""The row factor of block Newton on Dask data: U (m x r) stays on the workers.

When the data of `solvers.alternate` are Dask arrays chunked by rows (M and Y of matrix
completion) and a block is one variable whose first axis is a chunked row dimension of
the data and whose Hessian is block diagonal over that axis (a delta over the rows of
U), the variable is kept as a Dask array chunked like the data's rows, persisted on the
workers (`RowObjective`; its flat vector z is a Dask array too). A Newton step on it
(`RowNewton`), with the loop's own `iterate` and line search:

- f, g and the r x r blocks H_i at U from one compiled call, g and the blocks persisted
  on the workers beside the rows they belong to; f comes to the client;
- the shift tau that `linalg.newton_step` would choose for all blocks together: the
  lowest and the largest |diagonal| entry of the blocks (one compute of two scalars)
  give the shifts to try, each chunk reports how many of them its blocks need (one
  compute of their maximum), and every chunk then solves its rows' systems
  (H_i + tau I) d_i = -g_i with that tau (`map_blocks`; d persisted);
- g.d, max|g| and each line-search trial f(U + t d) are scalars computed on the workers.

So only scalars (and the other blocks' small factors) reach the client, and the step is
`Newton`'s on the same numbers: the same shift, the same fallback to -g, the same search.
The iterates are NumPy's up to the order of the sums.
"""
from __future__ import annotations

from typing import Any, Mapping

import dask
import dask.array as da
import numpy as np

from solvers.methods.history import Clock
from solvers.methods.loop import Direction, Evaluation, Method
from solvers.methods.newton import checked_direction, gradient_direction
from solvers.methods.options import Options
from solvers.numerics.linalg import MAX_SHIFTS, cho_solve, cholesky, newton_shifts
from solvers.objective.smooth import Objective, compiled_program, finite_value
from solvers.protocol import Array, Smooth
from solvers.task.distributed import lazily
from tensorcalc.arrays import is_dask


def row_chunks(obj: Objective) -> Any:
    """The row chunks of `obj`'s one variable when it is a row factor (see the module),
    else None."""
    blocks = compiled_program(obj.task.expr, obj.names, "hess")[1] if len(obj.free) == 1 else None
    if blocks is None or blocks[0] != 0:
        return None
    declarations = obj.task.problem.declarations
    dim = declarations[obj.names[0]].dims[0]
    for name, a in obj.fixed.items():
        if is_dask(a):
            for d, chunks in zip(declarations[name].dims, a.chunks):
                if d == dim and len(chunks) > 1:
                    return chunks
    return None


class RowObjective:
    """The block objective `obj` of a row factor, z a flat Dask array (see the module);
    what it does not define comes from `obj` (fixed arrays, set_fixed, counts)."""

    def __init__(self, obj: Objective, chunks: tuple[int, ...]):
        self.obj, self.chunks = obj, chunks
        self.shape = obj.free[0].shape
        self.rest = int(np.prod(self.shape[1:], dtype=np.int64))

    def __getattr__(self, name):
        return getattr(self.obj, name)

    def rows(self, value: Any) -> Any:
        """A NumPy or Dask array of the variable's shape, as a Dask array chunked like the
        data's rows, persisted."""
        chunks = (self.chunks,) + tuple((n,) for n in self.shape[1:])
        a = da.from_array(np.asarray(value), chunks=chunks) if not is_dask(value) else \
            value.reshape(self.shape).rechunk(chunks)
        return a.persist()

    def pack(self, arrays: Mapping[str, Array]) -> Array:
        return self.rows(arrays[self.names[0]]).reshape(-1)

    def unpack(self, z: Array) -> dict:
        return {self.names[0]: self.rows(z)}

    def value(self, z: Array, overflow: bool = False) -> float:
        if not self.obj.inside(z):
            return float("inf")
        self.counts["nfev"] += 1
        (f, *_), streamed = self._outputs("value", z)
        f = float(f.compute(optimize_graph=not streamed))
        return f if overflow and f == -float("inf") else finite_value(f)

    def value_grad_hess(self, z: Array) -> tuple[float, Array, Any]:
        (f, g, H), streamed = self._outputs("hess", z)
        g = g.reshape(self.shape).rechunk((self.chunks,) + tuple((n,) for n in self.shape[1:]))
        H = H.reshape(self.shape[:1] + (self.rest, self.rest)).rechunk((self.chunks, self.rest, self.rest))
        f, g, H = dask.persist(f, g, H, optimize_graph=not streamed)
        for key in ("nfev", "njev", "nhev"):
            self.counts[key] += 1
        return finite_value(f.compute()), g.reshape(-1), H

    def _outputs(self, kind: str, z):
        program, _, invariants = compiled_program(self.task.expr, self.names, kind)
        hoisted = {name: self.obj._invariant(e, z) for name, e in invariants.items()}
        values = {**self.fixed, self.names[0]: z.reshape(self.shape), **hoisted}
        return lazily(program, values)


def value_grad(obj: Objective, state: dict) -> tuple[float, dict[str, Any]]:
    """(f, gradient by name) of `obj` at `state`, some variables Dask arrays: f and the
    gradients of NumPy variables computed, those of Dask ones persisted on the workers."""
    program, _, invariants = compiled_program(obj.task.expr, obj.names, "grad")
    z = da.concatenate([da.asarray(state[n]).reshape(-1) for n in obj.names])
    hoisted = {name: obj._invariant(e, z) for name, e in invariants.items()}
    (f, *grads), streamed = lazily(program, {**obj.fixed, **{n: state[n] for n in obj.names}, **hoisted})
    grads = [g.reshape(np.shape(state[n])) for g, n in zip(grads, obj.names)]
    f, *grads = dask.persist(f, *grads, optimize_graph=not streamed)
    small = [n for n in obj.names if not is_dask(state[n])]
    computed = dask.compute(f, *(g for g, n in zip(grads, obj.names) if n in small))
    out = dict(zip(obj.names, grads))
    out.update(zip(small, map(np.asarray, computed[1:])))
    return finite_value(computed[0]), out


class RowNewton(Method):
    """`Newton`'s direction for a row factor, each chunk's blocks solved on its worker."""

    name, newton = "Newton", True

    @classmethod
    def made(cls, opts: Options) -> "RowNewton":
        """A fresh one for a step (`alternate`'s maker; no tolerance of its own)."""
        return cls()

    def direction(self, obj: Smooth, z: Array, ev: Evaluation, clock: Clock) -> Direction:
        g, H = ev.g, ev.hessian
        with clock("solve"):
            diag = H.map_blocks(np.diagonal, axis1=1, axis2=2, drop_axis=2, dtype=np.float64)
            low, scale = (float(v) for v in dask.compute(diag.min(), abs(diag).max()))
            taus = newton_shifts(low, scale).taus()         # `newton_step`'s, for all blocks at once
            ones = ((1,) * H.numblocks[0],)
            need = int(da.map_blocks(_needed, H, taus=taus, drop_axis=[1, 2], chunks=ones,
                                     dtype=np.int64).max().compute())
            if need == MAX_SHIFTS:
                return gradient_direction(g, f"Cholesky failed for every shift up to tau = {taus[-1]:.3g}")
            tau = taus[need]
            d = da.map_blocks(_solved, H, g.reshape(H.shape[:2] + (1,)), tau=tau, drop_axis=2,
                              dtype=np.float64).reshape(-1).persist()
        notes = [f"Hessian not positive definite: added {tau:.3g} I "
                 f"after {need} failed Cholesky attempt(s)"] if tau else []
        return checked_direction(g, d, tau, notes)


def _needed(H, taus):
    """How many of `taus` fail before H + tau I is positive definite for every block of
    this chunk (MAX_SHIFTS for none)."""
    eye = np.eye(H.shape[-1])
    for k, tau in enumerate(taus[:MAX_SHIFTS]):
        if cholesky(np, H + tau * eye if tau else H) is not None:
            return np.array([k])
    return np.array([MAX_SHIFTS])


def _solved(H, g, tau: float):
    """-(H_i + tau I)^-1 g_i for the blocks of one chunk (g: rows x R x 1), as
    `linalg.Cholesky.solve` does them."""
    L = cholesky(np, H + tau * np.eye(H.shape[-1]) if tau else H)
    return -cho_solve(np, L, g)[..., 0]
