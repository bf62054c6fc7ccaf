"""The import structure: layers that only look down, no circles, no private names borrowed.

Every import in the three packages is read from the source (at module level, inside
functions and under `if TYPE_CHECKING:` alike, since each is a dependency) and checked
against the layers below, which docs/architecture.md draws. A module may import from its
own layer (one subpackage) and from any layer below it, never from one above; no set of
modules may import one another in a circle; and no module takes a `_private` name from
another module.
"""
from __future__ import annotations

import ast
import pathlib
from collections import defaultdict
from dataclasses import dataclass

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("tensorcalc", "convexcheck", "solvers")

# Bottom to top. A name is a module or a subpackage (meaning every module in it).
LAYERS = {
    "tensorcalc": [
        ["tensorcalc.errors", "tensorcalc.collector", "tensorcalc.memo", "tensorcalc.arrays", "tensorcalc.disjoint",
         "tensorcalc.options"],
        ["tensorcalc.dag"],
        ["tensorcalc.graph"],
        ["tensorcalc.gather"],
        ["tensorcalc.numeric"],
        ["tensorcalc.algebra"],
        ["tensorcalc.derivatives"],
        ["tensorcalc.codegen"],
        ["tensorcalc.store"],
        ["tensorcalc.language"],
        ["tensorcalc.printing"],
        ["tensorcalc", "tensorcalc.cli", "tensorcalc.__main__"],
    ],
    "convexcheck": [
        ["convexcheck.budget"],
        ["convexcheck.problem"],
        ["convexcheck.signs"],
        ["convexcheck.hessian"],
        ["convexcheck.composition"],
        ["convexcheck.witness"],
        ["convexcheck.report"],
        ["convexcheck.analysis"],
        ["convexcheck.bridge"],
        ["convexcheck", "convexcheck.api", "convexcheck.cli", "convexcheck.__main__", "convexcheck.explanation",
         "convexcheck.spellings"],
    ],
    "solvers": [
        # The result (statuses, SciPy's OptimizeResult) and the contract of the objectives.
        ["solvers.result", "solvers.protocol"],
        # Numerics that read no solver state (NumPy, SciPy): Newton systems and their factors
        # (linalg), the cones' barrier (cone), the coordinates of symmetric variables (space).
        ["solvers.numerics"],
        ["solvers.task"],
        ["solvers.objective"],
        ["solvers.methods"],
        ["solvers.constrained"],
        ["solvers.reformulate"],
        ["solvers.api"],
        ["solvers.cvxpy_method"],
        ["solvers", "solvers.cli", "solvers.__main__"],
    ],
}


@dataclass(frozen=True)
class Import:
    """One import: the module that imports, the module imported, the names taken, where."""

    source: str
    target: str
    names: tuple[str, ...]
    line: int


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def absolute(node: ast.ImportFrom, path: pathlib.Path) -> str:
    if not node.level:
        return node.module or ""
    base = module_name(path).split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def ours(name: str) -> str | None:
    """The longest prefix of a dotted name that is one of our modules, or None."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str) -> list[Import]:
    path = MODULES[name]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = ours(alias.name)
                if target:
                    found.append(Import(name, target, (), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            source = absolute(node, path)
            for alias in node.names:
                target = ours(f"{source}.{alias.name}") or ours(source)
                if target:
                    taken = () if target == f"{source}.{alias.name}" else (alias.name,)
                    found.append(Import(name, target, taken, node.lineno))
    return [i for i in found if i.target != name]


IMPORTS = [i for name in MODULES for i in imports_of(name)]


def layer(name: str) -> tuple[int, int]:
    """(package rank, layer rank) of a module; a module in no listed layer fails the test."""
    package = name.split(".")[0]
    for rank, members in enumerate(LAYERS[package]):
        for member in members:
            if name == member or (name.startswith(member + ".") and member != package):
                return PACKAGES.index(package), rank
    raise AssertionError(f"{name} is in no layer of tests/test_imports.py LAYERS: add it to its stage")


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


def test_imports_only_look_down():
    upward = [f"{i.source}:{i.line} imports {i.target}" for i in IMPORTS if layer(i.target) > layer(i.source)]
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components, iteratively; those with more than one module are circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return circles


def test_no_import_circles():
    graph: dict[str, set[str]] = defaultdict(set)
    for name in MODULES:
        graph[name]
    for i in IMPORTS:
        graph[i.source].add(i.target)
    assert strongly_connected(graph) == []


def test_no_private_names_from_other_modules():
    borrowed = [f"{i.source}:{i.line} takes {name} from {i.target}"
                for i in IMPORTS for name in i.names if name.startswith("_") and not name.startswith("__")]
    assert not borrowed, "\n".join(borrowed)


def test_no_private_attributes_of_imported_modules():
    """`module._name` on a module bound by an import is the same borrowing as importing it."""
    borrowed = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        bound = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names
                 if isinstance(node, ast.Import) and ours(alias.name)
                 or isinstance(node, ast.ImportFrom) and ours(f"{absolute(node, path)}.{alias.name}")
                 == f"{absolute(node, path)}.{alias.name}"}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                borrowed.append(f"{name}:{node.lineno} reads {node.value.id}.{node.attr}")
    assert not borrowed, "\n".join(borrowed)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_short(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= 400, f"{MODULES[name].relative_to(ROOT)} has {lines} lines: split it by step"
