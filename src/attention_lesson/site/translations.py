"""The translators' check: the gate for a language folder, and the template to start one.

    python -m attention_lesson.site.translations [CODE ...] [--all]  # check docs/<code>/ (default: every language)
    python -m attention_lesson.site.translations CODE --init         # write docs/<code>/strings.yml to translate

Exit status 2: a mistake, each on one line of its own naming the file and line (and column) and the fix. A
mistake is anything that would show the wrong thing without a word, or stop the build: a strings.yml that YAML
cannot read or that has a key the Japanese file or snippets/ does not have (a translated comment key), a
placeholder renamed or dropped, a page or notebook with no Japanese original, or structural drift: every snippet
include, exec block, heading level, explicit anchor, link target, ``{{ measured.… }}`` value and formula of a
Japanese page (every code cell and include of a notebook) must appear in the same order on its translation,
because those lines make the page run the same code and link the same places.

Exit status 0: nothing to fix. Partial work is normal and is listed as information: missing pages and notebooks
(the Japanese one is shown), untranslated strings (a value still the Japanese text: the coverage counts
translated values, not keys), and outdated pages (the Japanese page changed in git after the translation's last
change).
"""

from __future__ import annotations

import argparse
import difflib
import functools
import importlib.util
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from attention_lesson.site import i18n

SHIPPED = ("en", "zh")
"""The languages the project publishes as finished: the tests require every page, notebook and string of these
to be translated. Any other language folder is work in progress: it builds, and falls back to Japanese."""

SAME_SCRIPT = ("zh",)
"""Languages written in Chinese characters and their punctuation, as Japanese partly is: in these a text without
kana (``原文``, the comment ``光``, the list separator ``、``) may stay as the Japanese writes it and still count
as translated."""
_KANA = re.compile(r"[\u3040-\u30ff]")

TABLES = ("names", "labels", "ui", "comments", "literals")
"""The coverage's tables: ``names`` is ``name``, ``site_name`` and ``site_description``."""
NAMES = ("name", "site_name", "site_description")
NOTEBOOKS = "notebooks"

_STRUCTURE = re.compile(
    r"""^(?P<fence>```.*)$                          # a fence line with its options (exec blocks, math, ...)
      | ^(?P<include>\s*--8<--.*)$                   # a snippet include
      | ^(?P<heading>\#{1,6})\s.*?(?P<hid>\{\#[^}]+\})?\s*$   # heading level, explicit anchor
      | (?P<link>\]\((?P<target>[^)\s]+)[^)]*\))     # a Markdown link target
      | (?P<measured>\{\{\s*measured\.\w+\s*\}\})   # a number the build fills in from the code
    """,
    re.M | re.X,
)
_CELL = re.compile(r"^# %%(?P<rest>.*)$")


def structure(markdown: str) -> list[str]:
    """The lines and targets a translation must keep, in order (math bodies kept verbatim)."""
    return [item for _, item in _structure(markdown)]


def structure_lines(text: str, notebook: bool = False) -> list[tuple[int, str]]:
    """:func:`structure` with the line number of each item; ``notebook``: of a jupytext notebook instead."""
    return list(_notebook_structure(text) if notebook else _structure(text))


@functools.lru_cache(maxsize=256)
def _structure(markdown: str) -> tuple[tuple[int, str], ...]:
    """structure(), kept per page text: `mkdocs serve` checks every page of every language at each rebuild
    (the status page), and only the edited one is new."""
    items: list[tuple[int, str]] = []
    in_math = False
    for number, line in enumerate(markdown.splitlines(), 1):
        if in_math:
            items.append((number, f"math: {line}"))
            in_math = not line.startswith("```")
            continue
        for m in _STRUCTURE.finditer(line):
            if m["fence"]:
                fence = m["fence"].strip()
                if fence != "```":
                    items.append((number, f"fence: {fence}"))
                in_math = fence.startswith("```math")
            elif m["include"]:
                items.append((number, f"include: {m['include'].strip()}"))
            elif m["heading"]:
                items.append((number, f"heading: {m['heading']}{' ' + m['hid'] if m['hid'] else ''}"))
            elif m["measured"]:
                items.append((number, f"measured: {m['measured'].replace(' ', '')}"))
            elif m["link"]:
                target = m["target"]
                # Anchors into headings are translated with the heading; the page they point to is not.
                items.append((number, f"link: {target.split('#')[0] if not target.startswith('#') else '#'}"))
    return tuple(items)


