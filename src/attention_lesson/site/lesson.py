"""The project as the build sees it: its languages, its Japanese pages and notebooks, and each page's run.

Everything is taken from the tree: a language is a folder ``docs/<code>/``, a page is a Markdown file of the
Japanese folder (``docs/ja/``), a notebook is a jupytext file in its ``notebooks/``. Nothing here names a page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import jupytext

from attention_lesson.site import paragraphs, source, strings
from attention_lesson.site.boundary import Outline
from attention_lesson.site.run import Runner, Stats
from attention_lesson.site.source import Fence, Page, SourceError, Step

SOURCE_LANG = "ja"
NOTEBOOKS = "notebooks"
LANG_CODE = re.compile(r"[a-z]{2,3}(?:-(?:[A-Z][a-z]{3}|[A-Z]{2}|[0-9]{3}))?")
T = TypeVar("T")


@dataclass
class Project:
    root: Path
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def remember(self, files: list[Path], make: Callable[[], T], *extra: str) -> T:
        """``make()``, or what it gave when `files` (and `extra`) were last as they are now: a project kept by
        `mkdocs serve` checks again only the pages an edit changed (ARCHITECTURE.md: what each speed mechanism buys)."""
        if (key := digest(files, *extra)) not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    @classmethod
    def find(cls, start: Path) -> Project:
        """The project at or above `start` (a folder with mkdocs.yml and docs/); LookupError if none."""
        here = start.resolve()
        for root in (here, *here.parents):
            if (root / "mkdocs.yml").is_file() and (root / "docs").is_dir():
                return cls(root)
        raise LookupError(f"no mkdocs.yml with a docs/ folder at or above {here}")

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def snippets(self) -> Path:
        return self.root / "snippets"

    def languages(self) -> list[str]:
        """Japanese first, then every other language folder, by code."""
        found = sorted(p.name for p in self.docs.iterdir() if p.is_dir() and LANG_CODE.fullmatch(p.name)
                       and ((p / strings.FILE).is_file() or any(p.glob("*.md"))))
        return [SOURCE_LANG, *(code for code in found if code != SOURCE_LANG)]

    def pages(self, lang: str = SOURCE_LANG) -> list[str]:
        """A language's pages and notebooks, relative to its folder (``query-key.md``, ``notebooks/x.py``)."""
        folder = self.docs / lang
        found = [*folder.rglob("*.md"), *folder.glob(f"{NOTEBOOKS}/*.py")]
        return sorted(p.relative_to(folder).as_posix() for p in found)

    def read(self, lang: str, page: str) -> Page:
        shown = f"docs/{lang}/{page}"
        try:
            text = (self.root / shown).read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise SourceError(f"{shown}: not UTF-8 at byte {error.start}: save it as UTF-8") from None
        return notebook_page(text, shown) if page.startswith(f"{NOTEBOOKS}/") else source.scan(text, shown)

    def strings(self, lang: str, base: strings.Strings | None = None) -> strings.Strings:
        """A language's words, the Japanese ones (`base`, read if not given) wherever it has none."""
        path = self.docs / lang / strings.FILE
        own = self.remember([path], lambda: strings.load(path, lang), "strings", lang)
        return own if lang == SOURCE_LANG else own.over(base or self.strings(SOURCE_LANG))


def digest(files: list[Path], *extra: str) -> str:
    """A SHA-256 of `files` as they are now (their paths and bytes; a missing one as such) and `extra`."""
    found = hashlib.sha256("\0".join(extra).encode())
    for path in files:
        found.update(f"\0{path}\0".encode() + (path.read_bytes() if path.is_file() else b"-"))
    return found.hexdigest()


def notebook_page(text: str, path: str) -> Page:
    """A jupytext notebook as a page, its cells read by jupytext as the published notebook's are: each code cell a
    python block of one session (its tags in the block's options), every other cell prose, where its text is."""
    try:
        cells = jupytext.reads(text, fmt="py:percent").cells
    except Exception as error:  # noqa: BLE001 - jupytext raises what its readers raise; the page names it
        raise SourceError(f"{path}: jupytext cannot read this notebook: {error}") from None
    lines, fences, prose, at = text.splitlines(), [], [], 0
    for cell in cells:
        body = cell.source.splitlines()
        first = next((row for row in body if row.strip()), "")
        wanted = {first} if cell.cell_type == "code" else {f"# {first}", f"#{first}", first}
        at = next((n for n in range(at, len(lines)) if lines[n].rstrip() in wanted and first), at)
        if cell.cell_type == "code":
            header = json.dumps(cell.metadata, sort_keys=True, ensure_ascii=False) if cell.metadata else ""
            fences.append(Fence(at, "```", f'python exec="on" session="notebook" {header}'.strip(), cell.source,
                                "python", {"exec": "on", "session": "notebook"}))
        else:
            prose += [(at + 1 + k, row) for k, row in enumerate(body)]
        at += max(len(body), 1)
    return Page(path, fences, prose)


