"""The record every batched step writes: one shared shape for the outputs of the three games.

A batch step's results are arrays of the batch (row ``i`` is table ``i``), owned by
the vector env and passed whole to its compiled step (a NamedTuple of arrays costs
nothing inside numba: its fields are the arrays themselves). It lives here, below
the faces, because the games' compiled episode steps write it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["StepOutputs", "new_step_outputs"]


class StepOutputs(NamedTuple):
    """What a batch step gives back, one row per table.

    Attributes:
        rewards: float64 (N,): the agent's reward of the step.
        terms: bool (N,): the episode ended (Gymnasium's ``terminated``).
        truncs: bool (N,): the episode was cut short (``truncated``).
        obs: float32 (N, obs size): the agent's observation (of the new episode after
            a same-step autoreset).
        masks: int8 (N, actions): the legal actions.
        final_obs: float32 (N, obs size): the last observation of an episode that
            ended in this step (meaningful where ``terms | truncs``).
    """

    rewards: NDArray[np.float64]
    terms: NDArray[np.bool_]
    truncs: NDArray[np.bool_]
    obs: NDArray[np.float32]
    masks: NDArray[np.int8]
    final_obs: NDArray[np.float32]


def new_step_outputs(num_envs: int, obs_size: int, num_actions: int) -> StepOutputs:
    """Zeroed outputs for ``num_envs`` tables."""
    n = int(num_envs)
    return StepOutputs(
        rewards=np.zeros(n, np.float64),
        terms=np.zeros(n, np.bool_),
        truncs=np.zeros(n, np.bool_),
        obs=np.zeros((n, obs_size), np.float32),
        masks=np.zeros((n, num_actions), np.int8),
        final_obs=np.zeros((n, obs_size), np.float32),
    )
