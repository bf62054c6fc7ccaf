"""Code generation: expressions to one Python function of arrays, planned then emitted.

`plan` walks all outputs together in dependency order, so a subexpression shared by
several outputs (value, gradient, Hessian) is one step, computed once. The plan is data
and prints as the program it becomes. `emit` writes Python source from it; the only
text of the user that reaches the source is variable names, validated identifiers,
written as string literals (dictionary keys). Every product is one
`opt_einsum.contract_expression`, whose contraction path is chosen once per shape
signature and cached; opt_einsum dispatches on the array type, so the same function
runs on NumPy, CuPy or any array type opt_einsum supports. The array module for
element-wise functions is chosen in one place, `array_module`, from the arguments.
"""
from __future__ import annotations

import builtins
import sys
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np
import opt_einsum

from . import dag
from .dag import Axis, Const, Delta, Elementwise, Expr, Power, Product, Special, Sum, Var
from .errors import ShapeError, TensorCalcError

ELEMENTWISE_CODE = {
    "sin": "xp.sin({})", "cos": "xp.cos({})", "tan": "xp.tan({})", "arcsin": "xp.arcsin({})",
    "arccos": "xp.arccos({})", "arctan": "xp.arctan({})", "tanh": "xp.tanh({})", "exp": "xp.exp({})",
    "log": "xp.log({})", "sign": "xp.sign({})", "relu": "xp.maximum({}, 0.0)", "abs": "xp.abs({})",
    "neg": "(-{})", "recip": "(1.0 / {})",
}


class Step(NamedTuple):
    """target = op(args); `code` is the Python expression, with {} for the arguments."""

    target: str
    code: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    outputs: tuple[str, ...]
    contractions: tuple[str, ...]            # einsum equations, indexed by _c[k]
    lengths: tuple[tuple[Axis, str, int], ...]  # axis, variable, position it is read from
    variables: tuple[tuple[str, int], ...]   # (name, order) of variables read

    def __str__(self) -> str:
        lines = [f"{s.target} = {s.code.format(*s.args)}" for s in self.steps]
        return "\n".join(lines + [f"return {', '.join(self.outputs)}"])


def array_module(values: Mapping[str, Any]):
    """The array module of the arguments, the one place a backend is chosen: CuPy for
    CuPy arrays, the Array-API namespace of arrays that have one (JAX, NumPy >= 2),
    else NumPy."""
    for value in values.values():
        if type(value).__module__.split(".")[0] == "cupy":
            return sys.modules["cupy"]
        namespace = getattr(value, "__array_namespace__", None)
        if namespace is not None and not isinstance(value, np.ndarray):
            return namespace()
    return np


# ----------------------------------------------------------------------------- planning

class _Planner:
    def __init__(self):
        self.steps: list[Step] = []
        self.names: dict[Expr, str] = {}
        self.contractions: list[str] = []
        self.lengths: dict[tuple[Axis, str, int], None] = {}

    def name(self, node: Expr) -> str:
        return self.names[node]

    def array(self, node: Expr) -> str:
        """The node as an array of its full shape (a constant is materialised once)."""
        if isinstance(node, Const):
            key = ("array", node)
            if key not in self.names:
                target = f"v{len(self.steps)}"
                self.steps.append(Step(target, f"xp.full({self.shape(node)}, {float(node.value)!r})", ()))
                self.names[key] = target
            return self.names[key]
        return self.names[node]

    def add(self, node: Expr, code: str, args: tuple[str, ...] = ()) -> None:
        target = f"v{len(self.steps)}"
        self.steps.append(Step(target, code, args))
        self.names[node] = target

    def shape(self, node: Expr) -> str:
        return "(" + "".join(f"n[{_axis_key(a)!r}], " for a in node.axes) + ")"


def _axis_key(axis: Axis) -> str:
    return f"{axis.var}.{axis.pos}" if axis.var else f"?{axis.pos}"


def _var(p: _Planner, node: Var) -> None:
    if not node.name.isidentifier():
        raise TensorCalcError(f"variable name {node.name!r} is not an identifier; it cannot be compiled")
    for pos, axis in enumerate(node.axes):
        p.lengths[(axis, node.name, pos)] = None          # every place an axis is read
    p.add(node, f"values[{node.name!r}]")


def _const(p: _Planner, node: Const) -> None:
    """A constant is a Python float (NumPy broadcasting gives it its shape); a
    contraction that needs it as an array gets one from `_Planner.array`."""
    p.names[node] = repr(float(node.value))


def _product(p: _Planner, node: Product) -> None:
    scale, operands, inputs = 1.0, [], []
    for arg, s in zip(node.args, node.spec.inputs):
        if isinstance(arg, Const) and arg.order == 0:
            scale *= arg.value
        else:
            operands.append(p.array(arg))
            inputs.append(s)
    prefix = "" if scale == 1.0 else f"{scale!r} * "
    if not operands:
        p.add(node, f"xp.full({p.shape(node)}, {scale!r})")
    elif all(s == node.spec.out for s in inputs):            # element-wise: no einsum needed
        p.add(node, prefix + " * ".join("{}" for _ in operands), tuple(operands))
    else:
        p.contractions.append(f"{','.join(inputs)}->{node.spec.out}")
        call = f"_c[{len(p.contractions) - 1}](" + ", ".join("{}" for _ in operands) + ")"
        p.add(node, prefix + call, tuple(operands))


