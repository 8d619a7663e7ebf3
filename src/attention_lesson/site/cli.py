"""`python snippets/attention.py [--section N] [--lang CODE]`: the whole lesson in a terminal.

Its sections are the pages of mkdocs.yml's nav that show a listing (a python block with ``exec="on"`` and
``source``), in the menu's order, each under its title in the chosen language; each listing runs as the site
runs it and prints what it printed there, its printed strings in the language. Nothing here names a page.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import yaml

from attention_lesson.site import source, strings
from attention_lesson.site.lesson import SOURCE_LANG, Project
from attention_lesson.site.run import BlockError, Limits, execute


class _Parser(argparse.ArgumentParser):
    """A mistake in the arguments is one line on stderr and exit status 2 (argparse adds a usage line)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def sections(project: Project) -> list[tuple[str, list[source.Step]]]:
    """(page, the steps of its shown listings) for each page of the nav that shows a listing, in nav order."""
    # the base loader reads every scalar as text and mkdocs.yml's tags (!ENV) as plain values
    config = yaml.load((project.root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    nav = [item if isinstance(item, str) else next(iter(item.values())) for item in config.get("nav") or []]
    found = []
    for page in nav:
        if not isinstance(page, str) or not page.endswith(".md") or not (project.docs / SOURCE_LANG / page).is_file():
            continue
        scanned = project.read(SOURCE_LANG, page)
        shown = {f"{scanned.path}:{f.line}" for f in scanned.fences if f.runs and f.options.get("source")}
        steps = [step for session in source.steps(scanned, project.snippets).values() for step in session
                 if step.where in shown]
        if steps:
            found.append((page, sorted(steps, key=lambda step: int(step.where.rsplit(":", 1)[1]))))
    return found


def title(project: Project, lang: str, page: str) -> str:
    code = lang if (project.docs / lang / page).is_file() else SOURCE_LANG
    return next((line[2:].strip() for _, line in project.read(code, page).prose if line.startswith("# ")), page)


def main(argv: Sequence[str] | None = None, folder: Path | None = None) -> int:
    parser = _Parser(prog="python snippets/attention.py", description=__doc__.split("\n")[0])
    parser.add_argument("--section", type=int, help="run one section (1, 2, …)")
    parser.add_argument("--lang", default=os.environ.get("LESSON_LANG") or SOURCE_LANG, help="language code")
    args = parser.parse_args(argv)
    try:
        project = Project.find(folder or Path.cwd())
    except LookupError as error:
        parser.error(str(error))
    if args.lang not in project.languages():
        parser.error(f"--lang {args.lang}: no such language; the languages are {', '.join(project.languages())}")
    try:
        words = project.strings(args.lang)
        found = sections(project)
    except (strings.StringsError, source.SourceError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.section is not None and not 1 <= args.section <= len(found):
        parser.error(f"--section {args.section}: the lesson has sections 1 to {len(found)}")
    for number, (page, steps) in enumerate(found, 1):
        if args.section not in (None, number):
            continue
        print(f"== {number}. {title(project, args.lang, page)}")
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                results = execute(steps, Limits(seconds=0), project.snippets)
        except BlockError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        for step, result in zip(steps, results, strict=True):
            print(strings.localize_output(result["output"], strings.literals_of(step.code), words), end="")
        print()
    return 0
