"""TableThreads: every table stepped once per call, errors surfaced, threads stopped."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest
from numba import njit

from poker_env.vector._threads import TableThreads, fetch_add


@njit(nogil=True)
def _visit(visits: np.ndarray, counter: np.ndarray) -> None:
    # The documented kernel shape: chunks of 3 tables from the shared counter.
    n = visits.shape[0]
    while True:
        start = fetch_add(counter, 3)
        if start >= n:
            break
        for i in range(start, min(start + 3, n)):
            visits[i] += 1


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_every_table_is_stepped_once_per_call(threads: int) -> None:
    pool = TableThreads(threads)
    visits = np.zeros(1000, dtype=np.int64)
    for _ in range(50):
        pool.run(_visit, visits)
    pool.close()
    assert np.all(visits == 50)


def test_an_error_on_a_worker_thread_is_raised_by_run() -> None:
    pool = TableThreads(2)
    main = threading.get_ident()

    def kernel(counter: np.ndarray) -> None:
        if threading.get_ident() != main:
            raise ValueError("raised on the worker")

    with pytest.raises(ValueError, match="raised on the worker"):
        pool.run(kernel)
    pool.run(lambda counter: None)  # still usable afterwards
    pool.close()


def _workers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("poker_env-tables")}


def test_close_and_garbage_collection_stop_the_worker_threads() -> None:
    before = _workers()
    visits = np.zeros(1000, dtype=np.int64)
    pool = TableThreads(3)
    pool.run(_visit, visits)
    started = _workers() - before
    assert 1 <= len(started) <= 2
    pool.close()
    assert not any(t.is_alive() for t in started)
    pool.run(_visit, visits)  # closed: runs on the calling thread alone
    assert np.all(visits == 2)

    pool = TableThreads(2)
    pool.run(_visit, visits)
    started = _workers() - before
    del pool
    gc.collect()
    for t in started:
        t.join(timeout=5)
    assert not any(t.is_alive() for t in started)
