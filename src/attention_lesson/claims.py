"""Numbers the prose states, measured by running the same snippet files the pages show.

A page writes ``{{ measured.std_256 }}`` where the lesson states a measured value; the site build replaces it
with the value below, so the sentence cannot drift from the code. Qualitative claims that stay words ("月 takes
half") are checked by tests/test_claims.py against the same runs.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import runpy
from typing import Any

from attention_lesson.i18n import ROOT

SNIPPETS = ROOT / "snippets"


@functools.cache
def _run(name: str, mtime: float) -> dict[str, Any]:
    with contextlib.redirect_stdout(io.StringIO()):
        return runpy.run_path(str(SNIPPETS / name), run_name="__main__")


def run_snippet(name: str) -> dict[str, Any]:
    """The globals of snippets/<name> after it ran (once per process and file version)."""
    path = SNIPPETS / name
    return _run(name, path.stat().st_mtime)


def measured() -> dict[str, str]:
    """Every value a page can quote as {{ measured.<name> }}, formatted as the page prints it."""
    rows = {r.d: r for r in run_snippet("scaling.py")["rows"]}
    head = run_snippet("head.py")
    diff = (head["out"] - head["expected"]).abs().max().item()
    unscaled = [r.max_weight_unscaled for r in rows.values()]
    return {
        "std_256": f"{rows[256].dot_std:.1f}",
        "max_unscaled_low": f"{min(unscaled):.2f}",
        "max_unscaled_high": f"{max(unscaled):.2f}",
        # the decimal place where the listing and PyTorch's SDPA first differ (3.6e-07 → 7)
        "sdpa_digit": str(-math.floor(math.log10(diff))) if diff > 0 else "∞",
        # the T×T score table of a sequence twice as long, over the original's size
        "doubling_factor": str(int(head["mask"].repeat(2, 2).numel() / head["mask"].numel())),
        **_memory_exponents(),
    }


@functools.cache
def _memory_exponents() -> dict[str, str]:
    """Slopes of peak memory against T, from the same call snippets/cost.py makes (sizes, not timings: stable)."""
    from attention_lesson.core import fitted_exponent
    from attention_lesson.memory import cost_memory

    memory = cost_memory([1000, 2000, 4000])
    lengths = [m.T for m in memory]
    return {
        "memory_exponent_naive": f"{fitted_exponent(lengths, [m.naive_bytes for m in memory]):.1f}",
        "memory_exponent_sdpa": f"{fitted_exponent(lengths, [m.sdpa_bytes for m in memory]):.1f}",
    }
