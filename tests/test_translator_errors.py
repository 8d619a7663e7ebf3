"""A translator's or an editor's mistake gets one clear line naming their file, never a traceback.

Each case breaks a copy of the project the way a person would, then runs the translators' check and the strict
build (quiet, as CI scripts run it): the check exits 2, the build fails, and both print one line naming the file
and the key or line, and the fix. The cases share one copy, each putting back what it broke, and run both
commands in the test's process (tests/commands.py); `mkdocs serve` runs as a process of its own.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import commands
import pytest
from conftest import STORE, slim, start_serve, stop_as_ctrl_c


def check(project: Path, lang: str) -> subprocess.CompletedProcess:
    return commands.translations(project, lang)


def build(project: Path, site: Path, lang: str | None = None) -> subprocess.CompletedProcess:
    env = {"LESSON_LANG": lang} if lang else {}
    return commands.mkdocs(project, "build", "--strict", "-q", "-d", str(site), env=env)


def lines_naming(output: str, needle: str) -> list[str]:
    return [line for line in output.splitlines() if needle in line]


@pytest.fixture(scope="module")
def template(copy) -> str:
    """A new language's strings.yml as TRANSLATING.md starts it: the template `translations ko --init` writes (in
    a copy of a checkout whose own docs/ko/ is a translation in progress, that one is set aside)."""
    shutil.rmtree(copy / "docs" / "ko", ignore_errors=True)
    proc = commands.translations(copy, "ko", "--init")
    assert proc.returncode == 0 and "wrote docs/ko/strings.yml" in proc.stdout, proc.stdout + proc.stderr
    text = (copy / "docs" / "ko" / "strings.yml").read_text(encoding="utf-8")
    shutil.rmtree(copy / "docs" / "ko")  # the other tests' builds have no Korean to build
    return text


def korean(copy: Path, text: str) -> contextlib.AbstractContextManager[Path]:
    """docs/ko/strings.yml of `copy` holding `text`, a translator's edit of the template, while the test runs."""
    return commands.edited(copy / "docs" / "ko" / "strings.yml", text)


def translate(japanese: str, value: str, key: str | None = None):
    """An edit of the template: the entry whose value is `japanese` gets `value` typed after its colon as it
    is (and `key` instead of its key, when given)."""
    def edit(text: str) -> str:
        entry = re.search(rf'(?m)^  (.+?): {re.escape(quoted(japanese))}$', text)
        assert entry, japanese
        return text.replace(entry[0], f"  {key or entry[1]}: {value}", 1)
    return edit


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


