"""The runner and its store: each block runs once for every language, results are reused by their source, and
bad input (a raising block, a damaged or interrupted cache entry, two writers) gives a clear result."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest

from attention_lesson.site import i18n, project
from attention_lesson.site.runner import BlockError, Runner
from attention_lesson.site.store import Store

LANGS = i18n.languages()
PRINTS = 'print("softmax 後の重み：", 0.5)\n'  # a printed Japanese string, as the listings write it


@pytest.fixture
def runner(tmp_path) -> Runner:
    store = Store(tmp_path / "store")
    runner = Runner(store)
    runner.start_build("ja", store, LANGS)
    runner.begin_page("page.md")
    return runner


def _each_language(runner: Runner, code: str) -> dict[str, str]:
    """The page's block as each language's build sees it (one page, one session, once per language)."""
    outputs = {}
    for lang in LANGS:
        runner.begin_page("page.md")
        outputs[lang] = runner.run(code, session="s", lang=lang)
    return outputs


def test_a_block_runs_once_and_every_language_gets_its_own_strings(runner):
    outputs = _each_language(runner, PRINTS)
    assert runner.stats.executed == 1 and runner.stats.reused == len(LANGS) - 1
    assert outputs["ja"] == "softmax 後の重み： 0.5\n"
    for lang in LANGS:
        translated = (i18n.strings(lang).get("literals") or {}).get("softmax 後の重み：", "softmax 後の重み：")
        assert outputs[lang] == f"{translated} 0.5\n"
    assert outputs["en"] != outputs["ja"]


def test_the_output_is_what_the_languages_own_code_prints(runner, capsys):
    """Running the page's localized code gives exactly the runner's output for that language."""
    for lang in LANGS:
        exec(i18n.localize_source(PRINTS, lang), {})  # noqa: S102
        assert capsys.readouterr().out == runner.run(PRINTS, session=lang, lang=lang)


def test_a_block_that_reads_the_language_runs_once_per_language(runner):
    code = "from attention_lesson.site.i18n import ui\nprint(ui('original'))\n"
    outputs = _each_language(runner, code)
    assert runner.stats.executed == len(LANGS) and runner.stats.reused == len(LANGS) - 1
    assert outputs == {lang: i18n.ui("original", lang) + "\n" for lang in LANGS}


def test_stored_results_are_reused_by_a_new_build_and_a_changed_block_runs_again(tmp_path):
    store = Store(tmp_path / "store")
    first = Runner(store)
    first.start_build("ja", store, LANGS)
    first.begin_page("p.md")
    first.run("x = 41\n", session="s")
    assert first.run("print(x + 1)\n", session="s") == "42\n"
    first.end_page()

    second = Runner(store)
    second.start_build("en", store, LANGS)
    second.begin_page("p.md")
    second.run("x = 41\n", session="s")
    assert second.run("print(x + 1)\n", session="s") == "42\n"
    assert second.stats.executed == 0
    # a changed later block: the earlier one runs again first, so the name is defined as in a clean build
    assert second.run("print(x + 2)\n", session="s") == "43\n"
    assert second.stats.executed == 3


def test_a_replayed_block_that_prints_something_else_asks_for_the_page_again(tmp_path):
    store = Store(tmp_path / "store")
    code = "import time\nstamp = time.perf_counter_ns()\nprint(stamp)\n"
    first = Runner(store)
    first.start_build("ja", store, LANGS)
    first.begin_page("p.md")
    shown = first.run(code, session="s")
    first.end_page()

    second = Runner(store)
    second.start_build("ja", store, LANGS)
    second.begin_page("p.md")
    assert second.run(code, session="s") == shown  # from the store
    second.run("print(stamp)\n", session="s")  # new: the timing block runs again
    assert second.take_rerender()
    second.begin_page("p.md")
    again = second.run(code, session="s")
    assert again != shown and second.run("print(stamp)\n", session="s") == again  # one run on the page


# A session as the cost page has it: a measurement that takes seconds and gives another number each run, kept in
# a plain table as the listing keeps it, and a figure drawn in the page's language from it.
MEASURE = "import time\n\ntable = {1000: [time.perf_counter(), 0.0]}\n"
FIGURE = "from attention_lesson.site.i18n import ui\nprint(ui('original'), type(table).__name__, *table)\n"


def _build(store: Store, languages: list[str]) -> tuple[Runner, str]:
    """One build of the page above with these languages (as if only their folders existed): the figure's
    output in the last one."""
    runner = Runner(store)
    runner.start_build("ja", store, languages)
    runner.begin_page("cost.md")
    runner.run(MEASURE, session="cost", title="snippets/cost.py")
    shown = runner.run(FIGURE, session="cost", title="figure: snippets/cost.py", lang=languages[-1])
    runner.end_page()  # the build's end: another build may render the page
    return runner, shown


def test_a_language_added_later_draws_its_figures_from_the_stored_run(tmp_path):
    """A translator's new folder does not measure the machine again: the figure runs for the new language alone,
    from the names it read in the stored run, so it shows the numbers every other language shows."""
    store = Store(tmp_path / "store")
    first, _ = _build(store, ["ja", "en"])
    assert first.stats.executed == 3  # the measurement, the figure in ja and in en
    second, shown = _build(store, ["ja", "en", "zh"])
    assert second.stats.executed == 1  # the figure in zh, and nothing else
    assert shown == f"{i18n.ui('original', 'zh')} dict 1000\n"


@pytest.mark.parametrize("damage", ["unreadable", "gone"])
def test_a_figure_whose_stored_inputs_cannot_be_restored_replays_its_session(tmp_path, damage):
    """Inputs that no longer load (a class that moved, a damaged entry) cost a replay, never a wrong figure."""
    store = Store(tmp_path / "store")
    _build(store, ["ja", "en"])
    for entry in (tmp_path / "store").rglob("*.json"):
        stored = json.loads(entry.read_text(encoding="utf-8"))
        if '"values"' in stored["payload"]:  # the figure's inputs
            if damage == "gone":
                entry.unlink()
            else:
                store.put(stored["key"], {"modules": {}, "values": "bm90IGEgcGlja2xl"})  # "not a pickle"
    second, shown = _build(store, ["ja", "en", "zh"])
    assert second.stats.executed == 4  # the measurement again, then the figure in each language
    assert shown == f"{i18n.ui('original', 'zh')} dict 1000\n"


def test_sessions_belong_to_a_page(runner):
    runner.run("secret = 42\n", session="s")
    runner.begin_page("other.md")
    with pytest.raises(BlockError, match="NameError: name 'secret' is not defined"):
        runner.run("print(secret)\n", session="s", title="snippets/other.py")


def test_a_raising_block_names_its_title_line_and_exception(runner):
    with pytest.raises(BlockError) as error:
        runner.run("x = 1\n\nraise RuntimeError('broken on purpose')\n", session="s", title="snippets/x.py")
    assert str(error.value) == "page.md: snippets/x.py, line 3: RuntimeError: broken on purpose"  # no such file
    with pytest.raises(BlockError, match=r"page.md: snippets/y.py, line 1: SyntaxError"):
        runner.run("print(\n", title="snippets/y.py")


def test_a_printed_string_that_is_changed_before_printing_is_an_error(runner):
    with pytest.raises(BlockError, match="printed Japanese string was changed"):
        runner.run('print("softmax 後の重み："[:2])\n', title="snippets/z.py")


def test_the_environment_key_names_python_and_torch():
    assert project.environment_key().startswith("python ") and "; torch 2." in project.environment_key()


def test_a_block_is_keyed_on_what_it_imports_and_nothing_else_of_the_package():
    """A listing imports nothing of the site: editing the plugin, a figure or the check runs it again never.
    A figure block is keyed on the figures module (and what draws with it); a block using the lesson's
    #@save functions, on the listings that define them."""
    assert project.imports_key("import torch\nx = 1\n") == ""
    figure = project.imports_key("from attention_lesson.site.figures import figure\n")
    assert figure and figure != project.imports_key("from attention_lesson.site.i18n import ui\n")
    assert project.imports_key("import attention_lesson as al\n") != ""


