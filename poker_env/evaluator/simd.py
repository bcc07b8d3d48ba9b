"""The batch kernels' vector pass: the hand states of 16 rows at once (AVX-512).

A batch is ranked in two passes over chunks of rows (:mod:`poker_env.evaluator.kernels`):

1. :func:`key_block` reads 16 rows of ``k`` cards with one load, and for all 16 at
   once computes the hand state (the rank-key sum and the suit counters) and, for a
   hand with five of a suit, that suit's 13-bit rank mask. It writes one int32 a
   row into ``out``: the rank-key sum (below 2^25), or for a flush the rank mask with
   the sign bit set. With ``check``, it also tests the 16 rows (every card inside
   the deck, no card twice) and says whether one failed.
2. A scalar pass turns each of those words into the rank: two dependent table reads
   for the key (the perfect hash's row offset, then the rank), one for a flush.
   Done one row at a time they overlap across rows; as vector gathers they were
   slower (measured: 16-lane gathers of the three tables, 1.1-1.2x the scalar
   kernel, against 1.5-1.7x for this split).

The vector pass is generated only where the compile target has AVX-512 (F and BW):
:func:`simd_enabled` is a constant of the compiled code, and numba's cache is keyed
by the CPU, so a cache built on one machine is never used on another. Elsewhere the
scalar loop does everything, as before.

The result is bit for bit the scalar kernel's: the same keys (the rank keys are
read from the deck's card table), the same flush masks for any hand of distinct
cards, the same table reads. For input that is not a hand (``validate=False``),
both give meaningless ranks and read only inside the tables; they need not agree.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.base import BaseContext
from numba.core.typing.templates import Signature
from numba.extending import intrinsic

__all__ = ["LANES", "key_block", "simd_enabled", "target_has_avx512"]

#: Rows per vector block.
LANES = 16

_I1 = ir.IntType(1)
_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V32 = ir.VectorType(_I32, LANES)
_V64 = ir.VectorType(_I64, LANES)


def target_has_avx512() -> bool:
    """Whether numba compiles for a CPU with AVX-512 F and BW (its own target: the host,
    or what ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` name)."""
    from numba.core import config
    from numba.core.codegen import get_host_cpu_features

    if config.CPU_NAME not in (None, "host"):
        features = config.CPU_FEATURES or ""
    else:
        features = config.CPU_FEATURES or get_host_cpu_features()
    flags = set(features.split(","))
    return "+avx512f" in flags and "+avx512bw" in flags


def _target_has_avx512(context: BaseContext) -> bool:
    features = context.codegen()._get_host_cpu_features()  # numba's own target features
    flags = set(features.split(","))
    return "+avx512f" in flags and "+avx512bw" in flags


def _splat(value: int, vec: ir.VectorType = _V32) -> ir.Constant:
    return ir.Constant(vec, [value] * vec.count)


@intrinsic
def simd_enabled(typingctx: object, hands: types.Type) -> tuple[Signature, object]:
    """Whether :func:`key_block` is generated for ``hands``' dtype here: a constant."""
    sig = types.boolean(hands)
    width = hands.dtype.bitwidth

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        on = _target_has_avx512(context) and width == 8
        return ir.Constant(_I1, int(on))

    return sig, codegen


@intrinsic
def key_block(
    typingctx: object,
    hands: types.Type,
    row: types.Type,
    rank_keys: types.Type,
    min_card: types.Type,
    out: types.Type,
    k: types.Type,
    check: types.Type,
) -> tuple[Signature, object] | None:
    """Pass 1 for rows ``row .. row + 15`` of ``hands`` (one-byte dtype, C-contiguous,
    ``k`` columns).

    ``rank_keys``: 16 uint32, the rank key of each rank 0..12 (zero for a rank outside
    the deck, and for 13..15); ``min_card``: the deck's lowest card (0 or 20). ``k``
    (5, 6 or 7) and ``check`` must be constants. Returns True when ``check`` and some
    row of the block is not a hand of ``k`` distinct cards of the deck (its words in
    ``out`` are then meaningless: the caller redoes the block row by row); False
    otherwise. Without AVX-512, or for a dtype wider than a byte, nothing is generated
    and it returns False: call it only where :func:`simd_enabled` is True.
    """
    if not isinstance(k, types.IntegerLiteral) or not isinstance(check, types.BooleanLiteral):
        return None
    one_byte = hands.dtype.bitwidth == 8
    num_cards = k.literal_value
    checking = check.literal_value
    sig = types.boolean(hands, row, rank_keys, min_card, out, k, check)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        if not (one_byte and _target_has_avx512(context)):
            return ir.Constant(_I1, 0)  # never called (simd_enabled is False): no code
        hands_arr = context.make_array(signature.args[0])(context, builder, args[0])
        out_arr = context.make_array(signature.args[4])(context, builder, args[4])
        row_value = args[1] if args[1].type.width == 64 else builder.sext(args[1], _I64)
        lane = _I8
        count = LANES * num_cards
        # The 16 rows are one contiguous run of 16 * k cards.
        first = builder.gep(hands_arr.data, [builder.mul(row_value, ir.Constant(_I64, num_cards))])
        cards = builder.load(
            builder.bitcast(first, ir.VectorType(lane, count).as_pointer()), align=1
        )
        bad = ir.Constant(_I1, 0)
        if checking:
            # Every card inside the deck: (card - min_card) < (52 - min_card) as unsigned
            # bytes (a negative card is a large unsigned one).
            low = builder.trunc(args[3], lane)
            low_vec = builder.shuffle_vector(
                builder.insert_element(
                    ir.Constant(ir.VectorType(lane, count), ir.Undefined), low, ir.Constant(_I32, 0)
                ),
                ir.Constant(ir.VectorType(lane, count), ir.Undefined),
                ir.Constant(ir.VectorType(_I32, count), [0] * count),
            )
            span = builder.sub(ir.Constant(ir.VectorType(lane, count), [52] * count), low_vec)
            outside = builder.icmp_unsigned(">=", builder.sub(cards, low_vec), span)
            reduce_or = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(_I1, [ir.VectorType(_I1, count)]),
                f"llvm.vector.reduce.or.v{count}i1",
            )
            bad = builder.call(reduce_or, [outside])
        # The rank keys as one vector: a 16-entry table read by one permute a card.
        keys_vec = ir.Constant(_V32, ir.Undefined)
        for r in range(LANES):
            keys_vec = builder.insert_element(
                keys_vec, builder.extract_value(args[2], r), ir.Constant(_I32, r)
            )
        permute = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_V32, [_V32, _V32]), "llvm.x86.avx512.permvar.si.512"
        )
        undef8 = ir.Constant(ir.VectorType(_I8, count), ir.Undefined)
        # The cards column by column: position 16 * j + r holds card j of row r.
        columns = builder.shuffle_vector(
            cards,
            undef8,
            ir.Constant(
                ir.VectorType(_I32, count),
                [num_cards * r + j for j in range(num_cards) for r in range(LANES)],
            ),
        )
        if checking:
            # No card twice in a row: each column against the columns d = 1 .. k // 2
            # places on (cyclically), which meets every pair of columns.
            reduce_or = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(_I1, [ir.VectorType(_I1, count)]),
                f"llvm.vector.reduce.or.v{count}i1",
            )
            for d in range(1, num_cards // 2 + 1):
                turned = builder.shuffle_vector(
                    columns,
                    undef8,
                    ir.Constant(
                        ir.VectorType(_I32, count), [(p + LANES * d) % count for p in range(count)]
                    ),
                )
                bad = builder.or_(
                    bad, builder.call(reduce_or, [builder.icmp_unsigned("==", columns, turned)])
                )
        key = _splat(0)
        counters = _splat(0)
        ranks = []
        suits = []
        for j in range(num_cards):
            column = builder.shuffle_vector(
                columns, undef8, ir.Constant(_V32, [LANES * j + r for r in range(LANES)])
            )
            card = builder.zext(column, _V32)
            rank = builder.lshr(card, _splat(2))  # 0..63; the permute reads its low 4 bits
            suit = builder.and_(card, _splat(3))
            ranks.append(rank)
            suits.append(suit)
            key = builder.add(key, builder.call(permute, [keys_vec, rank]))
            # A 4-bit counter per suit; at most 7 cards, so it never carries.
            counters = builder.add(counters, builder.shl(_splat(1), builder.shl(suit, _splat(2))))
        # RULES.md §0: five of one suit. Each counter starts at 3, so five sets its bit 3;
        # at most one suit can hold five of seven cards.
        flush = builder.and_(builder.add(counters, _splat(0x3333)), _splat(0x8888))
        is_flush = builder.icmp_unsigned("!=", flush, _splat(0))
        ctlz = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_V32, [_V32, _I1]), "llvm.ctlz.v16i32"
        )
        # The flag is bit 3 + 4 * suit: 28 - (leading zeros) = 4 * suit.
        flush_suit = builder.lshr(
            builder.sub(_splat(28), builder.call(ctlz, [flush, ir.Constant(_I1, 0)])), _splat(2)
        )
        suit_mask = _splat(0)
        for rank, suit in zip(ranks, suits, strict=True):
            bit = builder.shl(_splat(1), builder.and_(rank, _splat(15)))
            in_suit = builder.icmp_unsigned("==", suit, flush_suit)
            suit_mask = builder.or_(suit_mask, builder.select(in_suit, bit, _splat(0)))
        flush_word = builder.or_(builder.and_(suit_mask, _splat(0x1FFF)), _splat(-(2**31)))
        word = builder.select(is_flush, flush_word, key)
        dst = builder.gep(out_arr.data, [row_value], inbounds=True)
        builder.store(word, builder.bitcast(dst, _V32.as_pointer()), align=4)
        return bad

    return sig, codegen
