"""Batched sampling for the RLlib path: an EnvRunner over ``poker_env.vector``.

RLlib's stock sampling pays Python work per env step and per agent (connectors,
episode bookkeeping, one AEC env step per decision): about 200-500 env steps/s per
runner here. :class:`BatchedEnvRunner` steps ``num_envs_per_env_runner`` tables of a
game's batched env (:mod:`poker_env.vector`) in one compiled call per step, the
learner in one seat of each table (the single env's agent seat: drawn per episode in
Hold'em and Red Dog) and every other seat played in batch by the runner's own module
(its current weights, sampled), and builds RLlib's episodes from whole arrays at the
end of each rollout. Only the learner seat's
decisions become training data (every seat's in the stock multi-agent path).

Used through :func:`poker_env_agents.training.rllib.build_config` (``sampler="batched"``).
"""

from __future__ import annotations

import math
import uuid
from collections import deque
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from numpy.typing import NDArray
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer
from ray.rllib.utils.metrics import (
    EPISODE_LEN_MEAN,
    EPISODE_RETURN_MAX,
    EPISODE_RETURN_MEAN,
    EPISODE_RETURN_MIN,
)

from poker_env_agents.registry import get_game

__all__ = [
    "LOGIT_MIN",
    "BatchedEnvRunner",
    "BatchedLearnerConnector",
    "dict_space",
    "sample_masked",
]

#: Masked-out logits: float32's minimum (as RLlib's action-masking example), so that
#: exp() gives exactly 0 and no arithmetic overflows to -inf (no NaN in the loss).
LOGIT_MIN = float(torch.finfo(torch.float32).min)


def dict_space(obs_space: gym.spaces.Box, num_actions: int) -> gym.spaces.Dict:
    return gym.spaces.Dict(
        {
            "observations": obs_space,
            "action_mask": gym.spaces.Box(0.0, 1.0, shape=(num_actions,), dtype=np.float32),
        }
    )


def sample_masked(
    logits: NDArray[np.float32], rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """One action per row from the softmax of already masked logits, and its log-prob.

    One uniform per row from ``rng`` (inverse CDF, as :class:`poker_env_agents.runtime.NumpyPolicy`)."""
    z = logits.astype(np.float64)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    total = p.sum(axis=1, keepdims=True)
    cum = np.cumsum(p, axis=1)
    u = rng.random((z.shape[0], 1)) * total
    k = (cum <= u).sum(axis=1)
    legal = logits > LOGIT_MIN / 2
    last_legal = logits.shape[1] - 1 - np.argmax(legal[:, ::-1], axis=1)
    acts = np.minimum(k, last_legal).astype(np.int64)
    logp = (z[np.arange(z.shape[0]), acts] - np.log(total[:, 0])).astype(np.float32)
    return acts, logp


# ----- batched sampling ------------------------------------------------------------------------


class _ModuleOpponent:
    """The runner's current module as a ``BatchPolicy``: every opponent seat of every
    table that is to act, in one forward pass, sampled from the masked softmax."""

    def __init__(self, runner: BatchedEnvRunner, rng: np.random.Generator) -> None:
        self.runner = runner
        self.rng = rng
        self.num_decisions = 0

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.integer]
    ) -> NDArray[np.int64]:
        logits = self.runner._logits(np.asarray(observations, np.float32), action_masks)
        self.num_decisions += len(logits)
        acts, _ = sample_masked(logits, self.rng)
        return acts

    def act(self, observation: NDArray[np.floating], action_mask: NDArray[np.integer]) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])


