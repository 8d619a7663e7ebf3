"""The machinery's shape: running, storing and localizing import nothing from MkDocs (one module adapts them), and
the lesson's pages render without MkDocs, as another builder would render them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import markdown
import markdown_exec
import pytest
import yaml
from conftest import PROJECT, ROOT, STORE, assert_ok, build, page_html, pages, run

from attention_lesson.site import extension, prepare
from attention_lesson.site.lesson import SOURCE_LANG
from attention_lesson.site.run import Limits
from attention_lesson.site.store import Store

SITE = ROOT / "src" / "attention_lesson" / "site"
ADAPTER = "plugin"


@pytest.mark.parametrize("module", sorted(p.stem for p in SITE.glob("*.py") if p.stem not in (ADAPTER, "__init__")))
def test_machinery_needs_no_mkdocs(module: str) -> None:
    """Each module imports where MkDocs cannot be imported (markdown-exec loads its MkDocs plugin only if it can)."""
    code = f"import sys; sys.modules['mkdocs'] = None; import attention_lesson.site.{module}"
    proc = run([sys.executable, "-c", code])
    assert proc.returncode == 0, f"attention_lesson.site.{module} needs MkDocs: {proc.stderr.strip().splitlines()[-1]}"


def test_japanese_pages_render_outside_mkdocs(site: Path, tmp_path: Path) -> None:
    """Every Japanese page through the lesson's two parts and plain Python-Markdown, with mkdocs.yml's extensions,
    as another builder would call them: the content is the MkDocs build's (links aside: MkDocs rewrites them).
    Both read the store `site` filled, after it: a timing another build stored meanwhile would differ."""
    built = tmp_path / "site"
    assert_ok(build(ROOT, built, env={"LESSON_LANG": SOURCE_LANG}))
    loader = type("Loader", (yaml.SafeLoader,), {})
    loader.add_multi_constructor("!", lambda *_: None)  # mkdocs.yml's !ENV, !!python/name
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), loader)  # noqa: S506 - safe, tags off
    names = [e if isinstance(e, str) else next(iter(e)) for e in config["markdown_extensions"]]
    settings = {name: next(iter(e.values())) or {} for e, name in zip(config["markdown_extensions"], names, strict=True)
                if isinstance(e, dict)}
    lesson_site = prepare.check(PROJECT)
    prepare.run(lesson_site, Store(STORE), Limits(120, 1_000_000), tmp_path / "notebooks")
    for name, values in extension.settings(ROOT, lesson_site.words[SOURCE_LANG].ui).items():
        settings[name] = {**settings.get(name, {}), **values}
    lesson = extension.Lesson(lesson_site, SOURCE_LANG)
    markdown_exec.markdown_config.save([*names, lesson], settings)  # as markdown-exec's plugin does: for output
    links = re.compile(r' (?:href|src)="[^"]*"')
    for page in pages():
        md = markdown.Markdown(extensions=[*names, lesson], extension_configs=settings)
        lesson.open(page, "" if page == "index.md" else page.removesuffix(".md") + "/")
        rendered = md.convert((PROJECT.docs / SOURCE_LANG / page).read_text(encoding="utf-8"))
        assert links.sub("", rendered) in links.sub("", page_html(built, SOURCE_LANG, page)), page
    markdown_exec.markdown_config.reset()
