"""The theme's templates: compiled once, and its folders listed without the icons.

Compiled templates are kept beside the results store and shared by every build, language and rebuild. MkDocs
makes a new Jinja environment for each build, which compiles Material's templates again every time (about 0.6 s
of each `mkdocs serve` rebuild). Jinja's own bytecode cache keys each template by its source's checksum and
writes atomically; this only adds that an unreadable file is a miss, not an error.

The listing: each build, MkDocs lists every file in the theme's folders to find the static ones it copies
(``Files.add_files_from_theme``), and drops every name under a hidden folder. Material's are 14,509 files, all
but 161 of them its icons in ``.icons/``, each tested against a dozen patterns: 144 ms of every `mkdocs serve`
rebuild. Jinja's loader here does not descend into hidden folders (1.6 ms for Material's), so what MkDocs copies
is the same.
"""

from __future__ import annotations

import os
from pathlib import Path

import jinja2
import jinja2.bccache
from mkdocs.theme import Theme


class CompiledTemplates(jinja2.FileSystemBytecodeCache):
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(str(folder))

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a damaged file: compile again, and the dump replaces it
            bucket.reset()


class VisibleLoader(jinja2.FileSystemLoader):
    """Jinja's loader for the theme's folders, whose listing leaves out hidden files and folders (MkDocs' filter
    drops them all: its patterns ``.*`` and ``*/.*``). Loading a template, hidden or not, is Jinja's own."""

    def list_templates(self) -> list[str]:
        names: set[str] = set()
        for folder in self.searchpath:
            for dirpath, dirnames, filenames in os.walk(folder, followlinks=self.followlinks):
                dirnames[:] = [name for name in dirnames if not name.startswith(".")]
                relative = Path(dirpath).relative_to(folder)
                names.update((relative / name).as_posix() for name in filenames if not name.startswith("."))
        return sorted(names)


def list_visible(theme: Theme) -> None:
    """Make `theme`'s Jinja environments list its folders with :class:`VisibleLoader`.

    MkDocs lists the theme's files right after ``theme.get_env()``, before any plugin event, so the one place
    to hand it another loader is that method of this build's theme object (made anew by every build)."""
    make_env = theme.get_env

    def get_env() -> jinja2.Environment:
        env = make_env()
        env.loader = VisibleLoader(theme.dirs)
        return env

    theme.get_env = get_env  # type: ignore[method-assign]
