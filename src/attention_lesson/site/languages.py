"""One base mkdocs.yml, one build per language folder: what a language's build changes in the configuration.

Its pages (``docs/<code>/``), where it is published (the site root for Japanese, ``<code>/`` for the others),
the theme's own words in that language, the language switcher, the search language and the caches that must be
kept apart per language. FastAPI's docs do the same with one ``mkdocs.yml`` per language; here the language
folder is all a translator adds.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from pymdownx.slugs import slugify

from attention_lesson.site import i18n, project, segmenter


def prefix(code: str) -> str:
    """The language's folder in the published site: none for the source language."""
    return "" if code == project.DEFAULT_LANG else f"{code}/"


def configure(config: MkDocsConfig, lang: str, *, site_url: str, repo_url: str, cache: Path,
              nested_site: bool) -> None:
    """Set `config` up for building `lang`. `nested_site`: the build writes into ``site_dir/<code>/`` (a
    language of `mkdocs build`, not a serve preview, which is given its folder)."""
    root = project.root()
    strings = i18n.strings(lang)
    config.docs_dir = str(root / "docs" / lang)
    config.site_name = strings.get("site_name") or config.site_name
    config.site_description = strings.get("site_description") or config.site_description
    config.theme["language"] = lang
    if lang != project.DEFAULT_LANG and nested_site and Path(config.site_dir).name != lang:
        config.site_dir = os.path.join(config.site_dir, lang)

    # Where the site is published and where its sources are: set by the deployment, absent locally. With a
    # site URL, pages get canonical links, the sitemap lists them and every page names the same page in every
    # language as an absolute URL.
    site_url = site_url.strip().rstrip("/")
    if site_url:
        config.site_url = f"{site_url}/{prefix(lang)}"
    repo_url = repo_url.strip().rstrip("/")
    if repo_url:
        config.repo_url = repo_url
        config.repo_name = urlsplit(repo_url).path.strip("/") or repo_url  # MkDocs derives it only from mkdocs.yml
        config.edit_uri = f"edit/main/docs/{lang}/"
    path = urlsplit(site_url).path.rstrip("/") + "/" if site_url else "/"

    # Every language is linked page-to-page by the overridden partials/alternate.html and main.html.
    config.extra["alternate"] = [
        {
            "name": i18n.strings(code).get("name", code),
            "lang": code,
            "link": prefix(code) if lang == project.DEFAULT_LANG else ("../" + prefix(code) if code != lang else ""),
            "root": path + prefix(code),  # from the site's root: the 404 page is served at any path
            "url": f"{site_url}/{prefix(code)}" if site_url else "",
        }
        for code in i18n.usable_languages()
    ]
    config.extra["lesson_lang"] = lang
    config.extra["lesson_default_lang"] = project.DEFAULT_LANG

    # The theme's own words: Material translates its interface by theme.language, but the palette toggle's
    # names, the heading anchors' title and the 404 page are configuration or template text.
    for option in config.theme["palette"] or []:
        toggle = option.get("toggle") or {}
        key = {"default": "palette_to_dark", "slate": "palette_to_light"}.get(option.get("scheme"))
        if toggle and key:
            toggle["name"] = i18n.ui(key, lang)
    toc = config.mdx_configs.setdefault("toc", {})
    toc["permalink_title"] = i18n.ui("permalink_title", lang)
    toc["slugify"] = slugify(case="lower")  # ids that keep 床前明月光 and every script, lower-cased
    for key in ("not_found_title", "not_found_text", "not_found_home"):
        config.extra[key] = i18n.ui(key, lang)

    logging.getLogger("jieba").setLevel(logging.WARNING)  # Material's Chinese segmenter logs its start on stderr
    search = next((p for name, p in config.plugins.items() if name.endswith("search")), None)
    if search is not None:
        search_config = strings.get("search") or {}
        search.config.lang = search_config.get("lang") or [lang]
        search.config.pipeline = search_config.get("pipeline")
        search.config.separator = search_config.get("separator")
        segmenter.configure(search.config, root, cache)  # its Chinese words

    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:  # its rendered HTML, keyed by the executed notebook; one folder per language,
        # because the plugin drops every entry its own build did not use
        jupyter.config["cache_dir"] = str(jupyter_cache(cache, lang))

    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(root)]  # --8<-- "snippets/…" is this project's file, wherever MkDocs runs
    snippets["check_paths"] = True


def jupyter_cache(cache: Path, lang: str) -> Path:
    """mkdocs-jupyter's cache folder for a language's build: its rendered notebooks."""
    return cache / "mkdocs-jupyter" / lang
