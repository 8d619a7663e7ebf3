"""A page's prose as units, paired with the Japanese page's, and the record of what each translation translated.

A unit is what a translator translates as one: a paragraph, a heading, a list, a table, a text block, or a
figure's words (its title, labels, alt text, caption). The code blocks of a page split its prose into stretches;
a translation keeps the Japanese page's code blocks in order (:func:`source.translation_problems`), so the n-th
stretch of a translation translates the n-th stretch of the Japanese page, and where both hold as many units, the
n-th unit the n-th. Each unit has a fingerprint of its text, as gettext's msgid identifies a message.

``docs/<code>/translated.yml`` records, for each translated page, the fingerprints of the Japanese units it was
translated from (written by ``python -m attention_lesson.site.translations <code> --done <page>``, never by
hand). A translated unit whose Japanese unit no longer has that fingerprint is outdated: the published page marks
it, the status page and the translators' check name it. Commit times play no part.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from attention_lesson.site import source
from attention_lesson.site.source import Page
from attention_lesson.site.strings import NoAliasLoader

RECORD = "translated.yml"
RECIPROCAL = re.compile(r"(?<![\d.])1/(?=\{\{)")
"""``1/{{ value }}``: how some languages write "one value-th", as Japanese writes 分の一 in words."""
MAX_RECORD = 512 * 1024
FINGERPRINT = re.compile(r"[0-9a-f]{12}")
HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
HEADER = ("# What each page of this folder was translated from: for each stretch of prose between two code blocks of\n"
          "# the Japanese page, a fingerprint of each of its paragraphs, headings, lists and figure texts, as they\n"
          "# were when the translation was made. Written by the translators' check with --done; do not edit by hand.\n")


@dataclass(frozen=True)
class Unit:
    """A stretch of text translated as one: its first and last line in its page, and its text."""

    line: int
    end: int
    text: str

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(" ".join(self.text.split()).encode()).hexdigest()[:12]


def stretches(page: source.Page) -> list[list[Unit]]:
    """A page's units, by stretch: the prose between two code blocks (a figure's words end the stretch it
    follows). A text block without options is a unit of its own (a translator translates it)."""
    fences = {f.line: f for f in page.fences}
    prose = dict(page.prose)
    found: list[list[Unit]] = [[]]
    block: list[tuple[int, str]] = []

    def close() -> None:
        if block:
            found[-1].append(Unit(block[0][0], block[-1][0], "\n".join(text for _, text in block)))
            block.clear()

    for line in sorted({*prose, *fences}):
        if line in prose:
            if HEADING.match(prose[line]):  # a heading is a block of its own, blank lines around it or not
                close()
                block.append((line, prose[line]))
                close()
            elif prose[line].strip():
                block.append((line, prose[line]))
            else:
                close()
            continue
        close()
        fence = fences[line]
        if fence.lang in source.TEXT_FENCES and not fence.options and "8<" not in fence.body:
            found[-1].append(Unit(line, line + fence.body.count("\n") + 2, fence.body))
            continue
        if fence.lang == "figure":
            rows = [row for row in fence.body.splitlines() if row.split(":")[0].strip() in source.FIGURE_TEXT]
            if rows:
                found[-1].append(Unit(line, line + fence.body.count("\n") + 2, "\n".join(rows)))
        found.append([])
    close()
    return found


@dataclass(frozen=True)
class Pair:
    """A translated unit and the Japanese unit it translates (None where its stretch holds another number of
    units: it translates the Japanese stretch as a whole)."""

    ours: Unit
    japanese: Unit | None
    stretch: list[Unit]


def pairs(japanese: source.Page, translated: source.Page) -> list[Pair]:
    """Each unit of `translated` with the Japanese unit (or stretch) it translates."""
    found = []
    for theirs, ours in zip(stretches(japanese), stretches(translated), strict=False):
        same = len(theirs) == len(ours)
        found += [Pair(unit, theirs[n] if same else None, theirs) for n, unit in enumerate(ours)]
    return found


class RecordError(ValueError):
    """A translated.yml that cannot be read: one line naming it."""


def read_record(folder: Path) -> dict[str, list[list[str]]]:
    """A language folder's record (empty if it has none): page → the fingerprints of each Japanese stretch."""
    path, shown = folder / RECORD, f"docs/{folder.name}/{RECORD}"
    if not path.is_file():
        return {}
    if path.stat().st_size > MAX_RECORD:
        raise RecordError(f"{shown}: larger than {MAX_RECORD} bytes: write it again with --done")
    try:
        data = yaml.load(path.read_text("utf-8"), Loader=NoAliasLoader)  # noqa: S506 - the safe loader, no aliases
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as error:
        where = getattr(error, "problem_mark", None)
        raise RecordError(f"{shown}{f':{where.line + 1}' if where else ''}: not a record the translators' check "
                          "wrote: write it again with --done") from None
    data = data or {}
    if not isinstance(data, dict) or not all(
            isinstance(page, str) and isinstance(parts, list) and all(
                isinstance(part, list) and all(isinstance(f, str) and FINGERPRINT.fullmatch(f) for f in part)
                for part in parts) for page, parts in data.items()):
        raise RecordError(f"{shown}: not a record the translators' check wrote: write it again with --done")
    return data


