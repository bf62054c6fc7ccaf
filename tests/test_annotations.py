"""Every public function of the three packages states its types: each parameter and the return.

Public: a function whose name has no leading underscore, at module level or in a public
class of a module (`__init__` counts, dunder methods other than `__init__` do not). `self`
and `cls` need no annotation; `__init__` needs no return annotation. mypy (in CI, configured
in pyproject.toml) then checks the bodies against these signatures.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FILES = sorted(p for package in ("tensorcalc", "convexcheck", "solvers") for p in (ROOT / package).rglob("*.py"))


def _public(name: str) -> bool:
    return name == "__init__" or not name.startswith("_")


def _unannotated(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    missing = [a.arg for a in every if a.annotation is None and a.arg not in ("self", "cls")]
    if function.returns is None and function.name != "__init__":
        missing.append("return")
    return missing


def _gaps(tree: ast.AST, where: str = "") -> list[str]:
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(node.name):
            if missing := _unannotated(node):
                found.append(f"{where}{node.name} (line {node.lineno}): {', '.join(missing)}")
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            found += _gaps(node, f"{where}{node.name}.")
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_public_functions_are_annotated(path):
    gaps = _gaps(ast.parse(path.read_text()))
    assert not gaps, f"{path.relative_to(ROOT)}: public functions without types:\n" + "\n".join(gaps)
