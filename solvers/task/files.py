"""The files of `convexcheck solve`: .npz archives read header first, solutions written safely.

`read_npz` reads the .npy header (shape and dtype) of every member before it loads any
array, and refuses members that are not real numbers or that would exceed
MAX_DATA_ENTRIES entries, alone or together; so a small archive that inflates to
gigabytes costs nothing. Members whose names start with STATUS ("solve.status", ...),
which `write_npz` stores beside a solution, are skipped, so a solution file can be read
back as a starting point.

`check_out` refuses, before any solving, an --out path that is empty, is one of the input
files, is a folder or not a regular file, is too long, or lies in a folder that cannot be
written. `write_npz` then writes as `open(path, "wb")` would (a new file gets the umask's
mode, an existing one keeps its mode; a symbolic link is followed) but atomically: a
temporary file in the same folder, fsynced, renamed over the path, and the folder fsynced.
"""
from __future__ import annotations

import lzma
import math
import os
import secrets
import stat
import zipfile
import zlib

import numpy as np
from numpy.lib import format as npy

from solvers.task.prepare import MAX_DATA_ENTRIES, SolverError, check_real

STATUS = "solve."                 # prefix of the status entries stored beside a solution
NAME_MAX, PATH_MAX = 255, 4096    # when the file system does not say
_UNREADABLE = (OSError, ValueError, EOFError, RuntimeError, NotImplementedError,
               zipfile.BadZipFile, zlib.error, lzma.LZMAError)


# ----------------------------------------------------------------------------- reading

def read_npz(path: str, flag: str) -> dict[str, np.ndarray]:
    """Arrays of an .npz file by name, checked from their headers before loading (never
    unpickling); SolverError naming the flag, the file and the array otherwise."""
    where = f"{flag} {path}"
    if not os.path.exists(path):
        raise SolverError(f"{where}: no such file")
    if not os.path.isfile(path):
        raise SolverError(f"{where}: not a regular file; give an .npz archive (np.savez)")
    try:
        with zipfile.ZipFile(path) as archive:
            members = _checked_members(archive, flag, where)
            return {name: _load(archive, info) for name, info in members.items()}
    except SolverError:
        raise
    except zipfile.BadZipFile:
        if _is_npy(path):
            raise SolverError(f"{where}: a single array, not an .npz archive; save with "
                              f"np.savez(file, name=array, ...)") from None
        raise SolverError(f"{where}: not a readable .npz archive (not a zip file)") from None
    except _UNREADABLE as exc:
        raise SolverError(f"{where}: not a readable .npz archive of numeric arrays ({exc})") from None


def _checked_members(archive: zipfile.ZipFile, flag: str, where: str) -> dict[str, zipfile.ZipInfo]:
    """The .npy members by array name, each header checked; refuses before any loading."""
    members, total = {}, 0
    for info in archive.infolist():
        name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
        if name.startswith(STATUS) or info.is_dir():
            continue
        if name in members:
            raise SolverError(f"{where}: the array {name!r} appears twice in the archive")
        shape, dtype = _header(archive, info, f"array {name!r} of {where}")
        entries = math.prod(shape)
        if entries > MAX_DATA_ENTRIES:
            raise SolverError(f"{where}: array {name!r} has shape {shape}: {entries:,} entries, "
                              f"over the limit of {MAX_DATA_ENTRIES:,} per array")
        total += entries
        if total > MAX_DATA_ENTRIES:
            raise SolverError(f"{where}: with array {name!r} the archive holds {total:,} entries "
                              f"altogether, over the limit of {MAX_DATA_ENTRIES:,}")
        members[name] = info
    return members


def _header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str):
    """Shape and dtype from the member's .npy header (a few hundred bytes are inflated)."""
    with archive.open(info) as stream:
        try:
            version = npy.read_magic(stream)
        except ValueError:
            raise SolverError(f"{where} is not an .npy array (member {info.filename!r}); save "
                              f"arrays with np.savez") from None
        if version not in ((1, 0), (2, 0)):
            raise SolverError(f"{where} uses .npy format version {version[0]}.{version[1]}, "
                              f"which holds only structured arrays; save plain numeric arrays")
        read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        shape, _, dtype = read(stream)
    check_real(dtype, where)
    return shape, dtype


