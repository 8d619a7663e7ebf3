"""The theme's Jinja environments: compiled templates kept between builds, and folders listed without the icons.

MkDocs makes a new Jinja environment for each build, and Material's search plugin makes two more to look up its
words for the page's language; each compiled Material's templates again (about 0.6 s of each `mkdocs serve`
rebuild, and 0.05 s more in the search's configuration). The compiled templates are kept beside the results
store and shared by every build, language and rebuild: Jinja's own bytecode cache keys each template by its
source's checksum and writes atomically; this only adds that an unreadable file is a miss, not an error.

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


def theme_environments(theme: Theme, compiled: Path) -> None:
    """Give every Jinja environment of `theme` :class:`VisibleLoader` and the compiled templates in `compiled`.

    MkDocs lists the theme's files right after ``theme.get_env()``, before any plugin event, and Material's
    search plugin calls it in its ``on_config``: the one place to hand them another loader and the cache is that
    method of this build's theme object (made anew by every build)."""
    make_env = theme.get_env
    cache = CompiledTemplates(compiled)

    def get_env() -> jinja2.Environment:
        env = make_env()
        env.loader = VisibleLoader(theme.dirs)
        env.bytecode_cache = cache
        return env

    theme.get_env = get_env  # type: ignore[method-assign]
