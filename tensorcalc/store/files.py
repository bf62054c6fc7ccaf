"""The disk cache's files: one private folder, entries authenticated with the user's key.

Threat model and design (docs/cache.md): the cache folder may be shared, planted, edited,
truncated, swapped or filled with things that are not files; nothing read from it is
used until it is shown to be a regular file this user wrote with this user's key.

- Folder. Entries live in `<cache dir>/convexcheck-entries/`, created with mode 0700.
  It is used only when it is a real folder (not a link) owned by this user that nobody
  else can write, inside a cache dir that others cannot write (or that has the sticky
  bit, like /tmp). Anything else: one `CacheWarning`, and the cache is off.
- Key. `convexcheck-entries/key` holds 32 random bytes, created once with mode 0600
  (written aside and hard-linked into place, so concurrent first runs agree on one key).
- Entries. `<kind>-<digest>.entry` is the header line, an HMAC-SHA256 tag over the kind,
  the digest and the body, and the JSON body. A tag that does not verify is a miss: the
  work is redone and the entry rewritten.
- Reads open with O_NOFOLLOW | O_NONBLOCK relative to the checked folder and accept
  regular files of this user up to MAX_ENTRY_BYTES only, so a link, FIFO or device under
  an entry's name is skipped at once.
- Writes go to a temporary file in the folder and are renamed into place (atomic); a
  name held by anything but a regular file of this user is left alone.
- Pruning deletes only authenticated entries (the oldest quarter past MAX_ENTRIES) and
  this module's own temporary files older than STALE_SECONDS (a writer killed mid-store).
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import stat
import time
import warnings
from collections.abc import Iterator

FOLDER = "convexcheck-entries"
KEY_FILE = "key"
HEADER = b"convexcheck-cache 2\n"
MAX_ENTRIES = 4000              # past this many entries the oldest quarter is deleted
MAX_ENTRY_BYTES = 64 << 20      # larger entries are neither written nor read
STALE_SECONDS = 3600            # a temporary file this old belongs to a writer that died
TMP_PREFIX = ".tmp-"
_ENTRY = re.compile(r"[a-z]{1,20}-[0-9a-f]{64}\.entry")
_TMP = re.compile(r"\.tmp-[A-Za-z0-9_]{1,40}")
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_SUPPORTED = ({os.open, os.stat, os.unlink, os.link, os.rename, os.mkdir} <= os.supports_dir_fd
              and os.scandir in os.supports_fd)
_warned: set[str] = set()


class CacheWarning(UserWarning):
    """The disk cache is off, or an entry was refused, for the reason given."""


def warn_once(reason: str) -> None:
    """One warning per reason and process."""
    if reason not in _warned:
        _warned.add(reason)
        warnings.warn(f"convexcheck cache: {reason}", CacheWarning, stacklevel=4)


# ----------------------------------------------------------------------------- the folder

def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def _root_doubt(root: str) -> str | None:
    """Why the cache dir cannot hold our folder safely, or None."""
    st = os.stat(root)
    if not stat.S_ISDIR(st.st_mode):
        return f"{root} is not a folder"
    if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
        return f"{root} is writable by other users (mode {stat.S_IMODE(st.st_mode):o}); use a private folder"
    if _uid() is not None and st.st_uid not in (_uid(), 0):
        return f"{root} belongs to another user (uid {st.st_uid}); use a folder of your own"
    return None


def _folder_doubt(fd: int, path: str) -> str | None:
    """Why the opened entries folder is not ours alone, or None."""
    st = os.fstat(fd)
    if _uid() is not None and st.st_uid != _uid():
        return f"{path} belongs to another user"
    if stat.S_IMODE(st.st_mode) & 0o077:
        return f"{path} is open to other users (mode {stat.S_IMODE(st.st_mode):o}); run chmod 700 on it"
    return None


@contextlib.contextmanager
def opened(root: str, create: bool) -> Iterator[int | None]:
    """The entries folder as an open descriptor, checked; None when it is missing (and not
    `create`) or in doubt (then with one warning). Every file operation goes through it."""
    fd = None
    try:
        if not _SUPPORTED:
            warn_once("this platform cannot open files relative to a checked folder; running without the cache")
        else:
            fd = _open_folder(root, create)
    except OSError as exc:
        if create:
            warn_once(f"{root} cannot be used ({exc.strerror or exc}); running without the cache")
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


@contextlib.contextmanager
def keyed(root: str, create: bool) -> Iterator[tuple[int, bytes] | None]:
    """(folder descriptor, key) for the checked folder, or None where the folder or its key
    is missing (and not `create`) or in doubt."""
    with opened(root, create) as fd:
        secret = None if fd is None else key_of(fd, create)
        yield None if fd is None or secret is None else (fd, secret)


def _open_folder(root: str, create: bool) -> int | None:
    if create:
        os.makedirs(root, mode=0o700, exist_ok=True)
    elif not os.path.isdir(root):
        return None
    doubt = _root_doubt(root)
    if doubt is None:
        fd, doubt = _open_entries(os.path.join(root, FOLDER), create)
        if fd is not None:
            return fd
    if doubt is not None:
        warn_once(f"{doubt}; running without the cache")
    return None


def _open_entries(path: str, create: bool) -> tuple[int | None, str | None]:
    """(descriptor, None) for a checked folder; (None, why) for one in doubt; (None, None)
    for none there."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
    try:
        fd = os.open(path, _DIR)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path} is not a plain folder ({exc.strerror})"
    doubt = _folder_doubt(fd, path)
    if doubt is not None:
        os.close(fd)
        return None, doubt
    return fd, None


# ----------------------------------------------------------------------------- the key

_keys: dict[tuple[int, int], bytes] = {}


