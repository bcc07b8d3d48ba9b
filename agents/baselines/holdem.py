"""Texas Hold'em baselines (RULES.md §3): random, call station and an equity bot.

For ``poker_env/Holdem-v0`` (2 to 10 players), its vector and AEC envs. Each class is
a :class:`~poker_env.policy.Policy` and a :class:`~poker_env.policy.BatchPolicy`;
``act`` is ``act_batch`` on one row, so the two agree row by row (the bot draws two
uniforms per row from its seeded Generator in both). They read only the documented
observation (the env docstring's table; ``n`` seats from its length ``114 + 8n``, or
``124 + 8n`` with the evaluator features) and the action mask: 0 fold, 1 check/call,
2 min-raise, 3 .. 2+k raise by ``raise_fractions``, 3+k all-in.

- :class:`~poker_env.policy.RandomPolicy`: uniformly random legal actions.
- :class:`HoldemCallStation`: always check or call (action 1, always legal); never
  folds, never raises.
- :class:`HoldemEquityBot`: Monte Carlo equity, pot odds, position-aware raises
  (details in its docstring).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from poker_env.evaluator import equity_batch
from poker_env.evaluator.equity_batch import holdem_equity_batch
from poker_env.evaluator.tables import cache_dir

__all__ = [
    "DEFAULT_RAISE_FRACTIONS",
    "PREFLOP_SAMPLES",
    "HoldemCallStation",
    "HoldemEquityBot",
    "HoldemView",
    "parse_observations",
    "preflop_equity_table",
]

#: The env's default raise sizes (``raise_fractions``): fractions of pot + call.
DEFAULT_RAISE_FRACTIONS: tuple[float, ...] = (0.5, 0.75, 1.0, 2.0)

_FOLD, _CALL, _MIN_RAISE = 0, 1, 2
#: Boards per entry of the pre-flop table (standard error <= 0.005).
PREFLOP_SAMPLES = 10_000
_PREFLOP: list[NDArray[np.float64]] = []
_PREFLOP_LOCK = threading.Lock()
_OBS_BASE = 110
_NUM_FEATURES = 10  # evaluator features: 9 category entries, then the equity


def _num_seats(width: int) -> tuple[int, bool]:
    """(seats n, has evaluator features) of an observation of ``width`` entries."""
    for extra in (0, _NUM_FEATURES):
        rest = width - 114 - extra
        if rest % 8 == 0 and 2 <= rest // 8 <= 10:
            return rest // 8, extra > 0
    raise ValueError(
        f"a Hold'em observation has 114 + 8n (or 124 + 8n with evaluator features) entries "
        f"for n = 2..10 seats, got {width}"
    )


@dataclass(frozen=True)
class HoldemView:
    """What the baselines read from Hold'em observations, one entry per row.

    Chips are in starting stacks, as in the observation.
    """

    hole: NDArray[np.int64]  #: (rows, 2) own hole cards
    board: NDArray[np.int64]  #: (rows, 5) board cards, -1 where not dealt
    num_opponents: NDArray[np.int64]  #: seats still in (active or all-in) besides the row's own
    pot: NDArray[np.float64]
    to_call: NDArray[np.float64]
    stack: NDArray[np.float64]  #: own stack
    position: NDArray[np.int64]  #: seats after the button, 0 = the button
    street: NDArray[np.int64]  #: 0 pre-flop .. 3 river
    raises: NDArray[np.float64]  #: bets and raises this street (at most 10 are told)
    num_seats: int
    equity: NDArray[np.float64]  #: the evaluator feature, NaN when the observation has none


def parse_observations(observations: NDArray[np.floating]) -> HoldemView:
    """Read Hold'em observations (rows) by the documented layout (the env docstring's table)."""
    obs = np.asarray(observations, dtype=np.float64)
    if obs.ndim != 2:
        raise ValueError(f"observations must be 2-D (rows, entries), got shape {obs.shape}")
    n, has_features = _num_seats(obs.shape[1])
    rows = obs.shape[0]
    hole_rows, hole_cols = np.nonzero(obs[:, 0:52] > 0.5)
    counts = np.bincount(hole_rows, minlength=rows)
    if rows and not (counts == 2).all():
        bad = int(np.flatnonzero(counts != 2)[0])
        raise ValueError(f"observation row {bad} shows {int(counts[bad])} hole cards, not 2")
    board_onehot = obs[:, 52:104] > 0.5
    board = np.full((rows, 5), -1, np.int64)
    b_rows, b_cols = np.nonzero(board_onehot)
    slot = np.cumsum(board_onehot, axis=1)[b_rows, b_cols] - 1
    board[b_rows, slot] = b_cols
    in_hand = obs[:, _OBS_BASE + 3 * n + 1 : _OBS_BASE + 4 * n] > 0.5
    street = obs[:, 104:108].argmax(axis=1).astype(np.int64)
    return HoldemView(
        hole=hole_cols.reshape(rows, 2).astype(np.int64),
        board=board,
        num_opponents=in_hand.sum(axis=1).astype(np.int64),
        pot=obs[:, 108],
        to_call=obs[:, 109],
        stack=obs[:, _OBS_BASE],
        position=np.rint(obs[:, _OBS_BASE + 2 * n] * (n - 1)).astype(np.int64),
        street=street,
        raises=np.rint(obs[np.arange(rows), _OBS_BASE + 8 * n + street] * 10),
        num_seats=n,
        equity=obs[:, -1] if has_features else np.full(rows, np.nan),
    )


def _check_masks(masks: NDArray[np.int8], rows: int, num_actions: int, fractions: object) -> None:
    if masks.ndim != 2 or masks.shape[0] != rows:
        raise ValueError(
            f"action_masks must be (rows, actions) with {rows} rows, got shape {masks.shape}"
        )
    if masks.shape[1] != num_actions:
        raise ValueError(
            f"action masks of width {masks.shape[1]} do not fit raise_fractions={fractions!r} "
            f"({num_actions} actions): give the policy the env's raise_fractions"
        )


def _build_preflop_table() -> NDArray[np.float64]:
    table = np.zeros((13, 13, 10), np.float64)
    holes, where = [], []
    for hi in range(13):
        for lo in range(13):
            # [hi, lo] with hi > lo: suited; [lo, hi]: offsuit; [r, r]: a pair.
            if hi > lo:
                cards = (4 * hi, 4 * lo)
            elif hi < lo:
                cards = (4 * lo, 4 * hi + 1)
            else:
                cards = (4 * hi, 4 * hi + 1)
            for m in range(1, 10):
                holes.append(cards)
                where.append((hi, lo, m))
    rows = len(holes)
    eq = holdem_equity_batch(
        np.array(holes),
        np.full((rows, 5), -1),
        np.array([w[2] for w in where]),
        seeds=np.arange(rows),  # fixed: the table is the same everywhere
        num_samples=PREFLOP_SAMPLES,
    )
    for (hi, lo, m), e in zip(where, eq, strict=True):
        table[hi, lo, m] = e
    return table


def preflop_equity_table() -> NDArray[np.float64]:
    """Pre-flop equity of every starting hand against 1 to 9 random hands.

    ``table[a, b, m]``: ranks ``a > b`` suited, ``table[b, a, m]`` the same ranks
    offsuit, ``table[r, r, m]`` a pair; ``m`` opponents (index 0 unused). Monte Carlo
    with :data:`PREFLOP_SAMPLES` boards per entry from fixed seeds, built on first
    use (seconds) and cached in memory and on disk beside the evaluator's tables
    (the file name carries a digest of :mod:`poker_env.evaluator.equity_batch`'s source).
    """
    with _PREFLOP_LOCK:
        if _PREFLOP:
            return _PREFLOP[0]
        source = hashlib.sha256(Path(equity_batch.__file__).read_bytes()).hexdigest()[:16]
        path = cache_dir() / f"holdem-preflop-{PREFLOP_SAMPLES}-{source}.npy"
        table: NDArray[np.float64] | None = None
        try:
            loaded = np.load(path, allow_pickle=False)
            if loaded.shape == (13, 13, 10) and loaded.dtype == np.float64:
                table = loaded
        except (OSError, ValueError, EOFError):
            pass
        if table is None:
            table = _build_preflop_table()
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
                np.save(tmp, table)
                os.replace(tmp, path)  # atomic for concurrent readers
            except OSError:
                pass  # a read-only home only costs the rebuild next time
        table.setflags(write=False)
        _PREFLOP.append(table)
        return table


def _preflop_equity(
    hole: NDArray[np.int64], num_opponents: NDArray[np.int64]
) -> NDArray[np.float64]:
    table = preflop_equity_table()
    ranks, suits = hole >> 2, hole & 3
    hi, lo = ranks.max(axis=1), ranks.min(axis=1)
    suited = suits[:, 0] == suits[:, 1]
    out: NDArray[np.float64] = table[
        np.where(suited, hi, lo), np.where(suited, lo, hi), num_opponents
    ]
    return out


class HoldemCallStation:
    """Always check or call (action 1, legal on every turn): never folds, never raises."""

    def act(self, observation: object, action_mask: NDArray[np.int8]) -> int:
        return _CALL

    def act_batch(self, observations: object, action_masks: NDArray[np.int8]) -> NDArray[np.int64]:
        masks = np.asarray(action_masks)
        if masks.ndim != 2 or masks.shape[1] < 2:
            raise ValueError(f"action_masks must be (rows, actions >= 2), got shape {masks.shape}")
        return np.full(masks.shape[0], _CALL, np.int64)


class HoldemEquityBot:
    """Plays by its Monte Carlo equity against the opponents still in, pot odds and position.

    - **Equity** ``e``: the share of the pot its hand wins against random hands of the
      ``m`` opponents still in (folded seats out, all-in seats in), over
      ``num_samples`` random completions of the board
      (:func:`~poker_env.evaluator.equity_batch.holdem_equity_batch`, compiled, one stream
      per row seeded from the bot's Generator); before the flop the same quantity
      from :func:`preflop_equity_table` (10,000 boards per starting hand and number
      of opponents). With ``use_features`` and an
      observation that carries the env's evaluator features, their equity (the same
      quantity) is used instead. ``z = (e - 1/(m+1)) / (1 - 1/(m+1))`` measures it
      against a fair share: 0 average, 1 a sure win.
    - **Lateness** ``L`` in [0, 1]: 0 for the small blind's seat, 1 for the button
      (seats after the button, from the observation).
    - **Raise** when ``z >= raise_z - position_step x L + reraise_step x raises``
      (bets and raises so far this street): later positions raise lighter.
    - **Facing a bet** that it does not raise: call when ``e`` is above the price
      ``to call / (pot + to call)`` (pot odds), else fold. With nothing to call it
      checks (never folds), or with probability ``bluff`` bets the smallest size.
    - **Size**: a pot fraction growing with the margin over the raise threshold,
      from the smallest of ``raise_fractions`` to the largest, times
      ``1 - position_step`` at the button (later position, smaller sizes); all-in
      when ``z >= all_in_z``. The legal size nearest in ratio is played (all-in
      counts at its own pot fraction, so a short stack's raise goes all-in); when no
      raise is legal, it calls.

    Args:
        seed: a seed or Generator (one equity stream and one bluff uniform per row).
        raise_fractions: the env's raise sizes (default ``(0.5, 0.75, 1, 2)``).
        num_samples: Monte Carlo boards per decision (standard error <= 0.5/sqrt).
        use_features: use the evaluator features' equity when the observation has them.
        bluff, raise_z, position_step, reraise_step, all_in_z: the thresholds above.
    """

    def __init__(
        self,
        seed: int | np.random.Generator | None = None,
        *,
        raise_fractions: Sequence[float] = DEFAULT_RAISE_FRACTIONS,
        num_samples: int = 200,
        use_features: bool = True,
        bluff: float = 0.05,
        raise_z: float = 0.3,
        position_step: float = 0.1,
        reraise_step: float = 0.05,
        all_in_z: float = 0.85,
    ) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        fr = np.asarray(raise_fractions, dtype=np.float64)
        if fr.ndim != 1 or fr.size == 0 or not np.all(fr > 0):
            raise ValueError(
                f"raise_fractions must be a non-empty list of positive numbers, got {raise_fractions!r}"
            )
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
            raise ValueError(f"num_samples must be an integer >= 1, got {num_samples!r}")
        for name, value in (
            ("bluff", bluff),
            ("raise_z", raise_z),
            ("position_step", position_step),
            ("reraise_step", reraise_step),
            ("all_in_z", all_in_z),
        ):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        self.raise_fractions = tuple(float(f) for f in fr)
        self.num_samples = num_samples
        self.use_features = bool(use_features)
        self.bluff, self.raise_z, self.all_in_z = float(bluff), float(raise_z), float(all_in_z)
        self.position_step, self.reraise_step = float(position_step), float(reraise_step)
        self._num_actions = 4 + fr.size

    def act(
        self, observation: NDArray[np.floating] | NDArray[np.integer], action_mask: NDArray[np.int8]
    ) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        obs = np.asarray(observations, dtype=np.float64)
        masks = (np.asarray(action_masks) != 0).astype(np.int8)
        rows = obs.shape[0] if obs.ndim == 2 else -1
        _check_masks(masks, rows, self._num_actions, self.raise_fractions)
        p = parse_observations(obs)
        # Two uniforms per row, used or not (act == act_batch row by row): the row's
        # equity stream, then its bluff draw.
        u = self.rng.random((rows, 2))
        m = np.maximum(p.num_opponents, 1)
        equity = p.equity
        own = ~(self.use_features & ~np.isnan(equity))
        equity = equity.copy()
        preflop = own & (p.street == 0)
        if preflop.any():
            equity[preflop] = _preflop_equity(p.hole[preflop], m[preflop])
        own &= ~preflop
        if own.any():
            equity[own] = holdem_equity_batch(
                p.hole[own],
                p.board[own],
                m[own],
                seeds=(u[own, 0] * 2.0**53).astype(np.uint64),
                num_samples=self.num_samples,
            )
        fair = 1.0 / (m + 1)
        z = (equity - fair) / (1.0 - fair)
        n = p.num_seats
        lateness = ((p.position - 1) % n) / (n - 1)
        to_call = p.to_call
        pot = p.pot
        facing = to_call > 0
        threshold = self.raise_z - self.position_step * lateness + self.reraise_step * p.raises
        wants_raise = z >= threshold
        bluffs = ~facing & ~wants_raise & (u[:, 1] < self.bluff)
        # Target pot fraction: the smallest size at the threshold, the largest at a sure
        # win; smaller in later position.
        fr = np.asarray(self.raise_fractions)
        margin = np.clip((z - threshold) / np.maximum(1.0 - threshold, 1e-9), 0.0, 1.0)
        margin = np.where(bluffs, 0.0, margin)
        target = fr.min() * (fr.max() / fr.min()) ** margin
        target = target * (1.0 - self.position_step * lateness)
        size = self._legal_size(masks, target, z >= self.all_in_z, p.stack, to_call, pot)
        calls = facing & (equity > to_call / np.maximum(pot + to_call, 1e-12))
        acts = np.where(facing & ~calls, _FOLD, _CALL)
        acts = np.where((wants_raise | bluffs) & (size >= 0), size, acts).astype(np.int64)
        # Never fold where checking is free, nor pick a masked action.
        rows_ix = np.arange(rows)
        bad = masks[rows_ix, acts] == 0
        return np.where(bad, _CALL, acts).astype(np.int64)

    def _legal_size(
        self,
        masks: NDArray[np.int8],
        target: NDArray[np.float64],
        all_in: NDArray[np.bool_],
        stack: NDArray[np.float64],
        to_call: NDArray[np.float64],
        pot: NDArray[np.float64],
    ) -> NDArray[np.int64]:
        """The legal raise index nearest the target fraction (log ratio), -1 when none."""
        k = len(self.raise_fractions)
        rows = masks.shape[0]
        frac = np.empty((rows, k + 2))
        # A min-raise counts as the smallest size; all-in at its own pot fraction.
        frac[:, 0] = min(self.raise_fractions) / 4
        frac[:, 1 : k + 1] = self.raise_fractions
        frac[:, k + 1] = np.maximum(stack - to_call, 1e-9) / np.maximum(pot + to_call, 1e-12)
        legal = masks[:, 2 : k + 4] != 0
        cost = np.abs(np.log(frac) - np.log(np.maximum(target, 1e-9))[:, None])
        cost = np.where(legal, cost, np.inf)
        best = 2 + cost.argmin(axis=1)
        best = np.where(all_in & legal[:, k + 1], 3 + k, best)
        return np.where(legal.any(axis=1), best, -1).astype(np.int64)
