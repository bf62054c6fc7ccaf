"""A persistent cache, on disk, of compiled programs and analysis verdicts, kept as data.

A fresh process that meets a problem it has seen before reads the generated Python
source, the facts the compiled function checks its inputs against, and the verdict of
the convexity analysis from here instead of differentiating, simplifying, planning and
analysing again (as JAX's persistent compilation cache does for XLA programs).

Where: $CONVEXCHECK_CACHE_DIR, else $XDG_CACHE_HOME/convexcheck, else ~/.cache/convexcheck.
Off: CONVEXCHECK_CACHE=0 (or an empty CONVEXCHECK_CACHE_DIR).

Contracts:
- Keys are SHA-256 digests of an exact encoding of everything the entry depends on (the
  expressions node by node, the names, the declarations) together with the format, the
  package version and a fingerprint of the package's source files (so an edited checkout
  never reads entries of its former self). Array lengths are not part of a program's key:
  the generated code reads every length when it is called and checks them there, so one
  entry serves every shape.
- The files are `cachefiles`' business: a private folder, entries authenticated with the
  user's key (HMAC-SHA256), read without following links or blocking, written atomically,
  pruned only where authenticated. docs/cache.md gives the threat model.
- An authenticated entry is still validated as strictly as text input: expressions are
  rebuilt through the node constructors (`rebuild`: every parameter checked by type and
  range), and source runs only through `compiled.load_source`, which admits exactly the
  generated language and gives it no builtins. Anything refused is recomputed and
  rewritten: a corrupt or hostile file costs time, never runs and never changes a result.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
from dataclasses import fields, is_dataclass
from typing import Any, Callable, TypeVar

import lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

from tensorcalc.codegen.compiled import Compiled
from tensorcalc.dag import Expr
from tensorcalc.memo import memoized
from tensorcalc.store import files as cachefiles
from tensorcalc.store.files import CacheWarning, warn_once  # noqa: F401 - part of this module's interface
from tensorcalc.store.rebuild import Uncacheable, expr_data, exprs_from_data

T = TypeVar("T")
JSON = Any          # what json.dumps writes: None, bool, int, str, lists and str-keyed dicts of them

FORMAT = 2
ENV_DIR, ENV_SWITCH = "CONVEXCHECK_CACHE_DIR", "CONVEXCHECK_CACHE"
PACKAGES = ("tensorcalc", "convexcheck", "solvers")


# ----------------------------------------------------------------------------- place and keys

def directory() -> pathlib.Path | None:
    """The cache folder, or None when the cache is off."""
    if os.environ.get(ENV_SWITCH, "1").strip().lower() in ("0", "off", "false", "no"):
        return None
    if ENV_DIR in os.environ:
        return pathlib.Path(os.environ[ENV_DIR]) if os.environ[ENV_DIR] else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "convexcheck"


@memoized(maxsize=1)
def fingerprint() -> str:
    """The package version and the name, size and modification time of every source file."""
    from importlib import metadata
    try:
        version = metadata.version("convexcheck")
    except metadata.PackageNotFoundError:
        version = "unknown"
    root = pathlib.Path(__file__).resolve().parents[2]
    stats = [version]
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.[pl]*")):
            st = path.stat()
            stats.append(f"{path.relative_to(root).as_posix()}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(stats).encode()).hexdigest()


def key(kind: str, *parts: object, version: str | None = None) -> str:
    """The digest naming the entry of `kind` for `parts` (encoded exactly by `encode`)."""
    text = json.dumps([FORMAT, version or fingerprint(), kind, [encode(p) for p in parts]],
                      separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def encode(obj: object) -> JSON:
    """An exact JSON-able form of obj (expressions, named tuples, dataclasses, numbers,
    strings, sequences, dicts with string keys); Uncacheable for anything else."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return ["f", obj.hex()]
    if isinstance(obj, Expr):
        return ["e", expr_data([obj])]
    if is_dataclass(obj) and not isinstance(obj, type):
        return ["d", type(obj).__name__, [[f.name, encode(getattr(obj, f.name))] for f in fields(obj)]]
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return ["n", type(obj).__name__, [encode(v) for v in obj]]
    if isinstance(obj, (tuple, list)):
        return ["t", [encode(v) for v in obj]]
    if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
        return ["m", [[k, encode(v)] for k, v in obj.items()]]
    raise Uncacheable(f"no exact cache key for a {type(obj).__name__}")


# ----------------------------------------------------------------------------- entries

def load(kind: str, digest: str) -> dict | None:
    """The payload stored under `digest` when its entry authenticates, else None (off,
    missing, in doubt, not ours)."""
    folder = directory()
    if folder is None:
        return None
    name = cachefiles.entry_name(kind, digest)
    with cachefiles.keyed(str(folder), create=False) as place:
        data = None if place is None else cachefiles.read_file(place[0], name)
    if data is None or place is None:
        return None
    body = cachefiles.opened_seal(place[1], kind, digest, data)
    if body is None:
        warn_once(f"{name} failed authentication (edited, planted or corrupt); it is recomputed")
        return None
    return _payload(body, kind, digest)


