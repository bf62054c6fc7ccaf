"""The on-disk cache (tensorcalc.store.cache): hits give the same results, keys follow what the
entries depend on, bad entries are ignored and never executed, writers never clash.
The attacks of issue 24 (planted, edited, swapped and non-regular entries, shared folders)
are in test_cache_attacks.py."""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import pathlib
import sys

import numpy as np
import pytest
from cache_tools import body, entries, forget, name_parts

import solvers
import tensorcalc as tc
from solvers.objective import smooth as objective
from solvers.task import convexity
from tensorcalc import memo
from tensorcalc.codegen import sourcecheck
from tensorcalc.store import cache
from tensorcalc.store import files as cachefiles

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOGISTIC = (ROOT / "examples" / "logistic_regression_l2.tc").read_text()
PARSE = sys.modules["tensorcalc.language.parse"]
_forget = forget


def _data(m=60, n=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(rng.uniform(size=m) < 0.5, 1.0, -1.0)
    return {"X": X, "y": y, "s": 1.0 / m, "lam": 1.0 / m}


def _solve(data):
    return solvers.minimize(LOGISTIC, data=data, method="newton")


_entries = entries


def test_hit_gives_identical_results_and_skips_compilation(cache_folder, monkeypatch):
    first = _solve(_data())
    kinds = {p.name.split("-")[0] for p in _entries(cache_folder)}
    assert kinds == {"parser", "program", "compiled", "verdict"}
    _forget()

    def refuse(*args, **kwargs):
        raise AssertionError("compiled although the cache holds the program")
    monkeypatch.setattr(tc, "compile", refuse)
    monkeypatch.setattr(convexity, "analyze", refuse)
    second = _solve(_data())
    assert second.success and first.success
    assert np.array_equal(first.x["w"], second.x["w"])
    assert first.fun == second.fun and first.nit == second.nit
    assert second.convexity == first.convexity == "convex"


def test_one_entry_serves_every_shape(cache_folder):
    _solve(_data(40, 3))
    count = len(_entries(cache_folder))
    _forget()
    d = _data(80, 6, seed=1)
    res = _solve(d)
    assert len(_entries(cache_folder)) == count                 # nothing new was compiled
    z = d["y"] * (d["X"] @ res.x["w"])
    g = -d["X"].T @ (d["y"] / (1 + np.exp(z))) / len(z) + d["lam"] * res.x["w"]
    assert np.abs(g).max() <= 1e-8                         # independent check of the optimum


def test_key_changes_with_text_names_kind_and_version():
    from convexcheck import load_problem
    p1 = load_problem(LOGISTIC)
    p2 = load_problem(LOGISTIC.replace("lam / 2", "lam / 3"))
    e1, e2 = p1.objective.expr, p2.objective.expr
    base = cache.key("program", e1, ("w",), "hess")
    assert base == cache.key("program", e1, ("w",), "hess")
    others = [cache.key("program", e2, ("w",), "hess"), cache.key("program", e1, ("w",), "grad"),
              cache.key("program", e1, ("v",), "hess"), cache.key("compiled", e1, ("w",), "hess"),
              cache.key("program", e1, ("w",), "hess", version="another")]
    assert base not in others and len(set(others)) == len(others)
    decl = tuple(p1.declarations.items())
    wider = tuple(p1.declarations.items()) + (("extra", p1.declarations["w"]),)
    assert cache.key("verdict", e1, "minimize", decl, ()) != cache.key("verdict", e1, "minimize", wider, ())
    assert cache.key("verdict", e1, "minimize", decl, ()) != cache.key("verdict", e1, "maximize", decl, ())


def test_floats_in_keys_are_exact():
    assert cache.key("k", 0.1) != cache.key("k", 0.1 + 2 ** -56)
    with pytest.raises(cache.Uncacheable):
        cache.encode(object())


def test_corrupt_entries_are_ignored_and_rewritten(cache_folder):
    first = _solve(_data())
    before = {p.name: p.read_bytes() for p in _entries(cache_folder)}
    for path in _entries(cache_folder):
        path.write_bytes(b"\x00{not json" if "program" in path.name else path.read_bytes()[:50])
    _forget()
    with pytest.warns(cache.CacheWarning, match="failed authentication"):
        second = _solve(_data())
    assert np.array_equal(first.x["w"], second.x["w"])
    for path in _entries(cache_folder):                       # rewritten whole, and authentic again
        kind, digest = name_parts(path)
        assert body(path)["format"] == cache.FORMAT and cache.load(kind, digest) is not None
        assert kind == "parser" or path.read_bytes() == before[path.name]


HOSTILE = [
    "import os\ndef compiled(values, xp, n, _c):\n    return (values,)\n",
    "def compiled(values, xp, n, _c):\n    a = __import__('os')\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = xp.save('f', values['x'])\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = values['x'].__class__\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = open('f', 'w')\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = (lambda: 1)()\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = [v for v in values]\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    xp = 1\n    return (xp,)\n",
    "def compiled(values, xp, n, _c):\n    a = _out(xp, values['x'], (n['x.0'], ), False, key=1)\n    return (a,)\n",
    "@print\ndef compiled(values, xp, n, _c):\n    return (values,)\n",
    "def compiled(values, xp, n, _c, extra=print('x')):\n    return (values,)\n",
    "def compiled(values, xp, n, _c):\n    a = getattr(xp, 'save')\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = values[values]\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    return (values,)\nprint('after')\n",
    "def compiled(values, xp, n, _c):\n    a = _c[0].__call__\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    global xp\n    return (values,)\n",
    "def compiled(values, xp, n, _c):\n    while True: pass\n",
    "not python at all (",
]


HOSTILE += [
    "def compiled(values, xp, n, _c):\n    a = 9 ** 9 ** 9\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = _f(1.0) * (10 ** 10)\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = xp.full((99999999999999, ), _f(0.0))\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = -2 * -2\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = values[10 ** 100]\n    return (a,)\n",
    "def compiled(values, xp, n, _c):\n    a = b'bytes'\n    return (a,)\n",
    "def compiled(values, xp, n, _c, *, k=print):\n    return (values,)\n",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_check_source_refuses_what_codegen_never_writes(source):
    assert not sourcecheck.check_source(source)
    if source.startswith("def"):                                # and nothing refused is ever run
        with pytest.raises(tc.TensorCalcError, match="source check"):
            tc.codegen.compiled.load_source(source)


def test_check_source_admits_every_generated_program():
    from convexcheck import load_problem
    seen = 0
    for path in sorted((ROOT / "examples").glob("*.tc")):
        try:
            problem = load_problem(path.read_text())
        except Exception:                                   # noqa: BLE001 - examples needing data files
            continue
        expr = problem.objective.expr
        names = tuple(n for n, d in problem.declarations.items() if d.kind == "variable" and n in tc.variables(expr))
        for kind in ("value", "grad", "hess"):
            try:
                fn = objective._built(expr, names, kind)[0]
            except Exception:                               # noqa: BLE001 - too large to compile, etc.
                continue
            assert sourcecheck.check_source(fn.source), f"{path.name} {kind}"
            seen += 1
    assert seen >= 20


def test_no_source_is_stored_and_every_program_is_generated_afresh(cache_folder):
    _solve(_data())
    for path in _entries(cache_folder, "program") + _entries(cache_folder, "compiled"):
        assert "source" not in json.dumps(body(path)) and "def compiled" not in path.read_text()


def test_cached_parser_parses_as_a_fresh_one(cache_folder):
    from convexcheck import load_problem
    texts = [p.read_text() for p in sorted((ROOT / "examples").glob("*.tc"))]
    fresh = [load_problem(t) for t in texts]
    memo.clear()
    assert _entries(cache_folder, "parser")
    for text, before in zip(texts, fresh):
        after = load_problem(text)
        assert after.objective.expr is before.objective.expr          # hash-consed: the same node
        assert after.declarations == before.declarations and after.constraints == before.constraints
    with pytest.raises(tc.ParseError, match="line"):
        PARSE.read_problem("variable x[n]\nminimize sum(x .* ")


def test_cache_can_be_disabled(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "cc"))
    monkeypatch.setenv(cache.ENV_SWITCH, "0")
    _forget()
    try:
        assert cache.directory() is None
        assert _solve(_data()).success
        assert not (tmp_path / "cc").exists()
        monkeypatch.delenv(cache.ENV_SWITCH)
        monkeypatch.setenv(cache.ENV_DIR, "")
        assert cache.directory() is None
    finally:
        _forget()


def _writer(cache_folder: str, seed: int, rounds: int) -> None:
    import os
    os.environ[cache.ENV_DIR] = cache_folder
    for k in range(rounds):
        cache.store("race", "a" * 64, {"seed": seed, "blob": [seed] * (1000 + 5000 * (k % 3))})


def test_concurrent_writers_leave_one_whole_entry(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path))
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), s, 40)) for s in range(3)]
    for p in procs:
        p.start()
    reads = []
    while any(p.is_alive() for p in procs):
        reads.append(cache.load("race", "a" * 64))
    for p in procs:
        p.join()
        assert p.exitcode == 0
    reads.append(cache.load("race", "a" * 64))
    whole = [r for r in reads if r is not None]
    assert whole and all(set(r["blob"]) == {r["seed"]} for r in whole)
    leftovers = [p.name for p in (tmp_path / cachefiles.FOLDER).iterdir() if p.name != cachefiles.KEY_FILE]
    assert leftovers == ["race-" + "a" * 64 + ".entry"]       # no temporary file left behind


