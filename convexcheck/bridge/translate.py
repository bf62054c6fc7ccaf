"""The CVXPY bridge: a CVXPY expression or problem as an ordinary convexcheck Problem.

`from_cvxpy` walks the CVXPY expression tree once (a cache keyed by node) with one rule
per atom class (RULES, keyed by class name; a subclass uses its nearest registered base)
and writes problem text for `load_problem`, so `problem.text` shows the translation. Every
name written is a checked identifier; nothing the user wrote is evaluated.

- Variables and parameters keep their names (sanitised, deduplicated: `x`, `x_1`),
  integer shapes and attributes (bridge_data.ATTRIBUTES, and CVXPY `bounds` of one number each);
  parameter values go into `data`. Numeric data becomes a fresh parameter (`c0`, ...)
  with attributes read from its entries (`constant_attributes`) and its value in `data`,
  so `analyze(problem, data=data)` speaks about the actual constants; numbers are inline.
  A promoted (broadcast) scalar expression is written times a parameter of ones of its
  shape, so that its lengths are fixed even where nothing around it fixes them.
- Linear atoms (indexing, reshape, stacking, diag, cumsum, ...) become T . argument with
  a constant tensor T read off the atom's action (`bridge.linear`: a selection's T
  factored by axis when large).
- A vector constraint `g <= h` stays one, entry by entry: `g - h <= 0` (the analysis
  reads it as w . (g - h) for every w >= 0, `convexcheck.problem.entrywise`; the solvers as one
  row per entry, with multipliers of its shape).
- Non-smooth atoms (abs, maximum/minimum, pos/neg, max/min, norm1, norm2 and p-norms,
  norm_inf, huber) are lowered exactly to abs, relu, sums, squares and square roots
  (bridge_nonsmooth.RULES), in the forms the composition certificate reads. Atoms with no
  exact lowering here (`refused.REFUSED`, each with its reason: sum_largest, lambda_max,
  ...) are rejected, as is any atom without a rule.

CVXPY's domains come with the formulas: an atom's own domain on a plain variable becomes
that variable's declaration (`domains`: power(x, 3) makes x nonneg; log_det, tr_inv and
matrix_frac make the X they read pd, a PSD one included, since these atoms are finite
only there and the certificate reads inv(X) only for pd X).
"""
from __future__ import annotations

import hashlib
import itertools
import re
import weakref
from typing import Any

import numpy as np

from convexcheck.analysis import analyze
from convexcheck.bridge import cones
from convexcheck.bridge.atoms import (
    applied,
    call,
    div,
    geo_mean,
    log_sum_exp,
    matmul,
    matrix_frac,
    power,
    quad_form,
    quad_over_lin,
    rel_entr,
    total,
    transpose,
)
from convexcheck.bridge.banded import banded
from convexcheck.bridge.data import (
    Subexpression,
    as_array,
    constant_attributes,
    finite_bound,
    leaf_attributes,
    number,
    onto_cones,
    value_of,
)
from convexcheck.bridge.domains import SIGNS, domain_words, merged
from convexcheck.bridge.epigraphs import RULES as EPIGRAPH_RULES
from convexcheck.bridge.linear import index as _index
from convexcheck.bridge.linear import linear as _linear
from convexcheck.bridge.linear import linear_in_one
from convexcheck.bridge.nonsmooth import RULES as NONSMOOTH_RULES
from convexcheck.bridge.refused import REFUSED, refused
from convexcheck.bridge.text import LETTERS, Node, entry, fit, full, times
from convexcheck.problem.declarations import KEYWORDS, RESERVED
from convexcheck.problem.model import Problem
from convexcheck.problem.reader import ProblemError, load_problem
from convexcheck.report import Report

SHARED = 1 << 16     # constants of at most this many entries that repeat share one parameter
RELATIONS = {"Inequality": "<=", "Equality": "==", "Zero": "==", "NonNeg": ">=", "NonPos": "<="}
CONES = {"SOC": cones.soc, "ExpCone": cones.exp_cone, "PowCone3D": cones.pow_cone}   # a row each


