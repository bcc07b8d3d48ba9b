"""Red Dog baselines (RULES.md §2): random, call station and the reference policy.

Each is a :class:`~poker_env.policy.Policy` and a :class:`~poker_env.policy.BatchPolicy`
and reads only the documented observation of ``poker_env/RedDog-v0`` (the exact win
probability p is element ``160 + P`` of an observation of ``162 + P`` elements).

- :class:`RandomLegalPolicy`: uniformly random legal actions (the shared
  :class:`~poker_env.policy.RandomPolicy`).
- :class:`RedDogCallStation`: always the smallest bet (1 chip with the default bet
  fractions; it never forfeits), the Red Dog form of "always check or call".
- :class:`ReferencePolicy`: the rule book's reference, bet the maximum when
  p > 1/2, else the smallest bet; never forfeits.
- :class:`AlwaysForfeitPolicy`: forfeits one chip every turn (a floor for tests).

Action ``k >= 1`` bets ``bet_fractions[k - 1]`` of the largest legal bet; the
policies take the env's ``bet_fractions`` (default ``(0, 1/4, 1/2, 3/4, 1)``) to
know which index bets the most and which the least.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from poker_env.episode.red_dog import DEFAULT_BET_FRACTIONS
from poker_env.games.red_dog import reference_bet
from poker_env.policy import RandomPolicy

__all__ = [
    "FORFEIT_ACTION",
    "AlwaysForfeitPolicy",
    "RandomLegalPolicy",
    "RedDogCallStation",
    "ReferencePolicy",
]

#: Action 0 forfeits one chip to the pot (RULES.md §2).
FORFEIT_ACTION = 0


def _p_column(width: int) -> int:
    """Index of the win probability in an observation of ``width = 162 + P`` elements."""
    num_players = width - 162
    if not 2 <= num_players <= 10:
        raise ValueError(
            f"a Red Dog observation has 162 + P elements for P = 2..10 players, got {width}"
        )
    return 160 + num_players


def _bet_actions(bet_fractions: Sequence[float]) -> tuple[int, int, int]:
    """(number of actions, index of the largest bet, index of the smallest bet)."""
    fr = np.asarray(bet_fractions, dtype=np.float64)
    if fr.ndim != 1 or fr.size == 0 or not np.all((fr >= 0) & (fr <= 1)):
        raise ValueError(
            f"bet_fractions must be a non-empty list of numbers in [0, 1], got {bet_fractions!r}"
        )
    # Action k >= 1 bets fractions[k-1]: the largest fraction bets the most, the
    # smallest the least (a fraction 0 is exactly 1 chip).
    return 1 + fr.size, 1 + int(np.argmax(fr)), 1 + int(np.argmin(fr))


def _check_width(masks: NDArray[np.int8], num_actions: int, bet_fractions: object) -> None:
    if masks.shape[-1] != num_actions:
        raise ValueError(
            f"action masks of width {masks.shape[-1]} do not fit bet_fractions={bet_fractions!r} "
            f"({num_actions} actions): give the policy the env's bet_fractions"
        )


class ReferencePolicy:
    """Bet the maximum when p > 1/2, else the smallest bet (RULES.md §2 reference).

    The turned card is uniform over the unseen cards, so a bet b is worth
    ``b (2p - 1)``: the myopic optimum is the largest bet when p > 1/2 and the
    smallest otherwise (a forfeit costs 1 chip for sure; a 1-chip bet at p <= 1/2
    loses ``1 - 2p`` <= 1 in expectation, so it is never worse).
    """

    def __init__(self, bet_fractions: Sequence[float] = DEFAULT_BET_FRACTIONS) -> None:
        self.bet_fractions = tuple(float(f) for f in bet_fractions)
        self.num_actions, self.max_action, self.min_action = _bet_actions(bet_fractions)

    def act(
        self, observation: NDArray[np.floating] | NDArray[np.integer], action_mask: NDArray[np.int8]
    ) -> int:
        obs = np.asarray(observation)
        _check_width(np.asarray(action_mask), self.num_actions, self.bet_fractions)
        p = float(obs[_p_column(obs.shape[-1])])
        # reference_bet with a largest bet of 2 tells "maximum" (2) from "one chip" (1).
        return self.max_action if reference_bet(p, 2) == 2 else self.min_action

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        obs = np.asarray(observations)
        _check_width(np.asarray(action_masks), self.num_actions, self.bet_fractions)
        p = obs[:, _p_column(obs.shape[-1])]
        return np.where(p > 0.5, self.max_action, self.min_action).astype(np.int64)


class RedDogCallStation:
    """Always the smallest bet: never forfeits, never presses (the passive baseline).

    Red Dog has no check or call; the least committal action that stays in the
    game is the smallest bet (1 chip with the default fractions), which the
    reference policy also plays whenever p <= 1/2.
    """

    def __init__(self, bet_fractions: Sequence[float] = DEFAULT_BET_FRACTIONS) -> None:
        self.bet_fractions = tuple(float(f) for f in bet_fractions)
        self.num_actions, _, self.min_action = _bet_actions(bet_fractions)

    def act(self, observation: object, action_mask: NDArray[np.int8]) -> int:
        _check_width(np.asarray(action_mask), self.num_actions, self.bet_fractions)
        return self.min_action

    def act_batch(self, observations: object, action_masks: NDArray[np.int8]) -> NDArray[np.int64]:
        masks = np.asarray(action_masks)
        _check_width(masks, self.num_actions, self.bet_fractions)
        return np.full(masks.shape[0], self.min_action, np.int64)


class AlwaysForfeitPolicy:
    """Forfeit one chip on every turn."""

    def act(self, observation: object, action_mask: NDArray[np.int8]) -> int:
        return FORFEIT_ACTION

    def act_batch(self, observations: object, action_masks: NDArray[np.int8]) -> NDArray[np.int64]:
        return np.full(np.asarray(action_masks).shape[0], FORFEIT_ACTION, np.int64)


class RandomLegalPolicy(RandomPolicy):
    """Uniformly random legal actions from a seeded generator."""
