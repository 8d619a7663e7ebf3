"""A warm Python for the commands the tests run many times: ``python -m mkdocs build``, ``python -m pytest``,
the lesson's scripts.

Each of those commands first spends 2-5 s of CPU importing the same libraries (MkDocs, Material, markdown-exec,
mkdocs-jupyter with nbconvert, torch, matplotlib) and loading the Chinese segmenter's dictionary that
Material's search uses. On the 2-core test machine that was about a third of the suite's CPU. This process
pays for those imports once, then forks a child per command: the child is a process of its own, with the
command's arguments, folder, environment, standard streams and exit code, and it imports the project (and
everything else) from the folder it runs in, as the command would.

Nothing of the project is imported here, so a test's broken copy is what its command runs. The parent runs no
threads and no torch operation before forking.

One warm Python serves the whole test session (both pytest-xdist workers, and the sessions tests start inside
copies): it listens on a Unix socket, reads one JSON request per connection, ``{"argv": [...], "cwd": ...,
"env": {...}, "out": path, "err": path}`` where argv is what follows ``python`` (``-m module ...``,
``-c code ...`` or ``script ...``), forks the command with standard input empty, and answers
``{"returncode": n}`` on that connection when the command's process ends. ``{"stop": true}`` ends the server.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import runpy
import selectors
import socket
import sys


def _preload() -> None:
    import logging

    import jieba
    import markdown_exec  # noqa: F401
    import material.plugins.search.plugin  # noqa: F401
    import mkdocs.commands.build  # noqa: F401
    import mkdocs_jupyter.plugin  # noqa: F401
    import pymdownx.superfences  # noqa: F401
    import pytest  # noqa: F401

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()  # Material's search segments every page with it: a dictionary of about 1 s to load
    import matplotlib.figure  # noqa: F401
    import torch  # noqa: F401


def _child(request: dict, base_path: list[str]) -> None:
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    extra = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [os.getcwd(), *extra, *base_path]  # as `python -m` or `-c` orders it
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, request["out"]), (2, request["err"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    argv = request["argv"]
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        sys.path[0] = ""
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102 - as `python -c`
    else:  # a script
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")


def _run_child(request: dict, base_path: list[str]) -> None:
    """The command, ended as `python -m` ends: its exit code, or a traceback and 1. Its own exit handlers run
    (non-daemon threads are joined first); then the process exits without tearing down the interpreter it
    inherited, which would touch, and so copy, every page of the parent's memory (a second per command)."""
    code = 1

    def leave() -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    atexit.register(leave)  # before the command's own handlers, so after them at exit
    try:
        _child(request, base_path)
        code = 0
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            code = exit_.code or 0
        else:
            print(exit_.code, file=sys.stderr)
    sys.exit(code)  # through the exit handlers to `leave`, never back to the server's loop
    # anything else propagates: the interpreter prints its traceback, and `leave` exits with 1


IDLE = 900
"""Seconds without a request or a running command after which the server exits on its own (a session that
died without stopping it)."""


def main(address: str) -> None:
    base_path = sys.path[1:]  # without this file's folder (this process is started with no PYTHONPATH)
    _preload()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(address + ".new")  # left by a server that did not start
    server.bind(address + ".new")
    server.listen(16)
    os.replace(address + ".new", address)  # clients connect once it is complete
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # what is loaded now stays out of the children's collections (no copies of its pages)
    # The server waits on its socket and on each running command's pidfd; when a command ends, its exit status
    # (whatever ended it: an exit, an exec'd program's exit, a signal) goes back on that command's connection.
    events = selectors.DefaultSelector()
    events.register(server, selectors.EVENT_READ)
    while True:
        ready = events.select(timeout=IDLE)
        if not ready:
            break
        for key, _ in ready:
            if key.fileobj is server:
                connection, _ = server.accept()
                request = json.loads(connection.makefile(encoding="utf-8").readline() or "{}")
                if request.get("stop"):
                    connection.close()
                    server.close()
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(address)
                    return
                pid = os.fork()
                if pid == 0:
                    server.close()
                    connection.close()
                    _run_child(request, base_path)
                events.register(os.pidfd_open(pid), selectors.EVENT_READ, (pid, connection))
            else:
                pid, connection = key.data
                events.unregister(key.fileobj)
                os.close(key.fileobj)
                status = os.waitpid(pid, 0)[1]
                with contextlib.suppress(OSError), connection:  # the test may have given up on it
                    connection.sendall((json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n").encode())


if __name__ == "__main__":
    if sys.argv[1] == "--detach":  # the server outlives the test process that starts it: the session stops it
        server = os.fork()
        if server:
            with open(sys.argv[-1] + ".pid", "w") as pid:  # the client watches it while the server starts
                pid.write(str(server))
            os._exit(0)
        os.setsid()
    main(sys.argv[-1])
