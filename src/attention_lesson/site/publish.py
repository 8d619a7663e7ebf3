"""The published site folder, replaced whole or not at all, with one sitemap for every language (no MkDocs here).

The hreflang links of :func:`merge_sitemaps` live in the sitemap, not in each page's <head>: Material's script
fetches ``sitemap.xml`` relative to every ``<link rel="alternate">`` of a page (a same-page one costs a 404).
"""

from __future__ import annotations

import gzip
import html
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

BUILDING = ".site-building-"
OLD = ".site-old-"


def beside(site: Path) -> Path:
    """A folder beside `site` to build into, named by this process, what earlier builds left cleared (or OSError)."""
    parent = site.parent
    parent.mkdir(parents=True, exist_ok=True)
    for old in [*parent.glob(f"{OLD}*"), *parent.glob(f"{BUILDING}*")]:
        if old.name.startswith(OLD) or _over(old):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{BUILDING}{os.getpid()}-", dir=parent))


def _over(building: Path) -> bool:
    """Whether the build that made `building` is over: its process gone, or an hour passed."""
    return abandoned(building, building.name.removeprefix(BUILDING).split("-")[0], 3600)


def abandoned(folder: Path, pid: str, max_age: float) -> bool:
    """Whether the process `pid` that made `folder` is gone (killed outright), or `max_age` seconds passed (on
    Windows the only sign: os.kill(pid, 0) there stops the process instead of asking)."""
    if os.name == "posix" and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:  # another user's process
            pass
    return time.time() - folder.stat().st_mtime > max_age


def swap(new: Path, site: Path) -> bool:
    """Put `new` in the place of `site`: two renames that Ctrl-C does not split, so the old site or the new one
    is always there. Returns whether Ctrl-C came meanwhile (the caller stops then)."""
    old = site.with_name(f"{OLD}{os.getpid()}")
    stopped: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda *_: stopped.append(1)) if main else None
    try:
        if site.exists():
            os.replace(site, old)
        os.replace(new, site)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    shutil.rmtree(old, ignore_errors=True)
    return bool(stopped)


def merge_sitemaps(site_url: str, sitemaps: dict[str, Path]) -> None:
    """Rewrite the source language's sitemap (the first of `sitemaps`, language → file) with every
    language's pages, hreflang alternates and x-default."""
    root = next(iter(sitemaps.values()))
    if not site_url or not root.is_file():
        return
    site_url = site_url.rstrip("/") + "/"  # the default language's, i.e. the site's root
    prefix = {code: f"{code}/" if n else "" for n, code in enumerate(sitemaps)}.get
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


def address(page: str) -> str:
    """A page's folder in its language's site: "" for the home page, "query-key/", "notebooks/exercise-1/"."""
    stem = page.removesuffix(".md").removesuffix(".py").removesuffix(".ipynb")
    return "" if stem == "index" else f"{stem}/"


def failure_page(lines: list[str]) -> str:
    """What `mkdocs serve` shows at every address while the build fails: its lines, escaped."""
    items = "".join(f"<li><code>{html.escape(line)}</code></li>\n" for line in lines)
    return ('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width,initial-scale=1">\n<title>The build failed</title>\n'
            "</head>\n<body>\n<h1>The build failed</h1>\n<p>Fix what follows and save: this page shows the site "
            f"again when the next build succeeds.</p>\n<ul>\n{items}</ul>\n</body>\n</html>\n")
