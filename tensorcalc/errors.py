"""The one exception family of tensorcalc, and how it points at the source text.

Every rejected input raises `TensorCalcError` (or a subclass). Errors about text carry
the line and column and render the offending line with a caret under the column.
"""
from __future__ import annotations

_WINDOW = 72  # characters of a long source line shown around the caret


class TensorCalcError(ValueError):
    """Bad input to tensorcalc: the message says what, where, and what was expected."""


class ParseError(TensorCalcError):
    """The text is not a well-formed input (syntax, names, orders, indices)."""

    def __init__(self, message: str, text: str | None = None, line: int = 0, column: int = 0) -> None:
        self.line, self.column, self.reason = line, column, message
        if text is not None and line > 0:
            message = f"line {line}, column {column}: {message}\n{caret(text, line, column)}"
        super().__init__(message)


class ShapeError(TensorCalcError):
    """Arrays given to evaluate do not fit the expression (orders, axis lengths)."""


class DomainError(TensorCalcError):
    """A value lies outside a function's domain (for example inv of a singular matrix)."""


def caret(text: str, line: int, column: int) -> str:
    """Return the 1-based `line` of `text` with a caret under 1-based `column`.

    Lines longer than the window are cut around the column, with '...' marking the cuts.
    """
    lines = text.split("\n")
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    col = max(column - 1, 0)
    start = max(0, min(col - _WINDOW // 2, len(src) - _WINDOW))
    shown = src[start:start + _WINDOW]
    prefix = "..." if start > 0 else ""
    suffix = "..." if start + _WINDOW < len(src) else ""
    return f"  {prefix}{shown}{suffix}\n  {' ' * (len(prefix) + col - start)}^"
