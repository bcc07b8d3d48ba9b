"""Public hand-ranking functions: :func:`evaluate` and the naming helpers."""

from __future__ import annotations

import sys
import threading

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from poker_env.cards import RANK_CHARS, Deck, _deck_name
from poker_env.evaluator.kernels import (
    eval_batch,
    eval_batch_checked,
    eval_batch_checked_parallel,
    eval_batch_parallel,
)
from poker_env.evaluator.tables import (
    CATEGORY_NAMES,
    EvalTables,
    RankHash,
    batch_tables,
    build_tables,
)

__all__ = [
    "CATEGORY_NAMES",
    "card_pairs",
    "describe_hand",
    "evaluate",
    "get_tables",
    "hand_category",
    "hand_name",
    "release_buffers",
    "validate_hands",
]

#: Batches at least this large are split over threads when ``num_threads`` allows.
PARALLEL_MIN_HANDS = 200_000

_RANK_WORDS = (
    "Twos",
    "Threes",
    "Fours",
    "Fives",
    "Sixes",
    "Sevens",
    "Eights",
    "Nines",
    "Tens",
    "Jacks",
    "Queens",
    "Kings",
    "Aces",
)
_RANK_WORD = (
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)


def get_tables(deck: Deck | int = "standard", flush_beats_full_house: bool = False) -> EvalTables:
    """The lookup tables for compiled callers (pass the tuple into ``eval_cards``).

    Built on first use and cached (in memory and on disk); RULES.md §0 for ``deck``
    and ``flush_beats_full_house``.
    """
    return build_tables(_deck_name(deck), flush_beats_full_house)


def card_pairs(deck: Deck | int = "standard") -> NDArray[np.uint64]:
    """The batch kernels' card table: 256 pairs (key, mask bit), flattened to (512,).

    Entry ``c`` holds ``card_keys[c]`` and ``card_masks[c]`` for each card ``c`` of the
    deck (RULES.md §0: 0..51, or 20..51 for the 32-card deck) and zeros for every other
    byte value, so a value outside the deck adds no mask bit and the kernels' bit count
    finds it. Read-only, built once per deck.
    """
    name = _deck_name(deck)
    pairs = _pairs.get(name)
    if pairs is not None:
        return pairs
    with _pairs_lock:
        if name not in _pairs:
            tables = build_tables(name)
            pairs = np.zeros((256, 2), dtype=np.uint64)
            valid = slice(tables.deck_min_card, 52)
            pairs[valid, 0] = tables.card_keys[valid]
            pairs[valid, 1] = tables.card_masks[valid]
            flat = pairs.reshape(-1)
            flat.setflags(write=False)
            _pairs[name] = flat
        return _pairs[name]


_pairs: dict[str, NDArray[np.uint64]] = {}
_pairs_lock = threading.Lock()


def _as_hands(cards: ArrayLike, min_cards: int = 5, max_cards: int = 7) -> NDArray[np.integer]:
    # Shape and dtype only (cheap; done even with validate=False): a C-contiguous 2-D
    # integer array, the caller's own array whenever it already is one (any integer
    # dtype: the kernels are compiled per dtype, nothing is converted).
    arr = np.asarray(cards)
    kind = arr.dtype.kind  # "i", "u": integers; "b" bool, "f" float, "O", "U" ...
    if kind == "b":
        raise ValueError(
            "cards must be an integer array (card = rank * 4 + suit), got dtype bool; "
            "a bool array is not cards (a mask?): pass card indices 0..51"
        )
    if kind not in "iu":
        if arr.size != 0:
            raise ValueError(
                f"cards must be an integer array (card = rank * 4 + suit), got dtype {arr.dtype}; "
                "allowed: any integer dtype (int8, int16, int32, int64, uint8, ...)"
            )
        arr = arr.astype(np.int8)  # an empty list: no cards to misread
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or not (min_cards <= arr.shape[1] <= max_cards):
        raise ValueError(
            f"cards must have shape (n, k) or (k,) with k in {min_cards}..{max_cards}, "
            f"got shape {np.shape(cards)}"
        )
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)


