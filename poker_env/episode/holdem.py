"""Hold'em observations, discrete actions and the compiled episode driver.

Shared by :mod:`poker_env.envs.holdem`, :mod:`poker_env.multiagent.holdem` and
:mod:`poker_env.vector.holdem` (which never import each other). No gymnasium
here. Every function drives the rules of :mod:`poker_env.games.holdem_kernels`;
none holds a rule of its own.

Observation of seat ``me`` at a table of ``n`` seats, seats listed from ``me``
clockwise (index 0 is ``me``), chips in units of the starting stack:

=====================  ====================================================  ==========
slice                  meaning                                               range
=====================  ====================================================  ==========
``0:52``               own hole cards, one-hot by card index                 0..1
``52:104``             board cards dealt so far, one-hot                     0..1
``104:108``            street one-hot (preflop, flop, turn, river)           0..1
``108``                pot (all rounds, with penalties paid to it)           0..n
``109``                chips needed to call                                  0..n
``110:110+n``          stack of each seat                                    0..n
``110+n:110+2n``       bet of each seat this round                           0..n
``110+2n:110+3n``      seat's position after the button / (n - 1)            0..1
``110+3n:110+4n``      seat still in the hand (not folded, not left)         0..1
``110+4n:110+8n``      chips each seat put in on each street (street-major)  0..n
``110+8n:114+8n``      bets and raises on each street / 10, at most 1        0..1
``114+8n:123+8n``      (``evaluator_features``) hand category one-hot        0..1
``123+8n``             (``evaluator_features``) Monte Carlo equity           0..1
=====================  ====================================================  ==========

Discrete actions: ``0`` fold, ``1`` check/call, ``2`` min-raise, then one per
pot fraction (raise to current bet + fraction × (pot + call)), last all-in.
Sizes are clipped into the legal range; an index whose amount equals another
legal index's amount is masked out (the all-in index keeps the all-in amount).
The all-in index is shown only where the all-in raises: where the raising is
closed to the seat (RULES.md §3: a short all-in did not reopen it, or nobody left
could answer a raise) the engine's all-in is a call, which index 1 already is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from poker_env.bitgen import integers_below, permutation_into
from poker_env.episode.layout import ObsField, fields_from_widths
from poker_env.episode.options import check_illegal_action
from poker_env.episode.outputs import StepOutputs
from poker_env.errors import ConfigError, as_int
from poker_env.evaluator.equity_batch import sample_holdem_equity
from poker_env.evaluator.kernels import eval_key
from poker_env.evaluator.tables import EvalTables
from poker_env.games import holdem_kernels as K
from poker_env.games._bits import popcount
from poker_env.games.holdem import HoldemConfig
from poker_env.rng import GOLDEN

__all__ = [
    "AGENT_TURN",
    "DEFAULT_FRACTIONS",
    "EPISODE_DONE",
    "OPPONENT_TURN",
    "HoldemEnvConfig",
    "HoldemParams",
    "HoldemTables",
    "action_mask",
    "aec_act",
    "aec_close_hand",
    "aec_deal",
    "aec_new_table",
    "aec_observe_to_act",
    "aec_start",
    "apply_index",
    "encode",
    "holdem_params",
    "note_walk",
    "num_actions",
    "obs_size",
    "observation_fields",
    "play_observed",
    "reset_table",
    "resume_table",
    "step_table",
]

DEFAULT_FRACTIONS = (0.5, 0.75, 1.0, 2.0)
MAX_FRACTIONS = K.MAX_ACTIONS - 4

# Env fields of the state row (K.ENV_FIELDS..31).
AGENT = K.ENV_FIELDS
EP_DONE = K.ENV_FIELDS + 1
HANDS_LEFT = K.ENV_FIELDS + 2
HAND_SEEN = K.ENV_FIELDS + 3  # 1 while a decided hand has been reported (P_STOP_AT_HAND_END)
# Walks: episodes decided before the agent's first decision (dealt again, not in the
# rewards), counted since the env last read them (the env reads and clears them after
# every reset and step): how many, the agent's net chips in them, and in the first.
WALKS = K.ENV_FIELDS + 4
WALK_CHIPS = K.ENV_FIELDS + 5
FIRST_WALK_CHIPS = K.ENV_FIELDS + 6
# Config vector of the driver.
P_NUM_PLAYERS = 0
P_STACK = 1
P_HANDS = 2
P_SEAT = 3  # fixed agent seat, -1 random per episode
P_EXTERNAL = 4  # 1: opponents are Python policies (the driver stops at their turns)
P_STOP_AT_HAND_END = 5  # 1: the driver stops once at each decided hand (HAND_OVER)
NUM_PARAMS = 6

# Driver results.
AGENT_TURN = 0
OPPONENT_TURN = 1
EPISODE_DONE = 2
HAND_OVER = 3  # a hand is decided and not yet closed: its result can be read from the row
ILLEGAL = -1

OBS_BASE = 110
NUM_CATEGORIES = 9
_U = np.uintp  # unsigned array indices (no wraparound code)


class HoldemTables(NamedTuple):
    """The state of N Hold'em tables: row ``i`` of each array is table ``i``.

    Attributes:
        rows: int64 or int32 (N, K.STATE_SIZE): the table rows
            (:mod:`poker_env.games.holdem_kernels` names the fields; the env fields
            from ``K.ENV_FIELDS`` on: ``AGENT``, ``HANDS_LEFT``, the walks...).
        rngs: uint64 (N,): each table's SplitMix64 stream (:mod:`poker_env.rng`).
    """

    rows: np.ndarray
    rngs: np.ndarray


class HoldemParams(NamedTuple):
    """What every table of an env shares, built once from its options.

    Attributes:
        ints: int64 (NUM_PARAMS,): the driver's settings (``P_NUM_PLAYERS``,
            ``P_STACK``, ``P_HANDS``, ``P_SEAT``, ``P_EXTERNAL``, ``P_STOP_AT_HAND_END``).
        fractions: float64: the raise sizes, as pot fractions.
        escape_p: the chance that an opponent leaves at his turn (RULES.md §3 escape).
        tables: the evaluator's tables (:func:`poker_env.games.holdem.get_holdem_tables`).
    """

    ints: np.ndarray
    fractions: np.ndarray
    escape_p: float
    tables: EvalTables


def holdem_params(
    *,
    num_players: int,
    stack: int,
    hands_per_episode: int,
    seat: int | None,
    external: bool,
    stop_at_hand_end: bool,
    fractions: np.ndarray,
    escape_p: float,
    tables: EvalTables,
) -> HoldemParams:
    """The :class:`HoldemParams` of an env's (already checked) options."""
    ints = np.zeros(NUM_PARAMS, dtype=np.int64)
    ints[P_NUM_PLAYERS] = num_players
    ints[P_STACK] = stack
    ints[P_HANDS] = hands_per_episode
    ints[P_SEAT] = -1 if seat is None else seat
    ints[P_EXTERNAL] = int(external)
    ints[P_STOP_AT_HAND_END] = int(stop_at_hand_end)
    return HoldemParams(
        ints, np.ascontiguousarray(fractions, dtype=np.float64), float(escape_p), tables
    )


