"""A language's words (``docs/<code>/strings.yml``, untrusted text) and the lesson's code and output in them.

The file is read with the safe loader, without anchors, aliases or tags, every value capped and checked, each
problem one line naming file:line; whoever puts a value into a page escapes it.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import logging
import re
import tokenize
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

FILE = "strings.yml"
MAX_FILE = 256 * 1024
"""Bytes: a strings.yml is a few KB; anything larger is a mistake or an attack."""
MAX_VALUE = 1000
"""Characters of one value."""
TABLES = ("ui", "comments", "literals")
NAMES = ("name", "site_name", "site_description")
SEARCH_PIPELINE = {"stemmer", "stopWordFilter", "trimmer"}
_PLAIN = {f"tag:yaml.org,2002:{kind}" for kind in ("str", "int", "float", "bool", "null", "map", "seq")}
"""The tags a plain YAML text resolves to: any other is refused."""

_JAPANESE = re.compile(r"[\u3000-\u303f\u3040-\u309f\u30a0-\u30ff\uff01-\uff20]")
"""Kana and Japanese punctuation: the mark of a printed Japanese string (kanji alone is data, e.g. the poem)."""
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters but tab and newline: never in a text."""
DECEIVING = re.compile("[\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff]")
"""Bidi embeddings, overrides, isolates ("Trojan Source") and zero-width spaces: never needed, and deceiving."""
IN_CODE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
"""In code, every invisible mark: also the joiners and direction marks prose in Arabic, Persian or Hindi needs."""
NOT_TEXT = {"Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
"""Unicode's categories of code points that are no visible text: format characters (U+2060, U+FEFF, tags), the
line and paragraph separators U+2028 and U+2029 (which end a line for some readers and not others), surrogates,
private-use and unassigned code points."""
SAVE = re.compile(r"[ \t]*#@save[ \t]*$", re.M)
"""The package's mark on a listing's function: for the package, not for the reader."""


class StringsError(ValueError):
    """One or more problems, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Strings:
    """One language's words. Missing values fall back to the Japanese ones (:meth:`over`)."""

    lang: str
    names: dict[str, str] = field(default_factory=dict)
    ui: dict[str, str] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)
    literals: dict[str, str] = field(default_factory=dict)
    search: dict[str, object] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    """Where each value is written: ``"ui.copy_code"`` → its line in the file."""

    def over(self, base: Strings) -> Strings:
        """These strings, with `base`'s wherever this language has none."""
        return dataclasses.replace(self, names=base.names | self.names, ui=base.ui | self.ui)


class NoAliasLoader(yaml.SafeLoader):
    """The safe loader, without anchors and aliases."""

    def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise yaml.MarkedYAMLError(None, None, "anchors and aliases (& and *) are not allowed here",
                                       event.start_mark)
        return super().compose_node(parent, index)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


UNCLOSED = 'a double quote that is not closed: end the value with " on its line'
ADVICE = [  # PyYAML's words for a mistake, and what a translator changes (docs/TRANSLATING.md lists each)
    ("found character '\\t'", "a tab: indent with spaces, two for each level, as the other lines"),
    ("expected <block end>, but found '<block mapping start>'",
     "indented more than the key above it: indent each key of a table by two spaces, as the others"),
    ("mapping values are not allowed here", "a colon inside a value: put the whole value in double quotes"),
    ("could not find expected ':'", 'not a key and its text: write key: "text" on one line'),
    ("found unexpected end of stream", UNCLOSED),
    ("expected <block end>, but found '<scalar>'", UNCLOSED),
    ("found undefined tag handle", "a value that starts with !: put the whole value in double quotes"),
    ("found unknown escape character", r"a backslash in a double-quoted value: write it as \\"),
]
"""A mistake, by PyYAML's first words for it; anything else is said in PyYAML's words."""


def _advice(error: yaml.MarkedYAMLError, rows: list[str]) -> tuple[int, str]:
    """(line, what to change) for a YAML mistake, on the line it is on: for a quote not closed, the line where the
    quote opens (PyYAML names a later one)."""
    said = f"{error.context or ''} {error.problem or ''}"
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark else 0
    advice = next((what for words, what in ADVICE if words in said), None)
    indents = [len(row) - len(row.lstrip(" ")) for row in rows[:line] if row.strip() and row.lstrip()[0] != "#"]
    if "mapping values" in said and len(indents) > 1 and indents[-1] > indents[-2] and ":" in rows[line - 1]:
        advice = ADVICE[1][1]  # a key indented under a key that has its text already: indented too far
    if advice == UNCLOSED:
        unclosed = [n for n, row in enumerate(rows[:line], 1) if len(re.findall(r'(?<!\\)"', row)) % 2]
        line = unclosed[-1] if unclosed else line
    return line, advice or " ".join(said.split())


