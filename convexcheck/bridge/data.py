"""The CVXPY bridge's data side: the attribute words and values that CVXPY leaves and
numeric constants become (`bridge` writes the text around them).

Attributes are only ever words that are true of the value: signs read from every entry,
symmetry within TOL, and definiteness by eigenvalues with CVXPY's tolerance, the value
moved onto the cone by at most TOL so that `analyze`'s exact check accepts it. Bad data
(complex, NaN, infinite, bounds that differ by entry) is a ProblemError naming it.

Every value is read from CVXPY through `value_of`: a constant subexpression is evaluated
by CVXPY's own numerics, which refuse data outside an atom's domain with their own
exceptions (log_det of a non-symmetric matrix); those become a ProblemError naming the
subexpression.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from convexcheck.problem.admissible import satisfies
from convexcheck.problem.model import Attributes
from convexcheck.problem.reader import ProblemError

TOL = 1e-10                # CVXPY's EIGVAL_TOL: psd means lambda_min >= -TOL (absolute), pd > TOL
ATTRIBUTES = {"nonneg": "nonneg", "pos": "pos", "nonpos": "nonpos", "neg": "neg",
              "symmetric": "symmetric", "PSD": "psd", "NSD": "nsd"}


def value_of(e: Any, what: str | Subexpression) -> np.ndarray:
    """CVXPY's value of `e` (a constant subexpression, a parameter, a bound) as finite real
    data (`as_array`); a ProblemError naming `what` when CVXPY cannot compute it. Plain
    data (not a CVXPY object) is read by `as_array` directly."""
    if not hasattr(type(e), "value"):          # the class, so no property is evaluated here
        return as_array(e, what)
    try:
        with np.errstate(all="ignore"):
            value = e.value
    except (ValueError, ArithmeticError, NotImplementedError, TypeError) as exc:
        raise ProblemError(f"CVXPY cannot evaluate {what}: {str(exc).rstrip('.')}; give constants in the domain "
                           f"of the atoms that read them") from None
    if value is None:
        raise ProblemError(f"{what} has no value; give it one before translating")
    return as_array(value, what)


class Subexpression:
    """'the constant subexpression <e>' in a message, written only when a message is: CVXPY
    prints a constant's whole array to name it (1.1 of a 10-constraint LP's 2.4 ms warm
    solve went to naming constants that were read without a fault)."""

    def __init__(self, e: Any):
        self.e = e

    def __str__(self) -> str:
        return f"the constant subexpression {describe(self.e)}"


def describe(e: Any, limit: int = 60) -> str:
    """A CVXPY expression on one line, cut to `limit` characters."""
    text = " ".join(str(e).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def leaf_attributes(e: Any, kind: str, entrywise: list | None = None) -> list[str]:
    """The declaration words of a CVXPY leaf; bounds that differ by entry go to `entrywise`
    as (op, array) where given (a problem's constraints), else are a ProblemError."""
    words = []
    for attr, value in e.attributes.items():
        if attr == "bounds" and value is not None:
            words += _bounds(value, e.name(), entrywise)
        elif attr in RELAXED and value:
            words += _relaxed(e, attr, kind)
        elif attr != "bounds" and value:
            if attr not in ATTRIBUTES:
                raise ProblemError(f"{kind} {e.name()!r}: the CVXPY attribute {attr!r} has no counterpart "
                                   f"in convexcheck (supported: {', '.join(ATTRIBUTES)}, scalar bounds)")
            words.append(ATTRIBUTES[attr])
    return words


class RelaxationWarning(UserWarning):
    """An integer or boolean CVXPY variable translated as its continuous relaxation."""


RELAXED = ("integer", "boolean")


def _relaxed(e: Any, attr: str, kind: str) -> list[str]:
    """The words of a relaxed integer (none) or boolean (0 <= x <= 1) variable, with a warning:
    convexcheck proves and solves the continuous relaxation, a bound on the mixed-integer problem."""
    warnings.warn(f"{kind} {e.name()!r} is {attr} in CVXPY; convexcheck analyses and solves its continuous "
                  f"relaxation ({'0 <= x <= 1' if attr == 'boolean' else 'real values'}), whose optimum bounds "
                  f"the mixed-integer one", RelaxationWarning, stacklevel=2)
    return [">= 0", "<= 1"] if attr == "boolean" else []


def _bounds(bounds, name: str, entrywise: list | None = None) -> list[str]:
    words = []
    for op, bound in zip((">=", "<="), bounds):
        arr = None if bound is None else _bound_value(bound, f"the bounds of {name!r}")
        if arr is None or np.all(arr == (-np.inf if op == ">=" else np.inf)):
            continue                                    # CVXPY writes an absent side as -inf / inf
        if not np.all(arr == arr.flat[0]) and entrywise is not None:
            entrywise.append((op, arr))                 # a constraint of the problem, entry by entry
            continue
        if not np.all(arr == arr.flat[0]):
            raise ProblemError(f"variable {name!r}: bounds that differ by entry are supported in a problem (as "
                               f"constraints), not in an expression; give one number or add constraints")
        words.append(f"{op} {number(arr.flat[0]).strip('()')}")
    return words


def finite_bound(bound: np.ndarray, name: str) -> np.ndarray:
    """A bound that differs by entry (a constraint of the problem), checked finite: an
    infinite entry beside finite ones has no constraint row to stand for it."""
    if not np.all(np.isfinite(bound)):
        raise ProblemError(f"variable {name!r}: bounds that differ by entry with infinite entries beside finite "
                           f"ones are not supported; give finite bounds, or constraints on the bounded entries")
    return bound


def _bound_value(bound: Any, what: str) -> np.ndarray:
    """A bound's value: finite numbers, or an infinity that stands for no bound."""
    with np.errstate(all="ignore"):
        value = bound.value if hasattr(type(bound), "value") else bound
    if value is None:
        raise ProblemError(f"{what} has no value; give it one before translating")
    arr = np.asarray(value, dtype=float)
    if np.isnan(arr).any():
        raise ProblemError(f"{what} has NaN entries; convexcheck takes real bounds")
    return arr


def as_array(value: Any, what: str | Subexpression) -> np.ndarray:
    value = value.toarray() if hasattr(value, "toarray") else value
    arr = np.asarray(value)
    if np.iscomplexobj(arr) or not np.all(np.isfinite(arr.astype(float))):
        raise ProblemError(f"{what} is complex, NaN or infinite; convexcheck takes finite real data")
    return arr.astype(float)


def number(v: float) -> str:
    v = float(v)
    if not np.isfinite(v):
        raise ProblemError(f"the number {v} cannot be written in a problem; use finite data")
    text = str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)
    return f"({text})" if v < 0 else text


