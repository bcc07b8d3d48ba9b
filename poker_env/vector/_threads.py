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

The kernel run here is a game's cached wrapper of the one chunked loop,
:func:`poker_env.vector.batch.step_chunks` (compiled ``nogil=True``; its last
argument the shared counter), and :meth:`TableThreads.run` resets ``counter`` and
calls it on every thread: from the second run of a kernel on, through its compiled
entry (:func:`poker_env.fastcall.entry_point`), since numba's typing of the
arguments on each thread's call would hold the GIL that the other threads' calls
wait for. The Hold'em evaluator features share out their tables
the same way (``vector/holdem.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from poker_env.fastcall import entry_point

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


class TableThreads:
    """Runs a chunked table kernel on ``num_threads`` threads (the caller's included)."""

    def __init__(self, num_threads: int) -> None:
        self.num_threads = num_threads
        self.counter = np.zeros(1, dtype=np.int64)
        # Each kernel's compiled entry, found after its first run here (an env passes
        # its own arrays, whose types never change).
        self._entries: dict[Any, Callable[..., Any]] = {}
        self._pool: ThreadPoolExecutor | None = None
        if num_threads > 1:
            self._pool = ThreadPoolExecutor(
                max_workers=num_threads - 1, thread_name_prefix="poker_env-tables"
            )

    def run(self, kernel: Callable[..., Any], *args: Any) -> None:
        """``kernel(*args, counter)`` on every thread; returns when all tables are done."""
        self.counter[0] = 0
        call = self._entries.get(kernel)
        first = call is None
        if call is None:
            # The first run goes through the dispatcher (which compiles the kernel or
            # loads it from the cache); the entry serves the later ones.
            call = kernel
        if self._pool is None:
            call(*args, self.counter)
        else:
            futures: list[Future[Any]] = [
                self._pool.submit(call, *args, self.counter) for _ in range(self.num_threads - 1)
            ]
            try:
                call(*args, self.counter)
            finally:
                for f in futures:
                    f.result()
        if first:
            # A plain Python function (tests) is its own entry.
            is_compiled = hasattr(kernel, "overloads")
            self._entries[kernel] = (
                entry_point(kernel, (*args, self.counter)) if is_compiled else kernel
            )

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        # A copy (pickle, deepcopy) starts its own threads; the compiled entries are
        # found again on its first runs (neither threads nor entries pickle).
        return TableThreads, (self.num_threads,)

    def close(self) -> None:
        """Stop the worker threads (the object can no longer run kernels)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
            self.num_threads = 1