@dataclass(frozen=True, kw_only=True)
class HoldemEnvConfig:
    """The options the Hold'em single and batched envs take, checked once.

    Keyword-only and frozen; :meth:`__post_init__` validates every field and raises a
    :class:`~poker_env.errors.ConfigError` naming the field, the bad value and what
    is allowed. The envs build it from their keywords and take the compiled driver's
    parameter record from it (:meth:`params`).

    Attributes:
        num_players, base, starting_stack, max_bet, rules, penalty_to: the table
            (:class:`~poker_env.games.holdem.HoldemConfig`, as :attr:`table`).
        seat: the agent's seat, or None: drawn per episode.
        hands_per_episode: hands in an episode.
        raise_fractions: the raise sizes, as pot fractions (:attr:`fractions`).
        escape_prob: the chance an opponent leaves at his turn (RULES.md §3 escape).
        evaluator_features, equity_samples: the optional hand category and equity.
        illegal_action: ``"passive"`` or ``"raise"`` (:mod:`poker_env.episode.options`).

    >>> HoldemEnvConfig(num_players=6).params(external=False, stop_at_hand_end=False, tables=None).ints.tolist()
    [6, 200, 1, -1, 0, 0]
    >>> HoldemEnvConfig(hands_per_episode=0)
    Traceback (most recent call last):
    ...
    poker_env.errors.ConfigError: bad config: hands_per_episode=0; allowed: an int >= 1
    """

    num_players: int = 2
    seat: int | None = None
    hands_per_episode: int = 1
    raise_fractions: Sequence[float] = DEFAULT_FRACTIONS
    escape_prob: float = 0.0
    rules: str = "seed"
    base: int = 2
    starting_stack: int | None = None
    max_bet: int | None = None
    penalty_to: str = "burn"
    evaluator_features: bool = False
    equity_samples: int = 200
    illegal_action: str = "passive"

    # Set by __post_init__ from the fields (not fields themselves).
    table: HoldemConfig = field(init=False, repr=False, compare=False)
    fractions: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = as_int(self.num_players)
        if n is None or not 2 <= n <= K.MAX_SEATS:
            # Named as the env calls it (HoldemConfig would say num_seats).
            raise ConfigError("num_players", self.num_players, f"an int from 2 to {K.MAX_SEATS}")
        table = HoldemConfig(
            num_seats=self.num_players,
            base=self.base,
            starting_stack=self.starting_stack,
            max_bet=self.max_bet,
            rules=self.rules,  # type: ignore[arg-type]
            penalty_to=self.penalty_to,  # type: ignore[arg-type]
        )
        if table.stack <= self.base:
            # Stacks all-in from the blinds would never give anyone a decision.
            raise ConfigError(
                "starting_stack", self.starting_stack, f"more than the big blind ({self.base})"
            )
        n = self.num_players
        seat = self.seat
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ConfigError("seat", seat, f"None or 0..{n - 1}")
        if not isinstance(self.hands_per_episode, int) or self.hands_per_episode < 1:
            raise ConfigError("hands_per_episode", self.hands_per_episode, "an int >= 1")
        fr = np.asarray(self.raise_fractions, dtype=np.float64)
        if fr.ndim != 1 or not 0 < fr.size <= MAX_FRACTIONS or np.any(fr <= 0):
            raise ConfigError(
                "raise_fractions",
                self.raise_fractions,
                "a non-empty sequence of positive pot fractions",
            )
        if not 0.0 <= self.escape_prob <= 1.0:
            raise ConfigError("escape_prob", self.escape_prob, "a probability in [0, 1]")
        check_illegal_action(self.illegal_action)
        if not isinstance(self.equity_samples, int) or self.equity_samples < 1:
            raise ConfigError("equity_samples", self.equity_samples, "an int >= 1")
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "fractions", fr)

    def params(self, *, external: bool, stop_at_hand_end: bool, tables: EvalTables) -> HoldemParams:
        """The compiled driver's :class:`HoldemParams` (``external``: Python policies
        play the other seats; ``stop_at_hand_end``: the driver stops at each decided
        hand, for the single env's hand results)."""
        return holdem_params(
            num_players=self.num_players,
            stack=self.table.stack,
            hands_per_episode=self.hands_per_episode,
            seat=self.seat,
            external=external,
            stop_at_hand_end=stop_at_hand_end,
            fractions=self.fractions,
            escape_p=float(self.escape_prob),
            tables=tables,
        )


