"""The held-out panel for five-card draw (RULES.md §1): rule bots of named styles.

For ``FiveCardDraw-v0`` (52 or 32 cards, either seat) and the human seat of
``DrawMatch-v0`` (the same observation; the bots never see a wardrobe). Written from
common draw-poker knowledge (pre-draw hand classes, the standard draw, pot odds), not
fitted to any policy; never trained on (see :mod:`poker_env_agents.baselines.panel`).

Every bot is a :class:`DrawPanelBot` with a :class:`DrawStyle`. It reads the
documented observation (own cards 0:5, phase 57, first to act 58, pot 59, chips to
call 64, raises this round 65, cards this seat drew 66) and the action mask (width
``2 + K + 33``). Per row, one uniform from its seeded Generator (used or not), so
``act`` is ``act_batch`` on one row.

**Hand classes** (:func:`pre_draw_class`, before the draw; 0..9): 9 a pat straight or
better, 8 trips, 7 two pair, 6 a pair of kings or aces, 5 jacks or queens, 4 four to a
flush or an open-ended straight draw (no pair), 3 a middle pair (77-TT; 32 cards:
99-TT), 2 a low pair, 1 ace or king high, 0 nothing. After the draw
(:func:`post_draw_class`): 9 a straight or better, 8 trips, 7 two pair, 6 a pair of
aces or kings, 5 jacks or queens, 3 a lower pair, 1 ace or king high, 0 nothing.

**The standard draw** (:func:`standard_discard`): a straight or better stands pat;
trips, two pair or a pair keep the paired cards; else four to a flush keeps the
four, an open-ended straight draw the four, else the highest card.

**Betting** (per round; ``bet_at``, ``raise_at``, ``call_at`` are classes): with
nothing to call, bet when the class is at least ``bet_at`` (or with probability
``bluff``), else check (never drop when checking is free); facing a bet, raise when
at least ``raise_at + raises so far``, call when at least ``call_at``, else drop.
Sizes are the pot fraction ``size`` (``inf``: all-in), the nearest legal one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import Deck, deck_size
from poker_env.evaluator import evaluate, hand_category
from poker_env.evaluator.equity_batch import draw_discard_equities
from poker_env_agents.baselines.draw import DEFAULT_POT_FRACTIONS

__all__ = [
    "DRAW_STYLES",
    "DrawPanelBot",
    "DrawStyle",
    "post_draw_class",
    "pre_draw_class",
    "standard_discard",
]

_O_CARDS, _O_PHASE, _O_FIRST, _O_POT, _O_TO_CALL, _O_RAISES, _O_DREW = 0, 57, 58, 59, 64, 65, 66
_OBS_SIZE = 124
_PRE_DRAW, _DRAW, _POST_DRAW, _BUY_BACK = 0, 1, 2, 4
_DROP, _PASSIVE = 0, 1
_NEVER = 99  # a class no hand reaches


def _ranks_suits(cards: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    return cards >> 2, cards & 3


def _rank_counts(ranks: NDArray[np.int64]) -> NDArray[np.int64]:
    counts = np.zeros((ranks.shape[0], 13), np.int64)
    np.add.at(counts, (np.arange(ranks.shape[0])[:, None], ranks), 1)
    return counts


def _categories(cards: NDArray[np.int64], deck: Deck) -> NDArray[np.int64]:
    return hand_category(evaluate(cards, deck=deck)).astype(np.int64)


def _draw_keep(cards: NDArray[np.int64], deck: Deck) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Per row: which slots a four-flush keeps (or none), which an open-ended straight
    draw keeps (or none)."""
    n = cards.shape[0]
    ranks, suits = _ranks_suits(cards)
    suit_counts = np.zeros((n, 4), np.int64)
    np.add.at(suit_counts, (np.arange(n)[:, None], suits), 1)
    flush_suit = suit_counts.argmax(axis=1)
    flush = (suits == flush_suit[:, None]) & (suit_counts.max(axis=1) == 4)[:, None]
    # Open-ended: four distinct consecutive ranks that a card on either end completes
    # (the ace counts low below the deck's lowest card, and a run topped by the ace is
    # one-ended, so not counted).
    low_ace = -1 if deck == "standard" else 4
    straight = np.zeros((n, 5), np.bool_)
    for drop in range(5):
        keep = [j for j in range(5) if j != drop]
        r = ranks[:, keep]
        for ace_low in (False, True):
            rr = np.where(ace_low & (r == 12), low_ace, r)
            srt = np.sort(rr, axis=1)
            distinct = (np.diff(srt, axis=1) == 1).all(axis=1)
            open_ended = distinct & (srt[:, 3] < 12) & (srt[:, 0] > low_ace)
            new = open_ended & ~straight.any(axis=1)
            straight[new] = True
            straight[new, drop] = False
    return flush, straight


