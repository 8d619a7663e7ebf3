"""Checks of a page's Markdown before it renders: mistakes that would publish a wrong page, or fail in a traceback."""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

from attention_lesson.site import project

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")


def source(page: Page) -> str:
    """The page's file as an editor knows it: docs/<code>/<page>.md."""
    try:
        return Path(page.file.abs_src_path).resolve().relative_to(project.root()).as_posix()
    except (TypeError, ValueError):
        return page.file.src_uri


def check_fences(markdown: str, where: str) -> None:
    """A fence left open turns the rest of the page into code: name its line instead."""
    opened: tuple[int, str] | None = None
    for number, line in enumerate(markdown.splitlines(), 1):
        match = FENCE.match(line)
        if not match:
            continue
        fence = match["fence"]
        if opened is None:
            opened = (number, fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]) and not line.strip()[len(fence):].strip():
            opened = None
    if opened is not None:
        raise PluginError(f"{where}:{opened[0]}: the code fence opened here ({opened[1]}) is never closed; "
                          f"add a line with {opened[1]} after its code")


INCLUDE = re.compile(r'^\s*-{1,}8<-{1,}\s+"(?P<path>[^":]+)(?::[\w-]+)?"\s*$')


def check_includes(markdown: str, where: str) -> None:
    """An include of a file that is not there names the page's line and the file, in one line (pymdownx.snippets
    would raise an error of its own that MkDocs prints as a traceback)."""
    root = project.root()
    for number, line in enumerate(markdown.splitlines(), 1):
        match = INCLUDE.match(line)
        if match and not (root / match["path"]).is_file():
            raise PluginError(f"{where}:{number}: includes {match['path']}, which does not exist; restore the "
                              "file or correct the path")
