"""Compiled evaluation kernels (numba, ``cache=True``).

These take plain arrays and raise nothing: the per-hand kernels an
:class:`~poker_env.evaluator.tables.EvalTables` tuple, the batch kernels a
:class:`~poker_env.evaluator.tables.RankHash` (16- or 32-bit ranks). The
batch kernels that check their input return the first bad row, and
:func:`poker_env.evaluator.evaluate` turns it into an error.
Game kernels call :func:`eval_cards` (or the additive pair :func:`hand_key` /
:func:`eval_key`) from their own compiled code.

The hand state is two ``uint64`` sums: ``key`` (rank keys + suit counters) and
``mask`` (one bit per card). The state of a union of disjoint card sets is the
sum of their states, so a board's state is computed once and added to each
player's hole-card state.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.core.base import BaseContext
from numba.core.typing.templates import Signature
from numba.extending import intrinsic, overload
from numpy.typing import NDArray

from poker_env.evaluator.simd import (
    LANES,
    PAIR_ROWS,
    key_block,
    key_pair,
    simd_enabled,
    target_has_avx512,
    target_has_ssse3,
)
from poker_env.evaluator.tables import EvalTables, RankHash

__all__ = [
    "BLOCK_ROWS",
    "eval_batch",
    "eval_batch_checked",
    "eval_batch_checked_parallel",
    "eval_batch_parallel",
    "eval_cards",
    "eval_key",
    "full_ranks",
    "hand_key",
]

# Each suit counter starts at 3 so that reaching 5 cards sets its bit 3 (RULES.md §0 flush).
_SUIT_BIAS = np.uint64(0x3333) << np.uint64(48)
_FLUSH_BITS = np.uint64(0x8888) << np.uint64(48)
_LOW32 = np.uint64(0xFFFFFFFF)


# _nrt=False: these kernels allocate nothing, and without reference counting a
# call from another kernel's loop costs ~1 ns instead of ~50 (numba's atomics).
@njit(inline="always", _nrt=False)
def _hashed(
    rk: np.int64, row_offsets: NDArray[np.unsignedinteger], rank_table: NDArray[np.integer]
) -> np.int64:
    # The perfect hash of a rank-key sum: its row's offset, plus its column in the row.
    # Signed arithmetic: numba turns uint64 + int32 into a float. The row mask keeps
    # even unchecked junk inside the tables.
    return np.int64(rank_table[(rk & 0xFFF) + np.int64(row_offsets[(rk >> 12) & 0x1FFF])])


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
    rank_value = _hashed(rk, tables.row_offsets, tables.rank_table)
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


# --- Batches -----------------------------------------------------------------------
#
# A batch kernel reads each card once and adds a 128-bit pair from ``pairs`` (see
# ``poker_env.evaluator.core.card_pairs``): lane 0 the card's key, lane 1 its mask bit
# (bit 16 * suit + rank), zero for anything that is not a card of the deck. One vector
# add per card gives the key (the rank lookup) and the mask: the flush lookup, and the
# check. The mask is a *sum*: k distinct cards of the deck set exactly k bits; a
# repeated card carries (two equal bits make one higher bit) and a value outside the
# deck adds nothing, so either leaves fewer than k bits (RULES.md §0: a hand is 5 to 7
# distinct cards of the deck). One popcount per row checks the whole row.
#
# The pair index is the card's lowest byte, read on its own (every byte value has its
# entry, so nothing needs masking); when checking, a dtype wider than a byte also tests
# the bits above the lowest byte of the whole row at once (``_row_high``: two vector
# loads of four cards, after the popcount). Each integer dtype gets its own compiled
# specialization, on first use, cached by numba: the caller's array is read as it is,
# never converted. The card count is a constant in each of three loops (5, 6, 7
# cards), so the card loop is unrolled. An int64 batch is slower than an int8 one
# mostly because it is eight times the bytes to read; 4- and 8-byte rows are
# prefetched 128 rows ahead into the outer caches. (Measured in turns against a load
# and an OR a card and a prefetch 16 rows ahead into L1: int64 checked 5 cards about
# 1.3-1.5x as fast, 7 cards 1.0-1.1x, int32 1.1-1.2x.)


@intrinsic
def _add_pair(
    typingctx: object, acc: types.Type, pairs: types.Type, index: types.Type
) -> tuple[Signature, object]:
    """``acc + pairs[2 * index : 2 * index + 2]`` as one 128-bit vector add."""
    pair_type = types.UniTuple(types.uint64, 2)
    sig = pair_type(pair_type, pairs, index)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        acc_value, pairs_value, index_value = args
        array = context.make_array(signature.args[1])(context, builder, pairs_value)
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        vec = ir.VectorType(i64, 2)
        if index_value.type.width < 64:
            index_value = builder.zext(index_value, i64)
        ptr = builder.gep(
            array.data, [builder.shl(index_value, ir.Constant(i64, 1))], inbounds=True
        )
        loaded = builder.load(builder.bitcast(ptr, vec.as_pointer()), align=8)
        lanes = ir.Constant(vec, ir.Undefined)
        lanes = builder.insert_element(
            lanes, builder.extract_value(acc_value, 0), ir.Constant(i32, 0)
        )
        lanes = builder.insert_element(
            lanes, builder.extract_value(acc_value, 1), ir.Constant(i32, 1)
        )
        total = builder.add(lanes, loaded)
        result = context.get_constant_undef(pair_type)
        result = builder.insert_value(
            result, builder.extract_element(total, ir.Constant(i32, 0)), 0
        )
        return builder.insert_value(result, builder.extract_element(total, ir.Constant(i32, 1)), 1)

    return sig, codegen


@intrinsic
def _popcount(typingctx: object, value: types.Type) -> tuple[Signature, object]:
    """Number of set bits of a uint64 (one instruction)."""
    sig = types.uint64(types.uint64)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _leading_zeros(typingctx: object, value: types.Type) -> tuple[Signature, object]:
    """Number of leading zero bits of a nonzero uint64 (one instruction)."""
    sig = types.uint64(types.uint64)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _is_one_byte(typingctx: object, hands: types.Type) -> tuple[Signature, object]:
    """Whether ``hands``' dtype is one byte wide: a constant of the specialization."""
    sig = types.boolean(hands)
    one_byte = hands.dtype.bitwidth == 8

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        return ir.Constant(ir.IntType(1), int(one_byte))

    return sig, codegen


