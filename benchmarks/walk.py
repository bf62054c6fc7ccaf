"""The walk of one `solvers.minimize` call: which of the project's files its code runs in, in turn.

    python benchmarks/walk.py [--root TREE]

Each problem is solved once untraced (parsing, compiling and the convexity verdict are
then memoised) and once under `sys.setprofile`. Every call and return moves the walk to
the file of the frame that runs next; frames outside the project's packages (NumPy,
SciPy, the standard library) leave it where it is. Consecutive events in one file make
one *stay*. Printed per problem: stays, distinct files entered, climbs (stays entered by a
function returning to its caller in another file) and returns (stays in a file the walk had
already left). `--package solvers` watches only that package's files (the others leave the
walk where it is), which is the solver's own house. Only the public API is used (`solvers.minimize` with
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
ITERATIONS = ("loop.py", "pathfollow.py")     # the files of the iterations (old tree and new)
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
    climbs: int = 0

    def setup(self) -> "Walk":
        """The walk up to the first stay in an iteration (a file named loop.py or pathfollow.py, old
        tree and new): checking and preparing the task, before any method runs."""
        first = next((k for k, stay in enumerate(self.stays) if stay.endswith(ITERATIONS)), len(self.stays))
        return Walk(self.stays[:first], -1)

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


def traced(root: pathlib.Path, call, packages: tuple[str, ...] = PACKAGES) -> Walk:
    """The walk of `call()` over the files under root's packages."""
    prefixes = tuple(str(root / p) + os.sep for p in packages)
    stays: list[str] = []
    climbs = [0]

    def note(frame, climbing: bool) -> None:
        name = frame.f_code.co_filename if frame is not None else ""
        if name.startswith(prefixes):
            here = os.path.relpath(name, root)
            if not stays or stays[-1] != here:
                stays.append(here)
                climbs[0] += climbing

    def profile(frame, event, arg) -> None:
        if event == "call":
            note(frame, False)
        elif event == "return":
            note(frame.f_back, True)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return Walk(tuple(stays), climbs[0])


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
    parser.add_argument("--show", action="store_true", help="print the stays before the iteration")
    parser.add_argument("--package", choices=PACKAGES, action="append",
                        help="watch only this package's files (repeatable; default: all three)")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    calls = problems()
    packages = tuple(args.package or PACKAGES)
    print(f"tree: {root}; files of: {', '.join(packages)}")
    print(f"{'problem':32} {'stays':>6} {'files':>6} {'climbs':>7} {'returns':>8}")
    for name, call in calls.items():
        call()                                    # parse, compile, verdict: memoised
        walk = traced(root, call, packages)
        print(f"{name:32} {len(walk.stays):6d} {walk.files:6d} {walk.climbs:7d} {walk.returns:8d}")
        setup = walk.setup()
        print(f"{'  of which before the iteration':32} {len(setup.stays):6d} {setup.files:6d} {'':>7} "
              f"{setup.returns:8d}")
        if args.show:
            print("  " + " -> ".join(setup.stays))


if __name__ == "__main__":
    main()
