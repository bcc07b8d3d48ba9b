"""poker_env_agents.analysis.stats: what the notebooks measure, against hand-worked hands and the rules."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from poker_env.cards import format_cards, make_deck, parse_cards
from poker_env.errors import ConfigError
from poker_env.games.holdem import HoldemConfig, HoldemGame, replay_json
from poker_env.policy import RandomPolicy
from poker_env_agents.analysis import stats as S
from poker_env_agents.baselines.red_dog import AlwaysForfeitPolicy, ReferencePolicy
from poker_env_agents.registry import make_baseline
from poker_env_agents.runtime import PolicyFileError, load_policy

# ----- Hold'em statistics from hand records ---------------------------------------------

# Three seats, button 0 (BTN 0, SB 1, BB 2). The deal goes one card at a time from the
# small blind: SB 7c, BB 9s, BTN As, SB 2d, BB 9h, BTN Ah; board Kd Qc 5h 4s 3c.
HAND_A_DECK = "7c 9s As 2d 9h Ah Kd Qc 5h 4s 3c"


def _deck(first: str) -> str:
    head = parse_cards(first).tolist()
    return format_cards(head + [c for c in make_deck("standard").tolist() if c not in head])


def _hand_a() -> dict[str, Any]:
    """BTN raises to 6, SB calls, BB folds; flop SB checks, BTN bets 8, SB calls; turn
    checked; river SB bets 10, BTN raises to 30, SB calls; BTN's aces win 90 chips."""
    g = HoldemGame(HoldemConfig(num_seats=3), rng=np.random.default_rng(0))
    g.start_hand(deck=_deck(HAND_A_DECK), button=0)
    assert (g.hole_cards(0), g.hole_cards(1), g.hole_cards(2)) == ("As Ah", "7c 2d", "9s 9h")
    g.raise_to(6)
    g.check_or_call()
    g.fold()
    g.check_or_call()  # flop: SB checks
    g.raise_to(8)
    g.check_or_call()
    g.check_or_call()  # turn
    g.check_or_call()
    g.raise_to(10)  # river: SB bets
    g.raise_to(30)
    g.check_or_call()
    assert g.is_hand_over
    return g.hand_record()


def _hand_b() -> dict[str, Any]:
    """Button 1 (BTN 1, SB 2, BB 0): BTN folds, SB folds: the big blind's walk."""
    g = HoldemGame(HoldemConfig(num_seats=3), rng=np.random.default_rng(1))
    g.start_hand(button=1)
    g.fold()
    g.fold()
    assert g.is_hand_over
    return g.hand_record()


def _hand_c() -> dict[str, Any]:
    """Button 2 (BTN 2, SB 0, BB 1): BTN and SB call, the big blind checks; all checked
    down to a showdown of the three."""
    g = HoldemGame(HoldemConfig(num_seats=3), rng=np.random.default_rng(2))
    g.start_hand(button=2)
    while not g.is_hand_over:
        g.check_or_call()
    return g.hand_record()


def _by(stats: list[S.HoldemPlayerStats]) -> dict[tuple[str, str], S.HoldemPlayerStats]:
    return {(s.player, s.position): s for s in stats}


def test_hand_worked_records_give_vpip_pfr_aggression_and_showdown_winnings() -> None:
    a, b = _hand_a(), _hand_b()
    assert a["final_stacks"] == [246, 156, 198]  # +46, -44, -2 chips (base 2: 1 bb = 2 chips)
    stats = _by(S.holdem_stats([a, b], ["hero", "villain", "folder"]))
    hero = stats[("hero", "BTN")]
    assert (hero.hands, hero.vpip, hero.pfr) == (1, 1.0, 1.0)
    assert hero.aggression == math.inf  # a flop bet and a river raise, no call
    assert (hero.went_to_showdown, hero.won_at_showdown) == (1.0, 1.0)
    assert hero.showdown_bb_per_100 == pytest.approx(2300.0)  # +23 bb in one hand
    walk = stats[("hero", "BB")]
    assert (walk.vpip, walk.pfr, walk.went_to_showdown) == (0.0, 0.0, 0.0)
    assert math.isnan(walk.aggression) and math.isnan(walk.won_at_showdown)
    assert walk.net_bb_per_100 == pytest.approx(50.0)  # the small blind, half a big blind
    hero_all = stats[("hero", "all")]
    assert (hero_all.hands, hero_all.vpip, hero_all.pfr) == (2, 0.5, 0.5)
    assert hero_all.net_bb_per_100 == pytest.approx(100 * 23.5 / 2)
    assert hero_all.showdown_bb_per_100 == pytest.approx(100 * 23 / 2)
    villain = stats[("villain", "SB")]
    assert (villain.vpip, villain.pfr) == (1.0, 0.0)  # called the raise
    assert villain.aggression == pytest.approx(0.5)  # one river bet, two calls
    assert (villain.went_to_showdown, villain.won_at_showdown) == (1.0, 0.0)
    assert villain.showdown_bb_per_100 == pytest.approx(-2200.0)
    folder = stats[("folder", "BB")]
    assert (folder.vpip, folder.went_to_showdown) == (0.0, 0.0)  # a fold to a raise
    assert folder.net_bb_per_100 == pytest.approx(-100.0)
    assert stats[("folder", "all")].net_bb_per_100 == pytest.approx(-75.0)
    # Positions in seat order, then "all", players in seat order.
    order = [(s.player, s.position) for s in S.holdem_stats([a, b], ["hero", "villain", "folder"])]
    assert order[:3] == [("hero", "BTN"), ("hero", "BB"), ("hero", "all")]


