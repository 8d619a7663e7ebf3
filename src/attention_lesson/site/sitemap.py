"""One sitemap at the site's root: every page of every language, each with the same page in every language.

The hreflang links live here rather than in each page's <head>: Material's script fetches ``sitemap.xml``
relative to every ``<link rel="alternate">`` of a page, so same-page links there would each cost a 404.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path


def prefix(code: str) -> str:
    return "" if code == "ja" else f"{code}/"


def merge(site_url: str, sitemaps: dict[str, Path]) -> None:
    """Rewrite the source language's sitemap (the first of `sitemaps`, language → file) with every
    language's pages, hreflang alternates and x-default."""
    root = next(iter(sitemaps.values()))
    if not site_url or not root.is_file():
        return
    site_url = site_url.rstrip("/") + "/"  # the default language's, i.e. the site's root
    entries: dict[str, dict[str, str]] = {}  # page path → language → lastmod
    for lang, path in sitemaps.items():
        if not path.is_file():
            continue
        base = site_url + prefix(lang)
        for loc, lastmod in re.findall(r"<loc>([^<]+)</loc>\s*<lastmod>([^<]*)</lastmod>", path.read_text("utf-8")):
            entries.setdefault(loc.removeprefix(base), {})[lang] = lastmod
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">']
    for page, langs in entries.items():
        links = [f'    <xhtml:link rel="alternate" hreflang="{code}" href="{site_url}{prefix(code)}{page}"/>'
                 for code in langs]
        links.append(f'    <xhtml:link rel="alternate" hreflang="x-default" href="{site_url}{page}"/>')
        for code, lastmod in langs.items():
            lines += ["  <url>", f"    <loc>{site_url}{prefix(code)}{page}</loc>", f"    <lastmod>{lastmod}</lastmod>",
                      *links, "  </url>"]
    root.write_text("\n".join([*lines, "</urlset>"]) + "\n", encoding="utf-8")
    with open(root.with_suffix(".xml.gz"), "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(root.read_bytes())
