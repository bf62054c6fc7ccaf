"""Plan of matrix notation: one term (`matrixterms`) per DAG node, children by reference.

`plan(expr)` walks the DAG once, children first, and gives every node a term that refers
to its children as `Ref`s (so a child shared by several parents can later be printed once
and named). Single-child wrappers (negation, reciprocal, constants, a scalar broadcast to
a vector) are looked through, so `a * (1 / s)` reads `a / s` and `-(z)` reads `-z`.

Products are where the work is: a contraction whose operands and result have order <= 2
is recognised, by the roles of its index letters, as a scalar multiple, a matrix or
matrix-vector product (with the transposes it needs), an inner or outer product, an
element-wise product, a diagonal scaling `diag(v) * A`, a trace `tr(A * B)`, a sum over an
axis `A * vector(1)` or a diagonal `diag(A)`. Anything else (order 3 and up) keeps the
thesis' index notation, `a *(ij,kl->ikjl) b`, so the text always parses back.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from tensorcalc import dag
from tensorcalc.dag import Const, Delta, Elementwise, Expr, Gather, Power, Product, Special, Sum, Var
from tensorcalc.printing.einsum import einsum_text, number
from tensorcalc.printing.matrix_terms import (
    Call,
    Einsum,
    Leaf,
    Mul,
    Neg,
    Num,
    Ones,
    Raw,
    Ref,
    Term,
    add,
    call,
    hadamard,
    leaf,
    mul,
    neg,
    num,
    ones,
    power,
    recip,
    ref,
    transpose,
)

MATRIX_ORDER = 2


class Operand(NamedTuple):
    """A factor of a contraction: its term and one index letter per axis."""

    term: Term
    letters: str


class Plan:
    """The term of every node; nodes whose terms are equal (the same text, as `2 * A` from
    `2 *(,ij->ij) A` and `A *(ij,->ij) 2`) are one: `same` maps each node to the first."""

    def __init__(self) -> None:
        self.terms: dict[Expr, Term] = {}
        self.same: dict[Expr, Expr] = {}
        self._first: dict[Term, Expr] = {}

    def add(self, node: Expr, term: Term) -> None:
        self.terms[node] = term
        self.same[node] = self._first.setdefault(term, node)


def plan(expr: Expr) -> Plan:
    """The terms of the nodes of `expr`, built children first."""
    found = Plan()
    for node in dag.topo(expr):
        found.add(node, RULES[type(node)](node, found))
    return found


def inline(node: Expr, plans: Plan) -> Term:
    """How a parent refers to `node`: its own term when that is a thin wrapper (so the
    parent's algebra sees through it), else a reference to the first node of its term."""
    term = plans.terms[node]
    if isinstance(node, (Const, Delta)):
        return term
    if (isinstance(node, Elementwise) and node.fn in ("neg", "recip") or _is_broadcast(term)) and _shallow(term):
        return term
    if isinstance(term, Neg) and _shallow(term.arg):
        return term                                  # a sum reads a + -(b *(...) c) as a - b *(...) c
    return ref(plans.same[node])


def _shallow(term: Term) -> bool:
    """Whether term is an operator over references and leaves only (so inlined wrappers
    stay a few levels deep, however long a chain of negations and reciprocals)."""
    parts = [p for v in vars(term).values() for p in (v if isinstance(v, tuple) else (v,))]
    return all(isinstance(p, (Ref, Leaf, Num, Ones)) or not isinstance(p, Term) for p in parts)


def _is_broadcast(term: Term) -> bool:
    """s * vector(1) or s * matrix(1): a scalar spread over a tensor."""
    return isinstance(term, Mul) and term.a.order == 0 and isinstance(term.b, Ones) and term.b.value == 1.0


# ----------------------------------------------------------------------------- node rules

def _var(node: Var, plans: Plan) -> Term:
    return leaf(node.name, node.order)


def _const(node: Const, plans: Plan) -> Term:
    if node.order <= MATRIX_ORDER:
        return ones(node.value, node.order)
    s = dag.LETTERS[:node.order]
    return Raw(node.order, False, f"({number(node.value)} *({s},->{s}) 1)")


def _delta(node: Delta, plans: Plan) -> Term:
    if node.n == 0:
        return num(1.0)
    return leaf("eye" if node.n == 1 else f"delta({node.n})", node.order)


def _sum(node: Sum, plans: Plan) -> Term:
    a, b = (inline(c, plans) for c in node.args)
    if node.order:
        if _is_broadcast(b) or (isinstance(b, Ones) and not _is_broadcast(a)):
            b = _scalar_of(b)
        elif _is_broadcast(a) or isinstance(a, Ones):
            a = _scalar_of(a)
    return add(a, b)


def _scalar_of(term: Term) -> Term:
    """The scalar a broadcast spreads (in a sum with a tensor, `+` broadcasts it)."""
    if isinstance(term, Mul):
        return term.a
    assert isinstance(term, (Num, Ones)), "a broadcast is s * vector(1) or a fill"
    return num(term.value)


def _elementwise(node: Elementwise, plans: Plan) -> Term:
    arg = inline(node.args[0], plans)
    if node.fn == "neg":
        return neg(arg)
    if node.fn == "recip":
        return recip(arg)
    return call(node.fn, arg)


def _special(node: Special, plans: Plan) -> Term:
    return call(node.fn, inline(node.args[0], plans), order=node.order)


def _power(node: Power, plans: Plan) -> Term:
    base, exponent = (inline(c, plans) for c in node.args)
    return power(base, exponent)


def _gather(node: Gather, plans: Plan) -> Term:
    return Raw(node.order, False, einsum_text(node))


def _product(node: Product, plans: Plan) -> Term:
    """Matrix notation for as many operands from the left as it can say; the rest, if any,
    as an index-notation product with that prefix as its first operand."""
    inputs, out = node.spec
    operands = [_operand(a, s, plans) for a, s in zip(node.args, inputs)]
    done, have = _fold(operands, node.spec)
    if done == len(operands):
        return have.term
    if done < 2:
        done, have = 1, Operand(inline(node.args[0], plans) if not isinstance(node.args[0], Const)
                                else num(node.args[0].value), inputs[0])
    rest = tuple(num(a.value) if isinstance(a, Const) else inline(a, plans) for a in node.args[done:])
    args = (have.term,) + rest
    signs = sum(isinstance(a, Neg) for a in args)               # linear in each operand
    args = tuple(a.arg if isinstance(a, Neg) else a for a in args)
    term = Einsum(node.order, False, dag.Spec((have.letters,) + inputs[done:], out), args)
    return neg(term) if signs % 2 else term


def _operand(node: Expr, letters: str, plans: Plan) -> Operand:
    if isinstance(node, Const):
        return Operand(ones(node.value, node.order), letters)
    return Operand(inline(node, plans), letters)


def _fold(operands: list[Operand], spec) -> tuple[int, Operand]:
    """Contract the operands left to right, each step a binary product whose result keeps
    the letters still needed, while the steps are matrix notation: how many operands were
    contracted, and the result."""
    have = operands[0]
    if have.term.order > MATRIX_ORDER:
        return 1, have
    for k in range(1, len(operands)):
        later = "".join(spec.inputs[k + 1:]) + spec.out
        keep = spec.out if k == len(operands) - 1 else "".join(
            c for c in dict.fromkeys(have.letters + operands[k].letters) if c in later)
        term = None
        if len(keep) <= MATRIX_ORDER and operands[k].term.order <= MATRIX_ORDER:
            term = contract(have, operands[k], keep)
        if term is None:
            return k, have
        have = Operand(term, keep)
    return len(operands), have


# ----------------------------------------------------------------------------- contractions

def contract(a: Operand, b: Operand, out: str) -> Term | None:
    """The term of sum over the other letters of a[letters] * b[letters], indexed by `out`;
    None when matrix notation cannot say it."""
    if _is_constant(a) and _is_constant(b):
        return None                                  # each would count on the other's letters
    fixed_a, fixed_b = _constant(a, b, out), _constant(b, a, out)
    if fixed_a is None or fixed_b is None:
        return None
    reduced_a, reduced_b = _reduced(fixed_a, fixed_b.letters + out), _reduced(fixed_b, fixed_a.letters + out)
    if reduced_a is None or reduced_b is None:
        return None
    found = _combine(reduced_a, reduced_b, out)
    if found is None:
        return None
    term, letters = found
    term = term if letters == out else transpose(term)
    return term if term.order == len(out) and sorted(letters) == sorted(out) else None


def _is_constant(op: Operand) -> bool:
    return isinstance(op.term, (Ones, Num)) and bool(op.letters)


def _constant(op: Operand, other: Operand, out: str) -> Operand | None:
    """A constant operand becomes a number when `other` fixes all its letters, a fill
    (`vector(c)`) over the letters it alone brings to `out`; None when it would be summed."""
    if not _is_constant(op) or not isinstance(op.term, (Ones, Num)):
        return op
    alone = "".join(c for c in op.letters if c not in other.letters)
    if any(c not in out for c in alone) or len(set(op.letters)) != len(op.letters):
        return None
    value = op.term.value
    return Operand(ones(value, len(alone)), alone)


def _reduced(op: Operand, keep: str) -> Operand | None:
    """Take the diagonal of a repeated letter (`diag(A)`) and sum the letters no one else
    needs (`sum(v)`, `tr(A)`, `A * vector(1)`)."""
    term, letters = op
    if len(letters) == 2 and letters[0] == letters[1]:
        term, letters = call("diag", term, order=1), letters[0]
    summed = [c for c in letters if c not in keep]
    if not summed:
        return Operand(term, letters)
    if len(summed) == len(letters):
        if isinstance(term, Call) and term.fn == "diag" and term.order == 1:
            return Operand(call("tr", term.args[0], order=0), "")
        return Operand(call("sum", term, order=0), "")
    (gone,) = summed
    kept = letters.replace(gone, "")
    term = term if letters[1] == gone else transpose(term)
    return Operand(mul(term, ones(1.0, 1)), kept)


def _combine(a: Operand, b: Operand, out: str) -> tuple[Term, str] | None:
    """a and b have distinct letters each, every letter in out or in both."""
    if not a.letters or not b.letters:
        s, t = (a, b) if not a.letters else (b, a)
        return mul(s.term, t.term), t.letters
    if len(a.letters) == 1 and len(b.letters) == 1:
        return _vectors(a, b, out)
    if len(a.letters) == 1 or len(b.letters) == 1:
        v, m = (a, b) if len(a.letters) == 1 else (b, a)
        return _matrix_vector(m, v, out)
    return _matrices(a, b, out)


def _vectors(a: Operand, b: Operand, out: str) -> tuple[Term, str]:
    if a.letters != b.letters:
        return mul(a.term, transpose(b.term)), a.letters + b.letters      # u * v'
    if a.letters in out:
        return hadamard(a.term, b.term), a.letters                        # u .* v
    return mul(transpose(a.term), b.term), ""                            # u' * v


def _matrix_vector(m: Operand, v: Operand, out: str) -> tuple[Term, str] | None:
    c = v.letters
    if c not in m.letters:
        return None
    if c in out:                                                          # diag(v) * M, M * diag(v)
        d = call("diag", v.term, order=2)
        return (mul(d, m.term) if m.letters[0] == c else mul(m.term, d)), m.letters
    other = m.letters.replace(c, "")
    term = m.term if m.letters[1] == c else transpose(m.term)
    return mul(term, v.term), other                                       # M * v


def _matrices(a: Operand, b: Operand, out: str) -> tuple[Term, str] | None:
    shared = [c for c in a.letters if c in b.letters]
    if len(shared) == 1:
        (c,) = shared
        if c in out:
            return None
        left = a.term if a.letters[1] == c else transpose(a.term)
        right = b.term if b.letters[0] == c else transpose(b.term)
        return mul(left, right), a.letters.replace(c, "") + b.letters.replace(c, "")
    if len(shared) != 2:
        return None
    same = a.letters == b.letters
    kept = [c for c in a.letters if c in out]
    if not kept:                                                          # Frobenius products
        if same:
            return call("sum", hadamard(a.term, b.term), order=0), ""
        return call("tr", mul(a.term, b.term), order=0), ""
    h = hadamard(a.term, b.term if same else transpose(b.term))
    if len(kept) == 2:
        return h, a.letters
    (k,) = kept
    return mul(h if a.letters[0] == k else transpose(h), ones(1.0, 1)), k


RULES: dict[type[Expr], Callable[[Any, Plan], Term]] = {
    Var: _var, Const: _const, Delta: _delta, Sum: _sum, Product: _product,
    Elementwise: _elementwise, Special: _special, Power: _power, Gather: _gather,
}
