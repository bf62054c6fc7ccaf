"""Constant indexing and slicing, `x[2]`, `x[-1]`, `X[:, 0]`, `x[1:5]`, `x[::2]`, with
NumPy's meaning (indices from 0, negative ones from the end, slices with Python's rules,
trailing axes left out taken whole): the rules of the meaning stage for the `access`
kind (`tensorcalc.language.meaning_rules` registers them in its tables).

`max(x)` and `min(x)`, the largest and smallest entry, read every entry so (x's lengths
numbers, at most MAX_ENTRIES entries) and nest the pairwise max b + relu(a - b) over
them, as `convexcheck.from_cvxpy` lowers CVXPY's max; min(x) is -max(-x).

An access lowers to a Gather (`tensorcalc.gather.affine`), so derivatives and the convexity
certificate see a linear map. Axes taken whole (`:`) pass through as the gather's
batch axes and keep their dimension, a name or a length; an index or any other slice
needs the axis's length as a number (`variable x[5]`), since the gather's rows are
computed from it. Subscripts are whole numbers written as such (`2`, `-1`); indices that
are letters belong to a `define` statement.
"""
from __future__ import annotations

import itertools
import math
from typing import Mapping, NamedTuple, Sequence

from tensorcalc import dag
from tensorcalc.gather import affine
from tensorcalc.language.rule_context import Analysis
from tensorcalc.language.syntax import Slice, Syntax

WHOLE = Slice(0, 0, None, None, None)      # an axis left out: taken whole
MAX_ENTRIES = 32                           # max(x), min(x): entries read (one kink each)


class Plan(NamedTuple):
    """How an access reads its array: per axis, None (taken whole) or (start, step,
    count) with count None for an index (the axis is dropped)."""

    name: str
    picks: tuple[tuple[int, int, int | None] | None, ...]

    @property
    def order(self) -> int:
        return sum(p is None or p[2] is not None for p in self.picks)


def order(an: Analysis, node: Syntax) -> int:
    """The order of the access; reads and checks its subscripts once (an.plans)."""
    name, subs = node.value
    if name not in an.orders:
        an.fail(node, f"{name}[...] indexes a declared variable or parameter, and {name!r} is not one "
                      f"(declared: {', '.join(an.orders) or 'nothing'})")
    rank = an.orders[name]
    if len(subs) > rank:
        what = "is a scalar, with no entries to pick" if rank == 0 else f"has order {rank}"
        an.fail(node, f"{name}[...] has {len(subs)} subscript{'s' * (len(subs) > 1)} but {name!r} {what}")
    dims = an.uf.dims(an.var_ids[name])
    picks = tuple(_pick(an, node, sub, dims[k], k) for k, sub in enumerate(subs + (WHOLE,) * (rank - len(subs))))
    an.plans[node] = Plan(name, picks)
    return an.plans[node].order


def axes(an: Analysis, node: Syntax) -> tuple[int, ...]:
    """Axes taken whole are the array's own; a slice's axis is fresh, of its length."""
    plan, ids = an.plans[node], an.var_ids[node.value[0]]
    out = []
    for pick, i in zip(plan.picks, ids):
        if pick is None:
            out.append(i)
        elif pick[2] is not None:
            out.append(an.uf.new())
            an.uf.dim[out[-1]] = pick[2]
    return tuple(out)


def build(an: Analysis, node: Syntax, args: Sequence[dag.Expr], axes: Sequence[dag.Axis],
          declared: Mapping[str, dag.Var]) -> dag.Expr:
    """The gather: whole axes moved to the front as its batch, then back in place."""
    plan, ids = an.plans[node], an.var_ids[node.value[0]]
    whole = [k for k, p in enumerate(plan.picks) if p is None]
    picked = [k for k, p in enumerate(plan.picks) if p is not None]
    if not picked:
        return declared[plan.name]
    sliced = [k for k in picked if plan.picks[k][2] is not None]
    place = {k: q for q, k in enumerate(sorted(whole + sliced))}      # position in the result
    rows = [_row(plan.picks[k], sliced.index(k) if k in sliced else None, len(sliced)) for k in picked]
    source = [_length(an.uf.dim[an.uf.find(ids[k])]) for k in picked]
    g = affine.gather(_permuted(declared[plan.name], whole + picked), len(whole),
                      [plan.picks[k][2] for k in sliced], source, rows, (), [axes[place[k]] for k in sliced])
    order = whole + sliced                                            # the gather's axes
    return _permuted(g, [order.index(k) for k in sorted(order)])