def pre_draw_class(cards: NDArray[np.int64], deck: Deck = "standard") -> NDArray[np.int64]:
    """Each row's pre-draw hand class, 0..9 (the module docstring)."""
    cards = np.asarray(cards, np.int64)
    cat = _categories(cards, deck)
    ranks, _ = _ranks_suits(cards)
    counts = _rank_counts(ranks)
    pair_rank = np.where(counts >= 2, np.arange(13), -1).max(axis=1)
    flush, straight = _draw_keep(cards, deck)
    drawing = flush.any(axis=1) | straight.any(axis=1)
    middle = 5 if deck == "standard" else 7
    pair_class = np.select(
        [pair_rank >= 11, pair_rank >= 9, pair_rank >= middle], [6, 5, 3], default=2
    )
    high = np.where(ranks.max(axis=1) >= 11, 1, 0)
    return np.select(
        [cat >= 4, cat == 3, cat == 2, cat == 1, drawing],
        [9, 8, 7, pair_class, 4],
        default=high,
    ).astype(np.int64)


def post_draw_class(cards: NDArray[np.int64], deck: Deck = "standard") -> NDArray[np.int64]:
    """Each row's final hand class after the draw, 0..9 (the module docstring)."""
    cards = np.asarray(cards, np.int64)
    cat = _categories(cards, deck)
    ranks, _ = _ranks_suits(cards)
    counts = _rank_counts(ranks)
    pair_rank = np.where(counts >= 2, np.arange(13), -1).max(axis=1)
    pair_class = np.select([pair_rank >= 11, pair_rank >= 9], [6, 5], default=3)
    high = np.where(ranks.max(axis=1) >= 11, 1, 0)
    return np.select(
        [cat >= 4, cat == 3, cat == 2, cat == 1], [9, 8, 7, pair_class], default=high
    ).astype(np.int64)


def standard_discard(
    cards: NDArray[np.int64], deck: Deck = "standard", kicker: bool = False
) -> NDArray[np.int64]:
    """The standard draw's discard mask per row (bit i replaces slot i; the module
    docstring). ``kicker``: with one pair, also keep the highest other card."""
    cards = np.asarray(cards, np.int64)
    n = cards.shape[0]
    cat = _categories(cards, deck)
    ranks, _ = _ranks_suits(cards)
    counts = _rank_counts(ranks)
    paired = counts[np.arange(n)[:, None], ranks] >= 2
    flush, straight = _draw_keep(cards, deck)
    # Highest card (first slot on a tie), and with a pair its highest unpaired card.
    single_rank = np.where(paired, -1, ranks)
    top_single = (single_rank * 8 - np.arange(5)).argmax(axis=1)
    highest = np.zeros((n, 5), np.bool_)
    highest[np.arange(n), (ranks * 8 - np.arange(5)).argmax(axis=1)] = True
    keep: NDArray[np.bool_] = np.select(
        [
            cat[:, None] >= 4,
            cat[:, None] >= 1,
            flush.any(axis=1, keepdims=True),
            straight.any(axis=1, keepdims=True),
        ],
        [np.ones((n, 5), np.bool_), paired, flush, straight],
        default=highest,
    )
    if kicker:
        one_pair = cat == 1
        keep[one_pair, top_single[one_pair]] = True
    bits = (~keep).astype(np.int64) << np.arange(5)
    out: NDArray[np.int64] = bits.sum(axis=1)
    return out