def obs_size(n: int, evaluator_features: bool = False) -> int:
    """Length of the observation vector at a table of ``n`` seats."""
    return OBS_BASE + 8 * n + 4 + (NUM_CATEGORIES + 1 if evaluator_features else 0)


def observation_fields(n: int, evaluator_features: bool = False) -> tuple[ObsField, ...]:
    """The observation layout at a table of ``n`` seats (HoldemEnv's docstring table)."""
    widths = [
        ("hole_cards", 52),
        ("board", 52),
        ("street", 4),
        ("pot", 1),
        ("to_call", 1),
        ("stacks", n),
        ("bets", n),
        ("positions", n),
        ("in_hand", n),
        ("street_chips", 4 * n),
        ("street_raises", 4),
    ]
    if evaluator_features:
        widths += [("hand_category", NUM_CATEGORIES), ("equity", 1)]
    return fields_from_widths(widths)


def num_actions(num_fractions: int) -> int:
    """Size of the discrete action space: fold, call, min-raise, fractions, all-in."""
    return 4 + num_fractions


@njit(cache=True, _nrt=False)
def encode(s: np.ndarray, me: int, scale: float, out: np.ndarray) -> None:
    """Write seat ``me``'s observation (public state plus its own hole cards) into ``out``."""
    # Indices are unsigned (``_U``): numba then skips its negative-index wraparound
    # on every access, which took a third of this function's time.
    n = s[K.NUM_SEATS]
    inv = 1.0 / scale
    # Only the one-hot blocks are cleared; every other entry is written below.
    for i in range(108):
        out[_U(i)] = 0.0
    c0 = s[_U(K.HOLE + 2 * me)]
    if c0 >= 0:
        out[_U(c0)] = 1.0
        out[_U(s[_U(K.HOLE + 2 * me + 1)])] = 1.0
    for j in range(s[K.NUM_BOARD]):
        out[_U(52 + s[_U(K.BOARD + j)])] = 1.0
    out[_U(104 + s[K.STREET])] = 1.0
    betting = s[K.PHASE] == K.PHASE_BETTING
    pot = K.pot_total(s) if betting else s[K.POT_EXTRA]
    call = max(0, min(s[K.CUR_BET] - s[_U(K.BET + me)], s[_U(K.STACK + me)])) if betting else 0
    out[109] = call * inv
    out[108] = pot * inv
    button = s[K.BUTTON]
    # The seat loop has no branch: what would decide one is folded into a factor
    # (0 for the bets between hands, 0 for positions before the first button).
    bet_inv = inv if betting else 0.0
    inv_pos = 1.0 / (n - 1) if n > 1 and button >= 0 else 0.0
    un = _U(n)
    for i in range(n):
        q = K.clockwise(me, i, n)
        uq = _U(q)
        o = _U(OBS_BASE + i)
        out[o] = s[_U(K.STACK) + uq] * inv
        out[o + un] = s[_U(K.BET) + uq] * bet_inv
        d = q - button
        out[o + _U(2) * un] = (d + n if d < 0 else d) * inv_pos
        # ACTIVE or ALLIN (consecutive codes): still in the hand.
        in_hand = _U(s[_U(K.STATUS) + uq] - K.ACTIVE) <= _U(K.ALLIN - K.ACTIVE)
        out[o + _U(3) * un] = in_hand * 1.0
        for street in range(4):
            out[o + _U(4 + street) * un] = s[_U(K.STREET_PUT + street * K.MAX_SEATS) + uq] * inv
    for street in range(4):
        # (× 0.1 rounds to the same float32 as / 10 for 0..10)
        out[_U(OBS_BASE + 8 * n + street)] = min(s[K.STREET_RAISES + street], 10) * 0.1


