"""Monomials of a Hessian form read as  w(F) <u(F), K v(F)>  with two different halves.

`pairing` reads a monomial through an involution that swaps its two direction factors, so
both halves are the same vector. Joint Hessians also hold cross terms between different
vectors through one kernel: x' inv(Y) x has

    2 dx' K dx - 4 dx' K (dY K x) + 2 (dY K x)' K (dY K x),   K = inv(Y),

that is 2 (u - v)' K (u - v) with u = dx, v = dY K x. Here a monomial's factors are split
into the half u (holding one direction factor), the half v (holding the other), the kernel
(2-letter PSD or NSD factors, each joining a letter of u to a letter of v, no two on a
different pair of letters sharing one: a Kronecker product of Schur products) and the
weight w (factors on letters F that u and v share, and letters of their own). Each half
gets a key that is a complete description of the tensor it denotes and of the kernel at
its ports, canonical up to renaming letters and transposing symmetric matrices, so equal
keys mean equal vectors. Monomials then add up to a Gram block  sum_ab W_ab(F) <h_a, K h_b>,
PSD where [W_ab(F)] is PSD for every F (the block is W (x) K, K PSD); `certificate` decides
the block.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, NamedTuple

from convexcheck.budget import NEVER, Deadline
from convexcheck.hessian.pairing import Half, kernel_sign, symmetric_node
from convexcheck.problem.model import Attributes
from tensorcalc import to_text
from tensorcalc.algebra.monomials import Factor, Monomial, canonical
from tensorcalc.dag import Expr
from tensorcalc.disjoint import DisjointSets
from tensorcalc.graph import digest

MAX_CANDIDATES = 10             # kernel factors a monomial may offer
MAX_LETTERS = 12                # letters a monomial may offer as F letters
MAX_LEVEL = 4                   # kernel factors and extra F letters one reading may use
MAX_TRIES = 1000                # readings tried per monomial
MAX_ORIENTATIONS = 64           # transposes of symmetric factors tried per half


@dataclass(frozen=True)
class Port:
    """Letter of a half that the kernel joins to port `index` of the other half."""

    index: int


class Kernel(NamedTuple):
    """One kernel factor at a port: its matrix and (Schur) power."""

    node: Expr
    power: float


class KernelKey(NamedTuple):
    """A half u(F, P): `half` its factors, on F letters 0..f-1, the ports Port(k) and its
    own summed letters f, f+1, ...; `kernel[k]` the kernel factors at port k (a Schur
    product; the ports' kernels multiply as a Kronecker product); `f` the number of F letters."""

    half: tuple[Factor, ...]
    kernel: tuple[tuple[Kernel, ...], ...]
    f: int

    def text(self) -> str:
        names = " ".join(to_text(g.node, limit=40) for g in self.half).replace("__d_", "d")
        kernels = " (x) ".join("*".join(to_text(k.node, limit=30) for k in group) for group in self.kernel)
        return f"{names} through {kernels}" if kernels else names


class _Split(NamedTuple):
    """One reading: the factors of each half, the kernel pairs (u letter, v letter) -> the
    kernel factors on them, the weight's factors, and the F letters."""

    u: list
    v: list
    pairs: dict
    weight: list
    shared: frozenset


def reread(monomials: list[Monomial], halves: list, directions: frozenset,
           attributes: dict[str, Attributes], deadline: Deadline = NEVER) -> list:
    """`halves` (pairing's, None where it read nothing) with the kernel readings put in:
    one for each monomial pairing did not read, and one for each monomial it did read
    that has a reading with a key those use (so cross terms meet their squares). Readings
    whose halves are equal are preferred, then those whose halves both occur squared.
    `halves` unchanged when some monomial has no reading at all. `deadline`: checked
    before each monomial's readings (each may try many orientations)."""
    def readings(m):
        deadline.check("reading a Hessian's cross terms through kernels")
        return _readings(m, directions, attributes)
    unread: dict[int, list[Half]] = {}
    for i in (i for i, h in enumerate(halves) if h is None):
        unread[i] = readings(monomials[i])
        if not unread[i]:
            return halves                  # a monomial nothing reads: nothing to gain
    options = [unread[i] if i in unread else readings(m) for i, m in enumerate(monomials)]
    squares = {r.key for o in options for r in o if r.key == r.other}

    def best(found):
        return min(found, key=lambda r: (r.key != r.other, not {r.key, r.other} <= squares))
    chosen = [best(o) if h is None else h for h, o in zip(halves, options)]
    needed = {k for h, c in zip(halves, chosen) if h is None for k in (c.key, c.other)}
    for i, (h, found) in enumerate(zip(halves, options)):
        useful = [r for r in found if {r.key, r.other} & needed]
        if h is not None and useful:
            chosen[i] = best(useful)
    return chosen


def _readings(m: Monomial, directions: frozenset, attributes) -> list[Half]:
    """Every kernel reading of `m` with the fewest kernel factors and F letters beyond
    those both direction factors carry (none: no reading)."""
    where = [i for i, g in enumerate(m.factors) if g.node in directions]
    if len(where) != 2 or any(m.factors[i].power != 1.0 for i in where):
        return []
    d1, d2 = (m.factors[i] for i in where)
    rest = [g for i, g in enumerate(m.factors) if i not in where]
    forced = frozenset(d1.letters) & frozenset(d2.letters)
    count: dict = {}
    for g in m.factors:
        for c in set(g.letters) - forced:
            count[c] = count.get(c, 0) + 1
    letters = sorted(c for c, n in count.items() if n >= 2)      # a letter of one factor is summed in it
    kernels = [i for i, g in enumerate(rest) if len(set(g.letters)) == 2 and not forced & set(g.letters)
               and kernel_sign(g, attributes) is not None]
    if len(kernels) > MAX_CANDIDATES or len(letters) > MAX_LETTERS:
        return []
    tried = 0
    for level in range(MAX_LEVEL + 1):
        found: list[Half] = []
        for extra, chosen in _choices(letters, kernels, rest, level):
            tried += 1
            if tried > MAX_TRIES:
                return found
            split = _split(d1, d2, rest, set(chosen), forced | frozenset(extra))
            half = split and _half(m.coef, split, attributes)
            if half is not None:
                found.append(half)
        if found:
            return found
    return []


def _choices(letters: list, kernels: list, rest: list[Factor], level: int):
    """(extra F letters, kernel factor indices) with `level` of them in all; a kernel
    factor reads no F letter."""
    for nf in range(level + 1):
        for extra in itertools.combinations(letters, nf):
            free = [i for i in kernels if not set(extra) & set(rest[i].letters)]
            for chosen in itertools.combinations(free, level - nf):
                yield extra, chosen


def _split(d1: Factor, d2: Factor, rest: list[Factor], kernel: set, shared: frozenset) -> _Split | None:
    """The reading with the factors `kernel` (indices into `rest`) as the kernel: u and v
    are the factors joined to d1 and d2 by letters outside F; None when the kernel does
    not separate them into a Kronecker product of Schur products."""
    factors = [d1, d2] + [g for i, g in enumerate(rest) if i not in kernel]
    part = _components(factors, shared)
    if part[0] == part[1]:
        return None
    for c in shared:                          # an F letter is read by both halves
        if not all(any(c in g.letters for j, g in enumerate(factors) if part[j] == p) for p in part[:2]):
            return None
    side = {c: part[j] for j, g in enumerate(factors) for c in g.letters if c not in shared}
    pairs: dict = {}
    for i in sorted(kernel):
        g = rest[i]
        a, b = g.letters
        if side.get(a) == part[1] and side.get(b) == part[0]:
            a, b = b, a
        if side.get(a) != part[0] or side.get(b) != part[1]:
            return None                       # a kernel factor joins u to v, nothing else
        pairs.setdefault((a, b), []).append(g)
    lefts, rights = [a for a, _ in pairs], [b for _, b in pairs]
    if len(set(lefts)) != len(lefts) or len(set(rights)) != len(rights):
        return None                           # a letter in two kernel factors on different pairs
    u = [g for j, g in enumerate(factors) if part[j] == part[0]]
    v = [g for j, g in enumerate(factors) if part[j] == part[1]]
    weight = [g for j, g in enumerate(factors) if part[j] not in (part[0], part[1])]
    return _Split(u, v, pairs, weight, shared)


def _components(factors: list[Factor], shared: frozenset) -> list[int]:
    """A component number per factor: factors sharing a letter outside `shared` are joined."""
    sets = DisjointSets(range(len(factors)))
    first: dict = {}
    for j, g in enumerate(factors):
        for c in g.letters:
            if c in shared:
                continue
            if c in first:
                sets.merge(j, first[c])
            else:
                first[c] = j
    return [sets.find(j) for j in range(len(factors))]


def _half(coef: float, split: _Split, attributes) -> Half | None:
    """The Half record of a reading: canonical keys of u and v with their ports numbered
    alike (port k of u meets port k of v through the kernel) and F numbered alike."""
    groups = {pair: _group(fs) for pair, fs in split.pairs.items()}
    u_ports = {a: groups[(a, b)] for a, b in split.pairs}
    v_ports = {b: groups[(a, b)] for a, b in split.pairs}
    u_key, u_maps = _canonical(split.u, split.shared, u_ports, attributes)
    v_key, v_maps = _canonical(split.v, split.shared, v_ports, attributes)
    match = next(((fu, pu) for fu, pu in u_maps for fv, pv in v_maps
                  if fu == fv and all(pu[a] == pv[b] for a, b in split.pairs)), None)
    if match is None:
        return None
    fmap, pmap = match
    kernel = tuple(groups[pair] for pair in sorted(split.pairs, key=lambda p: pmap[p[0]]))
    f = len(fmap)
    sign = 1
    for fs in split.pairs.values():
        for g in fs:
            s = kernel_sign(g, attributes)
            if s is None:                    # not reached: `_readings` takes signed kernels only
                return None
            sign *= s
    a, b = KernelKey(u_key, kernel, f), KernelKey(v_key, kernel, f)
    a, b = sorted((a, b), key=_sortable_key)
    own: dict = {}                            # the weight's own summed letters: f, f+1, ...
    letter = (lambda c: fmap[c] if c in fmap else own.setdefault(c, f + len(own)))  # noqa: E731
    weight = [Factor(g.node, tuple(map(letter, g.letters)), g.power) for g in split.weight]
    return Half(a, b, Monomial(coef, canonical(weight, f)), f, sign)


def _group(factors: list[Factor]) -> tuple[Kernel, ...]:
    return tuple(sorted((Kernel(g.node, g.power) for g in factors), key=lambda k: (digest(k.node), k.power)))


def _canonical(factors: list[Factor], shared: frozenset, ports: dict, attributes) -> tuple[Any, list]:
    """The least labelled key of a half over the orientations of its symmetric matrices,
    with every (F map, port map) that gives it."""
    flippable = [i for i, g in enumerate(factors) if len(g.letters) == 2 and _symmetric(g.node, attributes)]
    best, order, maps = None, None, []
    for choice in itertools.islice(itertools.product((False, True), repeat=len(flippable)), MAX_ORIENTATIONS):
        flip = {i for i, t in zip(flippable, choice) if t}
        oriented = [Factor(g.node, g.letters[::-1], g.power) if i in flip else g for i, g in enumerate(factors)]
        key, sortable, fmap, pmap = _label(oriented, shared, ports)
        if order is None or sortable < order:
            best, order, maps = key, sortable, [(fmap, pmap)]
        elif sortable == order and (fmap, pmap) not in maps:
            maps.append((fmap, pmap))
    return best, maps


def _label(factors: list[Factor], shared: frozenset, ports: dict):
    """Letters named by role and first appearance (F: 0, 1, ...; ports Port(k); the rest
    after F), factors sorted by atom and that naming; twice, so the naming feeds the order."""
    def role(c):
        return (0,) if c in shared else (1, _sortable_group(ports[c])) if c in ports else (2,)
    ordered = sorted(factors, key=lambda g: (digest(g.node), g.power, tuple(role(c) for c in g.letters)))
    for _ in range(2):
        fmap: dict[int, int] = {}
        pmap: dict[int, int] = {}
        inner: dict[int, int] = {}
        for g in ordered:
            for c in g.letters:
                if c in shared:
                    fmap.setdefault(c, len(fmap))
                elif c in ports:
                    pmap.setdefault(c, len(pmap))
                else:
                    inner.setdefault(c, len(inner))
        f = len(shared)
        def name(c: int) -> Any:       # a letter, or a Port marker (Factor.letters says int: see pairing)
            return fmap[c] if c in fmap else Port(pmap[c]) if c in pmap else f + inner[c]
        ordered = sorted(ordered, key=lambda g: (digest(g.node), g.power, _sortable(tuple(map(name, g.letters)))))
    key = tuple(Factor(g.node, tuple(map(name, g.letters)), g.power) for g in ordered)
    sortable = tuple((digest(g.node), g.power, _sortable(g.letters)) for g in key)
    sortable += tuple(_sortable_group(ports[c]) for c in sorted(pmap, key=lambda c: pmap[c]))
    return key, sortable, fmap, pmap


def _sortable(letters: tuple) -> tuple:
    return tuple((1, c.index) if isinstance(c, Port) else (0, c) for c in letters)


def _sortable_group(group: tuple[Kernel, ...]) -> tuple:
    return tuple((digest(k.node), k.power) for k in group)


def _sortable_key(key: KernelKey) -> tuple:
    return (tuple((digest(g.node), g.power, _sortable(g.letters)) for g in key.half),
            tuple(_sortable_group(g) for g in key.kernel), key.f)


def _symmetric(node, attributes: dict[str, Attributes]) -> bool:
    """A matrix equal to its transpose: `pairing.symmetric_node`, or the direction of a
    symmetric variable (the certificate's directions are "__d_" + name)."""
    name = getattr(node, "name", "")
    if name.startswith("__d_"):
        attrs = attributes.get(name.removeprefix("__d_"))
        return node.order == 2 and attrs is not None and attrs.is_symmetric
    return symmetric_node(node, attributes)
