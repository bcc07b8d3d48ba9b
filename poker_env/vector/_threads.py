"""Stepping a batch of tables on several threads, without numba's threading layer.

The vector envs step N independent tables. With ``num_threads > 1`` they run one
compiled, GIL-free (``nogil=True``) kernel on that many Python threads at once
(the calling thread is one of them). Each thread grabs the next ``chunk`` tables
from a shared counter with an atomic fetch-and-add until none are left, so the
work is shared out dynamically: on a machine whose cores are busy with other
processes, a descheduled thread holds up one chunk at most, never a fixed half of
the batch (what numba's ``prange`` with a static split does, and why its 2-thread
figures swing so much on a shared 2-core machine). Tables are independent (one
random stream each), so which thread steps a table never changes a result.

A kernel used here has the shape::

    @njit(cache=True, nogil=True, _nrt=False)
    def kernel(..., counter, chunk):
        n = ...
        while True:
            start = fetch_add(counter, chunk)
            if start >= n:
                break
            for i in range(start, min(start + chunk, n)):
                ...  # step table i

and :meth:`TableThreads.run` resets ``counter`` and calls it on every thread.

The worker threads are started once and handed each call through a pair of
locks (about 15 µs a call here, against about 35-50 µs for a
``ThreadPoolExecutor`` submit and result): the hand-off is serial time in
every batched step.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["TableThreads", "fetch_add"]


@intrinsic
def fetch_add(typingctx, counter, delta):  # type: ignore[no-untyped-def]
    """``counter[0] += delta`` as one atomic instruction; returns the old value."""
    sig = types.int64(types.Array(types.int64, 1, "C"), types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(
            context, builder, signature.args[0], arr, [context.get_constant(types.intp, 0)]
        )
        return builder.atomic_rmw("add", ptr, args[1], "monotonic")

    return sig, codegen


class _Worker:
    """One persistent thread that runs a job each time ``go`` is released."""

    def __init__(self, name: str) -> None:
        self.go = threading.Lock()
        self.go.acquire()
        self.done = threading.Lock()
        self.done.acquire()
        self.job: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self.error: BaseException | None = None
        # Daemon: a process never waits at exit for an env that was not closed.
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.go.acquire()
            job = self.job
            if job is None:  # stop
                self.done.release()
                return
            try:
                job[0](*job[1])
            except BaseException as exc:  # handed to the caller of run()
                self.error = exc
            self.done.release()

    def start(self, kernel: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.job = (kernel, args)
        self.error = None
        self.go.release()

    def wait(self) -> None:
        self.done.acquire()
        self.job = None
        if self.error is not None:
            error, self.error = self.error, None
            raise error


def _stop(workers: list[_Worker]) -> None:
    for w in workers:
        w.job = None
        w.go.release()
    for w in workers:
        w.done.acquire()
        w.thread.join()
    workers.clear()


class TableThreads:
    """Runs a chunked table kernel on ``num_threads`` threads (the caller's included)."""

    def __init__(self, num_threads: int) -> None:
        self.num_threads = num_threads
        self.counter = np.zeros(1, dtype=np.int64)
        self._workers = [_Worker(f"poker_env-tables-{k}") for k in range(num_threads - 1)]
        # Workers stop when this object is closed or garbage-collected.
        self._finalizer = weakref.finalize(self, _stop, self._workers)

    def run(self, kernel: Callable[..., Any], *args: Any) -> None:
        """``kernel(*args, counter)`` on every thread; returns when all tables are done.

        An exception raised on any thread is raised here, after every thread is done.
        """
        self.counter[0] = 0
        job = (*args, self.counter)
        for w in self._workers:
            w.start(kernel, job)
        try:
            kernel(*job)
        finally:
            errors = []
            for w in self._workers:
                try:
                    w.wait()
                except BaseException as exc:
                    errors.append(exc)
        if errors:
            raise errors[0]

    def close(self) -> None:
        """Stop the worker threads (the object can no longer run kernels)."""
        self._finalizer()
        self.num_threads = 1
