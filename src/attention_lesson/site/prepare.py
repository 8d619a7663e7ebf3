"""What every build does before a page renders, for any builder: check every language folder, run every Japanese
page's sessions (or take them from the store), and say what each language's site adds to its folder: the Japanese
pages it lacks, the executed notebooks, the downloads and the status page. No MkDocs here: plugin.py calls it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path

from attention_lesson.site import lesson, notebooks, render, source, strings, translations
from attention_lesson.site.lesson import NOTEBOOKS, SOURCE_LANG, Project, Site
from attention_lesson.site.run import BlockError, Limits, Runner, environment
from attention_lesson.site.store import Store, prune, write_atomically

NOT_DOWNLOADED = {"attention.py"}  # the terminal lesson needs the repository: every other listing is downloadable


class Stop(Exception):  # noqa: N818 - what stops the build, not an error of the code
    """What stops the build: one line a problem, control characters escaped (a translator's text can be in them)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(dict.fromkeys(map(strings.printable, problems))))


def stop(problems: list[str]) -> None:
    if problems:
        raise Stop(problems)


def check(project: Project) -> Site:
    """Every language folder checked, before any code runs: strings.yml, each translated page, the includes."""
    problems, words = [], {}
    for code in project.languages():  # Japanese first: every other language falls back on its words
        if code != SOURCE_LANG and (found := translations.first_look(project, code)):
            problems += found  # nothing of the folder is read until it holds only its own
            continue
        try:
            words[code] = project.strings(code, words.get(SOURCE_LANG))
        except strings.StringsError as error:
            problems += error.problems
        else:
            problems += translations.search_problems(code, words[code])
        problems += translations.code_problems(project, code, words)
    for page in project.pages(SOURCE_LANG):  # pymdownx.snippets would stop on a missing file with a traceback
        problems += lesson.include_problems(project, page)
    problems += [problem for problem in translations.snippet_problems(project) if problem not in problems]
    stop(problems)
    return Site(project, project.languages(), words, status=translations.status_table(project, words))


def run(site: Site, store: Store | None, limits: Limits, notebook_cache: Path) -> str:
    """Every Japanese page's sessions into ``site.runs``; stops on a failing block, a false claim or a typed
    number. Returns what a log says of it."""
    project, problems = site.project, []
    runner = Runner(store, environment(project.root), limits, site.stats, project.snippets)
    for page in project.pages(SOURCE_LANG):
        try:
            site.runs[page] = lesson.run_page(project, page, runner)
        except (BlockError, source.SourceError) as error:
            stop([str(error)])
        problems += lesson.claim_errors(project, page, site.runs[page])
        typed = functools.partial(lesson.typed_numbers, project, page, site.runs[page])  # every language's page
        problems += project.remember([project.docs / code / page for code in site.languages], typed,
                                     json.dumps(vars(site.runs[page]), sort_keys=True, default=str))
        named = functools.partial(lesson.named_code, project, page)  # reads every page: each edit may change it
        problems += project.remember([*(project.docs / code / name for code in site.languages
                                        for name in project.pages(SOURCE_LANG)),
                                      *sorted(project.snippets.glob("*.py"))], named, "named", page)
    stop(problems)
    prune([*(store.path.glob("??/*.json") if store else []), *notebook_cache.glob("*")])  # unused for a month
    if store is not None and store.unwritable:
        print(f"WARNING  -  {store.unwritable}: results are not kept, so the next build runs everything again "
              "(make the folder writable, or set LESSON_STORE)", file=sys.stderr)
    return f"Ran {site.stats.ran} sessions in {site.stats.seconds:.1f} s, {site.stats.reused} taken from the store"


def added(site: Site, lang: str, notebook_cache: Path) -> dict[str, str | Path]:
    """What a language's site adds to its folder, by path in the site: a file to publish, or a text. A Japanese
    page the language lacks is published from docs/ja/, a notebook as executed (its .py source is replaced)."""
    project, words, found, missing = site.project, site.words[lang], {}, fallbacks(site, lang)
    for page in project.pages(SOURCE_LANG):
        path = project.docs / (SOURCE_LANG if page in missing else lang) / page
        if page.startswith(f"{NOTEBOOKS}/"):
            found[page.replace(".py", ".ipynb")] = _notebook(site, lang, page, path, notebook_cache)
        elif page in missing:
            found[page] = path
    found[translations.STATUS_PAGE] = translations.status_markdown(project, site.words, lang, site.status)
    for path in sorted(project.snippets.rglob("*")):  # each listing and its data, to download
        # a README.md beside the data (its source, its licence) stays in the repository: it would become a page
        if path.is_file() and "__pycache__" not in path.parts and path.name not in NOT_DOWNLOADED \
                and path.suffix != ".md":
            uri = path.relative_to(project.root).as_posix()
            rows = source.listing(path).splitlines(keepends=True) if path.suffix == ".py" else []
            found[uri] = path if not rows else strings.localize_source(  # as the pages show it: in the language,
                "".join(row for row in rows if not source.SECTION.match(row)), words)  # no include's section marks
    return found


def _notebook(site: Site, lang: str, page: str, path: Path, cache: Path) -> Path:
    """The executed notebook of a jupytext source, written once under `cache` (a folder per content: builds that
    share the cache never write over each other's notebook)."""
    project, run = site.project, site.runs[page]
    shown = path.relative_to(project.root).as_posix()
    try:  # a markdown cell's value the run lacks (the code cells' includes were checked at the first look)
        ipynb = notebooks.executed(path.read_text(encoding="utf-8"), run, site.words[lang], project.snippets, shown,
                                   lambda cell: render.fill_values(cell, run.values, shown))
    except source.SourceError as error:
        raise Stop([str(error)]) from None
    target = cache / hashlib.sha256(ipynb.encode()).hexdigest()[:32] / page.replace(".py", ".ipynb")
    if target.is_file():  # its folder is named by its content: marked used
        os.utime(target.parent.parent)
    else:
        write_atomically(target, ipynb)
    return target


def fallbacks(site: Site, lang: str) -> set[str]:
    """The Japanese pages a language shows because it has not translated them yet."""
    return {page for page in site.project.pages(SOURCE_LANG) if not (site.project.docs / lang / page).is_file()}
