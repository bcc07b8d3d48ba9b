"""Five-card draw baselines (RULES.md §1): random, call station and a heuristic.

For ``poker_env/FiveCardDraw-v0`` and ``poker_env/DrawMatch-v0`` (either seat; as the
computer the heuristic also decides her buy-backs) and the draw vector and AEC envs.
Each class is a :class:`~poker_env.policy.Policy` and a
:class:`~poker_env.policy.BatchPolicy`; ``act`` is ``act_batch`` on one row, so the
two agree row by row (the heuristic draws one uniform per row from its seeded
Generator in both). They read only the documented observation (the env docstring's
table: own cards at 0:5, phase at 57, pot at 59, chips to call at 64, raises this
round at 65) and the action mask, whose width ``2 + K + 33`` gives the number of
bet sizes ``K``.

- :class:`~poker_env.policy.RandomPolicy`: uniformly random legal actions.
- :class:`DrawCallStation`: the passive action whenever it is legal (STAY or DRAW
  before the draw, CALL after it: it checks and calls, never bets, never drops);
  in the draw it keeps all five cards; between hands (the computer in
  DrawMatch-v0) it buys back whenever offered, the rule book's default.
- :class:`DrawHeuristic`: discards by exact draw equity, bets by hand strength
  (details in its docstring).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import Deck, deck_size

# The observation's entries and the env's default bet sizes, from their owner.
from poker_env.episode.draw import (
    DEFAULT_POT_FRACTIONS,
    O_CARDS,
    O_PHASE,
    O_POT,
    O_RAISES,
    O_TO_CALL,
    OBS_SIZE,
)
from poker_env.evaluator.equity_batch import draw_discard_equities

__all__ = ["DEFAULT_POT_FRACTIONS", "DrawCallStation", "DrawHeuristic", "StrengthScale"]

# Phases in the observation.
_PRE_DRAW, _DRAW, _POST_DRAW, _BUY_BACK = 0, 1, 2, 4
# Env actions: 0 DROP, 1 the passive action, 2 .. 2+K-1 bet sizes (fractions, then
# all-in), 2+K .. 2+K+31 discard masks, 2+K+32 BUY_BACK.
_DROP, _PASSIVE = 0, 1


def _num_sizes(width: int) -> int:
    """K, the bet sizes (pot fractions + all-in), of an action mask of ``width``."""
    k = width - 35
    if k < 2:
        raise ValueError(
            f"a five-card draw action mask has 2 + K + 33 entries with K >= 2, got {width}"
        )
    return k


def _as_batch(
    observations: NDArray[np.floating] | NDArray[np.integer], action_masks: NDArray[np.int8]
) -> tuple[NDArray[np.float64], NDArray[np.int8]]:
    obs = np.asarray(observations, dtype=np.float64)
    masks = np.asarray(action_masks)
    if masks.ndim != 2 or obs.ndim != 2 or obs.shape[0] != masks.shape[0]:
        raise ValueError(
            f"observations (rows, {OBS_SIZE}) and action_masks (rows, actions) must match, "
            f"got shapes {obs.shape} and {masks.shape}"
        )
    if obs.shape[1] != OBS_SIZE:
        raise ValueError(f"a five-card draw observation has {OBS_SIZE} entries, got {obs.shape[1]}")
    return obs, (masks != 0).astype(np.int8)


def _legalize(actions: NDArray[np.int64], masks: NDArray[np.int8]) -> NDArray[np.int64]:
    """Where a row's action is masked out: the passive action, else its first legal one."""
    rows = np.arange(actions.size)
    bad = masks[rows, actions] == 0
    if bad.any():
        fallback = np.where(masks[:, _PASSIVE] != 0, _PASSIVE, masks.argmax(axis=1))
        actions = np.where(bad, fallback, actions)
        if (masks[rows, actions] == 0).any():
            raise ValueError(f"action_masks row {int(np.flatnonzero(bad)[0])} has no legal action")
    return actions


