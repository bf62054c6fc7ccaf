"""convexcheck against CVXPY's DCP rules on N random smooth expressions; prints markdown.

    python benchmarks/dcp_agreement.py [--n 2000] [--seed 0] [--samples 6] [--points 4] [--md FILE]

The expressions come from tests/dcp_atoms.py (one atom table rendered as convexcheck problem
text and as CVXPY; the tests folder is put on sys.path to import it, and the known-gap list
from tests/test_dcp_agreement.py), drawn from a seeded random.Random instead of hypothesis.
Each is analysed by `convexcheck.analyze(text, samples=--samples, data=...)` with its
parameters at the generated values, and by CVXPY (`expr.is_convex()`, `expr.is_concave()`).
Every convexcheck witness is re-checked through CVXPY's values, every convexcheck proof by
second differences of the CVXPY expression at --points random domain points.

For convex and concave separately, each case falls in one of: both proven; only convexcheck
proves (DCP does not, e.g. x*x); only DCP proves (a coverage gap of convexcheck; each is
matched against KNOWN_GAPS); convexcheck disproved (and DCP does not prove it); both unknown;
contradiction (DCP proves what convexcheck disproves, a proof against DCP's opposite
curvature of a non-affine function, a witness that does not verify through CVXPY, or a proof
that second differences violate: must be 0). A per-atom table counts the sides of the cases
that use each atom, with the known gaps behind its 'only DCP' sides.

Writes the tables to --md (default benchmarks/RESULTS_dcp_agreement.md).
"""
from __future__ import annotations

import argparse
import collections
import datetime
import pathlib
import platform
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))     # tests/dcp_atoms.py and tests/test_dcp_agreement.py

import cvxpy  # noqa: E402
from tqdm import tqdm  # noqa: E402

import convexcheck  # noqa: E402,F401 - imported before the tests modules, which import it too
from dcp_atoms import ATOMS, CATEGORIES, KINDS, compare, random_cases  # noqa: E402
from test_dcp_agreement import KNOWN_GAPS, known_gap  # noqa: E402


def run(n: int, seed: int, samples: int, points: int):
    cases = random_cases(n, seed=seed)
    outcomes, seconds = [], []
    for case in tqdm(cases, desc="expressions", unit="expr", file=sys.stderr):
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


def gap_table(outcomes) -> tuple[list[str], int]:
    hits, unexplained = collections.Counter(), 0
    for o in outcomes:
        for kind in KINDS:
            if o.category(kind) == "only DCP proves":
                gap = known_gap(o.case, kind)
                hits[gap] += 1
                unexplained += gap is None
    lines = ["| known gap (tests/test_dcp_agreement.py) | sides | atoms | reason |", "|---|---:|---|---|"]
    for name, (atoms, reason, _) in KNOWN_GAPS.items():
        lines.append(f"| {name} | {hits[name]} | {', '.join(atoms)} | {reason} |")
    lines.append(f"| (none: unexplained) | {unexplained} | | |")
    return lines, unexplained


def atom_table(outcomes) -> list[str]:
    """Per atom: the cases using it, and their convex and concave sides by category."""
    rows = {name: collections.Counter() for name in ATOMS}
    gaps = {name: collections.Counter() for name in ATOMS}
    for o in outcomes:
        for atom in o.case.atoms:
            rows[atom]["cases"] += 1
            for kind in KINDS:
                category = o.category(kind)
                rows[atom][category] += 1
                if category == "only DCP proves":
                    gaps[atom][known_gap(o.case, kind) or "unexplained"] += 1
    head = ["atom", "kind", "cases"] + list(CATEGORIES) + ["gaps behind 'only DCP'"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 3) + "---|"]
    for name, atom in ATOMS.items():
        r = rows[name]
        behind = "; ".join(f"{g} {c}" for g, c in gaps[name].most_common())
        lines.append(f"| {name} | {atom.kind} | {r['cases']} | " +
                     " | ".join(str(r[c]) for c in CATEGORIES) + f" | {behind} |")
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    parser.add_argument("--n", type=int, default=2000, help="number of random expressions (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the expression generator (default 0)")
    parser.add_argument("--samples", type=int, default=6,
                        help="convexcheck's sampled points per side without a proof (default 6)")
    parser.add_argument("--points", type=int, default=4,
                        help="random points at which each proof is checked through CVXPY (default 4)")
    parser.add_argument("--md", type=pathlib.Path, default=ROOT / "benchmarks" / "RESULTS_dcp_agreement.md",
                        help="markdown output (default benchmarks/RESULTS_dcp_agreement.md)")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    outcomes, seconds = run(args.n, args.seed, args.samples, args.points)
    total = time.perf_counter() - start
    gaps, unexplained = gap_table(outcomes)
    bad = contradictions(outcomes)
    dcp_sides = sum(o.dcp[k] for o in outcomes for k in KINDS)
    reproduced = sum(o.dcp[k] and o.status[k] == "proven" for o in outcomes for k in KINDS)
    seconds.sort()
    lines = [
        "# convexcheck against CVXPY's DCP rules",
        "",
        f"{args.n} random smooth expressions (tests/dcp_atoms.py, seed {args.seed}); convexcheck "
        f"`analyze(samples={args.samples})` with the parameters at the generated values; CVXPY "
        f"{cvxpy.__version__} `is_convex()` / `is_concave()`. Each witness re-checked through CVXPY's "
        f"values, each proof by second differences of the CVXPY expression at {args.points} random "
        f"points. Generated by `python benchmarks/dcp_agreement.py --n {args.n} --seed {args.seed}` on "
        f"{datetime.date.today().isoformat()} ({platform.python_version()}, {platform.machine()}).",
        "",
        "## Verdicts",
        "",
        *summary_table(outcomes),
        "",
        f"Contradictions: {len(bad)}. DCP proves {dcp_sides} sides; convexcheck proves "
        f"{reproduced} of them ({100 * reproduced / max(dcp_sides, 1):.1f}%).",
        *([""] + bad if bad else []),
        "",
        "## Where only DCP proves",
        "",
        *gaps,
        "",
        "## Per atom (both sides of every case that uses the atom)",
        "",
        *atom_table(outcomes),
        "",
        "## Time",
        "",
        f"{total:.1f} s in all; per expression (analyze, CVXPY and the numeric checks): median "
        f"{1000 * seconds[len(seconds) // 2]:.0f} ms, 95th percentile {1000 * seconds[int(0.95 * len(seconds))]:.0f} ms, "
        f"max {1000 * seconds[-1]:.0f} ms.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.md.parent.mkdir(parents=True, exist_ok=True)
    args.md.write_text(text)
    print(f"wrote {args.md}", file=sys.stderr)
    return 1 if bad or unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
