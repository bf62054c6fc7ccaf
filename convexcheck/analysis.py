"""The main job: verdicts for every part of a problem (rules -> certificate -> sampling -> report).

For each part (objective, constraints) jointly in its variables, and for the objective in
each variable alone, `convex` and `concave` are each `proven` (a symbolic certificate),
`disproved` (a witness verified by second differences), or `unknown` (with the sampling
evidence). Where a proof needs one more attribute on a parameter (A psd, c nonneg), the
verdict says so ("convex if A is psd").

The analysis has a work budget (`Budget`, 60 s of wall clock by default), checked at the
natural step boundaries (`budget`): once it is spent, the remaining stages are skipped and
each side not yet decided is `unknown` with the reason "budget spent on <the step>";
sides already proven or disproved keep their verdicts, and no proof comes from
unfinished work. `progress` shows a bar over the parts when the analysis takes more than
a second.

Parts of one shape (`problem.shapes`: the same expression up to parameter names, every
name declared alike; 500 norm constraints, one point each) share one certificate and its
conditions (a proof reads declared attributes, never data), and one compiled Hessian for
sampling. The guard samples the proven sides of the first GUARD_MEMBERS of them (its
representatives, named in `PartReport.guarded_by` of the others); a proof it withdraws
is withdrawn for the whole shape. An affine part (degree at most 1 in its variables:
`tensorcalc.algebra.degree`, an exact reading of the expression, no composition rule) is
certified "affine" by that reading alone and, with nothing for the guard to check, not
sampled (2,000 dynamics rows of a Kalman smoother: 6 s of sampling, 7 s of walks). A side
left unproven is searched on every part, at its own data (a witness is data-specific).
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import tensorcalc as tc
from convexcheck.budget import Budget, BudgetSpent, Deadline
from convexcheck.composition.classify import classify
from convexcheck.hessian.certificate import Certificate, axis_lengths
from convexcheck.problem import entrywise
from convexcheck.problem.admissible import check_sizes
from convexcheck.problem.data import check_data, check_dims, data_dims
from convexcheck.problem.model import Attributes, Declaration, Part, Problem
from convexcheck.problem.reader import ProblemError, load_problem
from convexcheck.problem.shapes import Shape, shape_of
from convexcheck.report import NEEDS, PartReport, Report, Side
from convexcheck.witness.chords import chord_witnesses, kinked
from convexcheck.witness.sampling import GUARD_FLOOR, GUARD_TOLERANCE, KINDS, progress_bar, search
from tensorcalc.algebra.degree import degree
from tensorcalc.memo import memoized

MAX_ASSUMPTIONS = 8
GUARD_SAMPLES = 5        # points sampled for a part whose both sides are proven (the guard's check)
GUARD_MEMBERS = 2        # parts of one shape whose proven sides the guard checks (its representatives)


@dataclass(frozen=True)
class _Run:
    """One analysis' settings and its deadline (the run state the steps consult)."""

    samples: int
    seed: int
    sizes: dict
    fixed: dict
    progress: bool
    deadline: Deadline
    verdict_only: bool = False
    shapes: dict = dataclasses.field(default_factory=dict)   # (shape key, variables) -> its _Shared


@dataclass
class _Shared:
    """What the parts of one shape share (`problem.shapes`): the certificate and conditions,
    with canonical parameter names, and the labels of the parts seen so far. Parts run the
    guard of their own until GUARD_MEMBERS of them have sampled points for it (`guards`,
    the representatives); the guard of these checks the proof for all the others, and a
    proof it withdraws (`withdrawn`: kind -> why) is withdrawn for all that follow."""

    cert: Certificate
    conditions: list[tuple[str, str, str]]          # (kind, canonical parameter, attribute text)
    members: list[str] = dataclasses.field(default_factory=list)
    guards: list[str] = dataclasses.field(default_factory=list)    # parts whose own guard sampled points
    withdrawn: dict[str, str] = dataclasses.field(default_factory=dict)


