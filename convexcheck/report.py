"""Reports: the verdicts as a readable table and as JSON (`Report.to_dict`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .model import Part, Problem

VERDICTS = ("proven", "disproved", "unknown")


@dataclass
class Side:
    """One of `convex`/`concave` for one part: the status and how it was decided."""

    status: str
    proof: list[str] = field(default_factory=list)
    witness: object = None
    failures: list[str] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)


@dataclass
class PartReport:
    part: Part
    variables: list[str]
    convex: Side
    concave: Side
    certificate: object = None
    evidence: object = None

    def satisfies(self) -> str:
        """Whether the part is what a convex problem needs: 'yes', 'no' or 'unknown'."""
        need = self.part.need
        sides = {"convex": [self.convex], "concave": [self.concave],
                 "affine": [self.convex, self.concave], "any": [self.convex]}[need]
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
               "failures": list(dict.fromkeys(self.convex.failures + self.concave.failures))}
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
                "settings": self.settings}

    def to_text(self) -> str:
        rows = [(p.part.label + (f" ({', '.join(p.variables)})" if p.variables else ""),
                 p.convex.status, p.concave.status, _how(p))
                for p in (self.objective, *self.constraints)]
        rows += [(f"objective in {n} alone", p.convex.status, p.concave.status, _how(p))
                 for n, p in self.variables.items()]
        widths = [max(len(r[k]) for r in rows + [("part", "convex", "concave", "")]) for k in range(3)]
        lines = [f"problem: {self.verdict}  ({self.problem.sense}"
                 f"{', ' + str(len(self.constraints)) + ' constraint(s)' if self.constraints else ''})", ""]
        head = ("part", "convex", "concave", "how")
        lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths + [0])).rstrip())
        lines.append("  ".join("-" * w for w in widths + [30]))
        for r in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3])
        return "\n".join(lines)


def _how(p: PartReport) -> str:
    notes = []
    for kind, side in (("convex", p.convex), ("concave", p.concave)):
        if side.status == "proven":
            notes.append(f"{kind}: " + "; ".join(side.proof[:2]))
        elif side.status == "disproved":
            w = side.witness
            notes.append(f"not {kind}: witness, d^T H d = {w.curvature:.3g}, second difference {w.second_difference:.3g}")
        elif side.conditions:
            notes.append("; ".join(side.conditions))
    if p.convex.status == "unknown" or p.concave.status == "unknown":
        if p.evidence is not None:
            notes.append(f"{p.evidence.samples} points sampled, curvature in "
                         f"[{p.evidence.min_curvature:.3g}, {p.evidence.max_curvature:.3g}]")
        fails = list(dict.fromkeys(p.convex.failures + p.concave.failures))
        if fails:
            notes.append("no proof: " + fails[0])
    return " | ".join(notes)
