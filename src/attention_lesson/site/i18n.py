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
import contextvars
import difflib
import functools
import io
import logging
import re
import string
import tokenize
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from attention_lesson import SAVE
from attention_lesson.site import project
from attention_lesson.site.project import DEFAULT_LANG

STRINGS_FILE = "strings.yml"
__all__ = ["DEFAULT_LANG", "STRINGS_FILE"]

log = logging.getLogger("mkdocs.plugins.attention_lesson")
_active: contextvars.ContextVar[str | None] = contextvars.ContextVar("lesson_language", default=None)
"""The language of the build under way (a context variable: a build's, not the process's)."""
_consulted: contextvars.ContextVar[bool] = contextvars.ContextVar("lesson_language_read", default=False)
"""Set whenever the current language is read: the runner uses it to tell language-dependent blocks apart."""


def docs_dir() -> Path:
    """The language folders of the project being built (see :mod:`attention_lesson.site.project`)."""
    return project.root() / "docs"


def snippets_dir() -> Path:
    """The lesson's listings, next to docs/: their comments and printed strings are what a language translates."""
    return docs_dir().parent / "snippets"


def languages() -> list[str]:
    """Language codes present, Japanese first, then alphabetical."""
    found = sorted(p.name for p in docs_dir().iterdir() if (p / STRINGS_FILE).is_file())
    return sorted(found, key=lambda code: code != DEFAULT_LANG)


def usable_languages() -> list[str]:
    """The languages whose strings.yml has no mistake (see :func:`validate`): `mkdocs serve` keeps serving
    these when a translator's file is broken."""
    usable = []
    for code in languages():
        try:
            strings(code)
        except StringsError:
            continue
        if not validate(code):  # also a key that a change in snippets/ left behind
            usable.append(code)
    return usable


def check_language(lang: str) -> str:
    """Return lang if a folder exists for it, else raise ValueError naming the choices."""
    available = languages()
    if lang not in available:
        raise ValueError(f"unknown language code {lang!r}: expected one of {', '.join(available)}")
    return lang


class StringsError(ValueError):
    """A language's strings.yml cannot be used: one line per problem, each naming the file, line and key."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


KEYS: dict[str, type] = {"name": str, "site_name": str, "site_description": str, "labels": dict, "ui": dict,
                         "comments": dict, "literals": dict, "search": dict}
"""The top-level keys of strings.yml and what each holds."""
TEXT_TABLES = ("labels", "ui", "comments", "literals")


def _where(lang: str, node: yaml.Node | None = None) -> str:
    place = f"docs/{lang}/{STRINGS_FILE}"
    return f"{place}:{node.start_mark.line + 1}:{node.start_mark.column + 1}" if node is not None else place


def _kind(node: yaml.Node) -> str:
    return {yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list"}.get(type(node), "a single value")


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def validate(lang: str) -> list[str]:
    """Every mistake in docs/<lang>/strings.yml, one line each: ``file:line:column: key: what was expected``.

    The translators' check and the build both report these (and nothing else runs on a broken file), so a
    translator reads one line naming their file instead of a traceback from wherever the text was first used.
    A mistake is anything that would show the wrong text without a word: YAML that does not parse (or parses
    into something else than the text typed), a missing or renamed placeholder, a comment or printed-string key
    translated instead of its value (the Japanese comment would be shown). Checked again only when the file,
    the Japanese one or snippets/ changed (`mkdocs serve` validates every language on each rebuild).
    """
    return [problem for problem, stops in _checked(lang) if stops]


def mistakes(lang: str) -> list[str]:
    """:func:`validate`'s mistakes, and the keys that match nothing but do not stop a build: a Japanese key
    that snippets/ (or docs/ja/strings.yml) no longer has, mistyped or left behind by a change of the Japanese
    text. Its translation is never shown, so the translators' check counts it as a mistake; the build goes on,
    so that changing a comment in snippets/ does not stop every language's build until each is updated."""
    return [problem for problem, _ in _checked(lang)]


def _checked(lang: str) -> tuple[tuple[str, bool], ...]:
    return _validated(str(docs_dir()), lang, _stamp(lang), _stamp(DEFAULT_LANG), _snippets_stamp())


