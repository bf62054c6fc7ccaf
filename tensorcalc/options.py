"""argparse `type=` functions shared by the command lines (tensorcalc, convexcheck analyze
and solve): every option value is checked where argparse reads it, so a bad value gets
argparse's usual 'argument --NAME: ...' message and exit status 2, never a traceback
later. Each factory returns a function whose `__name__` reads well in argparse's text.
"""
from __future__ import annotations

import argparse
import math
from typing import Callable

MAX_INDEX = 2**63 - 1     # NumPy's index type: no axis length or count beyond it can be used


def whole(low: int = 0, high: int = MAX_INDEX) -> Callable[[str], int]:
    """A whole number from `low` to `high` written in decimal digits (a sign allowed)."""
    wanted = f"a whole number from {low} to {'2**63 - 1' if high == MAX_INDEX else high}"

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        if not digits.isdigit() or not digits.isascii():
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r:.40}")
        if len(digits.lstrip("0")) > len(str(high)) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text:.40}")
        return int(text)
    parse.__name__ = "whole number"
    return parse


def finite(low: float = 0.0) -> Callable[[str], float]:
    """A finite float >= `low` (nan, inf and numbers that overflow are refused)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < low:
            raise argparse.ArgumentTypeError(f"must be a finite number >= {low:g}, got {text:.40}")
        return value
    parse.__name__ = "number"
    return parse


def identifier(text: str) -> str:
    """A name: letters, digits and _, a letter or _ first (ASCII)."""
    if not text.isidentifier() or not text.isascii():
        raise argparse.ArgumentTypeError(f"expected a name (letters, digits, _; a letter first), got {text!r:.40}")
    return text


def name_length(high: int = MAX_INDEX) -> Callable[[str], tuple[str, int]]:
    """NAME=LENGTH with a whole LENGTH from 1 to `high`, e.g. n=50."""
    length = whole(1, high)

    def parse(text: str) -> tuple[str, int]:
        name, eq, value = text.partition("=")
        if not eq or not name.strip().isidentifier() or not name.strip().isascii():
            raise argparse.ArgumentTypeError(f"write NAME=LENGTH, e.g. n=50; got {text!r:.40}")
        try:
            return name.strip(), length(value)
        except argparse.ArgumentTypeError as err:
            raise argparse.ArgumentTypeError(f"{text:.40}: the length {err}") from None
    parse.__name__ = "NAME=LENGTH"
    return parse


def blocks(text: str) -> str:
    """Comma-separated blocks of names, a block's names joined by + (U+W,V); returned as given."""
    for block in text.split(","):
        if not all(part.isidentifier() and part.isascii() for part in block.split("+")):
            raise argparse.ArgumentTypeError(f"write variable names separated by ',' (blocks) and '+' "
                                             f"(names in one block), e.g. U+W,V; got {text!r:.60}")
    return text