@functools.lru_cache(maxsize=64)
def _notebook_structure(text: str) -> tuple[tuple[int, str], ...]:
    """A notebook's code cells and their include lines, in order: the markdown cells are free to translate."""
    items: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        cell = _CELL.match(line)
        if cell and "[markdown]" not in cell["rest"] and "[md]" not in cell["rest"]:
            items.append((number, f"cell: {line.strip()}"))
        elif line.lstrip().startswith("--8<--"):
            items.append((number, f"include: {line.strip()}"))
    return tuple(items)


def _shown(item: str) -> str:
    """A structure item as the line a translator sees."""
    kind, _, text = item.partition(": ")
    if kind == "heading":
        level = len(text.split()[0])
        return f"a level-{level} heading «{'#' * level} …{' ' + text.split()[1] if ' ' in text else ''}»"
    if kind == "link":
        return f"a link to «{text}»" if text != "#" else "a link to a heading of this page «(#…)»"
    if kind == "math":
        return f"the formula line «{text}»"
    return f"«{text}»"


def _root() -> Path:
    """The project: the folder of docs/."""
    return i18n.docs_dir().parent


def _last_changes() -> dict[str, int]:
    """When each file under docs/ was last committed: one `git log` for all of them (a call per page and
    language was most of a status check). Empty outside a git checkout."""
    try:
        out = subprocess.run(["git", "log", "--format=%x00%ct", "--name-only", "--", "docs"], cwd=_root(),
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    changes: dict[str, int] = {}
    for commit in out.split("\0")[1:]:  # newest first: the first commit naming a file is its last change
        stamp, *names = commit.strip().splitlines()
        for name in names:
            if name:
                changes.setdefault(name, int(stamp))
    return changes


@dataclass
class Report:
    """What :func:`check` found. Pages and notebooks are named as in the folder: ``head.md``,
    ``notebooks/exercise-1.py``."""

    lang: str
    translated: list[str] = field(default_factory=list)
    missing_pages: list[str] = field(default_factory=list)
    extra_pages: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)
    drift: list[str] = field(default_factory=list)
    """One line per drifted page: ``docs/<code>/<page>:<line>: expected … as in docs/ja/<page>:<line>; found …``."""
    errors: list[str] = field(default_factory=list)
    """Every mistake, one line each (strings.yml's, the extra pages', the drift): any of them means exit 2."""
    untranslated: dict[str, list[str]] = field(default_factory=lambda: {table: [] for table in TABLES})
    """Per table, the keys whose value is missing or still the Japanese text."""
    totals: dict[str, int] = field(default_factory=lambda: {table: 0 for table in TABLES})
    strings_checked: bool = True
    """False when strings.yml has mistakes: then nothing in it is counted."""

    def coverage(self, table: str) -> tuple[int, int]:
        """(translated, total) values of one table."""
        return self.totals[table] - len(self.untranslated[table]), self.totals[table]

    @property
    def label_coverage(self) -> float:
        """The share of translated labels and site texts (``labels`` and ``ui``), the status page's last row."""
        done, total = (sum(self.coverage(t)[i] for t in ("labels", "ui")) for i in (0, 1))
        return 1.0 if not total else done / total

    @property
    def complete(self) -> bool:
        return not (self.errors or self.missing_pages or any(self.untranslated.values()))

    def page_status(self, page: str) -> str:
        if page in self.missing_pages:
            return "missing"
        return "outdated" if page in self.outdated else "translated"


