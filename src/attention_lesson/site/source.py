"""Pages read as text, before anything renders or runs: their fences, includes, values and claims.

:func:`steps` turns a Japanese page into its sessions' steps; :func:`translation_problems` refuses what a
translated page may not do (ARCHITECTURE.md, "The trust boundary"). The page syntax is in CONTRIBUTING.md.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from attention_lesson.site.strings import MAX_VALUE, NoAliasLoader, invisible

OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>.*)$")
INCLUDE = re.compile(r"^[ \t]*;*-+8<-+")
"""Any line pymdownx.snippets might read as an include, in any of its forms (and a few more)."""
SIMPLE_INCLUDE = re.compile(r'^[ \t]*--8<-- "(?P<path>[\w./-]+?)(?::(?P<section>[\w-]+))?"[ \t]*$')
SECTION = re.compile(r"^\s*#\s*-+8<-+\s*\[(start|end):(?P<name>[^\]]*)\]\s*$")
VALUE = re.compile(r"\{\{(?P<expr>.*?)\}\}")
OPTION = re.compile(r"""(?P<key>[\w-]+)(?:=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>\S+)))?""")
TEXT_FENCES = {"", "text", "txt", "plain"}
"""Fences a translator may translate: nothing reads them but the reader."""
TRUE = {"on", "1", "yes", "true"}
FIGURE_TEXT = {"title", "label", "labels", "panels", "series", "xlabel", "ylabel", "alt", "caption", "tasks"}
"""A figure's keys that are text (translated); every other key is code or an option, the same in every language."""


NUMBER = re.compile(r"(?<![0-9A-Za-z_.])(?:[(\[]\d+(?:, ?\d+)+[)\]]|\d+(?:\.\d+)?(?:e[-+]?\d+)?(?: ?%)?)"
                    r"(?![0-9A-Za-z_])(?!\.\d)")
"""A number as a page or its output writes it: 0.46, 16, 3.6e-07, 42 %, a shape (5, 16) or [5, 16]. It ends where
a digit, a Latin letter or _ does not follow (``W_q``, ``h1`` and ``float32`` are names): a letter of another
script may touch it, as Korean or Japanese writes ``(5, 16)입니다`` or ``7번째``."""


def plain(text: str) -> str:
    """`text` with every digit of any script as an ASCII digit and full-width forms as ASCII (NFKC), position for
    position: ``０．２`` and ``٠٫٢`` read as numbers."""
    return "".join(str(unicodedata.decimal(c)) if unicodedata.decimal(c, None) is not None else
                   (folded if len(folded := unicodedata.normalize("NFKC", c)) == 1 else c) for c in text)


def numbers(text: str) -> set[str]:
    """The numbers in a text, each written one way ("5,16", "42%", "3.6e-07"), and every integer of a shape on
    its own."""
    found = {re.sub(r"[\s()\[\]]", "", n) for n in NUMBER.findall(plain(text).replace("\u066b", "."))}
    return found | {part for n in found if "," in n for part in n.split(",")}


def whole(found: set[str]) -> list[str]:
    """Numbers to name once each: a shape's own integers go with it ("5,16", not also "5" and "16")."""
    shapes = [n for n in found if "," in n]
    return sorted(n for n in found if not any(n in shape.split(",") for shape in shapes))


def typed(text: str, number: str) -> str:
    """Where `number` stands in `text`, as it was typed there (with what touches it), for a message."""
    flat = plain(text)
    for m in NUMBER.finditer(flat):
        if re.sub(r"[\s()\[\]]", "", m[0]) == number or number in re.sub(r"[\s()\[\]]", "", m[0]).split(","):
            return text[max(0, m.start() - 4):m.end() + 4].strip()
    return number


class SourceError(ValueError):
    """A mistake in a page, one line naming ``file:line``."""


@dataclass(frozen=True)
class Fence:
    line: int
    marker: str
    info: str
    body: str
    lang: str = ""
    options: dict[str, str] = field(default_factory=dict)

    @property
    def runs(self) -> bool:
        return self.lang in ("python", "py") and self.options.get("exec", "").lower() in TRUE


