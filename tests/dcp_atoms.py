"""Random smooth expressions rendered twice: as convexcheck problem text and as CVXPY.

ONE table, `ATOMS`, drives both renderings. Each `Atom` knows
  - how to render itself as tensorcalc text and as a CVXPY expression (`make`),
  - the random data it needs (numpy, seeded by a hypothesis draw), which becomes declared
    parameters in the text, with the attributes that are TRUE of the values (`declare`:
    `pos`/`nonneg`/`neg`/`nonpos` by the entries' signs, `psd`/`nsd`/`symmetric` for the
    matrices of quadratic forms), and cvxpy Constants (plain numpy arrays) on the CVXPY side,
  - its argument domain (`domain`): 'real'; 'positive' (the argument is built > 0 on the
    declared domain, for atoms whose CVXPY domain is narrower than the formula's: x^3,
    x^-1, entr, inv_pos; log and sqrt of such arguments too); 'implicit' (log, sqrt and
    fractional powers may also take a free affine argument: both sides then have the same
    implicit domain {argument > 0} or {>= 0}, and points outside it evaluate to NaN).

Variables: scalars s (free) and t (pos), vectors x[3] (free) and u[3] (pos), matrices
X[2, 3] (free) and U[2, 3] (pos); pos variables are `cp.Variable(..., pos=True)`. Dimensions
are integers in the text, so data shapes are fixed.

`cases()` is the hypothesis strategy of whole `Case`s (a scalar expression of nesting depth
up to 4: compositions of two or three non-affine atoms over affine maps). `Case.text` is
the problem (`expression EXPR`), `Case.data` the parameter values for
`convexcheck.analyze(text, data=...)`, `Case.cvxpy()` the CVXPY expression and its
variables, `evaluate(expr, variables, point)` the CVXPY value at a point.

Only twice-differentiable atoms are generated (on the interior of their domain): no abs,
max, norms, relu (tests/dcp_nested.py, the second generator, has those). The renderings are
the same function wherever both are defined; on the declared domain both are defined except
under 'implicit' atoms (`Case.implicit`).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Callable

import cvxpy as cp
import numpy as np
from hypothesis import strategies as st

SCALAR, VECTOR, MATRIX = (), (3,), (2, 3)
SHAPES = (SCALAR, VECTOR, MATRIX)
LETTERS = {0: "", 1: "i", 2: "ij"}

# name -> (shape, positive): the declared variables; positive ones are `pos` on both sides
VARIABLES = {"s": (SCALAR, False), "t": (SCALAR, True), "x": (VECTOR, False), "u": (VECTOR, True),
             "X": (MATRIX, False), "U": (MATRIX, True)}
BY_SHAPE = {shape: {pos: [n for n, (s, p) in VARIABLES.items() if s == shape and p == pos]
                    for pos in (False, True)} for shape in SHAPES}

POS, NONNEG, NEG, NONPOS = "pos", "nonneg", "neg", "nonpos"
IMPLICIT = "implicit"     # wanted of an implicit-domain argument: free variables, offsets > 0 (0 is inside)
NOISE = 1e3 * np.finfo(float).eps        # relative rounding allowed per evaluation (as convexcheck.witness.sampling)


class Draws:
    """The random choices the generator makes, from hypothesis (`Draws(draw)` inside a
    composite strategy: shrinkable) or from a seeded `random.Random` (`Draws(rng=...)`,
    for the benchmark, which runs outside hypothesis)."""

    def __init__(self, draw=None, rng=None):
        self.draw, self.rng = draw, rng

    def choice(self, options):
        options = list(options)
        return self.draw(st.sampled_from(options)) if self.draw else self.rng.choice(options)

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi)) if self.draw else self.rng.randint(lo, hi)

    def boolean(self) -> bool:
        return self.draw(st.booleans()) if self.draw else self.rng.random() < 0.5


# ----------------------------------------------------------------------------- nodes and data

@dataclass(frozen=True)
class Node:
    """A subexpression: its text, a function building its CVXPY expression from the CVXPY
    variables by name, its shape, the sign it has on the declared domain (POS, NONNEG, NEG,
    NONPOS or None), the atoms used (outermost first), the variables read, and whether it
    has an implicit domain narrower than the declared one."""

    text: str
    cvx: Callable[[dict], object] = field(repr=False)
    shape: tuple
    sign: str | None
    atom: str
    args: tuple = ()
    names: frozenset = frozenset()
    implicit: bool = False
    weights: str | None = None      # affine maps: the sign attribute of their weights ("" mixed signs)

    @property
    def atoms(self) -> tuple[str, ...]:
        """The atoms used, outermost first, with repeats."""
        return (self.atom,) + tuple(a for n in self.args for a in n.atoms)

    def walk(self):
        """This node and every node below it."""
        yield self
        for n in self.args:
            yield from n.walk()

    @property
    def affine(self) -> bool:
        """Affine in the variables as written: variables and affine maps only."""
        return all(n.atom in ATOMS and ATOMS[n.atom].kind in ("leaf", "affine", "combine") for n in self.walk())


class Data:
    """The parameters a case declares: name -> (shape, attributes, value)."""

    def __init__(self):
        self.params: dict[str, tuple[tuple, str, np.ndarray]] = {}

    def add(self, value, attributes: str | None = None) -> tuple[str, np.ndarray]:
        value = np.array(value, dtype=float)
        name = f"p{len(self.params)}"
        self.params[name] = (value.shape, declare(value) if attributes is None else attributes, value)
        return name, (float(value) if value.ndim == 0 else value)     # cvxpy Constants


def declare(value: np.ndarray) -> str:
    """The sign attribute that is true of every entry (the strongest), or none."""
    if np.all(value > 0):
        return "pos"
    if np.all(value < 0):
        return "neg"
    if np.all(value >= 0):
        return "nonneg"
    if np.all(value <= 0):
        return "nonpos"
    return ""


def mixed(rng, shape) -> np.ndarray:
    """Entries of both signs (a single entry: either sign)."""
    value = rng.uniform(0.3, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    if value.size > 1:
        flat = value.reshape(-1)
        flat[0], flat[1] = abs(flat[0]), -abs(flat[1])
    return value


def positive(rng, shape) -> np.ndarray:
    return rng.uniform(0.2, 1.5, size=shape)


def nonneg(rng, shape) -> np.ndarray:
    """Entries >= 0, some exactly 0 (declared `nonneg`, or `pos` if none is), not all 0."""
    value = positive(rng, shape) * (rng.uniform(size=shape) > 0.25)
    if not np.any(value):
        value.reshape(-1)[0] = 1.0
    return value


def psd(rng, n=3) -> np.ndarray:
    g = rng.standard_normal((n, n))
    m = g @ g.T / n + 0.1 * np.eye(n)
    return (m + m.T) / 2


def indefinite(rng, n=3) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = rng.uniform(0.3, 2.0, size=n) * np.array([1.0, -1.0] + [float(rng.choice([-1, 1]))] * (n - 2))
    m = q @ np.diag(lam) @ q.T
    return (m + m.T) / 2


def matrix_attributes(value: np.ndarray, definite: str) -> str:
    """The definiteness declared plus the entries' sign where one holds (CVXPY reads both)."""
    sign = declare(value)
    return " ".join(a for a in (definite, sign) if a)