def from_cvxpy(expr_or_problem: Any) -> tuple[Problem, dict[str, np.ndarray]]:
    """(Problem, data): a scalar CVXPY Expression as `expression EXPR` (need "any"), or a
    CVXPY Problem as minimize/maximize with its constraints (<=, >=, ==; cone constraints
    such as PSD are rejected). `data` holds parameter values and the constants' values.
    Rejections raise ProblemError naming the atom, attribute or constraint.

    A Problem's translation is kept (weakly, with the problem) for its next call, as
    CVXPY keeps its own canonicalisation: the text and the constants' arrays (read-only,
    shared between calls) are reused and only the parameters' values are read again,
    so a re-solve after `param.value = ...` translates nothing. Not kept where the text
    depends on a parameter's value (a variable's bounds given as a Parameter). As in
    CVXPY, a constant is a constant: change data through Parameters, not by writing into
    an array a problem was built from."""
    try:
        import cvxpy as cp
    except ImportError:
        raise ImportError("the CVXPY bridge needs cvxpy: pip install cvxpy") from None
    kept = _KEPT.get(expr_or_problem) if isinstance(expr_or_problem, cp.Problem) else None
    if kept is not None:
        return kept.problem, kept.data()
    t = _Translator()
    t.problem = isinstance(expr_or_problem, cp.Problem)
    t.lifting = t.problem and expr_or_problem.is_dcp()
    if isinstance(expr_or_problem, cp.Problem):
        obj = expr_or_problem.objective
        sense = "maximize" if isinstance(obj, cp.Maximize) else "minimize"
        lines = [f"{sense} {t.scalar(t.node(obj.args[0]), 'the objective')}"]
        cons: list[str] = []
        for k, c in enumerate(expr_or_problem.constraints, 1):
            line, t.labels[k] = t.constraint(c, k, len(cons) + 1)
            cons += [line] if line is not None else []
        cons += t.added_lines
        lines += ["subject to", *("  " + c for c in cons)] if cons else []
    elif isinstance(expr_or_problem, cp.Expression):
        lines = [f"expression {t.scalar(t.node(expr_or_problem), 'the expression')}"]
    else:
        raise ProblemError(f"from_cvxpy takes a CVXPY Expression or Problem, not "
                           f"{type(expr_or_problem).__name__}")
    text = "\n".join(["# translated from CVXPY by convexcheck.from_cvxpy", *t.declarations(), *lines])
    problem = load_problem(text)
    if isinstance(expr_or_problem, cp.Problem):
        _NAMES[expr_or_problem] = (dict(t.variables), dict(t.labels))
        if not t.baked:
            _KEPT[expr_or_problem] = _Kept.of(problem, t)
    return problem, dict(t.data)


def variables_of(problem: Any) -> tuple[dict[str, Any], dict[int, str]]:
    """({name: CVXPY Variable}, {k: label}) of a translated Problem: its variables by the
    names the translation gives them (a CVXPY name that is not an identifier, or repeats,
    is renamed), and for its k-th constraint (from 1) the key of its multiplier in a
    solve's result ("constraint j", or "cone of X" for a PSD constraint)."""
    if problem not in _NAMES:
        from_cvxpy(problem)
    return _NAMES[problem]


class _Kept:
    """A Problem's translation kept for its next call: the constants' arrays (made
    read-only) and, per parameter, its name, CVXPY object and declared words."""

    def __init__(self, problem: Problem, constants: dict[str, np.ndarray], parameters: dict[str, tuple[Any, list]]):
        self.problem, self.constants, self.parameters = problem, constants, parameters

    @classmethod
    def of(cls, problem: Problem, t: _Translator) -> _Kept:
        """Kept copies of the constants (the arrays returned may be the caller's own)."""
        constants = {n: np.array(a) for n, a in t.data.items() if n not in t.parameters}
        for array in constants.values():
            array.setflags(write=False)
            _FROZEN[id(array)] = array
        return cls(problem, constants, dict(t.parameters))

    def data(self) -> dict[str, np.ndarray]:
        """The constants and the parameters' values now (those with a value)."""
        data = dict(self.constants)
        for name, (e, words) in self.parameters.items():
            if e.value is not None:
                data[name] = onto_cones(value_of(e, f"parameter {name!r}"), words)
        return data