def _stamp(lang: str) -> tuple[int, int] | None:
    try:
        stat = (docs_dir() / lang / STRINGS_FILE).stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _snippets_stamp() -> tuple:
    stamps: list = [str(snippets_dir())]
    for path in sorted((snippets_dir()).glob("*.py")):
        try:
            stat = path.stat()
        except OSError:
            continue
        stamps.append((path.name, stat.st_mtime_ns, stat.st_size))
    return tuple(stamps)


@functools.lru_cache(maxsize=64)
def _validated(docs: str, lang: str, stamp: tuple[int, int] | None, source: tuple[int, int] | None,
               snippets: tuple) -> tuple[tuple[str, bool], ...]:
    stopping, left_behind = _problems(lang)
    return (*((problem, True) for problem in stopping), *((problem, False) for problem in left_behind))


class ListingError(ValueError):
    """A listing of snippets/ does not parse, so its comments and printed strings cannot be read."""


@functools.lru_cache(maxsize=8)
def _snippet_texts(stamp: tuple) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(every comment, the translatable comments, the printed Japanese strings) of snippets/, in file order."""
    every: dict[str, None] = {}
    comments: dict[str, None] = {}
    literals: dict[str, None] = {}
    for path in sorted((snippets_dir()).glob("*.py")):
        source = path.read_text(encoding="utf-8")
        try:
            compile(source, str(path), "exec")
        except SyntaxError as error:  # an unclosed bracket too: its comments cannot be read, say where it is
            raise ListingError(f"snippets/{path.name}:{error.lineno}: {type(error).__name__}: {error.msg}; the "
                               "translations are checked against the listings once they parse") from None
        for comment in code_comments(source):
            every.setdefault(comment)
            if not comment.startswith("--8<--") and not comment.isascii():  # markers and plain ASCII notes
                comments.setdefault(comment)
        for text in code_literals(source):
            literals.setdefault(text)
    return tuple(every), tuple(comments), tuple(literals)


def snippet_comments() -> list[str]:
    """Every comment of snippets/ a language translates: all but plain-ASCII notes and ``--8<--`` markers (a
    comment of Chinese characters alone, such as ``光``, is one)."""
    return list(_snippet_texts(_snippets_stamp())[1])


def snippet_literals() -> list[str]:
    """Every printed Japanese string of snippets/ (see :func:`translatable`)."""
    return list(_snippet_texts(_snippets_stamp())[2])


def yaml_quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar that reads back as exactly ``text``."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 or code in (0x2028, 0x2029, 0xFEFF) \
                or code in (0xFFFE, 0xFFFF):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}

_ENTRY = re.compile(r"""^(?P<indent>[ ]*)(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#"'][^\n]*?)[ ]*:(?:[ ]+|$)"""
                    r"(?P<value>.*?)[ \t]*$")
_QUOTED = re.compile(r"""^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ \t]*(?:#.*)?$""")


def _quote_fix(line: str, column: int | None = None) -> str | None:
    """For a ``key: value`` line whose value YAML cannot read as it is typed (a ``: `` in it, or a first
    character YAML takes for syntax): the same line with the value in double quotes, shortened."""
    entry = _ENTRY.match(line)
    if not entry or not entry["value"] or (not entry["indent"] and entry["key"] in KEYS and KEYS[entry["key"]] is dict):
        return None
    if column is not None and column < entry.start("value"):
        return None
    value = entry["value"]
    if _QUOTED.match(value):
        return None
    shown = yaml_quoted(value)
    if len(shown) > 42:
        shown = shown[:40] + '…"'
    return f"put the text in quotes: {entry['key']}: {shown}"


def _unclosed_quote(lines: list[str], before: int) -> tuple[int, int] | None:
    """The last ``key: "…`` line before line `before` (0-based) whose quote does not close on the line: YAML
    reads on into the next lines and stumbles somewhere below."""
    for number in range(min(before, len(lines)) - 1, -1, -1):
        entry = _ENTRY.match(lines[number])
        value = entry["value"] if entry else ""
        if value[:1] in ('"', "'") and not _CLOSED[value[0]].match(value):
            return number, entry.start("value")
    return None