def _plus(sign_a, sign_b):
    if sign_a in (POS, NONNEG) and sign_b in (POS, NONNEG):
        return POS if POS in (sign_a, sign_b) else NONNEG
    if sign_a in (NEG, NONPOS) and sign_b in (NEG, NONPOS):
        return NEG if NEG in (sign_a, sign_b) else NONPOS
    return None


def _times(data_sign, sign):
    """The sign of (data of data_sign) times (node of sign), entrywise."""
    flip = {POS: NEG, NONNEG: NONPOS, NEG: POS, NONPOS: NONNEG, None: None}
    if data_sign in ("pos", "nonneg"):
        return sign if data_sign == "pos" or sign is None else ({POS: NONNEG, NEG: NONPOS}.get(sign, sign))
    if data_sign in ("neg", "nonpos"):
        out = flip[sign]
        return out if data_sign == "neg" or out is None else ({POS: NONNEG, NEG: NONPOS}.get(out, out))
    return None


def par(text: str) -> str:
    return f"({text})"


def pointwise(shape) -> str:
    """The index string of an element-wise product of two tensors of `shape`."""
    s = LETTERS[len(shape)]
    return f"*({s},{s}->{s})"


def full(shape) -> str:
    s = LETTERS[len(shape)]
    return f"*({s},{s}->)"


# ----------------------------------------------------------------------------- the atom table

@dataclass(frozen=True)
class Atom:
    """One row of the table.

    `kind`: 'leaf' (a variable), 'affine' (an affine map with random data of one child),
    'elementwise' (shape-preserving), 'reduce' (to a scalar), 'combine' (sums, scalings).
    `out`: the shapes it can produce; `signs`: the signs it can be asked to deliver
    (POS, NONNEG, None for any; IMPLICIT for the affine maps that may be implicit-domain
    arguments: free variables, mixed weights, positive offsets); `domain`: its argument domain (module docstring);
    `dcp`: False for atoms CVXPY rejects as written (products of non-constants);
    `make(draw, data, shape, depth, want)` -> Node, drawing children with `child`."""

    name: str
    kind: str
    out: tuple
    signs: tuple
    domain: str
    make: Callable = field(repr=False)
    dcp: bool = True
    weight: int = 2


