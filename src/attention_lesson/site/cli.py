"""`python -m attention_lesson` / `python snippets/attention.py`: the whole lesson in a terminal.

It runs the same snippet files the site executes, in the lesson's order, under the lesson's `== N.` headings,
with comments and printed strings in the chosen language (the code the page of that language shows).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from attention_lesson.site import i18n

SECTIONS = {
    1: "averaging.py",
    2: "scoring.py",
    3: "causal_mask.py",
    4: "scaling.py",
    5: "head.py",
}
SNIPPETS = i18n.ROOT / "snippets"


def run_section(number: int) -> None:
    """Print one section's heading and run its snippet, as the lesson's script does."""
    if number not in SECTIONS:
        raise ValueError(f"unknown section {number!r}: expected one of {', '.join(map(str, SECTIONS))}")
    print(f"== {number}. {i18n.label(f'section_{number}')}")
    path = SNIPPETS / SECTIONS[number]
    code = i18n.localize_source(path.read_text(encoding="utf-8"), i18n.current_language())
    exec(compile(code, str(path), "exec"), {"__name__": "__main__", "__file__": str(path)})  # noqa: S102
    print()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not the usage block: the message says what is expected
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(
        prog="attention.py",
        description="Run the attention lesson and print what every section computes.",
    )
    parser.add_argument("--section", type=int, choices=sorted(SECTIONS), help="run only this section")
    parser.add_argument("--lang", default=None, help="language of the printed labels (default: ja)")
    args = parser.parse_args(argv)
    try:
        i18n.set_language(args.lang or i18n.current_language())
    except ValueError as error:
        parser.error(str(error))  # one line on stderr, exit code 2
    for number in [args.section] if args.section else SECTIONS:
        run_section(number)
    return 0