def _check_out(out: object, n: int) -> None:
    if not isinstance(out, np.ndarray):
        raise ValueError(
            f"out must be a numpy int32 array of shape ({n},), got {type(out).__name__}"
        )
    problems = []
    if out.dtype != np.int32:
        problems.append(f"dtype {out.dtype}")
    if out.shape != (n,):
        problems.append(f"shape {out.shape}")
    if not out.flags.c_contiguous:
        problems.append("not C-contiguous")
    if not out.flags.writeable:
        problems.append("read-only")
    if problems:
        raise ValueError(
            f"out must be a writable C-contiguous int32 array of shape ({n},) "
            f"(one rank per hand), got {', '.join(problems)}"
        )


# The outputs of large batches are made over a few kept byte buffers that nothing else
# references any more (see evaluate's ``out``): a fresh 40 MB array costs its page
# faults, the kernel zeroing every page, a tenth of a call's time. Each call hands out a
# new ndarray over a buffer (whose base is the buffer): what a user does to that array
# (flags, shape, dtype, weak references) stays with it, and while it or any view of it
# lives, the buffer's reference count says so.
_POOL_MIN_HANDS = 1 << 18  # 1 MiB of ranks: below it a fresh array costs little
_POOL_MAX_HANDS = 1 << 24  # 64 MiB: no larger buffer is kept
_POOL_BUFFERS = 2  # a loop `ranks = evaluate(...)` holds one while the next is made
_pool: list[NDArray[np.uint8]] = []
_pool_lock = threading.Lock()
# A kept buffer's reference count when nothing but the pool holds it, measured here by
# the same expression as the test below (not assumed: interpreters count differently).
_probe = [np.empty(1, dtype=np.uint8)]
_FREE_REFS = sys.getrefcount(_probe[0])
del _probe


def _fresh_out(n: int) -> NDArray[np.int32]:
    """A new int32 array of ``n`` ranks whose memory nothing else uses."""
    if not _POOL_MIN_HANDS <= n <= _POOL_MAX_HANDS:
        return np.empty(n, dtype=np.int32)
    size = 4 * n
    with _pool_lock:
        spare = -1
        for i in range(len(_pool)):
            if sys.getrefcount(_pool[i]) == _FREE_REFS:  # no array over it is left
                if _pool[i].size == size:
                    return _pool[i].view(np.int32)
                spare = i
        buffer = np.empty(size, dtype=np.uint8)
        if len(_pool) < _POOL_BUFFERS:
            _pool.append(buffer)
        elif spare >= 0:  # a free buffer of another size makes way (it is freed)
            _pool[spare] = buffer
        return buffer.view(np.int32)


def release_buffers() -> None:
    """Free the output buffers :func:`evaluate` keeps for large batches (up to 128 MB);
    arrays already returned keep theirs. Later calls make new ones as needed."""
    with _pool_lock:
        _pool.clear()


def _hash_for(hands: NDArray[np.integer], deck: str, italian: bool) -> RankHash:
    # The batch kernels' hash for these rows: five cards a row, the small five-card hash
    # (it stays in L1/L2); six or seven in a dtype wider than a byte, the big hash at
    # the width tables.rank_width gives wide hands (16 bits); else at its usual width.
    k = hands.shape[1]
    wide = hands.dtype.itemsize > 1 and k > 5
    return batch_tables(deck, italian, wide=wide).for_cards(k)


