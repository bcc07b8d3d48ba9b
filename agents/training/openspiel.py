"""OpenSpiel's small poker games (Kuhn, Leduc) under the project's training code.

Exact exploitability is out of reach in the project's own games; in Kuhn and Leduc
poker OpenSpiel computes it (``open_spiel.python.algorithms.exploitability``). This
module lets the same learners (:class:`~sb3_contrib.MaskablePPO`,
:class:`~poker_env_agents.training.mmd.MMDMaskablePPO`), the same
:class:`~poker_env_agents.training.sb3.PokerVecEnv` adapter and the same opponent
machinery (:mod:`poker_env_agents.training.selfplay`: baselines, past selves, the
learner's current weights) train there, and reads the learned policy out at every
information state:

- :class:`OpenSpielVectorEnv`: ``num_envs`` tables of a two-player OpenSpiel game
  behind the batched-env interface the project's vector envs have
  (``reset``/``step``, ``info["action_mask"]``, ``final_obs``), the agent in a seat
  drawn per episode from a seeded Generator, every other decision played by a
  ``BatchPolicy`` opponent, chance outcomes drawn from the same Generator;
- :func:`tabular_policy`: the model's action probabilities at every information
  state, as an OpenSpiel ``TabularPolicy``;
- :func:`exploitability`: its exploitability (NashConv / 2, chips per hand);
- :class:`PolicyAverage`: the average of the iterates read out along training (each
  weighted by its own reach probability of the information state, i.e. the
  behaviour strategy of the mixture of the iterates, as regret methods average);
- :func:`train_curve`: one training run with exploitability measured along it.

``open_spiel`` is an optional dependency (``pip install open_spiel``), imported
when these are used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray

from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy

__all__ = [
    "BASELINE_MIX",
    "DECAY_RECIPE",
    "GAMES",
    "NEW_RECIPE",
    "CallPolicy",
    "CurvePoint",
    "OpenSpielVectorEnv",
    "PolicyAverage",
    "Recipe",
    "exploitability",
    "tabular_policy",
    "train_curve",
]

#: The OpenSpiel games this module is tested on.
GAMES = ("kuhn_poker", "leduc_poker")


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "open_spiel is needed for Kuhn / Leduc poker: pip install open_spiel"
        ) from exc
    return pyspiel


def load_game(name: str) -> Any:
    """The OpenSpiel game ``name`` (one of :data:`GAMES`)."""
    if name not in GAMES:
        raise ConfigError("game", name, f"one of {GAMES}")
    return _pyspiel().load_game(name)


class CallPolicy:
    """The call station of Kuhn / Leduc: always action 1 (check or call)."""

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        m = np.asarray(action_masks) != 0
        return np.where(m[:, 1], 1, np.argmax(m, axis=1)).astype(np.int64)


class RandomLegal:
    """A uniformly random legal action per row, from a seeded Generator."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        m = np.asarray(action_masks) != 0
        u = self.rng.random(m.shape) * m
        out: NDArray[np.int64] = np.argmax(u, axis=1).astype(np.int64)
        return out


