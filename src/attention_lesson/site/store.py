"""Session results on disk as checksummed JSON, written atomically: ARCHITECTURE.md, "The store"."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FORMAT = 2
MAX_AGE = 30 * 86400
"""Entries no build has read for this long (seconds) are pruned."""
MAX_ENTRY = 64 * 1024 * 1024


class Store:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.unwritable: str | None = None
        """Why nothing could be written (once said, the build goes on without storing)."""

    def _file(self, key: str) -> Path:
        return self.path / key[:2] / f"{key}.json"  # a key is a SHA-256 in hex (run.key)

    def get(self, key: str) -> Any | None:
        path = self._file(key)
        try:
            if path.stat().st_size > MAX_ENTRY:
                return None
            entry = json.loads(path.read_bytes())
            payload = entry["payload"]
            if (entry.get("format") != FORMAT or entry.get("key") != key
                    or entry.get("sha256") != hashlib.sha256(payload.encode()).hexdigest()):
                return None
            value = json.loads(payload)
        except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # read: not pruned
        return value

    def put(self, key: str, value: Any) -> None:
        payload = json.dumps(value, ensure_ascii=False, sort_keys=True)
        entry = {"format": FORMAT, "key": key, "sha256": hashlib.sha256(payload.encode()).hexdigest(),
                 "payload": payload}
        try:
            write_atomically(self._file(key), json.dumps(entry, ensure_ascii=False))
        except OSError as error:
            self.unwritable = f"{self.path}: {error.strerror or error}"



def prune(paths: Iterable[Path], max_age: float = MAX_AGE) -> None:
    """Remove the entries (files, or folders whole) no build has used for `max_age` seconds."""
    now = time.time()
    for path in paths:
        with contextlib.suppress(OSError):
            if now - path.stat().st_mtime > max_age:
                shutil.rmtree(path) if path.is_dir() else path.unlink()


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
