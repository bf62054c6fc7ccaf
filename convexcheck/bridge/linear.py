"""The CVXPY bridge's rule for linear atoms (index, reshape, stacking, diag, cumsum, ...):
the sum over arguments k of T_k . arg_k, T_k the constant 0/1 (or other) tensor of the
atom's action on argument k.

A selection, where every output entry equals one entry of the argument or is 0
(indexing, reshape, transpose, stacking, diag, upper_tri, broadcast_to), is read off by
applying the atom once to the argument's positions 1..size (`positions`) and checked
once on other values, not by one application per unit array. Its T_k is written dense
while it has at most DENSE entries; beyond that it is factored into one 0/1 matrix per
argument axis, A_m[o, i_m] = [the entry output o reads has index i_m on axis m], so
T_k[o, i] = prod_m A_m[o, i_m] is applied one axis at a time and takes
out * (sum of the argument's lengths) entries instead of out * (their product): the
slices, flattenings and stacks of a 40 x 40 image's total variation. Other linear atoms
(cumsum, keepdims sums) are read off unit arrays, at most MAX_LINEAR entries.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from convexcheck.bridge.text import LETTERS, Node
from convexcheck.problem.reader import ProblemError

MAX_LINEAR = 1_000_000     # entries of a dense constant tensor that stands for a linear atom
DENSE = 65_536             # a selection's tensor beyond this many entries is factored by axis


def linear(t: Any, e: Any, *args: Node) -> Node:
    """The translation of the linear atom `e` whose arguments translate to `args`
    (`t`: the translator, which names the constants)."""
    out = tuple(e.shape)
    terms = [_term(t, e, k, node, out) for k, node in enumerate(args)]
    return Node(terms[0] if len(terms) == 1 else "(" + " + ".join(terms) + ")", out)


def _term(t: Any, e: Any, k: int, node: Node, out: tuple) -> str:
    shape, size = tuple(e.args[k].shape), int(e.args[k].size)
    picked = positions(e, k)
    if picked is not None and shape and out and size * int(np.prod(out)) > DENSE:
        text = _factored(t, picked, shape, node.text, out)
        if text is not None:
            return text
    tensor = t.constant(_dense(e, k, picked, out))
    o, i = LETTERS[:len(out)], LETTERS[len(out):len(out) + len(shape)]
    return f"({tensor.text} *({o}{i},{i}->{o}) {node.text})" if not tensor.number else f"({tensor.text} * {node.text})"


def index(t: Any, e: Any, a: Node) -> Node:
    """CVXPY indexing by whole numbers and slices of a variable or parameter as the
    problem language's own subscripts (`x[3]`, `U[0:29, 1:30]`, `v[::-1]`: a gather, no
    constant tensor, NumPy's meaning); any other indexing by `linear`."""
    subscripts = _subscripts(e) if a.text in t.decls else None
    if subscripts is None:
        return linear(t, e, a)
    return Node(f"({a.text}[{', '.join(subscripts)}])", tuple(e.shape))


def _subscripts(e: Any) -> list[str] | None:
    """One subscript per axis of the argument from CVXPY's key (whole numbers as
    normalised indices, slices with CVXPY's normalised bounds), or None for keys with
    None, Ellipsis, arrays or booleans."""
    normal, key = e.get_data()
    key = key if isinstance(key, tuple) else (key,)
    whole = len(normal) - len(key)
    if whole < 0 or not all(isinstance(k, slice) or _whole_number(k) for k in key):
        return None
    out = []
    for k, bounds in zip(key + (slice(None),) * whole, normal):
        start, stop, step = (None if v is None else int(v) for v in (bounds.start, bounds.stop, bounds.step))
        if not isinstance(k, slice):
            out.append(str(start))
        elif start is None or stop is None or step is None or stop < -1 or start < 0:
            return None
        else:
            out.append(f"{start}:{'' if stop == -1 else stop}" + (f":{step}" if step != 1 else ""))
    return out


def _whole_number(k: object) -> bool:
    return isinstance(k, numbers.Integral) and not isinstance(k, (bool, np.bool_))


def positions(e: Any, k: int) -> np.ndarray | None:
    """For an atom that selects from argument k (the others 0): an array of the output's
    shape holding the 1-based flat (C order) position of the argument entry each output
    entry equals, 0 where it is 0; None for an atom that is not a selection."""
    shape, size, out = tuple(e.args[k].shape), int(e.args[k].size), tuple(e.shape)
    values = [np.zeros(a.shape) for a in e.args]
    values[k] = np.arange(1.0, size + 1.0).reshape(shape)
    found = np.asarray(e.numeric(values), dtype=float).reshape(out)
    if not (np.array_equal(found, np.round(found)) and found.min(initial=0) >= 0 and found.max(initial=0) <= size):
        return None
    picked = found.astype(np.int64)
    probe = np.random.default_rng(0).uniform(1.0, 2.0, size)
    values[k] = probe.reshape(shape)
    got = np.asarray(e.numeric(values), dtype=float).reshape(out)
    return picked if np.array_equal(got, np.concatenate([[0.0], probe])[picked]) else None


def linear_in_one(t: Any, e: Any, *args: Node) -> Node:
    """The translation of an atom linear in its one argument that reads variables, the
    others constant (conv(c, x), kron(A, X)): T . arg with T read off unit arrays, the
    constant arguments at their values."""
    reading = [k for k, a in enumerate(e.args) if a.variables() or a.parameters()]
    if len(reading) != 1:
        raise ProblemError(f"CVXPY {type(e).__name__} of {len(reading)} arguments with variables or parameters "
                           f"is not linear; give it one, the others constant")
    k, out = reading[0], tuple(e.shape)
    base = [np.zeros(a.shape) if j == k else np.asarray(a.value, dtype=float) for j, a in enumerate(e.args)]
    tensor = t.constant(_dense(e, k, None, out, base))
    o, i = LETTERS[:len(out)], LETTERS[len(out):len(out) + len(e.args[k].shape)]
    return Node(f"({tensor.text} *({o}{i},{i}->{o}) {args[k].text})", out)


