"""The pages' figures, as a page declares them: four generic kinds, knowing no page, no session and no value.

A page's ``figure`` block names a kind and gives its ``data`` (values the runner evaluated: plain lists and
numbers) and its ``text`` (strings in the page's language, written by a translator, so never trusted: all of it
is escaped, and matplotlib draws it as plain text, ``$`` included); :func:`render` returns the ``<figure>``::

    render("heatmap", {"values": weights}, {"title": ..., "labels": "床前明月光", ...}, ui, "fig-1")

The SVG keeps its text as ``<text>`` elements, so the browser draws it in the page's fonts; text, axes and ticks
are ``currentColor`` on a transparent background, and a heatmap's cells take the palette's colours (CSS custom
properties, lesson.css), so one SVG reads on the light and the dark palette. Text is at least 11 CSS px when a figure
is shown 390 px wide, and the output is byte-identical from one build to the next. No numpy or torch here:
matplotlib is imported when a figure is drawn. The explorer (section 2's live figure) is drawn by explorer.py.
"""

from __future__ import annotations

import html
import io
import json
import math
import numbers
import re
import unicodedata
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

KINDS = ("heatmap", "bars", "lines", "explorer")


class FigureError(ValueError):
    """A figure's declaration is wrong: one line naming the key and what was expected."""


_INK = "#010203"  # drawn in this colour, then written as currentColor (no data series uses it)
# Data colours: a contrast of at least 3:1 against both white and the dark palette's #1e2129.
_BLUE, _ORANGE, _GREY, _PURPLE = "#3b82f6", "#e06c00", "#8a8f98", "#a855f7"
# The heatmap's steps (one per 0.1 of the scale) in the light palette, and each step's text, at least 4.5:1 on it.
# A cell is painted var(--lesson-heat-N, light fill) and its text var(--lesson-heat-text-N, light text): lesson.css
# gives the dark palette's steps (there, the larger the weight, the brighter the cell).
_HEAT = ("#eef0fb", "#d5daf2", "#bdc5e9", "#a6b0df", "#8f9bd5", "#7986cb",
         "#5d6cb8", "#4f5fac", "#3c4c9d", "#2a388d", "#1a237e")
_HEAT_TEXT = ("#111322",) * 6 + ("#ffffff",) * 5
_PX_PER_INCH, _PHONE_PX, _MIN_PX = 96, 390, 11
_RC = {
    "svg.fonttype": "none", "svg.hashsalt": "attention-lesson", "svg.image_inline": True,
    # Only matplotlib's bundled font measures the text (the browser draws it with the page's fonts).
    "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"], "text.parse_math": False, "text.usetex": False,
    "text.color": _INK, "axes.edgecolor": _INK, "axes.labelcolor": _INK, "axes.titlecolor": _INK,
    "xtick.color": _INK, "ytick.color": _INK, "grid.color": _INK, "grid.alpha": 0.15,
    "axes.facecolor": "none", "figure.facecolor": "none", "savefig.facecolor": "none", "savefig.edgecolor": "none",
    "savefig.transparent": True, "axes.spines.top": False, "axes.spines.right": False, "legend.frameon": False,
    "lines.linewidth": 2.0, "lines.markersize": 6, "path.simplify": True,
}


# ------------------------------------------------------------------------------------------ the declaration


