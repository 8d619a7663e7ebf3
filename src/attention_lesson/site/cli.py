"""`python -m attention_lesson` / `python snippets/attention.py`: the whole lesson in a terminal.

It runs the same snippet files the site executes, in the lesson's order, under the lesson's `== N.` headings,
with comments and printed strings in the chosen language (the code the page of that language shows). The
project is the one the command runs in: the folder of `snippets/attention.py` when run as that script, else the
nearest folder with a mkdocs.yml at or above the current one. The language is ``--lang``, else
``$LESSON_LANG``, else Japanese.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from attention_lesson.site import i18n, project, shutdown

SECTIONS = {
    1: "averaging.py",
    2: "scoring.py",
    3: "causal_mask.py",
    4: "scaling.py",
    5: "head.py",
}


def run_section(number: int, lang: str) -> None:
    """Print one section's heading and run its snippet, as the lesson's script does."""
    if number not in SECTIONS:
        raise ValueError(f"unknown section {number!r}: expected one of {', '.join(map(str, SECTIONS))}")
    print(f"== {number}. {i18n.label(f'section_{number}', lang)}")
    path = project.root() / "snippets" / SECTIONS[number]
    code = i18n.localize_source(path.read_text(encoding="utf-8"), lang)
    with i18n.language(lang):
        exec(compile(code, str(path), "exec"), {"__name__": "__main__", "__file__": str(path)})  # noqa: S102
    print()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not the usage block: the message says what is expected
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None, folder: Path | None = None) -> int:
    """Run the lesson; `folder`: a folder of the project (default: the current one)."""
    parser = _Parser(
        prog="attention.py",
        description="Run the attention lesson and print what every section computes.",
    )
    parser.add_argument("--section", type=int, choices=sorted(SECTIONS), help="run only this section")
    parser.add_argument("--lang", default=None, help="language of the printed labels (default: $LESSON_LANG, else ja)")
    args = parser.parse_args(argv)
    lang = args.lang if args.lang is not None else os.environ.get("LESSON_LANG") or project.DEFAULT_LANG
    try:
        root = project.find(folder)
    except project.ProjectNotFound as error:
        parser.error(str(error))
    shutdown.skip_final_collections()  # the terminal run exits 0.7 CPU-s sooner
    with project.building(root):
        if not lang.strip():
            parser.error(f"--lang needs a language code: one of {', '.join(i18n.languages())}")
        try:
            i18n.check_language(lang)
        except ValueError as error:
            parser.error(str(error))  # one line on stderr, exit code 2
        for number in [args.section] if args.section else SECTIONS:
            run_section(number, lang)
    return 0
