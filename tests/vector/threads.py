"""Shared check: a vector env plays the same episodes whatever its thread count."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_same_episodes(one: Any, other: Any, seed: int, steps: int) -> None:
    """Step ``one`` and ``other`` (same options, different ``num_threads``) with the same
    random legal actions; observations, masks, rewards, ends and final observations
    must be equal at every step (tables are independent, so scheduling changes nothing).
    """
    obs1, info1 = one.reset(seed=seed)
    obs2, info2 = other.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        assert np.array_equal(obs1, obs2)
        assert np.array_equal(info1["action_mask"], info2["action_mask"])
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info1["action_mask"]])
        obs1, rew1, term1, _, info1 = one.step(acts)
        obs2, rew2, term2, _, info2 = other.step(acts)
        assert np.array_equal(rew1, rew2) and np.array_equal(term1, term2)
        assert ("final_obs" in info1) == ("final_obs" in info2)
        for key in ("illegal_action", "walks", "walk_reward", "first_walk_reward"):
            # Taken row by row inside the threaded step (HoldemVectorEnv's walks).
            assert (key in info1) == (key in info2), key
            if key in info1:
                assert np.array_equal(info1[key], info2[key]), key
        if "final_obs" in info1:
            done = info1["_final_obs"]
            assert np.array_equal(info1["final_obs"][done], info2["final_obs"][done])