def _is_number(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def _flat(rows: list) -> list:
    return [x for r in rows for x in r]


def _got(v: object) -> str:
    """What a value is, for an error message: its shape, and its first element that is not a number."""
    if not isinstance(v, (list, tuple)):
        return f"{type(v).__name__} {v!r:.40}"
    rows = v if v and all(isinstance(r, (list, tuple)) for r in v) else [v]
    sizes = sorted({len(r) for r in rows})
    shape = (f"a list of {len(v)}" if rows is not v else f"{len(v)}×{sizes[0]}" if len(sizes) == 1
             else f"rows of {'/'.join(map(str, sizes))} numbers")
    bad = [x for x in _flat(rows) if not _is_number(x)]
    return shape + (f" holding {bad[0]!r:.40}" if bad else "")


class _Decl:
    """One figure's data, text and ui, checked: each getter fails naming the key and what it expected."""

    def __init__(self, kind: str, data: object, text: object, ui: object, keys: dict[str, tuple[str, ...]]) -> None:
        self.kind, self.data, self.text, self.ui = kind, data, text, {}
        for where, given in (("data", data), ("text", text), ("ui", ui)):
            if not isinstance(given, Mapping):
                self.fail(f"{where} must be a mapping, got {type(given).__name__}")
            listed = f"(its keys: {', '.join(keys[where])}; ? optional)"
            for key in keys[where]:
                if where != "ui" and not key.endswith("?") and key not in given:
                    self.fail(f"{where} has no {key!r} {listed}")
            for key in given if where != "ui" else ():
                if key not in keys[where] and f"{key}?" not in keys[where]:
                    self.fail(f"{where} has an unknown key {key!r:.40} {listed}")
        for key in keys["ui"]:
            if not isinstance(ui.get(key), str):
                self.fail(f"ui has no {key!r} (a string of strings.yml's ui:)")
            self.ui[key] = ui[key]

    def fail(self, message: str) -> None:
        raise FigureError(f"{self.kind}: {message}")

    def string(self, key: str, default: str | None = None) -> str:
        value = self.text.get(key, default)
        if not isinstance(value, str):
            self.fail(f"{key} must be a string, got {type(value).__name__} {value!r:.40}")
        return value

    def strings(self, key: str, n: int, what: str) -> list[str]:
        value = self.text[key]
        names = list(value) if key == "labels" and isinstance(value, str) else value
        if not isinstance(names, (list, tuple)) or len(names) != n or not all(isinstance(s, str) for s in names):
            self.fail(f"{key} must be {what}, got {type(value).__name__} {value!r:.60}")
        return list(names)

    def labels(self, n: int) -> list[str]:
        return self.strings("labels", n, f"a string of {n} characters or a list of {n} strings")

    def matrix(self, key: str, what: str) -> list[list[float]]:
        value = self.data[key]
        rows = isinstance(value, (list, tuple)) and value and all(isinstance(r, (list, tuple)) for r in value)
        if not rows or len({len(r) for r in value}) != 1 or not value[0] or not all(map(_is_number, _flat(value))):
            self.fail(f"{key} must be {what}, got {_got(value)}")
        return [[float(x) for x in r] for r in value]

    def numbers(self, key: str, what: str) -> list[float]:
        value = self.data[key]
        if not isinstance(value, (list, tuple)) or not value or not all(map(_is_number, value)):
            self.fail(f"{key} must be {what}, got {_got(value)}")
        return [float(v) for v in value]


# ----------------------------------------------------------------------------------------- text and style


def _cell_text(value: float) -> str:
    """A value as written in a cell or above a bar: rounded to 2 decimals, never "-0.00"."""
    return f"{round(value, 2) + 0.0:.2f}"


def _esc(s: str) -> str:
    return html.escape(s, quote=True)


def _min_pt(width_in: float) -> float:
    """The smallest font size, in points, that is 11 CSS px when a figure `width_in` inches wide is shown 390 px
    wide (or at its max-width, if that is narrower), rounded up to a quarter point."""
    return math.ceil(_MIN_PX * width_in * 72 / min(_PHONE_PX, width_in * _PX_PER_INCH) * 4 - 1e-9) / 4


def _em(s: str) -> float:
    """A text's estimated width in em: 1 for a wide (CJK) character, 0.6 for any other."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in s)


def _wrap(s: str, size: float, width_pt: float) -> str:
    """`s` in lines of at most `width_pt` at `size` pt, broken between words or between wide characters."""
    lines = [""]
    for token in re.findall(r"[^\s\u2e80-\uffef]+\s*|\S\s*", " ".join(s.split())):
        if (not lines[-1] or token[0] in "、。，．・：；！？）」』】,.:;!?)]}"
                or _em(lines[-1] + token.rstrip()) * size <= width_pt):
            lines[-1] += token
        else:
            lines.append(token)
    return "\n".join(line.rstrip() for line in lines)


def _lines_of(s: str) -> int:
    return s.count("\n") + 1


@contextmanager
def _style(f: float) -> Iterator[None]:
    """The figure style with fonts of at least `f` pt, and no warning for glyphs matplotlib's font lacks."""
    import matplotlib

    sizes = {"font.size": max(10, f), "axes.titlesize": max(10.5, f), "axes.labelsize": max(10, f),
             "xtick.labelsize": max(10, f), "ytick.labelsize": max(9.5, f), "legend.fontsize": max(9.5, f)}
    with matplotlib.rc_context(_RC | sizes), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
        yield


def _render(fig: object, alt: str, ident: str, paint: Mapping[str, str] | None = None) -> str:
    """`fig` as an SVG element to inline: no prolog, currentColor ink, ids scoped by `ident`, alt text, LTR; each
    colour `paint` names (#rrggbb) written as its CSS value. Only tags are rewritten, never the text between them
    (the page's), whose quotes are escaped too."""
    paint = {_INK: "currentColor"} | dict(paint or {})
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = buffer.getvalue()
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg[svg.index("<svg") :], flags=re.S)
    # matplotlib's `*{stroke-linejoin…}` rule would apply to the whole page once inlined: the root says it.
    svg = re.sub(r"\s*\n\s*", "\n", re.sub(r"\s*<defs>\s*<style[^>]*>.*?</style>\s*</defs>", "", svg, flags=re.S))
    refs = {i for t in re.findall(r"<[^<>]+>", svg) for p in re.findall(r'url\(#([^)]+)\)|href="#([^"]+)"', t)
            for i in p if i}

    def tag(match: re.Match) -> str:
        t = re.sub("|".join(paint), lambda m: paint[m[0]], match[0])
        t = re.sub(r"font-family: [^;\"]*;?\s*", "", t)  # the page's font
        t = re.sub(r'd="([^"]*)"', lambda m: 'd="' + " ".join(m[1].split()) + '"', t)
        t = re.sub(r' id="([^"]+)"', lambda m: f' id="{ident}-{m[1]}"' if m[1] in refs else "", t)
        return re.sub(r'(url\(#|href="#)', rf"\1{ident}-", t)

    svg = re.sub(r"<[^<>]+>", tag, svg)
    svg = re.sub(r">([^<]+)<", lambda m: ">" + m[1].replace('"', "&quot;").replace("'", "&#x27;") + "<", svg)
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    label = _esc(" ".join(alt.split()))
    root = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'viewBox="0 0 {width:g} {height:g}" width="100%" role="img" aria-label="{label}" direction="ltr" '
            f'class="lesson-figure-svg" style="max-width: {round(width / 72 * _PX_PER_INCH)}px; height: auto; '
            f'display: block; margin: 0 auto" stroke-linejoin="round" stroke-linecap="butt">\n<title>{label}</title>')
    return re.sub(r"<svg [^>]*>", lambda _: root, svg, count=1).strip()


