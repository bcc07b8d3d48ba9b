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

Any integer dtype takes it: a wider one (numpy's default int64, say) is read as it
is, 16 rows in one load of 16 * k cards, and narrowed to bytes in registers: int32,
and int64 with ``check``, by saturating packs, a card outside 0..63 flagged first (one
OR of the loaded vectors); int16 saturated, so that no value passes for a card by its
low byte; int64 without ``check`` truncated.

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

__all__ = [
    "LANES",
    "PAIR_ROWS",
    "key_block",
    "key_pair",
    "simd_enabled",
    "target_has_avx512",
    "target_has_ssse3",
]

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
        on = _target_has_avx512(context) and width in (8, 16, 32, 64)
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
    """Pass 1 for rows ``row .. row + 15`` of ``hands`` (any integer dtype of 1, 2, 4
    or 8 bytes, native order, C-contiguous, ``k`` columns).

    ``rank_keys``: 16 uint32, the rank key of each rank 0..12 (zero for a rank outside
    the deck, and for 13..15); ``min_card``: the deck's lowest card (0 or 20). ``k``
    (5, 6 or 7) and ``check`` must be constants. Returns True when ``check`` and some
    row of the block is not a hand of ``k`` distinct cards of the deck (its words in
    ``out`` are then meaningless: the caller redoes the block row by row); False
    otherwise. Without AVX-512 nothing is generated and it returns False: call it only
    where :func:`simd_enabled` is True.
    """
    if not isinstance(k, types.IntegerLiteral) or not isinstance(check, types.BooleanLiteral):
        return None
    width = hands.dtype.bitwidth
    num_cards = k.literal_value
    checking = check.literal_value
    sig = types.boolean(hands, row, rank_keys, min_card, out, k, check)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        if not (width in (8, 16, 32, 64) and _target_has_avx512(context)):
            return ir.Constant(_I1, 0)  # never called (simd_enabled is False): no code
        hands_arr = context.make_array(signature.args[0])(context, builder, args[0])
        out_arr = context.make_array(signature.args[4])(context, builder, args[4])
        row_value = args[1] if args[1].type.width == 64 else builder.sext(args[1], _I64)
        lane = ir.IntType(width)
        count = LANES * num_cards
        # The 16 rows are one contiguous run of 16 * k cards.
        first = builder.gep(hands_arr.data, [builder.mul(row_value, ir.Constant(_I64, num_cards))])
        # Packs for int32, and for int64 when checking; int64 unchecked is narrowed by
        # LLVM's own truncation (vpmovqb): the packs ran 7% slower there in a farm-bench
        # A/B (254-260 against 268-277 M/s, 10 M hands), and 2% faster checked.
        packed = width == 32 or (width == 64 and checking)
        if not packed:
            cards = builder.load(
                builder.bitcast(first, ir.VectorType(lane, count).as_pointer()), align=1
            )
        bad = ir.Constant(_I1, 0)
        v8 = ir.VectorType(_I8, count)
        # With `check`, the run's bytes that repeat a card: 0 or -1 a card, ORed and
        # reduced once as integers (LLVM keeps them in mask registers); the deck's range
        # is tested on the sixteen-lane columns below. Each of an OR-reduction of 80-112
        # compare bits, a min/max reduction of as many bytes and a splat of the runtime
        # min_card over them was lowered byte by byte (read in the assembly): pass 1
        # checked ran at 0.45-0.55x of unchecked, now about 0.77x (the whole int8 call
        # about 0.9x).
        failed = ir.Constant(v8, [0] * count)
        if packed:
            cards, wide_bad = _packed_bytes(builder, first, count, width, checking)
            if checking:
                bad = builder.or_(bad, wide_bad)
        elif width > 8:
            # (int16, and int64 unchecked.) The rest of the pass is the one-byte pass: the
            # cards narrowed to bytes. With `check`, saturated first (LLVM: one vpmovuswb a register): a
            # card of 256 or more, or a negative one (a large unsigned value), becomes
            # 255, outside the deck for the column test below.
            if checking:
                vec = ir.VectorType(lane, count)
                umin = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(vec, [vec, vec]), f"llvm.umin.v{count}i{width}"
                )
                cards = builder.call(umin, [cards, ir.Constant(vec, [255] * count)])
            cards = builder.trunc(cards, v8)
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
            for d in range(1, num_cards // 2 + 1):
                turned = builder.shuffle_vector(
                    columns,
                    undef8,
                    ir.Constant(
                        ir.VectorType(_I32, count), [(p + LANES * d) % count for p in range(count)]
                    ),
                )
                same = builder.sext(builder.icmp_unsigned("==", columns, turned), v8)
                failed = builder.or_(failed, same)
            reduce_or8 = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_I8, [v8]), f"llvm.vector.reduce.or.v{count}i8"
            )
            repeated = builder.call(reduce_or8, [failed])
            bad = builder.or_(bad, builder.icmp_unsigned("!=", repeated, ir.Constant(_I8, 0)))
            # Every card inside the deck, column by column (sixteen lanes: legal vectors):
            # (card - min_card) < (52 - min_card) unsigned, the card's byte widened.
            low = builder.trunc(args[3], _I32) if args[3].type.width > 32 else args[3]
            low_vec = builder.shuffle_vector(
                builder.insert_element(ir.Constant(_V32, ir.Undefined), low, ir.Constant(_I32, 0)),
                ir.Constant(_V32, ir.Undefined),
                ir.Constant(_V32, [0] * LANES),
            )
            span = builder.sub(_splat(52), low_vec)
            outside: ir.Value | None = None
        key = _splat(0)
        counters = _splat(0)
        ranks = []
        suits = []
        for j in range(num_cards):
            column = builder.shuffle_vector(
                columns, undef8, ir.Constant(_V32, [LANES * j + r for r in range(LANES)])
            )
            card = builder.zext(column, _V32)
            if checking:
                wrong = builder.icmp_unsigned(">=", builder.sub(card, low_vec), span)
                outside = wrong if outside is None else builder.or_(outside, wrong)
            rank = builder.lshr(card, _splat(2))  # 0..63; the permute reads its low 4 bits
            suit = builder.and_(card, _splat(3))
            ranks.append(rank)
            suits.append(suit)
            key = builder.add(key, builder.call(permute, [keys_vec, rank]))
            # A 4-bit counter per suit; at most 7 cards, so it never carries.
            counters = builder.add(counters, builder.shl(_splat(1), builder.shl(suit, _splat(2))))
        if checking:
            reduce_or16 = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(_I1, [ir.VectorType(_I1, LANES)]),
                f"llvm.vector.reduce.or.v{LANES}i1",
            )
            bad = builder.or_(bad, builder.call(reduce_or16, [outside]))
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


