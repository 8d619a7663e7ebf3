"""The README's screenshots of the √d page, light and dark, from the built site/ served on 127.0.0.1, taken with
Debian's Chromium (or $LESSON_CHROMIUM): `.ci/env mkdocs build`, then `.ci/env python .ci/screenshots.py`."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
SITE, OUT, PAGE = ROOT / "site", ROOT / "docs" / "assets", "scaling/"

if not (SITE / PAGE / "index.html").exists():
    raise SystemExit("site/ is not built: run `.ci/env mkdocs build` first")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # one line per request is noise here
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
threading.Thread(target=server.serve_forever, daemon=True).start()
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run",
                                                                "--disable-background-networking"])
    for scheme in ("light", "dark"):
        page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        page.goto(f"http://127.0.0.1:{server.server_port}/{PAGE}")
        page.locator(".lesson-figure").first.scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, -300)")
        page.wait_for_timeout(1000)  # the header's title changes as the page scrolls: a shot once it has
        page.screenshot(path=str(OUT / f"screenshot-{scheme}.png"))
        print(f"wrote {(OUT / f'screenshot-{scheme}.png').relative_to(ROOT)}")
    browser.close()
server.shutdown()
