"""Atomic replacement of a directory: readers see the old index or the new one, never a mix.

On Linux, renameat2(RENAME_EXCHANGE) swaps two directory entries in one step. Elsewhere
we fall back to two renames, and `recover` puts the previous index back if a crash
happened between them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
from pathlib import Path
from typing import Any

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _libc() -> Any:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name, use_errno=True) if name else None


def _exchange(a: Path, b: Path) -> bool:
    libc = _libc()
    if libc is None or not hasattr(libc, "renameat2"):
        return False
    result = libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def old_path(target: Path) -> Path:
    return target.with_name(target.name + ".old")


def recover(target: Path) -> None:
    """If a non-atomic swap was interrupted, the previous index is at DIR.old: restore it."""
    backup = old_path(target)
    if not target.exists() and backup.exists():
        os.rename(backup, target)


def swap_in(new: Path, target: Path) -> None:
    """Make `new` the directory at `target`; the previous one is deleted afterwards."""
    new, target = Path(new), Path(target)
    if not target.exists():
        os.rename(new, target)
        _fsync_dir(target.parent)
        return
    if _exchange(new, target):
        _fsync_dir(target.parent)
        shutil.rmtree(new, ignore_errors=True)  # `new` now holds the previous index
        return
    backup = old_path(target)
    shutil.rmtree(backup, ignore_errors=True)
    os.rename(target, backup)
    os.rename(new, target)
    _fsync_dir(target.parent)
    shutil.rmtree(backup, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