def snippet_comments() -> list[str]:
    """Every comment written in snippets/ (in Japanese): each language translates them in strings.yml."""
    return i18n.snippet_comments()


def snippet_literals() -> list[str]:
    """Every printed Japanese string in snippets/: each language translates them in strings.yml."""
    return i18n.snippet_literals()


def pages(lang: str) -> list[str]:
    """The language's pages (``*.md``) and then its notebooks (``notebooks/*.py``), as paths in its folder."""
    folder = i18n.docs_dir() / lang
    found = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md"))
    return found + sorted(f"{NOTEBOOKS}/{p.name}" for p in (folder / NOTEBOOKS).glob("*.py"))


def _is_notebook(page: str) -> bool:
    return page.startswith(f"{NOTEBOOKS}/") and page.endswith(".py")


def _same_is_fine(lang: str, text: str) -> bool:
    return any(lang == code or lang.startswith(code + "-") for code in SAME_SCRIPT) and not _KANA.search(text)


def check(lang: str) -> Report:
    """Compare docs/<lang>/ with docs/ja/."""
    i18n.check_language(lang)
    report = Report(lang)
    source_pages, own_pages = pages(i18n.DEFAULT_LANG), pages(lang)
    report.missing_pages = [p for p in source_pages if p not in own_pages]
    report.extra_pages = [p for p in own_pages if p not in source_pages]
    docs = i18n.docs_dir()
    changes = _last_changes() if lang != i18n.DEFAULT_LANG else {}
    for page in source_pages:
        if page in report.missing_pages:
            continue
        report.translated.append(page)
        src, own = docs / i18n.DEFAULT_LANG / page, docs / lang / page
        drifted = page_drift(lang, page)
        if drifted:
            report.drift.append(drifted)
        src_time, own_time = (changes.get(p.relative_to(_root()).as_posix()) for p in (src, own))
        if lang != i18n.DEFAULT_LANG and src_time and own_time and src_time > own_time:
            report.outdated.append(page)

    extra = [_extra(lang, page) for page in report.extra_pages]
    report.errors = [*i18n.mistakes(lang), *extra, *report.drift]
    if i18n.validate(lang):  # strings.yml cannot be used: nothing in it to count
        report.strings_checked = False
        return report
    source, own_strings = i18n.strings(i18n.DEFAULT_LANG), i18n.strings(lang)
    is_source = lang == i18n.DEFAULT_LANG

    def count(table: str, originals: dict[str, str], translations: dict, always_differ: bool = False) -> None:
        report.totals[table] = len(originals)
        if is_source:
            return
        for key, original in originals.items():
            value = translations.get(key)
            if value is None or (str(value) == original and (always_differ or not _same_is_fine(lang, original))):
                report.untranslated[table].append(key)

    names = {key: str(source[key]) for key in NAMES if source.get(key) is not None}
    count("names", {"name": names.pop("name", "")}, own_strings, always_differ=True)
    report.totals["names"] += len(names)
    if not is_source:
        report.untranslated["names"] += [key for key, original in names.items()
                                         if str(own_strings.get(key, original)) == original
                                         and not _same_is_fine(lang, original)]
    for table in ("labels", "ui"):
        count(table, {k: str(v) for k, v in (source.get(table) or {}).items()}, own_strings.get(table) or {})
    count("comments", {c: c for c in snippet_comments()}, own_strings.get("comments") or {})
    count("literals", {t: t for t in snippet_literals()}, own_strings.get("literals") or {})
    return report


