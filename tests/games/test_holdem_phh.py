"""PHH export and import: standard hands load in PokerKit and end with the same stacks;
histories PokerKit writes (and hand-worked ones) replay in this engine to PokerKit's stacks."""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest

from poker_env.cards import format_cards
from poker_env.games.holdem import HoldemConfig, HoldemGame
from poker_env.games.holdem_phh import from_phh, phh_player_seats, to_phh


def _random_hand(game: HoldemGame, rng: np.random.Generator) -> None:
    game.start_hand()
    while not game.is_hand_over:
        la = game.legal_actions()
        r = rng.random()
        if la.can_fold and r < 0.25:
            game.fold()
        elif la.min_raise_to is not None and r < 0.5:
            assert la.max_raise_to is not None
            game.raise_to(int(rng.integers(la.min_raise_to, la.max_raise_to + 1)))
        elif la.can_all_in and r < 0.55:
            game.all_in()
        else:
            game.check_or_call()


def test_player_order_starts_after_the_dealer() -> None:
    record = {"seated": [True, True, False, True], "start_stacks": [5, 5, 0, 5], "button": 1}
    assert phh_player_seats(record) == [3, 0, 1]


def test_seed_profile_and_escapes_are_refused() -> None:
    game = HoldemGame(HoldemConfig(num_seats=3), rng=0)
    game.start_hand()
    game.fold()
    game.fold()
    with pytest.raises(ValueError, match="standard"):
        to_phh(game)
    # An escape (penalty, role shift: RULES.md §3) has no PHH form; the JSON record has it.
    game = HoldemGame(HoldemConfig(num_seats=3, rules="standard"), rng=0)
    game.start_hand(button=0)
    game.leave(0)
    while not game.is_hand_over:
        game.check_or_call()
    with pytest.raises(ValueError, match=r"escape.*to_json"):
        to_phh(game)


def _round_trip(n: int, num_hands: int, seed: int) -> None:
    notation = pytest.importorskip("pokerkit.notation")
    rng = np.random.default_rng(seed)
    game = HoldemGame(HoldemConfig(num_seats=n, rules="standard"), rng=seed)
    for _ in range(num_hands):
        game._close_hand()
        for q in range(n):
            if game._status(q) == 0:
                game.join(q)
        _random_hand(game, rng)
        record = game.hand_record()
        text = to_phh(record)
        hh = notation.HandHistory.loads(text)
        *_, last = iter(hh)
        seats = phh_player_seats(record)
        assert list(last.stacks) == [record["final_stacks"][q] for q in seats], text


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_pokerkit_round_trip_same_stacks(n: int) -> None:
    _round_trip(n, 25, seed=n)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 11))
def test_pokerkit_round_trip_many_hands(n: int) -> None:
    _round_trip(n, 300, seed=1000 + n)


# ---------------------------------------------------------------- import (from_phh)

# Four players, three all-ins, two side pots. By hand: p3 all-in to 30 (a full
# raise), p4 calls, p1 all-in to 50 (short of the 58 a full raise needs: it does
# not reopen), p2 all-in to 100 (a full raise over 50 + 28), p4 calls 100; p4
# alone has chips, so the board comes without betting. Pots: 30 x 4 = 120 and
# 20 x 3 = 60 to p1's aces, 50 x 2 = 100 to p2's kings over p4's seven high.
# Final: p1 180, p2 100, p3 0, p4 100.
SIDE_POTS = """
# A hand-worked example.
variant = "NT"
antes = [0, 0, 0, 0]
blinds_or_straddles = [1, 2, 0, 0]
min_bet = 2
starting_stacks = [50, 100, 30, 200]
actions = [
  "d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 QhQd", "d dh p4 2c7d",
  "p3 cbr 30",
  "p4 cc",
  "p1 cbr 50",  # all-in, short of a full raise
  "p2 cbr 100",
  "p4 cc",
  "d db 3s4s8c",  # Flop
  "d db 9d",
  "d db Js",
  "p1 sm AhAd", "p2 sm KhKd", "p3 sm QhQd", "p4 sm 2c7d",
  "# pots: 120 + 60 to p1, 100 to p2",  # a no-op (a commentary only)
  "",
]
players = ["Ann", "Bob", "Cy", "Dee"]
event = "hand-worked"
"""
SIDE_POTS_STACKS = [180, 100, 0, 100]

