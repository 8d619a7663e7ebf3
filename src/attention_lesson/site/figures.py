"""The lesson's figures as inline SVG, drawn at every build from the same numbers the snippets print.

Each ``*_svg`` function takes the values a snippet computed (the snippet's own variables, so a figure cannot
disagree with the output printed above it) and returns an ``<svg>`` element for a markdown-exec block with
``html="1"`` to print, e.g.::

    from attention_lesson.site.figures import figure_html, heatmap_svg
    print(figure_html(heatmap_svg(weights, "avg"), caption))

Every piece of text comes from the ``ui`` table of the page's language (``fig_*`` keys in
``docs/<code>/strings.yml``, falling back to Japanese). The SVG keeps its text as ``<text>`` elements, so the
reader's browser draws the characters with its own fonts: no font file is shipped, and the figure takes the
page's font. Text, axes and ticks are drawn in ``currentColor`` and the background is transparent, so one SVG
reads on the light and on the dark palette; the data colours have a contrast of at least 3:1 against both
white and the dark palette's #1e2129. The output is byte-identical from one build to the next.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import math
import numbers
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Literal

import matplotlib
import torch
from matplotlib.colors import LinearSegmentedColormap, to_hex, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from attention_lesson.site.i18n import ui

WORDS = "床前明月光"
"""The five characters of the lesson's running example (a line of a poem, the same in every language)."""

# Drawn in this colour, then written as currentColor: a colour no data series uses, so the replacement
# touches only text, spines, ticks and grid lines.
_INK = "#010203"
_GRID = to_rgba(_INK, 0.3)
# Data colours: relative luminance between 0.15 and 0.30, i.e. a contrast of at least 3:1 against both white
# and the dark palette's #1e2129 (the test checks it).
BLUE = "#3b82f6"
ORANGE = "#e06c00"
GREY = "#8a8f98"
PURPLE = "#a855f7"
PALETTE = (BLUE, ORANGE, GREY, PURPLE)
# The heatmap's cells are opaque, so their text is coloured against the cell, not against the page.
_HEAT = LinearSegmentedColormap.from_list("lesson_weights", ["#e3e8fa", "#7986cb", "#1a237e"])
_DARK_TEXT = "#111322"
_LIGHT_TEXT = "#ffffff"

_PX_PER_INCH = 96
_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "attention-lesson",
    "svg.image_inline": True,
    "font.family": "sans-serif",
    # Only matplotlib's bundled font measures the text, so the layout does not depend on the fonts installed
    # where the site is built; the browser draws the text with the page's fonts.
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 9.5,
    "legend.fontsize": 9.5,
    "legend.frameon": False,
    "text.color": _INK,
    "text.parse_math": False,
    "axes.edgecolor": _INK,
    "axes.labelcolor": _INK,
    "axes.titlecolor": _INK,
    "xtick.color": _INK,
    "ytick.color": _INK,
    "grid.color": _INK,
    "grid.alpha": 0.15,
    "axes.facecolor": "none",
    "figure.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.edgecolor": "none",
    "savefig.transparent": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 2.0,
    "lines.markersize": 6,
    "path.simplify": True,
}


@contextmanager
def _style() -> Iterator[None]:
    """The figure style, and no warning for the CJK glyphs matplotlib's own font lacks (it only measures)."""
    with matplotlib.rc_context(_RC), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
        yield


def _values(name: str, value: object, ndim: int) -> list:
    """A torch.Tensor or nested list as nested Python floats, checked to have `ndim` dimensions."""
    if isinstance(value, torch.Tensor):
        if value.ndim != ndim:
            raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(value.shape)}")
        data = value.detach().cpu().double().tolist()
    elif isinstance(value, Sequence) and not isinstance(value, str):
        if ndim == 1:
            data = list(value)
        else:
            if not all(isinstance(row, Sequence) and not isinstance(row, str) for row in value):
                raise ValueError(f"{name} must be a {ndim}-d tensor or a list of lists of numbers")
            data = [list(row) for row in value]
            if len({len(row) for row in data}) > 1:
                raise ValueError(f"{name}: rows have different lengths {[len(row) for row in data]}")
    else:
        raise TypeError(f"{name} must be a torch.Tensor or a nested list, got {type(value).__name__}")
    flat = data if ndim == 1 else [v for row in data for v in row]
    for v in flat:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ValueError(f"{name} must hold numbers, got {v!r}")
        if not math.isfinite(v):
            raise ValueError(f"{name} must hold finite numbers, got {v!r}")
    if ndim == 1:
        return [float(v) for v in data]
    return [[float(v) for v in row] for row in data]


def _labels(labels: str | Sequence[str]) -> list[str]:
    out = list(labels)
    if not out or not all(isinstance(label, str) for label in out):
        raise ValueError(f"labels must be a non-empty string or list of strings, got {labels!r}")
    return out