@njit(cache=True, _nrt=False, inline="always")
def action_mask(s: np.ndarray, fractions: np.ndarray, mask: np.ndarray, amounts: np.ndarray) -> int:
    """Legal discrete actions of the seat to act, and the raise-to amount of each.

    Returns the number of legal actions (0 when no seat is to act). ``amounts`` is
    0 for fold and check/call; for the other indices it is set where ``mask`` is 1
    (elsewhere it is left unspecified). The legal indices are also listed, in
    order, in the row's scratch ``s[K.SCR_CHOSEN :]`` (so that a random pick needs
    no pass over the mask).
    """
    na = fractions.shape[0] + 4
    lg = s[K.SCR_LEGAL : K.SCR_LEGAL + K.LEGAL_SIZE]
    K.legal(s, lg)
    if lg[K.L_SEAT] < 0:
        for i in range(na):
            mask[i] = 0
        return 0
    # Every mask entry is written once below (no clearing pass first).
    amounts[0] = 0
    amounts[1] = 0
    # Counted as the mask is built: reading the mask back right after these byte
    # stores would stall the CPU (a store-to-load forward that fails). Each legal
    # index is listed at s[SCR_CHOSEN + count] without a branch: written there, kept
    # by counting it.
    chosen = _U(K.SCR_CHOSEN)
    can_fold = lg[K.L_CAN_FOLD]
    mask[0] = can_fold
    s[chosen] = 0
    count = can_fold
    mask[1] = 1
    s[chosen + _U(count)] = 1
    count += 1
    allin_to = lg[K.L_ALLIN_TO]
    all_in = na - 1
    cur = s[K.CUR_BET]
    # An all-in that is only a call stays on index 1: a stack at or below the call,
    # or raising closed (RULES.md §3: K.legal then gives the call total, cur).
    allin_shown = lg[K.L_CAN_ALLIN] == 1 and allin_to > cur
    if lg[K.L_CAN_RAISE] == 1:
        lo = lg[K.L_MIN_TO]
        hi = lg[K.L_MAX_TO]
        base_pot = float(K.pot_total(s) + lg[K.L_CALL])
        # An index is shown unless its amount is the all-in's or that of an index
        # shown before it. With pot fractions in ascending order (the default) the
        # amounts never decrease, so the only earlier amount it can equal is the
        # largest shown; other orders take the full comparison.
        top = -1  # the largest amount shown so far
        for i in range(2, all_in):
            ui = _U(i)
            to = lo
            if i > 2:
                to = max(lo, min(hi, cur + np.int64(fractions[ui - _U(3)] * base_pot)))
            amounts[ui] = to
            dup = to == top
            if to < top:
                for j in range(2, i):
                    uj = _U(j)
                    dup |= (mask[uj] == 1) & (amounts[uj] == to)
            dup |= (to == allin_to) & allin_shown
            shown = not dup
            mask[ui] = shown
            top = to if shown and to > top else top
            s[chosen + _U(count)] = i
            count += shown
    else:
        for i in range(2, all_in):
            mask[i] = 0
    mask[all_in] = allin_shown
    amounts[all_in] = allin_to
    s[chosen + _U(count)] = all_in
    count += allin_shown
    return int(count)


@njit(cache=True, _nrt=False)
def apply_index(s: np.ndarray, idx: int, fractions: np.ndarray, tables: EvalTables) -> int:
    """Play discrete action ``idx`` for the seat to act; ``ILLEGAL`` if masked (nothing changes)."""
    na = fractions.shape[0] + 4
    mask = s[K.SCR_MASK : K.SCR_MASK + na]
    amounts = s[K.SCR_AMOUNTS : K.SCR_AMOUNTS + na]
    action_mask(s, fractions, mask, amounts)
    if idx < 0 or idx >= na or mask[idx] == 0:
        return ILLEGAL
    # Legal by the mask just computed (from K.legal, whose output is still in the
    # row's scratch): no second legality query.
    return int(_play_masked(s, idx, na, amounts[idx], tables, False))


@njit(cache=True, _nrt=False, inline="always")
def _play_masked(
    s: np.ndarray, idx: int, na: int, amount: int, tables: EvalTables, check: bool
) -> int:
    # idx is known legal (from a mask just computed); with check, the kernel checks it again.
    kind = K.RAISE_TO
    if idx == 0:
        kind = K.FOLD
    elif idx == 1:
        kind = K.CHECK_CALL
    elif idx == na - 1:
        kind = K.ALL_IN
    if check:
        return int(K.act(s, kind, amount, tables))
    return int(K.act_legal(s, kind, amount, tables))


@njit(cache=True, _nrt=False, inline="always")
def _start_next_hand(
    s: np.ndarray, rng: np.ndarray, i: int, changed: bool, tables: EvalTables
) -> None:
    deck = s[K.DECK : K.DECK + 52]  # shuffled in place; start_hand keeps it there
    button = K.next_button(s, changed, K.rng_below(rng, i, 1 << 30))
    # Only the cards a hand can deal are drawn: two per seat and the board.
    K.rng_deal(rng, i, deck, 2 * s[K.NUM_SEATS] + 5)
    K.start_hand_dealt(s, button, tables)


@njit(cache=True, _nrt=False, inline="always")
def _new_episode(s: np.ndarray, rngs: np.ndarray, i: int, pr: HoldemParams) -> None:
    params = pr.ints
    n = params[P_NUM_PLAYERS]
    K.new_table(s, n, s[K.BASE], s[K.MAX_BET], s[K.RULES], s[K.PENALTY_TO])
    for q in range(n):
        s[K.STATUS + q] = K.SEATED
        s[K.STACK + q] = params[P_STACK]
    seat = params[P_SEAT]
    s[AGENT] = seat if seat >= 0 else K.rng_below(rngs, i, n)
    s[HANDS_LEFT] = params[P_HANDS]
    s[EP_DONE] = 0
    _start_next_hand(s, rngs, i, True, pr.tables)


