"""The Python-Markdown extension that renders one page of one language from the Japanese page's stored run: its
``{{ values }}`` in prose, and its fences (``python``, ``figure``, ``claim``, ``math``) through SuperFences.

Any builder can use it: give :class:`Lesson` the checked and run site (:mod:`attention_lesson.site.prepare`),
the language and the page, and :func:`settings` over the other extensions' settings. No MkDocs here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import markdown_exec
from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from pymdownx.slugs import slugify
from pymdownx.superfences import SuperFencesException, highlight_validator

from attention_lesson.site import figures, render, source, strings
from attention_lesson.site.lesson import PageRun, Site


class FenceError(SuperFencesException):
    """A page could not render (SuperFences passes a SuperFencesException on instead of swallowing it)."""


class Lesson(Extension):
    """One page at a time: :meth:`open` it before converting it. Markdown converted inside the page (markdown-exec
    renders printed output with the page's extensions) is left as it is."""

    def __init__(self, site: Site, lang: str, error: type[FenceError] = FenceError) -> None:
        super().__init__()
        self.site, self.lang, self.error = site, lang, error
        self.page, self.url, self.shown_from, self.opened = "", "", lang, False
        self.run, self.lines, self.cursor = PageRun(), {}, {}

    def open(self, page: str, url: str, shown_from: str = "") -> None:
        """The page to convert next: its path in the language folder (``""``: not a page of the lesson), its
        address in the site and, for a page the language has not translated, the folder it is shown from."""
        self.page, self.url, self.shown_from, self.opened = page, url, shown_from or self.lang, bool(page)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        md.registerExtension(self)
        md.preprocessors.register(_Values(md, self), "lesson_values", 33)  # before pymdownx.snippets (32)

    @property
    def path(self) -> str:
        return f"docs/{self.shown_from}/{self.page}"

    def start(self, markdown: str) -> str:
        """A page's text with its values filled; the fences it holds, counted by kind."""
        scanned = source.scan(markdown, self.path)
        self.run, self.cursor = self.site.runs.get(self.page, PageRun()), {}
        self.lines = {"python": [f.line for f in scanned.fences if f.runs],
                      "figure": [f.line for f in scanned.fences if f.lang == "figure"],
                      "excerpt": [f.line for f in scanned.fences if "mark" in f.options and not f.runs]}
        rows = markdown.split("\n")
        try:
            for number, _ in scanned.prose:
                rows[number - 1] = render.fill_values(rows[number - 1], self.run.values, f"{self.path}:{number}")
        except source.SourceError as error:
            raise self.error(strings.printable(str(error))) from None
        return "\n".join(rows)

    def next(self, kind: str) -> tuple[int, str]:
        """The page's next fence of a kind: its number among that kind's, and where it stands (``file:line``)."""
        n = self.cursor[kind] = self.cursor.get(kind, -1) + 1
        lines = self.lines.get(kind, [])
        return n, f"{self.path}:{lines[n]}" if n < len(lines) else self.path


class _Values(Preprocessor):
    def __init__(self, md: Markdown, lesson: Lesson) -> None:
        super().__init__(md)
        self.lesson = lesson

    def run(self, lines: list[str]) -> list[str]:
        if not self.lesson.opened:
            return lines
        self.lesson.opened = False
        return self.lesson.start("\n".join(lines)).split("\n")


def _lesson(md: Any) -> Lesson:
    return next(e for e in md.registeredExtensions if isinstance(e, Lesson))


def python_fence(src: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
    """A python fence: a block of the page's run (its output in this language), or code shown unrun."""
    lesson = _lesson(md)
    words = lesson.site.words[lesson.lang]
    if not options.pop("lesson_run", False):
        if marks := options.pop("lesson_mark", ""):  # lines by what they hold: an inserted line moves nothing
            try:
                options["hl_lines"] = render.marked_lines(src, marks, lesson.next("excerpt")[1])
            except source.SourceError as error:
                raise lesson.error(strings.printable(str(error))) from None
        return md.preprocessors["fenced_code_block"].highlight(
            src=strings.localize_source(src, words), language=language, options=options, md=md, **kwargs)
    n, where = lesson.next("python")
    if n >= len(lesson.run.outputs) or render.lines(lesson.run.outputs[n]["code"]) != render.lines(src):
        raise lesson.error(strings.printable(f"{where}: this python block is not the Japanese page's block {n + 1}: "
                                             "a translation shows the Japanese code and never runs its own"))
    block = lesson.run.outputs[n]
    if options.pop("lesson_hide", False) or block["hidden"]:  # out of the options markdown-exec is given
        return ""
    escape = render.markdown_text if not options.get("result") and not options.get("html") else None
    output = strings.localize_output(block["output"], block["literals"], words, escape, isolate=escape is None)
    shown = str(markdown_exec.base_format(language=language, run=lambda code, **_: output, code=src, md=md,
                                          transform_source=lambda code: (code, strings.localize_source(code, words)),
                                          **options))
    shown = shown.replace(strings.ISOLATED[0], "<bdi>").replace(strings.ISOLATED[1], "</bdi>")  # a table: by cell
    title = (options.get("extra") or {}).get("title", "") if options.get("source") else ""
    return shown + render.download_link(title, lesson.url, words.ui.get("download_listing", ""),
                                              lesson.site.project.root)


def figure_fence(src: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
    """A figure drawn from the page's run, its words (alt, caption, labels) the page's."""
    lesson = _lesson(md)
    n, where = lesson.next("figure")
    if n >= len(lesson.run.figures):
        raise lesson.error(f"{where}: this figure is not on the Japanese page")
    try:
        spec = source.figure_spec(source.Fence(0, "```", "figure", src), where)
        text = {k: v for k, v in spec.items() if k in source.FIGURE_TEXT}
        data = dict(lesson.run.figures[n])
        return figures.render(str(data.pop("kind", "")), data, text, lesson.site.words[lesson.lang].ui, f"fig-{n + 1}")
    except (ValueError, source.SourceError) as error:
        raise lesson.error(strings.printable(f"{where}: {error}")) from None


def claim_fence(src: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
    """Nothing when the claim holds (the build checked it); a soft claim this run does not bear out says so."""
    lesson = _lesson(md)
    n, _ = lesson.next("claim")
    unsure = lesson.run.unsure
    return render.unsure(lesson.site.words[lesson.lang].ui) if n < len(unsure) and unsure[n] else ""


def _accept_python(language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any],
                   md: Any) -> bool:
    """Every python fence is the lesson's: a run one (markdown-exec's options), or one shown unrun."""
    if inputs.get("exec", "").lower() in source.TRUE:
        hidden = inputs.pop("hide", "").lower() in source.TRUE
        markdown_exec.validator(language, inputs, options, attrs, md)
        options.update(lesson_run=True, lesson_hide=hidden)
        return True
    mark = inputs.pop("mark", "")
    return highlight_validator(language, inputs, options, attrs, md) and not options.update(lesson_mark=mark)


def settings(root: Path, ui: dict[str, str]) -> dict[str, dict[str, Any]]:
    """What the lesson's pages need of other extensions, over mkdocs.yml's settings: their fences, their headings'
    ids and permalinks, and includes from the project's files only."""
    return {"toc": {"permalink_title": ui.get("permalink_title", ""), "slugify": slugify(case="lower")},
            "pymdownx.snippets": {"base_path": [str(root)], "check_paths": True, "restrict_base_path": True},
            "pymdownx.superfences": {"custom_fences": [
                {"name": "math", "class": "math", "format": render.math_fence},
                {"name": "figure", "class": "figure", "format": figure_fence},
                {"name": "claim", "class": "claim", "format": claim_fence,  # its options: retry, soft (source.steps)
                 "validator": lambda language, inputs, options, attrs, md: True},
                {"name": "python", "class": "python", "validator": _accept_python, "format": python_fence}]}}