def test_the_big_blind_checking_is_not_voluntary() -> None:
    stats = _by(S.holdem_stats([_hand_c()], ["sb", "bb", "btn"]))
    assert (stats[("btn", "BTN")].vpip, stats[("sb", "SB")].vpip) == (1.0, 1.0)  # calls
    assert stats[("bb", "BB")].vpip == 0.0  # a free check
    assert all(stats[(p, "all")].went_to_showdown == 1.0 for p in ("sb", "bb", "btn"))
    assert all(math.isnan(stats[(p, "all")].aggression) for p in ("sb", "bb", "btn"))


def test_an_all_in_is_a_raise_above_the_bet_and_a_call_at_or_below_it() -> None:
    record = {
        "config": {"num_seats": 2, "base": 2},
        "seated": [True, True],
        "button": 0,
        "start_stacks": [200, 10],
        "final_stacks": [190, 20],
        "actions": [
            {"street": "preflop", "seat": 0, "action": "raise_to", "amount": 19, "to": 20},
            # seat 1 holds 10: its all-in to 10 is a call for less than 20.
            {"street": "preflop", "seat": 1, "action": "all_in", "amount": 8, "to": 10},
        ],
    }
    shove = {
        **record,
        "final_stacks": [210, 0],
        "actions": [
            {"street": "preflop", "seat": 0, "action": "all_in", "amount": 199, "to": 200},
            {"street": "preflop", "seat": 1, "action": "all_in", "amount": 8, "to": 10},
        ],
    }
    stats = _by(S.holdem_stats([record, json.dumps(shove)], ["a", "b"]))
    assert stats[("b", "BB")].vpip == 1.0 and stats[("b", "BB")].pfr == 0.0
    assert stats[("a", "BTN/SB")].pfr == 1.0  # raise_to, then an all-in above the big blind
    assert stats[("b", "BB")].went_to_showdown == 1.0  # nobody folded
    assert stats[("b", "BB")].won_at_showdown == 0.5  # won one, lost one
    assert stats[("b", "BB")].net_bb_per_100 == pytest.approx(100 * (5 - 5) / 2)


def test_records_from_phh_give_the_same_statistics() -> None:
    from poker_env.games.holdem_phh import from_phh, to_phh

    g = HoldemGame(HoldemConfig(num_seats=3, rules="standard"), rng=np.random.default_rng(0))
    g.start_hand(deck=_deck(HAND_A_DECK), button=0)
    for act in ("raise_to 6", "call", "fold", "call", "raise_to 8", "call", "call", "call"):
        kind, _, amount = act.partition(" ")
        g.raise_to(int(amount)) if kind == "raise_to" else g.fold() if kind == "fold" else (
            g.check_or_call()
        )
    while not g.is_hand_over:
        g.check_or_call()
    record = g.hand_record()
    again = from_phh(to_phh(record)).hand_record()

    def key(rec: dict[str, Any]) -> list[tuple[Any, ...]]:
        return sorted(
            (s.position, s.vpip, s.pfr, s.aggression, s.net_bb_per_100)
            for s in S.holdem_stats([rec])
        )

    assert key(again) == key(record)