def _load(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    with archive.open(info) as stream:
        return npy.read_array(stream, allow_pickle=False)


def _is_npy(path: str) -> bool:
    with open(path, "rb") as handle:
        return handle.read(len(npy.MAGIC_PREFIX)) == npy.MAGIC_PREFIX


# ----------------------------------------------------------------------------- writing

def check_out(out: str, inputs: dict[str, str | None]) -> None:
    """SolverError if the solution cannot or must not be written to `out`: empty, one of
    `inputs` (what -> path: the problem file, --data), a folder, an existing file that is
    not regular (a pipe or a device), a name too long, or an unwritable folder."""
    if not out:
        raise SolverError("--out: the file name is empty; give a file such as solution.npz")
    shown = out if len(out) <= 80 else out[:60] + "..." + out[-16:]
    for what, path in inputs.items():
        if path and _same_file(out, path):
            raise SolverError(f"--out {shown} is the {what} {path}: writing the solution would "
                              f"replace it; choose another file name")
    target = os.path.realpath(out)
    if os.path.isdir(target) or out.endswith(os.sep):
        raise SolverError(f"--out {shown} is a directory; give a file name, e.g. "
                          f"{os.path.join(out, 'solution.npz')}")
    if os.path.exists(target) and not stat.S_ISREG(os.stat(target).st_mode):
        raise SolverError(f"--out {shown} is not a regular file (a pipe, device or socket): the "
                          f"solution would replace it; choose a regular file name")
    _check_length(target, shown)
    _check_folder(os.path.dirname(target), shown)


def _same_file(a: str, b: str) -> bool:
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:                  # one does not exist (yet): compare the resolved names
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def _check_length(target: str, shown: str) -> None:
    folder, name = os.path.split(target)
    for length, limit, what in ((len(os.fsencode(name)), _pathconf(folder, "PC_NAME_MAX", NAME_MAX), "file name"),
                                (len(os.fsencode(target)), _pathconf(folder, "PC_PATH_MAX", PATH_MAX), "path")):
        if length > limit:
            raise SolverError(f"--out {shown}: the {what} is too long ({length} bytes; the file "
                              f"system allows {limit}); choose a shorter name")


def _pathconf(folder: str, name: str, default: int) -> int:
    try:
        return os.pathconf(folder, name)
    except (OSError, ValueError, AttributeError):
        return default


def _check_folder(folder: str, shown: str) -> None:
    """Create and remove a temporary file there: the only test that permissions, read-only
    mounts and full inode tables all pass."""
    if not os.path.exists(folder):
        raise SolverError(f"--out {shown}: cannot write to the folder {folder}: it does not exist")
    if not os.path.isdir(folder):
        raise SolverError(f"--out {shown}: cannot write there: {folder} is not a directory")
    try:
        fd, tmp = _temporary(folder)
    except OSError as exc:
        raise SolverError(f"--out {shown}: cannot write to the folder {folder} "
                          f"({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(tmp)


def _temporary(folder: str) -> tuple[int, str]:
    """A new file of mode 0o666 less the umask (what open() creates), with a short name."""
    for _ in range(100):
        tmp = os.path.join(folder, f".solution-{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                           0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def write_npz(path: str, arrays: dict[str, np.ndarray]) -> None:
    """Write `arrays` to `path` atomically and durably; see the module docstring. An
    existing file keeps its mode. SolverError (the old file untouched) if writing fails."""
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) if os.path.exists(target) else None
        fd, tmp = _temporary(folder)
    except OSError as exc:
        raise SolverError(f"--out {path}: cannot write the solution ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)  # type: ignore[arg-type]  # numpy's stub reads a key as allow_pickle
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        _discard(tmp)
        raise SolverError(f"--out {path}: writing the solution failed ({exc.strerror or exc}); "
                          f"the file was left as it was") from None
    except BaseException:                # an interrupt: no half-written temporary left behind
        _discard(tmp)
        raise
    _sync_folder(folder)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def _sync_folder(folder: str) -> None:
    """Make the rename durable; not every platform can open a folder (then skip)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
