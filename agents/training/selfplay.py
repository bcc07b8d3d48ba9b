"""Opponents for training: a pool of past snapshots mixed with the baselines.

Training splits its tables into groups (one ``poker_env.vector`` env each); each
group's opponent seats are played by an :class:`OpponentSlot`, a ``BatchPolicy``
whose policy is swapped at the start of every rollout. :class:`OpponentMix`
draws what each slot plays from a weighted mix of kinds:

- ``random``, ``call``, ``heuristic``: the game's baselines (:mod:`poker_env_agents.baselines`);
- ``pool``: a past snapshot of the learner, exported and run with numpy
  (:mod:`poker_env_agents.runtime`), drawn uniformly from the pool (the most recent
  ``pool_size`` snapshots). While the pool is empty its share goes to the other kinds;
- ``fixed``: one given policy, frozen (``TrainConfig.fixed_opponent``, or the policy
  object passed to ``train``): alone in the mix it trains a best response to that
  policy (:mod:`poker_env_agents.analysis.exploit`);
- ``self``: the learner's current weights (:class:`LiveSelf`: a numpy copy of the
  actor, refreshed at every rollout start, sampled play): self-play, one network in
  every seat.

Everything is drawn from a seeded Generator, so a run is repeatable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy

__all__ = ["OPPONENT_KINDS", "LiveSelf", "OpponentMix", "OpponentSlot", "SnapshotPool"]

OPPONENT_KINDS = ("random", "call", "heuristic", "pool", "fixed", "self")


class LiveSelf:
    """The learner's current weights as a ``BatchPolicy`` (opponent kind ``self``).

    ``policy`` is a sampled :class:`poker_env_agents.runtime.NumpyPolicy` (the
    learner exported once, for its manifest and features); :meth:`refresh` copies the
    model's actor into it (at every rollout start), so the opponent seats play the
    same network as the learner's seat, run with numpy inside the vector env.
    """

    def __init__(self) -> None:
        self.policy: Any = None

    def attach(self, policy: Any) -> None:
        """Play ``policy`` (a sampled NumpyPolicy of the learner's network)."""
        self.policy = policy

    def refresh(self, model: Any) -> None:
        """Copy ``model``'s actor (an SB3 MaskablePPO) into the numpy policy."""
        from poker_env_agents.training.export import sb3_layers

        if self.policy is None:
            raise RuntimeError("LiveSelf.refresh before attach: no policy to refresh")
        self.policy.layers = tuple(sb3_layers(model))

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        if self.policy is None:
            raise RuntimeError("LiveSelf plays before the learner's network was attached")
        actions: NDArray[np.int64] = self.policy.act_batch(observations, action_masks)
        return actions


class OpponentSlot:
    """A ``BatchPolicy`` that forwards to whichever policy it holds now."""

    def __init__(self, policy: BatchPolicy, label: str = "") -> None:
        self.policy = policy
        self.label = label

    def set(self, policy: BatchPolicy, label: str) -> None:
        """Play ``policy`` from now on (``label`` names it in the logs)."""
        self.policy = policy
        self.label = label

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        return self.policy.act_batch(observations, action_masks)


@dataclass
class SnapshotPool:
    """The most recent ``size`` snapshots of the learner, as (label, policy) pairs."""

    size: int = 8
    entries: list[tuple[str, BatchPolicy]] = field(default_factory=list)

    def add(self, label: str, policy: BatchPolicy) -> None:
        self.entries.append((label, policy))
        del self.entries[: max(0, len(self.entries) - self.size)]

    def __len__(self) -> int:
        return len(self.entries)


def check_weight(kind: str, weight: object) -> None:
    """An opponent kind's weight in the mixture: a finite number >= 0, or a
    ConfigError naming ``opponents.KIND``."""
    if (
        isinstance(weight, bool)
        or not isinstance(weight, int | float)
        or not (weight >= 0 and np.isfinite(weight))
    ):
        raise ConfigError(f"opponents.{kind}", weight, "a finite weight >= 0")


class OpponentMix:
    """Draws each slot's opponent from the weighted kinds.

    Args:
        weights: kind -> weight (kinds in :data:`OPPONENT_KINDS`; weights >= 0, some > 0).
        baselines: kind -> a builder of that baseline ``(seed) -> BatchPolicy`` (``fixed``
            among them when a fixed opponent is given).
        pool: the snapshot pool that ``pool`` draws from.
        seed: the Generator's seed.
    """

    def __init__(
        self,
        weights: Mapping[str, float],
        baselines: Mapping[str, Callable[[int], BatchPolicy]],
        pool: SnapshotPool,
        seed: int,
    ) -> None:
        for k, w in weights.items():
            if k not in OPPONENT_KINDS:
                raise ConfigError("opponents", k, f"kinds among {OPPONENT_KINDS}")
            check_weight(k, w)
            if k != "pool" and k not in baselines and w > 0:
                raise ConfigError("opponents", k, f"kinds with a baseline: {sorted(baselines)}")
        if not any(w > 0 for k, w in weights.items() if k != "pool"):
            # With an empty pool at the start something else must play.
            raise ConfigError("opponents", dict(weights), "some weight > 0 on a baseline kind")
        self.weights = dict(weights)
        self.pool = pool
        self.rng = np.random.default_rng(seed)
        self._baselines = {
            k: b(seed + 7919 * (i + 1)) for i, (k, b) in enumerate(baselines.items())
        }

    def draw(self) -> tuple[str, BatchPolicy]:
        """One opponent: (label, policy)."""
        kinds = [k for k, w in self.weights.items() if w > 0 and (k != "pool" or len(self.pool))]
        w = np.array([self.weights[k] for k in kinds], np.float64)
        kind = kinds[int(self.rng.choice(len(kinds), p=w / w.sum()))]
        if kind == "pool":
            label, policy = self.pool.entries[int(self.rng.integers(len(self.pool)))]
            return f"pool:{label}", policy
        return kind, self._baselines[kind]

    def assign(self, slots: list[OpponentSlot]) -> None:
        """A fresh draw for every slot."""
        for s in slots:
            label, policy = self.draw()
            s.set(policy, label)

    def state(self) -> dict[str, Any]:
        """The Generator's state (for checkpoints)."""
        return dict(self.rng.bit_generator.state)

    def set_state(self, state: Mapping[str, Any]) -> None:
        self.rng.bit_generator.state = dict(state)
