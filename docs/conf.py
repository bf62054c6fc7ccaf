"""Sphinx configuration of the convexcheck documentation.

Build with ``python -m sphinx -W docs docs/_build`` (the ``docs`` extra installs the tools).
Pages are Markdown (MyST); the API reference is generated from the docstrings of the three
packages; the gallery runs the scripts of ``examples/`` and shows the plots they draw.
"""
from __future__ import annotations

import inspect
import pathlib
import re
import sys

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(DOCS)]   # the checkout's packages, and gallery_argv below

import gallery_argv  # noqa: E402  (found through the path set just above)
from numpydoc.numpydoc import DEDUPLICATION_TAG  # noqa: E402

project = "convexcheck"
author = "the convexcheck authors"
copyright = "2026, " + author

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

# MyST: anchors for headings down to ###, so that [text](page.md#a-heading) links resolve
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# API reference: one page per module, generated from the docstrings
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"   # the hints in the signatures; descriptions are the docstrings'

# numpydoc reads our docstrings, which state contracts in prose rather than in numpydoc's
# sections: no style validation, and class members are listed by autodoc, not twice.
numpydoc_validation_checks: set[str] = set()
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# The gallery: every script of examples/ is run (see gallery_argv for the command line each
# gets, and why dask_logistic.py is shown without being run); the plots they draw are
# the figures left open at the end.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": gallery_argv.RUN,
    "ignore_pattern": r"__init__\.py",
    "reset_argv": "gallery_argv.reset_argv",
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "plot_gallery": "True",
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = "convexcheck"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []


# Our docstrings are plain text that states contracts (|x|, a * b, indented formulas), not
# reStructuredText: read as RST they would be garbled and warn. Each docstring is shown as
# written: its first paragraph (the summary autosummary's tables take) with RST's special
# characters escaped, the rest as a literal block. Runs after numpydoc (priority 600).
RST_SPECIAL = str.maketrans({c: "\\" + c for c in "\\*`|_[]<>:"})


def plain_docstring(app, what, name, obj, options, lines: list[str]) -> None:
    """Replace ``lines`` (autodoc's docstring, in place) by its plain-text rendering; the
    comment numpydoc ends a docstring with (its mark against processing it twice) stays last."""
    mark = ["..", DEDUPLICATION_TAG] if lines[-2:] == ["..", DEDUPLICATION_TAG] else []
    text = "\n".join(lines[:len(lines) - len(mark)]).strip("\n")
    if not text:
        return
    summary, _, body = text.partition("\n\n")
    lines[:] = [" ".join(part.strip() for part in summary.splitlines()).translate(RST_SPECIAL)]
    if body.strip():
        lines += ["", "::", ""] + ["    " + line for line in body.splitlines()]
    lines += [""] + mark


# Class signatures made by dataclasses and NamedTuples keep their annotations as written
# (`node: Expr`), and a bare name that two modules define (Factor) is ambiguous to Sphinx.
# Each bare class name is read in the module that wrote it and linked to its definition.
BARE_NAME = re.compile(r"(?<![\w.'\"~])([A-Z]\w*)\b")


def qualified_names(app, what, name, obj, options, signature, return_annotation):
    """Signature and return annotation with bare class names fully qualified (shown short)."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")

    def qualify(match: re.Match) -> str:
        target = getattr(module, match.group(1), None)
        if inspect.isclass(target) and getattr(target, "__module__", None):
            return f"~{target.__module__}.{target.__qualname__}"
        return match.group(1)

    if module is None:
        return None
    return tuple(BARE_NAME.sub(qualify, text) if text else text for text in (signature, return_annotation))


def setup(app) -> None:
    app.connect("autodoc-process-docstring", plain_docstring, priority=600)
    app.connect("autodoc-process-signature", qualified_names)