def _dense(e: Any, k: int, picked: np.ndarray | None, out: tuple, base: list | None = None) -> np.ndarray:
    """T_k as one dense array of shape out + the argument's shape (`base`: the other
    arguments' values, zeros unless given)."""
    shape, size = tuple(e.args[k].shape), int(e.args[k].size)
    if picked is not None:
        flat = picked.reshape(-1)
        tensor = np.zeros((flat.size, size))
        rows = np.nonzero(flat)[0]
        tensor[rows, flat[rows] - 1] = 1.0
        return tensor.reshape(out + shape)
    if size * max(1, int(np.prod(out))) > MAX_LINEAR:
        raise ProblemError(f"CVXPY {type(e).__name__} is too large to translate ({size} inputs, "
                           f"{int(np.prod(out))} outputs)")
    zeros, cols = base if base is not None else [np.zeros(a.shape) for a in e.args], []
    for p in range(size):
        values = [z.copy() for z in zeros]
        values[k].flat[p] = 1.0
        cols.append(np.asarray(e.numeric(values), dtype=float).reshape(out))
    return np.stack(cols, axis=-1).reshape(out + shape)


def _factored(t: Any, picked: np.ndarray, shape: tuple, text: str, out: tuple) -> str | None:
    """T_k . arg for a selection whose every argument axis m reads one output axis q(m)
    (its index a function of o_q: a slice, a flip, a stack, a flattening) and whose
    nonzero outputs are a product of one set per output axis: one small 0/1 matrix
    A_m[o_q, i_m] per axis, none where axis m is output axis q itself, an indicator
    for the output axes that no argument axis reads (a stack's new axis); None when the
    selection is not of this form."""
    plan = _separable(picked, shape, out)
    if plan is None:
        return None
    readers, masks = plan
    outs, ins = LETTERS[:len(out)], LETTERS[len(out):len(out) + len(shape)]
    labels = list(ins)                                     # the letters of text's axes, in order
    for m, (q, f) in enumerate(readers):
        if (q is not None and len(f) == shape[m] and np.array_equal(f, np.arange(shape[m])) and masks[q].all()
                and outs[q] not in labels):
            labels[labels.index(ins[m])] = outs[q]            # the same axis: renamed, nothing applied
            continue
        factor = np.zeros((shape[m],) if q is None else (out[q], shape[m]))
        if q is None:
            factor[f] = 1.0
        else:
            rows = np.nonzero(masks[q])[0]
            factor[rows, f[rows]] = 1.0
        keep = [c for c in labels if c != ins[m]] + ([outs[q]] if q is not None and outs[q] not in labels else [])
        text = _apply(t, factor, ("" if q is None else outs[q]) + ins[m], labels, keep, text)
        labels = keep
    for q in range(len(out)):
        if outs[q] not in labels or not masks[q].all():
            keep = labels + ([outs[q]] if outs[q] not in labels else [])
            text = _apply(t, masks[q].astype(float), outs[q], labels, keep, text)
            labels = keep
    return text if "".join(labels) == outs else f"({text} *({''.join(labels)},->{outs}) 1)"


def _apply(t: Any, factor: np.ndarray, letters: str, labels: list, keep: list, text: str) -> str:
    return f"({t.constant(factor).text} *({letters},{''.join(labels)}->{''.join(keep)}) {text})"


def _separable(picked: np.ndarray, shape: tuple, out: tuple):
    """([(q(m), f_m) per argument axis], [mask_q per output axis]) for `_factored`: f_m
    the index read on argument axis m as a function of o_q (q None: a constant, f_m
    that index), mask_q the output positions along axis q that read anything; None
    where the selection does not factor so (checked by rebuilding `picked`)."""
    mapped = picked > 0
    masks = [mapped.any(axis=tuple(a for a in range(len(out)) if a != q)) for q in range(len(out))]
    if not mapped.any() or not np.array_equal(mapped, _outer(masks)):
        return None
    index = np.unravel_index(np.where(mapped, picked - 1, 0), shape)
    readers = [_reader(index[m], mapped, masks, out) for m in range(len(shape))]
    if any(r is None for r in readers):
        return None
    rebuilt = np.zeros(out, dtype=np.int64)
    grids = np.indices(out)
    flat = sum((f[grids[q]] if q is not None else f) * int(np.prod(shape[m + 1:]))
               for m, (q, f) in enumerate(readers))
    rebuilt[mapped] = (flat + 1)[mapped]
    return (readers, masks) if np.array_equal(rebuilt, picked) else None


def _outer(masks: list) -> np.ndarray:
    grid = masks[0]
    for mask in masks[1:]:
        grid = np.multiply.outer(grid, mask)
    return grid


def _reader(idx: np.ndarray, mapped: np.ndarray, masks: list, out: tuple):
    """(q, f) with idx == f[o_q] on the mapped outputs, or (None, c) for a constant c."""
    values = idx[mapped]
    if np.all(values == values[0]):
        return None, np.array(int(values[0]))
    for q in range(len(out)):
        f = np.zeros(out[q], dtype=np.int64)
        position = np.indices(out)[q][mapped]
        f[position] = values
        if np.array_equal(f[position], values):
            return q, f
    return None
