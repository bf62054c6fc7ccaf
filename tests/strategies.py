"""Hypothesis strategies: random well-formed tensorcalc expressions of orders 0 to 3.

Expressions are generated as text over the variables of VARIABLES (values are sampled
in (0.1, 0.9) by the checker). Functions with a restricted domain or a kink (log,
division, fractional and negative powers, abs, relu, sign, arcsin, arccos) only get
arguments that stay in their domain and away from the kink: a variable, or 1 + p with
p positive. That keeps the finite-difference oracle well-conditioned, as does keeping the argument of
exp bounded.
"""
from hypothesis import strategies as st

VARIABLES = {"s": 0, "t": 0, "u": 1, "v": 1, "M": 2, "N": 2, "T": 3}
BY_ORDER = {k: [n for n, o in VARIABLES.items() if o == k] for k in range(4)}
SMOOTH = ("sin", "cos", "tanh", "arctan", "exp")
KINKED = ("abs", "relu", "sign")
MAX_ORDER = 3
KINDS = ("add", "sub", "neg", "product", "product", "product", "product", "smooth", "smooth",
         "kinked", "log", "div", "power", "real_power", "var_power", "arcsin", "matrix", "matrix",
         "delta", "leaf")


@st.composite
def variable(draw, order):
    return draw(st.sampled_from(BY_ORDER[order]))


@st.composite
def number(draw, positive=False):
    value = draw(st.sampled_from([0.5, 2, 3, 1.5, 0.25, 1e-1, 2.5e0]))
    return str(value) if positive or draw(st.booleans()) else f"(-{value})"


@st.composite
def safe(draw, order, depth):
    """An argument bounded away from 0: a variable, or 1 + (something positive)."""
    if depth <= 0 or draw(st.booleans()):
        return draw(variable(order))
    return f"(1 + {draw(positive(order, depth - 1))})"


@st.composite
def bounded(draw, order, depth):
    """An expression with values in [-pi/2, 1]: keeps exp away from towers whose rapid
    oscillation no finite-difference step resolves."""
    if depth <= 0 or draw(st.booleans()):
        return draw(variable(order))
    fn = draw(st.sampled_from(["sin", "cos", "tanh", "arctan"]))
    return f"{fn}({draw(expressions(order, depth - 1))})"


@st.composite
def positive(draw, order, depth):
    """An expression whose values are > 0 when the variables lie in (0.1, 0.9)."""
    kind = draw(st.sampled_from(["var", "num", "exp", "add", "product", "square", "arctan"]))
    if depth <= 0 or kind == "var":
        return draw(variable(order))
    if kind == "num":
        return draw(number(positive=True))
    if kind == "exp":
        return f"exp({draw(bounded(order, depth - 1))})"
    if kind == "add":
        return f"({draw(positive(order, depth - 1))} + {draw(positive(order, depth - 1))})"
    if kind == "product":
        return draw(product(order, depth, positive))
    if kind == "square":
        return f"({draw(positive(order, depth - 1))} ^ 2)"
    return f"arctan({draw(positive(order, depth - 1))})"


@st.composite
def index_strings(draw, order):
    """(s1, s2, s3) with len(s3) == order and every output letter in an input."""
    left = draw(st.integers(0, MAX_ORDER))
    right = draw(st.integers(max(0, order - left), MAX_ORDER))
    out = list("ijk"[:order])
    out = draw(st.permutations(out))
    pool = list("ijk"[:order]) + ["p", "q"]
    slots = [draw(st.sampled_from(pool)) for _ in range(left + right)]
    places = draw(st.permutations(range(left + right)))[:order]
    for letter, place in zip(out, places):
        slots[place] = letter
    return "".join(slots[:left]), "".join(slots[left:]), "".join(out)


@st.composite
def product(draw, order, depth, operand=None):
    operand = operand or expressions
    s1, s2, s3 = draw(index_strings(order))
    a = draw(operand(len(s1), depth - 1))
    b = draw(operand(len(s2), depth - 1))
    return f"({a} *({s1},{s2}->{s3}) {b})"


@st.composite
def expressions(draw, order, depth=4):
    """Any expression of the given order."""
    if depth <= 0:
        return draw(st.one_of(variable(order), number()))
    kind = draw(st.sampled_from(KINDS))
    sub = lambda: draw(expressions(order, depth - 1))  # noqa: E731
    if kind == "leaf":
        return draw(st.one_of(variable(order), number()))
    if kind in ("add", "sub"):
        return f"({sub()} {'+' if kind == 'add' else '-'} {sub()})"
    if kind == "neg":
        return f"-({sub()})"
    if kind == "product":
        return draw(product(order, depth))
    if kind == "smooth":
        fn = draw(st.sampled_from(SMOOTH))
        return f"exp({draw(bounded(order, depth - 1))})" if fn == "exp" else f"{fn}({sub()})"
    if kind == "kinked":
        return f"{draw(st.sampled_from(KINKED))}({draw(safe(order, depth - 1))})"
    if kind == "log":
        return f"log({draw(safe(order, depth - 1))})"
    if kind == "div":
        return f"({sub()} / {draw(safe(order, depth - 1))})"
    if kind == "power":
        return f"({sub()} ^ {draw(st.sampled_from(['2', '3']))})"
    if kind == "real_power":
        return f"({draw(safe(order, depth - 1))} ^ {draw(st.sampled_from(['0.5', '(-1)', '1.5', '(-0.5)']))})"
    if kind == "var_power":
        return f"({draw(safe(order, depth - 1))} ^ {draw(variable(0))})"
    if kind == "arcsin":
        return f"{draw(st.sampled_from(['arcsin', 'arccos']))}({draw(variable(order))})"
    if kind == "matrix":
        return draw(matrix_function(order))
    if order % 2 == 0:
        return f"(delta({order // 2}) *({'ijkl'[:order]},{'ijkl'[:order]}->{'ijkl'[:order]}) {sub()})"
    return sub()


@st.composite
def matrix_function(draw, order):
    m = draw(st.sampled_from(["M", "N", "(M + N)"]))
    if order == 0:
        return f"det({m})"
    if order == 2:
        return f"{draw(st.sampled_from(['inv', 'adj']))}({m})"
    return f"(det({m}) *(,{'ijk'[:order]}->{'ijk'[:order]}) {draw(variable(order))})"