class _DictVectorEnv(gym.vector.VectorEnv):
    """The spaces RLlib builds the module from: the batched env's, with the mask in a
    Dict observation (only the spaces are used; :class:`BatchedEnvRunner` steps the
    batched env itself)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.num_envs = int(inner.num_envs)
        n = int(inner.single_action_space.n)
        self.single_observation_space = dict_space(inner.single_observation_space, n)
        self.single_action_space = inner.single_action_space
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}

    def close_extras(self, **kwargs: Any) -> None:
        self.inner.close()


class BatchedEnvRunner(SingleAgentEnvRunner):  # type: ignore[misc]
    """An EnvRunner that steps ``num_envs_per_env_runner`` tables of a game's batched
    env in one compiled call per step, every opponent seat played by its own module.

    The env config is ``{"game": ..., "options": {...}}``. Each step: one forward pass
    of the module for the learner seat of every table (sampled with a numpy Generator
    seeded from the config's seed and the runner's index), one batched env step (the
    opponents' decisions inside it, in batch, by the same module), whole arrays kept;
    the episodes (one per hand, as the single env's) are cut out of the arrays at the
    end of the rollout. Metrics: RLlib's usual counters and episode returns, plus
    ``num_opponent_decisions`` and ``illegal_actions`` (always 0: the masked logits
    never choose a masked-out action; counted to prove it).
    """

    def make_env(self) -> None:
        cfg = dict(self.config.env_config)
        game = str(cfg.get("game", "holdem"))
        spec = get_game(game)
        seed = int(self.config.seed or 0)
        index = int(self.worker_index or 0)
        # Every random draw seeded (STYLE.md): the runner's streams from the run's seed
        # and the runner's index; the tables seeded from the same pair below.
        self._rng = np.random.default_rng([seed, index, 0])
        self._opponent = _ModuleOpponent(self, np.random.default_rng([seed, index, 1]))
        num_envs = int(self.config.num_envs_per_env_runner)
        self._vec = spec.make_vector(num_envs, cfg.get("options") or {}, opponent=self._opponent)
        self.env = _DictVectorEnv(self._vec)
        self.num_envs = num_envs
        self._table_seed = seed * 1_000_003 + index * num_envs
        self._needs_initial_reset = True
        self._returns: deque[float] = deque(maxlen=1000)
        self._lengths: deque[int] = deque(maxlen=1000)
        self._illegal = 0
        self._checked = 0

    def _logits(self, obs: NDArray[np.float32], masks: NDArray[Any]) -> NDArray[np.float32]:
        batch = {
            Columns.OBS: {
                "observations": torch.from_numpy(np.ascontiguousarray(obs, np.float32)),
                "action_mask": torch.from_numpy(np.asarray(masks, np.float32)),
            }
        }
        with torch.no_grad():
            out = self.module.forward_exploration(batch)
        logits: NDArray[np.float32] = out[Columns.ACTION_DIST_INPUTS].numpy()
        return logits

    def _reset_tables(self) -> None:
        obs, info = self._vec.reset(seed=self._table_seed)
        self._obs = np.asarray(obs, np.float32).copy()
        self._mask = np.asarray(info["action_mask"], np.float32)
        n = self.num_envs
        self._ids = [uuid.uuid4().hex for _ in range(n)]
        self._t0 = np.zeros(n, np.int64)
        self._ret = np.zeros(n, np.float64)
        self._len = np.zeros(n, np.int64)
        self._needs_initial_reset = False

    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool = True,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[SingleAgentEpisode]:
        if num_timesteps is None:
            raise ValueError(
                "BatchedEnvRunner samples timesteps (batch_mode='truncate_episodes'), "
                f"not episodes (num_episodes={num_episodes})"
            )
        if force_reset or self._needs_initial_reset:
            self._reset_tables()
        n = self.num_envs
        steps = max(1, math.ceil(num_timesteps / n))
        size = self._obs.shape[1]
        width = self._mask.shape[1]
        obs = np.empty((steps + 1, n, size), np.float32)
        mask = np.empty((steps + 1, n, width), np.float32)
        final = np.zeros((steps, n, size), np.float32)
        acts = np.empty((steps, n), np.int64)
        logp = np.empty((steps, n), np.float32)
        dist = np.empty((steps, n, width), np.float32)
        rew = np.empty((steps, n), np.float32)
        done = np.empty((steps, n), np.bool_)
        obs[0], mask[0] = self._obs, self._mask
        for t in range(steps):
            logits = self._logits(obs[t], mask[t])
            if random_actions or explore:
                a, lp = sample_masked(logits, self._rng)
            else:
                a = np.argmax(logits, axis=1).astype(np.int64)
                lp = np.zeros(n, np.float32)
            self._illegal += int((mask[t][np.arange(n), a] < 0.5).sum())
            self._checked += n
            o, r, term, trunc, info = self._vec.step(a)
            acts[t], logp[t], dist[t] = a, lp, logits
            rew[t] = r
            done[t] = np.logical_or(term, trunc)
            obs[t + 1] = o
            mask[t + 1] = info["action_mask"]
            if done[t].any():
                final[t][done[t]] = info["final_obs"][done[t]]
        self._obs, self._mask = obs[steps].copy(), mask[steps].copy()
        episodes = self._cut_episodes(obs, mask, final, acts, logp, dist, rew, done)
        ts = steps * n
        self._increase_sampled_metrics(ts, sum(e.is_done for e in episodes))
        self.metrics.log_value("num_opponent_decisions", self._opponent.num_decisions, reduce="sum")
        self._opponent.num_decisions = 0
        return episodes

    def _cut_episodes(
        self,
        obs: NDArray[np.float32],
        mask: NDArray[np.float32],
        final: NDArray[np.float32],
        acts: NDArray[np.int64],
        logp: NDArray[np.float32],
        dist: NDArray[np.float32],
        rew: NDArray[np.float32],
        done: NDArray[np.bool_],
    ) -> list[SingleAgentEpisode]:
        steps, n = acts.shape
        out: list[SingleAgentEpisode] = []
        zero_mask = np.zeros((1, mask.shape[2]), np.float32)
        for i in range(n):
            start = 0
            ends = [int(e) for e in np.flatnonzero(done[:, i])]
            if not ends or ends[-1] != steps - 1:
                ends.append(steps - 1)
            for end in ends:
                finished = bool(done[end, i])
                stop = end + 1
                if finished:
                    # The hand's last observation (its mask all zeros: nobody acts).
                    o = np.concatenate([obs[start:stop, i], final[end, i][None]])
                    m = np.concatenate([mask[start:stop, i], zero_mask])
                else:
                    o, m = obs[start : stop + 1, i], mask[start : stop + 1, i]
                length = stop - start
                ep = _episode(
                    self._ids[i],
                    int(self._t0[i]),
                    o,
                    m,
                    acts[start:stop, i],
                    rew[start:stop, i],
                    logp[start:stop, i],
                    dist[start:stop, i],
                    finished,
                )
                out.append(ep)
                self._ret[i] += float(rew[start:stop, i].sum())
                self._len[i] += length
                if finished:
                    self._returns.append(float(self._ret[i]))
                    self._lengths.append(int(self._len[i]))
                    self._ids[i] = uuid.uuid4().hex
                    self._t0[i] = 0
                    self._ret[i] = 0.0
                    self._len[i] = 0
                else:
                    self._t0[i] += length
                start = stop
        return out

    def get_metrics(self) -> Any:
        win = max(
            1,
            math.ceil(
                self.config.metrics_num_episodes_for_smoothing / (self.config.num_env_runners or 1)
            ),
        )
        # Only the last `win` episodes count in RLlib's windowed means: log those alone
        # (thousands of one-hand episodes per rollout).
        rets = list(self._returns)[-win:]
        lens = list(self._lengths)[-win:]
        for r, n in zip(rets, lens, strict=True):
            self.metrics.log_value(EPISODE_RETURN_MEAN, r, window=win)
            self.metrics.log_value(EPISODE_LEN_MEAN, n, window=win)
            self.metrics.log_value(("agent_episode_return_mean", "default_agent"), r, window=win)
            self.metrics.log_value(EPISODE_RETURN_MIN, r, reduce="min", window=win)
            self.metrics.log_value(EPISODE_RETURN_MAX, r, reduce="max", window=win)
        self._returns.clear()
        self._lengths.clear()
        self.metrics.log_value("illegal_actions", self._illegal, reduce="sum")
        self.metrics.log_value("checked_actions", self._checked, reduce="sum")
        self._illegal = self._checked = 0
        return self.metrics.reduce()


def _buffer(data: Any) -> InfiniteLookbackBuffer:
    """``InfiniteLookbackBuffer(data)`` without a space (no lookback): its constructor's
    space bookkeeping (``get_base_struct_from_space(None)``) set by hand, as ray 2.60
    does it, for the thousands of buffers a rollout of one-hand episodes makes."""
    b = InfiniteLookbackBuffer.__new__(InfiniteLookbackBuffer)
    b.data = data
    b.lookback = 0
    b.finalized = not isinstance(data, list)
    b._space = None
    b._space_struct = None
    return b


def _episode(
    id_: str,
    t0: int,
    obs: NDArray[np.float32],
    mask: NDArray[np.float32],
    acts: NDArray[np.int64],
    rew: NDArray[np.float32],
    logp: NDArray[np.float32],
    dist: NDArray[np.float32],
    terminated: bool,
) -> SingleAgentEpisode:
    """A numpy'd episode chunk built from arrays (no per-step Python)."""
    length = len(acts)
    # Views of the rollout's arrays (fresh each rollout), no copies; the spaces are
    # left out (RLlib checks each item against them, most of this function's time).
    return SingleAgentEpisode(
        id_=id_,
        observations=_buffer({"observations": obs, "action_mask": mask}),
        infos=_buffer([{} for _ in range(length + 1)]),
        actions=_buffer(acts),
        rewards=_buffer(rew),
        extra_model_outputs={
            Columns.ACTION_LOGP: _buffer(logp),
            Columns.ACTION_DIST_INPUTS: _buffer(dist),
        },
        terminated=terminated,
        t_started=t0,
        len_lookback_buffer=0,
    )


# ----- the learner side: the train batch from whole arrays -------------------------------------


def _episode_arrays(ep: Any) -> tuple[Any, ...]:
    """An episode chunk's observations (dict, L+1 rows), actions, rewards, log-probs
    and distribution inputs (L rows), read from the buffers when they hold plain
    arrays with no lookback (what :class:`BatchedEnvRunner` makes), else through
    the episode's getters."""
    o = ep.observations
    if o.finalized and o.lookback == 0 and isinstance(o.data, dict):
        extra = ep.extra_model_outputs
        return (
            o.data,
            ep.actions.data,
            ep.rewards.data,
            extra[Columns.ACTION_LOGP].data,
            extra[Columns.ACTION_DIST_INPUTS].data,
        )
    return (  # pragma: no cover - episodes from elsewhere
        ep.get_observations(),
        np.asarray(ep.get_actions()),
        np.asarray(ep.get_rewards(), np.float32),
        np.asarray(ep.get_extra_model_outputs(Columns.ACTION_LOGP)),
        np.asarray(ep.get_extra_model_outputs(Columns.ACTION_DIST_INPUTS)),
    )


class BatchedLearnerConnector(ConnectorV2):  # type: ignore[misc]
    """PPO's learner connector pipeline for :class:`BatchedEnvRunner`'s episodes, on
    whole arrays.

    RLlib's default pipeline (``AddOneTsToEpisodesAndTruncate``, the observation and
    column connectors, ``GeneralAdvantageEstimation``) does Python work per episode,
    and a hand is an episode of one or two decisions of the learner's seat: most of
    an iteration's time. This builds the same batch with a few concatenations:
    per episode chunk of L steps, L + 1 rows (the last one the bootstrap
    observation, its action and model outputs those of the last real step, reward
    0, ``loss_mask`` False, as ``AddOneTsToEpisodesAndTruncate``); one value forward
    pass over all rows; value targets by RLlib's ``compute_value_targets``
    (terminated at a hand's end, truncated at a rollout cut); advantages
    standardised as ``GeneralAdvantageEstimation`` does.
    """

    def __init__(
        self,
        input_observation_space: Any = None,
        input_action_space: Any = None,
        *,
        gamma: float = 1.0,
        lambda_: float = 0.95,
        module_id: str = "default_policy",
        **kwargs: Any,
    ) -> None:
        super().__init__(input_observation_space, input_action_space, **kwargs)
        self.gamma = float(gamma)
        self.lambda_ = float(lambda_)
        self.module_id = module_id

    def __call__(
        self,
        *,
        rl_module: Any,
        batch: dict[str, Any],
        episodes: list[Any],
        explore: bool | None = None,
        shared_data: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        from ray.rllib.utils.postprocessing.value_predictions import compute_value_targets

        parts = [_episode_arrays(e) for e in episodes]
        lens = np.array([len(p[1]) for p in parts], np.int64)
        rows = lens + 1
        ends = np.cumsum(rows)
        total = int(ends[-1])
        phantom = ends - 1  # the bootstrap row of each chunk
        real = np.ones(total, np.bool_)
        real[phantom] = False
        last_real = phantom - 1
        obs = np.concatenate([p[0]["observations"] for p in parts]).astype(np.float32)
        mask = np.concatenate([p[0]["action_mask"] for p in parts]).astype(np.float32)

        def fill(values: list[NDArray[Any]], dtype: Any, reward: bool = False) -> NDArray[Any]:
            first = values[0]
            out = np.zeros((total, *np.shape(first)[1:]), dtype)
            out[real] = np.concatenate(values)
            if not reward:
                out[phantom] = out[last_real]
            return out

        acts = fill([p[1] for p in parts], np.int64)
        rew = fill([p[2] for p in parts], np.float32, reward=True)
        logp = fill([p[3] for p in parts], np.float32)
        dist = fill([p[4] for p in parts], np.float32)
        term = np.zeros(total, np.float32)
        trunc = np.zeros(total, np.float32)
        done = np.array([bool(e.is_terminated) for e in episodes])
        term[last_real[done]] = 1.0
        trunc[last_real[~done]] = 1.0
        module = rl_module[self.module_id]
        obs_t = {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(mask)}
        with torch.no_grad():
            values = module.compute_values({Columns.OBS: obs_t}).cpu().numpy().astype(np.float32)
        targets = compute_value_targets(
            values=values,
            rewards=rew,
            terminateds=term,
            truncateds=trunc,
            gamma=self.gamma,
            lambda_=self.lambda_,
        )
        adv = targets - values
        # Standardised over the real rows and the bootstrap rows alike, as RLlib's
        # GeneralAdvantageEstimation does (the latter are masked out of the loss).
        adv = (adv - adv.mean()) / max(1e-4, float(adv.std()))
        batch[self.module_id] = {
            Columns.OBS: obs_t,
            Columns.ACTIONS: torch.from_numpy(acts),
            Columns.ACTION_LOGP: torch.from_numpy(logp),
            Columns.ACTION_DIST_INPUTS: torch.from_numpy(dist),
            Columns.REWARDS: torch.from_numpy(rew),
            Columns.TERMINATEDS: torch.from_numpy(term.astype(np.bool_)),
            Columns.TRUNCATEDS: torch.from_numpy(trunc.astype(np.bool_)),
            Columns.LOSS_MASK: torch.from_numpy(real),
            Columns.ADVANTAGES: torch.from_numpy(adv.astype(np.float32)),
            Columns.VALUE_TARGETS: torch.from_numpy(targets.astype(np.float32)),
        }
        return batch
