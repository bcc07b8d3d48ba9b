"""HoldemVectorEnv: N tables equal N single envs, same-step autoreset, masks."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numpy.typing import NDArray

from poker_env.envs.holdem import HoldemEnv
from poker_env.episode import holdem as E
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.vector.holdem import HoldemVectorEnv
from tests.vector.threads import assert_same_episodes


def play_against_singles(
    vec: HoldemVectorEnv, singles: list[HoldemEnv], seed: int, steps: int
) -> tuple[int, NDArray[np.float64]]:
    """Step ``vec`` and ``singles`` (table ``i`` reset with ``seed + i``) with the same
    random legal actions; observations, masks, rewards, ends and final observations
    must be equal at every step, and the observations in the space. Returns the
    episodes ended and every reward."""
    obs, info = vec.reset(seed=seed)
    firsts = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    assert obs.shape[1] == singles[0].observation_space.shape[0]
    assert np.array_equal(obs, np.stack([o for o, _ in firsts]))
    rng = np.random.default_rng(seed)
    episodes = 0
    rewards = []
    for _ in range(steps):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, trunc, info = vec.step(acts)
        assert not trunc.any()
        assert vec.observation_space.contains(obs)
        rewards.append(rew)
        for i, env in enumerate(singles):
            o, r, t, _, inf = env.step(int(acts[i]))
            assert t == term[i] and r == rew[i]
            if t:
                episodes += 1
                assert info["_final_obs"][i]
                assert np.array_equal(info["final_obs"][i], o)
                o, inf = env.reset()  # same-step autoreset: the next episode's first obs
            assert np.array_equal(o, obs[i])
            assert np.array_equal(inf["action_mask"], info["action_mask"][i])
    return episodes, np.concatenate(rewards)


@pytest.mark.parametrize(("n", "hands"), [(2, 1), (3, 1), (6, 3), (10, 1)])
def test_batch_of_n_equals_n_single_envs_with_same_seeds(n: int, hands: int) -> None:
    vec = HoldemVectorEnv(6, n, hands_per_episode=hands, escape_prob=0.02)
    singles = [HoldemEnv(n, hands_per_episode=hands, escape_prob=0.02) for _ in range(6)]
    episodes, _ = play_against_singles(vec, singles, seed=100, steps=250)
    assert episodes > 0


@pytest.mark.parametrize("extra", [0, 1])
def test_stacks_at_and_past_the_32_bit_limit_play_as_single_envs(extra: int) -> None:
    # The batched rows hold 32-bit chip counts while they fit, 64-bit ones (as the
    # single env's) past that: the batch accepts what the single env accepts.
    big = (2**31 - 1) // 6 + extra
    vec = HoldemVectorEnv(4, 6, starting_stack=big, hands_per_episode=3)
    singles = [HoldemEnv(6, starting_stack=big, hands_per_episode=3) for _ in range(4)]
    episodes, rewards = play_against_singles(vec, singles, seed=7, steps=150)
    assert episodes > 0
    # Whole stacks changed hands: more than 100 million big blinds in one episode.
    assert np.abs(rewards).max() > 1e8


def test_masks_never_empty_and_spaces_contain_obs() -> None:
    vec = HoldemVectorEnv(64, 6)
    obs, _info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(100):
        masks = vec.action_masks()
        assert masks.any(axis=1).all()
        assert vec.observation_space.contains(obs)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, *_ = vec.step(acts)


def _snapshot(vec: HoldemVectorEnv) -> list[np.ndarray]:
    return [vec._states.copy(), vec._rngs.copy(), vec._masks.copy(), vec._obs.copy()]


def _masked_actions(masks: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random actions, masked out at about half the tables where something is masked;
    and the actions the passive rule plays instead (check/call there)."""
    acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    played = acts.copy()
    for i, m in enumerate(masks):
        masked = np.flatnonzero(m == 0)
        if masked.size and rng.random() < 0.5:
            acts[i], played[i] = rng.choice(masked), 1
    return acts, played


@pytest.mark.parametrize("n", [2, 6])
def test_masked_actions_play_check_call_by_default_and_info_says_where(n: int) -> None:
    a = HoldemVectorEnv(32, n, hands_per_episode=2)
    b = HoldemVectorEnv(32, n, hands_per_episode=2)
    _, info_a = a.reset(seed=9)
    b.reset(seed=9)
    assert info_a["illegal_action"].shape == (32,) and not info_a["illegal_action"].any()
    rng = np.random.default_rng(n)
    replaced = 0
    for _ in range(60):
        acts, played = _masked_actions(info_a["action_mask"], rng)
        given = acts.copy()
        obs_a, r_a, t_a, _, info_a = a.step(acts)
        obs_b, r_b, t_b, _, info_b = b.step(played)
        assert np.array_equal(acts, given)  # the caller's array is not written
        assert info_a["illegal_action"].dtype == np.bool_
        assert np.array_equal(info_a["illegal_action"], acts != played)
        assert not info_b["illegal_action"].any()
        assert np.array_equal(obs_a, obs_b) and np.array_equal(r_a, r_b)
        assert np.array_equal(t_a, t_b) and np.array_equal(a._states, b._states)
        replaced += int((acts != played).sum())
    assert replaced > 100