def test_an_error_names_the_snippet_files_own_line(tmp_path):
    """pymdownx.snippets drops a file's section markers: the block's line 3 may be the file's line 5."""
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    (tmp_path / "docs" / "ja").mkdir(parents=True)
    strings = project.root() / "docs" / "ja" / i18n.STRINGS_FILE
    (tmp_path / "docs" / "ja" / i18n.STRINGS_FILE).write_bytes(strings.read_bytes())
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "x.py").write_text(
        'x = 1\n# --8<-- [start:a]\nprint("ok：")\n# --8<-- [end:a]\nraise RuntimeError("on purpose")\n',
        encoding="utf-8")
    store = Store(tmp_path / "store")
    runner = Runner(store)
    with project.building(tmp_path):
        runner.start_build("ja", store, ["ja"])
        runner.begin_page("docs/ja/x.md")
        with pytest.raises(BlockError) as error:  # the included file, its markers gone
            runner.run('x = 1\nprint("ok：")\nraise RuntimeError("on purpose")\n', session="s",
                       title="snippets/x.py")
        assert str(error.value) == "docs/ja/x.md: snippets/x.py:5: RuntimeError: on purpose"
        with pytest.raises(BlockError, match=r"^docs/ja/x.md: snippets/y.py, line 2: SyntaxError: '\(' was never"):
            runner.run("x = 1\ny = (\n", title="snippets/y.py")


