"""RedDogVectorEnv: N tables equal N single envs, same-step autoreset, policies, errors."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from agents.red_dog import ReferencePolicy
from poker_env.envs.red_dog import RedDogEnv
from poker_env.errors import IllegalActionError
from poker_env.policy import RandomPolicy
from poker_env.vector.red_dog import RedDogVectorEnv
from tests.vector.threads import assert_same_episodes


@pytest.mark.parametrize(
    "kw",
    [
        {"num_players": 3, "rounds": 2},
        {"num_players": 9, "starting_chips": 6, "agent_seat": 4},
        {"num_players": 2, "starting_chips": 3, "rounds": 30, "opponent_random_share": 1.0},
    ],
)
def test_batch_of_n_tables_equals_n_single_envs(kw: dict[str, int]) -> None:
    n, seed = 4, 100
    vec = RedDogVectorEnv(n, **kw)  # type: ignore[arg-type]
    singles = [RedDogEnv(**kw) for _ in range(n)]  # type: ignore[arg-type]
    obs, _ = vec.reset(seed=seed)
    for i, env in enumerate(singles):
        assert np.array_equal(obs[i], env.reset(seed=seed + i)[0])
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(150):
        actions = rng.integers(0, 6, n)
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert not truncated.any()
        for i, env in enumerate(singles):
            o, r, done, _, _ = env.step(int(actions[i]))
            assert r == rewards[i] and done == terminated[i]
            if done:
                episodes += 1
                assert info["_final_obs"][i]
                assert np.array_equal(info["final_obs"][i], o)
                o, _ = env.reset()  # the next game of the table's stream
            assert np.array_equal(obs[i], o)
    assert episodes > 0


def test_same_step_autoreset_is_declared() -> None:
    assert RedDogVectorEnv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP


def test_batch_policy_opponents_conserve_chips() -> None:
    for policy in (RandomPolicy(3), ReferencePolicy()):
        vec = RedDogVectorEnv(6, num_players=4, starting_chips=8, opponents=policy)
        vec.reset(seed=0)
        rng = np.random.default_rng(1)
        done_count = 0
        for _ in range(60):
            _, _, terminated, _, info = vec.step(rng.integers(0, 6, 6))
            done_count += int(terminated.sum())
            st = vec.state
            assert np.all(st.chips.sum(axis=1) + st.ints[:, 0] == 4 * 8)
            assert info["action_mask"].shape == (6, 6)
        assert done_count > 0


def test_rewards_sum_to_the_chips_of_each_episode() -> None:
    vec = RedDogVectorEnv(8, num_players=3, starting_chips=10, rounds=3)
    vec.reset(seed=5)
    totals = np.zeros(8)
    rng = np.random.default_rng(2)
    for _ in range(40):
        _, rewards, terminated, _, info = vec.step(rng.integers(0, 6, 8))
        totals += rewards
        for i in np.flatnonzero(terminated):
            final_own_chips = info["final_obs"][i][157] * 30
            assert totals[i] == pytest.approx(final_own_chips - 10)
            totals[i] = 0


def test_illegal_actions_raise() -> None:
    vec = RedDogVectorEnv(3)
    with pytest.raises(IllegalActionError):
        vec.step(np.zeros(3, np.int64))  # before reset
    vec.reset(seed=0)
    with pytest.raises(IllegalActionError, match="table 1"):
        vec.step(np.array([0, 9, 0]))
    with pytest.raises(IllegalActionError):
        vec.step(np.array([0, 1]))


@pytest.mark.parametrize("threads", [2, 3])
def test_two_threads_give_the_same_episodes_as_one(threads: int) -> None:
    # Tables are independent: the thread count must not change any result.
    one = RedDogVectorEnv(300, num_threads=None)
    two = RedDogVectorEnv(300, num_threads=threads)
    assert_same_episodes(one, two, seed=11, steps=80)