_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()     # cp.Problem -> _Kept
_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # cp.Problem -> `variables_of`'s answer
_FROZEN: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id -> a kept constant


def frozen(array: object) -> bool:
    """Whether `array` is one of the constants kept with a translated problem: a copy
    this module made and made read-only, still read-only (its values cannot have changed
    since, so a solver may know it by identity)."""
    return _FROZEN.get(id(array)) is array and not getattr(array, "flags").writeable


def analyze_cvxpy(expr_or_problem: Any, samples: int = 20, seed: int = 0) -> Report:
    """`analyze` of the translation (`from_cvxpy`) at the data's values; the translated
    problem text is `report.problem.text`. (`convexcheck.analyze` takes CVXPY objects too.)"""
    problem, data = from_cvxpy(expr_or_problem)
    return analyze(problem, data, samples=samples, seed=seed)


# ----------------------------------------------------------------------------- the walk

class _Translator:
    """One translation: names in use, declaration lines, data, and the node cache."""

    def __init__(self):
        self.names: dict[object, str] = {}          # (kind, CVXPY id) -> name
        self.decls: dict[str, list] = {}            # name -> [kind, dims, words, note]
        self.data: dict[str, np.ndarray] = {}
        self.cache: dict[int, tuple[object, Node]] = {}
        self.constants = 0
        self.shared: dict[tuple, str] = {}          # (shape, dtype, digest) of a constant -> its parameter
        self.parameters: dict[str, tuple[Any, list]] = {}   # name -> (CVXPY Parameter, words)
        self.variables: dict[str, Any] = {}                # name -> CVXPY Variable
        self.labels: dict[int, str] = {}                   # k-th CVXPY constraint -> its multiplier's key
        self.problem = False                               # translating a Problem (not an expression)
        self.lifting = False                               # a DCP problem: epigraph atoms may add variables
        self.covered: dict[tuple[str, str], set] = {}      # (variable, domain word) -> its entries with it
        self.added_lines: list[str] = []                   # constraints after CVXPY's: entrywise bounds, epigraphs
        self.baked = False                          # whether the text depends on a parameter's value

    def node(self, e) -> Node:
        if id(e) not in self.cache:                  # the entry keeps e alive, so ids stay unique
            self.cache[id(e)] = (e, self._translate(e))
        return self.cache[id(e)][1]

    def _translate(self, e) -> Node:
        if not e.variables() and not e.parameters():
            value = value_of(e, Subexpression(e))
            return self.constant(value, broadcast=type(e).__name__ == "Promote")
        found = banded(self, e) if type(e).__name__ == "MulExpression" else None
        node = found if found is not None else _rule(e)(self, e, *[self.node(a) for a in e.args])
        self.domain(e)
        assert node.shape == tuple(e.shape), (type(e).__name__, node.shape, e.shape)
        return node

    def scalar(self, node: Node, what: str) -> str:
        if node.shape and int(np.prod(node.shape)) > 1:
            raise ProblemError(f"{what} has shape {node.shape}; give a scalar (wrap it in cp.sum)")
        return f"sum({node.text})" if node.shape else node.text

    def constraint(self, c, k: int, row: int) -> tuple[str | None, str]:
        """(line or None, the key of its multiplier) of the k-th CVXPY constraint, which
        would be the row-th line (`cones`: a PSD one on a variable is its declaration)."""
        kind = type(c).__name__
        if kind == "PSD":
            return cones.psd(self, c, row)
        if kind in CONES:
            return CONES[kind](self, c), f"constraint {row}"
        rel = RELATIONS.get(kind)
        if rel is None:
            raise ProblemError(f"constraint {k}: CVXPY {kind} constraints are not supported; convexcheck reads "
                               f"<=, >=, == between expressions, X >> Y, SOC, ExpCone and PowCone3D")
        lhs, rhs = [self.node(a) for a in c.args] + [Node("0", (), None, True)] * (2 - len(c.args))
        shape = tuple(np.broadcast_shapes(lhs.shape, rhs.shape))
        if int(np.prod(shape)) == 1:
            return f"{self.scalar(lhs, f'constraint {k}')} {rel} {self.scalar(rhs, f'constraint {k}')}", \
                f"constraint {row}"
        return f"{fit(lhs, shape)} - {fit(rhs, shape)} {rel} 0", f"constraint {row}"

    def declare(self, kind: str, key, name: str, shape, words, user: bool = False) -> str:
        """The identifier for `key`, declared on first use; a renamed user name is noted."""
        if key not in self.names:
            self.names[key] = new = _identifier(name, set(self.names.values()))
            dims = f"[{', '.join(str(int(d)) for d in shape)}]" if shape else ""
            self.decls[new] = [kind, dims, words, f"  # CVXPY name {name!r}" if user and new != name else ""]
        return self.names[key]

    def domain(self, e) -> None:
        """CVXPY's own domain of the atom e on plain variables, as their attributes (`domains`);
        a domain on entries of one counts once every entry has it."""
        for leaf, word, entries in domain_words(e):
            name = self.names.get(("variable", leaf.id))
            if name is None:
                continue
            if entries is not None:
                covered = self.covered.setdefault((name, word), set())
                covered |= entries
                if len(covered) < leaf.size:
                    continue
            self.attribute(leaf, word)

    def attribute(self, leaf, word: str) -> str:
        """Declare the CVXPY variable `leaf` (translated on first use) `word` where that says
        more than its declaration (`domains.merged`); its name."""
        name = self.node(leaf).text
        self.decls[name][2] = merged(self.decls[name][2], word)
        return name

    def leaf(self, e, kind: str) -> Node:
        entrywise: list | None = [] if self.problem and kind == "variable" else None
        words = leaf_attributes(e, kind, entrywise)
        name = self.declare(kind, (kind, e.id), e.name(), e.shape, words, user=True)
        for op, bound in entrywise or []:           # bounds that differ by entry: constraints, after CVXPY's
            self.added_lines.append(f"{name} - {self.constant(finite_bound(bound, name)).text} {op} 0")
        if kind == "parameter":
            self.parameters.setdefault(name, (e, words))
        else:
            self.variables.setdefault(name, e)
        if kind == "parameter" and e.value is not None:
            self.data[name] = onto_cones(value_of(e, f"parameter {name!r}"), words)
            self._signed(name, words)
        self.baked |= kind == "variable" and any(b is not None and b.parameters() for b in _bounds_of(e))
        return Node(name, tuple(e.shape))

    def _signed(self, name: str, words: list) -> None:
        """A parameter declared without a sign takes the sign its value has (p @ sqrt(x) with
        p >= 0 entrywise is concave); the text then depends on the value, so the translation
        is not kept for a re-solve (`baked`), whose new value is read again."""
        if any(w in SIGNS for w in words):
            return
        sign = next((w for w in constant_attributes(self.data[name])[0] if w in SIGNS), None)
        if sign is not None:
            self.decls[name][2] = self.decls[name][2] + [sign]
            self.baked = True

    def constant(self, value, broadcast: bool = False) -> Node:
        """A number inline (also a Promote's uniform array); other data a fresh parameter."""
        arr = as_array(value, "a constant")
        if arr.ndim == 0 or (broadcast and np.all(arr == arr.flat[0])):
            text = number(arr.flat[0])
            return Node(text, arr.shape, text if arr.ndim else None, True)
        key = (arr.shape, arr.dtype.str, hashlib.blake2b(arr.tobytes(), digest_size=16).digest()) \
            if arr.size <= SHARED else None
        if key in self.shared and np.array_equal(self.data[self.shared[key]], arr):
            return Node(self.shared[key], arr.shape)      # the same data again: the same parameter
        words, arr = constant_attributes(arr)
        self.constants += 1
        name = self.declare("parameter", ("constant", self.constants), f"c{self.constants - 1}", arr.shape, words)
        self.data[name] = arr
        if key is not None:
            self.shared[key] = name
        return Node(name, arr.shape)

    def promote(self, a: Node, shape) -> Node:
        """A scalar broadcast to `shape`: a number as it is; other text times a parameter of
        ones of that shape (its data), whose dimensions fix the lengths where nothing
        around does (cp.sum of a promoted scalar)."""
        one = entry(a) or a.text                 # an array of one entry (shape (1,)): its entry
        if a.number or not shape:
            return Node(full(one, shape), tuple(shape), one, a.number)
        key = ("ones", tuple(shape))
        if key not in self.names:
            name = self.declare("parameter", key, "one", shape, ["pos"])
            self.data[name] = np.ones(shape)
        idx = LETTERS[:len(shape)]
        return Node(f"({one} *(,{idx}->{idx}) {self.names[key]})", tuple(shape), one)

    def declarations(self) -> list[str]:
        return [f"{k} {name}{dims} {' '.join(words)}".rstrip() + note for kind in ("variable", "parameter")
                for name, (k, dims, words, note) in self.decls.items() if k == kind]