def page_drift(lang: str, page: str) -> str | None:
    """The one-line drift of a translated page or notebook from its Japanese source, or None. The build calls
    it for every translated page, so that a changed fence, include or formula fails the build, not only the
    check."""
    docs = i18n.docs_dir()
    src, own = docs / i18n.DEFAULT_LANG / page, docs / lang / page
    if lang == i18n.DEFAULT_LANG or not src.is_file() or not own.is_file():
        return None
    notebook = _is_notebook(page)
    expected = structure_lines(src.read_text(encoding="utf-8"), notebook)
    actual = structure_lines(own.read_text(encoding="utf-8"), notebook)
    if [item for _, item in expected] == [item for _, item in actual]:
        return None
    return _drift(f"docs/{lang}/{page}", f"docs/{i18n.DEFAULT_LANG}/{page}", expected, actual)


def _extra(lang: str, page: str) -> str:
    what = "notebook" if _is_notebook(page) else "page"
    return (f"docs/{lang}/{page}: extra {what}: docs/{i18n.DEFAULT_LANG}/{page} does not exist, so it is not in "
            f"the navigation and a strict build fails; remove it, or add the Japanese {what} first"
            + (" (and its nav entry in mkdocs.yml)" if what == "page" else ""))


def _drift(own: str, source: str, expected: list[tuple[int, str]], actual: list[tuple[int, str]]) -> str:
    """One line for the first place a translation's structure differs from the Japanese page's."""
    want = [item for _, item in expected]
    got = [item for _, item in actual]
    matcher = difflib.SequenceMatcher(a=want, b=got, autojunk=False)
    tag, i1, i2, j1, j2 = next(op for op in matcher.get_opcodes() if op[0] != "equal")
    if tag == "replace":
        return (f"{own}:{actual[j1][0]}: expected {_shown(want[i1])} as in {source}:{expected[i1][0]}; "
                f"found {_shown(got[j1])}; copy that line from the Japanese page as it is")
    if tag == "delete":
        more = i2 - i1 - 1
        place = (f"{own}:{actual[j1][0]}: missing {_shown(want[i1])} before this line" if j1 < len(actual) else
                 f"{own}:{actual[-1][0]}: missing {_shown(want[i1])} after this line" if actual else
                 f"{own}:1: missing {_shown(want[i1])}")
        return (f"{place}, as in {source}:{expected[i1][0]}" + (f" (and {more} more after it)" if more else "")
                + "; copy it from the Japanese page as it is")
    return (f"{own}:{actual[j1][0]}: found {_shown(got[j1])}, which {source} does not have here"
            + (f" (after its line {expected[i1 - 1][0]})" if i1 else "")
            + "; remove it, or copy the Japanese page's line")


def _percent(done: int, total: int) -> str:
    return f"{done}/{total}" + (f" ({done / total:.0%})" if total else "")


SHOWN = 12
"""At most this many items of a list in the report (``--all``: every one)."""


