"""Head-to-head evaluation: intervals against known cases and a slow reference."""

from __future__ import annotations

import numpy as np
import pytest

from poker_env.errors import ConfigError
from poker_env.policy import RandomPolicy
from poker_env_agents.evaluate import MatchResult, _ratio_interval, head_to_head, results_table
from poker_env_agents.registry import get_game, make_baseline


class CallStation:
    """Always check/call (index 1 is check/call in Hold'em, always legal)."""

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.ones(len(masks), np.int64)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return 1


class FoldOrCall:
    """Folds (index 0) whenever folding is legal and the table index is odd-looking:
    a deterministic policy that depends on the cards (the first hole card's rank)."""

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        # Observation entries 0..51 are the agent's own hole cards one-hot (docs/holdem.md).
        high = obs[:, 32:52].sum(1) > 0  # holds a ten or better
        fold_ok = masks[:, 0] == 1
        return np.where(fold_ok & ~high, 0, 1).astype(np.int64)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return int(self.act_batch(obs[None], mask[None])[0])


@pytest.mark.parametrize("num_players", [2, 6])
def test_duplicate_deals_cancel_the_cards_between_equal_deterministic_policies(
    num_players: int,
) -> None:
    # Two call stations: every deal is played from every seat by the same strategy,
    # so A's results over the passes sum to exactly zero at each table.
    r = head_to_head(
        CallStation(),
        CallStation(),
        game="holdem",
        options={"num_players": num_players},
        hands=1,  # one round
        num_tables=64,
        episodes_per_table=4,
    )
    assert r.mean == 0.0 and r.ci_low == 0.0 and r.ci_high == 0.0
    assert r.hands == 64 * 4 * num_players
    assert r.unit == "bb/100"


def test_without_duplicate_the_same_match_has_card_luck() -> None:
    r = head_to_head(
        CallStation(),
        CallStation(),
        game="holdem",
        hands=2000,
        num_tables=64,
        episodes_per_table=4,
        duplicate=False,
    )
    assert r.ci_high - r.ci_low > 1.0  # bb/100: card luck is not cancelled


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_policy_against_itself_has_an_interval_covering_zero(seed: int) -> None:
    r = head_to_head(
        RandomPolicy(seed),
        RandomPolicy(seed + 100),
        game="holdem",
        hands=6000,
        num_tables=128,
        seed=seed,
    )
    assert r.ci_low < 0.0 < r.ci_high
    assert 6000 <= r.hands < 6000 + 2 * 128 * 16


def _reference_mean(seed: int, hands: int) -> tuple[float, float]:
    # Slow reference: single Holdem-v0 envs, one hand per episode, the card-reading
    # folder in seat 0 against random opponents; plain mean and its 95% half-width.
    env = get_game("holdem").make_env({"num_players": 2}, opponent=RandomPolicy(seed + 1), seat=0)
    me = FoldOrCall()
    out = []
    for k in range(hands):
        obs, info = env.reset(seed=seed * 1_000_003 + k)
        total, done = 0.0, False
        while not done:
            obs, r, term, trunc, info = env.step(me.act(obs, info["action_mask"]))
            total += float(r)
            done = term or trunc
        out.append(total)
    x = np.array(out) * 100
    return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))


def test_a_baseline_against_random_matches_a_slow_reference() -> None:
    # The batched duplicate measure and a plain loop over single envs estimate the
    # same mean (seat 0 only here, as in the reference): they agree within their
    # combined intervals.
    ref_mean, ref_half = _reference_mean(seed=3, hands=3000)
    r = head_to_head(
        FoldOrCall(),
        RandomPolicy(7),
        game="holdem",
        hands=30_000,
        num_tables=256,
        duplicate=False,
        seed=50,
    )
    assert abs(r.mean - ref_mean) < 1.2 * np.hypot(ref_half, r.half_width)
    assert r.mean > 0  # a card-reading folder beats random play


def test_stopping_rule_ends_once_the_interval_is_narrow() -> None:
    wide = head_to_head(
        CallStation(), RandomPolicy(1), game="holdem", hands=10**7, num_tables=64,
        episodes_per_table=2, target_width=400.0,
    )  # fmt: skip
    assert wide.ci_high - wide.ci_low < 400.0
    assert wide.hands < 10**6


def test_ratio_interval_matches_a_hand_computation() -> None:
    totals = np.array([3.0, -1.0, 2.0, 0.0])
    counts = np.array([2, 2, 1, 3])
    mean, half = _ratio_interval(totals, counts)
    assert mean == pytest.approx(4.0 / 8.0)
    resid = totals - 0.5 * counts  # 2, -2, 1.5, -1.5
    se = np.sqrt(resid.var(ddof=1) * 4) / 8
    assert half == pytest.approx(1.959963984540054 * se)


def test_bad_arguments_are_refused() -> None:
    for bad in (0, -5, 2.5, True):
        with pytest.raises(ConfigError):
            head_to_head(CallStation(), CallStation(), game="holdem", hands=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="game"):
        head_to_head(CallStation(), CallStation(), game="chess")
    with pytest.raises(ConfigError, match="option"):
        head_to_head(CallStation(), CallStation(), game="holdem", options={"decks": 2})


