"""The one protocol every player implements (DESIGN.md, "Policies are plain")."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit
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
        # act_batch's draw on one row (the k-th legal action, k = floor(u * count)):
        # act and act_batch agree row by row for the same seed.
        return int(legal[int(self.rng.random() * legal.size)])

    def act_batch(self, observations: object, action_masks: NDArray[np.int8]) -> NDArray[np.int64]:
        masks = np.asarray(action_masks)
        if masks.ndim != 2:
            raise ValueError(f"action_masks must be 2-D (rows, actions), got shape {masks.shape}")
        if masks.dtype != np.int8:
            masks = (masks != 0).astype(np.int8)
        # One uniform draw per row picks among the row's legal actions (the k-th
        # legal action for k = floor(u * count)), in a compiled loop.
        u = self.rng.random(masks.shape[0])
        actions = np.empty(masks.shape[0], dtype=np.int64)
        bad = _pick_legal(u, masks, actions)
        if bad >= 0:
            raise ValueError(f"action_masks row {bad} has no legal action")
        return actions


@njit(cache=True, _nrt=False)
def _pick_legal(u: NDArray[np.float64], masks: NDArray[np.int8], out: NDArray[np.int64]) -> int:
    """``out[i]`` = the ``floor(u[i] * count)``-th legal action of row ``i``; -1 or the
    first row with no legal action (a nonzero mask entry is legal)."""
    width = masks.shape[1]
    for i in range(masks.shape[0]):
        cnt = 0
        for j in range(width):
            cnt += masks[i, j] != 0
        if cnt == 0:
            return i
        k = int(u[i] * cnt)
        # The k-th legal action chosen without a branch: where a loop would stop
        # depends on the random draw, so its exit branch would be mispredicted about
        # once a row (that was most of this function's time).
        seen = 0
        pick = 0
        for j in range(width):
            legal = masks[i, j] != 0
            pick = j if legal & (seen == k) else pick
            seen += legal
        out[i] = pick
    return -1
