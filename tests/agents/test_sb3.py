"""The SB3 VecEnv adapter against the batched envs it wraps."""

from __future__ import annotations

import numpy as np
import pytest

from poker_env.errors import ConfigError
from poker_env.vector.holdem import HoldemVectorEnv
from poker_env.vector.red_dog import RedDogVectorEnv
from poker_env_agents.registry import get_game
from poker_env_agents.training.sb3 import PokerVecEnv


def _random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    u = rng.random(masks.shape)
    return np.argmax(np.where(masks == 1, u, -1.0), axis=1).astype(np.int64)


@pytest.mark.parametrize(
    ("game", "options"),
    [("holdem", {"num_players": 3}), ("red-dog", {"num_players": 3})],
)
def test_adapter_matches_the_vector_env_step_by_step(game: str, options: dict) -> None:
    # The same tables, seeds and actions through the adapter (two sub-batches of 4)
    # and through one plain vector env of 8: every observation, mask, reward, done
    # and terminal observation agrees; episode statistics sum the rewards since the
    # table's last episode end.
    spec = get_game(game)
    venv = PokerVecEnv([spec.make_vector(4, options), spec.make_vector(4, options)], seed=11)
    ref = spec.make_vector(8, options)
    obs = venv.reset()
    ref_obs, info = ref.reset(seed=11)
    np.testing.assert_array_equal(obs, ref_obs)
    np.testing.assert_array_equal(venv.env_method("action_masks"), info["action_mask"])
    rng = np.random.default_rng(0)
    running = np.zeros(8)
    lengths = np.zeros(8, np.int64)
    episodes = 0
    for _ in range(300):
        acts = _random_legal(rng, venv.action_masks())
        venv.step_async(acts)
        obs, rew, dones, infos = venv.step_wait()
        r_obs, r_rew, r_term, r_trunc, r_info = ref.step(acts)
        assert obs.dtype == np.float32 and rew.dtype == np.float32
        np.testing.assert_array_equal(obs, r_obs)
        np.testing.assert_allclose(rew, r_rew, rtol=1e-6)
        np.testing.assert_array_equal(dones, r_term | r_trunc)
        np.testing.assert_array_equal(venv.action_masks(), r_info["action_mask"])
        running += r_rew
        lengths += 1
        for i in range(8):
            if dones[i]:
                episodes += 1
                np.testing.assert_array_equal(
                    infos[i]["terminal_observation"], r_info["final_obs"][i]
                )
                assert infos[i]["TimeLimit.truncated"] == bool(r_trunc[i] and not r_term[i])
                assert infos[i]["episode"]["r"] == pytest.approx(running[i], rel=1e-5)
                assert infos[i]["episode"]["l"] == lengths[i]
                running[i] = 0.0
                lengths[i] = 0
            else:
                assert infos[i] == {}
    assert episodes > 20


def test_observations_are_fresh_arrays_each_step() -> None:
    # SB3 stores the previous observation after the step: a reused buffer would
    # silently overwrite the rollout.
    venv = PokerVecEnv([get_game("holdem").make_vector(4)], seed=0)
    first = venv.reset()
    keep = first.copy()
    venv.step_async(_random_legal(np.random.default_rng(1), venv.action_masks()))
    second, *_ = venv.step_wait()
    assert second is not first
    np.testing.assert_array_equal(first, keep)


def test_seed_method_reseeds_the_next_reset() -> None:
    venv = PokerVecEnv([get_game("red-dog").make_vector(3)], seed=0)
    a = venv.reset()
    venv.seed(5)
    b = venv.reset()
    ref = get_game("red-dog").make_vector(3)
    r5, _ = ref.reset(seed=5)
    np.testing.assert_array_equal(b, r5)
    assert venv.get_attr("render_mode") == [None, None, None]
    assert venv.env_is_wrapped(object) == [False] * 3  # type: ignore[arg-type]
    assert a.shape == b.shape


def test_masks_reach_maskable_ppo_and_no_masked_action_is_sampled() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = PokerVecEnv([get_game("holdem").make_vector(8, {"num_players": 6})], seed=3)
    assert is_masking_supported(venv)
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (8, venv.action_space.n)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    obs = venv.reset()
    for _ in range(50):
        m = venv.action_masks()
        acts, _ = model.predict(obs, action_masks=m, deterministic=False)
        assert (m[np.arange(8), acts] == 1).all()
        venv.step_async(acts)
        obs, *_ = venv.step_wait()


def test_refuses_envs_with_different_spaces() -> None:
    with pytest.raises(ConfigError, match="spaces"):
        PokerVecEnv([HoldemVectorEnv(2, 2), HoldemVectorEnv(2, 3)])
    with pytest.raises(ConfigError, match="envs"):
        PokerVecEnv([])
    with pytest.raises(ConfigError, match="spaces"):
        PokerVecEnv([RedDogVectorEnv(2, num_players=3), RedDogVectorEnv(2, num_players=4)])