def _bad_row_error(hands: NDArray[np.integer], row: int, min_card: int) -> ValueError:
    # The kernels name the first bad row; which card and why is worked out here, on that
    # row only, reading the cards left to right as the check itself would.
    seen: set[int] = set()
    for value in hands[row].tolist():
        card = int(value)
        if not min_card <= card <= 51:
            allowed = "0..51" if min_card == 0 else "20..51 (the 32-card deck, 7 to A)"
            return ValueError(f"row {row}: card {card} is outside the deck; allowed: {allowed}")
        if card in seen:
            return ValueError(
                f"row {row}: card {card} ({RANK_CHARS[card // 4]}{'cdhs'[card % 4]}) "
                "appears twice in one hand"
            )
        seen.add(card)
    return ValueError(f"row {row}: not a hand of distinct cards of the deck")  # unreachable


def validate_hands(
    cards: ArrayLike, deck: Deck | int = "standard", min_cards: int = 5, max_cards: int = 7
) -> NDArray[np.integer]:
    """Check a hand or a batch of hands; return it as a C-contiguous 2-D integer array.

    Any integer dtype is accepted and kept (no converting copy).

    Raises:
        ValueError: for a wrong shape, a non-integer dtype (floats, bools), a card
            outside the deck, or a card twice in one hand; the message names the row.
    """
    arr = _as_hands(cards, min_cards, max_cards)
    deck_name = _deck_name(deck)
    tables = build_tables(deck_name)
    if 5 <= arr.shape[1] <= 7:
        # The same compiled check as evaluate's (the ranks it writes are thrown away).
        out = np.empty(arr.shape[0], dtype=np.int32)
        h = _hash_for(arr, deck_name, False)
        bad = eval_batch_checked(arr, card_pairs(deck_name), h, out)
    else:  # other hand sizes (the kernels rank 5 to 7 cards): the same test in numpy
        wide = arr.astype(np.int64)  # uint64 values above 2**63 wrap negative: still refused
        rows = ((wide < tables.deck_min_card) | (wide > 51)).any(axis=1)
        if arr.shape[1] > 1:
            rows |= (np.diff(np.sort(wide, axis=1), axis=1) == 0).any(axis=1)
        bad = int(np.argmax(rows)) if rows.any() else -1
    if bad >= 0:
        raise _bad_row_error(arr, bad, tables.deck_min_card)
    return arr


def evaluate(
    cards: ArrayLike,
    deck: Deck | int = "standard",
    flush_beats_full_house: bool = False,
    *,
    validate: bool = True,
    num_threads: int | None = None,
    out: NDArray[np.int32] | None = None,
) -> NDArray[np.int32]:
    """Rank hands: the best five of each row's 5, 6 or 7 cards (RULES.md §0).

    Args:
        cards: integer array (n, k), k in 5..7, or one hand (k,); any integer dtype
            (int8 ... int64, uint8 ...), used as it is.
        deck: ``"standard"`` (52) or ``"short"`` (32 cards, A-7-8-9-T the lowest straight).
        flush_beats_full_house: the Italian order (flush above full house).
        validate: check that every card is in the deck and none repeats in a hand
            (inside the compiled pass: about a tenth of the time for one-byte cards,
            less for wider ones). ``False`` skips only
            that: bad cards then give meaningless ranks, never a crash. The shape and
            dtype are always checked.
        num_threads: threads for large batches (``None``: numba's setting; 1: one thread).
        out: where to write the ranks: a writable C-contiguous int32 array of shape
            ``(n,)`` (``(1,)`` for one hand), returned. On an error the rows before
            the bad one may have been written. Without it, a batch of 2**18 to 2**24
            hands gets a new array over memory that an earlier call's result used
            once that result and every view of it are gone (at most two buffers are
            kept, up to 128 MB; :func:`release_buffers` frees them), so a loop that
            keeps only its latest result skips a fresh array's page faults (a tenth
            of the time for 10 M int64 hands). Such an array's ``base`` is the
            buffer (it cannot be resized in place).

    Returns:
        ``n`` int32 ranks (``out`` when given; for one hand its single rank): larger
        is better, equal exactly for ties.

    Raises:
        ValueError: a wrong shape, a non-integer dtype, a card outside the deck or a
            card twice in one hand; the message names the first bad row and the card.

    >>> from poker_env.cards import parse_cards
    >>> r = evaluate([parse_cards("As Ks Qs Js Ts"), parse_cards("Ah Kh Qh Jh Th")])
    >>> bool(r[0] == r[1]), hand_name(r[0])
    (True, 'Royal Flush')
    >>> wheel, six_high = evaluate([parse_cards("Ac 2d 3h 4s 5c"), parse_cards("2d 3h 4s 5c 6d")])
    >>> bool(wheel < six_high)
    True
    """
    single = np.ndim(cards) == 1
    deck_name = _deck_name(deck)
    tables = get_tables(deck, flush_beats_full_house)
    hands = _as_hands(cards)
    h = _hash_for(hands, deck_name, flush_beats_full_house)
    args = (hands, card_pairs(deck_name), h)
    if out is None:
        out = _fresh_out(hands.shape[0])
    else:
        _check_out(out, hands.shape[0])
    bad = -1
    threads = 1
    if hands.shape[0] >= PARALLEL_MIN_HANDS:  # (asking numba costs ~2 us: only when it matters)
        threads = numba.get_num_threads() if num_threads is None else int(num_threads)
    if threads > 1:
        previous = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            if validate:
                bad = eval_batch_checked_parallel(*args, out)
            else:
                eval_batch_parallel(*args, out)
        finally:
            numba.set_num_threads(previous)
    elif validate:
        bad = eval_batch_checked(*args, out)
    else:
        eval_batch(*args, out)
    if bad >= 0:
        raise _bad_row_error(hands, bad, tables.deck_min_card)
    return out[0] if single else out