def _figure(kind: str, svg: str, caption: str) -> str:
    return (f'<figure class="lesson-figure lesson-{kind}">\n<div class="lesson-figure__plot" dir="ltr">\n{svg}\n'
            f"</div>\n<figcaption>{_esc(caption)}</figcaption>\n</figure>")


def _json(value: object) -> str:
    """A value as a JSON data attribute's text (escaped for a double-quoted attribute)."""
    return _esc(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


# ------------------------------------------------------------------------------------------------ heatmap

_CELL, _HEAT_MAX = 0.56, 10  # a cell, in inches; the largest T whose cells hold their numbers on a phone
_HEAT_PAINT = {f"#020{part}{k:02x}": f"var(--lesson-heat-{name}{k}, {colours[k]})"  # drawn in #0201NN, #0202NN
               for part, name, colours in ((1, "", _HEAT), (2, "text-", _HEAT_TEXT)) for k in range(len(_HEAT))}
_HEAT_PAINT["#020300"] = "var(--md-default-bg-color, #ffffff)"  # behind a masked cell's text, over its hatching


def _heatmap(d: _Decl, ident: str) -> str:
    """A T×T matrix, each cell showing its value in its step's colours; a 0 above the diagonal is masked: hatched,
    its 0.00 in the text colour on the page's. Its rows answer a pointer or the keyboard (lesson.js reads data-heat)."""
    from matplotlib.colors import to_rgba
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import FixedLocator

    values = d.matrix("values", "a square matrix of numbers")
    T = len(values)
    if len(values[0]) != T or T > _HEAT_MAX:
        d.fail(f"values must be a square matrix of numbers, at most {_HEAT_MAX}×{_HEAT_MAX}, got {_got(values)}")
    names, title, xlabel, ylabel = d.labels(T), d.string("title"), d.string("xlabel"), d.string("ylabel")
    if max(map(_em, names)) > 18:
        d.fail(f"labels must be at most 30 characters (18 wide ones) each, got {max(names, key=_em)!r:.40}")
    flat = _flat(values)
    low, high = min(0.0, *flat), max(1.0, *flat)  # weights share one scale, so the pages' figures compare
    cell, f, last = _CELL, 8.25, None
    while f != last:  # the margins depend on the font sizes, and these on the width: to their fixed point
        last, tick, lab, head = f, max(12, f), max(10, f), max(11, f + 1)
        lw = max(map(_em, names)) * tick / 72
        rotate = lw > cell * 0.95
        xl, yl = _wrap(xlabel, lab, cell * T * 72), _wrap(ylabel, lab, cell * T * 72)
        left = max(0.8, 0.24 + _lines_of(yl) * lab * 1.2 / 72 + lw)
        width, centre = left + cell * T + 0.3, left + cell * T / 2
        tl = _wrap(title, head, 2 * min(centre, width - centre) * 72 - 8)
        top = max(0.85, 0.28 + _lines_of(tl) * head * 1.25 / 72 + _lines_of(xl) * lab * 1.2 / 72
                  + (lw if rotate else tick / 72))
        height, f = top + cell * T + 0.12, _min_pt(width)
    with _style(f):
        grid, hatch = to_rgba(_INK, 0.3), to_rgba(_INK, 0.22)
        fig = Figure(figsize=(width, height))
        ax = fig.add_axes((left / width, 0.12 / height, cell * T / width, cell * T / height))
        for i, row in enumerate(values):
            for j, v in enumerate(row):
                if j > i and v == 0:  # masked
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor="none", edgecolor=grid, lw=0.6, hatch="//",
                                           hatchcolor=hatch))
                    ax.text(j + 0.5, i + 0.5, _cell_text(v), ha="center", va="center", fontsize=max(9, f), color=_INK,
                            bbox={"boxstyle": "square,pad=0.2", "facecolor": "#020300", "edgecolor": "none"})
                    continue
                step = min(len(_HEAT) - 1, max(0, int((round(v, 2) - low) / (high - low) * (len(_HEAT) - 1) + 0.5)))
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor=f"#0201{step:02x}", edgecolor=grid, lw=0.6))
                ax.text(j + 0.5, i + 0.5, _cell_text(v), ha="center", va="center", fontsize=max(9.5, f),
                        color=f"#0202{step:02x}")
        ax.set(xlim=(0, T), ylim=(T, 0), aspect="equal")
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(FixedLocator([i + 0.5 for i in range(T)]))
        ax.set_xticklabels(names, fontsize=tick, rotation=90 if rotate else 0)
        ax.set_yticklabels(names, fontsize=tick)
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.tick_params(length=0, pad=4)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel(xl, labelpad=6, fontsize=lab)
        ax.set_ylabel(yl, labelpad=6, fontsize=lab)
        fig.suptitle(tl, x=centre / width, y=1 - 0.06 / height, va="top", fontsize=head)
        svg = _render(fig, d.string("alt"), ident, _HEAT_PAINT)
    reach = max(0.28, lw + 0.11)  # a row's button also covers its label, left of the cells
    data = {
        "labels": names,
        "weights": [[None if j > i and v == 0 else _cell_text(v) for j, v in enumerate(r)]  # None: masked
                    for i, r in enumerate(values)],
        "box": [round(100 * (left - reach) / width, 3), round(100 * top / height, 3),  # a row: left, top, width,
                round(100 * (reach + cell * T) / width, 3), round(100 * cell / height, 3)],  # height, in %
        "cells": [round(100 * left / width, 3), round(100 * cell / width, 3)],  # the first's left, a cell's width
        "text": {k: d.ui[f"heat_{k}"] for k in ("hint", "row", "masked")} | {"sep": d.ui["list_sep"]},
    }
    return (f'<figure class="lesson-figure lesson-heat" data-heat="{_json(data)}">\n<div class="lesson-heat__plot" '
            f'dir="ltr" style="max-width: {round(width * _PX_PER_INCH)}px">\n{svg}\n</div>\n'
            f'<p class="lesson-heat__readout"></p>\n<figcaption>{_esc(d.string("caption", d.string("alt")))}'
            f"</figcaption>\n</figure>")


