"""The tensorcalc text the CVXPY translation writes: a translated subexpression (`Node`) and
the helpers every rule table (`translate`, `nonsmooth`) uses to fit shapes, multiply
entrywise and sum over axes. Each returns one atom of text (a name, a number, a call, or
parenthesised), so rules may nest them without caring about precedence."""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from convexcheck.problem.reader import ProblemError

LETTERS = "ijklmnopqrstuvwxyz"
Shape = Sequence[int]            # a CVXPY shape


class Node(NamedTuple):
    """A translated subexpression: tensorcalc text that is one atom (a name, a number, a
    call or parenthesised) and the CVXPY shape. `scalar` is the text of the scalar a
    Promote broadcasts; `number` marks a literal number, which tensorcalc broadcasts."""

    text: str
    shape: tuple
    scalar: str | None = None
    number: bool = False


def scalar(a: Node) -> str | None:
    """The text of a as a scalar, if it is one (or a broadcast scalar)."""
    return a.scalar if a.scalar is not None else (a.text if a.shape == () else None)


def entry(a: Node) -> str | None:
    """The text of a as a scalar where it is one, or an array of one entry, which NumPy
    broadcasts as one (`a[i:i+1]` of shape (1,) against a (T, 1) array); else None."""
    found = scalar(a)
    if found is None and all(d == 1 for d in a.shape):
        return f"sum({a.text})"
    return found


def full(text: str, shape: Shape) -> str:
    """A scalar's text broadcast to `shape` (a product with ones)."""
    idx = LETTERS[:len(shape)]
    return f"({text} *(,{idx}->{idx}) 1)" if shape else text


def fit(a: Node, shape: Shape) -> str:
    """a's text at `shape`: a scalar broadcast, a number as it is."""
    if a.shape == tuple(shape) or a.number:
        return a.text
    if (one := entry(a)) is not None:
        return full(one, shape)
    raise ProblemError(f"broadcasting shape {a.shape} to {tuple(shape)} is not supported; "
                       f"make the shapes equal (e.g. with cp.reshape)")


def times(a: Node, b: Node, shape: Shape) -> str:
    """Element-wise product with scalar broadcasting."""
    sa, sb = scalar(a), scalar(b)
    if sa is None and sb is None:          # an array of one entry broadcast to the shape: its entry
        sa, sb = (entry(v) if v.shape != tuple(shape) else None for v in (a, b))
    if sa is not None or sb is not None:
        return f"({sa} * {fit(b, shape)})" if sa is not None else f"({fit(a, shape)} * {sb})"
    idx = LETTERS[:len(shape)]
    return f"({fit(a, shape)} *({idx},{idx}->{idx}) {fit(b, shape)})"


def axis_sum(text: str, shape: Shape, axis: int | Sequence[int] | None) -> str:
    """The sum over `axis` (None: all entries, an int or a tuple of ints, which CVXPY has
    checked; a 0-d argument, whose axis 0 or -1 CVXPY admits, is its own sum)."""
    if not shape:
        return text
    if axis is None:
        return f"sum({text})"
    axes = {a % len(shape) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))}
    idx = LETTERS[:len(shape)]
    return f"({text} *({idx},->{''.join(c for k, c in enumerate(idx) if k not in axes)}) 1)"
