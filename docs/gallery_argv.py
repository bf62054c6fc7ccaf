"""The command line each gallery script is run with (sphinx-gallery's ``reset_argv``).

Most scripts draw only when given ``--plot FILE``; the gallery passes it, with a file in a
temporary folder (the figure the page shows is the one left open, which sphinx-gallery
scrapes), and sizes small enough that the whole gallery runs in seconds.
"""
from __future__ import annotations

import pathlib
import tempfile

# Run every script but dask_logistic.py, which starts a LocalCluster of worker processes
# (tens of seconds, and two more processes on a CI machine of two cores); its page shows
# the code without output. tests/solvers/test_dask.py runs the same solves.
RUN = r"/(?!dask_logistic)[^/]+\.py$"

# Arguments beyond --plot, per script: the defaults already take a second or two each.
ARGUMENTS: dict[str, list[str]] = {
    "covariance_mle.py": [],
    "logistic_regression.py": [],
    "matrix_factorization.py": [],
    "portfolio.py": [],
    "quadratic.py": [],
    "signals.py": [],
}


def reset_argv(gallery_conf: dict, script_vars: dict) -> list[str]:
    """The arguments after the script's name: ``--plot`` for those that draw."""
    name = pathlib.Path(script_vars["src_file"]).name
    if name not in ARGUMENTS:
        return []
    plot = pathlib.Path(tempfile.gettempdir()) / f"convexcheck-gallery-{pathlib.Path(name).stem}.png"
    return [*ARGUMENTS[name], "--plot", str(plot)]