@dataclass(frozen=True)
class Page:
    """A page as text: its fences and the lines outside them (numbered)."""

    path: str
    fences: list[Fence]
    prose: list[tuple[int, str]]

    @property
    def includes(self) -> list[tuple[int, str]]:  # inside fences or not, in page order
        inside = [(f.line + 1 + k, line) for f in self.fences for k, line in enumerate(f.body.splitlines())]
        return sorted((n, line.strip()) for n, line in [*inside, *self.prose] if INCLUDE.match(line))

    @property
    def values(self) -> list[tuple[int, str]]:
        return [(n, m["expr"].strip()) for n, line in self.prose for m in VALUE.finditer(line)]


def options(info: str) -> tuple[str, dict[str, str]]:
    """A fence's language and options: ``python exec="on" title="x"`` → ("python", {...})."""
    lang, _, rest = info.strip().partition(" ")
    found = {m["key"]: next((v for v in (m["dq"], m["sq"], m["bare"]) if v is not None), "")
             for m in OPTION.finditer(rest)}
    return lang.strip("{}.").lower(), found


def scan(text: str, path: str) -> Page:
    """Read a Markdown page: every fence (any indentation, ``` or ~~~), the prose between, includes, values."""
    lines, fences, prose, i = text.splitlines(), [], [], 0
    while i < len(lines):
        found = OPEN.match(lines[i])
        if found and not (found["marker"][0] == "`" and "`" in found["info"]):
            indent, marker = found["indent"], found["marker"]
            close = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
            body, j = [], i + 1
            while j < len(lines) and not close.match(lines[j]):
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
                j += 1
            lang, opts = options(found["info"])
            fences.append(Fence(i + 1, marker, found["info"].strip(), "\n".join(body), lang, opts))
            i = j + 1
        else:
            prose.append((i + 1, lines[i]))
            i += 1
    return Page(path, fences, prose)


def listing(path: Path) -> str:
    """A listing of snippets/ as text, read the one way every reader reads it: UTF-8, and Python that parses.
    SourceError: one line naming the file and line, and what to do."""
    shown = f"snippets/{path.name}"
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise SourceError(f"{shown}: not UTF-8 at byte {error.start}: save it as UTF-8") from None
    except OSError as error:
        raise SourceError(f"{shown}: cannot be read ({error.strerror})") from None
    if path.suffix == ".py":
        try:
            compile(text, shown, "exec", dont_inherit=True)
        except SyntaxError as error:  # IndentationError and TabError too
            raise SourceError(f"{shown}:{error.lineno or 1}: {error.msg}: fix the listing (a bracket, a quote or an "
                              "indentation)") from None
    return text


def expand(code: str, snippets: Path, where: str) -> tuple[str, list[str]]:
    """A block's code with its includes read from snippets/, and where each line comes from (``file:line``)."""
    out, origins = [], []
    page, first = where.rsplit(":", 1)
    for number, line in enumerate(code.splitlines(), int(first) + 1):  # the page's line numbers
        if not INCLUDE.match(line):
            out.append(line)
            origins.append(f"{page}:{number}")
            continue
        found = SIMPLE_INCLUDE.match(line)
        if not found:
            raise SourceError(f'{page}:{number}: write an include as --8<-- "snippets/<file>.py" '
                              f'(or "snippets/<file>.py:<section>")')
        name = found["path"].removeprefix("snippets/")
        file = snippets / name
        if "/" in name or ".." in name or not file.is_file():
            raise SourceError(f"{page}:{number}: {found['path']}: no such file in snippets/ (only "
                              "snippets/ can be included)")
        text = listing(file)
        inside, seen = found["section"] is None, False  # the whole file, or nothing until its section starts
        for n, source_line in enumerate(text.splitlines(), 1):
            if marker := SECTION.match(source_line):
                if found["section"] and marker["name"] == found["section"]:
                    inside, seen = marker[1] == "start", True
                continue
            if inside:
                out.append(source_line)
                origins.append(f"snippets/{name}:{n}")
        if found["section"] and not seen:
            raise SourceError(f"{page}:{number}: snippets/{name} has no section {found['section']!r}")
    return "\n".join(out), origins


@dataclass(frozen=True)
class Step:
    """One thing a session does, in page order: run a block, evaluate a value, a figure's data or a claim."""

    kind: str  # "run" | "value" | "figure" | "claim"
    code: str  # the block's code; the value's expression; the figure's data expressions as YAML; claim lines
    where: str  # file:line
    origins: tuple[str, ...] = ()
    hidden: bool = False
    retry: int = 0  # a claim: run the session again this many times while it does not hold (a measurement)
    soft: bool = False  # a claim that still does not hold is said on the page instead of failing the build


