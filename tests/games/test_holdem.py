"""Texas Hold'em engine: one test per clause of RULES.md §3, hand-worked pots, errors.

Every expected number below is worked out by hand from the rule text, not read
back from the engine.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from poker_env.cards import parse_cards
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import HoldemConfig, HoldemGame, replay_json


def rigged_deck(order: list[int], holes: dict[int, str], board: str) -> np.ndarray:
    """A deck that deals ``holes`` (seat -> two cards) and ``board``.

    ``order`` lists the dealt seats from the small blind clockwise: RULES.md §3
    deals one card at a time starting at the small blind.
    """
    n = len(order)
    deck = [-1] * 52
    for i, seat in enumerate(order):
        a, b = parse_cards(holes[seat])
        deck[i] = int(a)
        deck[n + i] = int(b)
    for j, c in enumerate(parse_cards(board)):
        deck[2 * n + j] = int(c)
    rest = [c for c in range(52) if c not in deck]
    return np.array([c if c >= 0 else rest.pop() for c in deck], dtype=np.int64)


def table(stacks: list[int], **cfg: object) -> HoldemGame:
    game = HoldemGame(HoldemConfig(num_seats=len(stacks), **cfg), rng=0)  # type: ignore[arg-type]
    for q, s in enumerate(stacks):
        game.state[K.STACK + q] = s
    return game


# ---------------------------------------------------------------- config


def test_config_validates_each_field() -> None:
    with pytest.raises(ConfigError, match="num_seats"):
        HoldemConfig(num_seats=11)
    with pytest.raises(ConfigError, match="base"):
        HoldemConfig(base=3)
    with pytest.raises(ConfigError, match="rules"):
        HoldemConfig(rules="fixed")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="penalty_to"):
        HoldemConfig(penalty_to="charity")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="max_bet"):
        HoldemConfig(max_bet=1)
    assert HoldemConfig(base=4).stack == 400  # RULES.md §3: starting stack 100 × E


# ---------------------------------------------------------------- deal and blinds


def test_rule_deal_two_hole_cards_one_at_a_time_from_small_blind() -> None:
    game = table([100, 100, 100])
    game.start_hand(deck=np.arange(52), button=0)
    # Button 0, small blind 1, big blind 2: deck cards 0,1,2 (2c 2d 2h) go to
    # seats 1, 2, 0, then cards 3,4,5 (2s 3c 3d) the same way round.
    assert game.hole_cards(1) == "2c 2s"
    assert game.hole_cards(2) == "2d 3c"
    assert game.hole_cards(0) == "2h 3d"
    assert game.board() == ""


def test_rule_blinds_are_half_base_and_base() -> None:
    game = table([100, 100, 100], base=4)
    game.start_hand(button=0)
    assert game.bets() == [0, 2, 4]
    assert game.stacks() == [100, 98, 96]


def test_rule_preflop_others_act_clockwise_after_big_blind() -> None:
    game = table([100] * 5)
    game.start_hand(button=1)  # SB 2, BB 3: seat 4 first, then 0, 1, 2, 3
    seen = []
    for _ in range(5):
        seen.append(game.to_act)
        game.check_or_call()
    assert seen == [4, 0, 1, 2, 3]
    assert game.street == "flop"


def test_rule_round_ends_when_all_in_hand_put_in_the_same_amount() -> None:
    game = table([100] * 3)
    game.start_hand(button=0)
    game.raise_to(10)  # seat 0
    game.check_or_call()  # seat 1
    assert game.street == "preflop"
    game.check_or_call()  # seat 2 (BB) closes the round
    assert game.street == "flop"
    assert game.pot == 30


def test_rule_postflop_first_player_still_in_from_small_blind_seat() -> None:
    game = table([100] * 4)
    game.start_hand(button=0)  # SB 1, BB 2, UTG 3
    game.check_or_call()  # 3
    game.check_or_call()  # 0
    game.fold()  # 1 (SB) folds
    game.check_or_call()  # 2
    assert game.street == "flop"
    assert game.to_act == 2  # SB's seat folded: the next player still in


def test_rule_smallest_bet_after_flop_is_base() -> None:
    game = table([100] * 3, base=4)
    game.start_hand(button=0)
    for _ in range(3):
        game.check_or_call()
    la = game.legal_actions()
    assert la.min_raise_to == 4
    with pytest.raises(IllegalActionError):
        game.raise_to(3)


def test_rule_raise_at_least_previous_raise() -> None:
    game = table([200] * 3)
    game.start_hand(button=0)
    assert game.legal_actions().min_raise_to == 4  # BB 2 + a raise of at least 2
    game.raise_to(10)  # a raise of 8
    assert game.legal_actions().min_raise_to == 18
    with pytest.raises(IllegalActionError):
        game.raise_to(17)
    game.raise_to(30)  # a raise of 20
    assert game.legal_actions().min_raise_to == 50


def test_rule_short_all_in_does_not_reopen_raising_and_the_all_in_is_a_call() -> None:
    # Seats: 0 button (200), 1 SB (200), 2 BB (30). A (0) raises to 20, B (1) calls,
    # C (2) goes all-in to 30, a raise of 10 short of the full 18. Back to A: the
    # raising is closed to him, so (RULES.md §3) his "all-in" is a call of 10, to 30.
    game = table([200, 200, 30], rules="standard")
    game.start_hand(button=0)
    game.raise_to(20)  # seat 0 raises by 18
    game.check_or_call()  # seat 1 calls 20
    rec = game.all_in()  # seat 2: all-in to 30, a raise of 10 < 18
    assert rec.to == 30
    la = game.legal_actions()
    assert la.seat == 0
    assert la.call_amount == 10
    assert la.min_raise_to is None  # already acted: no raise
    assert la.can_all_in and la.all_in_is_call and la.all_in_to == 30
    assert "all_in (a call: raising is closed, to 30)" in la.names()
    before = game.state.copy()
    with pytest.raises(IllegalActionError, match="raise_to"):
        game.raise_to(60)
    assert np.array_equal(before[: K.SCR_LEGAL], game.state[: K.SCR_LEGAL])  # scratch aside
    rec = game.all_in()
    assert (rec.seat, rec.action, rec.amount) == (0, "call", 10)
    assert game.stacks()[0] == 170 and game.bets() == [30, 20, 30]
    la = game.legal_actions()
    assert la.seat == 1 and la.min_raise_to is None  # seat 1 too
    assert la.all_in_is_call and la.all_in_to == 30
    game.all_in()
    assert game.stacks() == [170, 170, 0]
    assert game.street == "flop"
    # The env's mask (poker_env.episode.holdem) leaves the all-in index out there:
    # it would repeat index 1, the call.


def test_rule_short_all_in_lets_a_player_yet_to_act_raise_a_full_raise_over_it() -> None:
    # Seats: 0 button, 1 SB, 2 BB (24), 3 UTG. UTG raises to 10 (by 8), button calls,
    # ... BB all-in to 24 is a full raise (14 >= 8): reopens for everyone.
    game = table([200, 200, 24, 200])
    game.start_hand(button=0)
    game.raise_to(10)  # 3
    game.check_or_call()  # 0
    game.check_or_call()  # 1
    game.all_in()  # 2: to 24, raise of 14
    la = game.legal_actions()
    assert la.seat == 3 and la.min_raise_to == 38


def test_rule_max_bet_caps_raises_but_not_all_in() -> None:
    game = table([200] * 3, max_bet=20)
    game.start_hand(button=0)
    la = game.legal_actions()
    assert la.max_raise_to == 20 and la.can_all_in and la.all_in_to == 200
    with pytest.raises(IllegalActionError):
        game.raise_to(21)
    game.raise_to(20)
    la = game.legal_actions()
    assert la.min_raise_to is None  # nothing left under the cap
    assert la.can_all_in


# ---------------------------------------------------------------- heads-up


@pytest.mark.parametrize("rules", ["seed", "standard"])
def test_rule_heads_up_dealer_posts_small_blind_and_acts_first_preflop(rules: str) -> None:
    game = table([100, 100], rules=rules)
    game.start_hand(button=1)
    assert game.small_blind == 1 and game.big_blind == 0
    assert game.bets() == [2, 1]
    assert game.to_act == 1


@pytest.mark.parametrize(("rules", "first"), [("seed", 1), ("standard", 0)])
def test_rule_heads_up_postflop_order_by_profile(rules: str, first: int) -> None:
    # seed: the small blind's seat (the dealer) first; standard: the big blind first.
    game = table([100, 100], rules=rules)
    game.start_hand(button=1)
    game.check_or_call()
    game.check_or_call()
    assert game.street == "flop"
    assert game.to_act == first


# ---------------------------------------------------------------- all-in, pots


def test_rule_three_all_ins_main_pot_and_two_side_pots() -> None:
    # A(0)=50, B(1)=100, C(2)=200 all-in, D(3)=300 calls. Button 3: SB 0, BB 1, C first.
    # Pots: main 4 × 50 = 200 (all), side 3 × 50 = 150 (B, C, D), side 2 × 100 = 200 (C, D).
    # Hands on 2c 7d 9h Qs 4c: A trips queens > B trips nines > C aces > D king high.
    game = table([50, 100, 200, 300])
    holes = {0: "Qh Qd", 1: "9c 9d", 2: "Ac Ad", 3: "Kc 5d"}
    game.start_hand(deck=rigged_deck([0, 1, 2, 3], holes, "2c 7d 9h Qs 4c"), button=3)
    assert game.to_act == 2
    game.all_in()  # C to 200
    game.check_or_call()  # D calls 200
    game.all_in()  # A calls all-in for 50
    game.all_in()  # B calls all-in for 100
    assert game.is_hand_over
    assert game.payouts == [200, 150, 200, 0]
    assert game.stacks() == [200, 150, 200, 100]


def test_rule_player_wins_at_most_what_each_opponent_matched() -> None:
    # Heads-up, the short stack (20) wins: he takes 2 × 20; the rest returns to the caller.
    game = table([20, 100])
    game.start_hand(deck=rigged_deck([1, 0], {0: "As Ah", 1: "7c 2d"}, "Kd 9s 5h 4c 3s"), button=1)
    game.all_in()  # seat 1 (button, SB) shoves 100
    game.check_or_call()  # seat 0 calls all-in for 20
    assert game.stacks() == [40, 80]


def test_rule_split_pot_odd_chip_to_first_winner_clockwise_from_dealer() -> None:
    # Button 0, SB 1, BB 2. Button calls 2, SB folds (1), BB checks: pot 5.
    # Royal flush on the board: seats 0 and 2 split; 2 chips each, the odd chip to
    # the first of them clockwise from the dealer: seat 2 (the dealer comes last).
    game = table([100, 100, 100])
    holes = {0: "2c 3d", 1: "4h 5c", 2: "2d 3c"}
    game.start_hand(deck=rigged_deck([1, 2, 0], holes, "As Ks Qs Js Ts"), button=0)
    game.check_or_call()
    game.fold()
    game.check_or_call()
    for _ in range(6):
        game.check_or_call()
    assert game.is_hand_over
    assert game.payouts == [2, 0, 3]
    assert game.stacks() == [100, 99, 101]


def test_rule_seed_skips_later_betting_after_called_all_in() -> None:
    # Three players; seat 0 all-in preflop, 1 and 2 call with chips behind: the
    # seed profile deals flop, turn and river with no betting.
    game = table([50, 200, 200])
    game.start_hand(button=0)
    game.all_in()
    game.check_or_call()
    game.check_or_call()
    assert game.is_hand_over
    assert game.board().count(" ") == 4


def test_rule_standard_keeps_betting_among_players_with_chips() -> None:
    game = table([50, 200, 200], rules="standard")
    game.start_hand(button=0)
    game.all_in()
    game.check_or_call()
    game.check_or_call()
    assert not game.is_hand_over
    assert game.street == "flop" and game.to_act == 1


def test_rule_all_in_always_possible_even_for_less_than_call() -> None:
    game = table([200, 200, 10])
    game.start_hand(button=0)
    game.raise_to(50)
    game.fold()
    la = game.legal_actions()
    assert la.seat == 2 and la.can_all_in and la.call_amount == 8
    assert la.all_in_to == 10 and not la.all_in_is_call  # a true all-in, for less
    rec = game.all_in()
    assert (rec.action, rec.amount, rec.to) == ("all_in", 8, 10)


def test_rule_all_in_is_a_call_when_nobody_left_could_answer_a_raise() -> None:
    # Heads-up: seat 0 dealer and SB (200), seat 1 BB (50). 0 raises to 10, 1 goes
    # all-in to 50 (a full raise of 40: the raising is open again for 0). But 1 has
    # nothing behind, so nobody could answer a raise: 0's "all-in" is a call of 40.
    game = table([200, 50])
    game.start_hand(button=0)
    game.raise_to(10)
    game.all_in()
    la = game.legal_actions()
    assert la.seat == 0 and la.call_amount == 40 and la.min_raise_to is None
    assert la.can_all_in and la.all_in_is_call and la.all_in_to == 50
    rec = game.all_in()
    assert (rec.action, rec.amount) == ("call", 40)
    assert game.is_hand_over and game.total_chips() == 250
    assert game.committed() == [50, 50]  # not his whole 200


def test_rule_all_in_is_a_call_when_every_opponent_is_all_in() -> None:
    # Three seats: 0 button (200), 1 SB (30), 2 BB (40). 0 raises to 10 (by 8), 1 goes
    # all-in to 30 (a full raise of 20: reopens), 2 all-in to 40 (short, +10). Back to
    # 0: raising is open by the full raise, but both opponents are all-in: a call of 30.
    game = table([200, 30, 40])
    game.start_hand(button=0)
    game.raise_to(10)
    game.all_in()
    game.all_in()
    la = game.legal_actions()
    assert la.seat == 0 and la.call_amount == 30
    assert la.all_in_is_call and la.all_in_to == 40
    rec = game.all_in()
    assert (rec.action, rec.amount) == ("call", 30)
    assert game.is_hand_over and game.total_chips() == 270
    assert game.committed() == [40, 30, 40]  # he put in 40 only, never his whole 200


def test_rule_all_in_raises_where_the_raising_is_open() -> None:
    # The counter-case: before anyone is all-in the all-in is a real raise, to the stack.
    game = table([200, 30, 40])
    game.start_hand(button=0)
    la = game.legal_actions()
    assert la.can_all_in and not la.all_in_is_call and la.all_in_to == 200
    rec = game.all_in()
    assert (rec.action, rec.amount, rec.to) == ("all_in", 200, 200)


def test_env_mask_leaves_out_the_all_in_that_is_a_call() -> None:
    # poker_env.episode.holdem.action_mask: the all-in index (last) is shown only
    # where it raises; where it would call it is left out (index 1 is that call).
    from poker_env.episode import holdem as E

    fractions = np.array(E.DEFAULT_FRACTIONS)
    na = E.num_actions(len(fractions))
    mask = np.zeros(na, dtype=np.int8)
    amounts = np.zeros(na, dtype=np.int64)
    game = table([200, 200, 30], rules="standard")
    game.start_hand(button=0)
    E.action_mask(game.state, fractions, mask, amounts)
    assert mask[na - 1] == 1 and amounts[na - 1] == 200  # open: all-in raises to 200
    game.raise_to(20)
    game.check_or_call()
    game.all_in()  # short all-in to 30: the raising is closed to seat 0
    E.action_mask(game.state, fractions, mask, amounts)
    assert mask.tolist() == [1, 1] + [0] * (na - 2)  # fold or call only
    before = game.state.copy()
    assert E.apply_index(game.state, na - 1, fractions, game._tables) == E.ILLEGAL
    assert np.array_equal(before[: K.SCR_LEGAL], game.state[: K.SCR_LEGAL])
    assert E.apply_index(game.state, 1, fractions, game._tables) == K.OK  # the call
    assert game.bets()[0] == 30


# ---------------------------------------------------------------- showdown


def test_rule_showdown_from_dealer_clockwise_with_names() -> None:
    holes = {0: "Ah Kh", 1: "7c 7d", 2: "2s 3s"}
    game = table([100, 100, 100])
    game.start_hand(deck=rigged_deck([2, 0, 1], holes, "Qh Jh Th 7s 2d"), button=1)
    while not game.is_hand_over:
        game.check_or_call()
    shown = game.showdown()
    assert [r.seat for r in shown] == [1, 2, 0]
    assert shown[2].name == "Royal Flush"
    assert shown[0].name == "Three of a Kind"
    assert game.payouts == [6, 0, 0]


# ---------------------------------------------------------------- button


def test_rule_button_moves_one_seat_clockwise_when_table_unchanged() -> None:
    game = HoldemGame(HoldemConfig(num_seats=4), rng=3)
    first = game.start_hand()
    buttons = [first]
    for _ in range(5):
        while not game.is_hand_over:
            game.fold() if game.can_fold() else game.check_or_call()
        buttons.append(game.start_hand())
    assert buttons == [(first + i) % 4 for i in range(6)]


def test_rule_button_random_for_first_hand_and_after_join() -> None:
    firsts = set()
    after_join = set()
    for seed in range(40):
        game = HoldemGame(HoldemConfig(num_seats=5), rng=seed, num_players=4)
        b = game.start_hand()
        firsts.add(b)
        while not game.is_hand_over:
            game.fold() if game.can_fold() else game.check_or_call()
        game.join(4)
        after_join.add(game.start_hand())
    assert firsts == {0, 1, 2, 3}
    assert after_join == {0, 1, 2, 3, 4}  # not just "one seat clockwise"


def test_next_button_matches_a_plain_reading_of_the_rule() -> None:
    # RULES.md §3, written out plainly: among seated players with chips, the
    # (draw % count)-th in seat order when the table changed (or for the first hand),
    # else the first one clockwise after the previous button (itself last).
    rng = np.random.default_rng(7)
    for _ in range(3000):
        n = int(rng.integers(2, 11))
        s = HoldemConfig(num_seats=n).new_state()
        statuses = rng.choice([K.EMPTY, K.SEATED, K.SEATED, K.SEATED], n)
        stacks = rng.choice([0, 5, 100], n)
        s[K.STATUS : K.STATUS + n] = statuses
        s[K.STACK : K.STACK + n] = stacks
        s[K.BUTTON] = prev = int(rng.integers(-1, n))
        changed = bool(rng.integers(2))
        draw = int(rng.integers(0, 1 << 30))
        eligible = [q for q in range(n) if statuses[q] == K.SEATED and stacks[q] > 0]
        if not eligible:
            want = -1
        elif changed or prev < 0:
            want = eligible[draw % len(eligible)]
        else:
            want = next(q for q in [(prev + i) % n for i in range(1, n + 1)] if q in eligible)
        assert K.next_button(s, changed, draw) == want


def test_seats_beyond_the_table_keep_their_empty_values_through_play() -> None:
    # The deal resets only the table's seats: seats n..MAX_SEATS must keep what
    # new_table gave them, through hands with folds, all-ins, showdowns and escapes.
    rng = np.random.default_rng(11)
    hands = 0
    for n in (2, 4, 7):
        game = HoldemGame(HoldemConfig(num_seats=n, starting_stack=100), rng=n)
        fresh = HoldemConfig(num_seats=n, starting_stack=100).new_state()
        blocks = [K.STACK, K.BET, K.COMMIT, K.STATUS, K.ACTED, K.WON, K.START_STACK, K.RANK]
        for _ in range(60):
            try:
                game.start_hand()
            except IllegalActionError:  # fewer than two players with chips left
                break
            hands += 1
            while not game.is_hand_over:
                r = rng.random()
                if r < 0.02 and n > 2:
                    game.leave(int(game.state[K.TO_ACT]))
                elif r < 0.06 and game.can_all_in():
                    game.all_in()
                elif game.can_fold() and r < 0.3:
                    game.fold()
                else:
                    game.check_or_call()
            for b in blocks:
                assert game.state[b + n : b + K.MAX_SEATS].tolist() == (
                    fresh[b + n : b + K.MAX_SEATS].tolist()
                )
            hole = slice(K.HOLE + 2 * n, K.HOLE + 2 * K.MAX_SEATS)
            assert game.state[hole].tolist() == fresh[hole].tolist()
    assert hands >= 30


# ---------------------------------------------------------------- escape


def test_rule_escape_by_big_blind_role_passes_and_penalty_floored_at_zero() -> None:
    # Seats 0 button, 1 SB, 2 BB (stack 5), 3 UTG. BB leaves: his 2 chips stay in the
    # pot, the penalty 10 × 2 = 20 is floored at his 3 chips; the role goes to seat 3.
    game = table([100, 100, 5, 100])
    game.start_hand(button=0)
    rec = game.leave(2)
    assert rec.amount == 3
    assert game.stacks()[2] == 0
    assert game.bank == 3
    assert game.big_blind == 3
    assert game.pot == 3  # SB 1 + BB 2 stay
    assert game.total_chips() == 305


# RULES.md §3, the escape paragraph: the roles shift one seat clockwise over the
# players still seated, they do not skip. Its examples: six seats, dealer 0, small
# blind 1, big blind 2.


def _six_seats() -> HoldemGame:
    game = table([100] * 6)
    game.start_hand(button=0)
    assert game.roles() == (0, 1, 2)
    return game


def test_escape_role_shift_dealer_leaves() -> None:
    # "seat 0 leaves -> dealer 1, small blind 2, big blind 3"
    game = _six_seats()
    rec = game.leave(0)
    assert game.roles() == (1, 2, 3)
    assert rec.roles == (1, 2, 3)


def test_escape_role_shift_small_blind_leaves() -> None:
    # "seat 1 leaves -> dealer 0, small blind 2, big blind 3"
    game = _six_seats()
    game.leave(1)
    assert game.roles() == (0, 2, 3)


def test_escape_role_shift_big_blind_leaves() -> None:
    # "seat 2 leaves -> big blind 3"
    game = _six_seats()
    game.leave(2)
    assert game.roles() == (0, 1, 3)


def test_escape_role_shift_leaver_without_a_role_changes_no_role() -> None:
    for leaver in (3, 4, 5):
        game = _six_seats()
        game.leave(leaver)
        assert game.roles() == (0, 1, 2)


def test_escape_role_shift_passes_over_empty_and_busted_seats() -> None:
    # Eight seats: seat 2 empty, seat 5 busted (seated with no chips: not dealt in).
    # Players 0, 1, 3, 4, 6, 7. Button 1: small blind 3, big blind 4.
    def game_at_button_1() -> HoldemGame:
        game = table([100] * 8)
        game.remove(2)
        game.state[K.STACK + 5] = 0
        game.start_hand(button=1)
        assert game.roles() == (1, 3, 4)
        return game

    game = game_at_button_1()
    game.leave(1)  # dealer 1 -> 3, whose SB -> 4, whose BB -> 6 (5 is busted)
    assert game.roles() == (3, 4, 6)
    game = game_at_button_1()
    game.leave(3)  # SB 3 -> 4, whose BB -> 6
    assert game.roles() == (1, 4, 6)
    game = game_at_button_1()
    game.leave(4)  # BB 4 -> 6
    assert game.roles() == (1, 3, 6)
    game = table([100] * 8)
    game.remove(2)
    game.state[K.STACK + 5] = 0
    game.start_hand(button=0)  # small blind 1, big blind 3 (2 is empty)
    game.leave(0)  # dealer 0 -> 1, whose SB -> 3, whose BB -> 4
    assert game.roles() == (1, 3, 4)


def test_escape_role_shift_to_a_folded_player() -> None:
    # A player who folded is still seated: he takes a role passed on to him.
    game = _six_seats()
    game.fold()  # seat 3
    game.leave(2)
    assert game.roles() == (0, 1, 3)


def test_escape_role_shift_two_leavers_in_one_hand() -> None:
    game = _six_seats()
    game.leave(0)
    assert game.roles() == (1, 2, 3)
    game.leave(2)  # now the small blind: SB 2 -> 3, whose BB -> 4
    assert game.roles() == (1, 3, 4)
    game.leave(5)  # no role
    assert game.roles() == (1, 3, 4)
    # Seated now: 1, 3, 4. Dealer 1 leaves: dealer -> 3, whose SB -> 4, whose BB -> 3
    # (the next still seated after 4). Two players left (3 and 4): heads-up, where the
    # dealer posts the small blind, so 3 holds dealer and small blind, 4 the big blind.
    game.leave(1)
    assert game.roles() == (3, 3, 4)


@pytest.mark.parametrize(
    ("leaver", "roles"),
    [
        # Three players, dealer 0, small blind 1, big blind 2: every player holds a
        # role, so the shift goes round the table: each role moves to the next
        # player still seated after its holder. Then two are left: heads-up, where
        # the dealer posts the small blind (RULES.md §3), so the dealer's role
        # decides and the other player holds the big blind.
        (0, (1, 1, 2)),  # D 0 -> 1 (SB 1 -> 2, BB 2 -> 1): dealer 1 (+SB), BB 2
        (1, (2, 2, 0)),  # SB 1 -> 2, BB 2 -> 0, D 0 -> 2: dealer 2 (+SB), BB 0
        (2, (1, 1, 0)),  # BB 2 -> 0, D 0 -> 1, SB 1 -> 0: dealer 1 (+SB), BB 0
    ],
)
def test_escape_role_shift_three_players_leaves_heads_up(
    leaver: int, roles: tuple[int, int, int]
) -> None:
    game = table([100] * 3)
    game.start_hand(button=0)
    game.leave(leaver)
    assert game.roles() == roles
    assert game.state[K.HEADS_UP] == 1


@pytest.mark.parametrize(("rules", "first"), [("seed", 1), ("standard", 2)])
def test_escape_three_players_to_heads_up_order_after_the_flop(rules: str, first: int) -> None:
    # Dealer 0 leaves before acting: dealer 1 (+SB), BB 2. Seat 1 completes the small
    # blind, seat 2 (who posted the big blind) checks his option. After the flop the
    # profile's heads-up order holds: seed, the small blind's seat (1); standard,
    # the big blind (2).
    game = table([100] * 3, rules=rules)
    game.start_hand(button=0)
    game.leave(0)
    assert game.to_act == 1
    game.check_or_call()
    assert game.to_act == 2
    game.check_or_call()
    assert game.street == "flop" and game.to_act == first


def test_escape_heads_up_leaver_ends_the_hand_and_the_last_player_holds_every_role() -> None:
    # Two players: dealer 0 posts the small blind (1), seat 1 the big blind (2).
    # Seat 1 leaves: his 2 stay in the pot, 20 penalty burned; seat 0 takes 3.
    game = table([100, 100])
    game.start_hand(button=0)
    assert game.roles() == (0, 0, 1)
    game.leave(1)
    assert game.is_hand_over
    assert game.roles() == (0, 0, 0)
    assert game.stacks() == [102, 78] and game.bank == 20


def test_escape_role_shift_decides_who_acts_first_after_the_flop() -> None:
    # Six seats, dealer 0, SB 1, BB 2. Seats 3, 4, 5 call 2; dealer 0 leaves (to act):
    # roles 1, 2, 3. The blinds posted stay: seat 1 owes 1 and calls; seat 2 posted
    # the big blind and keeps his option (though he holds the small blind now);
    # seat 3 holds the big blind now but has acted: no second turn. After the flop
    # the new small blind, seat 2, acts first (without the shift, seat 1 would).
    game = _six_seats()
    for q in (3, 4, 5):
        assert game.to_act == q
        game.check_or_call()
    assert game.to_act == 0
    game.leave(0)
    assert game.roles() == (1, 2, 3)
    assert game.to_act == 1 and game.legal_actions().call_amount == 1
    game.check_or_call()
    assert game.to_act == 2 and game.legal_actions().call_amount == 0
    assert game.legal_actions().min_raise_to == 4  # his option: he may raise
    game.check_or_call()
    assert game.street == "flop"
    assert game.committed() == [0, 2, 2, 2, 2, 2]
    order = []
    for _ in range(5):
        order.append(game.to_act)
        game.check_or_call()
    assert order == [2, 3, 4, 5, 1]
    assert game.street == "turn" and game.to_act == 2


def test_escape_of_the_big_blind_poster_leaves_his_blind_in_the_pot() -> None:
    # Seat 2 (BB) leaves at once: the big blind goes to seat 3, who posts nothing;
    # the bet to call stays 2. Nobody gets a big blind's option (seat 2 was the one
    # who posted it), so the round ends with the small blind's call.
    game = _six_seats()
    game.leave(2)
    assert game.roles() == (0, 1, 3)
    assert game.pot == 3 and game.to_act == 3 and game.legal_actions().call_amount == 2
    for q in (3, 4, 5, 0, 1):
        assert game.to_act == q
        game.check_or_call()
    assert game.street == "flop" and game.to_act == 1


def test_escape_role_shift_moves_the_odd_chips_and_the_showdown_order() -> None:
    # Four seats, dealer 0, SB 1, BB 2. Everyone calls 2 (pot 8); on the flop the
    # dealer leaves: roles 1, 2, 3; his 2 chips stay. The turn starts at the new
    # small blind, 2. The board is a royal flush: 1, 2 and 3 split 8, share 2, the
    # 2 odd chips to the first of them clockwise from the dealer 1, that is seat 2.
    # Hands are shown from the dealer 1: 1, 2, 3.
    holes = {0: "4c 5d", 1: "2c 3d", 2: "2d 3c", 3: "2h 3h"}
    game = table([100] * 4)
    game.start_hand(deck=rigged_deck([1, 2, 3, 0], holes, "As Ks Qs Js Ts"), button=0)
    for _ in range(4):
        game.check_or_call()
    assert game.street == "flop" and game.to_act == 1
    game.leave(0)
    assert game.roles() == (1, 2, 3)
    for _ in range(3):
        game.check_or_call()
    assert game.street == "turn" and game.to_act == 2
    while not game.is_hand_over:
        game.check_or_call()
    assert [r.seat for r in game.showdown()] == [1, 2, 3]
    assert game.payouts == [0, 2, 4, 2]


def test_escape_next_hand_button_is_drawn_at_random_again() -> None:
    # RULES.md §3: anyone left -> the next button is random, not one seat clockwise
    # from the dealer the shift gave (seat 1 here, which would give 2 every time).
    buttons = set()
    for seed in range(40):
        game = HoldemGame(HoldemConfig(num_seats=5), rng=seed)
        game.start_hand(button=0)
        game.leave(0)
        assert game.button == 1
        while not game.is_hand_over:
            game.fold() if game.can_fold() else game.check_or_call()
        buttons.add(game.start_hand())
    assert buttons == {1, 2, 3, 4}


def test_escape_record_carries_the_roles_and_replay_checks_them() -> None:
    game = _six_seats()
    game.leave(0)
    game.leave(2)
    while not game.is_hand_over:
        game.check_or_call()
    record = json.loads(game.to_json())
    leaves = [a for a in record["actions"] if a["action"] == "leave"]
    assert [a["roles"] for a in leaves] == [[1, 2, 3], [1, 3, 4]]
    assert all("roles" not in a for a in record["actions"] if a["action"] != "leave")
    again = replay_json(game.to_json())
    assert again.roles() == (1, 3, 4) and again.stacks() == game.stacks()
    assert again.history() == game.history()
    leaves[1]["roles"] = [1, 2, 4]  # what the old "skip" rule would give
    with pytest.raises(ValueError, match="roles"):
        replay_json(json.dumps(record))


def _reference_roles(
    n: int, seated: set[int], roles: tuple[int, int, int], leaver: int
) -> tuple[int, int, int]:
    """RULES.md §3's shift, written out plainly over lists (``seated``: after leaving)."""

    def next_seated(q: int) -> int:
        return next(r for r in ((q + i) % n for i in range(1, n + 1)) if r in seated)

    new = list(roles)
    giver, reached = leaver, {leaver}
    # The giver's roles (as held before the escape) go to the next player still
    # seated; if he held roles, his go on; until one who held none (or one reached).
    while giver in roles:
        taker = next_seated(giver)
        for k in range(3):
            if roles[k] == giver:
                new[k] = taker
        if taker in reached:
            break
        reached.add(taker)
        giver = taker
    if len(seated) <= 2:  # heads-up: the dealer posts the small blind
        others = sorted(seated - {new[0]})
        new[1], new[2] = new[0], (others[0] if others else new[0])
    return new[0], new[1], new[2]


