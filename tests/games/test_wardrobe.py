"""The computer's clothing stakes (RULES.md §1, "Clothing stakes"), kernel by kernel."""

from __future__ import annotations

import numpy as np
import pytest

from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig
from poker_env.games.wardrobe import (
    DEFAULT_WARDROBE,
    buy_back,
    can_buy_back,
    default_wants_buy_back,
    reset_wardrobe,
    settle_stakes,
    stake_to_cover,
    wardrobe_state,
    worth,
)


def table(
    money: int = 0, item_value: int = 100, reserve: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    cfg = DrawConfig(item_value=item_value, buyback_reserve=reserve).to_array()
    s = np.zeros(L.NUM_COLS, np.int64)
    reset_wardrobe(s, cfg)
    s[L.S_STACK + L.COMPUTER] = money
    return s, cfg


def state(s: np.ndarray) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    w = wardrobe_state(s, DEFAULT_WARDROBE)
    return w.worn, w.at_stake, w.lost


def test_rule_six_items_named_plainly_all_worn_at_start() -> None:
    s, _ = table()
    assert state(s) == (("hat", "scarf", "gloves", "jacket", "shoes", "belt"), (), ())
    assert s[L.S_BANK] == 0


def test_rule_staking_takes_the_next_worn_item_and_pays_its_value() -> None:
    s, cfg = table(money=3)
    stake_to_cover(s, cfg, 5)  # 3 < 5: the hat goes at stake, she receives 100
    assert state(s)[1] == ("hat",)
    assert s[L.S_STACK + L.COMPUTER] == 103 and s[L.S_BANK] == -100


def test_rule_staking_only_as_many_items_as_needed() -> None:
    s, cfg = table(money=0)
    stake_to_cover(s, cfg, 250)  # 0 -> 100 -> 200 -> 300: three items
    assert state(s)[1] == ("hat", "scarf", "gloves")
    s2, cfg2 = table(money=50)
    stake_to_cover(s2, cfg2, 50)  # she has it: nothing staked
    assert state(s2)[1] == ()


def test_rule_staking_stops_when_no_item_is_left() -> None:
    s, cfg = table(money=0)
    stake_to_cover(s, cfg, 10_000)
    assert state(s)[0] == () and len(state(s)[1]) == 6
    assert s[L.S_STACK + L.COMPUTER] == 600


def test_rule_settling_loses_the_stakes_when_she_loses() -> None:
    s, cfg = table(money=0)
    stake_to_cover(s, cfg, 150)
    settle_stakes(s, cfg, False)
    assert state(s) == (("gloves", "jacket", "shoes", "belt"), (), ("hat", "scarf"))
    # The chips she received stay in play; the bank is owed nothing back.
    assert s[L.S_BANK] == -200


def test_rule_settling_redeems_the_stakes_when_she_wins() -> None:
    s, cfg = table(money=0)
    stake_to_cover(s, cfg, 150)  # 200 received
    s[L.S_STACK + L.COMPUTER] = 260  # after winning a pot
    settle_stakes(s, cfg, True)
    assert state(s)[1:] == ((), ())
    assert s[L.S_STACK + L.COMPUTER] == 60 and s[L.S_BANK] == 0


@pytest.mark.parametrize(
    ("money", "pot", "staked", "expected"),
    [
        (110, 0, False, True),  # value 100 + reserve 10
        (109, 0, False, False),
        (500, 20, False, False),  # a pot is pending (a tie)
        (500, 0, True, False),  # an item is still at stake
    ],
)
def test_rule_buy_back_only_with_value_plus_reserve_and_no_pot_pending(
    money: int, pot: int, staked: bool, expected: bool
) -> None:
    s, cfg = table(money=0)
    stake_to_cover(s, cfg, 1)
    settle_stakes(s, cfg, False)  # the hat is lost
    if staked:
        s[L.S_STACK + L.COMPUTER] = 0
        stake_to_cover(s, cfg, 1)
    s[L.S_STACK + L.COMPUTER] = money
    s[L.S_POT] = pot
    assert can_buy_back(s, cfg) == expected
    assert default_wants_buy_back(s, cfg) == expected


def test_rule_buy_back_pays_the_bank_and_restores_the_last_lost_item() -> None:
    s, cfg = table(money=0)
    stake_to_cover(s, cfg, 150)
    settle_stakes(s, cfg, False)  # hat and scarf lost, bank -200
    s[L.S_STACK + L.COMPUTER] = 300
    assert buy_back(s, cfg) == 1  # the scarf, lost last
    assert "scarf" in state(s)[0] and state(s)[2] == ("hat",)
    assert s[L.S_STACK + L.COMPUTER] == 200 and s[L.S_BANK] == -100


def test_nothing_to_buy_back_without_a_lost_item() -> None:
    s, cfg = table(money=1000)
    assert not can_buy_back(s, cfg)
    assert buy_back(s, cfg) == -1


def test_worth_counts_money_and_worn_items_only() -> None:
    s, cfg = table(money=40)
    assert worth(s, cfg, L.COMPUTER) == 40 + 600
    stake_to_cover(s, cfg, 100)  # +100 chips, one item at stake: worth unchanged
    assert worth(s, cfg, L.COMPUTER) == 640
    s[L.S_STACK + L.HUMAN] = 77
    assert worth(s, cfg, L.HUMAN) == 77