@njit(cache=True, _nrt=False)
def resume_table(s: np.ndarray, rngs: np.ndarray, i: int, pr: HoldemParams) -> tuple[int, float]:
    """Play table row ``s`` (stream ``rngs[i]``) on until the agent must act, an
    external opponent must act, or the episode ends.

    Returns the result code and the agent's reward (chips won or lost in big
    blinds) of the hands finished meanwhile.
    """
    params, fractions, escape_p, tables = pr.ints, pr.fractions, pr.escape_p, pr.tables
    agent = s[AGENT]
    reward = 0.0
    na = fractions.shape[0] + 4
    mask = s[K.SCR_MASK : K.SCR_MASK + na]
    amounts = s[K.SCR_AMOUNTS : K.SCR_AMOUNTS + na]
    while True:
        if s[K.PHASE] == K.PHASE_OVER:
            if params[P_STOP_AT_HAND_END] == 1 and s[HAND_SEEN] == 0:
                # The single env reads the hand's result (folds, shown hands, payouts)
                # before finish_hand clears it; the next call goes on from here.
                s[HAND_SEEN] = 1
                return HAND_OVER, reward
            s[HAND_SEEN] = 0
            reward += (s[K.STACK + agent] - s[K.START_STACK + agent]) / s[K.BASE]
            s[HANDS_LEFT] -= 1
            # RULES.md §3 between hands: leavers and busted players are gone.
            changed = K.finish_hand(s, True)
            players = popcount(K.seats_with_chips(s))
            if s[HANDS_LEFT] <= 0 or s[K.STATUS + agent] != K.SEATED or players < 2:
                s[EP_DONE] = 1
                return EPISODE_DONE, reward
            _start_next_hand(s, rngs, i, changed, tables)
            continue
        p = s[K.TO_ACT]
        if p == agent:
            return AGENT_TURN, reward
        if escape_p > 0.0 and K.rng_uniform(rngs, i) < escape_p:
            K.leave(s, p, tables)  # RULES.md §3 escape, so agents meet it
            continue
        if params[P_EXTERNAL] == 1:
            return OPPONENT_TURN, reward
        cnt = action_mask(s, fractions, mask, amounts)
        # The k-th legal index, from the list action_mask made.
        pick = s[_U(K.SCR_CHOSEN) + _U(K.rng_below(rngs, i, cnt))]
        # The mask was just computed by K.legal: no second legality query.
        _play_masked(s, pick, na, amounts[_U(pick)], tables, False)


@njit(cache=True, _nrt=False)
def reset_table(s: np.ndarray, rngs: np.ndarray, i: int, pr: HoldemParams) -> int:
    """Start an episode at table row ``s`` (stream ``rngs[i]``) and play on to the
    agent's first decision (or an external opponent's).

    An episode decided before the agent ever acts (a walk) is dealt again; the walks
    are counted in the row's ``WALKS``, ``WALK_CHIPS`` and ``FIRST_WALK_CHIPS`` (kept
    across the new episodes until the env reads and clears them).
    """
    walks, chips, first = s[WALKS], s[WALK_CHIPS], s[FIRST_WALK_CHIPS]
    while True:
        _new_episode(s, rngs, i, pr)  # clears the env fields
        s[WALKS], s[WALK_CHIPS], s[FIRST_WALK_CHIPS] = walks, chips, first
        code, r = resume_table(s, rngs, i, pr)
        if code != EPISODE_DONE:
            return int(code)
        note_walk(s, r)
        walks, chips, first = s[WALKS], s[WALK_CHIPS], s[FIRST_WALK_CHIPS]


@njit(cache=True, _nrt=False, inline="always")
def note_walk(s: np.ndarray, reward: float) -> None:
    """Count a walk of ``reward`` big blinds (the agent's net) in the row's walk fields."""
    chips = round(reward * s[K.BASE])
    if s[WALKS] == 0:
        s[FIRST_WALK_CHIPS] = chips
    s[WALKS] += 1
    s[WALK_CHIPS] += chips


@njit(cache=True, _nrt=False)
def step_table(
    s: np.ndarray, rngs: np.ndarray, i: int, action: int, pr: HoldemParams
) -> tuple[int, float]:
    """Apply the agent's discrete ``action`` and play on (see :func:`resume_table`)."""
    if apply_index(s, action, pr.fractions, pr.tables) != K.OK:
        return ILLEGAL, 0.0
    code, reward = resume_table(s, rngs, i, pr)
    return code, reward


@njit(cache=True, _nrt=False, inline="always")
def observe_agent(
    s: np.ndarray, fractions: np.ndarray, scale: float, obs: np.ndarray, mask: np.ndarray
) -> None:
    """The agent seat's observation and action mask."""
    encode(s, s[AGENT], scale, obs)
    amounts = s[K.SCR_AMOUNTS : K.SCR_AMOUNTS + mask.shape[0]]
    if s[K.TO_ACT] == s[AGENT] and s[K.PHASE] == K.PHASE_BETTING:
        action_mask(s, fractions, mask, amounts)
    else:
        for j in range(mask.shape[0]):
            mask[j] = 0


@njit(cache=True, _nrt=False)
def batch_reset(st: HoldemTables, pr: HoldemParams, obs: np.ndarray, masks: np.ndarray) -> None:
    """Start an episode on every table (random opponents) and observe the agents."""
    scale = float(pr.ints[P_STACK])
    states = st.rows
    for i in range(states.shape[0]):
        reset_table(states[i], st.rngs, i, pr)
        observe_agent(states[i], pr.fractions, scale, obs[i], masks[i])


