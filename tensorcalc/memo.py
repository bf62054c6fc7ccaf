"""The one list of memo tables (`functools.lru_cache`) in tensorcalc, convexcheck and solvers.

Every memoised function is declared with `memoized`, so that one call, `clear()`, empties
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
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_TABLES: list[Any] = []


def memoized(maxsize: int | None = 128) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)`, with the table listed for `clear`."""
    def wrap(function: F) -> F:
        table = lru_cache(maxsize=maxsize)(function)
        _TABLES.append(table)
        return table  # type: ignore[return-value]
    return wrap


def tables() -> tuple[Any, ...]:
    """Every memo table declared so far, in declaration order."""
    return tuple(_TABLES)


def clear() -> None:
    """Empty every memo table."""
    for table in _TABLES:
        table.cache_clear()
