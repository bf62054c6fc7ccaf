"""The cache of parsed problems (convexcheck.problem.reader.parse_problem): a text parsed again
skips lark, the Problem it returns cannot be changed by anyone who holds it, rejected
texts are rejected again with the same message, and files are read on every load."""
import copy
import dataclasses
import pathlib
import pickle

import lark
import numpy as np
import pytest

import solvers
import tensorcalc as tc
from convexcheck.problem import reader as problem_module
from convexcheck.problem.model import Attributes, Declaration, Declarations, Part, Problem
from convexcheck.problem.reader import CACHED_PROBLEMS, ProblemError, load_problem, parse_problem
from solvers.task import prepare as solver_data

ROOT = pathlib.Path(__file__).parents[2]

CONSTRAINED = """\
parameter S[n, n] psd
parameter mu[n]
variable w[n] nonneg
let risk = w' * S * w
minimize risk - mu' * w
subject to
  sum(w) == 1
  w' * w <= 1
"""
NNLS = "parameter A[m, n]\nparameter b[m]\nvariable x[n] nonneg\nminimize sum((A *(ij,j->i) x - b)^2)\n"
THESIS = "declare x 1 A 2\nexpression x *(i,ij->j) A *(j,j->) x\nderivative wrt x"
EXAMPLES = sorted((ROOT / "examples").glob("*.tc"))


