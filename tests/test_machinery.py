"""The machinery's shape: running, storing and localizing import nothing from MkDocs (one module adapts them)."""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT, run

SITE = ROOT / "src" / "attention_lesson" / "site"
ADAPTER = "plugin"


@pytest.mark.parametrize("module", sorted(p.stem for p in SITE.glob("*.py") if p.stem not in (ADAPTER, "__init__")))
def test_execution_imports_no_mkdocs(module: str) -> None:
    code = (f"import sys, attention_lesson.site.{module}; "
            "print(sorted(m for m in sys.modules if m == 'mkdocs' or m.startswith('mkdocs.')))")
    proc = run([sys.executable, "-c", code])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", f"attention_lesson.site.{module} imports {proc.stdout.strip()}"
