"""Code generation: expressions to one Python function of arrays, planned then emitted.

`plan` walks all outputs together in dependency order, so a subexpression shared by
several outputs (value, gradient, Hessian) is one step, computed once. The plan is data
and prints as the program it becomes. `emit` writes Python source from it; the only
text of the user that reaches the source is variable names, validated identifiers,
written as string literals (dictionary keys).

Products become: an element-wise multiply when no index is summed or permuted;
`xp.transpose` for a pure axis permutation; `xp.matmul` for a two-operand matrix or
matrix-vector product (BLAS reads transposed operands in place, where einsum's
tensordot would copy); a zeros array written through a diagonal view for a delta on
output indices (a block-diagonal Hessian); and otherwise one
`opt_einsum.contract_expression`, its contraction path chosen once per shape signature
and cached, never NumPy's unoptimised einsum. opt_einsum dispatches on the array type,
and element-wise functions use the array module chosen in one place, `runtime.array_module`,
so the same function runs on NumPy, CuPy, JAX and other Array-API arrays.

Constants follow NumPy's semantics, as in `tensorcalc.evaluate`: each is a NumPy float64
scalar (`_f(...)` in the source), never a Python float, and the function runs under the
same `np.errstate` as evaluation, so 1/0, 0^-1 and 1e308^2 give inf or nan, not a Python
exception. A constant, or an element-wise function of constants, is a scalar that
broadcasting gives its shape; wherever a full array is needed it is materialised.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from tensorcalc.dag import Axis, Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.errors import TensorCalcError

ELEMENTWISE_CODE = {
    "sin": "xp.sin({})", "cos": "xp.cos({})", "tan": "xp.tan({})", "arcsin": "xp.arcsin({})",
    "arccos": "xp.arccos({})", "arctan": "xp.arctan({})", "tanh": "xp.tanh({})", "exp": "xp.exp({})",
    "log": "xp.log({})", "sign": "xp.sign({})", "relu": "xp.maximum({}, 0.0)", "abs": "xp.abs({})",
    "huber": "_huber(xp, {})", "neg": "(-{})", "recip": "(1.0 / {})",
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


# ----------------------------------------------------------------------------- planning

class _Planner:
    def __init__(self):
        self.steps: list[Step] = []
        self.names: dict[Expr | tuple[str, Expr], str] = {}    # a node's, or its ('array' | 'out', node)
        self.contractions: list[str] = []
        self.lengths: dict[tuple[Axis, str, int], None] = {}
        self.folded: set[Expr] = set()   # single-use products a negation above them plans
        self.short: set[Expr] = set()    # values that are scalars standing for a full tensor

    def step(self, code: str, args: tuple[str, ...] = ()) -> str:
        """Append `target = code(args)`; returns the new target's name."""
        self.steps.append(Step(f"v{len(self.steps)}", code, args))
        return self.steps[-1].target

    def name(self, node: Expr) -> str:
        """The node as a value: a float64 scalar for a constant (or a function of
        constants only), else its array."""
        return self.array(node) if isinstance(node, Delta) else self.names[node]

    def array(self, node: Expr) -> str:
        """The node as an array of its full shape; constants, functions of constants and
        deltas are materialised here, once, and only where a contraction, a matrix
        function or an output needs them."""
        if isinstance(node, Delta) or node in self.short:
            key = ("array", node)
            if key not in self.names:
                if isinstance(node, Delta):
                    self.names[key] = self.step(f"_delta(xp, {int(node.n)!r}, {self.shape(node)})")
                else:
                    self.names[key] = self.step(f"xp.full({self.shape(node)}, {{}})", (self.names[node],))
            return self.names[key]
        return self.names[node]

    def add(self, node: Expr | tuple[str, Expr], code: str, args: tuple[str, ...] = ()) -> None:
        self.names[node] = self.step(code, args)

    def shape(self, node: Expr) -> str:
        return "(" + "".join(f"n[{axis_key(a)!r}], " for a in node.axes) + ")"


def axis_key(axis: Axis) -> str:
    return f"{axis.var}.{axis.pos}" if axis.var else f"?{axis.pos}"


def _var(p: _Planner, node: Var) -> None:
    if not node.name.isidentifier():
        raise TensorCalcError(f"variable name {node.name!r} is not an identifier; it cannot be compiled")
    for pos, axis in enumerate(node.axes):
        p.lengths[(axis, node.name, pos)] = None          # every place an axis is read
    p.add(node, f"values[{node.name!r}]")


def literal(value: float) -> str:
    """Source text of a NumPy float64 scalar equal to `value` (also inf and nan)."""
    value = float(value)
    return f"_f({value!r})" if math.isfinite(value) else f"_f({str(value)!r})"


def _const(p: _Planner, node: Const) -> None:
    """A constant is a float64 scalar (NumPy broadcasting gives it its shape); a
    contraction that needs it as an array gets one from `_Planner.array`."""
    p.names[node] = literal(node.value)
    p.short.add(node)


