"""Run a page's sessions once, and keep each session's result as data: ARCHITECTURE.md's steps 5 and 6."""

from __future__ import annotations

import _thread
import contextlib
import hashlib
import io
import json
import math
import os
import platform
import re
import signal
import sys
import threading
import time
import traceback
import types
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from attention_lesson.site.source import Step
from attention_lesson.site.store import Store

FORMAT = 2
UNRAISED = re.compile(r"^(Traceback \(most recent call last\):|Exception ignored\b.*)$", re.M)
"""How an error Python printed without raising it starts (in a block's stderr)."""


class BlockError(Exception):
    """A session could not run, or a claim no longer holds: one line naming file:line."""


@dataclass(frozen=True)
class Limits:
    seconds: float = 120.0  # a block that runs longer is stopped
    output: int = 1_000_000  # characters a block may print


@dataclass
class Stats:
    ran: int = 0
    reused: int = 0
    seconds: float = 0.0


def environment(root: Path) -> str:
    """What every session's result depends on besides its own code."""
    parts = [str(FORMAT), platform.python_version(), metadata.version("torch")]
    for path in sorted((root / "src" / "attention_lesson").glob("*.py")):
        parts += [path.name, hashlib.sha256(path.read_bytes()).hexdigest()]
    for path in sorted((root / "snippets").rglob("*")):
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts:
            parts += [path.relative_to(root).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def key(env: str, steps: list[Step]) -> str:
    return hashlib.sha256((env + "".join(f"\0{step.kind}\0{step.code}" for step in steps)).encode()).hexdigest()


def jsonable(value: Any, where: str) -> Any:
    """A figure's data as JSON: tensors and arrays as lists, numbers as floats."""
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple, dict, str)):
        value = value.tolist()
    if isinstance(value, dict):
        return {str(k): jsonable(v, where) for k, v in value.items()}
    if isinstance(value, (list, tuple, range)):
        return [jsonable(v, where) for v in value]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    raise BlockError(f"{where}: a figure's data must be numbers, lists, tensors or text, not {type(value).__name__}")


def formatted(value: Any, spec: str) -> str:
    """A value as prose shows it: ``format(value, spec)``; a list or tensor element by element, ``[1, 0]``."""
    if hasattr(value, "dim") and value.dim() == 0:
        value = value.item()
    if hasattr(value, "tolist") and not isinstance(value, (int, float)):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(formatted(v, spec) for v in value) + "]"
    return format(value, spec)


def split_value(expr: str) -> tuple[str, str]:
    """``weights[3]:.2f`` → (``weights[3]``, ``.2f``): the format after the last top-level colon, if any."""
    depth, colon = 0, -1
    for i, char in enumerate(expr):
        depth += (char in "([{") - (char in ")]}")
        if char == ":" and depth == 0:
            colon = i
    if colon < 0 or not all(c.isalnum() or c in ".,<>=^+-_ %#" for c in expr[colon + 1:]):
        return expr.strip(), ""
    return expr[:colon].strip(), expr[colon + 1:].strip()


class _Output(io.StringIO):
    """What a block prints, up to a limit; its stderr is also kept apart (`into`: the output it is part of), to
    look for an error printed but not raised."""

    def __init__(self, limit: int, where: str, into: _Output | None = None) -> None:
        super().__init__()
        self.limit, self.where, self.into = limit, where, into

    def write(self, text: str) -> int:
        if self.into is not None:
            self.into.write(text)
        elif self.tell() + len(text) > self.limit:
            raise BlockError(f"{self.where}: printed more than {self.limit} characters (the output limit, the "
                             "plugin's max_output)")
        return super().write(text)


class _Expired(BaseException):
    """The time limit, raised in the block past what its code catches (as KeyboardInterrupt would be)."""