def _cell_text(value: float, digits: int = 2) -> str:
    """A value as written in a heatmap cell or above a bar: rounded to `digits`, never "-0.00"."""
    return f"{round(value, digits) + 0.0:.{digits}f}"


def _luminance(colour: str) -> float:
    """WCAG relative luminance of a #rrggbb colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# ---------------------------------------------------------------------------------------------- the figures


HeatmapKind = Literal["avg", "causal", "head"]
_HEAT_BOX = (0.56, 0.8, 0.3, 0.12, 0.85)
"""A heatmap's cell, left, right, bottom and top margins, in inches (the pointer's rows are placed by them)."""


def heatmap_svg(
    weights: torch.Tensor | Sequence[Sequence[float]],
    kind: HeatmapKind = "avg",
    labels: str | Sequence[str] = WORDS,
    *,
    vmin: float = 0.0,
    vmax: float = 1.0,
) -> str:
    """A T×T weight matrix as a heatmap, each cell showing its value rounded to 2 decimals.

    Rows are the position that looks (the query), columns the position looked at (the key), both labelled
    with `labels` (the characters 床前明月光). `kind` picks the title and alt text: "avg" (section 1's
    averaging weights), "causal" (section 3's masked weights) or "head" (section 5's head). A weight of
    exactly 0 (a position that may not be looked at) is left as an empty cell. The colour scale is fixed at
    vmin..vmax, so the sections' figures can be compared.
    """
    if kind not in ("avg", "causal", "head"):
        raise ValueError(f"kind must be 'avg', 'causal' or 'head', got {kind!r}")
    matrix = _values("weights", weights, 2)
    names = _labels(labels)
    T = len(matrix)
    if T == 0 or any(len(row) != T for row in matrix):
        raise ValueError(f"weights must be a square T×T matrix, got {T}×{len(matrix[0]) if matrix else 0}")
    if T != len(names):
        raise ValueError(f"weights is {T}×{T} but there are {len(names)} labels {names!r}: T must equal len(labels)")
    if not vmax > vmin:
        raise ValueError(f"vmax must be greater than vmin, got {vmin!r} and {vmax!r}")

    with _style():
        cell, left, right, bottom, top = _HEAT_BOX
        width, height = left + cell * T + right, bottom + cell * T + top
        fig = Figure(figsize=(width, height))
        ax = fig.add_axes((left / width, bottom / height, cell * T / width, cell * T / height))
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                if value == 0:
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor="none", edgecolor=_GRID, lw=0.6))
                    ax.text(j + 0.5, i + 0.5, _cell_text(value), ha="center", va="center", fontsize=9,
                            color=_INK, alpha=0.5)
                    continue
                colour = to_hex(_HEAT(min(max((value - vmin) / (vmax - vmin), 0.0), 1.0)))
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor=colour, edgecolor=_GRID, lw=0.6))
                text = _LIGHT_TEXT if contrast(colour, _LIGHT_TEXT) >= contrast(colour, _DARK_TEXT) else _DARK_TEXT
                ax.text(j + 0.5, i + 0.5, _cell_text(value), ha="center", va="center", fontsize=9.5, color=text)
        ax.set_xlim(0, T)
        ax.set_ylim(T, 0)
        ax.set_aspect("equal")
        ticks = [i + 0.5 for i in range(T)]
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.set_xticklabels(names, fontsize=12)
        ax.set_yticklabels(names, fontsize=12)
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.tick_params(length=0, pad=4)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel(ui("fig_axis_key"), labelpad=6)
        ax.set_ylabel(ui("fig_axis_query"), labelpad=6)
        fig.suptitle(ui(f"fig_{kind}_title"), x=(left + cell * T / 2) / width, y=1 - 0.06 / height, va="top",
                     fontsize=11)
        return _render(fig, ui(f"fig_{kind}_alt"), f"heatmap-{kind}")


def scores_svg(
    scores: torch.Tensor | Sequence[float],
    weights: torch.Tensor | Sequence[float],
    weights_x5: torch.Tensor | Sequence[float],
    labels: str | Sequence[str] = WORDS,
) -> str:
    """Section 2 as three bar panels: the scores of 光 against each character, softmax of them, and softmax
    of the scores ×5 (the two weight panels share their y axis, so the sharpening shows)."""
    names = _labels(labels)
    series = []
    for name, value in (("scores", scores), ("weights", weights), ("weights_x5", weights_x5)):
        values = _values(name, value, 1)
        if len(values) != len(names):
            raise ValueError(f"{name} has {len(values)} values but there are {len(names)} labels {names!r}")
        series.append(values)

    with _style():
        # The values are written on the bars, so there is no y axis: the room goes to larger text, which
        # matters when the figure is scaled down to a phone's width.
        fig = Figure(figsize=(6.3, 2.7))
        axes = fig.subplots(1, 3, gridspec_kw={"wspace": 0.12, "left": 0.01, "right": 0.99, "top": 0.76,
                                               "bottom": 0.1})
        top = max(max(series[1]), max(series[2]))
        titles = (ui("fig_scores_panel_scores"), ui("fig_scores_panel_softmax"), ui("fig_scores_panel_x5"))
        colours = (GREY, BLUE, ORANGE)
        xs = range(len(names))
        for ax, values, title, colour in zip(axes, series, titles, colours, strict=True):
            ax.bar(xs, values, color=colour, width=0.72)
            for x, v in zip(xs, values, strict=True):
                ax.annotate(_cell_text(v), (x, v), xytext=(0, 2 if v >= 0 else -2), textcoords="offset points",
                            ha="center", va="bottom" if v >= 0 else "top", fontsize=9.5)
            ax.set_title(title, pad=6)
            ax.set_xticks(list(xs), names, fontsize=12)
            ax.tick_params(axis="x", length=0, pad=3)
            ax.yaxis.set_visible(False)
            ax.spines["left"].set_visible(False)
            ax.axhline(0, color=_INK, lw=0.8)
            ax.spines["bottom"].set_visible(False)
            ax.set_xlim(-0.6, len(names) - 0.4)
        low = min(0.0, min(series[0]))
        axes[0].set_ylim(low * 1.25, max(max(series[0]), 0.0) * 1.2 or 1.0)
        for ax in axes[1:]:
            ax.set_ylim(0, top * 1.2)
        fig.suptitle(ui("fig_scores_title"), y=0.97, va="top", fontsize=11)
        return _render(fig, ui("fig_scores_alt"), "scores")


def _table(name: str, value: object, columns: int) -> dict[int, list[float]]:
    """A listing's table, {length: [value per column]}, checked: a figure fails naming what it was given."""
    if not isinstance(value, dict) or len(value) < 2:
        raise ValueError(f"{name} must be a dict of at least two rows {{length: [values]}}, got {value!r:.80}")
    for key, row in value.items():
        if not isinstance(key, int) or key <= 0 or len(_values(f"{name}[{key}]", list(row), 1)) != columns:
            raise ValueError(f"{name}[{key!r}] must be {columns} numbers for a positive length, got {row!r:.80}")
    return {key: [float(v) for v in row] for key, row in sorted(value.items())}


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of log y against log x: 2 means y grows as x². For the lesson's lengths, each twice
    the one before, it equals the listing's own ``log(last / first) / log(4)``."""
    if len(xs) != len(ys) or len(xs) < 2 or min(*xs, *ys) <= 0:
        raise ValueError("a slope needs at least two positive (x, y) pairs of equal count")
    lx, ly = [math.log(v) for v in xs], [math.log(v) for v in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly, strict=True)) / sum((x - mx) ** 2 for x in lx)