@dataclass
class PageRun:
    """One Japanese page's run: each block's output, each figure's data, each value, by page order."""

    outputs: list[dict[str, Any]] = field(default_factory=list)  # {"code", "output", "literals", "hidden"}
    figures: list[dict[str, Any]] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)
    failed_claims: list[tuple[str, ...]] = field(default_factory=list)  # (where, claim, what it raised if it did)
    failed_values: list[tuple[str, str, str]] = field(default_factory=list)  # (where, expression, what it raised)
    unsure: list[bool] = field(default_factory=list)  # per claim fence: a soft claim this run does not bear out


@dataclass
class Site:
    """What the first build of a command finds and runs, shared with the other languages' builds."""

    project: Project
    languages: list[str]
    words: dict[str, strings.Strings]
    runs: dict[str, PageRun] = field(default_factory=dict)
    stats: Stats = field(default_factory=Stats)
    outlines: dict[str, Outline] = field(default_factory=dict)  # each Japanese page as written, by source
    refused: list[str] = field(default_factory=list)  # what a translated page published that it may not
    status: dict[str, dict[str, str]] = field(default_factory=dict)  # every page's state in every language


def run_page(project: Project, page: str, runner: Runner) -> PageRun:
    """Run (or take from the store) every session of a Japanese page."""
    by_line: list[tuple[Step, dict[str, Any]]] = []
    for steps in source.steps(project.read(SOURCE_LANG, page), project.snippets).values():
        by_line += zip(steps, runner.session(steps), strict=True)
    by_line.sort(key=lambda item: int(item[0].where.rsplit(":", 1)[1]))
    result = PageRun()
    for step, outcome in by_line:
        if step.kind == "run":
            result.outputs.append({"code": step.code, "output": outcome.get("output", ""), "hidden": step.hidden,
                                   "literals": strings.literals_of(step.code)})
        elif step.kind == "figure":
            result.figures.append(outcome.get("figure") or {})
        elif step.kind == "value" and "raised" in outcome:
            result.failed_values.append((step.where, step.code, outcome["raised"]))
        elif step.kind == "value":
            result.values.setdefault(step.code, str(outcome.get("value", "")))
        elif step.kind == "claim":  # every line of the fence that does not hold
            failed, (path, first) = outcome.get("claim") or [], step.where.rsplit(":", 1)
            result.unsure.append(bool(failed) and step.soft)
            result.failed_claims += [] if step.soft else [(f"{path}:{int(first) + k}", c, *raised)
                                                          for k, c, *raised in failed]
    return result


def claim_errors(project: Project, page: str, run: PageRun) -> list[str]:
    """Every claim that no longer holds (or raises), named where it stands in every language's page, with the text
    it backs (the paragraph, caption or alt text above its fence) in every language: one line each claim. The
    translations were checked before anything ran, so each reads as text."""
    if not run.failed_claims and not run.failed_values:
        return []
    japanese = project.read(SOURCE_LANG, page)
    pages = [project.read(lang, page) for lang in project.languages()[1:] if (project.docs / lang / page).is_file()]
    errors = []
    for where, claim, *raised in run.failed_claims:
        places = [where] + [f"{t.path}:{f.line + k}" for t in pages for f in t.fences if f.lang == "claim"
                            for k, line in enumerate(f.body.splitlines(), 1) if line.strip() == claim]
        backs = _backed(japanese, pages, int(where.rsplit(":", 1)[1]))
        why = f" (it raised {raised[0]})" if raised else ""
        errors.append(f"{', '.join(places)}: this claim is no longer true: {claim}{why}; it backs "
                      f"{', '.join(backs) or 'the text above it'}: the code's output changed: change that text and "
                      "the claim, or the code")
    for where, expr, raised in run.failed_values:
        places = [where] + [f"{t.path}:{line}" for t in pages for line, text in t.prose
                            if any(m["expr"].strip() == expr for m in source.VALUE.finditer(text))]
        errors.append(f"{', '.join(places)}: the value {{{{ {expr} }}}} cannot be computed any more ({raised}): the "
                      "code changed: change that text and the value, or the code")
    return errors


