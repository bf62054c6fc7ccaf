"""Compiled functions: the program `codegen` plans and emits, run on arrays.

`compile` plans and emits once; a `Compiled` object then checks each call's axis
lengths (kept per shape signature, so a repeated call checks nothing again), refuses
outputs over MAX_ENTRIES before allocating, and runs the generated function under
NumPy's `errstate` like `evaluate`. `namespace` is the only set of names the generated
source sees (also for sources restored by `cache`).
"""
from __future__ import annotations

import builtins
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from tensorcalc import dag
from tensorcalc.algebra.simplify import simplify as simplified
from tensorcalc.codegen import runtime, sourcecheck
from tensorcalc.codegen.program import axis_key, emit, plan
from tensorcalc.codegen.runtime import array_module
from tensorcalc.dag import Const, Delta, Expr
from tensorcalc.errors import ShapeError, TensorCalcError
from tensorcalc.gather import affine
from tensorcalc.numeric.evaluate import MAX_ENTRIES, Where, fixed_lengths
from tensorcalc.numeric.minors import exact_forms

KNOWN_SHAPES = 32      # shape signatures whose checked lengths a compiled function keeps


def namespace() -> dict:
    """The names generated source may use: NumPy's float64 and tensorcalc's runtime helpers."""
    return {"_f": np.float64, "_delta": runtime.delta, "_special": runtime.special, "_out": runtime.out,
            "_embed": runtime.embed, "_weigh": runtime.weigh, "_gram": runtime.gram,
            "_huber": runtime.huber, "_gather": affine.take}


def load_source(source: str) -> Callable[..., Any]:
    """The function `source` defines, run with `namespace()` and no builtins, once
    `sourcecheck` admits it: the only way generated code (fresh or cached) is run.
    TensorCalcError for a source the check refuses."""
    tree = sourcecheck.parsed(source)
    if tree is None:
        raise TensorCalcError("generated code failed tensorcalc's source check; it was not run "
                              "(please report this as a bug, with the expression)")
    names = {**namespace(), "__builtins__": {}}
    exec(builtins.compile(tree, "<tensorcalc.codegen.compiled>", "exec"), names)  # noqa: S102 - checked above
    return names["compiled"]