@intrinsic
def _low_byte(
    typingctx: object, hands: types.Type, row: types.Type, col: types.Type
) -> tuple[Signature, object]:
    """The lowest byte of ``hands[row, col]`` (C-contiguous, native byte order), as uint8.

    Read on its own from memory, so a wide dtype needs no mask to index the 256-entry
    pair table; its other bits are tested apart.
    """
    sig = types.uint8(hands, row, col)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        i64 = ir.IntType(64)
        width = builder.extract_value(array.shape, 1)
        index = builder.add(
            builder.mul(builder.sext(args[1], i64) if args[1].type.width < 64 else args[1], width),
            builder.sext(args[2], i64) if args[2].type.width < 64 else args[2],
        )
        ptr = builder.gep(array.data, [index], inbounds=True)
        offset = 0 if sys.byteorder == "little" else signature.args[0].dtype.bitwidth // 8 - 1
        byte_ptr = builder.gep(
            builder.bitcast(ptr, ir.IntType(8).as_pointer()), [ir.Constant(i64, offset)]
        )
        return builder.load(byte_ptr)

    return sig, codegen


@intrinsic
def _is_wide(typingctx: object, hands: types.Type) -> tuple[Signature, object]:
    """Whether ``hands``' dtype is 4 or 8 bytes wide: a constant of the specialization."""
    sig = types.boolean(hands)
    wide = hands.dtype.bitwidth >= 32

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        return ir.Constant(ir.IntType(1), int(wide))

    return sig, codegen


def _emit_prefetch(builder: ir.IRBuilder, ptr: ir.Value) -> None:
    # A prefetch of the line at byte pointer `ptr`: read, low locality (x86:
    # prefetcht2, into the outer caches), data cache.
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), i32, i32, i32])
    prefetch = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
    builder.call(prefetch, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 1), ir.Constant(i32, 1)])


