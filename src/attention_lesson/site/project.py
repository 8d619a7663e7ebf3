"""Where the project is, which language is the source, and what every cached execution result is keyed on.

One module holds these so that the hooks, the runner, the notebooks and the tests agree on them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import platform
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
"""The project root: this module is ``src/attention_lesson/site/project.py``."""

DEFAULT_LANG = "ja"
"""The source language: its pages and comments are the originals; every other language translates them."""

CACHE_DIR = ROOT / ".cache" / "runs"
"""The content-addressed store of execution results (see :mod:`attention_lesson.site.store`)."""

NO_CACHE_ENV = "LESSON_NO_CACHE"
"""Set to 1 to ignore stored results: every block runs again, in a store private to this build."""

KEYED_FOLDERS = ("src/attention_lesson",)
"""Every file under these is part of every key: the code a block imports and the figures it draws."""


def _keyed_files() -> list[Path]:
    files = [
        path
        for folder in KEYED_FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    ]
    return sorted(files, key=lambda p: p.relative_to(ROOT).as_posix())


def digest(*parts: str | bytes) -> str:
    """SHA-256 of length-prefixed parts, so that moving bytes from one part to the next changes the key."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()


@functools.cache
def _versions() -> str:
    return f"python {platform.python_version()}; torch {importlib.metadata.version('torch')}"


def environment_key() -> str:
    """The part of every key that is not the block's own code: package sources, Python and torch versions.

    strings.yml is not in it: outputs are stored language-neutral, and the outputs that do depend on a
    language (figures) are keyed on that language's strings.yml as well (see the runner).
    """
    parts: list[str | bytes] = [_versions()]
    for path in _keyed_files():
        parts += [path.relative_to(ROOT).as_posix(), path.read_bytes()]
    return digest(*parts)


def no_cache() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").lower() not in {"", "0", "no", "false", "off"}
