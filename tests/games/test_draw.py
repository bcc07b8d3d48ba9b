"""Five-card draw rules (RULES.md §1): one test per clause, plus random-play invariants.

Hands are rigged by writing the cards into the table row and zeroing the random
buffer, so every replacement card comes off the stock in the order written here.
Expected chips are worked out by hand in the comments.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker_env.cards import make_deck, parse_cards
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games import draw_layout as L
from poker_env.games.draw import COMPUTER, HUMAN, DrawAction, DrawConfig, DrawGame, DrawPhase

A = DrawAction


def rig(game: DrawGame, h0: str, h1: str, stock: str = "") -> None:
    """Seat 0 holds h0, seat 1 holds h1; draws come off ``stock`` in order."""
    s = game.state
    c0, c1, cs = parse_cards(h0), parse_cards(h1), parse_cards(stock)
    used = [int(c) for c in (*c0, *c1, *cs)]
    rest = [int(c) for c in make_deck(game.config.deck_name) if int(c) not in used]
    deck = used + rest
    s[L.S_DECK : L.S_DECK + len(deck)] = deck
    s[L.S_HANDS : L.S_HANDS + 5] = c0
    s[L.S_HANDS + 5 : L.S_HANDS + 10] = c1
    s[L.S_DECK_POS] = 10
    game.rand.buf[:] = 0.0
    s[L.S_CURSOR] = 0


def game_with_first(first: int, seed: int = 0, **cfg: object) -> DrawGame:
    """A game whose first hand is opened by seat ``first`` (the coin flip is seeded)."""
    for sd in range(seed, seed + 50):
        g = DrawGame(DrawConfig(**cfg), seed=sd)  # type: ignore[arg-type]
        if g.first_seat == first:
            return g
    raise AssertionError("no seed found")


def names(game: DrawGame) -> set[DrawAction]:
    return {la.action for la in game.legal_actions()}


def bounds(game: DrawGame, action: DrawAction) -> tuple[int, int]:
    la = next(x for x in game.legal_actions() if x.action == action)
    return la.min_amount, la.max_amount


def drop_to(game: DrawGame, winner: int) -> None:
    """End the current hand with ``winner`` taking the pot by the other's DROP."""
    if game.to_act == winner:
        game.act(A.STAY if A.STAY in names(game) else A.DRAW)
    if game.phase == DrawPhase.DRAW:
        game.act(A.DISCARD, 0)
        game.act(A.DISCARD, 0)
        if game.to_act == winner:
            game.act(A.CALL)
            return
    game.act(A.DROP)


# ----- deck, money, ante ---------------------------------------------------------------


@pytest.mark.parametrize(("deck", "lowest_rank"), [(52, 0), ("standard", 0), (32, 5), ("short", 5)])
def test_rule_deck_has_32_or_52_cards(deck: object, lowest_rank: int) -> None:
    cards = set()
    for seed in range(40):
        g = DrawGame(DrawConfig(deck=deck), seed=seed)  # type: ignore[arg-type]
        cards |= {int(c) for c in g.hand(0)} | {int(c) for c in g.hand(1)}
    assert min(cards) // 4 == lowest_rank  # 32-card deck: 7 to A only
    assert max(cards) <= 51


def test_rule_both_start_with_starting_money_and_ante_taken_automatically() -> None:
    g = DrawGame(DrawConfig(starting_money=300, ante=7), seed=1)
    # 300 - 7 ante each, 14 in the pot, five cards each, before anyone acts.
    assert g.stacks == (293, 293)
    assert g.pot == 14
    assert len(set(g.hand(0)) | set(g.hand(1))) == 10
    assert g.phase == DrawPhase.PRE_DRAW and g.to_act == g.first_seat


def test_rule_first_player_alternates_from_hand_to_hand() -> None:
    g = DrawGame(DrawConfig(), seed=3)
    firsts = []
    for _ in range(6):
        firsts.append(g.first_seat)
        drop_to(g, HUMAN if g.hand_no % 2 else COMPUTER)
    assert firsts in ([0, 1, 0, 1, 0, 1], [1, 0, 1, 0, 1, 0])


def test_rule_first_hand_first_player_is_a_coin_flip() -> None:
    firsts = {DrawGame(DrawConfig(), seed=s).first_seat for s in range(30)}
    assert firsts == {0, 1}