MISTAKES = {
    "unclosed bracket": (lambda s: s.replace("labels:\n", "labels: [\n", 1),
                         r"docs/ko/strings\.yml:\d+:\d+: not valid YAML: expected ',' or ']'"),
    "list for a mapping": (lambda s: s.replace("labels:\n", "labels:\n  - a\nnot_labels:\n", 1),
                           r"docs/ko/strings\.yml:\d+:\d+: labels: expected a mapping"),
    "misspelled key": (lambda s: s.replace("labels:\n", "lables:\n", 1),
                       r"docs/ko/strings\.yml:\d+:1: unknown key 'lables'; did you mean 'labels'\?"),
    "renamed placeholder": (lambda s: s.replace("（傾き {slope:.1f}）", "（傾き {xx:.1f}）", 1),
                            r"docs/ko/strings\.yml:\d+:\d+: ui\.fig_legend_naive: the placeholder \{xx\} "
                            r"should be \{slope\}"),
    "missing placeholder": (lambda s: s.replace("（傾き {slope:.1f}）", "", 1),
                            r"docs/ko/strings\.yml:\d+:\d+: ui\.fig_legend_naive: the placeholder \{slope\} "
                            r"is missing"),
    "comment on two lines": (translate("マスクなし", '"no\\nmask"'),
                             r"docs/ko/strings\.yml:\d+:\d+: comments «マスクなし»: must be one line"),
    "empty name": (lambda s: s.replace('name: "日本語"', 'name: ""'),
                   r"docs/ko/strings\.yml:\d+:\d+: name: expected the language's own text, found nothing"),
    # Korean writes an ASCII colon: unquoted, YAML reads it as a second key
    "colon in an unquoted value": (
        translate("因果マスク：後ろの位置のスコアを負の無限大にすると、softmax 後の重みは 0 になる",
                  "인과 마스크: 뒤쪽"),
        r'docs/ko/strings\.yml:\d+:\d+: not valid YAML: mapping values are not allowed here; put the text in '
        r'quotes: section_3: "인과 마스크: 뒤쪽"$'),
    "value YAML reads as true": (translate("コピーしました", "yes"),
                                 r"docs/ko/strings\.yml:\d+:\d+: ui\.copied: YAML reads 'yes' as true or false; put "
                                 r'the text in quotes: copied: "yes"$'),
    # the key translated instead of the value: the page would show the Japanese comment
    "translated comment key": (translate("マスクなし", '"マスクなし"', key='"마스크 없음"'),
                               r"docs/ko/strings\.yml:\d+:3: comments «마스크 없음»: not a comment of snippets/; "
                               r'keys stay as the Japanese text; translate the value: "マスクなし": "마스크 없음"$'),
    "translated literal key": (translate("softmax 後の重み：", '"softmax 후 가중치:"', key='"softmax 후 가중치:"'),
                               r"docs/ko/strings\.yml:\d+:3: literals «softmax 후 가중치:»: not a printed string of "
                               r"snippets/; keys stay as the Japanese text; translate the value$"),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_strings_mistake_is_one_line_from_the_check_and_the_build(copy, template, tmp_path, mistake):
    edit, expected = MISTAKES[mistake]
    with korean(copy, edit(template)):
        proc = check(copy, "ko")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stdout + proc.stderr
        assert len([line for line in proc.stderr.splitlines() if re.search(expected, line)]) == 1, proc.stderr

        proc = build(copy, tmp_path / "site")  # every language: one broken stops them all, before any page
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert len([line for line in proc.stderr.splitlines() if re.search(expected, line)]) == 1, proc.stderr
    assert not (tmp_path / "site" / "index.html").exists()  # a broken language stops the whole build


def test_a_translated_comment_key_names_its_own_line(copy, template):
    """The line and column of the translated comment key are those of the key in the file."""
    text = translate("マスクなし", '"마스크 없음"', key='"마스크 없음"')(template)
    number = next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith('  "마스크 없음":'))
    with korean(copy, text):
        proc = check(copy, "ko")
    assert proc.returncode == 2
    assert lines_naming(proc.stderr, f"docs/ko/strings.yml:{number}:3: comments «마스크 없음»"), proc.stderr


KEYS_MATCHING_NOTHING = {
    "misspelled label key": (translate("コピーしました", '"복사됨"', key="copeid"),
                             r"docs/ko/strings\.yml:\d+:3: ui\.copeid: docs/ja/strings\.yml has no such key, so this "
                             r"text is never shown; did you mean 'copied'\? \(keys stay as in the Japanese file\)$"),
    "mistyped Japanese comment key": (
        translate("マスクなし", '"마스크 없음"', key='"マスク無し"'),
        r"docs/ko/strings\.yml:\d+:3: comments «マスク無し»: not a comment of snippets/ \(changed or removed "
        r"there\?\); keys stay as the Japanese text exactly as written in snippets/; translate the value; the "
        r"nearest is «マスクなし»$"),
}


@pytest.mark.parametrize("mistake", sorted(KEYS_MATCHING_NOTHING))
def test_a_key_that_matches_nothing_is_one_line_from_the_check(copy, template, mistake):
    """A Japanese key that snippets/ or docs/ja/strings.yml does not have: its text is never shown, so the check
    fails (exit 2); the build goes on (the same happens to every language when a Japanese text changes)."""
    edit, expected = KEYS_MATCHING_NOTHING[mistake]
    with korean(copy, edit(template)):
        proc = check(copy, "ko")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert len([line for line in proc.stderr.splitlines() if re.search(expected, line)]) == 1, proc.stderr
        assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stdout + proc.stderr
        assert "strings translated:" in proc.stdout  # the file is usable: counted as usual
        assert validate(copy, "ko") == []


def validate(project: Path, lang: str) -> list[str]:
    """What the build stops on: i18n.validate, for the project in `project`."""
    from attention_lesson.site import i18n
    from attention_lesson.site import project as projects

    with projects.building(project):
        return i18n.validate(lang)


def test_an_extra_page_says_whether_it_is_published(copy, tmp_path):
    with commands.edited(copy / "docs" / "en" / "glossary.md", "# Glossary\n"):
        proc = check(copy, "en")
        assert proc.returncode == 2
        line = lines_naming(proc.stderr, "docs/en/glossary.md: extra page")
        assert len(line) == 1 and "not in the navigation" in line[0] and "strict build fails" in line[0]
        proc = build(copy, tmp_path / "site", lang="en")
        assert proc.returncode != 0 and "glossary.md" in proc.stderr