def format_report(report: Report, every: bool = False) -> str:
    """The information for a translator (stdout): what is done, what is missing. Mistakes are not in it:
    :func:`main` prints them one a line on stderr."""
    all_pages = [p for p in (*report.translated, *report.missing_pages) if not _is_notebook(p)]
    all_books = [p for p in (*report.translated, *report.missing_pages) if _is_notebook(p)]
    done_pages = [p for p in report.translated if not _is_notebook(p)]
    done_books = [p for p in report.translated if _is_notebook(p)]
    lines = [f"[{report.lang}] pages {len(done_pages)}/{len(all_pages)} translated, notebooks "
             f"{len(done_books)}/{len(all_books)}"]
    if report.strings_checked:
        lines.append("  strings translated: " + ", ".join(f"{t} {_percent(*report.coverage(t))}" for t in TABLES))
    else:
        lines.append(f"  strings: not counted until docs/{report.lang}/{i18n.STRINGS_FILE} has no mistakes")
    if report.errors:
        lines.append(f"  mistakes (must fix): {len(report.errors)}, one a line on stderr (exit status 2)")

    def section(title: str, items: list[str], total: int | None = None) -> None:
        if not items:
            return
        if total is not None and len(items) == total and total > 3:
            lines.append(f"  {title}: all {total}")
            return
        shown = items if every or len(items) <= SHOWN else items[:SHOWN - 2]
        lines.append(f"  {title}:" if len(shown) == len(items) else f"  {title}: {len(items)}, of them:")
        lines.extend(f"    - {item}" for item in shown)
        if len(shown) < len(items):
            lines.append(f"    … and {len(items) - len(shown)} more (--all lists every one)")

    section("missing pages (the Japanese page is shown, with a banner)",
            [p for p in report.missing_pages if not _is_notebook(p)])
    section("missing notebooks (the Japanese notebook is shown)", [p for p in report.missing_pages if _is_notebook(p)])
    section("outdated (the Japanese one changed in git after your last change)", report.outdated)
    names = []
    for key in report.untranslated["names"]:
        hint = ("your language's own name, shown in the language switcher" if key == "name"
                else "shown in the header" if key == "site_name" else "shown to search engines and in link previews")
        names.append(f"{key} (still the Japanese text: {hint})")
    section("untranslated names", names)
    section("untranslated labels (Japanese printed)", report.untranslated["labels"], report.totals["labels"])
    section("untranslated site text, ui (Japanese shown)", report.untranslated["ui"], report.totals["ui"])
    section("untranslated code comments (Japanese shown)", [f"«{c}»" for c in report.untranslated["comments"]],
            report.totals["comments"])
    section("untranslated printed strings (Japanese printed)", [f"«{t}»" for t in report.untranslated["literals"]],
            report.totals["literals"])
    return "\n".join(lines)


_CODE = re.compile(r"[a-z]{2,3}(?:-(?:[A-Z][a-z]{3}|[A-Z]{2}|[0-9]{3}))?")
"""A language code as Material names its languages: ``ko``, ``pt-BR``, ``zh-Hant``."""


def _material_folder() -> Path | None:
    spec = importlib.util.find_spec("material")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "templates"


def _material_languages() -> list[str]:
    folder = _material_folder()
    return sorted(p.stem for p in (folder / "partials" / "languages").glob("*.html")) if folder else []


def _search_language(lang: str) -> str:
    """The language Material's search (lunr.js) has closest to ``lang``: itself, its base language, or English."""
    folder = _material_folder()
    lunr = folder / "assets" / "javascripts" / "lunr" / "min" if folder else None
    supported = {p.name.split(".")[1] for p in lunr.glob("lunr.*.min.js")} if lunr else set()
    for code in (lang, lang.split("-")[0]):
        if code in supported or code == "en":
            return code
    return "en"


def code_problem(lang: str) -> str | None:
    """Why ``lang`` cannot name a new language folder, in one line; None if it can."""
    known = _material_languages()
    if not _CODE.fullmatch(lang):
        same = [code for code in known if code.lower() == lang.lower()]
        return (f"{lang!r} is not a language code: write it as Material names its languages, two or three "
                "lowercase letters and an optional -Script or -REGION (ko, pt-BR, zh-Hant)"
                + (f"; did you mean {same[0]!r}?" if same else ""))
    if lang == i18n.DEFAULT_LANG:
        return f"{lang!r} is the source language: docs/{lang}/{i18n.STRINGS_FILE} is the original everyone translates"
    if known and lang not in known:
        near = difflib.get_close_matches(lang, known, n=1)
        return (f"Material, the site's theme, has no language {lang!r}, so the site cannot be built in it"
                + (f"; did you mean {near[0]!r}?" if near else "")
                + " (its languages are the files of material/templates/partials/languages/)")
    return None