# ----- betting before the draw ---------------------------------------------------------


def test_rule_first_player_may_bet_stay_or_drop() -> None:
    g = game_with_first(HUMAN)
    assert names(g) == {A.BET, A.STAY, A.DROP}


def test_rule_drop_loses_the_hand_at_once() -> None:
    g = game_with_first(HUMAN)
    rec = g.act(A.DROP)
    # The ante pot of 10 goes to the computer: 495 + 10 = 505; a new hand starts.
    assert rec.outcome is not None and rec.outcome.winner == COMPUTER and rec.outcome.how == "drop"
    assert rec.outcome.pot == 10
    assert g.stacks == (495 - 5, 505 - 5)
    assert g.hand_no == 2


def test_rule_second_player_after_stay_may_bet_draw_or_drop() -> None:
    g = game_with_first(HUMAN)
    g.act(A.STAY)
    assert g.to_act == COMPUTER
    assert names(g) == {A.BET, A.DRAW, A.DROP}


def test_rule_stay_then_draw_goes_to_the_draw() -> None:
    g = game_with_first(COMPUTER)
    g.act(A.STAY)
    g.act(A.DRAW)
    # Nobody bet: the pot is still the antes, and the first player draws first.
    assert g.phase == DrawPhase.DRAW and g.pot == 10
    assert g.to_act == COMPUTER
    assert names(g) == {A.DISCARD}


def test_rule_draw_facing_a_bet_calls_it() -> None:
    g = game_with_first(HUMAN)
    g.act(A.BET, 20)
    assert names(g) == {A.RAISE, A.DRAW, A.DROP}
    rec = g.act(A.DRAW)
    # 10 antes + 20 + 20 = 50; both at 495 - 20 = 475.
    assert rec.chips_in == 20
    assert g.pot == 50 and g.stacks == (475, 475)
    assert g.phase == DrawPhase.DRAW


def test_rule_raise_puts_in_the_bet_plus_an_amount() -> None:
    g = game_with_first(HUMAN)
    g.act(A.BET, 20)
    rec = g.act(A.RAISE, 15)
    # The computer puts in 20 (the bet) + 15: 495 - 35 = 460, pot 10 + 20 + 35 = 65.
    assert rec.chips_in == 35
    assert g.stacks == (475, 460) and g.pot == 65
    g.act(A.DRAW)  # the human calls the 15
    assert g.stacks == (460, 460) and g.pot == 80


def test_rule_raise_war_stops_at_max_raises() -> None:
    g = game_with_first(HUMAN, max_raises=3)
    g.act(A.BET, 5)
    for _ in range(3):
        assert A.RAISE in names(g)
        g.act(A.RAISE, 5)
    # Bet + 3 raises: the next player may only call (DRAW) or drop.
    assert names(g) == {A.DRAW, A.DROP}
    with pytest.raises(IllegalActionError):
        g.act(A.RAISE, 5)


def test_rule_max_raises_zero_allows_only_the_opening_bet() -> None:
    g = game_with_first(HUMAN, max_raises=0)
    g.act(A.BET, 5)
    assert names(g) == {A.DRAW, A.DROP}


def test_rule_bet_amount_at_least_min_bet_at_most_what_opponent_can_call() -> None:
    g = game_with_first(HUMAN, min_bet=10, wardrobe=())
    # Both hold 495: a bet from 10 up to 495.
    assert bounds(g, A.BET) == (10, 495)
    with pytest.raises(IllegalActionError):
        g.act(A.BET, 9)
    with pytest.raises(IllegalActionError):
        g.act(A.BET, 496)
    g.act(A.BET, 100)
    # Raise beyond the call of 100: at most 495 - 100 = 395 (the human's remaining money).
    assert bounds(g, A.RAISE) == (10, 395)


def test_rule_computer_can_bet_her_wardrobe_value() -> None:
    g = game_with_first(COMPUTER)
    # She holds 495 in money and 6 x 100 in items; the human can only call 495.
    assert bounds(g, A.BET) == (5, 495)
    g.act(A.BET, 400)
    # The human raises by at most his remaining 95; she could cover more with items.
    assert bounds(g, A.RAISE) == (5, 95)