def _short_step(p: _Planner, node: Expr, code: str, args: tuple[Expr, ...], short: tuple[Expr, ...]) -> None:
    """`node = code(args)`; a scalar standing for a full tensor when every `short` is."""
    p.add(node, code, tuple(map(p.name, args)))
    if all(a in p.short for a in short):
        p.short.add(node)


def _embedding(node: Product):
    """(pairs, rest) when the product is a delta on output letters times the rest: a
    diagonal embedding, written into zeros instead of multiplied by an identity."""
    deltas = [(a, s) for a, s in zip(node.args, node.spec.inputs) if isinstance(a, Delta)]
    rest = [(a, s) for a, s in zip(node.args, node.spec.inputs) if not isinstance(a, Delta)]
    if not deltas or len(rest) != 1 or isinstance(rest[0][0], Const):
        return None
    pairs = [(s[k], s[d.n + k]) for d, s in deltas for k in range(d.n)]
    carried = set(rest[0][1])
    out = node.spec.out
    if len(set(rest[0][1])) != len(rest[0][1]) or not all(a in out and b in out for a, b in pairs):
        return None
    if not all((a in carried) != (b in carried) for a, b in pairs) or not carried <= set(out):
        return None
    return pairs, rest[0]


def _embed_step(p: _Planner, node: Product, pairs, rest) -> None:
    operand, letters = rest
    carried = [(a, b) if a in letters else (b, a) for a, b in pairs]   # (carried, free) letters
    p.add(node, f"_embed(xp, {{}}, {p.shape(node)}, {node.spec.out!r}, {letters!r}, {tuple(carried)!r})",
          (p.array(operand),))


def _product(p: _Planner, node: Product, extra: float = 1.0) -> None:
    """One contraction. Scalar factors (constants, a folded negation, order-0 operands
    such as a scalar parameter) leave the contraction, so that what remains can be one
    BLAS call, and scale whichever is cheaper: the result when its order is at most the
    lowest operand order (X^T diag(d) X scaled as n x n, not as m x n), else that operand."""
    embedding = _embedding(node) if extra == 1.0 else None
    if embedding is not None:
        _embed_step(p, node, *embedding)
        return
    scale, operands, inputs, factors = np.float64(extra), [], [], []
    for arg, s in zip(node.args, node.spec.inputs):
        if isinstance(arg, Const) and arg.order == 0:
            with np.errstate(all="ignore"):              # as at run time: 1e308 * 10 is inf
                scale = scale * np.float64(arg.value)
        elif not s and node.spec.out:
            factors.append(p.array(arg))
        else:
            operands.append(p.array(arg))
            inputs.append(s)
    if not operands:
        p.add(node, f"xp.full({p.shape(node)}, {literal(scale)})" if not factors else
              _scaled(p.shape(node), scale, len(factors)), tuple(factors))
        return
    codes = ["{}" for _ in factors] + ([literal(scale)] if scale != 1.0 else [])
    if codes and len(node.spec.out) > min(len(s) for s in inputs):
        smallest = min(range(len(inputs)), key=lambda k: len(inputs[k]))
        operands[smallest] = p.step("(" + " * ".join(codes + ["{}"]) + ")", (*factors, operands[smallest]))
        codes, factors = [], []
    gram = _gram(operands, inputs, node.spec.out)
    if gram is not None:
        body, operands = gram
    else:
        operands, inputs = _absorb_weights(p, operands, inputs, node.spec.out)
        body = _contraction_code(p, inputs, node.spec.out)
    code = "(" + " * ".join(codes + [body]) + ")" if codes else body
    p.add(node, code, (*factors, *operands))


def _gram(operands: list[str], inputs: list[str], out: str):
    """(code, operands) for X^T diag(d) X or X diag(d) X^T, the same X twice: one
    symmetric product (`runtime.gram`), else None."""
    if len(inputs) != 3:
        return None
    for k, s in enumerate(inputs):
        a, b = (j for j in range(3) if j != k)
        x, y = inputs[a], inputs[b]
        if (len(s) == 1 and operands[a] == operands[b] and len(x) == len(y) == 2 and s in x
                and s in y and x.index(s) == y.index(s) and len(set(x + y)) == 3
                and sorted(out) == sorted(set(x + y) - set(s))):
            return f"_gram(xp, {{}}, {{}}, {x.index(s)})", [operands[a], operands[k]]
    return None


def _scaled(shape: str, scale: float, count: int) -> str:
    """A tensor of the node's shape filled with the product of `count` scalars and `scale`."""
    return f"xp.full({shape}, " + " * ".join(["{}"] * count + [literal(scale)]) + ")"


def _contraction_code(p: _Planner, inputs: list[str], out: str) -> str:
    """Code with one {} per operand: an element-wise multiply, a matmul, a transpose, or
    a cached opt_einsum contraction."""
    codes = ["{}"] * len(inputs)
    matmul = _matmul(inputs, out)
    if all(s == out for s in inputs):                       # element-wise: no einsum needed
        return " * ".join(codes)
    if matmul is not None:                                  # BLAS reads transposes in place
        return matmul.format(*codes)
    if len(inputs) == 1 and sorted(inputs[0]) == sorted(out) and len(set(inputs[0])) == len(inputs[0]):
        perm = tuple(inputs[0].index(c) for c in out)       # a pure axis permutation
        return f"xp.transpose({codes[0]}, {perm})"
    p.contractions.append(f"{','.join(inputs)}->{out}")
    return f"_c[{len(p.contractions) - 1}](" + ", ".join(codes) + ")"


