"""Index notation: an expression printed element-wise, as TensorAlgDiff prints Alg. 4's
derivatives (Urban & van der Smagt 2017, section 6):

    dd[dd_0] = sum{dd_z1}_(max(0, dd_0 - 2))^(min(4, dd_0)) (sum{dd_z0}_0^3 (... d[dd_0] ^ 2 ...))

Each node is printed at a tuple of affine index expressions (`Lin`): a variable reads
itself there, a product sums its contracted letters over their ranges, a gather reads
its source at the transformed indices under its guards (`if {...} then ... else 0`),
and a gather summed over trailing axes (a transpose, `affine.transpose`) prints those
sums with the nested ranges Fourier-Motzkin elimination gives (eq. 45 of the report).
Axis lengths come from gathers and from `shapes`.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from tensorcalc import dag
from tensorcalc.dag import Axis, Const, Delta, Elementwise, Expr, Gather, Ineq, Power, Product, Sum, Var
from tensorcalc.derivatives.reverse import derivative
from tensorcalc.errors import TensorCalcError
from tensorcalc.gather import affine, inequalities
from tensorcalc.language.definitions import parse_def, read_definition
from tensorcalc.numeric.evaluate import fixed_lengths
from tensorcalc.printing.einsum import number

Lin = dict[str, Fraction]  # index name ('' for the constant) -> coefficient


def lin(coefs: Mapping[str, int | Fraction] | None = None, const: int | Fraction = 0) -> Lin:
    out = {k: Fraction(v) for k, v in (coefs or {}).items() if v}
    if const:
        out[""] = Fraction(const)
    return out


def combine(rows_coefs: Sequence[int | Fraction], exprs: list[Lin], const: int | Fraction = 0,
            den: int = 1) -> Lin:
    """(sum_k a_k exprs[k] + const) / den."""
    out: dict[str, Fraction | int] = {}
    for a, e in zip(rows_coefs, exprs):
        for name, v in e.items():
            out[name] = out.get(name, 0) + a * v
    out[""] = out.get("", 0) + const
    return {k: Fraction(v) / den for k, v in out.items() if v}


def lin_text(e: Lin) -> str:
    """`dd_0 - dd_z1 + 2`; fractional coefficients as (...)/den."""
    den = math.lcm(*(v.denominator for v in e.values())) if e else 1
    names = [k for k in e if k] + [""]
    out = ""
    for name in names:
        v = e.get(name, 0) * den
        if v == 0:
            continue
        v = int(v)
        term = name if abs(v) == 1 and name else f"{abs(v)}*{name}" if name else str(abs(v))
        out += (" - " if v < 0 else " + ") + term if out else ("-" if v < 0 else "") + term
    out = out or "0"
    return out if den == 1 else f"({out})/{den}"


class IndexPrinter:
    def __init__(self, name: str, lengths: Mapping[Axis, int]) -> None:
        self.name, self.lengths, self.count = name, dict(lengths), 0

    def fresh(self) -> str:
        self.count += 1
        return f"{self.name}_z{self.count - 1}"

    def show(self, node: Expr, idx: list[Lin]) -> str:
        return RULES[type(node)](self, node, idx)

    def length(self, axis: Axis) -> int:
        if axis not in self.lengths:
            raise TensorCalcError(f"cannot print a sum over axis {axis}: give the shape of {axis.var!r}")
        return self.lengths[axis]


def _var(p: IndexPrinter, node: Var, idx):
    return node.name + (f"[{', '.join(map(lin_text, idx))}]" if idx else "")


def _const(p, node: Const, idx):
    return number(node.value)


def _delta(p, node: Delta, idx):
    n = node.n
    conds = [lin_text(combine([1, -1], [a, b])) + " = 0" for a, b in zip(idx[:n], idx[n:])]
    return f"(if {{{' and '.join(conds)}}} then 1 else 0)"


def _sum(p, node: Sum, idx):
    return f"({p.show(node.args[0], idx)} + {p.show(node.args[1], idx)})"


def _elementwise(p, node: Elementwise, idx):
    inner = p.show(node.args[0], idx)
    if node.fn == "neg":
        return f"(-({inner}))"
    if node.fn == "recip":
        return f"(1 / ({inner}))"
    return f"{node.fn}({inner})"


def _power(p, node: Power, idx):
    base = p.show(node.args[0], idx)
    base = base if isinstance(node.args[0], (Var, Sum)) else f"({base})"
    return f"{base} ** {p.show(node.args[1], [])}"


def _product(p, node: Product, idx):
    inputs, out = node.spec
    letters = {c: e for c, e in zip(out, idx)}
    axis_of = dict(zip("".join(inputs), (a for x in node.args for a in x.axes)))
    summed = [c for c in dict.fromkeys("".join(inputs)) if c not in letters]
    first = node.args[0]
    if isinstance(first, Gather) and _gather_sum(node, summed):
        return _summed_gather(p, first, idx, len(summed))
    heads = []
    for c in summed:
        z = p.fresh()
        letters[c] = lin({z: 1})
        heads.append(f"sum{{{z}}}_0^{p.length(axis_of[c]) - 1} (")
    body = " * ".join(p.show(x, [letters[c] for c in s]) for x, s in zip(node.args, inputs) if not _is_ones(x))
    return "".join(heads) + (body or "1") + ")" * len(heads)


def _gather_sum(node: Product, summed: list[str]) -> bool:
    """A transpose's shape: gather *(out tail, [tail] -> out) ones, tail its last axes."""
    (left, right), out = node.spec.inputs, node.spec.out
    return (len(node.args) == 2 and isinstance(node.args[0], Gather) and _is_ones(node.args[1])
            and bool(summed) and left == out + "".join(summed) and set(right) <= set(summed))