def test_escape_role_shift_matches_a_plain_reference_over_random_tables() -> None:
    # Random tables (2..10 seats, empty and busted seats), random play with many
    # escapes; after each escape the roles against the reference above, and where
    # three or more remain, against the shape the rule keeps: dealer, small blind
    # and big blind on consecutive players still seated. At the start of each later
    # round, the first to act is the first player still in from the small blind's
    # seat (standard heads-up: the big blind's). A mutation giving the old "skip"
    # rule fails this test.
    rng = np.random.default_rng(2024)
    escapes = heads_up = 0
    for trial in range(600):
        n = int(rng.integers(2, 11))
        rules = "seed" if trial % 2 else "standard"
        game = HoldemGame(HoldemConfig(num_seats=n, rules=rules), rng=trial)  # type: ignore[arg-type]
        for q in range(n):
            u = rng.random()
            if u < 0.15:
                game.remove(q)
            elif u < 0.25:
                game.state[K.STACK + q] = 0  # busted: seated, not dealt in
        players = [q for q in range(n) if game._status(q) == K.SEATED and game.stacks()[q] > 0]
        if len(players) < 2:
            continue
        game.start_hand(button=int(rng.choice(players)))
        street = game.street
        while not game.is_hand_over:
            seated = {q for q in range(n) if game.can_leave(q)}
            if rng.random() < 0.3:
                leaver = int(rng.choice(sorted(seated)))
                want = _reference_roles(n, seated - {leaver}, game.roles(), leaver)
                game.leave(leaver)
                escapes += 1
                assert game.roles() == want, (n, sorted(seated), leaver)
                rest = sorted(seated - {leaver})
                if len(rest) >= 3:
                    d, sb, bb = want
                    nxt = {q: rest[(i + 1) % len(rest)] for i, q in enumerate(rest)}
                    assert (nxt[d], nxt[sb]) == (sb, bb)
                elif len(rest) == 2:
                    heads_up += 1
            elif game.can_fold() and rng.random() < 0.25:
                game.fold()
            else:
                game.check_or_call()
            if game.phase == "betting" and game.street != street:
                street = game.street
                start = game.small_blind
                if rules == "standard" and game.state[K.HEADS_UP] == 1:
                    start = game.big_blind
                order = [(start + i) % n for i in range(n)]
                assert game.to_act == next(q for q in order if game._status(q) == K.ACTIVE)
    assert escapes > 500 and heads_up > 50