def figure_spec(fence: Fence, where: str) -> dict[str, object]:
    """A figure fence's YAML, read safely (no aliases, text only where text is expected)."""
    if len(fence.body) > 20 * MAX_VALUE:
        raise SourceError(f"{where}: this figure is too large to be text")
    try:
        spec = yaml.load(fence.body, Loader=NoAliasLoader)  # noqa: S506 - the safe loader, without aliases
    except RecursionError:
        raise SourceError(f"{where}: this figure is nested too deep") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f"{where.rsplit(':', 1)[0]}:{int(where.rsplit(':', 1)[1]) + mark.line + 1}" if mark else where
        raise SourceError(f"{line}: this figure is not valid YAML: {getattr(error, 'problem', error)}") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("kind"), str):
        raise SourceError(f"{where}: a figure needs kind: heatmap, bars, lines or explorer")
    return spec


def figure_code(spec: dict[str, object]) -> dict[str, object]:
    """The part of a figure that must be the same in every language: everything but its text."""
    return {key: value for key, value in spec.items() if key not in FIGURE_TEXT}


def steps(page: Page, snippets: Path) -> dict[str, list[Step]]:
    """The sessions of a Japanese page, by name, each its steps in page order."""
    order: list[tuple[int, str, Step]] = []  # (line, session or "", step) before sessions are known
    for n, fence in enumerate(page.fences):
        where = f"{page.path}:{fence.line}"
        if fence.runs:
            code, origins = expand(fence.body, snippets, where)
            step = Step("run", code, where, tuple(origins), hidden=fence.options.get("hide", "").lower() in TRUE)
            order.append((fence.line, fence.options.get("session") or f"#{n}", step))
        elif fence.lang == "figure":
            code = yaml.safe_dump(figure_code(figure_spec(fence, where)), allow_unicode=True, sort_keys=True)
            order.append((fence.line, "", Step("figure", code, where)))
        elif fence.lang == "claim":
            retry = fence.options.get("retry", "0")
            order.append((fence.line, "", Step("claim", fence.body, where, retry=int(retry) if retry.isdigit() else 0,
                                               soft=fence.options.get("soft", "").lower() in TRUE)))
    order += [(line, "", Step("value", expr, f"{page.path}:{line}")) for line, expr in page.values]
    order.sort(key=lambda item: item[0])
    sessions: dict[str, list[Step]] = {}
    current = next((session for _, session, step in order if step.kind == "run"), None)  # the first, at first
    for _, session, step in order:
        current = session if step.kind == "run" else current
        if current is None:
            raise SourceError(f"{step.where}: a {step.kind} needs a python block with exec=\"on\" on the page")
        sessions.setdefault(current, []).append(step)
    for session, items in sessions.items():  # a step above the session's first block reads its last names
        first = next(i for i, step in enumerate(items) if step.kind == "run")
        sessions[session] = [*items[first:], *items[:first]]
    return sessions


FRONT_MATTER = re.compile(r"^(---\s*$|[A-Za-z0-9_-]+:)")
"""A first line MkDocs reads as metadata: YAML's ---, or MultiMarkdown's key: value."""
_HTML = re.compile(r"<[A-Za-z!/?]")
_ATTRS = re.compile(r"\{:|\{[^{}]*(?:=|(?<![^\s{])[#.][\w-])[^{}]*\}")  # any of its words, not only the first
_LINK = re.compile(r"\]\(\s*<?(?P<target>[^)\s>]*)")
_REF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(?P<target>\S+)", re.M)


SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
NOT_CODE = re.compile(r"\{\{|^\s*(?:-|\.ci/|pip |python |py )|/")
"""A code span that is not code of a page: a value, a command line, an option, a path."""


def code_spans(text: str) -> list[str]:
    """The code spans of a line of prose, as written between their backticks."""
    return [m[2].strip() for m in SPAN.finditer(text) if m[2].strip()]


def is_code(span: str) -> bool:
    """Whether a code span names code (an identifier, a call, an argument, an index ``[:, :, 0]``), not a value,
    path or command."""
    return bool(re.search(r"[A-Za-z_]|\[[^\]]*:", span)) and not NOT_CODE.search(span)  # a name, or a slice


