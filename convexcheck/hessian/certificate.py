"""Symbolic convexity certificates from the Hessian quadratic form (Klaus et al. 2022).

`certify(expr, variables, attributes)` forms q(d) = d^T H d, the Hessian of `expr` in the
given variables jointly, contracted twice with a direction d (tensorcalc's forward mode
applied twice; an order-2p Hessian of a p-axis variable is read as a matrix over the
flattened axis groups). q is expanded into monomials over atoms (`tensorcalc.algebra.monomials`); each is
read as w(F) <u, K u> (`pairing`). Monomials with the same half u add their weights; a
group is PSD when its weight is >= 0 (`signs`) and its kernel PSD. Scalar halves d_a(F),
d_b(F) form a Gram matrix per F, PSD by its principal minors (the joint Hessians of x^2/y,
x log(x/y), y exp(x/y) are rank one). Cross terms between different halves through one
kernel (x' inv(Y) x: dx and dY inv(Y) x) are read by `kernels` into Gram blocks of the
same kind. A negative group c |sum_K p_K u_K|^2 is absorbed by a
positive group sum_K w_K |u_K|^2 when c sum_K p_K^2 / w_K <= 1 (the variance template
diag(z) - z z^T / sum z, by Cauchy-Schwarz; `variance`, which also reads a positive group
with a Kronecker kernel: det(X)^(1/n)). A sum of PSD groups is PSD.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from convexcheck.budget import NEVER, Deadline
from convexcheck.hessian.gram import rational_semidefinite, symbolic_semidefinite
from convexcheck.hessian.kernels import KernelKey, reread
from convexcheck.hessian.pairing import PairKey, ScalarKey, split
from convexcheck.hessian.variance import Group, absorbs, half_factors
from convexcheck.problem.model import Attributes
from convexcheck.signs.domain import Side, check_domain, domain_facts
from convexcheck.signs.signs import Interval, Signs
from tensorcalc import dag, simplify, to_text
from tensorcalc.algebra.monomials import Expander, Monomial, TooLarge, collect, multiply
from tensorcalc.dag import LETTERS, Axis, Expr, Gather, Product, Var
from tensorcalc.derivatives.forward import pushforward
from tensorcalc.disjoint import DisjointSets
from tensorcalc.memo import memoized

DIRECTION_PREFIX = "__d_"
MAX_GRAM = 2500         # products a 2x2 Gram determinant may expand to (w_a w_b - w_ab^2)


@dataclass
class Certificate:
    """`convex`/`concave`: proven for every admissible parameter and domain point.
    `rules`: what proved it; `failures`: the smallest pieces no rule could sign."""

    convex: bool = False
    concave: bool = False
    rules: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def quadratic_form(expr: Expr, variables: list[Var]) -> tuple[Expr, dict[str, Var]]:
    """q(d) = d^T H d: the second directional derivative along d = (d_x for x in variables)."""
    dirs = {v.name: dag.var(DIRECTION_PREFIX + v.name, v.axes) for v in variables}
    first = dag.add_all([pushforward(expr, v, dirs[v.name], simplify=False) for v in variables])
    second = dag.add_all([pushforward(first, v, dirs[v.name], simplify=False) for v in variables])
    return simplify(second), dirs


@memoized(maxsize=128)
def _expanded(expr: Expr, variables: tuple[Var, ...]) -> tuple[tuple[Monomial, ...], frozenset]:
    """The monomials of q(d) and the direction variables. They do not depend on attributes,
    so the certificates tried under extra assumptions ("convex if A is psd") share them."""
    q, dirs = quadratic_form(expr, list(variables))
    directions = frozenset(dirs.values()) | gathered(q, set(dirs.values()))
    return tuple(Expander(directions).expand(q)), directions


def gathered(q: Expr, directions: set) -> frozenset:
    """Gathers of a direction, G d: each is read as a direction of its own (a half u = G d).
    Sound: a form sum_F u(F)^T W(F) u(F) with W(F) PSD is >= 0 whatever values u takes,
    so also on the values G d takes (total variation: (G1 d - G2 d)^2 is a 2x2 Gram)."""
    return frozenset(n for n in dag.topo(q) if isinstance(n, Gather) and n.args[0] in directions)


def certify(expr: Expr, variables: list[Var], attributes: dict[str, Attributes],
            lengths: dict[Axis, int] | None = None, deadline: Deadline = NEVER) -> Certificate:
    """A certificate for the curvature of the scalar `expr` jointly in `variables`, valid
    for every parameter value the `attributes` admit. `lengths` gives the length of the
    axes whose dimension is a fixed integer; an axis not in it may have any positive length.
    `deadline` is checked before each stage (BudgetSpent: no certificate at all)."""
    lengths = dict(lengths or {})
    cert = Certificate()
    facts = domain_facts(expr)
    kink = _kink(expr, facts, variables, attributes, lengths)
    if kink:                          # no Hessian sign could stand: not worth forming it
        cert.failures.append(kink)
        return cert
    deadline.check("forming a Hessian")
    try:
        monomials, directions = _expanded(expr, tuple(variables))
    except TooLarge as err:
        cert.failures.append(f"the Hessian is not expanded: {err}")
        return cert
    if not monomials:
        cert.convex = cert.concave = True
        cert.rules.append("the Hessian is zero: affine")
        return cert
    deadline.check("reading a Hessian's terms")
    entries, failed = _entries(monomials, directions, attributes, deadline)
    cert.failures += [f"no rule reads the Hessian term {describe(m)}" for m in failed[:3]]
    if failed:
        return cert
    _Decider(entries, Signs(attributes, facts, lengths), cert, deadline).run()
    if cert.convex or cert.concave:
        _check_domain(expr, variables, attributes, cert, lengths, deadline)
    return cert


def axis_lengths(expr: Expr, dims: dict[str, tuple]) -> dict[Axis, int]:
    """The `lengths` argument of `certify`: every axis of a variable of `expr` whose declared
    dimension (`dims[name][k]`, a name or an int) is an integer, with that integer."""
    return {ax: d for name, var in dag.variables(expr).items() if name in dims
            for ax, d in zip(var.axes, dims[name]) if isinstance(d, int)}


KINKED = {"abs": False, "relu": False, "sign": True}   # fn -> must its argument also be nonzero


def _kink(expr: Expr, facts, variables: list[Var], attributes, lengths) -> str | None:
    """The Hessian does not see kinks: abs, relu and sign of an argument that reads the
    variables are certified only where the argument keeps one sign (abs and relu are linear
    on a closed half-line, sign is constant on an open one). Why no Hessian sign proves the
    curvature of `expr`, or None. It depends on the declarations alone, so `certify` asks
    before it forms the Hessian."""
    names = {v.name for v in variables}
    signs = Signs(attributes, facts, lengths)
    for node in dag.topo(expr):
        fn = getattr(node, "fn", None)
        if fn not in KINKED or not names & set(dag.variables(node.args[0])):
            continue
        iv = signs.node(node.args[0])
        if (iv.nonneg or iv.nonpos) and (not KINKED[fn] or _excludes_zero(iv)):
            continue
        return (f"{fn} has a kink where {to_text(node.args[0], limit=60)} = 0, which the "
                f"Hessian does not see (the argument is not shown to keep one sign)")
    return None


def _excludes_zero(iv: Interval) -> bool:
    return iv.nonzero or iv.lo > 0 or iv.hi < 0


def _positive_factors(arg: Expr, names: set, declared) -> list[Expr] | None:
    """The operands of a product without summed letters whose entries are the products of
    theirs, all >= 0 by the declarations; None otherwise."""
    if not isinstance(arg, Product) or set("".join(arg.spec.inputs)) != set(arg.spec.out):
        return None
    reading = [a for a in arg.args if names & set(dag.variables(a))]
    if not all(declared.node(a).nonneg for a in arg.args):
        return None
    return reading


def _check_domain(expr: Expr, variables: list[Var], attributes, cert: Certificate, lengths,
                  deadline: Deadline) -> None:
    """A Hessian sign proves curvature only on a convex domain (`signs.domain.check_domain`,
    the one rule; an argument is proven concave or convex by a certificate of its own).
    Otherwise the proof is withdrawn."""
    names = {v.name for v in variables}
    declared = Signs(attributes, None, lengths)    # what the declarations alone imply

    def prove(arg: Expr, side: Side) -> bool:
        deadline.check("a Hessian certificate's domain check")
        factors = _positive_factors(arg, names, declared)
        if factors and all(f.order == 0 and certify(f, [v for n, v in dag.variables(f).items() if n in names],
                                                     attributes, lengths, deadline).concave for f in factors):
            return True                  # {prod g_k > 0} = the intersection of {g_k > 0}, g_k concave
        weights = dag.var("__w", arg.axes)
        s = LETTERS[:arg.order]
        g = dag.contraction((weights, arg), (s, s, "")) if arg.order else arg
        present = dag.variables(g)
        sub = certify(g, [present[n] for n in names if n in present],
                      {**attributes, "__w": Attributes(lower=0.0)}, lengths, deadline)
        return bool(getattr(sub, side))

    gap = check_domain(expr, lambda arg: bool(names & set(dag.variables(arg))), declared.node, prove, interior=True).gap
    if gap is None:
        cert.rules.append("the domain (declared bounds and implicit domains) is convex")
        return
    cert.convex = cert.concave = False
    if gap.side is None:
        cert.failures.append(f"the domain where {to_text(gap.arg, limit=60)} != 0 is not shown convex "
                             f"(the argument is not shown to keep one sign)")
    else:
        cert.failures.append(f"the domain where {to_text(gap.arg, limit=60)} {'>' if gap.side == 'concave' else '<'}"
                             f" 0 is not shown convex (the argument is not shown {gap.side})")


def _entries(monomials, directions, attributes, deadline: Deadline = NEVER):
    """Weights by (half, other half); the F letters of a half are numbered the same way in
    every monomial with that half, so their weights add."""
    halves = [split(m, directions, attributes) for m in monomials]
    lifts = frozenset(k for h in halves if h is not None for k in (h.key, h.other)
                      if isinstance(k, ScalarKey) and k.lifted)
    if lifts:                        # squares read on the lifted halves the cross terms use
        halves = [split(m, directions, attributes, lifts) for m in monomials]
    if any(h is None for h in halves):   # cross terms of different halves through one kernel
        halves = reread(monomials, halves, directions, attributes, deadline)
    entries: dict[tuple, _Entry] = {}
    failed = []
    texts: dict = {}                 # a key's repr prints its nodes: once per key
    for m, half in zip(monomials, halves):
        if half is None:
            failed.append(m)
            continue
        a, b = sorted((half.key, half.other), key=lambda k: texts.get(k) or texts.setdefault(k, repr(k)))
        slot = entries.setdefault((a, b), _Entry(half.f))
        coef = half.weight.coef * half.sign * (0.5 if a != b else 1.0)
        slot.weights.append(Monomial(coef, half.weight.factors))
    return entries, failed


@dataclass
class _Entry:
    """The weights of one pair of halves, polynomials on their F letters 0..f-1."""

    f: int
    weights: list[Monomial] = field(default_factory=list)


class _Decider:
    """Signs every group: squares, Gram matrices of scalar halves, variance pairs."""

    def __init__(self, entries, signs: Signs, cert: Certificate, deadline: Deadline = NEVER):
        self.entries, self.signs, self.cert, self.deadline = entries, signs, cert, deadline
        self.psd, self.nsd = True, True

    def weight(self, a, b) -> list[Monomial]:
        slot = self.entries.get((a, b)) or self.entries.get((b, a))
        return collect(slot.weights) if slot else []

    def sign(self, monomials, f) -> Interval:
        return self.signs.polynomial(monomials, f)

    def run(self) -> None:
        keys = list(dict.fromkeys(k for pair in self.entries for k in pair))
        components = _components(keys, [p for p in self.entries if p[0] != p[1]])
        singles = {}
        for comp in components:
            self.deadline.check("signing a Hessian's groups")
            if len(comp) == 1:
                singles[comp[0]] = self.sign(self.weight(comp[0], comp[0]), self._f(comp[0]))
            else:
                self._gram(comp)
        self._variance(singles)
        for key, iv in singles.items():
            self._note(iv, f"the weight of {_text_key(key)} is {iv}")
        self.cert.convex, self.cert.concave = self.psd, self.nsd
        if self.psd or self.nsd:
            self.cert.failures.clear()

    def _f(self, key) -> int:
        return next(s.f for p, s in self.entries.items() if key in p)

    def _note(self, iv: Interval, text: str) -> None:
        self.psd &= iv.nonneg
        self.nsd &= iv.nonpos
        if iv.nonneg or iv.nonpos:
            self.cert.rules.append(text)
        else:
            self.cert.failures.append(text)

    def _gram(self, comp) -> None:
        if len(comp) != 2:
            if not self._constant_gram(comp):
                self._symbolic_gram(comp)
            return
        a, b = comp
        f = self._f(a)
        wa, wb, wab = self.weight(a, a), self.weight(b, b), self.weight(a, b)
        ia, ib = self.sign(wa, f), self.sign(wb, f)
        signed = ia.nonneg and ib.nonneg or ia.nonpos and ib.nonpos
        size = len(wa) * len(wb) + len(wab) ** 2
        if not signed or size > MAX_GRAM:       # the determinant cannot help, or is too large to expand
            self.psd = self.nsd = False
            why = "diagonal not signed alike" if not signed else f"determinant of {size} products not expanded"
            self.cert.failures.append(f"2x2 Gram block of {_text_key(a)}, {_text_key(b)}: "
                                      f"diagonal {ia}, {ib}; {why}")
            return
        products = [multiply(x, y, f) for x in wab for y in wab]
        det = collect([multiply(x, y, f) for x in wa for y in wb] +
                      [Monomial(-p.coef, p.factors) for p in products])
        idet = self.sign(det, f)
        ok = idet.nonneg
        self.psd &= ok and ia.nonneg and ib.nonneg
        self.nsd &= ok and ia.nonpos and ib.nonpos
        text = f"2x2 Gram block of {_text_key(a)}, {_text_key(b)}: diagonal {ia}, {ib}; determinant {idet}"
        (self.cert.rules if ok and (ia.nonneg and ib.nonneg or ia.nonpos and ib.nonpos) else
         self.cert.failures).append(text)

    def _constant_gram(self, comp) -> bool:
        """An n x n block w(F) C with one common weight w and constant C (the second
        difference x[i+2] - 2 x[i+1] + x[i]): C's sign decided exactly. False when the
        block is not of that form."""
        f = self._f(comp[0])
        common, rows = None, []
        for a in comp:
            row = []
            for b in comp:
                w = self.weight(a, b)
                if len(w) > 1 or (w and common is not None and w[0].factors != common):
                    return False
                common = w[0].factors if w else common
                row.append(Fraction(w[0].coef) if w else Fraction(0))
            rows.append(row)
        iw = self.sign([Monomial(1.0, common or ())], f)
        psd, nsd = rational_semidefinite(rows), rational_semidefinite([[-v for v in r] for r in rows])
        self.psd &= (psd and iw.nonneg) or (nsd and iw.nonpos)
        self.nsd &= (nsd and iw.nonneg) or (psd and iw.nonpos)
        names = ", ".join(_text_key(k) for k in comp)
        text = (f"{len(comp)}x{len(comp)} Gram block of {names} (common weight {iw}, "
                f"constant matrix {'PSD' if psd else 'NSD' if nsd else 'indefinite'})")
        (self.cert.rules if self.psd or self.nsd else self.cert.failures).append(text)
        return True

    def _symbolic_gram(self, comp) -> None:
        """An n x n block of polynomial weights: fraction-free elimination (`gram`)."""
        f = self._f(comp[0])
        rows = [[self.weight(a, b) for b in comp] for a in comp]
        negated = [[[Monomial(-m.coef, m.factors) for m in e] for e in r] for r in rows]
        psd = symbolic_semidefinite(rows, f, self.sign)
        nsd = not psd and symbolic_semidefinite(negated, f, self.sign)
        self.psd &= psd
        self.nsd &= nsd
        names = ", ".join(_text_key(k) for k in comp)
        text = (f"{len(comp)}x{len(comp)} Gram block of {names}: "
                f"{'PSD' if psd else 'NSD' if nsd else 'not shown semidefinite'} by fraction-free elimination")
        (self.cert.rules if psd or nsd else self.cert.failures).append(text)

    def _variance(self, singles: dict) -> None:
        """Absorb each negative square of a combination into a square (a PSD pair), and, in
        the concave direction, each positive one into a negative square (an NSD pair)."""
        for sign in (1, -1):
            def strictly(iv, s):
                return (iv.nonneg and not iv.nonpos) if s > 0 else (iv.nonpos and not iv.nonneg)
            for neg_key in [k for k, iv in singles.items() if strictly(iv, -sign)]:
                for pos_key in [k for k, iv in singles.items() if strictly(iv, sign)]:
                    bound = self._absorbs(pos_key, neg_key, sign)
                    if bound:
                        del singles[neg_key], singles[pos_key]
                        self.nsd &= sign < 0
                        self.psd &= sign > 0
                        self.cert.rules.append(
                            f"variance template (Cauchy-Schwarz, {'PSD' if sign > 0 else 'NSD'} pair): "
                            f"{bound} for the square of {_text_key(neg_key)} "
                            f"against the squares of {_text_key(pos_key)}")
                        break

    def _absorbs(self, pos_key, neg_key, sign: int = 1) -> str | None:
        """The variance template (`variance.absorbs`) on two square groups: its bound, or None."""
        pos, neg = (Group(k, self.weight(k, k), self._f(k)) for k in (pos_key, neg_key))
        return absorbs(pos, neg, self.sign, self.signs.attributes, sign)


def _components(keys: list, links: list[tuple]) -> list[list]:
    """The keys grouped by the links between them; groups in the order of their first
    key, keys in a group in their order in `keys`."""
    sets = DisjointSets(keys)
    for a, b in links:
        sets.merge(a, b)
    groups: dict = {}
    for k in keys:
        groups.setdefault(sets.find(k), []).append(k)
    return list(groups.values())


def describe(m: Monomial, limit: int = 160) -> str:
    """A monomial as text: coefficient and factors with their letters."""
    parts = [f"{m.coef:g}"] + [f"{to_text(f.node, limit=60)}[{','.join(map(str, f.letters))}]"
                               + ("" if f.power == 1 else f"^{f.power:g}") for f in m.factors]
    text = " * ".join(parts).replace(DIRECTION_PREFIX, "d")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _text_key(key) -> str:
    if isinstance(key, KernelKey):
        return key.text()
    factors = list(key.factors) if isinstance(key, PairKey) else half_factors(key) or []
    return " ".join(f"{to_text(n, limit=40)}" for n, _, _ in factors).replace(DIRECTION_PREFIX, "d")
