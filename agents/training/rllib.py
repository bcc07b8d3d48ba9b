"""The RLlib path: self-play PPO on Ray RLlib (new API stack), past one machine.

Needs the ``rllib`` extra (``ray[rllib]``, pinned in ``pyproject.toml``) and torch.
What is here:

- :class:`PokerMultiAgentEnv`: a PettingZoo AEC env of any game (``draw``,
  ``draw-match``, ``red-dog``, ``holdem``) as an RLlib ``MultiAgentEnv``: turn-based
  (the observation of the agent to act only), the observation a dict
  ``{"observations": vector, "action_mask": float32 0/1}`` (the keys RLlib's
  action-masking modules read; our AEC envs say ``"observation"`` and int8).
  Registered with Ray's registry under ``poker_env_<game>`` (:func:`register_envs`).
- :class:`MaskedMLPModule`: a PPO ``RLModule`` of two MLPs (policy and value, not
  shared, as SB3's ``MlpPolicy``) that sets the logits of masked-out actions to the
  float32 minimum, so they are never sampled and carry no probability in the loss.
- Self-play: ``sampler="stock"`` maps every seat of the AEC env to one shared
  learning policy (``"shared"``); ``sampler="batched"`` (:class:`BatchedEnvRunner`)
  steps ``num_envs_per_env_runner`` tables of the game's batched env
  (:mod:`poker_env.vector`) in one compiled call, the learner in one seat of each
  table (the single env's agent seat: drawn per episode in Hold'em and Red Dog)
  and every other seat played in batch by the same module's current weights
  (sampled), RLlib's per-step Python work replaced by whole-array bookkeeping. Only the learner seat's decisions become training data
  there (every seat's in the stock path).
- :func:`build_config`, :func:`train`: PPO with checkpoints, TensorBoard scalars and
  an export at the end; :func:`export_module` writes the project's policy file
  (:mod:`poker_env_agents.training.export`'s format: the manifest names the single env the SB3 export
  names for that game), so :func:`poker_env_agents.runtime.load_policy`, ``scripts/evaluate.py``
  and ``play`` take an RLlib-trained policy like any other.

The command line is ``scripts/train_rllib.py``; docs/distributed.md says how to run
it on a cluster.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from numpy.typing import NDArray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.tune.registry import register_env
from torch import nn

from poker_env.errors import ConfigError
from poker_env_agents.registry import get_game
from poker_env_agents.runtime import DenseLayer
from poker_env_agents.training.checkpoints import (
    FOLDER_MANIFEST,
    UntrustedCheckpointError,
    atomic_write_text,
    check_folder,
    check_signature,
    commit_folder,
    remove_stale_temporaries,
    signing_key,
    verified_copy,
)
from poker_env_agents.training.rllib_batched import (
    LOGIT_MIN,
    BatchedEnvRunner,
    BatchedLearnerConnector,
    dict_space,
)

__all__ = [
    "GAMES",
    "SAMPLERS",
    "BatchedEnvRunner",
    "IllegalActionCounter",
    "MaskedMLPModule",
    "PokerMultiAgentEnv",
    "RLlibConfig",
    "TrainResult",
    "build_config",
    "env_name",
    "export_module",
    "find_rllib_checkpoint",
    "learner_module",
    "make_aec_env",
    "masked_argmax",
    "module_id",
    "module_layers",
    "register_envs",
    "train",
]

#: The games this path trains (the names of :data:`poker_env_agents.registry.GAMES`).
GAMES = ("draw", "draw-match", "red-dog", "holdem")
#: ``stock``: RLlib's own MultiAgentEnvRunner over the AEC env; ``batched``:
#: :class:`BatchedEnvRunner` over the batched env.
SAMPLERS = ("batched", "stock")
#: The module id of the shared learning policy in the stock (multi-agent) path.
SHARED = "shared"
#: The module id RLlib gives the single module of a single-agent config (batched path).
DEFAULT_MODULE = "default_policy"
_ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


def env_name(game: str) -> str:
    """The name a game's multi-agent env is registered under with Ray (``poker_env_<game>``)."""
    return f"poker_env_{game}"


def module_id(sampler: str) -> str:
    """The id of the learning module in a run with this sampler."""
    return SHARED if sampler == "stock" else DEFAULT_MODULE


# ----- the multi-agent env -------------------------------------------------------------------


