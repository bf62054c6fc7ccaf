"""The one list of memo tables (`functools.lru_cache`) in tensorcalc, convexcheck and solvers.

Every memoised function is declared with `memoized`, and every other in-process cache (one
sized in characters, say) is listed with `register`, so that one call, `clear()`, empties
them all: tests that count work, and the analysis' budget, start from a cold table.

    >>> @memoized(maxsize=8)
    ... def square(n: int) -> int:
    ...     return n * n
    >>> square(3), square.cache_info().currsize
    (9, 1)
    >>> clear(); square.cache_info().currsize
    0
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Protocol, TypeVar

F = TypeVar("F", bound=Callable[..., Any])



class Clearable(Protocol):
    """A cache that can be emptied (an `lru_cache`'s `cache_clear`)."""

    def cache_clear(self) -> None: ...


T = TypeVar("T", bound=Clearable)

_TABLES: list[Clearable] = []


def memoized(maxsize: int | None = 128) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)`, with the table listed for `clear`."""
    def wrap(function: F) -> F:
        table = lru_cache(maxsize=maxsize)(function)
        _TABLES.append(table)
        return table  # type: ignore[return-value]
    return wrap


def register(table: T) -> T:
    """List a cache that is not an `lru_cache` (it has `cache_clear`) for `clear`."""
    _TABLES.append(table)
    return table


def tables() -> tuple[Clearable, ...]:
    """Every memo table declared so far, in declaration order."""
    return tuple(_TABLES)


def clear() -> None:
    """Empty every memo table."""
    for table in _TABLES:
        table.cache_clear()