class Compiled:
    """A compiled function: call with arrays by variable name (a dict or keywords).

    Returns an array for one compiled expression, a tuple for a sequence, a dict for a
    mapping. Values for variables the outputs do not read are accepted and ignored
    (they may still give axis lengths). `source` is the generated Python, `plan` its plan.
    """

    def __init__(self, exprs: Sequence[Expr], keys: Sequence[str] | None, single: bool,
                 simplify: bool = True) -> None:
        exprs = [simplified(e) for e in exprs] if simplify else list(exprs)
        self.exprs, self.keys, self.single = tuple(exprs), keys, single
        planned = exact_forms(self.exprs)            # d adj(X) exactly, also at singular X
        nodes = dag.topo(*planned)
        self.plan = plan(planned, nodes)
        self.source = emit(self.plan)
        self._fn = load_source(self.source)
        self._contractions = [runtime.Contraction(eq) for eq in self.plan.contractions]
        self._sized = tuple(dict.fromkeys(                   # outputs, deltas, constant tensors
            [*self.exprs, *(n for n in nodes if isinstance(n, (Delta, Const)) and n.order)]))
        self._fixed = tuple((axis_key(a), n, where) for a, n, where in fixed_lengths(nodes))
        bound = {axis_key(a) for a, _, _ in self.plan.lengths} | {k for k, _, _ in self._fixed}
        self._unread = tuple({axis_key(a): a for node in nodes for a in node.axes
                              if axis_key(a) not in bound}.items())   # axes of variables not read

    def __call__(self, values: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        values = {**(values or {}), **kwargs}
        for name, value in values.items():
            if not hasattr(value, "shape"):                  # lists, numbers: NumPy arrays
                values[name] = np.asarray(value, dtype=float)
        xp = array_module(values)
        lengths = self._checked_lengths(values)
        with np.errstate(all="ignore"):                      # as evaluate: inf and nan, no warnings
            outputs = self._fn(values, xp, lengths, self._contractions)
        if self.single:
            return outputs[0]
        if self.keys is not None:
            return dict(zip(self.keys, outputs))
        return outputs

    def _checked_lengths(self, values: Mapping[str, Any]) -> dict[str, int]:
        """`_lengths`, checked by `_check_sizes`; kept by the shapes of the values read
        (the only input of both), so a call with the shapes of an earlier one checks
        nothing again. The dict is shared between those calls: read it, never write it."""
        known = self.__dict__.setdefault("_known", {})   # not in __init__: `cache` restores without it
        try:
            signature = tuple([values[name].shape for name in self._shape_names()])
        except KeyError:                                 # a value is missing: `_lengths` says which
            signature = None
        lengths = known.get(signature)
        if lengths is None:
            lengths = self._lengths(values)
            self._check_sizes(lengths)
            if signature is not None:
                if len(known) >= KNOWN_SHAPES:
                    known.clear()
                known[signature] = lengths
        return lengths

    def _shape_names(self) -> tuple[str, ...]:
        """The variables whose shapes `_lengths` reads: those read, and those giving the
        lengths of unread axes."""
        names = self.__dict__.get("_read")
        if names is None:
            names = tuple(dict.fromkeys([n for n, _ in self.plan.variables] + [a.var for _, a in self._unread]))
            self._read = names
        return names

    def _lengths(self, values: Mapping[str, Any]) -> dict[str, int]:
        """Axis lengths by key, checked: every place an axis is read must agree."""
        for name, order in self.plan.variables:
            if name not in values:
                raise ShapeError(f"no value given for variable {name!r}")
            if len(values[name].shape) != order:
                raise ShapeError(f"variable {name!r} has order {order} but its value has shape "
                                 f"{tuple(values[name].shape)}")
        n: dict[str, int] = {}
        for key, length, where in self._fixed:
            _bind(n, key, length, where)
        for axis, name, pos in self.plan.lengths:
            _bind(n, axis_key(axis), values[name].shape[pos], f"axis {pos} of {name!r}")
        for key, axis in self._unread:
            if axis.var not in values or axis.pos >= len(values[axis.var].shape):
                raise ShapeError(f"cannot tell the length of axis {axis}: pass a value for {axis.var!r}")
            n[key] = values[axis.var].shape[axis.pos]
        return n

    def _check_sizes(self, n: dict[str, int]) -> None:
        """Refuse, before allocating, outputs and materialised tensors over MAX_ENTRIES."""
        for node in self._sized:
            size = 1
            for axis in node.axes:
                size *= n[axis_key(axis)]
            if size > MAX_ENTRIES:
                shape = tuple(n[axis_key(a)] for a in node.axes)
                raise ShapeError(f"`{node!s:.80}` would have shape {shape}, over {MAX_ENTRIES:,} "
                                 f"entries; use smaller axes or a structured form (block Hessians)")


def _bind(n: dict[str, int], key: str, length: int, where: str | Where) -> None:
    if n.setdefault(key, length) != length:
        raise ShapeError(f"{where} has length {length} but another axis tied to it has length {n[key]}")


def compile(exprs: Expr | Sequence[Expr] | Mapping[str, Expr]) -> Compiled:  # noqa: A001 - the API name
    """Compile one expression, a sequence, or a dict of named expressions to one function."""
    if isinstance(exprs, Expr):
        return Compiled([exprs], None, True)
    if isinstance(exprs, Mapping):
        return Compiled(list(exprs.values()), list(exprs.keys()), False)
    exprs = list(exprs)
    if not all(isinstance(e, Expr) for e in exprs):
        raise TensorCalcError("compile takes an expression, a list of expressions, or a dict of them")
    return Compiled(exprs, None, False)