def write_record(folder: Path, record: dict[str, list[list[str]]]) -> Path:
    """The record written whole (pages in order, a stretch a line)."""
    lines = [HEADER.rstrip("\n")]
    for page in sorted(record):
        lines.append(f"{page}:")
        lines += [f"- [{', '.join(part)}]" for part in record[page]]
    path = folder / RECORD
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def fingerprints(page: source.Page) -> list[list[str]]:
    return [[unit.fingerprint for unit in part] for part in stretches(page)]


def outdated(japanese: source.Page, translated: source.Page, recorded: list[list[str]] | None) -> list[Pair]:
    """The translated units whose Japanese text is not what the record says it was translated from: every unit of
    a page with no record, every unit of a stretch whose Japanese units were added or removed since."""
    now = stretches(japanese)
    found = []
    for n, (theirs, ours) in enumerate(zip(now, stretches(translated), strict=False)):
        then = recorded[n] if recorded is not None and n < len(recorded) else None
        same = then is not None and len(then) == len(theirs) == len(ours)
        for k, unit in enumerate(ours):
            if not same or then[k] != theirs[k].fingerprint:
                found.append(Pair(unit, theirs[k] if len(theirs) == len(ours) else None, theirs))
    return found


def number_problems(japanese: source.Page, translated: source.Page) -> list[str]:
    """A translated unit that types a number its Japanese unit (or stretch) does not type, or that lacks a value
    ``{{ }}`` its Japanese unit holds: one line each. A number is the run's to write, or the Japanese text's."""
    problems = []
    for pair in pairs(japanese, translated):
        theirs = [pair.japanese] if pair.japanese else pair.stretch
        text = "\n".join(unit.text for unit in theirs)
        allowed = source.numbers(source.VALUE.sub("", text))
        for number in source.whole(source.numbers(source.VALUE.sub("", RECIPROCAL.sub("", pair.ours.text))) - allowed):
            line = pair.ours.line + next((k for k, row in enumerate(pair.ours.text.splitlines())
                                          if number in source.numbers(source.VALUE.sub("", row))), 0)
            shown = next((row for row in pair.ours.text.splitlines()[line - pair.ours.line:][:1]), "")
            where = f"{japanese.path}:{theirs[0].line}" if theirs else japanese.path
            problems.append(f"{translated.path}:{line}: {source.typed(shown, number)!r} types {number}, which the "
                            f"Japanese text it translates ({where}) does not: write the number as the Japanese "
                            "text does (a value {{ … }} where it has one)")
        if pair.japanese:
            wanted = {m["expr"].strip() for m in source.VALUE.finditer(pair.japanese.text)}
            missing = wanted - {m["expr"].strip() for m in source.VALUE.finditer(pair.ours.text)}
            problems += [f"{translated.path}:{pair.ours.line}: the Japanese text it translates "
                         f"({japanese.path}:{pair.japanese.line}) shows the value {{{{ {expr} }}}}: keep it here"
                         for expr in sorted(missing)]
    return problems


def _depth(text: str) -> int:
    """How deep a line nests: its indentation, and two for each > of a quote."""
    marks = re.match(r"[ \t>]*", text)[0]
    return len(marks.replace("\t", "    ")) + marks.count(">")


def size_problems(japanese: Page, translated: Page) -> list[str]:
    """A translation far longer or deeper than its Japanese page (a flood of headings, a list nested hundreds
    deep), refused before anything renders it: Python-Markdown reads such a page for minutes."""
    ours, theirs = (sum(map(len, stretches(page))) for page in (translated, japanese))
    problems = []
    if ours > 2 * theirs + 20:
        problems.append(f"{translated.path}: {ours} paragraphs, headings and lists where {japanese.path} has "
                        f"{theirs}: translate each of them as one")
    deepest = max((_depth(text) for _, text in japanese.prose), default=0) + 24
    line, depth = max(((n, _depth(text)) for n, text in translated.prose), key=lambda item: item[1], default=(0, 0))
    if depth > deepest:
        problems.append(f"{translated.path}:{line}: nested {depth} columns deep where {japanese.path} goes "
                        f"{deepest - 24} deep: a translation nests its lists and quotes as the Japanese page does")
    return problems
