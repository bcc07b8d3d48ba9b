"""Red Dog records: a bet or forfeit record's chips_after and pot_after describe one moment.

The moment chosen (docs/red_dog.md, "Hand history"): when the action is settled,
before any refill ante; the refill of an empty pot is the ``AnteRecord("empty
pot")`` that follows. Issue 12 §4: a winning bet that emptied the pot used to
record the bettor's chips after the refill ante but the pot before it.
"""

from __future__ import annotations

import numpy as np

from poker_env.cards import parse_cards
from poker_env.games.red_dog import (
    I_DECK_POS,
    AnteRecord,
    BetRecord,
    ForfeitRecord,
    RedDogConfig,
    RedDogGame,
)


def rig(game: RedDogGame, hand: str, turned: str) -> int:
    """Give the seat to act ``hand`` and put ``turned`` on top of the stock; its seat."""
    st = game.state
    seat = game.to_act
    cards = parse_cards(hand)
    st.hands[0, seat, : len(cards)] = cards
    st.deck[0, int(st.ints[0, I_DECK_POS])] = parse_cards(turned)[0]
    return seat


def test_a_bet_that_wins_the_whole_pot_records_the_moment_before_the_refill() -> None:
    # Two players, 50 chips, ante 1: after the first ante each holds 49 and the pot 2.
    # The first bettor holds Ks against a turned 2s and bets the whole pot (2):
    # he takes 2 back plus 2 from the pot -> 51 chips, pot 0 (the record's moment);
    # then the empty pot is refilled: both ante 1 -> 50 and 48, pot 2.
    game = RedDogGame(RedDogConfig(num_players=2), rng=np.random.default_rng(0))
    assert game.chips == (49, 49) and game.pot == 2
    seat = rig(game, "Ks 2c 3c 4c 5c", "2s")
    other = 1 - seat
    assert game.legal_actions().max_bet == 2
    rec = game.bet(2)
    assert rec == BetRecord(
        seat=seat,
        amount=2,
        turned=parse_cards("2s")[0],
        won=True,
        shown=(parse_cards("Ks")[0],),
        pot_after=0,
        chips_after=51,
    )
    i = game.history.index(rec)
    assert game.history[i + 1] == AnteRecord("empty pot", 2)
    # The same moment: the bettor's 51 + the other's 49 + the pot's 0 = all 100 chips.
    assert rec.chips_after + 49 + rec.pot_after == 100
    assert game.chips[seat] == 50 and game.chips[other] == 48 and game.pot == 2


def test_a_losing_bet_and_a_forfeit_record_chips_and_pot_after_the_action() -> None:
    # Three players, 50 chips: 49 each, pot 3. The first bettor holds only clubs
    # below the turned Ah: he loses 3 (46 chips, pot 6). The next forfeits one
    # chip: 48, pot 7. No refill, so the records equal the table after each call.
    game = RedDogGame(RedDogConfig(num_players=3), rng=np.random.default_rng(1))
    assert game.pot == 3
    first = rig(game, "2c 3c 4c 5c 7c", "Ah")
    lost = game.bet(3)
    assert (lost.seat, lost.won, lost.chips_after, lost.pot_after) == (first, False, 46, 6)
    assert lost.shown == tuple(parse_cards("2c 3c 4c 5c 7c"))
    second = game.to_act
    forfeit = game.forfeit()
    assert forfeit == ForfeitRecord(seat=second, pot_after=7, chips_after=48)
    assert game.chips[first] == 46 and game.chips[second] == 48 and game.pot == 7


def test_records_match_the_table_before_the_refill_in_random_games() -> None:
    # Every bet and forfeit record against the table read before the action: the
    # actor's chips and the pot move by the amount (RULES.md §2), and when a refill
    # follows, the actor's chips now are chips_after less the ante he paid.
    rng = np.random.default_rng(5)
    refills = 0
    for g in range(40):
        config = RedDogConfig(num_players=int(rng.integers(2, 7)), starting_chips=8, ante=2)
        game = RedDogGame(config, rng=np.random.default_rng(g))
        total = config.num_players * config.starting_chips
        while not game.is_over:
            seat = game.to_act
            chips, pot = game.chips, game.pot
            others = sum(chips) - chips[seat]
            legal = game.legal_actions()
            n = len(game.history)
            if rng.random() < 0.2:
                rec: BetRecord | ForfeitRecord = game.forfeit()
                delta = -1
            else:
                amount = int(rng.integers(legal.min_bet, legal.max_bet + 1))
                rec = game.bet(amount)
                delta = amount if rec.won else -amount
            assert (rec.chips_after, rec.pot_after) == (chips[seat] + delta, pot - delta)
            assert rec.chips_after + others + rec.pot_after == total
            assert game.history[n] is rec
            after = game.history[n + 1 :]
            if after and isinstance(after[0], AnteRecord):
                refills += 1
                assert rec.pot_after == 0 and after[0].reason == "empty pot"
                assert game.chips[seat] == max(rec.chips_after - config.ante, 0)
    assert refills > 10