def _matmul(inputs: list[str], out: str) -> str | None:
    """Code for a two-operand contraction that is a matrix (or matrix-vector) product:
    orders <= 2, distinct letters, one summed index, every other index in the output."""
    if len(inputs) != 2:
        return None
    a, b = inputs
    summed = set(a) & set(b)
    if (len(a) > 2 or len(b) > 2 or len(set(a)) != len(a) or len(set(b)) != len(b) or len(summed) != 1
            or summed & set(out) or sorted(out) != sorted(set(a + b) - summed)):
        return None
    (c,) = summed
    left = "{}" if len(a) == 1 or a[1] == c else "xp.transpose({})"
    right = "{}" if len(b) == 1 or b[0] == c else "xp.transpose({})"
    free = [x for x in a if x != c] + [x for x in b if x != c]
    product = f"xp.matmul({left}, {right})"
    return product if "".join(free) == out else f"xp.transpose({product})"


def _absorb_weights(p: _Planner, operands: list[str], inputs: list[str], out: str):
    """Multiply a diagonal weight into a neighbour by broadcasting: an operand whose
    letters are all summed and each carried by two other operands (the d of
    X^T diag(d) X) must meet one of them anyway, and a broadcast multiply is cheaper
    than the einsum step opt_einsum would spend on it; the rest stays one contraction."""
    for k, s in enumerate(inputs):
        others = [j for j in range(len(inputs)) if j != k]
        if (len(inputs) < 3 or not s or len(set(s)) != len(s) or any(c in out for c in s)
                or any(sum(c in inputs[j] for j in others) < 2 for c in s)):
            continue
        host = next((j for j in others if set(s) <= set(inputs[j]) and len(set(inputs[j])) == len(inputs[j])), None)
        if host is None:
            continue
        operands, inputs = list(operands), list(inputs)
        operands[host] = p.step(f"_weigh(xp, {{}}, {{}}, {inputs[host]!r}, {s!r})", (operands[host], operands[k]))
        del operands[k], inputs[k]
        return operands, inputs
    return operands, inputs


def _elementwise(p: _Planner, node: Elementwise) -> None:
    (arg,) = node.args
    if node.fn == "neg" and isinstance(arg, Product) and arg in p.folded:     # folded: products only
        _product(p, arg, extra=-1.0)                    # -(contraction): scale an operand
        p.names[node] = p.names.pop(arg)
        return
    _short_step(p, node, ELEMENTWISE_CODE[node.fn], (arg,), (arg,))


PLAN_RULES: dict[type[Expr], Callable[[_Planner, Any], None]] = {
    Var: _var,
    Const: _const,
    Delta: lambda p, node: None,                     # materialised on demand by _Planner.array
    Sum: lambda p, node: _short_step(p, node, "({} + {})", node.args, node.args),
    Product: _product,
    Elementwise: _elementwise,
    Special: lambda p, node: p.add(node, f"_special({node.fn!r}, xp, {{}})", (p.array(node.args[0]),)),
    Power: lambda p, node: _short_step(p, node, "({} ** {})", node.args, node.args[:1]),
    Gather: lambda p, node: p.add(node, f"_gather(xp, {{}}, {int(node.batch)!r}, {node.shape!r}, {node.rows!r}, "
                                        f"{node.domain!r})", (p.array(node.args[0]),)),
}


def plan(outputs: Sequence[Expr], nodes: list[Expr]) -> Plan:
    """One step per distinct node of all outputs (`nodes`, in dependency order)."""
    p = _Planner()
    uses = Counter(list(outputs) + [c for node in nodes for c in node.args])
    p.folded = {n.args[0] for n in nodes if isinstance(n, Elementwise) and n.fn == "neg"
                and isinstance(n.args[0], Product) and uses[n.args[0]] == 1}
    for node in nodes:
        if node not in p.folded:                         # planned by the negation above it
            PLAN_RULES[type(node)](p, node)
    out_names = []
    for node in outputs:                             # each output a fresh array of its shape
        copy = "True" if isinstance(node, Var) else "False"
        p.add(("out", node), "_out(xp, {}, " + p.shape(node) + f", {copy})", (p.name(node),))
        out_names.append(p.names[("out", node)])
    variables = tuple((n.name, n.order) for n in nodes if isinstance(n, Var))
    lengths = tuple(p.lengths)
    return Plan(tuple(p.steps), tuple(out_names), tuple(p.contractions), lengths, variables)


# ----------------------------------------------------------------------------- emitting

def emit(pl: Plan) -> str:
    """Python source of `def compiled(values, xp, n, _c)` for the plan."""
    body = [f"    {s.target} = {s.code.format(*s.args)}" for s in pl.steps]
    body.append(f"    return ({''.join(o + ', ' for o in pl.outputs)})")
    return "def compiled(values, xp, n, _c):\n" + "\n".join(body) + "\n"
