"""convexcheck against CVXPY's DCP rules on N random expressions per generator; prints markdown.

    python benchmarks/dcp_agreement.py [--generator {atoms,nested,all}] [--n 2000] [--seed 0]
                                       [--samples 6] [--points 4] [--save] [--md FILE]

Two generators (the tests folder is put on sys.path to import them), each drawn from a
seeded random.Random instead of hypothesis:
  - atoms: tests/dcp_atoms.py, one table of smooth atoms composed freely (CVXPY judges
    DCP); every side DCP proves, convexcheck must prove (exit code 1 otherwise);
  - nested: tests/dcp_nested.py, nested compositions DCP-valid by construction (exp of
    sums, log_sum_exp of stacks, powers of exp, inv_pos, abs, pos, maximum, max, norms,
    huber, hinge, lasso; the concave side by negation, sqrt, log, entr, minimum).
Each case is analysed by `convexcheck.analyze(text, samples=--samples, data=...)` with its
parameters at the generated values, and by CVXPY (`expr.is_convex()`, `expr.is_concave()`).
Every convexcheck witness is re-checked through CVXPY's values, every convexcheck proof by
second differences of the CVXPY expression at --points random domain points.

For convex and concave separately, each case falls in one of: both proven; only convexcheck
proves (DCP does not, e.g. x*x); only DCP proves (a coverage gap of convexcheck, each
listed); convexcheck disproved (and DCP does
not prove it); both unknown; contradiction (DCP proves what convexcheck disproves, a proof
against DCP's opposite curvature of a non-affine function, a witness that does not verify
through CVXPY, or a proof that second differences violate: must be 0). The headline per
generator is the share of DCP-proven sides that convexcheck proves (target: 99%). A
per-atom table counts the sides of the cases that use each atom.

Prints the tables; with --save also writes them to --md (default
benchmarks/RESULTS_dcp_agreement.md), naming the commit measured.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import os
import pathlib
import platform
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))     # tests/dcp_atoms.py and dcp_nested.py

import cvxpy  # noqa: E402
import dcp_atoms  # noqa: E402
import dcp_nested  # noqa: E402
from dcp_atoms import CATEGORIES, KINDS, compare  # noqa: E402
from tqdm import tqdm  # noqa: E402

import convexcheck  # noqa: E402,F401 - imported before the tests modules, which import it too

GENERATORS = {"atoms": dcp_atoms.random_cases, "nested": dcp_nested.random_cases}
TARGET = 99.0       # percent of DCP-proven sides convexcheck must prove (issue 13)


def run(generator: str, n: int, seed: int, samples: int, points: int):
    cases = GENERATORS[generator](n, seed=seed)
    outcomes, seconds = [], []
    for case in tqdm(cases, desc=generator, unit="expr", file=sys.stderr):
        start = time.perf_counter()
        outcomes.append(compare(case, samples=samples, points=points))
        seconds.append(time.perf_counter() - start)
    return outcomes, seconds


def summary_table(outcomes) -> list[str]:
    counts = {k: collections.Counter(o.category(k) for o in outcomes) for k in KINDS}
    lines = ["| | " + " | ".join(CATEGORIES) + " |", "|---|" + "---:|" * len(CATEGORIES)]
    for kind in KINDS:
        lines.append(f"| {kind} | " + " | ".join(str(counts[kind][c]) for c in CATEGORIES) + " |")
    return lines


def missed(outcomes) -> list[str]:
    """The sides DCP proves and convexcheck leaves unproven, as markdown list items."""
    return [f"- {kind}: `{o.case.expr_text}` convexcheck {o.status[kind]}"
            for o in outcomes for kind in KINDS if o.category(kind) == "only DCP proves"]


def _kind(generator: str, name: str) -> str:
    if generator == "nested" and name in dcp_nested.NESTED:
        return dcp_nested.NESTED[name].curvature
    return dcp_atoms.ATOMS[name].kind if name in dcp_atoms.ATOMS else "convex"


def atom_table(outcomes, generator: str) -> list[str]:
    """Per atom: the cases using it, and their convex and concave sides by category."""
    rows = collections.defaultdict(collections.Counter)
    for o in outcomes:
        for atom in o.case.atoms:
            rows[atom]["cases"] += 1
            for kind in KINDS:
                rows[atom][o.category(kind)] += 1
    head = ["atom", "kind", "cases"] + list(CATEGORIES)
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    names = dcp_atoms.ATOMS if generator == "atoms" else sorted(rows)
    for name in names:
        r = rows[name]
        lines.append(f"| {name} | {_kind(generator, name)} | {r['cases']} | " +
                     " | ".join(str(r[c]) for c in CATEGORIES) + " |")
    return lines


def contradictions(outcomes) -> list[str]:
    out = []
    for o in outcomes:
        for kind in KINDS:
            if o.category(kind) == "contradiction":
                out.append(f"- {kind}: `{o.case.expr_text}` convexcheck {o.status[kind]}, CVXPY "
                           f"convex={o.dcp['convex']} concave={o.dcp['concave']}; "
                           f"{o.witness_error.get(kind) or o.proof_error.get(kind) or ''}")
    return out


def share(outcomes) -> tuple[int, int, float]:
    """(DCP-proven sides, of them proven by convexcheck, percent)."""
    dcp_sides = sum(o.dcp[k] for o in outcomes for k in KINDS)
    proven = sum(o.dcp[k] and o.status[k] == "proven" for o in outcomes for k in KINDS)
    return dcp_sides, proven, 100 * proven / max(dcp_sides, 1)


def section(generator: str, outcomes, seconds, total: float) -> tuple[list[str], int]:
    """The markdown of one generator, and its count of failures (contradictions, and for
    the atoms generator, all of whose atoms are twice differentiable, any 'only DCP' side)."""
    bad = contradictions(outcomes)
    dcp_sides, proven, percent = share(outcomes)
    gaps = missed(outcomes)
    unexplained = len(gaps) if generator == "atoms" else 0
    seconds = sorted(seconds)
    lines = [
        f"## Generator `{generator}`",
        "",
        *summary_table(outcomes),
        "",
        f"Contradictions: {len(bad)}. DCP proves {dcp_sides} sides; convexcheck proves {proven} of them "
        f"({percent:.1f}%; target {TARGET:g}%).",
        *([""] + bad if bad else []),
        *(["", "### Where only DCP proves", "", *gaps] if gaps else []),
        "",
        "### Per atom (both sides of every case that uses the atom)",
        "",
        *atom_table(outcomes, generator),
        "",
        f"{total:.1f} s in all; per expression (analyze, CVXPY and the numeric checks): median "
        f"{1000 * seconds[len(seconds) // 2]:.0f} ms, 95th percentile "
        f"{1000 * seconds[int(0.95 * len(seconds))]:.0f} ms, max {1000 * seconds[-1]:.0f} ms.",
        "",
    ]
    return lines, len(bad) + unexplained


def commit() -> str:
    """The commit measured, '-dirty' when the working tree differs from it (in an exported
    tree, not a checkout: $CONVEXCHECK_COMMIT)."""
    if os.environ.get("CONVEXCHECK_COMMIT"):
        return os.environ["CONVEXCHECK_COMMIT"] + " (exported tree)"
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=10"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    parser.add_argument("--generator", choices=("atoms", "nested", "all"), default="all",
                        help="which generator's cases to run (default all: both)")
    parser.add_argument("--n", type=int, default=2000, help="random expressions per generator (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the expression generators (default 0)")
    parser.add_argument("--samples", type=int, default=6,
                        help="convexcheck's sampled points per side without a proof (default 6)")
    parser.add_argument("--points", type=int, default=4,
                        help="random points at which each proof is checked through CVXPY (default 4)")
    parser.add_argument("--save", action="store_true", help="write the tables to --md")
    parser.add_argument("--md", type=pathlib.Path, default=ROOT / "benchmarks" / "RESULTS_dcp_agreement.md",
                        help="markdown output with --save (default benchmarks/RESULTS_dcp_agreement.md)")
    args = parser.parse_args(argv)

    generators = list(GENERATORS) if args.generator == "all" else [args.generator]
    sections, headline, failures = [], ["| generator | cases | DCP-proven sides | convexcheck proves | share | "
                                        "contradictions |", "|---|---:|---:|---:|---:|---:|"], 0
    for generator in generators:
        start = time.perf_counter()
        outcomes, seconds = run(generator, args.n, args.seed, args.samples, args.points)
        lines, failed = section(generator, outcomes, seconds, time.perf_counter() - start)
        sections += lines
        failures += failed
        dcp_sides, proven, percent = share(outcomes)
        headline.append(f"| {generator} | {args.n} | {dcp_sides} | {proven} | {percent:.1f}% | "
                        f"{len(contradictions(outcomes))} |")
    flags = f" --generator {args.generator}" if args.generator != "all" else ""
    lines = [
        "# convexcheck against CVXPY's DCP rules",
        "",
        f"{args.n} random expressions per generator (seed {args.seed}); convexcheck `analyze(samples="
        f"{args.samples})` with the parameters at the generated values; CVXPY {cvxpy.__version__} "
        f"`is_convex()` / `is_concave()`. Each witness re-checked through CVXPY's values, each proof by "
        f"second differences of the CVXPY expression at {args.points} random points. Commit {commit()}; "
        f"`python benchmarks/dcp_agreement.py --n {args.n} --seed {args.seed}{flags}` on "
        f"{datetime.date.today().isoformat()} ({platform.python_version()}, {platform.machine()}).",
        "",
        *headline,
        "",
        *sections,
    ]
    text = "\n".join(lines)
    print(text)
    if args.save:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(text)
        print(f"wrote {args.md}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