def key_of(fd: int, create: bool) -> bytes | None:
    """The folder's 32-byte key (made once when `create`), or None (then one warning)."""
    st = os.fstat(fd)
    known = _keys.get((st.st_dev, st.st_ino))
    if known is None:
        known = _read_key(fd)
        if known is None and create:
            _make_key(fd)
            known = _read_key(fd)
        if known is not None:
            _keys[st.st_dev, st.st_ino] = known
    return known


def _read_key(fd: int) -> bytes | None:
    data = read_file(fd, KEY_FILE, limit=32)
    if data is None:
        return None
    if len(data) != 32:
        warn_once("the key file is not one of ours; running without the cache")
        return None
    return data


def _make_key(fd: int) -> None:
    tmp = _written_aside(fd, secrets.token_bytes(32))
    try:
        with contextlib.suppress(FileExistsError):
            os.link(tmp, KEY_FILE, src_dir_fd=fd, dst_dir_fd=fd)    # never replaces a key
    finally:
        os.unlink(tmp, dir_fd=fd)


def _written_aside(fd: int, data: bytes) -> str:
    """The name of a new private temporary file in the folder holding `data` (removed
    again if the write fails)."""
    tmp = f"{TMP_PREFIX}{secrets.token_hex(8)}"
    out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=fd)
    try:
        with os.fdopen(out, "wb") as f:
            f.write(data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=fd)
        raise
    return tmp


# ----------------------------------------------------------------------------- files

def read_file(fd: int, name: str, limit: int = MAX_ENTRY_BYTES) -> bytes | None:
    """The bytes of `name` in the folder when it is a regular file of this user, at most
    `limit` bytes and private when it is the key; None otherwise, without blocking: None
    quietly when it is missing, with one warning when something else holds the name
    (a link, FIFO, device or folder, another user's or an oversized file)."""
    try:
        f = os.open(name, _READ, dir_fd=fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        warn_once(f"{name} in the cache folder cannot be read safely ({exc.strerror}); it is skipped")
        return None
    try:
        st = os.fstat(f)
        private = name != KEY_FILE or not stat.S_IMODE(st.st_mode) & 0o077
        if not (stat.S_ISREG(st.st_mode) and st.st_size <= limit and private
                and (_uid() is None or st.st_uid == _uid())):
            warn_once(f"{name} in the cache folder is not a private regular file of ours; it is skipped")
            return None
        return _read_all(f, st.st_size)
    except OSError:
        return None
    finally:
        os.close(f)


def _read_all(f: int, size: int) -> bytes | None:
    chunks, left = [], size + 1           # one byte more tells a file that grew
    while left > 0:
        chunk = os.read(f, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return data if len(data) == size else None


def _replaceable(fd: int, name: str) -> bool:
    """Whether `name` is free, or a regular file of this user (an entry we may rewrite)."""
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return True
    return stat.S_ISREG(st.st_mode) and (_uid() is None or st.st_uid == _uid())


def write_file(fd: int, name: str, data: bytes) -> bool:
    """Write `data` under `name` atomically (temporary file, then rename); False when the
    name is held by something that is not an entry file of ours."""
    if not _replaceable(fd, name):
        warn_once(f"{name} in the cache folder is not a file of ours; it is left alone")
        return False
    tmp = _written_aside(fd, data)
    try:
        os.rename(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=fd)
        raise
    return True


# ----------------------------------------------------------------------------- entries

def entry_name(kind: str, digest: str) -> str:
    name = f"{kind}-{digest}.entry"
    if not _ENTRY.fullmatch(name):
        raise ValueError(f"not a cache entry name: {name!r}")
    return name


def seal(key: bytes, kind: str, digest: str, body: bytes) -> bytes:
    """The entry's bytes: header, tag over (kind, digest, body), body."""
    return HEADER + _tag(key, kind, digest, body).encode() + b"\n" + body


def opened_seal(key: bytes, kind: str, digest: str, data: bytes) -> bytes | None:
    """The body of an entry whose tag verifies for (kind, digest), else None."""
    if not data.startswith(HEADER):
        return None
    tag, _, body = data[len(HEADER):].partition(b"\n")
    if not hmac.compare_digest(tag, _tag(key, kind, digest, body).encode()):
        return None
    return body


def _tag(key: bytes, kind: str, digest: str, body: bytes) -> str:
    return hmac.new(key, f"{kind}\0{digest}\0".encode() + body, hashlib.sha256).hexdigest()


def prune(fd: int, key: bytes, limit: int = MAX_ENTRIES) -> None:
    """Past `limit` entries delete the oldest quarter of the authenticated ones; delete
    this module's temporary files older than STALE_SECONDS. Nothing else is touched."""
    entries, now = [], time.time()
    with os.scandir(fd) as it:
        for e in it:
            st = _own_file(e)
            if st is None:
                continue
            if _TMP.fullmatch(e.name) and now - st.st_mtime > STALE_SECONDS:
                _unlink(fd, e.name)
            elif _ENTRY.fullmatch(e.name):
                entries.append((st.st_mtime_ns, e.name))
    if len(entries) > limit:
        for _, name in sorted(entries)[:len(entries) - 3 * limit // 4]:
            if _authentic(fd, key, name):
                _unlink(fd, name)


def _own_file(e: os.DirEntry):
    try:
        st = e.stat(follow_symlinks=False)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) and (_uid() is None or st.st_uid == _uid()) else None


def _authentic(fd: int, key: bytes, name: str) -> bool:
    kind, _, rest = name.partition("-")
    data = read_file(fd, name)
    return data is not None and opened_seal(key, kind, rest[:-len(".entry")], data) is not None


def _unlink(fd: int, name: str) -> None:
    with contextlib.suppress(OSError):       # another pruner got there first
        os.unlink(name, dir_fd=fd)