@njit(cache=True, _nrt=False, inline="always")
def _final_observation(s: np.ndarray, pr: HoldemParams, final_obs: np.ndarray) -> None:
    # The agent's last observation of an episode that just ended.
    encode(s, s[AGENT], float(pr.ints[P_STACK]), final_obs)
    if final_obs.shape[0] > OBS_BASE + 8 * s[K.NUM_SEATS] + 4:
        # evaluator features of the final observation (no equity: the hand is over)
        category_features(s, s[AGENT], pr.tables, final_obs)


@njit(cache=True, _nrt=False, inline="always")
def play_observed(
    s: np.ndarray, rngs: np.ndarray, i: int, a: int, mask: np.ndarray, pr: HoldemParams
) -> tuple[int, float]:
    """The agent's action ``a`` played by the ``mask`` of its last observation, then
    the play on (see :func:`resume_table`); ``ILLEGAL`` (nothing changes) if masked.

    ``mask`` is this row's mask from :func:`observe_agent` at the end of the previous
    step or reset, and the row's scratch still holds the legality query and the
    amount of every index from that call (nothing ran on the row since): the action
    is played without computing them again (:func:`step_table` computes them).
    """
    na = mask.shape[0]
    if a < 0 or a >= na or mask[a] != 1:
        return ILLEGAL, 0.0
    _play_masked(s, a, na, s[K.SCR_AMOUNTS + a], pr.tables, False)
    code, reward = resume_table(s, rngs, i, pr)
    return code, reward


@njit(cache=True, _nrt=False, inline="always")
def step_row(i: int, a: int, st: HoldemTables, pr: HoldemParams, out: StepOutputs) -> None:
    """Table ``i`` of a batch step (:mod:`poker_env.vector.batch`): the agent's action
    ``a``, random opponents, same-step autoreset. ``out.masks[i]`` must be the mask of
    the last observation; a masked-out ``a`` steps nothing (the env checks first).
    """
    s = st.rows[i]
    masks = out.masks
    code, r = play_observed(s, st.rngs, i, a, masks[i], pr)
    if code == ILLEGAL:
        return
    out.rewards[i] = r
    done = code == EPISODE_DONE
    out.terms[i] = done
    if done:
        _final_observation(s, pr, out.final_obs[i])
        reset_table(s, st.rngs, i, pr)
    else:
        # final_obs is a fresh buffer each step: rows of tables still playing are zeros.
        for j in range(out.final_obs.shape[1]):
            out.final_obs[i, j] = 0.0
    observe_agent(s, pr.fractions, float(pr.ints[P_STACK]), out.obs[i], masks[i])


# ---------------------------------------------------------------- external opponents
# When the other seats are played by a Python (batched) policy, the driver stops
# at each opponent decision (OPPONENT_TURN); these kernels carry the batch on. A
# table's code is in ``codes`` and ``resetting`` marks the tables whose episode
# ended in this step (their next episode's first agent decision is still to come).


@njit(cache=True, _nrt=False)
def _after_agent_step(
    st: HoldemTables,
    i: int,
    code: int,
    reward: float,
    pr: HoldemParams,
    out: StepOutputs,
    codes: np.ndarray,
    resetting: np.ndarray,
) -> None:
    s = st.rows[i]
    if resetting[i]:
        # Hands played before the next episode's first agent decision are not in the
        # rewards: a walk, counted in the row's walk fields, and dealt again.
        if code == EPISODE_DONE:
            note_walk(s, reward)
            code = reset_table(s, st.rngs, i, pr)
    else:
        out.rewards[i] += reward
        if code == EPISODE_DONE:
            out.terms[i] = True
            _final_observation(s, pr, out.final_obs[i])
            code = reset_table(s, st.rngs, i, pr)
            resetting[i] = True
    codes[i] = code


@njit(cache=True, _nrt=False)
def batch_step_external(
    st: HoldemTables,
    pr: HoldemParams,
    actions: np.ndarray,
    out: StepOutputs,
    codes: np.ndarray,
    resetting: np.ndarray,
) -> None:
    """Apply every agent's action; stop each table at the next decision (same-step autoreset)."""
    for i in range(st.rows.shape[0]):
        resetting[i] = False
        out.rewards[i] = 0.0
        out.terms[i] = False
        code, r = step_table(st.rows[i], st.rngs, i, actions[i], pr)
        _after_agent_step(st, i, code, r, pr, out, codes, resetting)


@njit(cache=True, _nrt=False)
def batch_reset_external(
    st: HoldemTables, pr: HoldemParams, codes: np.ndarray, resetting: np.ndarray
) -> None:
    """Start an episode on every table, stopping at the first decision of anyone."""
    for i in range(st.rows.shape[0]):
        codes[i] = reset_table(st.rows[i], st.rngs, i, pr)
        resetting[i] = True


@njit(cache=True, _nrt=False)
def observe_to_act(
    states: np.ndarray,
    idx: np.ndarray,
    fractions: np.ndarray,
    scale: float,
    obs: np.ndarray,
    masks: np.ndarray,
) -> None:
    """Observation and mask of the seat to act at tables ``idx`` (rows 0..len(idx)-1)."""
    for k in range(idx.shape[0]):
        s = states[idx[k]]
        encode(s, s[K.TO_ACT], scale, obs[k])
        action_mask(s, fractions, masks[k], s[K.SCR_AMOUNTS : K.SCR_AMOUNTS + masks.shape[1]])


