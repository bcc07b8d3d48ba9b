"""Hold'em baselines: legality, act == act_batch, hand-worked decisions, strength."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from poker_env.cards import format_cards, parse_cards
from poker_env.envs.holdem import HoldemEnv
from poker_env.evaluator import holdem_equity
from poker_env.policy import BatchPolicy, Policy, RandomPolicy
from poker_env.vector.holdem import HoldemVectorEnv
from poker_env_agents.baselines.holdem import (
    PREFLOP_SAMPLES,
    HoldemCallStation,
    HoldemEquityBot,
    parse_observations,
    preflop_equity_table,
)


def test_protocols() -> None:
    for policy in (HoldemEquityBot(0), HoldemCallStation()):
        assert isinstance(policy, Policy)
        assert isinstance(policy, BatchPolicy)


CONFIGS: list[dict[str, object]] = [
    {"num_players": 2},
    {"num_players": 3, "raise_fractions": (0.3, 1.5)},
    {"num_players": 6, "evaluator_features": True},
    {"num_players": 4, "rules": "standard", "starting_stack": 30},
    {"num_players": 10},
]


def _bot(config: dict[str, object], seed: int) -> HoldemEquityBot:
    fractions = config.get("raise_fractions", (0.5, 0.75, 1.0, 2.0))
    return HoldemEquityBot(seed, raise_fractions=fractions)  # type: ignore[arg-type]


def _states(
    config: dict[str, object], agent: Policy, seeds: range
) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    """(observation, mask) of every agent decision, the policy under test playing the
    agent (the env refuses a masked action) against random opponents."""
    env = HoldemEnv(opponents=RandomPolicy(9), hands_per_episode=3, **config)  # type: ignore[arg-type]
    rows, masks = [], []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            rows.append(obs)
            masks.append(info["action_mask"])
            obs, _, done, _, info = env.step(agent.act(obs, info["action_mask"]))
    return np.array(rows), np.array(masks)


@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_only_legal_actions_and_act_equals_act_batch(config: dict[str, object]) -> None:
    for seed in (0, 1):
        for agent in (_bot(config, seed), HoldemCallStation(), RandomPolicy(seed)):
            obs, masks = _states(config, agent, range(4 * seed, 4 * seed + 4))
            rows = np.arange(len(masks))
            for one, batch in (
                (_bot(config, 50 + seed), _bot(config, 50 + seed)),
                (RandomPolicy(50 + seed), RandomPolicy(50 + seed)),
                (HoldemCallStation(), HoldemCallStation()),
            ):
                singles = np.array([one.act(o, m) for o, m in zip(obs, masks, strict=True)])
                batched = batch.act_batch(obs, masks)
                assert batched.dtype == np.int64
                assert (singles == batched).all()
                assert (masks[rows, batched] == 1).all()
            # The call station never folds: check or call on every state.
            assert (HoldemCallStation().act_batch(obs, masks) == 1).all()


def test_parse_observations_reads_the_documented_entries() -> None:
    env = HoldemEnv(6, opponents=HoldemCallStation(), hands_per_episode=2, render_mode="ansi")
    obs, _ = env.reset(seed=3)
    seen_streets = set()
    done = False
    while not done:
        p = parse_observations(obs[None])
        street = int(p.street[0])
        seen_streets.add(street)
        assert (p.board[0] >= 0).sum() == (0, 3, 4, 5)[street]
        # Everybody calls along: every seat is still in; the cards are the render's.
        assert p.num_opponents[0] == 5
        text = env.render() or ""
        mine = next(line for line in text.splitlines() if "(you)" in line)
        assert format_cards(p.hole[0]) in mine
        obs, _, done, _, _ = env.step(1)
    assert seen_streets == {0, 1, 2, 3}


def _obs(
    n: int,
    hole: str,
    *,
    board: str = "",
    pot_bb: float,
    to_call_bb: float,
    position: int,
    in_hand: int,
    raises: int = 0,
    stack_bb: float = 100.0,
) -> NDArray[np.float32]:
    """An observation from the documented layout; chips in starting stacks of 100 bb."""
    o = np.zeros(114 + 8 * n, np.float32)
    o[parse_cards(hole).astype(np.int64)] = 1
    if board:
        o[52 + parse_cards(board).astype(np.int64)] = 1
    street = {0: 0, 3: 1, 4: 2, 5: 3}[len(board.split())]
    o[104 + street] = 1
    o[108] = pot_bb / 100
    o[109] = to_call_bb / 100
    o[110 : 110 + n] = stack_bb / 100
    o[110 + 2 * n] = position / (n - 1)
    o[110 + 3 * n : 110 + 3 * n + in_hand] = 1  # self and in_hand - 1 opponents still in
    o[110 + 8 * n + street] = raises / 10
    return o


ALL = np.ones(8, np.int8)
NO_FOLD = np.array([0, 1, 1, 1, 1, 1, 1, 1], np.int8)


def test_folds_seven_deuce_facing_a_big_raise() -> None:
    bot = HoldemEquityBot(0, bluff=0.0)
    # Heads-up, big blind, the button raised to 10 bb: 9 to call into 11 (price 0.45),
    # 7-2 offsuit wins 34.6% against a random hand.
    o = _obs(2, "7c 2d", pot_bb=11, to_call_bb=9, position=1, in_hand=2, raises=1)
    assert bot.act(o, ALL) == 0
    # All in for 100 bb: price 0.495.
    o = _obs(2, "7c 2d", pot_bb=101, to_call_bb=99, position=1, in_hand=2, raises=1, stack_bb=99)
    assert bot.act(o, ALL) == 0
    # Six-handed, five opponents in: even a pot-size raise is too dear.
    o = _obs(6, "7c 2d", pot_bb=4.5, to_call_bb=3, position=3, in_hand=6, raises=1)
    assert bot.act(o, ALL) == 0
    # A min-raise heads-up (1 more into 3: price 0.25) is a call at 34.6%.
    o = _obs(2, "7c 2d", pot_bb=3, to_call_bb=1, position=1, in_hand=2, raises=1)
    assert bot.act(o, ALL) == 1


def test_raises_aces() -> None:
    bot = HoldemEquityBot(0, bluff=0.0)
    for n, in_hand in ((2, 2), (6, 6), (9, 4)):
        unopened = _obs(n, "Ah As", pot_bb=1.5, to_call_bb=0.5, position=0, in_hand=in_hand)
        facing = _obs(n, "Ah As", pot_bb=11.5, to_call_bb=9, position=1, in_hand=in_hand, raises=1)
        assert bot.act(unopened, ALL) >= 2
        assert bot.act(facing, ALL) >= 2


def test_checks_trash_and_never_folds_when_checking_is_free() -> None:
    bot = HoldemEquityBot(0, bluff=0.0)
    o = _obs(2, "7c 2d", board="Ks Qs 9h", pot_bb=4, to_call_bb=0, position=1, in_hand=2)
    assert bot.act(o, NO_FOLD) == 1
    rows = np.stack([o] * 200)
    assert (HoldemEquityBot(1, bluff=0.0).act_batch(rows, np.stack([NO_FOLD] * 200)) == 1).all()


def test_later_position_raises_lighter() -> None:
    # Ace-ten offsuit wins 62.7% heads-up: z = 0.254, between the button's threshold
    # (0.3 - 0.1 = 0.2) and the small blind's (0.3). Three seats, one opponent left.
    bot = HoldemEquityBot(0, bluff=0.0, num_samples=20_000)
    button = _obs(3, "Ac Td", pot_bb=3, to_call_bb=0, position=0, in_hand=2)
    small_blind = _obs(3, "Ac Td", pot_bb=3, to_call_bb=0, position=1, in_hand=2)
    assert bot.act(button, NO_FOLD) >= 2
    assert bot.act(small_blind, NO_FOLD) == 1


def test_bet_size_grows_with_strength_and_uses_all_in_for_the_nuts() -> None:
    bot = HoldemEquityBot(0, bluff=0.0, num_samples=4000)
    # River: a royal flush goes all-in; a made straight bets a pot fraction.
    nuts = _obs(2, "As Ks", board="Qs Js Ts 4d 2c", pot_bb=10, to_call_bb=0, position=0, in_hand=2)
    good = _obs(2, "9d 8c", board="Qs Js Ts 4d 2c", pot_bb=10, to_call_bb=0, position=0, in_hand=2)
    assert bot.act(nuts, NO_FOLD) == 7
    assert 3 <= bot.act(good, NO_FOLD) < 7


def test_uses_the_evaluator_feature_when_present() -> None:
    trash = _obs(2, "7c 2d", pot_bb=11, to_call_bb=9, position=1, in_hand=2, raises=1)
    with_features = np.concatenate([trash, np.zeros(10, np.float32)])
    with_features[-1] = 0.97  # the env's equity entry says it is a near-lock
    assert HoldemEquityBot(0).act(with_features, ALL) >= 2
    assert HoldemEquityBot(0, use_features=False).act(with_features, ALL) == 0


def test_refuses_a_wrong_layout() -> None:
    with pytest.raises(ValueError, match="114 \\+ 8n"):
        HoldemEquityBot(0).act(np.zeros(100, np.float32), ALL)
    with pytest.raises(ValueError, match="raise_fractions"):
        HoldemEquityBot(0, raise_fractions=(0.5, 1.0)).act(
            _obs(2, "7c 2d", pot_bb=3, to_call_bb=1, position=1, in_hand=2), ALL
        )
    with pytest.raises(ValueError, match="num_samples"):
        HoldemEquityBot(0, num_samples=0)


def _match(agent: BatchPolicy, opponent: BatchPolicy, num_players: int) -> tuple[float, float, int]:
    """Mean big blinds per hand for the agent, its 95% half-width and the hands."""
    env = HoldemVectorEnv(256, num_players, opponent=opponent)
    obs, info = env.reset(seed=21)
    results: list[float] = []
    for _ in range(60):
        obs, reward, term, _, info = env.step(agent.act_batch(obs, info["action_mask"]))
        results.extend(reward[term].tolist())
    x = np.array(results)
    return float(x.mean()), float(1.96 * x.std() / np.sqrt(x.size)), int(x.size)


@pytest.mark.parametrize("num_players", [2, 6])
def test_equity_bot_beats_random_and_the_call_station(num_players: int) -> None:
    for opponent in (RandomPolicy(3), HoldemCallStation()):
        mean, half, hands = _match(HoldemEquityBot(1), opponent, num_players)
        assert hands > 3000
        assert mean - half > 0, (type(opponent).__name__, mean, half)


def test_preflop_table_against_published_equities() -> None:
    table = preflop_equity_table()
    assert table.shape == (13, 13, 10)
    err = 4 * 0.5 / np.sqrt(PREFLOP_SAMPLES)  # four standard errors at most
    # Heads-up against a random hand: aces 85.2%, ace-king suited 67.0% and offsuit
    # 65.3%, seven-deuce offsuit 34.6% (standard pre-flop figures).
    assert table[12, 12, 1] == pytest.approx(0.852, abs=err)
    assert table[12, 11, 1] == pytest.approx(0.670, abs=err)  # suited: [high, low]
    assert table[11, 12, 1] == pytest.approx(0.653, abs=err)  # offsuit: [low, high]
    assert table[0, 5, 1] == pytest.approx(0.346, abs=err)
    # Against five random hands the evaluator's Monte Carlo says the same for aces.
    ref = holdem_equity(["As Ah", *[None] * 5], method="monte_carlo", num_samples=40_000, rng=1)
    assert table[12, 12, 5] == pytest.approx(ref.equity[0], abs=err + 4 * 0.5 / np.sqrt(40_000))
    # The bot reads the table by the cards, in either order and for any suits: at a
    # price between 7-2 suited's equity and 7-2 offsuit's, the suited hand calls
    # and the offsuit one folds.
    suited, offsuit = table[5, 0, 1], table[0, 5, 1]
    assert suited > offsuit + 0.02
    price = (suited + offsuit) / 2
    bot = HoldemEquityBot(0, bluff=0.0)
    for hole, calls in (("7h 2h", True), ("2s 7s", True), ("7c 2d", False), ("2h 7s", False)):
        o = _obs(2, hole, pot_bb=1 / price - 1, to_call_bb=1, position=1, in_hand=2, raises=1)
        assert bot.act(o, ALL) == (1 if calls else 0), hole


@pytest.mark.parametrize("num_players", [2, 6, 10])
def test_bot_and_call_station_play_inside_the_vector_env(num_players: int) -> None:
    # As the env's opponent= for every other seat (the env refuses a masked action).
    for opponent in (HoldemEquityBot(4), HoldemCallStation()):
        env = HoldemVectorEnv(64, num_players, opponent=opponent)
        obs, info = env.reset(seed=num_players)
        agent = RandomPolicy(1)
        ends = 0
        for _ in range(20):
            obs, _, term, _, info = env.step(agent.act_batch(obs, info["action_mask"]))
            ends += int(term.sum())
        assert ends > 64
