"""DCP spellings of functions CVXPY rejects as written (`explain`): one pattern per entry
of `PATTERNS`, each a function of a CVXPY subexpression that gives the CVXPY code of the
same function written with DCP atoms, or None where the pattern does not match.

    log(1 + exp(u))        -> cp.logistic(u)          log(sum(exp(u)))  -> cp.log_sum_exp(u)
    x * x, x ** 2 of affine -> cp.square(x)            x.T @ x           -> cp.sum_squares(x)
    x ** 2 / y, x * x / y  -> cp.quad_over_lin(x, y)  1 / x             -> cp.inv_pos(x)
    sqrt(sum_squares(u))   -> cp.norm(u, 2)           sqrt(x ** 2 + c)  -> cp.norm(cp.hstack([x, sqrt(c)]), 2)
    x * log(x)             -> -cp.entr(x)             x * log(x / y)    -> cp.rel_entr(x, y)
    sqrt(x * y)            -> cp.geo_mean(cp.hstack([x, y]))
    (x * y * z) ** (1/3)   -> cp.geo_mean(cp.hstack([x, y, z]))
    x @ Q @ x              -> cp.quad_form(x, Q)
"""
from __future__ import annotations

import math
from typing import Any, Callable


def spelling(e: Any) -> str | None:
    """The first pattern's spelling of e, or None."""
    return next((found for pattern in PATTERNS if (found := pattern(e)) is not None), None)


def _kind(e: Any) -> str:
    return type(e).__name__


def _text(e: Any) -> str:
    return " ".join(str(e).split())


def _constant(e: Any) -> float | None:
    """The number a constant scalar subexpression is, else None."""
    if e.variables() or e.parameters() or e.size != 1:
        return None
    return float(e.value)


def _power(e: Any) -> float | None:
    return float(e.p.value) if _kind(e) in ("Power", "PowerApprox") else None


def _logistic(e: Any) -> str | None:
    if _kind(e) != "log" or _kind(e.args[0]) != "AddExpression" or len(e.args[0].args) != 2:
        return None
    first, second = e.args[0].args
    for one, other in ((first, second), (second, first)):
        if _constant(one) == 1.0 and _kind(other) == "exp":
            return f"cp.logistic({_text(other.args[0])})"
    return None


def _log_sum_exp(e: Any) -> str | None:
    if _kind(e) == "log" and _kind(e.args[0]) == "Sum" and _kind(e.args[0].args[0]) == "exp":
        return f"cp.log_sum_exp({_text(e.args[0].args[0].args[0])})"
    return None


def _squared(e: Any) -> Any:
    """x where e is x * x or x ** 2, else None."""
    if _kind(e) in ("multiply", "MulExpression") and len(e.args) == 2 and _text(e.args[0]) == _text(e.args[1]):
        return e.args[0]
    if _power(e) == 2.0:
        return e.args[0]
    return None


def _square(e: Any) -> str | None:
    x = _squared(e)
    if x is None:
        return None
    if _kind(e) == "MulExpression" and x.ndim == 1:
        return f"cp.sum_squares({_text(_untransposed(x))})"
    return f"cp.square({_text(x)})"


def _untransposed(e: Any) -> Any:
    return e.args[0] if _kind(e) == "transpose" else e


def _quad_over_lin(e: Any) -> str | None:
    if _kind(e) != "DivExpression":
        return None
    x = _squared(e.args[0])
    return f"cp.quad_over_lin({_text(x)}, {_text(e.args[1])})" if x is not None else None


def _inv_pos(e: Any) -> str | None:
    if _kind(e) == "DivExpression" and _constant(e.args[0]) is not None:
        c = _constant(e.args[0])
        return f"{'' if c == 1.0 else f'{c:g} * '}cp.inv_pos({_text(e.args[1])})"
    return None


def _norm(e: Any) -> str | None:
    if _power(e) != 0.5:
        return None
    inner = e.args[0]
    if _kind(inner) == "quad_over_lin" and _constant(inner.args[1]) == 1.0:
        return f"cp.norm({_text(inner.args[0])}, 2)"
    if _kind(inner) == "AddExpression" and len(inner.args) == 2:
        for sq, c in (inner.args, inner.args[::-1]):
            x, value = _squared(sq), _constant(c)
            if x is not None and value is not None and value >= 0:
                return f"cp.norm(cp.hstack([{_text(x)}, {math.sqrt(value):g}]), 2)"
    return None


def _entropy(e: Any) -> str | None:
    if _kind(e) != "multiply" or len(e.args) != 2:
        return None
    for x, lg in (e.args, e.args[::-1]):
        if _kind(lg) != "log":
            continue
        arg = lg.args[0]
        if _text(arg) == _text(x):
            return f"-cp.entr({_text(x)})"
        if _kind(arg) == "DivExpression" and _text(arg.args[0]) == _text(x):
            return f"cp.rel_entr({_text(x)}, {_text(arg.args[1])})"
    return None


def _factors(e: Any) -> list[Any]:
    """The factors of a product of scalar variables' expressions (x * y * z)."""
    if _kind(e) in ("multiply", "MulExpression") and e.size == 1:
        return [f for a in e.args for f in _factors(a)]
    return [e]


def _geo_mean(e: Any) -> str | None:
    p = _power(e)
    if p is None:
        return None
    factors = _factors(e.args[0])
    if len(factors) > 1 and math.isclose(p * len(factors), 1.0):
        return f"cp.geo_mean(cp.hstack([{', '.join(_text(f) for f in factors)}]))"
    return None


def _quad_form(e: Any) -> str | None:
    if _kind(e) != "MulExpression" or _kind(e.args[0]) != "MulExpression":
        return None
    (x, Q), y = e.args[0].args, e.args[1]
    if _text(_untransposed(x)) == _text(y) and _constant(Q) is None and not Q.variables():
        return f"cp.quad_form({_text(y)}, {_text(Q)})"
    return None


PATTERNS: tuple[Callable[[Any], str | None], ...] = (
    _logistic, _log_sum_exp, _quad_over_lin, _inv_pos, _norm, _geo_mean, _quad_form, _square, _entropy,
)