_CLOSED = {'"': re.compile(r'"(?:[^"\\]|\\.)*"'), "'": re.compile(r"'(?:[^']|'')*'")}


def _yaml_error(lang: str, text: str, error: yaml.MarkedYAMLError) -> str:
    lines = text.splitlines()
    mark, hint = error.problem_mark or error.context_mark, ""
    if error.context == "while scanning a quoted scalar" and error.context_mark is not None:
        mark = error.context_mark  # the quote that opened, not the end of the file where YAML gave up
        hint = ("; the quote opened here is never closed: end the text with the same quote "
                '(inside double quotes, write a " as \\")')
    elif mark is not None and "'\\t'" in str(error.problem):
        hint = "; indent with spaces, not tabs"
    elif mark is not None and (opened := _unclosed_quote(lines, mark.line)) is not None:
        mark = yaml.Mark("", 0, opened[0], opened[1], None, None)
        hint = ("; the quote opened here is not closed on its line: end the text with the same quote "
                '(inside double quotes, write a " as \\")')
    elif mark is not None:
        for candidate in (error.problem_mark, error.context_mark):
            if candidate is not None and candidate.line < len(lines):
                fix = _quote_fix(lines[candidate.line], candidate.column if candidate is error.problem_mark else None)
                if fix:
                    mark, hint = candidate, "; " + fix
                    break
    where = f"{_where(lang)}:{mark.line + 1}:{mark.column + 1}" if mark else _where(lang)
    return (f"{where}: not valid YAML: {error.problem or error.context}"
            + (f" ({error.context})" if error.context and error.problem else "") + hint)


_KIND_OF_SCALAR = {"bool": "true or false", "int": "a number", "float": "a number", "null": "nothing",
                   "timestamp": "a date"}


def _scalar_problem(lang: str, text: str, key_node: yaml.Node, node: yaml.ScalarNode, name: str) -> str | None:
    """A value that YAML reads as something else than the text typed: a number, true/false, nothing, or text
    whose first characters YAML took for an anchor (``&…``) or a tag (``!…``)."""
    lines = text.splitlines()
    line = lines[key_node.start_mark.line] if key_node.start_mark.line < len(lines) else ""
    typed = text[node.start_mark.index:node.end_mark.index].lstrip()
    if node.style is None and typed[:1] in ("&", "!"):
        return (f"{_where(lang, key_node)}: {name}: YAML takes the text's first word for syntax and drops it; "
                + (_quote_fix(line) or "put the text in quotes"))
    kind = node.tag.rsplit(":", 1)[-1]
    if node.style is None and kind in _KIND_OF_SCALAR:
        if kind == "null":
            return (f"{_where(lang, node)}: {name}: expected the text, found nothing (a value starting with # "
                    "is a comment: put the text in quotes)")
        return (f"{_where(lang, node)}: {name}: YAML reads {node.value!r} as {_KIND_OF_SCALAR[kind]}; "
                + (_quote_fix(line) or f'put the text in quotes: "{node.value}"'))
    if not node.value.strip():
        return f"{_where(lang, node)}: {name}: expected the text, found nothing"
    return None


def _duplicates(lang: str, mapping: yaml.MappingNode, name: str) -> list[str]:
    first: dict[str, yaml.Node] = {}
    problems = []
    for key_node, _ in mapping.value:
        key = str(key_node.value)
        if key in first:
            line = first[key].start_mark.line + 1
            problems.append(f"{_where(lang, key_node)}: {name}{key!r} appears a second time (first at line {line}); "
                            "YAML keeps only the last one: keep one"
                            + (f" '{key}:' section and move the other's entries into it" if not name else ""))
        else:
            first[key] = key_node
    return problems


