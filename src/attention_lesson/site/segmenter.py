"""The search's Chinese word segmenter, given a dictionary of the words this site's pages can hold.

Material's search plugin cuts every run of Han characters into words with jieba when jieba is installed (the
Chinese index needs it), on the pages of every language. Loading jieba's own dictionary (350,000 words) costs
each build process 1.3 CPU-s: the source language's build and each language's worker, in `mkdocs build` and
`mkdocs serve` alike. Material's documented `search.jieba_dict` option takes another dictionary; this module
makes one from jieba's own (a hand-made step, because neither library offers a smaller dictionary that
segments the same).

It keeps every word all of whose characters occur in the project's sources, with its frequency, and one entry
of a character no text holds, with the frequency of every word left out, so the total stays jieba's. jieba
scores a cut by each word's frequency over that total, and only words that occur in the text can be in a cut
of it; so a text made of these characters is cut exactly as jieba's own dictionary cuts it
(tests/test_translations.py compares every language's search index with that). The characters come from
the project's docs/, snippets/ and mkdocs.yml and from this package's own text (its templates and its
code's strings), which is all a page can show.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import time
from pathlib import Path
from typing import Any

from attention_lesson.site import store

log = logging.getLogger(f"mkdocs.plugins.{__name__}")

TEXT = {".md", ".py", ".yml", ".yaml", ".html", ".txt", ".ipynb", ".json", ".js"}
"""The files a page's text can come from (others, images among them, hold no words)."""
LEFT_OUT = "\ue000"
"""The entry that holds the frequency of the words left out: a private-use character, which is not Han, so
Material never hands it to jieba."""


def characters(root: Path) -> set[str]:
    """Every character of the project's sources at `root` and of this package's own files."""
    sources = [root / "mkdocs.yml", *(root / "snippets").rglob("*"), *(root / "docs").rglob("*"),
               *Path(__file__).parent.rglob("*")]
    found: set[str] = set()
    for path in sources:
        if path.suffix in TEXT and path.is_file():
            found.update(path.read_text(encoding="utf-8", errors="ignore"))
    return found


def configure(search: Any, root: Path, cache: Path) -> None:
    """Give Material's search plugin (its config, `search`) the dictionary for the project at `root`, unless
    mkdocs.yml names one. jieba is told to keep the table it loads from it beside it in `cache`
    (``jieba.dt.cache_file``; else a file per project folder would pile up in the system's temporary folder)."""
    try:
        import jieba
    except ImportError:
        return  # Material then cuts nothing
    found = None if search.get("jieba_dict") else characters(root)
    path = None if found is None else _path(found, cache)
    # Material has jieba load a dictionary it is given at every build: a serve rebuild whose jieba has this one
    # loaded already is not given it again, nor is it read again (0.1 s of every rebuild)
    loaded = path is not None and jieba.dt.initialized and jieba.dt.dictionary == os.path.normpath(path)
    words = path if loaded or path is None else _made(path, found)
    jieba.dt.cache_file = str(words.with_suffix(".cache")) if words else None  # else jieba's own naming
    if words is not None and not loaded:
        search.jieba_dict = str(words)


def dictionary(root: Path, cache: Path) -> Path | None:
    """The dictionary for the project at `root`, made once for each set of characters and kept in `cache`;
    None when `cache` cannot be written (jieba's own dictionary is used: the same words, loaded more slowly)."""
    found = characters(root)
    return _made(_path(found, cache), found)


def _path(found: set[str], cache: Path) -> Path:
    """Where the dictionary of the words made of `found` characters is kept in `cache`, named by them."""
    import jieba

    digest = hashlib.sha256(f"jieba {jieba.__version__}\n{''.join(sorted(found))}".encode()).hexdigest()[:16]
    return cache / "jieba" / f"dict-{digest}.txt"


def _made(path: Path, found: set[str]) -> Path | None:
    """`path`, made of the words of `found` characters if it is not there whole; None if it cannot be written."""
    if _whole(path):
        with contextlib.suppress(OSError):  # used now (jieba's table beside it: touching the dictionary would
            os.utime(path.with_suffix(".cache"))  # make jieba build the table again)
        return path
    return path if _write(path, found) else None


def prune(cache: Path, max_age: float = store.MAX_AGE) -> None:
    """Drop the dictionaries (and jieba's tables of them) not used for max_age seconds: those of characters the
    sources no longer have."""
    now = time.time()
    for path in (cache / "jieba").glob("dict-*.txt"):
        pair = [path, path.with_suffix(".cache")]
        used = max((p.stat().st_mtime for p in pair if p.exists()), default=now)
        if now - used > max_age:
            for old in pair:
                with contextlib.suppress(OSError):
                    old.unlink()


def _whole(path: Path) -> bool:
    """Whether `path` is a dictionary as _write writes it: every line a word and its frequency, the last one
    LEFT_OUT's (a file damaged or cut short is made again, not given to jieba, which would stop the build)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return bool(lines) and lines[-1].startswith(f"{LEFT_OUT} ") and all(
        len(fields := line.split(" ")) >= 2 and fields[1].isdigit() for line in lines)


def _write(path: Path, found: set[str]) -> bool:
    """Write the dictionary of the words made of `found` characters to `path`; False if it cannot be."""
    import jieba

    kept, left_out = [], 0
    with jieba.Tokenizer().get_dict_file() as full:  # a tokenizer on jieba's own dictionary
        for line in full:
            entry = line.decode("utf-8").rstrip("\r\n")
            word, frequency = entry.split(" ")[:2]
            if set(word) <= found:
                kept.append(entry)
            else:
                left_out += int(frequency)
    kept.append(f"{LEFT_OUT} {left_out}")
    try:
        store.write_atomically(path, "\n".join(kept) + "\n")
    except OSError as error:
        log.debug("the search's dictionary cannot be written to %s (%s): jieba's own is used", path, error)
        return False
    return True