class OpenSpielVectorEnv:
    """``num_envs`` tables of a two-player OpenSpiel game, the agent's side only.

    At each episode start the agent's seat is drawn (0 or 1, equally likely); chance
    nodes are sampled by their probabilities; the other seat's decisions are played
    by ``opponent`` (``act_batch`` over all tables waiting for it at once). The
    agent's reward is its return at the end of the episode (chips), 0 before.

    Args:
        game: an OpenSpiel game name (:data:`GAMES`).
        num_envs: tables.
        opponent: the other seat's ``BatchPolicy`` (observations: the information
            state tensor of the seat to act; masks: its legal actions).
        seed: the Generator's seed (also set by ``reset(seed=...)``).
    """

    def __init__(self, game: str, num_envs: int, opponent: BatchPolicy, seed: int = 0) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError("num_envs", num_envs, "an integer >= 1")
        self.game = load_game(game)
        if self.game.num_players() != 2:
            raise ConfigError("game", game, "a two-player game")
        self.num_envs = num_envs
        self.opponent = opponent
        size = int(self.game.information_state_tensor_shape()[0])
        self.num_actions = int(self.game.num_distinct_actions())
        self.single_observation_space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)
        self.single_action_space = gym.spaces.Discrete(self.num_actions)
        self.rng = np.random.default_rng(seed)
        self.states: list[Any] = [None] * num_envs
        self.seats = np.zeros(num_envs, np.int64)

    # ----- helpers -----------------------------------------------------------------
    def _new_episode(self, i: int) -> None:
        self.states[i] = self.game.new_initial_state()
        self.seats[i] = int(self.rng.integers(2))

    def _chance(self, state: Any) -> None:
        outcomes = state.chance_outcomes()
        p = np.array([q for _, q in outcomes], np.float64)
        k = int(np.searchsorted(np.cumsum(p), self.rng.random() * p.sum(), side="right"))
        state.apply_action(outcomes[min(k, len(outcomes) - 1)][0])

    def _advance(self, rows: Sequence[int]) -> None:
        """Play chance and the opponent on ``rows`` until the agent acts or the end."""
        pending = list(rows)
        while pending:
            waiting: list[int] = []
            for i in pending:
                s = self.states[i]
                while s.is_chance_node():
                    self._chance(s)
                if not s.is_terminal() and s.current_player() != self.seats[i]:
                    waiting.append(i)
            if not waiting:
                return
            obs = np.array([self.states[i].information_state_tensor() for i in waiting], np.float32)
            masks = np.zeros((len(waiting), self.num_actions), np.int8)
            for k, i in enumerate(waiting):
                masks[k, self.states[i].legal_actions()] = 1
            acts = np.asarray(self.opponent.act_batch(obs, masks), np.int64)
            for k, i in enumerate(waiting):
                a = int(acts[k])
                if not masks[k, a]:
                    raise ConfigError("opponent action", a, "a legal action of its mask")
                self.states[i].apply_action(a)
            pending = waiting

    def _observe(self) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        n = self.num_envs
        obs = np.empty((n, *self.single_observation_space.shape), np.float32)
        masks = np.zeros((n, self.num_actions), np.int8)
        for i, s in enumerate(self.states):
            obs[i] = s.information_state_tensor()
            masks[i, s.legal_actions()] = 1
        return obs, masks

    # ----- the batched-env interface ------------------------------------------------
    def reset(
        self, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        for i in range(self.num_envs):
            self._new_episode(i)
        self._advance(range(self.num_envs))
        # An episode may end before the agent acts (the opponent folds at once): deal again.
        self._redeal(np.zeros(self.num_envs, np.float32))
        obs, masks = self._observe()
        return obs, {"action_mask": masks}

    def _redeal(self, carry: NDArray[np.float32]) -> NDArray[np.bool_]:
        """New episodes where one ended before the agent's first decision; their
        returns go to ``carry`` (the agent's reward of this step). Returns the rows
        that ended."""
        ended = np.zeros(self.num_envs, np.bool_)
        while True:
            rows = [i for i, s in enumerate(self.states) if s.is_terminal()]
            if not rows:
                return ended
            for i in rows:
                carry[i] += float(self.states[i].returns()[self.seats[i]])
                ended[i] = True
                self._new_episode(i)
            self._advance(rows)

    def step(
        self, actions: NDArray[Any]
    ) -> tuple[
        NDArray[np.float32],
        NDArray[np.float32],
        NDArray[np.bool_],
        NDArray[np.bool_],
        dict[str, Any],
    ]:
        acts = np.asarray(actions, np.int64).reshape(self.num_envs)
        rewards = np.zeros(self.num_envs, np.float32)
        done = np.zeros(self.num_envs, np.bool_)
        for i, s in enumerate(self.states):
            a = int(acts[i])
            if a not in s.legal_actions():
                raise ConfigError(f"actions[{i}]", a, f"a legal action {s.legal_actions()}")
            s.apply_action(a)
        self._advance(range(self.num_envs))
        for i, s in enumerate(self.states):
            if s.is_terminal():
                rewards[i] = float(s.returns()[self.seats[i]])
                done[i] = True
                self._new_episode(i)
        self._advance([i for i in range(self.num_envs) if done[i]])
        # Episodes that ended before the agent acted belong to no step of the agent:
        # they are dealt again (their result is not the agent's doing).
        spare = np.zeros(self.num_envs, np.float32)
        self._redeal(spare)
        obs, masks = self._observe()
        truncated = np.zeros(self.num_envs, np.bool_)
        info = {"action_mask": masks}
        return obs, rewards, done, truncated, info

    def action_masks(self) -> NDArray[np.int8]:
        return self._observe()[1]

    def close(self) -> None:
        pass


# ----- reading the policy out -------------------------------------------------------


def tabular_policy(model: Any, game: Any, network: Any = None) -> Any:
    """The model's action probabilities (masked softmax) at every information state
    of ``game``, as an OpenSpiel ``TabularPolicy`` (``network``: another policy
    network of the model's shape, e.g. its moving magnet, instead of ``model.policy``)."""
    import torch
    from open_spiel.python import policy as os_policy

    table = os_policy.TabularPolicy(game)
    obs = np.array(
        [s.information_state_tensor(s.current_player()) for s in table.states], np.float32
    )
    masks = np.asarray(table.legal_actions_mask, np.int8)
    net = model.policy if network is None else network
    with torch.no_grad():
        dist = net.get_distribution(net.obs_to_tensor(obs)[0], action_masks=masks)
        probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
    probs = np.where(masks != 0, probs, 0.0)
    table.action_probability_array = probs / probs.sum(axis=1, keepdims=True)
    return table


def exploitability(model: Any, game: Any) -> float:
    """Exact exploitability of the model's sampled policy in ``game``: NashConv / 2,
    the mean over the two seats of what a best response gains (chips per hand)."""
    from open_spiel.python.algorithms import exploitability as os_expl

    return float(os_expl.exploitability(game, tabular_policy(model, game)))


class PolicyAverage:
    """The average of tabular policies of one game, reach-weighted.

    ``add(table, weight)`` adds an iterate; :meth:`policy` is the behaviour strategy
    of their mixture (weights ``weight``): at each information state ``I`` of player
    ``i``, ``sum_k w_k x_k(I) pi_k(.|I) / sum_k w_k x_k(I)`` with ``x_k(I)`` the
    probability that iterate ``k``'s own actions reach ``I`` (perfect recall: one
    previous own decision per information state). This is the average strategy
    that regret-minimising methods converge with; the plain mean of the action
    probabilities is not (an iterate that never reaches ``I`` would still count).
    """

    def __init__(self, game: Any) -> None:
        from open_spiel.python import policy as os_policy

        self.game = game
        self.table = os_policy.TabularPolicy(game)
        n = len(self.table.states)
        # parent[j], act[j]: the same player's previous information state and the
        # action taken there (-1: none), found by walking the game tree once.
        self.parent = np.full(n, -2, np.int64)
        self.act = np.full(n, -1, np.int64)
        lookup = self.table.state_lookup
        stack: list[tuple[Any, tuple[tuple[int, int], ...]]] = [
            (game.new_initial_state(), ((-1, -1), (-1, -1)))
        ]
        while stack:
            state, last = stack.pop()
            if state.is_terminal():
                continue
            if state.is_chance_node():
                for a, _q in state.chance_outcomes():
                    stack.append((state.child(a), last))
                continue
            player = state.current_player()
            j = lookup[state.information_state_string(player)]
            prev = last[player]
            if self.parent[j] == -2:
                self.parent[j], self.act[j] = prev
            elif (self.parent[j], self.act[j]) != prev:  # pragma: no cover - perfect recall
                raise ValueError("the game does not have perfect recall")
            for a in state.legal_actions():
                nxt = list(last)
                nxt[player] = (j, a)
                stack.append((state.child(a), (nxt[0], nxt[1])))
        # An order in which every state comes after its parent.
        depth = np.zeros(n, np.int64)
        for j in range(n):
            k, d = j, 0
            while self.parent[k] >= 0:
                k, d = int(self.parent[k]), d + 1
            depth[j] = d
        self.order = np.argsort(depth, kind="stable")
        self.num = np.zeros_like(self.table.action_probability_array)
        self.den = np.zeros(n)
        self.count = 0

    def reach(self, probs: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each information state's own reach probability under ``probs``."""
        x = np.ones(len(self.parent))
        for j in self.order:
            k = self.parent[j]
            if k >= 0:
                x[j] = x[k] * probs[k, self.act[j]]
        return x

    def add(self, table: Any, weight: float = 1.0) -> None:
        probs = np.asarray(table.action_probability_array, np.float64)
        x = weight * self.reach(probs)
        self.num += x[:, None] * probs
        self.den += x
        self.count += 1

    def policy(self) -> Any:
        """The average as a ``TabularPolicy`` (uniform where no iterate reached)."""
        masks = np.asarray(self.table.legal_actions_mask, np.float64)
        uniform = masks / masks.sum(axis=1, keepdims=True)
        safe = np.where(self.den > 0, self.den, 1.0)[:, None]
        avg = np.where(self.den[:, None] > 0, self.num / safe, uniform)
        self.table.action_probability_array = avg / avg.sum(axis=1, keepdims=True)
        return self.table


# ----- a training run with its curve ----------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """A training recipe for :func:`train_curve` (names as in ``TrainConfig``).

    ``opponents`` may hold ``random``, ``call``, ``pool`` (past selves) and ``self``
    (the current weights)."""

    name: str
    algo: str = "mmd"
    opponents: Mapping[str, float] = field(default_factory=lambda: {"self": 1.0})
    ent_coef: float = 0.05
    ent_coef_final: float | None = None
    magnet: str = "uniform"
    magnet_tau: float = 0.05
    kl_coef: float = 0.05
    clip_range: float = 0.05
    learning_rate: float = 3e-4
    learning_rate_final: float = -1.0
    n_steps: int = 128
    batch_size: int = 2048
    n_epochs: int = 4
    num_tables: int = 64
    num_groups: int = 4
    net_arch: Sequence[int] = (128, 128)
    pool_size: int = 8
    snapshot_every: int = 100_000


#: The project's recipe before issue 25, as far as Kuhn / Leduc have its opponents:
#: MaskablePPO (TrainConfig's defaults: entropy 0.02, clip 0.2) against random play,
#: the call station and past selves (the heuristic's share, which these games lack,
#: goes to the others).
BASELINE_MIX = Recipe(
    name="baseline mix (PPO vs random 0.4, call 0.2, past selves 0.2)",
    algo="ppo",
    opponents={"random": 0.4, "call": 0.2, "pool": 0.2},
    ent_coef=0.02,
    kl_coef=0.0,
    clip_range=0.2,
)

#: The new recipe: MMD self-play against the current weights, entropy 0.1, KL 0.1,
#: clip 0.1, learning rate 1e-3, 128 steps x 64 tables per rollout in minibatches of
#: 2,048 (the settings chosen on Leduc by measurement, docs/agents.md).
NEW_RECIPE = Recipe(
    name="MMD self-play",
    learning_rate=1e-3,
    n_steps=128,
    batch_size=2048,
    clip_range=0.1,
    ent_coef=0.1,
    kl_coef=0.1,
)


#: The new recipe with its learning rate decayed linearly over the run (1e-3 to 0,
#: ``learning_rate_final`` of ``TrainConfig``); the entropy weight stays 0.1 (decayed
#: too, the last iterate grew more exploitable on Leduc: docs/agents.md).
DECAY_RECIPE = replace(NEW_RECIPE, name="MMD self-play, lr decayed to 0", learning_rate_final=0.0)


@dataclass(frozen=True)
class CurvePoint:
    """The exploitability of the last iterate after ``steps`` agent steps, and of the
    iterates' average (:class:`PolicyAverage`, ``None`` when not read out) and of
    the moving magnet's network (``magnet = "ema"``; a weight average of the iterates)."""

    steps: int
    exploitability: float
    average: float | None = None
    magnet: float | None = None


def _self_manifest(size: int, actions: int, game: str) -> dict[str, Any]:
    # What NumpyPolicy reads of a manifest; OpenSpiel games have no project env id.
    return {
        "observation": {"size": size},
        "actions": {"count": actions, "names": [f"A{k}" for k in range(actions)]},
        "env": {"id": f"open_spiel/{game}", "options": {}},
        "game": game,
    }


def train_curve(
    game_name: str,
    recipe: Recipe,
    timesteps: int,
    eval_every: int,
    seed: int = 0,
    log: Callable[[str], None] | None = None,
    on_point: Callable[[list[CurvePoint]], None] | None = None,
    average_every: int = 0,
) -> list[CurvePoint]:
    """Train ``recipe`` on ``game_name`` for ``timesteps`` agent steps and measure the
    exact exploitability at the start and every ``eval_every`` steps (``on_point``
    gets the curve so far after each measurement).

    ``average_every`` > 0 also reads the policy out every that many steps into a
    :class:`PolicyAverage`, the ``k``-th read-out of weight ``k`` (later iterates
    count more, as CFR+ averages), and measures the average at each point."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from poker_env_agents.runtime import NumpyPolicy
    from poker_env_agents.training.export import sb3_layers
    from poker_env_agents.training.mmd import MMDMaskablePPO
    from poker_env_agents.training.sb3 import PokerVecEnv, fast_torch_settings
    from poker_env_agents.training.selfplay import (
        LiveSelf,
        OpponentMix,
        OpponentSlot,
        SnapshotPool,
    )
    from poker_env_agents.training.train import learning_rate_schedule

    fast_torch_settings(1)
    game = load_game(game_name)
    live = LiveSelf()
    pool = SnapshotPool(recipe.pool_size)
    builders: dict[str, Callable[[int], BatchPolicy]] = {
        "random": RandomLegal,
        "call": lambda seed: CallPolicy(),
        "self": lambda seed: live,
    }
    mix = OpponentMix(recipe.opponents, builders, pool, seed)
    slots = [OpponentSlot(mix.draw()[1]) for _ in range(recipe.num_groups)]
    mix.assign(slots)
    per = recipe.num_tables // recipe.num_groups
    venv = PokerVecEnv(
        [
            OpenSpielVectorEnv(game_name, per, slot, seed=seed + 1000 * k)  # type: ignore[misc]
            for k, slot in enumerate(slots)
        ],
        seed=seed,
    )
    kwargs: dict[str, Any] = (
        {
            "kl_coef": recipe.kl_coef,
            "magnet": recipe.magnet,
            "magnet_tau": recipe.magnet_tau,
            "ent_coef_final": recipe.ent_coef_final,
        }
        if recipe.algo == "mmd"
        else {}
    )
    cls = MMDMaskablePPO if recipe.algo == "mmd" else MaskablePPO
    model = cls(
        "MlpPolicy",
        venv,
        learning_rate=learning_rate_schedule(recipe.learning_rate, recipe.learning_rate_final),
        n_steps=recipe.n_steps,
        batch_size=recipe.batch_size,
        n_epochs=recipe.n_epochs,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=recipe.ent_coef,
        clip_range=recipe.clip_range,
        policy_kwargs={"net_arch": list(recipe.net_arch)},
        seed=seed,
        device="cpu",
        verbose=0,
        **kwargs,
    )
    size = int(venv.observation_space.shape[0])  # type: ignore[index]
    actions = int(venv.action_space.n)  # type: ignore[attr-defined]
    manifest = _self_manifest(size, actions, game_name)

    def numpy_copy(sample_seed: int) -> NumpyPolicy:
        return NumpyPolicy(
            manifest, sb3_layers(model), deterministic=False, seed=sample_seed, source="self"
        )

    live.attach(numpy_copy(seed + 3))
    average = PolicyAverage(game) if average_every else None

    def measure(n: int) -> CurvePoint:
        from open_spiel.python.algorithms import exploitability as os_expl

        avg = None
        if average is not None and average.count:
            avg = float(os_expl.exploitability(game, average.policy()))
        mag = None
        magnet_net = getattr(model, "magnet_policy", None)
        if magnet_net is not None:
            table = tabular_policy(model, game, magnet_net)
            mag = float(os_expl.exploitability(game, table))
        point = CurvePoint(n, exploitability(model, game), avg, mag)
        if log:
            extra = "" if avg is None else f" average {avg:.4f}"
            extra += "" if mag is None else f" magnet {mag:.4f}"
            log(
                f"{recipe.name} {game_name}: step {n} exploitability "
                f"{point.exploitability:.4f}{extra}"
            )
        return point

    curve = [measure(0)]

    class _Cb(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_eval = eval_every
            self.next_snap = recipe.snapshot_every
            self.next_avg = average_every

        def _on_rollout_start(self) -> None:
            live.refresh(model)
            mix.assign(slots)

        def _on_step(self) -> bool:
            n = self.num_timesteps
            if recipe.snapshot_every and n >= self.next_snap:
                pool.add(str(n), numpy_copy(seed + 17 + len(pool)))
                self.next_snap += recipe.snapshot_every
            if average is not None and n >= self.next_avg:
                average.add(tabular_policy(model, game), weight=average.count + 1)
                self.next_avg += average_every
            if n >= self.next_eval:
                curve.append(measure(n))
                self.next_eval += eval_every
                if on_point:
                    on_point(curve)
            return True

    model.learn(timesteps, callback=_Cb(), progress_bar=False)
    venv.close()
    return curve