def _backed(japanese: Page, translations: list[Page], line: int) -> list[str]:
    """Where the text a claim at `line` backs stands in every language: the paragraph, caption or alt text just
    above its fence (file:line), paired by :mod:`paragraphs`."""
    parts = paragraphs.stretches(japanese)
    above = [(n, k) for n, part in enumerate(parts) for k, unit in enumerate(part) if unit.end < line]
    if not above:
        return []
    n, k = above[-1]
    found = [f"{japanese.path}:{parts[n][k].line}"]
    for page in translations:
        theirs = paragraphs.stretches(page)
        if n < len(theirs) and theirs[n]:
            found.append(f"{page.path}:{theirs[n][k if len(theirs[n]) == len(parts[n]) else 0].line}")
    return found


def typed_numbers(project: Project, page: str, run: PageRun) -> list[str]:
    """A number typed in a page's prose or figure text (any language) that the page's run printed: it would not
    follow the code when the code changes, so it must be a value. An integer the listing itself types (T = 5,
    a dimension the prose defines) may be typed; a claim says what the prose says of it."""
    printed = set().union(*(source.numbers(block["output"]) for block in run.outputs))
    typed = printed - {n for n in set().union(*(source.numbers(b["code"]) for b in run.outputs)) if n.isdigit()}
    problems = []
    for lang in project.languages():
        if not typed or not (project.docs / lang / page).is_file():
            continue
        read = project.read(lang, page)
        figures = [(f.line + k, row) for f in read.fences if f.lang == "figure"
                   for k, row in enumerate(f.body.splitlines(), 1) if row.split(":")[0].strip() in source.FIGURE_TEXT]
        for line, text in [*read.prose, *figures]:
            for number in source.whole(source.numbers(source.VALUE.sub("", text)) & typed):
                problems.append(f"docs/{lang}/{page}:{line}: {source.typed(text, number)!r} types {number}, which "
                                "the page's code prints: write it as "
                                "a value, {{ expression:format }}, so that it follows the code (a number that is "
                                "not about the run, such as an ordinal: in words)")
    for where, comment in _comments(project, run):  # a comment is prose a reader copies with the code
        for number in source.whole(source.numbers(comment) & typed):
            problems.append(f"{where}: the comment {source.typed(comment, number)!r} types {number}, which the "
                            "page's code prints: say it in words, or let the output show it")
    return problems


def _comments(project: Project, run: PageRun) -> list[tuple[str, str]]:
    """(snippets/<file>:<line>, comment) for each comment of the code a page runs, where the listing has it."""
    listings = {path.name: source.listing(path).splitlines() for path in sorted(project.snippets.glob("*.py"))}
    found = []
    for block in run.outputs:
        for comment in strings.comments_of(block["code"]):
            where = next((f"snippets/{name}:{n}" for name, rows in listings.items()
                          for n, row in enumerate(rows, 1) if comment in row and "#" in row), "a listing")
            found.append((where, comment))
    return found


def shown_code(project: Project, page: str) -> str:
    """The code a Japanese page shows: every python block, run or not, its includes read from snippets/."""
    scanned, code = project.read(SOURCE_LANG, page), []
    for fence in scanned.fences:
        if fence.lang in ("python", "py", "pycon"):
            try:
                code.append(source.expand(fence.body, project.snippets, f"{scanned.path}:{fence.line}")[0])
            except SourceError:
                code.append(fence.body)  # the build names the include
    return "\n".join(code)


def named_code(project: Project, page: str) -> list[str]:
    """A code span in any language's prose (``view``, ``is_causal=True``) that names code neither the page nor a
    page it links shows any more: one line each, naming the sentence. Values, paths and command lines are not
    code of a page; ``...`` in a span stands for any code, and ``f()`` names ``f``."""
    linked = {page} | {target.split("#")[0].replace(".ipynb", ".py") for target in source.links(
        project.read(SOURCE_LANG, page))} & set(project.pages(SOURCE_LANG))
    code = _spaced("\n".join(shown_code(project, name) for name in sorted(linked)))
    japanese = {span for _, text in project.read(SOURCE_LANG, page).prose for span in source.code_spans(text)}
    problems = []
    for lang in project.languages():  # a translation's spans that the Japanese page writes too
        if not (project.docs / lang / page).is_file():
            continue
        for line, text in project.read(lang, page).prose:
            for span in [span for span in source.code_spans(text) if span in japanese]:
                pieces = [_spaced(piece) for piece in re.split(r"\.\.\.|…", span.removesuffix("()"))]
                if source.is_code(span) and not _in_order(pieces, code):
                    problems.append(f"docs/{lang}/{page}:{line}: `{span}` is not in the code this page shows any "
                                    "more: say what the code does now (or change the code back)")
    return problems