@dataclass(frozen=True)
class DrawStyle:
    """A draw bot's style: its thresholds (hand classes) before and after the draw.

    ``bet``, ``raise_``, ``call``: per round (pre, post). ``bluff``: chance of a bet
    below ``bet`` with nothing to call. ``size``: pot fraction of bets and raises
    (``inf`` all-in). ``aggression``: chance of a bet or raise whatever the hand (the
    maniac). ``check_raise``: first to act, check every hand and raise the bet that
    follows. ``pat_bluff``: share of hands of class <= 1 played as a stand-pat bluff
    (bet, stand pat, bet again, drop to a raise after the draw). ``bully``: bet the
    pot whenever it may, drop to every bet. ``pot_odds``: decide by exact equity
    against a random hand and the price (see :class:`DrawPanelBot`). ``kicker``: keep
    a kicker with a pair.
    """

    name: str
    summary: str
    bet: tuple[int, int] = (_NEVER, _NEVER)
    raise_: tuple[int, int] = (_NEVER, _NEVER)
    call: tuple[int, int] = (0, 0)
    bluff: tuple[float, float] = (0.0, 0.0)
    size: float = 1.0
    aggression: float = 0.0
    check_raise: bool = False
    pat_bluff: float = 0.0
    bully: bool = False
    pot_odds: bool = False
    kicker: bool = False


#: The draw panel, by name.
DRAW_STYLES: dict[str, DrawStyle] = {
    s.name: s
    for s in (
        DrawStyle(
            "tight-passive",
            "plays jacks or better, bets only trips or better (half pot), calls jacks or better",
            bet=(9, 8),
            raise_=(_NEVER, 9),
            call=(5, 5),
            size=0.5,
        ),
        DrawStyle(
            "tight-aggressive",
            "bets jacks or better, raises two pair or better (pot), calls draws and jacks+; "
            "after the draw bets jacks+, calls a pair of jacks",
            bet=(5, 5),
            raise_=(7, 7),
            call=(4, 5),
            bluff=(0.05, 0.05),
            size=1.0,
        ),
        DrawStyle(
            "loose-aggressive",
            "bets any pair, raises jacks or better, calls ace high; bluffs 30% (pot)",
            bet=(2, 3),
            raise_=(5, 6),
            call=(1, 3),
            bluff=(0.3, 0.3),
            size=1.0,
        ),
        DrawStyle(
            "loose-passive",
            "calls with ace high or any pair, bets only two pair or better (half pot), "
            "keeps a kicker",
            bet=(9, 7),
            call=(1, 1),
            size=0.5,
            kicker=True,
        ),
        DrawStyle(
            "nit",
            "plays kings or better, bets two pair or better, calls only two pair after the draw",
            bet=(7, 7),
            raise_=(8, 8),
            call=(6, 7),
            size=1.0,
        ),
        DrawStyle(
            "maniac",
            "bets or raises 80% of the time whatever it holds (twice the pot), never drops",
            bet=(0, 0),
            raise_=(0, 0),
            call=(0, 0),
            size=2.0,
            aggression=0.8,
        ),
        DrawStyle(
            "calling-station",
            "never drops, never raises; bets two pair or better after the draw (pot)",
            bet=(_NEVER, 7),
            call=(0, 0),
            size=1.0,
        ),
        DrawStyle(
            "stand-pat-bluffer",
            "tight-aggressive, and 35% of its junk hands a stand-pat bluff: bets, stands pat, "
            "bets the pot again, drops to a raise",
            bet=(5, 5),
            raise_=(7, 7),
            call=(4, 5),
            size=1.0,
            pat_bluff=0.35,
        ),
        DrawStyle(
            "check-raiser",
            "first to act it checks every hand and raises a bet with jacks or better (two pair "
            "after the draw); checked to, it bets jacks or better",
            bet=(5, 5),
            raise_=(5, 7),
            call=(4, 5),
            size=1.0,
            check_raise=True,
        ),
        DrawStyle(
            "pot-odds-caller",
            "calls when its exact equity beats the price, bets the pot above 70% equity, "
            "raises above 90%, discards by equity",
            size=1.0,
            pot_odds=True,
        ),
        DrawStyle(
            "pot-bully",
            "bets the pot whenever it may, drops whenever it faces a bet, draws as a tight player",
            size=1.0,
            bully=True,
        ),
    )
}