@njit(cache=True, _nrt=False)
def batch_opponent_step(
    st: HoldemTables,
    pr: HoldemParams,
    idx: np.ndarray,
    actions: np.ndarray,
    out: StepOutputs,
    codes: np.ndarray,
    resetting: np.ndarray,
) -> int:
    """Apply the opponents' actions at tables ``idx`` and play on; -1 or the first illegal row."""
    for k in range(idx.shape[0]):
        i = idx[k]
        s = st.rows[i]
        if apply_index(s, actions[k], pr.fractions, pr.tables) != K.OK:
            return k
        code, r = resume_table(s, st.rngs, i, pr)
        _after_agent_step(st, i, code, r, pr, out, codes, resetting)
    return -1


@njit(cache=True, _nrt=False)
def batch_observe(
    states: np.ndarray, fractions: np.ndarray, scale: float, obs: np.ndarray, masks: np.ndarray
) -> None:
    """Every agent's observation and mask."""
    for i in range(states.shape[0]):
        observe_agent(states[i], fractions, scale, obs[i], masks[i])


# ---------------------------------------------------------------- evaluator features
# Optional observation entries (``evaluator_features=True``): the category of the
# seat's best hand now and a Monte Carlo equity against random hands of the
# players still in. The samples come from a stream derived from the table's own
# (without advancing it), so the game is the same with or without the features
# and a single env and a batch compute the same numbers.


@njit(cache=True, _nrt=False)
def category_features(s: np.ndarray, me: int, tables: EvalTables, out: np.ndarray) -> None:
    """``out[base : base + 10]`` (``base = obs_size(n)``): the category of seat ``me``'s
    best hand of its hole cards and the board dealt, one-hot (zeros before the flop),
    then 0 in the equity entry."""
    base = OBS_BASE + 8 * s[K.NUM_SEATS] + 4
    for j in range(NUM_CATEGORIES + 1):
        out[base + j] = 0.0
    nb = s[K.NUM_BOARD]
    c0 = s[K.HOLE + 2 * me]
    if nb < 3 or c0 < 0:
        return
    c1 = s[K.HOLE + 2 * me + 1]
    keys = tables.card_keys
    masks = tables.card_masks
    key = keys[c0] + keys[c1]
    mask = masks[c0] | masks[c1]
    for j in range(nb):
        c = s[K.BOARD + j]
        key += keys[c]
        mask |= masks[c]
    out[base + ((eval_key(key, mask, tables) >> 12) & 0xF)] = 1.0


@njit(cache=True)
def monte_carlo_equity(
    s: np.ndarray, rngs: np.ndarray, i: int, me: int, samples: int, tables: EvalTables
) -> float:
    """Seat ``me``'s share of the pot against random hands of the other players still
    in, over ``samples`` random completions of the board (ties split); 0 when the
    hand is not being bet or nobody else is in."""
    if s[K.PHASE] != K.PHASE_BETTING:
        return 0.0
    n = s[K.NUM_SEATS]
    opponents = 0
    for q in range(n):
        st = s[K.STATUS + q]
        if q != me and (st == K.ACTIVE or st == K.ALLIN):
            opponents += 1
    c0 = s[K.HOLE + 2 * me]
    if opponents == 0 or c0 < 0:
        return 0.0
    c1 = s[K.HOLE + 2 * me + 1]
    nb = s[K.NUM_BOARD]
    # The table's stream value mixed with where the hand is: never advanced here.
    x = rngs[i] ^ np.uint64(0xD1B54A32D192ED03)
    x ^= np.uint64(s[K.COMMITTED] * 1000003 + nb * 101 + me + 1) * GOLDEN
    board = s[K.BOARD : K.BOARD + nb]
    equity: float = sample_holdem_equity(c0, c1, board, opponents, x, samples, tables)
    return equity


@njit(cache=True)
def features(
    s: np.ndarray,
    rngs: np.ndarray,
    i: int,
    me: int,
    samples: int,
    tables: EvalTables,
    out: np.ndarray,
) -> None:
    """Both evaluator features of seat ``me`` at table row ``s`` (stream ``rngs[i]``)
    into ``out[obs_size(n) :]``: the category one-hot, then the equity."""
    category_features(s, me, tables, out)
    out[OBS_BASE + 8 * s[K.NUM_SEATS] + 4 + NUM_CATEGORIES] = monte_carlo_equity(
        s, rngs, i, me, samples, tables
    )


@njit(cache=True)
def batch_features(
    states: np.ndarray, rngs: np.ndarray, samples: int, tables: EvalTables, obs: np.ndarray
) -> None:
    """The evaluator features of every table's agent."""
    for i in range(states.shape[0]):
        features(states[i], rngs, i, states[i][AGENT], samples, tables, obs[i])


@njit(cache=True)
def features_to_act(
    states: np.ndarray,
    rngs: np.ndarray,
    idx: np.ndarray,
    samples: int,
    tables: EvalTables,
    obs: np.ndarray,
) -> None:
    """The evaluator features of the seat to act at tables ``idx`` (rows 0..len(idx)-1)."""
    for k in range(idx.shape[0]):
        i = idx[k]
        features(states[i], rngs, i, states[i][K.TO_ACT], samples, tables, obs[k])


