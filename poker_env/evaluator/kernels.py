"""Compiled evaluation kernels (numba, ``cache=True``).

These take plain arrays and an :class:`~poker_env.evaluator.tables.EvalTables`
tuple and raise nothing; the Python functions in :mod:`poker_env.evaluator`
validate input first. Game kernels call :func:`eval_cards` (or the additive
pair :func:`hand_key` / :func:`eval_key`) from their own compiled code.

The hand state is two ``uint64`` sums: ``key`` (rank keys + suit counters) and
``mask`` (one bit per card). The state of a union of disjoint card sets is the
sum of their states, so a board's state is computed once and added to each
player's hole-card state.
"""

from __future__ import annotations

import types
from collections.abc import Callable

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from poker_env.evaluator.tables import EvalTables

__all__ = [
    "check_hands",
    "eval_batch",
    "eval_batch5",
    "eval_batch5_parallel",
    "eval_batch_parallel",
    "eval_cards",
    "eval_key",
    "hand_key",
]

# Each suit counter starts at 3 so that reaching 5 cards sets its bit 3 (RULES.md §0 flush).
_SUIT_BIAS = np.uint64(0x3333) << np.uint64(48)
_FLUSH_BITS = np.uint64(0x8888) << np.uint64(48)
_LOW32 = np.uint64(0xFFFFFFFF)


# _nrt=False: these kernels allocate nothing, and without reference counting a
# call from another kernel's loop costs ~1 ns instead of ~50 (numba's atomics).
@njit(cache=True, _nrt=False)
def eval_key(key: np.uint64, mask: np.uint64, tables: EvalTables) -> np.int32:
    """Rank of the hand whose additive state is (``key``, ``mask``); 5 to 7 cards.

    Written as one basic block (both lookups done, one selected), branch-free.
    """
    flush = (key + _SUIT_BIAS) & _FLUSH_BITS
    # At most one suit holds five of seven cards; its flag is 1, 16, 256 or 4096 here.
    flag = np.int64(flush >> np.uint64(51))
    suit = np.int64(flag > 1) + np.int64(flag > 16) + np.int64(flag > 256)
    flush_value = tables.flush_table[np.int64(mask >> np.uint64(16 * suit)) & 0x1FFF]
    # Signed arithmetic from here: numba turns uint64 + int32 into a float. The row
    # mask keeps even invalid input (validate=False) inside the tables.
    rk = np.int64(key & _LOW32)
    rank_value = tables.rank_table[(rk & 0xFFF) + np.int64(tables.row_offsets[(rk >> 12) & 0x1FFF])]
    return np.int32(flush_value if flush != np.uint64(0) else rank_value)


@njit(cache=True, _nrt=False)
def hand_key(cards: NDArray[np.integer], tables: EvalTables) -> tuple[np.uint64, np.uint64]:
    """Additive state (key, mask) of a set of cards (any number, 0 to 7)."""
    key = np.uint64(0)
    mask = np.uint64(0)
    for c in cards:
        key += tables.card_keys[c]
        mask |= tables.card_masks[c]
    return key, mask


@njit(cache=True, _nrt=False)
def eval_cards(cards: NDArray[np.integer], tables: EvalTables) -> np.int32:
    """Rank of the best five of ``cards`` (5 to 7 distinct card indices)."""
    key = np.uint64(0)
    mask = np.uint64(0)
    for c in cards:
        key += tables.card_keys[c]
        mask |= tables.card_masks[c]
    return np.int32(eval_key(key, mask, tables))


def _eval_rows(hands: NDArray[np.integer], tables: EvalTables, out: NDArray[np.int32]) -> None:
    # The hot loop, written out rather than calling eval_key: the suit masks are only
    # needed for the rare flush (a few percent of hands), so they are built only then.
    card_keys = tables.card_keys
    rank_table = tables.rank_table
    row_offsets = tables.row_offsets
    flush_table = tables.flush_table
    k = hands.shape[1]
    for i in prange(hands.shape[0]):
        key = np.uint64(0)
        for j in range(k):
            key += card_keys[
                np.intp(hands[i, j]) & 63
            ]  # & 63: a provably valid index, no sign check
        flush = (key + _SUIT_BIAS) & _FLUSH_BITS
        if flush != np.uint64(0):
            flag = np.int64(flush >> np.uint64(51))
            suit = np.int64(flag > 1) + np.int64(flag > 16) + np.int64(flag > 256)
            mask = np.int64(0)
            for j in range(k):
                c = np.int64(hands[i, j])
                if c & 3 == suit:
                    mask |= 1 << (c >> 2)
            out[i] = flush_table[mask]
        else:
            rk = np.int64(key & _LOW32)
            out[i] = rank_table[(rk & 0xFFF) + np.int64(row_offsets[(rk >> 12) & 0x1FFF])]


def _eval_rows5(
    hands: NDArray[np.integer],
    tables: EvalTables,
    row_offsets: NDArray[np.uint16],
    rank_table: NDArray[np.int32],
    out: NDArray[np.int32],
) -> None:
    # Five cards: a fixed-length loop, the small five-card hash (``five_card_tables``),
    # and a flush is all five cards, so its rank mask needs no suit test.
    card_keys = tables.card_keys
    flush_table = tables.flush_table
    for i in prange(hands.shape[0]):
        key = np.uint64(0)
        for j in range(5):
            key += card_keys[np.intp(hands[i, j]) & 63]
        flush = (key + _SUIT_BIAS) & _FLUSH_BITS
        if flush != np.uint64(0):
            mask = np.int64(0)
            for j in range(5):
                mask |= 1 << (np.int64(hands[i, j]) >> 2)
            out[i] = flush_table[mask]
        else:
            rk = np.int64(key & _LOW32)
            out[i] = rank_table[(rk & 0xFFF) + np.int64(row_offsets[(rk >> 12) & 0x1FFF])]


def _copy(fn: Callable[..., None], name: str, doc: str) -> Callable[..., None]:
    # One source, two compiled kernels; distinct names keep numba's cache files apart.
    new = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    new.__qualname__ = name
    new.__doc__ = doc
    return new


eval_batch = njit(cache=True)(
    _copy(
        _eval_rows, "eval_batch", "``out[i]`` = rank of row ``i`` of ``hands`` (n, k), one thread."
    )
)
eval_batch5 = njit(cache=True)(
    _copy(_eval_rows5, "eval_batch5", "As ``eval_batch`` for exactly five cards a row, one thread.")
)
eval_batch5_parallel = njit(cache=True, parallel=True)(
    _copy(
        _eval_rows5, "eval_batch5_parallel", "As ``eval_batch5``, rows split over numba's threads."
    )
)
eval_batch_parallel = njit(cache=True, parallel=True)(
    _copy(
        _eval_rows,
        "eval_batch_parallel",
        "As ``eval_batch``, rows split over numba's threads (``numba.set_num_threads``).",
    )
)


@njit(cache=True)
def check_hands(hands: NDArray[np.integer], min_card: int) -> tuple[int, int, int]:
    """First bad row: (row, code, card), code 0 ok, 1 card out of range, 2 card repeated."""
    for i in range(hands.shape[0]):
        seen = np.uint64(0)
        for j in range(hands.shape[1]):
            c = int(hands[i, j])
            if c < min_card or c > 51:
                return i, 1, c
            bit = np.uint64(1) << np.uint64(c)
            if seen & bit:
                return i, 2, c
            seen |= bit
    return -1, 0, 0