@intrinsic
def _prefetch_row(
    typingctx: object, hands: types.Type, row: types.Type
) -> tuple[Signature, object]:
    """Hint the CPU to fetch row ``row`` of ``hands`` (a hint: never faults, even past the end)."""
    sig = types.void(hands, row)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        byte_ptr = ir.IntType(8).as_pointer()
        index = builder.mul(args[1], builder.extract_value(array.shape, 1))
        _emit_prefetch(builder, builder.bitcast(builder.gep(array.data, [index]), byte_ptr))
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _prefetch_rows(
    typingctx: object, hands: types.Type, row: types.Type, rows: types.Type
) -> tuple[Signature, object]:
    """Hint the CPU to fetch ``rows`` rows of ``hands`` from row ``row``: one prefetch
    per 64 bytes (a hint: never faults, even past the end). ``rows`` and the row
    length are read at run time; the loop over the lines is the only code."""
    sig = types.void(hands, row, rows)
    itemsize = hands.dtype.bitwidth // 8

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        i64 = ir.IntType(64)
        byte_ptr = ir.IntType(8).as_pointer()
        num_cols = builder.extract_value(array.shape, 1)
        row_index = args[1] if args[1].type.width == 64 else builder.sext(args[1], i64)
        count = args[2] if args[2].type.width == 64 else builder.sext(args[2], i64)
        start = builder.bitcast(
            builder.gep(array.data, [builder.mul(row_index, num_cols)]), byte_ptr
        )
        size = builder.mul(builder.mul(count, num_cols), ir.Constant(i64, itemsize))
        with cgutils.for_range_slice(builder, ir.Constant(i64, 0), size, ir.Constant(i64, 64)) as (
            offset,
            _,
        ):
            _emit_prefetch(builder, builder.gep(start, [offset]))
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _row_high(typingctx: object, hands: types.Type, row: types.Type) -> tuple[Signature, object]:
    """The bits above the lowest byte of the cards of row ``row``, ORed (0: none set).

    Two vector loads of four cards each (cards 0-3 and k-4..k-1: the whole row for
    k in 4..8), one OR, one mask, one reduction: a few instructions a row instead of a
    load and an OR a card. For dtypes wider than a byte; rows of at least 4 cards.
    """
    sig = types.uint64(hands, row)
    width = hands.dtype.bitwidth

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        i64 = ir.IntType(64)
        lane = ir.IntType(width)
        vec = ir.VectorType(lane, 4)
        num_cols = builder.extract_value(array.shape, 1)
        row_index = args[1] if args[1].type.width == 64 else builder.sext(args[1], i64)
        first = builder.gep(array.data, [builder.mul(row_index, num_cols)], inbounds=True)
        last4 = builder.gep(first, [builder.sub(num_cols, ir.Constant(i64, 4))], inbounds=True)
        low = builder.load(builder.bitcast(first, vec.as_pointer()), align=1)
        high = builder.load(builder.bitcast(last4, vec.as_pointer()), align=1)
        bits = builder.and_(builder.or_(low, high), ir.Constant(vec, [(1 << width) - 256] * 4))
        reduce_or = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(lane, [vec]), f"llvm.vector.reduce.or.v4i{width}"
        )
        result = builder.call(reduce_or, [bits])
        return result if width == 64 else builder.zext(result, i64)

    return sig, codegen


# int32 / int64 rows are 20-56 bytes: reading them is most of the work. A prefetch
# this many rows ahead (7 KB of int64 7-card rows), into the outer caches, beat 16 rows
# into L1 by 7-12% for unchecked int64 7-card rows in two A/Bs, by nothing in a third
# (prefetching did nothing for int8; 64-512 rows all alike).
_PREFETCH_ROWS = 128


@intrinsic
def _is_16_bits(typingctx: object, table: types.Type) -> tuple[Signature, object]:
    """Whether a rank table holds 16-bit entries: a constant of the specialization."""
    sig = types.boolean(table)
    narrow = table.dtype.bitwidth == 16

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        return ir.Constant(ir.IntType(1), int(narrow))

    return sig, codegen


@njit(inline="always", _nrt=False)
def _full_rank(low: np.int64, swap: bool, table: NDArray[np.integer]) -> np.int32:
    # A rank from a table entry. The width is read from the rank table's dtype (a
    # RankHash's rank and flush tables always share it): a 32-bit entry is the rank; a
    # 16-bit one is its low 16 bits (tables.RankHash), and the order in bits 16-19 is
    # the category (bits 12-15), or with `swap` (a constant) flush and full house
    # exchanged.
    if not _is_16_bits(table):
        return np.int32(low)
    if swap:
        category = low >> 12
        order = category ^ 3 if (category == 5) | (category == 6) else category
        return np.int32((order << 16) | low)
    return np.int32(low + ((low & 0xF000) << 4))