def test_bad_records_and_names_are_refused() -> None:
    a = _hand_a()
    with pytest.raises(ValueError, match="2 names for a table of 3 seats"):
        S.holdem_stats([a], ["x", "y"])
    six = json.loads(json.dumps(a))
    six["config"]["num_seats"] = 6
    with pytest.raises(ValueError, match="different sizes"):
        S.holdem_stats([a, six])
    assert S.holdem_stats([]) == []


@pytest.mark.parametrize(
    ("n", "names"),
    [
        (2, ["BTN/SB", "BB"]),
        (3, ["BTN", "SB", "BB"]),
        (6, ["BTN", "SB", "BB", "UTG", "HJ", "CO"]),
        (9, ["BTN", "SB", "BB", "UTG", "UTG+1", "UTG+2", "LJ", "HJ", "CO"]),
    ],
)
def test_position_names(n: int, names: list[str]) -> None:
    assert S.position_names(n) == names


@pytest.mark.parametrize("n", [1, 11, 2.0, "6"])
def test_position_names_refuse_bad_counts(n: object) -> None:
    with pytest.raises(ConfigError, match="num_players"):
        S.position_names(n)  # type: ignore[arg-type]


class _Recorder:
    """Check/call always; keeps every observation it was shown, by seat."""

    def __init__(self, seat: int, seen: dict[int, list[np.ndarray]]) -> None:
        self.seat, self.seen = seat, seen

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.seen.setdefault(self.seat, []).append(obs[0].copy())
        return np.ones(len(masks), np.int64)


def test_a_table_of_policies_writes_valid_histories() -> None:
    players = [
        make_baseline("holdem", "heuristic", seed=1, num_players=4),
        make_baseline("holdem", "call", num_players=4),
        RandomPolicy(2),
        RandomPolicy(3),
    ]
    records = S.play_holdem_hands(players, hands=24, seed=5)
    assert len(records) == 24
    assert [r["button"] for r in records] == [h % 4 for h in range(24)]
    for r in records:
        assert r["start_stacks"] == [200] * 4  # a full 100-big-blind stack every hand
        assert sum(r["final_stacks"]) == 800  # RULES.md "every chip is always somewhere"
        # Each history replays in the engine to the stacks it claims.
        assert replay_json(json.dumps(r)).stacks() == r["final_stacks"]
    stats = _by(S.holdem_stats(records, ["heuristic", "call", "r1", "r2"]))
    call = stats[("call", "all")]
    assert call.pfr == 0.0  # a call station never raises ...
    assert call.aggression == 0.0 or math.isnan(call.aggression)  # ... nor bets
    fresh = [
        make_baseline("holdem", "heuristic", seed=1, num_players=4),
        make_baseline("holdem", "call", num_players=4),
        RandomPolicy(2),
        RandomPolicy(3),
    ]
    assert S.play_holdem_hands(fresh, hands=24, seed=5) == records  # same seeds, same hands


def test_each_player_sees_its_own_hole_cards_as_the_env_shows_them() -> None:
    seen: dict[int, list[np.ndarray]] = {}
    records = S.play_holdem_hands([_Recorder(s, seen) for s in range(3)], hands=1, seed=0)
    game = replay_json(json.dumps(records[0]))
    for seat in range(3):
        # docs/holdem.md: entries 0:52 are the own hole cards one-hot, 110+3n:110+4n
        # who is still in; an observation of 110 + 8n + 4 entries.
        first = seen[seat][0]
        assert first.shape == (110 + 8 * 3 + 4,)
        held = format_cards(np.flatnonzero(first[:52]))
        assert sorted(held.split()) == sorted(game.hole_cards(seat).split())


def test_a_player_choosing_a_masked_action_is_named() -> None:
    class Folder:
        """Calls a bet, folds where checking is free (folding is masked out there)."""

        def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
            # docs/holdem.md: entry 109 is the chips needed to call.
            return (obs[:, 109] > 0).astype(np.int64)

    # Heads-up the small blind calls; the big blind may check, and folds instead.
    with pytest.raises(ValueError, match=r"player \d chose action 0, legal: \[1"):
        S.play_holdem_hands([Folder(), Folder()], hands=4, seed=0)
    with pytest.raises(ConfigError, match="players"):
        S.play_holdem_hands([Folder()], hands=1)
    with pytest.raises(ConfigError, match="hands"):
        S.play_holdem_hands([Folder(), Folder()], hands=0)


# ----- five-card draw ------------------------------------------------------------------