def child(draw, data, shape, depth, want=None, affine=False) -> Node:
    """A random subexpression of `shape`, of sign `want`, at nesting budget `depth`
    (0: a variable; `affine`: an affine map of variables, for implicit-domain arguments)."""
    if affine:
        want = IMPLICIT
    if affine or depth <= 0:
        if depth <= 0 or draw.integer(0, 2) == 0:
            return _variable(draw, shape, want)
        options = [a for a in ATOMS.values() if a.kind == "affine" and shape in a.out and want in a.signs]
        atom = draw.choice(options)
        return atom.make(draw, data, shape, 1, want)
    options = [a for a in ATOMS.values() for _ in range(a.weight)
               if a.kind != "leaf" and shape in a.out and want in a.signs]
    atom = draw.choice(options)
    return atom.make(draw, data, shape, depth, want)


def _variable(draw, shape, want=None) -> Node:
    pos = want in (POS, NONNEG) or (want is None and draw.boolean())
    name = draw.choice(BY_SHAPE[shape][pos])
    return Node(name, lambda v, n=name: v[n], shape, POS if pos else None, "var", (), frozenset([name]))


def _seed(draw) -> np.random.Generator:
    return np.random.default_rng(draw.integer(0, 2 ** 32 - 1))


def _join(name, *nodes, implicit=False, weights=None) -> dict:
    return dict(atom=name, args=tuple(nodes), names=frozenset().union(*(n.names for n in nodes)),
                implicit=implicit or any(n.implicit for n in nodes), weights=weights)


# --- leaves and affine maps (weights >= 0 and offsets > 0 where a positive result is wanted)

def make_var(draw, data, shape, depth, want):
    return _variable(draw, shape, want)


def _weights(rng, shape, want):
    """Weights for a result of sign `want`: positive, nonnegative, or of mixed signs."""
    return {POS: positive, NONNEG: nonneg, None: mixed, IMPLICIT: mixed}[want](rng, shape)


def _offset(draw, data, rng, shape, want, node_sign):
    """An offset b (a parameter) with the sign the result needs, or none. Under IMPLICIT
    b > 0: the variables at 0 lie inside the implicit domain, which is then not empty."""
    if want is not None:
        name, value = data.add(positive(rng, shape))
        return name, value, (None if want == IMPLICIT else POS)
    if draw.boolean():
        return None, None, node_sign
    name, value = data.add(mixed(rng, shape))
    return name, value, _plus(node_sign, declare(value) or None)


def make_elementwise_affine(draw, data, shape, depth, want):
    """a o v + b (element-wise), any shape."""
    rng = _seed(draw)
    v = child(draw, data, shape, depth - 1, want)
    a_name, a = data.add(_weights(rng, shape, want)) if shape else data.add(
        positive(rng, ()) * (1 if want in (POS, NONNEG) or draw.boolean() else -1))      # a scalar has a sign
    sign = _times(data.params[a_name][1], v.sign)
    b_name, b, sign = _offset(draw, data, rng, shape, want, sign)
    text = f"{a_name} * {par(v.text)}" if not shape else f"{a_name} {pointwise(shape)} {par(v.text)}"
    text += f" + {b_name}" if b_name else ""

    def cvx(vs):
        out = a * v.cvx(vs) if not shape else cp.multiply(a, v.cvx(vs))
        return out + b if b_name else out
    return Node(text, cvx, shape, sign, **_join("affine_elementwise", v, weights=data.params[a_name][1]))


def _linear_map(atom: str, arg_shape, weight_shape, spec: str):
    """A v + b (matvec: A 3x3, v a vector) or a^T M + b (vecmat: M a matrix, a vector of
    its column length): one maker per spec, the same draws in the same order."""
    def make(draw, data, shape, depth, want):
        rng = _seed(draw)
        v = child(draw, data, arg_shape, depth - 1, want)
        a_name, a = data.add(_weights(rng, weight_shape, want))
        sign = _times(data.params[a_name][1], v.sign)        # entrywise; sums keep a sign
        b_name, b, sign = _offset(draw, data, rng, VECTOR, want, sign)
        text = f"{a_name} *({spec}) {par(v.text)}" + (f" + {b_name}" if b_name else "")

        def cvx(vs):
            out = a @ v.cvx(vs)
            return out + b if b_name else out
        return Node(text, cvx, VECTOR, sign, **_join(atom, v, weights=data.params[a_name][1]))
    return make


