"""Axes and index strings: what every node carries (`Axis`), what a contraction is written
with (`Spec`), and the checks that a contraction's index strings fit its operands.

An axis names the variable axis it stands for (`Axis("x", 0)`: the first axis of x) after
unification (section 3.2.4), so differentiation never needs lengths, while evaluation
checks them. Axes no variable fixes (a lone `delta(1)`) are free: `Axis("", k)`.

    >>> canonical_spec(as_spec("pq,q->p"))
    Spec(inputs=('ij', 'j'), out='i')
    >>> format_axes(product_axes(Spec(("ij", "j"), "i"), ((Axis("A", 0), Axis("x", 0)), (Axis("x", 0),))))
    '(A[0])'
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from tensorcalc.errors import TensorCalcError
from tensorcalc.memo import memoized

LETTERS = "ijklmnopqrstuvwxyzabcdefghABCDEFGHIJKLMNOPQRSTUVWXYZ"  # index alphabet, in order of use


class Axis(NamedTuple):
    """Axis `pos` of variable `var`; `var == ""` marks an axis no variable fixes."""

    var: str
    pos: int

    def __str__(self) -> str:
        return f"{self.var}[{self.pos}]" if self.var else f"?{self.pos}"


class Spec(NamedTuple):
    """Index strings of a contraction: one per operand, then the output; letters in
    canonical order. Binary products `a *(s1,s2->s3) b` are the case of two inputs."""

    inputs: tuple[str, ...]
    out: str

    @property
    def left(self) -> str:
        return self.inputs[0]

    @property
    def right(self) -> str:
        return self.inputs[1]

    def __str__(self) -> str:
        return f"{','.join(self.inputs)}->{self.out}"




def as_spec(spec: Spec | str | Sequence[str]) -> Spec:
    """A Spec from a Spec, a string `'ij,j->i'` or a sequence of index strings, output last."""
    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, str):
        ins, _, out = spec.replace(" ", "").partition("->")
        return Spec(tuple(ins.split(",")), out)
    *inputs, out = spec
    return Spec(tuple(inputs), out)


@memoized(maxsize=1 << 14)
def canonical_spec(spec: Spec) -> Spec:
    """Rename letters in order of first appearance (inputs, then out) to LETTERS.
    (Cached: every product built goes through here, and programs use few distinct specs.)"""
    rename: dict[str, str] = {}
    for c in "".join(spec.inputs) + spec.out:
        if c not in rename:
            if len(rename) == len(LETTERS):
                raise TensorCalcError(f"product *({spec}) needs more than {len(LETTERS)} distinct indices")
            rename[c] = LETTERS[len(rename)]
    return Spec(tuple("".join(rename[c] for c in s) for s in spec.inputs),
                "".join(rename[c] for c in spec.out))


@memoized(maxsize=1 << 14)
def product_axes(spec: Spec, operand_axes: tuple[tuple[Axis, ...], ...]) -> tuple[Axis, ...]:
    """The axes of the product *(spec) of operands with these axes, after checking that the
    spec fits them (cached: it depends on nothing else)."""
    if len(spec.inputs) != len(operand_axes) or len(operand_axes) < 2:
        raise TensorCalcError(f"product *({spec}) has {len(spec.inputs)} index strings for "
                              f"{len(operand_axes)} operands (at least 2)")
    for k, (s, axes) in enumerate(zip(spec.inputs, operand_axes)):
        if len(s) != len(axes):
            side = {0: "left", 1: "right"}.get(k, f"operand {k}") if len(operand_axes) == 2 else f"operand {k}"
            raise TensorCalcError(f"product *({spec}): the {side} index string {s!r} has "
                                  f"{len(s)} letters but the {side} operand has order {len(axes)}")
    if len(set(spec.out)) != len(spec.out):
        raise TensorCalcError(f"product *({spec}): an output index appears twice")
    missing = set(spec.out) - set("".join(spec.inputs))
    if missing:
        raise TensorCalcError(f"product *({spec}): output index {sorted(missing)[0]!r} appears in no input")
    seen: dict[str, Axis] = {}
    for s, axes in zip(spec.inputs, operand_axes):
        for c, ax in zip(s, axes):
            if seen.setdefault(c, ax) != ax:
                raise TensorCalcError(f"product *({spec}): index {c!r} binds axes {seen[c]} and {ax}")
    return tuple(seen[c] for c in spec.out)


def format_axes(axes: tuple[Axis, ...]) -> str:
    """`(x[0], ?1)`: axes as error messages show them."""
    return "(" + ", ".join(map(str, axes)) + ")"