def _unknown_code_key(lang: str, table: str, key_node: yaml.Node, item: yaml.Node) -> tuple[str, bool]:
    """A key of comments:/literals: that is no comment (printed string) of snippets/: translated, or left behind
    by a change of the Japanese text, it never matches, and the page shows the Japanese text. With whether it
    stops the build: a translated key does, a Japanese one (mistyped, or outdated) does not."""
    every, comments, literals = _snippet_texts(_snippets_stamp())
    known = every if table == "comments" else literals
    what = "a comment" if table == "comments" else "a printed string"
    key = str(key_node.value)
    value = str(item.value) if isinstance(item, yaml.ScalarNode) else ""
    start = f"{_where(lang, key_node)}: {table} «{key}»: not {what} of snippets/"
    if value in known:  # the key and the value swapped: the fix is exact
        return (f"{start}; keys stay as the Japanese text; translate the value: "
                f"{yaml_quoted(value)}: {yaml_quoted(key)}", True)
    if translatable(key) or _HAN.search(key):  # Japanese text, not the snippets' own any more
        near = difflib.get_close_matches(key, [k for k in known if k != key], n=1, cutoff=0.5)
        return (f"{start} (changed or removed there?); keys stay as the Japanese text exactly as written in "
                "snippets/; translate the value" + (f"; the nearest is «{near[0]}»" if near else
                                                    "; remove the entry if its text is gone"), False)
    return f"{start}; keys stay as the Japanese text; translate the value", True


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _problems(lang: str) -> tuple[list[str], list[str]]:
    """The mistakes that stop a build, and the keys that match nothing (see :func:`mistakes`)."""
    path = docs_dir() / lang / STRINGS_FILE
    try:
        text = path.read_text(encoding="utf-8")
        root = yaml.compose(text)
    except yaml.MarkedYAMLError as error:
        return [_yaml_error(lang, text, error)], []
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        return [f"{_where(lang)}: not valid YAML: {error}"], []
    if root is None:
        return [f"{_where(lang)}: the file is empty; start it with: python -m attention_lesson.site.translations "
                f"{lang} --init"], []
    if not isinstance(root, yaml.MappingNode):
        return [f"{_where(lang, root)}: expected a mapping of keys ({', '.join(KEYS)}), found {_kind(root)}"], []
    try:
        source = {} if lang == DEFAULT_LANG else _load(DEFAULT_LANG, _mtime(DEFAULT_LANG))
    except StringsError:
        source = {}  # the Japanese file's own mistakes are reported for it; nothing to compare with here
    problems = _duplicates(lang, root, "")
    left_behind: list[str] = []
    for key_node, value in root.value:
        key = key_node.value
        if key not in KEYS:
            near = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else f"; known keys: {', '.join(KEYS)}"
            problems.append(f"{_where(lang, key_node)}: unknown key {key!r}{hint}")
            continue
        if KEYS[key] is str:
            if not isinstance(value, yaml.ScalarNode) or not str(value.value).strip():
                problems.append(f"{_where(lang, value)}: {key}: expected the language's own text, found "
                                + ("nothing" if isinstance(value, yaml.ScalarNode) else _kind(value)))
            else:
                problem = _scalar_problem(lang, text, key_node, value, key)
                if problem:
                    problems.append(problem)
            continue
        if not isinstance(value, yaml.MappingNode):
            if not (isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")):
                problems.append(f"{_where(lang, value)}: {key}: expected a mapping (key: text, one per line), "
                                f"found {_kind(value)}")
            continue
        if key not in TEXT_TABLES:
            continue
        problems += _duplicates(lang, value, f"{key}: ")
        reference = source.get(key) or {}
        for item_key, item in value.value:
            name = f"{key}.{item_key.value}" if key in ("labels", "ui") else f"{key} «{item_key.value}»"
            if lang != DEFAULT_LANG and key in ("comments", "literals"):
                every, _, literals = _snippet_texts(_snippets_stamp())
                if str(item_key.value) not in (every if key == "comments" else literals):
                    problem, stops = _unknown_code_key(lang, key, item_key, item)
                    (problems if stops else left_behind).append(problem)
                    continue
            elif lang != DEFAULT_LANG and source and item_key.value not in reference:
                near = difflib.get_close_matches(str(item_key.value), [str(k) for k in reference], n=1)
                left_behind.append(f"{_where(lang, item_key)}: {name}: docs/{DEFAULT_LANG}/{STRINGS_FILE} has no such "
                                "key, so this text is never shown; "
                                + (f"did you mean {near[0]!r}?" if near else "remove it")
                                + " (keys stay as in the Japanese file)")
                continue
            if not isinstance(item, yaml.ScalarNode):
                fix = _quote_fix(text.splitlines()[item_key.start_mark.line])
                problems.append(f"{_where(lang, item)}: {name}: expected one line of text, found {_kind(item)}"
                                + (f" (YAML reads a value starting with [ or {{ as one); {fix}" if fix else ""))
                continue
            problem = _scalar_problem(lang, text, item_key, item, name)
            if problem:
                problems.append(problem)
                continue
            text_value = str(item.value)
            if key in ("comments", "literals"):
                if "\n" in text_value.strip("\n") or "\r" in text_value:
                    problems.append(f"{_where(lang, item)}: {name}: must be one line: a line break would change "
                                    "the code shown on the page")
                continue
            try:
                found = _placeholders(text_value)
            except ValueError as error:
                problems.append(f"{_where(lang, item)}: {name}: {error}; write a literal brace as {{{{ or }}}}")
                continue
            original = reference.get(item_key.value)
            if not isinstance(original, str):
                continue
            expected = _placeholders(original)
            missing, extra = sorted(expected - found), sorted(found - expected)
            if len(missing) == 1 and len(extra) == 1:  # the usual slip: one placeholder typed differently
                problems.append(f"{_where(lang, item)}: {name}: the placeholder {{{extra[0]}}} should be "
                                f"{{{missing[0]}}}, as in the Japanese text")
                continue
            for missing in sorted(expected - found):
                problems.append(f"{_where(lang, item)}: {name}: the placeholder {{{missing}}} is missing "
                                f"(the Japanese text has {', '.join(f'{{{p}}}' for p in sorted(expected))})")
            for extra in sorted(found - expected):
                known = ", ".join(f"{{{p}}}" for p in sorted(expected)) or "none"
                problems.append(f"{_where(lang, item)}: {name}: unknown placeholder {{{extra}}}; "
                                f"the Japanese text has {known}")
    return problems, left_behind


def _mtime(lang: str) -> float:
    return (docs_dir() / lang / STRINGS_FILE).stat().st_mtime


def _load(lang: str, mtime: float) -> dict[str, Any]:
    return _loaded(str(docs_dir()), lang, mtime)


@functools.cache
def _loaded(docs: str, lang: str, mtime: float) -> dict[str, Any]:
    problems = validate(lang)
    if problems:
        raise StringsError(problems)
    path = docs_dir() / lang / STRINGS_FILE
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:  # what validate does not foresee still gets one line naming the file
        raise StringsError([f"{_where(lang)}: not valid YAML: {error}".replace("\n", " ")]) from None


def strings(lang: str) -> dict[str, Any]:
    """The parsed strings.yml of a language (re-read when the file changes, so `mkdocs serve` sees edits)."""
    path = docs_dir() / check_language(lang) / STRINGS_FILE
    return _load(lang, path.stat().st_mtime)


def current_language() -> str:
    """The language labels are printed in: the build's (or the command's), else Japanese."""
    _consulted.set(True)
    return check_language(_active.get() or DEFAULT_LANG)


def set_language(lang: str | None) -> None:
    """Make `lang` the language of every label printed from now on, in this build (None: the default)."""
    _active.set(check_language(lang) if lang else None)


@contextmanager
def language(lang: str) -> Iterator[None]:
    token = _active.set(check_language(lang))
    try:
        yield
    finally:
        _active.reset(token)


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
    was = _consulted.get()
    if reset:
        _consulted.set(False)
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
    return _localized(source, lang, str(docs_dir()), _stamp(lang))


@functools.lru_cache(maxsize=256)
def _localized(source: str, lang: str, docs: str, stamp: tuple[int, int] | None) -> str:
    """localize_source, kept per source and state of strings.yml: every rebuild under `mkdocs serve` shows the
    same listings, and tokenizing them is a tenth of a rebuild."""
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
    return _SAVED.sub("", _replace_tokens(source, edits) if edits else source)


_SAVED = re.compile(rf"[ \t]*{re.escape(SAVE)}[ \t]*$", re.M)
"""The package's mark on a listing's function (see attention_lesson): it is for the package, not the reader."""


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
