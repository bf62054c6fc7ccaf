"""Factor bookkeeping on monomials (`tensorcalc.algebra.monomials`) for the sign rules of
`signs.Signs`: the axes a monomial sums over, a node's monomials renamed onto the letters
where it occurs, and atoms divided out or taken out as a common factor. Letters 0..k-1
are a monomial's outputs; letters >= k are summed."""
from __future__ import annotations

from collections.abc import Iterable

from tensorcalc.algebra.monomials import Factor, Monomial, collect


def summed_axes(m: Monomial, k: int) -> dict:
    """The summed letters of a monomial (letters >= k) with the axis each one runs over."""
    return {c: f.node.axes[j] for f in m.factors for j, c in enumerate(f.letters) if c >= k}


def past(factors: Iterable[Factor], k: int) -> int:
    """A letter above every letter of `factors` and every output letter 0..k-1."""
    return 1 + max([k] + [c for f in factors for c in f.letters])


def on_letters(b: Monomial, letters: tuple[int, ...], start: int) -> Monomial:
    """A node's monomial (outputs 0..r-1) with its outputs renamed to `letters` and its
    summed letters c moved to start + c (start: past every letter the caller uses)."""
    rename = dict(enumerate(letters))
    return Monomial(b.coef, tuple(Factor(f.node, tuple(rename.get(c, start + c) for c in f.letters), f.power)
                                  for f in b.factors))


def divide(factors: list[Factor], by: tuple[Factor, ...], q: int, start: int) -> list[Factor] | None:
    """factors / by^q when every factor of `by` (on output letters only: none >= start)
    occurs with at least q times its power; None otherwise."""
    have = {(f.node, f.letters): f.power for f in factors}
    for g in by:
        if any(c >= start for c in g.letters):
            return None
        key = (g.node, g.letters)
        if key not in have or have[key] * g.power < 0 or abs(have[key]) < abs(g.power * q):
            return None
        have[key] -= g.power * q
    return [Factor(n, lt, p) for (n, lt), p in have.items() if p != 0.0]


def common_factor(monomials: list[Monomial], k: int) -> tuple[list[Factor], list[Monomial]]:
    """Atoms on output letters present in every monomial, at their least power, taken out."""
    shared = None
    for m in monomials:
        here = {(f.node, f.letters): f.power for f in m.factors if all(c < k for c in f.letters)}
        shared = here if shared is None else {key: min(p, here[key]) for key, p in shared.items() if key in here}
    common = [Factor(n, lt, p) for (n, lt), p in (shared or {}).items() if p != 0.0]
    if not common:
        return [], monomials
    take = {(f.node, f.letters): f.power for f in common}
    rest = []
    for m in monomials:
        fs = tuple(Factor(f.node, f.letters, f.power - take.get((f.node, f.letters), 0.0))
                   if all(c < k for c in f.letters) else f for f in m.factors)
        rest.append(Monomial(m.coef, tuple(f for f in fs if f.power != 0.0)))
    return common, collect(rest)