@njit(cache=True, _nrt=False)
def full_ranks(low: NDArray[np.integer], swap: bool, out: NDArray[np.int32]) -> None:
    """``out[i]``: the rank whose table entry is ``low[i]`` (16- or 32-bit entries), as
    the batch kernels decode it; ``tables`` checks every 16-bit table with it."""
    for i in range(low.size):
        out[i] = _full_rank(np.int64(low[i]), swap, low)


@njit(inline="always", _nrt=False)
def _flush_entry(flush: np.uint64, mask: np.uint64, flush_table: NDArray[np.integer]) -> np.int64:
    # The flush table's entry of a hand whose suit flags `flush` are not zero (RULES.md
    # §0: five of one suit; at most one suit can hold five of seven): its flag is bit
    # 51 + 4 * suit, found by one leading-zero count (as OMPEval does; three compares
    # held three 64-bit constants in registers), and that suit's 13 mask bits index
    # the table.
    shift = (np.uint64(12) - _leading_zeros(flush)) << np.uint64(2)
    return np.int64(flush_table[np.int64(mask >> shift) & 0x1FFF])


@njit(inline="always", _nrt=False)
def _rows_k(
    hands: NDArray[np.integer],
    k: int,
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
    check_high: bool,
    swap: bool,
) -> int:
    # k, check, check_high and swap are constants at every call site: one unrolled loop each.
    row_offsets, rank_table, flush_table = h.row_offsets, h.rank, h.flush
    num_cards = np.uint64(k)
    for i in range(start, stop):
        if _is_wide(hands):
            _prefetch_row(hands, i + _PREFETCH_ROWS)
        acc = (np.uint64(0), np.uint64(0))
        for j in range(k):
            acc = _add_pair(acc, pairs, _low_byte(hands, i, j))
        key, mask = acc
        if check_high:
            if (_popcount(mask) != num_cards) | (_row_high(hands, i) != np.uint64(0)):
                return i
        elif check and _popcount(mask) != num_cards:
            return i
        flush = (key + _SUIT_BIAS) & _FLUSH_BITS
        if flush != np.uint64(0):
            low = _flush_entry(flush, mask, flush_table)
        else:
            low = _hashed(np.int64(key & _LOW32), row_offsets, rank_table)
        out[i] = _full_rank(low, swap, rank_table)
    return -1


# --- The vector pass ------------------------------------------------------------------
#
# Where the compile target has AVX-512 (poker_env.evaluator.simd), rows are ranked in
# chunks of SIMD_CHUNK_ROWS: simd.key_block writes each 16 rows' hand states into
# `out` (a key, or a flush's rank mask with the sign bit), then _ranks_from_words turns
# the chunk's words into ranks, one row at a time, while they are still in L1. The
# rows after the last whole block of 16 go through the scalar loop.
#
# Rows wider than a byte a card (int64: 56 bytes a 7-card row) are mostly memory to
# read, and pass 2 reads none: pass 1 prefetches each block's rows this many rows
# ahead, so that the next ones keep coming in meanwhile. Measured in turns on 10 M
# int64 7-card rows (AMD EPYC family 25, 1 MB of L2): 234-260 M/s checked with the
# prefetch (128 to 4,096 rows ahead all alike), 129-144 M/s without.
_VECTOR_PREFETCH_ROWS = 512

#: Rows per chunk of the two passes (16 KB of output words).
SIMD_CHUNK_ROWS = 4096


@njit(cache=True, _nrt=False)
def _rank_keys(pairs: NDArray[np.uint64]) -> tuple[np.uint32, ...]:
    # The rank key of each rank, from the deck's card table (card 4 * rank + 3: in the
    # deck for every rank of it), zero for a rank outside the deck and for 13..15.
    z = np.uint32(0)
    return (
        np.uint32(pairs[6] & _LOW32), np.uint32(pairs[14] & _LOW32),
        np.uint32(pairs[22] & _LOW32), np.uint32(pairs[30] & _LOW32),
        np.uint32(pairs[38] & _LOW32), np.uint32(pairs[46] & _LOW32),
        np.uint32(pairs[54] & _LOW32), np.uint32(pairs[62] & _LOW32),
        np.uint32(pairs[70] & _LOW32), np.uint32(pairs[78] & _LOW32),
        np.uint32(pairs[86] & _LOW32), np.uint32(pairs[94] & _LOW32),
        np.uint32(pairs[102] & _LOW32), z, z, z,
    )  # fmt: skip


