"""The project being built: the folder of its mkdocs.yml, and what a stored result is keyed on.

The plugin names the project of the build it runs (:func:`building`): the folder of the ``mkdocs.yml`` MkDocs
was given, so a second checkout that shares a virtual environment builds its own pages and snippets. A command
run outside a build (the translation check, ``snippets/attention.py``) finds the project from its folder
(:func:`find`). Every module asks :func:`root`; the value lives in a context variable, set for the duration of
one build, so two builds in one process do not see each other's project.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
import hashlib
import importlib.metadata
import importlib.util
import platform
from collections.abc import Iterator
from pathlib import Path

DEFAULT_LANG = "ja"
"""The source language: its pages and comments are the originals; every other language translates them. A
property of the lesson's text, not a build setting."""

CONFIG_FILE = "mkdocs.yml"

_root: contextvars.ContextVar[Path | None] = contextvars.ContextVar("attention_lesson_root", default=None)


class ProjectNotFound(LookupError):
    """No mkdocs.yml in the folder given or above it."""


def find(start: Path | None = None) -> Path:
    """The nearest folder at or above `start` (the current folder by default) that holds a mkdocs.yml."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    raise ProjectNotFound(f"no {CONFIG_FILE} in {here} or any folder above it: run this inside the project")


def root() -> Path:
    """The project of the build under way, else the one the current folder is in."""
    current = _root.get()
    return current if current is not None else find()


@contextlib.contextmanager
def building(folder: Path) -> Iterator[Path]:
    """Make `folder` the project for the code run inside (a build, a check, a test)."""
    token = _root.set(Path(folder).resolve())
    try:
        yield _root.get()
    finally:
        _root.reset(token)


def enter(folder: Path) -> contextvars.Token:
    """:func:`building` for a build whose start and end are two plugin events: reset with :func:`leave`."""
    return _root.set(Path(folder).resolve())


def leave(token: contextvars.Token | None) -> None:
    if token is not None:
        with contextlib.suppress(ValueError):  # set in another context (a serve rebuild's thread): nothing to undo
            _root.reset(token)


def digest(*parts: str | bytes) -> str:
    """SHA-256 of length-prefixed parts, so that moving bytes from one part to the next changes the key."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()


@functools.cache
def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def environment_key() -> str:
    """The part of every key that is not a block's own code: the Python and torch versions."""
    return f"python {platform.python_version()}; torch {_version('torch')}"


DRAWN_WITH = {"attention_lesson.site.figures": ("matplotlib", "numpy")}
"""Modules whose output also depends on these distributions (a figure's SVG on matplotlib's)."""


def imports_key(code: str) -> str:
    """What a block's result depends on beyond its code and session: the source of every module of this
    package it imports (and what draws with it), and, for ``import attention_lesson``, the listings whose
    ``#@save`` functions the package offers. A module the block does not import (the plugin, the translation
    check, the hooks of the build) is not part of its key, so editing one runs no measurement again."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    parts: list[str | bytes] = []
    for name in sorted(n for n in names if n.split(".")[0] == "attention_lesson"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            parts += [name, "missing"]
            continue
        parts += [name, Path(spec.origin).read_bytes(), *(f"{d} {_version(d)}" for d in DRAWN_WITH.get(name, ()))]
        if name == "attention_lesson":
            snippets = sorted((root() / "snippets").glob("*.py"))
            parts += [part for path in snippets for part in (path.name, path.read_bytes())]
    return digest(*parts) if parts else ""
