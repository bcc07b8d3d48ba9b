"""DrawVectorEnv: a batch of N tables equals N single envs; same-step autoreset."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from poker_env.envs.draw import FiveCardDrawEnv
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.policy import RandomPolicy
from poker_env.vector.draw import DrawVectorEnv
from tests.vector.threads import assert_same_episodes


def pick(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)


@pytest.mark.parametrize(
    ("agent_seat", "rules"), [(0, {}), (1, {"deck": 32, "starting_money": 40})]
)
def test_batch_of_n_equals_n_single_envs(agent_seat: int, rules: dict[str, object]) -> None:
    n, seed = 6, 40
    vec = DrawVectorEnv(n, agent_seat=agent_seat, **rules)  # type: ignore[arg-type]
    singles = [FiveCardDrawEnv(agent_seat=agent_seat, **rules) for _ in range(n)]  # type: ignore[arg-type]
    obs, info = vec.reset(seed=seed)
    for i, e in enumerate(singles):
        o, inf = e.reset(seed=seed + i)
        assert np.array_equal(o, obs[i]) and np.array_equal(
            inf["action_mask"], info["action_mask"][i]
        )
    rng = np.random.default_rng(7)
    episodes = 0
    # Enough steps that every table refills its random buffer at least once.
    for _ in range(1200):
        a = pick(rng, info["action_mask"])
        obs, rew, term, trunc, info = vec.step(a)
        assert not trunc.any()
        for i, e in enumerate(singles):
            o, r, t, _, inf = e.step(int(a[i]))
            assert (r, t) == (rew[i], term[i])
            if t:
                episodes += 1
                assert info["_final_obs"][i]
                assert np.array_equal(o, info["final_obs"][i])
                o, inf = e.reset()
            assert np.array_equal(o, obs[i])
            assert np.array_equal(inf["action_mask"], info["action_mask"][i])
    assert episodes > 100


def test_same_step_autoreset_metadata_and_masks() -> None:
    vec = DrawVectorEnv(4)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = vec.reset(seed=0)
    assert obs.shape == (4, 124) and info["action_mask"].shape == (4, vec.single_action_space.n)
    assert vec.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, _rew, _term, _trunc, info = vec.step(pick(rng, info["action_mask"]))
        # The returned observation is always a live decision: its mask is never empty.
        assert (info["action_mask"].sum(axis=1) > 0).all()
        assert np.array_equal(vec.action_masks(), info["action_mask"])
        assert vec.observation_space.contains(obs)


def test_illegal_action_raises_and_nothing_is_applied() -> None:
    vec = DrawVectorEnv(3)
    _obs, info = vec.reset(seed=1)
    a = pick(np.random.default_rng(1), info["action_mask"])
    a[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    before = vec._S.copy()
    with pytest.raises(IllegalActionError):
        vec.step(a)
    assert np.array_equal(vec._S, before)


def test_batch_policy_opponent() -> None:
    vec = DrawVectorEnv(8, opponent=RandomPolicy(2))
    _obs, info = vec.reset(seed=3)
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(150):
        _obs, _rew, term, _trunc, info = vec.step(pick(rng, info["action_mask"]))
        ends += int(term.sum())
        assert (info["action_mask"].sum(axis=1) > 0).all()
    assert ends > 20


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError):
        DrawVectorEnv(0)
    with pytest.raises(ConfigError):
        DrawVectorEnv(2, num_threads=0)
    with pytest.raises(ConfigError):
        DrawVectorEnv(2, opponent=object())  # type: ignore[arg-type]


@pytest.mark.parametrize("threads", [2, 3])
def test_two_threads_give_the_same_episodes_as_one(threads: int) -> None:
    # Tables are independent: the thread count must not change any result.
    one = DrawVectorEnv(300, num_threads=1)
    two = DrawVectorEnv(300, num_threads=threads)
    assert_same_episodes(one, two, seed=11, steps=80)
