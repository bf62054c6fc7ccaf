"""The one gate in front of `exec`: admits exactly the language `codegen.emit` writes.

Every program tensorcalc runs, freshly generated or read from the disk cache, is parsed
once, checked here and compiled from the checked tree, with no builtins in its namespace.
The language: one `def compiled(values, xp, n, _c)` of assignments to fresh names and one
return, whose expressions are numbers, strings, names already bound, float arithmetic,
tuples, lookups values['x'] / n['k'] / _c[k], and calls of the runtime helpers, _c[k],
or xp.f for f in a fixed list. No attributes, imports, lambdas, comprehensions, and no
integer arithmetic (integers are bounded literals, so no input can ask for unbounded
work such as 9 ** 9 ** 9).
"""
from __future__ import annotations

import ast
import re

from tensorcalc.codegen.program import ELEMENTWISE_CODE
from tensorcalc.memo import memoized

PARAMS = ("values", "xp", "n", "_c")
HELPERS = frozenset({"_f", "_delta", "_special", "_out", "_embed", "_weigh", "_gram", "_huber", "_gather"})
MAX_INT = 2 ** 31                 # larger integer literals are not generated code
MAX_SOURCE = 64 << 20             # characters
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd)


@memoized(maxsize=1)
def _xp_functions() -> frozenset:
    found = {m for code in ELEMENTWISE_CODE.values() for m in re.findall(r"xp\.(\w+)", code)}
    return frozenset(found | {"full", "matmul", "transpose"})


def parsed(source: str) -> ast.Module | None:
    """The checked tree of `source`, or None when it is not generated code."""
    if not isinstance(source, str) or len(source) > MAX_SOURCE:
        return None
    try:
        tree = ast.parse(source, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree if _module_ok(tree) else None


def check_source(source: str) -> bool:
    """Whether `source` is in the generated language (see the module docstring)."""
    return parsed(source) is not None


def _module_ok(tree: ast.Module) -> bool:
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return False
    fn = tree.body[0]
    a = fn.args
    if (fn.name != "compiled" or fn.decorator_list or fn.returns or a.vararg or a.kwarg or a.kwonlyargs
            or a.defaults or a.kw_defaults or a.posonlyargs or [x.arg for x in a.args] != list(PARAMS)
            or any(x.annotation for x in a.args) or getattr(fn, "type_params", None)):
        return False
    return _body_ok(fn.body)


def _body_ok(body: list) -> bool:
    bound = set(PARAMS) | HELPERS
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Return) and i == len(body) - 1:
            return stmt.value is not None and _expr_ok(stmt.value, bound)
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id not in bound and _expr_ok(stmt.value, bound)):
            return False
        bound.add(stmt.targets[0].id)
    return False


def _expr_ok(node, bound: set) -> bool:
    if isinstance(node, ast.Constant):
        return _constant_ok(node.value)
    if isinstance(node, ast.Name):
        return isinstance(node.ctx, ast.Load) and node.id in bound
    if isinstance(node, ast.Tuple):
        return isinstance(node.ctx, ast.Load) and all(_expr_ok(e, bound) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return (isinstance(node.op, _OPS) and not _integer(node.left) and not _integer(node.right)
                and _expr_ok(node.left, bound) and _expr_ok(node.right, bound))
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, _OPS) and _expr_ok(node.operand, bound)
    if isinstance(node, ast.Subscript):
        return _lookup_ok(node)
    if isinstance(node, ast.Call):
        return not node.keywords and _callee_ok(node.func) and all(_expr_ok(e, bound) for e in node.args)
    return False


def _constant_ok(value) -> bool:
    if type(value) is int:
        return -MAX_INT <= value <= MAX_INT
    return value is None or type(value) in (bool, float, str)


def _integer(node) -> bool:
    """An integer literal, signed or not: never an operand of generated arithmetic."""
    while isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, bool)


def _lookup_ok(node: ast.Subscript) -> bool:
    s = node.slice
    return (isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name)
            and node.value.id in ("values", "n", "_c") and isinstance(s, ast.Constant)
            and type(s.value) in (str, int) and _constant_ok(s.value))


def _callee_ok(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in HELPERS
    if isinstance(func, ast.Attribute):
        return isinstance(func.value, ast.Name) and func.value.id == "xp" and func.attr in _xp_functions()
    return (isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) and _lookup_ok(func)
            and func.value.id == "_c")