@pytest.fixture
def parses(monkeypatch):
    """How many times lark has parsed anything since the fixture started; the cache empty."""
    count = [0]
    real = lark.Lark.parse

    def counting(self, *args, **kwargs):
        count[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(lark.Lark, "parse", counting)
    parse_problem.cache_clear()
    yield count
    parse_problem.cache_clear()


def _fresh(text: str, source: str | None = None) -> Problem:
    """The text parsed without the cache."""
    return problem_module._parse(text, source)


# ----------------------------------------------------------------------------- hits

@pytest.mark.parametrize("text", [NNLS, CONSTRAINED, THESIS])
def test_a_second_parse_skips_the_parser_and_returns_an_equal_problem(parses, text):
    first = parse_problem(text)
    assert parses[0] >= 1
    before = parses[0]
    again = parse_problem(text)
    assert parses[0] == before, "the second parse of the same text called lark"
    assert again is first
    assert again == _fresh(text)                # and equal to what the parser builds
    assert parses[0] > before                   # (the spy does see a real parse)


def test_minimize_and_load_problem_reuse_the_parse(parses):
    rng = np.random.default_rng(0)
    results = []
    for seed in range(3):                       # new data each time, one parse in all
        A, b = rng.standard_normal((12, 4)), rng.standard_normal(12)
        results.append((A, b, solvers.minimize(NNLS, data={"A": A, "b": b}, method="auto")))
        load_problem(NNLS)
    assert parses[0] == 1
    import scipy.optimize
    for A, b, r in results:                     # and each solve is right for its own data
        x, _ = scipy.optimize.nnls(A, b)
        np.testing.assert_allclose(r.x["x"], x, atol=1e-7)


def test_source_is_part_of_the_key(parses):
    a, b = parse_problem(NNLS, source="a.tc"), parse_problem(NNLS, source="b.tc")
    assert (a.source, b.source, parse_problem(NNLS).source) == ("a.tc", "b.tc", None)
    assert parses[0] == 3
    with pytest.raises(ProblemError, match=r"^a\.tc, line 1"):
        parse_problem("variable x[n\nminimize sum(x)\n", source="a.tc")
    with pytest.raises(ProblemError, match=r"^b\.tc, line 1"):
        parse_problem("variable x[n\nminimize sum(x)\n", source="b.tc")


def test_the_key_is_the_exact_text(parses):
    variants = [NNLS, NNLS.rstrip("\n"), NNLS.replace("nonneg", "pos"), "\ufeff" + NNLS, " " + NNLS]
    problems = [parse_problem(t) for t in variants]
    assert parses[0] == len(variants)
    assert [p.text for p in problems] == variants
    assert problems[2].declarations["x"].attributes.lower_strict


# ----------------------------------------------------------------------------- nothing can change a cached problem

_IMMUTABLE = (str, int, float, bool, type(None), bytes, complex, frozenset, tc.Expr, Declarations)


def _reachable(obj):
    """Every object reachable from obj through fields, items, expression nodes and their params."""
    seen, stack = set(), [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        yield o
        if dataclasses.is_dataclass(o):
            stack.extend(getattr(o, f.name) for f in dataclasses.fields(o))
        elif isinstance(o, Declarations):
            stack.extend(o.items())
        elif isinstance(o, (tuple, frozenset)):
            stack.extend(o)
        elif isinstance(o, tc.Expr):
            stack.extend((o.args, o.axes, o.params()))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_nothing_mutable_is_reachable_from_a_problem(path):
    p = load_problem(path)
    kinds = set()
    for o in _reachable(p):
        kinds.add(type(o).__name__)
        if dataclasses.is_dataclass(o):
            assert type(o).__dataclass_params__.frozen, f"{type(o).__name__} is not frozen"
        else:
            assert isinstance(o, (*_IMMUTABLE, tuple)), f"a {type(o).__name__} is reachable from {path.name}"
    assert {"Problem", "Declarations", "Declaration", "Attributes", "Part"} <= kinds


def test_declarations_refuse_every_change(parses):
    p = parse_problem(CONSTRAINED)
    d = p.declarations
    other = Declaration("z", "variable", ())
    for change in (lambda: d.__setitem__("w", other), lambda: d.__delitem__("w"),
                   lambda: setattr(d, "_by_name", {}), lambda: delattr(d, "_by_name"),
                   lambda: d.keys().mapping.__setitem__("w", other)):
        with pytest.raises((TypeError, AttributeError)):
            change()
    for name in ("pop", "popitem", "clear", "update", "setdefault", "__ior__"):
        assert not hasattr(d, name), name
    with pytest.raises(TypeError):
        d |= {"z": other}
    for frozen, field in ((p, "sense"), (p.objective, "expr"), (d["w"], "kind"), (d["w"].attributes, "lower")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(frozen, field, None)
    with pytest.raises(AttributeError):
        p.objective.expr.args = ()
    assert p.declarations is d and parse_problem(CONSTRAINED) is p
    assert p == _fresh(CONSTRAINED)


def test_copies_a_caller_may_change_do_not_reach_the_cache(parses):
    p = parse_problem(CONSTRAINED)
    for mutable in (p.variables, p.parameters, dict(p.declarations)):
        mutable.clear()
    p.dimension_names().append("m")
    changed = dataclasses.replace(p, declarations={**p.declarations, "w": Declaration("w", "parameter", ("n",))})
    assert isinstance(changed.declarations, Declarations)
    assert changed.declarations["w"].kind == "parameter"
    again = parse_problem(CONSTRAINED)
    assert again is p and again == _fresh(CONSTRAINED)
    assert set(again.variables) == {"w"} and set(again.parameters) == {"S", "mu"}
    assert again.dimension_names() == ["n"]


def test_a_solve_holding_a_variable_fixed_leaves_the_cached_problem_alone(parses):
    rng = np.random.default_rng(1)
    A, b = rng.standard_normal((8, 3)), rng.standard_normal(8)
    text = "parameter A[m, n]\nvariable b[m]\nvariable x[n]\nminimize sum((A *(ij,j->i) x - b)^2)\n"
    r = solvers.minimize(text, data={"A": A, "b": b})    # b held fixed: a parameter of that task
    np.testing.assert_allclose(r.x["x"], np.linalg.lstsq(A, b, rcond=None)[0], atol=1e-8)
    cached = parse_problem(text)
    assert cached.declarations["b"].kind == "variable" and parses[0] == 1
    with pytest.raises(solvers.SolverError, match="no value for parameter"):
        solvers.minimize(text.replace("variable b", "parameter b"), data={"A": A})


def test_the_variables_prepare_keeps_are_read_only(parses):
    task = solver_data.prepare(CONSTRAINED, {"S": np.eye(3), "mu": np.ones(3)})
    exprs = tuple(part.expr for part in task.problem.parts)
    present = solver_data._variables_of(exprs)
    assert solver_data._variables_of(exprs) is present
    assert dict(present) == {n: v for e in exprs for n, v in tc.variables(e).items()}
    with pytest.raises(TypeError):
        present["q"] = None


def test_a_problem_pickles_copies_and_hashes():
    p = load_problem(ROOT / "examples" / "constrained.tc")
    for twin in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
        assert twin == p and hash(twin) == hash(p)
        assert isinstance(twin.declarations, Declarations)
    assert p.declarations == dict(p.declarations) and dict(p.declarations) == p.declarations
    assert p.declarations != {} and p.declarations != list(p.declarations)
    built = Problem({"x": Declaration("x", "variable", ())}, "minimize",
                    Part("objective", "x", tc.parse_expr("x", {"x": 0}), "convex"), [])
    assert isinstance(built.declarations, Declarations) and built.constraints == ()
    assert built.declarations["x"].attributes == Attributes()


# ----------------------------------------------------------------------------- errors, files, bounds

@pytest.mark.parametrize("text, line, column", [
    ("variable x[n]\nminimize sum(x .* \n", 2, 13),                        # the bracket check does
    ("variable x[n]\nminimize sum(x .* )\n", 2, 19),                       # lark does
    ("variable x[n]\nvariable x[m]\nminimize sum(x)\n", 2, 10),            # the statements do
    ("variable x[n]\nminimize x\n", 2, 10),                                 # the analysis does
])
def test_a_rejected_text_is_rejected_again_with_the_same_message(parses, monkeypatch, text, line, column):
    reads, real = [], problem_module.read_problem
    monkeypatch.setattr(problem_module, "read_problem", lambda t: reads.append(t) or real(t))
    messages = []
    for _ in range(3):
        with pytest.raises(ProblemError) as err:
            parse_problem(text)
        messages.append((str(err.value), err.value.line, err.value.column))
    assert messages[0] == messages[1] == messages[2]
    assert messages[0][1:] == (line, column), messages[0]
    assert len(reads) == 3, "a rejected text was not read again"
    assert len(problem_module._PARSED) == 0


def test_a_changed_file_is_read_again(parses, tmp_path):
    path = tmp_path / "p.tc"
    path.write_text(NNLS)
    first = load_problem(path)
    assert load_problem(str(path)) is first and parses[0] == 1
    path.write_text(NNLS.replace("nonneg", "<= 2"))
    changed = load_problem(path)
    assert changed.declarations["x"].attributes.upper == 2 and parses[0] == 2
    path.write_text("variable x[n]\nminimize sum(x .* \n")
    with pytest.raises(ProblemError, match=r"p\.tc, line 2"):
        load_problem(path)
    path.write_text(NNLS)
    assert load_problem(path) is first                    # the same text again: the cached parse
    path.unlink()
    with pytest.raises(ProblemError, match="no such file"):
        load_problem(path)


def test_the_cache_is_bounded_by_entries(parses):
    texts = [NNLS.replace("sum(", f"{k + 1} * sum(") for k in range(CACHED_PROBLEMS + 5)]
    for t in texts:
        parse_problem(t)
    assert len(problem_module._PARSED) == CACHED_PROBLEMS
    before = parses[0]
    parse_problem(texts[-1])                              # recent: kept
    assert parses[0] == before
    parse_problem(texts[0])                               # the oldest: dropped, parsed again
    assert parses[0] == before + 1


def test_the_cache_is_bounded_by_characters(parses, monkeypatch):
    monkeypatch.setattr(problem_module, "_PARSED", problem_module._Cache(10, 2 * len(NNLS) + 10))
    long = NNLS + "#" * (3 * len(NNLS)) + "\n"
    parse_problem(long)
    parse_problem(long)
    assert parses[0] == 2 and len(problem_module._PARSED) == 0      # too long to keep
    texts = [NNLS + "#" * k + "\n" for k in range(3)]
    for t in texts:
        parse_problem(t)
    assert len(problem_module._PARSED) == 2
    assert sum(map(len, (k[0] for k in problem_module._PARSED._problems))) <= 2 * len(NNLS) + 10