def analyze(problem: Problem | str | os.PathLike, data: Mapping[str, Any] | None = None, *, samples: int = 20,
            seed: int = 0, dims: dict[str, int] | None = None, progress: bool = False,
            budget: Budget | float = Budget(), verdict_only: bool = False) -> Report:
    """Analyse a problem (a Problem, a file path, or problem text); see the module docstring.
    (`convexcheck.analyze`, the public entry, also takes CVXPY objects.)

    `samples`: points sampled per part when no proof settles a side; `seed` makes the
    sampling deterministic; `dims` sets named dimension lengths used for sampling. `data`
    gives parameters fixed values (arrays by name; they must satisfy the declared
    attributes, which is all a proof uses): witnesses are then sought at those values,
    and named dimensions take the lengths the arrays have. A Dask array is read for its
    dtype and shape only, never computed: the verdict rests on the declared attributes
    (the solvers check them on the workers), and sampling draws values of its own.
    `budget`: a `Budget`, or its seconds (math.inf: no limit); see the module docstring.
    `verdict_only` (what the solvers ask for): witnesses are searched only for the sides
    the verdict reads (`report.NEEDS`: the convex side of a minimised objective, ...) and
    the objective is not analysed in each variable alone; `Report.verdict` is the same,
    the other sides may stay unknown (the guard still checks every proof)."""
    budget = budget if isinstance(budget, Budget) else Budget(budget)
    if not isinstance(problem, Problem):
        problem = load_problem(problem)
    fixed = check_data(problem, data or {})
    dims = check_dims(problem, {**data_dims(problem, fixed), **(dims or {})})
    run = _Run(samples, seed, dims, fixed, progress, budget.start(), verdict_only)
    scalar = entrywise.scalar_problem(problem)          # constraints of any order, entry by entry
    declared = tuple(problem.variables)                 # a dict per access: read once
    names = _names(declared, problem.objective.expr)
    joint = [_names(declared, part.expr) for part in scalar.parts]
    own = [] if verdict_only else [n for n in names if joint[0] != [n]]   # else the joint analysis is it
    with progress_bar(progress, len(scalar.parts) + len(own), desc="analysis", unit="part") as bar:
        parts = [_part(scalar, part, found, run, bar) for part, found in zip(scalar.parts, joint)]
        alone = {n: _part(problem, problem.objective, [n], run, bar) for n in own}
    variables = {n: alone.get(n, parts[0]) for n in names}
    settings = dict(samples=samples, seed=seed, dims=dims, budget=budget.seconds if budget.limited else None)
    return Report(problem, parts[0], parts[1:], variables, settings, run.deadline.spent)


def _names(declared: tuple[str, ...], expr) -> list[str]:
    """The declared variables (not parameters) the expression reads, in declaration order."""
    present = tc.variables(expr)
    return [n for n in declared if n in present]


def _part(problem: Problem, part: Part, names: list[str], run: _Run, bar) -> PartReport:
    """The verdicts of one part: certificate, conditions, sampling, chords, guard. A budget
    spent in the certificate leaves no proof; in sampling, the witnesses verified so far.
    The certificate and conditions are shared by the parts of one shape (`_proof`); the
    guard samples the proven sides of the first GUARD_MEMBERS of them only, and every
    side left unproven is searched for a witness of its own (a witness is data-specific)."""
    deadline = run.deadline
    deadline.where = f"{part.label} ({', '.join(names)})" if names else part.label
    bar.set_postfix_str(deadline.where[:40], refresh=False)
    try:
        cert, conditions, shared = _proof(problem, part, names, run) if names else \
            (Certificate(True, True, ["no variable occurs: constant"]), [], None)
    except BudgetSpent as spent:
        bar.update(1)
        convex, concave = (_side(k, Certificate(), None, [], spent.stage) for k in KINDS)
        return PartReport(part, names, convex, concave, budget=spent.stage)
    read = NEEDS[part.need] if run.verdict_only else KINDS
    want = tuple(side for side, done in (("convex", cert.convex), ("concave", cert.concave))
                 if not done and side in read)
    guarded_by = shared.guards[0] if shared and len(shared.guards) >= GUARD_MEMBERS and len(want) < 2 else None
    exact = not want and degree(part.expr, tuple(names)) <= 1       # affine: no rule to guard
    evidence = _evidence(problem, part, names, want, guarded_by is None and not exact, run)
    inconsistencies = _guard(cert, evidence)
    if shared is not None and guarded_by is None and len(want) < 2 and evidence is not None and evidence.samples:
        shared.guards.append(part.label)
    if shared is not None:
        shared.withdrawn.update({k: f"{why} (on {part.label}, of the same shape)"
                                 for k, why in inconsistencies.items()})
    convex, concave = (_side(kind, cert, None if kind in inconsistencies else evidence, conditions, deadline.spent)
                       for kind in KINDS)
    bar.update(1)
    return PartReport(part, names, convex, concave, cert, evidence, list(inconsistencies.values()), deadline.spent,
                      guarded_by)


