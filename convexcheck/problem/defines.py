"""`define` statements: element-wise definitions with affine indices in problem files.

    variable x[100]
    define g[i < 99] = x[i + 1] - x[i]
    minimize sum(g^2)

`define NAME[i < N, j < M, ...] = BODY` defines the tensor NAME element-wise
(`tensorcalc.parse_def`: affine indices, `sum(k, lo, hi, ...)` with inclusive bounds);
later statements use NAME like a declared array of shape (N, M, ...). The arrays a body
reads need whole-number dimensions, since the index ranges are computed from them.
Each use is substituted by the definition's expression (its gathers are linear, so the
certificate sees through them).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import tensorcalc as tc
from convexcheck.problem.declarations import check_name
from convexcheck.problem.model import Declaration
from convexcheck.problem.statements import Source, TextStatement
from tensorcalc import Expr, TensorCalcError, graph

_HEAD = re.compile(r"\s*(?P<name>[A-Za-z_]\w*)\s*\[(?P<idx>[^\]=]*)\]\s*=", re.ASCII)
_BOUND = re.compile(r"\s*(?P<i>[A-Za-z_]\w*)\s*<\s*(?P<n>\d+)\s*$", re.ASCII)


@dataclass(frozen=True)
class Define:
    name: str
    dims: tuple[int, ...]
    text: str            # `NAME[i, j] = BODY`, padded so columns match the statement body
    line: int

    def declaration(self) -> Declaration:
        return Declaration(self.name, "define", self.dims, line=self.line)


def read_define(src: Source, st: TextStatement, decls: dict[str, Declaration], defines: dict[str, Define]) -> Define:
    """The statement as a Define, checked by building it once (errors point into the file)."""
    m = _HEAD.match(st.body)
    if not m:
        src.fail("write a definition as: define NAME[i < N, j < M] = BODY", *st.first())
    name = m.group("name")
    check_name(src, name, st.locate(m.start("name")))
    if name in decls or name in defines:
        src.fail(f"{name!r} is already declared or defined; choose another name", *st.locate(m.start("name")))
    indices, dims = _bounds(src, st, m)
    head = f"{name}[{', '.join(indices)}]".ljust(m.end() - 1) + "="
    d = Define(name, tuple(dims), head + st.body[m.end():], st.line)
    build(src, st, d, decls, defines, {})
    return d


def _bounds(src: Source, st: TextStatement, m: re.Match[str]) -> tuple[list[str], list[int]]:
    indices, dims, offset = [], [], m.start("idx")
    for part in m.group("idx").split(","):
        b = _BOUND.match(part)
        if not b or int(b.group("n")) < 1:
            src.fail(f"write each index with its range, 'i < N' with N a positive whole number; "
                     f"found {part.strip()!r}", *st.locate(offset))
        indices.append(b.group("i"))
        dims.append(int(b.group("n")))
        offset += len(part) + 1
    return indices, dims


def build(src: Source, st: TextStatement, d: Define, decls: Mapping[str, Declaration], defines: dict[str, Define],
          arrays: dict[str, Expr], axes: tuple | None = None) -> Expr:
    """The definition's expression, reading `arrays` (Var nodes or earlier definitions)."""
    shapes: dict[str, tuple] = {d.name: d.dims}
    for name, other in list(decls.items()) + [(k, v.declaration()) for k, v in defines.items()]:
        if all(isinstance(n, int) for n in other.dims):
            shapes[name] = tuple(other.dims)
        elif _reads(d, name):
            src.fail(f"{name!r} has named dimensions [{', '.join(map(str, other.dims))}]; a definition "
                     f"reads arrays of known size: declare it with numbers", *st.first())
    try:
        return tc.parse_def(d.text, shapes, arrays, axes)
    except TensorCalcError as err:
        line, column = getattr(err, "line", 0), getattr(err, "column", 0)
        src.fail(getattr(err, "reason", str(err)), *(st.at(line, column) if line else st.first()))


def _reads(d: Define, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", d.text.split("=", 1)[1]) is not None


def substitute(src: Source, statements: list[TextStatement], expr: Expr, decls: Mapping[str, Declaration],
               defines: dict[str, Define]) -> Expr:
    """expr with every defined name it reads replaced by its definition; each definition
    it needs (directly or through a later definition) is built once, in order."""
    found = tc.variables(expr)
    order = list(defines)
    needed = {n for n in order if n in found}
    for k in range(len(order) - 1, -1, -1):
        if order[k] in needed:
            needed |= {e for e in order[:k] if _reads(defines[order[k]], e)}
    if not needed:
        return expr
    arrays: dict[str, Expr] = {n: v for n, v in found.items() if n not in defines}
    by_line = {st.line: st for st in statements}
    for k, name in enumerate(order):
        if name in needed:
            d = defines[name]
            earlier = {e: defines[e] for e in order[:k]}
            arrays[name] = build(src, by_line[d.line], d, decls, earlier, dict(arrays),
                                 found[name].axes if name in found else None)
    return graph.substitute(expr, {found[n]: arrays[n] for n in needed if n in found})
