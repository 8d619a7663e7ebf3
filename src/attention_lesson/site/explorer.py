"""The figure kind ``explorer`` (section 2's live figure): keys on a plane and a query the reader moves, with
the scores q·k and the weights softmax(multiplier × scores) beside them, drawn for the first preset at ×1 (what
a reader without JavaScript sees); lesson.js (data-qk) redraws it in float32, as torch computes. All text is
escaped; a page's ``goals`` are checked here, as CONTRIBUTING.md says.
"""

from __future__ import annotations

import math
import struct
from html import escape

from attention_lesson.site.declaration import BLUE as _BLUE
from attention_lesson.site.declaration import ORANGE as _ORANGE
from attention_lesson.site.declaration import Declaration as _Decl
from attention_lesson.site.declaration import cell_text as _cell_text
from attention_lesson.site.declaration import coordinate as _f
from attention_lesson.site.declaration import got as _got
from attention_lesson.site.declaration import is_number as _is_number
from attention_lesson.site.declaration import json_attribute as _json

_SCALES = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0)  # the slider's multipliers
_RANGE, _STEP = (-0.5, 1.2), 0.05  # where the query can go (and the keys be), in each coordinate; its grid
_PLANE, _UNIT, _ORIGIN = 300, 150, (90, 210)  # the viewBox's side, its units per unit, where [0, 0] is
_KEY_HEAD, _QUERY_HEAD = (8, 8), (13, 13)  # an arrowhead's length and width
_GOALS = {"above": ("at", "value"), "more": ("at", "than"), "even": ("within",)}  # a goal's kind → its numbers


def _f32(v: float) -> float:
    return struct.unpack("f", struct.pack("f", v))[0]


def _pt(x: float, y: float) -> tuple[float, float]:
    return _ORIGIN[0] + _UNIT * x, _ORIGIN[1] - _UNIT * y


def _arrow(x: float, y: float, head: tuple[float, float]) -> tuple[str, str]:
    """The shaft's end (x2, y2) and the head's points of an arrow from [0, 0] to [x, y] (as lesson.js's arrow())."""
    tx, ty = _pt(x, y)
    dx, dy = tx - _ORIGIN[0], ty - _ORIGIN[1]
    n = math.hypot(dx, dy)
    if n < head[0]:  # too short to have a head
        return f'x2="{_f(tx)}" y2="{_f(ty)}"', ""
    ux, uy, w = dx / n, dy / n, head[1] / 2
    bx, by = tx - ux * head[0], ty - uy * head[0]
    return (f'x2="{_f(bx)}" y2="{_f(by)}"',
            f"{_f(tx)},{_f(ty)} {_f(bx - uy * w)},{_f(by + ux * w)} {_f(bx + uy * w)},{_f(by - ux * w)}")


def _scores(keys: list[list[float]], q: list[float]) -> list[float]:
    return [_f32(_f32(a * q[0]) + _f32(b * q[1])) for a, b in keys]  # in float32, as torch's k @ q


def _weights(keys: list[list[float]], q: list[float], scale: float = 1.0) -> list[float]:
    """softmax(scale × k @ q) as lesson.js computes it: the scores as torch's, the rest in double."""
    scores = [s * scale for s in _scores(keys, q)]
    e = [math.exp(s - max(scores)) for s in scores]
    return [v / sum(e) for v in e]


def _met(goal: dict, w: list[float]) -> bool:
    """Whether weights `w` meet a goal (as lesson.js's met())."""
    if goal["kind"] == "above":
        return w[goal["at"]] > goal["value"]
    if goal["kind"] == "more":
        return w[goal["at"]] > w[goal["than"]]
    return max(abs(v - sum(w) / len(w)) for v in w) <= goal["within"]  # every weight near the mean


