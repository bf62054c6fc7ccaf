"""`convexcheck.explain(problem)`: why CVXPY's DCP rejects a problem, and why convexcheck
nonetheless proves it (or does not).

For a CVXPY Problem or Expression, each part DCP rejects (the objective, a side of a
constraint) is shown with every smallest subexpression DCP rejects in it (itself not DCP,
its arguments DCP) and CVXPY's reason, read from CVXPY's own curvature and
monotonicity of the atom and its arguments (a product of two expressions with variables;
a concave increasing atom of a convex argument, ...), convexcheck's verdict on the part with
the chain of rules of its proof, and, where one exists, the DCP spelling of the same
function (`cp.logistic(u)` for log(1 + exp(u)), `cp.quad_over_lin(x, y)` for x^2 / y). The
whole problem's verdict comes first. `str(explanation)` is the text to print:

    >>> import cvxpy as cp, convexcheck
    >>> u = cp.Variable(name="u")
    >>> print(convexcheck.explain(cp.Problem(cp.Minimize(cp.log(1 + cp.exp(u))))))  # doctest: +NORMALIZE_WHITESPACE
    convexcheck: the problem is convex (proven); CVXPY's DCP rejects 1 part
    <BLANKLINE>
    the objective: log(1.0 + exp(u))
      CVXPY rejects log(1.0 + exp(u)): log is concave and increasing in its argument
        1.0 + exp(u), which is convex; DCP composes it only with a concave argument
      convexcheck: convex, proven: log-sum-exp of convex functions; the domain
        (declared bounds and implicit domains) is convex
      DCP spelling: cp.logistic(u)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from convexcheck.api import analyze
from convexcheck.spellings import spelling

SIDES = ("convex", "concave")


@dataclass(frozen=True)
class Rejection:
    """One part (the objective, a constraint's side) DCP rejects: each smallest
    subexpression DCP rejects with CVXPY's reason, convexcheck's verdict on the part and
    its proof, and the DCP spellings of its outermost rejected subexpressions that have one."""

    where: str
    expression: str
    rejected: tuple[tuple[str, str], ...]
    verdict: str
    rules: tuple[str, ...]
    spellings: tuple[str, ...]

    def lines(self) -> list[str]:
        proof = "; ".join(self.rules) if self.rules else "no rule proves it"
        out = [f"{self.where}: {self.expression}"]
        out += [f"  CVXPY rejects {sub}: {why}" for sub, why in self.rejected]
        out.append(f"  convexcheck: {self.verdict}: {proof}")
        return out + ([f"  DCP spelling: {'; '.join(self.spellings)}"] if self.spellings else [])


@dataclass(frozen=True)
class Explanation:
    """The problem's verdict and each rejected subexpression (`Rejection`)."""

    verdict: str
    status: str
    rejections: tuple[Rejection, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        count = len(self.rejections)
        head = (f"convexcheck: the problem is {self.verdict} ({self.status}); CVXPY's DCP "
                + (f"rejects {count} part{'s' if count != 1 else ''}" if count else "accepts it"))
        return "\n".join([head] + [line for r in self.rejections for line in ["", *r.lines()]])


def explain(problem: Any, samples: int = 10) -> Explanation:
    """The explanation of a CVXPY Problem or scalar Expression (see the module docstring)."""
    import cvxpy as cp
    report = analyze(problem, samples=samples)
    status = getattr(report.objective, "convex" if report.verdict != "concave" else "concave").status
    parts = [("the expression", problem)]
    if isinstance(problem, cp.Problem):
        parts = [("the objective", problem.objective.args[0])]
        parts += [(f"constraint {k}", a) for k, c in enumerate(problem.constraints, 1) for a in c.args]
    return Explanation(report.verdict, status, tuple(_rejection(where, e, samples) for where, e in parts
                                                     if not e.is_dcp()))


def _rejected(e: Any) -> list[Any]:
    """The smallest subexpressions of e that DCP rejects: not DCP, every argument DCP."""
    if e.is_dcp():
        return []
    inner = [r for a in e.args for r in _rejected(a)]
    return inner or [e]


def _rejection(where: str, e: Any, samples: int) -> Rejection:
    report = analyze(e, samples=samples)
    side = next((s for s in SIDES if getattr(report.objective, s).status == "proven"), None)
    verdict = f"{side}, proven" if side else f"{report.verdict}"
    cert = report.objective.certificate
    rules = tuple(cert.rules) if side and cert is not None else ()
    rejected = tuple((_shown(r), _reason(r)) for r in _rejected(e))
    return Rejection(where, _shown(e), rejected, verdict, rules, tuple(_spelled(e)))


def _spelled(e: Any) -> list[str]:
    """The DCP spellings of the outermost rejected subexpressions of e that have one."""
    if e.is_dcp():
        return []
    found = spelling(e)
    return [found] if found is not None else [f for a in e.args for f in _spelled(a)]


def _reason(e: Any) -> str:
    """CVXPY's reason for rejecting e (its arguments DCP), from CVXPY's own curvature and
    monotonicity of the atom and its arguments."""
    kind = type(e).__name__
    if kind in ("multiply", "MulExpression") and all(a.variables() for a in e.args):
        return "a product of two expressions that both read variables; DCP multiplies by constants only"
    if kind == "DivExpression" and e.args[1].variables():
        return "a division by an expression that reads variables; DCP divides by constants only"
    atom = _curvature(e.is_atom_convex(), e.is_atom_concave())
    for i, a in enumerate(e.args):
        if a.is_affine():
            continue
        mono = "increasing" if e.is_incr(i) else "decreasing" if e.is_decr(i) else "not monotone"
        need = _needed(atom, mono)
        arg = _curvature(a.is_convex(), a.is_concave())
        if arg != need:
            return (f"{_name(e)} is {atom} and {mono} in its argument {_shown(a)}, which is {arg}; "
                    f"DCP composes it only with {'an' if need == 'affine' else 'a'} {need} argument")
    return f"{_name(e)} is {atom}, and the objective or constraint needs the other curvature"


def _needed(atom: str, mono: str) -> str:
    if mono == "not monotone" or atom not in SIDES:
        return "affine"
    return atom if mono == "increasing" else SIDES[1 - SIDES.index(atom)]


def _curvature(convex: bool, concave: bool) -> str:
    if convex or concave:
        return "affine" if convex and concave else "convex" if convex else "concave"
    return "neither convex nor concave"


def _name(e: Any) -> str:
    return {"PowerApprox": "power", "Power": "power"}.get(type(e).__name__, type(e).__name__)


def _shown(e: Any, limit: int = 80) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
