"""A pickled or deep-copied AEC env plays on exactly as the original (the compiled
entries it holds are made again in the copy)."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
import pytest

from poker_env.multiagent.draw import DrawAECEnv
from poker_env.multiagent.holdem import HoldemAECEnv
from poker_env.multiagent.red_dog import RedDogAECEnv
from tests.envs.test_copies import plain


def _play(env: Any, rng: random.Random, steps: int) -> list[Any]:
    out = []
    for _ in range(steps):
        if not env.agents:
            env.reset()
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(legal.size)]))
        infos = {a: plain(i) for a, i in env.infos.items()}  # (views feed some infos only)
        out.append(
            (env.agent_selection, obs["observation"].tobytes(), reward, dict(env.rewards), infos)
        )
    return out


@pytest.mark.parametrize(
    "make",
    [
        lambda: RedDogAECEnv(num_players=3),
        HoldemAECEnv,
        DrawAECEnv,
        lambda: DrawAECEnv(mode="match"),
    ],
)
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copy_plays_on_as_the_original(make: Any, how: str) -> None:
    env = make()
    env.reset(seed=4)
    _play(env, random.Random(0), 7)
    twin = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert _play(twin, random.Random(1), 60) == _play(env, random.Random(1), 60)