def scaling_svg(rows: dict[int, Sequence[float]]) -> str:
    """Section 4's √d study (snippets/scaling.py's ``rows``, {d: (dot_std, unscaled, scaled)}): the std of the
    dot products next to √d, and the mean largest weight of a row with and without dividing by √d, against d
    on a log₂ axis."""
    table = _table("rows", rows, 3)
    ds = list(table)
    stds, unscaled, scaled = ([row[i] for row in table.values()] for i in range(3))
    roots = [math.sqrt(d) for d in ds]

    with _style():
        fig = Figure(figsize=(7.2, 3.1))
        left, right = fig.subplots(1, 2, gridspec_kw={"wspace": 0.28, "left": 0.08, "right": 0.98, "top": 0.8,
                                                      "bottom": 0.16})
        left.plot(ds, stds, "o-", color=BLUE, label=ui("fig_scaling_measured"))
        left.plot(ds, roots, "--", color=GREY, label="√d", lw=1.6)
        left.set_title(ui("fig_scaling_std_title"), pad=8)
        left.set_ylim(0, max(*stds, *roots) * 1.12)
        right.plot(ds, unscaled, "o-", color=ORANGE, label=ui("fig_scaling_unscaled"))
        right.plot(ds, scaled, "s-", color=BLUE, label=ui("fig_scaling_scaled"))
        right.set_title(ui("fig_scaling_max_title"), pad=8)
        right.set_ylim(0, 1.05)
        for ax in (left, right):
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_locator(FixedLocator(ds))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.set_xlabel(ui("fig_axis_d"))
            ax.grid(True, lw=0.6)
            ax.set_axisbelow(True)
            ax.legend(loc="upper left" if ax is left else "lower right", handlelength=1.8)
        fig.suptitle(ui("fig_scaling_title"), y=0.97, va="top", fontsize=11)
        return _render(fig, ui("fig_scaling_alt"), "scaling")


