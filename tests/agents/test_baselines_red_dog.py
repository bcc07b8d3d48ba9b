"""Red Dog baselines: the reference rule, the call station, legality and strength."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

import poker_env_agents.baselines.red_dog
from poker_env.envs.red_dog import RedDogEnv
from poker_env.policy import BatchPolicy, Policy, RandomPolicy
from poker_env.vector.red_dog import RedDogVectorEnv
from poker_env_agents.baselines.red_dog import (
    AlwaysForfeitPolicy,
    RandomLegalPolicy,
    RedDogCallStation,
    ReferencePolicy,
)


def test_policies_implement_the_protocols() -> None:
    for policy in (
        ReferencePolicy(),
        RedDogCallStation(),
        AlwaysForfeitPolicy(),
        RandomLegalPolicy(0),
    ):
        assert isinstance(policy, Policy)
        assert isinstance(policy, BatchPolicy)


def test_old_module_name_re_exports_the_same_classes() -> None:
    assert poker_env_agents.baselines.red_dog.ReferencePolicy is ReferencePolicy
    assert poker_env_agents.baselines.red_dog.RedDogCallStation is RedDogCallStation


def test_reference_bets_all_above_one_half_else_one_chip() -> None:
    env = RedDogEnv(num_players=3, agent_seat=0)
    obs, _ = env.reset(seed=0)
    policy = ReferencePolicy()
    col = 160 + 3
    for p, expected in ((0.75, 5), (0.5, 1), (0.2, 1)):
        o = obs.copy()
        o[col] = p
        assert policy.act(o, np.ones(6, np.int8)) == expected
    batch = np.stack([obs, obs])
    batch[0, col], batch[1, col] = 0.9, 0.1
    assert policy.act_batch(batch, np.ones((2, 6), np.int8)).tolist() == [5, 1]


def test_reference_never_forfeits_and_matches_the_engine_rule() -> None:
    env = RedDogEnv(num_players=4, agent_seat=1)
    policy = ReferencePolicy()
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            game_p = float(obs[164])
            a = policy.act(obs, info["action_mask"])
            assert a != 0
            assert a == (5 if game_p > 0.5 else 1)
            obs, _, done, _, info = env.step(a)


def test_other_bet_fractions_pick_the_largest_and_the_smallest_bet() -> None:
    fractions = (1.0, 0.0, 0.5)  # action 1 bets the most, action 2 one chip
    ref, station = ReferencePolicy(fractions), RedDogCallStation(fractions)
    obs = np.zeros(165, np.float32)
    obs[163] = 0.8
    assert ref.act(obs, np.ones(4, np.int8)) == 1
    assert station.act(obs, np.ones(4, np.int8)) == 2
    with pytest.raises(ValueError, match="bet_fractions"):
        ReferencePolicy().act(obs, np.ones(4, np.int8))  # the env has 3 fractions, not 5
    with pytest.raises(ValueError, match="162 \\+ P"):
        ReferencePolicy().act(np.zeros(150, np.float32), np.ones(6, np.int8))


def test_always_forfeit_loses_one_chip_a_turn() -> None:
    env = RedDogEnv(num_players=2, agent_seat=0, rounds=1, opponent_random_share=0.0)
    obs, info = env.reset(seed=3)
    _, reward, _done, _, _ = env.step(AlwaysForfeitPolicy().act(obs, info["action_mask"]))
    # First ante plus the forfeited chip, unless the opponent emptied the pot (then a new ante).
    assert reward in (-2.0, -3.0)


def test_random_legal_picks_only_legal_actions() -> None:
    policy = RandomLegalPolicy(1)
    mask = np.array([0, 1, 0, 1, 0, 0], np.int8)
    assert {policy.act(None, mask) for _ in range(50)} == {1, 3}


def _states(num_players: int, seed: int) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    env = RedDogEnv(num_players=num_players, opponents=RandomPolicy(seed))
    rng = np.random.default_rng(seed)
    rows, masks = [], []
    for episode in range(6):
        obs, info = env.reset(seed=100 * seed + episode)
        done = False
        while not done:
            rows.append(obs)
            masks.append(info["action_mask"])
            obs, _, done, _, info = env.step(int(rng.integers(6)))
    return np.array(rows), np.array(masks)


@pytest.mark.parametrize(("num_players", "seed"), [(2, 0), (5, 1), (10, 2)])
def test_legal_and_act_equals_act_batch_on_env_states(num_players: int, seed: int) -> None:
    obs, masks = _states(num_players, seed)
    makers = (ReferencePolicy, RedDogCallStation, lambda: RandomLegalPolicy(seed))
    for make in makers:
        one, batch = make(), make()
        singles = np.array([one.act(o, m) for o, m in zip(obs, masks, strict=True)])
        batched = batch.act_batch(obs, masks)
        assert (singles == batched).all()
        assert (masks[np.arange(len(masks)), batched] == 1).all()
    station = RedDogCallStation().act_batch(obs, masks)
    assert (station == 1).all()  # the smallest bet (fraction 0: one chip), never a forfeit


def _margin(
    agent: BatchPolicy, opponents: BatchPolicy, num_players: int
) -> tuple[float, float, int]:
    """The agent's chips less the other seats' mean at each game's end, in antes:
    mean, 95% half-width, games. (Every seat's reward is negative on average in
    Red Dog, the pot left at the end being nobody's; the margin says who did best.)"""
    env = RedDogVectorEnv(256, num_players=num_players, opponents=opponents)
    obs, info = env.reset(seed=5)
    total = num_players * 50
    margins: list[float] = []
    for _ in range(30):
        obs, _, term, trunc, info = env.step(agent.act_batch(obs, info["action_mask"]))
        done = term | trunc
        if done.any():
            chips = info["final_obs"][done, 158 : 158 + num_players] * total
            margins.extend((chips[:, 0] - chips[:, 1:].mean(axis=1)).tolist())
    x = np.array(margins)
    return float(x.mean()), float(1.96 * x.std() / np.sqrt(x.size)), int(x.size)


@pytest.mark.parametrize("num_players", [2, 5])
def test_reference_beats_random_and_the_call_station(num_players: int) -> None:
    for opponents in (RandomPolicy(4), RedDogCallStation()):
        mean, half, games = _margin(ReferencePolicy(), opponents, num_players)
        assert games > 1000
        assert mean - half > 0, (type(opponents).__name__, mean, half)
