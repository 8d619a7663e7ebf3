"""The plugin's choice of results store: every language of one build reads the one run."""

from __future__ import annotations

import contextlib
import io
import signal
import sys

import pytest
from conftest import ROOT, ctrl_c_as_in_a_terminal

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


def test_a_ctrl_c_that_python_swallows_still_stops_the_build():
    """A Ctrl-C landing in a finalizer (a weakref callback, a __del__) is only reported by Python, as
    "Exception ignored", and the code goes on: `mkdocs build` must stop all the same, exit non-zero, and give
    the interpreter its own handler back."""
    with ctrl_c_as_in_a_terminal():
        plugin = LessonPlugin()
        plugin.on_startup(command="build", dirty=False)
        ignored = []
        hook, sys.unraisablehook = sys.unraisablehook, lambda report: ignored.append(report.exc_type)
        try:
            class Finalized:
                def __del__(self) -> None:
                    signal.raise_signal(signal.SIGINT)

            Finalized()  # collected at once: the KeyboardInterrupt is raised in its __del__, and swallowed
        finally:
            sys.unraisablehook = hook
        assert ignored == [KeyboardInterrupt]
        with pytest.raises(KeyboardInterrupt):  # the next event stops the build
            plugin.on_page_markdown("", page=None, config=None, files=None)
        with pytest.raises(KeyboardInterrupt):  # and so does the end of the command, after its last event
            plugin.on_shutdown()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_mkdocs_jupyter_evicts_its_stale_notebooks_under_the_plugins_lock():
    """mkdocs-jupyter's on_post_build deletes the rendered notebooks its build did not read; two builds doing it
    at once fail on each other's deletions (the concurrent builds of tests/test_faults.py hit it). The plugin
    locks the cache folder before that step and lets go after it."""
    from mkdocs.config import load_config

    with contextlib.redirect_stderr(io.StringIO()):
        config = load_config(str(ROOT / "mkdocs.yml"))
    steps = config.plugins.events["post_build"]
    names = [f"{type(step.__self__).__module__}.{step.__name__}" for step in steps]
    first = names.index("attention_lesson.site.plugin._on_post_build_first")
    evicts = names.index("mkdocs_jupyter.plugin.on_post_build")
    last = names.index("attention_lesson.site.plugin._on_post_build_last")
    assert first < evicts < last, names


def test_the_theme_listed_without_hidden_folders_gives_a_build_the_files_mkdocs_own_listing_does(tmp_path):
    """The plugin's theme loader does not descend into hidden folders (templates.theme_environments: Material's icons):
    a build copies the same static files as with MkDocs' own listing, the project's theme folder (custom_dir)
    included, and still none from a hidden folder or file."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    from attention_lesson.site.templates import theme_environments

    custom = tmp_path / "theme"
    for name in ("assets/lesson.css", "assets/.hidden.css", ".secret/note.css", "partials/footer.html"):
        (custom / name).parent.mkdir(parents=True, exist_ok=True)
        (custom / name).write_text("a {}", encoding="utf-8")

    def copied(visible: bool) -> dict[str, str]:
        config = load_config(str(ROOT / "mkdocs.yml"), theme={"name": "material", "custom_dir": str(custom)})
        if visible:
            theme_environments(config.theme, tmp_path / "compiled")
        files = Files([])
        files.add_files_from_theme(config.theme.get_env(), config)
        return {file.src_uri: file.abs_src_path for file in files}

    own = copied(False)
    assert copied(True) == own
    assert any(uri.startswith("assets/javascripts/bundle.") for uri in own)  # Material's own files are there
    assert "assets/lesson.css" in own and not any("/." in f"/{uri}" for uri in own)


def test_a_language_worker_stopped_by_ctrl_c_ends_quietly(monkeypatch, capsys):
    """Ctrl-C in a terminal reaches the whole process group, the other languages' workers too: a worker waiting
    for its next build ends with the shell's status for an interrupt, 130, and writes no traceback to its log."""
    from attention_lesson.site import workers

    class Interrupted:
        def __iter__(self):
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", Interrupted())
    assert workers.main([str(ROOT / "mkdocs.yml")]) == 130
    assert "Traceback" not in capsys.readouterr().err