def _goals(d: _Decl, keys: list[list[float]], start: list[float]) -> tuple[list[dict], list[str]]:
    """The page's goals, checked against the vocabulary and the grid, and its tasks (one per goal)."""
    if ("goals" in d.data) != ("tasks" in d.text):
        d.fail("goals (data) and tasks (text) go together: one task per goal")
    if "goals" not in d.data:
        return [], []
    raw, n = d.data["goals"], len(keys)
    kinds = "; ".join(f"{{kind: {k}, {', '.join(f'{f}: …' for f in fs)}}}" for k, fs in _GOALS.items())
    if not isinstance(raw, list) or not raw:
        d.fail(f"goals must be a list of goals, each one of {kinds}; got {_got(raw)}")
    goals = []
    for i, goal in enumerate(raw):
        fields = _GOALS.get(goal.get("kind")) if isinstance(goal, dict) and isinstance(goal.get("kind"), str) else None
        if fields is None or set(goal) != {"kind", *fields} or not all(map(_is_number, (goal[f] for f in fields))):
            d.fail(f"goals[{i}] must be one of {kinds}; got {goal!r:.80}")
        clean = {"kind": goal["kind"]} | {f: float(goal[f]) for f in fields}
        for f in ("at", "than"):
            if f in clean:
                if not clean[f].is_integer() or not 0 <= clean[f] < n:
                    d.fail(f"goals[{i}].{f} must be a label's position, 0 to {n - 1}; got {goal[f]!r:.40}")
                clean[f] = int(clean[f])
        goals.append(clean)
    tasks = d.strings("tasks", len(goals), f"a list of {len(goals)} texts (a task per goal)")
    grid = [_RANGE[0] + _STEP * i for i in range(round((_RANGE[1] - _RANGE[0]) / _STEP) + 1)]
    for i, goal in enumerate(goals):  # (a goal that can never be met, at == than or value > 1, is met nowhere)
        if _met(goal, _weights(keys, start)):
            d.fail(f"goals[{i}] is met by the figure as drawn (the first query, ×1): a task must ask for a change")
        if not any(_met(goal, _weights(keys, [x, y], s)) for s in _SCALES for x in grid for y in grid):
            d.fail(f"goals[{i}] is met nowhere on the plane at any multiplier: no reader can do this task")
    return goals, tasks


def _tasks(tasks: list[str], ui: dict, ident: str) -> str:
    """The tasks as a plain list (what a reader without JavaScript reads), and the live region lesson.js fills."""
    if not tasks:
        return ""
    items = "".join(f'<li class="lesson-qk__task"><span class="lesson-qk__mark" aria-hidden="true"></span>'
                    f'<span class="lesson-qk__text">{escape(t)}</span></li>' for t in tasks)
    return (f'<div class="lesson-qk__practice">\n<p class="lesson-qk__head" id="{ident}-tasks">{escape(ui["qk_tasks"])}'
            f'</p>\n<ol class="lesson-qk__tasks" aria-labelledby="{ident}-tasks">{items}</ol>\n'
            f'<p class="lesson-qk__live lesson-qk__news" aria-live="polite"></p>\n</div>\n')


def _q_text(q: list[float]) -> str:
    return f"q = [{_cell_text(q[0])}, {_cell_text(q[1])}]"


