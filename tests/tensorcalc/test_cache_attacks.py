"""The disk cache under attack (issue 24): planted code never runs, edited, swapped and
planted entries change nothing, the user's files stay, links, FIFOs and devices under an
entry's name are skipped at once, and a folder others can write is refused with a warning.
Each test reproduces one attack and asserts the outcome a fresh computation gives."""
from __future__ import annotations

import json
import os
import pathlib
import stat
import subprocess
import sys
import warnings

import numpy as np
import pytest
from cache_tools import body, entries, forget, payload_functions, replace_with, secret, write_body

import convexcheck
import solvers
import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.store import cache
from tensorcalc.store import files as cachefiles

ROOT = pathlib.Path(__file__).resolve().parents[2]
RIDGE = (ROOT / "examples" / "ridge.tc").read_text()
LEAST_SQUARES = (ROOT / "examples" / "least_squares.tc").read_text()
QUARTIC = "variable x\nminimize x^4 - x^2\n"


def _data(seed=0, m=30, n=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    return {"X": X, "y": X @ np.arange(1.0, n + 1) + rng.normal(size=m), "lam": 5.0}


def _ridge():
    return solvers.minimize(RIDGE, data=_data(), method="newton")


def _least_squares():
    d = _data()
    return solvers.minimize(LEAST_SQUARES, data={"X": d["X"], "y": d["y"]}, method="newton")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cache.CacheWarning)
        return fn(*args, **kwargs)


def _plant(marker: pathlib.Path) -> dict:
    """Expression rows whose Delta 'order' is Python that writes `marker` (issue 24, item 1)."""
    code = f"__import__('pathlib').Path({str(marker)!r}).write_text('ran')"
    return {"nodes": [["Delta", [code], [], []]], "outputs": [0]}


# ----------------------------------------------------------------------------- code execution

@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed-with-the-key"])
def test_a_planted_invariant_never_runs(cache_folder, tmp_path, signed):
    logistic = (ROOT / "examples" / "logistic_regression_l2.tc").read_text()
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    data = {"X": X, "y": np.sign(rng.normal(size=40)), "s": 1 / 40, "lam": 0.1}
    first = solvers.minimize(logistic, data=data, method="newton")
    marker = tmp_path / "ran"
    key = secret(cache_folder) if signed else None
    for path in entries(cache_folder, "program"):
        entry = body(path)
        entry["payload"]["invariants"] = {"v0": _plant(marker)}
        for fn in payload_functions(entry):
            fn["exprs"] = _plant(marker)
        write_body(path, entry, key)
    forget()
    second = _quiet(solvers.minimize, logistic, data=data, method="newton")
    assert not marker.exists()
    assert np.array_equal(first.x["w"], second.x["w"]) and second.success


def test_a_hostile_node_parameter_never_reaches_generated_code(tmp_path):
    marker = tmp_path / "ran"
    code = f"__import__('pathlib').Path({str(marker)!r}).write_text('ran')"
    with pytest.raises(tc.TensorCalcError, match="delta's order"):
        dag.delta(code, ())
    node = dag.intern(dag.Delta, (code,), (), ())          # past the constructor, as a bug might
    with pytest.raises((ValueError, tc.TensorCalcError)):
        tc.compile(node)
    assert not marker.exists()


def test_the_rows_of_a_plant_are_refused_whatever_the_node(tmp_path):
    from tensorcalc.store import rebuild
    marker = tmp_path / "ran"
    code = f"__import__('pathlib').Path({str(marker)!r}).write_text('ran')"
    rows = [[["Delta", [code], [], []]], [["Delta", [True], [], []]], [["Delta", [10 ** 40], [], []]],
            [["Var", ["x; import os"], [], []]], [["Const", [{"f": "nan"}], [], []]],
            [["Elementwise", ["system"], [0], []]], [["Gather", [code, [], [], [], []], [0], []]],
            [["Var", ["x"], [], [["x", -1]]]], [["Sum", [], [5, 6], []]],
            [["Product", [{"spec": [[code], ""]}], [], []]]]
    for nodes in rows:
        with pytest.raises(ValueError):
            rebuild.exprs_from_data({"nodes": nodes, "outputs": [0]})
    assert not marker.exists()


# ----------------------------------------------------------------------------- edits change nothing