NUM_ACTIONS = 39  # docs/draw.md: 2 + K + 33 with K = 4 (three pot fractions and all-in)
FIRST_DISCARD = 6


def _draw_decisions(rows: list[tuple[str, int, int]], deck: int = 52) -> S.Decisions:
    """Synthetic decisions: (cards, phase, action) per row, every action legal."""
    obs = np.zeros((len(rows), 124), np.float32)
    for i, (cards, phase, _) in enumerate(rows):
        obs[i, 0:5] = parse_cards(cards)
        obs[i, 57] = phase
    masks = np.ones((len(rows), NUM_ACTIONS), np.int8)
    acts = np.array([a for _, _, a in rows], np.int64)
    return S.Decisions(obs, masks, acts, "draw", {"deck": deck})


def test_draw_action_kinds_follow_the_documented_action_table() -> None:
    kinds = S.draw_action_kinds(np.arange(39), 39)
    assert kinds.tolist() == [0, 1, 2, 2, 2, 2] + [3] * 32 + [4]
    with pytest.raises(ValueError, match="outside"):
        S.draw_action_kinds(np.array([39]), 39)
    with pytest.raises(ValueError, match="not a five-card draw"):
        S.draw_action_kinds(np.array([0]), 30)


def test_betting_counts_by_round_category_and_kind() -> None:
    d = _draw_decisions(
        [
            ("As Ad 7c 8h 2s", 0, 2),  # a pair before the draw: a bet
            ("As Ad 7c 8h 2s", 0, 1),  # ... a check
            ("Kh Qh 9h 5h 3h", 2, 5),  # a flush after the draw: all-in
            ("Ac 7d 8h 9s Tc", 2, 0),  # 52 cards: ace high; dropped
            ("Ac 7d 8h 9s Tc", 1, FIRST_DISCARD),  # the draw itself: not a betting round
        ]
    )
    counts = S.draw_betting_counts(d)
    assert counts.sum() == 4
    assert counts[0, 1].tolist() == [0, 1, 1]
    assert counts[1, 5].tolist() == [0, 0, 1]
    assert counts[1, 0].tolist() == [1, 0, 0]
    # In the 32-card deck A-7-8-9-T is a straight (RULES.md §0).
    short = S.draw_betting_counts(_draw_decisions([("Ac 7d 8h 9s Tc", 2, 0)], deck=32))
    assert short[1, 4].tolist() == [1, 0, 0]


def test_discard_choices_against_the_best_equity_discard() -> None:
    d = _draw_decisions(
        [
            ("As Ad 7c 8h 2s", 1, FIRST_DISCARD + 0b11100),  # keep the aces, draw three
            ("As Ad 7c 8h 2s", 1, FIRST_DISCARD),  # stand pat on a pair of aces
            ("9s Ts Js Qs Ks", 1, FIRST_DISCARD),  # a pat straight flush
            ("9s Ts Js Qs Ks", 0, 1),  # not a draw
        ]
    )
    ch = S.draw_discard_choices(d)
    assert ch.chosen.tolist() == [0b11100, 0, 0]
    assert ch.best.tolist() == [0b11100, 0b11100, 0]  # the docstring's hand-worked draw
    assert ch.is_best.tolist() == [True, False, True]
    assert ch.equity_lost[0] == 0 and ch.equity_lost[1] > 0.02
    assert ch.cards_drawn.tolist() == [3, 0, 0]
    assert ch.best_cards_drawn.tolist() == [3, 3, 0]


def test_buy_back_offers_are_the_buy_back_phase_with_buy_back_legal() -> None:
    obs = np.zeros((3, 124), np.float32)
    obs[:, 57] = 4  # the buy-back phase
    obs[:, 60] = [150, 120, 500]
    obs[:, 68] = [4, 5, 6]  # worn
    obs[:, 70] = [2, 1, 0]  # lost
    masks = np.zeros((3, NUM_ACTIONS), np.int8)
    masks[:, 1] = 1
    masks[:2, 38] = 1  # the third has nothing to buy back: no offer
    d = S.Decisions(obs, masks, np.array([38, 1, 1]), "draw-match", {"deck": 52})
    offers = S.buy_back_decisions(d)
    assert offers.money.tolist() == [150, 120]
    assert offers.items_lost.tolist() == [2, 1]
    assert offers.items_worn.tolist() == [4, 5]
    assert offers.bought.tolist() == [True, False]


