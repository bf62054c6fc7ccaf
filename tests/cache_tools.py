"""Helpers for the disk-cache tests and fuzz: where entries are, and how an attacker (or a
broken writer) edits them, with or without the user's key."""
from __future__ import annotations

import json
import os
import pathlib
import sys

from tensorcalc import memo
from tensorcalc.store import cache
from tensorcalc.store import files as cachefiles

PARSE = sys.modules["tensorcalc.language.parse"]


def forget():
    """Empty the in-process caches so that the next call reads the disk cache, and forget
    the warnings given (each is given once per process), so a test sees its own."""
    memo.clear()                      # compiled programs, parser tables, parsed problems, verdicts, ...
    cachefiles._keys.clear()
    cachefiles._warned.clear()


def entries(root: pathlib.Path, kind: str = "") -> list[pathlib.Path]:
    return sorted((root / cachefiles.FOLDER).glob(f"{kind}*.entry"))


def secret(root: pathlib.Path) -> bytes:
    return (root / cachefiles.FOLDER / cachefiles.KEY_FILE).read_bytes()


def name_parts(path: pathlib.Path) -> tuple[str, str]:
    kind, _, rest = path.name.partition("-")
    return kind, rest[:-len(".entry")]


def body(path: pathlib.Path) -> dict:
    """The JSON body of an entry (header and tag skipped, not checked)."""
    data = path.read_bytes()[len(cachefiles.HEADER):]
    return json.loads(data.partition(b"\n")[2])


def write_body(path: pathlib.Path, entry: dict, key: bytes | None) -> None:
    """Write `entry` under `path`: sealed with `key` (an attacker who has the key, or a
    writer with a bug), or with the old tag kept (an attacker who has not)."""
    kind, digest = name_parts(path)
    raw = json.dumps(entry).encode()
    if key is None:
        tag = path.read_bytes()[len(cachefiles.HEADER):].partition(b"\n")[0]
        path.write_bytes(cachefiles.HEADER + tag + b"\n" + raw)
    else:
        path.write_bytes(cachefiles.seal(key, kind, digest, raw))


def payload_functions(entry: dict) -> list[dict]:
    """The compiled-function records of a 'program' or 'compiled' entry."""
    payload = entry["payload"]
    return [payload["fn"]] if "fn" in payload else [payload]


def replace_with(path: pathlib.Path, what: str, other: pathlib.Path) -> None:
    """Put something that is not a regular file under `path`: a FIFO, a link to /dev/zero,
    a folder, or a link to `other`."""
    path.unlink()
    if what == "fifo":
        os.mkfifo(path)
    elif what == "dev-zero":
        path.symlink_to("/dev/zero")
    elif what == "folder":
        path.mkdir()
    else:
        path.symlink_to(other)


__all__ = ["cache", "forget", "entries", "secret", "body", "write_body", "name_parts", "payload_functions",
           "replace_with"]
