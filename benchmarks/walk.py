"""The walk of one `solvers.minimize` call: which of the project's files its code runs in, in turn.

    python benchmarks/walk.py [--root TREE]

Each problem is solved once untraced (parsing, compiling and the convexity verdict are
then memoised) and once under `sys.setprofile`. Every call and return moves the walk to
the file of the frame that runs next; frames outside the project's packages (NumPy,
SciPy, the standard library) leave it where it is. Consecutive events in one file make
one *stay*. Printed per problem: stays, distinct files entered, and returns (stays in a
file the walk had already left). Only the public API is used (`solvers.minimize` with
`data=` by keyword), so the same script measures an older tree: `--root /tmp/old` for a
`git worktree add /tmp/old 9cf8472`.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
from dataclasses import dataclass

PACKAGES = ("tensorcalc", "convexcheck", "solvers")
CONSTRAINED = """parameter a[n]
parameter b
variable p[n] pos
maximize sum(entr(p))
subject to
    sum(p) == 1
    a' * p <= b
"""


@dataclass(frozen=True)
class Walk:
    """The stays of one traced call, as file paths relative to the tree."""

    stays: tuple[str, ...]

    @property
    def files(self) -> int:
        return len(set(self.stays))

    @property
    def returns(self) -> int:
        """Stays in a file the walk entered before (and left in between)."""
        seen: set[str] = set()
        count = 0
        for stay in self.stays:
            count += stay in seen
            seen.add(stay)
        return count


def traced(root: pathlib.Path, call) -> Walk:
    """The walk of `call()` over the files under root's packages."""
    prefixes = tuple(str(root / p) + os.sep for p in PACKAGES)
    stays: list[str] = []

    def note(frame) -> None:
        name = frame.f_code.co_filename if frame is not None else ""
        if name.startswith(prefixes):
            here = os.path.relpath(name, root)
            if not stays or stays[-1] != here:
                stays.append(here)

    def profile(frame, event, arg) -> None:
        if event == "call":
            note(frame)
        elif event == "return":
            note(frame.f_back)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return Walk(tuple(stays))


def problems() -> dict:
    """name -> a call of `solvers.minimize` on small random data."""
    import numpy as np

    import solvers
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((20, 5)), rng.standard_normal(20)
    ridge = (pathlib.Path(__file__).resolve().parents[1] / "examples" / "ridge.tc").read_text()
    a = rng.uniform(0.0, 1.0, 4)
    return {
        "ridge (newton)": lambda: solvers.minimize(ridge, data={"X": X, "y": y, "lam": 0.1}),
        "constrained (interior point)": lambda: solvers.minimize(CONSTRAINED, data={"a": a, "b": 0.5}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[1],
                        help="the tree whose packages are imported and traced")
    parser.add_argument("--show", action="store_true", help="print each walk's stays")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    calls = problems()
    print(f"tree: {root}")
    print(f"{'problem':32} {'stays':>6} {'files':>6} {'returns':>8}")
    for name, call in calls.items():
        call()                                    # parse, compile, verdict: memoised
        walk = traced(root, call)
        print(f"{name:32} {len(walk.stays):6d} {walk.files:6d} {walk.returns:8d}")
        if args.show:
            print("  " + " -> ".join(walk.stays))


if __name__ == "__main__":
    main()