def _plane(keys: list[list[float]], q: list[float], labels: list[str], alt: str, ui: dict, ident: str) -> str:
    x0, y0 = _ORIGIN
    grid = "".join(f'<line x1="{_f(_pt(v, 0)[0])}" y1="0" x2="{_f(_pt(v, 0)[0])}" y2="{_PLANE}"/>'
                   f'<line x1="0" y1="{_f(_pt(0, v)[1])}" x2="{_PLANE}" y2="{_f(_pt(0, v)[1])}"/>'
                   for v in (-0.5, 0.5, 1.0))
    axes = (f'<line x1="{_f(_pt(-0.6, 0)[0])}" y1="{y0}" x2="{_f(_pt(1.4, 0)[0])}" y2="{y0}"/>'
            f'<line x1="{x0}" y1="{_f(_pt(0, -0.6)[1])}" x2="{x0}" y2="{_f(_pt(0, 1.4)[1])}"/>')
    words = (f'<text x="{_f(_pt(1, 0)[0])}" y="{y0 + 24}" text-anchor="middle">1</text>'
             f'<text x="{x0 - 5}" y="{_f(_pt(0, 1)[1] + 4)}" text-anchor="end">1</text>'
             f'<text x="{_PLANE - 4}" y="{y0 + 40}" text-anchor="end">{escape(ui["qk_axis_x"])} →</text>'
             f'<text x="{x0 + 6}" y="14">↑ {escape(ui["qk_axis_y"])}</text>')
    qx, qy = q
    nq = math.hypot(qx, qy)
    ux, uy = (qx / nq, qy / nq) if nq else (0.0, 0.0)
    side = -1.0 if (-uy * sum(k[0] for k in keys) + ux * sum(k[1] for k in keys)) > 0 else 1.0
    lx, ly = _pt(qx / 2 - side * uy * 0.09, qy / 2 + side * ux * 0.09)  # q's label, away from the keys
    (l1x, l1y), (l2x, l2y) = _pt(-3 * ux, -3 * uy), _pt(3 * ux, 3 * uy)
    drops, arrows = "", ""
    for (kx, ky), name in zip(keys, labels, strict=True):
        (px, py), (fx, fy) = _pt(kx, ky), _pt(ux * (kx * ux + ky * uy), uy * (kx * ux + ky * uy))
        drops += (f'<line class="lesson-qk__drop" x1="{_f(px)}" y1="{_f(py)}" x2="{_f(fx)}" y2="{_f(fy)}"/>'
                  f'<circle class="lesson-qk__foot" cx="{_f(fx)}" cy="{_f(fy)}" r="2.5"/>')
        end, head = _arrow(kx, ky, _KEY_HEAD)
        n = math.hypot(kx, ky) or 1.0
        tx, ty = _pt(kx + kx / n * 0.11, ky + ky / n * 0.11)  # the label, just past the tip
        arrows += (f'<line x1="{x0}" y1="{y0}" {end}/><polygon points="{head}"/><text x="{_f(tx)}" y="{_f(ty)}" '
                   f'dy="0.35em" text-anchor="middle" stroke="none" fill="currentColor">{escape(name)}</text>')
    shaft, points = _arrow(qx, qy, _QUERY_HEAD)
    hx, hy = _pt(qx, qy)
    hidden = "" if nq else ' visibility="hidden"'
    return (
        f'<svg class="lesson-qk__plane" viewBox="0 0 {_PLANE} {_PLANE}" xmlns="http://www.w3.org/2000/svg" '
        f'direction="ltr" role="group" aria-label="{escape(alt)}">\n<g aria-hidden="true" font-size="11">\n'
        f'<g stroke="currentColor" stroke-opacity="0.14">{grid}</g>\n'
        f'<g stroke="currentColor" stroke-opacity="0.55">{axes}</g>\n'
        f'<g fill="currentColor" fill-opacity="0.75">{words}</g>\n'
        f'<g class="lesson-qk__shadow"{hidden}><line class="lesson-qk__line" x1="{_f(l1x)}" y1="{_f(l1y)}" '
        f'x2="{_f(l2x)}" y2="{_f(l2y)}"/>{drops}</g>\n'
        f'<g class="lesson-qk__query" stroke="{_ORANGE}" fill="{_ORANGE}"><line x1="{x0}" y1="{y0}" {shaft} '
        f'stroke-width="5"/><polygon points="{points}" stroke="none"/></g>\n'
        f'<g class="lesson-qk__keys" stroke="{_BLUE}" fill="{_BLUE}" stroke-width="2" font-size="15">{arrows}</g>\n'
        f'<text class="lesson-qk__qlabel" x="{_f(lx)}" y="{_f(ly)}" dy="0.35em" text-anchor="middle" '
        f'font-size="15" font-style="italic" fill="currentColor">q</text>\n</g>\n'
        f'<g class="lesson-qk__handle" transform="translate({_f(hx)} {_f(hy)})" role="slider" '
        f'aria-label="{escape(ui["qk_handle"])}" aria-valuemin="{_RANGE[0]:g}" aria-valuemax="{_RANGE[1]:g}" '
        f'aria-valuenow="{qx:g}" aria-valuetext="{_q_text(q)}" aria-describedby="{ident}-live">'
        f'<circle r="22" fill="transparent"/><circle class="lesson-qk__ring" r="14" fill="none"/>'
        f'<circle r="8" fill="none" stroke="{_ORANGE}" stroke-width="2.5"/></g>\n</svg>'
    )


def _bar_rows(names: list[str], values: list[float], low: float, high: float, kind: str) -> str:
    zero = f'<span class="lesson-qk__zero" style="left:{100 * -low / (high - low):.2f}%"></span>' if low < 0 else ""

    def style(v: float) -> str:  # a bar's left and width in % of its track, whose ends are low and high
        z, at = -low / (high - low), (v - low) / (high - low)
        return f"left:{100 * min(z, at):.2f}%;width:{100 * abs(at - z):.2f}%"

    return "\n".join(
        f'<div class="lesson-qk__row"><span class="lesson-qk__word">{escape(w)}</span><span class="lesson-qk__track">'
        f'{zero}<span class="lesson-qk__bar lesson-qk__bar--{kind}" style="{style(v)}"></span></span>'
        f'<span class="lesson-qk__value">{_cell_text(v)}</span></div>' for w, v in zip(names, values, strict=True))


