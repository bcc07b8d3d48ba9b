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

Also here: :func:`prefetch`, a cache hint a row step gives for a table it steps a
little later, and :class:`FreshArrays`, the output buffers an env hands out as they
are (no copy) yet never writes again while anyone holds them.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numpy.typing import NDArray

from poker_env.episode.outputs import StepOutputs, new_step_outputs
from poker_env.vector._threads import fetch_add

__all__ = [
    "CHUNK",
    "FreshArrays",
    "StepOutputs",
    "new_step_outputs",
    "prefetch",
    "step_chunks",
    "step_rows",
]

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


@intrinsic
def prefetch(typingctx, arr, i, j):  # type: ignore[no-untyped-def]
    """Hint the CPU to fetch ``arr[i, j]`` (a 2-d C-contiguous array) into its caches.

    A hint only: it changes no value and never faults. A row step gives it for a
    table it will step a few tables later, where the table's next read is at an
    address no hardware prefetcher foresees (a column that differs row by row).
    """
    sig = types.void(arr, types.intp, types.intp)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        array = context.make_array(signature.args[0])(context, builder, args[0])
        row = builder.mul(args[1], builder.extract_value(array.shape, 1))
        ptr = builder.gep(array.data, [builder.add(row, args[2])])
        i32 = ir.IntType(32)
        byte_ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, high locality (x86: prefetcht0), data cache
        one, three = ir.Constant(i32, 1), ir.Constant(i32, 3)
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(i32, 0), three, one])
        return context.get_dummy_value()

    return sig, codegen


class FreshArrays:
    """Buffers of one shape and dtype for outputs handed out as they are (no copy).

    :meth:`take` returns a buffer that nobody but this object holds: one it handed
    out before whose every other reference is gone (the caller dropped it, and kept
    no view, memoryview or tensor of it: each holds a reference), else a new one.
    What the caller keeps is therefore never written again, as with a new array
    each call, but a batch-sized buffer is not new memory each step: a new one is
    paged in by the compiled step that fills it (over 600 page faults a step for
    Hold'em 6-max, N = 4096, about a tenth of the step; several threads' faults
    also wait on each other). The contents of a taken buffer are left over: the
    caller writes all of it.

    Args:
        shape, dtype: the buffers'.
        keep: buffers kept for reuse at most: the latest ones taken (an older one
            still held when a new one is made is left to its holder).
        zeroed: make new buffers with zeros (else their contents are undefined): for
            an output whose caller writes only some rows, so that the others hold
            zeros or an earlier call's values, never undefined memory.
    """

    def __init__(
        self, shape: tuple[int, ...], dtype: Any, keep: int = 3, zeroed: bool = False
    ) -> None:
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self._keep = keep
        self._new = np.zeros if zeroed else np.empty
        self._arrays: list[NDArray[Any]] = [np.empty(0, self.dtype)]
        # The count of a kept buffer that nobody else holds, read the way take reads it.
        self._own = self._refs(0)
        self._arrays.clear()

    def _refs(self, j: int) -> int:
        return sys.getrefcount(self._arrays[j])

    def take(self) -> NDArray[Any]:
        """A buffer nobody else holds (see the class docstring); contents left over."""
        for j in range(len(self._arrays)):
            if self._refs(j) <= self._own:
                a = self._arrays[j]
                if a.flags.writeable and a.shape == self.shape and a.dtype == self.dtype:
                    return a
                # Made read-only, or reshaped or retyped in place, by a caller who then
                # dropped it: not ours to write.
                del a
                del self._arrays[j]
                break
        a = self._new(self.shape, self.dtype)
        if len(self._arrays) >= self._keep:
            # Every kept buffer is held: the oldest becomes its holder's alone, and the
            # newest is kept instead (a caller that keeps a few outputs for good does
            # not leave every later call with new memory).
            del self._arrays[0]
        self._arrays.append(a)
        return a