@pytest.mark.parametrize("code", [
    "import weakref\nclass A: pass\na = A()\nr = weakref.ref(a, lambda _: 1 / 0)\ndel a\n",
    "import sys\nprint('Traceback (most recent call last):', file=sys.stderr)\n",
    "print('KeyboardInterrupt')\n",
])
def test_only_a_block_that_completed_cleanly_is_stored(runner, code):
    """An exception Python only reports ("Exception ignored in …", as a Ctrl-C in a weakref callback is), or an
    error report in the output, fails the block; nothing of it is stored, so no later build can publish it."""
    with pytest.raises(BlockError, match="nothing of it was stored"):
        runner.run(code, session="s", title="snippets/x.py")
    assert not list(runner.store.path.rglob("*.json"))


def test_an_interrupt_stops_the_block_and_stores_nothing(runner):
    with pytest.raises(KeyboardInterrupt):
        runner.run("raise KeyboardInterrupt\n", session="s", title="snippets/x.py")
    assert not list(runner.store.path.rglob("*.json"))


def test_a_figure_whose_module_changed_is_drawn_again_without_measuring_again(tmp_path, monkeypatch):
    """Editing the figures module (a colour) gives the figure block a new key: it is drawn from the names its
    session stored, and the measurement before it does not run again."""
    store = Store(tmp_path / "store")
    _build(store, ["ja", "en"])
    real = project.imports_key
    monkeypatch.setattr(project, "imports_key", lambda code: real(code) + "-edited" if "figures" in code
                        or "i18n" in code else real(code))
    second, shown = _build(store, ["ja", "en"])
    assert second.stats.executed == 2  # the figure, in ja and in en; not the measurement
    assert shown == f"{i18n.ui('original', 'en')} dict 1000\n"


# -- the store ------------------------------------------------------------------------------------------------

KEY = "ab" * 32


def test_store_round_trip_and_bad_keys(tmp_path):
    store = Store(tmp_path)
    assert store.get(KEY) is None
    store.put(KEY, {"template": "表\n"})
    assert store.get(KEY) == {"template": "表\n"}
    with pytest.raises(ValueError, match="64 lowercase hex digits"):
        store.get("../../etc/passwd")


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # truncated (a killed writer, a full disk)
        lambda raw: raw.replace(b"template", b"templatf"),  # changed inside
        lambda raw: b"\xff\xfe" + raw,  # not UTF-8
        lambda raw: b"[]",  # not an entry
    ],
)
def test_a_damaged_entry_is_ignored_and_removed(tmp_path, damage):
    store = Store(tmp_path)
    store.put(KEY, {"template": "42\n"})
    path = tmp_path / KEY[:2] / f"{KEY}.json"
    path.write_bytes(damage(path.read_bytes()))
    assert store.get(KEY) is None
    assert not path.exists()