@pytest.mark.parametrize("exec_option", ["yes", "no"])
def test_a_changed_exec_line_names_the_translated_line_and_the_japanese_one(copy, exec_option):
    page = copy / "docs" / "en" / "head.md"
    lines = page.read_text(encoding="utf-8").splitlines()
    number = next(n for n, line in enumerate(lines, 1) if 'exec="on"' in line)
    japanese = (copy / "docs" / "ja" / "head.md").read_text(encoding="utf-8").splitlines()
    original = next(n for n, line in enumerate(japanese, 1) if 'exec="on"' in line)
    lines[number - 1] = lines[number - 1].replace('exec="on"', f'exec="{exec_option}"')
    with commands.edited(page, "\n".join(lines) + "\n"):
        proc = check(copy, "en")
    assert proc.returncode == 2
    found = lines_naming(proc.stderr, f"docs/en/head.md:{number}: expected «{japanese[original - 1]}» as in "
                                      f"docs/ja/head.md:{original}; found «{lines[number - 1]}»")
    assert len(found) == 1, proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_a_comment_changed_in_snippets_names_the_translations_left_behind(copy):
    """The Japanese comment changed: each language's old key no longer matches, so its pages would show the new
    Japanese comment. The check names the key's line and the comment it should now be; the build goes on."""
    snippet = copy / "snippets" / "exercise_2.py"
    english = (copy / "docs" / "en" / "strings.yml").read_text(encoding="utf-8").splitlines()
    number = next(n for n, line in enumerate(english, 1) if line.lstrip().startswith(('"マスクなし":', "マスクなし:")))
    expected = (f"docs/en/strings.yml:{number}:3: comments «マスクなし»: not a comment of snippets/ (changed or "
                "removed there?); keys stay as the Japanese text exactly as written in snippets/; translate the "
                "value; the nearest is «マスクをかけない»")
    with commands.edited(snippet, snippet.read_text(encoding="utf-8").replace("# マスクなし", "# マスクをかけない")):
        proc = check(copy, "en")
        assert proc.returncode == 2 and len(lines_naming(proc.stderr, expected)) == 1, proc.stderr
        assert validate(copy, "en") == []


EDITOR_MISTAKES = {
    "misspelled option": ('```python exec="on" sesion="x" title="snippets/x.py"\nprint(1)\n```\n',
                          "docs/ja/values.md: snippets/x.py: unknown option sesion"),
    "unclosed fence": ("```python\nprint(1)\n", "docs/ja/values.md:14: the code fence opened here (```) is "
                                                 "never closed"),
    "undefined name": ('```python exec="on" session="values" title="figure: snippets/values.py"\n'
                       "print(figure_of_nothing)\n```\n",
                       "docs/ja/values.md: figure: snippets/values.py, line 1: NameError: name "
                       "'figure_of_nothing' is not defined"),
    "unknown measured value": ("{{ measured.std_512 }}\n", "docs/ja/values.md: unknown {{ measured.std_512 }}"),
}


@pytest.mark.parametrize("mistake", sorted(EDITOR_MISTAKES))
def test_an_editors_mistake_names_the_page_and_the_block(copy, tmp_path, mistake):
    addition, expected = EDITOR_MISTAKES[mistake]
    page = copy / "docs" / "ja" / "values.md"
    text = page.read_text(encoding="utf-8")
    assert len(text.splitlines()) == 12  # the fence line number in the expected message
    with commands.edited(page, text + "\n" + addition):
        proc = build(copy, tmp_path / "site", lang="ja")
    assert proc.returncode != 0
    assert expected in proc.stderr, proc.stderr[-2000:]
    assert "Traceback" not in proc.stdout + proc.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # a loaded machine can be slow
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, ""


QUIET = 1.0
"""How long the server must stay quiet after its last build (s): a server that took a build's reading of the
sources for an edit would detect it within its watcher's latency (inotify at once, MkDocs' polling 0.5 s) and
its 0.1 s wait for edits to settle."""