make_matvec = _linear_map("matvec", VECTOR, (3, 3), "ij,j->i")
make_vecmat = _linear_map("vecmat", MATRIX, 2, "i,ij->j")


def _make_contraction(inner):
    return lambda draw, data, shape, depth, want: make_dot(draw, data, shape, depth, want, inner)


def make_dot(draw, data, shape, depth, want, inner=VECTOR):
    """<a, v> + c for a vector v ('dot'), or trace(C^T M) + c for a matrix M ('trace')."""
    rng = _seed(draw)
    v = child(draw, data, inner, depth - 1, want)
    a_name, a = data.add(_weights(rng, inner, want))
    sign = _times(data.params[a_name][1], v.sign)
    b_name, b, sign = _offset(draw, data, rng, SCALAR, want, sign)
    text = f"{a_name} {full(inner)} {par(v.text)}" + (f" + {b_name}" if b_name else "")
    name = "dot" if inner == VECTOR else "trace"

    def cvx(vs):
        out = a @ v.cvx(vs) if inner == VECTOR else cp.trace(a.T @ v.cvx(vs))
        return out + b if b_name else out
    return Node(text, cvx, SCALAR, sign, **_join(name, v, weights=data.params[a_name][1]))


def make_broadcast(draw, data, shape, depth, want):
    """s * a + b: a scalar to an array."""
    rng = _seed(draw)
    v = child(draw, data, SCALAR, depth - 1, want)
    a_name, a = data.add(_weights(rng, shape, want))
    sign = _times(data.params[a_name][1], v.sign)
    b_name, b, sign = _offset(draw, data, rng, shape, want, sign)
    text = f"{par(v.text)} * {a_name}" + (f" + {b_name}" if b_name else "")

    def cvx(vs):
        out = v.cvx(vs) * a
        return out + b if b_name else out
    return Node(text, cvx, shape, sign, **_join("broadcast", v, weights=data.params[a_name][1]))


# --- combinations

def make_add(draw, data, shape, depth, want):
    """A sum of two or three terms of the same shape."""
    k = draw.integer(2, 3)
    terms = [child(draw, data, shape, depth - 1, want) for _ in range(k)]
    sign = terms[0].sign
    for t in terms[1:]:
        sign = _plus(sign, t.sign)
    text = " + ".join(par(t.text) for t in terms)

    def cvx(vs):
        out = terms[0].cvx(vs)
        for t in terms[1:]:
            out = out + t.cvx(vs)
        return out
    return Node(text, cvx, shape, sign, **_join("add", *terms))


def _make_scale(negative):
    def make(draw, data, shape, depth, want):
        rng = _seed(draw)
        v = child(draw, data, shape, depth - 1, want)
        c_name, c = data.add(-positive(rng, ()) if negative else positive(rng, ()))
        return Node(f"{c_name} * {par(v.text)}", lambda vs: c * v.cvx(vs), shape,
                    _times(data.params[c_name][1], v.sign), **_join("scale_neg" if negative else "scale_pos", v))
    return make


def make_sum(draw, data, shape, depth, want):
    inner = draw.choice([VECTOR, MATRIX])
    v = child(draw, data, inner, depth - 1, want)
    return Node(f"sum({v.text})", lambda vs: cp.sum(v.cvx(vs)), SCALAR, v.sign, **_join("sum", v))


def _make_weighted_sum(negative):
    def make(draw, data, shape, depth, want):
        rng = _seed(draw)
        inner = draw.choice([VECTOR, MATRIX])
        v = child(draw, data, inner, depth - 1, want)
        w_name, w = data.add(-positive(rng, inner) if negative else
                             positive(rng, inner) if want == POS else nonneg(rng, inner))
        sign = _times(data.params[w_name][1], v.sign)
        return Node(f"{w_name} {full(inner)} {par(v.text)}", lambda vs: cp.sum(cp.multiply(w, v.cvx(vs))),
                    SCALAR, sign, **_join("wsum_neg" if negative else "wsum_nonneg", v))
    return make


# --- element-wise functions

def _argument(draw, data, shape, depth, want, domain, arg_want):
    """The argument of an element-wise atom: of sign `arg_want` (POS for 'positive'
    domains), POS too where a positive result needs it; under an 'implicit' domain a free
    affine map a quarter of the time (when no sign is wanted). (argument, implicit)"""
    implicit = domain == "implicit" and want is None and draw.integer(0, 3) == 0
    aw = POS if POS in (arg_want, want) else arg_want
    return child(draw, data, shape, depth - 1, aw, affine=implicit), implicit