def _pack_places(count: int, width: int) -> list[int]:
    """Where :func:`_packed_bytes` leaves each of ``count`` cards of ``width`` bits (32
    or 64): its byte in the two 64-byte results put end to end.

    The packs work within each 128-bit lane: ``packusdw(a, b)`` gives lane L the words
    of a's dwords 4L..4L+3, then b's; ``packuswb`` likewise from words to bytes. A
    missing last source is a zero vector."""
    Tags = list[int | None]

    def level(vectors: list[Tags], per_lane: int) -> list[Tags]:
        out = []
        for i in range(0, len(vectors), 2):
            a = vectors[i]
            b = vectors[i + 1] if i + 1 < len(vectors) else [None] * len(a)
            out.append(
                [x for lane in range(4) for src in (a, b)
                 for x in src[per_lane * lane : per_lane * lane + per_lane]]
            )  # fmt: skip
        return out

    if width == 64:  # each card two dwords: its value, then its high half (zero)
        dwords = [[8 * v + m // 2 if m % 2 == 0 else None for m in range(16)]
                  for v in range(count // 8)]  # fmt: skip
    else:
        dwords = [[16 * v + m for m in range(16)] for v in range(count // 16)]
    vectors = level(level(dwords, 4), 8)  # dwords -> words -> bytes
    if width == 64:
        # Each card a byte, then a zero byte: as words, (card, 0) is the card.
        vectors = level([[v[2 * w] for w in range(32)] for v in vectors], 8)
    assert len(vectors) == 2
    places = [-1] * count
    for n, vector in enumerate(vectors):
        for b, card in enumerate(vector):
            if card is not None:
                places[card] = 64 * n + b
    return places


def _packed_bytes(
    builder: ir.IRBuilder, first: ir.Value, count: int, width: int, checking: bool
) -> tuple[ir.Value, ir.Value]:
    """``count`` cards of ``width`` bits (32 or 64) from ``first`` as ``count`` bytes in
    order, and whether one is outside 0..63 (a bit above the sixth set: negative too).

    Saturating packs, two or three levels (``vpackusdw``, then ``vpackuswb``; 13 for
    112 int64 cards), instead of one ``vpmovusqb`` a vector and the vectors put
    together: a pack is one shuffle, a ``vpmovusqb`` two on AMD's Zen 4. Measured with
    farm-bench in turns on 10 M int64 7-card hands, checked: median 285.3 against 279.4
    M/s, about 2% (docs/evaluator.md). Every pack keeps a value of 0..63; any other card sets the flag
    (one OR over the loaded vectors, one test) and the caller's column test finds those
    in 52..63 or below the deck. The bytes of other values are meaningless, but bytes:
    without ``check`` the rest of the pass still reads only inside its tables.
    """
    module = builder.module
    per_load = 512 // width
    load_type = ir.VectorType(ir.IntType(width), per_load)
    v16x32 = ir.VectorType(_I32, 16)
    v32x16 = ir.VectorType(ir.IntType(16), 32)
    v64x8 = ir.VectorType(_I8, 64)
    packusdw = cgutils.get_or_insert_function(
        module, ir.FunctionType(v32x16, [v16x32, v16x32]), "llvm.x86.avx512.packusdw.512"
    )
    packuswb = cgutils.get_or_insert_function(
        module, ir.FunctionType(v64x8, [v32x16, v32x16]), "llvm.x86.avx512.packuswb.512"
    )
    base = builder.bitcast(first, load_type.as_pointer())
    loads = [
        builder.load(builder.gep(base, [ir.Constant(_I64, v)]), align=1)
        for v in range(count // per_load)
    ]
    wide_bad = ir.Constant(_I1, 0)
    if checking:
        union = loads[0]
        for vector in loads[1:]:
            union = builder.or_(union, vector)
        high = builder.icmp_unsigned(
            "!=",
            builder.and_(union, ir.Constant(load_type, [~63] * per_load)),
            ir.Constant(load_type, [0] * per_load),
        )
        reduce_or = cgutils.get_or_insert_function(
            module,
            ir.FunctionType(_I1, [ir.VectorType(_I1, per_load)]),
            f"llvm.vector.reduce.or.v{per_load}i1",
        )
        wide_bad = builder.call(reduce_or, [high])

    def level(vectors: list[ir.Value], pack: ir.Function, zero: ir.Constant) -> list[ir.Value]:
        return [
            builder.call(pack, [vectors[i], vectors[i + 1] if i + 1 < len(vectors) else zero])
            for i in range(0, len(vectors), 2)
        ]

    zero32 = ir.Constant(v32x16, [0] * 32)
    words = level(
        [builder.bitcast(v, v16x32) for v in loads], packusdw, ir.Constant(v16x32, [0] * 16)
    )
    final = level(words, packuswb, zero32)
    if width == 64:
        final = level([builder.bitcast(v, v32x16) for v in final], packuswb, zero32)
    cards = builder.shuffle_vector(
        final[0], final[1], ir.Constant(ir.VectorType(_I32, count), _pack_places(count, width))
    )
    return cards, wide_bad


# --- The pair pass (SSSE3) ------------------------------------------------------------
#
# Where there is no AVX-512 pass, one-byte batches take a narrower one: :func:`key_pair`
# computes the hand states of two rows in one 16-byte vector, eight bytes a row (the
# pair's cards read as one run of 16 bytes, card j of row r placed at 8 * r + j, the
# bytes after a row's k cards set aside). Each row's rank-key sum
# is the sum of three byte planes of the rank keys, each looked up for all 16 bytes by
# one ``pshufb`` and summed per row by one ``psadbw``; the four suit counters likewise
# (two planes). It gives one word a row: the key, or -1 for a hand with five of a
# suit (rare: the caller ranks those from their cards).

#: Rows per :func:`key_pair` call.
PAIR_ROWS = 2

_V16 = ir.VectorType(_I8, 16)
_V2x64 = ir.VectorType(_I64, 2)


def target_has_ssse3() -> bool:
    """Whether numba compiles for a CPU with SSSE3 (``pshufb``), as :func:`target_has_avx512`."""
    from numba.core import config
    from numba.core.codegen import get_host_cpu_features

    if config.CPU_NAME not in (None, "host"):
        features = config.CPU_FEATURES or ""
    else:
        features = config.CPU_FEATURES or get_host_cpu_features()
    return "+ssse3" in set(features.split(","))


def _target_has_ssse3(context: BaseContext) -> bool:
    features = context.codegen()._get_host_cpu_features()  # numba's own target features
    return "+ssse3" in set(features.split(","))


def _pair_on(context: BaseContext) -> bool:
    # The pair pass is for CPUs without the AVX-512 pass.
    return _target_has_ssse3(context) and not _target_has_avx512(context)


def _const16(values: list[int]) -> ir.Constant:
    return ir.Constant(_V16, [v & 0xFF for v in values])


@intrinsic
def key_pair(
    typingctx: object,
    hands: types.Type,
    row: types.Type,
    rank_keys: types.Type,
    min_card: types.Type,
    k: types.Type,
    check: types.Type,
) -> tuple[Signature, object] | None:
    """Pass 1 for rows ``row`` and ``row + 1`` of ``hands`` (one-byte dtype,
    C-contiguous, ``k`` columns): ``(word0, word1, bad)``, a row's word its rank-key
    sum, or -1 where it holds five cards of one suit.

    The pair is read as 16 bytes from its first card: the caller keeps the last two
    rows of ``hands`` out of every pair (a pair starting at row ``n - 4`` or before
    ends its 16 bytes inside the array for ``k >= 4``). ``rank_keys``: 16 uint32, the
    rank key of each rank (zero outside the deck; every key below 2^24); ``min_card``:
    the deck's lowest card. ``k`` (5, 6 or 7) and ``check`` must be constants. With
    ``check``, ``bad`` is 1 when a row is not ``k`` distinct cards of the deck (every
    card inside ``min_card..51``; no card twice): the words are then meaningless.
    Without SSSE3, with the AVX-512 pass or for a wider dtype nothing is generated: call
    it only where ``kernels.PAIRS`` is True, for one-byte hands.
    """
    if not isinstance(k, types.IntegerLiteral) or not isinstance(check, types.BooleanLiteral):
        return None
    num_cards = k.literal_value
    checking = check.literal_value
    one_byte = hands.dtype.bitwidth == 8
    result = types.UniTuple(types.int64, 3)
    sig = result(hands, row, rank_keys, min_card, k, check)

    def codegen(
        context: BaseContext, builder: ir.IRBuilder, signature: Signature, args: list[ir.Value]
    ) -> ir.Value:
        if not (one_byte and _pair_on(context)):
            # Never called (pair_enabled is False): no code.
            return context.get_constant_undef(result)
        hands_arr = context.make_array(signature.args[0])(context, builder, args[0])
        row_value = args[1] if args[1].type.width == 64 else builder.sext(args[1], _I64)
        module = builder.module
        bad = ir.Constant(_I1, 0)
        reduce_or16 = cgutils.get_or_insert_function(
            module, ir.FunctionType(_I1, [ir.VectorType(_I1, 16)]), "llvm.vector.reduce.or.v16i1"
        )
        # Eight bytes a row: row r's cards at 8 * r .. 8 * r + k - 1 (the rest set aside).
        index = builder.mul(row_value, ir.Constant(_I64, num_cards))
        ptr = builder.gep(hands_arr.data, [index])
        run = builder.load(builder.bitcast(ptr, _V16.as_pointer()), align=1)
        cards = builder.shuffle_vector(
            run,
            ir.Constant(_V16, ir.Undefined),
            ir.Constant(
                ir.VectorType(_I32, 16),
                [num_cards * (p // 8) + p % 8 if p % 8 < num_cards else 0 for p in range(16)],
            ),
        )
        in_row = [p % 8 < num_cards for p in range(16)]
        if checking:
            # Every card inside the deck: (card - low) < span as unsigned bytes (a negative
            # card is a large unsigned one).
            low = builder.trunc(args[3], _I8)
            low_vec = builder.shuffle_vector(
                builder.insert_element(ir.Constant(_V16, ir.Undefined), low, ir.Constant(_I32, 0)),
                ir.Constant(_V16, ir.Undefined),
                ir.Constant(ir.VectorType(_I32, 16), [0] * 16),
            )
            span = builder.sub(_const16([52] * 16), low_vec)
            wrong = builder.icmp_unsigned(">=", builder.sub(cards, low_vec), span)
            # No card twice in a row: each card against the cards d = 1 .. k // 2 places
            # on, cyclically within the row's k, which meets every pair. One test of the
            # pair's bytes for both rules.
            undef16 = ir.Constant(_V16, ir.Undefined)
            for d in range(1, num_cards // 2 + 1):
                turned = builder.shuffle_vector(
                    cards,
                    undef16,
                    ir.Constant(
                        ir.VectorType(_I32, 16),
                        [
                            8 * (p // 8) + (p % 8 + d) % num_cards if in_row[p] else p
                            for p in range(16)
                        ],
                    ),
                )
                wrong = builder.or_(wrong, builder.icmp_unsigned("==", cards, turned))
            valid = ir.Constant(ir.VectorType(_I1, 16), [int(v) for v in in_row])
            bad = builder.call(reduce_or16, [builder.and_(wrong, valid)])
        # pshufb indexes: the rank (or the suit) of each card, 0x80 (a zero) past the row.
        past = _const16([0 if v else 0x80 for v in in_row])
        rank_index = builder.or_(
            builder.and_(builder.lshr(cards, _const16([2] * 16)), _const16([0x0F] * 16)), past
        )
        suit_index = builder.or_(builder.and_(cards, _const16([3] * 16)), past)
        keys = ir.Constant(_V32, ir.Undefined)
        for r in range(LANES):
            keys = builder.insert_element(
                keys, builder.extract_value(args[2], r), ir.Constant(_I32, r)
            )
        planes = [
            builder.trunc(builder.lshr(keys, _splat(8 * b)), _V16) for b in range(3)
        ]  # the rank keys' bytes 0, 1, 2 (each key is below 2^24)
        # A 4-bit counter per suit, as the scalar key's: suits 0 and 1 in one byte plane,
        # 2 and 3 in the other (at most 7 cards: no carry).
        suit_a = _const16([1, 16, 0, 0] + [0] * 12)
        suit_b = _const16([0, 0, 1, 16] + [0] * 12)
        pshufb = cgutils.get_or_insert_function(
            module, ir.FunctionType(_V16, [_V16, _V16]), "llvm.x86.ssse3.pshuf.b.128"
        )
        psadbw = cgutils.get_or_insert_function(
            module, ir.FunctionType(_V2x64, [_V16, _V16]), "llvm.x86.sse2.psad.bw"
        )
        zero = _const16([0] * 16)

        def row_sum(table: ir.Value, index: ir.Value) -> ir.Value:
            return builder.call(psadbw, [builder.call(pshufb, [table, index]), zero])

        def shifted(value: ir.Value, bits: int) -> ir.Value:
            return builder.shl(value, ir.Constant(_V2x64, [bits, bits]))

        key = builder.add(
            row_sum(planes[0], rank_index),
            builder.add(
                shifted(row_sum(planes[1], rank_index), 8),
                shifted(row_sum(planes[2], rank_index), 16),
            ),
        )
        counters = builder.add(row_sum(suit_a, suit_index), shifted(row_sum(suit_b, suit_index), 8))
        # RULES.md §0: five of one suit (each counter biased by 3 reaches bit 3).
        flush = builder.and_(
            builder.add(counters, ir.Constant(_V2x64, [0x3333] * 2)),
            ir.Constant(_V2x64, [0x8888] * 2),
        )
        is_flush = builder.icmp_unsigned("!=", flush, ir.Constant(_V2x64, [0, 0]))
        word = builder.select(is_flush, ir.Constant(_V2x64, [-1, -1]), key)
        value = context.get_constant_undef(result)
        for r in range(PAIR_ROWS):
            value = builder.insert_value(
                value, builder.extract_element(word, ir.Constant(_I32, r)), r
            )
        return builder.insert_value(value, builder.zext(bad, _I64), PAIR_ROWS)

    return sig, codegen
