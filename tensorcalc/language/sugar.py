"""Functions that are sugar: each call is rewritten, as the parser reads it, into syntax
of the core language, so no function here has a node type, a derivative rule or a
curvature rule of its own.

    logdet(A)          log(det(A))
    log_sum_exp(x)     log(sum(exp(x)))          (also logsumexp)
    softplus(x)        log(1 + exp(x))           (also logistic, CVXPY's name)
    entr(x)            -(x .* log(x))
    kl_div(x, y)       x .* log(x ./ y) - x + y
    quad_form(x, P)    x' * P * x
    quad_over_lin(x, y) sum(x .^ 2) / y          (y a scalar)
    norm1(x)           sum(abs(x))               (entrywise, as MatrixCalculus.org)
    norm2(x)           sqrt(sum(x .^ 2))         (Euclidean, Frobenius for a matrix)
    square(x)          x .^ 2
    trace(A)           tr(A)

CVXPY's names for atoms, as CVXPY defines them (where CVXPY gives an atom an implied
domain, x .^ p and x .* exp(x) here are the expressions as written, on every x):

    sum_squares(x)     sum(x .^ 2)
    norm(x)            norm2(x)
    maximum(a, b)      b + relu(a - b)           (max entry by entry)
    minimum(a, b)      -(-b + relu(-a + b))      (min entry by entry: -maximum(-a, -b))
    pos(x)             relu(x)
    inv_pos(x)         1 ./ x
    power(x, p)        x .^ p
    log1p(x)           log(1 + x)
    xexp(x)            x .* exp(x)
    rel_entr(x, y)     x .* log(x ./ y)
    multiply(a, b)     a .* b
    matrix_frac(x, P)  x' * inv(P) * x
    tr_inv(X)          tr(inv(X))
    norm_inf(x)        max(abs(x))               (x's lengths numbers: `max` reads every entry)
    geo_mean(x)        exp(mean(log(x)))         (x > 0: log's domain)

A call with the wrong number of arguments is left as it is, for `tensorcalc.language.meaning` to
refuse by name. An argument used twice is copied (syntax is a tree). The nodes written
here point at the call (its line and column); the
outermost covers the call's text, the others are marked as written by no one
(`start == -1`), so messages describe them by their syntax.
"""
from __future__ import annotations

from typing import Callable

from tensorcalc.language.syntax import Syntax

SIGNATURES = {
    "logdet": "logdet(A)", "log_det": "log_det(A)", "log_sum_exp": "log_sum_exp(x)",
    "logsumexp": "logsumexp(x)", "softplus": "softplus(x)", "logistic": "logistic(x)", "entr": "entr(x)",
    "kl_div": "kl_div(x, y)", "quad_form": "quad_form(x, P)", "quad_over_lin": "quad_over_lin(x, y)",
    "norm1": "norm1(x)", "norm2": "norm2(x)", "square": "square(x)", "trace": "trace(A)",
    "sum_squares": "sum_squares(x)", "norm": "norm(x)", "maximum": "maximum(a, b)",
    "minimum": "minimum(a, b)", "pos": "pos(x)", "inv_pos": "inv_pos(x)", "power": "power(x, p)",
    "log1p": "log1p(x)", "xexp": "xexp(x)", "rel_entr": "rel_entr(x, y)", "multiply": "multiply(a, b)",
    "matrix_frac": "matrix_frac(x, P)", "tr_inv": "tr_inv(X)", "norm_inf": "norm_inf(x)",
    "geo_mean": "geo_mean(x)",
}


def _arity(name: str) -> int:
    return SIGNATURES[name].count(",") + 1


def expand(call: Syntax) -> Syntax:
    """The core syntax for `call` when it names a sugar function with the right number of
    arguments, else `call` itself."""
    rule = _RULES.get(call.value)
    if rule is None or len(call.args) != _arity(call.value):
        return call
    node = rule(_Writer(call), *call.args)
    node.start, node.end = call.start, call.end          # the whole call reads as written
    return node