def _payload(body: bytes, kind: str, digest: str) -> dict | None:
    try:
        entry = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not (isinstance(entry, dict) and entry.get("format") == FORMAT and entry.get("key") == digest
            and entry.get("kind") == kind and isinstance(entry.get("payload"), dict)):
        return None
    return entry["payload"]


def store(kind: str, digest: str, payload: dict) -> None:
    """Write the entry atomically and authenticated; a cache that cannot be written is
    skipped (with one warning where the folder is in doubt)."""
    folder = directory()
    if folder is None:
        return
    name = cachefiles.entry_name(kind, digest)
    body = json.dumps({"format": FORMAT, "key": digest, "kind": kind, "payload": payload},
                      allow_nan=True).encode("utf-8")
    try:
        with cachefiles.keyed(str(folder), create=True) as place:
            if place is None or len(body) > cachefiles.MAX_ENTRY_BYTES:
                return
            fd, secret = place
            if cachefiles.write_file(fd, name, cachefiles.seal(secret, kind, digest, body)):
                cachefiles.prune(fd, secret)
    except OSError:
        pass


# ----------------------------------------------------------------------------- compiled functions

def compiled_data(fn: Compiled) -> dict:
    """A `tensorcalc.Compiled` as data: its simplified expressions and output names. The
    source is not stored: `compiled_from` plans and emits it again from the expressions."""
    return {"exprs": expr_data(fn.exprs), "single": fn.single, "keys": fn.keys}


def compiled_from(data: dict) -> Compiled:
    """The `Compiled` written by `compiled_data`, planned and emitted afresh from its
    validated expressions (so no text from the disk is ever run); ValueError when the
    data is malformed."""
    exprs, single, keys = exprs_from_data(data["exprs"]), data["single"], data["keys"]
    if type(single) is not bool or not (keys is None or (isinstance(keys, list) and len(keys) == len(exprs)
                                                          and all(type(k) is str for k in keys))):
        raise ValueError("malformed compiled function")
    if single and len(exprs) != 1:
        raise ValueError("a single output with several expressions")
    return Compiled(exprs, keys, single, simplify=False)


def cached(kind: str, parts: tuple, make: Callable[[], T], dump: Callable[[T], dict | None],
           restore: Callable[[dict], T]) -> tuple[T, bool]:
    """(value, hit): `restore(payload)` of the entry of `kind` for `parts`, else `make()`,
    stored as `dump(value)` unless that is None (a value not to keep). Without an exact key
    (Uncacheable) just `make()`; an entry that `restore` rejects (anything it raises: the
    entry is in doubt) is recomputed and overwritten. With the cache off, just `make()`: no
    key is computed (encoding 2,000 constraint parts took half a second)."""
    if directory() is None:
        return make(), False
    try:
        digest = key(kind, *parts)
    except Uncacheable:
        return make(), False
    payload = load(kind, digest)
    if payload is not None:
        try:
            return restore(payload), True
        except Exception:  # noqa: BLE001 - any failure to restore means: recompute
            warn_once(f"a {kind} entry did not restore; it is recomputed")
    value = make()
    try:
        data = dump(value)
    except Uncacheable:
        data = None
    if data is not None:                    # None: a value not to keep (an unfinished analysis)
        store(kind, digest, data)
    return value, False


# ----------------------------------------------------------------------------- parsers

def parser(grammar: str, make: Callable[[], lark.Lark], **runtime: Any) -> lark.Lark:
    """The lark LALR parser `make()` builds for `grammar`, its tables kept in the cache as
    data and read back by lark's own deserializer (rules and terminals only, no pickle);
    `runtime` (postlex, transformer) are the objects it is given back with."""

    def dump(p) -> dict:
        data, memo = p.memo_serialize([TerminalDef, Rule])
        data["options"] = {k: v for k, v in data["options"].items() if k not in runtime}
        return {"tables": json.dumps(_tagged({"data": data, "memo": memo}), separators=(",", ":"))}

    def restore(payload: dict):
        tables = json.loads(payload["tables"], object_hook=_untagged)
        return lark.Lark._load_from_dict(tables["data"], tables["memo"], **runtime)

    return cached("parser", (grammar, lark.__version__), make, dump, restore)[0]


def _tagged(obj):
    """JSON for lark's tables: dicts (int keys) and tuples tagged, lists and scalars as they are."""
    if isinstance(obj, dict):
        return {"__d": [[_tagged(k), _tagged(v)] for k, v in obj.items()]}
    if isinstance(obj, tuple):
        return {"__t": [_tagged(v) for v in obj]}
    if isinstance(obj, list):
        return [_tagged(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise Uncacheable(f"no data form for a {type(obj).__name__} in the parser tables")


def _untagged(obj: dict):
    """json object_hook undoing `_tagged`, one object at a time (the decoder walks the tree)."""
    if "__d" in obj:
        return {k: v for k, v in obj["__d"]}
    if "__t" in obj:
        return tuple(obj["__t"])
    raise ValueError("untagged object in the parser tables")