def constant_attributes(arr: np.ndarray) -> tuple[list[str], np.ndarray]:
    """(attribute words, value) for numeric data. Sign: pos, nonneg, neg or nonpos when
    every entry is. A square matrix within TOL * max(1, max|entry|) of its transpose is
    symmetric (the value is symmetrised); it is pd (nd) when lambda_min > TOL (lambda_max
    < -TOL), psd (nsd) when lambda_min >= -TOL as in CVXPY, the value shifted onto the
    cone by at most TOL."""
    words = []
    if _nearly_symmetric(arr):
        word, arr = _cone((arr + arr.T) / 2)
        words.append(word)
    sign = next((w for w, ok in (("pos", arr > 0), ("nonneg", arr >= 0), ("neg", arr < 0),
                                 ("nonpos", arr <= 0)) if np.all(ok)), None)
    return [sign, *words] if sign else words, arr


def _cone(sym: np.ndarray) -> tuple[str, np.ndarray]:
    """The strongest of pd, nd, psd, nsd (sym moved onto it, `_onto`), else symmetric."""
    eig = np.linalg.eigvalsh(sym)
    if eig[0] > TOL or eig[-1] < -TOL:
        return ("pd" if eig[0] > TOL else "nd"), sym
    moved = {w: _onto(sym, w) for w in ("psd", "nsd")}
    return next(((w, m) for w, m in moved.items() if m is not None), ("symmetric", sym))


def _onto(sym: np.ndarray, word: str) -> np.ndarray | None:
    """sym shifted along the identity into the psd (nsd) cone when lambda_min (-lambda_max)
    >= -TOL, by that much and a few rounding errors; else None."""
    sign = 1.0 if word == "psd" else -1.0
    low = np.linalg.eigvalsh(sign * sym)[0]
    if low < -TOL:
        return None
    shift = 0.0 if low >= 0 else -low + 4 * np.finfo(float).eps * max(1.0, np.max(np.abs(sym))) * len(sym)
    moved = sym + sign * shift * np.eye(len(sym))
    return moved if satisfies(Attributes(definite=word), moved) else None


def onto_cones(arr: np.ndarray, words: list[str]) -> np.ndarray:
    """A parameter value declared symmetric, psd or nsd, symmetrised and moved onto its cone
    within the tolerances of `constant_attributes` (else unchanged: `analyze` says what fails)."""
    if not {"symmetric", "psd", "nsd"} & set(words) or not _nearly_symmetric(arr):
        return arr
    word = next((w for w in ("psd", "nsd") if w in words), None)
    moved = _onto((arr + arr.T) / 2, word) if word else (arr + arr.T) / 2
    return arr if moved is None else moved


def _nearly_symmetric(arr: np.ndarray) -> bool:
    return arr.ndim == 2 and arr.shape[0] == arr.shape[1] and \
        np.max(np.abs(arr - arr.T)) <= TOL * max(1.0, np.max(np.abs(arr)))
