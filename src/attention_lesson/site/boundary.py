"""A translated page as it is published, checked against the Japanese page as it is published: only its text and
its prose markup may differ (ARCHITECTURE.md, "The trust boundary"); and the policy every page carries, which the
browser enforces whatever the check missed.

Both pages are parsed by JustHTML, an implementation of the WHATWG parsing algorithm (tokenizer and tree builder,
with scripting enabled, as a browser parses a page), so that the tree checked is the tree a browser builds: a
comment opened as ``<!-->``, a ``<![CDATA[`` section, ``<noscript>`` or ``<textarea>`` are read as Chromium reads
them. The standard library's ``html.parser`` is not such a parser (ARCHITECTURE.md, "Why JustHTML").
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

from justhtml import JustHTML

from attention_lesson.site.strings import CONTROL, DECEIVING

REFUSED = '<!doctype html>\n<meta charset="utf-8">\n<title>-</title>\n<p>Not published: see the build\'s output.</p>\n'
"""What is written in place of a refused page (the build fails; `mkdocs serve` would serve the page meanwhile)."""
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
LAYOUT = {("tspan", ("dy", "x")), ("span", ("class",)), ("bdi", ())}
"""Elements that follow a translated text: a figure's wrapped lines, Pygments' tokens of a comment or string, a
printed string isolated from the numbers beside it."""
CONTAINERS = {"jp-RenderedMarkdown"}
"""Classes of elements, outside prose, whose children are prose: a notebook's markdown cell."""
TOC = "md-nav--secondary"
"""Material's table of contents (in the sidebar, and in the menu on a phone): its items are the page's headings."""
EDIT = ("a", "edit")
"""Material's edit button, which a page shown in Japanese does not have (there is no file of its language yet)."""
DEEPER, GROWTH, ROOM = 12, 3, 200_000
"""How much deeper and longer than the Japanese page a translated one may be: room for a language's words."""
DATA = re.compile(r"application/(ld\+)?json|importmap|speculationrules|text/template", re.I)
"""Script types a browser does not run as a script (the policy's hashes are for those it runs)."""


@dataclass
class Element:
    tag: str
    attrs: list[tuple[str, str]]
    children: list[Element] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    html: bool = True  # in the HTML namespace (not SVG's or MathML's, whose <a> or <style> is another element)

    @property
    def classes(self) -> set[str]:
        return {c for name, value in self.attrs if name == "class" for c in value.split()}

    def shape(self) -> tuple:
        """The element as structure: its tag, its attributes' names and the values of those in :data:`BOUND` but
        addresses (checked on their own: a link's prefix is its language's)."""
        return (self.tag, tuple(sorted((name, value if name in BOUND - URLS else "") for name, value in self.attrs)))


def parse(text: str) -> Element:
    """An HTML document as the tree a browser builds of it: elements (a template's content as its children) and
    their text; comments, processing instructions and the doctype are nothing a reader sees or a browser runs."""
    root = Element("#root", [])
    stack = [(JustHTML(text, sanitize=False).root, root)]
    while stack:  # iterative: a page nested a thousand deep is no RecursionError
        node, element = stack.pop()
        children = [*(node.children or []), *(getattr(getattr(node, "template_content", None), "children", None) or [])]
        made = []
        for child in children:
            if child.name == "#text":
                element.text.append(child.data or "")
            elif not child.name.startswith(("#", "!")):
                made.append((child, Element(child.name, [(k, v or "") for k, v in (child.attrs or {}).items()],
                                            html=child.namespace in (None, "html"))))
        element.children.extend(e for _, e in made)
        stack.extend(reversed(made))
    return root


@dataclass
class Outline:
    """What a published page is made of, as the checks compare it."""

    frame: list[tuple] = field(default_factory=list)  # every element outside the content, as (depth, shape)
    toc: list[Element] = field(default_factory=list)  # the items of its tables of contents
    blocks: list[tuple] = field(default_factory=list)  # the content's non-prose, in order
    prose: list[Element] = field(default_factory=list)  # the content's prose elements
    elements: list[Element] = field(default_factory=list)  # every element
    scripts: list[str] = field(default_factory=list)  # the text of every script a browser runs, in order
    depth: int = 0  # the deepest nesting
    size: int = 0  # characters
    text: str = ""  # every text, for the characters in it

    @property
    def kinds(self) -> set[tuple]:
        """The kinds of element in its tables of contents: tag and attribute names."""
        return {_kind(e) for e in self.toc}