@njit(cache=True, _nrt=False)
def _min_card(pairs: NDArray[np.uint64]) -> np.int64:
    # The deck's lowest card: the first with a mask bit in the card table.
    for c in range(52):
        if pairs[2 * c + 1] != np.uint64(0):
            return np.int64(c)
    return np.int64(52)


@njit(inline="always", _nrt=False)
def _words_to_ranks(out: NDArray[np.int32], start: int, stop: int, h: RankHash, swap: bool) -> None:
    row_offsets, rank_table, flush_table = h.row_offsets, h.rank, h.flush
    for i in range(start, stop):
        word = np.int64(out[i])
        if word < 0:
            low = np.int64(flush_table[word & 0x1FFF])
        else:
            low = _hashed(word, row_offsets, rank_table)
        out[i] = _full_rank(low, swap, rank_table)


@njit(cache=True, _nrt=False)
def _ranks_from_words(out: NDArray[np.int32], start: int, stop: int, h: RankHash) -> None:
    # Pass 2: each word (a key, or a flush's rank mask with the sign bit) to its rank.
    if h.swap:
        _words_to_ranks(out, start, stop, h, True)
    else:
        _words_to_ranks(out, start, stop, h, False)


@njit(inline="always", _nrt=False)
def _blocks(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
) -> int:
    # At least LANES rows. Blocks of 16 from `start`; the last block ends at `stop`,
    # overlapping the one before it (its rows' words are simply written again). Wide
    # rows: the second block starts `peel` rows on, where a row starts a 64-byte line,
    # overlapping the first one as the last one does, and every block after it reads
    # whole lines (chunks of 4,096 such rows are whole lines too).
    # `check` is a literal (one copy each in _vector_rows / _vector_rows_checked); the
    # card count is one of three literals, tested once a block (predicted every time).
    k = hands.shape[1]
    rank_keys = _rank_keys(pairs)
    min_card = _min_card(pairs)
    peel = _aligning_rows(hands, start, stop)
    chunk = start
    while chunk <= stop - LANES:
        chunk_end = min(chunk + peel + SIMD_CHUNK_ROWS, stop)
        if stop - chunk_end < LANES:
            chunk_end = stop  # the rest is under a block: this chunk takes it
        ranked = chunk  # out[chunk:ranked] holds ranks, out[ranked:row] words
        row = chunk
        while row < chunk_end:
            block = min(row, chunk_end - LANES)
            ranked = min(ranked, block)  # (the overlapping last block writes words again)
            if not _is_one_byte(hands):
                # Wider rows are mostly memory to read: fetched ahead, so that it keeps
                # coming in while pass 2 ranks the chunk (nothing else reads memory then).
                _prefetch_rows(hands, block + _VECTOR_PREFETCH_ROWS, LANES)
            if k == 7:
                bad = key_block(hands, block, rank_keys, min_card, out, 7, check)
            elif k == 6:
                bad = key_block(hands, block, rank_keys, min_card, out, 6, check)
            else:
                bad = key_block(hands, block, rank_keys, min_card, out, 5, check)
            if bad:
                # A bad row in this block: the row-by-row loop checks it and names the
                # first one, after the rows before it are ranked.
                _ranks_from_words(out, ranked, block, h)
                first = int(_loop_rows_checked(hands, block, block + LANES, pairs, h, out))
                if first >= 0:
                    return first
                ranked = block + LANES
            if peel:
                row = chunk + peel  # (after the first block only)
                peel = 0
            else:
                row += LANES
        _ranks_from_words(out, ranked, chunk_end, h)
        chunk = chunk_end
    return -1


