"""The CVXPY bridge's rules for non-smooth atoms: each is lowered EXACTLY to abs, relu,
sums, squares and square roots, in the forms the composition certificate reads.

| CVXPY | problem text |
| --- | --- |
| abs(x) | abs(x) |
| maximum(a, b), pos(x) = maximum(x, 0) | b + relu(a - b), relu(x) (more arguments nest: max(max(a, b), c)) |
| minimum(a, b, ...), neg(x) = -minimum(x, 0) | -(maximum of the negatives) |
| max(x, axis), min(x, axis) | pairwise maxima of the entries (slices), each picked by a 0/1 constant |
| norm1(x, axis) | sum of abs(x) |
| pnorm(x, 2, axis), norm(X, 'fro') | sqrt(sum(x ^ 2)): the base is a sum of squares |
| pnorm(x, p), p > 1 | sum(abs(x) ^ p) ^ (1/p) |
| norm_inf(x, axis) | max of abs(x) |
| huber(x, M) | M^2 huber(x / M) (tensorcalc's huber has M = 1) |

max, min and norm_inf read at most MAX_ENTRIES entries per maximum (the text grows with the
count); beyond that, and for keepdims, a parameter M or p < 1, the rule raises ProblemError.
"""
from __future__ import annotations

import numpy as np

from convexcheck.bridge.data import number, value_of
from convexcheck.bridge.text import LETTERS, Node, axis_sum, fit
from convexcheck.problem.reader import ProblemError

MAX_ENTRIES = 32


def _pair(a: str, b: str) -> str:
    """max(a, b) as b + relu(a - b) (texts of one shape; b may be a number)."""
    return f"relu({a})" if b == "0" else f"({b} + relu({a} - {b}))"


def _fold(texts: list[str]) -> str:
    out = texts[0]
    for b in texts[1:]:
        out = _pair(out, b)
    return out


def _negated(node: Node, shape) -> tuple[str, bool]:
    if node.number:
        return number(-float(node.text.strip("()"))), True
    return f"(-{fit(node, shape)})", False


def _maximum(t, e, *args, negate: bool = False):
    """maximum (negate: minimum, as -(maximum of the negatives)); numbers go last, so
    that maximum(x, 0) is relu(x)."""
    shape = tuple(e.shape)
    texts = [_negated(a, shape) if negate else (fit(a, shape), a.number) for a in args]
    ordered = [s for s, num in texts if not num] + [s for s, num in texts if num]
    out = _fold(ordered)
    return Node(f"(-{out})" if negate else out, shape)


def _slices(t, e, a: Node, axis) -> list[str]:
    """The entries of a (axis None) or its slices along `axis`, each picked by a 0/1
    constant contracted with a."""
    shape, idx = a.shape, LETTERS[:len(a.shape)]
    if not shape:
        return [a.text]
    if axis is None:
        count, pick = int(np.prod(shape)), shape
        spec = f"{idx},{idx}->"
    else:
        k = axis % len(shape)
        count, pick = shape[k], (shape[k],)
        spec = f"{idx[k]},{idx}->{idx[:k] + idx[k + 1:]}"
    if count > MAX_ENTRIES:
        raise ProblemError(f"CVXPY {type(e).__name__} over {count} entries is not supported (at most "
                           f"{MAX_ENTRIES}: it is written out as pairwise maxima); reduce the size or "
                           f"use a smooth bound such as log_sum_exp")
    out = []
    for p in range(count):
        unit = np.zeros(int(np.prod(pick)))
        unit[p] = 1.0
        out.append(f"({t.constant(unit.reshape(pick)).text} *({spec}) {a.text})")
    return out


def _axis_max(t, e, a, negate: bool = False, of_abs: bool = False):
    """max (negate: min) over an axis; of_abs: norm_inf, the max of abs(a)."""
    data = e.get_data()
    axis, keepdims = data[0], (data[1] if len(data) > 1 else False)
    if keepdims:
        raise ProblemError(f"CVXPY {type(e).__name__} with keepdims=True is not supported; drop keepdims")
    if of_abs:
        a = Node(f"abs({fit(a, a.shape)})", a.shape)
    parts = _slices(t, e, a, axis)
    if negate:
        return Node(f"(-{_fold([f'(-{s})' for s in parts])})", tuple(e.shape))
    return Node(_fold(parts), tuple(e.shape))


def _norm1(t, e, a):
    return Node(axis_sum(f"abs({fit(a, a.shape)})", a.shape, e.get_data()[0]), tuple(e.shape))


def _pnorm(t, e, a):
    p, axis, keepdims = e.p, e.get_data()[1], e.get_data()[2]
    if keepdims:
        raise ProblemError("CVXPY pnorm with keepdims=True is not supported; drop keepdims")
    p = float(p)
    x = fit(a, a.shape)
    if p == 2:
        return Node(f"sqrt({axis_sum(f'({x} ^ 2)', a.shape, axis)})", tuple(e.shape))
    if p > 1:
        base = axis_sum(f"(abs({x}) ^ {number(p)})", a.shape, axis)
        return Node(f"({base} ^ (1 / {number(p)}))", tuple(e.shape))     # 1/p exact: p * (1/p) = 1
    raise ProblemError(f"CVXPY pnorm with p = {p:g} is not supported; give p >= 1 (or 'inf')")


def _huber(t, e, a):
    import tensorcalc.dag
    if "huber" not in tensorcalc.dag.ELEMENTWISE:
        raise ProblemError("CVXPY huber needs tensorcalc's element-wise huber function, which this "
                           "version lacks; write the loss with smooth atoms")
    m = e.get_data()[0]
    if m.parameters() or m.variables():
        raise ProblemError("CVXPY huber with a parameter M is not supported; give a number")
    m = float(value_of(m, "the M of huber"))
    x = fit(a, a.shape)
    text = "huber({})".format(x if m == 1 else f"({x} / {number(m)})")
    return Node(text if m == 1 else f"({number(m * m)} * {text})", tuple(e.shape))


RULES = {
    "abs": lambda t, e, a: Node(f"abs({fit(a, a.shape)})", tuple(e.shape)),
    "maximum": _maximum,
    "minimum": lambda t, e, *args: _maximum(t, e, *args, negate=True),
    "max": _axis_max,
    "min": lambda t, e, a: _axis_max(t, e, a, negate=True),
    "norm_inf": lambda t, e, a: _axis_max(t, e, a, of_abs=True),
    "norm1": _norm1,
    "Pnorm": _pnorm,
    "huber": _huber,
}
