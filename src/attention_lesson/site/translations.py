"""The translators' check: what a language folder lacks, and where it drifted from Japanese.

    python -m attention_lesson.site.translations [CODE ...]

Missing pages, labels and comment translations are reported (the site falls back to Japanese for them).
Structural drift fails (exit 1): every snippet include, exec block, heading level, explicit anchor, link
target and formula of a Japanese page must appear in the same order on its translation, because those lines
are what make the page run the same code and link the same places. A page whose Japanese source changed in git
after its translation's last change is reported as outdated.
"""

from __future__ import annotations

import argparse
import functools
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from attention_lesson.site import i18n

_STRUCTURE = re.compile(
    r"""^(?P<fence>```.*)$                          # a fence line with its options (exec blocks, math, ...)
      | ^(?P<include>\s*--8<--.*)$                   # a snippet include
      | ^(?P<heading>\#{1,6})\s.*?(?P<hid>\{\#[^}]+\})?\s*$   # heading level, explicit anchor
      | (?P<link>\]\((?P<target>[^)\s]+)[^)]*\))     # a Markdown link target
      | (?P<measured>\{\{\s*measured\.\w+\s*\}\})   # a number the build fills in from the code
    """,
    re.M | re.X,
)


def structure(markdown: str) -> list[str]:
    """The lines and targets a translation must keep, in order (math bodies kept verbatim)."""
    return list(_structure(markdown))


@functools.lru_cache(maxsize=256)
def _structure(markdown: str) -> tuple[str, ...]:
    """structure(), kept per page text: `mkdocs serve` checks every page of every language at each rebuild
    (the status page), and only the edited one is new."""
    items: list[str] = []
    in_math = False
    for line in markdown.splitlines():
        if in_math:
            items.append(f"math: {line}")
            in_math = not line.startswith("```")
            continue
        for m in _STRUCTURE.finditer(line):
            if m["fence"]:
                fence = m["fence"].strip()
                if fence != "```":
                    items.append(f"fence: {fence}")
                in_math = fence.startswith("```math")
            elif m["include"]:
                items.append(f"include: {m['include'].strip()}")
            elif m["heading"]:
                items.append(f"heading: {m['heading']}{' ' + m['hid'] if m['hid'] else ''}")
            elif m["measured"]:
                items.append(f"measured: {m['measured'].replace(' ', '')}")
            elif m["link"]:
                target = m["target"]
                # Anchors into headings are translated with the heading; the page they point to is not.
                items.append(f"link: {target.split('#')[0] if not target.startswith('#') else '#'}")
    return tuple(items)


def _last_changes() -> dict[str, int]:
    """When each file under docs/ was last committed: one `git log` for all of them (a call per page and
    language was most of a status check). Empty outside a git checkout."""
    try:
        out = subprocess.run(["git", "log", "--format=%x00%ct", "--name-only", "--", "docs"], cwd=i18n.ROOT,
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
    lang: str
    translated: list[str] = field(default_factory=list)
    missing_pages: list[str] = field(default_factory=list)
    extra_pages: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)
    missing_keys: list[str] = field(default_factory=list)
    extra_keys: list[str] = field(default_factory=list)
    missing_comments: list[str] = field(default_factory=list)
    drift: list[str] = field(default_factory=list)
    label_total: int = 0

    @property
    def label_coverage(self) -> float:
        return 1.0 if not self.label_total else 1 - len(self.missing_keys) / self.label_total

    def page_status(self, page: str) -> str:
        if page in self.missing_pages:
            return "missing"
        return "outdated" if page in self.outdated else "translated"


def snippet_comments() -> list[str]:
    """Every comment written in snippets/ (in Japanese): each language translates them in strings.yml."""
    seen: dict[str, None] = {}
    for path in sorted((i18n.ROOT / "snippets").glob("*.py")):
        for comment in i18n.code_comments(path.read_text(encoding="utf-8")):
            if not comment.startswith("--8<--") and not comment.isascii():  # markers and plain ASCII notes
                seen.setdefault(comment)
    return list(seen)


