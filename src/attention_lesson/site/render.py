"""What the site shows besides the lesson's own output, as text: no MkDocs here (plugin.py adapts it)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from latex2mathml.converter import convert

from attention_lesson.site import source, strings
from attention_lesson.site.lesson import SOURCE_LANG, Project, digest


def math_fence(src: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
    """A ```math block as MathML (browsers draw it natively: no math script or font is fetched)."""
    return f'<div class="{css_class}">{convert(src.strip(), display="block")}</div>'


def fill_values(markdown: str, values: dict[str, str], where: str) -> str:
    """``{{ expr }}`` in prose replaced by the Japanese run's value of that expression (escaped)."""

    def value(match: re.Match) -> str:
        expr = match["expr"].strip()
        if expr not in values:
            raise source.SourceError(f"{where}: {{{{ {expr} }}}} is not a value of the Japanese page")
        return html.escape(values[expr], quote=False)

    return source.VALUE.sub(value, markdown)


def marked_lines(code: str, marks: str, where: str) -> str:
    """An excerpt's ``hl_lines``: the lines holding one of ``marks`` ("a|b"), spaces aside (``T=5`` holds
    ``T = ``). A mark that no line holds fails, naming the Japanese page (every language copies its excerpts)."""
    rows, chosen = [row.replace(" ", "") for row in code.splitlines()], set()
    for mark in filter(None, marks.split("|")):
        if not (found := {n for n, row in enumerate(rows, 1) if mark.replace(" ", "") in row}):
            raise source.SourceError(f"{where}: no line of this excerpt holds {mark!r} any more: change mark= to "
                                     "what the line to show holds, here and in every language's page")
        chosen |= found
    return " ".join(map(str, sorted(chosen)))


def fingerprint(project: Project, code: str, runs: dict[str, Any], options: dict[str, Any]) -> str:
    """Everything a language's pages are made of: its folder, the Japanese pages it lacks, the Japanese
    strings, mkdocs.yml, the plugin's options and the runs."""
    own = set(project.pages(code))
    files = [*(project.docs / code).rglob("*"), project.root / "mkdocs.yml",
             project.docs / SOURCE_LANG / strings.FILE,
             *(project.docs / SOURCE_LANG / page for page in project.pages(SOURCE_LANG) if page not in own)]
    data = {page: vars(run) for page, run in runs.items()}
    return digest(sorted(files), json.dumps([data, options], sort_keys=True, default=str))


def machinery(folder: Path) -> dict[str, float]:
    """The site's Python modules and when each was last changed."""
    return {f"src/attention_lesson/site/{path.name}": path.stat().st_mtime for path in sorted(folder.glob("*.py"))}


def download_link(title: str, url: str, label: str, root: Path) -> str:
    """A link under a listing to its file, published beside the pages, when the block's title names a listing of
    the project (``snippets/<name>.py``); else nothing."""
    if not re.fullmatch(r"snippets/[\w-]+\.py", title) or not (root / title).is_file():
        return ""
    href = "../" * url.count("/") + title
    return (f'<p class="lesson-download"><a href="{html.escape(href)}" download>{html.escape(label)}: '
            f"<code>{html.escape(title.rsplit('/', 1)[-1])}</code></a></p>")


def unsure(ui: dict[str, str]) -> str:
    """The note in place of a soft claim that this build's run did not bear out (a measurement disturbed)."""
    return (f'<div class="admonition warning"><p class="admonition-title">{html.escape(ui.get("unsure_title", ""))}'
            f'</p><p>{html.escape(ui.get("unsure", ""))}</p></div>')


def lines(code: str) -> list[str]:
    """Code compared line by line, blank lines and trailing spaces aside (includes add a final blank line)."""
    return [line.rstrip() for line in code.splitlines() if line.strip()]


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!<>&])")


def markdown_text(text: str) -> str:
    """A translator's text, safe where output is rendered as Markdown: no markup, no link, no HTML."""
    return _MARKDOWN.sub(lambda m: {"<": "&lt;", ">": "&gt;", "&": "&amp;"}.get(m[1], "\\" + m[1]), text)


def with_banner(markdown: str, url: str, ui: dict[str, str], linked: bool) -> str:
    """The Japanese page shown in another language, with a notice under its title and, when the Japanese site is
    beside it, a link to the original (HTML: the page is outside this language's build, which MkDocs checks)."""
    title = markdown_text(ui.get("untranslated_title", "")).replace('"', "'")
    original = "../" * (url.count("/") + 1) + url
    link = (f' <a href="{html.escape(original)}" hreflang="ja">{html.escape(ui.get("original", ""))}</a>'
            if linked else "")
    notice = f'!!! warning "{title}"\n\n    {markdown_text(ui.get("untranslated", ""))}{link}\n\n'
    banner, titled = re.subn(r"^# .*\n?", lambda title: f"{title[0]}\n{notice}", markdown, count=1, flags=re.M)
    return banner if titled else notice + markdown


def with_marks(markdown: str, lines: list[int], note: str) -> str:
    """`markdown` with `note` (escaped, in italics) as a paragraph of its own at each of `lines` (1-based): before
    a paragraph, list or figure that starts there, after a heading, indented as the line is."""
    rows = markdown.split("\n")
    for line in sorted(set(lines), reverse=True):  # from the bottom up: the lines above keep their numbers
        if not 0 < line <= len(rows):
            continue
        row = rows[line - 1]
        indent = row[:len(row) - len(row.lstrip())]
        mark = [f"{indent}*{markdown_text(note)}*", ""]
        at = line if row.lstrip().startswith("#") else line - 1
        rows[at:at] = ["", *mark] if at == line else mark
    return "\n".join(rows)


_UNUSED = re.compile(r"<style[^>]*>.*?</style>\s*|<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->"
                     r"|<script type=\"module\">(?:(?!</script>).)*jp-Mermaid.*?End of mermaid configuration -->", re.S)


def notebook_page(content: str, ui: dict[str, str]) -> str:
    """A notebook page as mkdocs-jupyter renders it, made light and valid: what its cells never use taken out (the
    style blocks, about 590 KB of JupyterLab's CSS, notebooks.css having the rules the cells need; the MathJax stub
    and the Mermaid loader, 13 KB of script before the cells); the copy buttons' stray ``,=""`` attribute dropped,
    their role written out (the element's script sets role="button" only when it runs: without it, an aria-label
    there is invalid) and their English words in the page's language."""
    content = _UNUSED.sub("", content).replace('<clipboard-copy ,=""', "<clipboard-copy")
    content = content.replace("<clipboard-copy ", '<clipboard-copy role="button" ')
    content = content.replace('aria-label="Copy to Clipboard"', f'aria-label="{html.escape(ui.get("copy_code", ""))}"')
    content = content.replace(">Copied!<", f">{html.escape(ui.get('copied', ''))}<")
    return fold_answers(content, ui.get("answer", ""))


_CELL = re.compile(r'<div class="jp-Cell ')
_DIV = re.compile(r"<div\b|</div>")
ANSWER = "<!-- lesson:answer -->"
"""How notebooks.executed marks a markdown cell tagged ``answer`` (nbconvert writes no tag class for those)."""


def fold_answers(content: str, label: str) -> str:
    """The cells a notebook tags ``answer`` (from the first to the last) in a closed ``<details>``: a learner
    tries before reading the answer, with or without JavaScript."""
    first = _CELL.search(content)
    if first is None:
        return content
    cells, depth, start = [], 0, None
    for match in _DIV.finditer(content, first.start()):
        if match[0] == "</div>":
            depth -= 1
            if depth == 0:
                cells.append((start, match.end()))
            if depth < 0:
                break
        else:
            if depth == 0:
                if not content.startswith('<div class="jp-Cell ', match.start()):
                    break
                start = match.start()
            depth += 1
    answers = [(a, b) for a, b in cells if "celltag_answer" in content[a:b] or ANSWER in content[a:b]]
    if not answers:
        return content
    begin, end = answers[0][0], answers[-1][1]
    return (f'{content[:begin]}<details class="success lesson-answer"><summary>{html.escape(label)}</summary>\n'
            f"{content[begin:end]}\n</details>{content[end:]}")
