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
- Entries are JSON, written to a temporary file in the same folder and moved into place
  with os.replace: readers see a whole entry or none, whatever writers run at once.
  Past MAX_ENTRIES files the oldest quarter is deleted.
- An entry is used only when it parses, names its own key and format, and its source
  passes `check_source`, which admits exactly the language the code generator emits (one
  function of assignments and calls to the runtime helpers and a fixed list of array
  functions). Anything else is ignored and the work is redone: a corrupt or hostile file
  costs time, never runs.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import pathlib
import re
import tempfile
from dataclasses import fields, is_dataclass
from functools import lru_cache

from . import dag
from .dag import Axis, Expr, Spec

FORMAT = 1
ENV_DIR, ENV_SWITCH = "CONVEXCHECK_CACHE_DIR", "CONVEXCHECK_CACHE"
NODES = {cls.__name__: cls for cls in dag.NODE_TYPES}
PACKAGES = ("tensorcalc", "convexcheck", "solvers")
MAX_ENTRIES = 4000          # past this many files the oldest quarter is deleted


class Uncacheable(Exception):
    """A key part that has no exact encoding: the caller computes without the cache."""


# ----------------------------------------------------------------------------- place and keys

def directory() -> pathlib.Path | None:
    """The cache folder, or None when the cache is off."""
    if os.environ.get(ENV_SWITCH, "1").strip().lower() in ("0", "off", "false", "no"):
        return None
    if ENV_DIR in os.environ:
        return pathlib.Path(os.environ[ENV_DIR]) if os.environ[ENV_DIR] else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "convexcheck"


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """The package version and the name, size and modification time of every source file."""
    from importlib import metadata
    try:
        version = metadata.version("convexcheck")
    except metadata.PackageNotFoundError:
        version = "unknown"
    root = pathlib.Path(__file__).resolve().parent.parent
    stats = [version]
    for package in PACKAGES:
        for path in sorted((root / package).glob("*.[pl]*")):
            st = path.stat()
            stats.append(f"{package}/{path.name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(stats).encode()).hexdigest()


def key(kind: str, *parts, version: str | None = None) -> str:
    """The digest naming the entry of `kind` for `parts` (encoded exactly by `encode`)."""
    text = json.dumps([FORMAT, version or fingerprint(), kind, [encode(p) for p in parts]],
                      separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def encode(obj):
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
    """The payload stored under `digest`, or None (off, missing, unreadable, not ours)."""
    folder = directory()
    if folder is None:
        return None
    try:
        entry = json.loads((folder / f"{kind}-{digest}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not (isinstance(entry, dict) and entry.get("format") == FORMAT and entry.get("key") == digest
            and entry.get("kind") == kind and isinstance(entry.get("payload"), dict)):
        return None
    return entry["payload"]


def store(kind: str, digest: str, payload: dict) -> None:
    """Write the entry atomically; a cache that cannot be written is silently skipped."""
    folder = directory()
    if folder is None:
        return
    text = json.dumps({"format": FORMAT, "key": digest, "kind": kind, "payload": payload}, allow_nan=True)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{kind}-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, folder / f"{kind}-{digest}.json")
        except BaseException:
            os.unlink(tmp)
            raise
        _prune(folder)
    except OSError:
        pass


def _prune(folder: pathlib.Path, limit: int = MAX_ENTRIES) -> None:
    """Past `limit` entries, delete the oldest quarter (by modification time): entries of
    former package versions or sources are never read again. Races with other pruners
    are harmless (a file already gone is skipped)."""
    entries = [e for e in os.scandir(folder) if e.name.endswith(".json")]
    if len(entries) <= limit:
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns if e.is_file() else 0)
    for entry in entries[:len(entries) - 3 * limit // 4]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass


# ----------------------------------------------------------------------------- expressions

def expr_data(exprs) -> dict:
    """The DAG of `exprs` as rows [type, params, argument rows, axes] in dependency order."""
    nodes = dag.topo(*exprs)
    index = {node: i for i, node in enumerate(nodes)}
    rows = [[type(n).__name__, _params_data(n.params()), [index[a] for a in n.args],
             [[a.var, a.pos] for a in n.axes]] for n in nodes]
    return {"nodes": rows, "outputs": [index[e] for e in exprs]}


def exprs_from_data(data: dict) -> list[Expr]:
    """The expressions written by `expr_data`; ValueError on anything malformed."""
    built: list[Expr] = []
    for row in data["nodes"]:
        name, params, args, axes = row
        if name not in NODES or not all(isinstance(i, int) and 0 <= i < len(built) for i in args):
            raise ValueError("malformed expression row")
        axes = tuple(Axis(str(v), int(p)) for v, p in axes)
        built.append(dag._intern(NODES[name], _params_from(params), tuple(built[i] for i in args), axes))
    return [built[i] for i in data["outputs"]]


def _params_data(params):
    if isinstance(params, Spec):
        return {"spec": [list(params.inputs), params.out]}
    if isinstance(params, tuple):
        return [_params_data(p) for p in params]
    if isinstance(params, float):
        return {"f": params.hex()}
    if params is None or isinstance(params, (bool, int, str)):
        return params
    raise Uncacheable(f"no data form for a node parameter of type {type(params).__name__}")


def _params_from(data):
    if isinstance(data, list):
        return tuple(_params_from(d) for d in data)
    if isinstance(data, dict) and "spec" in data:
        inputs, out = data["spec"]
        return Spec(tuple(map(str, inputs)), str(out))
    if isinstance(data, dict) and "f" in data:
        return float.fromhex(data["f"])
    if data is None or isinstance(data, (bool, int, str)):
        return data
    raise ValueError("malformed node parameter")


# ----------------------------------------------------------------------------- the source check

_PARAMS = ("values", "xp", "n", "_c")
_HELPERS = frozenset({"_f", "_delta", "_special", "_out", "_embed", "_weigh", "_gram", "_huber", "_gather"})
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd)


@lru_cache(maxsize=1)
def _xp_functions() -> frozenset:
    from .codegen import ELEMENTWISE_CODE
    found = {m for code in ELEMENTWISE_CODE.values() for m in re.findall(r"xp\.(\w+)", code)}
    return frozenset(found | {"full", "matmul", "transpose"})


def check_source(source: str) -> bool:
    """Whether `source` is in the language `tensorcalc.codegen.emit` writes: one
    `def compiled(values, xp, n, _c)` of assignments to fresh names and one return, whose
    expressions are numbers, strings, names already bound, arithmetic, tuples, lookups
    values['x'] / n['k'] / _c[k], and calls of the runtime helpers, _c[k], or xp.f for f in
    a fixed list. Nothing else (no attributes, imports, lambdas, comprehensions) passes."""
    try:
        tree = ast.parse(source, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return False
    fn = tree.body[0]
    a = fn.args
    if (fn.name != "compiled" or fn.decorator_list or fn.returns or a.vararg or a.kwarg or a.kwonlyargs
            or a.defaults or a.posonlyargs or [x.arg for x in a.args] != list(_PARAMS)
            or any(x.annotation for x in a.args)):
        return False
    bound = set(_PARAMS) | _HELPERS
    for i, stmt in enumerate(fn.body):
        if isinstance(stmt, ast.Return) and i == len(fn.body) - 1:
            return stmt.value is not None and _expr_ok(stmt.value, bound)
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id not in bound and _expr_ok(stmt.value, bound)):
            return False
        bound.add(stmt.targets[0].id)
    return False


def _expr_ok(node, bound: set) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, (bool, int, float, str))
    if isinstance(node, ast.Name):
        return isinstance(node.ctx, ast.Load) and node.id in bound
    if isinstance(node, ast.Tuple):
        return all(_expr_ok(e, bound) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _OPS) and _expr_ok(node.left, bound) and _expr_ok(node.right, bound)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, _OPS) and _expr_ok(node.operand, bound)
    if isinstance(node, ast.Subscript):
        return _lookup_ok(node)
    if isinstance(node, ast.Call):
        return not node.keywords and _callee_ok(node.func) and all(_expr_ok(e, bound) for e in node.args)
    return False


