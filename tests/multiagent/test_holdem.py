"""HoldemAECEnv: PettingZoo's api_test and seed_test, and a hand-played episode."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from poker_env.errors import IllegalActionError
from poker_env.multiagent.holdem import HoldemAECEnv


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_api_test(n: int) -> None:
    api_test(HoldemAECEnv(n), num_cycles=300)


def test_api_test_several_hands_busted_players_leave() -> None:
    api_test(HoldemAECEnv(4, hands_per_episode=20, starting_stack=10), num_cycles=600)


@pytest.mark.parametrize("n", [2, 6])
def test_seed_test(n: int) -> None:
    seed_test(lambda render_mode=None: HoldemAECEnv(n, render_mode=render_mode), num_cycles=200)


def test_rewards_sum_to_zero_and_illegal_action_raises() -> None:
    env = HoldemAECEnv(3, render_mode="ansi")
    rng = np.random.default_rng(0)
    for ep in range(20):
        env.reset(seed=ep)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, r, term, trunc, _info = env.last()
            total[agent] += r
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if ep == 0 and not mask.all():
                with pytest.raises(IllegalActionError):
                    env.step(int(np.flatnonzero(mask == 0)[0]))
            env.step(int(rng.choice(np.flatnonzero(mask))))
        assert abs(sum(total.values())) < 1e-9
    assert "player_0" in (env.render() or "")
