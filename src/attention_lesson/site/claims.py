"""Numbers the prose states, taken from the run whose output the same page shows.

A page writes ``{{ measured.std_256 }}`` where the lesson states a measured value. Each name below is computed
from the names a session of that page defined (the listing's own variables), after the page's blocks ran, and
stored with the run (:meth:`attention_lesson.site.runner.Runner.values`); :func:`fill` puts them in the page.
So the sentence cannot drift from the table above it, no snippet runs a second time, and every language quotes
the same run. Claims that stay words ("月 takes half") are checked by tests/test_claims.py against the same
build.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.exceptions import PluginError

if TYPE_CHECKING:
    from attention_lesson.site.runner import Runner


def _scaling(ns: dict[str, Any]) -> dict[str, str]:
    rows = ns["rows"]  # snippets/scaling.py: {d: (dot_std, unscaled, scaled)}
    unscaled = [row[1] for row in rows.values()]
    return {
        "std_256": f"{rows[256][0]:.1f}",
        "max_unscaled_low": f"{min(unscaled):.2f}",
        "max_unscaled_high": f"{max(unscaled):.2f}",
    }


def _head(ns: dict[str, Any]) -> dict[str, str]:
    diff = (ns["out"] - ns["expected"]).abs().max().item()
    # the decimal place where the listing and PyTorch's SDPA first differ (3.6e-07 → 7)
    return {"sdpa_digit": str(-math.floor(math.log10(diff))) if diff > 0 else "∞"}


def _cost(ns: dict[str, Any]) -> dict[str, str]:
    # snippets/cost.py: table = {T: [ms head, ms SDPA, MiB head, MiB SDPA]}, exponents = the table's last row
    table, exponents = ns["table"], ns["exponents"]
    lengths = list(table)
    times = [row[0] for row in table.values()]
    # each length is twice the one before (1000, 2000, 4000): the time of the head per doubling of T
    ratios = [after / before for before, after in zip(times, times[1:], strict=False)]
    return {
        # the T×T score table of a sequence twice as long, over the original's size
        "doubling_factor": f"{(lengths[1] / lengths[0]) ** 2:.0f}",
        "time_ratio_low": f"{min(ratios):.1f}",
        "time_ratio_high": f"{max(ratios):.1f}",
        "time_exponent_naive": f"{exponents[0]:.1f}",  # as the table's last row prints them
        "memory_exponent_naive": f"{exponents[2]:.1f}",
        "memory_exponent_sdpa": f"{exponents[3]:.1f}",
    }


SESSIONS: dict[str, Callable[[dict[str, Any]], dict[str, str]]] = {
    "scaling": _scaling,
    "head": _head,
    "cost": _cost,
}
"""Session name → the values computed from its names, for the page that runs that session."""

NAMES: dict[str, str] = {
    "std_256": "scaling", "max_unscaled_low": "scaling", "max_unscaled_high": "scaling",
    "sdpa_digit": "head",
    "doubling_factor": "cost", "memory_exponent_naive": "cost", "memory_exponent_sdpa": "cost",
    "time_ratio_low": "cost", "time_ratio_high": "cost", "time_exponent_naive": "cost",
}
"""Every name a page can quote, and the session (of that same page) it comes from."""


MEASURED = re.compile(r"\{\{\s*measured\.(\w+)\s*\}\}")


def fill(html: str, where: str, runner: Runner) -> str:
    """Replace {{ measured.name }} with the value computed from this page's run.

    A plain substitution rather than a Jinja macros plugin: only this one form is touched, so braces in code
    and prose stay as written, and an unknown name stops the build naming the page.
    """
    found: dict[str, str] = {}
    source = Path(__file__).read_bytes()  # the values are keyed on the code that computes them

    def value(match: re.Match) -> str:
        name = match[1]
        session = NAMES.get(name)
        if session is None:
            raise PluginError(f"{where}: unknown {match[0]}; known: {', '.join(sorted(NAMES))}")
        if name not in found:
            try:
                found.update(runner.values(session, SESSIONS[session], source))
            except KeyError:
                raise PluginError(f"{where}: {match[0]} is measured by the session {session!r}, "
                                  "which this page does not run") from None
        return found[name]

    return MEASURED.sub(value, html)
