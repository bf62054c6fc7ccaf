"""The front door and the documentation: README.md stays short, its test command is the one
CI runs, every page is in the table of contents, links and shell examples hold, and the
architecture page names every stage of tests/test_imports.py.

The `>>>` examples of README.md and docs/*.md run as doctests (pyproject's --doctest-glob);
the Sphinx build itself (`python -m sphinx -W docs docs/_build`) runs in .ci/run.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import pathlib
import re
import shlex

import pytest

import convexcheck_cli

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(DOCS.glob("*.md")) + sorted(DOCS.glob("*.rst"))
COMMANDS = {"convexcheck": convexcheck_cli.convexcheck_main, "tensorcalc": convexcheck_cli.tensorcalc_main}


def test_readme_is_a_front_door():
    lines = README.read_text().splitlines()
    assert len(lines) <= 160, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_readme_has_one_test_command_that_ci_can_run():
    commands = [line for line in README.read_text().splitlines() if "-m pytest" in line]
    assert len(commands) == 1, f".ci/run takes the first line with '-m pytest'; README.md has {commands}"
    assert "python3 -m venv .venv" in commands[0] and "pip install '.[test]'" in commands[0]


def toctree_entries(text: str) -> list[str]:
    """The entries of every toctree in a MyST page (```{toctree} blocks, options skipped)."""
    entries = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S):
        entries += [line.strip() for line in block.splitlines() if line.strip() and not line.startswith(":")]
    return entries


def test_every_page_is_in_the_table_of_contents():
    entries = toctree_entries((DOCS / "index.md").read_text())
    pages = {p.stem for p in PAGES} - {"index", "sg_execution_times"}
    assert sorted(pages - set(entries)) == [], "pages no toctree lists (add them to docs/index.md)"
    missing = [e for e in entries if e not in pages and e != "auto_examples/index"]
    assert missing == [], "toctree entries with no page"


LINK = re.compile(r"\]\(([^)#\s]+\.(?:md|rst|png|tc|py))(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.name)
def test_local_links_resolve(page):
    targets = LINK.findall(page.read_text())
    broken = [t for t in targets if "://" not in t and not (page.parent / t).exists()]
    assert broken == [], f"{page.name} links to files that do not exist"


def console_examples(text: str) -> list[tuple[str, str]]:
    """(command, expected output) for every `$ ...` line of the ```console blocks."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            examples.append((command, output))
    return examples


CONSOLE = [(page.name, command, output) for page in [README, *PAGES]
           for command, output in console_examples(page.read_text())]


def test_the_front_door_shows_a_checked_command():
    assert any(name == "README.md" for name, _, _ in CONSOLE)


@pytest.mark.parametrize("page, command, output", CONSOLE, ids=[f"{p}: {c}" for p, c, _ in CONSOLE])
def test_console_example_prints_what_the_page_shows(page, command, output, capsys):
    program, *args = shlex.split(command)
    assert program in COMMANDS, f"{page}: only convexcheck and tensorcalc commands can be checked ({command})"
    assert COMMANDS[program](args) == 0
    printed = capsys.readouterr().out
    assert [line.rstrip() for line in printed.strip().splitlines()] == output.strip().splitlines()


def layer_names() -> list[str]:
    """Every name in tests/test_imports.py LAYERS, read from its source."""
    tree = ast.parse((ROOT / "tests" / "test_imports.py").read_text())
    value = next(node.value for node in tree.body
                 if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "LAYERS")
    layers = ast.literal_eval(value)
    return [name for package in layers.values() for layer in package for name in layer]


def test_architecture_page_names_every_stage():
    text = (DOCS / "architecture.md").read_text()
    missing = [name for name in layer_names() if f"`{name.rsplit('.', 1)[-1]}`" not in text]
    assert missing == [], "stages of tests/test_imports.py LAYERS that docs/architecture.md does not name"


def test_every_script_that_plots_plots_in_the_gallery():
    spec = importlib.util.spec_from_file_location("gallery_argv", DOCS / "gallery_argv.py")
    gallery_argv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gallery_argv)
    plotting = {p.name for p in (ROOT / "examples").glob("*.py") if "--plot" in p.read_text()}
    assert sorted(plotting - set(gallery_argv.ARGUMENTS)) == [], "add them to docs/gallery_argv.py ARGUMENTS"
    assert re.search(gallery_argv.RUN, "examples/quadratic.py")
    assert not re.search(gallery_argv.RUN, "examples/dask_logistic.py")


PATH = re.compile(r"(?<![\w/])((?:tensorcalc|convexcheck|solvers)/[\w/]+\.(?:py|lark))\b")
DOTTED = re.compile(r"`((?:tensorcalc|convexcheck|solvers)(?:\.[A-Za-z_]\w*)+)")


def resolves(dotted: str) -> bool:
    """Whether a dotted name is a module, or an attribute reached from the longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.name)
def test_named_files_and_modules_exist(page):
    text = page.read_text()
    files = [p for p in PATH.findall(text) if not (ROOT / p).exists()]
    names = [n for n in DOTTED.findall(text) if not resolves(n)]
    assert (files, names) == ([], []), f"{page.name} names files or modules that the packages no longer have"