def _proof(problem: Problem, part: Part, names: list[str], run: _Run) -> tuple[Certificate, list, _Shared | None]:
    """The certificate and conditions of `part` in `names`, computed once per shape
    (`shape_of`: the same expression up to parameter names, with the same declarations) and
    read with the part's own names; the `_Shared` record of its shape (None: shares none).
    A proof the guard withdrew on a representative is withdrawn here too."""
    if degree(part.expr, tuple(names)) <= 1:      # affine, exactly: nothing to share (no shape read)
        return _certificate(problem, part, names, {}, run.deadline), [], None
    shape = shape_of(problem, part.expr)
    key = (shape.key, tuple(names)) if shape.key is not None else None
    shared = run.shapes.get(key) if key is not None else None
    if shared is None:
        canonical = dataclasses.replace(problem, declarations=shape.declarations)
        attributes = {n: d.attributes for n, d in shape.declarations.items()}
        cert = _certificate(canonical, dataclasses.replace(part, expr=shape.expr), names, attributes, run.deadline)
        shared = _Shared(cert, _conditions(canonical, shape, names, cert, run.deadline))
        if key is not None:
            run.shapes[key] = shared
    shared.members.append(part.label)
    cert = _named(shared.cert, shape)
    for kind, text in shared.withdrawn.items():
        setattr(cert, kind, False)
        cert.failures.insert(0, text)
    conditions = [(kind, f"{kind} if {shape.names.get(name, name)} is {text}")
                  for kind, name, text in shared.conditions]
    return cert, conditions, shared if key is not None else None


def _named(cert: Certificate, shape: Shape) -> Certificate:
    """A copy of a shared certificate (the guard may change it) in the part's own names."""
    return Certificate(cert.convex, cert.concave, [shape.named(r) for r in cert.rules],
                       [shape.named(f) for f in cert.failures])


def _local(problem: Problem, expr, fixed: dict[str, np.ndarray]) -> tuple[Problem, dict[str, np.ndarray]]:
    """The problem and data the sampling of `expr` needs: the declarations it reads (in
    their order) and their given values. The names it does not read change nothing of its
    values, so it neither draws nor holds them: sampling 500 parts of a problem with 500
    parameters costs 500 times one part, not 500 times 500 (its witnesses' points then
    hold the names the part reads, and `_with_data` adds the given data back)."""
    present = tc.variables(expr)
    if len(present) == len(problem.declarations):
        return problem, fixed
    at = _positions(problem.declarations)
    kept = {n: problem.declarations[n] for n in sorted((n for n in present if n in at), key=at.__getitem__)}
    return dataclasses.replace(problem, declarations=kept), {n: fixed[n] for n in kept if n in fixed}


@memoized(maxsize=8)
def _positions(declarations) -> dict[str, int]:
    """Each declared name's place in the declarations (parts of 2,000 declarations read
    theirs without a pass over all of them)."""
    return {name: k for k, name in enumerate(declarations)}