@njit(inline="always", _nrt=False)
def _aligning_rows(hands: NDArray[np.integer], start: int, stop: int) -> int:
    # Rows (0..15) from `start` to a row that starts a 64-byte line: for rows of 4 or 8
    # bytes a card, 16 rows are whole lines, so every block from there reads whole
    # lines, where numpy's large arrays start 16 bytes into one (a 64-byte load across
    # two lines costs about 1.5x one, measured in docs/evaluator.md).
    if _is_one_byte(hands) or hands.itemsize < 4 or stop - start < 2 * LANES:
        return 0
    row_bytes = hands.shape[1] * hands.itemsize
    address = hands.ctypes.data + start * row_bytes
    for p in range(LANES):
        if (address + p * row_bytes) % 64 == 0:
            return p
    return 0


@njit(cache=True, _nrt=False)
def _vector_rows(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
) -> None:
    """Rows ``start..stop-1`` (at least LANES) by the vector pass, unchecked."""
    _blocks(hands, start, stop, pairs, h, out, False)


@njit(cache=True, _nrt=False)
def _vector_rows_checked(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
) -> int:
    """As :func:`_vector_rows`, checking: the first bad row, or -1."""
    return int(_blocks(hands, start, stop, pairs, h, out, True))


#: Whether the batch kernels take the vector pass (a constant of their compiled code).
SIMD = target_has_avx512()


# --- The pair pass --------------------------------------------------------------------
#
# Elsewhere (SSSE3, no AVX-512), one-byte rows go two at a time through simd.key_pair
# (their words: a key, or -1 for five of a suit), and each word is ranked at once, row
# by row (a flush row from its cards, as the loop does). The last two rows of the batch
# (whose 16-byte read would pass the array's end) go through the loop. Measured in
# turns on 10 M random 7-card hands on an AMD EPYC without AVX-512 (Zen 1, 512 KB of
# L2): unchecked 1.30-1.36x the loop, checked 1.10x; for int64 rows a pair pass (a
# 128-byte load, narrowed in registers) was slower than the loop (0.84x checked), so
# wider dtypes keep the loop: the overload below compiles the pair pass for one-byte
# hands only.


@njit(cache=True, _nrt=False)
def _flush_low(
    hands: NDArray[np.integer], i: int, pairs: NDArray[np.uint64], h: RankHash
) -> np.int64:
    # The flush table's entry for row i, which holds five of a suit (about 3% of random
    # seven-card hands): the mask of that suit from its cards, as the loop finds it. A
    # call of its own, out of the pair loop's registers.
    acc = (np.uint64(0), np.uint64(0))
    for j in range(hands.shape[1]):
        acc = _add_pair(acc, pairs, _low_byte(hands, i, j))
    key, mask = acc
    return np.int64(_flush_entry((key + _SUIT_BIAS) & _FLUSH_BITS, mask, h.flush))


@njit(inline="always", _nrt=False)
def _rank_word(
    hands: NDArray[np.integer],
    i: int,
    word: np.int64,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    swap: bool,
) -> None:
    # out[i] = the rank of row i from its word (i >= 0: an unsigned index, no wraparound).
    if word < 0:
        low = _flush_low(hands, i, pairs, h)
    else:
        low = _hashed(word, h.row_offsets, h.rank)
    out[np.uint64(i)] = _full_rank(low, swap, h.rank)


@njit(inline="always", _nrt=False)
def _pair_loop(
    hands: NDArray[np.integer],
    k: int,
    start: int,
    end: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
    swap: bool,
) -> int:
    # Rows start..end-1 (end - 2 >= 0), a pair at a time; the last pair ends at `end`,
    # overlapping the one before it when the count is odd (its rows are ranked again).
    # k, check and swap are literals. Returns -1, or (check) the first pair with a bad
    # row, its rows unranked: the caller checks it row by row (no call in this loop).
    rank_keys = _rank_keys(pairs)
    min_card = _min_card(pairs)
    row = start
    while row < end:
        pair = min(row, end - PAIR_ROWS)
        w0, w1, bad = key_pair(hands, pair, rank_keys, min_card, k, check)
        if check and bad:
            return pair
        _rank_word(hands, pair, w0, pairs, h, out, swap)
        _rank_word(hands, pair + 1, w1, pairs, h, out, swap)
        row += PAIR_ROWS
    return -1


