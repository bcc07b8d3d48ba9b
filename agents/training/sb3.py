"""Stable-Baselines3 over the batched envs: a ``VecEnv`` adapter and its helpers.

SB3's own ``DummyVecEnv`` steps one Python env per table. :class:`PokerVecEnv` steps
one or more :mod:`poker_env.vector` envs instead (N tables in one compiled call
each) and hands SB3 what it reads:

- observations (float32, a fresh array each step: SB3 stores the previous one
  after the step);
- batched masks through ``env_method("action_masks")`` (the call sb3-contrib's
  ``MaskablePPO`` makes every step), already an (N, A) array;
- ``infos[i]["terminal_observation"]`` where a table's episode ended (the vector
  envs reset it in the same step), ``"TimeLimit.truncated"`` where it was
  truncated, and ``infos[i]["episode"] = {"r", "l", "t"}`` episode statistics (what
  SB3's ``VecMonitor`` would add, counted here without a wrapper).

Several vector envs (sub-batches) may be joined: they must share their spaces.
Training uses that to give each sub-batch its own opponent from a pool
(:mod:`poker_env_agents.training.selfplay`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from poker_env.errors import ConfigError

if TYPE_CHECKING:
    from poker_env_agents.features import FeatureSet

__all__ = [
    "PokerVecEnv",
    "ScaledFlatten",
    "activation_class",
    "fast_torch_settings",
    "observation_scale",
]


def observation_scale(space: gym.spaces.Space[Any]) -> NDArray[np.float32]:
    """Per-entry factors that bring an observation into [-1, 1]: ``1 / max(1, |low|,
    |high|)``. Chip counts (draw's pot and money run to thousands) would otherwise
    saturate the first tanh layer; entries already within [-1, 1] are left alone."""
    if not isinstance(space, gym.spaces.Box):
        raise ConfigError("observation space", space, "a Box")
    bound = np.maximum(np.abs(space.low), np.abs(space.high)).astype(np.float64)
    bound = np.where(np.isfinite(bound), bound, 1.0)
    return (1.0 / np.maximum(bound, 1.0)).astype(np.float32)


def _scaled_flatten_class() -> Any:
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class _ScaledFlatten(BaseFeaturesExtractor):
        def __init__(self, observation_space: gym.spaces.Box, scale: Sequence[float]) -> None:
            size = int(np.prod(observation_space.shape))
            super().__init__(observation_space, features_dim=size)
            if len(scale) != size:
                raise ConfigError("scale", len(scale), f"{size} factors, one per observation entry")
            self.register_buffer("scale", torch.as_tensor(np.asarray(scale, np.float32)))

        def forward(self, observations: Any) -> Any:
            scale: torch.Tensor = self.scale  # type: ignore[assignment]
            return torch.flatten(observations, start_dim=1) * scale

    _ScaledFlatten.__name__ = _ScaledFlatten.__qualname__ = "ScaledFlatten"
    _ScaledFlatten.__module__ = __name__
    return _ScaledFlatten


ScaledFlatten: Any = _scaled_flatten_class()
ScaledFlatten.__doc__ = """SB3 features extractor: flatten, then multiply by fixed per-entry factors.

The factors (:func:`observation_scale`) are a buffer of the model, so a saved model
carries them and :mod:`poker_env_agents.training.export` folds them into the first layer's weights: the
exported policy takes the env's raw observations."""


def activation_class(name: str) -> Any:
    """The torch module class of an activation named in a training config."""
    import torch

    classes = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
    if name not in classes:
        raise ConfigError("activation", name, f"one of {sorted(classes)}")
    return classes[name]


def fast_torch_settings(num_threads: int | None = 1) -> None:
    """The torch settings measured fastest for MaskablePPO on small MLPs here.

    - ``torch.distributions`` argument validation off: sb3-contrib's masked
      categorical distribution validates its logits on every construction (several
      per minibatch), which a profile put near a tenth of training time; the masks
      it receives come from the env and are checked there.
    - ``num_threads`` torch threads (1: small MLPs gain nothing from more, and the
      batched env steps on its own threads).
    """
    import torch

    torch.distributions.Distribution.set_default_validate_args(False)
    if num_threads is not None:
        torch.set_num_threads(num_threads)


class PokerVecEnv(VecEnv):
    """An SB3 ``VecEnv`` over one or more ``poker_env.vector`` envs.

    Args:
        envs: batched envs with equal single observation and action spaces
            (``DrawVectorEnv``, ``RedDogVectorEnv``, ``HoldemVectorEnv``); their tables
            are numbered in order, sub-env after sub-env.
        seed: the seed of the first reset (table ``i`` of the whole batch gets
            ``seed + i``); ``VecEnv.seed()`` sets it for the next reset as SB3 does.
        features: a feature set (:mod:`poker_env_agents.features`) whose columns follow each
            observation (the observation space grows by its size, bounds [-1, 1]);
            None for the env's observations as they are.
        reward: None for the env's rewards; or ``(observations, actions) -> rewards``,
            the training reward of each table's action from the observation it was
            taken on (e.g. :class:`poker_env_agents.evaluate.RedDogBetValue`). The episode
            statistics (``infos[i]["episode"]``) keep the env's rewards.
        dominated_folds: None to keep the env's masks; or the env id whose
            dominated folds (nothing to call, a free check legal) the masks lose
            (:func:`poker_env_agents.runtime.without_dominated_folds`), as the exported
            policy's runtime does.
    """

    def __init__(
        self,
        envs: Sequence[gym.vector.VectorEnv],
        seed: int | None = None,
        features: FeatureSet | None = None,
        reward: Callable[[NDArray[np.float32], NDArray[np.int64]], NDArray[Any]] | None = None,
        dominated_folds: str | None = None,
    ) -> None:
        envs = list(envs)
        self.dominated_folds = dominated_folds
        if not envs:
            raise ConfigError("envs", envs, "one or more poker_env.vector envs")
        obs_space = envs[0].single_observation_space
        act_space = envs[0].single_action_space
        for k, e in enumerate(envs):
            if not hasattr(e, "action_masks"):
                raise ConfigError(
                    f"envs[{k}]", type(e).__name__, "a vector env with action_masks()"
                )
            if e.single_observation_space != obs_space or e.single_action_space != act_space:
                raise ConfigError(f"envs[{k}]", type(e).__name__, "the spaces of envs[0]")
        if not isinstance(act_space, gym.spaces.Discrete):
            raise ConfigError("envs", act_space, "a Discrete action space")
        self.envs = envs
        sizes = [int(e.num_envs) for e in envs]
        bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._slices = [slice(int(bounds[k]), int(bounds[k + 1])) for k in range(len(envs))]
        n = int(bounds[-1])
        self.render_mode: str | None = None
        self.features = features
        self.reward = reward
        self._last_raw: NDArray[np.float32] | None = None
        self.raw_observation_space = obs_space
        if features is not None:
            if not isinstance(obs_space, gym.spaces.Box):
                raise ConfigError("features", features.name, "an env with a Box observation")
            low = np.concatenate([obs_space.low, np.full(features.size, -1.0, np.float32)])
            high = np.concatenate([obs_space.high, np.ones(features.size, np.float32)])
            obs_space = gym.spaces.Box(low, high, dtype=np.float32)
        super().__init__(n, obs_space, act_space)
        self._first_seed = seed
        self._actions = np.zeros(n, np.int64)
        self._masks = np.zeros((n, int(act_space.n)), np.int8)
        self._ep_return = np.zeros(n, np.float64)
        self._ep_length = np.zeros(n, np.int64)
        self._t0 = time.time()
        self._was_reset = False

    # ----- the VecEnv API ------------------------------------------------------
    def reset(self) -> NDArray[np.float32]:
        seeds = self._seeds
        if all(s is None for s in seeds) and self._first_seed is not None and not self._was_reset:
            seeds = [self._first_seed + i for i in range(self.num_envs)]
        parts = []
        for e, sl in zip(self.envs, self._slices, strict=True):
            s = seeds[sl.start]
            obs, info = e.reset(seed=None if s is None else int(s))
            parts.append(np.asarray(obs, np.float32))
            self._masks[sl] = info["action_mask"]
        self._reset_seeds()
        self._reset_options()
        self._ep_return[:] = 0.0
        self._ep_length[:] = 0
        self._was_reset = True
        raw = np.concatenate(parts)
        self._drop_dominated_folds(raw)
        self._last_raw = raw
        return self._with_features(raw)

    def _drop_dominated_folds(self, raw: NDArray[np.float32]) -> None:
        if self.dominated_folds is not None:
            from poker_env_agents.runtime import without_dominated_folds

            self._masks[:] = without_dominated_folds(self.dominated_folds, raw, self._masks)

    def _with_features(self, obs: NDArray[np.float32]) -> NDArray[np.float32]:
        if self.features is None:
            return obs
        return np.concatenate([obs, self.features(obs)], axis=1)

    def step_async(self, actions: NDArray[Any]) -> None:
        self._actions[:] = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        n = self.num_envs
        obs = np.empty((n, *self.raw_observation_space.shape), np.float32)  # type: ignore[misc]
        rewards = np.empty(n, np.float32)
        terms = np.empty(n, np.bool_)
        truncs = np.empty(n, np.bool_)
        finals: list[tuple[slice, NDArray[Any], NDArray[np.bool_]]] = []
        for e, sl in zip(self.envs, self._slices, strict=True):
            o, r, te, tr, info = e.step(self._actions[sl])
            obs[sl] = o
            rewards[sl] = r
            terms[sl] = te
            truncs[sl] = tr
            self._masks[sl] = info["action_mask"]
            if "final_obs" in info:
                finals.append((sl, info["final_obs"], info["_final_obs"]))
        dones = terms | truncs
        raw_obs = obs
        self._drop_dominated_folds(raw_obs)
        obs = self._with_features(obs)
        self._ep_return += rewards
        if self.reward is not None and self._last_raw is not None:
            env_rewards = rewards
            rewards = np.asarray(self.reward(self._last_raw, self._actions), np.float32)
            if rewards.shape != env_rewards.shape:
                raise ConfigError(
                    "reward", rewards.shape, f"one reward per table {env_rewards.shape}"
                )
        self._last_raw = raw_obs
        self._ep_length += 1
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        if dones.any():
            final_obs = np.array(raw_obs)  # tables whose final obs the env did not give: none
            for sl, fo, has in finals:
                rows = np.flatnonzero(has)
                final_obs[sl.start + rows] = fo[rows]
            done_rows = np.flatnonzero(dones)
            final_obs = self._with_features(final_obs[done_rows])
            elapsed = round(time.time() - self._t0, 6)
            for k, i in enumerate(done_rows.tolist()):
                infos[i] = {
                    "terminal_observation": final_obs[k],
                    "TimeLimit.truncated": bool(truncs[i] and not terms[i]),
                    "episode": {
                        "r": float(self._ep_return[i]),
                        "l": int(self._ep_length[i]),
                        "t": elapsed,
                    },
                }
            self._ep_return[dones] = 0.0
            self._ep_length[dones] = 0
        return obs, rewards, dones, infos

    def action_masks(self) -> NDArray[np.int8]:
        """(N, A) int8: every table's legal actions now."""
        return self._masks.copy()

    def close(self) -> None:
        for e in self.envs:
            e.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> Any:
        if method_name == "action_masks":
            # One (N, A) array: np.stack in sb3-contrib's get_action_masks keeps it.
            masks = (
                self._masks if indices is None else self._masks[list(self._get_indices(indices))]
            )
            return masks.copy()
        method: Callable[..., Any] = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]], indices: VecEnvIndices = None
    ) -> list[bool]:
        # Episode statistics are added here; no gymnasium wrapper sits on the tables.
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[NDArray[Any] | None]:
        return [None for _ in range(self.num_envs)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices


def fit_to_teacher(
    model: Any,
    observations: NDArray[np.float32],
    action_masks: NDArray[np.int8],
    actions: NDArray[np.int64],
    returns: NDArray[np.float32],
    *,
    epochs: int,
    batch_size: int,
    seed: int,
    label: str = "",
) -> dict[str, float]:
    """Behaviour cloning of a MaskablePPO model: its policy learns ``actions``
    (cross-entropy over the legal actions) and its value network ``returns`` (squared
    error, weight 0.5 as PPO's), with the model's own optimizer, in shuffled
    minibatches (a ``torch.Generator`` seeded with ``seed``).

    Returns:
        ``accuracy`` (share of rows whose masked argmax is the teacher's action) and
        ``loss`` (mean over the last epoch). With ``label``, a line per epoch.
    """
    import torch

    policy = model.policy
    o = torch.as_tensor(np.asarray(observations, np.float32))
    m = torch.as_tensor(np.asarray(action_masks, np.int8))
    a = torch.as_tensor(np.asarray(actions, np.int64))
    g = torch.as_tensor(np.asarray(returns, np.float32))
    rows = int(a.shape[0])
    if rows == 0:
        raise ConfigError("warm_start_steps", 0, "enough steps for at least one whole episode")
    gen = torch.Generator().manual_seed(int(seed))
    stats: dict[str, float] = {}
    value_params = [p for name, p in policy.named_parameters() if "value" in name]
    policy_params = [p for name, p in policy.named_parameters() if "value" not in name]
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = torch.randperm(rows, generator=gen)
        total = 0.0
        for start in range(0, rows, batch_size):
            b = order[start : start + batch_size]
            values, log_prob, _entropy = policy.evaluate_actions(
                o[b], a[b], action_masks=m[b].numpy()
            )
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), g[b])
            policy.optimizer.zero_grad()
            loss.backward()
            # Clipped apart: the returns' squared error (antes squared) would otherwise
            # take the whole norm and leave the policy's gradient a sliver.
            torch.nn.utils.clip_grad_norm_(value_params, 0.5)
            torch.nn.utils.clip_grad_norm_(policy_params, 0.5)
            policy.optimizer.step()
            total += float(loss.detach()) * int(b.numel())
        correct = 0
        with torch.no_grad():
            for start in range(0, rows, 8192):
                sl = slice(start, start + 8192)
                dist = policy.get_distribution(o[sl], action_masks=m[sl].numpy())
                correct += int((dist.distribution.probs.argmax(dim=1) == a[sl]).sum())
        stats = {"accuracy": correct / rows, "loss": total / rows, "rows": float(rows)}
        if label:
            print(
                f"{label} epoch {epoch + 1}/{epochs}: loss {stats['loss']:.4f}, "
                f"accuracy {stats['accuracy']:.3f}",
                flush=True,
            )
    policy.set_training_mode(False)
    return stats