def _evidence(problem: Problem, part: Part, names: list[str], want: tuple[str, ...], own_guard: bool, run: _Run):
    """Sampling and chords for one part: witnesses of the sides in `want`, and with
    `own_guard` the guard's points for its proven sides; None where nothing is sampled
    (or the budget was spent before the first point). A part of a shape is sampled in
    its canonical form (`shape_of`: the same points, drawn from the same declarations), so
    its compiled Hessian is built once per shape; its witnesses are read back in its own
    names, their points with every given parameter value. Errors name the part's own
    declarations: sizes are checked in its own names first, and a declaration no value
    can be drawn for is sampled again in them to say so."""
    samples = run.samples if want else min(run.samples, GUARD_SAMPLES) if own_guard else 0
    if not names:
        return None
    local, fixed = _local(problem, part.expr, run.fixed)
    check_sizes(local, run.sizes, fixed)             # sampled or not, a size no array can have is named
    if not samples:
        return None
    shape = shape_of(problem, part.expr)
    forms: list[tuple[Any, Problem, dict, dict]] = [(part.expr, local, fixed, {})]
    if shape.key is not None:
        own = {old: new for new, old in shape.names.items()}
        given = {own.get(n, n): v for n, v in fixed.items()}
        forms.insert(0, (shape.expr, dataclasses.replace(problem, declarations=shape.declarations), given, shape.names))
    guard = GUARD_SAMPLES if own_guard and len(want) < 2 else 0
    for k, (expr, sampled, given, back) in enumerate(forms):
        try:
            evidence = search(expr, sampled, names, samples=samples, seed=run.seed, sizes=run.sizes, want=want,
                              progress=run.progress, fixed=given, guard=guard, deadline=run.deadline)
            evidence = _with_chords(expr, sampled, names, evidence, want, run, given, own_guard)
        except BudgetSpent:
            return None                             # spent before the first point: nothing seen
        except ProblemError:
            if k + 1 == len(forms):
                raise
            continue                                # say it in the part's own names
        return _with_data(evidence, run.fixed, back)
    raise AssertionError("unreachable: the last form returns or raises")


def _with_data(evidence, fixed: dict[str, np.ndarray], back: dict[str, str]):
    """`evidence` whose witnesses' points are in the part's own names (`back`: canonical
    name -> own) and hold every given parameter value again (`_local` sampled without
    those the part does not read)."""
    if evidence is None or not (fixed or back):
        return evidence
    found = {f"{k}_witness": dataclasses.replace(w, point={**fixed, **{back.get(n, n): v for n, v in w.point.items()}})
             for k in KINDS if (w := getattr(evidence, f"{k}_witness")) is not None}
    return dataclasses.replace(evidence, **found) if found else evidence


def _with_chords(expr, problem: Problem, names: list[str], evidence, want, run: _Run, fixed, guard: bool = True):
    """`evidence` with chord witnesses (`chords`) for the kinds the Hessian search left
    without one: the wanted kinds (from `samples` pairs) and, as the guard's check of a
    proof of a function with kinks (whose Hessian the guard cannot trust to show wrong
    curvature), the proven ones (from GUARD_SAMPLES pairs) where `guard`."""
    if evidence is None or not evidence.samples:
        return evidence
    seek = [k for k in KINDS if getattr(evidence, f"{k}_witness") is None and (k in want or guard and kinked(expr))]
    if not seek:
        return evidence
    pairs = run.samples if any(k in want for k in seek) else GUARD_SAMPLES
    found = chord_witnesses(expr, problem, names, seek, pairs=pairs, seed=run.seed,
                            sizes=run.sizes, fixed=fixed, deadline=run.deadline)
    return dataclasses.replace(evidence, **{f"{k}_witness": w for k, w in found.items()}) if found else evidence


