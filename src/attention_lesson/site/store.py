"""A content-addressed store of execution results, shared by builds, `mkdocs serve` and the tests.

Each entry is one JSON file, ``<dir>/<key[:2]>/<key>.json``, named by a SHA-256 of everything its value depends
on (the code that ran, the code before it in its session, the package sources, the Python and torch versions;
see :mod:`attention_lesson.site.runner`). The idea is Quarto's freeze and jupyter-cache's: a result is reused
exactly when its source is unchanged. Hand-written rather than jupyter-cache because the unit here is a code
block of a page, not a notebook, and a block's result is stored language-neutral.

* Writes are atomic (a temporary file in the same folder, then ``os.replace``), so two builds can share the
  store, and a build stopped half-way (Ctrl-C) leaves whole entries or none.
* Every entry carries the SHA-256 of its payload and its own key: a corrupt or truncated entry, or one moved
  to another name, is ignored (and deleted), so it is recomputed and never published.
* :meth:`Store.prune` drops entries not used for ``max_age`` and, past ``max_bytes``, the least recently used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from filelock import FileLock

log = logging.getLogger("mkdocs.plugins.attention_lesson")

FORMAT = 1
"""Bump when the shape of a payload changes: entries of another format are ignored."""

MAX_AGE = 30 * 86400
"""What a build has not used for this long (seconds) is pruned: results, written notebooks."""


def write_atomically(path: Path, text: str) -> None:
    """Write a file whole or not at all: a temporary file in the same folder, then ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class Store:
    """Entries under one folder; see the module docstring."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _file(self, key: str) -> Path:
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"a store key is 64 lowercase hex digits, got {key!r}")
        return self.path / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The value stored under key, or None when there is none or it cannot be trusted."""
        path = self._file(key)
        try:
            raw = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        try:
            entry = json.loads(raw)
            payload = entry["payload"]
            ok = (
                entry.get("format") == FORMAT
                and entry.get("key") == key
                and entry.get("sha256") == hashlib.sha256(payload.encode()).hexdigest()
            )
            value = json.loads(payload) if ok else None
        except (ValueError, KeyError, TypeError, AttributeError):
            ok, value = False, None
        if not ok:
            log.info("Ignoring a damaged cache entry %s; it will be computed again", path)
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # the least recently used entries are pruned first
        return value

    def put(self, key: str, value: Any) -> None:
        payload = json.dumps(value, ensure_ascii=False, sort_keys=True)
        entry = {"format": FORMAT, "key": key, "sha256": hashlib.sha256(payload.encode()).hexdigest(),
                 "payload": payload}
        try:
            write_atomically(self._file(key), json.dumps(entry, ensure_ascii=False))
        except OSError as error:
            raise StoreError(self.path, error) from None

    def prune(self, max_age: float = MAX_AGE, max_bytes: int = 256 * 2**20) -> int:
        """Delete entries unused for max_age seconds, then the oldest until the rest fit in max_bytes.

        Returns how many files were deleted. Temporary files older than an hour (a killed writer's) go too.
        """
        now = time.time()
        entries, removed = [], 0
        for path in self.path.glob("*/*"):
            try:
                stat = path.stat()
            except OSError:
                continue
            stale_tmp = path.suffix == ".tmp" and now - stat.st_mtime > 3600
            if stale_tmp or (path.suffix == ".json" and now - stat.st_mtime > max_age):
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
            elif path.suffix == ".json":
                entries.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
                total -= size
        return removed

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def lock(self, name: str) -> FileLock:
        """An exclusive lock, shared by every process that uses this store (filelock: every system)."""
        folder = self.path / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        return FileLock(folder / f"{name}.lock")

    def check_writable(self) -> None:
        """Raise StoreError, in one line naming the folder and the fix, when results cannot be written here."""
        try:
            write_atomically(self.path / "locks" / ".writable", "")
        except OSError as error:
            raise StoreError(self.path, error) from None


class StoreError(OSError):
    """The results store cannot be written: a read-only checkout, a full disk."""

    def __init__(self, path: Path, error: OSError) -> None:
        reason = error.strerror or str(error)
        super().__init__(error.errno, f"the results store {path} cannot be written ({reason}): make the folder "
                         "writable or free disk space, or point LESSON_STORE at a writable folder")
