"""Work measured by counting, not by the clock: the same on every machine and under any load.

`python_calls` counts the Python-level function calls a computation makes (a proxy for
its work: a quadratic loop of cheap calls shows as a quadratic count), and
`collections` the garbage-collector runs it triggers (each full one scans every live
object, so many of them on a large graph cost time the call count does not show).
Compare the counts at two sizes to check how work grows.
"""
import gc
import sys


def python_calls(fn, *args, **kwargs):
    """(fn(*args, **kwargs), the number of Python function calls made while it ran)."""
    calls = 0

    def profile(frame, event, arg):
        nonlocal calls
        if event == "call":
            calls += 1
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.setprofile(previous)
    return result, calls


def collections(fn, *args, **kwargs):
    """(fn(*args, **kwargs), the number of garbage collections, of any generation, that
    ran while it did). Starts from an empty youngest generation, so the count does not
    depend on what ran before."""
    gc.collect()
    before = sum(s["collections"] for s in gc.get_stats())
    result = fn(*args, **kwargs)
    return result, sum(s["collections"] for s in gc.get_stats()) - before
