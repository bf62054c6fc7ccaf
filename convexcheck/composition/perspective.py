"""Perspectives: t * G(u_1 / t, ..., u_k / t) with t > 0 and t, u_k affine.

The perspective of a convex function is convex (Boyd & Vandenberghe 3.2.6), of a concave
one concave, jointly in (u, t) on t > 0; composed with the affine maps u(x), t(x) it keeps
its curvature. `perspective` reads the pattern off a product t * F: every quotient u / t
in F (u times recip(t), t the same node) becomes a fresh variable z, and F must then read
no analysed variable at all, so that F = G(z) exactly; G is classified on its own
(`walk.classify`, the whole classifier: rules, Hessian, and its domain, whose
perspective is convex when it is).
Examples: t * log_sum_exp(x / t), y * exp(x / y), t * (-log(x / t)) (relative entropy).
"""
from __future__ import annotations

from convexcheck.composition import atoms
from convexcheck.composition.atoms import CONCAVE, CONVEX
from convexcheck.composition.verdict import Verdict, WalkView
from tensorcalc import dag
from tensorcalc.dag import Const, Elementwise, Expr, Product
from tensorcalc.graph import substitute

FRESH = "__z"


def perspective(walk: WalkView, node: Product, reading: list[int]) -> Verdict | None:
    """The curvature of `node` = t * F read as a perspective, or None (see the module)."""
    if len(node.args) != 2 or node.args[0] is node.args[1]:
        return None
    for k in reading:
        t, body = node.args[k], node.args[1 - k]
        if not _scalar_positive_affine(walk, t) or body.order != 0:
            continue
        found = _curvature(walk, t, body)
        if found is not None:
            return found
    return None


def _scalar_positive_affine(walk: WalkView, t: Expr) -> bool:
    return t.order == 0 and walk.child(t).curvature.affine and atoms.one_sided(walk.interval(t)) > 0


def _curvature(walk: WalkView, t: Expr, body: Expr) -> Verdict | None:
    quotients = {m: u for m in dag.topo(body) if (u := _over(m, t)) is not None}     # u / t -> u
    if not quotients or not all(walk.child(u).curvature.affine for u in quotients.values()):
        return None
    depth = sum(n.startswith(FRESH) for n in walk.names)      # a perspective inside G: new names
    fresh = {q: dag.var(f"{FRESH}{depth}_{k}", q.axes) for k, q in enumerate(quotients)}
    g = substitute(body, fresh)
    if set(dag.variables(g)) & walk.names or walk.classify is None:
        return None                          # F reads the variables other than through u / t
    present = dag.variables(g)
    cert = walk.classify(g, [present[v.name] for v in fresh.values() if v.name in present], walk.attributes,
                    walk.lengths, walk.deadline)
    if not (cert.convex or cert.concave):
        return None
    why = f"perspective t * G(u / t), t > 0 affine, of a {'convex' if cert.convex else 'concave'} G"
    return Verdict(CONVEX if cert.convex else CONCAVE, why, tuple(cert.rules))


def _over(m: Expr, t: Expr) -> Expr | None:
    """u where m is u * recip(t) entrywise (t scalar, or t broadcast over u's axes as
    t * ones), else None."""
    if not (isinstance(m, Product) and len(m.args) == 2):
        return None
    for k in (0, 1):
        r, u = m.args[k], m.args[1 - k]
        if not (isinstance(r, Elementwise) and r.fn == "recip") or m.spec.inputs[1 - k] != m.spec.out:
            continue
        b = r.args[0]
        if (b is t and m.spec.inputs[k] == "") or (_broadcast(b, t) and m.spec.inputs[k] == m.spec.out):
            return u
    return None


def _broadcast(b: Expr, t: Expr) -> bool:
    """Whether b is the scalar t times a constant array of ones (t over some axes)."""
    if not (isinstance(b, Product) and len(b.args) == 2 and t in b.args):
        return False
    k = b.args.index(t)
    ones = b.args[1 - k]
    return b.spec.inputs[k] == "" and b.spec.inputs[1 - k] == b.spec.out and isinstance(ones, Const) \
        and float(ones.value) == 1.0
