"""Regenerate the README's screenshots of the lesson page, light and dark.

    .ci/env mkdocs build && .ci/env python .ci/screenshots.py

Serves site/ on 127.0.0.1 and photographs the √d page with Debian's Chromium (or $LESSON_CHROMIUM).
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
OUT = ROOT / "docs" / "assets"
PAGE = "scaling/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # one line per request is noise here
        pass


def main() -> None:
    if not (SITE / PAGE / "index.html").exists():
        raise SystemExit("site/ is not built: run `.ci/env mkdocs build` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for scheme in ("light", "dark"):
                page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
                page.goto(f"http://127.0.0.1:{server.server_port}/{PAGE}")
                page.locator(".lesson-figure").first.scroll_into_view_if_needed()
                page.evaluate("window.scrollBy(0, -300)")
                page.screenshot(path=str(OUT / f"screenshot-{scheme}.png"))
                print(f"wrote {(OUT / f'screenshot-{scheme}.png').relative_to(ROOT)}")
            browser.close()
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
