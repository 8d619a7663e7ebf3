"""The pages' figures (heatmap, bars, lines, explorer), drawn from a page's declaration, knowing no page.

Each is a ``<figure>`` with inline SVG written as text (:func:`render`): words are ``<text>`` in the page's
fonts, ink is ``currentColor``, a heatmap cell's class is its step, coloured by lesson.css, so one SVG reads in
light and dark. Text is at least 11 CSS px on a 390 px phone, text widths are estimated (:func:`_em`), and the
output is byte-identical from one build to the next.
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from collections.abc import Mapping
from html import escape

from attention_lesson.site import explorer
from attention_lesson.site.declaration import BLUE as _BLUE
from attention_lesson.site.declaration import ORANGE as _ORANGE
from attention_lesson.site.declaration import Declaration as _Decl
from attention_lesson.site.declaration import FigureError
from attention_lesson.site.declaration import cell_text as _cell_text
from attention_lesson.site.declaration import coordinate as _n
from attention_lesson.site.declaration import got as _got
from attention_lesson.site.declaration import json_attribute as _json

__all__ = ["FigureError", "render"]


# Data colours: a contrast of at least 3:1 against both white and the dark palette's #1e2129.
_GREY, _PURPLE = "#8a8f98", "#a855f7"
_PHONE_PX, _MIN_PX, _PAD = 358, 11, 8  # a figure's width on a 390 px phone, its least text (CSS px), a margin
_GRID = 'stroke="currentColor" stroke-opacity="0.15" stroke-width="0.8"'
_CELL, _HEAT_MAX = 54, 12  # a heatmap cell's side; the largest T whose cells hold their numbers on a phone
_SERIES = ((_BLUE, "o"), (_ORANGE, "s"), (_GREY, "^"), (_PURPLE, "D"))  # a series' colour and marker
_MARKS = {  # a marker at (x, y), as a path
    "o": lambda x, y: f"M{_n(x - 4)} {_n(y)}a4 4 0 1 0 8 0a4 4 0 1 0-8 0Z",
    "s": lambda x, y: f"M{_n(x - 3.6)} {_n(y - 3.6)}h7.2v7.2h-7.2Z",
    "^": lambda x, y: f"M{_n(x)} {_n(y - 4.6)}l4.3 7.5h-8.6Z",
    "D": lambda x, y: f"M{_n(x)} {_n(y - 4.6)}l4 4.6-4 4.6-4-4.6Z",
}


def _min_px(width: float) -> float:
    """The smallest font size, in units, that is 11 CSS px when a figure `width` units wide (and at most `width` px)
    is shown 390 px wide, rounded up to a quarter unit."""
    return math.ceil(_MIN_PX * width / min(_PHONE_PX, width) * 4 - 1e-9) / 4


def _em(s: str) -> float:
    """A text's estimated width in em: 1 for a wide (CJK) character, 0.6 for any other."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in s)


def _wrap(s: str, size: float, width: float) -> str:
    """`s` in lines of at most `width` units at `size`, broken between words or between wide characters."""
    lines = [""]
    for token in re.findall(r"[^\s\u2e80-\uffef]+\s*|\S\s*", " ".join(s.split())):
        if (not lines[-1] or token[0] in "、。，．・：；！？）」』】,.:;!?)]}"
                or _em(lines[-1] + token.rstrip()) * size <= width):
            lines[-1] += token
        else:
            lines.append(token)
    return "\n".join(line.rstrip() for line in lines)


def _lines_of(s: str) -> int:
    return s.count("\n") + 1


def _text(x: float, y: float, s: str, size: float, anchor: str = "middle", more: str = "", gap: float = 1.2) -> str:
    """`s` (escaped; one line per "\\n", `gap` em apart) as <text>; (x, y) is the first line's baseline, `more` any
    further attributes (a rotation is about (x, y), and its lines then follow each other rightwards)."""
    rows = s.split("\n")
    body = escape(s) if len(rows) == 1 else "".join(
        f'<tspan x="{_n(x)}" dy="{_n(size * gap) if i else 0}">{escape(r)}</tspan>' for i, r in enumerate(rows))
    return f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}"{more}>{body}</text>'


def _up(x: float, y: float) -> str:
    """The attribute that turns a text about (x, y) to read upwards."""
    return f' transform="rotate(-90 {_n(x)} {_n(y)})"'