# Heads-up: p1 is the big blind, p2 the dealer posts the small blind and acts
# first pre-flop; after the flop the big blind acts first (standard). By hand:
# p2 calls 2, p1 raises to 8, p2 calls (pot 16); flop: p1 checks, p2 bets 10,
# p1 all-in to 92, p2 calls all-in for 72. p2's straight (8-9-T-J-Q) beats p1's
# three nines: p2 takes 80 + 80 = 160, p1's 20 nobody matched comes back.
HEADS_UP: dict[str, Any] = {
    "variant": "NT",
    "antes": [0, 0],
    "blinds_or_straddles": [1, 2],
    "min_bet": 2,
    "starting_stacks": [100, 80],
    "actions": [
        "d dh p1 9s9h",
        "d dh p2 TcJd",
        "p2 cc",
        "p1 cbr 8",
        "p2 cc # the dealer calls",
        "d db 2h7s9d",
        "p1 cc",
        "p2 cbr 10",
        "p1 cbr 92",
        "p2 cc",
        "d db Qc",
        "d db 8c",
        "p1 sm 9s9h",
        "p2 sm TcJd",
    ],
}
HEADS_UP_STACKS = [20, 160]


def _toml(fields: dict[str, Any]) -> str:
    # JSON strings, numbers and arrays are TOML values too.
    return "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items())


def _heads_up(**changes: Any) -> str:
    return _toml(HEADS_UP | changes)


def _heads_up_actions(*replace: tuple[int, str | None], extra: tuple[str, ...] = ()) -> str:
    actions: list[str | None] = list(HEADS_UP["actions"])
    for i, text in replace:
        actions[i] = text
    return _heads_up(actions=[a for a in actions if a is not None] + list(extra))


def test_from_phh_hand_worked_side_pots() -> None:
    game = from_phh(SIDE_POTS)
    assert game.stacks() == SIDE_POTS_STACKS
    assert game.payouts == [180, 100, 0, 0]
    assert game.button == 3 and game.small_blind == 0 and game.big_blind == 1
    assert [r.action for r in game.history()] == ["raise_to", "call", "all_in", "raise_to", "call"]


def test_from_phh_hand_worked_heads_up() -> None:
    game = from_phh(_heads_up())
    assert game.stacks() == HEADS_UP_STACKS
    # RULES.md §3 heads-up: the dealer (p2, seat 1) posts the small blind.
    assert game.button == 1 and game.small_blind == 1 and game.big_blind == 0
    assert game.board() == "2h 7s 9d Qc 8c"


def test_hand_worked_examples_agree_with_pokerkit() -> None:
    notation = pytest.importorskip("pokerkit.notation")
    for text, stacks in ((SIDE_POTS, SIDE_POTS_STACKS), (_heads_up(), HEADS_UP_STACKS)):
        *_, last = iter(notation.HandHistory.loads(text))
        assert list(last.stacks) == stacks


def test_from_phh_round_trip_of_to_phh() -> None:
    # Seats 1 and 4 of six are empty; the PHH players are the four dealt ones.
    game = HoldemGame(HoldemConfig(num_seats=6, rules="standard"), rng=3, num_players=4)
    game.remove(1)
    game.join(4, stack=37)
    rng = np.random.default_rng(3)
    for _ in range(20):
        game._close_hand()
        if sum(1 for x in game.stacks() if x > 0) < 2:
            break
        _random_hand(game, rng)
        record = game.hand_record()
        text = to_phh(record)
        again = from_phh(text)
        seats = phh_player_seats(record)
        assert again.stacks() == [record["final_stacks"][q] for q in seats], text
        assert [again.hole_cards(i) for i in range(len(seats))] == [
            game.hole_cards(q) for q in seats
        ]


