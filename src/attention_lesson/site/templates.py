"""The theme's templates: compiled once, and its folders listed once per process.

Compiled templates are kept beside the results store and shared by every build, language and rebuild. MkDocs
makes a new Jinja environment for each build, which compiles Material's templates again every time (about 0.6 s
of each `mkdocs serve` rebuild). Jinja's own bytecode cache keys each template by its source's checksum and
writes atomically; this only adds that an unreadable file is a miss, not an error.

The listing: each build, MkDocs lists every file in the theme's folders to find the static ones it copies
(``Files.add_files_from_theme``): 14,513 files, nearly all of them Material's icons, 0.14 s of every
`mkdocs serve` rebuild. An installed theme does not change while a server runs, so a process that builds again
(the server, a preview's worker) lists its folders once; the project's own ``custom_dir`` is listed every time.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import jinja2.bccache
from mkdocs.theme import Theme

Listings = dict[str, list[str]]
"""A theme folder → the names in it that MkDocs may copy, kept by whoever builds again in the same process."""


class CompiledTemplates(jinja2.FileSystemBytecodeCache):
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(str(folder))

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a damaged file: compile again, and the dump replaces it
            bucket.reset()


class ListedLoader(jinja2.FileSystemLoader):
    """Jinja's loader for the theme's folders, whose listing of an installed folder comes from `listings`.

    A listed name under a hidden folder (``.icons/…``) is left out: MkDocs' filter drops every such name
    (its patterns ``.*`` and ``*/.*``), so what it copies is the same, and it no longer tests 14,000 icons
    against a dozen patterns on every build. Loading a template is Jinja's own, unchanged."""

    def __init__(self, dirs: list[str], listings: Listings, fresh: set[str]) -> None:
        super().__init__(dirs)
        self.listings, self.fresh = listings, fresh

    def list_templates(self) -> list[str]:
        names: set[str] = set()
        for folder in self.searchpath:
            listed = self.listings.get(folder)
            if listed is None:
                listed = [name for name in jinja2.FileSystemLoader(folder).list_templates()
                          if not any(part.startswith(".") for part in name.split("/"))]
                if folder not in self.fresh:
                    self.listings[folder] = listed
            names.update(listed)
        return sorted(names)


def list_once(theme: Theme, listings: Listings) -> None:
    """Make `theme`'s Jinja environments list its installed folders from `listings`.

    MkDocs lists the theme's files right after ``theme.get_env()``, before any plugin event, so the one place
    to hand it another loader is that method of this build's theme object (made anew by every build)."""
    make_env = theme.get_env
    fresh = {theme.custom_dir} if theme.custom_dir else set()

    def get_env() -> jinja2.Environment:
        env = make_env()
        env.loader = ListedLoader(theme.dirs, listings, fresh)
        return env

    theme.get_env = get_env  # type: ignore[method-assign]
