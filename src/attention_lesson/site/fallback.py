"""A language in progress: the Japanese page, with a banner, where a translation is missing; and the
translation status page every language shows, generated from the translators' check."""

from __future__ import annotations

import subprocess
from html import escape

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from attention_lesson.site import i18n, project, translations
from attention_lesson.site.store import Store

STATUS_PAGE = "translation-status.md"


def add_missing_pages(files: Files, config: MkDocsConfig, lang: str) -> None:
    """Every Japanese page this language lacks, in its place (marked, for the banner)."""
    if lang == project.DEFAULT_LANG:
        return
    source = project.root() / "docs" / project.DEFAULT_LANG
    for path in sorted(source.rglob("*.md")):
        rel = path.relative_to(source).as_posix()
        if files.get_file_from_path(rel) is None:
            file = File(rel, str(source), config.site_dir, config.use_directory_urls)
            file.fallback = True
            files.append(file)


def is_fallback(page: Page) -> bool:
    return bool(getattr(page.file, "fallback", False))


def with_banner(markdown: str, page: Page, lang: str, repo_url: str) -> str:
    """The Japanese page with the banner under its title: the page keeps its Japanese title in the menu, the
    footer and <title> (MkDocs takes the title from a page's first heading, so nothing goes before it)."""
    notice = banner(page, lang, repo_url)
    lines = markdown.splitlines(keepends=True)
    for number, line in enumerate(lines):
        if line.startswith("# "):
            return "".join(lines[: number + 1]) + "\n" + notice + "".join(lines[number + 1 :])
    return notice + markdown


def notebook_banner(lang: str, url: str) -> str:
    """The same notice for a notebook shown in Japanese, as HTML for a Markdown cell (the notebook page is
    rendered by nbconvert, which knows no admonition syntax), with a link to the original notebook page."""
    original = "../" * (url.count("/") + 1) + url
    return (f'<div class="admonition warning"><p class="admonition-title">{escape(i18n.ui("untranslated_title", lang))}'
            f'</p><p>{escape(i18n.ui("untranslated", lang))} <a href="{original}" hreflang="ja">'
            f'{escape(i18n.ui("original", lang))}</a></p></div>')


def banner(page: Page, lang: str, repo_url: str) -> str:
    """The notice on a page shown in Japanese: a link to the original and, with a repository, to the page to
    create and the translators' guide. Its edit link becomes "create this page"."""
    guide = ""
    repo = repo_url.rstrip("/")
    if repo:
        page.edit_url = f"{repo}/new/main/docs/{lang}?filename={page.file.src_uri}"
        guide = (f' · <a href="{page.edit_url}">{i18n.ui("translate_page", lang)}</a>'
                 f' (<a href="{repo}/blob/main/docs/TRANSLATING.md">{i18n.ui("translate_guide", lang)}</a>)')
    depth = page.url.count("/") + 1  # the page's folder, then the language folder, reach the Japanese root
    original = "../" * depth + page.url
    return (f'!!! warning "{i18n.ui("untranslated_title", lang)}"\n\n'
            f'    {i18n.ui("untranslated", lang)} <a href="{original}" hreflang="ja">{i18n.ui("original", lang)}</a>'
            f"{guide}\n\n")


def status_file(config: MkDocsConfig, lang: str, store: Store) -> File:
    return File.generated(config, STATUS_PAGE, content=status_page(lang, store))


def _status_table(store: Store) -> dict:
    """Page → language → translated / outdated / missing, and each language's label coverage.

    The same for every language's build, so it is computed once per state of the sources (git HEAD, the pages,
    strings.yml, snippets/) and stored: the language builds and `mkdocs serve` rebuilds read it.
    """
    root = project.root()
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        head = ""  # not a git checkout: no page is outdated (translations.check says the same)
    sources = sorted([*(root / "docs").glob("*/*.md"), *(root / "docs").glob("*/notebooks/*.py"),
                      *(root / "docs").glob("*/strings.yml"), *(root / "snippets").glob("*.py")])
    key = project.digest("translation status", head, *(p.relative_to(root).as_posix() for p in sources),
                         *(p.read_bytes() for p in sources))
    table = store.get(key)
    if isinstance(table, dict):
        return table
    codes = i18n.usable_languages()
    reports = {code: translations.check(code) for code in codes}
    table = {
        "pages": {page: {code: reports[code].page_status(page) for code in codes}
                  for page in translations.pages(project.DEFAULT_LANG)},
        "coverage": {code: reports[code].label_coverage for code in codes},
    }
    store.put(key, table)
    return table


def status_page(lang: str, store: Store) -> str:
    """The translation status page, in `lang`, regenerated at every build from the check."""
    table = _status_table(store)
    # the store keeps mappings with sorted keys: the columns follow the site's order of languages, whether the
    # table was computed by this build or read back
    codes = [code for code in i18n.languages() if code in table["coverage"]]
    word = {state: i18n.ui(f"status_{state}", lang) for state in ("translated", "outdated", "missing")}
    names = [i18n.strings(code).get("name", code) for code in codes]
    lines = [
        f"# {i18n.ui('status_title', lang)}",
        "",
        i18n.ui("status_intro", lang),
        "",
        "| " + " | ".join([i18n.ui("status_page", lang), *names]) + " |",
        "|---" * (len(codes) + 1) + "|",
    ]
    for page, states in sorted(table["pages"].items()):
        lines.append(f"| `{page}` | " + " | ".join(word.get(states[code], states[code]) for code in codes) + " |")
    coverage = [f"{table['coverage'][code]:.0%}" for code in codes]
    lines.append(f"| {i18n.ui('status_labels', lang)} | " + " | ".join(coverage) + " |")
    return "\n".join(lines) + "\n"
