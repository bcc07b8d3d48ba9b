"""Cards as small integers, decks, parsing and printing.

A card is ``rank * 4 + suit``: rank 0..12 for 2..A, suit 0..3 for c, d, h, s
(RULES.md §0). Text form is two characters a card, ``"As Td 7c"``.

>>> parse_cards("As Td 7c")
array([51, 33, 20], dtype=int8)
>>> format_cards(parse_cards("as 10d 7C"))
'As Td 7c'
>>> len(make_deck("short")), format_cards(make_deck("short")[:4])
(32, '7c 7d 7h 7s')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "NUM_CARDS",
    "NUM_RANKS",
    "NUM_SUITS",
    "RANK_CHARS",
    "SHORT_DECK_MIN_RANK",
    "SUIT_CHARS",
    "Deck",
    "card",
    "card_rank",
    "card_suit",
    "deck_size",
    "format_card",
    "format_cards",
    "make_deck",
    "parse_card",
    "parse_cards",
    "shuffled_deck",
]

Deck = Literal["standard", "short"]

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = 52
#: The 32-card deck holds the ranks 7 to A (RULES.md §0): rank index 5 and up.
SHORT_DECK_MIN_RANK = 5

_DECK_ALIASES: dict[object, Deck] = {
    "standard": "standard",
    "short": "short",
    52: "standard",
    32: "short",
    "52": "standard",
    "32": "short",
}


def _deck_name(deck: object) -> Deck:
    try:
        return _DECK_ALIASES[deck]
    except (KeyError, TypeError):
        raise ValueError(f"unknown deck {deck!r}; allowed: 'standard' (52), 'short' (32)") from None


def deck_size(deck: Deck | int = "standard") -> int:
    """Number of cards in the deck: 52 or 32."""
    return 52 if _deck_name(deck) == "standard" else 32


def card(rank: int, suit: int) -> int:
    """The card index of ``rank`` (0..12) and ``suit`` (0..3)."""
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"rank must be 0..12 and suit 0..3, got rank={rank}, suit={suit}")
    return rank * 4 + suit


def card_rank(cards: ArrayLike) -> NDArray[np.int8]:
    """Rank index (0 = deuce .. 12 = ace) of each card."""
    return (np.asarray(cards) // 4).astype(np.int8)


def card_suit(cards: ArrayLike) -> NDArray[np.int8]:
    """Suit index (0 c, 1 d, 2 h, 3 s) of each card."""
    return (np.asarray(cards) % 4).astype(np.int8)


def parse_card(token: str) -> int:
    """Parse one card such as ``"As"``, ``"td"`` or ``"10h"``."""
    return int(parse_cards(token)[0])


def parse_cards(text: str | Iterable[str], deck: Deck | int = "standard") -> NDArray[np.int8]:
    """Parse cards written as ``"As Td 7c"`` (or ``"AsTd7c"``, or a list of tokens).

    Ranks ``2-9 T J Q K A`` (``10`` for ``T``), suits ``c d h s``, any case.

    Raises:
        ValueError: naming the token and its position for an unknown token, a
            card given twice, or a card outside ``deck``.
    """
    deck_name = _deck_name(deck)
    tokens = _tokenize(text)
    out = np.empty(len(tokens), dtype=np.int8)
    seen: dict[int, int] = {}
    for pos, tok in enumerate(tokens):
        if len(tok) < 2:
            raise ValueError(
                f"bad card token {tok!r} at position {pos}: expected rank then suit, e.g. 'As'"
            )
        rank_txt, suit_txt = tok[:-1].upper(), tok[-1].lower()
        if rank_txt == "10":
            rank_txt = "T"
        if len(rank_txt) != 1 or rank_txt not in RANK_CHARS:
            raise ValueError(
                f"bad card token {tok!r} at position {pos}: unknown rank {tok[:-1]!r}; allowed: 2-9, T (or 10), J, Q, K, A"
            )
        if suit_txt not in SUIT_CHARS:
            raise ValueError(
                f"bad card token {tok!r} at position {pos}: unknown suit {tok[-1]!r}; allowed: c, d, h, s"
            )
        rank = RANK_CHARS.index(rank_txt)
        if deck_name == "short" and rank < SHORT_DECK_MIN_RANK:
            raise ValueError(f"card {tok!r} at position {pos} is not in the 32-card deck (7 to A)")
        c = rank * 4 + SUIT_CHARS.index(suit_txt)
        if c in seen:
            raise ValueError(
                f"card {tok!r} at position {pos} repeats the card at position {seen[c]}"
            )
        seen[c] = pos
        out[pos] = c
    return out


def _tokenize(text: str | Iterable[str]) -> list[str]:
    if not isinstance(text, str):
        return [str(t).strip() for t in text]
    tokens: list[str] = []
    for chunk in text.replace(",", " ").split():
        # Allow run-together text "AsKd" as well as "As Kd"; "10" is a two-character rank.
        i = 0
        while i < len(chunk):
            step = 3 if chunk.startswith("10", i) else 2
            tokens.append(chunk[i : i + step])
            i += step
    return tokens


def format_card(c: int) -> str:
    """Two-character text of one card, e.g. ``"As"``."""
    c = int(c)
    if not 0 <= c < NUM_CARDS:
        raise ValueError(f"card index {c} out of range; allowed: 0..51")
    return RANK_CHARS[c // 4] + SUIT_CHARS[c % 4]


def format_cards(cards: ArrayLike, sep: str = " ") -> str:
    """Text of a sequence of cards, e.g. ``"As Td 7c"``; round-trips with :func:`parse_cards`."""
    return sep.join(format_card(int(c)) for c in np.asarray(cards).ravel())


def make_deck(deck: Deck | int = "standard") -> NDArray[np.int8]:
    """All cards of the deck in index order (52 cards, or 32 from 7c up)."""
    start = 0 if _deck_name(deck) == "standard" else SHORT_DECK_MIN_RANK * 4
    return np.arange(start, NUM_CARDS, dtype=np.int8)


def shuffled_deck(rng: np.random.Generator, deck: Deck | int = "standard") -> NDArray[np.int8]:
    """The deck in an order drawn from ``rng`` (same seed, same order, on every machine)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    cards = make_deck(deck)
    return cards[rng.permutation(cards.size)]
