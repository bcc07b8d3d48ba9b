"""What every batched env shares: the outputs record and the one chunked batch loop.

A batch step's results are arrays of the batch (row ``i`` is table ``i``), owned by
the vector env and passed whole to its compiled step (a NamedTuple of arrays costs
nothing inside numba: its fields are the arrays themselves): :class:`StepOutputs`
(defined in :mod:`poker_env.episode.outputs`, which the games' episode steps write).

Each game supplies one compiled per-table step with the shape::

    @njit(cache=True, _nrt=False, inline="always")
    def row_step(i, action, state, params, out):  # table i plays action
        ...

over its state record (``DrawTables``, ``RedDogState``, ``HoldemTables``), its
parameter record and a :class:`StepOutputs`. :func:`step_rows` (every table, on
the calling thread) and :func:`step_chunks` (the next :data:`CHUNK` tables until
none are left, on each of several threads: :mod:`poker_env.vector._threads`) are
the batch loop, written once for the three games. A game calls them from its own
two cached wrappers, naming its row step::

    @njit(cache=True, _nrt=False)
    def _step_all(st, pr, actions, out):
        step_rows(_row_step, st, pr, actions, out)

    @njit(cache=True, nogil=True, _nrt=False)
    def _step_threads(st, pr, actions, out, counter):
        step_chunks(_row_step, st, pr, actions, out, counter)

(numba's cache does not hold for a function passed in from Python, whose type
names its address; it does for these wrappers, which pass it inside compiled code.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.episode.outputs import StepOutputs, new_step_outputs
from poker_env.vector._threads import fetch_add

__all__ = ["CHUNK", "StepOutputs", "new_step_outputs", "step_chunks", "step_rows"]

#: Tables per grab of the threaded step (tens of microseconds of work); 64 one-byte
#: flags fill a cache line, so two threads never write the same line of them.
CHUNK = 64


@njit(_nrt=False, nogil=True, inline="always")
def step_rows(row_step: Any, st: Any, pr: Any, actions: Any, out: Any) -> None:
    """Every table of the batch plays its action: ``row_step(i, actions[i], st, pr, out)``."""
    for i in range(actions.shape[0]):
        row_step(i, actions[i], st, pr, out)


@njit(_nrt=False, nogil=True, inline="always")
def step_chunks(
    row_step: Any, st: Any, pr: Any, actions: Any, out: Any, counter: NDArray[np.int64]
) -> None:
    """:func:`step_rows` for one of several threads: the next :data:`CHUNK` tables from
    the shared ``counter`` (an atomic fetch-and-add) until none are left."""
    n = actions.shape[0]
    while True:
        lo = fetch_add(counter, CHUNK)
        if lo >= n:
            break
        for i in range(lo, min(lo + CHUNK, n)):
            row_step(i, actions[i], st, pr, out)
