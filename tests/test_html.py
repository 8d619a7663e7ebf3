"""The built site's HTML is valid: the Nu HTML Checker (vnu, the W3C's validator) on every page of every language.

vnu is the npm package vnu-jar (a pinned version), installed on first use into .cache/npm/vnu-jar/ (its
postinstall script, which would download a Java runtime, is not run), and run with the machine's java in one
call over the whole site. Without java or npm the module is skipped, except under CI (``$CI`` set), where it
fails; ``$LESSON_VNU`` names a vnu.jar to use instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from filelock import FileLock

VNU_JAR = "vnu-jar@26.9.27"
VNU = Path(os.environ.get("LESSON_VNU") or ROOT / ".cache" / "npm" / "vnu-jar" /
           "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar")
MATERIAL = [
    # Material's drawer and search toggles, <input type="checkbox" autocomplete="off"> in its base.html: HTML allows
    # autocomplete on text-like inputs only, but Firefox would otherwise restore a toggle's state on reload
    # (squidfunk/mkdocs-material#1513, closed; the attribute is still there in 9.8).
    ("Attribute “autocomplete” is only allowed when the input type is", 'class="md-toggle"'),
]
"""(the start of vnu's message, a string of the markup it quotes): what the project cannot change, with why."""
POLICY = ("Resource violates Content Security Policy", "Inline script violates Content Security Policy")
"""vnu's own reading of a page's policy, which it applies to the files it reads from disk: it takes a file: address
for another origin than 'self' and a JSON <script> for one that runs. The browser is the policy's judge:
tests/test_browser.py loads every page of every language and counts zero violations."""


def unavailable(reason: str) -> None:
    pytest.fail(reason) if os.environ.get("CI") else pytest.skip(reason)


@pytest.fixture(scope="module")
def vnu() -> list[str]:
    """The command that runs vnu.jar: installed first if need be (under a lock: workers may ask at once)."""
    java = shutil.which("java")
    if java is None:
        unavailable("java not found: apt-get install default-jre-headless")
    with FileLock(ROOT / ".cache" / "npm.lock"):
        if not VNU.is_file():
            npm = shutil.which("npm")
            if npm is None:
                unavailable(f"{VNU} not found, nor npm to install it (or set LESSON_VNU to a vnu.jar)")
            prefix = ROOT / ".cache" / "npm" / "vnu-jar"
            subprocess.run([npm, "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund",
                            "--ignore-scripts", "--loglevel=error", VNU_JAR], check=True, timeout=600)
    return [java, "-jar", str(VNU)]


def test_every_page_is_valid_html(vnu: list[str], site: Path) -> None:
    """vnu's errors and warnings on every HTML file of the built site, but for MATERIAL's."""
    # --no-langdetect: each page's lang is its folder's; vnu's guess from the text is wrong where code dominates
    proc = subprocess.run([*vnu, "--format", "json", "--skip-non-html", "--no-langdetect", str(site)],
                          capture_output=True, text=True, encoding="utf-8", timeout=600)
    assert proc.stderr.startswith("{"), f"vnu exited {proc.returncode}: {proc.stdout}{proc.stderr}"
    messages = json.loads(proc.stderr)["messages"]  # vnu writes its report on stderr, exits 1 on any error
    bad = [f"{m.get('url', '').partition(site.name)[2]}:{m.get('lastLine')}: {m['message']}\n    "
           f"{m.get('extract', '').strip()}" for m in messages
           if (m["type"] == "error" or m.get("subType") == "warning")
           and not any(m["message"].startswith(start) and quoted in m.get("extract", "") for start, quoted in MATERIAL)
           and not m["message"].startswith(POLICY)]
    assert not bad, f"{len(bad)} problem(s):\n" + "\n".join(bad)