def test_strict_mode_refuses_a_masked_action_and_steps_nothing() -> None:
    vec = HoldemVectorEnv(16, 3, illegal_action="raise")
    _obs, info = vec.reset(seed=1)
    rng = np.random.default_rng(0)
    while True:
        acts, played = _masked_actions(info["action_mask"], rng)
        if (acts != played).any():
            break
        _, _, _, _, info = vec.step(acts)
    first = int(np.flatnonzero(acts != played)[0])
    before = _snapshot(vec)
    with pytest.raises(
        IllegalActionError, match=rf"illegal action {acts[first]} in phase table {first} "
    ):
        vec.step(acts)
    for x, y in zip(before, _snapshot(vec), strict=True):
        assert np.array_equal(x, y)
    vec.step(played)


@pytest.mark.parametrize("value", ["call", "ignore"])
def test_illegal_action_modes_are_passive_and_raise_only(value: str) -> None:
    with pytest.raises(ConfigError, match=r"illegal_action.*'passive' or 'raise'"):
        HoldemVectorEnv(2, 2, illegal_action=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["passive", "raise"])
def test_actions_outside_the_space_are_refused_in_both_modes(mode: str) -> None:
    vec = HoldemVectorEnv(4, 2, illegal_action=mode)  # type: ignore[arg-type]
    vec.reset(seed=1)
    ones = [1, 1, 1, 1]
    cases = [
        (np.array([1, 1, 1.7, 1]), "1.7"),
        (np.array([1.0, 1.0, 1.0, 1.0]), "1.0"),
        (["1", "1", "1", "1"], "'1'"),
        (np.array([True, True, True, True]), "True"),
        (np.array([1, 1, 8, 1]), "8"),
        (np.array([1, -1, 1, 1]), "-1"),
        (np.array([1, 1, 1, 2**64 - 1], dtype=np.uint64), str(2**64 - 1)),
        (ones[:3], "[1, 1, 1]"),
        (ones * 2, "[1, 1, 1, 1, 1, 1, 1, 1]"),
    ]
    for bad, shown in cases:
        before = _snapshot(vec)
        with pytest.raises(IllegalActionError) as err:
            vec.step(bad)  # type: ignore[arg-type]
        assert f"illegal action {shown} " in str(err.value), str(err.value)
        assert "an integer in [0, 8)" in str(err.value)
        for x, y in zip(before, _snapshot(vec), strict=True):
            assert np.array_equal(x, y)
    for good in (np.ones(4, dtype=np.uint8), np.ones((4, 1), dtype=np.int32), ones):
        vec.step(good)


def test_step_before_reset_raises_episode_finished() -> None:
    vec = HoldemVectorEnv(4, 2)
    with pytest.raises(EpisodeFinishedError):
        vec.step(np.ones(4, dtype=np.int64))
    vec.reset(seed=0)
    vec.step(np.ones(4, dtype=np.int64))


@pytest.mark.parametrize("n", [2, 6, 10])
def test_default_mode_accepts_every_action_of_the_space(n: int) -> None:
    for seed in range(3):
        vec = HoldemVectorEnv(64, n, hands_per_episode=2, escape_prob=0.02)
        vec.action_space.seed(seed)
        _, info = vec.reset(seed=seed)
        replaced = 0
        for _ in range(40):
            masks = info["action_mask"]
            acts = vec.action_space.sample()
            obs, _, _, _, info = vec.step(acts)
            want = masks[np.arange(64), acts] == 0
            assert np.array_equal(info["illegal_action"], want)
            replaced += int(want.sum())
            assert vec.observation_space.contains(obs)
        assert replaced > 0


class _CallPolicy:
    """Deterministic: check/call (index 1), legal at every decision."""

    def act(self, observation: object, action_mask: np.ndarray) -> int:
        assert action_mask[1] == 1
        return 1

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        assert observations.shape[0] == action_masks.shape[0]
        assert (action_masks[:, 1] == 1).all()
        return np.ones(action_masks.shape[0], dtype=np.int64)


