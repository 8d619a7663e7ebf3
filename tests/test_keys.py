"""A stored result is keyed on what it depends on, and no more: editing the site's machinery measures nothing.

A listing's result depends on its code, its session, the Python and torch versions and the package modules it
imports (none, for the lesson's listings); a figure's also on the figures module. So an edit of the plugin, of a
figure's colours or of the translators' check runs no listing again, and the cost page, whose listing measures
the machine, shows the same numbers, to the byte.
"""

from __future__ import annotations

import re
import sys

import commands
from conftest import own_store, run, slim


def _cost_table(site) -> str:
    return re.search(r"<table>.*?</table>", (site / "cost" / "index.html").read_text(encoding="utf-8"), re.S)[0]


def test_editing_the_machinery_runs_no_listing_again(built_site, project_copy, tmp_path):
    slim(project_copy, ["index.md", "cost.md", "translation-status.md"], ["ja"])  # the cost page, few others
    # the session's results, the cost page's run among them: the figures are drawn again in a store of its own
    env = {"LESSON_LANG": "ja", "LESSON_STORE": str(own_store(tmp_path))}
    build = ["build", "--strict", "-v", "-d"]
    # Before the edit the copy's code is this process's package: built here, without a process's start.
    proc = commands.mkdocs(project_copy, *build, str(tmp_path / "before"), env=env)
    assert proc.returncode == 0, proc.stderr
    machinery = project_copy / "src" / "attention_lesson" / "site"
    figures = machinery / "figures.py"
    assert 'BLUE = "#3b82f6"' in figures.read_text(encoding="utf-8")
    figures.write_text(figures.read_text(encoding="utf-8").replace('BLUE = "#3b82f6"', 'BLUE = "#2563eb"'),
                       encoding="utf-8")
    for module in ("plugin.py", "translations.py"):
        path = machinery / module
        path.write_text(path.read_text(encoding="utf-8") + "\n# an edit of the machinery\n", encoding="utf-8")
    log = run([sys.executable, "-m", "mkdocs", *build, str(tmp_path / "after")], cwd=project_copy,
              env=env).stderr  # the copy's own code, as edited: a process of its own

    ran = re.findall(r"Ran (docs/\S+: \S+(?: snippets/\S+)?)", log)
    assert ran and all(": figure: " in block for block in ran), f"not only figures ran again: {ran}"
    assert not any("snippets/cost.py in" in line and "figure" not in line for line in log.splitlines())
    assert _cost_table(tmp_path / "after") == _cost_table(tmp_path / "before")  # the same run, to the byte
    cost = (tmp_path / "after" / "cost" / "index.html").read_text(encoding="utf-8")
    assert "#2563eb" in cost and "#3b82f6" not in cost  # and the figure was drawn again, in the new colour