def test_an_edited_verdict_cannot_turn_the_second_order_check_off(cache_folder):
    first = solvers.minimize(QUARTIC, x0={"x": 0.0})
    assert first.convexity != "convex"
    for path in entries(cache_folder, "verdict"):
        entry = body(path)
        entry["payload"]["verdict"] = "convex"
        write_body(path, entry, None)                       # the attacker has no key
    forget()
    second = _quiet(solvers.minimize, QUARTIC, x0={"x": 0.0})
    assert second.convexity == first.convexity and second.success == first.success
    assert second.status == first.status and np.array_equal(second.x["x"], first.x["x"])


def test_an_edited_constant_changes_nothing(cache_folder):
    first = _ridge()
    for path in entries(cache_folder, "program") + entries(cache_folder, "compiled"):
        text = path.read_bytes().replace(b'"0x1.0000000000000p+1"', b'"0x1.f400000000000p+9"')  # 2 -> 1000
        path.write_bytes(text)
    forget()
    second = _quiet(_ridge)
    assert np.array_equal(first.x["w"], second.x["w"]) and first.fun == second.fun


def test_another_problems_entry_under_ridges_name_is_refused(cache_folder):
    first = _ridge()
    mine = {p.name: p.read_bytes() for p in entries(cache_folder)}
    forget()
    _least_squares()
    theirs = [p for p in entries(cache_folder, "program") if p.name not in mine]
    for path in entries(cache_folder, "program"):
        if path.name in mine:
            path.write_bytes(theirs[0].read_bytes())         # swapped whole, tag and all
    forget()
    second = _quiet(_ridge)
    assert np.array_equal(first.x["w"], second.x["w"])
    d = _data()
    w = np.linalg.solve(d["X"].T @ d["X"] + d["lam"] * np.eye(4), d["X"].T @ d["y"])
    assert np.allclose(second.x["w"], w, rtol=1e-8, atol=1e-10)      # ridge, not least squares


def test_swapped_parser_tables_do_not_change_a_verdict(cache_folder):
    text = "variable x\nminimize 0 - x^2\n"
    before = convexcheck.analyze(text, samples=5)
    for path in entries(cache_folder, "parser"):
        raw = path.read_bytes()
        swapped = raw.replace(b'"PLUS"', b'"@@@@"').replace(b'"MINUS"', b'"PLUS"').replace(b'"@@@@"', b'"MINUS"')
        path.write_bytes(swapped)
    forget()
    after = _quiet(convexcheck.analyze, text, samples=5)
    assert after.objective.convex.status == before.objective.convex.status != "proven"
    assert after.objective.concave.status == "proven"


def test_a_planted_entry_is_rewritten_so_the_next_run_is_clean(cache_folder):
    _ridge()
    planted = {}
    for path in entries(cache_folder):
        path.write_bytes(cachefiles.HEADER + b"0" * 64 + b"\n" + json.dumps({"payload": {}}).encode())
        planted[path] = path.read_bytes()
    forget()
    with pytest.warns(cache.CacheWarning, match="failed authentication"):
        _ridge()
    for path in planted:
        kind, digest = path.name.split("-")[0], path.name.split("-")[1][:-6]
        assert path.read_bytes() != planted[path] and cache.load(kind, digest) is not None


# ----------------------------------------------------------------------------- the user's files

def test_pruning_never_touches_a_file_it_did_not_write(cache_folder, monkeypatch):
    cache_folder.mkdir(parents=True)
    for k in range(4001):                                   # the user's own JSON files
        (cache_folder / f"user-{k}.json").write_text(json.dumps({"k": k}))
    (cache_folder / ".tmp-user").write_text("mine")
    own = cache_folder / cachefiles.FOLDER
    _ridge()
    stranger = own / ("verdict-" + "b" * 64 + ".entry")
    stranger.write_bytes(cachefiles.HEADER + b"0" * 64 + b"\n{}")    # planted, not authentic
    os.utime(stranger, ns=(0, 0))                          # the oldest of all
    monkeypatch.setattr(cachefiles, "MAX_ENTRIES", 1)
    monkeypatch.setattr(cachefiles.prune, "__defaults__", (1,))
    forget()
    _least_squares()
    assert len(list(cache_folder.glob("user-*.json"))) == 4001 and (cache_folder / ".tmp-user").read_text() == "mine"
    assert stranger.exists()                              # not authentic: not ours to delete
    assert len(entries(cache_folder)) < 8