def load(path: Path, lang: str) -> Strings:
    """Read a strings.yml; :class:`StringsError` lists every problem, one line each (``file:line: …``)."""
    shown = f"docs/{lang}/{FILE}"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Strings(lang)
    except OSError as error:
        raise StringsError([f"{shown}: cannot be read: {error.strerror}"]) from None
    if len(raw) > MAX_FILE:
        raise StringsError([f"{shown}: {len(raw)} bytes, more than the {MAX_FILE} a strings file may have"])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise StringsError([f"{shown}:{line}: not UTF-8 (byte {raw[error.start]:#x}): save it as UTF-8"]) from None
    try:
        root = yaml.compose(text, Loader=NoAliasLoader)
    except yaml.MarkedYAMLError as error:
        line, advice = _advice(error, text.splitlines())
        raise StringsError([f"{shown}:{line}: {advice}" if line else f"{shown}: {advice}"]) from None
    except yaml.YAMLError as error:
        raise StringsError([f"{shown}: {error}"]) from None
    except RecursionError:
        raise StringsError([f"{shown}: nested too deep: a strings file is keys and texts, two levels"]) from None
    strings = Strings(lang)
    if root is None:
        return strings
    problems = [f"{shown}:{_line(node)}: tags ({node.tag.rsplit(':', 1)[-1]!r}) are not allowed: write plain text"
                for node in _nodes(root) if node.tag not in _PLAIN]
    if not isinstance(root, yaml.MappingNode):
        raise StringsError([f"{shown}:{_line(root)}: expected keys such as name:, ui:, comments:, literals:"])
    for key, node, line in _pairs(root, shown, "", problems):
        where = f"{shown}:{line}: {key}"
        if key in NAMES:
            strings.lines[key] = line
            _text(node, where, problems, strings.names, key)
        elif key in TABLES and not (isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null")):
            if not isinstance(node, yaml.MappingNode):
                problems.append(f"{where}: expected keys and texts, one per line")
                continue
            for name, text, at in _pairs(node, shown, f"{key}: ", problems):
                strings.lines[f"{key}.{name}"] = at
                _text(text, f"{shown}:{at}: {key}: {name}", problems, getattr(strings, key), name,
                      code=key != "ui")
        elif key == "search":
            problems += _search(node, where, strings)
        elif key not in TABLES:
            problems.append(f"{shown}:{line}: unknown key {key!r}; known: {', '.join((*NAMES, *TABLES, 'search'))}")
    if problems:
        raise StringsError(problems)
    return strings


def _pairs(node: yaml.MappingNode, shown: str, table: str, problems: list[str]):  # noqa: ANN202
    """A mapping's (key, value node, line), each key text and written once (else a problem)."""
    seen = set()
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.value in seen:
            what = "a key must be text" if not isinstance(key, yaml.ScalarNode) else f"{key.value}: written twice"
            problems.append(f"{shown}:{_line(key)}: {table}{what}")
            continue
        seen.add(key.value)
        yield key.value, value, _line(key)


def invisible(text: str, code: bool = False) -> str | None:
    """The first character of `text` that a reader cannot see and that may deceive, as U+XXXX, or None."""
    found = CONTROL.search(text) or (IN_CODE if code else DECEIVING).search(text)
    if code and not found:  # in code, whatever Unicode calls a format character or a line or paragraph separator
        found = next((c for c in text if unicodedata.category(c) in NOT_TEXT), None)
    return f"U+{ord(found[0]):04X}" if found else None


def printable(text: str) -> str:
    """A line for a terminal or a CI log: control and invisible characters shown as escapes (\\u202e)."""
    return re.sub(f"[\\x00-\\x1f\\x7f-\\x9f]|{IN_CODE.pattern}", lambda m: f"\\u{ord(m[0]):04x}", text)


def printable_record(record: logging.LogRecord) -> bool:
    """A filter for log handlers: a record's lines made :func:`printable` (the line breaks between them kept)."""
    record.msg, record.args = "\n".join(map(printable, record.getMessage().split("\n"))), ()
    return True


def _text(node: yaml.Node, where: str, problems: list[str], into: dict[str, str], key: str,
          code: bool = False) -> None:
    """One line of text, kept in `into` (an empty one counts as not yet translated)."""
    text = node.value.strip() if isinstance(node, yaml.ScalarNode) else None
    if text is None:
        problems.append(f"{where}: expected one line of text between double quotes")
    elif len(text) > MAX_VALUE:
        problems.append(f"{where}: {len(text)} characters, more than the {MAX_VALUE} a value may have")
    elif "\n" in text or "\r" in text:
        problems.append(f"{where}: must be one line")
    elif node.end_mark.line > node.start_mark.line and node.style in ('"', "'"):  # YAML folded lines into it
        problems.append(f"{where}: {UNCLOSED}")
    elif mark := invisible(text, code):
        problems.append(f"{where}: an invisible character, {mark}, that changes how the text around it is read: "
                        "remove it")
    elif text:
        into[key] = text


def _nodes(node: yaml.Node):  # noqa: ANN202 - every node of a document
    yield node
    for child in node.value if isinstance(node, yaml.SequenceNode) else \
            [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else []:
        yield from _nodes(child)


def _search(node: yaml.Node, where: str, strings: Strings) -> list[str]:
    try:
        value = yaml.load(yaml.serialize(node), Loader=NoAliasLoader)  # noqa: S506 - the safe loader, without aliases
    except yaml.YAMLError:
        return [f"{where}: expected lang: [...]"]
    if not isinstance(value, dict) or set(value) - {"lang", "pipeline", "separator", "words"}:
        return [f"{where}: only lang:, pipeline:, separator: and words: are allowed"]
    langs, pipeline, separator = value.get("lang") or [], value.get("pipeline"), value.get("separator")
    if not isinstance(langs, list) or not all(isinstance(x, str) and re.fullmatch(r"[a-z]{2,3}", x) for x in langs):
        return [f"{where}: lang: a list of two- or three-letter codes, e.g. [en]"]
    if pipeline is not None and (not isinstance(pipeline, list)
                                 or not all(isinstance(step, str) and step in SEARCH_PIPELINE for step in pipeline)):
        return [f"{where}: pipeline: a list of {', '.join(sorted(SEARCH_PIPELINE))}"]
    if separator is not None and (not isinstance(separator, str) or len(separator) > 300):
        return [f"{where}: separator: one short regular expression"]
    words = value.get("words") or []  # for jieba, Material's Chinese word splitter, which reads them as text
    if not isinstance(words, list) or len(words) > 1000 or not all(
            isinstance(w, str) and re.fullmatch(r"[^\s\x00-\x1f]{1,30}", w) for w in words):
        return [f"{where}: words: a list of at most 1000 words, each 1 to 30 characters without spaces"]
    strings.search = value
    return []


def translatable(text: str) -> bool:
    return bool(_JAPANESE.search(text))


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    """The tokens of code, as far as it tokenizes: an excerpt may stop inside a bracket (a listing that does not
    parse is named where it is read, :func:`source.listing`)."""
    found: list[tokenize.TokenInfo] = []
    with contextlib.suppress(tokenize.TokenError, SyntaxError):
        found.extend(tokenize.generate_tokens(io.StringIO(source).readline))
    return found


def _literals(tokens: list[tokenize.TokenInfo]) -> list[tuple[tokenize.TokenInfo, str]]:
    """Every plain string literal (not an f-string, not bytes) with kana or Japanese punctuation, and its value."""
    found = [(tok, ast.literal_eval(tok.string)) for tok in tokens
             if tok.type == tokenize.STRING and not re.match(r"[rRuU]*[bBfF]", tok.string)]
    return [(tok, value) for tok, value in found if translatable(value)]


def comments_of(source: str) -> list[str]:
    return [tok.string.lstrip("#").strip() for tok in _tokens(source) if tok.type == tokenize.COMMENT
            and tok.string.lstrip("#").strip() and not SAVE.search(tok.string)]


def literals_of(source: str) -> list[str]:
    return [value for _, value in _literals(_tokens(source))]


def localize_source(source: str, strings: Strings) -> str:
    """The code with its comments and printed Japanese strings in the language (those it has), for reading."""
    tokens = _tokens(source)
    edits = [(tok, f"# {strings.comments[text]}") for tok in tokens if tok.type == tokenize.COMMENT
             and (text := tok.string.lstrip("#").strip()) in strings.comments]
    for tok, value in _literals(tokens):
        if (text := strings.literals.get(value)) is not None:
            quote = tok.string[-1]
            edits.append((tok, quote + text.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote))
    lines = source.splitlines(keepends=True)
    for tok, text in sorted(edits, key=lambda e: e[0].start, reverse=True):
        (row, col), (end_row, end_col) = tok.start, tok.end
        if row == end_row:
            lines[row - 1] = lines[row - 1][:col] + text + lines[row - 1][end_col:]
    return SAVE.sub("", "".join(lines))


ISOLATED = ("\ue000", "\ue001")
"""Where a translated string starts and ends in output about to be rendered (private-use code points, which no
translation may hold): the renderer makes them an isolating element, so that a right-to-left string never
reorders the numbers printed beside it."""


def localize_output(output: str, literals: list[str], strings: Strings, escape=None,  # noqa: ANN001
                    isolate: bool = False) -> str:
    """What the Japanese code printed, with each of its printed Japanese strings in the language, in one pass.
    `escape` makes a translation safe where the output is rendered (Markdown); the Japanese text is the
    project's own. `isolate`: each translation between :data:`ISOLATED`'s marks."""
    present = [text for text in sorted(set(literals), key=len, reverse=True) if text in strings.literals]
    if not present:
        return output
    start, end = ISOLATED if isolate else ("", "")
    pattern = re.compile("|".join(map(re.escape, present)))
    return pattern.sub(lambda m: start + (escape or str)(strings.literals[m[0]]) + end, output)
