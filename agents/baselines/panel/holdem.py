"""The held-out panel for Texas Hold'em (RULES.md §3): rule bots of named styles.

For ``Holdem-v0`` heads-up and 6-max (any 2..10 seats), its vector and AEC envs.
Written from common Hold'em knowledge (a pre-flop hand chart, made-hand strength,
position, pot odds), not fitted to any policy; never trained on (see
:mod:`poker_env_agents.baselines.panel`).

Every bot is a :class:`HoldemPanelBot` with a :class:`HoldemStyle`. It reads the
documented observation through :func:`~poker_env_agents.baselines.holdem.parse_observations`
and the action mask (0 fold, 1 check/call, 2 min-raise, 3 .. 2+k the raise fractions,
3+k all-in). Per row, one uniform from its seeded Generator (used or not), so ``act``
is ``act_batch`` on one row.

- **The pre-flop chart** (:func:`chen_score`): Bill Chen's formula, -1 (72o) to 20
  (AA): the high card's points (A 10, K 8, Q 7, J 6, else half its rank), doubled for
  a pair (at least 5), +2 suited, minus 1/2/4/5 for a gap of 1/2/3/4+ ranks, +1 for
  connectors or one-gappers below a queen, rounded up. E.g. KK 16, AKs 12, AKo 10,
  T9s 8, 22 5.
- **Made-hand strength** after the flop (:func:`made_level`, 0..5): 5 a straight or
  better, 4 trips or a set, 3 two pair with both hole cards (or a pocket pair and a
  paired board), 2 top pair or an overpair, 1 a weaker pair, 0 nothing or only the
  board's hand. A **draw**: four to a flush or an open-ended straight with a hole
  card, before the river.
- **Lateness** ``L``: 0 in the small blind, 1 on the button (the chart opens wider
  late: ``open - late x L``).
- **Betting**: pre-flop, unraised, raise when the score is at least the opening
  score, limp (call the blind) above ``limp``; facing a raise, re-raise above
  ``reraise + 2 x (raises - 1)``, call above ``call``, else fold. After the flop, with
  nothing to call, bet a made hand of at least ``bet`` (or a draw when it semi-bluffs,
  or with probability ``bluff``), else check; facing a bet, raise from ``raise_``, call
  from ``call`` (a draw when it calls draws), else fold. It never folds when
  checking is free (the env masks that fold). Sizes are the pot fraction ``size``,
  the nearest legal raise (``inf``: all-in).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from poker_env.evaluator import evaluate, hand_category
from poker_env.evaluator.equity_batch import holdem_equity_batch
from poker_env_agents.baselines.holdem import (
    DEFAULT_RAISE_FRACTIONS,
    HoldemView,
    _preflop_equity,
    parse_observations,
)

__all__ = [
    "HOLDEM_STYLES",
    "HoldemPanelBot",
    "HoldemStyle",
    "chen_score",
    "draws",
    "made_level",
]

_FOLD, _CALL, _MIN_RAISE = 0, 1, 2
_NEVER = 99.0
_OBS_BASE = 110


def chen_score(hole: NDArray[np.int64]) -> NDArray[np.float64]:
    """Bill Chen's pre-flop score of each row's two hole cards (module docstring)."""
    hole = np.asarray(hole, np.int64)
    r = hole >> 2
    hi, lo = r.max(axis=1), r.min(axis=1)
    points = np.array([1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 10])  # 2 .. A
    pair = hi == lo
    suited = (hole[:, 0] & 3) == (hole[:, 1] & 3)
    gap = hi - lo - 1
    penalty = np.select([gap <= 0, gap == 1, gap == 2, gap == 3], [0, 1, 2, 4], default=5)
    score = points[hi] + 2.0 * suited - penalty + ((gap <= 1) & (hi < 10) & ~pair)
    score = np.where(pair, np.maximum(2 * points[hi], 5), score)
    out: NDArray[np.float64] = np.ceil(score)
    return out


def made_level(hole: NDArray[np.int64], board: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each row's made-hand strength 0..5 after the flop (module docstring); 0 pre-flop.

    ``board``: (rows, 5), -1 where not dealt.
    """
    hole = np.asarray(hole, np.int64)
    board = np.asarray(board, np.int64)
    rows = hole.shape[0]
    out = np.zeros(rows, np.int64)
    nb = (board >= 0).sum(axis=1)
    for k in (3, 4, 5):
        idx = np.flatnonzero(nb == k)
        if idx.size == 0:
            continue
        b = board[idx, :k]
        h = hole[idx]
        cat = hand_category(evaluate(np.concatenate([h, b], axis=1))).astype(np.int64)
        hr, br = h >> 2, b >> 2
        top = br.max(axis=1)
        pocket = hr[:, 0] == hr[:, 1]
        hit = (hr[:, :, None] == br[:, None, :]).any(axis=2)  # (rows, 2)
        hits = np.where(pocket, hit[:, 0], hit.sum(axis=1))
        top_hit = ((hr == top[:, None]) & hit).any(axis=1)
        board_counts = (br[:, :, None] == br[:, None, :]).sum(axis=2)
        board_paired = (board_counts >= 2).any(axis=1)
        pair = np.select(
            [pocket & (hr[:, 0] > top), top_hit, hits >= 1, pocket], [2, 2, 1, 1], default=0
        )
        two_pair = np.select(
            [(hits >= 2) | (pocket & board_paired), top_hit, hits >= 1], [3, 2, 1], default=0
        )
        trips = np.where((hits >= 1) | pocket, 4, 0)
        level = np.select(
            [cat >= 4, cat == 3, cat == 2, cat == 1], [5, trips, two_pair, pair], default=0
        )
        if k == 5:
            # The board's own hand, when the hole cards do not improve it, is nothing.
            plays = evaluate(np.concatenate([h, b], axis=1)) == evaluate(b)
            level = np.where(plays, 0, level)
        out[idx] = level
    return out