def _loglog(ax, xs: Sequence[float]) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(list(xs)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, lw=0.6)
    ax.set_axisbelow(True)


def _series_figure(
    xs: Sequence[int],
    lines: Sequence[tuple[str, Sequence[float], str, str]],
    title: str,
    ylabel: str,
    alt: str,
    name: str,
) -> str:
    """A log-log plot of several series against T, each legend entry ending in its fitted slope."""
    with _style():
        fig = Figure(figsize=(6.4, 3.6))
        ax = fig.add_axes((0.12, 0.14, 0.84, 0.7))
        for key, ys, colour, marker in lines:
            ax.plot(xs, ys, marker + "-", color=colour, label=ui(key).format(slope=slope(xs, ys)))
        _loglog(ax, xs)
        low = min(min(ys) for _, ys, _, _ in lines)
        high = max(max(ys) for _, ys, _, _ in lines)
        ax.set_ylim(low / 1.6, high * 1.6)
        ax.set_xlim(min(xs) / 1.25, max(xs) * 1.25)
        ax.set_xlabel(ui("fig_axis_T"))
        ax.set_ylabel(ylabel)
        ax.legend(loc="upper left", handlelength=1.8)
        fig.suptitle(title, y=0.97, va="top", fontsize=11)
        return _render(fig, alt, name)


COST_COLUMNS = 4
"""snippets/cost.py's ``table``: {T: [ms of the head, ms of SDPA, MiB of the head, MiB of SDPA]}."""


def _cost_lines(table: dict, first: int, what: str) -> tuple[list[int], list[tuple[str, list[float], str, str]]]:
    rows = _table("table", table, COST_COLUMNS)
    if any(row[i] <= 0 for row in rows.values() for i in (first, first + 1)):
        raise ValueError(f"every {what} must be positive to be drawn on a log axis")
    return list(rows), [("fig_legend_naive", [row[first] for row in rows.values()], ORANGE, "o"),
                        ("fig_legend_sdpa", [row[first + 1] for row in rows.values()], BLUE, "s")]


def cost_svg(table: dict) -> str:
    """The cost page's timing: milliseconds per forward pass against T on log-log axes, for the lesson's head
    and for SDPA, each legend with its slope."""
    xs, lines = _cost_lines(table, 0, "time")
    alt = ui("fig_cost_alt").format(naive=slope(xs, lines[0][1]), sdpa=slope(xs, lines[1][1]))
    return _series_figure(xs, lines, ui("fig_cost_title"), ui("fig_axis_time"), alt, "cost")


def memory_svg(table: dict) -> str:
    """The cost page's peak memory of one forward pass against T on log-log axes, for the lesson's head and
    for SDPA."""
    xs, lines = _cost_lines(table, 2, "peak")
    alt = ui("fig_memory_alt").format(naive=slope(xs, lines[0][1]), sdpa=slope(xs, lines[1][1]))
    return _series_figure(xs, lines, ui("fig_memory_title"), ui("fig_axis_memory"), alt, "memory")


def figure_html(svg: str, caption: str) -> str:
    """An SVG from this module in ``<figure class="lesson-figure">`` with `caption` (plain text, escaped)."""
    if not svg.lstrip().startswith("<svg"):
        raise ValueError("svg must be an <svg> element (the output of one of the *_svg functions)")
    return (
        f'<figure class="lesson-figure">\n{svg}\n'
        f"<figcaption>{html.escape(caption, quote=False)}</figcaption>\n</figure>"
    )


# ------------------------------------------------------------------------------------------- SVG clean-up