def _svg(width: float, height: float, alt: str, body: list[str]) -> str:
    """The SVG element to inline: its ink currentColor, its size the viewBox's at most, its alt text as its name."""
    label = escape(" ".join(alt.split()))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_n(width)} {_n(height)}" width="100%" '
            f'role="img" aria-label="{label}" direction="ltr" class="lesson-figure-svg" style="max-width: '
            f'{math.ceil(width)}px; height: auto; display: block; margin: 0 auto" fill="currentColor" '
            f'stroke-linejoin="round" stroke-linecap="butt">\n<title>{label}</title>\n' + "\n".join(body) + "\n</svg>")


def _figure(kind: str, svg: str, caption: str) -> str:
    return (f'<figure class="lesson-figure lesson-{kind}">\n<div class="lesson-figure__plot" dir="ltr">\n{svg}\n'
            f"</div>\n<figcaption>{escape(caption)}</figcaption>\n</figure>")


def _heatmap(d: _Decl, ident: str) -> str:
    """A T×T matrix, each cell showing its value in its step's colours; a 0 above the diagonal is masked: hatched,
    its 0.00 in the text colour on the page's. Its rows answer a pointer or the keyboard (lesson.js reads data-heat)."""
    values = d.matrix("values", "a square matrix of numbers")
    T = len(values)
    if len(values[0]) != T or T > _HEAT_MAX:
        d.fail(f"values must be a square matrix of numbers, at most {_HEAT_MAX}×{_HEAT_MAX}, got {_got(values)}")
    names, title, xlabel, ylabel = d.labels(T), d.string("title"), d.string("xlabel"), d.string("ylabel")
    if max(map(_em, names)) > 18:
        d.fail(f"labels must be at most 30 characters (18 wide ones) each, got {max(names, key=_em)!r:.40}")
    low, high = min(0.0, *map(min, values)), max(1.0, *map(max, values))  # weights share one scale, so figures compare
    C, side, f, last = _CELL, _CELL * T, float(_MIN_PX), None
    while f != last:  # the margins depend on the font sizes, and these on the width: to their fixed point
        last, tick, lab, head, num = f, max(16, f), max(13.5, f), max(15, f + 1.5), max(12.5, f)
        lw = max(map(_em, names)) * tick
        rotate = lw > C * 0.95
        xl, yl = _wrap(xlabel, lab, side), _wrap(ylabel, lab, side)
        left = math.ceil(max(77, 2 * _PAD + _lines_of(yl) * lab * 1.2 + lw + 12))
        width, centre = left + side + 29, left + side / 2
        tl = _wrap(title, head, 2 * min(centre, width - centre) - 2 * _PAD)
        top = math.ceil(max(82, _PAD + _lines_of(tl) * head * 1.25 + _lines_of(xl) * lab * 1.2 + (lw if rotate
                                                                                                 else tick) + 18))
        height, f = top + side + 12, _min_px(left + side + 29)
    ybase = left - 12 - lw - lab * 0.25 - (_lines_of(yl) - 1) * lab * 1.2  # the y label's first line
    body = [f'<defs><pattern id="{ident}-hatch" patternUnits="userSpaceOnUse" width="8" height="8">'
            '<path d="M-2 2l4-4M0 8l8-8M6 10l4-4" stroke="currentColor" stroke-opacity="0.22"/></pattern></defs>',
            _text(centre, _PAD + head * 0.9, tl, head, gap=1.25),
            _text(centre, top - (lw if rotate else tick) - 12 - lab * 0.25 - (_lines_of(xl) - 1) * lab * 1.2, xl, lab),
            _text(ybase, top + side / 2, yl, lab, more=_up(ybase, top + side / 2))]
    at = [(left + (k + 0.5) * C, top + (k + 0.5) * C, escape(name)) for k, name in enumerate(names)]  # the labels
    over = "".join(f'<text x="{_n(x)}" y="{_n(top - 6 + tick * (0.35 if rotate else -0.22))}"'
                   f'{_up(x, top - 6) if rotate else ""}>{name}</text>' for x, _, name in at)  # the columns'
    aside = "".join(f'<text x="{left - 6}" y="{_n(y + tick * 0.35)}">{name}</text>' for _, y, name in at)  # the rows'
    body += [f'<g font-size="{_n(tick)}" text-anchor="{"start" if rotate else "middle"}">{over}</g>',
             f'<g font-size="{_n(tick)}" text-anchor="end">{aside}</g>']
    cells, patch, rows = [], [], []  # a masked cell is hatched, its 0.00 on a patch of the page's colour
    for i, row in enumerate(values):
        numbers = []  # the row's, in a group that sets their baseline
        for j, v in enumerate(row):
            x, y, t, masked = left + j * C, top + i * C, _cell_text(v), j > i and v == 0
            step = min(10, max(0, int((round(v, 2) - low) / (high - low) * 10 + 0.5)))  # one per 0.1 of the scale
            paint = "" if masked else f' class="h{step}"'  # the step's colours: lesson.css
            cells.append(f'<path{paint} d="M{x} {y}h{C}v{C}h-{C}z"/>')
            w, h = (len(t) * 0.5 + 0.4) * num, 1.3 * num
            patch += [f"M{_n(x + (C - w) / 2)} {_n(y + (C - h) / 2)}h{_n(w)}v{_n(h)}h{_n(-w)}z"] if masked else []
            numbers.append(f'<text x="{_n(x + C / 2)}"{paint}>{t}</text>')
        rows.append(f'<g transform="translate(0 {_n(top + (i + 0.5) * C + num * 0.35)})">{"".join(numbers)}</g>')
    body += [f'<g fill="url(#{ident}-hatch)" stroke="currentColor" stroke-opacity="0.3" stroke-width="0.8">'
             + "".join(cells) + "</g>",
             *([f'<path d="{"".join(patch)}" style="fill: var(--md-default-bg-color, #ffffff)"/>'] if patch else []),
             f'<g font-size="{_n(num)}" text-anchor="middle">{"".join(rows)}</g>']
    svg = _svg(width, height, d.string("alt"), body)
    reach = max(27, lw + 10)  # a row's button also covers its label, left of the cells
    data = {
        "labels": names,
        "weights": [[None if j > i and v == 0 else _cell_text(v) for j, v in enumerate(r)]  # None: masked
                    for i, r in enumerate(values)],
        "box": [round(100 * (left - reach) / width, 3), round(100 * top / height, 3),  # a row: left, top, width,
                round(100 * (reach + side) / width, 3), round(100 * C / height, 3)],  # height, in %
        "cells": [round(100 * left / width, 3), round(100 * C / width, 3)],  # the first's left, a cell's width
        "text": {k: d.ui[f"heat_{k}"] for k in ("hint", "row", "masked")} | {"sep": d.ui["list_sep"]},
    }
    beside = " lesson-heat--beside" if d.data.get("beside") is True else ""  # two side by side on a wide screen
    return (f'<figure class="lesson-figure lesson-heat{beside}" data-heat={_json(data)}>\n'
            f'<div class="lesson-heat__plot" dir="ltr" style="max-width: {math.ceil(width)}px">\n{svg}\n</div>\n'
            f'<p class="lesson-heat__readout"></p>\n<figcaption>{escape(d.string("caption", d.string("alt")))}'
            f"</figcaption>\n</figure>")