def _elementwise(name, text, cvx, sign, domain="real", arg_want=None):
    """An element-wise atom: text(a, shape) and cvx(expr) render it; sign(arg_sign) is the
    result's sign."""
    def make(draw, data, shape, depth, want):
        a, implicit = _argument(draw, data, shape, depth, want, domain, arg_want)
        a_sign = a.sign if not implicit else None
        return Node(text(a.text, shape), lambda vs: cvx(a.cvx(vs)), shape, sign(a_sign),
                    **_join(name, a, implicit=implicit and a.sign != POS))
    return make


def _power_atom(name, exponents, domain, arg_want, sign):
    def make(draw, data, shape, depth, want):
        p = draw.choice(exponents)
        a, implicit = _argument(draw, data, shape, depth, want, domain, arg_want)
        exponent = f"({p:g})" if p < 0 else f"{p:g}"
        return Node(f"{par(a.text)} ^ {exponent}", lambda vs: cp.power(a.cvx(vs), p), shape,
                    sign(a.sign if not implicit else None), **_join(name, a, implicit=implicit and a.sign != POS))
    return make


def _entr_text(a, shape):
    if not shape:
        return f"-({par(a)} * log({a}))"
    return f"-({par(a)} {pointwise(shape)} log({a}))"


def _square_sign(s):
    return POS if s in (POS, NEG) else NONNEG


# --- reductions to a scalar

def make_lse(draw, data, shape, depth, want):
    inner = draw.choice([VECTOR, MATRIX])
    v = child(draw, data, inner, depth - 1)
    return Node(f"log(sum(exp({v.text})))", lambda vs: cp.log_sum_exp(v.cvx(vs)), SCALAR, None,
                **_join("lse", v))


def _make_quad(kind):
    """v^T P v for a vector v, P psd, nsd or indefinite (declared so)."""
    def make(draw, data, shape, depth, want):
        rng = _seed(draw)
        v = child(draw, data, VECTOR, depth - 1)
        value = {"psd": psd, "nsd": lambda r: -psd(r), "symmetric": indefinite}[kind](rng)
        p_name, p = data.add(value, matrix_attributes(value, kind))
        sign = {"psd": NONNEG, "nsd": NONPOS, "symmetric": None}[kind]
        return Node(f"{par(v.text)} *(i,ij->j) {p_name} *(j,j->) {par(v.text)}",
                    lambda vs: cp.quad_form(v.cvx(vs), p), SCALAR, sign,
                    **_join({"psd": "quad_psd", "nsd": "quad_nsd", "symmetric": "quad_indef"}[kind], v))
    return make


def make_quad_over_lin(draw, data, shape, depth, want):
    """sum(v^2) / y with y > 0 a scalar: cp.quad_over_lin(v, y)."""
    inner = draw.choice(SHAPES)
    v = child(draw, data, inner, depth - 1)
    y = child(draw, data, SCALAR, depth - 1, POS)
    top = f"sum({par(v.text)} ^ 2)" if inner else f"{par(v.text)} ^ 2"
    return Node(f"{top} / {par(y.text)}", lambda vs: cp.quad_over_lin(v.cvx(vs), y.cvx(vs)), SCALAR,
                NONNEG, **_join("quad_over_lin", v, y))


def make_self_product(draw, data, shape, depth, want):
    """v . v written as a product (x*x, <v, v>): DCP rejects it, it is a sum of squares."""
    inner = draw.choice(SHAPES)
    v = child(draw, data, inner, depth - 1)
    text = f"{par(v.text)} * {par(v.text)}" if not inner else f"{par(v.text)} {full(inner)} {par(v.text)}"

    def cvx(vs):
        e = v.cvx(vs)
        return cp.multiply(e, e) if not inner else cp.sum(cp.multiply(e, e))
    return Node(text, cvx, SCALAR, NONNEG, **_join("self_product", v))


