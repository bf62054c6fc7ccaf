"""Syntax errors in the language's words: lark's rejections (`UnexpectedInput`) translated
into a `ParseError` that names what was found, what may stand there, and where; and the
bracket check that runs before parsing, so an unclosed '(' is shown where it opens.

    >>> check_brackets("f(x")
    Traceback (most recent call last):
    ...
    tensorcalc.errors.ParseError: line 1, column 2: unbalanced brackets: this '(' is never closed
      f(x
       ^
"""
from __future__ import annotations

from typing import Union

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from tensorcalc.errors import ParseError

REJECTIONS = (UnexpectedCharacters, UnexpectedToken, UnexpectedEOF)    # every lark.UnexpectedInput
Rejection = Union[UnexpectedCharacters, UnexpectedToken, UnexpectedEOF]
STATEMENT_KEYWORDS = ("variable", "parameter", "declare", "minimize", "maximize", "minimise", "maximise",
                      "expression", "subject", "derivative", "define", "let")


def check_brackets(text: str) -> None:
    """Reject unbalanced round brackets, pointing at the one without a partner."""
    open_at: list[tuple[int, int]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        code = line.split("#", 1)[0]
        if "(" not in code and ")" not in code:
            continue
        for col, ch in enumerate(code, 1):
            if ch == "(":
                open_at.append((lineno, col))
            elif ch == ")":
                if not open_at:
                    raise ParseError("unbalanced brackets: this ')' closes no '('", text, lineno, col)
                open_at.pop()
    if open_at:
        where, col = open_at[-1]
        raise ParseError("unbalanced brackets: this '(' is never closed", text, where, col)


_DESCRIBE = {
    "NAME": "a name", "NUMBER": "a number", "LPAR": "'('", "RPAR": "')'", "PLUS": "'+'", "MINUS": "'-'",
    "ARROW": "'->'", "COMMA": "','", "COLON": "':'", "LSQB": "'['", "RSQB": "']'", "EQ": "'='", "LE": "'<='",
    "GE": "'>='", "EQEQ": "'=='", "LT": "'<'", "GT": "'>'", "DERIVATIVE": "'derivative wrt NAME'", "WRT": "'wrt'",
    "_LNL": "a line break", "_CNL": "a line break", "$END": "end of input",
    **{k.upper(): f"'{k}'" for k in STATEMENT_KEYWORDS if k != "derivative"}, "TO": "'to'",
}
_OPERATORS = frozenset(("PLUS", "MINUS", "STAR", "AT", "SLASH", "DOTSTAR", "DOTSLASH", "CARET", "DOTCARET",
                        "POW2", "QUOTE", "DOT_T"))
_KEYWORD_TYPES = frozenset(k.upper() for k in STATEMENT_KEYWORDS)


def syntax_error(err: Rejection, text: str, problem: bool = False) -> ParseError:
    """The ParseError that explains lark's `err` on `text` in the language's words (what was
    found, what may stand there), placed at the offending token; `problem` when the text
    is a problem file, whose statements allow more specific advice."""
    if isinstance(err, UnexpectedCharacters):
        hint = " (names use ASCII letters, digits and _)" if not err.char.isascii() else ""
        return ParseError(f"unexpected character {err.char!r}{hint}", text, err.line, err.column)
    tok, expected = err.token, set(err.expected) - {"NL"}
    at = (tok.line, tok.column) if tok.type != "$END" else _end_of(text)
    special = _special(tok, expected, text, problem)
    if special is not None:
        return ParseError(special[0], text, *(special[1] or at))
    found = "end of input" if tok.type == "$END" else "line break" if tok.type in ("_LNL", "_CNL") \
        else f"{tok.value!r}"
    words = _expected_words(expected)
    hint = " (the order of the declared tensor, a whole number from 0 to 32)" if words == ["a number"] else ""
    return ParseError(f"unexpected {found}; expected {_join(words)}{hint}", text, *at)


def _special(tok, expected: set, text: str, problem: bool):
    """(message, place or None) for the mistakes a plain 'unexpected ...' explains badly."""
    value = str(tok.value)
    if tok.type == "NAME" and value.lower() in STATEMENT_KEYWORDS and value.lower().upper() in expected:
        return f"keywords are lower case: write {value.lower()!r}", None
    if expected == {"TO"}:
        return "write 'subject to', then one constraint a line", _before(text, tok, "subject")
    if expected == {"WRT"}:
        note = " (accepted and ignored)" if problem else ""
        return f"write 'derivative wrt NAME'{note}", _before(text, tok, "derivative")
    if problem and expected <= _KEYWORD_TYPES | {"$END"} and text[:tok.start_pos].strip(" \t\r\n\ufeff") == "":
        return (f"a problem starts with a statement keyword (variable, parameter, define, let, minimize, "
                f"maximize, expression), found {value.split()[0][:40]!r}"), None
    return None


def _before(text: str, tok, word: str) -> tuple[int, int] | None:
    """(line, column) of the last `word` before `tok`."""
    end = tok.start_pos if tok.type != "$END" else len(text)
    offset = text.rfind(word, 0, end)
    if offset < 0:
        return None
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def _expected_words(expected: set) -> list[str]:
    names = set(expected) - {"NL"}
    words = []
    if names & (_OPERATORS - {"MINUS"}):
        names -= _OPERATORS
        words.append("an operator")
    if len(names & _KEYWORD_TYPES) > 2:
        names -= _KEYWORD_TYPES
        words.append("a statement keyword")
    words += [_DESCRIBE.get(e, e.lower()) for e in names]
    return sorted(set(words))


def _end_of(text: str) -> tuple[int, int]:
    lines = text.rstrip().split("\n")
    return len(lines), len(lines[-1]) + 1


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
