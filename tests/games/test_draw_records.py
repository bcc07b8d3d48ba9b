"""Five-card draw hand histories: the default rule's buy-back between hands is a record.

RULES.md §1 "Buying back" (between hands, she may buy back a lost item, paying its
value to the bank) and "Everywhere" (every hand can be written as a history and
replayed; every chip is always somewhere).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from poker_env.cards import parse_cards
from poker_env.games import draw_layout as L
from poker_env.games.draw import (
    COMPUTER,
    ActionRecord,
    DrawAction,
    DrawConfig,
    DrawGame,
    DrawPhase,
)

A = DrawAction


def rig(game: DrawGame, human: str, computer: str) -> None:
    game.state[L.S_HANDS : L.S_HANDS + 10] = parse_cards(f"{human} {computer}")


def play_hand(game: DrawGame, human_bets: int = 0) -> list[ActionRecord]:
    # Both seats check or call through and keep their cards; the human opens with a
    # bet of `human_bets` where he may. Returns the records the hand added.
    start = len(game.history)
    hand_no = game.hand_no
    while game.hand_no == hand_no and not game.is_over:
        legal = {x.action: x for x in game.legal_actions()}
        if human_bets and game.to_act == 0 and A.BET in legal:
            game.act(A.BET, human_bets)
        elif A.DISCARD in legal:
            game.act(A.DISCARD, 0)
        else:
            game.act(next(a for a in (A.STAY, A.DRAW, A.CALL) if a in legal))
        assert game.chips_total() == 2 * game.config.starting_money
    return game.history[start:]


def test_rule_buy_back_between_hands_is_recorded_hand_worked() -> None:
    # 10 chips each, ante 5, two items worth 10, no reserve: hand 1 he wins her
    # money, hand 2 she stakes the hat for the ante and loses it, hand 3 she wins
    # 10 = the hat's value + reserve 0 and buys it back before hand 4's ante.
    cfg = DrawConfig(
        starting_money=10, ante=5, wardrobe=("hat", "scarf"), item_value=10, buyback_reserve=0
    )
    game = DrawGame(cfg, seed=0)
    rig(game, "As Ah Ad 2c 3d", "Kc Qd 9h 5s 4c")
    recs = play_hand(game, human_bets=5)
    assert recs[-1].outcome is not None and recs[-1].outcome.winner == 0
    assert recs[-1].outcome.pot == 20 and game.stacks == (15, 5) and game.bank == -10
    assert not any(r.action == A.BUY_BACK for r in recs)
    rig(game, "As Ah Ad 2c 3d", "Kc Qd 9h 5s 4c")
    recs = play_hand(game)
    assert recs[-1].outcome is not None and recs[-1].outcome.items_lost == ("hat",)
    # Money 5 < value 10 + reserve 0: no buy-back; hand 3's ante took her last 5.
    assert not any(r.action == A.BUY_BACK for r in recs)
    assert game.stacks == (20, 0) and game.wardrobe.lost == ("hat",)
    rig(game, "Kc Qd 9h 5s 4c", "As Ah Ad 2c 3d")
    recs = play_hand(game)
    ended, bought = recs[-2], recs[-1]
    assert ended.outcome is not None and ended.outcome.winner == COMPUTER
    assert bought == ActionRecord(
        hand_no=3,
        seat=COMPUTER,
        phase=DrawPhase.HAND_END,
        action=A.BUY_BACK,
        amount=0,
        chips_in=0,
        item_bought_back="hat",
        bank_paid=10,
        automatic=True,
    )
    # She won 10, paid 10 for the hat (bank back to 0), then staked it again for
    # hand 4's ante (bank -10, her money 10 - 5).
    assert game.hand_no == 4 and game.stacks == (15, 5) and game.bank == -10
    assert game.wardrobe.at_stake == ("hat",) and game.wardrobe.lost == ()
    # The saved history holds the players' actions only; the replay redoes the rule.
    actions = json.loads(game.to_json())["actions"]
    assert len(actions) == sum(not r.automatic for r in game.history)
    assert ["BUY_BACK", 0] not in actions


def _random_act(game: DrawGame, rng: np.random.Generator) -> None:
    legal = game.legal_actions()
    la = legal[int(rng.integers(len(legal)))]
    if la.action == A.DISCARD:
        game.act(la.action, int(rng.integers(32)))
    elif la.action in (A.BET, A.RAISE):
        game.act(la.action, int(rng.integers(la.min_amount, la.max_amount + 1)))
    else:
        game.act(la.action)


@pytest.mark.parametrize("deck", [52, 32])
def test_random_matches_record_every_buy_back_conserve_chips_and_replay(deck: int) -> None:
    cfg = DrawConfig(deck=deck, starting_money=40, ante=5, item_value=15)
    rng = np.random.default_rng(deck)
    seen = 0
    for seed in range(12):
        game = DrawGame(cfg, seed=seed)
        while not game.is_over and game.hand_no < 300:
            n = len(game.history)
            lost, bank = len(game.wardrobe.lost), game.bank
            _random_act(game, rng)
            new = game.history[n:]
            # RULES.md Everywhere: stacks + pot + bank never change in sum, and the
            # bank holds exactly her items at stake and lost.
            assert game.chips_total() == 2 * cfg.starting_money
            w = game.wardrobe
            assert game.bank == -cfg.item_value * (len(w.at_stake) + len(w.lost))
            auto = [r for r in new if r.automatic]
            assert len(auto) <= 1 and all(not r.automatic for r in new[:1])
            if auto:
                seen += 1
                (rec,) = auto
                out = new[0].outcome
                assert out is not None and out.winner is not None
                assert (rec.seat, rec.action, rec.bank_paid) == (COMPUTER, A.BUY_BACK, 15)
                assert rec.item_bought_back in cfg.wardrobe and rec.hand_no == new[0].hand_no
                # One lost item fewer than the hand left; the bank got its value
                # back, plus redeemed items, less what the next ante staked.
                assert len(w.lost) == lost + len(out.items_lost) - 1
                assert rec.item_bought_back not in w.lost
                redeemed = len(out.items_redeemed)
                assert game.bank - bank == 15 * (redeemed + 1 - len(w.at_stake))
        replay = DrawGame.from_json(game.to_json())
        assert replay.history == game.history
        assert np.array_equal(replay.state, game.state)
    assert seen >= 5


def test_decided_buy_back_record_names_the_item_and_price() -> None:
    cfg = DrawConfig(starting_money=40, ante=5, item_value=15)
    rng = np.random.default_rng(3)
    for seed in range(40):
        game = DrawGame(cfg, seed=seed, buyback="decide")
        while not game.is_over and game.hand_no < 300:
            if game.phase == DrawPhase.BUY_BACK:
                lost = game.wardrobe.lost
                rec = game.act(A.BUY_BACK)
                assert (rec.item_bought_back, rec.bank_paid, rec.automatic) == (lost[-1], 15, False)
                assert not any(r.automatic for r in game.history)
                return
            _random_act(game, rng)
    raise AssertionError("no buy-back decision reached")