def test_rule_all_in_raise_for_less_than_min_bet() -> None:
    # start 13, ante 5: 8 / 8.
    g = game_with_first(COMPUTER, starting_money=13, ante=5, min_bet=5, wardrobe=())
    # Stacks 8 / 8. The computer bets 5; the human raises by 3 (all-in for 8).
    g.act(A.BET, 5)
    assert bounds(g, A.RAISE) == (3, 3)
    g.act(A.RAISE, 3)
    assert g.stacks == (0, 3)
    # She has 3 left, exactly the call: DRAW puts in 3; pot 10 + 8 + 8 = 26.
    g.act(A.DRAW)
    assert g.stacks == (0, 0) and g.pot == 26


def test_rule_short_all_in_call_with_min_bet_above_opponent_money() -> None:
    # start 13, ante 5: 8 / 8. The human wins the 10 antes: 18 / 8; hand 2 antes: 13 / 3.
    g = game_with_first(HUMAN, starting_money=13, ante=5, min_bet=5, wardrobe=())
    drop_to(g, HUMAN)
    assert g.stacks == (13, 3) and g.pot == 10
    assert g.first_seat == COMPUTER
    g.act(A.STAY)
    # She can call only 3, yet a bet of min_bet 5 is allowed.
    assert bounds(g, A.BET) == (5, 5)
    g.act(A.BET, 5)
    rec = g.act(A.DRAW)
    # She calls all-in for 3; the excess 2 returns to the human: 13 - 3 = 10, pot 10 + 3 + 3.
    assert rec.chips_in == 3 and rec.returned == 2
    assert g.stacks == (10, 0) and g.pot == 16


def test_rule_all_in_player_may_bet_only_what_he_holds() -> None:
    # start 8, ante 5: both hold 3, below min_bet 5: a bet is all one has.
    g = game_with_first(HUMAN, starting_money=8, ante=5, min_bet=5, wardrobe=())
    assert bounds(g, A.BET) == (3, 3)


# ----- the draw -------------------------------------------------------------------------


def test_rule_draw_replaces_marked_cards_first_player_first_count_public() -> None:
    g = game_with_first(HUMAN)
    rig(g, "2c 3d 4h 5s 7c", "Ac Ad Ah Kc Kd", "9s Ts Js")
    g.act(A.STAY)
    g.act(A.DRAW)
    assert g.to_act == HUMAN
    rec = g.act(A.DISCARD, 0b00011)  # slots 0 and 1
    assert rec.cards_drawn == 2
    assert [int(c) for c in g.hand(0)] == [int(c) for c in parse_cards("9s Ts 4h 5s 7c")]
    assert g.cards_drawn(HUMAN) == 2 and g.cards_drawn(COMPUTER) is None
    assert g.to_act == COMPUTER
    g.act(A.DISCARD, 0b10000)
    assert [int(c) for c in g.hand(1)] == [int(c) for c in parse_cards("Ac Ad Ah Kc Js")]
    assert g.phase == DrawPhase.POST_DRAW and g.to_act == HUMAN


def test_rule_draw_amount_must_be_a_five_bit_mask() -> None:
    g = game_with_first(HUMAN)
    g.act(A.STAY)
    g.act(A.DRAW)
    with pytest.raises(IllegalActionError):
        g.act(A.DISCARD, 32)


# ----- betting after the draw, showdown -------------------------------------------------


def to_post_draw(g: DrawGame) -> None:
    g.act(A.STAY)
    g.act(A.DRAW)
    g.act(A.DISCARD, 0)
    g.act(A.DISCARD, 0)


def test_rule_after_the_draw_first_player_may_bet_call_or_drop() -> None:
    g = game_with_first(HUMAN)
    to_post_draw(g)
    assert names(g) == {A.BET, A.CALL, A.DROP}


def test_rule_first_players_call_after_the_draw_shows_down_at_once() -> None:
    g = game_with_first(HUMAN)
    rig(g, "Ac Ad 7h 5s 2c", "Kc Qd 9h 6s 3c")  # pair of aces vs king high
    to_post_draw(g)
    rec = g.act(A.CALL)
    assert rec.outcome is not None and rec.outcome.how == "showdown"
    assert rec.outcome.winner == HUMAN and rec.outcome.pot == 10
    assert rec.outcome.hands == ("Ac Ad 7h 5s 2c", "Kc Qd 9h 6s 3c")


