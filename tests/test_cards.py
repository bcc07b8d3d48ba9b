"""Card encoding, parsing and printing (DESIGN.md public API)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from poker_env.cards import card, format_cards, make_deck, parse_cards, shuffled_deck


def test_encoding_is_rank_times_four_plus_suit() -> None:
    assert parse_cards("2c").tolist() == [0]
    assert parse_cards("2s").tolist() == [3]
    assert parse_cards("As").tolist() == [51]
    assert parse_cards("Td").tolist() == [card(8, 1)] == [33]


@given(st.lists(st.integers(0, 51), unique=True, max_size=52))
def test_parse_format_round_trip(cards: list[int]) -> None:
    text = format_cards(cards)
    assert parse_cards(text).tolist() == cards
    assert format_cards(parse_cards(text)) == text


def test_case_ten_and_run_together_forms() -> None:
    assert parse_cards("as 10d 7C").tolist() == parse_cards("As Td 7c").tolist()
    assert parse_cards("AsTd7c").tolist() == parse_cards("As Td 7c").tolist()
    assert parse_cards(["As", "10d"]).tolist() == parse_cards("As Td").tolist()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("As Xd", "'Xd' at position 1: unknown rank"),
        ("As Tx", "'Tx' at position 1: unknown suit"),
        ("As Kd As", "'As' at position 2 repeats the card at position 0"),
        ("A", "position 0"),
    ],
)
def test_bad_tokens_name_token_and_position(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_cards(text)


def test_card_outside_short_deck() -> None:
    with pytest.raises(ValueError, match="'6h' at position 1 is not in the 32-card deck"):
        parse_cards("As 6h", deck="short")
    assert parse_cards("7c Ah", deck=32).tolist() == [20, 50]


def test_decks() -> None:
    assert make_deck().tolist() == list(range(52))
    short = make_deck("short")
    assert short.size == 32 and format_cards(short[:4]) == "7c 7d 7h 7s"
    with pytest.raises(ValueError, match="unknown deck"):
        make_deck("tarot")  # type: ignore[arg-type]


def test_shuffled_deck_is_seeded() -> None:
    a = shuffled_deck(np.random.default_rng(42))
    b = shuffled_deck(np.random.default_rng(42))
    assert a.tolist() == b.tolist()
    assert sorted(a.tolist()) == list(range(52))
    assert a.tolist() != shuffled_deck(np.random.default_rng(43)).tolist()
    with pytest.raises(TypeError, match="Generator"):
        shuffled_deck(42)  # type: ignore[arg-type]
