"""A translated page as it is published, checked against the Japanese page as it is published: only its text and
its prose markup may differ (ARCHITECTURE.md, "The trust boundary").

Both pages are read by the standard library's HTML parser (``html.parser``), which tokenises as a browser does;
nothing here reads HTML with a regular expression.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from itertools import zip_longest
from pathlib import Path

from attention_lesson.site.strings import CONTROL, DECEIVING

REFUSED = '<!doctype html>\n<meta charset="utf-8">\n<title>-</title>\n<p>Not published: see the build\'s output.</p>\n'
"""What is written in place of a refused page (the build fails; `mkdocs serve` would serve the page meanwhile)."""
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
PROSE = {**{tag: frozenset() for tag in ("br", "hr", "em", "strong", "del", "ins", "sup", "sub", "blockquote",
                                          "ul", "li", "code", "kbd", "mark", "table", "thead", "tbody", "tr",
                                          "summary")},
         **{f"h{n}": frozenset({"id"}) for n in range(1, 7)},
         "p": frozenset({"class"}), "ol": frozenset({"start"}), "a": frozenset({"href", "title", "class", "hreflang"}),
         "th": frozenset({"style"}), "td": frozenset({"style"}),
         "div": frozenset({"class", "lang", "dir"}), "details": frozenset({"class", "open"})}
"""What Markdown makes of prose, and the attributes it gives each element: what a translator may add or split
(and the banner of a page shown in Japanese: a div of its language, a warning, a link to the original)."""
PROSE_CLASSES = {"headerlink", "anchor-link", "admonition", "admonition-title", "note", "abstract", "summary",
                 "tldr", "info", "todo", "tip", "hint", "important", "success", "check", "done", "question",
                 "help", "faq", "warning", "caution", "attention", "failure", "fail", "missing", "danger", "error",
                 "bug", "example", "quote", "cite"}
"""A heading's permalink (a notebook's too), and admonitions (``!!! note``, ``??? question``) of Material's kinds."""
ALIGN = re.compile(r"text-align: (left|right|center);")
"""The one style Markdown writes: a table column's alignment."""
BOUND = {"class", "id", "href", "src", "xlink:href", "type", "rel", "role", "http-equiv", "name", "target",
         "action", "method", "download", "hreflang", "charset"}
"""Attributes whose values are a page's structure. Others hold text a reader reads (translated), a language or a
figure's geometry (which follows its text's length)."""
URLS = {"href", "src", "action", "formaction", "xlink:href", "poster", "srcset", "data", "background", "cite",
        "ping", "manifest", "codebase", "longdesc", "usemap", "itemtype", "archive", "profile"}
SAFE_URL = re.compile(r"(https://|#|(?![\w+.-]*:|[/\\]{2}))", re.I)
"""An address that runs nothing: https, a fragment, or relative (no scheme before the first ``/``, ``?`` or ``#``,
and not ``//host``, which a browser reads as another site, nor ``/\\host``, which it reads the same)."""
SPACE = "".join(map(chr, range(33)))
"""What a browser strips from an address's ends (C0 controls and space); tabs and newlines anywhere."""
LAYOUT = {("tspan", ("dy", "x")), ("span", ("class",))}
"""Elements that follow a translated text: a figure's wrapped lines, Pygments' tokens of a comment or string."""
CONTAINERS = {"jp-RenderedMarkdown"}
"""Classes of elements, outside prose, whose children are prose: a notebook's markdown cell."""


@dataclass
class Element:
    tag: str
    attrs: list[tuple[str, str]]
    children: list[Element] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return {c for name, value in self.attrs if name == "class" for c in value.split()}

    def shape(self) -> tuple:
        """The element as structure: its tag, its attributes' names and the values of those in :data:`BOUND` but
        addresses (checked on their own: a link's prefix is its language's)."""
        return (self.tag, tuple(sorted((name, value if name in BOUND - URLS else "") for name, value in self.attrs)))