def _pokerkit_hand(n: int, rng: np.random.Generator) -> tuple[str, list[int]]:
    """A random hand played by PokerKit's own API: its PHH text and final stacks."""
    pokerkit = pytest.importorskip("pokerkit")
    from pokerkit.notation import HandHistory

    a = pokerkit.Automation
    game = pokerkit.NoLimitTexasHoldem(
        (
            a.ANTE_POSTING,
            a.BET_COLLECTION,
            a.BLIND_OR_STRADDLE_POSTING,
            a.CARD_BURNING,
            a.HOLE_CARDS_SHOWING_OR_MUCKING,  # losers muck: "pK sm" without cards
            a.HAND_KILLING,
            a.CHIPS_PUSHING,
            a.CHIPS_PULLING,
        ),
        True,
        0,
        (1, 2),
        2,
    )
    state = game([int(x) for x in rng.integers(1, 300, size=n)], n)
    deck = iter(format_cards(rng.permutation(52)).split())
    with warnings.catch_warnings():
        # PokerKit warns when a dealt card is one it burned from its own deck.
        warnings.simplefilter("ignore", UserWarning)
        while state.status:
            if state.can_deal_hole():
                state.deal_hole(next(deck))
            elif state.can_deal_board():
                k = state.street.board_dealing_count
                state.deal_board("".join(next(deck) for _ in range(k)))
            else:
                r = rng.random()
                if state.can_fold() and r < 0.2:
                    state.fold()
                elif state.can_complete_bet_or_raise_to() and r < 0.5:
                    lo = state.min_completion_betting_or_raising_to_amount
                    hi = state.max_completion_betting_or_raising_to_amount
                    to = lo if rng.random() < 0.4 else int(rng.integers(lo, hi + 1))
                    if state.completion_betting_or_raising_amount == 0 and to - max(state.bets) < 2:
                        # A first bet or raise of a round smaller than the big blind
                        # (a short all-in): PokerKit reopens the raising after it,
                        # RULES.md §3 does not (see test_short_all_in_first_raise...).
                        state.check_or_call()
                    else:
                        state.complete_bet_or_raise_to(to)
                else:
                    state.check_or_call()
    return HandHistory.from_game_state(game, state).dumps(), list(state.stacks)


def test_from_phh_pokerkit_written_literal() -> None:
    # What HandHistory.from_game_state(...).dumps() wrote for a hand played with
    # PokerKit's API (the hands shown before the board, as PokerKit orders them);
    # PokerKit ended it with stacks [180, 0, 470].
    text = (
        "variant = 'NT'\n"
        "ante_trimming_status = false\n"
        "antes = [0, 0, 0]\n"
        "blinds_or_straddles = [1, 2, 0]\n"
        "min_bet = 2\n"
        "starting_stacks = [200, 150, 300]\n"
        "actions = ['d dh p1 AsKs', 'd dh p2 7h7d', 'd dh p3 QcJc', 'p3 cbr 6', 'p1 cbr 20',"
        " 'p2 cbr 150', 'p3 cc', 'p1 f', 'p2 sm 7h7d', 'p3 sm QcJc', 'd db 2c3d9h', 'd db Td',"
        " 'd db 8c']"
    )
    assert from_phh(text).stacks() == [180, 0, 470]


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_from_phh_pokerkit_played_hands(n: int) -> None:
    rng = np.random.default_rng(50 + n)
    for _ in range(15):
        text, stacks = _pokerkit_hand(n, rng)
        assert from_phh(text).stacks() == stacks, text


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 11))
def test_from_phh_pokerkit_played_hands_many(n: int) -> None:
    rng = np.random.default_rng(500 + n)
    for _ in range(150):
        text, stacks = _pokerkit_hand(n, rng)
        assert from_phh(text).stacks() == stacks, text


# The PHH specification's first example (Dwan vs Ivey, 2009), verbatim.
DWAN_IVEY = """
# A big pot between Dwan and Ivey.
variant = "NT"
antes = [500, 500, 500]
blinds_or_straddles = [1000, 2000, 0]
min_bet = 2000
starting_stacks = [1125600, 2000000, 553500]
actions = [
  # Pre-flop
  "d dh p1 Ac2d",  # Ivey
  "d dh p2 ????",  # Antonius
  "d dh p3 7h6h",  # Dwan
  "p3 cbr 7000",  # Dwan
  "p1 cbr 23000",  # Ivey
  "p2 f",  # Antonius
  "p3 cc",  # Dwan
  # Flop
  "d db Jc3d5c",
  "p1 cbr 35000",  # Ivey
  "p3 cc",  # Dwan
  # Turn
  "d db 4h",
  "p1 cbr 90000",  # Ivey
  "p3 cbr 232600",  # Dwan
  "p1 cbr 1067100",  # Ivey
  "p3 cc",  # Dwan
  "p1 sm Ac2d",  # Ivey
  "p3 sm 7h6h",  # Dwan
  # River
  "d db Jh",
]
author = "Juho Kim"
event = "Million Dollar Cash Game"
year = 2009
players = ["Phil Ivey", "Patrik Antonius", "Tom Dwan"]
currency = "USD"
"""


def test_from_phh_spec_example_antes_and_unknown_cards_refused() -> None:
    with pytest.raises(ValueError, match=r"antes = \[500, 500, 500\].*allowed: all zero"):
        from_phh(DWAN_IVEY)
    no_antes = DWAN_IVEY.replace("antes = [500, 500, 500]", "antes = [0, 0, 0]")
    with pytest.raises(ValueError, match=r"'d dh p2 \?\?\?\?'.*unknown cards"):
        from_phh(no_antes)


