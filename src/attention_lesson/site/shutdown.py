"""How a process that ran the lesson's code ends: without the interpreter's last garbage collections."""

from __future__ import annotations

import atexit
import gc


def skip_final_collections() -> None:
    """Leave the objects alive at exit to the system, as it takes back the process's memory anyway.

    At exit CPython runs full garbage collections over everything still alive: in a process that imported
    torch, matplotlib and torch.profiler's compiler stack, about 330,000 objects, 0.7-1.4 CPU-s spent on memory
    that is handed back to the system a moment later. ``gc.freeze`` (CPython's public API) moves them out of
    the collector's sight. Registered with atexit, it runs only as the interpreter exits, after the program's
    last line: atexit's other handlers still run (logging's flush among them), and a process that calls this
    and carries on collects as before. Calling it again does not register it twice."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
