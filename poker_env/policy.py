"""The one protocol every player implements (DESIGN.md, "Policies are plain")."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = ["BatchPolicy", "Policy", "RandomPolicy"]


@runtime_checkable
class Policy(Protocol):
    """Anything that can play a seat: picks an action from an observation and a mask."""

    def act(
        self, observation: NDArray[np.floating] | NDArray[np.integer], action_mask: NDArray[np.int8]
    ) -> int:
        """Return a legal action index (``action_mask[action] == 1``)."""
        ...


@runtime_checkable
class BatchPolicy(Protocol):
    """A policy that acts for many tables at once (used by the vector envs)."""

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        """Return one legal action index per row."""
        ...


class RandomPolicy:
    """Uniformly random legal actions, from a seeded :class:`numpy.random.Generator`."""

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def act(self, observation: object, action_mask: NDArray[np.int8]) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: object, action_masks: NDArray[np.int8]) -> NDArray[np.int64]:
        masks = np.asarray(action_masks, dtype=np.float64)
        if masks.ndim != 2 or np.any(masks.sum(axis=1) == 0):
            raise ValueError("action_masks must be 2-D with at least one legal action per row")
        # Inverse-CDF sampling over each row's legal actions: one uniform draw per row.
        cdf = np.cumsum(masks, axis=1)
        u = self.rng.random(masks.shape[0]) * cdf[:, -1]
        actions: NDArray[np.int64] = (cdf <= u[:, None]).sum(axis=1).astype(np.int64)
        return actions
