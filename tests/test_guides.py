"""The guides' commands, as typed: every shell line of README.md, CONTRIBUTING.md and docs/TRANSLATING.md, and every
command the translators' check prints for the user to run, in a copy of the project with the project's own
environment (``.venv`` linked, so ``.ci/env`` finds it installed), with the languages of the tree.

Left to other tests, and why: ``mkdocs serve`` (it does not end: tests/test_content.py serves every language and
a translator's preview as typed), ``pytest`` (this suite), the Windows lines (``py .ci\\env``: the same script).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, copy_project, environment, languages

GUIDES = ["README.md", "CONTRIBUTING.md", "docs/TRANSLATING.md"]
NEW = next(code for code in ("ko", "ar", "fr", "de") if code not in languages())
"""A language the tree does not have: the one a new translator starts."""


def commands() -> list[tuple[str, str]]:
    """(guide, command) for every shell line the guides show, in their order, comments and prompts aside."""
    found = []
    for guide in GUIDES:
        text = (ROOT / guide).read_text("utf-8")
        for block in re.findall(r"^```(?:sh|bash|console)\n(.*?)^```", text, re.M | re.S):
            for line in block.splitlines():
                command = re.sub(r"\s+#.*$", "", line).strip()
                if command:
                    found.append((guide, command))
    return found


def _runnable(command: str) -> bool:
    return not re.search(r"\bmkdocs serve\b|\bpytest\b", command)


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=environment(), capture_output=True, text=True,
                          encoding="utf-8", errors="replace", timeout=600)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy with .ci/ and the project's .venv linked in; a new translator's page copied from the Japanese one
    (TRANSLATING.md's step 3 starts each page so), for --done to record."""
    copy = copy_project(tmp_path_factory.mktemp("guides"))
    shutil.copytree(ROOT / ".ci", copy / ".ci")
    (copy / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    return copy


def test_the_guides_show_commands() -> None:
    assert len([c for _, c in commands() if _runnable(c)]) >= 6, commands()


def test_every_command_of_the_guides_runs_as_typed(project: Path) -> None:
    """In the guides' order (a translator starts the folder before checking it), each exits 0; a command the
    output tells the user to run next is run as printed too."""
    failed = []
    for guide, command in [(g, c) for g, c in commands() if _runnable(c)]:
        typed = command.replace("<code>", NEW)
        if "--done" in typed:
            page = typed.split("--done", 1)[1].split()[0]
            shutil.copy(project / "docs" / "ja" / page, project / "docs" / NEW / page)
        proc = shell(typed, project)
        if proc.returncode != 0:
            failed.append(f"{guide}: {typed}: exit {proc.returncode}\n{proc.stderr[-1500:]}")
        for told in re.findall(r"(?:check with|then run): (\.ci/env [^\n;]+)", proc.stdout):
            after = shell(told.strip(), project)
            if after.returncode != 0:
                failed.append(f"{guide}: {typed} said to run {told!r}: exit {after.returncode}\n{after.stderr[-1500:]}")
    assert not failed, "\n\n".join(failed)