def _certificate(problem: Problem, part: Part, names: list[str], attributes, deadline: Deadline) -> Certificate:
    if degree(part.expr, tuple(names)) <= 1:     # exact: no function of a variable, so no domain either
        deadline.check("the composition walk (an affine part)")
        return Certificate(True, True, ["affine"])
    present = tc.variables(part.expr)
    dims = {n: d.dims for n, d in problem.declarations.items()}
    return classify(part.expr, [present[n] for n in names], attributes, axis_lengths(part.expr, dims), deadline)


def _guard(cert: Certificate, evidence) -> dict[str, str]:
    """Withdraw every proof that the sampled curvature or a verified second difference
    contradicts (an internal inconsistency: a bug to report, never a verdict to trust).
    Where every sampled curvature is below GUARD_FLOOR in size (an affine function's Hessian
    is rounding noise, e.g. -9e-16), only a verified second difference withdraws a proof."""
    if evidence is None or not evidence.samples:
        return {}
    scale = max(abs(evidence.min_curvature), abs(evidence.max_curvature), 1e-300)
    found = {}
    for kind, curvature, witness in (("convex", evidence.min_curvature, evidence.convex_witness),
                                     ("concave", -evidence.max_curvature, evidence.concave_witness)):
        sampled = scale > GUARD_FLOOR and curvature < -GUARD_TOLERANCE * scale
        if getattr(cert, kind) and (witness is not None or sampled):
            setattr(cert, kind, False)
            found[kind] = (f"internal inconsistency: the {kind} proof is contradicted by sampling (curvature "
                           f"{evidence.min_curvature:.3g} .. {evidence.max_curvature:.3g}"
                           f"{', a verified witness' if witness is not None else ''}); proof withdrawn")
    cert.failures[:0] = list(found.values())
    return found


def _side(kind: str, cert: Certificate, evidence, conditions, spent: str | None = None) -> Side:
    """One side's verdict from a finished certificate (a proof) or a verified witness;
    otherwise unknown, first naming the spent budget if it cut the work short."""
    if getattr(cert, kind):
        return Side("proven", proof=list(cert.rules))
    witness = getattr(evidence, f"{kind}_witness", None) if evidence is not None else None
    if witness is not None:
        return Side("disproved", witness=witness, conditions=[c for k, c in conditions if k == kind])
    return Side("unknown", failures=[f"budget spent on {spent}"] * bool(spent) + list(cert.failures),
                conditions=[c for k, c in conditions if k == kind])


def _conditions(problem: Problem, shape: Shape, names: list[str], cert: Certificate,
                deadline: Deadline) -> list[tuple[str, str, str]]:
    """Single extra attributes on parameters under which a missing proof goes through
    (those of the trials finished within the budget), as (kind, parameter, attribute),
    for `shape.expr` whose declarations `problem` holds."""
    if cert.convex and cert.concave:
        return []
    part = Part("", "", shape.expr, "any")
    found = []
    for name, extra, text in _assumptions(shape.declarations)[:MAX_ASSUMPTIONS]:
        attrs = {n: d.attributes for n, d in shape.declarations.items()}
        attrs[name] = extra
        try:
            trial = _certificate(problem, part, names, attrs, deadline)
        except BudgetSpent:
            break
        for kind in ("convex", "concave"):
            if getattr(trial, kind) and not getattr(cert, kind):
                found.append((kind, name, text))
    return found


def _assumptions(declarations: Mapping[str, Declaration]) -> list[tuple[str, Attributes, str]]:
    """The single extra attributes tried, for the parameters in declaration order."""
    out = []
    for name, decl in declarations.items():
        a = decl.attributes
        if decl.kind != "parameter":
            continue
        if len(decl.dims) == 2 and decl.dims[0] == decl.dims[1] and a.definite is None:
            out += [(name, dataclasses.replace(a, definite=d), d) for d in ("psd", "nsd")]
        elif a.lower is None and a.upper is None:
            out += [(name, dataclasses.replace(a, lower=0.0), "nonneg"),
                    (name, dataclasses.replace(a, upper=0.0), "nonpos")]
    return out