def make_aec_env(game: str, options: Mapping[str, Any] | None = None) -> Any:
    """The PettingZoo AEC env of ``game`` with the env ``options`` (those of
    :func:`poker_env_agents.registry.get_game`; an unknown game or option is a ConfigError)."""
    spec = get_game(game)
    opts = spec.options(options)
    if spec.name in ("draw", "draw-match"):
        from poker_env.multiagent.draw import DrawAECEnv

        return DrawAECEnv(mode="match" if spec.name == "draw-match" else "pot", **opts)
    if spec.name == "red-dog":
        from poker_env.multiagent.red_dog import RedDogAECEnv

        return RedDogAECEnv(**opts)
    from poker_env.multiagent.holdem import HoldemAECEnv

    return HoldemAECEnv(**opts)


class PokerMultiAgentEnv(MultiAgentEnv):  # type: ignore[misc]
    """A poker_env AEC env as an RLlib ``MultiAgentEnv`` (turn-based).

    Each ``step`` takes the action of the agent to act and returns the observation of
    the next agent to act only; when a hand ends, every agent gets its reward and its
    final observation at once (``terminateds["__all__"]`` True). Observations are
    ``{"observations": the AEC env's vector, "action_mask": float32 0/1}``.

    Args:
        config: RLlib's env config (a mapping): ``game`` (default ``holdem``) and
            ``options`` (the game's env options, e.g. ``{"num_players": 6}``).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = dict(config or {})
        self.game = str(cfg.get("game", "holdem"))
        self.aec = make_aec_env(self.game, cfg.get("options") or {})
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        first = self.possible_agents[0]
        inner = self.aec.observation_space(first)["observation"]
        n = int(self.aec.action_space(first).n)
        space = dict_space(inner, n)
        self.observation_spaces: dict[str, gym.Space[Any]] = dict.fromkeys(
            self.possible_agents, space
        )
        self.action_spaces: dict[str, gym.Space[Any]] = {
            a: gym.spaces.Discrete(n) for a in self.possible_agents
        }
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        #: Actions given that the mask forbade (the env plays its passive fallback).
        self.num_illegal = 0

    def _obs(self, agent: str) -> dict[str, NDArray[np.float32]]:
        o = self.aec.observe(agent)
        return {
            "observations": np.asarray(o["observation"], np.float32),
            "action_mask": np.asarray(o["action_mask"], np.float32),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        agent = self.aec.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        agent = self.aec.agent_selection
        action = int(action_dict[agent])
        if self.aec.observe(agent)["action_mask"][action] == 0:
            self.num_illegal += 1
        self.aec.step(action)
        obs: dict[str, Any] = {}
        rewards: dict[str, float] = {}
        terms: dict[str, bool] = {}
        truncs: dict[str, bool] = {}
        # Dead agents are stepped with None (PettingZoo's AEC protocol), collecting
        # their final reward and observation, until a live agent is to act.
        while self.aec.agents:
            a = self.aec.agent_selection
            done = bool(self.aec.terminations[a] or self.aec.truncations[a])
            obs[a] = self._obs(a)
            rewards[a] = rewards.get(a, 0.0) + float(self.aec._cumulative_rewards[a])
            terms[a] = bool(self.aec.terminations[a])
            truncs[a] = bool(self.aec.truncations[a])
            if not done:
                break
            self.aec.step(None)
        all_done = not self.aec.agents
        terms["__all__"] = all_done
        truncs["__all__"] = False
        return obs, rewards, terms, truncs, {}


def register_envs() -> None:
    """Register every game's :class:`PokerMultiAgentEnv` with Ray (``poker_env_<game>``)."""
    for game in GAMES:
        register_env(env_name(game), PokerMultiAgentEnv)
    register_env(_BATCHED_ENV, _batched_env_placeholder)


#: The env id of the batched sampler's configs: BatchedEnvRunner builds the env itself.
_BATCHED_ENV = "poker_env_batched"


# ----- the module -------------------------------------------------------------------------------