ANY_SIGN, POS_SIGN, AFFINE = (None, NONNEG, POS), (None,), (None, NONNEG, POS, IMPLICIT)
ATOMS: dict[str, Atom] = {a.name: a for a in [
    # leaves and affine maps
    Atom("var", "leaf", SHAPES, AFFINE, "real", make_var),
    Atom("affine_elementwise", "affine", SHAPES, AFFINE, "real", make_elementwise_affine),
    Atom("matvec", "affine", (VECTOR,), AFFINE, "real", make_matvec),
    Atom("vecmat", "affine", (VECTOR,), AFFINE, "real", make_vecmat),
    Atom("dot", "affine", (SCALAR,), AFFINE, "real", _make_contraction(VECTOR), weight=1),
    Atom("trace", "affine", (SCALAR,), AFFINE, "real", _make_contraction(MATRIX), weight=1),
    Atom("broadcast", "affine", (VECTOR, MATRIX), AFFINE, "real", make_broadcast),
    # combinations
    Atom("add", "combine", SHAPES, ANY_SIGN, "real", make_add, weight=1),
    Atom("scale_pos", "combine", SHAPES, ANY_SIGN, "real", _make_scale(False), weight=1),
    Atom("scale_neg", "combine", SHAPES, POS_SIGN, "real", _make_scale(True), weight=1),
    Atom("sum", "affine", (SCALAR,), ANY_SIGN, "real", make_sum),
    Atom("wsum_nonneg", "affine", (SCALAR,), ANY_SIGN, "real", _make_weighted_sum(False), weight=1),
    Atom("wsum_neg", "affine", (SCALAR,), POS_SIGN, "real", _make_weighted_sum(True), weight=1),
    # element-wise functions
    Atom("exp", "elementwise", SHAPES, ANY_SIGN, "real",
         _elementwise("exp", lambda a, s: f"exp({a})", cp.exp, lambda s: POS)),
    Atom("log", "elementwise", SHAPES, POS_SIGN, "implicit",
         _elementwise("log", lambda a, s: f"log({a})", cp.log, lambda s: None, "implicit", POS)),
    Atom("entr", "elementwise", SHAPES, POS_SIGN, "positive",
         _elementwise("entr", _entr_text, cp.entr, lambda s: None, "positive", POS)),
    Atom("square", "elementwise", SHAPES, ANY_SIGN, "real",
         _power_atom("square", (2, 4), "real", None, _square_sign)),
    Atom("power_frac", "elementwise", SHAPES, ANY_SIGN, "implicit",
         _power_atom("power_frac", (0.25, 0.5, 0.75), "implicit", POS, lambda s: POS if s == POS else NONNEG)),
    Atom("power_gt1", "elementwise", SHAPES, ANY_SIGN, "positive",
         _power_atom("power_gt1", (1.5, 2.5, 3), "positive", POS, lambda s: POS)),
    Atom("power_neg", "elementwise", SHAPES, ANY_SIGN, "positive",
         _power_atom("power_neg", (-0.5, -1, -1.5, -2), "positive", POS, lambda s: POS)),
    Atom("inv", "elementwise", SHAPES, ANY_SIGN, "positive",
         _elementwise("inv", lambda a, s: f"1 / {par(a)}", cp.inv_pos, lambda s: POS, "positive", POS)),
    Atom("sqrt", "elementwise", SHAPES, ANY_SIGN, "implicit",
         _elementwise("sqrt", lambda a, s: f"sqrt({a})", cp.sqrt, lambda s: POS if s == POS else NONNEG,
                      "implicit", POS)),
    Atom("logistic", "elementwise", SHAPES, ANY_SIGN, "real",
         _elementwise("logistic", lambda a, s: f"log(1 + exp({a}))", cp.logistic, lambda s: POS)),
    # reductions
    Atom("lse", "reduce", (SCALAR,), POS_SIGN, "real", make_lse),
    Atom("quad_psd", "reduce", (SCALAR,), (None, NONNEG), "real", _make_quad("psd")),
    Atom("quad_nsd", "reduce", (SCALAR,), POS_SIGN, "real", _make_quad("nsd"), weight=1),
    Atom("quad_indef", "reduce", (SCALAR,), POS_SIGN, "real", _make_quad("symmetric"), weight=1),
    Atom("quad_over_lin", "reduce", (SCALAR,), (None, NONNEG), "real", make_quad_over_lin),
    Atom("self_product", "reduce", (SCALAR,), (None, NONNEG), "real", make_self_product, dcp=False, weight=1),
]}
NONLINEAR = [n for n, a in ATOMS.items() if a.kind in ("elementwise",) or n in
             ("lse", "quad_psd", "quad_nsd", "quad_indef", "quad_over_lin", "self_product")]


