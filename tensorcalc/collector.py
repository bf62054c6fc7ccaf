"""Python's cyclic garbage collector, paused while a pass builds a large acyclic structure.

Parsing and differentiating allocate a few objects per syntax or DAG node, all of them
kept (syntax trees, hash-consed nodes) and none in a reference cycle. The collector
cannot free any of them, but it is woken by allocation counts and its full collections
scan every live object: on a megabyte of text a third of the time went there. Cycles
made meanwhile (by lark, say) are not lost, only collected after the pass.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from functools import wraps
from typing import Any, Callable, Iterator, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block, and back to its former state after it (nested
    use keeps it off until the outermost block ends)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def pausing(fn: F) -> F:
    """`fn` run with the collector paused."""
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with paused():
            return fn(*args, **kwargs)
    return cast(F, wrapper)