def hand_category(ranks: ArrayLike) -> NDArray[np.int8]:
    """Category of each rank: 0 high card, 1 pair, ... 8 straight flush.

    >>> from poker_env.cards import parse_cards
    >>> int(hand_category(evaluate(parse_cards("7c 7d 7h 2s 2c"))))
    6
    """
    return ((np.asarray(ranks) >> 12) & 0xF).astype(np.int8)


def hand_name(rank: int | np.integer) -> str:
    """Category name of one rank; the ace-high straight flush is "Royal Flush"."""
    rank = int(rank)
    cat = (rank >> 12) & 0xF
    if cat == 8 and _top_card(rank) == 12:
        return "Royal Flush"
    return CATEGORY_NAMES[cat]


def _top_card(rank: int) -> int:
    # Straights and straight flushes are numbered by top card, lowest first; the
    # lowest straight's top is 3 (five-high) in the 52-card deck, 8 (ten-high) in the 32.
    from poker_env.evaluator.tables import signature_of

    return signature_of(rank)[1][0]


def describe_hand(rank: int | np.integer) -> str:
    """A readable description: "Two Pair, Kings and Sevens", "Flush, Ace high".

    >>> from poker_env.cards import parse_cards
    >>> describe_hand(evaluate(parse_cards("Kh Kd 7s 7c 2h")))
    'Two Pair, Kings and Sevens'
    >>> describe_hand(evaluate(parse_cards("Ac 2d 3h 4s 5c")))
    'Straight, Five high'
    """
    from poker_env.evaluator.tables import signature_of

    cat, ranks = signature_of(int(rank))
    name = hand_name(rank)
    w, one = _RANK_WORDS, _RANK_WORD
    if cat == 8:
        return name if name == "Royal Flush" else f"{name}, {one[ranks[0]]} high"
    if cat == 7:
        return f"{name}, {w[ranks[0]]}"
    if cat == 6:
        return f"{name}, {w[ranks[0]]} over {w[ranks[1]]}"
    if cat in (4, 5, 0):
        return f"{name}, {one[ranks[0]]} high"
    if cat == 3:
        return f"{name}, {w[ranks[0]]}"
    if cat == 2:
        return f"{name}, {w[ranks[0]]} and {w[ranks[1]]}"
    return f"{name}, {w[ranks[0]]}"