def test_from_phh_spec_example_with_cards_known() -> None:
    # Without the antes and with made-up cards for Antonius (who folds), PokerKit
    # and this engine end the hand alike: Dwan's seven-high straight beats Ivey's
    # wheel on Jc 3d 5c 4h Jh.
    notation = pytest.importorskip("pokerkit.notation")
    text = DWAN_IVEY.replace("antes = [500, 500, 500]", "antes = [0, 0, 0]").replace("????", "KsKd")
    *_, last = iter(notation.HandHistory.loads(text))
    assert from_phh(text).stacks() == list(last.stacks)


ERRORS = [
    ("variant = 'NT'\nantes = [", "not valid TOML"),
    (
        _toml({k: v for k, v in HEADS_UP.items() if k != "min_bet"}),
        r"lacks the fields \['min_bet'\]",
    ),
    (_heads_up(variant="FT"), "variant 'FT' is not supported; allowed: 'NT'"),
    (_heads_up(antes=[0, 1]), "antes are not supported"),
    (
        _toml(
            HEADS_UP
            | {
                "starting_stacks": [100, 80, 50],
                "antes": [0, 0, 0],
                "blinds_or_straddles": [1, 2, 4],
            }
        ),
        "no straddles",
    ),
    (_heads_up(blinds_or_straddles=[1, 3]), r"allowed: \[E/2, E, 0, ...\]"),
    (_heads_up(blinds_or_straddles=[2, 2]), r"allowed: \[E/2, E, 0, ...\]"),
    (_heads_up(min_bet=4), r"min_bet = 4: allowed: the big blind \(2\)"),
    (_heads_up(starting_stacks=[100]), "a list of 2 to 10 stacks"),
    (_heads_up(starting_stacks=[100] * 11), "a list of 2 to 10 stacks"),
    (_heads_up(starting_stacks=[100, 0]), "allowed: stacks of 1 to 1000000000000000 chips"),
    (_heads_up(starting_stacks=[100, 10**16]), "allowed: stacks of 1 to"),
    (_heads_up(starting_stacks=[100, 80.5]), r"starting_stacks\[1\] = 80.5: allowed: a whole"),
    (_heads_up(starting_stacks=[100, float("inf")]).replace("Infinity", "inf"), "whole number"),
    (_heads_up(antes=[0, 0, 0]), "at most 2 numbers"),
    (_heads_up(actions=42), "a list of strings"),
    (_heads_up_actions((2, "p2 sd")), "'p2 sd': unknown action; allowed: 'd dh pK CARDS'"),
    (_heads_up_actions((2, "p2 cc 4")), "unknown action"),
    (_heads_up_actions((2, "p3 cc")), "unknown player 'p3'; allowed: p1..p2"),
    (_heads_up_actions((2, "x2 cc")), "unknown player 'x2'"),
    (_heads_up_actions((1, "d dh p2 TcXd")), "'d dh p2 TcXd'.*unknown rank"),
    (_heads_up_actions((1, None)), "deals p2 0 hole cards; allowed: two known cards"),
    (_heads_up_actions((1, "d dh p2 Tc9s")), "card 9s dealt twice"),
    (_heads_up_actions((1, "d dh p2 TcJdQd")), "more than two hole cards"),
    (
        _heads_up_actions((2, None), extra=("d dh p2 Tc", "d dh p2 Jd")).replace(
            '"d dh p2 TcJd", ', ""
        ),
        "hole cards dealt after the betting started",
    ),
    (_heads_up_actions((11, "d db 8c5c")), "more than five board cards"),
    (
        _heads_up_actions((2, "p2 f"), (3, None), (4, None), (5, None)),
        "an action after the betting ended",
    ),
    (_heads_up_actions((6, "p1 f")), "a fold with nothing to call"),
    (_heads_up_actions((3, "p1 cbr 3")), r"bet or raise to 3 refused; allowed: \['check'"),
    (_heads_up_actions((7, "p2 cbr 1000")), "bet or raise to 1000 refused"),
    (_heads_up_actions((7, "p2 cbr 1.5")), "bad amount '1.5'"),
    (_heads_up_actions((7, "p2 cbr 10000000000000000000")), "bad amount"),
    (_heads_up_actions((7, "p2 cbr ²")), "bad amount"),
    (_heads_up_actions((7, "p² cc")), "unknown player 'p²'"),
    (_heads_up_actions((2, "p1 cc")), "not p1's turn; allowed: p2 to act"),
    (_heads_up_actions((5, None)), "a bet on the flop before its board cards were dealt"),
    (_heads_up_actions((4, "d db 2h7s9d"), (5, "p2 cc")), r"board dealt too early \(p2 is to act"),
    (
        _heads_up_actions((12, "p1 sm 9s9h"), (13, "p2 sm TcJd")).replace(
            '"p2 cc", "d db Qc"', '"p1 sm 9s9h", "p2 cc", "d db Qc"'
        ),
        "shown while the betting",
    ),
    (
        _heads_up_actions((9, None), (10, None), (11, None), (12, None), (13, None)),
        "ends before the hand is decided: p2 is to act on the flop",
    ),
    (
        _heads_up_actions((11, None), (12, None), (13, None)),
        "reaches showdown with 4 board cards dealt; allowed: all five",
    ),
    (_heads_up_actions((12, "p1 sm 9s9d")), "p1 was dealt 9s9h"),
    (_heads_up_actions((13, "p2 sm")), "p2 mucks a hand that wins 160 chips from other players"),
    (
        _heads_up(finishing_stacks=[100, 80]),
        r"finishing_stacks = \[100, 80\] but the hand ends with \[20, 160\]",
    ),
]