def test_rule_escape_penalty_to_pot_goes_to_the_winner() -> None:
    game = table([100] * 3, penalty_to="pot")
    game.start_hand(button=0)
    game.leave(0)  # button leaves before acting: 20 into the pot
    game.fold()  # SB folds: BB takes 1 + 2 + 20
    assert game.is_hand_over
    assert game.payouts == [0, 0, 23]
    assert game.stacks() == [80, 99, 121]


def test_rule_escape_by_player_to_act_passes_the_turn() -> None:
    game = table([100] * 3)
    game.start_hand(button=0)
    assert game.to_act == 0
    game.leave(0)
    assert game.to_act == 1
    game.check_or_call()
    assert game.to_act == 2  # the big blind keeps his option
    game.check_or_call()
    assert game.street == "flop"


# ---------------------------------------------------------------- errors, history


def test_illegal_action_names_action_legal_actions_and_street_and_changes_nothing() -> None:
    game = table([100] * 3)
    game.start_hand(button=0)
    game.check_or_call()
    game.check_or_call()
    before = game.state.copy()
    with pytest.raises(IllegalActionError) as err:
        game.fold()  # BB has nothing to call
    msg = str(err.value)
    assert "fold" in msg and "preflop" in msg and "check" in msg and "raise_to 4..100" in msg
    assert np.array_equal(before[: K.SCR_LEGAL], game.state[: K.SCR_LEGAL])  # scratch aside


