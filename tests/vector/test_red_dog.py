"""RedDogVectorEnv: N tables equal N single envs, same-step autoreset, policies, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from numpy.typing import NDArray

from poker_env.envs.red_dog import RedDogEnv
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.policy import RandomPolicy
from poker_env.vector.red_dog import RedDogVectorEnv
from poker_env_agents.baselines.red_dog import ReferencePolicy
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


def test_step_before_reset_raises_episode_finished() -> None:
    vec = RedDogVectorEnv(3)
    with pytest.raises(EpisodeFinishedError, match="call reset"):
        vec.step(np.zeros(3, np.int64))
    vec.reset(seed=0)
    vec.step(np.zeros(3, np.int64))


def snapshot(vec: RedDogVectorEnv) -> list[NDArray[Any]]:
    return [a.copy() for a in vec.state]


# (actions, the value the message names, the table): issue 12 §3's 1.7 and "1",
# bools, out of range, a huge unsigned value (it must not wrap to a small one).
BAD_ACTIONS = [
    (np.array([0, 1.7, 2]), "0.0", 0),  # a float array: no element is an integer
    ([0, 1.7, 2], "1.7", 1),  # a list is read element by element
    (["1", "2", "3"], "'1'", 0),
    ([0, 1, True], "True", 2),
    (np.array([True, False, True]), "True", 0),
    (np.array([0, 9, 0]), "9", 1),
    (np.array([0, 0, -1]), "-1", 2),
    (np.array([0, 2**64 - 1, 0], np.uint64), str(2**64 - 1), 1),
    (np.array([1, None, 0], dtype=object), "None", 1),
    (np.array([1, 2**70, 0], dtype=object), str(2**70), 1),
]


@pytest.mark.parametrize("mode", ["passive", "raise"])
@pytest.mark.parametrize(("actions", "shown", "table"), BAD_ACTIONS)
def test_actions_outside_the_space_raise_in_both_modes_and_change_no_table(
    mode: str, actions: object, shown: str, table: int
) -> None:
    vec = RedDogVectorEnv(3, illegal_action=mode)
    twin = RedDogVectorEnv(3, illegal_action=mode)
    vec.reset(seed=6)
    twin.reset(seed=6)
    before = snapshot(vec)
    with pytest.raises(IllegalActionError) as err:
        vec.step(actions)  # type: ignore[arg-type]
    text = str(err.value)
    assert text.startswith(f"illegal action {shown} ")
    assert f"table {table}" in text and "an integer in [0, 6)" in text
    if isinstance(actions, np.ndarray) and actions.dtype.kind == "f":
        assert "dtype float64" in text
    assert all(np.array_equal(a, b) for a, b in zip(before, vec.state, strict=True))
    # Nothing changed: the next step equals a twin's that was never refused.
    a = vec.step(np.array([1, 2, 3]))
    b = twin.step(np.array([1, 2, 3]))
    for x, y in zip(a[:4], b[:4], strict=True):
        assert np.array_equal(x, y)


def test_wrong_action_counts_raise_and_integer_lists_and_object_ints_are_actions() -> None:
    vec = RedDogVectorEnv(3)
    vec.reset(seed=0)
    with pytest.raises(IllegalActionError, match="3 actions"):
        vec.step(np.array([0, 1]))
    twin = RedDogVectorEnv(3)
    twin.reset(seed=0)
    a = vec.step(np.array([1, 2, 3], dtype=object))
    b = twin.step([np.int8(1), 2, np.uint32(3)])
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@pytest.mark.parametrize("value", ["call", None, "RAISE"])
def test_illegal_action_option_accepts_passive_or_raise_only(value: object) -> None:
    assert RedDogVectorEnv(2).illegal_action == "passive"
    with pytest.raises(ConfigError, match=r"illegal_action.*'passive'.*'raise'"):
        RedDogVectorEnv(2, illegal_action=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("num_players", [2, 6, 10])
@pytest.mark.parametrize("opponents", [None, RandomPolicy(4)])
def test_random_actions_of_the_space_never_raise_and_the_flag_is_a_bool_array(
    num_players: int, opponents: RandomPolicy | None
) -> None:
    # Every action of the space is legal on the agent's turn in Red Dog: random
    # actions from the batched space never raise in either mode.
    for mode in ("passive", "raise"):
        vec = RedDogVectorEnv(
            5, num_players=num_players, starting_chips=4, illegal_action=mode, opponents=opponents
        )
        vec.action_space.seed(num_players)
        _, info = vec.reset(seed=num_players)
        assert info["illegal_action"].dtype == np.bool_
        assert info["illegal_action"].shape == (5,) and not info["illegal_action"].any()
        ends = 0
        for _ in range(60):
            _, _, terminated, _, info = vec.step(vec.action_space.sample())
            ends += int(terminated.sum())
            assert info["illegal_action"].shape == (5,) and not info["illegal_action"].any()
            st = vec.state
            assert np.all(st.chips.sum(axis=1) + st.ints[:, 0] == num_players * 4)
        assert ends > 0


@pytest.mark.parametrize("mode", ["passive", "raise"])
@pytest.mark.parametrize("opponents", [None, RandomPolicy(8)])
def test_masked_out_actions_forfeit_in_passive_mode_and_raise_in_raise_mode(
    mode: str, opponents: RandomPolicy | None
) -> None:
    # Not reachable through the public API (Red Dog masks are all ones), so the mask is
    # changed here to exercise the shared convention: on the tables whose action is
    # masked out, FORFEIT is played (RULES.md §2) and info["illegal_action"] says so.
    n = 4
    vec = RedDogVectorEnv(n, illegal_action=mode, opponents=opponents)
    twin = RedDogVectorEnv(n, opponents=opponents if opponents is None else RandomPolicy(8))
    vec.reset(seed=3)
    twin.reset(seed=3)
    mask = np.ones((n, 6), np.int8)
    mask[1, 5] = 0
    mask[3, 2] = 0
    vec._mask = mask
    vec._all_legal = False
    actions = np.array([5, 5, 2, 2])
    if mode == "raise":
        before = snapshot(vec)
        with pytest.raises(IllegalActionError, match="table 1: masked out"):
            vec.step(actions)
        assert all(np.array_equal(a, b) for a, b in zip(before, vec.state, strict=True))
        return
    obs, rewards, terminated, _, info = vec.step(actions)
    t_obs, t_rewards, t_terminated, _, t_info = twin.step(np.array([5, 0, 2, 0]))
    assert np.array_equal(obs, t_obs) and np.array_equal(rewards, t_rewards)
    assert np.array_equal(terminated, t_terminated)
    assert info["illegal_action"].tolist() == [False, True, False, True]
    assert not t_info["illegal_action"].any()


@pytest.mark.parametrize("threads", [2, 3])
def test_two_threads_give_the_same_episodes_as_one(threads: int) -> None:
    # Tables are independent: the thread count must not change any result.
    one = RedDogVectorEnv(300, num_threads=None)
    two = RedDogVectorEnv(300, num_threads=threads)
    assert_same_episodes(one, two, seed=11, steps=80)