def _permuted(x: dag.Expr, perm: list[int]) -> dag.Expr:
    """x with its axes reordered: axis q of the result is axis perm[q] of x."""
    if perm == sorted(perm):
        return x
    s = dag.LETTERS[:x.order]
    return dag.product(x, dag.const(1.0), (s, "", "".join(s[k] for k in perm)))


def _row(pick, q: int | None, width: int) -> tuple[tuple[int, ...], int, int]:
    start, step, _count = pick
    coefficients = [0] * width
    if q is not None:
        coefficients[q] = step
    return tuple(coefficients), start, 1


def _pick(an: Analysis, node: Syntax, sub, dim, k: int):
    """None (whole), or (start, step, count) of a slice, or (index, 0, None)."""
    if isinstance(sub, Slice) and sub.start is sub.stop is sub.step is None:
        return None
    name = node.value[0]
    if not isinstance(dim, int):
        shown = "a length not known here" if dim is None else f"length {dim}, not a number"
        an.fail(node, f"{name}[...] picks entries of axis {k} of {name!r}, which has {shown}: declare "
                      f"{name!r} with numbers ({name}[5]), or take the axis whole (:), or write a define "
                      f"statement")
    if not isinstance(sub, Slice):
        i = _whole(an, sub, node)
        if not -dim <= i < dim:
            an.fail(sub, f"index {i} is out of range for axis {k} of {name!r} (length {dim}): use 0 to "
                         f"{dim - 1}, or -1 to -{dim} from the end")
        return (i % dim, 0, None)
    parts = [None if p is None else _whole(an, p, node) for p in (sub.start, sub.stop, sub.step)]
    if parts[2] == 0 and sub.step is not None:
        an.fail(sub.step, "a slice's step cannot be 0")
    r = range(dim)[slice(*parts)]
    if not len(r):
        an.fail(node, f"{name}[...] selects no entries of axis {k} of {name!r} (length {dim}); a slice "
                      f"must select at least one")
    return (r.start, r.step, len(r))


def _length(dim: object) -> int:
    """A picked axis's length: `_pick` refused any axis whose length is not a number."""
    assert isinstance(dim, int), "a picked axis has a numeric length"
    return dim


def _whole(an: Analysis, sub, node: Syntax) -> int:
    """A subscript written as a whole number, or minus one."""
    negative = sub.kind == "neg"
    digits = sub.args[0] if negative else sub
    if digits.kind != "number" or not digits.value.isdigit() or len(digits.value) > 15:
        an.fail(sub, f"a subscript of {node.value[0]}[...] outside a define statement is a whole number "
                     f"(x[0], x[-1]) or a slice (x[1:3], X[:, 0]); to index by a letter, write a define "
                     f"statement: define NAME[i < N] = ...")
    return -int(digits.value) if negative else int(digits.value)


def build_max(an: Analysis, node: Syntax, args: Sequence[dag.Expr], axes: Sequence[dag.Axis]) -> dag.Expr:
    """max(x) as nested b + relu(a - b) over x's entries; min(x) as -max(-x)."""
    x = args[0] if node.value == "max" else dag.neg(args[0])
    dims = an.uf.dims(an.ids[node.args[0]])
    lengths = [d for d in dims if isinstance(d, int)]
    if len(lengths) != len(dims) or math.prod(lengths) > MAX_ENTRIES:
        shown = ", ".join(str(d) for d in dims)
        an.fail(node, f"{node.value}(x) reads every entry of x, so its lengths must be numbers with at most "
                      f"{MAX_ENTRIES} entries in all; x here has shape ({shown}): use maximum(a, b) entry by "
                      f"entry, or log_sum_exp(x) for a smooth upper bound")
    best: dag.Expr | None = None
    for index in itertools.product(*(range(d) for d in lengths)):
        entry = affine.gather(x, 0, (), lengths, [((), k, 1) for k in index], (), ()) if lengths else x
        best = entry if best is None else dag.add(entry, dag.elementwise("relu", dag.sub(best, entry)))
    assert best is not None, "declared lengths are positive: there is an entry"
    return best if node.value == "max" else dag.neg(best)