def _lookup_ok(node: ast.Subscript) -> bool:
    s = node.slice
    return (isinstance(node.value, ast.Name) and node.value.id in ("values", "n", "_c")
            and isinstance(s, ast.Constant) and type(s.value) in (str, int))


def _callee_ok(func) -> bool:
    if isinstance(func, ast.Name):
        return func.id in _HELPERS
    if isinstance(func, ast.Attribute):
        return isinstance(func.value, ast.Name) and func.value.id == "xp" and func.attr in _xp_functions()
    return isinstance(func, ast.Subscript) and _lookup_ok(func) and func.value.id == "_c"


# ----------------------------------------------------------------------------- compiled functions

class _Sized:
    """Stands in for a node in `Compiled._check_sizes`: its axes and its text."""

    def __init__(self, text: str, axes: tuple):
        self.axes, self._text = axes, text

    def __str__(self) -> str:
        return self._text


def compiled_data(fn) -> dict:
    """A `tensorcalc.Compiled` as data: its source and the facts its calls check."""
    pl = fn.plan
    return {
        "source": fn.source, "single": fn.single, "keys": fn.keys, "exprs": expr_data(fn.exprs),
        "steps": [[s.target, s.code, list(s.args)] for s in pl.steps], "outputs": list(pl.outputs),
        "contractions": list(pl.contractions), "variables": [list(v) for v in pl.variables],
        "lengths": [[a.var, a.pos, name, pos] for a, name, pos in pl.lengths],
        "sized": [[f"{node!s:.80}", [[a.var, a.pos] for a in node.axes]] for node in fn._sized],
        "fixed": [list(f) for f in fn._fixed], "unread": [[k, a.var, a.pos] for k, a in fn._unread],
    }


