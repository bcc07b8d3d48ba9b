"""The PettingZoo AEC env of five-card draw: API, seeding, rewards, errors."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from poker_env.errors import IllegalActionError
from poker_env.multiagent.draw import DrawAECEnv


@pytest.mark.parametrize("kwargs", [{}, {"mode": "match", "starting_money": 60, "item_value": 20}])
def test_pettingzoo_api_test(kwargs: dict[str, object]) -> None:
    api_test(DrawAECEnv(**kwargs), num_cycles=300)  # type: ignore[arg-type]


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: DrawAECEnv(), num_cycles=100)


def play(env: DrawAECEnv, rng: np.random.Generator) -> dict[str, float]:
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=5000):
        obs, reward, term, trunc, _info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_pot_rewards_are_zero_sum_in_antes() -> None:
    env = DrawAECEnv()
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        totals = play(env, rng)
        assert totals["human"] == -totals["computer"]
        assert totals["human"] != 0.0  # a pot moves at least one ante


def test_match_mode_the_computer_decides_buy_backs() -> None:
    env = DrawAECEnv(mode="match", starting_money=60, item_value=20)
    rng = np.random.default_rng(1)
    saw = False
    for seed in range(20):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=5000):
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if obs["action_mask"][-1]:
                saw = True
                assert agent == "computer"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert saw


def test_illegal_action_raises() -> None:
    env = DrawAECEnv()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(bad)


def test_only_the_agent_to_act_has_a_mask() -> None:
    env = DrawAECEnv()
    env.reset(seed=2)
    other = next(a for a in env.agents if a != env.agent_selection)
    assert env.observe(other)["action_mask"].sum() == 0
    assert env.observe(env.agent_selection)["action_mask"].sum() > 0