def _spaced(code: str) -> str:
    """Code with a space only between two names or numbers (``a @ b`` and ``a@b`` are one)."""
    return re.sub(r"(?<=\W) | (?=\W)", "", re.sub(r"\s+", " ", code)).strip()


def _in_order(pieces: list[str], code: str) -> bool:
    """Whether the pieces are in the code in that order, each a whole name where it starts or ends with one."""
    at = 0
    for piece in filter(None, pieces):
        edge = (r"(?<!\w)" if re.match(r"\w", piece) else "") + re.escape(piece) + (
            r"(?!\w)" if re.search(r"\w$", piece) else "")
        found = re.compile(edge).search(code, at)
        if found is None:
            return False
        at = found.end()
    return True


def include_problems(project: Project, page: str) -> list[str]:
    """A Japanese page's includes, each read as a block reads it: one line for each that is not a file (or
    section) of snippets/, or not UTF-8."""
    try:
        scanned = project.read(SOURCE_LANG, page)
    except SourceError as error:
        return [str(error)]
    problems = []
    for line, text in scanned.includes:
        try:
            source.expand(text, project.snippets, f"{scanned.path}:{line - 1}")
        except SourceError as error:
            problems.append(str(error))
    return problems


MAX_PAGE = 1_000_000
"""Bytes of a translated page or notebook: the longest Japanese page is about 10 KB."""


def folder_problems(project: Project, lang: str) -> list[str]:
    """Anything in a language folder but translations of Japanese pages and strings.yml, any link, any page over
    :data:`MAX_PAGE`: one line each, nothing read. Dot-names MkDocs never publishes (macOS's .DS_Store) pass."""
    folder, problems = project.docs / lang, []
    allowed = {strings.FILE, paragraphs.RECORD, *project.pages(SOURCE_LANG)}
    for top, folders, names in os.walk(folder):  # links are not followed
        for name in sorted(folders + names):
            path = Path(top, name)
            shown = f"docs/{lang}/{path.relative_to(folder).as_posix()}"
            if path.is_symlink():
                problems.append(f"{shown}: a link (symlink) in a language folder: remove it, and copy the file in "
                                "if it is a translation")
            elif name.startswith(".") or path.is_dir():
                continue
            elif not path.is_file():  # a pipe would never end a read, a device neither
                problems.append(f"{shown}: not a regular file (a pipe, socket or device): remove it")
            elif path.relative_to(folder).as_posix() not in allowed:
                problems.append(f"{shown}: not a translation of a page of docs/{SOURCE_LANG}/: remove it (images and "
                                f"other files come from docs/{SOURCE_LANG}/)")
            elif path.stat().st_size > MAX_PAGE:
                problems.append(f"{shown}: {path.stat().st_size} bytes, more than the {MAX_PAGE} a page may have")
        folders[:] = [name for name in folders if not name.startswith(".") and not Path(top, name).is_symlink()]
    return problems


def check_translation(project: Project, lang: str, page: str) -> list[str]:
    """A translated page's problems (see :func:`source.translation_problems`); none for a missing page."""
    if not (project.docs / lang / page).is_file():
        return []
    if not (project.docs / SOURCE_LANG / page).is_file():
        return [f"docs/{lang}/{page}: there is no Japanese page {page} to translate (remove it, or rename it "
                "as the Japanese page is named)"]
    def check() -> list[str]:
        try:
            japanese, translated = project.read(SOURCE_LANG, page), project.read(lang, page)
            if too_large := paragraphs.size_problems(japanese, translated):
                return too_large  # nothing else is read of it
            return source.translation_problems(japanese, translated) + paragraphs.number_problems(japanese, translated)
        except SourceError as error:
            return [str(error)]

    return project.remember([project.docs / code / page for code in (SOURCE_LANG, lang)], check, "translation")