def _hand_hash(cards: NDArray[np.int64]) -> NDArray[np.float64]:
    """A number in [0, 1) per row fixed by the set of cards held (order-free), so the
    decisions of one hand before and during the draw agree without memory."""
    code = np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1)
    x = code * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(29)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(32)
    out: NDArray[np.float64] = (x >> np.uint64(11)).astype(np.float64) / 2.0**53
    return out


class DrawPanelBot:
    """A panel bot of five-card draw: one :class:`DrawStyle` (module docstring).

    The pot-odds caller: equity ``e`` is the best draw equity before the draw and the
    pat equity after it (exact, against a random hand:
    :func:`~poker_env.evaluator.equity_batch.draw_discard_equities`); it bets the pot
    when ``e >= 0.7``, raises when ``e >= 0.9``, calls when ``e`` beats the price
    ``to call / (pot + to call)``, and discards by equity.

    Args:
        style: a name of :data:`DRAW_STYLES` or a :class:`DrawStyle`.
        seed: a seed or Generator (one uniform per row).
        deck: the env's deck (``"standard"``/52 or ``"short"``/32).
        pot_fractions: the env's bet sizes.
    """

    def __init__(
        self,
        style: str | DrawStyle,
        seed: int | np.random.Generator | None = None,
        *,
        deck: Deck | int = "standard",
        pot_fractions: Sequence[float] = DEFAULT_POT_FRACTIONS,
    ) -> None:
        if isinstance(style, str):
            if style not in DRAW_STYLES:
                raise ValueError(
                    f"unknown draw panel style {style!r}; one of {', '.join(DRAW_STYLES)}"
                )
            style = DRAW_STYLES[style]
        self.style = style
        self.name = style.name
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.deck: Deck = "standard" if deck_size(deck) == 52 else "short"
        fr = np.asarray(pot_fractions, np.float64)
        if fr.ndim != 1 or fr.size == 0 or not np.all(fr > 0):
            raise ValueError(
                f"pot_fractions must be a non-empty list of positive numbers, got {pot_fractions!r}"
            )
        self.pot_fractions = tuple(float(f) for f in fr)

    def act(self, observation: NDArray[np.floating], action_mask: NDArray[np.int8]) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        obs = np.asarray(observations, np.float64)
        masks = (np.asarray(action_masks) != 0).astype(np.int8)
        if obs.ndim != 2 or masks.ndim != 2 or obs.shape[0] != masks.shape[0]:
            raise ValueError(
                f"observations (rows, {_OBS_SIZE}) and action_masks (rows, actions) must "
                f"match, got shapes {obs.shape} and {masks.shape}"
            )
        if obs.shape[1] != _OBS_SIZE:
            raise ValueError(
                f"a five-card draw observation has {_OBS_SIZE} entries, got {obs.shape[1]}"
            )
        k = masks.shape[1] - 35
        if k != len(self.pot_fractions) + 1:
            raise ValueError(
                f"action masks of width {masks.shape[1]} do not fit pot_fractions="
                f"{self.pot_fractions}: give the bot the env's pot_fractions"
            )
        n = obs.shape[0]
        u = np.asarray(self.rng.random(n), np.float64)  # one uniform per row, used or not
        phase = obs[:, _O_PHASE].astype(np.int64)
        acts = np.full(n, _PASSIVE, np.int64)
        buy_back = 2 + k + 32
        acts[(phase == _BUY_BACK) & (masks[:, buy_back] != 0)] = buy_back
        cards = obs[:, _O_CARDS : _O_CARDS + 5].astype(np.int64)
        draw = np.flatnonzero(phase == _DRAW)
        if draw.size:
            acts[draw] = 2 + k + self._discard(cards[draw])
        for ph in (_PRE_DRAW, _POST_DRAW):
            rows = np.flatnonzero(phase == ph)
            if rows.size:
                acts[rows] = self._bet(obs[rows], masks[rows], cards[rows], u[rows], k, ph)
        return _legalize(acts, masks)

    # ----- the draw ----------------------------------------------------------------
    def _discard(self, cards: NDArray[np.int64]) -> NDArray[np.int64]:
        st = self.style
        if st.pot_odds:
            eq = draw_discard_equities(cards, deck=self.deck)
            best: NDArray[np.int64] = eq.argmax(axis=1).astype(np.int64)
            return best
        mask = standard_discard(cards, self.deck, kicker=st.kicker)
        if st.pat_bluff > 0:
            bluff = self._pat_bluff(cards)
            mask = np.where(bluff, 0, mask)
        return mask

    def _pat_bluff(self, cards: NDArray[np.int64]) -> NDArray[np.bool_]:
        junk = pre_draw_class(cards, self.deck) <= 1
        out: NDArray[np.bool_] = junk & (_hand_hash(cards) < self.style.pat_bluff)
        return out

    # ----- betting -----------------------------------------------------------------
    def _bet(
        self,
        obs: NDArray[np.float64],
        masks: NDArray[np.int8],
        cards: NDArray[np.int64],
        u: NDArray[np.float64],
        k: int,
        phase: int,
    ) -> NDArray[np.int64]:
        st = self.style
        post = phase == _POST_DRAW
        r = 1 if post else 0
        to_call = obs[:, _O_TO_CALL]
        pot = obs[:, _O_POT]
        raises = obs[:, _O_RAISES]
        facing = to_call > 0
        size = np.full(obs.shape[0], st.size)
        if st.bully:
            bet = ~facing
            raise_ = np.zeros_like(facing)
            call = np.zeros_like(facing)
        elif st.pot_odds:
            eq = draw_discard_equities(cards, deck=self.deck)
            e = eq[:, 0] if post else eq.max(axis=1)
            price = to_call / np.maximum(pot + to_call, 1.0)
            bet = ~facing & (e >= 0.7)
            raise_ = facing & (e >= 0.9)
            call = facing & (e > price)
        else:
            cls = post_draw_class(cards, self.deck) if post else pre_draw_class(cards, self.deck)
            bet = ~facing & ((cls >= st.bet[r]) | (u < st.bluff[r]))
            raise_ = facing & (cls >= st.raise_[r] + raises)
            call = facing & (cls >= st.call[r])
            if st.aggression > 0:
                wild = u < st.aggression
                bet |= ~facing & wild
                raise_ |= facing & wild
                # A maniac's big bets go all-in a quarter of the time.
                size = np.where(wild & (u < st.aggression / 4), math.inf, size)
            if st.check_raise:
                first = obs[:, _O_FIRST] > 0.5
                bet &= ~first
            if st.pat_bluff > 0:
                bluff = self._pat_bluff(cards)
                if post:
                    # A stand-pat bluff (it drew no card): bet the pot, drop to a raise.
                    stood = obs[:, _O_DREW] == 0
                    bluff &= stood
                    bet |= ~facing & bluff
                    raise_ &= ~bluff
                    call &= ~bluff
                else:
                    bet |= ~facing & bluff
                    raise_ |= facing & bluff & (raises == 0)
                    call |= facing & bluff
        sized = self._size(masks, size, k)
        out = np.full(obs.shape[0], _PASSIVE, np.int64)
        out = np.where(facing & ~call & ~raise_, _DROP, out)
        out = np.where((bet | raise_) & (sized >= 0), sized, out)
        return out

    def _size(
        self, masks: NDArray[np.int8], size: NDArray[np.float64], k: int
    ) -> NDArray[np.int64]:
        """The legal bet index nearest each row's pot fraction (log ratio; ``inf`` the
        all-in), -1 where none is legal."""
        fr = np.asarray(self.pot_fractions)
        legal = masks[:, 2 : 2 + k] != 0
        cost = np.empty((masks.shape[0], k))
        cost[:, : k - 1] = np.abs(np.log(fr)[None, :] - np.log(np.minimum(size, 1e9))[:, None])
        cost[:, k - 1] = np.where(np.isinf(size), -1.0, np.log(1e9))
        cost = np.where(legal, cost, np.inf)
        best = 2 + cost.argmin(axis=1)
        return np.where(legal.any(axis=1), best, -1).astype(np.int64)


def _legalize(actions: NDArray[np.int64], masks: NDArray[np.int8]) -> NDArray[np.int64]:
    """Masked-out choices become the passive action, else the first legal one."""
    rows = np.arange(actions.size)
    bad = masks[rows, actions] == 0
    if bad.any():
        fallback = np.where(masks[:, _PASSIVE] != 0, _PASSIVE, masks.argmax(axis=1))
        actions = np.where(bad, fallback, actions)
    return actions