class _Writer:
    """Builds syntax nodes placed at one call."""

    def __init__(self, call):
        self.syntax, self.pos = type(call), (call.line, call.column)

    def node(self, kind, *args, value=None):
        return self.syntax(kind, self.pos, args, value, (-1, -1))

    def call(self, fn, *args):
        return self.node("call", *args, value=fn)

    def number(self, text):
        return self.node("number", value=text)

    def copy(self, tree):
        """A copy of a syntax tree, so that a tree uses no node twice (iteratively: the
        argument may be nested deeply)."""
        made, stack = {}, [(tree, False)]
        while stack:
            node, done = stack.pop()
            if done:
                made[id(node)] = self.syntax(node.kind, (node.line, node.column),
                                             [made[id(c)] for c in node.args], node.value, (node.start, node.end))
            else:
                stack.append((node, True))
                stack.extend((c, False) for c in node.args)
        return made[id(tree)]


def _log_sum_exp(w, x):
    return w.call("log", w.call("sum", w.call("exp", x)))


def _softplus(w, x):
    return w.call("log", w.node("add", w.number("1"), w.call("exp", x)))


def _kl_div(w, x, y):
    xlog = w.node("hadamard", x, w.call("log", w.node("div", w.copy(x), y)))
    return w.node("add", w.node("sub", xlog, w.copy(x)), w.copy(y))


def _sum_squares(w, x):
    return w.call("sum", w.node("pow", x, w.number("2")))


_RULES: dict[str, Callable] = {
    "logdet": lambda w, a: w.call("log", w.call("det", a)),
    "log_sum_exp": _log_sum_exp,
    "softplus": _softplus,
    "entr": lambda w, x: w.node("neg", w.node("hadamard", x, w.call("log", x))),
    "kl_div": _kl_div,
    "quad_form": lambda w, x, p: w.node("mul", w.node("mul", w.node("transpose", x), p), w.copy(x)),
    "quad_over_lin": lambda w, x, y: w.node("div", _sum_squares(w, x), y),
    "norm1": lambda w, x: w.call("sum", w.call("abs", x)),
    "norm2": lambda w, x: w.call("sqrt", _sum_squares(w, x)),
    "square": lambda w, x: w.node("pow", x, w.number("2")),
    "trace": lambda w, a: w.call("tr", a),
}
_RULES.update(log_det=_RULES["logdet"], logsumexp=_log_sum_exp, logistic=_softplus)


def _maximum(w, a, b):
    return w.node("add", b, w.call("relu", w.node("sub", a, w.copy(b))))


def _minimum(w, a, b):
    return w.node("neg", _maximum(w, w.node("neg", a), w.node("neg", b)))


def _matrix_frac(w, x, p):
    return w.node("mul", w.node("mul", w.node("transpose", x), w.call("inv", p)), w.copy(x))


_RULES.update({
    "sum_squares": _sum_squares,
    "norm": _RULES["norm2"],
    "maximum": _maximum,
    "minimum": _minimum,
    "pos": lambda w, x: w.call("relu", x),
    "inv_pos": lambda w, x: w.node("div", w.number("1"), x),
    "power": lambda w, x, p: w.node("pow", x, p),
    "log1p": lambda w, x: w.call("log", w.node("add", w.number("1"), x)),
    "xexp": lambda w, x: w.node("hadamard", x, w.call("exp", w.copy(x))),
    "rel_entr": lambda w, x, y: w.node("hadamard", x, w.call("log", w.node("div", w.copy(x), y))),
    "multiply": lambda w, a, b: w.node("hadamard", a, b),
    "matrix_frac": _matrix_frac,
    "tr_inv": lambda w, a: w.call("tr", w.call("inv", a)),
    "norm_inf": lambda w, x: w.call("max", w.call("abs", x)),
    "geo_mean": lambda w, x: w.call("exp", w.call("mean", w.call("log", x))),
})
