"""Adding a language is adding a folder; a translation cannot silently drop or change a listing."""

from __future__ import annotations

import html
import os
import re
import shutil
import sys

import commands
import pytest
import yaml
from conftest import ROOT, build_site, own_store, run

from attention_lesson.site import i18n, translations

LANGS = [code for code in i18n.languages() if code != i18n.DEFAULT_LANG]
"""Every language folder there is: a language in progress (not in translations.SHIPPED) is one of them."""


def check_command(project, *args: str, process: bool = False):
    """`python -m attention_lesson.site.translations <args>` in `project`: its main() in this process
    (tests/commands.py: the command's output and exit status, without an interpreter's start), or with
    `process`, as the translator types it, in a process of its own with the copy's src/ first."""
    if not process:
        return commands.translations(project, *args)
    return run([sys.executable, "-m", "attention_lesson.site.translations", *args], cwd=project,
               env={"PYTHONPATH": str(project / "src")}, check=False)


@pytest.mark.parametrize("lang", translations.SHIPPED)
def test_shipped_translations_are_complete(lang):
    report = translations.check(lang)
    assert report.errors == [], "\n".join(report.errors)
    assert report.missing_pages == [] and report.extra_pages == []
    assert report.untranslated == {table: [] for table in translations.TABLES}, report.untranslated
    assert report.complete