def test_rule_facing_a_bet_after_the_draw_call_puts_it_in_and_shows_down() -> None:
    g = game_with_first(HUMAN)
    rig(g, "Kc Qd 9h 6s 3c", "2c 2d 7h 5s 4c")  # king high loses to a pair of deuces
    to_post_draw(g)
    g.act(A.BET, 30)
    assert names(g) == {A.RAISE, A.CALL, A.DROP}
    rec = g.act(A.CALL)
    # Pot 10 + 30 + 30 = 70 to the computer: 495 + 40 = 535 - next ante 5 = 530.
    assert rec.outcome is not None and rec.outcome.winner == COMPUTER and rec.outcome.pot == 70
    assert g.stacks == (465 - 5, 535 - 5)


def test_rule_drop_after_the_draw_gives_the_pot_to_the_opponent() -> None:
    g = game_with_first(HUMAN)
    to_post_draw(g)
    g.act(A.BET, 30)
    rec = g.act(A.DROP)
    assert rec.outcome is not None and rec.outcome.winner == HUMAN and rec.outcome.pot == 40


def test_rule_tie_leaves_the_pot_and_both_ante_again() -> None:
    g = game_with_first(HUMAN)
    rig(g, "Ac Kd Qh Js 9c", "Ad Kc Qs Jh 9d")  # identical ranks: a tie
    to_post_draw(g)
    rec = g.act(A.CALL)
    assert rec.outcome is not None and rec.outcome.winner is None
    # The 10 stay; both add 5 for hand 2: pot 20, stacks 490.
    assert g.hand_no == 2 and g.pot == 20 and g.stacks == (490, 490)


def test_rule_higher_hand_by_the_high_card_rule() -> None:
    g = game_with_first(HUMAN)
    rig(g, "Ac Ad Kh 9s 3c", "As Ah Kd 9c 2d")  # same pair and kickers down to 3 vs 2
    to_post_draw(g)
    rec = g.act(A.CALL)
    assert rec.outcome is not None and rec.outcome.winner == HUMAN


def test_rule_short_deck_a_7_8_9_10_is_the_lowest_straight() -> None:
    g = game_with_first(HUMAN, deck=32)
    rig(g, "Ac 7d 8h 9s Tc", "7c 8d 9h Ts Jc")  # ten-high straight loses to jack-high
    to_post_draw(g)
    rec = g.act(A.CALL)
    assert rec.outcome is not None and rec.outcome.winner == COMPUTER
    g2 = game_with_first(HUMAN, deck=32)
    rig(g2, "Ac 7d 8h 9s Tc", "Kc Kd Kh 9c 7s")  # but it is a straight: beats trips
    to_post_draw(g2)
    rec = g2.act(A.CALL)
    assert rec.outcome is not None and rec.outcome.winner == HUMAN


def test_rule_option_flush_beats_full_house() -> None:
    hands = ("7c 9c Jc Qc Ac", "8d 8h 8s Kd Kh")  # flush vs full house
    for fbfh, winner in ((False, COMPUTER), (True, HUMAN)):
        g = game_with_first(HUMAN, deck=32, flush_beats_full_house=fbfh)
        rig(g, *hands)
        to_post_draw(g)
        rec = g.act(A.CALL)
        assert rec.outcome is not None and rec.outcome.winner == winner


# ----- match end ------------------------------------------------------------------------


def test_rule_match_ends_when_the_human_cannot_pay_the_ante() -> None:
    g = game_with_first(HUMAN, starting_money=10, ante=5)
    # Hand 1: both ante (5 / 5 left); the human bets 5 all-in, she calls, he loses the
    # showdown: 0 / 20, and he cannot pay the next ante.
    rig(g, "2c 3d 4h 5s 7c", "Ac Ad Ah Kc Kd")
    g.act(A.BET, 5)
    g.act(A.DRAW)
    g.act(A.DISCARD, 0)
    g.act(A.DISCARD, 0)
    rec = g.act(A.CALL)
    assert rec.outcome is not None and rec.outcome.match_winner == COMPUTER
    assert g.is_over and g.match_winner == COMPUTER and g.stacks == (0, 20)
    with pytest.raises(IllegalActionError):
        g.act(A.DROP)