class DrawCallStation:
    """Check and call, never bet, never drop; keep all cards; buy back when offered.

    Per row, the first legal of: BUY_BACK (between hands, RULES.md §1's default
    rule: she buys back whenever she may), the passive action (STAY, DRAW or CALL:
    a check or a call), keep all five cards (discard mask 0).
    """

    def act(
        self, observation: NDArray[np.floating] | NDArray[np.integer], action_mask: NDArray[np.int8]
    ) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        masks = np.asarray(action_masks)
        if masks.ndim != 2:
            raise ValueError(f"action_masks must be 2-D (rows, actions), got shape {masks.shape}")
        k = _num_sizes(masks.shape[1])
        keep_all, buy_back = 2 + k, 2 + k + 32
        acts = np.where(
            masks[:, buy_back] != 0,
            buy_back,
            np.where(masks[:, _PASSIVE] != 0, _PASSIVE, keep_all),
        ).astype(np.int64)
        return _legalize(acts, (masks != 0).astype(np.int8))


class StrengthScale:
    """Where a hand stands among the hands an opponent typically holds, from 0 to 1.

    Built once per deck and ranking order from 8,192 random deals (fixed seed 0):
    ``pre`` holds each deal's best draw equity (the pre-draw strength), ``post`` the
    pat equity of the final hand after that deal's best discard and a random draw
    (the post-draw strength of an opponent who draws well). A strength's place is
    the share of the sample below it (ties half).
    """

    _cache: dict[tuple[Deck, bool], StrengthScale] = {}  # noqa: RUF012
    _lock = threading.Lock()
    NUM_DEALS = 8192

    def __init__(self, pre: NDArray[np.float64], post: NDArray[np.float64]) -> None:
        self.pre = np.sort(pre)
        self.post = np.sort(post)

    @classmethod
    def get(cls, deck: Deck, flush_beats_full_house: bool) -> StrengthScale:
        """The scale of a deck (``"standard"`` or ``"short"``) and ranking order, built once."""
        key = (deck, flush_beats_full_house)
        with cls._lock:
            if key not in cls._cache:
                cls._cache[key] = cls._build(deck, flush_beats_full_house)
            return cls._cache[key]

    @classmethod
    def _build(cls, deck: Deck, flush_beats_full_house: bool) -> StrengthScale:
        rng = np.random.default_rng(0)
        lo = 0 if deck == "standard" else 20
        size = 52 - lo
        n = cls.NUM_DEALS
        # Each row a random order of the deck: the hand, then its draws.
        order = np.argsort(rng.random((n, size)), axis=1) + lo
        hands = order[:, :5]
        eq = draw_discard_equities(hands, deck=deck, flush_beats_full_house=flush_beats_full_house)
        best = eq.argmax(axis=1)
        final = hands.copy()
        used = np.full(n, 5)
        for j in range(5):
            thrown = (best >> j) & 1 == 1
            final[thrown, j] = order[thrown, used[thrown]]
            used += thrown
        post = draw_discard_equities(
            final, deck=deck, flush_beats_full_house=flush_beats_full_house
        )[:, 0]
        return cls(eq.max(axis=1), post)

    @staticmethod
    def _place(sample: NDArray[np.float64], values: NDArray[np.float64]) -> NDArray[np.float64]:
        below = np.searchsorted(sample, values, side="left")
        upto = np.searchsorted(sample, values, side="right")
        out: NDArray[np.float64] = (below + upto) / (2.0 * sample.size)
        return out

    def pre_draw(self, best_equity: NDArray[np.float64]) -> NDArray[np.float64]:
        """Place of a best draw equity among opponents' before the draw."""
        return self._place(self.pre, best_equity)

    def post_draw(self, pat_equity: NDArray[np.float64]) -> NDArray[np.float64]:
        """Place of a final hand's pat equity among opponents' after a good draw."""
        return self._place(self.post, pat_equity)


