"""Languages are folders: everything a language needs lives in ``docs/<code>/``.

A folder counts as a language when it holds ``strings.yml`` (the language's name, the labels the snippets
print, the translated code comments and the UI text). Japanese is the source language: its labels are the
reference set, and code comments are written in Japanese in ``snippets/`` and translated by the other
languages' ``comments`` tables (keyed by the Japanese text, as gettext keys by the source string). Anything a
language lacks falls back to Japanese, and the completeness check reports it.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import tokenize
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

DEFAULT_LANG = "ja"
STRINGS_FILE = "strings.yml"
ROOT = Path(__file__).resolve().parents[2]
"""The project root (this package lives in ``src/attention_lesson``)."""

log = logging.getLogger("mkdocs.plugins.attention_lesson")
_active: str | None = None


def docs_dir() -> Path:
    return ROOT / "docs"


def languages() -> list[str]:
    """Language codes present, Japanese first, then alphabetical."""
    found = sorted(p.name for p in docs_dir().iterdir() if (p / STRINGS_FILE).is_file())
    return sorted(found, key=lambda code: code != DEFAULT_LANG)


def check_language(lang: str) -> str:
    """Return lang if a folder exists for it, else raise ValueError naming the choices."""
    available = languages()
    if lang not in available:
        raise ValueError(f"unknown language code {lang!r}: expected one of {', '.join(available)}")
    return lang


@functools.cache
def _load(lang: str, mtime: float) -> dict[str, Any]:
    path = docs_dir() / lang / STRINGS_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return data


def strings(lang: str) -> dict[str, Any]:
    """The parsed strings.yml of a language (re-read when the file changes, so `mkdocs serve` sees edits)."""
    path = docs_dir() / check_language(lang) / STRINGS_FILE
    return _load(lang, path.stat().st_mtime)


def current_language() -> str:
    """The language labels are printed in: set by the site build, else $LESSON_LANG, else Japanese."""
    return check_language(_active or os.environ.get("LESSON_LANG") or DEFAULT_LANG)


def set_language(lang: str | None) -> None:
    """Make `lang` the language of every label printed from now on (None: back to the default)."""
    global _active
    _active = check_language(lang) if lang else None


@contextmanager
def language(lang: str) -> Iterator[None]:
    global _active
    previous = _active
    set_language(lang)
    try:
        yield
    finally:
        _active = previous


def _lookup(table: str, key: str, lang: str) -> str:
    value = (strings(lang).get(table) or {}).get(key)
    if value is not None:
        return str(value)
    fallback = (strings(DEFAULT_LANG).get(table) or {}).get(key)
    if fallback is None:
        raise KeyError(f"no {table} key {key!r} in docs/{DEFAULT_LANG}/{STRINGS_FILE}")
    log.info("docs/%s/%s has no %s key %r; using the Japanese text", lang, STRINGS_FILE, table, key)
    return str(fallback)


def label(key: str, lang: str | None = None) -> str:
    """A printed label in the current language, e.g. ``label("scores")``."""
    return _lookup("labels", key, lang or current_language())


def ui(key: str, lang: str | None = None) -> str:
    """A piece of site text (banner, figure caption) in the given or current language."""
    return _lookup("ui", key, lang or current_language())


def code_comments(source: str) -> list[str]:
    """The text of every comment in Python source, without the leading ``#`` and spaces."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [tok.string.lstrip("#").strip() for tok in tokens if tok.type == tokenize.COMMENT]


def localize_comments(source: str, lang: str | None = None) -> str:
    """Python source with each Japanese comment replaced by the language's translation.

    Only comments change, so the code shown on every language's page is the code that runs. A comment with no
    translation stays Japanese (the completeness check lists it).
    """
    lang = lang or current_language()
    table = strings(lang).get("comments") or {}
    if not table:
        return source
    lines = source.splitlines(keepends=True)
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for tok in reversed([t for t in tokens if t.type == tokenize.COMMENT]):
        text = tok.string.lstrip("#").strip()
        if text in table:
            row, col = tok.start
            line = lines[row - 1]
            lines[row - 1] = line[:col] + f"# {table[text]}" + line[col + len(tok.string) :]
    return "".join(lines)
