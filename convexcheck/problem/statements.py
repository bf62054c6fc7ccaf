"""A statement's text, and the way back from a place in it to a place in the file.

`TextStatement` is the text after a statement's keyword, comments dropped, one segment per
source line; `locate` and `at` turn an offset, or a (line, column) of that text as
tensorcalc reports it, into the file's (line, column). `convexcheck.problem.defines` reads
definitions through it (`tensorcalc.parse_def` reads the definition's own text).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn, Protocol


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of character `offset` of `text`."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


class Lines:
    """The line starts of a text, found once: `line_col` of any offset of it then takes
    O(log lines), not the O(offset) of the function `line_col` (called once per statement,
    that is quadratic in the length of the text)."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_col(self, offset: int) -> tuple[int, int]:
        """`line_col(text, offset)`, the same for every offset."""
        if not 0 <= offset <= len(self.text):
            return line_col(self.text, offset)
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def offset_of(text: str, line: int, column: int) -> int:
    """The offset of the 1-based (line, column) of `text`."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


class Source(Protocol):
    """Where a problem's errors are raised (`reader`'s source): `fail` raises ProblemError
    with the file's text, the (line, column) and a caret; it never returns."""

    def fail(self, message: str, line: int = 0, column: int = 0) -> NoReturn: ...


class Segment(NamedTuple):
    line: int    # 1-based line of the file
    start: int   # 0-based column of the file where `text` begins
    text: str


@dataclass
class TextStatement:
    """A keyword and the text after it, one segment per source line."""

    keyword: str
    segments: list[Segment]
    keyword_column: int

    line = property(lambda self: self.segments[0].line)
    body = property(lambda self: "\n".join(s.text for s in self.segments))

    @classmethod
    def between(cls, text: str, keyword: Any, end: int) -> TextStatement:
        """The statement whose keyword is the token `keyword` and whose text ends at `end`."""
        start = offset_of(text, keyword.line, keyword.column) + len(keyword.text)
        segments, line, column = [], keyword.line, keyword.end_column - 1
        for k, piece in enumerate(text[start:end].split("\n")):
            segments.append(Segment(line + k, column if k == 0 else 0, piece.split("#", 1)[0]))
        return cls(keyword.text, segments, keyword.column)

    def keyword_at(self) -> tuple[int, int]:
        return self.line, self.keyword_column

    def first(self) -> tuple[int, int]:
        """Where the text after the keyword starts (the keyword when there is none)."""
        body = self.body
        return self.locate(len(body) - len(body.lstrip())) if body.strip() else self.keyword_at()

    def locate(self, offset: int) -> tuple[int, int]:
        """File (line, column) of character `offset` of `body`."""
        for seg in self.segments:
            if offset <= len(seg.text):
                return seg.line, seg.start + offset + 1
            offset -= len(seg.text) + 1
        return self.segments[-1].line, self.segments[-1].start + len(self.segments[-1].text) + 1

    def at(self, line: int, column: int) -> tuple[int, int]:
        """File (line, column) of a 1-based (line, column) of `body`, as tensorcalc reports them."""
        return self.locate(sum(len(s.text) + 1 for s in self.segments[:line - 1]) + column - 1)