@pytest.mark.parametrize(("text", "match"), ERRORS, ids=[f"{i:02d}" for i in range(len(ERRORS))])
def test_from_phh_refuses_what_it_cannot_express(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_phh(text)


def test_from_phh_muck_of_a_losing_hand_and_matching_finishing_stacks() -> None:
    text = _heads_up_actions((12, "p1 sm"))
    assert from_phh(text + "finishing_stacks = [20, 160]\n").stacks() == HEADS_UP_STACKS
    assert from_phh(_heads_up_actions((12, "p1 sm -"))).stacks() == HEADS_UP_STACKS


def test_from_phh_fold_preflop_and_show_of_a_folded_player() -> None:
    folded = _heads_up_actions((2, "p2 cbr 6"), (3, "p1 f"), *((i, None) for i in range(4, 14)))
    assert from_phh(folded).stacks() == [98, 82]
    with pytest.raises(ValueError, match="the hand was decided before this street"):
        from_phh(folded.replace('"p1 f"', '"p1 f", "d db 2h7s9d"'))
    with pytest.raises(ValueError, match="p1 is not in a showdown"):
        from_phh(folded.replace('"p1 f"', '"p1 f", "p1 sm 9s9h"'))


# PokerKit 0.7.7 counts the first bet or raise of a round as a full raise whatever
# its size, so an all-in for 1 chip over the big blind reopens the raising for the
# players who limped. RULES.md §3 (standard no-limit: a raise is at least the
# previous raise, the big blind pre-flop) does not: p5, who limped, may only call
# or fold. PokerKit plays this hand; from_phh refuses it and says why.
SHORT_ALL_IN_REOPENS_IN_POKERKIT = {
    "variant": "NT",
    "antes": [0, 0, 0, 0, 0],
    "blinds_or_straddles": [1, 2, 0, 0, 0],
    "min_bet": 2,
    "starting_stacks": [3, 246, 167, 196, 57],
    "actions": [
        *("d dh p1 Ks7h", "d dh p2 4s2c", "d dh p3 5sQc", "d dh p4 9cJc", "d dh p5 Ad9d"),
        *("p3 cc", "p4 cc", "p5 cc"),
        "p1 cbr 3",  # all-in, 1 chip over the big blind
        *("p2 cc", "p3 cc", "p4 f"),
        "p5 cbr 5",
        *("p2 cbr 58", "p3 cc", "p5 cc", "d db KhQd7d", "p2 cc", "p3 cbr 2", "p2 cc"),
        *("d db 8s", "p2 cc", "p3 cc", "d db 7s", "p2 cc", "p3 cbr 2", "p2 cc"),
        *("p3 sm 5sQc", "p5 sm Ad9d", "p1 sm Ks7h", "p2 sm 4s2c"),
    ],
}


def test_short_all_in_first_raise_does_not_reopen_unlike_pokerkit() -> None:
    text = _toml(SHORT_ALL_IN_REOPENS_IN_POKERKIT)
    with pytest.raises(
        ValueError,
        match=r"'p5 cbr 5': bet or raise to 5 refused.*\['fold', 'call 1',"
        r" 'all_in \(a call: raising is closed, to 3\)'\]",
    ):
        from_phh(text)
    notation = pytest.importorskip("pokerkit.notation")
    played = [a for _, a in notation.HandHistory.loads(text).state_actions if a]
    assert played == SHORT_ALL_IN_REOPENS_IN_POKERKIT["actions"]  # every action, p5's raise too