def _rule(e):
    for cls in type(e).__mro__:
        if cls.__name__ in RULES:
            return RULES[cls.__name__]
    raise ProblemError(f"CVXPY atom {type(e).__name__} has no convexcheck translation; supported: "
                       f"{', '.join(sorted(n for n, r in RULES.items() if r is not refused))}")


def _bounds_of(e) -> tuple:
    """A variable's bounds as CVXPY expressions (None where absent)."""
    bounds = e.attributes.get("bounds")
    return () if bounds is None else tuple(b if b is None or hasattr(b, "parameters") else None for b in bounds)


def _identifier(name: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_]", "_", name)
    base = base if re.match(r"[A-Za-z]", base) else "v" + base
    base = base + "_" if base in RESERVED or base.lower() in KEYWORDS else base
    out = next(n for n in (base if k == 0 else f"{base}_{k}" for k in itertools.count()) if n not in used)
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", out, re.ASCII), out
    return out


# ----------------------------------------------------------------------------- the rules

RULES = {
    "Variable": lambda t, e: t.leaf(e, "variable"),
    "Parameter": lambda t, e: t.leaf(e, "parameter"),
    "AddExpression": lambda t, e, *args: Node("(" + " + ".join(fit(a, e.shape) for a in args) + ")",
                                              tuple(e.shape)),
    "NegExpression": call("(-{0})"),
    "Promote": lambda t, e, a: t.promote(a, tuple(e.shape)),
    "MulExpression": matmul, "DivExpression": div,
    "multiply": lambda t, e, a, b: Node(times(a, b, tuple(e.shape)), tuple(e.shape)),
    "transpose": transpose,
    "Sum": total, "Trace": call("({0} *(ii,->) 1)"),
    "exp": call("exp({0})"), "log": call("log({0})"), "log1p": call("log(1 + {0})"),
    "entr": lambda t, e, a: Node(f"(-{times(a, applied('log', a), a.shape)})", a.shape),
    "xexp": lambda t, e, a: Node(times(a, applied("exp", a), a.shape), a.shape),
    "Power": power, "power": power, "inv_pos": call("({0} ^ (-1))"),
    "logistic": call("log(1 + exp({0}))"), "log_sum_exp": log_sum_exp,
    "QuadForm": quad_form, "quad_over_lin": quad_over_lin, "rel_entr": rel_entr,
    "kl_div": lambda t, e, x, y: rel_entr(t, e, x, y, kl=True),
    "GeoMean": geo_mean,
    "MatrixFrac": matrix_frac, "log_det": call("log(det({0}))"),      # their X: pd by CVXPY's domain (`domain`)
    "tr_inv": call("(inv({0}) *(ii,->) 1)"),
    "index": _index,
    **{name: _linear for name in ("special_index", "reshape", "diag_vec", "diag_mat",
                                  "upper_tri", "cumsum", "Hstack", "Vstack", "Concatenate",
                                  "broadcast_to", "conj", "real")},
    **{name: linear_in_one for name in ("conv", "convolve", "kron")},
    **{name: lambda t, e, a: a for name in ("psd_wrap", "symmetric_wrap", "skew_symmetric_wrap")},
    **{name: refused for name in REFUSED},
}

RULES.update(NONSMOOTH_RULES)
RULES.update(EPIGRAPH_RULES)