def test_rule_match_ends_when_the_computer_must_stake_with_no_item_left() -> None:
    g = game_with_first(COMPUTER, starting_money=10, ante=5, wardrobe=("hat",), item_value=5)
    # Antes: 5 / 5. She drops: the human 15, she 5; hand 2 antes: 10 / 0.
    g.act(A.DROP)
    assert g.stacks == (10, 0) and g.wardrobe.worn == ("hat",)
    # She drops again: 20 / 0; hand 3's ante: she stakes the hat (5) and pays it.
    drop_to(g, HUMAN)
    assert g.wardrobe.at_stake == ("hat",) and g.stacks == (15, 0)
    # She loses hand 3: the hat is lost; hand 4: no money, no item: the human wins.
    drop_to(g, HUMAN)
    assert g.is_over and g.match_winner == HUMAN
    assert g.wardrobe.lost == ("hat",) and g.stacks == (25, 0)


# ----- clothing stakes ------------------------------------------------------------------


def test_rule_stake_an_item_when_short_of_the_ante() -> None:
    g = game_with_first(COMPUTER, starting_money=5, ante=5)
    g.act(A.DROP)  # she loses the 10-chip pot: 0 money, the human 10
    # Hand 2's ante: she stakes the hat (100) and pays 5 from it.
    assert g.hand_no == 2
    assert g.wardrobe.at_stake == ("hat",)
    assert g.stacks == (5, 95) and g.bank == -100


def test_rule_stake_items_when_short_of_a_call_and_lose_them() -> None:
    g = game_with_first(HUMAN, starting_money=100, ante=5, item_value=50)
    # Hand 1: 95 / 95. The human bets 60, she calls: 35 / 35, pot 130; he wins it.
    rig(g, "Ac Ad Ah Kc Kd", "2c 3d 4h 5s 7c")
    g.act(A.BET, 60)
    g.act(A.DRAW)
    g.act(A.DISCARD, 0)
    g.act(A.DISCARD, 0)
    g.act(A.CALL)
    # Hand 2 antes: 165 - 5 = 160 / 35 - 5 = 30. She acts first.
    assert g.stacks == (160, 30) and g.first_seat == COMPUTER
    rig(g, "Ac Ad Ah Kc Kd", "2c 3d 4h 5s 7c")
    g.act(A.STAY)
    g.act(A.BET, 100)
    g.act(A.DRAW)
    # To call 100 with 30 she stakes the hat and the scarf (+100): 130 - 100 = 30.
    assert g.wardrobe.at_stake == ("hat", "scarf")
    assert g.stacks == (60, 30) and g.pot == 210 and g.bank == -100
    g.act(A.DISCARD, 0)
    g.act(A.DISCARD, 0)
    rec = g.act(A.CALL)
    # She loses: both items are lost; the human 60 + 210 = 270, hand 3 antes: 265 / 25.
    assert rec.outcome is not None and rec.outcome.items_lost == ("hat", "scarf")
    assert g.wardrobe.lost == ("hat", "scarf") and g.wardrobe.at_stake == ()
    assert g.stacks == (265, 25) and g.bank == -100


def test_rule_stake_an_item_for_a_bet_her_policy_chose() -> None:
    g = game_with_first(HUMAN, starting_money=50, ante=5)
    drop_to(g, HUMAN)  # 45 / 45 -> the human wins 10: 55 / 45; hand 2 antes: 50 / 40
    assert g.stacks == (50, 40) and g.first_seat == COMPUTER
    g.act(A.BET, 50)  # 50 > her 40: she stakes the hat, 140 - 50 = 90
    assert g.wardrobe.at_stake == ("hat",) and g.stacks == (50, 90)


def test_rule_stake_redeemed_when_she_wins() -> None:
    g = game_with_first(COMPUTER, starting_money=5, ante=5)
    g.act(A.DROP)  # 0 / 0 -> 10 / 0; hand 2: the human antes 5, she stakes the hat: 5 / 95
    assert g.first_seat == HUMAN
    rig(g, "2c 3d 4h 5s 7c", "Ac Ad Ah Kc Kd")
    to_post_draw(g)
    rec = g.act(A.CALL)
    # She wins the 10: 105, repays the hat's 100: 5; hand 3 antes: 0 / 0, pot 10.
    assert rec.outcome is not None and rec.outcome.items_redeemed == ("hat",)
    assert g.wardrobe.worn[0] == "hat" and g.wardrobe.at_stake == () and g.bank == 0
    assert g.stacks == (0, 0) and g.pot == 10 and g.hand_no == 3


