"""アテンション機構: the lesson's own functions, made from its listings, as d2l's ``#@save`` makes its package.

A top-level function in ``snippets/`` whose ``def`` line ends in ``#@save`` is an attribute of this package:
the cost page's ``attention_head``, ``seconds`` and ``peak_mib``, the √d page's ``scaling_study``. So the code a
page shows is the code the package offers, written once, in the lesson's voice. Loading them runs a listing's
imports and those definitions, nothing else (no printing), on first use (the site's machinery, a subpackage,
does not pay for torch); a traceback names the snippet's own file and line.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any

SAVE = "#@save"
"""The mark, at the end of a ``def`` line in snippets/, of a function the package offers."""


def snippets_dir() -> Path:
    """The lesson's listings: ``snippets/`` beside ``src/`` in the checkout this package is imported from, else
    in the current folder or the nearest one above it."""
    folder = Path(__file__).resolve().parents[2] / "snippets"
    if folder.is_dir():
        return folder
    for here in (Path.cwd(), *Path.cwd().parents):
        if (here / "snippets").is_dir():
            return here / "snippets"
    raise ImportError("the lesson's listings (snippets/) are neither beside this package nor here")


def saved(source: str, filename: str) -> dict[str, Any]:
    """The functions a listing marks ``#@save``, defined after the listing's own top-level imports."""
    lines = source.splitlines()
    tree = ast.parse(source, filename)
    kept = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
            or (isinstance(node, ast.FunctionDef) and lines[node.lineno - 1].rstrip().endswith(SAVE))]
    if not any(isinstance(node, ast.FunctionDef) for node in kept):
        return {}
    namespace: dict[str, Any] = {"__name__": __name__}
    exec(compile(ast.Module(body=kept, type_ignores=[]), filename, "exec"), namespace)  # noqa: S102
    return {node.name: namespace[node.name] for node in kept if isinstance(node, ast.FunctionDef)}


@functools.cache
def _functions() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in sorted(snippets_dir().glob("*.py")):
        for name, function in saved(path.read_text(encoding="utf-8"), str(path)).items():
            if name in found:
                raise ImportError(f"{path}: {name} is marked {SAVE} in two listings")
            found[name] = function
    return found


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    functions = _functions()
    if name not in functions:
        raise AttributeError(f"module 'attention_lesson' has no attribute {name!r}; the lesson saves "
                             f"{', '.join(sorted(functions))} ({SAVE} in snippets/)")
    return functions[name]


def __dir__() -> list[str]:
    return sorted([*globals(), *_functions()])
