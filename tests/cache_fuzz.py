"""The cache target of the fuzz harness (issue 24): real entries, mutated, truncated,
swapped, planted or replaced by things that are not files, then read back by the very call
that wrote them (`cache.cached` with the recorded kind, key parts and restore).

The rule: nothing escapes, no planted code runs, and every entry that is not sealed with
the user's key gives exactly what a fresh computation gives. Entries edited *and* sealed
with the key (an attacker who stole it, or a writer with a bug) must still never run code
nor raise: the validation behind the tag refuses or rebuilds them through the constructors.

`Bench` fills a private cache folder once by solving and analysing real problems and keeps
the pristine bytes and the reference values; `attack(bench, spec)` runs one input.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import pathlib
import random
import sys
import tempfile
import warnings
from dataclasses import dataclass

import numpy as np
from cache_tools import forget, replace_with
from hypothesis import strategies as st

import convexcheck
import solvers
from convexcheck.problem.reader import parse_problem
from tensorcalc.store import cache
from tensorcalc.store import files as cachefiles

ROOT = pathlib.Path(__file__).resolve().parents[1]
PARSE = sys.modules["tensorcalc.language.parse"]
MUTATIONS = ("flip", "truncate", "append", "empty", "swap", "edit-unsigned", "header", "fifo", "dev-zero",
             "link-other", "folder", "edit-signed")
SIGNED = {"edit-signed"}


@dataclass
class Call:
    kind: str
    parts: tuple
    make: object
    dump: object
    restore: object


def _rng_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = X @ np.arange(1.0, 5.0) + rng.normal(size=30)
    return {
        "logistic_regression_l2.tc": {"X": X, "y": np.sign(y), "s": 1 / 30, "lam": 0.1},
        "ridge.tc": {"X": X, "y": y, "lam": 2.0},
        "least_squares.tc": {"X": X, "y": y},
        "deconvolution.tc": {"h": rng.uniform(size=9), "y": rng.normal(size=128), "lam": 0.5},
        "nnls.tc": None,
    }


class Bench:
    """A cache folder of real entries, their pristine bytes, the calls that read them and
    the values those calls give on pristine entries."""

    def __init__(self):
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="convexcheck-cache-fuzz-"))
        self.marker = self.root / "planted-code-ran"
        self.calls: dict[str, Call] = {}
        with self.active():
            self._fill()
            self.own = self.root / cachefiles.FOLDER
            self.pristine = {p.name: p.read_bytes() for p in self.own.glob("*.entry")}
            self.key = (self.own / cachefiles.KEY_FILE).read_bytes()
            self.reference = {name: fingerprint(self.calls[name].kind, self.value(name)) for name in self.pristine}

    @contextlib.contextmanager
    def active(self):
        """This bench's folder as the cache, the in-process caches empty."""
        before = os.environ.get(cache.ENV_DIR)
        os.environ[cache.ENV_DIR] = str(self.root)
        forget()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        finally:
            forget()
            if before is None:
                os.environ.pop(cache.ENV_DIR, None)
            else:
                os.environ[cache.ENV_DIR] = before

    def _fill(self):
        original = cache.cached

        def recording(kind, parts, make, dump, restore):
            make = functools.cache(make)      # recomputing is not what is tested: once is enough
            with contextlib.suppress(cache.Uncacheable):
                self.calls[f"{kind}-{cache.key(kind, *parts)}.entry"] = Call(kind, parts, make, dump, restore)
            return original(kind, parts, make, dump, restore)
        cache.cached = recording
        try:
            for name, data in _rng_data().items():
                if data is not None:
                    solvers.minimize((ROOT / "examples" / name).read_text(), data=data, method="newton")
            solvers.minimize("variable x\nminimize x^4 - x^2\n", x0={"x": 0.0})
            convexcheck.analyze((ROOT / "examples" / "nnls.tc").read_text(), samples=3)
        finally:
            cache.cached = original

    def value(self, name: str):
        """What the call that reads entry `name` gives now (`cache.cached` never raises)."""
        call = self.calls[name]
        forget()
        return cache.cached(call.kind, call.parts, call.make, call.dump, call.restore)[0]

    def reset(self, name: str):
        path = self.own / name
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        elif path.exists() or path.is_symlink():
            path.unlink()
        path.write_bytes(self.pristine[name])
        self.marker.unlink(missing_ok=True)


CANARIES = ["variable x\nminimize 0 - x^2 + 3 * x\n",
            "parameter A[n, n] psd\nvariable x[n]\nminimize x' * A * x - sum(x)\n"]


def fingerprint(kind: str, value):
    """A value comparable with ==: sources and hash-consed expressions of programs, the
    problems a parser reads from CANARIES, verdicts as they are."""
    if kind == "program":
        fn, blocks, invariants = value
        return fn.source, fn.exprs, blocks, tuple(sorted(invariants.items(), key=lambda kv: kv[0]))
    if kind == "compiled":
        return value.source, value.exprs
    if kind == "parser":
        saved, PARSE._parser = PARSE._parser, lambda: value
        try:
            parse_problem.cache_clear()
            return tuple(_problem(convexcheck.load_problem(text)) for text in CANARIES)
        finally:
            PARSE._parser = saved
            parse_problem.cache_clear()
    return value


