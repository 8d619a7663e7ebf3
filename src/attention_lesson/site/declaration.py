"""A figure's declaration, checked key by key, and what every figure kind writes alike: numbers in cells and
coordinates, data as a JSON attribute, the data colours. The figure kinds (:mod:`figures`, :mod:`explorer`) import
it; it imports neither.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from html import escape

# Data colours: a contrast of at least 3:1 against both white and the dark palette's #1e2129.
BLUE, ORANGE = "#3b82f6", "#e06c00"


class FigureError(ValueError):
    """A figure's declaration is wrong: one line naming the key and what was expected."""


def is_number(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def got(v: object) -> str:
    """What a value is, for an error message: its shape, and its first element that is not a number."""
    if not isinstance(v, (list, tuple)):
        return f"{type(v).__name__} {v!r:.40}"
    rows = v if v and all(isinstance(r, (list, tuple)) for r in v) else [v]
    sizes = sorted({len(r) for r in rows})
    shape = (f"a list of {len(v)}" if rows is not v else f"{len(v)}×{sizes[0]}" if len(sizes) == 1
             else f"rows of {'/'.join(map(str, sizes))} numbers")
    bad = [x for r in rows for x in r if not is_number(x)]
    return shape + (f" holding {bad[0]!r:.40}" if bad else "")


class Declaration:
    """One figure's data, text and ui, checked: each getter fails naming the key and what it expected."""

    def __init__(self, kind: str, data: Mapping, text: Mapping, ui: Mapping[str, str], keys: dict[str, tuple]) -> None:
        self.kind, self.data, self.text = kind, data, text
        for where, given in (("data", data), ("text", text)):
            listed = f"(its keys: {', '.join(keys[where])}; ? optional)"
            for key in keys[where]:
                if not key.endswith("?") and key not in given:
                    self.fail(f"{where} has no {key!r} {listed}")
            for key in given:
                if key not in keys[where] and f"{key}?" not in keys[where]:
                    self.fail(f"{where} has an unknown key {key!r:.40} {listed}")
        if missing := [key for key in keys["ui"] if not isinstance(ui.get(key), str)]:
            self.fail(f"ui has no {missing[0]!r} (a string of strings.yml's ui:)")
        self.ui = {key: ui[key] for key in keys["ui"]}

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
        if not rows or len({len(r) for r in value}) != 1 or not value[0] or not all(
                is_number(x) for r in value for x in r):
            self.fail(f"{key} must be {what}, got {got(value)}")
        return [[float(x) for x in r] for r in value]

    def numbers(self, key: str, what: str) -> list[float]:
        value = [self.data[key]] if is_number(self.data[key]) else self.data[key]
        if not isinstance(value, (list, tuple)) or not value or not all(map(is_number, value)):
            self.fail(f"{key} must be {what}, got {got(value)}")
        return [float(v) for v in value]


def cell_text(value: float) -> str:
    """A value as written in a cell or above a bar: rounded to 2 decimals, never "-0.00"."""
    return f"{round(value, 2) + 0.0:.2f}"


def coordinate(v: float) -> str:
    """A coordinate as the SVG writes it: to a tenth of a unit, never "-0"."""
    return f"{round(v, 1) + 0.0:g}"


def json_attribute(value: object) -> str:
    """A value as a JSON data attribute's value, single-quoted: JSON's many " stay as they are."""
    text = escape(json.dumps(value, ensure_ascii=False, separators=(",", ":")), quote=False)
    return "'" + text.replace("'", "&#x27;") + "'"
