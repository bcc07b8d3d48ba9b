"""observe() of the agent to act copies the driver's own encoding (DrawAECEnv).

The view is checked against a fresh encoding of the same state (the code path every
other agent and every finished agent takes: ``encode_obs`` and ``env_mask``) at every
step of random matches, also after the match's end, a truncation and illegal actions.
"""

from __future__ import annotations

import numpy as np

from poker_env.episode import draw as enc
from poker_env.multiagent.draw import AGENTS, DrawAECEnv


def _fresh(env: DrawAECEnv, agent: str) -> tuple[np.ndarray, np.ndarray]:
    seat = AGENTS.index(agent)
    obs = np.zeros(enc.OBS_SIZE, np.float32)
    enc.encode_obs(env._s, env._cfg, seat, obs)
    mask = np.zeros_like(env._mask)
    done = env.terminations.get(agent, True) or env.truncations.get(agent, True)
    if agent == env.agent_selection and not done:
        enc.env_mask(env._s, env._cfg, env._ep, env._fp, mask)
    return obs, mask


def _check_all(env: DrawAECEnv) -> None:
    for agent in AGENTS:
        got = env.observe(agent)
        obs, mask = _fresh(env, agent)
        np.testing.assert_array_equal(got["observation"], obs)
        np.testing.assert_array_equal(got["action_mask"], mask)


def test_observe_equals_a_fresh_encoding() -> None:
    rng = np.random.default_rng(5)
    for mode, max_hands in (("pot", 1000), ("match", 3), ("match", 1000)):
        env = DrawAECEnv(mode=mode, max_hands=max_hands)
        env.reset(seed=int(rng.integers(1 << 30)))
        steps = 0
        for _ in range(20):
            for _agent in env.agent_iter():
                _check_all(env)
                _, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                mask = env.observe(env.agent_selection)["action_mask"]
                if rng.random() < 0.1:  # a masked-out action now and then (plays passive)
                    action = int(rng.integers(mask.size))
                else:
                    action = int(rng.choice(np.flatnonzero(mask)))
                env.step(np.int64(action) if steps % 2 else action)
                steps += 1
            _check_all(env)
            env.reset()
        assert steps > 50


def test_returned_arrays_are_copies() -> None:
    env = DrawAECEnv()
    env.reset(seed=1)
    first = env.observe(env.agent_selection)
    first["observation"][:] = -7
    first["action_mask"][:] = 0
    again = env.observe(env.agent_selection)
    assert (again["observation"] != -7).any()
    assert again["action_mask"].any()