def test_her_offers_in_real_matches_follow_the_rule_book() -> None:
    # The call station in her seat buys back whenever offered (RULES.md §1 default), and
    # she is offered only with at least an item's value plus the reserve (100 + 2 x 5).
    d = S.collect_decisions(
        make_baseline("draw-match", "call"),
        "draw-match",
        opponent=make_baseline("draw", "heuristic", seed=3),
        num_tables=64,
        steps=300,
        seed=0,
    )
    offers = S.buy_back_decisions(d)
    assert len(offers.money) > 0
    assert offers.bought.all()
    assert (offers.money >= 110).all()
    assert (offers.items_lost >= 1).all()


def test_collected_decisions_are_the_policy_s_legal_actions() -> None:
    policy = make_baseline("draw", "heuristic", seed=4)
    d = S.collect_decisions(policy, "draw", num_tables=16, steps=10, seed=7)
    assert len(d) == 160 and d.observations.shape == (160, 124)
    assert (d.masks[np.arange(160), d.actions] == 1).all()
    again = S.collect_decisions(
        make_baseline("draw", "heuristic", seed=4), "draw", num_tables=16, steps=10, seed=7
    )
    assert (again.actions == d.actions).all() and (again.observations == d.observations).all()

    class Bad:
        def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
            return np.full(len(masks), 38, np.int64)  # BUY_BACK, never legal in one pot

    with pytest.raises(ValueError, match="action 38 at table 0"):
        S.collect_decisions(Bad(), "draw", num_tables=4, steps=1)
    with pytest.raises(ConfigError, match="steps"):
        S.collect_decisions(policy, "draw", steps=0)


# ----- Red Dog -------------------------------------------------------------------------


def test_the_reference_bets_all_above_one_half_and_one_chip_below() -> None:
    bets = S.record_red_dog_bets(ReferencePolicy(), num_players=3, decisions=400, seed=2)
    assert len(bets.p) == 400
    high = bets.p > 0.5
    assert high.any() and (~high).any()
    # RULES.md §2: the maximum, min(pot, own chips), when p > 1/2, else 1 chip.
    assert (bets.amount[high] == bets.largest[high]).all()
    assert (bets.amount[~high] == 1).all()
    assert not bets.forfeit.any()
    assert bets.expected_chips == pytest.approx(bets.amount * (2 * bets.p - 1))
    assert ((bets.hands >= 0).sum(axis=1) == 5).all()
    folded = S.record_red_dog_bets(AlwaysForfeitPolicy(), num_players=3, decisions=50, seed=2)
    assert folded.forfeit.all() and (folded.expected_chips == -1).all()
    assert (folded.fraction == 0).all()


def test_chips_along_a_long_game_are_conserved() -> None:
    path = S.red_dog_chips(ReferencePolicy(), num_players=4, rounds=10, seed=3)
    # Every chip is somewhere: the seats and the pot hold the 4 x 50 chips throughout.
    assert ((path.chips.sum(axis=1) + path.pot) == 200).all()
    assert len(path.chips) >= 2
    assert (path.chips >= 0).all()


# ----- policies for the notebooks ------------------------------------------------------


def test_a_missing_or_broken_policy_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.npz"):
        S.find_or_train_policy("draw", model_path=tmp_path / "nope.npz")
    f = tmp_path / "p.npz"
    f.write_bytes(b"x")
    with pytest.raises(PolicyFileError, match=r"p\.npz"):
        S.find_or_train_policy("draw", model_path=f)  # not a policy file


def test_the_shipped_policy_when_it_exists_else_one_trained_and_then_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import poker_env_agents.opponent

    shipped = tmp_path / "models" / "red_dog.npz"
    monkeypatch.setattr(
        poker_env_agents.opponent, "shipped_model", lambda game, options=None: shipped
    )
    tiny = {"num_tables": 8, "num_groups": 2, "n_steps": 32, "batch_size": 64, "net_arch": [8]}
    found = S.find_or_train_policy(
        "red-dog", {"num_players": 3}, timesteps=256, out=tmp_path / "runs", **tiny
    )
    assert found.source == "trained" and found.path.is_file()
    env = S.get_game("red-dog").make_env({"num_players": 3})
    load_policy(found.path, env)  # an exported Red Dog policy for this env
    again = S.find_or_train_policy(
        "red-dog", {"num_players": 3}, timesteps=256, out=tmp_path / "runs", **tiny
    )
    assert (again.source, again.path) == ("reused", found.path)
    other = S.find_or_train_policy(
        "red-dog", {"num_players": 3}, timesteps=320, out=tmp_path / "runs", **tiny
    )
    assert other.source == "trained" and other.path != found.path
    given = S.find_or_train_policy("red-dog", {"num_players": 3}, model_path=found.path)
    assert (given.source, given.path) == ("given", found.path)
    with pytest.raises(PolicyFileError, match="num_players"):
        S.find_or_train_policy("red-dog", {"num_players": 5}, model_path=found.path)
    shipped.parent.mkdir()
    shipped.write_bytes(found.path.read_bytes())
    assert S.find_or_train_policy("red-dog", {"num_players": 3}).source == "shipped"


