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


def test_evaluator_features_api_seed_and_each_seats_category() -> None:
    from poker_env.encoding import holdem as E
    from poker_env.evaluator import evaluate, hand_category

    api_test(HoldemAECEnv(3, evaluator_features=True, equity_samples=20), num_cycles=200)
    seed_test(
        lambda render_mode=None: HoldemAECEnv(
            3, evaluator_features=True, equity_samples=20, render_mode=render_mode
        ),
        num_cycles=100,
    )
    env = HoldemAECEnv(3, evaluator_features=True, equity_samples=50)
    env.reset(seed=1)
    base = E.obs_size(3)
    checked = 0
    while env.agents and checked < 40:
        agent = env.agent_selection
        obs = env.observe(agent)["observation"]
        again = env.observe(agent)["observation"]
        assert np.array_equal(obs, again)  # observing twice gives the same numbers
        assert 0.0 <= obs[base + 9] <= 1.0
        cards = np.flatnonzero(obs[:52]).tolist()
        board = np.flatnonzero(obs[52:104]).tolist()
        if len(board) >= 3:
            want = int(hand_category(evaluate(np.array(cards + board))))
            assert np.flatnonzero(obs[base : base + 9]).tolist() == [want]
            checked += 1
        else:
            assert not obs[base : base + 9].any()
        mask = env.infos[agent]["action_mask"]
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(1 if mask[1] else int(np.flatnonzero(mask)[0]))
        if not env.agents:
            env.reset()
    assert checked > 0