def test_a_writer_killed_mid_store_leaves_nothing_forever(cache_folder):
    _ridge()
    own = cache_folder / cachefiles.FOLDER
    stale, fresh = own / ".tmp-deadwriter", own / ".tmp-livewriter"
    stale.write_text("half an entry")
    fresh.write_text("being written")
    os.utime(stale, (0, 0))
    forget()
    _least_squares()   # a store prunes
    assert not stale.exists() and fresh.exists()


# ----------------------------------------------------------------------------- not regular files

_CHILD = """
import os, sys, numpy as np, solvers
X = np.arange(12.0).reshape(4, 3) % 5; y = np.ones(4)
r = solvers.minimize(open(sys.argv[1]).read(), data={"X": X, "y": y, "lam": 1.0}, method="newton")
print("ok", r.success)
"""


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder", "link-to-entry"])
def test_a_non_regular_entry_is_skipped_at_once(cache_folder, kind):
    env = {**os.environ, cache.ENV_DIR: str(cache_folder)}
    run = [sys.executable, "-c", _CHILD, str(ROOT / "examples" / "ridge.tc")]
    assert subprocess.run(run, env=env, capture_output=True, text=True, timeout=120).returncode == 0
    paths = entries(cache_folder)
    for path in paths:
        replace_with(path, kind, paths[0] if path != paths[0] else paths[1])
    done = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)   # a hang fails here
    assert done.returncode == 0 and "ok True" in done.stdout, done.stderr[-2000:]
    for path in paths:                                     # left alone: not ours to replace
        assert path.is_symlink() or not path.is_file()


# ----------------------------------------------------------------------------- the folder

def test_a_folder_writable_by_others_is_refused_with_a_warning(cache_folder):
    cache_folder.mkdir(parents=True)
    cache_folder.chmod(0o777)
    with pytest.warns(cache.CacheWarning, match="writable by other users"):
        assert _ridge().success
    assert not (cache_folder / cachefiles.FOLDER).exists()


def test_a_sticky_shared_folder_holds_a_private_one(cache_folder):
    cache_folder.mkdir(parents=True)
    cache_folder.chmod(0o1777)
    _ridge()
    own = cache_folder / cachefiles.FOLDER
    assert stat.S_IMODE(own.stat().st_mode) == 0o700 and entries(cache_folder)
    assert stat.S_IMODE((own / cachefiles.KEY_FILE).stat().st_mode) == 0o600


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown to another user needs root")
def test_a_folder_owned_by_another_user_is_refused(cache_folder):
    cache_folder.mkdir(parents=True)
    os.chown(cache_folder, 12345, 12345)
    with pytest.warns(cache.CacheWarning, match="belongs to another user"):
        assert _ridge().success
    assert not (cache_folder / cachefiles.FOLDER).exists()


def test_an_entries_folder_opened_to_others_is_refused(cache_folder):
    _ridge()
    (cache_folder / cachefiles.FOLDER).chmod(0o755)
    forget()
    with pytest.warns(cache.CacheWarning, match="open to other users"):
        _ridge()


@pytest.mark.parametrize("how", ["readable", "link", "short"])
def test_a_key_in_doubt_turns_the_cache_off(cache_folder, tmp_path, how):
    first = _ridge()
    key = cache_folder / cachefiles.FOLDER / cachefiles.KEY_FILE
    if how == "readable":
        key.chmod(0o644)
    elif how == "link":
        (tmp_path / "known").write_bytes(key.read_bytes())
        key.unlink()
        key.symlink_to(tmp_path / "known")
    else:
        key.write_bytes(b"short")
    forget()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        second = _ridge()
    assert np.array_equal(first.x["w"], second.x["w"])
    assert any(issubclass(w.category, cache.CacheWarning) for w in seen)


def test_entries_of_the_former_format_are_left_alone(cache_folder):
    cache_folder.mkdir(parents=True)
    old = cache_folder / ("program-" + "c" * 64 + ".json")
    old.write_text('{"format": 1}')
    _ridge()
    assert old.read_text() == '{"format": 1}'


def test_the_commands_print_a_cache_doubt_as_one_warning_line(cache_folder, capsys):
    import convexcheck_cli
    cache_folder.mkdir(parents=True)
    cache_folder.chmod(0o777)
    problem = str(ROOT / "examples" / "quad_over_lin.tc")
    assert convexcheck_cli.convexcheck_main(["analyze", problem, "--samples", "3"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"convexcheck: warning: convexcheck cache: {cache_folder} is writable by other users (mode 777); "
                   "use a private folder; running without the cache"]