def test_a_full_cache_drops_its_oldest_entries(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path))
    own = tmp_path / cachefiles.FOLDER
    for k in range(12):
        cache.store("many", f"{k:064d}", {"k": k})
        os.utime(own / f"many-{k:064d}.entry", ns=(k * 10**9, k * 10**9))
    with cachefiles.opened(str(tmp_path), create=False) as fd:
        cachefiles.prune(fd, cachefiles.key_of(fd, create=False), limit=8)
    left = sorted(int(p.name[5:-6]) for p in own.glob("many-*.entry"))
    assert left == list(range(6, 12))                       # the six newest of twelve
    assert cache.load("many", f"{11:064d}") == {"k": 11}


def test_a_verdict_whose_analysis_ran_out_of_budget_is_not_kept(cache_folder, monkeypatch):
    import convexcheck
    reports = []

    def spent(problem, samples, verdict_only):
        reports.append(convexcheck.analyze(problem, samples=samples, budget=0, verdict_only=verdict_only))
        return reports[-1]
    monkeypatch.setattr(convexity, "analyze", spent)
    _solve(_data())
    assert reports and reports[0].budget_spent and not _entries(cache_folder, "verdict")
    monkeypatch.undo()
    monkeypatch.setenv(cache.ENV_DIR, str(cache_folder))
    _forget()
    assert _solve(_data()).convexity == "convex" and len(_entries(cache_folder, "verdict")) == 1
