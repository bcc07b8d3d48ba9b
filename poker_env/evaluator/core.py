"""Public hand-ranking functions: :func:`evaluate` and the naming helpers."""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from poker_env.cards import RANK_CHARS, Deck, _deck_name
from poker_env.evaluator.kernels import (
    check_hands,
    eval_batch,
    eval_batch5,
    eval_batch5_parallel,
    eval_batch_parallel,
)
from poker_env.evaluator.tables import CATEGORY_NAMES, EvalTables, build_tables, five_card_tables

__all__ = [
    "CATEGORY_NAMES",
    "describe_hand",
    "evaluate",
    "get_tables",
    "hand_category",
    "hand_name",
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


def validate_hands(
    cards: ArrayLike, deck: Deck | int = "standard", min_cards: int = 5, max_cards: int = 7
) -> NDArray[np.integer]:
    """Check a hand or a batch of hands; return it as a C-contiguous 2-D integer array.

    Raises:
        ValueError: for a wrong shape, a non-integer dtype, a card outside the
            deck, or a card twice in one hand; the message names the row.
    """
    arr = np.asarray(cards)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise ValueError(
            f"cards must be an integer array (card = rank * 4 + suit), got dtype {arr.dtype}"
        )
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or not (min_cards <= arr.shape[1] <= max_cards):
        raise ValueError(
            f"cards must have shape (n, k) or (k,) with k in {min_cards}..{max_cards}, got shape {np.shape(cards)}"
        )
    arr = np.ascontiguousarray(arr)
    min_card = 0 if _deck_name(deck) == "standard" else 20
    row, code, card = check_hands(arr, min_card)
    if code == 1:
        allowed = "0..51" if min_card == 0 else "20..51 (the 32-card deck, 7 to A)"
        raise ValueError(f"row {row}: card {card} is outside the deck; allowed: {allowed}")
    if code == 2:
        raise ValueError(
            f"row {row}: card {card} ({RANK_CHARS[card // 4]}{'cdhs'[card % 4]}) appears twice in one hand"
        )
    return arr


def evaluate(
    cards: ArrayLike,
    deck: Deck | int = "standard",
    flush_beats_full_house: bool = False,
    *,
    validate: bool = True,
    num_threads: int | None = None,
) -> NDArray[np.int32]:
    """Rank hands: the best five of each row's 5, 6 or 7 cards (RULES.md §0).

    Args:
        cards: integer array (n, k), k in 5..7, or one hand (k,).
        deck: ``"standard"`` (52) or ``"short"`` (32 cards, A-7-8-9-T the lowest straight).
        flush_beats_full_house: the Italian order (flush above full house).
        validate: check shape, range and repeats (``False`` on hot paths: bad input then
            gives meaningless ranks, never a crash).
        num_threads: threads for large batches (``None``: numba's setting; 1: one thread).

    Returns:
        ``n`` int32 ranks (a 0-d array for one hand): larger is better, equal exactly for ties.

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
    if validate:
        hands = validate_hands(cards, deck)
    else:
        hands = np.ascontiguousarray(cards)
        hands = hands[None, :] if hands.ndim == 1 else hands
    out = np.empty(hands.shape[0], dtype=np.int32)
    five = hands.shape[1] == 5
    threads = numba.get_num_threads() if num_threads is None else int(num_threads)
    if threads > 1 and hands.shape[0] >= PARALLEL_MIN_HANDS:
        previous = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            if five:
                eval_batch5_parallel(
                    hands, tables, *five_card_tables(deck_name, flush_beats_full_house), out
                )
            else:
                eval_batch_parallel(hands, tables, out)
        finally:
            numba.set_num_threads(previous)
    elif five:
        eval_batch5(hands, tables, *five_card_tables(deck_name, flush_beats_full_house), out)
    else:
        eval_batch(hands, tables, out)
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
