"""Languages are folders: everything a language needs lives in ``docs/<code>/``.

A folder counts as a language when it holds ``strings.yml`` (the language's name, the section titles, the
translated code comments and printed strings, and the UI text). Japanese is the source language. The lesson's
code is written once, in Japanese, and every other language translates two things in it, keyed by the
Japanese text as gettext keys by the source string:

* ``comments``: the text of a ``#`` comment;
* ``literals``: a printed string, i.e. a plain string literal with Japanese kana or Japanese punctuation in it
  (``"softmax 後の重み："``). Data such as the poem ``"床前明月光"`` (no kana) is never translated.

Only comments and such literals change, so the code on every language's page is the code that runs, and a
reader who copies it sees the same output in the page's language. Anything a language lacks falls back to
Japanese, and the completeness check reports it.
"""

from __future__ import annotations

import ast
import functools
import io
import logging
import os
import re
import tokenize
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from attention_lesson.site.project import DEFAULT_LANG, ROOT

STRINGS_FILE = "strings.yml"
__all__ = ["DEFAULT_LANG", "ROOT", "STRINGS_FILE"]

log = logging.getLogger("mkdocs.plugins.attention_lesson")
_active: str | None = None
_consulted = False
"""Set whenever the current language is read: the runner uses it to tell language-dependent blocks apart."""


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
    global _consulted
    _consulted = True
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


def consulted(reset: bool = False) -> bool:
    """Whether the current language was read since the last reset (the runner's language-dependence probe)."""
    global _consulted
    was = _consulted
    if reset:
        _consulted = False
    return was


def code_comments(source: str) -> list[str]:
    """The text of every comment in Python source, without the leading ``#`` and spaces."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [tok.string.lstrip("#").strip() for tok in tokens if tok.type == tokenize.COMMENT]


_JAPANESE = re.compile(r"[\u3000-\u303f\u3040-\u309f\u30a0-\u30ff\uff01-\uff20]")
"""Kana and Japanese punctuation: the mark of a printed Japanese string (kanji alone is data, e.g. the poem)."""


def translatable(text: str) -> bool:
    return bool(_JAPANESE.search(text))


def _string_literals(source: str) -> Iterator[tuple[tokenize.TokenInfo, str]]:
    """Every plain string literal of the source whose value is translatable, with that value."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.STRING:
            continue
        prefix = tok.string[: len(tok.string) - len(tok.string.lstrip("rRuUbBfF"))].lower()
        if "f" in prefix or "b" in prefix:
            continue
        value = ast.literal_eval(tok.string)
        if translatable(value):
            yield tok, value


def code_literals(source: str) -> list[str]:
    """The translatable string literals of Python source (see the module docstring)."""
    return [value for _, value in _string_literals(source)]


def _replace_tokens(source: str, edits: list[tuple[tokenize.TokenInfo, str]]) -> str:
    lines = source.splitlines(keepends=True)
    for tok, text in sorted(edits, key=lambda e: e[0].start, reverse=True):
        (row, col), (end_row, end_col) = tok.start, tok.end
        if row != end_row:
            raise ValueError(f"line {row}: a translatable string must fit on one line")
        line = lines[row - 1]
        lines[row - 1] = line[:col] + text + line[end_col:]
    return "".join(lines)


def _quoted(text: str, like: str) -> str:
    quote = like[-1]
    return quote + text.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote


def _translation(table: dict, text: str, what: str, lang: str) -> str | None:
    value = table.get(text)
    if value is None:
        return None
    value = str(value)
    if "\n" in value or "\r" in value:
        raise ValueError(f"docs/{lang}/{STRINGS_FILE}: {what} {text!r}: the translation must be one line")
    return value


def localize_source(source: str, lang: str | None = None) -> str:
    """Python source with each Japanese comment and printed string replaced by the language's translation.

    Only comments and printed strings change, so the code shown on every language's page is the code that
    runs. One with no translation stays Japanese (the completeness check lists it).
    """
    lang = lang or current_language()
    data = strings(lang)
    comments, literals = data.get("comments") or {}, data.get("literals") or {}
    edits = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            text = _translation(comments, tok.string.lstrip("#").strip(), "comment", lang)
            if text is not None:
                edits.append((tok, f"# {text}"))
    for tok, value in _string_literals(source):
        text = _translation(literals, value, "literal", lang)
        if text is not None:
            edits.append((tok, _quoted(text, tok.string)))
    return _replace_tokens(source, edits) if edits else source


_MARK = re.compile("\ue000(\\d+)\ue001")


def neutralize(source: str) -> tuple[str, list[str]]:
    """The source with every printed Japanese string replaced by a marker, and the strings in marker order.

    Running this once gives output for every language: :func:`localize_output` turns each marker into that
    language's text, which is exactly what running the language's own source would print, as long as the
    string reaches the output unchanged (the lesson's code only prints these strings).
    """
    texts: list[str] = []
    edits = []
    for tok, value in _string_literals(source):
        edits.append((tok, '"\\ue000' + str(len(texts)) + '\\ue001"'))
        texts.append(value)
    return (_replace_tokens(source, edits) if edits else source), texts


def localize_output(output: str, texts: list[str], lang: str) -> str:
    """Output of a neutralized run, in `lang`: every marker becomes the translated (or original) string."""
    table = strings(lang).get("literals") or {}

    def text(match: re.Match) -> str:
        original = texts[int(match[1])]
        return _translation(table, original, "literal", lang) or original

    result = _MARK.sub(text, output)
    if "\ue000" in result or "\ue001" in result:
        raise ValueError("a printed Japanese string was changed (sliced, formatted, …) before it was printed; "
                         "print it as it is written")
    return result