@njit(inline="always", _nrt=False)
def _pair_k(
    hands: NDArray[np.integer],
    start: int,
    end: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
    swap: bool,
) -> int:
    k = hands.shape[1]
    if k == 7:
        return int(_pair_loop(hands, 7, start, end, pairs, h, out, check, swap))
    if k == 6:
        return int(_pair_loop(hands, 6, start, end, pairs, h, out, check, swap))
    return int(_pair_loop(hands, 5, start, end, pairs, h, out, check, swap))


@njit(inline="always", _nrt=False)
def _pair_blocks(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
) -> int:
    # Rows start..stop-1 (more than PAIR_ROWS of them), the last two rows of `hands`
    # by the loop. `check` is a literal; the runtime `h.swap` made one of each loop.
    end = min(stop, hands.shape[0] - 2)
    row = start
    while end - row >= PAIR_ROWS:
        if h.swap:
            pair = int(_pair_k(hands, row, end, pairs, h, out, check, True))
        else:
            pair = int(_pair_k(hands, row, end, pairs, h, out, check, False))
        if pair < 0:
            row = end
            break
        # A bad row in this pair: the row-by-row loop checks the pair (ranking it when
        # both rows are good) and names the first bad one.
        first = int(_loop_rows_checked(hands, pair, pair + PAIR_ROWS, pairs, h, out))
        if first >= 0:
            return first
        row = pair + PAIR_ROWS
    if row >= stop:
        return -1
    if check:
        return int(_loop_rows_checked(hands, row, stop, pairs, h, out))
    _loop_rows(hands, row, stop, pairs, h, out)
    return -1


@njit(cache=True, _nrt=False)
def _pair_rows(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
) -> None:
    """Rows ``start..stop-1`` (more than PAIR_ROWS) by the pair pass, unchecked."""
    _pair_blocks(hands, start, stop, pairs, h, out, False)


@njit(cache=True, _nrt=False)
def _pair_rows_checked(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
) -> int:
    """As :func:`_pair_rows`, checking: the first bad row, or -1."""
    return int(_pair_blocks(hands, start, stop, pairs, h, out, True))


#: Whether the batch kernels take the pair pass (a constant of their compiled code).
PAIRS = target_has_ssse3() and not SIMD


@njit(inline="always", _nrt=False)
def _rows_s(
    hands: NDArray[np.integer],
    k: int,
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
    check_high: bool,
) -> int:
    # The runtime `h.swap` made a constant of each loop (a flag tested per row cost 6%).
    if h.swap:
        return int(_rows_k(hands, k, start, stop, pairs, h, out, check, check_high, True))
    return int(_rows_k(hands, k, start, stop, pairs, h, out, check, check_high, False))


@njit(inline="always", _nrt=False)
def _loop(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
) -> int:
    k = hands.shape[1]
    # A wider dtype's bits above the lowest byte are tested only when checking.
    high = check and not _is_one_byte(hands)
    if k == 7:
        return int(_rows_s(hands, 7, start, stop, pairs, h, out, check, high))
    if k == 6:
        return int(_rows_s(hands, 6, start, stop, pairs, h, out, check, high))
    if k == 5:
        return int(_rows_s(hands, 5, start, stop, pairs, h, out, check, high))
    return start if start < stop else -1  # not 5-7 cards a row: nothing is read


@njit(cache=True, _nrt=False)
def _loop_rows(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
) -> int:
    """Rows ``start..stop-1`` by the row-by-row loop, unchecked (-1, or ``start`` for
    rows that are not 5-7 cards)."""
    return int(_loop(hands, start, stop, pairs, h, out, False))


@njit(cache=True, _nrt=False)
def _loop_rows_checked(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
) -> int:
    """As :func:`_loop_rows`, checking every row: the first bad row, or -1."""
    return int(_loop(hands, start, stop, pairs, h, out, True))


@njit(inline="always", _nrt=False)
def _rows(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
) -> int:
    # The vector pass and the loop are functions of their own, not inlined into each
    # batch kernel: numba's inlining copies the whole IR at each level (inlined, the
    # vector pass multiplied the compile time by 8).
    if SIMD:
        k = hands.shape[1]
        if stop - start >= LANES and 5 <= k <= 7 and simd_enabled(hands):
            if check:
                return int(_vector_rows_checked(hands, start, stop, pairs, h, out))
            _vector_rows(hands, start, stop, pairs, h, out)
            return -1
    return int(_pair_or_loop(hands, start, stop, pairs, h, out, check))


