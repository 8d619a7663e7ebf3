"""Formulas rendered to MathML at build time: browsers draw it natively, so no math script or font is fetched."""

from __future__ import annotations

from typing import Any

from latex2mathml.converter import convert


def fence(source: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
    """SuperFences formatter for ```math blocks."""
    return f'<div class="{css_class}">{convert(source.strip(), display="block")}</div>'
