"""Local Best Response (LBR) for heads-up Hold'em: a lower bound on exploitability.

After Lisý & Bowling, "Equilibrium Approximation Quality of Current No-Limit Poker
Bots" (2017). LBR plays heads-up against a fixed target policy and at each of its
decisions:

1. keeps the target's **range**: a weight for each of the 1,326 hole-card pairs,
   zero for the pairs that hold one of LBR's cards or a board card, otherwise the
   product of the target's probabilities of the actions it took this hand, as that
   holding (Bayes' rule from a uniform deal). The probabilities come from the
   target's own policy on the target's real observation with only its hole-card
   entries changed, one row per holding, in one batched call (the numpy runtime for
   exported policies; see :func:`action_probabilities` for the others);
2. computes its **equity** against every holding in the range (ties count half):
   exact over every remaining board on the flop, turn and river, Monte Carlo over
   ``equity_samples`` boards before the flop (a compiled kernel over the evaluator);
3. values each legal action by its expected chips from now on, assuming the hand
   is then checked and called down to the showdown (the paper's assumption):

   - fold: 0;
   - check/call: ``2 F wp - (F - L)``, where ``L`` is what LBR has put in this hand,
     ``F`` its total once it has called, ``wp`` its equity against the range;
   - each raise the env offers (min-raise, the pot fractions, all-in): the target
     folds with probability ``fp`` (its fold probability over the range, asked of
     its policy in the state after the raise) and LBR takes the pot ``P``; else it
     calls and the hand is shown down against the calling range (the range
     re-weighted by each holding's probability of not folding), equity ``wp'``:
     ``fp P + (1 - fp) (2 F' wp' - (F' - L))`` with ``F'`` the raise's total, capped
     at what the target can match;

   and plays the best (the first of equal values: fold before call before the
   smaller raises).

The result is LBR's mean win in milli-big-blinds per hand (mbb/hand) with a 95%
interval over **duplicate deals**: each deck is played twice, LBR in either seat
(the button fixed, so LBR is the dealer and small blind in one, the big blind in
the other); the unit of the interval is the deal (its two hands together). Hands
the target ends before LBR acts (it folds its small blind) count as hands.

**All-in adjustment** (on by default): when a hand ends in a showdown decided by
an all-in before the river (no decision left to anyone), LBR's result is its
expectation over the cards still to come (both hands known to the referee): exact
over every remaining board from the flop on, over :data:`ADJUST_SAMPLES` random
boards after a pre-flop all-in. The mean is unchanged (the expectation of the
realised result given the cards seen; poker players call it "all-in EV") and the
variance much smaller.

What the figures compare with: the paper's games are heads-up no-limit with
blinds 50/100 and 20,000-chip stacks (200 big blinds), standard rules (the big
blind acts first after the flop). Here the blinds are E/2 and E (the same 1:2) and
the stacks ``starting_stack`` (default 100 big blinds), with this env's rule
profile (``rules="seed"``: the dealer acts first after the flop also heads-up) and
its raise sizes. Always-fold's 750 mbb/hand holds in both (it folds the small blind,
-500, and folds the big blind to any raise, -1,000), but deep stacks give LBR more
room: a figure measured here is comparable only with figures measured here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.episode import holdem as E
from poker_env.errors import ConfigError
from poker_env.evaluator import get_tables
from poker_env.evaluator.kernels import eval_key
from poker_env.evaluator.tables import EvalTables
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import HoldemConfig, get_holdem_tables
from poker_env.policy import BatchPolicy, RandomPolicy
from poker_env.rng import draw
from poker_env_agents.baselines.holdem import HoldemCallStation
from poker_env_agents.runtime import ACTIVATIONS, NumpyPolicy

__all__ = [
    "LBR_OPTIONS",
    "NUM_HOLDINGS",
    "PAIRS",
    "AlwaysFold",
    "LBRResult",
    "action_probabilities",
    "holding_equities",
    "lbr_action_values",
    "local_best_response",
]

Z95 = 1.959963984540054
NUM_HOLDINGS = 1326  # C(52, 2) hole-card pairs
#: Every hole-card pair ``(a, b)``, ``a < b``, in lexicographic order.
PAIRS: NDArray[np.int64] = np.array(
    [(a, b) for a in range(52) for b in range(a + 1, 52)], dtype=np.int64
)
PAIRS.setflags(write=False)
_PAIR_BITS = (np.uint64(1) << PAIRS[:, 0].astype(np.uint64)) | (
    np.uint64(1) << PAIRS[:, 1].astype(np.uint64)
)
_FOLD, _CALL = 0, 1
#: Share of a sampled action distribution spread uniformly over the legal actions
#: (see :func:`action_probabilities`).
SAMPLED_FLOOR = 0.01
#: Completions of the board enumerated exactly when there are at most this many
#: (the flop's 1,081 turn-river pairs); more (pre-flop) are sampled.
EXACT_LIMIT = 1_100
#: Boards sampled by the all-in adjustment of a pre-flop all-in (every board from the
#: flop on): a standard error of at most 0.0035 in the equity, against a hand's
#: +-1 pot.
ADJUST_SAMPLES = 20_000
_ROW_CHUNK = 16_384  # rows per policy call (black-box targets)

#: The env options LBR plays with (those of ``Holdem-v0`` that shape a heads-up game).
LBR_OPTIONS: dict[str, Any] = {
    "num_players": 2,
    "raise_fractions": E.DEFAULT_FRACTIONS,
    "rules": "seed",
    "base": 2,
    "starting_stack": None,
    "max_bet": None,
    "evaluator_features": False,
    "equity_samples": 200,
}


class AlwaysFold:
    """Folds whenever folding is legal (facing a bet), else checks: LBR's reference
    target (the paper's "always fold", which loses 750 mbb/hand to any best response)."""

    def act(self, observation: object, action_mask: NDArray[np.int8]) -> int:
        return int(self.act_batch(None, np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: object, action_masks: NDArray[np.int8]) -> NDArray[np.int64]:
        masks = np.asarray(action_masks)
        if masks.ndim != 2 or masks.shape[1] < 2:
            raise ValueError(f"action_masks must be (rows, actions >= 2), got shape {masks.shape}")
        return np.where(masks[:, _FOLD] != 0, _FOLD, _CALL).astype(np.int64)

    def action_probabilities(
        self, observations: object, action_masks: NDArray[np.int8]
    ) -> NDArray[np.float64]:
        """One-hot rows of :meth:`act_batch`'s action (it is deterministic)."""
        return _one_hot(self.act_batch(observations, action_masks), np.asarray(action_masks))


def _one_hot(actions: NDArray[np.int64], masks: NDArray[Any]) -> NDArray[np.float64]:
    out = np.zeros(masks.shape, np.float64)
    out[np.arange(actions.shape[0]), actions] = 1.0
    return out


def action_probabilities(
    policy: BatchPolicy,
    observations: NDArray[np.floating],
    action_masks: NDArray[Any],
    *,
    samples: int = 4,
) -> NDArray[np.float64]:
    """The policy's probability of each action on each row, shape ``(rows, actions)``.

    - a policy with an ``action_probabilities(observations, masks)`` method: its answer;
    - an exported policy (:class:`~poker_env_agents.runtime.NumpyPolicy`): the masked argmax as a
      one-hot row when it plays deterministically, else its sampling distribution
      (:meth:`~poker_env_agents.runtime.NumpyPolicy.probabilities`);
    - :class:`~poker_env.policy.RandomPolicy`: uniform over the legal actions;
    - :class:`~poker_env_agents.baselines.holdem.HoldemCallStation`: check/call;
    - any other ``BatchPolicy``: estimated from ``samples`` draws of ``act_batch`` per
      row, with :data:`SAMPLED_FLOOR` of the mass spread over the legal actions (so
      one unlucky draw does not take the true holding out of a range).
    """
    obs = np.asarray(observations)
    masks = np.asarray(action_masks) != 0
    rows = masks.shape[0]
    own = getattr(policy, "action_probabilities", None)
    if callable(own):
        return np.asarray(own(obs, masks.astype(np.int8)), dtype=np.float64)
    if isinstance(policy, NumpyPolicy):
        if policy.deterministic:
            z = policy.logits(obs)
            # act_batch's choice: the first index of the largest legal logit.
            best = np.argmax(np.where(masks, z, -np.inf), axis=1).astype(np.int64)
            return _one_hot(best, masks)
        return policy.probabilities(obs, masks)
    if isinstance(policy, RandomPolicy):
        uniform: NDArray[np.float64] = masks / masks.sum(axis=1, keepdims=True)
        return uniform
    if isinstance(policy, HoldemCallStation):
        return _one_hot(np.full(rows, _CALL, np.int64), masks)
    acts = np.asarray(
        policy.act_batch(np.tile(obs, (samples, 1)), np.tile(masks.astype(np.int8), (samples, 1))),
        dtype=np.int64,
    ).reshape(samples, rows)
    counts = np.zeros(masks.shape, np.float64)
    for s in range(samples):
        counts[np.arange(rows), acts[s]] += 1.0
    uniform = masks / masks.sum(axis=1, keepdims=True)
    out: NDArray[np.float64] = (1 - SAMPLED_FLOOR) * counts / samples + SAMPLED_FLOOR * uniform
    return out


# ----- equity of one hand against every holding ---------------------------------------


@njit(cache=True)
def _holding_equities(
    holes: NDArray[np.int64],
    boards: NDArray[np.int64],
    live: NDArray[np.bool_],
    pairs: NDArray[np.int64],
    num_samples: int,
    exact_limit: int,
    seeds: NDArray[np.uint64],
    tables: EvalTables,
    out: NDArray[np.float64],
) -> None:
    """``out[t, h]``: row ``t``'s share of a heads-up pot against holding ``h`` (where
    ``live[t, h]``), over every completion of the board when there are at most
    ``exact_limit``, else over ``num_samples`` random ones (holdings that share a card
    with a sampled completion skip it)."""
    keys = tables.card_keys
    masks = tables.card_masks
    num_pairs = pairs.shape[0]
    hkey = np.empty(num_pairs, dtype=np.uint64)
    hmask = np.empty(num_pairs, dtype=np.uint64)
    for h in range(num_pairs):
        hkey[h] = keys[pairs[h, 0]] + keys[pairs[h, 1]]
        hmask[h] = masks[pairs[h, 0]] | masks[pairs[h, 1]]
    win = np.empty(num_pairs)
    cnt = np.empty(num_pairs)
    which = np.empty(num_pairs, dtype=np.int64)  # the row's live holdings
    rest = np.empty(52, dtype=np.int64)
    seen = np.empty(52, dtype=np.bool_)
    idx = np.empty(5, dtype=np.int64)
    for t in range(holes.shape[0]):
        for c in range(52):
            seen[c] = False
        seen[holes[t, 0]] = True
        seen[holes[t, 1]] = True
        bkey = np.uint64(0)
        bmask = np.uint64(0)
        nb = 0
        for j in range(5):
            c = boards[t, j]
            if c >= 0:
                seen[c] = True
                bkey += keys[c]
                bmask |= masks[c]
                nb += 1
        n_rest = 0
        for c in range(52):
            if not seen[c]:
                rest[n_rest] = c
                n_rest += 1
        m = 5 - nb
        own_key = keys[holes[t, 0]] + keys[holes[t, 1]]
        own_mask = masks[holes[t, 0]] | masks[holes[t, 1]]
        num_live = 0
        for h in range(num_pairs):
            win[h] = 0.0
            cnt[h] = 0.0
            if live[t, h]:
                which[num_live] = h
                num_live += 1
        total = 1.0
        for j in range(m):
            total = total * (n_rest - j) / (j + 1)
        exact = total <= exact_limit
        draws = np.int64(total + 0.5) if exact else num_samples
        for j in range(m):
            idx[j] = j
        x = seeds[t]
        for _ in range(draws):
            if not exact:
                x = draw(rest, n_rest, m, x)  # rest[:m]: a uniform draw (SplitMix64)
            ckey = np.uint64(0)
            cmask = np.uint64(0)
            for j in range(m):
                c = rest[idx[j]] if exact else rest[j]
                ckey += keys[c]
                cmask |= masks[c]
            fkey = bkey + ckey
            fmask = bmask | cmask
            mine = eval_key(fkey + own_key, fmask | own_mask, tables)
            for k in range(num_live):
                h = which[k]
                if (hmask[h] & cmask) == 0:
                    v = eval_key(fkey + hkey[h], fmask | hmask[h], tables)
                    win[h] += 1.0 if mine > v else (0.5 if mine == v else 0.0)
                    cnt[h] += 1.0
            if exact:
                # The next combination of m indices out of n_rest (lexicographic).
                i = m - 1
                while i >= 0 and idx[i] == n_rest - m + i:
                    i -= 1
                if i >= 0:
                    idx[i] += 1
                    for j in range(i + 1, m):
                        idx[j] = idx[j - 1] + 1
        for h in range(num_pairs):
            out[t, h] = win[h] / cnt[h] if cnt[h] > 0 else 0.0


def holding_equities(
    holes: NDArray[np.integer],
    boards: NDArray[np.integer],
    live: NDArray[np.bool_],
    *,
    seeds: NDArray[np.integer],
    num_samples: int = 600,
    exact_limit: int = EXACT_LIMIT,
) -> NDArray[np.float64]:
    """Each row's equity against each holding of :data:`PAIRS`, shape ``(rows, 1326)``.

    Args:
        holes: ``(rows, 2)`` the hand's hole cards.
        boards: ``(rows, 5)`` the board, -1 for cards not dealt (0, 3, 4 or 5 dealt).
        live: ``(rows, 1326)`` the holdings to compute (the others give 0); they must
            share no card with the row's hand or board.
        seeds: ``(rows,)`` the Monte Carlo streams (from a seeded Generator).
        num_samples: boards sampled when there are more than ``exact_limit`` completions.
        exact_limit: enumerate every completion up to this many (1,081 on the flop).
    """
    holes = np.ascontiguousarray(holes, dtype=np.int64)
    boards = np.ascontiguousarray(boards, dtype=np.int64)
    live = np.ascontiguousarray(live, dtype=np.bool_)
    rows = holes.shape[0]
    if holes.shape != (rows, 2) or boards.shape != (rows, 5) or live.shape != (rows, NUM_HOLDINGS):
        raise ValueError(
            f"holes (rows, 2), boards (rows, 5), live (rows, {NUM_HOLDINGS}); got "
            f"{holes.shape}, {boards.shape}, {live.shape}"
        )
    out = np.zeros((rows, NUM_HOLDINGS), np.float64)
    if rows:
        _holding_equities(
            holes,
            boards,
            live,
            PAIRS,
            int(num_samples),
            int(exact_limit),
            np.asarray(seeds).astype(np.uint64),
            get_tables("standard"),
            out,
        )
    return out


# ----- the local value of each action -------------------------------------------------


def lbr_action_values(
    *,
    legal: NDArray[np.bool_],
    put_in: int,
    target_put_in: int,
    stack: int,
    target_stack: int,
    raise_totals: Mapping[int, int],
    equity: float,
    fold_probability: Mapping[int, float],
    calling_equity: Mapping[int, float],
) -> NDArray[np.float64]:
    """LBR's expected chips from now on for each action (-inf where not considered).

    Args:
        legal: the action mask (fold, check/call, raises).
        put_in, target_put_in: chips each has put in this hand (L and T).
        stack, target_stack: chips each has behind.
        raise_totals: raise index -> LBR's total put in after that raise.
        equity: LBR's equity against the target's range (wp).
        fold_probability: raise index -> the target's fold probability over the range.
        calling_equity: raise index -> LBR's equity against the calling range.

    Fold is 0, check/call ``2 F wp - (F - L)`` with ``F = min(T, L + stack)``, a raise
    ``fp (L + T) + (1 - fp) (2 F' wp' - (F' - L))`` with ``F'`` the raise's total
    capped at ``T + target_stack`` (what the target can match).
    """
    values = np.full(legal.shape[0], -np.inf)
    if legal[_FOLD]:
        values[_FOLD] = 0.0
    f = min(target_put_in, put_in + stack)
    values[_CALL] = 2 * f * equity - (f - put_in)
    for a, total in raise_totals.items():
        fa = min(total, target_put_in + target_stack)
        fp = fold_probability[a]
        shown = 2 * fa * calling_equity[a] - (fa - put_in)
        values[a] = fp * (put_in + target_put_in) + (1 - fp) * shown
    return values


# ----- the match -------------------------------------------------------------------------


@dataclass(frozen=True)
class LBRResult:
    """LBR's result against one target.

    ``mean``, ``ci_low``, ``ci_high`` are LBR's win in mbb/hand (a 95% interval over
    deals); ``seat_means`` the mean as (dealer and small blind, big blind); ``hands``
    the hands played (two per deal); ``actions`` how often LBR took each action.
    """

    target: str
    mean: float
    ci_low: float
    ci_high: float
    hands: int
    deals: int
    seat_means: tuple[float, float]
    actions: dict[str, int]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2

    def __str__(self) -> str:
        return (
            f"LBR vs {self.target}: {self.mean:+,.1f} ± {self.half_width:,.1f} mbb/hand "
            f"({self.hands:,} hands, {self.deals:,} duplicate deals; as SB "
            f"{self.seat_means[0]:+,.1f}, as BB {self.seat_means[1]:+,.1f})"
        )

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON types."""
        return {
            "target": self.target,
            "mean_mbb": self.mean,
            "ci_low_mbb": self.ci_low,
            "ci_high_mbb": self.ci_high,
            "hands": self.hands,
            "deals": self.deals,
            "seat_means_mbb": list(self.seat_means),
            "actions": dict(self.actions),
            "settings": dict(self.settings),
        }


def _lbr_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    opts = dict(LBR_OPTIONS)
    for k, v in (options or {}).items():
        if k not in LBR_OPTIONS:
            raise ConfigError("LBR option", k, f"one of {sorted(LBR_OPTIONS)}")
        opts[k] = v
    if opts["num_players"] != 2:
        raise ConfigError("num_players", opts["num_players"], "2 (LBR is heads-up)")
    return opts


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ConfigError(name, value, "an integer >= 1")
    return int(value)


class _Match:
    """One round of duplicate deals: table ``2j`` has LBR in seat 0 (the dealer), table
    ``2j + 1`` in seat 1; both deal deck ``j``."""

    def __init__(self, lbr: _LBR, decks: Sequence[NDArray[np.int64]]) -> None:
        self.lbr = lbr
        n = 2 * len(decks)
        self.states = np.stack([lbr.config.new_state() for _ in range(n)])
        self.me = np.tile(np.array([0, 1], np.int64), len(decks))
        self.net = np.zeros(n)
        self.ranges = np.ones((n, NUM_HOLDINGS))
        self.adjust: list[tuple[int, int]] = []  # (table, board cards when all-in)
        for i in range(n):
            s = self.states[i]
            K.new_table(s, 2, s[K.BASE], s[K.MAX_BET], s[K.RULES], s[K.PENALTY_TO])
            for q in range(2):
                s[K.STATUS + q] = K.SEATED
                s[K.STACK + q] = lbr.config.stack
            code = K.start_hand(s, decks[i // 2], 0, lbr.tables)
            if code != K.OK:  # pragma: no cover - two seated players with chips
                raise RuntimeError(f"start_hand refused: code {code}")
            if s[K.PHASE] == K.PHASE_OVER:  # pragma: no cover - stacks > the big blind
                self._finish(i, 5)

    def hole(self, i: int, seat: int) -> NDArray[np.int64]:
        cards: NDArray[np.int64] = self.states[i, K.HOLE + 2 * seat : K.HOLE + 2 * seat + 2].copy()
        return cards

    def board(self, i: int) -> NDArray[np.int64]:
        s = self.states[i]
        b = np.full(5, -1, np.int64)
        nb = int(s[K.NUM_BOARD])
        b[:nb] = s[K.BOARD : K.BOARD + nb]
        return b

    def live(self, i: int) -> NDArray[np.bool_]:
        """The holdings the target may hold (range weight > 0, no card LBR sees)."""
        known = np.uint64(0)
        for c in (*self.hole(i, int(self.me[i])).tolist(), *self.board(i).tolist()):
            if c >= 0:
                known |= np.uint64(1) << np.uint64(c)
        ok = (_PAIR_BITS & known) == 0
        self.ranges[i, ~ok] = 0.0
        live: NDArray[np.bool_] = self.ranges[i] > 0
        if not live.any():  # pragma: no cover - the true holding keeps weight > 0
            self.ranges[i, ok] = 1.0
            live = ok
        return live

    def play(self) -> None:
        s = self.states
        while True:
            betting = s[:, K.PHASE] == K.PHASE_BETTING
            if not betting.any():
                break
            to_act = s[:, K.TO_ACT]
            target_turn = np.flatnonzero(betting & (to_act != self.me))
            lbr_turn = np.flatnonzero(betting & (to_act == self.me))
            if target_turn.size:
                self._target_turn(target_turn)
            if lbr_turn.size:
                self._lbr_turn(lbr_turn)
        if self.adjust:
            self._adjust()

    def _apply(self, i: int, action: int) -> None:
        s = self.states[i]
        board_before = int(s[K.NUM_BOARD])
        if E.apply_index(s, int(action), self.lbr.fractions, self.lbr.tables) == E.ILLEGAL:
            mask = self.lbr.mask(s)
            who = "LBR" if s[K.TO_ACT] == self.me[i] else "the target"
            raise ValueError(
                f"{who} played action {int(action)}, not legal at this Hold'em decision "
                f"(legal: {np.flatnonzero(mask).tolist()}; street {int(s[K.STREET])})"
            )
        if s[K.PHASE] == K.PHASE_OVER:
            self._finish(i, board_before)

    def _finish(self, i: int, board_before: int) -> None:
        s = self.states[i]
        me = int(self.me[i])
        self.net[i] = float(s[K.STACK + me] - s[K.START_STACK + me])
        shown = all(s[K.STATUS + q] in (K.ACTIVE, K.ALLIN) for q in range(2))
        if self.lbr.all_in_adjust and shown and board_before < 5:
            self.adjust.append((i, board_before))

    def _adjust(self) -> None:
        """All-in hands: LBR's result over every board the remaining cards could make."""
        n = len(self.adjust)
        holes = np.empty((n, 2), np.int64)
        boards = np.full((n, 5), -1, np.int64)
        live = np.zeros((n, NUM_HOLDINGS), np.bool_)
        for r, (i, nb) in enumerate(self.adjust):
            me = int(self.me[i])
            holes[r] = self.hole(i, me)
            boards[r, :nb] = self.board(i)[:nb]
            other = np.sort(self.hole(i, 1 - me))
            live[r, _pair_index(int(other[0]), int(other[1]))] = True
        eq = holding_equities(
            holes,
            boards,
            live,
            seeds=self.lbr.rng.integers(0, 2**63, n, dtype=np.uint64),
            num_samples=ADJUST_SAMPLES,
        ).max(axis=1)
        for r, (i, _) in enumerate(self.adjust):
            s = self.states[i]
            matched = float(min(s[K.COMMIT], s[K.COMMIT + 1]))
            self.net[i] = 2 * matched * eq[r] - matched

    # ----- the target's decisions ------------------------------------------------------
    def _target_turn(self, tables: NDArray[np.intp]) -> None:
        lbr = self.lbr
        obs = np.zeros((tables.size, lbr.width), np.float32)
        masks = np.zeros((tables.size, lbr.num_actions), np.int8)
        blocks = []
        for r, i in enumerate(tables.tolist()):
            s = self.states[i]
            seat = 1 - int(self.me[i])
            lbr.observe(s, seat, obs[r])
            masks[r] = lbr.mask(s)
            blocks.append(lbr.block(s, seat, obs[r], masks[r], self.live(i)))
        actions = np.asarray(lbr.target.act_batch(obs, masks), np.int64).reshape(tables.size)
        probs = lbr.probabilities(blocks)
        for r, i in enumerate(tables.tolist()):
            # Bayes: each holding weighted by its probability of the action taken.
            live = self.live(i)
            self.ranges[i, live] *= probs[r][:, actions[r]]
            total = self.ranges[i].sum()
            if total > 0:
                self.ranges[i] /= total
            self._apply(i, int(actions[r]))

    # ----- LBR's decisions ----------------------------------------------------------------
    def _lbr_turn(self, tables: NDArray[np.intp]) -> None:
        lbr = self.lbr
        n = tables.size
        holes = np.empty((n, 2), np.int64)
        boards = np.empty((n, 5), np.int64)
        live = np.zeros((n, NUM_HOLDINGS), np.bool_)
        for r, i in enumerate(tables.tolist()):
            holes[r] = self.hole(i, int(self.me[i]))
            boards[r] = self.board(i)
            live[r] = self.live(i)
        q = holding_equities(
            holes,
            boards,
            live,
            seeds=lbr.rng.integers(0, 2**63, n, dtype=np.uint64),
            num_samples=lbr.equity_samples,
        )
        # The hypothetical states after each raise: the target's view of each.
        pending: list[tuple[int, int]] = []
        blocks: list[_Block] = []
        totals: list[dict[int, int]] = []
        masks = []
        for r, i in enumerate(tables.tolist()):
            s = self.states[i]
            me = int(self.me[i])
            mask = lbr.mask(s)
            masks.append(mask)
            raises: dict[int, int] = {}
            if lbr.preflop_raises or s[K.STREET] > 0:
                for a in np.flatnonzero(mask[2:]).tolist():
                    s2 = s.copy()
                    E.apply_index(s2, a + 2, lbr.fractions, lbr.tables)
                    raises[a + 2] = int(s2[K.COMMIT + me])
                    if s2[K.PHASE] == K.PHASE_BETTING and s2[K.TO_ACT] == 1 - me:
                        view = np.zeros(lbr.width, np.float32)
                        lbr.observe(s2, 1 - me, view)
                        pending.append((r, a + 2))
                        blocks.append(lbr.block(s2, 1 - me, view, lbr.mask(s2), live[r]))
            totals.append(raises)
        probs = lbr.probabilities(blocks)
        fold: list[dict[int, float]] = [{} for _ in range(n)]
        calling: list[dict[int, float]] = [{} for _ in range(n)]
        weights = [self.ranges[i, live[r]] for r, i in enumerate(tables.tolist())]
        equities = [q[r, live[r]] for r in range(n)]
        wp = [float(w @ e / w.sum()) for w, e in zip(weights, equities, strict=True)]
        for (r, a), p in zip(pending, probs, strict=True):
            w = weights[r]
            pf = p[:, _FOLD]
            fold[r][a] = float(w @ pf / w.sum())
            stay = w * (1.0 - pf)
            calling[r][a] = float(stay @ equities[r] / stay.sum()) if stay.sum() > 0 else wp[r]
        for r, i in enumerate(tables.tolist()):
            s = self.states[i]
            me = int(self.me[i])
            for a in totals[r]:
                # A raise the target cannot answer (not its turn after it) is shown down.
                fold[r].setdefault(a, 0.0)
                calling[r].setdefault(a, wp[r])
            values = lbr_action_values(
                legal=masks[r] != 0,
                put_in=int(s[K.COMMIT + me]),
                target_put_in=int(s[K.COMMIT + 1 - me]),
                stack=int(s[K.STACK + me]),
                target_stack=int(s[K.STACK + 1 - me]),
                raise_totals=totals[r],
                equity=wp[r],
                fold_probability=fold[r],
                calling_equity=calling[r],
            )
            action = int(np.argmax(values))
            lbr.count(action)
            self._apply(i, action)


def _pair_index(a: int, b: int) -> int:
    """Index in :data:`PAIRS` of the pair ``a < b``."""
    a, b = int(a), int(b)
    return a * (103 - a) // 2 + (b - a - 1)


class _LBR:
    """What every round of a measurement shares: the target, the config, the counters."""

    def __init__(
        self,
        target: BatchPolicy,
        options: Mapping[str, Any],
        *,
        equity_samples: int,
        policy_samples: int,
        preflop_raises: bool,
        all_in_adjust: bool,
        rng: np.random.Generator,
    ) -> None:
        self.target = target
        self.config = HoldemConfig(
            num_seats=2,
            base=options["base"],
            starting_stack=options["starting_stack"],
            max_bet=options["max_bet"],
            rules=options["rules"],
        )
        if self.config.stack <= self.config.base:
            raise ConfigError(
                "starting_stack", options["starting_stack"], "more than the big blind"
            )
        fr = np.asarray(options["raise_fractions"], dtype=np.float64)
        if fr.ndim != 1 or not 0 < fr.size <= E.MAX_FRACTIONS or np.any(fr <= 0):
            raise ConfigError(
                "raise_fractions", options["raise_fractions"], "a non-empty list of pot fractions"
            )
        self.fractions = fr
        self.num_actions = E.num_actions(fr.size)
        self.features = bool(options["evaluator_features"])
        self.feature_samples = _positive_int("equity_samples", options["equity_samples"])
        self.width = E.obs_size(2, self.features)
        self.tables = get_holdem_tables()
        self.scale = float(self.config.stack)
        self.equity_samples = equity_samples
        self.policy_samples = policy_samples
        self.preflop_raises = preflop_raises
        self.all_in_adjust = all_in_adjust
        self.rng = rng
        self.actions = np.zeros(self.num_actions, np.int64)
        self._amounts = np.zeros(self.num_actions, np.int64)

    def count(self, action: int) -> None:
        self.actions[action] += 1

    def mask(self, s: NDArray[np.int64]) -> NDArray[np.int8]:
        mask = np.zeros(self.num_actions, np.int8)
        E.action_mask(s, self.fractions, mask, self._amounts)
        return mask

    def observe(self, s: NDArray[np.int64], seat: int, out: NDArray[np.float32]) -> None:
        E.encode(s, seat, self.scale, out)
        if self.features:
            seeds = self.rng.integers(0, 2**63, 1, dtype=np.uint64)
            E.features(s, seeds, 0, seat, self.feature_samples, self.tables, out)

    def block(
        self,
        s: NDArray[np.int64],
        seat: int,
        view: NDArray[np.float32],
        mask: NDArray[np.int8],
        live: NDArray[np.bool_],
    ) -> _Block:
        """``seat``'s observation ``view`` (of state ``s``) as each live holding sees it."""
        pairs = PAIRS[live]
        features = None
        if self.features:
            # The evaluator features depend on the hole cards: computed per holding.
            n = pairs.shape[0]
            states = np.repeat(s[None, :], n, axis=0)
            states[:, K.HOLE + 2 * seat] = pairs[:, 0]
            states[:, K.HOLE + 2 * seat + 1] = pairs[:, 1]
            rows = np.zeros((n, self.width), np.float32)
            seeds = self.rng.integers(0, 2**63, n, dtype=np.uint64)
            E.features_to_act(
                states, seeds, np.arange(n, dtype=np.int64), self.feature_samples, self.tables, rows
            )
            features = rows[:, E.obs_size(2) :]
        return _Block(view, pairs, mask.copy(), features)

    def probabilities(self, blocks: Sequence[_Block]) -> list[NDArray[np.float64]]:
        """The target's action probabilities for each block's holdings."""
        if not blocks:
            return []
        target = self.target
        if isinstance(target, _MASK_ONLY):
            # These ignore the observation: one row answers for every holding.
            return [
                np.repeat(action_probabilities(target, b.view[None], b.mask[None]), b.size, axis=0)
                for b in blocks
            ]
        if isinstance(target, NumpyPolicy) and target.features is None:
            # (A policy that computes features from its observation, poker_env_agents.features,
            # is asked row by row below: its first layer reads more than the rows.)
            return _network_probabilities(target, blocks)
        # Black boxes: the rows themselves, several blocks a call (up to _ROW_CHUNK rows).
        sizes = [b.size for b in blocks]
        out = np.empty((sum(sizes), self.num_actions))
        done = 0
        k = 0
        while k < len(blocks):
            group = [blocks[k]]
            k += 1
            while k < len(blocks) and sum(b.size for b in group) + blocks[k].size <= _ROW_CHUNK:
                group.append(blocks[k])
                k += 1
            rows = np.concatenate([b.rows() for b in group])
            masks = np.repeat(np.stack([b.mask for b in group]), [b.size for b in group], axis=0)
            out[done : done + rows.shape[0]] = action_probabilities(
                target, rows, masks, samples=self.policy_samples
            )
            done += rows.shape[0]
        return np.split(out, np.cumsum(sizes)[:-1])


@dataclass(frozen=True)
class _Block:
    """One observation as every holding of a range sees it: ``view`` with its hole-card
    entries set to each of ``pairs`` (and the evaluator ``features`` per holding)."""

    view: NDArray[np.float32]
    pairs: NDArray[np.int64]
    mask: NDArray[np.int8]
    features: NDArray[np.float32] | None

    @property
    def size(self) -> int:
        return int(self.pairs.shape[0])

    def rows(self, lo: int = 0, hi: int | None = None) -> NDArray[np.float32]:
        """The observations of holdings ``lo:hi``."""
        pairs = self.pairs[lo:hi]
        n = pairs.shape[0]
        rows = np.repeat(self.view[None, :], n, axis=0)
        rows[:, :52] = 0.0
        ar = np.arange(n)
        rows[ar, pairs[:, 0]] = 1.0
        rows[ar, pairs[:, 1]] = 1.0
        if self.features is not None:
            rows[:, E.obs_size(2) :] = self.features[lo:hi]
        return rows


#: Targets whose action probabilities depend on the action mask only.
_MASK_ONLY = (AlwaysFold, HoldemCallStation, RandomPolicy)


def _network_probabilities(
    policy: NumpyPolicy, blocks: Sequence[_Block]
) -> list[NDArray[np.float64]]:
    """An exported network's action probabilities for each block's holdings.

    Rows differ from their block's view in the hole-card entries (and the evaluator
    features) only, so the first layer's pre-activation is the view's, minus the
    weight rows of its own hole cards, plus those of each holding's: two row additions
    per holding instead of a product with the whole observation.
    """
    first = policy.layers[0]
    w = first.weight
    pre = []
    for b in blocks:
        view = b.view.astype(np.float32)
        own = np.flatnonzero(view[:52] > 0.5)
        base = view @ w + first.bias - w[own].sum(axis=0)
        p = base[None, :] + w[b.pairs[:, 0]] + w[b.pairs[:, 1]]
        if b.features is not None:
            cut = E.obs_size(2)
            p += (b.features - view[cut:]) @ w[cut:]
        pre.append(p)
    fn, _ = ACTIVATIONS[first.activation]
    x = fn(np.concatenate(pre).astype(np.float32), first.activation_params)
    for layer in policy.layers[1:]:
        x = layer(x)
    legal = np.repeat(np.stack([b.mask for b in blocks]) != 0, [b.size for b in blocks], axis=0)
    if policy.deterministic:
        # act_batch's choice: the first index of the largest legal logit.
        best = np.argmax(np.where(legal, x, -np.inf), axis=1).astype(np.int64)
        probs = _one_hot(best, legal)
    else:
        z = np.where(legal, x.astype(np.float64) / policy.temperature, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        probs = e / e.sum(axis=1, keepdims=True)
    return np.split(probs, np.cumsum([b.size for b in blocks])[:-1])


_ACTION_NAMES = ("fold", "check/call", "min-raise")


def _action_names(fractions: NDArray[np.float64]) -> list[str]:
    return [*_ACTION_NAMES, *(f"raise {f:g} pot" for f in fractions), "all-in"]


def local_best_response(
    target: BatchPolicy,
    *,
    hands: int = 2000,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    num_tables: int = 64,
    equity_samples: int = 600,
    policy_samples: int = 4,
    preflop_raises: bool = False,
    all_in_adjust: bool = True,
    name: str = "target",
) -> LBRResult:
    """LBR against ``target`` in heads-up Hold'em (see the module docstring).

    Args:
        target: the policy measured (any ``BatchPolicy`` for ``Holdem-v0`` heads-up
            observations; an exported policy is checked against the env first).
        hands: hands to play (rounded up to an even number: two per deal).
        seed: seeds the decks and LBR's Monte Carlo streams.
        options: ``Holdem-v0`` options (:data:`LBR_OPTIONS`; ``num_players`` must be 2).
        num_tables: deals in flight at once (each on two tables).
        equity_samples: pre-flop boards sampled for LBR's equity (later streets are exact).
        policy_samples: draws per row that estimate the action probabilities of a
            target that does not give them (:func:`action_probabilities`).
        preflop_raises: let LBR raise before the flop too. By default it only folds or
            calls there (the published runs restricted it so, as we recall them): the
            greedy local value of a pre-flop raise undervalues seeing the flop, and
            with pre-flop raises LBR won less from the call station and random play
            and the same from the equity bot (docs/agents.md).
        all_in_adjust: score all-in hands by their expectation (module docstring).
        name: how the target is named in the result.
    """
    opts = _lbr_options(options)
    hands = _positive_int("hands", hands)
    num_tables = _positive_int("num_tables", num_tables)
    equity_samples = _positive_int("equity_samples", equity_samples)
    policy_samples = _positive_int("policy_samples", policy_samples)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError("seed", seed, "an integer >= 0")
    if isinstance(target, NumpyPolicy):
        from poker_env_agents.registry import get_game

        env = get_game("holdem").make_env(
            {"num_players": 2},
            raise_fractions=opts["raise_fractions"],
            evaluator_features=opts["evaluator_features"],
        )
        target.check_env(env)
    rng = np.random.default_rng(seed)
    lbr = _LBR(
        target,
        opts,
        equity_samples=equity_samples,
        policy_samples=policy_samples,
        preflop_raises=bool(preflop_raises),
        all_in_adjust=bool(all_in_adjust),
        rng=rng,
    )
    deals = math.ceil(hands / 2)
    per_deal: list[NDArray[np.float64]] = []
    done = 0
    while done < deals:
        d = min(num_tables, deals - done)
        decks = [rng.permutation(52).astype(np.int64) for _ in range(d)]
        match = _Match(lbr, decks)
        match.play()
        per_deal.append(match.net.reshape(d, 2))
        done += d
    chips = np.concatenate(per_deal)  # (deals, 2): LBR as dealer/SB, as BB
    to_mbb = 1000.0 / lbr.config.base
    both = chips.mean(axis=1) * to_mbb
    mean = float(both.mean())
    half = Z95 * float(both.std(ddof=1)) / math.sqrt(deals) if deals > 1 else math.inf
    names = _action_names(lbr.fractions)
    return LBRResult(
        target=name,
        mean=mean,
        ci_low=mean - half,
        ci_high=mean + half,
        hands=2 * deals,
        deals=deals,
        seat_means=(float(chips[:, 0].mean() * to_mbb), float(chips[:, 1].mean() * to_mbb)),
        actions={names[k]: int(v) for k, v in enumerate(lbr.actions.tolist()) if v},
        settings={
            "options": {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()},
            "seed": int(seed),
            "equity_samples": equity_samples,
            "policy_samples": policy_samples,
            "preflop_raises": bool(preflop_raises),
            "all_in_adjust": bool(all_in_adjust),
        },
    )
