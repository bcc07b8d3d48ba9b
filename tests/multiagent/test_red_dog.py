"""RedDog AEC env: PettingZoo api_test and seed_test, chips and rewards."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from poker_env.errors import IllegalActionError
from poker_env.multiagent.red_dog import RedDogAECEnv


@pytest.mark.parametrize(
    "kw",
    [{}, {"num_players": 2, "starting_chips": 3, "rounds": 8}, {"num_players": 10}],
)
def test_pettingzoo_api_test(kw: dict[str, int]) -> None:
    api_test(RedDogAECEnv(**kw), num_cycles=200)  # type: ignore[arg-type]


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: RedDogAECEnv(num_players=3), num_cycles=100)


def test_rewards_sum_to_chips_won_or_lost_and_chips_are_conserved() -> None:
    rng = np.random.default_rng(0)
    for seed in range(5):
        env = RedDogAECEnv(num_players=4, starting_chips=6, rounds=6)
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.sum() > 0
            env.step(int(rng.choice(np.flatnonzero(mask))))
            assert env.game is not None
            assert sum(env.game.chips) + env.game.pot == 24
        assert env.game is not None
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == env.game.chips[i] - 6


def test_only_the_seat_to_act_has_a_mask_and_bad_actions_raise() -> None:
    env = RedDogAECEnv(num_players=3)
    env.reset(seed=1)
    masks = {a: env.observe(a)["action_mask"].sum() for a in env.possible_agents}
    assert [a for a, m in masks.items() if m > 0] == [env.agent_selection]
    with pytest.raises(IllegalActionError):
        env.step(17)
