"""Bad input to the game engines (issue 12 §3): a clear error that names the value and
what is allowed, and nothing changed.

- non-integer actions and amounts, decks of floats (no rounding, no truncation);
- joins with negative or fractional stacks;
- configs whose chip totals overflow the engines' 64-bit integers: a ``ConfigError``
  naming the largest value allowed (worked out by hand below from the integer width);
  amounts beyond 64 bits: an ``IllegalActionError``, not a numba or Overflow error;
- hand histories: replays check what the history claims and refuse tampered,
  truncated, corrupt, foreign or malformed ones with a ``HistoryError`` naming the field.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from poker_env.errors import (
    ArgumentError,
    ConfigError,
    HistoryError,
    IllegalActionError,
    PokerEnvError,
)
from poker_env.games import holdem_kernels as K
from poker_env.games.draw import DrawAction, DrawConfig, DrawGame
from poker_env.games.holdem import MAX_TABLE_CHIPS, HoldemConfig, HoldemGame, replay_json
from poker_env.games.holdem_phh import from_phh, to_phh
from poker_env.games.red_dog import RedDogConfig, RedDogGame

INT64_MAX = 9_223_372_036_854_775_807  # 2**63 - 1, the engines' chip counts are int64
A = DrawAction

# Values that are not integers: none may be rounded or truncated into one.
NOT_INTEGERS: list[object] = [7.9, 7.0, "10", None, np.float64(10.0), np.array([10]), True]


# ---------------------------------------------------------------- helpers


def draw_game(seed: int = 3) -> DrawGame:
    return DrawGame(DrawConfig(), seed=seed)


def draw_snapshot(g: DrawGame) -> tuple[Any, ...]:
    return (g.state.copy().tolist(), list(g.history), g.to_json())


def red_dog_game(seed: int = 0, **kw: Any) -> RedDogGame:
    return RedDogGame(RedDogConfig(**kw), rng=np.random.default_rng(seed))


def red_dog_snapshot(g: RedDogGame) -> tuple[Any, ...]:
    st = g.state
    return (
        tuple(a.copy().tolist() for a in st),
        list(g.history),
        g.to_json(),
    )


def holdem_game(num_seats: int = 3, num_players: int = 2, **kw: Any) -> HoldemGame:
    return HoldemGame(HoldemConfig(num_seats=num_seats, **kw), rng=0, num_players=num_players)


def holdem_snapshot(g: HoldemGame) -> tuple[Any, ...]:
    # The scratch fields after SCR_LEGAL are not game state (a refused action may
    # leave scratch values behind: holdem_kernels).
    return (
        g.state[: K.SCR_LEGAL].tolist(),
        g.history(),
        g.hand_number,
        g.total_chips(),
        g.seats(),
        g.phase,
    )


def random_draw_match(seed: int, num_actions: int, starting_money: int = 200) -> DrawGame:
    g = DrawGame(DrawConfig(starting_money=starting_money), seed=seed)
    rng = np.random.default_rng(seed + 1)
    for _ in range(num_actions):
        if g.is_over:
            break
        legal = g.legal_actions()
        la = legal[int(rng.integers(len(legal)))]
        g.act(la.action, int(rng.integers(la.min_amount, la.max_amount + 1)))
    return g


def random_red_dog_game(seed: int, **kw: Any) -> RedDogGame:
    rng = np.random.default_rng(seed)
    g = RedDogGame(RedDogConfig(**kw), rng=rng)
    while not g.is_over:
        if rng.random() < 0.2:
            g.forfeit()
        else:
            g.bet(int(rng.integers(1, g.legal_actions().max_bet + 1)))
    return g


def random_holdem_hand(game: HoldemGame, rng: np.random.Generator) -> None:
    game.start_hand()
    while not game.is_hand_over:
        la = game.legal_actions()
        r = rng.random()
        if la.can_fold and r < 0.2:
            game.fold()
        elif la.min_raise_to is not None and la.max_raise_to is not None and r < 0.55:
            game.raise_to(int(rng.integers(la.min_raise_to, la.max_raise_to + 1)))
        elif la.can_all_in and r < 0.6:
            game.all_in()
        else:
            game.check_or_call()


def showdown_hand(rules: str = "seed") -> HoldemGame:
    """A 3-seat hand that reaches the showdown with raises and calls on every street."""
    game = HoldemGame(HoldemConfig(num_seats=3, rules=rules), rng=5)  # type: ignore[arg-type]
    game.start_hand()
    while not game.is_hand_over:
        la = game.legal_actions()
        if la.call_amount == 0 and la.min_raise_to is not None and game.street != "river":
            game.raise_to(la.min_raise_to)
        else:
            game.check_or_call()
    assert game.showdown(), "the hand was meant to reach a showdown"
    return game


# ================================================================ Draw


@pytest.mark.parametrize("amount", NOT_INTEGERS)
def test_draw_bet_of_a_non_integer_amount_is_refused_and_changes_nothing(amount: object) -> None:
    g = draw_game()
    assert g.to_act == g.first_seat and g.phase.name == "PRE_DRAW"
    before = draw_snapshot(g)
    with pytest.raises(IllegalActionError) as err:
        g.act(A.BET, amount)  # type: ignore[arg-type]
    msg = str(err.value)
    # Names the value, the legal actions with their bounds, and the phase.
    assert f"BET({amount!r})" in msg and "BET(5..495)" in msg and "PRE_DRAW" in msg
    assert "integer" in msg
    assert draw_snapshot(g) == before


@pytest.mark.parametrize("action", [1.5, 1.0, "0", "BET", None, True, 9, -1])
def test_draw_action_that_is_not_an_action_is_refused_and_changes_nothing(action: object) -> None:
    g = draw_game()
    before = draw_snapshot(g)
    with pytest.raises(IllegalActionError) as err:
        g.act(action, 10)  # type: ignore[arg-type]
    assert repr(action) in str(err.value) and "unknown action" in str(err.value)
    assert "STAY" in str(err.value)
    assert draw_snapshot(g) == before


def test_draw_numpy_integers_are_integers() -> None:
    # What Discrete.sample() and SB3 hand over: accepted like Python ints.
    a, b = draw_game(), draw_game()
    rec_a = a.act(np.int64(int(A.BET)), np.int32(10))  # type: ignore[arg-type]
    rec_b = b.act(A.BET, 10)
    assert rec_a == rec_b and a.to_json() == b.to_json()


@pytest.mark.parametrize("amount", [10**20, -(10**20), 2**63, INT64_MAX + 10])
def test_draw_amount_beyond_64_bits_is_an_illegal_action_not_an_overflow(amount: int) -> None:
    g = draw_game()
    before = draw_snapshot(g)
    with pytest.raises(IllegalActionError, match=r"out of bounds.*BET\(5\.\.495\)"):
        g.act(A.BET, amount)
    assert draw_snapshot(g) == before


def test_draw_config_whose_chips_overflow_int64_names_the_largest_starting_money() -> None:
    # Every chip of a match: 2 x starting_money + 6 items x 100 <= 2**63 - 1, so
    # starting_money <= (9223372036854775807 - 600) // 2 = 4611686018427387603.
    largest = 4_611_686_018_427_387_603
    with pytest.raises(ConfigError) as err:
        DrawConfig(starting_money=10**19)
    assert err.value.field == "starting_money" and str(largest) in str(err.value)
    with pytest.raises(ConfigError, match=str(largest)):
        DrawConfig(starting_money=largest + 1)
    # The largest value plays: every chip accounted for, 2**63 - 2 in all (one more
    # in each stake would pass 2**63 - 1).
    cfg = DrawConfig(starting_money=largest)
    assert cfg.total_chips == INT64_MAX - 1
    g = DrawGame(cfg, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        if g.is_over:
            break
        legal = g.legal_actions()
        la = legal[int(rng.integers(len(legal)))]
        # The largest amounts, so that stacks, pot and stakes reach the top.
        g.act(la.action, la.max_amount)
        assert g.chips_total() == 2 * largest
        assert min(g.stacks) >= 0 and g.pot >= 0 and -600 <= g.bank <= 0


def test_draw_config_item_value_and_reserve_bounds_name_the_largest_value() -> None:
    # 2 x 500 + 6 x item_value <= 2**63 - 1: item_value <= (2**63 - 1 - 1000) // 6.
    with pytest.raises(ConfigError) as err:
        DrawConfig(item_value=2**62)
    assert err.value.field == "item_value" and str((INT64_MAX - 1000) // 6) in str(err.value)
    # The buy-back test adds item_value (100) and the reserve.
    with pytest.raises(ConfigError) as err:
        DrawConfig(buyback_reserve=INT64_MAX)
    assert err.value.field == "buyback_reserve" and str(INT64_MAX - 100) in str(err.value)
    assert DrawConfig(buyback_reserve=INT64_MAX - 100).reserve == INT64_MAX - 100


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("starting_money", 500.0),
        ("ante", "5"),
        ("min_bet", None),
        ("max_raises", 2.5),
        ("deck", 52.0),
        ("deck", np.array([52, 32])),
        ("starting_money", True),
    ],
)
def test_draw_config_refuses_non_integer_fields(field: str, value: object) -> None:
    with pytest.raises(ConfigError) as err:
        DrawConfig(**{field: value})  # type: ignore[arg-type]
    assert err.value.field == field


def test_draw_config_stores_numpy_integers_as_python_ints() -> None:
    cfg = DrawConfig(starting_money=np.int64(300), deck=np.int32(32))  # type: ignore[arg-type]
    assert type(cfg.starting_money) is int and cfg.num_cards == 32
    assert json.loads(json.dumps(cfg.to_json_dict()))["starting_money"] == 300


@pytest.mark.parametrize("seed", [-1, 1.5, "3", None, True])
def test_draw_bad_seed_is_a_config_error_naming_seed(seed: object) -> None:
    with pytest.raises(ConfigError) as err:
        DrawGame(DrawConfig(), seed=seed)  # type: ignore[arg-type]
    assert err.value.field == "seed"


@pytest.mark.parametrize("seat", [2, -1, 0.0, "0", 10**20, None])
def test_draw_seat_queries_refuse_what_is_not_a_seat(seat: object) -> None:
    g = draw_game()
    for query in (g.hand, g.cards_drawn):
        with pytest.raises(ArgumentError, match="seat"):
            query(seat)  # type: ignore[arg-type]


# ================================================================ Red Dog


@pytest.mark.parametrize("amount", NOT_INTEGERS)
def test_red_dog_bet_of_a_non_integer_amount_is_refused_and_changes_nothing(
    amount: object,
) -> None:
    g = red_dog_game()
    before = red_dog_snapshot(g)
    legal = str(g.legal_actions())
    with pytest.raises(IllegalActionError) as err:
        g.bet(amount)  # type: ignore[arg-type]
    msg = str(err.value)
    assert f"BET {amount!r}" in msg and legal in msg and "phase bet" in msg
    assert red_dog_snapshot(g) == before
    with pytest.raises(IllegalActionError):
        g.can_bet(amount)  # type: ignore[arg-type]


@pytest.mark.parametrize("action", [1.0, "1", None, 2, -1, False])
def test_red_dog_action_that_is_not_an_action_is_refused(action: object) -> None:
    g = red_dog_game()
    before = red_dog_snapshot(g)
    with pytest.raises(IllegalActionError, match=r"unknown action.*FORFEIT or BET 1"):
        g.act(action, 1)  # type: ignore[arg-type]
    assert red_dog_snapshot(g) == before


@pytest.mark.parametrize("amount", [10**20, -(10**20), 2**63])
def test_red_dog_amount_beyond_64_bits_is_an_illegal_action(amount: int) -> None:
    g = red_dog_game()
    before = red_dog_snapshot(g)
    with pytest.raises(IllegalActionError, match="a bet is 1 up to the pot"):
        g.bet(amount)
    assert not g.can_bet(amount)
    assert red_dog_snapshot(g) == before
    # A forfeit is one chip whatever amount comes with it (RULES.md §2).
    rec = g.act(0, amount)
    assert rec.chips_after == 49 - 1  # 50 chips, the ante, the forfeited chip


def test_red_dog_config_whose_chips_overflow_int64_names_the_largest_starting_chips() -> None:
    # Every chip of the table: 4 players x starting_chips <= 2**63 - 1, so
    # starting_chips <= 9223372036854775807 // 4 = 2305843009213693951.
    largest = 2_305_843_009_213_693_951
    with pytest.raises(ConfigError) as err:
        RedDogConfig(starting_chips=10**19)
    assert err.value.field == "starting_chips" and str(largest) in str(err.value)
    with pytest.raises(ConfigError, match=str(largest)):
        RedDogConfig(starting_chips=largest + 1)
    # Ten players: 9223372036854775807 // 10.
    with pytest.raises(ConfigError, match="922337203685477580 "):
        RedDogConfig(num_players=10, starting_chips=922_337_203_685_477_581)
    # The largest value plays to the end with the largest bets, every chip accounted for.
    rng = np.random.default_rng(0)
    g = RedDogGame(RedDogConfig(starting_chips=largest), rng=rng)
    while not g.is_over:
        g.bet(g.legal_actions().max_bet)
        assert sum(g.chips) + g.pot == 4 * largest
        assert min(g.chips) >= 0 and g.pot >= 0


@pytest.mark.parametrize("key", [-1, 2**64, 1.5, "7"])
def test_red_dog_bad_key_is_a_config_error_naming_key(key: object) -> None:
    with pytest.raises(ConfigError) as err:
        RedDogGame(RedDogConfig(), key=key)  # type: ignore[arg-type]
    assert err.value.field == "key" and "18446744073709551615" in str(err.value)


def test_red_dog_largest_key_and_bad_rng() -> None:
    assert RedDogGame(RedDogConfig(), key=2**64 - 1).key == 2**64 - 1
    with pytest.raises(ConfigError) as err:
        RedDogGame(RedDogConfig(), rng=5)  # type: ignore[arg-type]
    assert err.value.field == "rng"


@pytest.mark.parametrize("seat", [4, -1, 1.0, "1", 10**20])
def test_red_dog_seat_queries_refuse_what_is_not_a_seat(seat: object) -> None:
    g = red_dog_game()
    for query in (g.hand, g.has_bet, g.win_probability):
        with pytest.raises(ArgumentError, match="a seat from 0 to 3"):
            query(seat)  # type: ignore[arg-type]


# ================================================================ Hold'em


@pytest.mark.parametrize("amount", [4.9, 4.0, "10", None, np.float32(6), True])
def test_holdem_raise_to_a_non_integer_is_refused_and_changes_nothing(amount: object) -> None:
    g = holdem_game()
    g.start_hand()
    before = holdem_snapshot(g)
    with pytest.raises(IllegalActionError) as err:
        g.raise_to(amount)  # type: ignore[arg-type]
    msg = str(err.value)
    assert f"raise_to({amount!r})" in msg and "raise_to 4..200" in msg and "preflop" in msg
    assert holdem_snapshot(g) == before
    with pytest.raises(IllegalActionError):
        g.can_raise_to(amount)  # type: ignore[arg-type]


@pytest.mark.parametrize("amount", [10**20, -(10**20), 2**63])
def test_holdem_raise_beyond_64_bits_is_an_illegal_action(amount: int) -> None:
    g = holdem_game()
    g.start_hand()
    before = holdem_snapshot(g)
    with pytest.raises(IllegalActionError, match="amount out of bounds"):
        g.raise_to(amount)
    assert not g.can_raise_to(amount)
    assert holdem_snapshot(g) == before


@pytest.mark.parametrize("stack", [-100, 0, 2.7, 50.0, "50", True, None])
def test_holdem_join_with_a_stack_that_is_not_chips_is_refused(stack: object) -> None:
    g = holdem_game()
    before = holdem_snapshot(g)
    if stack is None:  # None is the documented default (the starting stack): accepted
        g.join(2, stack=None)
        assert g.stacks() == [200, 200, 200]
        return
    with pytest.raises(IllegalActionError) as err:
        g.join(2, stack=stack)  # type: ignore[arg-type]
    assert f"stack={stack!r}" in str(err.value) and "integer" in str(err.value)
    # Not seated, not counted in total_chips() (it was -100 more before this fix).
    assert holdem_snapshot(g) == before and g.total_chips() == 400


@pytest.mark.parametrize("seat", [2.0, "2", -1, 3, 10**20, None])
def test_holdem_join_of_what_is_not_a_free_seat_is_refused(seat: object) -> None:
    g = holdem_game()
    before = holdem_snapshot(g)
    with pytest.raises(IllegalActionError, match=r"seat not free.*join\(2\)"):
        g.join(seat)  # type: ignore[arg-type]
    assert holdem_snapshot(g) == before


def test_holdem_join_keeps_the_table_within_its_chip_limit() -> None:
    g = holdem_game()
    room = MAX_TABLE_CHIPS - 400
    with pytest.raises(IllegalActionError, match=f"stack=1..{room}"):
        g.join(2, stack=room + 1)
    g.join(2, stack=np.int64(room))  # type: ignore[arg-type]  # numpy ints are ints
    assert g.total_chips() == MAX_TABLE_CHIPS == 2**62 - 1


def test_holdem_config_whose_chips_overflow_names_the_largest_value() -> None:
    # The row is int64 and a raise bound (highest bet + last raise) reaches twice the
    # table's chips: the table holds at most (2**63 - 1) // 2 = 4611686018427387903.
    assert MAX_TABLE_CHIPS == 4_611_686_018_427_387_903
    # 6 seats x 100 x E <= 4611686018427387903: E <= 7686143364045646 (even).
    with pytest.raises(ConfigError) as err:
        HoldemConfig(base=10**18)
    assert err.value.field == "base" and "7686143364045646" in str(err.value)
    with pytest.raises(ConfigError, match="7686143364045646"):
        HoldemConfig(base=7_686_143_364_045_648)
    # 6 x starting_stack <= 4611686018427387903: at most 768614336404564650.
    with pytest.raises(ConfigError) as err:
        HoldemConfig(starting_stack=10**18)
    assert err.value.field == "starting_stack" and "768614336404564650" in str(err.value)
    with pytest.raises(ConfigError) as err:
        HoldemConfig(max_bet=10**19)
    assert err.value.field == "max_bet" and str(MAX_TABLE_CHIPS) in str(err.value)
    # The penalty 10 x E must fit too (stacks given): E <= 461168601842738790.
    with pytest.raises(ConfigError, match="461168601842738790"):
        HoldemConfig(base=2**60, starting_stack=100)


def test_holdem_vector_env_keeps_a_max_bet_past_32_bits() -> None:
    # 2**32 + 4 once became a cap of 4 chips in the int32 rows; such a cap now keeps
    # 64-bit rows, as the single env's, and plays as the cap it is.
    from poker_env.vector.holdem import HoldemVectorEnv

    for max_bet in (2**31, 2**32 + 4):
        vec = HoldemVectorEnv(2, num_players=2, max_bet=max_bet)
        assert vec._states.dtype == np.int64
        vec.reset(seed=0)
        masks = vec.action_masks()
        assert masks[:, -1].all()  # all-in is legal: the cap is above the stacks


def test_holdem_largest_base_plays_hands_with_every_chip_accounted_for() -> None:
    base = 7_686_143_364_045_646
    g = HoldemGame(HoldemConfig(base=base), rng=1)
    total = 6 * 100 * base
    assert g.total_chips() == total
    rng = np.random.default_rng(1)
    for _ in range(12):
        if len([s for s in g.stacks() if s > 0]) < 2:
            break
        random_holdem_hand(g, rng)
        assert g.total_chips() == total and min(g.stacks()) >= 0


@pytest.mark.parametrize(
    "deck",
    [
        np.arange(52) + 0.5,
        np.arange(52, dtype=np.float64),  # whole floats: refused too, never truncated
        [float(c) for c in range(52)],
        np.arange(51),
        np.arange(53),
        [*range(51), 0],  # a duplicate
        [*range(51), 52],  # out of range
        list(range(-1, 51)),
        np.ones(52, dtype=bool),
        [str(c) for c in range(52)],
        np.arange(52).reshape(4, 13),
        "As Ks",
        "As As",
        "Zz",
        [None] * 52,
    ],
)
def test_holdem_deck_that_is_not_the_52_cards_is_refused_and_changes_nothing(
    deck: object,
) -> None:
    g = holdem_game()
    before = holdem_snapshot(g)
    with pytest.raises(ConfigError) as err:
        g.start_hand(deck=deck)  # type: ignore[arg-type]
    assert err.value.field == "deck" and "52 cards" in str(err.value)
    assert holdem_snapshot(g) == before


def test_holdem_deck_of_any_integer_dtype_is_accepted() -> None:
    rng = np.random.default_rng(3)
    order = rng.permutation(52)
    a, b = holdem_game(), holdem_game()
    a.start_hand(deck=order.astype(np.int8), button=0)
    b.start_hand(deck=[int(c) for c in order], button=0)  # type: ignore[arg-type]
    assert a.hole_cards(0) == b.hole_cards(0) and a.hole_cards(1) == b.hole_cards(1)


def test_holdem_bad_deck_after_a_decided_hand_leaves_it_as_it_was() -> None:
    g = showdown_hand()
    before = holdem_snapshot(g)
    with pytest.raises(ConfigError):
        g.start_hand(deck=np.arange(52) * 1.0)  # type: ignore[arg-type]
    assert holdem_snapshot(g) == before and g.phase == "over"


@pytest.mark.parametrize("button", [1.5, "0", 10**20, -1, 2])
def test_holdem_bad_button_is_refused(button: object) -> None:
    g = holdem_game()  # seats 0 and 1 seated, seat 2 empty
    before = holdem_snapshot(g)
    with pytest.raises(IllegalActionError, match="button not a seated player"):
        g.start_hand(button=button)  # type: ignore[arg-type]
    assert holdem_snapshot(g) == before


@pytest.mark.parametrize("seat", [3, -1, 1.0, "1", 10**20])
def test_holdem_seat_arguments_are_checked(seat: object) -> None:
    g = holdem_game()
    g.start_hand()
    before = holdem_snapshot(g)
    for query in (g.hole_cards, g.in_hand):
        with pytest.raises(ArgumentError, match="a seat from 0 to 2"):
            query(seat)  # type: ignore[arg-type]
    assert g.can_leave(seat) is False  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="leave"):
        g.leave(seat)  # type: ignore[arg-type]
    assert holdem_snapshot(g) == before


@pytest.mark.parametrize("seat", [3, 15, -1, 1.0, 10**20])
def test_holdem_remove_of_what_is_not_a_seat_reads_nothing_and_changes_nothing(
    seat: object,
) -> None:
    # Seat 15 once read a field beyond the status block (another part of the row).
    g = holdem_game()
    before = holdem_snapshot(g)
    with pytest.raises(IllegalActionError, match="not an occupied seat"):
        g.remove(seat)  # type: ignore[arg-type]
    assert holdem_snapshot(g) == before


@pytest.mark.parametrize(("field", "value"), [("rng", -1), ("rng", "x"), ("num_players", 2.0)])
def test_holdem_game_arguments_are_checked(field: str, value: object) -> None:
    with pytest.raises(ConfigError) as err:
        HoldemGame(HoldemConfig(num_seats=3), **{field: value})  # type: ignore[arg-type]
    assert err.value.field == field


@pytest.mark.parametrize(
    ("field", "value"),
    [("num_seats", 6.0), ("num_seats", True), ("base", "2"), ("rules", ["seed"]), ("max_bet", 4.5)],
)
def test_holdem_config_refuses_non_integer_and_unhashable_fields(field: str, value: object) -> None:
    with pytest.raises(ConfigError) as err:
        HoldemConfig(**{field: value})  # type: ignore[arg-type]
    assert err.value.field == field


# ================================================================ histories: Draw


def draw_history() -> dict[str, Any]:
    # A match under way: items worn and lost, dozens of hands decided.
    g = random_draw_match(seed=16, num_actions=150, starting_money=2000)
    assert not g.is_over and g.hand_no > 20 and g.wardrobe.worn and g.wardrobe.lost
    return dict(json.loads(g.to_json()))


def test_draw_history_round_trip_and_version_1_files_still_load() -> None:
    g = random_draw_match(seed=16, num_actions=150, starting_money=2000)
    d = json.loads(g.to_json())
    assert d["game"] == "five_card_draw" and d["version"] == 2
    assert d["result"]["stacks"] == list(g.stacks) and d["result"]["hand_no"] == g.hand_no
    assert np.array_equal(DrawGame.from_json(g.to_json()).state, g.state)
    old = {k: v for k, v in d.items() if k not in ("version", "result")}
    assert np.array_equal(DrawGame.from_json(json.dumps(old)).state, g.state)


@pytest.mark.parametrize(
    ("key", "edit"),
    [
        ("stacks", lambda v: [v[0] + 1, v[1] - 1]),
        ("pot", lambda v: v + 5),
        ("bank", lambda v: v - 100),
        ("hand_no", lambda v: v + 1),
        ("phase", lambda v: "MATCH_END"),
        ("to_act", lambda v: 1 - v),
        ("match_winner", lambda v: 0),
        ("wardrobe", lambda v: {"worn": [], "at_stake": [], "lost": v["worn"] + v["lost"]}),
        ("hands_won", lambda v: [[h, 1 - w if w is not None else 0, how, p] for h, w, how, p in v]),
    ],
)
def test_draw_history_with_a_tampered_claim_is_refused(key: str, edit: Any) -> None:
    d = draw_history()
    d["result"][key] = edit(d["result"][key])
    with pytest.raises(HistoryError) as err:
        DrawGame.from_json(json.dumps(d))
    assert err.value.field == f"result.{key}" and "claims" in str(err.value)


def test_draw_truncated_or_tampered_actions_are_refused() -> None:
    d = draw_history()
    for cut in (1, 2, 10):
        short = dict(d, actions=d["actions"][:-cut])
        with pytest.raises(HistoryError, match="result"):
            DrawGame.from_json(json.dumps(short))
    # An amount the rules refuse at that point: the action is named.
    bets = [i for i, (name, _) in enumerate(d["actions"]) if name in ("BET", "RAISE")]
    i = bets[0]
    bad = json.loads(json.dumps(d))
    bad["actions"][i][1] = 10**6
    with pytest.raises(HistoryError) as err:
        DrawGame.from_json(json.dumps(bad))
    assert err.value.field == f"actions[{i}]"
    for item in (["BET", 7.5], ["FLY", 1], "BET", ["BET"], [3, 10]):
        bad["actions"][i] = item
        with pytest.raises(HistoryError) as err:
            DrawGame.from_json(json.dumps(bad))
        assert err.value.field == f"actions[{i}]"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "text"),
        ("{", "text"),
        (b"\xff\xfe\x00", "text"),
        ("[]", "text"),
        ("null", "text"),
        ("{}", "game"),
        ('{"game": "holdem"}', "game"),
        ('{"game": "five_card_draw", "version": 3}', "version"),
    ],
)
def test_draw_corrupt_text_is_a_history_error_naming_the_field(text: str, field: str) -> None:
    with pytest.raises(HistoryError) as err:
        DrawGame.from_json(text)
    assert err.value.field == field


@pytest.mark.parametrize("key", ["config", "seed", "buyback", "actions", "result"])
def test_draw_history_missing_a_field_names_it(key: str) -> None:
    d = draw_history()
    del d[key]
    with pytest.raises(HistoryError) as err:
        DrawGame.from_json(json.dumps(d))
    assert err.value.field == key


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("seed",), -1, "seed"),
        (("seed",), 1.5, "seed"),
        (("buyback",), "maybe", "buyback"),
        (("config", "ante"), None, "config.ante"),
        (("config", "starting_money"), 10**19, "config.starting_money"),
        (("config", "colour"), "red", "config.colour"),
        (("config",), [1, 2], "config"),
        (("actions",), {"BET": 5}, "actions"),
        (("result",), 5, "result"),
    ],
)
def test_draw_history_with_a_bad_field_names_it(
    path: tuple[str, ...], value: object, field: str
) -> None:
    d = draw_history()
    node = d
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    with pytest.raises(HistoryError) as err:
        DrawGame.from_json(json.dumps(d))
    assert err.value.field == field


def test_draw_history_missing_a_config_field_names_it() -> None:
    d = draw_history()
    del d["config"]["ante"]
    with pytest.raises(HistoryError) as err:
        DrawGame.from_json(json.dumps(d))
    assert err.value.field == "config.ante"


def test_each_replay_refuses_another_games_history() -> None:
    draw = random_draw_match(seed=2, num_actions=20).to_json()
    red = random_red_dog_game(3, num_players=3, starting_chips=5).to_json()
    hold = showdown_hand().to_json()
    for text, replay in (
        (hold, DrawGame.from_json),
        (red, DrawGame.from_json),
        (draw, RedDogGame.from_json),
        (hold, RedDogGame.from_json),
        (draw, replay_json),
        (red, replay_json),
    ):
        with pytest.raises(HistoryError) as err:
            replay(text)
        assert err.value.field == "game"


# ================================================================ histories: Red Dog


def red_dog_history() -> dict[str, Any]:
    return dict(json.loads(random_red_dog_game(4, num_players=4, starting_chips=12).to_json()))


def test_red_dog_history_round_trip_and_version_1_files_still_load() -> None:
    g = random_red_dog_game(4, num_players=4, starting_chips=12)
    d = json.loads(g.to_json())
    assert d["game"] == "red_dog" and d["version"] == 2
    assert d["result"]["chips"] == list(g.chips) and d["result"]["phase"] == "over"
    assert RedDogGame.from_json(g.to_json()).history == g.history
    old = {k: d[k] for k in ("config", "key", "actions")}  # what version 1 wrote
    assert RedDogGame.from_json(json.dumps(old)).history == g.history


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("chips", lambda v: [v[0] + 1, *v[1:]]),
        ("pot", lambda v: v + 1),
        ("deals_done", lambda v: v - 1),
        ("dealer", lambda v: (v + 1) % 4),
        ("phase", lambda v: "bet"),
        ("to_act", lambda v: 2),
        ("seated", lambda v: v[:-1]),
        ("winners", lambda v: [0, 1, 2, 3]),
    ],
)
def test_red_dog_history_with_a_tampered_claim_is_refused(key: str, value: Any) -> None:
    d = red_dog_history()
    d["result"][key] = value(d["result"][key])
    with pytest.raises(HistoryError) as err:
        RedDogGame.from_json(json.dumps(d))
    assert err.value.field == f"result.{key}"


def test_red_dog_truncated_history_is_refused() -> None:
    d = red_dog_history()
    for cut in (1, 3):
        with pytest.raises(HistoryError, match="result"):
            RedDogGame.from_json(json.dumps(dict(d, actions=d["actions"][:-cut])))


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("key",), -1, "key"),
        (("key",), 2**64, "key"),
        (("key",), 3.0, "key"),
        (("config", "starting_chips"), 10**19, "config.starting_chips"),
        (("config", "hand_size"), "5", "config.hand_size"),
        (("config", "extra"), 1, "config.extra"),
        (("actions",), 7, "actions"),
        (("version",), "2", "version"),
        (("game",), "five_card_draw", "game"),
    ],
)
def test_red_dog_history_with_a_bad_field_names_it(
    path: tuple[str, ...], value: object, field: str
) -> None:
    d = red_dog_history()
    node = d
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    with pytest.raises(HistoryError) as err:
        RedDogGame.from_json(json.dumps(d))
    assert err.value.field == field


@pytest.mark.parametrize("item", [[1, 1.5], [1], "bet", [5, 1], [1, 10**20], None])
def test_red_dog_history_bad_action_names_it(item: object) -> None:
    d = red_dog_history()
    d["actions"][2] = item
    with pytest.raises(HistoryError) as err:
        RedDogGame.from_json(json.dumps(d))
    assert err.value.field == "actions[2]"


@pytest.mark.parametrize("key", ["config", "key", "actions", "result"])
def test_red_dog_history_missing_a_field_names_it(key: str) -> None:
    d = red_dog_history()
    del d[key]
    with pytest.raises(HistoryError) as err:
        RedDogGame.from_json(json.dumps(d))
    assert err.value.field == key


@pytest.mark.parametrize("text", ["", "[1]", b"\x80", "{'key': 1}", "1e999"])
def test_red_dog_corrupt_text_is_a_history_error(text: str) -> None:
    with pytest.raises(HistoryError) as err:
        RedDogGame.from_json(text)
    assert err.value.field == "text"


# ================================================================ histories: Hold'em


def test_holdem_hand_record_claims_and_round_trip() -> None:
    g = showdown_hand()
    d = json.loads(g.to_json())
    assert d["game"] == "holdem" and d["version"] == 2
    assert d["final_stacks"] == g.stacks() and d["result"]["payouts"] == g.payouts
    assert d["result"]["board"] == g.board() and len(g.board().split()) == 5
    assert replay_json(g.to_json()).stacks() == g.stacks()
    old = {k: v for k, v in d.items() if k not in ("game", "version", "result")}
    assert replay_json(json.dumps(old)).stacks() == g.stacks()


def test_holdem_record_bank_is_the_tables_total_checked_from_its_start_bank() -> None:
    # Escape penalties burned in earlier hands are in the record's bank (the table's
    # total, as before); the replay checks it from start_bank.
    g = HoldemGame(HoldemConfig(num_seats=3), rng=2)
    g.start_hand()
    g.leave(g.to_act)  # penalty 10 x E = 20 burned
    while g.phase == "betting":
        g.check_or_call()
    g._close_hand()
    for q in range(3):
        if g._status(q) == K.EMPTY:
            g.join(q)
    g.start_hand()
    while not g.is_hand_over:
        g.check_or_call()
    d = json.loads(g.to_json())
    assert d["start_bank"] == 20 and d["bank"] == 20
    replay_json(json.dumps(d))
    d["start_bank"] = 0
    with pytest.raises(HistoryError) as err:
        replay_json(json.dumps(d))
    assert err.value.field == "bank"


def test_holdem_record_taken_after_the_table_changed_still_replays() -> None:
    # The claims are what the hand came to, kept when it closed: joins and leavers'
    # departures after it do not make its record contradict its replay.
    g = showdown_hand()
    text = g.to_json()
    g.remove(0)
    g.join(0, stack=77)
    assert g.to_json() == text
    assert replay_json(g.to_json()).stacks() == json.loads(text)["final_stacks"]


@pytest.mark.parametrize(
    ("field", "edit"),
    [
        ("final_stacks", lambda d: d["final_stacks"].__setitem__(0, d["final_stacks"][0] + 1)),
        ("bank", lambda d: d.__setitem__("bank", 20)),
        ("result.board", lambda d: d["result"].__setitem__("board", "2c 3c 4c 5c 6c")),
        ("result.payouts", lambda d: d["result"].__setitem__("payouts", [0, 0, 0])),
        ("result.phase", lambda d: d["result"].__setitem__("phase", "betting")),
        ("result.street", lambda d: d["result"].__setitem__("street", "flop")),
        ("result.pot", lambda d: d["result"].__setitem__("pot", 5)),
        ("result.to_act", lambda d: d["result"].__setitem__("to_act", 1)),
    ],
)
def test_holdem_record_with_a_tampered_claim_is_refused(field: str, edit: Any) -> None:
    d = json.loads(showdown_hand().to_json())
    edit(d)
    with pytest.raises(HistoryError) as err:
        replay_json(json.dumps(d))
    assert err.value.field == field


def test_holdem_truncated_or_tampered_actions_are_refused() -> None:
    d = json.loads(showdown_hand().to_json())
    for cut in (1, 2, len(d["actions"])):
        with pytest.raises(HistoryError):
            replay_json(json.dumps(dict(d, actions=d["actions"][:-cut])))
    calls = [i for i, a in enumerate(d["actions"]) if a["action"] == "call"]
    bad = json.loads(json.dumps(d))
    bad["actions"][calls[0]]["amount"] += 1  # what the call moved: a claim too
    with pytest.raises(HistoryError) as err:
        replay_json(json.dumps(bad))
    assert err.value.field == f"actions[{calls[0]}]" and "replay gives" in str(err.value)
    raises = [i for i, a in enumerate(d["actions"]) if a["action"] == "raise_to"]
    for value in (10**30, 4.5, "8", None):
        bad = json.loads(json.dumps(d))
        bad["actions"][raises[0]]["to"] = value
        with pytest.raises(HistoryError) as err:
            replay_json(json.dumps(bad))
        assert err.value.field == f"actions[{raises[0]}]"


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("config", {"num_seats": 3}, "config.base"),
        ("config", "six", "config"),
        ("seated", [True, True], "seated"),
        ("seated", [1, 1, 1], "seated"),
        ("start_stacks", [200, -200, 200], "start_stacks"),
        ("start_stacks", [200, 200.5, 200], "start_stacks"),
        ("start_stacks", [2**62, 2**62, 200], "start_stacks"),
        ("button", 7, "button"),
        ("button", 1.0, "button"),
        ("deck", "As Ks", "deck"),
        ("deck", [0.5] * 52, "deck"),
        ("actions", "fold", "actions"),
        ("version", 0, "version"),
        ("result", [1], "result"),
    ],
)
def test_holdem_record_with_a_bad_field_names_it(key: str, value: object, field: str) -> None:
    d = json.loads(showdown_hand().to_json())
    d[key] = value
    with pytest.raises(HistoryError) as err:
        replay_json(json.dumps(d))
    assert err.value.field == field


@pytest.mark.parametrize(
    "key",
    ["config", "start_stacks", "seated", "button", "deck", "actions", "start_bank", "final_stacks"],
)
def test_holdem_record_missing_a_field_names_it(key: str) -> None:
    d = json.loads(showdown_hand().to_json())
    del d[key]
    with pytest.raises(HistoryError) as err:
        replay_json(json.dumps(d))
    assert err.value.field == key


@pytest.mark.parametrize("text", ["", "{", b"\xc3\x28", "[]", "3"])
def test_holdem_corrupt_text_is_a_history_error(text: str) -> None:
    with pytest.raises(HistoryError) as err:
        replay_json(text)
    assert err.value.field == "text"


# ================================================================ histories: PHH


def standard_phh() -> str:
    return to_phh(showdown_hand(rules="standard"))


def test_phh_export_claims_the_finishing_stacks_and_import_checks_them() -> None:
    g = showdown_hand(rules="standard")
    text = to_phh(g)
    line = next(x for x in text.splitlines() if x.startswith("finishing_stacks"))
    assert from_phh(text).stacks() == [int(x) for x in line.split("[")[1].rstrip("]").split(",")]
    # Tampered: one chip moved between two players.
    nums = [int(x) for x in line.split("[")[1].rstrip("]").split(",")]
    nums[0] += 1
    nums[1] -= 1
    tampered = text.replace(line, f"finishing_stacks = {nums}")
    with pytest.raises(HistoryError) as err:
        from_phh(tampered)
    assert err.value.field == "finishing_stacks"


def test_phh_truncated_history_is_refused() -> None:
    text = standard_phh()
    actions_line = next(x for x in text.splitlines() if x.startswith("actions"))
    items = actions_line.split(", ")
    # The last betting action dropped (shown hands follow it).
    betting = [i for i, x in enumerate(items) if " cc" in x or " cbr" in x or " f" in x]
    cut = ", ".join(items[: betting[-1]] + items[betting[-1] + 1 :])
    with pytest.raises(HistoryError):
        from_phh(text.replace(actions_line, cut))


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (b"variant = 'NT'", "text"),
        (None, "text"),
        ("variant = ", "text"),
        ("x = 1", "variant"),
        (
            'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [10**20, 0]\n'
            "min_bet = 2\nstarting_stacks = [5, 5]\nactions = []\n",
            "text",
        ),
        (
            'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [5000000000000000000,'
            " 10000000000000000000]\nmin_bet = 2\nstarting_stacks = [5, 5]\nactions = []\n",
            "blinds_or_straddles",
        ),
        (
            'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [500000000000000000,'
            " 1000000000000000000]\nmin_bet = 1000000000000000000\n"
            "starting_stacks = [5, 5]\nactions = []\n",
            "blinds_or_straddles",
        ),
        (
            'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
            "starting_stacks = [5.5, 5]\nactions = []\n",
            "starting_stacks[0]",
        ),
        (
            'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
            'starting_stacks = [5, 5]\nactions = ["d dh p1 AsKs", "d dh p2 QsJs", "p9 cc"]\n',
            "actions[2]",
        ),
    ],
)
def test_phh_bad_text_is_a_history_error_naming_the_field(text: object, field: str) -> None:
    with pytest.raises(HistoryError) as err:
        from_phh(text)  # type: ignore[arg-type]
    assert err.value.field == field
    assert isinstance(err.value, ValueError) and isinstance(err.value, PokerEnvError)
