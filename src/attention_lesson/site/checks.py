"""Checks of a page's Markdown before it renders: mistakes that would publish a wrong page without a word."""

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