# ----------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    """One random expression: problem text, parameter values, and its CVXPY twin."""

    node: Node = field(repr=False)
    params: dict = field(repr=False)
    curvature: str | None = None      # the curvature built (tests/dcp_nested.py); None: drawn freely

    @property
    def expr_text(self) -> str:
        return self.node.text

    @property
    def text(self) -> str:
        lines = [f"parameter {n}" + _dims(shape) + (f" {attrs}" if attrs else "")
                 for n, (shape, attrs, _) in self.params.items()]
        for name in VARIABLES:
            if name in self.node.names:
                shape, pos = VARIABLES[name]
                lines.append(f"variable {name}" + (f"[{', '.join(map(str, shape))}]" if shape else "")
                             + (" pos" if pos else ""))
        return "\n".join(lines + [f"expression {self.node.text}"])

    @property
    def data(self) -> dict[str, np.ndarray]:
        return {n: v for n, (_, _, v) in self.params.items()}

    @property
    def atoms(self) -> frozenset:
        """The atoms used (affine maps and variables included)."""
        return frozenset(self.node.atoms)

    @property
    def nonlinear(self) -> frozenset:
        return frozenset(a for a in self.node.atoms if a in NONLINEAR)

    @property
    def implicit(self) -> bool:
        return self.node.implicit

    @property
    def names(self) -> list[str]:
        return [n for n in VARIABLES if n in self.node.names]

    def cvxpy(self):
        """(expression, variables by name): fresh CVXPY variables, `pos=True` where declared pos."""
        variables = {n: cp.Variable(VARIABLES[n][0], name=n, pos=VARIABLES[n][1]) for n in self.names}
        return self.node.cvx(variables), variables

    def __str__(self) -> str:
        return self.text


def build_case(draw: Draws, depth=None) -> Case:
    """A random `Case`: a scalar expression of nesting depth 1 to 4 (default: drawn)."""
    depth = draw.integer(1, 4) if depth is None else depth
    data = Data()
    return Case(child(draw, data, SCALAR, depth), data.params)


@st.composite
def cases(draw, depth=None):
    """The hypothesis strategy of `Case`s."""
    return build_case(Draws(draw), depth)


def random_cases(n: int, seed: int = 0, depth=None) -> list[Case]:
    """n cases from a seeded random.Random (outside hypothesis: the benchmark)."""
    import random
    rng = random.Random(seed)
    return [build_case(Draws(rng=rng), depth) for _ in range(n)]


# ----------------------------------------------------------------------------- evaluation

