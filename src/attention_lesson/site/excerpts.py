"""Excerpts of the lesson's listings, shown without running them, in the page's language.

The exercises page shows the lines a reader changes in a page's listing: a ``python`` fence without
``exec="on"``, its lines included from snippets/ by pymdownx.snippets and the changed ones marked with
``hl_lines``. Such a fence does not run, so the runner's fence (:mod:`attention_lesson.site.runner`) leaves it
alone, and SuperFences alone would show its comments in Japanese on every page. This fence translates its
comments and printed strings as the runner does for a listing it shows (:func:`i18n.localize_source`), then
highlights it as SuperFences highlights any fence (``title``, ``hl_lines`` and the rest keep working).

It is registered after the runner's fence in mkdocs.yml, so SuperFences asks it first: it takes every python
fence that is not run and leaves a fence with ``exec="on"`` to the runner.
"""

from __future__ import annotations

import tokenize
from typing import Any

from pymdownx.superfences import highlight_validator

from attention_lesson.site import i18n
from attention_lesson.site.runner import BlockError

_RUN = {"on", "yes", "true", "1"}


def validator(language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md) -> bool:
    """A python fence that is not run: the highlighter's options (title, hl_lines, linenums) and nothing else."""
    if str(inputs.get("exec", "")).lower() in _RUN:
        return False
    return highlight_validator(language, inputs, options, attrs, md)


def formatter(source: str, language: str, css_class: str, options: dict[str, Any], md, **kwargs: Any) -> str:
    """The fence's code with its comments and printed strings in the page's language, highlighted."""
    title = options.get("title") or "a python excerpt"
    try:
        code = i18n.localize_source(source, i18n.current_language())
    except (SyntaxError, ValueError, tokenize.TokenError) as error:
        raise BlockError(f"{title}: {error}") from None
    return md.preprocessors["fenced_code_block"].highlight(
        src=code, language=language, options=options, md=md, **kwargs
    )
