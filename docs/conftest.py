"""pytest under docs/: the pages' `>>>` examples are the tests (pyproject's --doctest-glob).

conf.py and gallery_argv.py configure Sphinx, and _build, auto_examples and api are what it
generates (copies of the example scripts among them): none is collected.
"""
collect_ignore_glob = ["*.py", "_build/*", "auto_examples/*", "api/*"]