class _Tree(HTMLParser):
    """An HTML text as elements, as a browser's tokeniser reads it (end tags close up to their own element)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", [])
        self._open = [self.root]
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, [(name, value or "") for name, value in attrs])
        self._open[-1].children.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, 0, -1):
            if self._open[depth].tag == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self._open[-1].text.append(data)


@dataclass
class Outline:
    """What a published page is made of, as the checks compare it."""

    blocks: list[tuple] = field(default_factory=list)  # the content's non-prose, in order
    prose: list[Element] = field(default_factory=list)  # the content's prose elements
    around: list[Element] = field(default_factory=list)  # every element outside the content
    elements: list[Element] = field(default_factory=list)  # every element
    text: str = ""  # every text, for the characters in it

    @property
    def kinds(self) -> set[tuple]:
        """The kinds of element around the content: tag and attribute names."""
        return {_kind(e) for e in self.around}


def _is_prose(element: Element) -> bool:
    allowed = PROSE.get(element.tag)
    return (allowed is not None and {name for name, _ in element.attrs} <= allowed
            and element.classes <= PROSE_CLASSES)


def outline(text: str) -> Outline:
    found = Outline()

    def walk(element: Element, content: bool, opaque: bool) -> None:
        texts.extend(element.text)
        for child in element.children:
            found.elements.append(child)
            if not content or "md-content__button" in child.classes:  # Material's page actions are around it
                if not (inner := child.tag == "article" and "md-content__inner" in child.classes):  # the content
                    found.around.append(child)
                walk(child, inner, False)
            elif opaque or not _is_prose(child):
                if not (opaque and _kind(child) in LAYOUT):
                    found.blocks.append(child.shape())
                walk(child, True, not (child.classes & CONTAINERS))
            else:
                found.prose.append(child)
                walk(child, True, False)

    texts: list[str] = []
    walk(_Tree(text).root, False, False)
    found.text = "".join(texts)
    return found


@dataclass(frozen=True)
class Problem:
    """What a translated page publishes and may not, and a piece of its text to find its source line by."""

    what: str
    needle: str


def _show(tag: str, attrs: Iterable[tuple[str, str]]) -> str:
    return "<" + " ".join([tag, *(f'{name}="{value[:40]}"' if value else name for name, value in attrs)]) + ">"


def _kind(element: Element) -> tuple:
    return element.tag, tuple(sorted(name for name, _ in element.attrs))


def _element_problem(element: Element, urls: set[str]) -> Problem | None:
    for name, value in element.attrs:
        if name.startswith("on"):
            return Problem(f"an event handler, {name}=, on {_show(element.tag, element.attrs)}", name)
        if name in URLS and value not in urls and (CONTROL.search(value) or not SAFE_URL.match(
                re.sub(r"[\t\n\r]", "", value).strip(SPACE))):
            return Problem(f"an address that is neither https nor relative: {_show(element.tag, element.attrs)}",
                           value.strip()[:30])
    return None


def problems(ours: Outline, translated: str, known: set[tuple] = frozenset()) -> list[Problem]:
    """Everything `translated` (a page's published HTML) has that `ours` (the Japanese page's outline) does not
    allow, at most one problem an element. `known`: the kinds of element any Japanese page has around its content
    (a translated page may have a table of contents where the Japanese page has too few headings for one)."""
    theirs = outline(translated)
    urls, kinds = {v for e in ours.elements for n, v in e.attrs if n in URLS}, ours.kinds | known | LAYOUT
    bound = {(e.tag, name, value) for e in ours.around for name, value in e.attrs}
    found: dict[int, Problem] = {}  # by element: one problem each
    for element in theirs.elements:
        if problem := _element_problem(element, urls):
            found[id(element)] = problem
    for element in theirs.prose:  # th and td: a column's alignment only
        if id(element) not in found and not ALIGN.fullmatch(dict(element.attrs).get("style", "text-align: left;")):
            found[id(element)] = Problem(f"a style on {_show(element.tag, element.attrs)}", "style")
    for element in theirs.around:
        odd = next((value or name for name, value in element.attrs if name in BOUND - URLS - {"id", "class"}
                    and (element.tag, name, value) not in bound), None)
        if id(element) not in found and (_kind(element) not in kinds or odd is not None):
            found[id(element)] = Problem(f"{_show(element.tag, element.attrs)} around the content, of a kind the "
                                         "Japanese page does not have", odd or element.tag)
    ids = [value for e in theirs.elements for name, value in e.attrs if name == "id"]
    page = [Problem(f'two elements with id="{twice}" (a heading named as something the page already names)', twice)
            for twice in sorted({i for i in ids if ids.count(i) > 1})]
    page += [Problem(f"an invisible character, U+{ord(mark):04X}, that changes how the text around it is read", mark)
             for mark in sorted(set(DECEIVING.findall(theirs.text)) - set(DECEIVING.findall(ours.text)))]
    if theirs.blocks != ours.blocks:  # the first block that differs, or is missing on either side
        wanted, has = next((a, b) for a, b in zip_longest(ours.blocks, theirs.blocks) if a != b)
        page.append(Problem(f"{_show(*has) if has else 'nothing more'} where the Japanese page has "
                            f"{_show(*wanted) if wanted else 'nothing more'} (its code blocks, figures, formulas "
                            "and notebook cells, in order, are every language's)", ""))
    return [*found.values(), *page]


def refusals(japanese: dict[str, str], outlines: dict[str, Outline], page: str, output: str, source: Path,
             shown: str) -> list[str]:
    """A translated page's problems (`output`, the page as written, against the Japanese `page`), one line each
    naming `shown` (its source, ``docs/<code>/<page>``) and, where the problem's text is found in it, the line.
    `japanese`: each Japanese page as written; `outlines`, theirs, made here when first needed (a `mkdocs serve`
    rebuild of the Japanese pages alone makes none)."""
    outlines.update({name: outline(text) for name, text in japanese.items() if name not in outlines})
    ours = outlines.get(page)
    known = {kind for each in outlines.values() for kind in each.kinds}
    found = problems(ours, output, known) if ours else [Problem("no Japanese page to compare it with", "")]
    text = source.read_text("utf-8", errors="replace").lower().splitlines() if found and source.is_file() else []
    lines = []
    for problem in found:
        line = next((n for n, row in enumerate(text, 1) if problem.needle and problem.needle.lower() in row), 0)
        lines.append(f"{shown}{f':{line}' if line else ''}: the page as built has {problem.what}; a translation is "
                     "text and Markdown prose (docs/TRANSLATING.md)")
    return lines