def compiled_from(data: dict):
    """The `Compiled` written by `compiled_data`; ValueError when the data is malformed or
    the source is not one `check_source` admits (it is then never compiled)."""
    from . import runtime
    from .codegen import Plan, Step
    from .compiled import Compiled, namespace
    import builtins
    source = data["source"]
    if not (isinstance(source, str) and check_source(source)):
        raise ValueError("cached source is not generated code")
    fn = object.__new__(Compiled)
    keys = data["keys"]
    fn.exprs, fn.keys, fn.single = tuple(exprs_from_data(data["exprs"])), keys and [str(k) for k in keys], bool(data["single"])
    fn.plan = Plan(tuple(Step(str(t), str(c), tuple(map(str, a))) for t, c, a in data["steps"]),
                   tuple(map(str, data["outputs"])), tuple(map(str, data["contractions"])),
                   tuple((Axis(str(v), int(p)), str(name), int(pos)) for v, p, name, pos in data["lengths"]),
                   tuple((str(name), int(order)) for name, order in data["variables"]))
    fn.source = source
    names = {**namespace(), "__builtins__": {}}
    exec(builtins.compile(source, "<tensorcalc.compiled>", "exec"), names)  # noqa: S102 - checked generated source
    fn._fn = names["compiled"]
    fn._contractions = [runtime.Contraction(str(eq)) for eq in fn.plan.contractions]
    fn._sized = tuple(_Sized(str(text), tuple(Axis(str(v), int(p)) for v, p in axes)) for text, axes in data["sized"])
    fn._fixed = tuple((str(k), int(n), str(where)) for k, n, where in data["fixed"])
    fn._unread = tuple((str(k), Axis(str(v), int(p))) for k, v, p in data["unread"])
    return fn


def cached(kind: str, parts: tuple, make, dump, restore):
    """(value, hit): `restore(payload)` of the entry of `kind` for `parts`, else `make()`,
    stored as `dump(value)`. Without an exact key (Uncacheable) just `make()`; an entry
    that `restore` rejects (ValueError and the like) is recomputed and overwritten."""
    try:
        digest = key(kind, *parts)
    except Uncacheable:
        return make(), False
    payload = load(kind, digest)
    if payload is not None:
        try:
            return restore(payload), True
        except (ValueError, KeyError, TypeError, IndexError, AttributeError, SyntaxError, RecursionError):
            pass
    value = make()
    try:
        store(kind, digest, dump(value))
    except Uncacheable:
        pass
    return value, False


# ----------------------------------------------------------------------------- parsers

def parser(grammar: str, make, **runtime):
    """The lark LALR parser `make()` builds for `grammar`, its tables kept in the cache as
    data and read back by lark's own deserializer (rules and terminals only, no pickle);
    `runtime` (postlex, transformer) are the objects it is given back with."""
    import lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

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