def test_an_entry_moved_to_another_key_is_ignored(tmp_path):
    store = Store(tmp_path)
    store.put(KEY, {"template": "42\n"})
    other = "cd" * 32
    (tmp_path / other[:2]).mkdir()
    (tmp_path / KEY[:2] / f"{KEY}.json").rename(tmp_path / other[:2] / f"{other}.json")
    assert store.get(other) is None


def test_an_interrupted_write_leaves_no_entry(tmp_path, monkeypatch):
    store = Store(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.put(KEY, {"template": "42\n"})
    assert store.get(KEY) is None
    assert list(tmp_path.rglob("*.tmp")) == []


def _hammer(path: str, seed: int) -> int:
    store = Store(path)
    bad = 0
    for i in range(150):
        key = f"{(i % 7):02x}" * 32
        store.put(key, {"template": f"{i % 7}\n" * 200})
        value = store.get(key)
        bad += value is not None and value != {"template": f"{i % 7}\n" * 200}
    return bad


def test_two_writers_share_one_store(tmp_path):
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert pool.starmap(_hammer, [(str(tmp_path), 0), (str(tmp_path), 1)]) == [0, 0]


def test_prune_drops_old_entries_and_keeps_the_store_within_its_size(tmp_path):
    store = Store(tmp_path)
    keys = [f"{i:02x}" * 32 for i in range(4)]
    for i, key in enumerate(keys):
        store.put(key, {"template": "x" * 1000})
        path = tmp_path / key[:2] / f"{key}.json"
        os.utime(path, (1000 + i, 1000 + i) if i == 0 else (2e9 + i, 2e9 + i))
    assert store.prune(max_age=10 * 365 * 86400, max_bytes=1500) == 3  # the ancient one, then the oldest
    assert [store.get(k) is not None for k in keys] == [False, False, False, True]


@pytest.mark.parametrize("damage", [b"", b"garbage", None], ids=["empty", "garbage", "truncated"])
def test_a_damaged_compiled_template_is_compiled_again(tmp_path, damage):
    """The theme templates' bytecode cache (kept beside the store): a damaged file is a miss, never an error."""
    import jinja2

    from attention_lesson.site.templates import CompiledTemplates

    def render() -> str:
        env = jinja2.Environment(loader=jinja2.DictLoader({"page.html": "{{ 6 * 7 }} {{ name }}"}),
                                 bytecode_cache=CompiledTemplates(tmp_path))
        return env.get_template("page.html").render(name="頭")

    assert render() == "42 頭"
    [cached] = tmp_path.iterdir()
    cached.write_bytes(cached.read_bytes()[:12] if damage is None else damage)
    assert render() == "42 頭"
    assert render() == "42 頭"  # from the file the second render wrote again


def test_two_builds_render_a_page_one_after_the_other(tmp_path):
    """The store's page lock: a second build that reaches a page another build is rendering waits for it, so
    it finds that build's run whole instead of measuring again beside it."""
    import threading

    store = Store(tmp_path / "store")
    first, second = Runner(store), Runner(store)
    first.start_build("ja", store, ["ja"])
    second.start_build("ja", store, ["ja"])
    first.begin_page("cost.md")
    first.run(MEASURE, session="cost", title="snippets/cost.py")
    shown: list[str] = []
    waiting = threading.Thread(target=lambda: (second.begin_page("cost.md"),
                                               second.run(MEASURE, session="cost", title="snippets/cost.py"),
                                               shown.append(second.run("print(table)\n", session="cost"))))
    waiting.start()
    waiting.join(timeout=0.5)
    assert waiting.is_alive()  # the page is the first build's until it is done with it
    printed = first.run("print(table)\n", session="cost")
    first.end_page()
    waiting.join(timeout=10)
    assert shown == [printed] and second.stats.executed == 0  # the first build's run, taken whole
    second.end_page()