def _mlp(sizes: Sequence[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(_ACTIVATIONS[activation]())
    return nn.Sequential(*layers)


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):  # type: ignore[misc]
    """PPO's module: policy MLP and value MLP on ``obs["observations"]``, the logits of
    actions with ``obs["action_mask"] == 0`` set to float32's minimum.

    ``model_config``: ``hidden`` (layer widths, default ``[128, 128]``) and
    ``activation`` (``tanh`` or ``relu``): the shapes the numpy runtime runs.
    """

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {
            "observations",
            "action_mask",
        }:
            raise ValueError(
                f"MaskedMLPModule needs a Dict observation space with 'observations' and "
                f"'action_mask', got {space}"
            )
        cfg = dict(self.model_config or {})
        hidden = [int(h) for h in cfg.get("hidden", (128, 128))]
        activation = str(cfg.get("activation", "tanh"))
        if activation not in _ACTIVATIONS:
            raise ConfigError("activation", activation, f"one of {sorted(_ACTIVATIONS)}")
        size = int(np.prod(space["observations"].shape or ()))
        n = int(self.action_space.n)
        self.activation_name = activation
        self.pi = _mlp([size, *hidden, n], activation)
        self.vf = _mlp([size, *hidden, 1], activation)

    def _masked_logits(self, obs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        logits: torch.Tensor = self.pi(obs["observations"])
        return logits.masked_fill(obs["action_mask"] < 0.5, LOGIT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch[Columns.OBS])}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch[Columns.OBS])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> Any:
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)


def module_layers(module: Any) -> list[DenseLayer]:
    """The policy network of a :class:`MaskedMLPModule` as the runtime's dense layers."""
    pi = getattr(module, "pi", None)
    if not isinstance(pi, nn.Sequential):
        raise ValueError(f"{type(module).__name__} is not a MaskedMLPModule (no 'pi' MLP)")
    layers: list[DenseLayer] = []
    for m in pi:
        if isinstance(m, nn.Linear):
            w = m.weight.detach().cpu().numpy().astype(np.float32)
            b = m.bias.detach().cpu().numpy().astype(np.float32)
            # torch stores (out, in); the policy file (in, out).
            layers.append(DenseLayer(np.ascontiguousarray(w.T), np.ascontiguousarray(b)))
        else:
            name = next(k for k, v in _ACTIVATIONS.items() if isinstance(m, v))
            last = layers[-1]
            layers[-1] = DenseLayer(last.weight, last.bias, name)
    return layers


def masked_argmax(
    module: Any, observations: NDArray[Any], masks: NDArray[Any]
) -> NDArray[np.int64]:
    """The module's greedy action (``forward_inference``, masked logits) per row."""
    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(np.asarray(observations, np.float32)),
            "action_mask": torch.as_tensor(np.asarray(masks, np.float32)),
        }
    }
    with torch.no_grad():
        out = module.forward_inference(batch)
    logits = out[Columns.ACTION_DIST_INPUTS].cpu().numpy()
    best: NDArray[np.int64] = np.argmax(logits, axis=1).astype(np.int64)
    return best


# ----- illegal actions, counted in the stock path ---------------------------------------------


class IllegalActionCounter(RLlibCallback):  # type: ignore[misc]
    """Counts sampled actions that the observation's mask forbade (metric
    ``illegal_actions``) and the actions checked (``checked_actions``)."""

    def on_sample_end(
        self, *, env_runner: Any, metrics_logger: Any, samples: Any, **kw: Any
    ) -> None:
        if isinstance(env_runner, BatchedEnvRunner):
            return  # counted inside the runner, on the whole arrays
        bad = checked = 0
        for ep in samples:
            parts = getattr(ep, "agent_episodes", None)
            for sa in parts.values() if parts is not None else [ep]:
                n = len(sa)
                if n == 0:
                    continue
                acts = np.asarray(sa.get_actions(slice(0, n)))
                masks = sa.get_observations(slice(0, n))
                m = (
                    np.asarray(masks["action_mask"])
                    if isinstance(masks, dict)
                    else np.stack([x["action_mask"] for x in masks])
                )
                bad += int((m[np.arange(n), acts] < 0.5).sum())
                checked += n
        metrics_logger.log_value("illegal_actions", bad, reduce="sum")
        metrics_logger.log_value("checked_actions", checked, reduce="sum")


# ----- configuration and training ------------------------------------------------------------