def _render(fig: Figure, alt: str, name: str) -> str:
    """Save `fig` as SVG and make it an element to inline: no prolog, currentColor ink, scoped ids, alt text."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, flags=re.S)
    # matplotlib's `*{stroke-linejoin…}` rule would apply to the whole page once inlined: move it to the root.
    svg = re.sub(r"\s*<defs>\s*<style[^>]*>.*?</style>\s*</defs>", "", svg, flags=re.S)
    svg = svg.replace(_INK, "currentColor")
    # No font-family: the text takes the page's font, and the browser picks the glyphs for 床前明月光.
    svg = re.sub(r"font-family: [^;\"]*;?\s*", "", svg)
    svg = re.sub(r"\s*\n\s*", "\n", svg)
    svg = re.sub(r'd="([^"]*)"', lambda m: 'd="' + " ".join(m.group(1).split()) + '"', svg)
    svg = _scope_ids(svg, name)

    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    max_width = round(width / 72 * _PX_PER_INCH)
    label = html.escape(" ".join(alt.split()), quote=True)
    root = (
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'viewBox="0 0 {width:g} {height:g}" width="100%" role="img" aria-label="{label}" '
        f'class="lesson-figure-svg" style="max-width: {max_width}px; height: auto; display: block; margin: 0 auto" '
        f'stroke-linejoin="round" stroke-linecap="butt">\n<title>{label}</title>'
    )
    svg = re.sub(r"<svg [^>]*>", lambda _: root, svg, count=1)
    return svg.strip()


def _scope_ids(svg: str, name: str) -> str:
    """Drop the ids nothing refers to and prefix the others with the figure's name and a content hash.

    matplotlib names its groups figure_1, axes_1…, the same in every figure: several figures inlined in one
    page would repeat them, and a url(#…) could point into another figure.
    """
    referenced = set(re.findall(r'url\(#([^)]+)\)', svg)) | set(re.findall(r'href="#([^"]+)"', svg))
    prefix = f"lf-{name}-{hashlib.sha1(svg.encode()).hexdigest()[:6]}-"

    def rename(match: re.Match) -> str:
        ident = match.group(1)
        return f' id="{prefix}{ident}"' if ident in referenced else ""

    svg = re.sub(r' id="([^"]+)"', rename, svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', svg)


def figure(kind: str, *data: object) -> str:
    """A page's figure as ``<figure>`` HTML with its caption in the current language.

    kind: "avg", "causal" or "head" (a weight matrix, whose rows answer a pointer on the page: see
    :func:`_heatmap_figure`), "scores" (scores, weights, weights ×5), "scaling" (snippets/scaling.py's
    ``rows``), "cost" or "memory" (snippets/cost.py's ``table``). Section 2's explorer is
    :func:`query_explorer`.
    """
    if kind in ("avg", "causal", "head"):
        return _heatmap_figure(data[0], kind)
    if kind in ("scores", "scaling", "cost", "memory"):
        svg = {"scores": scores_svg, "scaling": scaling_svg, "cost": cost_svg, "memory": memory_svg}[kind](*data)
    else:
        raise ValueError(f"unknown figure {kind!r}: expected avg, causal, head, scores, scaling, cost or memory")
    caption = re.search(r'aria-label="([^"]*)"', svg)
    return figure_html(svg, html.unescape(caption[1]) if caption else "")


# ------------------------------------------------------------------------- what the pages' script makes live
#
# theme/assets/javascripts/lesson.js reads the data attributes written here. Every number and every word it
# shows comes from them (the listings' own tensors, the page's language): the script holds no lesson data.


def _json(value: object) -> str:
    """A value as a JSON data attribute's text (escaped for a double-quoted attribute)."""
    return html.escape(json.dumps(value, ensure_ascii=False, separators=(",", ":")), quote=True)


def _heatmap_figure(weights: object, kind: HeatmapKind, labels: str | Sequence[str] = WORDS) -> str:
    """A heatmap as a page shows it: the figure of :func:`heatmap_svg`, whose rows answer a pointer or the
    keyboard with the characters that row attends to and their weights (the numbers of its cells).

    The figure is the same without JavaScript; the script adds one transparent button over each row.
    """
    svg = heatmap_svg(weights, kind, labels)
    matrix, names = _values("weights", weights, 2), _labels(labels)
    cell, left, right, bottom, top = _HEAT_BOX
    T = len(names)
    width, height = left + cell * T + right, bottom + cell * T + top
    reach = 0.28  # the row's button also covers its label, left of the cells (not the axis title)
    data = {
        "labels": names,
        "weights": [[_cell_text(v) if v != 0 else None for v in row] for row in matrix],  # None: masked
        # The rows' box in % of the figure: left, top, width, height of one row.
        "box": [round(100 * (left - reach) / width, 3), round(100 * top / height, 3),
                round(100 * (reach + cell * T) / width, 3), round(100 * cell / height, 3)],
        "cells": [round(100 * left / width, 3), round(100 * cell / width, 3)],  # the first's left, a cell's width
        "text": {name: ui(f"heat_{name}") for name in ("hint", "row", "masked")} | {"sep": ui("list_sep")},
    }
    max_width = re.search(r"max-width: (\d+)px", svg)[1]
    caption = html.unescape(re.search(r'aria-label="([^"]*)"', svg)[1])
    return (
        f'<figure class="lesson-figure lesson-heat" data-heat="{_json(data)}">\n'
        f'<div class="lesson-heat__plot" style="max-width: {max_width}px">\n{svg}\n</div>\n'
        f'<p class="lesson-heat__readout"></p>\n'
        f"<figcaption>{html.escape(caption, quote=False)}</figcaption>\n</figure>"
    )


SLIDER_SCALES = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0)
"""The multipliers of the explorer's slider (scores × multiplier before softmax): 1 and 5 are the listing's."""
QUERY_RANGE = (-0.5, 1.2)
"""Where the reader can move the explorer's query, in each coordinate (the plane shows a little more)."""
QUERY_STEP = 0.05
"""The grid a dragged query snaps to, and one arrow key's move (Shift: five)."""

_PLANE = 300  # the plane's viewBox is _PLANE × _PLANE; it shows x and y from -0.6 to 1.4
_UNIT = 150  # viewBox units per unit of the vectors
_ORIGIN = (90, 210)  # where [0, 0] is
_KEY_HEAD = (8, 8)  # an arrowhead's length and width, viewBox units
_QUERY_HEAD = (13, 13)


def _pt(x: float, y: float) -> tuple[float, float]:
    return _ORIGIN[0] + _UNIT * x, _ORIGIN[1] - _UNIT * y


def _f(v: float) -> str:
    return f"{round(v, 1) + 0.0:g}"


def _arrow(x: float, y: float, head: tuple[float, float]) -> tuple[str, str]:
    """The shaft's end (x2, y2 attributes) and the head's points of an arrow from [0, 0] to [x, y]. The
    script draws the query's the same way (lesson.js, arrow())."""
    tx, ty = _pt(x, y)
    dx, dy = tx - _ORIGIN[0], ty - _ORIGIN[1]
    n = math.hypot(dx, dy)
    if n < head[0]:  # too short to have a head
        return f'x2="{_f(tx)}" y2="{_f(ty)}"', ""
    ux, uy, w = dx / n, dy / n, head[1] / 2
    bx, by = tx - ux * head[0], ty - uy * head[0]
    points = f"{_f(tx)},{_f(ty)} {_f(bx - uy * w)},{_f(by + ux * w)} {_f(bx + uy * w)},{_f(by - ux * w)}"
    return f'x2="{_f(bx)}" y2="{_f(by)}"', points


def _drawing(keys: list[list[float]], query: list[float]) -> dict[str, object]:
    """Where everything that follows the query is drawn for `query` (the script recomputes the same)."""
    qx, qy = query
    nq = math.hypot(qx, qy)
    ux, uy = (qx / nq, qy / nq) if nq else (0.0, 0.0)
    feet = [_pt(ux * (kx * ux + ky * uy), uy * (kx * ux + ky * uy)) for kx, ky in keys]
    # The query's label: beside the middle of its arrow, on the side away from the keys.
    mx, my = (sum(kx for kx, _ in keys), sum(ky for _, ky in keys))
    side = -1.0 if (-uy * mx + ux * my) > 0 else 1.0
    label = _pt(qx / 2 - side * uy * 0.09, qy / 2 + side * ux * 0.09)
    return {"feet": feet, "line": (_pt(-3 * ux, -3 * uy), _pt(3 * ux, 3 * uy)), "label": label, "shown": nq > 0}


def _plane_svg(keys: list[list[float]], query: list[float], labels: list[str], ident: str) -> str:
    x0, y0 = _ORIGIN
    lo, hi = -0.6, 1.4
    grid = "".join(
        f'<line x1="{_f(_pt(v, 0)[0])}" y1="0" x2="{_f(_pt(v, 0)[0])}" y2="{_PLANE}"/>'
        f'<line x1="0" y1="{_f(_pt(0, v)[1])}" x2="{_PLANE}" y2="{_f(_pt(0, v)[1])}"/>'
        for v in (-0.5, 0.5, 1.0)
    )
    ticks = (  # 1 on each axis; the grid lines are at every 0.5
        f'<text x="{_f(_pt(1, 0)[0])}" y="{y0 + 24}" text-anchor="middle">1</text>'
        f'<text x="{x0 - 5}" y="{_f(_pt(0, 1)[1] + 4)}" text-anchor="end">1</text>'
    )
    axes = (
        f'<line x1="{_f(_pt(lo, 0)[0])}" y1="{y0}" x2="{_f(_pt(hi, 0)[0])}" y2="{y0}"/>'
        f'<line x1="{x0}" y1="{_f(_pt(0, lo)[1])}" x2="{x0}" y2="{_f(_pt(0, hi)[1])}"/>'
    )
    names = (
        f'<text x="{_PLANE - 4}" y="{y0 + 40}" text-anchor="end">{html.escape(ui("qk_axis_x"))} →</text>'
        f'<text x="{x0 + 6}" y="14">↑ {html.escape(ui("qk_axis_y"))}</text>'
    )
    at = _drawing(keys, query)
    (l1, l2), (lx, ly) = at["line"], at["label"]
    drops = "".join(
        f'<line class="lesson-qk__drop" x1="{_f(_pt(kx, ky)[0])}" y1="{_f(_pt(kx, ky)[1])}" '
        f'x2="{_f(fx)}" y2="{_f(fy)}"/><circle class="lesson-qk__foot" cx="{_f(fx)}" cy="{_f(fy)}" r="2.5"/>'
        for (kx, ky), (fx, fy) in zip(keys, at["feet"], strict=True)
    )
    shaft, points = _arrow(*query, _QUERY_HEAD)
    arrows = []
    for (kx, ky), name in zip(keys, labels, strict=True):
        end, head = _arrow(kx, ky, _KEY_HEAD)
        n = math.hypot(kx, ky) or 1.0
        tx, ty = _pt(kx + kx / n * 0.11, ky + ky / n * 0.11)  # the label, just past the tip
        arrows.append(
            f'<line x1="{x0}" y1="{y0}" {end}/><polygon points="{head}"/>'
            f'<text x="{_f(tx)}" y="{_f(ty)}" dy="0.35em" text-anchor="middle" stroke="none" fill="currentColor">'
            f"{html.escape(name)}</text>"
        )
    hx, hy = _pt(*query)
    hidden = "" if at["shown"] else ' visibility="hidden"'
    return (
        f'<svg class="lesson-qk__plane" viewBox="0 0 {_PLANE} {_PLANE}" xmlns="http://www.w3.org/2000/svg" '
        f'role="group" aria-label="{html.escape(ui("qk_plane_alt"))}">\n'
        f'<g aria-hidden="true" font-size="11">\n'
        f'<g stroke="currentColor" stroke-opacity="0.14">{grid}</g>\n'
        f'<g stroke="currentColor" stroke-opacity="0.55">{axes}</g>\n'
        f'<g fill="currentColor" fill-opacity="0.75">{ticks}{names}</g>\n'
        f'<g class="lesson-qk__shadow"{hidden}><line class="lesson-qk__line" x1="{_f(l1[0])}" y1="{_f(l1[1])}" '
        f'x2="{_f(l2[0])}" y2="{_f(l2[1])}"/>{drops}</g>\n'
        f'<g class="lesson-qk__query" stroke="{ORANGE}" fill="{ORANGE}"><line x1="{x0}" y1="{y0}" {shaft} '
        f'stroke-width="5"/><polygon points="{points}" stroke="none"/></g>\n'
        f'<g class="lesson-qk__keys" stroke="{BLUE}" fill="{BLUE}" stroke-width="2" font-size="15">'
        f'{"".join(arrows)}</g>\n'
        f'<text class="lesson-qk__qlabel" x="{_f(lx)}" y="{_f(ly)}" dy="0.35em" text-anchor="middle" '
        f'font-size="15" font-style="italic" fill="currentColor">q</text>\n'
        f"</g>\n"
        f'<g class="lesson-qk__handle" transform="translate({_f(hx)} {_f(hy)})" role="slider" '
        f'aria-label="{html.escape(ui("qk_handle"))}" aria-valuemin="{QUERY_RANGE[0]:g}" '
        f'aria-valuemax="{QUERY_RANGE[1]:g}" aria-valuenow="{query[0]:g}" '
        f'aria-valuetext="{_q_text(query)}" aria-describedby="{ident}-live">'
        f'<circle r="22" fill="transparent"/><circle class="lesson-qk__ring" r="14" fill="none"/>'
        f'<circle r="8" fill="none" stroke="{ORANGE}" stroke-width="2.5"/></g>\n</svg>'
    )


def _q_text(query: Sequence[float]) -> str:
    return f"q = [{_cell_text(query[0])}, {_cell_text(query[1])}]"


def _bar_style(value: float, low: float, high: float) -> str:
    """A bar's left and width in % of its track, whose ends are the values low and high (0 inside)."""
    zero, at = (-low) / (high - low), (value - low) / (high - low)
    return f"left:{100 * min(zero, at):.2f}%;width:{100 * abs(at - zero):.2f}%"


def _bar_rows(names: list[str], values: list[float], low: float, high: float, kind: str) -> str:
    zero = f'<span class="lesson-qk__zero" style="left:{100 * -low / (high - low):.2f}%"></span>' if low < 0 else ""
    return "\n".join(
        f'<div class="lesson-qk__row"><span class="lesson-qk__word">{html.escape(w)}</span>'
        f'<span class="lesson-qk__track">{zero}<span class="lesson-qk__bar lesson-qk__bar--{kind}" '
        f'style="{_bar_style(v, low, high)}"></span></span>'
        f'<span class="lesson-qk__value">{_cell_text(v)}</span></div>'
        for w, v in zip(names, values, strict=True)
    )


def query_explorer(
    keys: torch.Tensor | Sequence[Sequence[float]],
    query: torch.Tensor | Sequence[float],
    labels: str | Sequence[str] = WORDS,
    *,
    exercise: torch.Tensor | Sequence[float] = (0.0, 1.0),
) -> str:
    """Section 2's keys on the plane and a query the reader moves, with the scores q·k and the weights
    softmax(multiplier × scores) beside them, live.

    `keys` (N×2) and `query` (2) are the listing's own tensors (snippets/scoring.py's ``k`` and ``q_guang``),
    `labels` its characters; `exercise` is exercise 1's query, the second of the two presets. Everything is
    drawn here for the listing's query at multiplier 1, which is what a reader without JavaScript sees; the
    page's script (theme/assets/javascripts/lesson.js) recomputes it as the query moves, in float32 as torch
    does, so that at the presets it shows what the listing and exercise 1 print.
    """
    k = torch.as_tensor(keys, dtype=torch.float32)
    q = torch.as_tensor(query, dtype=torch.float32)
    key_list = _values("keys", k, 2)
    if not key_list or len(key_list[0]) != 2:
        raise ValueError(f"keys must be N×2 (a key per character, on the plane), got shape {tuple(k.shape)}")
    names = _labels(labels)
    if len(names) != len(key_list):
        raise ValueError(f"there are {len(key_list)} keys but {len(names)} labels {names!r}")
    presets = [_values("query", q, 1), _values("exercise", torch.as_tensor(exercise, dtype=torch.float32), 1)]
    for name, p in zip(("query", "exercise"), presets, strict=True):
        if len(p) != 2 or not all(QUERY_RANGE[0] <= v <= QUERY_RANGE[1] for v in p):
            raise ValueError(f"{name} must be 2 numbers within {QUERY_RANGE}, got {p}")
    scores = k @ q  # as the listing computes them
    weights = torch.softmax(scores, dim=-1)
    # The scores' track: the lowest and highest score any query in QUERY_RANGE can give.
    ends = [sum(c * r for c, r in zip(key, corner, strict=True)) for key in key_list
            for corner in ((a, b) for a in QUERY_RANGE for b in QUERY_RANGE)]
    low, high = min(*ends, 0.0), max(*ends, 0.0)
    data = {
        "keys": key_list,
        "labels": names,
        "presets": presets,
        "scales": list(SLIDER_SCALES),
        "range": list(QUERY_RANGE),
        "step": QUERY_STEP,
        "scores": [round(low, 6), round(high, 6)],
        "plane": {"origin": list(_ORIGIN), "unit": _UNIT, "key": list(_KEY_HEAD), "query": list(_QUERY_HEAD)},
        "text": {"live": ui("qk_live"), "sep": ui("list_sep")},
    }
    ident = "lesson-qk-" + hashlib.sha1(json.dumps(data).encode()).hexdigest()[:6]
    start = SLIDER_SCALES.index(1.0)
    buttons = "".join(
        f'<button type="button" class="lesson-qk__preset" data-preset="{i}" disabled>'
        f'{html.escape(ui(key).format(q=f"[{p[0]:g}, {p[1]:g}]"))}</button>'
        for i, (key, p) in enumerate(zip(("qk_preset_lesson", "qk_preset_exercise"), presets, strict=True))
    )
    return (
        f'<figure class="lesson-figure lesson-qk" data-qk="{_json(data)}">\n'
        f'<div class="lesson-qk__body">\n{_plane_svg(key_list, presets[0], names, ident)}\n'
        f'<div class="lesson-qk__bars">\n'
        f'<p class="lesson-qk__head">{html.escape(ui("fig_scores_panel_scores"))}</p>\n'
        f'{_bar_rows(names, scores.tolist(), low, high, "score")}\n'
        f'<div class="lesson-qk__scale"><label for="{ident}-scale">{html.escape(ui("slider_label"))}</label>'
        f'<input id="{ident}-scale" type="range" min="0" max="{len(SLIDER_SCALES) - 1}" step="1" '
        f'value="{start}" aria-valuetext="×1" disabled>'
        f'<output for="{ident}-scale">×1</output></div>\n'
        f'<p class="lesson-qk__head">{html.escape(ui("fig_scores_panel_softmax"))}</p>\n'
        f'{_bar_rows(names, weights.tolist(), 0.0, 1.0, "weight")}\n'
        f"</div>\n</div>\n"
        f'<div class="lesson-qk__controls">{buttons}'
        f'<output class="lesson-qk__q">{_q_text(presets[0])}</output></div>\n'
        f'<p class="lesson-qk__live" id="{ident}-live" aria-live="polite"></p>\n'
        f"<figcaption>{html.escape(ui('qk_caption'))}</figcaption>\n</figure>"
    )
