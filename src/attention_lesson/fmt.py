"""Turning tensors into the text a reader sees: kept out of the snippets so they stay the lesson's code."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from attention_lesson.core import WORDS, CostPoint, ScalingRow, fitted_exponent
from attention_lesson.i18n import label
from attention_lesson.memory import MemoryPoint


def rounded(values: torch.Tensor, words: str = WORDS, digits: int = 2) -> dict[str, float]:
    """{character: value} rounded as the lesson prints it, e.g. {'床': 0.12, ...}."""
    if values.ndim != 1 or values.shape[0] != len(words):
        raise ValueError(f"expected a 1-d tensor of {len(words)} values (one per character of {words!r}), "
                         f"got shape {tuple(values.shape)}")
    return {w: round(v, digits) for w, v in zip(words, values.tolist(), strict=True)}


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown pipe table: rendered as a real table on the page, and still readable in a terminal."""
    if any(len(row) != len(headers) for row in rows):
        raise ValueError(f"every row must have {len(headers)} cells")
    cells = [[str(c) for c in headers], *[[str(c) for c in row] for row in rows]]
    lines = ["| " + " | ".join(line) + " |" for line in cells]
    lines.insert(1, "|" + "|".join(":---" if i == 0 else "---:" for i in range(len(headers))) + "|")
    return "\n".join(lines)


def scaling_table(rows: Sequence[ScalingRow]) -> str:
    """The √d table of section 4, with headers in the current language."""
    return markdown_table(
        ["d", label("dot_std"), "√d", label("max_unscaled"), label("max_scaled")],
        [[r.d, f"{r.dot_std:.2f}", f"{r.sqrt_d:.2f}", f"{r.max_weight_unscaled:.2f}", f"{r.max_weight_scaled:.2f}"]
         for r in rows],
    )


def cost_table(points: Sequence[CostPoint], memory: Sequence[MemoryPoint]) -> str:
    """Time and peak memory against T (the cost page), with the fitted exponent of each column."""
    if [p.T for p in points] != [m.T for m in memory]:
        raise ValueError("points and memory must be measured at the same lengths T")
    lengths = [p.T for p in points]
    columns = [
        [p.naive_s * 1000 for p in points],
        [p.sdpa_s * 1000 for p in points],
        [m.naive_bytes / 2**20 for m in memory],
        [m.sdpa_bytes / 2**20 for m in memory],
    ]
    rows = [[T, *(f"{col[i]:.1f}" for col in columns)] for i, T in enumerate(lengths)]
    rows.append([label("exponent"), *(f"{fitted_exponent(lengths, col):.1f}" for col in columns)])
    return markdown_table(
        ["T", label("time_naive"), label("time_sdpa"), label("memory_naive"), label("memory_sdpa")], rows
    )