def test_serve_previews_every_language_and_keeps_serving_when_one_is_broken(template, project_copy):
    """`mkdocs serve` previews every language (the switcher works); a broken one shows its mistakes instead; an
    edit of an English page rebuilds the English preview alone. In a copy of its own: the server is a process of
    its own, which the other tests' edits would rebuild. The copy has the pages the test reads (conftest.slim):
    each build and preview renders three pages, not every one."""
    slim(project_copy, ["index.md", "values.md", "translation-status.md"], ["ja", "en", "zh"])  # and no docs/ko/
    korean = project_copy / "docs" / "ko" / "strings.yml"
    korean.parent.mkdir()
    korean.write_text(template.replace("labels:\n", "labels: [\n", 1), encoding="utf-8")
    port = _free_port()
    env = {"NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(project_copy / "src"), "LESSON_STORE": str(STORE),
           "PATH": "/usr/bin:/bin"}
    server = start_serve(project_copy, port, env)
    printed: list[str] = []  # what the server has printed so far, read as it prints it
    reader = threading.Thread(target=lambda: printed.extend(server.stdout), daemon=True)
    reader.start()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if _get(f"{base}/zh/values/")[0] == 200:
                    break
            except OSError:  # not listening yet: the first build runs before the server starts
                pass
            time.sleep(0.1)
        for path in ("/values/", "/en/values/", "/zh/values/"):
            status, page = _get(base + path)
            assert status == 200, f"{path}: {status}"
        switcher = re.findall(r'<a href="([^"]+)" hreflang="en"', _get(f"{base}/zh/values/")[1])
        assert switcher and _get(f"{base}/zh/values/{switcher[0]}")[0] == 200  # the switcher's link resolves
        status, page = _get(f"{base}/ko/")
        assert status == 200 and "docs/ko/strings.yml:" in page and "not valid YAML" in page

        english = project_copy / "docs" / "en" / "values.md"
        english.write_text(english.read_text(encoding="utf-8") + "\nA sentence the editor just wrote.\n",
                           encoding="utf-8")
        deadline = time.monotonic() + 60
        while "A sentence the editor just wrote." not in _get(f"{base}/en/values/")[1]:
            assert time.monotonic() < deadline, "the English edit never reached /en/values/"
            time.sleep(0.1)
        assert _get(f"{base}/zh/values/")[0] == 200 and "not valid YAML" in _get(f"{base}/ko/")[1]  # still served

        # A mistake in the English pages: its preview shows what is wrong, then recovers when it is undone.
        fixed = english.read_text(encoding="utf-8")
        english.write_text(fixed + "\n[next](no-such-page.md)\n", encoding="utf-8")
        deadline = time.monotonic() + 60
        while "no-such-page.md" not in _get(f"{base}/en/")[1]:
            assert time.monotonic() < deadline, "the English preview never said what is wrong"
            time.sleep(0.1)
        assert _get(f"{base}/values/")[0] == 200  # Japanese keeps serving
        english.write_text(fixed, encoding="utf-8")
        deadline = time.monotonic() + 60
        while _get(f"{base}/en/values/")[0] != 200:
            assert time.monotonic() < deadline, "the English preview did not recover"
            time.sleep(0.1)

        # A Japanese edit rebuilds Japanese; then the server stays idle (a build opens every source: a server
        # that took that for an edit would rebuild again and again).
        japanese = project_copy / "docs" / "ja" / "values.md"
        japanese.write_text(japanese.read_text(encoding="utf-8") + "\n編集者が書いた一文。\n", encoding="utf-8")
        deadline = time.monotonic() + 60
        while "編集者が書いた一文。" not in _get(f"{base}/values/")[1]:
            assert time.monotonic() < deadline, "the Japanese edit never reached /values/"
            time.sleep(0.1)
        # MkDocs emptied the served folder for that build: every preview is served again (once the build ends),
        # the English one as edited
        while "A sentence the editor just wrote." not in _get(f"{base}/en/values/")[1]:
            assert time.monotonic() < deadline, "the English preview was not served again after a Japanese edit"
            time.sleep(0.1)
        assert _get(f"{base}/zh/values/")[0] == 200 and "not valid YAML" in _get(f"{base}/ko/")[1]
        detected = "".join(printed).count("Detected file changes")
        time.sleep(QUIET)
        rebuilt = "".join(printed).count("Detected file changes") - detected
        assert not rebuilt, f"the server detected changes {rebuilt} time(s) after its last build, with no edit"
    except OSError as error:
        pytest.fail(f"mkdocs serve did not answer: {error}")
    finally:
        stop_as_ctrl_c(server)
        reader.join(timeout=10)
        server.stdout.close()
    output = "".join(printed)
    lines = [line for line in output.splitlines() if "docs/ko/strings.yml:" in line]
    assert len(lines) >= 1 and all("not valid YAML" in line for line in lines), output[-2000:]
    assert "Traceback" not in output
    assert "New language folder" not in output  # every folder was there when the server started
    # four edits; a server that rebuilt on its own reads (a build opens every source) logs dozens
    assert output.count("Detected file changes") <= 8, output[-3000:]
    english_edits = output[output.index("Detected file changes"):output.rindex("Building documentation")]
    assert "Preview of 'en' rebuilt" in english_edits and "Building documentation" not in english_edits