def _pair_or_loop(
    hands: NDArray[np.integer],
    start: int,
    stop: int,
    pairs: NDArray[np.uint64],
    h: RankHash,
    out: NDArray[np.int32],
    check: bool,
) -> int:
    """The pair pass or the row-by-row loop, by dtype (compiled code takes the overload
    below; this Python stand-in is never called)."""
    return -1


@overload(_pair_or_loop, inline="always")
def _pair_or_loop_typed(  # type: ignore[no-untyped-def]
    hands, start, stop, pairs, h, out, check
):
    # Chosen when the dtype is known: the pair pass is compiled for one-byte hands only
    # (where PAIRS), the loop alone for the others.
    if PAIRS and hands.dtype.bitwidth == 8:

        def pair_or_loop(hands, start, stop, pairs, h, out, check):  # type: ignore[no-untyped-def]
            k = hands.shape[1]
            if stop - start > PAIR_ROWS and 5 <= k <= 7:
                if check:
                    return int(_pair_rows_checked(hands, start, stop, pairs, h, out))
                _pair_rows(hands, start, stop, pairs, h, out)
                return -1
            if check:
                return int(_loop_rows_checked(hands, start, stop, pairs, h, out))
            return int(_loop_rows(hands, start, stop, pairs, h, out))

        return pair_or_loop

    def loop(hands, start, stop, pairs, h, out, check):  # type: ignore[no-untyped-def]
        if check:
            return int(_loop_rows_checked(hands, start, stop, pairs, h, out))
        return int(_loop_rows(hands, start, stop, pairs, h, out))

    return loop


#: Rows per block when threads share a batch (each block stops at its own first bad row).
BLOCK_ROWS = 8192


@njit(cache=True, _nrt=False)
def eval_batch(
    hands: NDArray[np.integer], pairs: NDArray[np.uint64], h: RankHash, out: NDArray[np.int32]
) -> None:
    """``out[i]`` = rank of row ``i`` of ``hands`` (n, 5..7), one thread, unchecked.

    ``pairs``: :func:`poker_env.evaluator.core.card_pairs` of the deck; ``h``: the
    :class:`~poker_env.evaluator.tables.RankHash` for the row length
    (``batch_tables(...).for_cards(k)``: 16- or 32-bit ranks). Anything that is not a
    hand gives a meaningless rank, never a read outside the tables.
    """
    _rows(hands, 0, hands.shape[0], pairs, h, out, False)


@njit(cache=True, _nrt=False)
def eval_batch_checked(
    hands: NDArray[np.integer], pairs: NDArray[np.uint64], h: RankHash, out: NDArray[np.int32]
) -> int:
    """As :func:`eval_batch`, checking every row: the first bad row, or -1.

    A row is bad when a card is outside the deck ``pairs`` was built for or repeats;
    rows from the bad one on are left unwritten (or hold meaningless values).
    """
    return int(_rows(hands, 0, hands.shape[0], pairs, h, out, True))


@njit(cache=True, parallel=True)
def eval_batch_parallel(
    hands: NDArray[np.integer], pairs: NDArray[np.uint64], h: RankHash, out: NDArray[np.int32]
) -> None:
    """As :func:`eval_batch`, blocks of rows split over numba's threads."""
    n = hands.shape[0]
    for b in prange((n + BLOCK_ROWS - 1) // BLOCK_ROWS):
        _rows(hands, b * BLOCK_ROWS, min(n, (b + 1) * BLOCK_ROWS), pairs, h, out, False)


@njit(cache=True, parallel=True)
def eval_batch_checked_parallel(
    hands: NDArray[np.integer], pairs: NDArray[np.uint64], h: RankHash, out: NDArray[np.int32]
) -> int:
    """As :func:`eval_batch_checked`, blocks of rows split over numba's threads.

    The answer is the same row one thread names: the lowest block's first bad row.
    """
    n = hands.shape[0]
    num_blocks = (n + BLOCK_ROWS - 1) // BLOCK_ROWS
    bad = np.empty(num_blocks, dtype=np.int64)
    for b in prange(num_blocks):
        bad[b] = _rows(hands, b * BLOCK_ROWS, min(n, (b + 1) * BLOCK_ROWS), pairs, h, out, True)
    for b in range(num_blocks):
        if bad[b] >= 0:
            return int(bad[b])
    return -1
