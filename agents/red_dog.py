"""Red Dog baseline policies (the :class:`~poker_env.policy.Policy` protocol).

- :class:`ReferencePolicy`: the rule book's reference (RULES.md §2), bet the
  maximum when the exact win probability p > 1/2, else bet 1; never forfeits.
- :class:`AlwaysForfeitPolicy`: forfeits one chip every turn.
- :class:`RandomLegalPolicy`: uniformly random legal actions.

They read the observation layout of ``poker_env/RedDog-v0`` (p is element
``160 + num_players``) and assume the default bet fractions unless given others.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from poker_env.encoding.red_dog import DEFAULT_BET_FRACTIONS
from poker_env.games.red_dog import reference_bet
from poker_env.policy import RandomPolicy

__all__ = ["AlwaysForfeitPolicy", "RandomLegalPolicy", "ReferencePolicy"]

FORFEIT_ACTION = 0


def _p_column(width: int) -> int:
    """Index of the win probability in an observation of ``width`` elements."""
    num_players = width - 162
    return 160 + num_players


class ReferencePolicy:
    """Bet the maximum when p > 1/2, else 1 chip (RULES.md §2 reference)."""

    def __init__(self, bet_fractions: Sequence[float] = DEFAULT_BET_FRACTIONS) -> None:
        fr = np.asarray(bet_fractions, dtype=np.float64)
        # Action k >= 1 bets fractions[k-1]: the largest fraction bets the most, the
        # smallest bets the least (a fraction 0 is exactly 1 chip).
        self.max_action = 1 + int(np.argmax(fr))
        self.min_action = 1 + int(np.argmin(fr))

    def act(
        self, observation: NDArray[np.floating] | NDArray[np.integer], action_mask: NDArray[np.int8]
    ) -> int:
        obs = np.asarray(observation)
        p = float(obs[_p_column(obs.shape[-1])])
        # reference_bet with a largest bet of 2 tells "maximum" (2) from "one chip" (1).
        return self.max_action if reference_bet(p, 2) == 2 else self.min_action

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        obs = np.asarray(observations)
        p = obs[:, _p_column(obs.shape[-1])]
        return np.where(p > 0.5, self.max_action, self.min_action).astype(np.int64)


class AlwaysForfeitPolicy:
    """Forfeit one chip on every turn."""

    def act(self, observation: object, action_mask: NDArray[np.int8]) -> int:
        return FORFEIT_ACTION

    def act_batch(self, observations: object, action_masks: NDArray[np.int8]) -> NDArray[np.int64]:
        return np.full(np.asarray(action_masks).shape[0], FORFEIT_ACTION, np.int64)


class RandomLegalPolicy(RandomPolicy):
    """Uniformly random legal actions from a seeded generator."""