def draw(d: _Decl, ident: str) -> str:
    """The explorer's <figure>: the plane (SVG), the scores' and weights' bars, the slider and the presets, its
    data-qk for lesson.js; controls start disabled (lesson.js enables them)."""
    within = f"numbers within {_RANGE[0]:g}..{_RANGE[1]:g}"
    raw = d.matrix("keys", f"an N×2 matrix of {within} (a key per label, on the plane)")
    presets = [d.numbers(key, f"2 {within}") for key in ("query", "exercise")]
    for key, value in (("keys", raw), ("query", [presets[0]]), ("exercise", [presets[1]])):
        if len(value[0]) != 2 or not all(_RANGE[0] <= v <= _RANGE[1] for k in value for v in k):
            d.fail(f"{key} must be {'an N×2 matrix of ' if key == 'keys' else '2 '}{within}, "
                   f"got {_got(value) if key == 'keys' else value[0]}")
    keys, presets = [[_f32(v) for v in k] for k in raw], [[_f32(v) for v in p] for p in presets]  # as the tensors
    names, heads = d.labels(len(keys)), d.strings("panels", 2, "a list of 2 titles (the scores', the weights')")
    scores, weights = _scores(keys, presets[0]), _weights(keys, presets[0])
    goals, tasks = _goals(d, keys, presets[0])
    ends = [a * c + b * r for a, b in keys for c in _RANGE for r in _RANGE]  # the scores any query can give
    low, high = min(*ends, 0.0), max(*ends, 0.0)
    data = {
        "keys": keys, "labels": names, "presets": presets, "scales": list(_SCALES), "range": list(_RANGE),
        "step": _STEP, "scores": [round(low, 6), round(high, 6)],
        "plane": {"origin": list(_ORIGIN), "unit": _UNIT, "key": list(_KEY_HEAD), "query": list(_QUERY_HEAD)},
        "goals": goals,
        "text": {"live": d.ui["qk_live"], "sep": d.ui["list_sep"], "done": d.ui["qk_task_done"],
                 "news": d.ui["qk_task_live"], "why": {k: d.ui[f"qk_why_{k}"] for k in _GOALS}},
    }
    buttons = "".join(
        f'<button type="button" class="lesson-qk__preset" data-preset="{i}" disabled>'
        f'{escape(d.ui[key].replace("{q}", f"[{p[0]:g}, {p[1]:g}]"))}</button>'
        for i, (key, p) in enumerate(zip(("qk_preset_lesson", "qk_preset_exercise"), presets, strict=True)))
    return (
        f'<figure class="lesson-figure lesson-qk" data-qk={_json(data)}>\n<div class="lesson-qk__body">\n'
        f'<div class="lesson-qk__plot" dir="ltr">\n{_plane(keys, presets[0], names, d.string("alt"), d.ui, ident)}\n'
        f'</div>\n<div class="lesson-qk__bars">\n<p class="lesson-qk__head">{escape(heads[0])}</p>\n'
        f'{_bar_rows(names, scores, low, high, "score")}\n'
        f'<div class="lesson-qk__scale"><label for="{ident}-scale">{escape(d.ui["slider_label"])}</label>'
        f'<input id="{ident}-scale" type="range" min="0" max="{len(_SCALES) - 1}" step="1" '
        f'value="{_SCALES.index(1.0)}" aria-valuetext="×1" disabled><output for="{ident}-scale">×1</output></div>\n'
        f'<p class="lesson-qk__head">{escape(heads[1])}</p>\n{_bar_rows(names, weights, 0, 1, "weight")}\n'
        f'</div>\n</div>\n<div class="lesson-qk__controls">{buttons}<output class="lesson-qk__q">'
        f'{_q_text(presets[0])}</output></div>\n{_tasks(tasks, d.ui, ident)}'
        f'<p class="lesson-qk__live" id="{ident}-live" aria-live="polite"></p>\n'
        f'<figcaption>{escape(d.string("caption", d.string("alt")))}</figcaption>\n</figure>'
    )
