"""Equity against exact published figures and hand counting."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from poker_env.cards import parse_cards
from poker_env.evaluator import draw_equity, holdem_equity


def test_aces_vs_kings_preflop_exact() -> None:
    r = holdem_equity(["As Ah", "Ks Kh"])
    assert r.num_boards == 1_712_304 == comb(48, 5)
    assert r.wins.tolist()[0] == 1_410_336
    assert r.ties.tolist() == [9_308, 9_308]
    assert r.equity[0] == pytest.approx(0.826366, abs=5e-7)
    assert r.equity.sum() == pytest.approx(1.0)


def test_river_board_is_one_showdown() -> None:
    # Board plays for both: a split, each gets half.
    r = holdem_equity(["2c 3d", "4h 5s"], board="Ah Kh Qh Jh Th")
    assert r.num_boards == 1 and r.ties.tolist() == [1, 1]
    assert r.equity.tolist() == [0.5, 0.5]


def test_turn_board_counts_outs() -> None:
    # Ace-high flush draw and wheel draw vs kings on the turn, 44 unseen river cards:
    # 9 hearts (flush), 3 other fours (A-2-3-4-5), 3 other aces (aces beat kings) = 15 wins.
    r = holdem_equity(["Ah 2h", "Kc Kd"], board="9h 5h 3c Js")
    assert r.num_boards == 44
    assert r.wins.tolist() == [15, 44 - 15]


def test_three_way_split_odd_shares_sum_to_one() -> None:
    r = holdem_equity(["2c 3c", "2d 3d", "2h 3h"], board="As Ks Qd Jc 9s")
    # The board (A-K-Q-J-9) plays for all three.
    assert r.equity.tolist() == pytest.approx([1 / 3] * 3)


def test_dead_cards_leave_the_deck() -> None:
    r = holdem_equity(["As Ah", "Ks Kh"], board="2c 7d 9s", dead="Kc Kd")
    assert r.num_boards == comb(52 - 4 - 3 - 2, 2)
    # With both other kings dead, KK needs running spades or a runner-runner straight... check aces lead.
    assert r.equity[0] > 0.9


def test_monte_carlo_is_seeded_and_close_to_exact() -> None:
    a = holdem_equity(["As Ah", "Ks Kh"], method="monte_carlo", num_samples=100_000, rng=7)
    b = holdem_equity(["As Ah", "Ks Kh"], method="monte_carlo", num_samples=100_000, rng=7)
    assert a.equity.tolist() == b.equity.tolist()
    assert a.equity[0] == pytest.approx(0.826366, abs=0.006)  # > 4 standard errors


def test_monte_carlo_with_an_unknown_hand() -> None:
    # Aces against one random hand win about 85.2% (a standard preflop figure).
    r = holdem_equity(["As Ah", None], method="monte_carlo", num_samples=100_000, rng=3)
    assert r.equity[0] == pytest.approx(0.852, abs=0.006)


@pytest.mark.parametrize(
    ("holes", "kwargs", "message"),
    [
        (["As Ah"], {}, "2..10 players"),
        (["As Ah", "As Kd"], {}, "appears in"),
        (["As Ah", "Ks"], {}, "2 cards"),
        (["As Ah", "Ks Kh"], {"board": "2c 3c"}, "0, 3, 4 or 5"),
        (["As Ah", None], {}, "monte_carlo"),
        (["As Ah", "Ks Kh"], {"method": "guess"}, "unknown method"),
    ],
)
def test_equity_bad_input(holes: list[str | None], kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        holdem_equity(holes, **kwargs)  # type: ignore[arg-type]


def test_draw_four_flush_outs() -> None:
    hand = parse_cards("2h 5h 9h Kh As")
    r = draw_equity(hand, rng=0)
    throw_ace = 0b10000
    assert r.num_draws[throw_ace] == 47
    assert r.category_probs[throw_ace, 5] == pytest.approx(
        9 / 47
    )  # nine hearts left, no straight flush possible
    assert r.category_probs[throw_ace, 1] == pytest.approx(
        12 / 47
    )  # pairing one of four ranks, 3 cards each


def test_draw_open_ended_straight_outs() -> None:
    r = draw_equity("5c 6d 7h 8s Kc", rng=0)
    throw_king = 0b10000
    assert r.category_probs[throw_king, 4] == pytest.approx(8 / 47)


def test_draw_counts_all_replacements() -> None:
    r = draw_equity("2c 7d 9h Js Kc", rng=0)
    expected = [comb(47, bin(d).count("1")) for d in range(32)]
    assert r.num_draws.tolist() == expected
    assert np.allclose(r.category_probs.sum(axis=1), 1.0)
    # Throwing all five is a fresh five-card hand from 47 cards: high card share by counting
    # is not simple, but pat hands are: keeping all gives the hand itself.
    assert r.category_probs[0].tolist() == [1.0] + [0.0] * 8


def test_draw_against_a_given_hand_is_exact() -> None:
    # Pair of aces vs a pat king-high flush: aces must make a full house or quads.
    r = draw_equity("As Ad 7c 8h 2s", "Kh Qh 9h 5h 3h")
    keep_aces = 0b11100
    stock = 52 - 10
    # Aces left: Ac Ah (2). Full house or better from drawing 3 of 42:
    # AAA + pair, AAAA + any, AA + trips, A + ... enumerate by counting below.
    from itertools import combinations

    from tests.evaluator.reference import reference_rank

    deck = [c for c in range(52) if c not in parse_cards("As Ad 7c 8h 2s Kh Qh 9h 5h 3h")]
    assert len(deck) == stock
    opp = reference_rank(tuple(int(c) for c in parse_cards("Kh Qh 9h 5h 3h")))
    base = [int(c) for c in parse_cards("As Ad")]
    wins = sum(reference_rank((*base, *draw)) > opp for draw in combinations(deck, 3))
    assert r.win[keep_aces] == pytest.approx(wins / comb(42, 3))
    assert r.equity_stderr[keep_aces] == 0.0


def test_draw_equity_monte_carlo_is_seeded() -> None:
    a = draw_equity("As Ad 7c 8h 2s", num_samples=2000, rng=11)
    b = draw_equity("As Ad 7c 8h 2s", num_samples=2000, rng=11)
    assert a.equity.tolist() == b.equity.tolist()
    assert a.discard_cards(a.best()) == "7c 8h 2s"  # keep the aces, draw three


def test_draw_short_deck() -> None:
    r = draw_equity("Ac 7d 8h 9s Kc", deck="short", rng=0)
    throw_king = 0b10000
    # 32-card deck: tens complete A-7-8-9-T: 4 of 27.
    assert r.num_draws[throw_king] == 27
    assert r.category_probs[throw_king, 4] == pytest.approx(4 / 27)
    with pytest.raises(ValueError, match="not in the short deck"):
        draw_equity("2c 7d 8h 9s Kc", deck="short")


def _brute_force(
    holes: list[list[int]], board: list[int], dead: list[int]
) -> tuple[list[int], list[int], list[float]]:
    """Every board completion ranked with evaluate(): wins, ties and tie shares per player."""
    from itertools import combinations

    from poker_env.evaluator import evaluate

    known = {c for h in holes for c in h} | set(board) | set(dead)
    rest = [c for c in range(52) if c not in known]
    boards = np.array([board + list(b) for b in combinations(rest, 5 - len(board))], dtype=np.int8)
    values = np.stack(
        [
            evaluate(np.hstack([np.tile(np.array(h, dtype=np.int8), (len(boards), 1)), boards]))
            for h in holes
        ]
    )
    best = values.max(axis=0)
    is_best = values == best
    num_best = is_best.sum(axis=0)
    wins = (is_best & (num_best == 1)).sum(axis=1)
    ties = (is_best & (num_best > 1)).sum(axis=1)
    shares = (is_best * np.where(num_best > 1, 1.0 / num_best, 0.0)).sum(axis=1)
    return wins.tolist(), ties.tolist(), shares.tolist()


@pytest.mark.parametrize("seed", range(12))
def test_exact_equity_matches_brute_force(seed: int) -> None:
    # Random players (2-5), random known board (0, 3, 4 or 5 cards) and enough dead
    # cards that brute force stays small; suited holdings make flush corrections common.
    rng = np.random.default_rng(seed)
    num_players = int(rng.integers(2, 6))
    board_size = int(rng.choice([0, 3, 4, 5]))
    deck = rng.permutation(52).tolist()
    if seed % 3 == 0:  # force flush-heavy spots: every player suited in spades/hearts
        deck = [c for c in deck if c % 4 >= 2] + [c for c in deck if c % 4 < 2]
    holes = [deck[2 * p : 2 * p + 2] for p in range(num_players)]
    pos = 2 * num_players
    board = deck[pos : pos + board_size]
    pos += board_size
    dead = deck[pos : pos + (20 if board_size == 0 else 3)]
    r = holdem_equity(holes, board=board, dead=dead)
    wins, ties, shares = _brute_force(holes, board, dead)
    assert r.wins.tolist() == wins
    assert r.ties.tolist() == ties
    assert r.tie_shares.tolist() == pytest.approx(shares)
    assert r.num_boards == comb(52 - 2 * num_players - board_size - len(dead), 5 - board_size)
