"""The three AEC envs alike: every agent's ``infos[agent]["action_mask"]`` is the
mask of its observation at every point of a game (the legal actions of the agent to
act, zeros for the others and once done), in an array of its own."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from poker_env.multiagent.draw import DrawAECEnv
from poker_env.multiagent.holdem import HoldemAECEnv
from poker_env.multiagent.red_dog import RedDogAECEnv

MAKERS = {
    "draw": DrawAECEnv,
    "draw-match": lambda: DrawAECEnv(mode="match", max_hands=6),
    "holdem-6": lambda: HoldemAECEnv(num_players=6),
    "red-dog": lambda: RedDogAECEnv(num_players=3),
}


def _check(env: Any) -> None:
    for agent in env.agents:
        info = env.infos[agent]["action_mask"]
        seen = env.observe(agent)["action_mask"]
        np.testing.assert_array_equal(info, seen, err_msg=agent)
        assert info.dtype == np.int8
        assert not np.shares_memory(info, seen)
        acting = agent == env.agent_selection and not (
            env.terminations[agent] or env.truncations[agent]
        )
        assert info.any() == acting, (agent, env.agent_selection)


@pytest.mark.parametrize("name", list(MAKERS))
def test_every_info_mask_is_the_observations_mask(name: str) -> None:
    env = MAKERS[name]()
    rng = random.Random(0)
    for game in range(3):
        env.reset(seed=game)
        _check(env)
        for _agent in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                assert not info["action_mask"].any()
                env.step(None)
            else:
                legal = np.flatnonzero(info["action_mask"])
                env.step(int(legal[rng.randrange(legal.size)]))
            if env.agents:
                _check(env)
