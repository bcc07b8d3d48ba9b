"""Numpy ``Generator`` draws made inside compiled code, bit for bit numpy's.

A kernel cannot take a :class:`numpy.random.Generator` cheaply: numba unboxes one
through three ``ctypes.cast`` calls, about as slow as the draws themselves. This
module hands a kernel the two numbers that matter instead, the bit generator's
state pointer and its ``next_uint32`` C function (:func:`pointers`), and calls that
function from compiled code, so the Generator's own bit generator makes every draw
and its state moves exactly as numpy's own calls would move it.
:func:`integers_below` and :func:`permutation_into` are numpy's algorithms for
``Generator.integers(0, k)`` (int64, below 2**32: Lemire's bounded draw) and
``Generator.permutation(n)`` (a Fisher-Yates shuffle of ``arange(n)`` with masked
rejection), translated as numba translates them; the test compares them with
numpy's calls on many seeds.

The pointers belong to one Generator object: make them again for a new one or a
copy (they do not pickle), and keep the Generator alive while a kernel uses them.
Like numpy's calls with the Generator's lock not taken, one Generator must not be
drawn from by two threads at once.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic
from numpy.typing import NDArray

__all__ = ["integers_below", "key63", "next_uint32", "permutation_into", "pointers"]


def key63(rng: np.random.Generator) -> int:
    """``int(rng.integers(0, 2**63, dtype=np.int64))``, the same draw and state, cheaper.

    numpy draws an int64 below ``2**63`` by Lemire's method on one ``next_uint64``
    (the range ``2**63`` divides ``2**64``: no redraw), which is that draw shifted
    right by one bit; a PCG64 bit generator's ``random_raw()`` is its ``next_uint64``.
    Other bit generators (whose raw output may be 32 bits) go through ``integers``.
    """
    bg = rng.bit_generator
    if type(bg) is np.random.PCG64:
        return int(bg.random_raw()) >> 1
    return int(rng.integers(0, 2**63, dtype=np.int64))


def pointers(rng: np.random.Generator) -> tuple[int, int]:
    """(state pointer, ``next_uint32`` function address) of ``rng``'s bit generator."""
    ct = rng.bit_generator.ctypes
    state = ct.state.value
    fn = ctypes.cast(ct.next_uint32, ctypes.c_void_p).value
    assert state is not None and fn is not None
    return int(state), int(fn)


@intrinsic
def _call_next_uint32(typingctx, state, fn):  # type: ignore[no-untyped-def]  # pragma: no cover
    if not (isinstance(state, types.Integer) and isinstance(fn, types.Integer)):
        return None
    sig = types.uint32(state, fn)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        void_p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(32), (void_p,))
        callee = builder.inttoptr(args[1], fnty.as_pointer())
        return builder.call(callee, (builder.inttoptr(args[0], void_p),))

    return sig, codegen


@njit(cache=True, _nrt=False, inline="always")
def next_uint32(state: int, fn: int) -> np.uint32:  # pragma: no cover - compiled
    """The bit generator's next 32-bit draw (its ``next_uint32``)."""
    return _call_next_uint32(state, fn)  # type: ignore[no-any-return]


@njit(cache=True, _nrt=False, inline="always")
def integers_below(state: int, fn: int, k: int) -> int:  # pragma: no cover - compiled
    """``int(Generator.integers(0, k))`` for ``2 <= k < 2**32``, the same draws.

    numpy's ``buffered_bounded_lemire_uint32`` with ``rng = k - 1``.
    """
    rng_excl = np.uint64(k)
    low32 = np.uint64(0xFFFFFFFF)
    m = np.uint64(next_uint32(state, fn)) * rng_excl
    leftover = m & low32
    if leftover < rng_excl:
        threshold = (low32 - (rng_excl - np.uint64(1))) % rng_excl
        while leftover < threshold:
            m = np.uint64(next_uint32(state, fn)) * rng_excl
            leftover = m & low32
    return int(m >> np.uint64(32))


@njit(cache=True, _nrt=False, inline="always")
def _interval(state: int, fn: int, max_val: int) -> int:  # pragma: no cover - compiled
    # numpy's random_interval for 0 < max_val < 2**32: masked rejection.
    mx = np.uint64(max_val)
    mask = mx
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    value = np.uint64(next_uint32(state, fn)) & mask
    while value > mx:
        value = np.uint64(next_uint32(state, fn)) & mask
    return int(value)


@njit(cache=True, _nrt=False, inline="always")
def permutation_into(
    state: int, fn: int, out: NDArray[np.int64]
) -> None:  # pragma: no cover - compiled
    """``out[:] = Generator.permutation(out.size)``, the same draws (``out.size < 2**32``)."""
    n = out.shape[0]
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = _interval(state, fn, i)
        if j != i:
            t = out[j]
            out[j] = out[i]
            out[i] = t
