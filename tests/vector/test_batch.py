"""poker_env.vector.batch: the output buffers handed out without a copy."""

from __future__ import annotations

import weakref

import numpy as np

from poker_env.vector.batch import FreshArrays


def test_a_buffer_still_held_is_never_taken_again() -> None:
    buffers = FreshArrays((4, 3), np.float32)
    kept = [buffers.take() for _ in range(6)]
    assert len({id(a) for a in kept}) == 6
    assert all(a.shape == (4, 3) and a.dtype == np.float32 for a in kept)


def test_a_dropped_buffer_is_taken_again() -> None:
    buffers = FreshArrays((4, 3), np.float32)
    first = buffers.take()
    first_id = id(first)
    second = buffers.take()
    del first
    again = buffers.take()
    assert id(again) == first_id and again is not second


def test_a_view_or_memoryview_keeps_its_buffer_out() -> None:
    buffers = FreshArrays((4, 3), np.float32)
    a = buffers.take()
    view, a_id = a[1:], id(a)
    del a
    assert id(buffers.take()) != a_id
    del view
    b = buffers.take()
    mem, b_id = memoryview(b), id(b)
    del b
    assert id(buffers.take()) != b_id
    mem.release()


def test_a_buffer_made_read_only_is_never_written() -> None:
    buffers = FreshArrays((2,), np.int64)
    a = buffers.take()
    a.flags.writeable = False
    dropped = weakref.ref(a)
    del a
    b = buffers.take()
    assert b.flags.writeable and dropped() is not b


def test_a_buffer_reshaped_or_retyped_in_place_is_never_taken_again() -> None:
    # A caller may change a handed-out array's shape or dtype in place, then drop it:
    # the next buffer still has the shape and dtype the env writes.
    buffers = FreshArrays((4, 3), np.float32)
    a = buffers.take()
    a.shape = (3, 4)
    del a
    b = buffers.take()
    assert b.shape == (4, 3) and b.dtype == np.float32
    b.dtype = np.int32
    del b
    c = buffers.take()
    assert c.shape == (4, 3) and c.dtype == np.float32


def test_buffers_held_for_good_give_way_to_newer_ones() -> None:
    # A caller keeps the first few outputs for good, then drops each one: the later
    # calls still reuse a buffer (the kept ones are left to the caller).
    buffers = FreshArrays((4, 3), np.float32, keep=3)
    held = [buffers.take() for _ in range(3)]
    a = buffers.take()
    dropped = weakref.ref(a)
    del a
    assert dropped() is not None  # the pool kept it
    again = buffers.take()
    assert again is dropped() and all(again is not h for h in held)


def test_zeroed_buffers_start_as_zeros() -> None:
    assert not FreshArrays((64, 5), np.float32, zeroed=True).take().any()