def _problem(p):
    return p.objective.expr, p.sense, tuple(p.declarations.items()), p.constraints


# ----------------------------------------------------------------------------- mutations

def _hostile(marker: pathlib.Path):
    code = f"__import__('pathlib').Path({str(marker)!r}).write_text('ran')"
    return [code, 10 ** 40, -1, 0, 1, True, None, "", [], {}, {"f": "nan"}, {"f": code}, {"spec": [["ij"], "k"]},
            1e308, float("nan"), "x" * 1000, [[[]]], ["Delta", [code], [], []], {"__d": [[1, 2]]}, {"__t": [code]}]


def _locations(obj, path=()):
    """Every (container, key) in a JSON tree, breadth-limited."""
    found = []
    stack = [obj]
    while stack and len(found) < 20000:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            found.append((node, k))
            if isinstance(v, (dict, list)):
                stack.append(v)
    return found


def edited(raw: bytes, rng: random.Random, marker: pathlib.Path) -> bytes:
    """The entry body with 1 to 3 JSON edits: a value replaced by a hostile one, a key
    deleted, a list element duplicated or two swapped."""
    entry = json.loads(raw.partition(b"\n")[2].partition(b"\n")[2])
    for _ in range(rng.randint(1, 3)):
        places = _locations(entry)
        if not places:
            break
        node, k = rng.choice(places)
        how = rng.choice(["replace", "replace", "delete", "duplicate", "swap"])
        if how == "replace":
            node[k] = rng.choice(_hostile(marker))
        elif how == "delete" and isinstance(node, dict):
            del node[k]
        elif how == "duplicate" and isinstance(node, list):
            node.insert(k, node[k])
        elif how == "swap" and isinstance(node, list) and len(node) > 1:
            j = rng.randrange(len(node))
            node[k], node[j] = node[j], node[k]
    return json.dumps(entry).encode()


def mutate(bench: Bench, name: str, how: str, seed: int) -> None:
    rng, path = random.Random(seed), bench.own / name
    raw = bench.pristine[name]
    kind, digest = name.partition("-")[0], name.partition("-")[2][:-len(".entry")]
    if how == "flip":
        k = rng.randrange(len(raw))
        path.write_bytes(raw[:k] + bytes([raw[k] ^ (1 << rng.randrange(8))]) + raw[k + 1:])
    elif how == "truncate":
        path.write_bytes(raw[:rng.randrange(len(raw))])
    elif how == "append":
        path.write_bytes(raw + rng.choice([b" ", b"\x00", b"{}", raw[:100]]))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "swap":
        path.write_bytes(bench.pristine[rng.choice(sorted(bench.pristine))])
    elif how == "header":
        path.write_bytes(raw.replace(cachefiles.HEADER, rng.choice([b"", b"convexcheck-cache 1\n", b"\n"]), 1))
    elif how in ("edit-unsigned", "edit-signed"):
        body = edited(raw, rng, bench.marker)
        if how == "edit-signed":
            path.write_bytes(cachefiles.seal(bench.key, kind, digest, body))
        else:
            tag = raw[len(cachefiles.HEADER):].partition(b"\n")[0]
            path.write_bytes(cachefiles.HEADER + tag + b"\n" + body)
    else:
        replace_with(path, how, bench.own / rng.choice(sorted(bench.pristine)))


@dataclass
class Verdict:
    """One input's fate: 'same' (the fresh value), 'changed' (signed edits only: a valid
    entry of another value), or 'bug' with what went wrong."""

    kind: str
    detail: str = ""


def attack(bench: Bench, name: str, how: str, seed: int) -> Verdict:
    kind = bench.calls[name].kind
    with bench.active():
        try:
            mutate(bench, name, how, seed)
            got = bench.value(name)
        except Exception as err:  # noqa: BLE001 - the harness reports what escaped
            return Verdict("bug", f"{type(err).__name__}: {str(err)[:300]}")
        finally:
            ran = bench.marker.exists()
            bench.reset(name)
        try:
            got = fingerprint(kind, got)
        except Exception as err:  # noqa: BLE001 - a value that does not work
            got = err
    if ran:
        return Verdict("bug", "planted code ran")
    if _same(got, bench.reference[name]):
        return Verdict("same")
    if how in SIGNED:
        return Verdict("changed")
    return Verdict("bug", f"an unsigned entry changed the result: {got!r:.200}")


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays compared elementwise: not the same value
        return False


def inputs(bench: Bench):
    """The hypothesis strategy of (entry name, mutation, seed)."""
    return st.tuples(st.sampled_from(sorted(bench.pristine)), st.sampled_from(MUTATIONS), st.integers(0, 2 ** 32 - 1))