def links(page: Page) -> set[str]:
    text = "\n".join(line for _, line in page.prose)
    return {m["target"] for m in _LINK.finditer(text)} | {m["target"] for m in _REF.finditer(text)}


def _comparable(fence: Fence, where: str) -> object:
    if fence.lang == "figure":
        return ("figure", figure_code(figure_spec(fence, where)))
    return (fence.marker[0], fence.info, fence.body.strip())


def translation_problems(original: Page, translated: Page) -> list[str]:
    """Everything in a translated page that is not text, or not the Japanese page's own code, one line each."""
    path, problems = translated.path, []
    if translated.prose and translated.prose[0][0] == 1 and FRONT_MATTER.match(translated.prose[0][1]):
        problems.append(f"{path}:1: a translation has no front matter (--- or a first line key: value): start the "
                        "page with its # title")
    ours, theirs = ([f for f in page.fences if f.lang not in TEXT_FENCES or f.options or "8<" in f.body]
                    for page in (translated, original))
    for n, fence in enumerate(ours):
        where = f"{path}:{fence.line}"
        try:
            same = n < len(theirs) and _comparable(fence, where) == _comparable(theirs[n], f"{original.path}:0")
        except ValueError as error:
            problems.append(str(error))
            continue
        if not same and n < len(theirs):
            problems.append(f"{where}: this code block must be the Japanese page's block at "
                            f"{original.path}:{theirs[n].line}, as it is there (copy it unchanged: its comments "
                            f"and printed strings are translated in {'/'.join(path.split('/')[:2])}/strings.yml, a "
                            "figure's text here)")
        elif not same:
            problems.append(f"{where}: the Japanese page has no such code block: remove it (a translation copies "
                            "the Japanese page's code blocks and adds none)")
    if len(ours) < len(theirs):
        missing = theirs[len(ours)]
        problems.append(f"{path}: the code block of {original.path}:{missing.line} is missing (copy every code "
                        "block of the Japanese page, in order)")
    prose = {line for line, _ in translated.prose}  # an include inside a fence is the fence's (compared above)
    outside = [text for line, text in original.includes if line in {n for n, _ in original.prose}]
    problems += [f"{path}:{line}: a translation includes nothing: remove {text!r}"
                 for line, text in translated.includes if line in prose and text not in outside]
    known = {expr for _, expr in original.values}
    problems += [f"{path}:{line}: {{{{ {expr} }}}} is not a value of {original.path}: copy the value as it is "
                 "written there" for line, expr in translated.values if expr not in known]
    texts = [*translated.prose, *((f.line + k, row) for f in translated.fences
                                  for k, row in enumerate(f.body.splitlines(), 1))]
    problems += [f"{path}:{line}: an invisible character, {mark}, that changes how the text around it is read: "
                 "remove it" for line, text in texts if (mark := invisible(text))]
    for line, text in translated.prose:
        text = VALUE.sub("", re.sub(r"(?<![\\`])(`+)(?!`)(.+?)(?<!`)\1(?!`)", "", text))  # code spans, values aside:
        # a backslash-escaped backtick opens no code span (Python-Markdown's reading), so what follows it is read
        if _HTML.search(text):
            problems.append(f"{path}:{line}: HTML is not allowed in a translation (write text and Markdown; "
                            "to show a < write it in `code` or as &lt;)")
        if _ATTRS.search(text):
            problems.append(f"{path}:{line}: attribute lists ({{: …}}) are not allowed in a translation")
    brackets = [sum(text.count("[") for _, text in page.prose) for page in (original, translated)]
    if brackets[1] > 2 * brackets[0] + 50:  # Python-Markdown reads a run of [ in a time its square (30 KB: minutes)
        problems.append(f"{path}: {brackets[1]} [ in its prose, against {brackets[0]} in {original.path}: a "
                        "translation links what the Japanese page links; write other brackets as `[` or （）")
    for target in sorted(links(translated) - links(original)):
        if not target.startswith("https://"):
            line = next((n for n, text in translated.prose if target in text), 0)
            problems.append(f"{path}:{line}: link target {target!r} is not one of {original.path}'s: link the "
                            "same pages (relative .md paths) or an https:// address")
    return problems