def template(lang: str) -> str:
    """docs/<lang>/strings.yml to translate: every key there is, each value the Japanese text in double quotes
    (so any text typed between them is valid YAML), with a header saying what to do."""
    source = i18n.strings(i18n.DEFAULT_LANG)
    quoted = i18n.yaml_quoted
    lines = [
        f"# The texts of the lesson in '{lang}'. Translate each value between its double quotes, and keep every",
        "# key (left of the colon) as it is: comments: and literals: are keyed by the Japanese text of snippets/.",
        '# Any text may go between the quotes, a colon too; write a double quote as \\" and a backslash as \\\\.',
        "# Keep {placeholders} as they are. Each value starts as the Japanese text, shown until you change it.",
        f"# Check: python -m attention_lesson.site.translations {lang}   (see docs/TRANSLATING.md)",
        "",
        "# The language's own name (the language switcher shows it), the site title, the description for search",
    ]
    lines += [f"{key}: {quoted(str(source.get(key) or ''))}" for key in NAMES]
    for table, note in (("labels", "The section headings `python snippets/attention.py` prints"),
                        ("ui", "Site text: banners, the status page, figure titles and alt text")):
        lines += ["", f"# {note}", f"{table}:"]
        lines += [f"  {key}: {quoted(str(value))}" for key, value in (source.get(table) or {}).items()]
    lines += ["", "# The code comments of snippets/, keyed by the Japanese comment exactly as written there",
              "comments:"]
    lines += [f"  {quoted(text)}: {quoted(text)}" for text in snippet_comments()]
    lines += ["", "# The strings the listings print, keyed by the Japanese string exactly as written in snippets/",
              "literals:"]
    lines += [f"  {quoted(text)}: {quoted(text)}" for text in snippet_literals()]
    lines += ["", "# Material's search: the languages of the index (lunr.js), and, if needed, pipeline: and separator:",
              "search:", f"  lang: [{quoted(_search_language(lang))}]", ""]
    return "\n".join(lines)


def init(lang: str) -> Path:
    """Write docs/<lang>/strings.yml from :func:`template`; ValueError (one line) if the code is not one or the
    file is there already."""
    problem = code_problem(lang)
    if problem:
        raise ValueError(problem)
    path = i18n.docs_dir() / lang / i18n.STRINGS_FILE
    if path.exists():
        raise ValueError(f"docs/{lang}/{i18n.STRINGS_FILE} exists already, and --init never overwrites it; check it "
                         f"with: python -m attention_lesson.site.translations {lang} (or remove it to start again)")
    text = template(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as file:
        file.write(text)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attention_lesson.site.translations",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("langs", nargs="*", help="language codes (default: every language folder)")
    parser.add_argument("--all", action="store_true", help="list every untranslated text, not the first ones")
    parser.add_argument("--init", action="store_true",
                        help="write docs/<code>/strings.yml with every text to translate (one code; never overwrites)")
    args = parser.parse_args(argv)
    if args.init:
        if len(args.langs) != 1:
            parser.exit(2, f"{parser.prog}: error: --init takes one language code, e.g. {parser.prog} ko --init\n")
        try:
            path = init(args.langs[0])
        except (ValueError, OSError) as error:
            parser.exit(2, f"{parser.prog}: error: {error}\n")
        texts = sum(check(args.langs[0]).totals.values())
        print(f"wrote {path.relative_to(_root()).as_posix()}: {texts} texts to translate, each in double quotes; "
              f"check with: {parser.prog} {args.langs[0]}")
        return 0
    try:
        langs = [i18n.check_language(code) for code in args.langs] or [
            c for c in i18n.languages() if c != i18n.DEFAULT_LANG]
    except ValueError as error:
        parser.exit(2, f"{parser.prog}: error: {error}; start a new one with: {parser.prog} <code> --init\n")
    try:
        reports = [check(lang) for lang in langs]
    except i18n.ListingError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    print("\n\n".join(format_report(r, args.all) for r in reports), flush=True)
    mistakes = [problem for r in reports for problem in r.errors]
    if mistakes:  # one line per mistake, naming the file, the line and the fix
        print("\n".join(f"{parser.prog}: error: {problem}" for problem in mistakes), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
