"""Matrix notation in: what `*` (and `@`) means for operands of order 0 to 2, and the
messages when the operands do not fit.

An operand is a scalar (S), a column vector (C: a vector, as every vector variable is),
a row vector (R: a transposed vector, `x'`), a matrix (M), or a tensor of order 3 or
more (T). A product of two of them is one contraction of the thesis' index notation:

    x' * y   R C   *(i,i->)       the inner product, a scalar
    x * y'   C R   *(i,j->ij)     the outer product, a matrix
    A * x    M C   *(ij,j->i)     a column vector
    x' * A   R M   *(i,ij->j)     a row vector
    A * B    M M   *(ij,jk->ik)   a matrix

and a scalar on either side is a scalar multiple. C C, R R, C M and M R do not fit; each
becomes one of the products above by transposing one operand, which is the likely fix
that the message suggests (`x * y`: did you mean `x' * y`?). The rules of `*` for the
passes of `tensorcalc.language.meaning` are here (order_mul, axes_mul, build_mul), with the helpers
that describe an operand in a message: its text and its shape, as far as it is known.
"""
from __future__ import annotations

from typing import Callable, Mapping, NamedTuple, Sequence

from tensorcalc import dag
from tensorcalc.language.rule_context import Analysis
from tensorcalc.language.syntax import Syntax


class Fit(NamedTuple):
    spec: tuple[str, str, str]      # index strings: left, right, result
    result: str                     # the kind of the result


PRODUCTS = {
    ("R", "C"): Fit(("i", "i", ""), "S"),
    ("C", "R"): Fit(("i", "j", "ij"), "M"),
    ("M", "C"): Fit(("ij", "j", "i"), "C"),
    ("R", "M"): Fit(("i", "ij", "j"), "R"),
    ("M", "M"): Fit(("ij", "jk", "ik"), "M"),
}
# operands that do not fit: which one to transpose, and why they do not fit
MISFITS = {
    ("C", "C"): ("left", "two column vectors do not multiply"),
    ("R", "R"): ("right", "two row vectors do not multiply"),
    ("C", "M"): ("left", "a column vector does not multiply a matrix from the left"),
    ("M", "R"): ("right", "a row vector does not multiply a matrix from the right"),
}
_FLIP = {"C": "R", "R": "C", "M": "M", "S": "S"}
KIND_ORDER = {"S": 0, "C": 1, "R": 1, "M": 2}


def kind(order: int | None, row: bool) -> str:
    if not order:
        return "S"
    if order == 1:
        return "R" if row else "C"
    return "M" if order == 2 else "T"


def misfit_result(left: str, right: str) -> str:
    """The kind of the product after the likely fix (so analysis can go on to its end)."""
    side, _ = MISFITS[(left, right)]
    return PRODUCTS[(_FLIP[left], right) if side == "left" else (left, _FLIP[right])].result


def transposed(left: str, right: str, flip_left: bool, flip_right: bool) -> Fit | None:
    pair = (_FLIP[left] if flip_left else left, _FLIP[right] if flip_right else right)
    return PRODUCTS.get(pair)


def shape(k: str, dims: list) -> str:
    """'an m-by-n matrix', 'a column vector of length n', ... (lengths where known)."""
    known = [str(d) for d in dims if d is not None]
    if k == "M":
        return f"an {dims[0]}-by-{dims[1]} matrix" if len(known) == 2 else "a matrix"
    if k in "CR":
        what = "a column vector" if k == "C" else "a row vector"
        return f"{what} of length {dims[0]}" if known else what
    if k == "S":
        return "a scalar"
    return f"a tensor of order {len(dims)}"


def flip_text(text: str, is_transpose: bool, inner: str | None, simple: bool) -> str:
    """The operand written transposed: `x'` for x, x for `x'`, `(a + b)'` for a + b."""
    if is_transpose and inner is not None:
        return inner
    return f"{text}'" if simple else f"({text})'"


# ---------------------------------------------------------------------- the rules of *

def operand_kind(an: Analysis, node: Syntax) -> str:
    """S, C, R, M or T (see the module docstring)."""
    return kind(an.order[node], node in an.row)


def like(an: Analysis, node: Syntax, source: Syntax) -> None:
    """node is a row vector when source is one."""
    if source in an.row:
        an.row.add(node)


def scalar_side(an: Analysis, node: Syntax) -> int:
    """Which operand of a scalar multiple is the scalar (0: left, 1: right): a known scalar
    first, else a constant of yet unknown order, the left one when both are."""
    left, right = (an.order[c] for c in node.args)
    return 0 if left == 0 or (left is None and right != 0) else 1


def operand(an: Analysis, node: Syntax) -> str:
    """'x (a column vector of length n)': the text and the shape, as far as known."""
    ids = an.ids.get(node)
    dims = an.uf.dims(ids) if ids is not None else [None] * (an.order[node] or 0)
    return f"{an.snippet(node)} ({shape(operand_kind(an, node), dims)})"


def _wrapped(an: Analysis, node: Syntax) -> bool:
    """Whether node's text is one atom (a name, a call, a bracketed expression, ...)."""
    if node.kind in ("name", "number", "call", "access", "transpose"):
        return True
    return node.start >= 0 and an.text[node.start] == "(" and node.args[0].start != node.start


