"""Hand-strength features computed from an observation, for policies that read them.

A policy file may name a feature set in its manifest (``"features": {"name": ...,
"size": ...}``). Its network then takes the env's observation followed by the
``size`` feature columns that the set computes from that observation, here, with the
game core's evaluator: the env and its observation layout stay as they are, and a
policy with features plays wherever the plain observation is given (as any env's
``opponent=``, in ``evaluate``, in ``play``). Training appends the same columns
(:class:`poker_env_agents.training.sb3.PokerVecEnv`'s ``features``), so training and play compute the
same numbers by the same code.

Why: five-card draw's observation gives the cards and nothing of their value; a
network learning the worth of 2.6 million hands and of 32 discards from one-hot
cards is most of what an hour of training goes into, and a draw agent trained on the
raw cards lost 13 antes a hand to the heuristic (docs/agents.md). The heuristic reads
exact discard equities; with these columns the learner starts from the same facts
and learns the betting.

| name | game | columns |
|---|---|---|
| ``draw-strength`` | ``draw``, ``draw-match`` | 67, see :class:`DrawStrength` |
| ``holdem-equity`` | ``holdem`` | 10, see :class:`HoldemEquity` |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import Deck, deck_size

# FiveCardDraw-v0's observation entries, from their owner.
from poker_env.episode.draw import O_CARDS, O_PHASE, OBS_SIZE
from poker_env.errors import ConfigError

__all__ = ["FEATURE_SETS", "DrawStrength", "FeatureSet", "HoldemEquity", "make_features"]


class FeatureSet(Protocol):
    """Extra columns computed from a batch of observations."""

    name: str
    size: int

    def __call__(self, observations: NDArray[Any]) -> NDArray[np.float32]:
        """``(rows, size)`` float32 for ``(rows, observation size)`` observations."""
        ...


_PLAYING = (0, 1, 2)  # pre-draw, draw, post-draw: the phases with five live cards


class DrawStrength:
    """67 columns for five-card draw (``FiveCardDraw-v0``, ``DrawMatch-v0``).

    On a row in a playing phase (pre-draw, draw, post-draw), from the five cards held,
    by :func:`~poker_env.evaluator.equity_batch.draw_discard_equities` (exact, every
    draw counted, against a random pat hand):

    | columns | meaning | range |
    |---|---|---|
    | 0:32 | each discard mask's equity minus the best one's, times 10, clipped | -1..0 |
    | 32:64 | the best discard mask (ties: the lowest mask), one-hot | 0..1 |
    | 64 | the best draw equity placed among an opponent's before the draw | 0..1 |
    | 65 | the pat equity (the hand as it stands) placed among an opponent's final hands | 0..1 |
    | 66 | the strength the heuristic bets by: column 64 before the draw, 65 after | 0..1 |

    Columns 64-66 are the :class:`~poker_env_agents.baselines.draw.StrengthScale` places of
    ``DrawHeuristic``. Between hands and after the match every column is 0.

    Args:
        deck: the env's deck (``"standard"``/52 or ``"short"``/32).
        flush_beats_full_house: the env's ranking order (RULES.md §0 option).
    """

    name = "draw-strength"
    size = 67

    def __init__(self, deck: Deck | int = 52, flush_beats_full_house: bool = False) -> None:
        self.deck: Deck = "standard" if deck_size(deck) == 52 else "short"
        self.flush_beats_full_house = bool(flush_beats_full_house)
        self._scale: Any = None

    def __call__(self, observations: NDArray[Any]) -> NDArray[np.float32]:
        from poker_env.evaluator.equity_batch import draw_discard_equities
        from poker_env_agents.baselines.draw import StrengthScale

        obs = np.asarray(observations)
        if obs.ndim != 2 or obs.shape[1] < OBS_SIZE:
            raise ValueError(
                f"draw-strength features need (rows, {OBS_SIZE}) draw observations, "
                f"got shape {obs.shape}"
            )
        out = np.zeros((obs.shape[0], self.size), np.float32)
        rows = np.flatnonzero(np.isin(obs[:, O_PHASE], _PLAYING))
        if rows.size == 0:
            return out
        if self._scale is None:
            self._scale = StrengthScale.get(self.deck, self.flush_beats_full_house)
        cards = obs[rows, O_CARDS : O_CARDS + 5].astype(np.int64)
        eq = draw_discard_equities(
            cards, deck=self.deck, flush_beats_full_house=self.flush_beats_full_house
        )
        best = eq.max(axis=1)
        out[rows, 0:32] = np.clip((eq - best[:, None]) * 10.0, -1.0, 0.0)
        out[rows, 32 + eq.argmax(axis=1)] = 1.0
        pre = self._scale.pre_draw(best)
        post = self._scale.post_draw(eq[:, 0])
        out[rows, 64] = pre
        out[rows, 65] = post
        out[rows, 66] = np.where(obs[rows, O_PHASE] == 0, pre, post)
        return out

    def __repr__(self) -> str:
        return f"DrawStrength(deck={self.deck!r}, flush_beats_full_house={self.flush_beats_full_house})"


class HoldemEquity:
    """10 columns for Texas Hold'em (``Holdem-v0``), the same facts as the env's
    ``evaluator_features`` option, computed from the plain observation:

    | column | meaning | range |
    |---|---|---|
    | 0 | Monte Carlo equity against random hands of the opponents still in | 0..1 |
    | 1:10 | category of the best hand of hole cards and board, one-hot; 0 pre-flop | 0..1 |

    The equity is the share of the pot won over ``num_samples`` random boards and
    opponents' hands (:func:`~poker_env.evaluator.equity_batch.holdem_equity_batch`),
    each row's stream seeded from this object's Generator: the same seed gives the
    same numbers for the same calls. Rows without hole cards (a finished episode)
    get zeros.

    Args:
        num_players: seats at the table (the observation's ``n``).
        num_samples: boards per row (standard error at most ``0.5 / sqrt(samples)``).
        seed: seeds the equity streams.
    """

    name = "holdem-equity"
    size = 10

    def __init__(self, num_players: int = 2, num_samples: int = 200, seed: int = 0) -> None:
        n = int(num_players)
        if not 2 <= n <= 10:
            raise ConfigError("num_players", num_players, "2..10")
        self.num_players = n
        self.num_samples = int(num_samples)
        self.rng = np.random.default_rng(seed)
        from poker_env.episode.holdem import obs_size

        self._in = slice(110 + 3 * n, 110 + 4 * n)  # HoldemEnv's table: seat still in the hand
        self._obs_size = obs_size(n)

    def __call__(self, observations: NDArray[Any]) -> NDArray[np.float32]:
        from poker_env.evaluator import evaluate, hand_category
        from poker_env.evaluator.equity_batch import holdem_equity_batch

        obs = np.asarray(observations)
        if obs.ndim != 2 or obs.shape[1] < self._obs_size:
            raise ValueError(
                f"holdem-equity features need (rows, {self._obs_size}) Hold'em observations "
                f"of {self.num_players} seats, got shape {obs.shape}"
            )
        out = np.zeros((obs.shape[0], self.size), np.float32)
        hole_bits = obs[:, 0:52] > 0.5
        rows = np.flatnonzero(hole_bits.sum(axis=1) == 2)
        if rows.size == 0:
            return out
        # Card indices in ascending order: the one-hot columns set, row by row.
        hole = np.nonzero(hole_bits[rows])[1].reshape(-1, 2)
        board_bits = obs[rows, 52:104] > 0.5
        dealt = board_bits.sum(axis=1)
        board = np.full((rows.size, 5), -1, np.int64)
        r_idx, c_idx = np.nonzero(board_bits)
        pos = np.concatenate([np.arange(k) for k in dealt]) if r_idx.size else r_idx
        board[r_idx, pos] = c_idx
        opponents = np.clip((obs[rows, self._in] > 0.5).sum(axis=1) - 1, 1, 9)
        seeds = self.rng.integers(0, 2**63, size=rows.size, dtype=np.uint64)
        out[rows, 0] = holdem_equity_batch(
            hole, board, opponents, seeds=seeds, num_samples=self.num_samples
        )
        for k in (3, 4, 5):
            sub = np.flatnonzero(dealt == k)
            if sub.size:
                cards = np.concatenate([hole[sub], board[sub, :k]], axis=1)
                cat = hand_category(evaluate(cards, validate=False, num_threads=1))
                out[rows[sub], 1 + cat.astype(np.int64)] = 1.0
        return out

    def __repr__(self) -> str:
        return f"HoldemEquity(num_players={self.num_players}, num_samples={self.num_samples})"


def _holdem_equity(options: Mapping[str, Any]) -> FeatureSet:
    return HoldemEquity(int(options.get("num_players", 2)))


def _draw_strength(options: Mapping[str, Any]) -> FeatureSet:
    return DrawStrength(options.get("deck", 52), bool(options.get("flush_beats_full_house", False)))


# name -> (games it serves, builder from the env options)
FEATURE_SETS: dict[str, tuple[tuple[str, ...], Any]] = {
    "draw-strength": (("draw", "draw-match"), _draw_strength),
    "holdem-equity": (("holdem",), _holdem_equity),
}


def make_features(name: str, game: str, options: Mapping[str, Any]) -> FeatureSet:
    """The feature set ``name`` for ``game`` (a name of :data:`poker_env_agents.registry.GAMES`, or a
    manifest's game: ``draw``, ``red_dog``, ``holdem``) with its env ``options``.

    Raises:
        ConfigError: an unknown name, or a set that does not serve that game.
    """
    if name not in FEATURE_SETS:
        raise ConfigError("features", name, f"one of {sorted(FEATURE_SETS)} (or none)")
    games, build = FEATURE_SETS[name]
    if game.replace("_", "-") not in games and game not in games:
        raise ConfigError("features", name, f"a feature set of game {game!r} (it serves {games})")
    features: FeatureSet = build(options)
    return features
