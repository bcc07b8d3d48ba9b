"""Red Dog rules (RULES.md §2): one test per clause, hand-worked examples, invariants."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker_env.cards import parse_cards
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games.red_dog import (
    I_DECK_POS,
    I_POT,
    AnteRecord,
    BetRecord,
    DealRecord,
    ForfeitRecord,
    GameOverRecord,
    LeaveRecord,
    RedDogConfig,
    RedDogGame,
    draw_for_dealer,
    reference_bet,
    win_probabilities,
)

RANKS = "23456789TJQKA"


def game(seed: int = 0, **kw: int | None) -> RedDogGame:
    return RedDogGame(RedDogConfig(**kw), rng=np.random.default_rng(seed))  # type: ignore[arg-type]


def rig(g: RedDogGame, seat: int, hand: str, stock: str = "", pot: int | None = None) -> None:
    """Give ``seat`` the cards ``hand`` and put ``stock`` on top of the stock."""
    st_ = g.state
    cards = parse_cards(hand)
    st_.hands[0, seat, :] = -1
    st_.hands[0, seat, : cards.size] = cards
    if stock:
        top = parse_cards(stock)
        pos = int(st_.ints[0, I_DECK_POS])
        st_.deck[0, pos : pos + top.size] = top
    if pot is not None:
        st_.ints[0, I_POT] = pot


def order_from_left_of_dealer(g: RedDogGame) -> list[int]:
    n = g.config.num_players
    return [(g.dealer + i) % n for i in range(1, n + 1) if (g.dealer + i) % n in g.seated]


# ---------------------------------------------------------------- the draw and the deal


def test_rule_first_dealer_is_the_highest_card_of_the_draw() -> None:
    order = parse_cards("7c Kd 9h 2s")  # seats 0..3 get one card each in turn
    log = np.zeros((64, 2), np.int64)
    dealer, used = draw_for_dealer(order, 4, log)
    assert dealer == 1
    assert used == 4
    assert log[:4, 0].tolist() == [0, 1, 2, 3]


def test_rule_draw_tied_players_draw_again() -> None:
    # Seats 0 and 2 both draw an ace; they draw again (seat 0 then seat 2): 3c vs Kh.
    order = parse_cards("Ac 5d As 9h 3c Kh 2d 2h")
    log = np.zeros((64, 2), np.int64)
    dealer, used = draw_for_dealer(order, 4, log)
    assert dealer == 2
    assert used == 6
    assert log[4:6, 0].tolist() == [0, 2]


def test_rule_ante_one_chip_each_into_the_pot_at_the_start() -> None:
    g = game(num_players=5, starting_chips=20)
    assert g.pot == 5
    assert g.chips == (19,) * 5
    assert isinstance(g.history[1], AnteRecord)


def test_rule_five_cards_each_one_at_a_time_from_the_dealers_left() -> None:
    g = game(3, num_players=4)
    order = order_from_left_of_dealer(g)
    deck = g.state.deck[0]
    for i, seat in enumerate(order):
        expected = [int(deck[k * 4 + i]) for k in range(5)]
        assert list(g.hand(seat)) == expected
    assert int(g.state.ints[0, I_DECK_POS]) == 20


def test_rule_nine_players_get_four_cards() -> None:
    g = game(num_players=9)
    assert g.hand_size == 4
    assert all(len(g.hand(s)) == 4 for s in range(9))


def test_rule_eight_players_still_get_five_cards() -> None:
    g = game(num_players=8)
    assert all(len(g.hand(s)) == 5 for s in range(8))


def test_rule_hand_size_option_is_kept_up_to_eight_players() -> None:
    assert game(num_players=3, hand_size=3).hand_size == 3
    assert game(num_players=10, hand_size=5).hand_size == 4


def test_rule_dealer_is_last_to_bet_and_betting_starts_at_his_left() -> None:
    g = game(5, num_players=5)
    seen = []
    for _ in range(5):
        seen.append(g.to_act)
        g.bet(1)
    first_dealer = g.history[0].dealer  # type: ignore[union-attr]
    assert seen == [(first_dealer + i) % 5 for i in range(1, 6)]
    assert seen[-1] == first_dealer


# ---------------------------------------------------------------- betting


def test_rule_bet_may_not_exceed_the_pot() -> None:
    g = game(num_players=3)  # pot 3, chips 49
    assert g.legal_actions().max_bet == 3
    before = g.to_json(), g.chips, g.pot
    with pytest.raises(IllegalActionError) as err:
        g.bet(4)
    assert "BET 4" in str(err.value) and "BET 1..3" in str(err.value) and "bet" in str(err.value)
    assert (g.to_json(), g.chips, g.pot) == before


def test_rule_bet_may_not_exceed_the_bettors_chips() -> None:
    g = game(num_players=3, starting_chips=4)
    s = g.to_act
    rig(g, s, "2c 2d 2h 2s 3c", pot=10)
    assert g.legal_actions().max_bet == 3  # 4 chips less the ante
    assert not g.can_bet(4)
    assert g.can_bet(3)


def test_rule_bet_is_at_least_one_chip() -> None:
    g = game()
    assert not g.can_bet(0)
    with pytest.raises(IllegalActionError):
        g.bet(0)


def test_rule_forfeit_puts_one_chip_in_the_pot_and_turns_no_card() -> None:
    g = game(num_players=3)
    s, pot, chips = g.to_act, g.pot, g.chips[g.to_act]
    rec = g.forfeit()
    assert rec == ForfeitRecord(s, pot + 1, chips - 1)
    assert g.turned_cards == ()
    assert g.pot == pot + 1


def test_rule_winning_bettor_shows_one_card_and_takes_his_bet_from_the_pot() -> None:
    g = game(num_players=3)
    s = g.to_act
    # Turned 9h: the hand beats it with Jh and Ah; the lowest winner, Jh, is shown.
    rig(g, s, "2c Jh Ah 4d Ks", stock="9h", pot=3)
    chips = g.chips[s]
    rec = g.bet(2)
    assert rec.won and rec.turned == parse_cards("9h")[0]
    assert rec.shown == tuple(parse_cards("Jh"))
    assert g.chips[s] == chips + 2
    assert g.pot == 1
    assert set(g.shown_cards) == set(parse_cards("Jh").tolist())


def test_rule_higher_card_of_another_suit_does_not_win() -> None:
    g = game(num_players=3)
    s = g.to_act
    rig(g, s, "Ac Ad As Kc Kd", stock="2h", pot=3)
    rec = g.bet(1)
    assert not rec.won


def test_rule_lower_card_of_the_same_suit_does_not_win() -> None:
    g = game(num_players=3)
    s = g.to_act
    rig(g, s, "9h 8h 2c 3c 4c", stock="Th", pot=3)
    assert not g.bet(1).won


def test_rule_losing_bettor_shows_whole_hand_and_bet_goes_into_the_pot() -> None:
    g = game(num_players=3)
    s = g.to_act
    rig(g, s, "2c 3c 4d 5d 6s", stock="Ah", pot=3)
    chips = g.chips[s]
    rec = g.bet(3)
    assert rec == BetRecord(
        s,
        3,
        int(parse_cards("Ah")[0]),
        False,
        tuple(parse_cards("2c 3c 4d 5d 6s").tolist()),
        6,
        chips - 3,
    )
    assert g.pot == 6 and g.chips[s] == chips - 3


def test_rule_turned_and_shown_cards_are_public_for_the_deal() -> None:
    g = game(num_players=3)
    first = g.to_act
    rig(g, first, "2c 3c 4d 5d 6s", stock="Ah")
    g.bet(1)
    assert g.turned_cards == (int(parse_cards("Ah")[0]),)
    assert set(g.shown_cards) == set(parse_cards("2c 3c 4d 5d 6s").tolist())
    # The next seat's win probability counts them as seen: 52 - 5 own - 6 public = 41 unseen.
    nxt = g.to_act
    rig(g, nxt, "Kd 7h 8h 9h Th")
    # Beats: diamonds below K not seen (2d 3d ... Qd minus 4d 5d) = 11 - 2 = 9; hearts below T
    # not seen (2h..6h) = 5. 14 of 41.
    assert g.win_probability(nxt) == pytest.approx(14 / 41)


def test_rule_pot_refills_with_a_new_ante_when_a_player_takes_it_all() -> None:
    g = game(num_players=3)
    s = g.to_act
    rig(g, s, "As 2c 3c 4c 5c", stock="Ks", pot=3)
    g.bet(3)
    assert g.pot == 3  # emptied, then one chip from each of the three players
    assert g.chips[s] == 49 + 3 - 1
    assert any(isinstance(r, AnteRecord) and r.reason == "empty pot" for r in g.history)


def test_rule_no_ante_after_the_games_last_bet() -> None:
    # RULES.md §2: "no ante after the game's last bet: that pot would have no one to win it".
    # Two players, one deal: the second bet is the game's last. It takes the whole pot (2 + 1
    # forfeited = 3): the pot is empty and the game is over, so nobody antes again.
    g = game(num_players=2, rounds=1)
    g.forfeit()  # 49 -> 48, pot 3
    s = g.to_act
    rig(g, s, "As 2c 3c 4c 5c", stock="Ks")
    before = g.chips[s]
    g.bet(3)
    assert g.is_over
    assert g.pot == 0
    assert g.chips[s] == before + 3  # not before + 3 - 1
    assert sum(g.chips) == 100  # no chip left in a pot nobody wins
    assert not any(isinstance(r, AnteRecord) and r.reason == "empty pot" for r in g.history)


def test_rule_an_empty_pot_is_still_refilled_when_another_deal_is_to_come() -> None:
    # The same last bet of a deal, with a second deal to come: everyone antes again.
    g = game(num_players=2, rounds=2)
    g.forfeit()
    s = g.to_act
    rig(g, s, "As 2c 3c 4c 5c", stock="Ks")
    before = g.chips[s]
    g.bet(3)
    assert not g.is_over
    assert g.pot == 2
    assert g.chips[s] == before + 3 - 1
    assert any(isinstance(r, AnteRecord) and r.reason == "empty pot" for r in g.history)


def test_rule_deal_passes_to_the_left_when_everyone_has_bet() -> None:
    g = game(2, num_players=4)
    dealer = g.dealer
    for _ in range(4):
        g.bet(1)
    assert g.dealer == (dealer + 1) % 4
    assert g.deals_done == 1
    assert isinstance(g.history[-1], DealRecord)
    assert g.turned_cards == () and g.shown_cards == ()  # a new deal, a new deck


def test_rule_player_with_no_chips_leaves_the_game() -> None:
    g = game(num_players=3, starting_chips=3)
    s = g.to_act
    rig(g, s, "2c 2d 2h 2s 3c", stock="As", pot=3)
    g.bet(2)  # all his chips
    assert g.chips[s] == 0
    assert s not in g.seated
    assert LeaveRecord(s) in g.history
    # He is skipped in later deals.
    while not g.is_over:
        assert g.to_act != s
        g.bet(1)


def test_rule_ante_bigger_than_a_players_chips_takes_what_he_has_and_he_leaves() -> None:
    g = game(num_players=3, starting_chips=10, ante=2)  # pot 6, chips 8 each
    s = g.to_act
    short = (s + 1) % 3
    # Move 7 of his chips into the pot, then the bettor takes the pot exactly.
    g.state.chips[0, short] = 1
    g.state.ints[0, I_POT] = 6 + 7
    rig(g, s, "As 2c 3c 4c 5c", stock="Ks")
    g.state.chips[0, s] = 13  # enough chips to bet the whole pot
    g.state.chips[0, (s + 2) % 3] -= 5  # keep the chip total at 30
    g.bet(13)
    # RULES.md §2: the empty pot is refilled; the short player antes his last chip and leaves.
    assert g.chips[short] == 0
    assert short not in g.seated
    assert g.pot == 2 + 2 + 1
    assert sum(g.chips) + g.pot == 30


def test_rule_game_ends_after_rounds_deals_default_one_deal_each() -> None:
    g = game(num_players=3)
    n = 0
    while not g.is_over:
        g.bet(1)
        n += 1
    assert n == 9  # three deals of three bets
    assert g.deals_done == 3
    rec = g.history[-1]
    assert isinstance(rec, GameOverRecord)
    best = max(rec.chips)
    assert rec.winners == tuple(s for s, c in enumerate(rec.chips) if c == best)
    with pytest.raises(IllegalActionError, match="over"):
        g.bet(1)


def test_rule_game_ends_when_one_player_is_left() -> None:
    g = game(num_players=2, starting_chips=3, rounds=5)
    s = g.to_act
    rig(g, s, "2c 2d 2h 2s 3c", stock="As", pot=2)
    g.bet(2)
    assert g.is_over
    assert g.winners == (1 - s,)


def test_rule_reference_bets_the_maximum_above_one_half_else_one() -> None:
    assert reference_bet(0.51, 7) == 7
    assert reference_bet(0.5, 7) == 1
    assert reference_bet(0.1, 7) == 1


# ---------------------------------------------------------------- win probability


def brute_force_p(hand: list[str], public: list[str]) -> float:
    """Count unseen cards a hand beats, by ranks and suits written as text."""
    deck = [r + s for r in RANKS for s in "cdhs"]
    seen = set(hand) | set(public)
    unseen = [c for c in deck if c not in seen]
    wins = sum(
        any(h[1] == c[1] and RANKS.index(h[0]) > RANKS.index(c[0]) for h in hand) for c in unseen
    )
    return wins / len(unseen)


@pytest.mark.parametrize("seed", range(6))
def test_win_probability_matches_brute_force_on_random_positions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = RedDogGame(RedDogConfig(num_players=int(rng.integers(2, 11))), rng=rng)
    for _ in range(int(rng.integers(0, g.config.num_players))):
        la = g.legal_actions()
        g.bet(int(rng.integers(1, la.max_bet + 1)))
    from poker_env.cards import format_card

    for seat in g.seated:
        hand = [format_card(c) for c in g.hand(seat)]
        public = [format_card(c) for c in g.turned_cards + g.shown_cards]
        assert g.win_probability(seat) == pytest.approx(brute_force_p(hand, public), abs=1e-12)


def test_win_probabilities_vectorized_over_tables() -> None:
    games = [game(s, num_players=4) for s in range(5)]
    for g in games:
        g.bet(1)
    from poker_env.games.red_dog import new_state

    batch = new_state(5)
    for i, g in enumerate(games):
        for a, b in zip(batch, g.state, strict=True):
            a[i] = b[0]
    seats = np.array([g.to_act for g in games], np.int64)
    got = win_probabilities(batch.ints, batch.hands, batch.public, seats)
    assert got.tolist() == pytest.approx([g.win_probability() for g in games])


def test_first_bettor_win_probability_of_a_hand_by_hand() -> None:
    g = game(num_players=3)
    s = g.to_act
    rig(g, s, "Ac 2d 2h 2s 3s")
    # Clubs below the ace: 12, none seen; spades below 3: 2s is in hand -> 0. 12 / 47.
    assert g.win_probability(s) == pytest.approx(12 / 47)


# ---------------------------------------------------------------- config and API


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("num_players", 1),
        ("num_players", 11),
        ("starting_chips", 1),
        ("ante", 0),
        ("hand_size", 6),
        ("rounds", 0),
    ],
)
def test_config_rejects_bad_values(field: str, value: int) -> None:
    with pytest.raises(ConfigError) as err:
        RedDogConfig(**{field: value})  # type: ignore[arg-type]
    assert err.value.field == field


def test_unknown_action_raises_naming_the_legal_actions() -> None:
    g = game()
    with pytest.raises(IllegalActionError, match="FORFEIT or BET 1"):
        g.act(7)


# ---------------------------------------------------------------- invariants


def play_random(g: RedDogGame, rng: np.random.Generator) -> None:
    total = g.config.num_players * g.config.starting_chips
    while not g.is_over:
        la = g.legal_actions()
        assert la.max_bet >= 1  # never an empty choice before the end
        if rng.random() < 0.2:
            g.forfeit()
        else:
            g.bet(int(rng.integers(1, la.max_bet + 1)))
        assert sum(g.chips) + g.pot == total  # RULES.md "Everywhere": every chip is somewhere
        assert all(c >= 0 for c in g.chips)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    num_players=st.integers(2, 10),
    chips=st.integers(2, 30),
    rounds=st.integers(1, 12),
)
def test_random_play_conserves_chips_and_replays_identically(
    seed: int, num_players: int, chips: int, rounds: int
) -> None:
    rng = np.random.default_rng(seed)
    g = RedDogGame(
        RedDogConfig(num_players=num_players, starting_chips=chips, rounds=rounds), rng=rng
    )
    play_random(g, rng)
    replay = RedDogGame.from_json(g.to_json())
    assert replay.history == g.history
    assert replay.chips == g.chips


def test_same_seed_same_game() -> None:
    a, b = game(11, num_players=6), game(11, num_players=6)
    assert [a.hand(s) for s in range(6)] == [b.hand(s) for s in range(6)]
    assert a.history == b.history


def test_every_card_in_a_deal_is_distinct() -> None:
    g = game(num_players=10)
    cards = list(itertools.chain.from_iterable(g.hand(s) for s in range(10)))
    assert len(cards) == len(set(cards)) == 40


def test_describe_after_the_game_ends_says_game_over_not_a_deal_past_the_last() -> None:
    g = game(7, num_players=3)
    assert g.describe().startswith("deal 1/3 ")
    while not g.is_over:
        g.bet(1)
    text = g.describe()
    over = g.history[-1]
    assert isinstance(over, GameOverRecord)
    seats = ", ".join(str(s) for s in over.winners)
    head = text.splitlines()[0]
    assert head.startswith(f"game over after {g.deals_done}/3 deals  pot {over.pot}")
    assert head.endswith(f"seat{'s' if len(over.winners) > 1 else ''} {seats}")
    assert "deal 4/3" not in text