def test_rule_stake_still_pending_after_a_tie() -> None:
    g = game_with_first(COMPUTER, starting_money=5, ante=5)
    g.act(A.DROP)  # hand 2: hat at stake, stacks 5 / 95, pot 10
    rig(g, "Ac Kd Qh Js 9c", "Ad Kc Qs Jh 9d")
    to_post_draw(g)
    rec = g.act(A.CALL)
    # The tie settles nothing: hand 3 antes on top of the 10: 0 / 90, pot 20, hat still at stake.
    assert (
        rec.outcome is not None and rec.outcome.winner is None and rec.outcome.items_redeemed == ()
    )
    assert g.wardrobe.at_stake == ("hat",) and g.bank == -100
    assert g.stacks == (0, 90) and g.pot == 20
    # Hand 3 decides it: she wins 20 (110), redeems the hat (10); the human cannot ante.
    rig(g, "2c 3d 4h 5s 7c", "Ac Ad Ah Kc Kd")
    to_post_draw(g)
    rec = g.act(A.CALL)
    assert rec.outcome is not None and rec.outcome.items_redeemed == ("hat",)
    assert g.is_over and g.match_winner == COMPUTER and g.stacks == (0, 10)


def test_rule_buy_back_only_with_value_plus_reserve() -> None:
    # Reserve 2 x ante = 10: she buys an item of 100 back only with >= 110.
    g = game_with_first(COMPUTER, starting_money=5, ante=5, item_value=100)
    g.act(A.DROP)  # hand 2: hat at stake, 5 / 95
    rig(g, "Ac Ad Ah Kc Kd", "2c 3d 4h 5s 7c")
    to_post_draw(g)
    g.act(A.CALL)  # the human wins 10: 15; the hat is lost; hand 3 antes: 10 / 90
    assert g.wardrobe.lost == ("hat",) and g.stacks == (10, 90)
    # 90 < 110: no buy-back. Hand 3: she bets 10, he calls, she wins the 30.
    assert g.first_seat == COMPUTER
    rig(g, "2c 3d 4h 5s 7c", "Ac Ad Ah Kc Kd")
    g.act(A.BET, 10)
    g.act(A.DRAW)
    g.act(A.DISCARD, 0)
    g.act(A.DISCARD, 0)
    rec = g.act(A.CALL)
    # 80 + 30 = 110 >= 100 + 10: by the default rule she pays 100 to the bank and wears the
    # hat again, keeping 10. The human has 0 and cannot ante: the match is over.
    assert rec.outcome is not None and rec.outcome.winner == COMPUTER
    assert g.wardrobe.lost == () and g.bank == 0
    assert g.is_over and g.stacks == (0, 10)


def test_rule_buy_back_refused_just_below_the_reserve() -> None:
    g = game_with_first(COMPUTER, starting_money=5, ante=5, item_value=100, buyback_reserve=11)
    g.act(A.DROP)
    rig(g, "Ac Ad Ah Kc Kd", "2c 3d 4h 5s 7c")
    to_post_draw(g)
    g.act(A.CALL)  # hat lost; 10 / 90
    rig(g, "2c 3d 4h 5s 7c", "Ac Ad Ah Kc Kd")
    g.act(A.BET, 10)
    g.act(A.DRAW)
    g.act(A.DISCARD, 0)
    g.act(A.DISCARD, 0)
    g.act(A.CALL)  # she has 110 < 100 + 11: keeps the money
    assert g.wardrobe.lost == ("hat",)


def test_rule_buy_back_is_her_decision_in_decide_mode() -> None:
    for seed in range(50):
        g = DrawGame(DrawConfig(starting_money=5, ante=5), seed=seed, buyback="decide")
        if g.first_seat == COMPUTER:
            break
    g.act(A.DROP)
    rig(g, "Ac Ad Ah Kc Kd", "2c 3d 4h 5s 7c")
    to_post_draw(g)
    g.act(A.CALL)
    rig(g, "2c 3d 4h 5s 7c", "Ac Ad Ah Kc Kd")
    g.act(A.BET, 10)
    g.act(A.DRAW)
    g.act(A.DISCARD, 0)
    g.act(A.DISCARD, 0)
    g.act(A.CALL)
    assert g.phase == DrawPhase.BUY_BACK and g.to_act == COMPUTER
    assert names(g) == {A.BUY_BACK, A.SKIP_BUY_BACK}
    rec = g.act(A.BUY_BACK)
    assert rec.item_bought_back == "hat" and g.wardrobe.lost == ()