def test_replay_json_gives_same_stacks() -> None:
    game = HoldemGame(HoldemConfig(num_seats=4), rng=5)
    game.start_hand()
    game.raise_to(8)
    game.check_or_call()
    game.leave(3) if game.can_leave(3) else None
    while not game.is_hand_over:
        game.check_or_call()
    again = replay_json(game.to_json())
    assert again.stacks() == game.stacks()
    assert again.history() == game.history()


def test_rule_short_all_ins_adding_up_to_a_full_raise_reopen_raising() -> None:
    # Button 4: SB 0, BB 1, seat 2 first. Seat 2 raises to 20 (by 18); 3 and 4 call.
    # SB all-in to 28 (+8, short); BB all-in to 45 (+17, short too). Seat 2 acted at 20
    # and now faces 25 more, at least a full raise of 18: raising reopens for him.
    game = table([400] * 5, rules="standard")
    game.start_hand(button=4)
    game.raise_to(20)  # seat 2
    game.check_or_call()  # 3
    game.check_or_call()  # 4
    game.state[K.STACK + 0] = 27  # the SB (1 in) can reach 28
    game.all_in()
    la = game.legal_actions()
    assert la.seat == 1 and la.min_raise_to == 46  # BB has not acted: 28 + 18
    game.state[K.STACK + 1] = 43  # the BB (2 in) can reach exactly 45
    game.all_in()
    la = game.legal_actions()
    assert la.seat == 2 and la.min_raise_to == 63  # reopened: 45 + the last full raise 18


def test_rule_consecutive_pots_with_the_same_winners_split_once() -> None:
    # Seats 0 button, 1 SB (folds after posting 1), 2 BB (3 chips), 3 and 4; 100 each.
    # Seat 3 shoves, 4 and 0 call, 1 folds, 2 calls all-in for 3. Board 9-T-J-Q-K:
    # seats 0 and 3 hold aces (A-high straight), 2 and 4 play the K-high straight.
    # Main pot 1 + 4 × 3 = 13 and side pot 3 × 97 = 291 are both won by 0 and 3:
    # split once, 304 / 2 = 152 each (split apart, seat 3 would get both odd chips).
    game = table([100, 100, 3, 100, 100])
    holes = {0: "Ac 2d", 1: "4h 4c", 2: "5c 6d", 3: "Ad 2h", 4: "3c 4d"}
    game.start_hand(deck=rigged_deck([1, 2, 3, 4, 0], holes, "9s Ts Jh Qd Kc"), button=0)
    assert game.to_act == 3
    game.all_in()
    game.check_or_call()  # 4
    game.check_or_call()  # 0
    game.fold()  # 1
    game.check_or_call()  # 2: all-in for 1 more
    assert game.is_hand_over
    assert game.payouts == [152, 0, 0, 152, 0]