class DrawHeuristic:
    """Discards by exact draw equity; bets and raises by hand strength; bluffs a little.

    - **The draw**: the discard of the highest equity among all 32, from
      :func:`~poker_env.evaluator.equity_batch.draw_discard_equities` (exact over every draw,
      against a random pat hand; it agrees with ``draw_equity(hand).best()`` up to
      that helper's Monte Carlo error and card removal on the opponent's side).
      Ties go to the lowest discard mask (slot order).
    - **Strength** ``r`` in [0, 1]: before the draw the hand's best draw equity, after
      it the final hand's pat equity (its exact rank among all hands: category, then
      kickers), each placed on a :class:`StrengthScale` (the share of an opponent's
      typical hands it beats at that point).
    - **Betting**, with nothing to call: bet when ``r >= bet_at``, sized by strength
      (the smallest pot fraction below ``size_at[0]``, the one nearest the pot below
      ``size_at[1]``, the largest below ``size_at[2]``, all-in above); else check,
      or with probability ``bluff`` bet the smallest size. Facing a bet (price
      ``q = to call / (pot + to call)``): raise when ``r >= raise_at + 0.05 x raises
      so far this round`` (sized as a bet), call when ``r >= q + call_margin``, else
      drop. It never drops when it may check. A size that is not legal (masked as a
      duplicate amount, or the raise cap reached) becomes the nearest legal size, or a
      check/call.
    - **Buy-back** (the computer seat of DrawMatch-v0, between hands): buy back
      whenever offered, RULES.md §1's default rule. A buy-back swaps money for a worn
      item of the same value, so her worth, what she can stake and when she loses
      the match are all unchanged: nothing is gained by skipping it, and her
      wardrobe (the game's point) is restored.

    Args:
        seed: a seed or Generator for the bluffs (one uniform per row).
        deck: the env's deck (``"standard"``/52 or ``"short"``/32); the observation
            does not say which.
        flush_beats_full_house: the env's ranking order (RULES.md §0 option).
        pot_fractions: the env's bet sizes (default ``(0.5, 1.0, 2.0)``).
        bluff, bet_at, raise_at, call_margin, size_at: the thresholds above.
    """

    def __init__(
        self,
        seed: int | np.random.Generator | None = None,
        *,
        deck: Deck | int = "standard",
        flush_beats_full_house: bool = False,
        pot_fractions: Sequence[float] = DEFAULT_POT_FRACTIONS,
        bluff: float = 0.05,
        bet_at: float = 0.6,
        raise_at: float = 0.85,
        call_margin: float = 0.1,
        size_at: tuple[float, float, float] = (0.8, 0.92, 0.98),
    ) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.deck: Deck = "standard" if deck_size(deck) == 52 else "short"
        self.flush_beats_full_house = bool(flush_beats_full_house)
        fr = np.asarray(pot_fractions, dtype=np.float64)
        if fr.ndim != 1 or fr.size == 0 or not np.all(fr > 0):
            raise ValueError(
                f"pot_fractions must be a non-empty list of positive numbers, got {pot_fractions!r}"
            )
        self.pot_fractions = tuple(float(f) for f in fr)
        for name, value in (
            ("bluff", bluff),
            ("bet_at", bet_at),
            ("raise_at", raise_at),
            ("call_margin", call_margin),
        ):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        if len(size_at) != 3 or not 0.0 <= size_at[0] <= size_at[1] <= size_at[2] <= 1.0:
            raise ValueError(f"size_at must be three increasing numbers in [0, 1], got {size_at!r}")
        self.bluff, self.bet_at, self.raise_at = float(bluff), float(bet_at), float(raise_at)
        self.call_margin = float(call_margin)
        self.size_at = tuple(float(x) for x in size_at)
        # Size indices 2 .. 2+K-1 in ascending order of amount (all-in last), and the
        # size of each strength tier: smallest, nearest the pot, largest, all-in.
        by_amount = np.argsort(fr, kind="stable")
        self._size_order = np.concatenate([2 + by_amount, [2 + fr.size]]).astype(np.int64)
        self._tier_pos = np.array(
            [0, int(np.argmin(np.abs(fr[by_amount] - 1.0))), fr.size - 1, fr.size], np.int64
        )
        self._scale: StrengthScale | None = None

    def act(
        self, observation: NDArray[np.floating] | NDArray[np.integer], action_mask: NDArray[np.int8]
    ) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        obs, masks = _as_batch(observations, action_masks)
        n = obs.shape[0]
        k = _num_sizes(masks.shape[1])
        if k != len(self.pot_fractions) + 1:
            raise ValueError(
                f"action masks of width {masks.shape[1]} have {k - 1} pot fractions, the policy "
                f"has pot_fractions={self.pot_fractions}: give it the env's pot_fractions"
            )
        u = np.asarray(
            self.rng.random(n), np.float64
        )  # one uniform per row, used or not: act == act_batch row by row
        phase = obs[:, O_PHASE].astype(np.int64)
        acts = np.full(n, _PASSIVE, np.int64)
        # Between hands: the buy-back (RULES.md §1 default rule, see the class docstring).
        buy_back = 2 + k + 32
        acts[(phase == _BUY_BACK) & (masks[:, buy_back] != 0)] = buy_back
        play = np.flatnonzero((phase == _PRE_DRAW) | (phase == _DRAW) | (phase == _POST_DRAW))
        if play.size:
            acts[play] = self._play(obs[play], masks[play], phase[play], u[play], k)
        return _legalize(acts, masks)

    # ----- helpers -------------------------------------------------------------------
    def _play(
        self,
        obs: NDArray[np.float64],
        masks: NDArray[np.int8],
        phase: NDArray[np.int64],
        u: NDArray[np.float64],
        k: int,
    ) -> NDArray[np.int64]:
        if self._scale is None:
            self._scale = StrengthScale.get(self.deck, self.flush_beats_full_house)
        cards = obs[:, O_CARDS : O_CARDS + 5].astype(np.int64)
        eq = draw_discard_equities(
            cards, deck=self.deck, flush_beats_full_house=self.flush_beats_full_house
        )
        acts = np.where(phase == _DRAW, 2 + k + eq.argmax(axis=1), _PASSIVE).astype(np.int64)
        bet = phase != _DRAW
        if not bet.any():
            return acts
        r = np.where(
            phase == _PRE_DRAW,
            self._scale.pre_draw(eq.max(axis=1)),
            self._scale.post_draw(eq[:, 0]),
        )
        to_call = obs[:, O_TO_CALL]
        pot = obs[:, O_POT]
        raises = obs[:, O_RAISES]
        facing = to_call > 0
        price = np.where(facing, to_call / np.maximum(pot + to_call, 1.0), 0.0)
        tier = np.searchsorted(np.asarray(self.size_at), r, side="right")
        opens = ~facing & ((r >= self.bet_at) | (u < self.bluff))
        tier = np.where(~facing & (r < self.bet_at), 0, tier)  # a bluff bets the least
        raises_now = facing & (r >= self.raise_at + 0.05 * raises)
        sized = bet & (opens | raises_now)
        size = self._legal_size(masks, tier)
        calls = facing & ~raises_now & (r >= price + self.call_margin)
        drops = facing & ~raises_now & ~calls
        out = np.where(bet & sized & (size >= 0), size, acts)
        out = np.where(bet & drops, _DROP, out)
        return out.astype(np.int64)

    def _legal_size(self, masks: NDArray[np.int8], tier: NDArray[np.int64]) -> NDArray[np.int64]:
        """The legal bet size nearest each row's tier (in amount order), or -1 when none."""
        legal = masks[:, self._size_order] != 0
        pos = np.arange(self._size_order.size)
        want = self._tier_pos[tier]
        # Nearest legal position; on a tie the smaller amount.
        cost = np.abs(pos[None, :] - want[:, None]) * 2 + (pos[None, :] > want[:, None])
        cost = np.where(legal, cost, np.iinfo(np.int64).max)
        best = cost.argmin(axis=1)
        return np.where(legal.any(axis=1), self._size_order[best], -1)
