"""The translators' check: ``python -m attention_lesson.site.translations [<code> ...] [--init] [--all]``.

Exit 2 with one line per mistake, else 0 (docs/TRANSLATING.md, "Check and preview"); ``--init`` starts a
language folder. The status page shows the same table.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html
import importlib.util
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from attention_lesson.site import paragraphs, source, strings
from attention_lesson.site.lesson import LANG_CODE, SOURCE_LANG, Project, check_translation, folder_problems

STATUS_PAGE = "translation-status.md"


COMMAND = ".ci/env python -m attention_lesson.site.translations"
"""The check as a translator types it (TRANSLATING.md): every command a message shows is written so."""
DONE = COMMAND + " {lang} --done {page}"
"""The command a translator runs once a page is translated again."""


def code_problems(project: Project, lang: str, words: dict[str, strings.Strings]) -> list[str]:
    """Everything in a language folder that must be fixed before the site can show it, one line each: its pages
    (:func:`check_translation`) and its ui texts in `words` (a key the Japanese file lacks, {placeholders}
    changed); `words` lacks a language whose strings.yml could not be read (that is said where it was read)."""
    if lang == SOURCE_LANG:
        return []
    problems = [problem for page in project.pages(lang) for problem in check_translation(project, lang, page)]
    if lang not in words or SOURCE_LANG not in words:
        return problems
    own, base = words[lang], words[SOURCE_LANG]
    for key, text in own.ui.items():
        where, wanted = f"docs/{lang}/{strings.FILE}:{own.lines.get('ui.' + key, 0)}: ui: {key}", set()
        if key not in base.ui:
            problems.append(f"{where}: no such key in docs/{SOURCE_LANG}/{strings.FILE} (keys stay as they are)")
        elif set(re.findall(r"\{\w+\}", text)) != (wanted := set(re.findall(r"\{\w+\}", base.ui[key]))):
            problems.append(f"{where}: keep the placeholders as they are ({', '.join(sorted(wanted)) or 'none'})")
    for table in ("comments", "literals"):  # code a reader copies, and what it prints: numbers are the run's
        for key, text in getattr(own, table).items():
            if added := sorted(source.numbers(text) - source.numbers(key)):
                problems.append(f"docs/{lang}/{strings.FILE}:{own.lines.get(f'{table}.{key}', 0)}: {table}: "
                                f"{source.typed(text, added[0])!r} types {added[0]}, which the Japanese text does "
                                "not: a translation adds no number to the code or its output")
    return problems


def snippet_problems(project: Project) -> list[str]:
    """A listing that does not read (not UTF-8, not Python that parses): its strings cannot be listed, nor the
    site built."""
    problems = []
    for path in sorted(project.snippets.glob("*.py")):
        try:
            source.listing(path)
        except source.SourceError as error:
            problems.append(str(error))
    return problems


def page_states(project: Project, lang: str, words: strings.Strings,
                texts: tuple[set[str], set[str]] | None = None) -> dict[str, str]:
    """Each Japanese page's state in `lang`: translated, outdated (a paragraph's Japanese text is not what its
    translation was made from, :func:`outdated_units`), partial (its code shows a comment or printed string not yet
    translated) or missing. `texts`: :func:`_code_texts`, if known."""
    pending = set().union(*pending_strings(project, words, texts).values()) if lang != SOURCE_LANG else set()

    def state(page: str) -> str:
        if lang == SOURCE_LANG:
            return "translated"
        if not (project.docs / lang / page).is_file():
            return "missing"
        if outdated_units(project, lang, page):
            return "outdated"
        return "partial" if pending and _shown(project, page) & pending else "translated"  # code read if need be

    return {page: state(page) for page in project.pages(SOURCE_LANG)}


def outdated_units(project: Project, lang: str, page: str) -> list[paragraphs.Pair]:
    """The units of a translated page whose Japanese text changed since it was translated (all of a page the
    record does not name); none if the page or its record cannot be read (the check says so)."""
    def find() -> list[paragraphs.Pair]:
        try:
            record = paragraphs.read_record(project.docs / lang)
            return paragraphs.outdated(project.read(SOURCE_LANG, page), project.read(lang, page), record.get(page))
        except (paragraphs.RecordError, source.SourceError):
            return []

    files = [project.docs / SOURCE_LANG / page, project.docs / lang / page, project.docs / lang / paragraphs.RECORD]
    return project.remember(files, find, "outdated")


def done(project: Project, lang: str, pages: list[str]) -> Path:
    """Record that `pages` of `lang` translate the Japanese pages as they are now (ValueError: one line)."""
    folder = project.docs / lang
    record = paragraphs.read_record(folder)
    for page in pages:
        if not (folder / page).is_file() or not (project.docs / SOURCE_LANG / page).is_file():
            raise ValueError(f"docs/{lang}/{page}: no such translated page of a Japanese page")
        japanese, translated = project.read(SOURCE_LANG, page), project.read(lang, page)
        for theirs, ours in zip(paragraphs.stretches(japanese), paragraphs.stretches(translated), strict=False):
            if len(theirs) != len(ours):
                here, there = (ours or theirs)[0].line, (theirs or ours)[0].line
                raise ValueError(f"docs/{lang}/{page}:{here}: {len(ours)} paragraphs here where docs/{SOURCE_LANG}/"
                                 f"{page}:{there} has {len(theirs)}: translate each paragraph, heading and list as one "
                                 "(a blank line between paragraphs, as in the Japanese page)")
        record[page] = paragraphs.fingerprints(japanese)
    return paragraphs.write_record(folder, record)


def _shown(project: Project, page: str) -> set[str]:
    """The comments and printed strings of the code a Japanese page shows (none if an include is broken or its
    code does not parse: the build says so)."""
    try:
        scanned = project.read(SOURCE_LANG, page)
        code = "\n".join(source.expand(text, project.snippets, f"{scanned.path}:{n}")[0]
                         for n, text in scanned.includes)
        return {*strings.comments_of(code), *strings.literals_of(code)}
    except (source.SourceError, SyntaxError, ValueError):
        return set()


def _code_texts(project: Project) -> tuple[set[str], set[str]]:
    """The comments and the printed strings of snippets/ (a listing that does not read is the build's to say)."""
    comments, literals = set(), set()
    for path in project.snippets.glob("*.py"):
        with contextlib.suppress(source.SourceError):
            text = source.listing(path)
            comments |= set(strings.comments_of(text))
            literals |= set(strings.literals_of(text))
    return comments, literals


def pending_strings(project: Project, words: strings.Strings,
                    texts: tuple[set[str], set[str]] | None = None) -> dict[str, list[str]]:
    """The comments and printed strings of snippets/ this language has not translated yet: missing, or still the
    Japanese text (which Chinese may keep where it has no kana)."""
    comments, literals = texts or _code_texts(project)
    same_script = words.lang.split("-")[0] == "zh"

    def pending(table: dict[str, str], text: str) -> bool:
        value = table.get(text)
        return value is None or (value == text and not (same_script and not re.search("[\u3040-\u30ff]", text)))

    return {"comments": sorted(c for c in comments if strings.translatable(c) and pending(words.comments, c)),
            "literals": sorted(t for t in literals if pending(words.literals, t))}


def stale_strings(project: Project, words: strings.Strings) -> list[str]:
    """A comment or printed string a language translates that the Japanese code no longer has (it changed, so
    its new text is pending): one line each, where it is written."""
    texts = dict(zip(("comments", "literals"), _code_texts(project), strict=True))
    return [f"docs/{words.lang}/{strings.FILE}:{words.lines.get(f'{table}.{text}', 0)}: {table}: {text!r} is in "
            "no listing any more: translate its new text (pending above), then remove this entry"
            for table in texts for text in getattr(words, table) if text not in texts[table]]


def status_table(project: Project, words: dict[str, strings.Strings]) -> dict[str, dict[str, str]]:
    """Every page's state in every language: read once, for every language's status page."""
    texts = _code_texts(project)
    return {code: page_states(project, code, words[code], texts) for code in words}


def status_markdown(project: Project, words: dict[str, strings.Strings], lang: str,
                    table: dict[str, dict[str, str]]) -> str:
    """The status page in `lang`, from :func:`status_table`. All text escaped."""
    ui = words[lang].ui

    def cell(text: str) -> str:
        return html.escape(text).replace("|", "&#124;")

    lines = [f"# {cell(ui.get('status_title', ''))}", "", cell(ui.get("status_intro", "")), "",
             "| " + " | ".join([cell(ui.get("status_page", "")), *(cell(words[c].names.get("name", c))
                                                                    for c in words)]) + " |",
             "|---" * (len(words) + 1) + "|"]
    for page in project.pages(SOURCE_LANG):
        lines.append(f"| `{page}` | " + " | ".join(cell(ui.get(f"status_{table[c][page]}", table[c][page]))
                                                  for c in words) + " |")
    return "\n".join(lines) + "\n"


def _material(*parts: str) -> Path | None:
    spec = importlib.util.find_spec("material")
    return Path(spec.origin).parent.joinpath("templates", *parts) if spec and spec.origin else None


def search_languages(lang: str) -> list[str]:
    """The language Material's search (lunr.js) has for `lang`: itself, its base language, or English."""
    folder = _material("assets", "javascripts", "lunr", "min")
    supported = {p.name.split(".")[1] for p in folder.glob("lunr.*.min.js")} if folder else set()
    return [next((code for code in (lang, lang.split("-")[0]) if code in supported), "en")]


SAFE_SEPARATOR = re.compile(r"\[(?:\\.|[^\\\]\[])+\]\+")
"""A translation's search separator: one character class, repeated; no pattern that can backtrack for long."""


def search_problems(lang: str, words: strings.Strings) -> list[str]:
    """A language's search settings that Material's search cannot follow: a language it has no lunr.js for."""
    folder = _material("assets", "javascripts", "lunr", "min")
    supported = {p.name.split(".")[1] for p in folder.glob("lunr.*.min.js")} | {"en"} if folder else set()
    asked, separator = words.search.get("lang") or [], words.search.get("separator")
    found = [f"docs/{lang}/{strings.FILE}: search: lang: {code!r} is not a language Material's search has; it has "
             f"{', '.join(sorted(supported))}" for code in asked if supported and code not in supported]
    if lang != SOURCE_LANG and separator is not None and not SAFE_SEPARATOR.fullmatch(separator):
        found.append(f"docs/{lang}/{strings.FILE}: search: separator: one character class and +, such as "
                     r"'[\s\-]+' (a pattern of another form can keep every reader's search busy for minutes)")
    return found


def first_look(project: Project, lang: str) -> list[str]:
    """What stops a language folder from being read at all: a language Material lacks, a file that is not a
    translation's (:func:`folder_problems`). The build and the translators' check both look through this."""
    unknown = language_problem(lang)
    return [f"docs/{lang}/: {unknown}"] if unknown else folder_problems(project, lang)


def language_problem(lang: str) -> str | None:
    """Why `lang` cannot name a language folder (one line), or None."""
    if not LANG_CODE.fullmatch(lang):
        return (f"{lang!r} is not a language code: two or three lowercase letters and an optional -Script or "
                "-REGION, as Material names its languages (ko, pt-BR, zh-Hant)")
    if lang == SOURCE_LANG:
        return f"{lang!r} is the source language: docs/{lang}/ is the original everyone translates"
    folder = _material("partials", "languages")
    known = sorted(p.stem for p in folder.glob("*.html")) if folder else []
    if known and lang not in known:
        return f"Material, the site's theme, has no language {lang!r} (its languages: {', '.join(known)})"
    return None


def template(project: Project, lang: str = "<code>") -> str:
    """A new strings.yml: every text to translate, each value the Japanese text between double quotes (a JSON
    string is a YAML double-quoted one)."""
    _quoted = functools.partial(json.dumps, ensure_ascii=False)
    source = project.strings(SOURCE_LANG)
    pending = pending_strings(project, strings.Strings("new"))
    lines = ["# Translate each value between its double quotes; keep every key (left of the colon) as it is.",
             f"# See docs/TRANSLATING.md. Check: {COMMAND} {lang}", ""]
    lines += [f"{key}: {_quoted(source.names.get(key, ''))}" for key in strings.NAMES]
    lines += ["", "ui:"] + [f"  {key}: {_quoted(value)}" for key, value in source.ui.items()]
    lines += ["", "comments:"] + [f"  {_quoted(t)}: {_quoted(t)}" for t in pending["comments"]]
    lines += ["", "literals:"] + [f"  {_quoted(t)}: {_quoted(t)}" for t in pending["literals"]]
    return "\n".join(lines) + "\n"


def init(project: Project, lang: str) -> Path:
    if problem := language_problem(lang):
        raise ValueError(problem)
    path = project.docs / lang / strings.FILE
    if path.exists():
        raise ValueError(f"docs/{lang}/{strings.FILE} exists already, and --init never overwrites it")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as file:
        file.write(template(project, lang))
    return path


def report(project: Project, lang: str, every: bool) -> tuple[list[str], list[str]]:
    """(mistakes, information) for one language."""
    if problems := first_look(project, lang):  # nothing of the folder is read until it holds only its own
        return problems, []
    try:
        words = {SOURCE_LANG: project.strings(SOURCE_LANG)}
        words[lang] = project.strings(lang, words[SOURCE_LANG])
    except strings.StringsError as error:
        return error.problems, []
    mistakes, info = search_problems(lang, words[lang]) + code_problems(project, lang, words), []
    try:
        paragraphs.read_record(project.docs / lang)
    except paragraphs.RecordError as error:
        mistakes.append(str(error))
    states = page_states(project, lang, words[lang])
    stale = [(page, pair) for page in project.pages(lang) for pair in outdated_units(project, lang, page)]
    info += [f"docs/{lang}/{page}:{pair.ours.line}: outdated: docs/{SOURCE_LANG}/{page}:"
             f"{pair.japanese.line if pair.japanese else pair.stretch[0].line if pair.stretch else 1} changed since "
             f"it was translated: translate it again, then run: {DONE.format(lang=lang, page=page)}"
             for page, pair in stale[:None if every else 12]]
    for state, what in (("missing", "the Japanese page is shown meanwhile"),
                        ("outdated", "a paragraph's Japanese text changed since it was translated"),
                        ("partial", "their code shows comments or strings not yet translated")):
        if pages := [page for page, s in states.items() if s == state]:
            info.append(f"{lang}: pages {state} ({what}): {len(pages)}: {', '.join(pages[:None if every else 12])}")
    if words[lang].names.get("name") == words[SOURCE_LANG].names.get("name"):
        info.append(f"{lang}: name: still the Japanese name: write the language's own name")
    info += [f"{lang}: {table} untranslated ({len(texts)}): " + " | ".join(texts[:None if every else 12])
             for table, texts in pending_strings(project, words[lang]).items() if texts]
    info += stale_strings(project, words[lang])
    return mistakes, info


def main(argv: Sequence[str] | None = None) -> int:
    prog = "python -m attention_lesson.site.translations"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("langs", nargs="*", help="language codes (default: every language folder)")
    parser.add_argument("--all", action="store_true", help="list everything pending, not the first few")
    parser.add_argument("--init", action="store_true", help="start docs/<code>/ with a strings.yml to translate")
    parser.add_argument("--done", nargs="+", metavar="PAGE", help="record that these pages translate the Japanese "
                        "pages as they are now (query-key.md notebooks/exercise-1.py)")
    args = parser.parse_args(argv)
    try:
        project = Project.find(Path.cwd())
    except LookupError as error:
        parser.exit(2, f"{prog}: error: {error}\n")
    if args.init:
        if len(args.langs) != 1:
            parser.exit(2, f"{prog}: error: --init takes one language code, e.g. {COMMAND} ko --init\n")
        try:
            path = init(project, args.langs[0])
        except (ValueError, OSError) as error:
            parser.exit(2, f"{prog}: error: {error}\n")
        print(f"wrote {path.relative_to(project.root).as_posix()}; set name: first, then check with: "
              f"{COMMAND} {args.langs[0]}")
        return 0
    if args.done:
        if len(args.langs) != 1:
            parser.exit(2, f"{prog}: error: --done takes one language code, e.g. {COMMAND} ko --done index.md\n")
        try:
            path = done(project, args.langs[0], args.done)
        except (ValueError, OSError, source.SourceError) as error:
            parser.exit(2, f"{prog}: error: {strings.printable(str(error))}\n")
        print(f"wrote {path.relative_to(project.root).as_posix()}: {', '.join(args.done)} translated as the Japanese "
              "pages are now")
        return 0
    known = project.languages()
    for lang in args.langs:
        if lang not in known:
            problem = language_problem(lang) or f"there is no folder docs/{lang}/"
            parser.exit(2, f"{prog}: error: {problem}; start one with: {COMMAND} <code> --init\n")
    mistakes, info = snippet_problems(project), []
    unread = bool(mistakes)  # a listing that does not read: what is pending of its strings cannot be told
    for lang in args.langs or known[1:]:
        found, said = report(project, lang, args.all)
        mistakes += found
        info += [] if unread else said
    if info or not mistakes:  # "nothing pending" never beside a mistake
        print("\n".join(map(strings.printable, info)) or "nothing pending", flush=True)
    if mistakes:
        print("\n".join(f"{prog}: error: {strings.printable(m)}" for m in mistakes), file=sys.stderr)
    return 2 if mistakes else 0


if __name__ == "__main__":
    sys.exit(main())