@pytest.mark.parametrize("lang", translations.SHIPPED)
def test_each_language_prints_its_own_labels_and_comments(built_site, lang):
    page = (built_site / lang / "query-key" / "index.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in page
    text = html.unescape(page)
    printed = i18n.strings(lang)["literals"]["「光」の各文字へのスコア："]
    assert f'print("{printed}"' in re.sub(r"<[^>]+>", "", text), "the listing prints the language's string"
    assert text.count(printed) >= 2, "and its output shows it too"
    comment = i18n.strings(lang)["comments"]["「光」が探しているもの：空に関係するもの"]
    assert comment in page.replace("&quot;", '"')
    assert "「光」が探しているもの" not in page


def test_switcher_links_every_page_to_the_same_page_in_every_language(built_site):
    ja = (built_site / "scaling" / "index.html").read_text(encoding="utf-8")
    links = dict(re.findall(r'<a href="([^"]+)" hreflang="([^"]+)"', ja)[i][::-1] for i in range(len(LANGS) + 1))
    assert set(links) == {"ja", *LANGS}
    for lang, href in links.items():
        target = (built_site / "scaling" / href / "index.html").resolve()
        assert target == (built_site / ("" if lang == "ja" else lang) / "scaling" / "index.html").resolve()
        assert target.exists()


def test_each_language_has_its_own_search_index_and_language(built_site):
    import json

    for lang in ["ja", *LANGS]:
        index = json.loads((built_site / ("" if lang == "ja" else lang) / "search" / "search_index.json").read_text())
        assert lang in index["config"]["lang"]
        assert all(not doc["location"].startswith(("en/", "zh/")) for doc in index["docs"])


def test_each_search_index_cuts_chinese_words_as_jiebas_own_dictionary_does(built_site):
    """The build gives Material's search a dictionary of the words the site can hold (attention_lesson.site.
    segmenter), which loads in a tenth of the time of jieba's own. Every title and text of every language's index
    is cut as jieba's own dictionary cuts it: the same words between the same zero-width spaces, as Material's
    search plugin writes them."""
    import json

    import jieba
    from backrefs import bre  # the pattern Material's search plugin finds Han runs with

    own = jieba.Tokenizer()  # jieba's own dictionary
    han = bre.compile(r"(\p{script: Han}+)", bre.UNICODE)

    def cut(text: str) -> str:
        return han.sub(lambda run: "\u200b" + "\u200b".join(own.cut(run[0])) + "\u200b", text).strip("\u200b")

    cuts = 0
    for lang in ["ja", *LANGS]:
        docs = json.loads((built_site / ("" if lang == "ja" else lang) / "search" / "search_index.json")
                          .read_text(encoding="utf-8"))["docs"]
        for doc in docs:
            for field in ("title", "text"):
                indexed = doc[field]
                cuts += indexed.count("\u200b")
                assert indexed == cut(indexed.replace("\u200b", "")), f"/{lang}/{doc['location']} {field}"
    assert cuts > 1000, "no Chinese words were cut: is jieba installed?"


def test_the_search_dictionary_follows_the_sources_characters_and_keeps_jiebas_total(tmp_path):
    """A word made of characters the sources did not have joins the dictionary when a page has them (a new
    file name: jieba's table of the old one stays valid), the frequencies sum to jieba's own total, which
    jieba divides every word's frequency by; a damaged dictionary is made again, none is made where the
    cache cannot be written (Material then gives jieba its own), and one unused for a month is pruned."""
    import jieba

    from attention_lesson.site import segmenter

    def frequencies(dictionary) -> dict[str, int]:
        lines = dictionary.read_text(encoding="utf-8").splitlines()
        return {line.split(" ")[0]: int(line.split(" ")[1]) for line in lines}

    project = tmp_path / "project"
    (project / "docs" / "zh").mkdir(parents=True)
    page = project / "docs" / "zh" / "index.md"
    page.write_text("# 注意力\n", encoding="utf-8")
    before = segmenter.dictionary(project, tmp_path / "cache")
    page.write_text("# 注意力\n\n鳄鱼在河里。\n", encoding="utf-8")
    after = segmenter.dictionary(project, tmp_path / "cache")
    assert before != after and before.is_file()
    assert "鳄鱼" not in frequencies(before) and "鳄鱼" in frequencies(after)
    with jieba.Tokenizer().get_dict_file() as own:
        total = sum(int(line.split()[1]) for line in own)
    assert sum(frequencies(before).values()) == sum(frequencies(after).values()) == total

    whole = after.read_bytes()  # a file cut short (a full disk, an editor) is made again
    after.write_bytes(whole[: len(whole) // 2])
    assert segmenter.dictionary(project, tmp_path / "cache") == after and after.read_bytes() == whole
    (tmp_path / "a-file").write_text("", encoding="utf-8")  # a cache folder that cannot be made: jieba's own
    assert segmenter.dictionary(project, tmp_path / "a-file") is None

    month = 31 * 86400  # the dictionary of the characters the page no longer has, unused for a month, is pruned
    os.utime(before, (before.stat().st_atime, before.stat().st_mtime - month))
    segmenter.prune(tmp_path / "cache")
    assert not before.exists() and after.exists()


def test_check_command_fails_on_a_dropped_snippet_include(project_copy):
    page = project_copy / "docs" / "en" / "causal-mask.md"
    page.write_text(page.read_text(encoding="utf-8").replace('--8<-- "snippets/causal_mask.py"\n', ""))
    proc = check_command(project_copy, "en", process=True)  # the command as TRANSLATING.md gives it
    assert proc.returncode == 2
    ja = (project_copy / "docs" / "ja" / "causal-mask.md").read_text(encoding="utf-8").splitlines()
    line = ja.index('--8<-- "snippets/causal_mask.py"') + 1
    expected = (rf'docs/en/causal-mask\.md:\d+: missing «--8<-- "snippets/causal_mask\.py"» before this line, as in '
                rf"docs/ja/causal-mask\.md:{line}; copy it")
    assert len([text for text in proc.stderr.splitlines() if re.search(expected, text)]) == 1, proc.stderr


def test_a_new_language_folder_builds_falls_back_and_is_reported(built_site, project_copy, tmp_path):
    """A translator's first step: a folder with strings.yml and one page. The session's build (built_site) has
    stored the lesson's run, as a translator's own checkout has after one build."""
    fr = project_copy / "docs" / "fr"
    shutil.rmtree(fr, ignore_errors=True)  # a checkout's own French in progress: set aside in the copy
    assert check_command(project_copy, "fr", "--init").returncode == 0  # TRANSLATING.md, step 1
    strings = (fr / "strings.yml").read_text(encoding="utf-8")
    strings = re.sub(r'(?m)^name: ".*"$', 'name: "Français"', strings)
    strings = re.sub(r'(?m)^  untranslated: ".*"$', '  untranslated: "Cette page n\'est pas encore traduite."', strings)
    (fr / "strings.yml").write_text(strings, encoding="utf-8")
    shutil.copy(project_copy / "docs" / "ja" / "index.md", fr / "index.md")

    # The Japanese build (which also draws the figures of every language) and the new one's; the others are
    # built by the session's build.
    site, store = tmp_path / "site", str(own_store(tmp_path))  # every figure is drawn again, for French
    proc = build_site(project_copy, site, env={"LESSON_LANG": "ja", "LESSON_STORE": store})
    # the figures are drawn in French from the stored run: nothing is measured again
    figures = sum(page.read_text(encoding="utf-8").count('title="figure:')
                  for page in (project_copy / "docs" / "ja").glob("*.md"))
    assert f"Runner (ja): {figures} blocks run" in proc.stderr, proc.stderr[-2000:]
    build_site(project_copy, site / "fr", env={"LESSON_LANG": "fr", "LESSON_STORE": store})
    assert '<html lang="fr"' in (site / "fr" / "index.html").read_text(encoding="utf-8")
    assert 'hreflang="fr"' in (site / "scaling" / "index.html").read_text(encoding="utf-8")
    fallback = (site / "fr" / "scaling" / "index.html").read_text(encoding="utf-8")
    assert "Cette page n'est pas encore traduite." in html.unescape(fallback)
    assert 'href="../../scaling/"' in fallback  # the banner links the Japanese original

    proc = check_command(project_copy, "fr")
    assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
    assert "scaling.md" in proc.stdout and "missing pages" in proc.stdout
    assert "missing notebooks" in proc.stdout and "notebooks/exercise-1.py" in proc.stdout
    assert "untranslated code comments" in proc.stdout


def test_status_page_is_generated_for_every_language(built_site):
    page = (built_site / "translation-status" / "index.html").read_text(encoding="utf-8")
    for lang in LANGS:
        assert i18n.strings(lang)["name"] in page
    assert page.count("<tr>") >= len(translations.pages("ja")) + 1
    assert "notebooks/exercise-1.py" in page  # the notebooks are listed like the pages
    assert (ROOT / "docs" / "ja" / "translation-status.md").exists() is False  # generated, never a file


def test_init_writes_every_text_to_translate_and_counts_none_translated(project_copy):
    """TRANSLATING.md's step 1: the template has every key there is, each value the Japanese text in double
    quotes; it loads, passes the check, and the coverage counts translated values, not keys: 0% of each."""
    shutil.rmtree(project_copy / "docs" / "ko", ignore_errors=True)  # a checkout's own Korean in progress
    proc = check_command(project_copy, "ko", "--init")
    assert proc.returncode == 0, proc.stderr
    path = project_copy / "docs" / "ko" / "strings.yml"
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    ja = yaml.safe_load((project_copy / "docs" / "ja" / "strings.yml").read_text(encoding="utf-8"))
    assert {key: data[key] for key in translations.NAMES} == {key: ja[key] for key in translations.NAMES}
    assert data["labels"] == ja["labels"] and data["ui"] == ja["ui"]
    sources = [p.read_text(encoding="utf-8") for p in sorted((project_copy / "snippets").glob("*.py"))]
    comments = {c for s in sources for c in i18n.code_comments(s) if not c.isascii() and not c.startswith("--8<--")}
    literals = {t for s in sources for t in i18n.code_literals(s)}
    assert comments and set(data["comments"]) == comments and all(k == v for k, v in data["comments"].items())
    assert literals and set(data["literals"]) == literals and all(k == v for k, v in data["literals"].items())
    entries = [line for line in text.splitlines() if line.startswith("  ") and not line.startswith("  lang:")]
    assert entries and all(re.fullmatch(r'  (\w+|"(?:[^"\\]|\\.)*"): "(?:[^"\\]|\\.)*"', e) for e in entries)

    proc = check_command(project_copy, "ko")
    assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
    for table in translations.TABLES:
        assert re.search(rf"\b{table} 0/\d+ \(0%\)", proc.stdout), proc.stdout

    proc = check_command(project_copy, "ko", "--init")  # never overwrites
    assert proc.returncode == 2 and path.read_text(encoding="utf-8") == text
    assert len(proc.stderr.splitlines()) == 1 and "docs/ko/strings.yml exists already" in proc.stderr
    for code in ("Korean", "kor-ean", "xx"):
        proc = check_command(project_copy, code, "--init")
        assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert not (project_copy / "docs" / code).exists()


def test_a_language_in_progress_passes_the_check_and_the_tests(project_copy):
    """Partial work is normal: a few strings, one page and one notebook translated; the rest falls back to
    Japanese. The check exits 0 with warnings only, and the project's translation tests stay green."""
    shutil.rmtree(project_copy / "docs" / "ko", ignore_errors=True)
    assert check_command(project_copy, "ko", "--init").returncode == 0
    path = project_copy / "docs" / "ko" / "strings.yml"
    text = path.read_text(encoding="utf-8")
    for japanese, korean in {
        "日本語": "한국어",
        "因果マスク：後ろの位置のスコアを負の無限大にすると、softmax 後の重みは 0 になる":
            "인과 마스크: 뒤쪽 위치의 점수를 음의 무한대로 하면",  # a colon: the template's quotes take it
        "マスクなし": "마스크 없음",
        "softmax 後の重み：": '"softmax" 후의 가중치:',
    }.items():
        line = re.search(rf'(?m)^(.*: ){re.escape(i18n.yaml_quoted(japanese))}$', text)
        text = text.replace(line[0], line[1] + i18n.yaml_quoted(korean))
    path.write_text(text, encoding="utf-8")
    shutil.copy(project_copy / "docs" / "ja" / "head.md", project_copy / "docs" / "ko" / "head.md")
    (project_copy / "docs" / "ko" / "notebooks").mkdir()
    shutil.copy(project_copy / "docs" / "ja" / "notebooks" / "exercise-1.py",
                project_copy / "docs" / "ko" / "notebooks" / "exercise-1.py")

    proc = check_command(project_copy, "ko")
    assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
    assert re.search(r"pages 1/\d+ translated, notebooks 1/\d+", proc.stdout), proc.stdout
    assert re.search(r"labels 1/5 \(20%\)", proc.stdout) and "comments 1/" in proc.stdout, proc.stdout
    assert "missing pages" in proc.stdout and "missing notebooks" in proc.stdout
    assert "notebooks/exercise-2.py" in proc.stdout and "untranslated names" in proc.stdout

    proc = run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "tests/test_translations.py",
                "-k", "shipped"], cwd=project_copy, env={"PYTHONPATH": str(project_copy / "src")}, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "2 passed" in proc.stdout
