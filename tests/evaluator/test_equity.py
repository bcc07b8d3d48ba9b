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


# ----- draw_discard_equities, pat_equity, holdem_equity_batch -----------------------------
from itertools import combinations  # noqa: E402

from poker_env.evaluator import evaluate  # noqa: E402
from poker_env.evaluator.equity_batch import (  # noqa: E402
    draw_discard_equities,
    holdem_equity_batch,
    pat_equity,
)


def test_pat_equity_from_the_category_counts() -> None:
    # 52 cards: 2,598,960 hands. The worst, 7-5-4-3-2 not suited: 1,020 of them, none
    # below. The lowest pair (2-2-3-4-5, 384 ways) has every high-card hand below it:
    # 1,302,540. Four royal flushes tie at the top.
    total = 2 * comb(52, 5)
    got = pat_equity(
        [
            parse_cards("7c 5d 4h 3s 2c"),
            parse_cards("2c 2d 3h 4s 5c"),
            parse_cards("As Ks Qs Js Ts"),
        ]
    )
    assert got.tolist() == [1020 / total, (2 * 1_302_540 + 384) / total, 1 - 4 / total]
    # 32 cards (7 to A): 201,376 hands, the worst 7-8-9-T-Q (A-7-8-9-T is a straight).
    short = pat_equity(parse_cards("7c 8d 9h Ts Qc"), deck="short")
    assert short.tolist() == [1020 / (2 * comb(32, 5))]


def _brute_discard_equities(hand: list[int], deck: str, max_draw: int) -> dict[int, float]:
    """Every draw of every choice ranked by evaluate(), against a pat hand from the
    whole deck: points from ranking all five-card hands of the deck."""
    lo = 0 if deck == "standard" else 20
    cards = list(range(lo, 52))
    if deck == "short":
        all_values = np.sort(evaluate(np.array(list(combinations(cards, 5)), np.int8), deck))
    else:
        all_values = None
    stock = [c for c in cards if c not in hand]
    out = {}
    for d in range(32):
        thrown = [j for j in range(5) if d >> j & 1]
        if len(thrown) > max_draw:
            continue
        kept = [hand[j] for j in range(5) if not d >> j & 1]
        finals = np.array([kept + list(draw) for draw in combinations(stock, len(thrown))], np.int8)
        if all_values is not None:
            v = evaluate(finals, deck)
            below = np.searchsorted(all_values, v, side="left")
            upto = np.searchsorted(all_values, v, side="right")
            out[d] = float(((below + upto) / (2 * all_values.size)).mean())
        else:
            out[d] = float(pat_equity(finals).mean())  # pat_equity checked above
    return out


@pytest.mark.parametrize(
    "hand",
    ["Ac 7d 8h 9s Kc", "Ah Kh 9h 7h 8c", "8c 8d Qh Ks 7c", "Js Ts 9s 8s 7s", "7c 7d 7h 7s Ad"],
)
def test_draw_discard_equities_against_brute_force_short_deck(hand: str) -> None:
    cards = [int(c) for c in parse_cards(hand)]
    got = draw_discard_equities(cards, deck="short")[0]
    want = _brute_discard_equities(cards, "short", 5)
    assert got.tolist() == pytest.approx([want[d] for d in range(32)], abs=1e-12)


@pytest.mark.parametrize("hand", ["2h 5h 9h Kh As", "Qs Qd 7c 4h 2s", "5c 6d 7h 8s Kc"])
def test_draw_discard_equities_against_brute_force_standard_deck(hand: str) -> None:
    # Draws of up to two cards (the three- to five-card draws would take minutes here;
    # the short-deck test covers them, and the flush corrections at every size).
    cards = [int(c) for c in parse_cards(hand)]
    got = draw_discard_equities(cards)[0]
    for d, want in _brute_discard_equities(cards, "standard", 2).items():
        assert got[d] == pytest.approx(want, abs=1e-12)