# ----- errors, config, records ----------------------------------------------------------


def test_illegal_action_names_action_legal_and_phase_and_changes_nothing() -> None:
    g = game_with_first(HUMAN)
    before = g.state.copy()
    with pytest.raises(IllegalActionError) as e:
        g.act(A.CALL)
    msg = str(e.value)
    assert "CALL" in msg and "PRE_DRAW" in msg and "STAY" in msg and "BET(5..495)" in msg
    assert np.array_equal(g.state, before) and g.history == []
    with pytest.raises(IllegalActionError):
        g.act(A.BET, 4)
    assert np.array_equal(g.state, before)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("deck", 40),
        ("starting_money", 0),
        ("ante", -1),
        ("min_bet", 0),
        ("max_raises", -1),
        ("item_value", 0),
        ("buyback_reserve", -5),
        ("wardrobe", ("",)),
        ("flush_beats_full_house", "yes"),
    ],
)
def test_config_rejects_bad_values(field: str, value: object) -> None:
    with pytest.raises(ConfigError) as e:
        DrawConfig(**{field: value})  # type: ignore[arg-type]
    assert e.value.field == field


def test_config_defaults_are_the_rule_book_defaults() -> None:
    c = DrawConfig()
    assert (c.num_cards, c.starting_money, c.ante, c.min_bet, c.max_raises) == (52, 500, 5, 5, 3)
    assert c.wardrobe == ("hat", "scarf", "gloves", "jacket", "shoes", "belt")
    assert (c.item_value, c.reserve, c.flush_beats_full_house) == (100, 10, False)


# ----- invariants under random play -----------------------------------------------------


def random_match(
    seed: int, cfg: DrawConfig, max_actions: int = 400, buyback: str = "rule"
) -> DrawGame:
    rng = np.random.default_rng(seed + 1000)
    g = DrawGame(cfg, seed=seed, buyback=buyback)
    total = 2 * cfg.starting_money
    for _ in range(max_actions):
        if g.is_over:
            break
        legal = g.legal_actions()
        assert legal, "no legal action before the end"
        la = legal[int(rng.integers(len(legal)))]
        amount = int(rng.integers(la.min_amount, la.max_amount + 1))
        g.act(la.action, amount)
        # Every chip accounted for: stacks + pot + bank; items: bank = -value x (staked + lost).
        assert g.chips_total() == total
        w = g.wardrobe
        assert g.bank == -cfg.item_value * (len(w.at_stake) + len(w.lost))
        assert len(w.worn) + len(w.at_stake) + len(w.lost) == len(cfg.wardrobe)
        assert min(g.stacks) >= 0 and g.pot >= 0
    return g


configs = st.builds(
    DrawConfig,
    deck=st.sampled_from([52, 32]),
    starting_money=st.integers(5, 200),
    ante=st.integers(1, 5),
    min_bet=st.integers(1, 20),
    max_raises=st.integers(0, 4),
    item_value=st.integers(1, 150),
    buyback_reserve=st.one_of(st.none(), st.integers(0, 50)),
)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), cfg=configs, buyback=st.sampled_from(["rule", "decide"]))
def test_invariant_chips_conserved_mask_nonempty_and_replay(
    seed: int, cfg: DrawConfig, buyback: str
) -> None:
    g = random_match(seed, cfg, buyback=buyback)
    replay = DrawGame.from_json(g.to_json())
    assert np.array_equal(replay.state, g.state)
    assert replay.history == g.history
    assert json.loads(g.to_json())["seed"] == seed


def test_matches_end_both_ways_under_random_play() -> None:
    winners = set()
    for seed in range(60):
        g = random_match(seed, DrawConfig(starting_money=40, item_value=20), max_actions=3000)
        if g.is_over:
            winners.add(g.match_winner)
    assert winners == {HUMAN, COMPUTER}