def draws(hole: NDArray[np.int64], board: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Rows holding four to a flush or an open-ended straight draw with a hole card,
    on the flop or the turn (module docstring)."""
    hole = np.asarray(hole, np.int64)
    board = np.asarray(board, np.int64)
    rows = hole.shape[0]
    nb = (board >= 0).sum(axis=1)
    cards = np.concatenate([hole, board], axis=1)
    dealt = cards >= 0
    suits = np.where(dealt, cards & 3, -1)
    ranks = np.where(dealt, cards >> 2, -1)
    flush = np.zeros(rows, np.bool_)
    for s in range(4):
        n = (suits == s).sum(axis=1)
        flush |= (n == 4) & ((hole & 3) == s).any(axis=1)
    present = np.zeros((rows, 13), np.bool_)
    present[np.nonzero(dealt)[0], ranks[dealt]] = True
    own = np.zeros((rows, 13), np.bool_)
    own[np.repeat(np.arange(rows), 2), (hole >> 2).ravel()] = True
    straight = np.zeros(rows, np.bool_)
    made = np.zeros(rows, np.bool_)
    for lo in range(9):  # open-ended runs lo..lo+3 with a card free on both ends
        run = present[:, lo : lo + 4].all(axis=1) & own[:, lo : lo + 4].any(axis=1)
        straight |= run
    for lo in range(9):
        made |= present[:, lo : lo + 5].all(axis=1)
    out: NDArray[np.bool_] = ((flush | straight) & ~made) & (nb >= 3) & (nb <= 4)
    return out


@dataclass(frozen=True)
class HoldemStyle:
    """A Hold'em bot's style (the module docstring's thresholds).

    Pre-flop scores are Chen scores: ``open`` (minus ``late x L``), ``limp``,
    ``reraise``, ``pre_call``. After the flop, made levels: ``bet``, ``raise_``,
    ``call``; ``draw_bets`` semi-bluffs draws, ``draw_calls`` calls with them.
    ``bluff``: chance of a bet with nothing to call after the flop. ``aggression``:
    chance of a raise whatever the hand (the maniac; a quarter of those all-in).
    ``never_fold``: call every bet. ``check_raise``: after the flop, with nothing to
    call, check unless on the button; raise bets from ``raise_``. ``barrel``: the
    pre-flop raiser bets flop, turn, river with these chances whatever it holds.
    ``shove``: every raise is all-in. ``pot_odds``: decide by Monte Carlo equity and
    the price (see :class:`HoldemPanelBot`).
    """

    name: str
    summary: str
    open: float = _NEVER
    late: float = 2.0
    limp: float = _NEVER
    reraise: float = _NEVER
    pre_call: float = _NEVER
    bet: float = _NEVER
    raise_: float = _NEVER
    call: float = _NEVER
    draw_bets: bool = False
    draw_calls: bool = False
    bluff: float = 0.0
    size: float = 0.75
    aggression: float = 0.0
    never_fold: bool = False
    check_raise: bool = False
    barrel: tuple[float, float, float] = (0.0, 0.0, 0.0)
    shove: bool = False
    pot_odds: bool = False


#: The Hold'em panel, by name.
HOLDEM_STYLES: dict[str, HoldemStyle] = {
    s.name: s
    for s in (
        HoldemStyle(
            "tight-aggressive",
            "opens Chen >= 9 (7 on the button) for 3/4 pot, re-raises >= 12, calls a raise "
            ">= 9; bets and calls top pair or better, raises two pair",
            open=9,
            reraise=12,
            pre_call=9,
            bet=2,
            raise_=3,
            call=2,
        ),
        HoldemStyle(
            "loose-aggressive",
            "opens Chen >= 6 (3 on the button), re-raises >= 9, calls >= 5; bets any pair or "
            "draw, bluffs 30%, raises two pair or a draw",
            open=6,
            late=3.0,
            reraise=9,
            pre_call=5,
            bet=1,
            raise_=3,
            call=1,
            draw_bets=True,
            draw_calls=True,
            bluff=0.3,
        ),
        HoldemStyle(
            "tight-passive",
            "limps Chen >= 8, raises only >= 14, calls a raise >= 9; bets trips or better "
            "(half pot), calls top pair",
            limp=8,
            open=14,
            late=0.0,
            reraise=16,
            pre_call=9,
            bet=4,
            raise_=5,
            call=2,
            size=0.5,
        ),
        HoldemStyle(
            "loose-passive",
            "limps Chen >= 1, calls a raise >= 4, raises only >= 16; calls any pair or draw, "
            "bets trips or better (half pot)",
            limp=1,
            open=16,
            late=0.0,
            reraise=18,
            pre_call=4,
            bet=4,
            raise_=5,
            call=1,
            draw_calls=True,
            size=0.5,
        ),
        HoldemStyle(
            "nit",
            "opens only Chen >= 12 (JJ+, AKs), calls a raise >= 12, re-raises >= 14; bets "
            "and calls two pair or better",
            open=12,
            late=0.0,
            reraise=14,
            pre_call=12,
            bet=3,
            raise_=4,
            call=3,
        ),
        HoldemStyle(
            "maniac",
            "raises 85% of its turns whatever it holds (twice the pot, a quarter all-in), "
            "calls everything else",
            open=-5,
            reraise=-5,
            pre_call=-5,
            bet=0,
            raise_=0,
            call=0,
            size=2.0,
            aggression=0.85,
            never_fold=True,
        ),
        HoldemStyle(
            "calling-station",
            "calls every bet, never raises pre-flop; bets two pair or better (pot), raises "
            "a straight or better",
            limp=-5,
            pre_call=-5,
            bet=3,
            raise_=5,
            call=0,
            size=1.0,
            never_fold=True,
        ),
        HoldemStyle(
            "barrel-bluffer",
            "opens Chen >= 8 (5 on the button); as the pre-flop raiser c-bets every flop, "
            "barrels 65% of turns and 45% of rivers; folds to a raise without top pair or "
            "a draw",
            open=8,
            late=3.0,
            reraise=12,
            pre_call=8,
            bet=2,
            raise_=4,
            call=2,
            draw_calls=True,
            barrel=(1.0, 0.65, 0.45),
            size=0.75,
        ),
        HoldemStyle(
            "check-raiser",
            "tight pre-flop (as tight-aggressive); after the flop checks every hand unless "
            "on the button and check-raises two pair or better (draws 35%)",
            open=9,
            reraise=12,
            pre_call=9,
            bet=2,
            raise_=3,
            call=2,
            draw_calls=True,
            check_raise=True,
            size=1.0,
        ),
        HoldemStyle(
            "short-stack-shover",
            "push or fold: all-in pre-flop with Chen >= 8 (5 on the button), >= 10 (TT+, AK) "
            "against a raise; after the flop all-in with top pair or better, else check or fold",
            open=8,
            late=3.0,
            reraise=10,
            pre_call=_NEVER,
            bet=2,
            raise_=2,
            call=_NEVER,
            shove=True,
            size=math.inf,
        ),
        HoldemStyle(
            "pot-odds-caller",
            "calls when its equity against the players still in beats the price, bets the "
            "pot above 65% equity, raises above 85%, never bluffs",
            size=1.0,
            pot_odds=True,
        ),
    )
}


class HoldemPanelBot:
    """A panel bot of Texas Hold'em: one :class:`HoldemStyle` (module docstring).

    The pot-odds caller's equity ``e``: pre-flop the pre-flop table's
    (:func:`~poker_env_agents.baselines.holdem.preflop_equity_table`), after the
    flop a Monte Carlo estimate over ``num_samples`` boards against random hands of
    the players still in (a stream per row seeded from its uniform); it raises when
    ``e >= 0.85``, bets the pot when ``e >= 0.65``, calls when ``e`` beats the price
    ``to call / (pot + to call)``, else folds (checks when free).

    Args:
        style: a name of :data:`HOLDEM_STYLES` or a :class:`HoldemStyle`.
        seed: a seed or Generator (one uniform per row).
        raise_fractions: the env's raise sizes.
        num_samples: the pot-odds caller's Monte Carlo boards.
    """

    def __init__(
        self,
        style: str | HoldemStyle,
        seed: int | np.random.Generator | None = None,
        *,
        raise_fractions: Sequence[float] = DEFAULT_RAISE_FRACTIONS,
        num_samples: int = 100,
    ) -> None:
        if isinstance(style, str):
            if style not in HOLDEM_STYLES:
                raise ValueError(
                    f"unknown Hold'em panel style {style!r}; one of {', '.join(HOLDEM_STYLES)}"
                )
            style = HOLDEM_STYLES[style]
        self.style = style
        self.name = style.name
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        fr = np.asarray(raise_fractions, np.float64)
        if fr.ndim != 1 or fr.size == 0 or not np.all(fr > 0):
            raise ValueError(
                f"raise_fractions must be a non-empty list of positive numbers, got {raise_fractions!r}"
            )
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
            raise ValueError(f"num_samples must be an integer >= 1, got {num_samples!r}")
        self.raise_fractions = tuple(float(f) for f in fr)
        self.num_samples = num_samples

    def act(self, observation: NDArray[np.floating], action_mask: NDArray[np.int8]) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        obs = np.asarray(observations, np.float64)
        masks = (np.asarray(action_masks) != 0).astype(np.int8)
        rows = obs.shape[0] if obs.ndim == 2 else -1
        k = len(self.raise_fractions)
        if masks.ndim != 2 or masks.shape[0] != rows:
            raise ValueError(
                f"action_masks must be (rows, actions) with {rows} rows, got shape {masks.shape}"
            )
        if masks.shape[1] != 4 + k:
            raise ValueError(
                f"action masks of width {masks.shape[1]} do not fit raise_fractions="
                f"{self.raise_fractions} ({4 + k} actions): give the bot the env's raise_fractions"
            )
        p = parse_observations(obs)
        u = np.asarray(self.rng.random(rows), np.float64)  # one uniform per row, used or not
        st = self.style
        n = p.num_seats
        facing = p.to_call > 0
        pre = p.street == 0
        lateness = ((p.position - 1) % n) / (n - 1)
        raises = p.raises
        size = np.full(rows, st.size)
        if st.pot_odds:
            raise_, bet, call = self._pot_odds(p, u, facing)
        else:
            chen = chen_score(p.hole)
            level = made_level(p.hole, p.board).astype(np.float64)
            drawing = draws(p.hole, p.board)
            unraised = raises == 0
            # Pre-flop.
            opens = chen >= st.open - st.late * lateness
            pre_raise = np.where(
                unraised, opens, chen >= st.reraise + 2 * np.maximum(raises - 1, 0)
            )
            pre_call = np.where(unraised, chen >= min(st.limp, st.pre_call), chen >= st.pre_call)
            # After the flop.
            post_bet = (level >= st.bet) | (st.draw_bets & drawing) | (u < st.bluff)
            post_raise = (level >= st.raise_ + np.maximum(raises - 1, 0)) | (
                st.draw_bets & drawing & (raises <= 1)
            )
            post_call = (level >= st.call) | (st.draw_calls & drawing)
            if st.check_raise:
                post_bet = (level >= st.bet) & (p.position == 0)
                post_raise |= drawing & (u < 0.35) & (raises <= 1)
            if any(st.barrel):
                post_bet |= self._barrel(obs, p, u)
            bet = np.where(pre, pre_raise, post_bet) & ~facing
            raise_ = np.where(pre, pre_raise, post_raise) & facing
            call = np.where(pre, pre_call, post_call) & facing
            if st.aggression > 0:
                wild = u < st.aggression
                bet |= ~facing & wild
                raise_ |= facing & wild
                size = np.where(wild & (u < st.aggression / 4), math.inf, size)
            if st.never_fold:
                call |= facing
        sized = self._size(masks, size, p.stack, p.to_call, p.pot)
        acts = np.where(facing & ~call & ~raise_, _FOLD, _CALL)
        acts = np.where((bet | raise_) & (sized >= 0), sized, acts).astype(np.int64)
        bad = masks[np.arange(rows), acts] == 0
        return np.where(bad, _CALL, acts).astype(np.int64)

    def _barrel(
        self, obs: NDArray[np.float64], p: HoldemView, u: NDArray[np.float64]
    ) -> NDArray[np.bool_]:
        """Rows where the pre-flop raiser fires this street's barrel."""
        n = p.num_seats
        pre_chips = obs[:, _OBS_BASE + 4 * n : _OBS_BASE + 5 * n]  # seat 0 is its own
        pre_raises = np.rint(obs[:, _OBS_BASE + 8 * n] * 10)
        raiser = (pre_raises >= 1) & (pre_chips[:, 0] >= pre_chips.max(axis=1) - 1e-12)
        chance = np.array([0.0, *self.style.barrel])[p.street]
        # The barrel decision draws on the same uniform as the bluff (a different
        # style never uses both).
        out: NDArray[np.bool_] = raiser & (p.street >= 1) & (u < chance)
        return out

    def _pot_odds(
        self, p: HoldemView, u: NDArray[np.float64], facing: NDArray[np.bool_]
    ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
        m = np.maximum(p.num_opponents, 1)
        e = np.zeros(p.hole.shape[0])
        pre = p.street == 0
        if pre.any():
            e[pre] = _preflop_equity(p.hole[pre], m[pre])
        post = ~pre
        if post.any():
            e[post] = holdem_equity_batch(
                p.hole[post],
                p.board[post],
                m[post],
                seeds=(u[post] * 2.0**53).astype(np.uint64),
                num_samples=self.num_samples,
            )
        price = p.to_call / np.maximum(p.pot + p.to_call, 1e-12)
        raise_ = facing & (e >= 0.85)
        bet = ~facing & (e >= 0.65)
        call = facing & (e > price)
        return raise_, bet, call

    def _size(
        self,
        masks: NDArray[np.int8],
        target: NDArray[np.float64],
        stack: NDArray[np.float64],
        to_call: NDArray[np.float64],
        pot: NDArray[np.float64],
    ) -> NDArray[np.int64]:
        """The legal raise index nearest the target pot fraction (log ratio; ``inf``:
        all-in, else the largest legal), -1 when no raise is legal."""
        k = len(self.raise_fractions)
        rows = masks.shape[0]
        frac = np.empty((rows, k + 2))
        frac[:, 0] = min(self.raise_fractions) / 4  # the min-raise: the smallest size
        frac[:, 1 : k + 1] = self.raise_fractions
        frac[:, k + 1] = np.maximum(stack - to_call, 1e-9) / np.maximum(pot + to_call, 1e-12)
        legal = masks[:, 2 : k + 4] != 0
        all_in = np.isinf(target)
        want = np.log(np.minimum(target, 1e9))
        cost = np.abs(np.log(frac) - want[:, None])
        cost[all_in, :] = -np.log(frac[all_in, :])  # largest first
        cost[all_in, k + 1] = -np.inf
        cost = np.where(legal, cost, np.inf)
        best = 2 + cost.argmin(axis=1)
        return np.where(legal.any(axis=1), best, -1).astype(np.int64)
