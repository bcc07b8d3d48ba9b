"""Every Gymnasium id under Gymnasium's own vector envs (``gym.make_vec``): their
info merging takes each env's info (a value that is a dict is merged key by key, so
an info value must not be a dict in one env and None in another)."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest

import poker_env  # noqa: F401  (registers the ids)

IDS = sorted(k for k in gym.registry if k.startswith("poker_env/"))


def _run(env: gym.vector.VectorEnv, steps: int) -> int:
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        # After an episode's end the next step only resets that env (autoreset on the
        # next step): its mask is all zeros then, and its action is not played.
        actions = [
            int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in info["action_mask"]
        ]
        _, _, terminated, truncated, info = env.step(np.array(actions))
        ended += int(np.sum(terminated | truncated))
    return ended


@pytest.mark.parametrize("env_id", IDS)
def test_every_id_runs_under_gymnasiums_sync_vector_env(env_id: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make_vec(env_id, num_envs=5, vectorization_mode="sync")
    assert _run(env, 400) > 3  # several episodes ended (and the envs reset) on the way
    env.close()


def test_red_dog_runs_under_gymnasiums_async_vector_env() -> None:
    # Its infos cross a process boundary: every value pickles.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make_vec("poker_env/RedDog-v0", num_envs=2, vectorization_mode="async")
    try:
        assert _run(env, 300) > 1
    finally:
        env.close(terminate=True)  # (a worker that failed is not waited for)


def test_last_bet_is_a_read_only_mapping_equal_to_its_dict_that_pickles() -> None:
    from collections.abc import Mapping

    env = gym.make("poker_env/RedDog-v0")
    _, info = env.reset(seed=1)
    assert info["last_bet"] is None
    _, _, _, _, info = env.step(2)
    bet = info["last_bet"]
    assert isinstance(bet, Mapping) and not isinstance(bet, dict)
    plain = dict(bet)
    assert list(plain) == [
        "action", "p", "seat", "kind", "amount", "turned_card", "won", "shown",
        "pot_refilled", "deal_ended",
    ]  # fmt: skip
    assert plain["action"] == 2 and bet == plain and plain == bet
    assert pickle.loads(pickle.dumps(bet)) == plain
    with pytest.raises(TypeError):
        bet["won"] = True  # type: ignore[index]


def test_a_record_class_must_say_how_it_decodes() -> None:
    # LazyRecord is abstract: a subclass without _decode cannot be made at all.
    from poker_env.episode.records import LazyRecord

    class Incomplete(LazyRecord):
        KEYS = ("a",)

    with pytest.raises(TypeError, match="_decode"):
        Incomplete()  # type: ignore[abstract]