def snippet_literals() -> list[str]:
    """Every printed Japanese string in snippets/: each language translates them in strings.yml."""
    seen: dict[str, None] = {}
    for path in sorted((i18n.ROOT / "snippets").glob("*.py")):
        for text in i18n.code_literals(path.read_text(encoding="utf-8")):
            seen.setdefault(text)
    return list(seen)


def pages(lang: str) -> list[str]:
    folder = i18n.docs_dir() / lang
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md"))


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
        expected = structure(src.read_text(encoding="utf-8"))
        actual = structure(own.read_text(encoding="utf-8"))
        if expected != actual:
            report.drift.append(f"docs/{lang}/{page}: {_first_difference(expected, actual)}")
        src_time, own_time = (changes.get(p.relative_to(i18n.ROOT).as_posix()) for p in (src, own))
        if lang != i18n.DEFAULT_LANG and src_time and own_time and src_time > own_time:
            report.outdated.append(page)

    source, own_strings = i18n.strings(i18n.DEFAULT_LANG), i18n.strings(lang)
    for table in ("labels", "ui"):
        keys, own_keys = set(source.get(table) or {}), set(own_strings.get(table) or {})
        report.label_total += len(keys)
        report.missing_keys += [f"{table}.{k}" for k in sorted(keys - own_keys)]
        report.extra_keys += [f"{table}.{k}" for k in sorted(own_keys - keys)]
    if lang != i18n.DEFAULT_LANG:
        comments, in_code = own_strings.get("comments") or {}, snippet_comments()
        report.missing_comments = [c for c in in_code if c not in comments]
        report.extra_keys += [f"comments.{c}" for c in comments if c not in in_code]
        literals, in_code = own_strings.get("literals") or {}, snippet_literals()
        report.missing_comments += [f"printed string «{t}»" for t in in_code if t not in literals]
        report.extra_keys += [f"literals.{t}" for t in literals if t not in in_code]
    return report


def _first_difference(expected: list[str], actual: list[str]) -> str:
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            return f"item {i + 1}: expected «{want}», found «{got}»"
    if len(expected) > len(actual):
        return f"missing «{expected[len(actual)]}» (and {len(expected) - len(actual) - 1} more after it)"
    return f"unexpected «{actual[len(expected)]}»"


def format_report(report: Report) -> str:
    lines = [f"[{report.lang}] {len(report.translated)} pages translated, "
             f"labels {report.label_coverage:.0%} covered"]
    for title, items in (
        ("structural drift (must fix)", report.drift),
        ("missing pages (Japanese shown with a banner)", report.missing_pages),
        ("outdated pages (Japanese changed since)", report.outdated),
        ("extra pages (no Japanese source: not in the navigation, so a strict build fails until "
         f"docs/{i18n.DEFAULT_LANG}/ has the page too; remove it or add the Japanese page first)", report.extra_pages),
        ("missing labels (Japanese used)", report.missing_keys),
        ("extra keys (unused)", report.extra_keys),
        ("untranslated code comments", report.missing_comments),
    ):
        lines += [f"  {title}:"] + [f"    - {item}" for item in items] if items else []
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attention_lesson.site.translations",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("langs", nargs="*", help="language codes (default: every language folder)")
    args = parser.parse_args(argv)
    try:
        langs = [i18n.check_language(code) for code in args.langs] or [
            c for c in i18n.languages() if c != i18n.DEFAULT_LANG]
    except ValueError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    reports, broken = [], []
    for lang in langs:
        try:
            reports.append(check(lang))
        except i18n.StringsError as error:
            broken += error.problems
    if reports:
        print("\n\n".join(format_report(r) for r in reports))
    if broken:  # one line per mistake, naming the file, line and key: exit 2, as for a bad argument
        print("\n".join(f"{parser.prog}: error: {problem}" for problem in broken), file=sys.stderr)
        return 2
    return 1 if any(r.drift for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