def _is_prose(element: Element) -> bool:
    allowed = PROSE.get(element.tag)
    return (element.html and allowed is not None and {name for name, _ in element.attrs} <= allowed
            and element.classes <= PROSE_CLASSES)


def outline(text: str) -> Outline:
    """The page as a browser builds it (:func:`parse`), sorted into what the checks compare: the frame (outside
    the content, element for element), the tables of contents, and the content's prose and blocks."""
    found, texts, root = Outline(), [], parse(text)
    texts.extend(root.text)
    # (element, depth, where its parent's children stand): frame, toc, edit, content or opaque; taken in document
    # order (pre-order), so that the first difference reported is the first in the page
    stack: list[tuple[Element, int, str]] = [(child, 1, "frame") for child in reversed(root.children)]
    while stack:
        child, depth, where = stack.pop()
        texts.extend(child.text)
        found.depth = max(found.depth, depth)
        found.elements.append(child)
        attrs = dict(child.attrs)
        if child.tag == "script" and not DATA.fullmatch(attrs.get("type", "")):
            found.scripts.append("".join(child.text))
        edit = (child.tag, attrs.get("rel")) == EDIT and "md-content__button" in child.classes
        if where in ("toc", "edit"):
            inner = where
            if where == "toc":
                found.toc.append(child)
        elif where == "frame" or "md-content__button" in child.classes:  # Material's page actions: frame too
            inner = ("edit" if edit else "content" if child.tag == "article" and "md-content__inner" in
                     child.classes else "toc" if TOC in child.classes else "frame")
            if not edit:
                found.frame.append((depth - 1, child.shape()))
        elif where == "opaque" or not _is_prose(child):
            if not (where == "opaque" and _kind(child) in LAYOUT):
                found.blocks.append(child.shape())
            inner = "content" if child.classes & CONTAINERS else "opaque"
        else:
            found.prose.append(child)
            inner = "content"
        stack.extend((grandchild, depth + 1, inner) for grandchild in reversed(child.children))
    found.text, found.size = "".join(texts), len(text)
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


def _element_problem(element: Element, urls: set[str], own: str) -> Problem | None:
    for name, value in element.attrs:
        if name.startswith("on"):
            return Problem(f"an event handler, {name}=, on {_show(element.tag, element.attrs)}", name)
        address = re.sub(r"[\t\n\r]", "", value).strip(SPACE)
        if name in URLS and value not in urls and not (own and address.startswith(own)) and (
                CONTROL.search(value) or not SAFE_URL.match(address)):
            return Problem(f"an address that is neither https nor relative: {_show(element.tag, element.attrs)}",
                           value.strip()[:30])
    return None


def _difference(ours: list, theirs: list) -> tuple:
    """The first item that differs, or is missing on either side: (ours, theirs)."""
    return next((a, b) for a, b in zip_longest(ours, theirs) if a != b)


def _shown(item: tuple | None) -> str:
    return _show(*item) if item else "nothing more"