# ---- the multi-agent env's step (poker_env.multiagent.holdem): every seat an agent
@njit(cache=True, _nrt=False, inline="always")
def _aec_to_act(
    s: np.ndarray,
    fractions: np.ndarray,
    legal: np.ndarray,
    amounts: np.ndarray,
    scale: float,
    obs: np.ndarray,
) -> int:  # pragma: no cover - compiled
    if s[K.PHASE] != K.PHASE_BETTING:
        return -1
    action_mask(s, fractions, legal, amounts)
    seat = s[K.TO_ACT]
    if obs.shape[0]:
        encode(s, seat, scale, obs)
    return int(seat)


@njit(cache=True, _nrt=False)
def aec_observe_to_act(
    s: np.ndarray,
    fractions: np.ndarray,
    legal: np.ndarray,
    amounts: np.ndarray,
    scale: float,
    obs: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover - compiled
    """After a change of table row ``s``: while betting, the legal mask (and raise
    amounts) of the seat to act into ``legal``/``amounts`` (:func:`action_mask`) and
    its observation into ``obs`` (:func:`encode`, stacks over ``scale``; nothing
    where ``obs`` is empty).

    Returns (the seat whose mask and observation were written, -1 when no one bets;
    the row's seat to act).
    """
    seat = _aec_to_act(s, fractions, legal, amounts, scale, obs)
    return seat, int(s[K.TO_ACT])


@njit(cache=True, _nrt=False)
def aec_act(
    s: np.ndarray,
    idx: int,
    fractions: np.ndarray,
    tables: EvalTables,
    legal: np.ndarray,
    amounts: np.ndarray,
    scale: float,
    obs: np.ndarray,
) -> tuple[int, bool, int, int]:  # pragma: no cover - compiled
    """Discrete action ``idx`` for the seat to act (:func:`apply_index`), then, unless
    the hand is decided, :func:`aec_observe_to_act`.

    Returns (apply_index's status, whether the hand is over (nothing else written:
    the caller closes it), the seat observed or -1, the row's seat to act).
    """
    status = apply_index(s, idx, fractions, tables)
    if s[K.PHASE] == K.PHASE_OVER:
        return status, True, -1, int(s[K.TO_ACT])
    seat = _aec_to_act(s, fractions, legal, amounts, scale, obs)
    return status, False, seat, int(s[K.TO_ACT])


@njit(cache=True, _nrt=False)
def aec_deal(
    s: np.ndarray,
    changed: bool,
    rng_state: int,
    rng_next32: int,
    deck: np.ndarray,
    tables: EvalTables,
) -> int:  # pragma: no cover - compiled
    """A new hand on row ``s`` with the draws of a numpy Generator (its bit generator's
    :func:`poker_env.bitgen.pointers`): the button draw ``integers(0, 2**30)``
    (:func:`~poker_env.games.holdem_kernels.next_button`), then the deck
    ``permutation(52)`` into ``deck``, dealt by
    :func:`~poker_env.games.holdem_kernels.start_hand`; the Generator's state moves as
    those two calls move it. Returns start_hand's code."""
    draw = integers_below(rng_state, rng_next32, 1 << 30)
    button = K.next_button(s, changed, draw)
    permutation_into(rng_state, rng_next32, deck)
    return K.start_hand(s, deck, button, tables)  # type: ignore[no-any-return]


@njit(cache=True, _nrt=False)
def aec_new_table(s: np.ndarray, num_seats: int, stack: int) -> None:  # pragma: no cover
    """Clear row ``s`` into a table of ``num_seats`` (its own blinds, cap, rules and
    penalty kept) and seat everyone with ``stack`` chips: an episode's start."""
    K.new_table(s, num_seats, s[K.BASE], s[K.MAX_BET], s[K.RULES], s[K.PENALTY_TO])
    for q in range(num_seats):
        s[K.STATUS + q] = K.SEATED
        s[K.STACK + q] = stack


@njit(cache=True, _nrt=False)
def aec_start(
    s: np.ndarray,
    num_seats: int,
    stack: int,
    rng_state: int,
    rng_next32: int,
    deck: np.ndarray,
    tables: EvalTables,
    fractions: np.ndarray,
    legal: np.ndarray,
    amounts: np.ndarray,
    scale: float,
    obs: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover - compiled
    """An episode's start in one call: :func:`aec_new_table`, the first hand
    (:func:`aec_deal`, the seats changed) and :func:`aec_observe_to_act`, whose pair
    it returns."""
    aec_new_table(s, num_seats, stack)
    aec_deal(s, True, rng_state, rng_next32, deck, tables)
    return aec_observe_to_act(s, fractions, legal, amounts, scale, obs)  # type: ignore[no-any-return]


@njit(cache=True, _nrt=False)
def aec_close_hand(s: np.ndarray, row: np.ndarray, won: np.ndarray) -> int:  # pragma: no cover
    """Close the decided hand of table row ``s`` in one call: its first ``row.size``
    entries into ``row`` (a :class:`~poker_env.episode.holdem_result.HandResult`'s
    copy), each seat's chips won (stack less the hand's starting stack) into ``won``,
    then :func:`~poker_env.games.holdem_kernels.finish_hand` (busted players leave).

    Returns finish_hand's changed flag (1 or 0), or -1 (nothing written) when the row's
    hand is not decided (phase not over).
    """
    if s[K.PHASE] != K.PHASE_OVER:
        return -1
    for i in range(row.size):
        row[i] = s[i]
    for q in range(won.size):
        won[q] = s[K.STACK + q] - s[K.START_STACK + q]
    return 1 if K.finish_hand(s, True) else 0
