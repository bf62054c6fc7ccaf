"""Reports: the verdicts as a readable table and as JSON (`Report.to_dict`)."""
from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field

import numpy as np

from convexcheck.hessian.certificate import Certificate
from convexcheck.problem.model import Part, Problem
from convexcheck.witness.sampling import Evidence, Witness

VERDICTS = ("proven", "disproved", "unknown")
WIDTH = 100
# The sides a part's verdict reads, by what a convex problem needs of it (`Part.need`).
NEEDS = {"convex": ("convex",), "concave": ("concave",), "affine": ("convex", "concave"), "any": ("convex",)}


@dataclass
class Side:
    """One of `convex`/`concave` for one part: the status and how it was decided."""

    status: str
    proof: list[str] = field(default_factory=list)
    witness: Witness | None = None
    failures: list[str] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)


@dataclass
class PartReport:
    part: Part
    variables: list[str]
    convex: Side
    concave: Side
    certificate: Certificate | None = None
    evidence: Evidence | None = None
    inconsistencies: list[str] = field(default_factory=list)
    budget: str | None = None        # the step the analysis budget ran out on, if it did by the end of this part
    guarded_by: str | None = None    # the part of the same shape whose guard checked this part's proofs, if not its own

    def satisfies(self) -> str:
        """Whether the part is what a convex problem needs: 'yes', 'no' or 'unknown'."""
        sides = [getattr(self, kind) for kind in NEEDS[self.part.need]]
        if all(s.status == "proven" for s in sides):
            return "yes"
        if any(s.status == "disproved" for s in sides):
            return "no"
        return "unknown"

    def to_dict(self) -> dict:
        witness = self.convex.witness or self.concave.witness
        out = {"label": self.part.label, "text": self.part.text, "need": self.part.need,
               "variables": self.variables, "convex": self.convex.status, "concave": self.concave.status,
               "witness": witness.to_dict() if witness is not None else None,
               "witnesses": {k: s.witness.to_dict() for k, s in (("convex", self.convex), ("concave", self.concave))
                             if s.witness is not None},
               "proof": {k: s.proof for k, s in (("convex", self.convex), ("concave", self.concave)) if s.proof},
               "conditions": self.convex.conditions + self.concave.conditions,
               "failures": list(dict.fromkeys(self.convex.failures + self.concave.failures)),
               "internal_inconsistencies": list(self.inconsistencies), "budget_spent": self.budget,
               "guarded_by": self.guarded_by}
        if self.evidence is not None:
            out["evidence"] = {"samples": self.evidence.samples, "skipped": self.evidence.skipped,
                               "min_curvature": _num(self.evidence.min_curvature),
                               "max_curvature": _num(self.evidence.max_curvature)}
        return out


def _num(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


@dataclass
class Report:
    problem: Problem
    objective: PartReport
    constraints: list[PartReport]
    variables: dict[str, PartReport]
    settings: dict
    budget_spent: str | None = None     # the step the analysis budget ran out on; None if it did not

    @property
    def verdict(self) -> str:
        """'convex' when every part is what a convex problem needs, 'nonconvex' when a part
        is disproved to be, 'unknown' otherwise."""
        states = [p.satisfies() for p in (self.objective, *self.constraints)]
        if all(s == "yes" for s in states):
            return "convex"
        return "nonconvex" if "no" in states else "unknown"

    def to_dict(self) -> dict:
        return {"problem": self.verdict, "sense": self.problem.sense,
                "objective": self.objective.to_dict(),
                "constraints": [c.to_dict() for c in self.constraints],
                "variables": {n: {"convex": p.convex.status, "concave": p.concave.status}
                              for n, p in self.variables.items()},
                "settings": self.settings, "budget_spent": self.budget_spent}

    def to_text(self, width: int = WIDTH) -> str:
        """The verdicts as a table, each part followed by how it was decided (the proof's
        rule chain in words, conditions, witnesses, sampling evidence), within `width`
        columns. A variable's own row is left out when it is the only variable."""
        parts = [(p.part.label + (f" ({', '.join(p.variables)})" if p.variables else ""), p)
                 for p in (self.objective, *self.constraints)]
        parts += [(f"objective in {n} alone", p) for n, p in self.variables.items() if p is not self.objective]
        w = max(len(label) for label, _ in parts + [("part", None)])
        lines = [f"problem: {self.verdict}  ({self.problem.sense}"
                 f"{', ' + str(len(self.constraints)) + ' constraint(s)' if self.constraints else ''})", "",
                 f"{'part'.ljust(w)}  {'convex'.ljust(9)}  concave", f"{'-' * w}  {'-' * 9}  {'-' * 9}"]
        for label, p in parts:
            lines.append(f"{label.ljust(w)}  {p.convex.status.ljust(9)}  {p.concave.status}")
            lines += [_wrap(note, width) for note in _how(p)]
        if self.budget_spent:
            note = (f"budget spent on {self.budget_spent} (limit {self.settings['budget']:g} s): the remaining "
                    f"stages were skipped, and the sides they would have decided are unknown (--budget SECONDS "
                    f"allows more)")
            lines += ["", textwrap.fill(note, width)]
        return "\n".join(lines)


def _wrap(note: str, width: int) -> str:
    return textwrap.fill(note, width, initial_indent="    ", subsequent_indent="        ",
                         break_long_words=True, break_on_hyphens=False)


def _how(p: PartReport) -> list[str]:
    notes = [f"INTERNAL INCONSISTENCY (please report): {text}" for text in p.inconsistencies]
    for kind, side in (("convex", p.convex), ("concave", p.concave)):
        if side.status == "proven":
            notes.append(f"{kind}: " + "; ".join(side.proof[:3]))
        elif side.status == "disproved":
            notes.append(f"not {kind}: {_witness(side.witness, p.variables)}")
        notes += side.conditions
    if p.guarded_by:
        notes.append(f"guard: the proof was checked by sampling {p.guarded_by} (the same expression up to "
                     f"parameter names, declared alike)")
    if "unknown" in (p.convex.status, p.concave.status):
        if p.evidence is not None and p.evidence.samples:
            notes.append(f"{p.evidence.samples} points sampled, curvature in "
                         f"[{p.evidence.min_curvature:.3g}, {p.evidence.max_curvature:.3g}]")
        fails = list(dict.fromkeys(p.convex.failures + p.concave.failures))
        notes += [f"unknown: {f}" if f.startswith("budget spent") else f"no proof: {f}" for f in fails[:2]]
    return notes


def _witness(w, names: list[str]) -> str:
    where = ", ".join(f"{n} = {_array(w.point[n])}" for n in names if n in w.point)
    along = ", ".join(f"d{n} = {_array(w.direction[n])}" for n in names if n in w.direction)
    if w.chord:
        return (f"the chord from x - d to x + d, at {where}, {along}: f(x + d) + f(x - d) - 2 f(x) = "
                f"{w.second_difference:.3g} (extended precision: {w.curvature:.3g})")
    return (f"at {where}, along {along}: d^T H d = {w.curvature:.3g}, second difference "
            f"{w.second_difference:.3g}")


def _array(a, most: int = 4) -> str:
    flat = np.ravel(np.asarray(a, dtype=float))
    text = ", ".join(f"{v:.3g}" for v in flat[:most]) + (", ..." if flat.size > most else "")
    return text if np.ndim(a) == 0 else f"[{text}]"