def _is_ones(node: Expr) -> bool:
    return isinstance(node, Const) and node.value == 1.0


def _gather(p, node: Gather, idx):
    return _read(p, node, idx, list(node.domain))


def _read(p, node: Gather, idx, domain) -> str:
    batch, g = idx[:node.batch], idx[node.batch:]
    at = [combine(a, g, c, d) for a, c, d in node.rows]
    value = p.show(node.args[0], batch + at)
    guards = _guards(domain, g)
    guards += [f"{lin_text(combine(a, g, c))} = 0 (mod {d})" for a, c, d in node.rows if d != 1]
    return f"(if {{{' and '.join(guards)}}} then {value} else 0)" if guards else value


def _guards(domain, g: list[Lin]) -> list[str]:
    """`e >= 0` per row; a row and its negation print once as `e = 0` (a Kronecker guard)."""
    rows, out = set(domain), []
    for a, c in domain:
        neg = (tuple(-v for v in a), -c)
        if neg in rows and (a, c) > neg:
            continue
        out.append(lin_text(combine(a, g, c)) + (" = 0" if neg in rows else " >= 0"))
    return out


def ranges(node: Gather, outer: list[Lin], names: list[str]
           ) -> tuple[list[tuple[list[Lin], list[Lin]]], list[Ineq]]:
    """Nested ranges of the trailing gathered axes `names` (innermost first) given the
    other gathered indices `outer`: for each, (lower Lins, upper Lins) whose max / min
    (rounded up / down) bound it, from Fourier-Motzkin elimination (eq. 45); and the
    domain rows that involve none of them (guards)."""
    m = len(names)
    width = len(node.shape)
    rows = list(node.domain) + affine.box_rows(node.shape[width - m:], width, width - m)
    with_z = [(a, c) for a, c in rows if any(a[-m:])]
    guards = [(a, c) for a, c in node.domain if not any(a[-m:])]
    elim = inequalities.fourier_motzkin([list(a[-m:]) for a, _ in with_z])
    b = [combine([-v for v in a[:-m]], outer, -c) for a, c in with_z]      # z-part >= b
    zs = [lin({z: 1}) for z in names]
    bounds = []
    for k in range(m):
        (Lb, Lx), (Hb, Hx) = elim.lower[k], elim.upper[k]
        lows = _dedupe([combine(list(r) + list(x), b + zs[k + 1:]) for r, x in zip(Lb, Lx)])
        highs = _dedupe([combine(list(r) + list(x), b + zs[k + 1:]) for r, x in zip(Hb, Hx)])
        bounds.append((lows, highs))
    return bounds, guards


def _dedupe(exprs: list[Lin]) -> list[Lin]:
    seen, out = set(), []
    for e in exprs:
        key = tuple(sorted(e.items()))
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _summed_gather(p, node: Gather, idx, m: int) -> str:
    names = [p.fresh() for _ in range(m)]
    bounds, guards = ranges(node, idx[node.batch:], names)
    inner = _read(p, node, idx + [lin({z: 1}) for z in names], guards)
    for z, (lows, highs) in zip(names, bounds):
        inner = f"sum{{{z}}}_{_bound(lows, 'max', 'ceil')}^{_bound(highs, 'min', 'floor')} ({inner})"
    return inner


def _bound(exprs: list[Lin], pick: str, rounding: str) -> str:
    texts = [lin_text(e) if all(v.denominator == 1 for v in e.values()) else f"{rounding}({lin_text(e)})"
             for e in sorted(exprs, key=lambda e: (len(e), lin_text(e)))]
    return texts[0] if len(texts) == 1 else f"({pick}({', '.join(texts)}))"


RULES: dict[type[Expr], Callable[[IndexPrinter, Any, list[Lin]], str]] = {
    Var: _var, Const: _const, Delta: _delta, Sum: _sum, Product: _product,
    Elementwise: _elementwise, Power: _power, Gather: _gather}


def index_notation(expr: Expr, name: str, shapes: Mapping[str, tuple[int, ...]] | None = None) -> str:
    """`name[name_0, ...] = ...`: expr printed element-wise (see the module docstring)."""
    lengths = {Axis(v, k): n for v, shape in dict(shapes or {}).items() for k, n in enumerate(shape)}
    lengths.update({a: n for a, n, _ in fixed_lengths(dag.topo(expr))})
    p = IndexPrinter(name, lengths)
    idx = [lin({f"{name}_{k}": 1}) for k in range(expr.order)]
    head = f"{name}[{', '.join(lin_text(e) for e in idx)}]" if idx else name
    return f"{head} = {p.show(expr, idx)}"


def element_derivatives(text: str, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, str]:
    """Alg. 4 for a definition: for each array it reads, d{x}[...] in terms of d{f}, printed
    in index notation (the derivative of l = sum(df .* f) with respect to x)."""
    f = parse_def(text, shapes)
    name = read_definition(text).name
    df = dag.var("d" + name, f.axes)
    s = dag.LETTERS[:f.order]
    loss = dag.contraction((df, f), (s, s, "")) if f.order else dag.hadamard(df, f)
    shapes = {**dict(shapes), df.name: tuple(shapes[name])}
    return {x: index_notation(derivative(loss, x), "d" + x, shapes) for x in dag.variables(f)}