def problems(ours: Outline, translated: str, known: set[tuple] = frozenset(), own: str = "") -> list[Problem]:
    """Everything `translated` (a page's published HTML) has that `ours` (the Japanese page's outline) does not
    allow, at most one problem an element. `known`: the kinds of element any Japanese page's table of contents
    has (a translated page's headings name its items); `own`: the site's address, which is no other site."""
    theirs = outline(translated)
    urls = {v for e in ours.elements for n, v in e.attrs if n in URLS}
    found: dict[int, Problem] = {}  # by element: one problem each
    for element in theirs.elements:
        if problem := _element_problem(element, urls, own):
            found[id(element)] = problem
    for element in theirs.prose:  # th and td: a column's alignment only
        if id(element) not in found and not ALIGN.fullmatch(dict(element.attrs).get("style", "text-align: left;")):
            found[id(element)] = Problem(f"a style on {_show(element.tag, element.attrs)}", "style")
    for element in theirs.toc:  # a heading's item: of the kinds the Japanese pages' items are, to a fragment
        href = dict(element.attrs).get("href", "#")
        if id(element) not in found and (_kind(element) not in known | ours.kinds or not href.startswith("#")):
            found[id(element)] = Problem(f"{_show(element.tag, element.attrs)} in the table of contents, of a kind "
                                         "the Japanese pages do not have there", href if href != "#" else element.tag)
    page = []
    if theirs.frame != ours.frame:  # outside the content, the Japanese page's elements, one for one
        (_, wanted), (_, has) = (item or (0, None) for item in _difference(ours.frame, theirs.frame))
        needle = next((v for n, v in (has[1] if has else ()) if v and n != "class"), has[0] if has else "")
        page.append(Problem(f"{_shown(has)} outside the content where the Japanese page has {_shown(wanted)} (the "
                            "page around the text is every language's)", needle))
    if theirs.scripts != ours.scripts:
        page.append(Problem("a script the Japanese page does not run", "script"))
    if theirs.depth > ours.depth + DEEPER or len(translated) > GROWTH * ours.size + ROOM:
        page.append(Problem(f"elements nested {theirs.depth} deep and {len(translated):,} characters where the "
                            f"Japanese page has {ours.depth} and {ours.size:,} (a translation is about as long)", ""))
    ids = [value for e in theirs.elements for name, value in e.attrs if name == "id"]
    page += [Problem(f'two elements with id="{twice}" (a heading named as something the page already names)', twice)
             for twice in sorted({i for i in ids if ids.count(i) > 1})]
    page += [Problem(f"an invisible character, U+{ord(mark):04X}, that changes how the text around it is read", mark)
             for mark in sorted(set(DECEIVING.findall(theirs.text)) - set(DECEIVING.findall(ours.text)))]
    if theirs.blocks != ours.blocks:  # the first block that differs, or is missing on either side
        wanted, has = _difference(ours.blocks, theirs.blocks)
        page.append(Problem(f"{_shown(has)} where the Japanese page has {_shown(wanted)} (its code blocks, figures, "
                            "formulas and notebook cells, in order, are every language's)", ""))
    return [*found.values(), *page]


def refusals(outlines: dict[str, Outline], page: str, output: str, source: Path, shown: str,
             own: str = "") -> list[str]:
    """A translated page's problems (`output`, the page as written, against the Japanese `page`), one line each
    naming `shown` (its source, ``docs/<code>/<page>``) and, where the problem's text is found in it, the line.
    `outlines`: each Japanese page's as written; `own`: the address the site is given (serve's own too)."""
    ours = outlines.get(page)
    known = {kind for each in outlines.values() for kind in each.kinds}
    found = problems(ours, output, known, own) if ours else [Problem("no Japanese page to compare it with", "")]
    text = source.read_text("utf-8", errors="replace").lower().splitlines() if found and source.is_file() else []
    lines = []
    for problem in found:
        line = next((n for n, row in enumerate(text, 1) if problem.needle and problem.needle.lower() in row), 0)
        lines.append(f"{shown}{f':{line}' if line else ''}: the page as built has {problem.what}; a translation is "
                     "text and Markdown prose (docs/TRANSLATING.md)")
    return lines


def policy(scripts: Iterable[str], serving: bool = False) -> str:
    """The Content-Security-Policy of a page that runs these inline scripts (a Japanese page's, which its
    translations run too): code, styles, fonts, images and connections from the site only. Style attributes are
    allowed (figures place their bars with them; they load nothing, since images and fonts come from the site
    only); images may also be ``data:`` (Material's icons are SVG data in its stylesheet). `serving`: under
    `mkdocs serve`, which puts its reload script inline into every page, inline scripts run (no hash could name
    that script: it holds the build's time)."""
    hashes = ["'unsafe-inline'"] if serving else sorted(
        {f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts if s.strip()})
    return "; ".join(["default-src 'none'", " ".join(["script-src 'self'", *hashes]), "style-src 'self'",
                      "style-src-attr 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
                      "connect-src 'self'", "worker-src 'self'", "manifest-src 'self'", "base-uri 'none'",
                      "form-action 'none'"])


def with_policy(output: str, scripts: Iterable[str], serving: bool = False) -> str:
    """`output` with its policy (:func:`policy`) first in its head, before anything it governs."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(scripts, serving)}">'
    charset = output.find("<meta charset")  # Material's first element, and a refused page's: the policy next
    at = output.find(">", charset) + 1 if charset >= 0 else 0
    return f"{output[:at]}\n{meta}{output[at:]}"
