"""The bridge: mkdocs-ng, the maintained fork of MkDocs, builds the published site byte for byte as MkDocs does.

The two cannot share site-packages: both install the package `mkdocs`. `.ci/env` installs mkdocs-ng alone, without
its requirements (MkDocs 1.6.1's, installed already), into `.venv/mkdocs-ng/`, and its build here runs with that
folder first on PYTHONPATH: `import mkdocs` finds mkdocs-ng, all else comes from `.venv`. importlib.metadata then
sees both distributions, whose entry points (themes `mkdocs`, `readthedocs`; plugin `search`) name the same objects;
MkDocs keeps the first of equal ones, mkdocs-ng's. Each build names its MkDocs in the generator tag, which proves
which one ran and is the one thing masked. ARCHITECTURE.md, "The bridge to mkdocs-ng", says what to do the day
MkDocs 1.6 cannot be installed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import ROOT, assert_ok, build

NG = Path(sys.prefix) / "mkdocs-ng"
PINS = dict(re.findall(r"^(mkdocs|mkdocs-ng)==(\S+)$", (ROOT / ".ci" / "constraints.txt").read_text("utf-8"), re.M))
PUBLISHED = {"LESSON_SITE_URL": "https://example.org/lesson/", "LESSON_REPO_URL": "https://github.com/example/lesson",
             "SOURCE_DATE_EPOCH": "1767225600"}  # the sitemap's dates, else each build's day (midnight may part them)


def generator(version: str) -> bytes:
    return f'<meta name="generator" content="mkdocs-{version}, mkdocs-material">'.encode()


def files(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


def first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"byte {at}: {a[max(0, at - 30):at + 30]!r} != {b[max(0, at - 30):at + 30]!r}"


def test_mkdocs_ng_builds_the_same_site(site: Path, tmp_path: Path) -> None:
    """After `site`, whose cold build fills the results store: these two builds run no lesson code."""
    assert NG.joinpath("mkdocs").is_dir(), f"no mkdocs-ng in {NG}: run the suite with `.ci/env pytest`"
    mkdocs, ng = tmp_path / "mkdocs", tmp_path / "ng"
    assert_ok(build(ROOT, mkdocs, env=PUBLISHED))
    assert_ok(build(ROOT, ng, env={**PUBLISHED, "PYTHONPATH": str(NG)}))
    for folder, version in ((mkdocs, PINS["mkdocs"]), (ng, PINS["mkdocs-ng"])):
        assert generator(version) in (folder / "index.html").read_bytes(), \
            f"{folder.name}/index.html's generator tag is not mkdocs-{version}'s: that build ran another MkDocs"
    assert files(mkdocs) == files(ng), f"only one build wrote {sorted(set(files(mkdocs)) ^ set(files(ng)))[:5]}"
    for name in files(mkdocs):
        a, b = (mkdocs / name).read_bytes(), (ng / name).read_bytes()
        b = b.replace(generator(PINS["mkdocs-ng"]), generator(PINS["mkdocs"])) if name.endswith(".html") else b
        assert a == b, f"{name} differs under mkdocs-ng at {first_difference(a, b)}"