# ----- TensorBoard curves and benchmark tables -----------------------------------------


def test_scalars_of_a_resumed_run_are_joined_in_step_order(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    for name, points in (
        ("ppo_1", [(1, 1.0), (2, 2.0), (3, 3.0)]),
        ("ppo_2", [(3, 30.0), (4, 4.0)]),
    ):
        w = SummaryWriter(str(tmp_path / "tb" / name))
        for step, value in points:
            w.add_scalar("rollout/ep_rew_mean", value, step)
        w.close()
    curves = S.read_scalars(tmp_path)
    steps, values = curves["rollout/ep_rew_mean"]
    assert steps.tolist() == [1, 2, 3, 4]
    assert values.tolist() == [1.0, 2.0, 30.0, 4.0]  # the later log wins at step 3
    with pytest.raises(FileNotFoundError, match="no TensorBoard event files"):
        S.read_scalars(tmp_path / "empty")


def test_bench_tables_read_back_what_bench_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.common import Row, print_table

    print_table(
        "Hand evaluator (x86_64, 2 cores)",
        [
            Row("poker_env 7-card, 1 thread", 162_004_321.0, "evals/s", "target >= 150 M/s"),
            Row("treys 7-card", 78_123.0, "evals/s", "peer"),
            Row("pokerkit 7-card", float("nan"), "evals/s", "peer, not installed"),
            Row("object API", 4_700.0, "actions/s", ""),
            Row("poker_env exact AsAh vs KsKh", 2.1, "ms", ""),
        ],
    )
    text = "# poker_env benchmarks\nTraceback: ignored\n" + capsys.readouterr().out
    rows = S.parse_bench_output(text)
    assert [r.name for r in rows] == [
        "poker_env 7-card, 1 thread",
        "treys 7-card",
        "pokerkit 7-card",
        "object API",
        "poker_env exact AsAh vs KsKh",
    ]
    assert {r.suite for r in rows} == {"Hand evaluator (x86_64, 2 cores)"}
    # print_table rounds: 162.00 M, 78.1 k, n/a, 4.7e+03, 2.1.
    assert rows[0].value == 162e6 and rows[1].value == 78_100
    assert math.isnan(rows[2].value)
    assert rows[3].value == 4_700 and rows[4].value == 2.1
    assert (rows[0].unit, rows[0].note) == ("evals/s", "target >= 150 M/s")
    with pytest.raises(ValueError, match="line 2: not a benchmark value: 'fast'"):
        S.parse_bench_output("### t\n| x | fast | evals/s | \n")


def test_the_readme_speed_rows() -> None:
    readme = Path(__file__).resolve().parents[2] / "README.md"
    rows = {r.name: r for r in S.readme_evaluator_speed(readme.read_text())}
    for k in (5, 7):
        assert rows[f"poker_env {k}-card, 1 thread"].value > rows[f"eval7 {k}-card"].value
    sample = (
        "## Speed\n\nThe last run (2026-01-02 03:04).\n\n| what | poker_env | peers |\n|---|---|---|\n"
        "| 7-card evaluations/s, 1 / 2 threads | 160 M / 170 M | eval7 1.5 M, treys 78 k |\n"
    )
    rows = {r.name: r for r in S.readme_evaluator_speed(sample)}
    assert rows["poker_env 7-card, 2 threads"].value == 170e6
    assert rows["treys 7-card"].value == 78e3 and rows["treys 7-card"].note == "peer"
    assert rows["eval7 7-card"].suite == "README.md, Speed (make bench, 2026-01-02 03:04)"
    with pytest.raises(ValueError, match="evaluations/s"):
        S.readme_evaluator_speed("no table here")