def _bars(d: _Decl, ident: str) -> str:
    """Panels of bars, one per label, each value written above its bar (no y axis). Panels that are weights (not
    negative, summing to 1) share one scale, 0 to 1; a row has as many panels as leave room for the values on a
    phone."""
    panels = d.matrix("values", "a list of panels, each a list of numbers (one per label)")
    n = len(panels[0])
    names, titles = d.labels(n), d.strings("panels", len(panels), f"a list of {len(panels)} titles (one per panel)")
    texts = [[_cell_text(v) for v in p] for p in panels]
    slot = max(_em(t) for p in texts for t in p) + 0.7  # a bar's room, in em of its value's text
    fit = int(_PHONE_PX * 0.9 // (n * slot * _MIN_PX))
    cols = max(1, min(len(panels), fit))
    rows, width = -(-len(panels) // cols), min(614, max(384, 250 * cols))
    f = _min_px(width)
    tick, sub, head, num = max(16, f), max(14, f), max(15, f + 1.5), max(12.5, f)
    title = _wrap(d.string("title"), head, width - 2 * _PAD)
    pw = (width - 2 * _PAD) / cols  # a panel's width
    heads = [_wrap(t, sub, pw - 12) for t in titles]
    lw = max(map(_em, names)) * tick
    rotate, room = lw / tick > slot * 0.8, (num if fit else max(_em(t) for p in texts for t in p) * num) + 6
    hh = max(map(_lines_of, heads)) * sub * 1.25  # a panel's title's height, then its bars' and values' text's
    plot = 100 + room * (2 if min(map(min, panels)) < 0 else 1)
    row = hh + 6 + plot + 6 + (lw if rotate else tick * 1.2) + 14
    weights = [min(p) >= 0 and abs(sum(p) - 1) < 1e-4 for p in panels]
    y0 = _PAD + _lines_of(title) * head * 1.25 + 8
    body = [_text(width / 2, _PAD + head * 0.9, title, head, gap=1.25)]
    for k, (values, written, name) in enumerate(zip(panels, texts, heads, strict=True)):
        r, c = divmod(k, cols)
        x0 = _PAD + pw * (c + (cols - min(cols, len(panels) - r * cols)) / 2) + 6  # the last row's are centred
        inner, top = pw - 12, y0 + r * row + hh + 6
        hi, lo = (1.0 if weights[k] else max(0.0, *values)) or 1.0, min(0.0, *values)  # weights: 0..1
        scale = (plot - room * (2 if lo < 0 else 1)) / (hi - lo)  # units per 1: room for the values' text
        zero = top + room + hi * scale  # (above the highest bar, below the lowest)
        colour, step = (_GREY, _BLUE, _ORANGE, _PURPLE)[k % 4], inner / n
        body.append(_text(x0 + inner / 2, y0 + r * row + sub * 0.9, name, sub, gap=1.25))
        for i, (v, t) in enumerate(zip(values, written, strict=True)):
            cx, yv = x0 + (i + 0.5) * step, zero - v * scale
            body.append(f'<rect x="{_n(cx - 0.36 * step)}" y="{_n(min(yv, zero))}" width="{_n(0.72 * step)}" '
                        f'height="{_n(abs(v * scale))}" fill="{colour}"/>')
            at = yv - 3 if v >= 0 else yv + 3
            body.append(_text(cx, at - num * 0.05 if v >= 0 else at + num * 0.8, t, num) if fit else
                        _text(cx, at, t, num, "start" if v >= 0 else "end", ' dy="0.35em"' + _up(cx, at)))
            body.append(_text(cx, top + plot + 4, names[i], tick, "end", ' dy="0.35em"' + _up(cx, top + plot + 4))
                        if rotate else _text(cx, top + plot + 4 + tick * 0.9, names[i], tick))
        body.append(f'<path d="M{_n(x0)} {_n(zero)}H{_n(x0 + inner)}" stroke="currentColor"/>')
    svg = _svg(width, math.ceil(y0 + rows * row - 14 + _PAD), d.string("alt"), body)
    return _figure("bars", svg, d.string("caption", d.string("alt")))


def _slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x: 2 means y grows as x²."""
    return statistics.linear_regression([math.log(v) for v in xs], [math.log(v) for v in ys]).slope


def _log_ticks(lo: float, hi: float, most: int) -> list[tuple[float, str]]:
    """A log axis's ticks from lo to hi and their words: 1, 2 and 5 of each decade, else each decade (or every
    k-th), at most `most`; within less than a decade, 1 to 9."""
    def at(subs: tuple[int, ...], every: int = 1) -> list[float]:
        return [v for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) if e % every == 0
                for v in (float(f"{s}e{e}") for s in subs) if lo <= v <= hi]

    ticks = next(t for t in (at((1, 2, 5)), *(at((1,), k) for k in range(1, 400))) if len(t) <= most)
    ticks = ticks if len(ticks) >= 2 else at(tuple(range(1, 10)))
    while len(ticks) > max(2, most):
        ticks = ticks[::2]
    return [(v, f"{v:g}") for v in ticks]


def _lines(d: _Decl, ident: str) -> str:
    """Series of y against x on log-log axes (what the lesson plots: how a quantity grows with another), each
    named in the legend, where ``{slope}`` is its fitted slope."""
    if d.data.get("log", d.text.get("log", True)) is not True:
        d.fail("log: lines are drawn on log-log axes (log: true, or no log key)")
    xs = d.numbers("x", "a list of numbers")
    series = d.matrix("y", f"a list of series, each a list of {len(xs)} numbers like x")
    if len(set(xs)) < 2 or len(series[0]) != len(xs):
        d.fail(f"y must be a list of series, each {len(xs)} numbers like x (2 distinct x at least), got {_got(series)}")
    if min(xs) <= 0 or min(map(min, series)) <= 0:
        d.fail("x and y must hold positive numbers only, to be drawn on log-log axes")
    names = d.strings("series", len(series), f"a list of {len(series)} names (one per series)")
    width, height, size = 540, 360, _min_px(540)
    names = [_wrap(name.replace("{slope}", f"{_slope(xs, ys):.1f}"), size, width - 2 * _PAD - 80)
             for name, ys in zip(names, series, strict=True)]
    head = size + 1.5
    title = _wrap(d.string("title"), head, width - 2 * _PAD)
    xlabel, ylabel = _wrap(d.string("xlabel"), size, width * 0.8), _wrap(d.string("ylabel"), size, height * 0.6)
    x0, x1, y0, y1 = min(xs) / 1.25, max(xs) * 1.25, min(map(min, series)) / 1.6, max(map(max, series)) * 1.6
    legend = _PAD + _lines_of(title) * head * 1.25 + 4
    top = legend + sum(_lines_of(name) * size * 1.2 + 4 for name in names) + 10
    bottom = height - _PAD - _lines_of(xlabel) * size * 1.2 - size * 1.2 - 10  # the plot's, then x's ticks, label
    most = int((bottom - top) // (size * 2)) + 1
    yt = _log_ticks(y0, y1, most)
    yw = max(_em(t) for _, t in yt) * size
    left = _PAD + _lines_of(ylabel) * size * 1.2 + yw + 12
    fixed = sorted(set(xs)) if len(set(xs)) <= 8 else []
    right = width - _PAD - _em(f"{max(fixed or [x1]):g}") * size / 2
    X = lambda v: left + math.log(v / x0) / math.log(x1 / x0) * (right - left)  # noqa: E731 - data to units
    Y = lambda v: bottom - math.log(v / y0) / math.log(y1 / y0) * (bottom - top)  # noqa: E731
    room = max(_em(f"{v:.6g}") for v in (x0, x1, *xs)) * size + 16  # a tick label's, at most
    if fixed and min(X(b) - X(a) for a, b in zip(fixed, fixed[1:], strict=False)) < room:
        fixed = []
    most = int((right - left) // room) + 1
    xt = [(v, f"{v:g}") for v in fixed] or _log_ticks(x0, x1, most)
    body = [f'<g {_GRID}>' + "".join(f'<path d="M{_n(X(v))} {_n(top)}V{_n(bottom)}"/>' for v, _ in xt)
            + "".join(f'<path d="M{_n(left)} {_n(Y(v))}H{_n(right)}"/>' for v, _ in yt) + "</g>",
            f'<path d="M{_n(left)} {_n(top)}V{_n(bottom)}H{_n(right)}" fill="none" stroke="currentColor"/>',
            '<g stroke="currentColor">' + "".join(f'<path d="M{_n(X(v))} {_n(bottom)}v4"/>' for v, _ in xt)
            + "".join(f'<path d="M{_n(left)} {_n(Y(v))}h-4"/>' for v, _ in yt) + "</g>",
            *(_text(X(v), bottom + 6 + size * 0.9, t, size) for v, t in xt),
            *(_text(left - 7, Y(v), t, size, "end", ' dy="0.35em"') for v, t in yt),
            _text((left + right) / 2, height - _PAD - size * 0.25 - (_lines_of(xlabel) - 1) * size * 1.2, xlabel, size),
            _text(_PAD + size * 0.9, (top + bottom) / 2, ylabel, size, more=_up(_PAD + size * 0.9, (top + bottom) / 2)),
            _text(width / 2, _PAD + head * 0.9, title, head, gap=1.25)]
    lx, ly, legend_svg = left + 6, legend, []  # the legend: each series' line, marker and name, above the plot
    for k, (ys, name) in enumerate(zip(series, names, strict=True)):
        colour, mark = _SERIES[k % 4]
        line = [(X(x), Y(y)) for x, y in zip(xs, ys, strict=True)]
        body.append(f'<path d="M{"L".join(f"{_n(x)} {_n(y)}" for x, y in line)}" fill="none" stroke="{colour}" '
                    f'stroke-width="2.5"/><path d="{"".join(_MARKS[mark](x, y) for x, y in line)}" fill="{colour}"/>')
        mid, ly = ly + size * 0.6, ly + _lines_of(name) * size * 1.2 + 4
        legend_svg.append(f'<path d="M{_n(lx)} {_n(mid)}h28" stroke="{colour}" stroke-width="2.5"/><path d="'
                          f'{_MARKS[mark](lx + 14, mid)}" fill="{colour}"/>'
                          + _text(lx + 36, mid, name, size, "start", ' dy="0.35em"'))
    body.append("".join(legend_svg))
    svg = _svg(width, height, d.string("alt"), body)
    return _figure("lines", svg, d.string("caption", d.string("alt")))


def _answer(d: _Decl, ident: str) -> str:
    """A box for the reader's number, checked in the browser against the run's `value` as shown to `digits`
    decimals (right within `within`, else within half the last digit); the explanation below then opens. Hidden
    without the script: the explanation stays, to open by hand."""
    value, digits = d.numbers("value", "a number")[0], int(d.numbers("digits", "a number of decimals")[0])
    within = d.numbers("within", "a number")[0] if "within" in d.data else 0.5 * 10**-digits
    data = {"value": value, "within": within, "shown": f"{value:.{digits}f}", "right": d.ui["answer_right"],
            "wrong": d.ui["answer_wrong"], "unread": d.ui["answer_unread"]}
    return (f'<form class="lesson-answer" data-answer={_json(data)} hidden>\n<label for="{ident}">'
            f'{escape(d.string("label"))}</label> <input id="{ident}" type="text" inputmode="decimal" '
            f'autocomplete="off" size="8"> <button type="submit" class="md-button md-button--primary">'
            f'{escape(d.ui["answer_check"])}</button>\n<p class="lesson-answer__result" role="status"></p>\n</form>')


_KINDS = {  # the drawing, and the keys of data, text and ui ("?": optional)
    "heatmap": (_heatmap, {"data": ("values", "beside?"),
                           "text": ("title", "labels", "xlabel", "ylabel", "alt", "caption?"),
                           "ui": ("heat_hint", "heat_row", "heat_masked", "list_sep")}),
    "answer": (_answer, {"data": ("value", "digits", "within?"), "text": ("label",),
                         "ui": ("answer_check", "answer_right", "answer_wrong", "answer_unread")}),
    "bars": (_bars, {"data": ("values",), "text": ("title", "labels", "panels", "alt", "caption?"), "ui": ()}),
    "lines": (_lines, {"data": ("x", "y", "log?"),
                       "text": ("title", "series", "xlabel", "ylabel", "alt", "caption?", "log?"), "ui": ()}),
    "explorer": (explorer.draw,
                 {"data": ("keys", "query", "exercise", "goals?"), "text": ("labels", "panels", "alt", "caption?",
                                                                          "tasks?"),
                  "ui": ("qk_axis_x", "qk_axis_y", "qk_handle", "qk_preset_lesson", "qk_preset_exercise", "qk_live",
                         "slider_label", "list_sep", "qk_tasks", "qk_task_done", "qk_task_live", "qk_why_above",
                         "qk_why_more", "qk_why_even")}),
}


def render(kind: str, data: dict[str, object], text: dict[str, object], ui: Mapping[str, str], ident: str) -> str:
    """One figure's ``<figure>``: `data` its values, `text` its words (escaped; the alt text is the caption if
    none), `ui` the language's site strings (the live figures' fixed words), `ident` an id unique in the page
    that scopes the figure's ids. Raises FigureError: one line naming the key and what was expected."""
    if kind not in _KINDS:
        raise FigureError(f"kind must be one of {', '.join(_KINDS)}, got {kind!r:.40}")
    if not isinstance(ident, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,63}", ident):
        raise FigureError(f"{kind}: ident must be a letter then letters, digits, - or _, got {ident!r:.40}")
    draw, keys = _KINDS[kind]
    return draw(_Decl(kind, data, text, ui, keys), ident)