@contextlib.contextmanager
def _time_limit(seconds: float, where: str):
    """Stop the block after `seconds` (in the main thread, where Python can interrupt it; elsewhere no limit).

    The timer interrupts through a SIGINT handler of this block's own: so the limit holds when the build was
    started with SIGINT ignored (nohup, a background job), and it is not taken for Ctrl-C (exit 130)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return
    expired, running = threading.Event(), [True]
    previous = signal.getsignal(signal.SIGINT)

    def interrupt(signum: int, frame: Any) -> None:
        if expired.is_set():
            if running[0]:
                raise _Expired
        elif callable(previous):  # Ctrl-C meanwhile: as the command takes it
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt

    def stop() -> None:
        expired.set()
        _thread.interrupt_main()

    signal.signal(signal.SIGINT, interrupt)
    timer = threading.Timer(seconds, stop)
    timer.start()
    try:
        yield
    except _Expired:
        raise BlockError(f"{where}: ran longer than {seconds:g} s (the time limit, the plugin's timeout)") from None
    finally:
        running[0] = False
        timer.cancel()
        timer.join()
        # an interrupt still pending is taken (and dropped) first; None: a handler not set from Python
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def _line_of(error: BaseException | None, step: Step, filename: str, said: str = "") -> str:
    """Where the error happened (raised, or printed in `said`): the file and line the failing code came from."""
    frames = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == filename] if error \
        else [int(n) for n in re.findall(rf'File "{re.escape(filename)}", line (\d+)', said)]
    line = error.lineno if isinstance(error, SyntaxError) and error.filename == filename else (frames or [0])[-1]
    return step.origins[line - 1] if line and 0 < line <= len(step.origins) else step.where


def _describe(error: BaseException) -> str:
    message = [error.msg] if isinstance(error, SyntaxError) else str(error).strip().splitlines()
    return type(error).__name__ + (f": {message[-1]}" if message else "")


def execute(steps: list[Step], limits: Limits, folder: Path) -> list[dict[str, Any]]:
    """Run a session's steps in a fresh namespace, from `folder` (snippets/) as a reader runs a listing from the
    folder it is in (its data in data/ there); one result per step."""
    # torch's profiler (Kineto) writes two lines straight to the terminal around every profile below level 6
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    module = types.ModuleType("__lesson__")
    sys.modules[module.__name__] = module  # dataclasses and pickle look classes up by module name
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch else None
    try:
        with contextlib.chdir(folder):
            printed: list[str] = []  # each run block's output so far: what claims, values and figures may read
            results = []
            for step in steps:
                results.append(_step(step, module.__dict__, limits, printed))
                if step.kind == "run":
                    printed.append(results[-1]["output"])
            return results
    finally:
        sys.modules.pop(module.__name__, None)
        if threads is not None:  # a listing's set_num_threads(1) stays its own
            torch.set_num_threads(threads)


def table(text: str) -> list[dict[str, str]]:
    """A table a block printed (``| d | √d |`` rows, an alignment row aside) as rows by header: what a claim reads
    to hold a printed label to the value under it (``all(r["√d"] == ... for r in table(printed[-1]))``)."""
    rows = [[cell.strip() for cell in line.strip()[1:-1].split("|")] for line in text.splitlines()
            if line.strip().startswith("|") and line.strip().endswith("|")]
    rows = [row for row in rows if not all(re.fullmatch(r":?-+:?", cell) for cell in row)]
    return [dict(zip(rows[0], row, strict=False)) for row in rows[1:]] if rows else []


def _reading(namespace: dict[str, Any], printed: list[str]) -> dict[str, Any]:
    """What an expression of the page reads besides the session's names: ``printed`` (each run block's output so
    far, ``printed[-1]`` the last) and ``table``, unless the listing has names of its own so."""
    return {name: thing for name, thing in (("printed", list(printed)), ("table", table)) if name not in namespace}


def _holds(claim: str, namespace: dict[str, Any], filename: str, printed: list[str]) -> tuple[bool, ...]:
    """(True,) if a claim holds; (False,) if not; (False, what it raised) if it raised: a claim that cannot be
    evaluated any more (a name, a key gone from the code) is as false as one that evaluates false."""
    try:  # the Japanese page's claim
        return (bool(eval(compile(claim, filename, "eval"), namespace, _reading(namespace, printed))),)  # noqa: S307
    except Exception as error:  # noqa: BLE001 - whatever it raised is what the editor reads
        return False, _describe(error)


def _step(step: Step, namespace: dict[str, Any], limits: Limits, printed: list[str]) -> dict[str, Any]:
    filename = f"<{step.where}>"
    if step.kind == "run":
        buffer = _Output(limits.output, step.where)
        errors = _Output(limits.output, step.where, into=buffer)
        try:
            compiled = compile(step.code, filename, "exec")
            with _time_limit(limits.seconds, step.where), contextlib.redirect_stdout(buffer), \
                    contextlib.redirect_stderr(errors):
                exec(compiled, namespace)  # noqa: S102 - running the lesson's own code is this module's job
        except BlockError:
            raise
        except Exception as error:  # noqa: BLE001 - any error in the lesson's code is the editor's to see
            raise BlockError(f"{_line_of(error, step, filename)}: {_describe(error)}") from None
        if found := UNRAISED.search(said := errors.getvalue()):  # a traceback is never published as output
            where = _line_of(None, step, filename, said)
            last = [row for row in said[found.start():].splitlines() if row.strip()][-1].strip()
            raise BlockError(f"{where}: Python printed an error the code did not raise ({found[1]} … {last}): "
                             "fix it, or catch it where it happens")
        return {"output": buffer.getvalue()}
    def value(expr: str, what: str) -> Any:
        try:
            return eval(compile(expr, filename, "eval"), namespace, _reading(namespace, printed))  # noqa: S307
        except Exception as error:  # noqa: BLE001
            raise BlockError(f"{what}: {_describe(error)}") from None

    if step.kind == "value":  # one that cannot be computed any more is said with the claims, in every language
        expr, spec = split_value(step.code)
        try:
            found = eval(compile(expr, filename, "eval"), namespace, _reading(namespace, printed))  # noqa: S307
            return {"value": formatted(found, spec)}
        except Exception as error:  # noqa: BLE001 - the page's expression: what it raised is what the editor reads
            return {"raised": _describe(error)}
    if step.kind == "claim":  # every line that does not hold: [its line in the fence, the claim(, what it raised)]
        lines = [(k, line.strip()) for k, line in enumerate(step.code.splitlines(), 1)]
        return {"claim": [[k, c, *said] for k, c in lines if c and not c.startswith("#")
                          for holds, *said in [_holds(c, namespace, filename, printed)] if not holds]}
    data = yaml.safe_load(step.code)
    for name, expr in data.items():
        if name not in ("kind", "log"):  # every other key is an expression
            found = value(str(expr), f"{step.where}: the figure's {name}: {expr!r}")
            data[name] = jsonable(found, f"{step.where}: {name}")
    return {"figure": data}


@dataclass
class Runner:
    """Runs sessions, or takes them from the store: one per project, shared by every language's build."""

    store: Store | None
    env: str
    limits: Limits
    stats: Stats
    folder: Path

    def session(self, steps: list[Step]) -> list[dict[str, Any]]:
        digest = key(self.env, steps)
        stored = self.store.get(digest) if self.store else None
        if isinstance(stored, list) and len(stored) == len(steps) and all(isinstance(r, dict) for r in stored):
            self.stats.reused += 1
            return stored
        start = time.perf_counter()
        results = execute(steps, self.limits, self.folder)
        retries = max((step.retry for step in steps if step.kind == "claim"), default=0)
        while retries and any(r.get("claim") and s.retry for s, r in zip(steps, results, strict=True)):
            retries -= 1  # a claim about a measurement failed: measure the whole session again
            results = execute(steps, self.limits, self.folder)
        self.stats.ran += 1
        self.stats.seconds += time.perf_counter() - start
        if self.store is not None:
            self.store.put(digest, json.loads(json.dumps(results)))
        return results
