"""The file watcher `mkdocs serve` uses on Linux: watchdog's native observer (inotify) in place of MkDocs' scan of
the watched folders every 0.5 s, which an edit waited for, 0.25 s on average (ARCHITECTURE.md, What each speed
mechanism buys). Elsewhere MkDocs' polling stays: the tests check it there, and watchdog's Windows observer also
reports the access times that reading a page changes."""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Any

import watchdog.events
import watchdog.observers

EDITS = [watchdog.events.FileModifiedEvent, watchdog.events.FileCreatedEvent, watchdog.events.FileDeletedEvent,
         watchdog.events.FileMovedEvent]


class Edits(watchdog.observers.Observer):  # type: ignore[misc,valid-type]
    """An observer passing on what an edit does to a file, not its being opened or read: MkDocs rebuilds on every
    event, and every build reads the pages. (watchdog watches a file, mkdocs.yml, through its folder, so a save
    that renames a new file over it is seen.)"""

    def schedule(self, handler: Any, path: Any, *, recursive: bool = False, **_: Any) -> Any:
        return super().schedule(handler, path, recursive=recursive, event_filter=EDITS)


def observer(paths: list[str], log: logging.Logger) -> Edits | None:
    """An observer for the server, if the system gives this process one with a watch of every folder under paths
    (a user's inotify instances and watches are limited, and watchdog leaves a subfolder it cannot watch unwatched,
    unsaid); if not, None: the server polls, as MkDocs does by default."""
    paths = [os.path.abspath(path) for path in paths]
    folders = {folder for path in paths for folder, _, _ in os.walk(path)} | {os.path.dirname(p) for p in paths}
    probe = None
    try:
        probe = Edits()
        for folder in folders:
            probe.schedule(watchdog.events.FileSystemEventHandler(), folder)
        probe.start()  # a folder it cannot watch fails here
    except OSError as error:
        log.info("Watching by polling: %s", error)
        return None
    finally:
        if probe is not None:  # its watches go, and the thread that reads them
            probe.stop()
            with contextlib.suppress(RuntimeError):  # never started
                probe.join()
    return Edits()