PLAN_RULES = {
    Var: _var,
    Const: _const,
    Delta: lambda p, node: p.add(node, f"_delta(xp, {node.n}, {p.shape(node)})"),
    Sum: lambda p, node: p.add(node, "({} + {})", tuple(map(p.name, node.args))),
    Product: _product,
    Elementwise: lambda p, node: p.add(node, ELEMENTWISE_CODE[node.fn], (p.name(node.args[0]),)),
    Special: lambda p, node: p.add(node, f"_special[{node.fn!r}](xp, {{}})", (p.array(node.args[0]),)),
    Power: lambda p, node: p.add(node, "({} ** {})", tuple(map(p.name, node.args))),
}


def plan(outputs: Sequence[Expr]) -> Plan:
    """One step per distinct node of all outputs, in dependency order."""
    p = _Planner()
    for node in dag.topo(*outputs):
        PLAN_RULES[type(node)](p, node)
    out_names = []
    for node in outputs:                             # each output a fresh array of its shape
        copy = "True" if isinstance(node, Var) else "False"
        p.add(("out", node), "_out(xp, {}, " + p.shape(node) + f", {copy})", (p.name(node),))
        out_names.append(p.names[("out", node)])
    variables = tuple((n.name, n.order) for n in dag.topo(*outputs) if isinstance(n, Var))
    lengths = tuple(p.lengths)
    return Plan(tuple(p.steps), tuple(out_names), tuple(p.contractions), lengths, variables)


# ----------------------------------------------------------------------------- emitting

def emit(pl: Plan) -> str:
    """Python source of `def compiled(values, xp, n, _c)` for the plan."""
    body = [f"    {s.target} = {s.code.format(*s.args)}" for s in pl.steps]
    body.append(f"    return ({''.join(o + ', ' for o in pl.outputs)})")
    return "def compiled(values, xp, n, _c):\n" + "\n".join(body) + "\n"


def _out(xp, value, shape, copy: bool):
    """Outputs are C-ordered arrays of their full shape that the caller owns (never an
    input), so `as_matrix` views them without a copy."""
    if isinstance(value, float) or getattr(value, "shape", None) != shape:
        return xp.array(xp.broadcast_to(xp.asarray(value, dtype=float), shape))
    if copy:
        return xp.array(value)
    flags = getattr(value, "flags", None)
    return xp.ascontiguousarray(value) if flags is not None and not flags.c_contiguous else value


def _delta(xp, k: int, shape: tuple[int, ...]):
    size = 1
    for length in shape[:k]:
        size *= length
    return xp.eye(size).reshape(shape)


def _adjugate(xp, a):
    if xp is np:
        from .evaluation import adjugate
        return adjugate(a)
    return xp.linalg.det(a) * xp.linalg.inv(a)


SPECIAL_CODE = {"det": lambda xp, a: xp.linalg.det(a), "inv": lambda xp, a: xp.linalg.inv(a),
                "adj": _adjugate}


class Contraction:
    """One einsum equation; its contraction path is computed once per shape signature."""

    def __init__(self, equation: str):
        self.equation = equation
        self.cache: dict[tuple, Any] = {}

    def __call__(self, *arrays):
        shapes = tuple(a.shape for a in arrays)
        expression = self.cache.get(shapes)
        if expression is None:
            expression = opt_einsum.contract_expression(self.equation, *shapes, optimize="auto")
            self.cache[shapes] = expression
        return expression(*arrays)


class Compiled:
    """A compiled function: call with arrays by variable name (a dict or keywords).

    Returns an array for one compiled expression, a tuple for a sequence, a dict for a
    mapping. Values for variables the outputs do not read are accepted and ignored
    (they may still give axis lengths). `source` is the generated Python, `plan` its plan.
    """

    def __init__(self, exprs, keys, single: bool, simplify: bool = True):
        from .simplification import simplify as simplified
        exprs = [simplified(e) for e in exprs] if simplify else list(exprs)
        self.exprs, self.keys, self.single = tuple(exprs), keys, single
        self.plan = plan(self.exprs)
        self.source = emit(self.plan)
        namespace = {"_delta": _delta, "_special": SPECIAL_CODE, "_out": _out}
        exec(builtins.compile(self.source, "<tensorcalc.compiled>", "exec"), namespace)  # noqa: S102 - source from the plan only
        self._fn = namespace["compiled"]
        self._contractions = [Contraction(eq) for eq in self.plan.contractions]

    def __call__(self, values: Mapping[str, Any] | None = None, **kwargs):
        values = {**(values or {}), **kwargs}
        xp = array_module(values)
        outputs = self._fn(values, xp, self._lengths(values), self._contractions)
        if self.single:
            return outputs[0]
        if self.keys is not None:
            return dict(zip(self.keys, outputs))
        return outputs

    def _lengths(self, values: Mapping[str, Any]) -> dict[str, int]:
        for name, order in self.plan.variables:
            if name not in values:
                raise ShapeError(f"no value given for variable {name!r}")
            if len(values[name].shape) != order:
                raise ShapeError(f"variable {name!r} has order {order} but its value has shape "
                                 f"{tuple(values[name].shape)}")
        n: dict[str, int] = {}
        for axis, name, pos in self.plan.lengths:
            _bind(n, _axis_key(axis), values[name].shape[pos], f"axis {pos} of {name!r}")
        for node in dag.topo(*self.exprs):
            for pos, axis in enumerate(node.axes):
                if _axis_key(axis) not in n:
                    if axis.var in values and axis.pos < len(values[axis.var].shape):
                        n[_axis_key(axis)] = values[axis.var].shape[axis.pos]
                    else:
                        raise ShapeError(f"cannot tell the length of axis {axis}: pass a value for {axis.var!r}")
        return n


def _bind(n: dict[str, int], key: str, length: int, where: str) -> None:
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