@pytest.mark.parametrize("n", [2, 6])
def test_batch_policy_opponents_equal_single_envs_with_that_policy(n: int) -> None:
    num = 5
    vec = HoldemVectorEnv(num, n, opponent=_CallPolicy(), hands_per_episode=2)
    singles = [HoldemEnv(n, opponents=_CallPolicy(), hands_per_episode=2) for _ in range(num)]
    obs, info = vec.reset(seed=7)
    firsts = [e.reset(seed=7 + i) for i, e in enumerate(singles)]
    assert np.array_equal(obs, np.stack([o for o, _ in firsts]))
    rng = np.random.default_rng(n)
    for _ in range(150):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, _, info = vec.step(acts)
        for i, env in enumerate(singles):
            o, r, t, _, _ = env.step(int(acts[i]))
            assert t == term[i] and r == rew[i]
            if t:
                assert np.array_equal(info["final_obs"][i], o)
                o, _ = env.reset()
            assert np.array_equal(o, obs[i])


@pytest.mark.parametrize(("n", "threads"), [(2, 2), (6, 3)])
def test_two_threads_give_the_same_episodes_as_one(n: int, threads: int) -> None:
    # The threaded step hands tables to threads dynamically; tables are independent,
    # so the result must not depend on the thread count or the scheduling.
    one = HoldemVectorEnv(300, n, hands_per_episode=2, escape_prob=0.02, num_threads=1)
    two = HoldemVectorEnv(300, n, hands_per_episode=2, escape_prob=0.02, num_threads=threads)
    assert_same_episodes(one, two, seed=7, steps=60)


def test_evaluator_features_on_two_threads_equal_one_thread() -> None:
    kw = {"hands_per_episode": 2, "evaluator_features": True, "equity_samples": 20}
    one = HoldemVectorEnv(50, 4, num_threads=1, **kw)
    two = HoldemVectorEnv(50, 4, num_threads=2, **kw)
    assert_same_episodes(one, two, seed=11, steps=30)


def test_final_obs_rows_of_tables_still_playing_are_zeros_and_stay_the_callers() -> None:
    env = HoldemVectorEnv(64, 3)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(1)
    kept = []
    for _ in range(6):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, _, term, _, info = env.step(acts)
        if "final_obs" in info:
            final = info["final_obs"]
            assert np.array_equal(info["_final_obs"], term)
            assert not final[~term].any()
            assert final[term].any(axis=1).all()
            kept.append((obs, obs.copy(), final, final.copy()))
    assert kept
    # Later steps write fresh arrays: what was handed out is never overwritten.
    for obs, obs_copy, final, final_copy in kept:
        assert np.array_equal(obs, obs_copy) and np.array_equal(final, final_copy)


@njit(cache=True)
def _play_observed_rows(states, rngs, acts, masks, pr, rewards, dones):  # type: ignore[no-untyped-def]
    # The batch step's play of the agents' actions (E.step_row without its autoreset).
    for i in range(states.shape[0]):
        code, r = E.play_observed(states[i], rngs, i, acts[i], masks[i], pr)
        rewards[i] = r
        dones[i] = code == E.EPISODE_DONE


@pytest.mark.parametrize("n", [2, 6])
def test_agent_action_from_the_observed_mask_plays_as_a_checked_action(n: int) -> None:
    # The batched step plays the agent's action with the mask and amounts kept from
    # the last observation; the checked path (E.step_table: legality computed again,
    # used by the AEC env and Python opponents) must give the same table.
    from poker_env.games import holdem_kernels as K

    env = HoldemVectorEnv(96, n, hands_per_episode=3, escape_prob=0.02)
    _, info = env.reset(seed=5)
    rng = np.random.default_rng(2)
    for _ in range(40):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        fast, fast_rng = env._states.copy(), env._rngs.copy()
        checked, checked_rng = env._states.copy(), env._rngs.copy()
        rewards = np.zeros(96)
        dones = np.zeros(96, dtype=np.bool_)
        _play_observed_rows(fast, fast_rng, acts, env._masks.copy(), env._params, rewards, dones)
        for i in range(96):
            code, r = E.step_table(checked[i], checked_rng, i, int(acts[i]), env._params)
            assert code != E.ILLEGAL
            assert r == rewards[i] and (code == E.EPISODE_DONE) == dones[i]
        assert np.array_equal(fast[:, : K.SCR_LEGAL], checked[:, : K.SCR_LEGAL])
        assert np.array_equal(fast_rng, checked_rng)
        _, _, _, _, info = env.step(acts)


@pytest.mark.parametrize("n", [2, 4])
def test_evaluator_features_batch_equals_single_envs(n: int) -> None:
    # The final observations carry the final hand's category (no equity).
    kw = {"hands_per_episode": 2, "escape_prob": 0.02, "evaluator_features": True}
    vec = HoldemVectorEnv(5, n, equity_samples=30, **kw)  # type: ignore[arg-type]
    singles = [HoldemEnv(n, equity_samples=30, **kw) for _ in range(5)]  # type: ignore[arg-type]
    episodes, _ = play_against_singles(vec, singles, seed=40, steps=120)
    assert episodes > 0
