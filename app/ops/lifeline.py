"""A spawned child process dies with its parent, from its first instant.

Why: ingestion's children (ingest/processing.py) are started with ``spawn``; a child spends
its first seconds importing (the parent's main module, then ours) and loading models before
any code of ours used to run. A server SIGKILLed in that window left children — and, through
them, multiprocessing's resource tracker — running for minutes, ~125 MB each.

How: ``bind_to_parent`` runs when a spawned child first imports this package (``app`` and
``ingest`` import it before anything else), which is while multiprocessing is still unpickling
its start-up data — before any work. It asks Linux to SIGKILL this process when its parent
dies (``prctl(PR_SET_PDEATHSIG)``), then checks the parent is still there (it may have died
before the request): the spawn pipe, which the parent holds open for its whole life, hung up
means it is gone. Elsewhere (no prctl) the check is all there is, and the children's watcher
thread (ingest/processing.py) does the rest.

Linux ties the signal to the *thread* that started the child, so every child is started from
one long-lived thread (``in_spawner_thread``), never from a worker or request thread that may
end while its child is still wanted.
"""

from __future__ import annotations

import ctypes
import os
import queue
import re
import select
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")
PR_SET_PDEATHSIG = 1
_bound = False


def spawn_pipe() -> int | None:
    """The file descriptor multiprocessing's ``spawn`` reads this child's start-up data from,
    or None when this process is not such a child (read from the interpreter's own command
    line, which multiprocessing does not rewrite)."""
    argv = getattr(sys, "orig_argv", None) or []
    if not argv or argv[-1] != "--multiprocessing-fork":
        return None
    found = re.search(r"pipe_handle=(\d+)", " ".join(argv))
    return int(found.group(1)) if found else None


def _parent_gone(pipe: int) -> bool:
    import multiprocessing.process as mp_process

    if getattr(mp_process.current_process(), "_inheriting", False):
        # still unpickling: the pipe is open and is the spawn pipe; hung up = no parent
        poller = select.poll()
        poller.register(pipe, select.POLLIN)
        return any(event & (select.POLLHUP | select.POLLERR | select.POLLNVAL)
                   for _, event in poller.poll(0))
    parent = mp_process.parent_process()
    return parent is not None and not parent.is_alive()


def _ask_for_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def bind_to_parent() -> None:
    """In a spawned child: die with the parent (at once if it is already gone). Elsewhere:
    nothing. Idempotent."""
    global _bound
    if _bound:
        return
    pipe = spawn_pipe()
    if pipe is None:
        return
    _bound = True
    _ask_for_death_signal()
    if _parent_gone(pipe):
        os._exit(0)


_jobs: queue.SimpleQueue[tuple[Callable[[], object], Future]] = queue.SimpleQueue()
_spawner: threading.Thread | None = None
_spawner_lock = threading.Lock()


def _serve() -> None:
    while True:
        work, done = _jobs.get()
        try:
            done.set_result(work())
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            done.set_exception(exc)


def in_spawner_thread(work: Callable[[], T]) -> T:
    """Run ``work`` (which starts a child process) in the one thread that starts children,
    which lives as long as the process, and return its result."""
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = threading.Thread(target=_serve, name="child-spawner", daemon=True)
            _spawner.start()
    done: Future = Future()
    _jobs.put((work, done))
    return done.result()
