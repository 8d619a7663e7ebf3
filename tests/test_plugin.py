"""The plugin's choice of results store: every language of one build reads the one run."""

from __future__ import annotations

from conftest import ROOT

from attention_lesson.site import project
from attention_lesson.site.plugin import LessonPlugin


def test_a_language_worker_reads_its_parents_store_even_with_no_cache(tmp_path):
    """LESSON_NO_CACHE reaches the workers' processes too: they must read the store their parent build ran the
    code into (its private one), or each language would measure the machine again and show another run."""
    plugin = LessonPlugin()
    errors, warnings = plugin.load_config({"no_cache": True})
    assert not errors and not warnings
    plugin.assign(lang="en", store=str(tmp_path / "parent"), preview=False)
    with project.building(ROOT):
        assert plugin._store().path == tmp_path / "parent"
    assert plugin.private is None  # nothing private made, nothing of the parent's removed