def test_draw_discard_equities_follow_the_cards_not_their_order_or_suits() -> None:
    rng = np.random.default_rng(0)
    hands = np.array([rng.permutation(52)[:5] for _ in range(300)])
    base = draw_discard_equities(hands)
    # Columns shuffled: the same equities under the remapped discard masks.
    perm = rng.permutation(5)
    shuffled = draw_discard_equities(hands[:, perm])
    remap = [
        sum(1 << int(np.flatnonzero(perm == j)[0]) for j in range(5) if d >> j & 1)
        for d in range(32)
    ]
    assert (shuffled[:, remap] == base).all()
    # Suits renamed: exactly the same numbers (suits never matter but for flushes).
    suits = np.array([2, 0, 3, 1])
    assert (draw_discard_equities(hands // 4 * 4 + suits[hands % 4]) == base).all()
    # Pat is pat_equity; and the table agrees with draw_equity's Monte Carlo (which
    # deals the opposing hand from the unseen cards) to its error plus card removal.
    assert base[:, 0].tolist() == pat_equity(hands).tolist()
    mc = draw_equity(hands[0], rng=3, num_samples=4000)
    assert np.abs(base[0] - mc.equity).max() < 0.05


def test_draw_discard_equities_bad_input() -> None:
    with pytest.raises(ValueError, match="shape"):
        draw_discard_equities(np.zeros((2, 4), np.int64))
    with pytest.raises(ValueError, match="twice"):
        draw_discard_equities([[51, 51, 45, 0, 4]])
    with pytest.raises(ValueError, match="outside the short deck"):
        draw_discard_equities(parse_cards("2c 7d 8h 9s Kc"), deck="short")
    with pytest.raises(ValueError, match="integer"):
        pat_equity(np.zeros((1, 5)))


def test_holdem_equity_batch_on_the_river_matches_enumeration() -> None:
    # One random opponent on a full board: the exact equity counts his 990 holdings.
    hole, board = parse_cards("Ah Qd"), parse_cards("Qs 9h 4c 2d Kd")
    rest = [c for c in range(52) if c not in set(hole.tolist()) | set(board.tolist())]
    mine = evaluate(np.concatenate([hole, board]))
    theirs = evaluate(np.array([[a, b, *board] for a, b in combinations(rest, 2)], np.int8))
    exact = float(((mine > theirs) + 0.5 * (mine == theirs)).mean())
    got = holdem_equity_batch([hole], [board], [1], seeds=[1], num_samples=40_000)[0]
    assert got == pytest.approx(exact, abs=4 * 0.5 / np.sqrt(40_000))


def test_holdem_equity_batch_rows_are_seeded_and_independent() -> None:
    holes = np.array([parse_cards("As Ah"), parse_cards("7c 2d"), parse_cards("Kd Qd")])
    boards = np.array([[-1] * 5, [-1] * 5, [*parse_cards("Jd Td 3s").tolist(), -1, -1]])
    a = holdem_equity_batch(holes, boards, [1, 3, 2], seeds=[5, 6, 7], num_samples=3000)
    b = holdem_equity_batch(holes[1:], boards[1:], [3, 2], seeds=[6, 7], num_samples=3000)
    assert a[1:].tolist() == b.tolist()  # a row's number depends on its seed only
    # Against the general Monte Carlo: aces vs one random hand 85.2%, and 7-2 three-way.
    assert a[0] == pytest.approx(0.852, abs=0.04)
    ref = holdem_equity(
        ["7c 2d", None, None, None], method="monte_carlo", num_samples=40_000, rng=2
    )
    assert a[1] == pytest.approx(ref.equity[0], abs=4 * 0.5 / np.sqrt(3000))


def test_holdem_equity_batch_bad_input() -> None:
    hole, empty = [[48, 49]], [[-1] * 5]
    with pytest.raises(ValueError, match=r"1\.\.9"):
        holdem_equity_batch(hole, empty, [0], seeds=[1])
    with pytest.raises(ValueError, match="0, 3, 4 or 5"):
        holdem_equity_batch(hole, [[1, 2, -1, -1, -1]], [1], seeds=[1])
    with pytest.raises(ValueError, match="twice"):
        holdem_equity_batch(hole, [[48, 2, 3, -1, -1]], [1], seeds=[1])
    with pytest.raises(ValueError, match="seeds"):
        holdem_equity_batch(hole, empty, [1], seeds=[-1])
    with pytest.raises(ValueError, match="num_samples"):
        holdem_equity_batch(hole, empty, [1], seeds=[1], num_samples=0)