def evaluate(expr, variables: dict, point: dict) -> float:
    """The CVXPY expression's value with each variable set to point[name]; nan where it is
    undefined (outside an implicit domain, or a pos variable at a value <= 0)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            for name, var in variables.items():
                var.value = np.asarray(point[name], dtype=float).reshape(var.shape)
            value = expr.value
        except ValueError:
            return math.nan
    return math.nan if value is None else float(np.asarray(value).reshape(()))


def second_difference(expr, variables, point, direction, h) -> tuple[float, float]:
    """(f(p + h d) - 2 f(p) + f(p - h d), |f(p + h d)| + 2 |f(p)| + |f(p - h d)|) through
    CVXPY; direction entries absent are 0."""
    def at(t):
        return evaluate(expr, variables, {n: point[n] + t * direction.get(n, 0.0) for n in variables})
    fp, f0, fm = at(h), at(0.0), at(-h)
    return fp - 2 * f0 + fm, abs(fp) + 2 * abs(f0) + abs(fm)


def sample_point(case: Case, rng: np.random.Generator, scale: float = 1.0) -> dict[str, np.ndarray]:
    """A point of the declared domain: free entries normal, pos entries exponential."""
    out = {}
    for name in case.names:
        shape, pos = VARIABLES[name]
        out[name] = scale * (rng.exponential(size=shape) + 1e-3 if pos else rng.standard_normal(size=shape))
    return out


# ----------------------------------------------------------------------------- comparing the two

KINDS = ("convex", "concave")
CATEGORIES = ("both proven", "only convexcheck proves", "only DCP proves", "convexcheck disproved",
              "both unknown", "contradiction")


@dataclass
class Outcome:
    """convexcheck's and CVXPY's verdicts on one case, and the independent numeric checks.

    `dcp[kind]`: CVXPY's expr.is_convex() / is_concave(); `affine`: expr.is_affine();
    `status[kind]`: convexcheck's 'proven' / 'disproved' / 'unknown'; `witness_error[kind]`:
    why a 'disproved' witness does not verify through CVXPY (None: it does);
    `proof_error[kind]`: a violation of a 'proven' side found by second differences of the
    CVXPY expression at random domain points (None: none found)."""

    case: Case
    dcp: dict
    affine: bool
    status: dict
    witness_error: dict = field(default_factory=dict)
    proof_error: dict = field(default_factory=dict)
    report: object = None

    def category(self, kind: str) -> str:
        """Where this case falls for `kind` (one of CATEGORIES)."""
        other = KINDS[1 - KINDS.index(kind)]
        status, dcp = self.status[kind], self.dcp[kind]
        if self.witness_error.get(kind) or self.proof_error.get(kind):
            return "contradiction"
        if status == "disproved":
            return "contradiction" if dcp else "convexcheck disproved"
        if status == "proven":
            # DCP proves the other side only: both hold only for an affine function. CVXPY
            # may not see it (t^2/t); convexcheck then has proven both sides, and the
            # numeric checks of both (proof_error) stand for the function being affine.
            if self.dcp[other] and not dcp and not self.affine and self.status[other] != "proven":
                return "contradiction"
            return "both proven" if dcp else "only convexcheck proves"
        return "only DCP proves" if dcp else "both unknown"


def compare(case: Case, samples: int = 6, seed: int = 0, points: int = 4, check_seed: int = 1) -> Outcome:
    """Analyse `case` with convexcheck (its data as the parameters' values) and CVXPY, and
    check numerically: every witness through CVXPY, every proof at `points` random points."""
    import convexcheck
    report = convexcheck.analyze(case.text, samples=samples, seed=seed, data=case.data)
    expr, variables = case.cvxpy()
    part = report.objective
    out = Outcome(case, {"convex": expr.is_convex(), "concave": expr.is_concave()}, expr.is_affine(),
                  {k: getattr(part, k).status for k in KINDS}, report=report)
    rng = np.random.default_rng(check_seed)
    for kind in KINDS:
        side = getattr(part, kind)
        if side.status == "disproved":
            out.witness_error[kind] = witness_error(case, expr, variables, side.witness, kind)
        elif side.status == "proven":
            out.proof_error[kind] = proof_violation(case, expr, variables, kind, rng, points)
    return out


def witness_error(case: Case, expr, variables, witness, kind: str) -> str | None:
    """None if the witness of 'not `kind`' verifies when the CVXPY expression is evaluated
    at its point: the second difference f(p + h d) - 2 f(p) + f(p - h d) at its step h has
    the claimed sign and agrees with convexcheck's within 50% (its own test between two
    step sizes) or within rounding (NOISE, 1e3 eps of the values' magnitude, the noise
    level convexcheck's witnesses clear); else why not."""
    for name, value in case.data.items():
        if not np.array_equal(witness.point[name], value):
            return f"the witness moved parameter {name}"
    if set(witness.direction) - set(variables):
        return f"the witness moves {sorted(set(witness.direction) - set(variables))}, not variables"
    d2, magnitude = second_difference(expr, variables, witness.point, witness.direction, witness.step)
    claimed = witness.second_difference * witness.step ** 2          # < 0 against convex
    want = -1.0 if kind == "convex" else 1.0
    if not math.isfinite(d2):
        return f"CVXPY is not finite at the witness (second difference {d2})"
    noise = NOISE * magnitude
    if not want * d2 > 0:
        return f"CVXPY's second difference {d2:.6g} does not have the claimed sign (convexcheck: {claimed:.6g})"
    if abs(d2 - claimed) > 0.5 * abs(claimed) + noise:
        return f"CVXPY's second difference {d2:.6g} differs from convexcheck's {claimed:.6g}"
    return None


def proof_violation(case: Case, expr, variables, kind: str, rng, points: int = 4, directions: int = 3,
                    scales=(0.3, 1.0, 3.0)) -> str | None:
    """A fresh look at a 'proven' side: second differences of the CVXPY expression along
    random directions at random points of the declared domain, with steps as large as the
    domain allows (convexity is midpoint convexity along lines: exact at any step). None if
    every one has the right sign up to rounding (1e-9 of the values' magnitude); else the
    violation. Points outside an implicit domain (NaN) are skipped."""
    sign = 1.0 if kind == "convex" else -1.0
    for k in range(points):
        point = sample_point(case, rng, scales[k % len(scales)])
        for _ in range(directions):
            direction = {n: rng.standard_normal(np.shape(point[n])) for n in case.names}
            h = _step(case, point, direction, scales[k % len(scales)])
            d2, magnitude = second_difference(expr, variables, point, direction, h)
            if math.isfinite(d2) and sign * d2 < -1e-9 * magnitude:
                return (f"{kind} claimed, but CVXPY's second difference is {d2:.6g} at "
                        f"{ {n: np.round(v, 4).tolist() for n, v in point.items()} } along "
                        f"{ {n: np.round(v, 4).tolist() for n, v in direction.items()} }, step {h:.3g}")
    return None


def _step(case: Case, point, direction, scale: float) -> float:
    """A step that keeps p +- h d in the declared domain (pos variables stay > 0)."""
    h = scale
    for n in case.names:
        if VARIABLES[n][1]:
            d = np.abs(direction[n])
            if np.any(d > 0):
                h = min(h, 0.9 * float(np.min(point[n][d > 0] / d[d > 0])))
    return h


def _dims(shape: tuple) -> str:
    """`[2, 3]` for a shape, nothing for a scalar."""
    return f"[{', '.join(map(str, shape))}]" if shape else ""