def test_results_table_lists_every_result() -> None:
    r = MatchResult("a", "b", "draw", 0.5, 0.25, 0.75, 1000, 10, "antes/hand")
    text = results_table([r], title="t")
    assert "| a | b | draw | +0.500 antes/hand | [+0.250, +0.750] | 1,000 hands |" in text
    assert "0.500 ± 0.250" in str(r)
    # What was counted, by the unit: a whole match of the draw match, a decision of Red
    # Dog (the column was headed "hands" for all of them).
    for unit, counted in (
        ("antes/match", "matches"),
        ("chips/decision", "decisions"),
        ("bb/100", "hands"),
    ):
        row = results_table([MatchResult("a", "b", "g", 0, -1, 1, 10, 1, unit)])
        assert row.endswith(f"| 10 {counted} |"), row


class DrawCardReader:
    """A deterministic draw policy that depends on the cards: bets (index 2 when legal)
    holding a pair or better, else the passive action; keeps all cards."""

    def __init__(self, bet: bool) -> None:
        self.bet = bet

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        ranks = (obs[:, 0:5] // 4).astype(np.int64)  # own cards, rank * 4 + suit
        pair = (ranks[:, :, None] == ranks[:, None, :]).sum((1, 2)) > 5
        first_legal = np.argmax(masks, axis=1)
        passive = np.where(masks[:, 1] == 1, 1, first_legal)
        want = np.where(pair & self.bet & (masks[:, 2] == 1), 2, passive)
        return want.astype(np.int64)


@pytest.mark.parametrize(("game", "options"), [("draw", {}), ("holdem", {"num_players": 2})])
def test_duplicate_results_are_antisymmetric_for_deterministic_policies(
    game: str, options: dict
) -> None:
    # With the deals shared between the passes, X's result against Y is exactly minus
    # Y's result against X, table by table (heads-up is zero-sum).
    if game == "draw":
        x, y = DrawCardReader(True), DrawCardReader(False)
    else:
        x, y = FoldOrCall(), CallStation()
    kw = {"game": game, "options": options, "hands": 1, "num_tables": 64, "episodes_per_table": 8}
    xy = head_to_head(x, y, **kw)
    yx = head_to_head(y, x, **kw)
    # Hold'em: FoldOrCall folds its small blind with low cards, a walk for the other
    # seat's agent, dealt again by the env; counted as that deal's hand, the hands
    # (and the results) of the two matches are the same deals.
    assert xy.hands == yx.hands
    assert xy.mean == pytest.approx(-yx.mean, abs=1e-9)
    assert xy.mean != 0.0
    assert xy.half_width == pytest.approx(yx.half_width, rel=1e-9)


def test_red_dog_decision_value_uses_the_bets_the_env_makes() -> None:
    # The batched figure computes each bet from the observation; a slow reference
    # takes the amount and p the env reports for the bet it really settled
    # (info["last_bet"]). Both estimate the reference policy's value per decision.
    from poker_env_agents.baselines.red_dog import RedDogCallStation, ReferencePolicy
    from poker_env_agents.evaluate import red_dog_decision_value

    env = get_game("red-dog").make_env({"num_players": 4}, opponent=ReferencePolicy())
    me = ReferencePolicy()
    values = []
    obs, info = env.reset(seed=9)
    while len(values) < 4000:
        obs, _r, term, trunc, info = env.step(me.act(obs, info["action_mask"]))
        bet = info["last_bet"]
        if bet is not None:
            values.append(-1.0 if bet["kind"] == "forfeit" else bet["amount"] * (2 * bet["p"] - 1))
        if term or trunc:
            obs, info = env.reset()
    slow = np.mean(values)
    slow_half = 1.96 * np.std(values) / np.sqrt(len(values))
    fast = red_dog_decision_value(ReferencePolicy(), decisions=20_000, num_tables=256, seed=3)
    assert fast.policy == fast.reference and fast.agreement == 1.0
    assert abs(fast.policy - slow) < 2 * slow_half + 0.03
    weak = red_dog_decision_value(RedDogCallStation(), decisions=5_000, num_tables=256)
    assert weak.policy < 0 < weak.reference and weak.ratio < 0


def test_holdem_reports_walks_in_the_info_and_the_evaluation_counts_them() -> None:
    # Heads-up, the small blind acts first pre-flop; FoldOrCall folds it holding no
    # ten or better. That fold is a walk for the agent in the big blind: it wins the
    # small blind (+0.5 bb) without acting; the env deals again and reports it.
    env = get_game("holdem").make_vector(256, {"num_players": 2}, opponent=FoldOrCall())
    try:
        _obs, info = env.reset(seed=5)
        # The walks are read once: a step reports only those dealt since (none where
        # no hand ended; a new deal's walks where one did).
        _obs, _r, done, _t, after = env.step(np.ones(256, dtype=np.int64))
    finally:
        env.close()
    assert after["walks"].dtype == np.int64 and after["walk_reward"].dtype == np.float64
    assert not after["walks"][~done].any() and not after["walk_reward"][~done].any()
    walks = np.asarray(info["walks"])
    assert walks.shape == (256,) and walks.sum() > 0
    assert set(np.unique(info["first_walk_reward"][walks > 0])) == {0.5}
    np.testing.assert_allclose(info["walk_reward"], 0.5 * walks)
    # The single env reports the same walks for the same seeds.
    single = get_game("holdem").make_env({"num_players": 2}, opponent=FoldOrCall())
    for i in range(16):
        _o, inf = single.reset(seed=5 + i)
        assert inf["walks"] == walks[i]
        assert inf["first_walk_reward"] == info["first_walk_reward"][i]
    # A call station never folds: against it the agent never walks, and
    # FoldOrCall's walks count as hands of the match: as many hands as deals.
    kw = {"game": "holdem", "options": {"num_players": 2}, "hands": 1, "num_tables": 64}
    r = head_to_head(CallStation(), FoldOrCall(), episodes_per_table=4, **kw)
    assert r.hands == 64 * 4 * 2


class AlwaysFold:
    """Folds whenever folding is legal, checks when it is free (never puts a chip in)."""

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.where(np.asarray(masks)[:, 0] == 1, 0, 1).astype(np.int64)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return int(self.act_batch(obs[None], mask[None])[0])


def test_a_six_max_panel_of_folders_counts_every_walk() -> None:
    # Six folders: every hand is a walk for the big blind (+0.5 bb, the small blind's
    # chips; it never acts). Each deal is played once per seat of A: small blind -0.5,
    # big blind +0.5, the others 0, so every table sums to exactly 0, and every deal
    # counts though in one pass of six A never acts.
    from poker_env_agents.analysis.panel import evaluate_panel

    opts = {"num_players": 6}
    r = head_to_head(
        AlwaysFold(), AlwaysFold(), game="holdem", options=opts, hands=1, num_tables=16
    )
    assert r.hands == 16 * 16 * 6
    assert r.mean == 0.0 and r.half_width == 0.0
    # The nit among five folders wins the small blind in the big blind (a walk), never
    # loses more than its small blind and wins the blinds when it opens: its result is
    # above zero. The folder among five nits loses its small blind, wins at most the
    # small blind in the big blind (a walk unless a nit opens): below zero. Walk-heavy
    # as both are, every row counts every deal.
    report = evaluate_panel(AlwaysFold(), "holdem", opts, hands=1, bots=["nit"], num_tables=16)
    rows = {row.kind: row for row in report.rows}
    assert {row.hands for row in report.rows} == {16 * 16 * 6}
    assert rows["bot among policies"].mean > 0
    assert rows["policy among bots"].mean < 0


def test_a_budget_under_one_round_plays_about_that_many_hands() -> None:
    # --hands 1000 played a whole round of 1,024 tables: 32,768 hands (a play-test).
    from poker_env_agents.evaluate import auto_tables

    assert auto_tables(1000, 2) == 32 and auto_tables(10**6, 2) == 1024
    assert auto_tables(10, 6) == 16  # at least 16 tables for the spread
    assert auto_tables(2000, 2) * 16 * 2 >= 2000  # one round spends it (62 tables did not)
    a, b = make_baseline("draw", "random", seed=1), make_baseline("draw", "call", seed=2)
    r = head_to_head(a, b, game="draw", hands=1000, seed=3)
    assert (r.tables, r.hands) == (32, 1024)
    assert head_to_head(a, b, game="draw", hands=1000, seed=3, num_tables=64).hands == 2048
    assert str(r).endswith("(1,024 hands)")


def test_the_command_line_plays_a_mirror_match_and_counts_in_the_units_word(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # "random random" printed nothing (the players were keyed by name); Red Dog's line
    # said "hands" where its table said "decisions".
    from poker_env_agents.cli.evaluate import main

    assert main(["draw", "random", "random", "--hands", "500"]) == 0
    out = capsys.readouterr().out
    assert "| random | random#2 | draw |" in out and "| 512 hands |" in out
    assert main(["red-dog", "random", "call", "--hands", "500"]) == 0
    out = capsys.readouterr().out
    assert "hands" not in out.split("###")[0] and "decisions)" in out.split("###")[0]


def test_progress_is_reported_after_each_round_up_to_the_count_played() -> None:
    a, b = make_baseline("draw", "random", seed=1), make_baseline("draw", "call", seed=2)
    seen: list[tuple[int, int]] = []
    r = head_to_head(
        a,
        b,
        game="draw",
        hands=3000,
        seed=3,
        num_tables=16,
        progress=lambda p, h: seen.append((p, h)),
    )
    assert [h for _, h in seen] == [3000] * len(seen) and len(seen) == 6  # 512 a round
    assert [p for p, _ in seen] == sorted(p for p, _ in seen) and seen[-1][0] == r.hands