# --------------------------------------------------------------------------------------------------- bars


def _bars(d: _Decl, ident: str) -> str:
    """Panels of bars, one per label, each value written above its bar (no y axis). Panels that are weights (not
    negative, summing to 1) share their scale; a row has as many panels as leave room for the values on a phone."""
    from matplotlib.figure import Figure

    panels = d.matrix("values", "a list of panels, each a list of numbers (one per label)")
    n = len(panels[0])
    names, titles = d.labels(n), d.strings("panels", len(panels), f"a list of {len(panels)} titles (one per panel)")
    texts = [[_cell_text(v) for v in p] for p in panels]
    slot = max(_em(t) for p in texts for t in p) + 0.7  # a bar's room, in em of its value's text
    fit = int(_PHONE_PX * 0.9 // (n * slot * _MIN_PX))
    cols = max(1, min(len(panels), fit))
    rows = -(-len(panels) // cols)
    width = min(6.4, max(4.0, 2.6 * cols))
    f = _min_pt(width)
    tick, sub, head = max(12, f), max(10.5, f), max(11, f + 1)
    title = _wrap(d.string("title"), head, width * 72 - 10)
    heads = [_wrap(t, sub, width * 72 / cols - 12) for t in titles]
    rotate = max(map(_em, names)) > slot * 0.8
    row = 1.5 + max(map(_lines_of, heads)) * sub * 1.3 / 72 + (max(map(_em, names)) if rotate else 1.3) * tick / 72
    weights = [min(p) >= 0 and abs(sum(p) - 1) < 1e-4 for p in panels]
    shared = max((max(p) for p, w in zip(panels, weights, strict=True) if w), default=1.0)
    with _style(f):
        fig = Figure(figsize=(width, 0.2 + _lines_of(title) * head * 1.3 / 72 + rows * row), layout="constrained")
        grid = fig.add_gridspec(rows, 2 * cols)
        for k, (values, written, name) in enumerate(zip(panels, texts, heads, strict=True)):
            r, c = divmod(k, cols)
            at = 2 * c + cols - min(cols, len(panels) - r * cols)  # the last row's panels are centred
            ax = fig.add_subplot(grid[r, at : at + 2])
            ax.bar(range(n), values, color=(_GREY, _BLUE, _ORANGE, _PURPLE)[k % 4], width=0.72)
            for x, (v, t) in enumerate(zip(values, written, strict=True)):
                ax.annotate(t, (x, v), xytext=(0, 2 if v >= 0 else -2), textcoords="offset points", ha="center",
                            va="bottom" if v >= 0 else "top", fontsize=max(9.5, f), rotation=0 if fit else 90)
            ax.set_title(name, pad=6, fontsize=sub)
            ax.set_xticks(list(range(n)), names, fontsize=tick, rotation=90 if rotate else 0)
            ax.tick_params(axis="x", length=0, pad=3)
            ax.yaxis.set_visible(False)
            for side in ("left", "bottom"):
                ax.spines[side].set_visible(False)
            ax.axhline(0, color=_INK, lw=0.8)
            top, room = shared if weights[k] else max(0.0, *values), 1.25 if fit else 1.6
            ax.set(xlim=(-0.6, n - 0.4), ylim=(min(0.0, *values) * room, (top or 1.0) * room))
        fig.suptitle(title, fontsize=head)
        return _figure("bars", _render(fig, d.string("alt"), ident), d.string("caption", d.string("alt")))


# -------------------------------------------------------------------------------------------------- lines


def _slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x: 2 means y grows as x²."""
    lx, ly = [math.log(v) for v in xs], [math.log(v) for v in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly, strict=True)) / sum((x - mx) ** 2 for x in lx)


def _lines(d: _Decl, ident: str) -> str:
    """Series of y against x, each named in the legend; `log: true` for log-log axes."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

    log = d.data.get("log", d.text.get("log", False))
    if not isinstance(log, bool):
        d.fail(f"log must be true (log-log axes) or false, got {log!r:.40}")
    xs = d.numbers("x", "a list of numbers")
    series = d.matrix("y", f"a list of series, each a list of {len(xs)} numbers like x")
    if len(set(xs)) < 2 or len(series[0]) != len(xs):
        d.fail(f"y must be a list of series, each {len(xs)} numbers like x (2 distinct x at least), got {_got(series)}")
    names = d.strings("series", len(series), f"a list of {len(series)} names (one per series)")
    positive = min(xs) > 0 and min(map(min, series)) > 0
    if log and not positive:
        d.fail("x and y must hold positive numbers only, to be drawn on log-log axes")
    for k, name in enumerate(names):
        if "{slope}" in name and not positive:
            d.fail(f"series[{k}] shows {{slope}}, a log-log slope, which needs positive x and y")
        names[k] = name.replace("{slope}", f"{_slope(xs, series[k]):.1f}") if "{slope}" in name else name
    width, height = 5.6, 3.5
    f = _min_pt(width)
    with _style(f):
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.add_subplot()
        styles = ((_BLUE, "o"), (_ORANGE, "s"), (_GREY, "^"), (_PURPLE, "D"))
        lines = [ax.plot(xs, ys, styles[k % 4][1] + "-", color=styles[k % 4][0])[0] for k, ys in enumerate(series)]
        ax.legend(lines, names, loc="best", handlelength=1.8)  # labels given: one starting with "_" is kept
        flat = _flat(series)
        if log:
            ax.set_xscale("log", base=2 if all(math.log2(x).is_integer() for x in xs) else 10)
            ax.set_yscale("log")
            ax.set(xlim=(min(xs) / 1.25, max(xs) * 1.25), ylim=(min(flat) / 1.6, max(flat) * 1.6))
            for axis, ticks in ((ax.xaxis, FixedLocator(xs) if len(xs) <= 8 else LogLocator()),
                                (ax.yaxis, LogLocator(base=10, subs=(1.0, 2.0, 5.0)))):
                axis.set_major_locator(ticks)
                axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
                axis.set_minor_locator(NullLocator())
                axis.set_minor_formatter(NullFormatter())
        else:
            unit = 0 <= min(flat) and max(flat) <= 1
            ax.set_ylim(*((0, 1.05) if unit else (min(0.0, *flat) * 1.12, max(0.0, *flat) * 1.12 or 1.0)))
        ax.set_xlabel(_wrap(d.string("xlabel"), max(10, f), width * 72 * 0.8))
        ax.set_ylabel(_wrap(d.string("ylabel"), max(10, f), height * 72 * 0.6))
        ax.grid(True, lw=0.6)
        ax.set_axisbelow(True)
        fig.suptitle(_wrap(d.string("title"), max(11, f + 1), width * 72 - 10), fontsize=max(11, f + 1))
        return _figure("lines", _render(fig, d.string("alt"), ident), d.string("caption", d.string("alt")))


# ----------------------------------------------------------------------------------------------- explorer


def _explorer(d: _Decl, ident: str) -> str:
    """Section 2's query–key explorer: drawn by explorer.py (which takes this module's helpers, hence imported here)."""
    from attention_lesson.site import explorer

    return explorer.draw(d, ident)


# ---------------------------------------------------------------------------------------------------- API

_KINDS = {  # the drawing, and the keys of data, text and ui ("?": optional)
    "heatmap": (_heatmap, {"data": ("values",), "text": ("title", "labels", "xlabel", "ylabel", "alt", "caption?"),
                           "ui": ("heat_hint", "heat_row", "heat_masked", "list_sep")}),
    "bars": (_bars, {"data": ("values",), "text": ("title", "labels", "panels", "alt", "caption?"), "ui": ()}),
    "lines": (_lines, {"data": ("x", "y", "log?"),
                       "text": ("title", "series", "xlabel", "ylabel", "alt", "caption?", "log?"), "ui": ()}),
    "explorer": (_explorer, {"data": ("keys", "query", "exercise", "goals?"),
                             "text": ("labels", "panels", "alt", "caption?", "tasks?"),
                             "ui": ("qk_axis_x", "qk_axis_y", "qk_handle", "qk_preset_lesson", "qk_preset_exercise",
                                    "qk_live", "slider_label", "list_sep", "qk_tasks", "qk_task_done",
                                    "qk_task_live")}),
}


def render(kind: str, data: dict[str, object], text: dict[str, object], ui: Mapping[str, str], ident: str) -> str:
    """HTML of one figure: <figure class="lesson-figure ...">…<figcaption>…</figcaption></figure>.

    `data`: the figure's values (plain lists and numbers); `text`: its words in the page's language (escaped; a
    missing caption is the alt text); `ui`: the language's site strings, for the live figures' fixed words;
    `ident`: an id unique in the page (a letter, then letters, digits, "-" or "_"), which scopes the figure's ids.
    `log` (lines) may be in data or text. Raises FigureError: one line naming the key and what was expected.
    """
    if kind not in _KINDS:
        raise FigureError(f"kind must be one of {', '.join(KINDS)}, got {kind!r:.40}")
    if not isinstance(ident, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,63}", ident):
        raise FigureError(f"{kind}: ident must be a letter then letters, digits, - or _, got {ident!r:.40}")
    draw, keys = _KINDS[kind]
    return draw(_Decl(kind, data, text, ui, keys), ident)