def _flipped(an: Analysis, node: Syntax, flip: bool) -> str:
    if not flip:
        return an.snippet(node)
    inner = an.snippet(node.args[0]) if node.kind == "transpose" else None
    return flip_text(an.snippet(node), node.kind == "transpose", inner, _wrapped(an, node))


def _fix(an: Analysis, node: Syntax, flip_left: bool, flip_right: bool) -> str:
    a, b = node.args
    return f"{_flipped(an, a, flip_left)} * {_flipped(an, b, flip_right)}"


def order_mul(an: Analysis, node: Syntax) -> int | None:
    """The order of a * b (and a @ b); operands that do not fit are noted, and refused by
    axes_mul, where their shapes are known."""
    a, b = node.args
    left, right = an.order[a], an.order[b]
    if not left or not right:                          # a scalar multiple
        like(an, node, b if not left else a)
        known = [k for k in (left, right) if k is not None]
        return max(known) if known else None
    kinds = (operand_kind(an, a), operand_kind(an, b))
    if "T" in kinds:
        an.fail(node, f"* multiplies scalars, vectors and matrices; for operands of orders {left} and {right} "
                      f"write an index product *(s1,s2->s3)")
    fit = PRODUCTS.get(kinds)
    if fit is None:
        an.misfits[node] = kinds
    result = fit.result if fit else misfit_result(*kinds)
    if result == "R":
        an.row.add(node)
    return KIND_ORDER[result]


def axes_mul(an: Analysis, node: Syntax) -> tuple[int, ...]:
    """The axes of a * b: the inner axes meet (their dimensions must agree)."""
    a, b = node.args
    if not an.order[a] or not an.order[b]:
        return an.ids[b] if not an.order[a] else an.ids[a]
    if node in an.misfits:
        _misfit(an, node)
    kinds = (operand_kind(an, a), operand_kind(an, b))
    s1, s2, s3 = PRODUCTS[kinds].spec
    letter = dict(zip(s1, an.ids[a]))
    for c, i in zip(s2, an.ids[b]):
        if c in letter:
            meet(an, node, letter[c], i, lambda: _clash(an, node, kinds))
        else:
            letter[c] = i
    return tuple(letter[c] for c in s3)


def _misfit(an: Analysis, node: Syntax):
    kinds = an.misfits[node]
    side, why = MISFITS[kinds]
    fix = _fix(an, node, side == "left", side == "right")
    outer = f" (or {_fix(an, node, False, True)}, the outer product)" if kinds == ("C", "C") else ""
    a, b = node.args
    an.fail(node, f"cannot multiply {operand(an, a)} by {operand(an, b)}: {why}; did you mean {fix}{outer}?")


def _clash(an: Analysis, node: Syntax, kinds) -> str:
    """Operands that fit as kinds but whose inner dimensions differ; the likely fix is a
    transpose that makes them meet and gives a result of the same kind."""
    a, b = node.args
    dl, dr = an.uf.dims(an.ids[a]), an.uf.dims(an.ids[b])
    inner = PRODUCTS[kinds].spec[0][-1]
    fix = ""
    for flips in ((True, False), (False, True), (True, True)):
        fit = transposed(kinds[0], kinds[1], flips[0], flips[1])
        if fit and fit.result == PRODUCTS[kinds].result and _compatible(
                fit.spec, _flip_dims(dl, flips[0]), _flip_dims(dr, flips[1])):
            fix = f"; did you mean {_fix(an, node, *flips)}?"
            break
    left = dl[PRODUCTS[kinds].spec[0].index(inner)]
    right = dr[PRODUCTS[kinds].spec[1].index(inner)]
    return (f"cannot multiply {operand(an, a)} by {operand(an, b)}: the inner dimensions {left} and "
            f"{right} differ{fix}")


def _flip_dims(dims: list, flip: bool) -> list:
    return dims[::-1] if flip else dims


def _compatible(spec, left: list, right: list) -> bool:
    seen: dict[str, object] = {}
    for c, d in zip(spec[0] + spec[1], left + right):
        if d is not None and seen.setdefault(c, d) != d:
            return False
    return True


def _unfold(an: Analysis, node: Syntax, built, letters: str):
    """A transposed matrix operand of a product: its matrix, with the letters swapped."""
    if node.kind == "transpose" and len(letters) == 2:
        return an.built[node.args[0]], letters[::-1]
    return built, letters


def build_mul(an: Analysis, node: Syntax, args: Sequence[dag.Expr], axes: Sequence[dag.Axis],
              declared: Mapping[str, dag.Var]) -> dag.Expr:
    """a * b as one contraction (a transposed matrix operand folded into its letters)."""
    a, b = node.args
    if not an.order[a] or not an.order[b]:
        s = scalar_side(an, node)
        return dag.scale(args[s], args[1 - s])
    s1, s2, s3 = PRODUCTS[(operand_kind(an, a), operand_kind(an, b))].spec
    (x, s1), (y, s2) = _unfold(an, a, args[0], s1), _unfold(an, b, args[1], s2)
    return dag.product(x, y, (s1, s2, s3))


def meet(an: Analysis, node: Syntax, a: int, b: int, message: Callable[[], str]) -> None:
    """Unify two axis classes; where both dimensions are known and differ, fail at node
    with message() (made only then)."""
    if an.uf.clash(a, b):
        an.fail(node, message())
    an.uf.union(a, b)