@dataclass
class RLlibConfig:
    """A PPO self-play run on RLlib.

    Attributes:
        game: ``draw``, ``draw-match``, ``red-dog`` or ``holdem``.
        options: the game's env options (``num_players`` for Red Dog and Hold'em).
        sampler: ``batched`` (:class:`BatchedEnvRunner`) or ``stock``.
        num_env_runners: remote env runners (0: sample in the driver).
        num_envs_per_env_runner: tables per runner (batched) or AEC envs (stock).
        iterations: PPO training iterations.
        seed: seeds the module's initial weights, the runners' draws and the tables.
        train_batch_size, minibatch_size, num_epochs, lr, gamma, lambda_,
        entropy_coeff, clip_param: PPO.
        hidden, activation: the policy and value MLPs.
        checkpoint_every: iterations between checkpoints (the last always saved).
        num_learners: remote learner actors (0: the learner runs in the driver).
        num_gpus_per_learner: GPUs per learner (with ``num_learners`` 0: the driver's).
        array_learner: with the batched sampler, build the train batch with
            :class:`~poker_env_agents.training.rllib_batched.BatchedLearnerConnector` (whole arrays)
            instead of RLlib's per-episode learner connectors (same batch).
        out: the run folder.
    """

    game: str = "holdem"
    options: dict[str, Any] = field(default_factory=dict)
    sampler: str = "batched"
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 256
    iterations: int = 10
    seed: int = 0
    train_batch_size: int = 8192
    minibatch_size: int = 2048
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 1.0
    lambda_: float = 0.95
    entropy_coeff: float = 0.01
    clip_param: float = 0.2
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    activation: str = "tanh"
    checkpoint_every: int = 10
    num_learners: int = 0
    num_gpus_per_learner: float = 0.0
    array_learner: bool = True
    out: str = ""

    def validate(self) -> None:
        """Raise a ConfigError naming the first bad field."""
        if self.game not in GAMES:
            raise ConfigError("game", self.game, f"one of {list(GAMES)}")
        get_game(self.game).options(self.options)  # unknown options refused there
        if self.game in ("red-dog", "holdem"):
            n = self.options.get("num_players", get_game(self.game).defaults["num_players"])
            lo, hi = (2, 10)
            if isinstance(n, bool) or not isinstance(n, int) or not lo <= n <= hi:
                raise ConfigError("num_players", n, f"an int in {lo}..{hi}")
        if self.sampler not in SAMPLERS:
            raise ConfigError("sampler", self.sampler, f"one of {list(SAMPLERS)}")
        for name in ("num_env_runners",):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ConfigError(name, v, "an int >= 0")
        for name in (
            "num_envs_per_env_runner",
            "iterations",
            "train_batch_size",
            "minibatch_size",
            "num_epochs",
            "checkpoint_every",
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(name, v, "an int >= 1")
        if self.minibatch_size > self.train_batch_size:
            raise ConfigError(
                "minibatch_size",
                self.minibatch_size,
                f"<= train_batch_size ({self.train_batch_size})",
            )
        if (
            isinstance(self.num_learners, bool)
            or not isinstance(self.num_learners, int)
            or (self.num_learners < 0)
        ):
            raise ConfigError("num_learners", self.num_learners, "an int >= 0")
        g = self.num_gpus_per_learner
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0 <= g < math.inf:
            raise ConfigError("num_gpus_per_learner", g, "a number >= 0")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError("seed", self.seed, "an int >= 0")
        if not self.hidden or any(
            isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in self.hidden
        ):
            raise ConfigError("hidden", self.hidden, "a non-empty list of ints >= 1")
        if self.activation not in _ACTIVATIONS:
            raise ConfigError("activation", self.activation, f"one of {sorted(_ACTIVATIONS)}")

    def run_dir(self) -> Path:
        """The run folder: ``out`` or ``runs/rllib-<game>[-<players>p]-seed<seed>``."""
        if self.out:
            return Path(self.out)
        players = self.options.get("num_players")
        tag = f"-{players}p" if players is not None else ""
        return Path("runs") / f"rllib-{self.game}{tag}-seed{self.seed}"


def build_config(cfg: RLlibConfig) -> PPOConfig:
    """The RLlib ``PPOConfig`` of a run (validated first)."""
    cfg.validate()
    register_envs()
    env_config = {"game": cfg.game, "options": dict(cfg.options)}
    model_config = {"hidden": list(cfg.hidden), "activation": cfg.activation}
    runners = cfg.num_env_runners
    per_batch = cfg.num_envs_per_env_runner * max(1, runners)
    fragment = max(1, math.ceil(cfg.train_batch_size / per_batch))
    config = (
        PPOConfig()
        .framework("torch")
        .debugging(seed=cfg.seed)
        .training(
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            entropy_coeff=cfg.entropy_coeff,
            clip_param=cfg.clip_param,
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
        )
        .learners(num_learners=cfg.num_learners, num_gpus_per_learner=cfg.num_gpus_per_learner)
        .callbacks(IllegalActionCounter)
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    if cfg.sampler == "stock":
        env = PokerMultiAgentEnv(env_config)
        spec = RLModuleSpec(module_class=MaskedMLPModule, model_config=model_config)
        config = (
            config.environment(env_name(cfg.game), env_config=env_config)
            .env_runners(
                num_env_runners=runners,
                num_envs_per_env_runner=cfg.num_envs_per_env_runner,
                rollout_fragment_length=fragment,
                num_cpus_per_env_runner=1,
                # Wait for the batch: RLlib's default (60 s) silently drops a remote
                # runner's late batch and the iteration trains on nothing.
                sample_timeout_s=None,
            )
            .multi_agent(
                policies={SHARED},
                # Self-play: every seat is played by the one learning policy.
                policy_mapping_fn=_map_to_shared,
            )
            .rl_module(
                rl_module_spec=MultiRLModuleSpec(
                    rl_module_specs={
                        SHARED: RLModuleSpec(
                            module_class=MaskedMLPModule,
                            observation_space=env.observation_spaces[env.possible_agents[0]],
                            action_space=env.action_spaces[env.possible_agents[0]],
                            model_config=model_config,
                        )
                    }
                )
            )
        )
        del spec
    else:
        spec_game = get_game(cfg.game)
        probe: Any = spec_game.make_vector(1, cfg.options)
        n = int(probe.single_action_space.n)
        obs_space = dict_space(probe.single_observation_space, n)
        probe.close()
        config = (
            config.environment(
                env=_BATCHED_ENV,
                env_config=env_config,
                observation_space=obs_space,
                action_space=gym.spaces.Discrete(n),
                disable_env_checking=True,
            )
            .env_runners(
                env_runner_cls=BatchedEnvRunner,
                num_env_runners=runners,
                num_envs_per_env_runner=cfg.num_envs_per_env_runner,
                rollout_fragment_length=fragment,
                num_cpus_per_env_runner=1,
                # Wait for the batch: RLlib's default (60 s) silently drops a remote
                # runner's late batch and the iteration trains on nothing.
                sample_timeout_s=None,
            )
            .rl_module(
                rl_module_spec=RLModuleSpec(module_class=MaskedMLPModule, model_config=model_config)
            )
        )
        if cfg.array_learner:
            config = config.learners(
                learner_connector=functools.partial(
                    _array_learner_connector, gamma=cfg.gamma, lambda_=cfg.lambda_
                ),
                add_default_connectors_to_learner_pipeline=False,
            )
    return config


def _array_learner_connector(
    obs_space: Any, act_space: Any, *, gamma: float, lambda_: float
) -> BatchedLearnerConnector:
    return BatchedLearnerConnector(obs_space, act_space, gamma=gamma, lambda_=lambda_)


def _map_to_shared(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    return SHARED


def _batched_env_placeholder(config: Any) -> Any:  # pragma: no cover - never stepped
    raise RuntimeError("the batched sampler builds its env in BatchedEnvRunner.make_env")


@dataclass(frozen=True)
class TrainResult:
    """What :func:`train` leaves behind.

    Attributes:
        run_dir: the run folder.
        checkpoint: the last checkpoint folder.
        policy: the exported policy file.
        metrics: per iteration, the figures written to TensorBoard.
    """

    run_dir: Path
    checkpoint: Path
    policy: Path
    metrics: list[dict[str, float]]


#: The config fields a checkpoint's module depends on (a resume that changes one is
#: refused).
RLLIB_SHAPE_FIELDS = ("game", "options", "sampler", "hidden", "activation")


def _shape_record(cfg: RLlibConfig) -> dict[str, Any]:
    return {k: json.loads(json.dumps(getattr(cfg, k))) for k in RLLIB_SHAPE_FIELDS}


def _iteration_of(folder: Path) -> int | None:
    name = folder.name
    if name.startswith("iter_") and name[5:].isdigit():
        return int(name[5:])
    return None


def find_rllib_checkpoint(
    path: str | Path, *, trust: bool = False
) -> tuple[Path, list[tuple[str, str]]]:
    """The checkpoint folder to resume from, and the newer ones skipped (name, why).

    ``path`` is a checkpoint folder (``RUN/checkpoints/iter_<n>``; it must be
    complete) or a run folder (its newest complete ``checkpoints/iter_<n>``). A
    checkpoint is complete when its :data:`FOLDER_MANIFEST` is there and its files
    match it (it is written under a temporary name, then renamed into place). Ray
    restores it by unpickling its files, so unless ``trust`` the one found must also
    be signed with this user's key (:func:`~.checkpoints.check_signature`).

    Raises:
        FileNotFoundError: ``path`` is neither, or holds no complete checkpoint.
        UntrustedCheckpointError: the one found is not signed with this user's key.
    """
    found, skipped = _find_complete(Path(path))
    if not trust:
        why = check_signature(found)
        if why is not None:
            raise UntrustedCheckpointError(
                f"--resume {found}: {why}. Ray restores a checkpoint by unpickling its "
                "files, which can run any code: resume only checkpoints you wrote. For "
                "your own run from another machine, copy that machine's key file to "
                "this one, or pass --trust-checkpoint"
            )
    return found, skipped


def _find_complete(p: Path) -> tuple[Path, list[tuple[str, str]]]:
    if (p / "learner_group").is_dir() or (p / FOLDER_MANIFEST).is_file():
        why = check_folder(p)
        if why is not None:
            raise FileNotFoundError(
                f"--resume {p}: an incomplete RLlib checkpoint ({why}); give the run "
                f"folder {p.parent.parent} to resume from its newest complete one"
            )
        return p, []
    folders = []
    if (p / "checkpoints").is_dir():
        folders = [q for q in (p / "checkpoints").iterdir() if q.is_dir()]
    numbered = sorted(
        ((n, q) for q in folders if (n := _iteration_of(q)) is not None), reverse=True
    )
    if not numbered:
        raise FileNotFoundError(
            f"--resume {p}: not an RLlib checkpoint folder (nor a run folder with "
            "checkpoints/iter_<n>)"
        )
    skipped: list[tuple[str, str]] = []
    for _, q in numbered:
        why = check_folder(q)
        if why is None:
            return q, skipped
        skipped.append((f"checkpoints/{q.name}", why))
    raise FileNotFoundError(
        f"--resume {p}: no complete RLlib checkpoint; "
        + "; ".join(f"{name}: {why}" for name, why in skipped)
    )


def _refuse_changed(cfg: RLlibConfig, checkpoint: Path) -> None:
    doc = json.loads((checkpoint / FOLDER_MANIFEST).read_text())
    saved, now = doc.get("config", {}), _shape_record(cfg)
    diffs = [
        f"{k}: {saved[k]!r} in the checkpoint, {now[k]!r} now"
        for k in RLLIB_SHAPE_FIELDS
        if k in saved and saved[k] != now[k]
    ]
    if diffs:
        raise ConfigError(
            "resume", str(checkpoint), "a checkpoint of the same config; " + "; ".join(diffs)
        )


def _flat_metrics(result: Mapping[str, Any], mid: str) -> dict[str, float]:
    """The scalars worth a curve, from one iteration's result."""
    er = result.get("env_runners", {})
    learner = result.get("learners", {}).get(mid, {})
    picks = {
        "env_runners/episode_return_mean": er.get("episode_return_mean"),
        "env_runners/episode_len_mean": er.get("episode_len_mean"),
        "env_runners/num_env_steps_sampled": er.get("num_env_steps_sampled"),
        "env_runners/num_env_steps_sampled_lifetime": er.get("num_env_steps_sampled_lifetime"),
        "env_runners/illegal_actions": er.get("illegal_actions"),
        "env_runners/checked_actions": er.get("checked_actions"),
        "env_runners/num_opponent_decisions": er.get("num_opponent_decisions"),
        "env_runners/sample_s": er.get("sample"),
        "learner/policy_loss": learner.get("policy_loss"),
        "learner/vf_loss": learner.get("vf_loss"),
        "learner/entropy": learner.get("entropy"),
        "learner/mean_kl_loss": learner.get("mean_kl_loss"),
        "time/iteration_s": result.get("time_this_iter_s"),
    }
    returns = er.get("agent_episode_returns_mean") or er.get("agent_episode_return_mean") or {}
    for agent, value in dict(returns).items():
        picks[f"agent_return/{agent}"] = value
    return {k: float(v) for k, v in picks.items() if isinstance(v, (int, float))}


def _lifetime_steps(algo: Any) -> float:
    """The env steps the algorithm has sampled so far (restored with a checkpoint)."""
    return float(algo.metrics.peek(("env_runners", "num_env_steps_sampled_lifetime"), default=0))


def learner_module(checkpoint: str | Path, sampler: str, *, trust: bool = False) -> Any:
    """The trained module (the learner's weights) from an algorithm checkpoint.

    ``algo.get_module()`` is an env runner's copy, one weight sync behind; the
    learner's lives under ``learner_group/learner/rl_module/<module id>``. Ray
    unpickles it, so unless ``trust`` the checkpoint must be complete and signed with
    this user's key (:func:`find_rllib_checkpoint`'s rule), and Ray reads its
    :func:`~.checkpoints.verified_copy`.

    Raises:
        FileNotFoundError: not a complete checkpoint, or no such module in it.
        UntrustedCheckpointError: not signed with this user's key.
    """
    inner = Path("learner_group") / "learner" / "rl_module" / module_id(sampler)
    if trust:
        if not (Path(checkpoint) / inner).is_dir():
            raise FileNotFoundError(f"{checkpoint}: no learner module at {inner}")
        return RLModule.from_checkpoint(Path(checkpoint) / inner)
    why = check_folder(Path(checkpoint)) or check_signature(Path(checkpoint))
    if why is not None:
        raise UntrustedCheckpointError(
            f"{checkpoint}: {why}; Ray would unpickle its files (pass trust=True "
            "only for a checkpoint you wrote)"
        )
    with verified_copy(Path(checkpoint)) as copy:  # what Ray reads: the signed bytes
        if not (copy / inner).is_dir():
            raise FileNotFoundError(f"{checkpoint}: no learner module at {inner}")
        return RLModule.from_checkpoint(copy / inner)


def export_module(
    module: Any,
    path: str | Path,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    provenance: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``module``'s policy network as the project's policy file.

    The manifest names the single env the SB3 export names for ``game`` (e.g.
    ``poker_env/Holdem-v0`` with its ``num_players``): the AEC and batched envs
    observe exactly that env's vector, which is checked here (size and bounds).
    """
    from poker_env_agents.training.export import ExportError, default_provenance, write_policy

    spec = get_game(game)
    env = spec.make_env(options)
    space = module.observation_space
    inner: Any = space["observations"] if isinstance(space, gym.spaces.Dict) else space
    single: Any = env.observation_space
    if (
        inner.shape != single.shape
        or not np.array_equal(inner.low, single.low)
        or not np.array_equal(inner.high, single.high)
    ):
        raise ExportError(
            f"the module observes {inner}, the env {spec.env_id} {single}: not the same layout"
        )
    prov = {**default_provenance(), "algorithm": "ray.rllib.PPO", **dict(provenance or {})}
    return write_policy(path, module_layers(module), env, provenance=prov)


def train(
    cfg: RLlibConfig,
    *,
    address: str | None = None,
    resume: str | Path | None = None,
    trust_checkpoint: bool = False,
    log: Any = print,
) -> TrainResult:
    """Train PPO self-play on RLlib; checkpoints, TensorBoard scalars, export.

    ``ray.init`` is called (``address``: ``"auto"`` joins a running cluster, None or
    ``"local"`` starts one in this process) unless Ray is already initialised; Ray
    is left as it was found. ``resume``: a checkpoint folder of a run of the same
    config (``checkpoints/iter_<n>``), or a run folder (its newest complete
    checkpoint, :func:`find_rllib_checkpoint`): its weights, optimizer and counters
    are restored and ``cfg.iterations`` more iterations are trained, numbered on; a
    checkpoint of another game, options, sampler or network is refused, and so is one
    not signed with this user's key unless ``trust_checkpoint`` (Ray unpickles it).
    Checkpoint folders are written under a temporary name, their manifest signed, and
    renamed when complete.

    The run folder gets ``config.json``, ``checkpoints/iter_<n>/``, ``tb/`` (scalars:
    episode returns per agent, losses, entropy, KL, env steps, illegal actions),
    ``policy.npz`` (the export) and ``metrics.jsonl``.

    Raises:
        ConfigError: a bad config, or a checkpoint of another shape.
        FileNotFoundError: ``resume`` holds no complete checkpoint.
        UntrustedCheckpointError: ``resume``'s checkpoint is not signed with this user's
            key (and not ``trust_checkpoint``).
        ValueError: this user's signing key cannot be made or is not a key of theirs.
    """
    import ray

    cfg.validate()
    signing_key()  # made, or a bad key file refused, before anything starts
    checkpoint: Path | None = None
    if resume is not None:
        checkpoint, skipped = find_rllib_checkpoint(resume, trust=trust_checkpoint)
        _refuse_changed(cfg, checkpoint)
        log(
            "\n".join(
                [f"resuming from {checkpoint}"]
                + [f"  skipped {name}: {why}" for name, why in skipped]
            )
        )
    run = cfg.run_dir()
    run.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries([run, run / "checkpoints"])
    atomic_write_text(run / "config.json", json.dumps(asdict(cfg), indent=1))
    if checkpoint is None:
        (run / "metrics.jsonl").unlink(missing_ok=True)
    started = False
    if not ray.is_initialized():
        ray.init(
            address=None if address in (None, "local") else address,
            include_dashboard=False,
            log_to_driver=False,
        )
        started = True
    from torch.utils.tensorboard import SummaryWriter

    mid = module_id(cfg.sampler)
    history: list[dict[str, float]] = []
    algo = build_config(cfg).build_algo()
    writer: Any = None
    try:
        first = 0
        if checkpoint is not None:
            if trust_checkpoint:
                algo.restore_from_path(str(checkpoint.resolve()))
            else:
                # Ray reads a private copy of the files the signed manifest lists, as
                # signed (nothing added to the folder or changed since the check).
                with verified_copy(checkpoint) as copy:
                    algo.restore_from_path(str(copy))
            first = int(algo.iteration or 0)
            # What a killed run logged after the checkpoint goes (no step twice).
            metrics = run / "metrics.jsonl"
            if metrics.is_file():
                kept = [
                    line
                    for line in metrics.read_text().splitlines()
                    if line.strip() and json.loads(line).get("iteration", 0) <= first
                ]
                atomic_write_text(metrics, "".join(f"{line}\n" for line in kept))
        tb = run / "tb"
        writer = SummaryWriter(
            str(tb), purge_step=first + 1 if checkpoint is not None else 0 if tb.exists() else None
        )
        ckpt = run / "checkpoints"
        last: Path | None = None
        for it in range(first + 1, first + cfg.iterations + 1):
            t = time.perf_counter()
            sampled = _lifetime_steps(algo)
            result = algo.train()
            if _lifetime_steps(algo) <= sampled:
                # RLlib returns an empty iteration when no runner's batch came back
                # (all runners failed): nothing was trained, so it is not counted.
                raise RuntimeError(
                    f"iteration {it}: the env runners returned no samples (nothing trained); "
                    "see the Ray logs of the env runners"
                )
            flat = _flat_metrics(result, mid)
            flat["time/wall_s"] = time.perf_counter() - t
            steps = result.get("env_runners", {}).get("num_env_steps_sampled", 0)
            flat["env_runners/steps_per_s"] = float(steps) / max(flat["time/wall_s"], 1e-9)
            for k, v in flat.items():
                writer.add_scalar(k, v, it)
            history.append(flat)
            with (run / "metrics.jsonl").open("a") as f:
                f.write(json.dumps({"iteration": it, **flat}) + "\n")
            log(
                f"iter {it}: {int(steps)} steps, {flat['env_runners/steps_per_s']:.0f} steps/s, "
                f"return {flat.get('env_runners/episode_return_mean', float('nan')):+.3f}, "
                f"illegal {int(flat.get('env_runners/illegal_actions', 0))}"
            )
            if it % cfg.checkpoint_every == 0 or it == first + cfg.iterations:
                last = commit_folder(
                    ckpt / f"iter_{it:05d}",
                    lambda tmp: algo.save_to_path(str(tmp.resolve())),
                    {"iteration": it, "config": _shape_record(cfg)},
                )
        assert last is not None
        module = learner_module(last, cfg.sampler)
        policy = export_module(
            module,
            run / "policy.npz",
            cfg.game,
            cfg.options,
            provenance={"seed": cfg.seed, "iterations": cfg.iterations, "sampler": cfg.sampler},
        )
        log(f"policy exported to {policy}")
    finally:
        if writer is not None:
            writer.close()
        algo.stop()
        if started:
            ray.shutdown()
    return TrainResult(run_dir=run, checkpoint=last, policy=policy, metrics=history)
