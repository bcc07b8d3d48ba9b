"""Observations, action mapping and the env driver of five-card draw (RULES.md §1).

Shared by the Gymnasium envs, the PettingZoo AEC env and the batched vector env: each
of them drives one table row through :func:`reset_row`, :func:`step_row` and
:func:`opp_step_row`, which call the rules kernels of :mod:`poker_env.games.draw_kernels`
(no second copy of the rules) and play a uniformly random opponent in compiled code
when asked. No gymnasium import here.

Env actions (one ``Discrete``): ``0`` DROP; ``1`` the passive action (STAY, DRAW or
CALL by phase; SKIP_BUY_BACK between hands); ``2 .. 2+K-1`` BET/RAISE sizes (the
configured pot fractions, then all-in); ``2+K .. 2+K+31`` the discard masks; ``2+K+32``
BUY_BACK.

Hand records: the drivers write a record of every hand that ends (winner, how, pot,
both hands at a showdown, the stakes settled, a buy-back that followed, the match
end) into a small ring (:data:`RECORDS_SIZE` ints per table) before the next deal
overwrites the row, so the envs can report and render the hand that just ended.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.episode.layout import ObsField, fields_from_widths
from poker_env.episode.options import check_illegal_action
from poker_env.episode.records import LazyRecord
from poker_env.errors import ConfigError, IllegalActionError, as_int
from poker_env.evaluator.tables import EvalTables
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig, eval_tables
from poker_env.games.draw_kernels import (
    apply_legal,
    legal,
    next_hand,
    start_match,
)
from poker_env.games.draw_layout import (
    C_ANTE,
    C_ITEM_VALUE,
    C_MAX_RAISES,
    C_NUM_ITEMS,
    C_START,
    COMPUTER,
    HIST_LEN,
    HOW_ANTE,
    K_BET,
    K_BUY_BACK,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_DROP,
    K_RAISE,
    K_SKIP_BUY_BACK,
    K_STAY,
    LG_HI,
    LG_LO,
    LG_SIZE,
    PH_HAND_END,
    PH_MATCH_END,
    RES_TIE,
    S_BANK,
    S_BASE,
    S_BET,
    S_BOUGHT_BACK,
    S_DRAWN,
    S_EP_ACTED,
    S_FIRST,
    S_HAND_NO,
    S_HANDS,
    S_HIST,
    S_HIST_N,
    S_HOW,
    S_LOST,
    S_MATCH_WINNER,
    S_PHASE,
    S_POT,
    S_POT_WON,
    S_RAISES,
    S_RANK,
    S_RESULT,
    S_STACK,
    S_STAKE_MASK,
    S_STAKED,
    S_TO_ACT,
    S_WORN,
)
from poker_env.games.wardrobe import worth

__all__ = [
    "ADV_AGENT",
    "ADV_CODE",
    "ADV_DONE",
    "ADV_ILLEGAL",
    "ADV_OPP",
    "ADV_RECORDED",
    "DEFAULT_POT_FRACTIONS",
    "HAND_KEYS",
    "MODE_MATCH",
    "MODE_POT",
    "OBS_SIZE",
    "RECORDS_SIZE",
    "DrawEnvConfig",
    "DrawParams",
    "DrawTables",
    "HandRecord",
    "action_layout",
    "check_action",
    "check_pot_fractions",
    "encode_obs",
    "encode_view",
    "env_mask",
    "env_params",
    "env_to_engine",
    "hand_record",
    "hand_records",
    "last_hand",
    "mask_from_legal",
    "new_draw_tables",
    "observation_bounds",
    "observation_fields",
    "opp_step_row",
    "passive_action",
    "read_records",
    "record_slots",
    "reset_row",
    "single_reset",
    "single_step",
    "step_row",
]

#: Bet sizes of the env: fractions of the pot after calling, then all-in.
DEFAULT_POT_FRACTIONS: tuple[float, ...] = (0.5, 1.0, 2.0)

# Driver results.
ADV_AGENT = 0  # the agent (or, with agent_seat -1, the seat to act) must decide
ADV_DONE = 1  # the episode ended
ADV_OPP = 2  # the other seat must act and its policy lives in Python
ADV_ILLEGAL = 3  # the action was refused; nothing changed
#: Added to single_step's / single_reset's code when a hand record was written or
#: updated during the call (so the envs decode records only then, with no array read).
ADV_RECORDED = 8
ADV_CODE = 7  # code & ADV_CODE: the driver result

MODE_POT = 0  # FiveCardDraw-v0: an episode ends when a pot is won
MODE_MATCH = 1  # DrawMatch-v0: an episode is a whole match

# Env-params row (int64).
EP_AGENT = 0  # agent seat, or -1: every seat is an agent (AEC)
EP_MODE = 1
EP_OPP_RANDOM = 2  # 1: the other seat plays uniformly random legal actions in compiled code
EP_NUM_SIZES = 3  # K: pot fractions + all-in
NUM_EP = 4
# Float params row: [match_bonus, fraction_0, ..., fraction_{K-2}].
FP_BONUS = 0

# Observation layout (see the envs' docstrings for the table).
O_CARDS = 0
O_ONEHOT = 5
O_PHASE = 57
O_IS_FIRST = 58
O_POT = 59
O_STACK_OWN = 60
O_STACK_OPP = 61
O_BET_OWN = 62
O_BET_OPP = 63
O_TO_CALL = 64
O_RAISES = 65
O_DRAWN_OWN = 66
O_DRAWN_OPP = 67
O_WARD_OWN = 68
O_WARD_OPP = 71
O_BANK = 74
O_IS_COMPUTER = 75
O_HIST = 76
OBS_SIZE = O_HIST + 3 * HIST_LEN


def observation_fields() -> tuple[ObsField, ...]:
    """The observation layout (the envs' docstring table, row by row)."""
    return fields_from_widths(
        [
            ("own_cards", O_ONEHOT - O_CARDS),
            ("own_cards_onehot", O_PHASE - O_ONEHOT),
            ("phase", 1),
            ("is_first", 1),
            ("pot", 1),
            ("own_money", 1),
            ("opponent_money", 1),
            ("own_bet", 1),
            ("opponent_bet", 1),
            ("to_call", 1),
            ("raises", 1),
            ("own_drawn", 1),
            ("opponent_drawn", 1),
            ("own_wardrobe", O_WARD_OPP - O_WARD_OWN),
            ("opponent_wardrobe", O_BANK - O_WARD_OPP),
            ("bank", 1),
            ("is_computer", 1),
            ("history", OBS_SIZE - O_HIST),
        ]
    )


# Hand records (see the module docstring): [records written, writes so far, then a
# ring of NUM_RECORDS records of REC_SIZE ints]. A record is written when a hand
# ends and updated when a buy-back or the match end follows it; a step ends at most
# three (a hand, the opponent's drop in the next, the match end at the ante), so
# four slots keep every record of a step.
RC_NUM = 0
RC_WRITES = 1
RC_SLOTS = 2
NUM_RECORDS = 4
R_HAND_NO = 0
R_RESULT = 1  # 0 / 1: that seat won the pot; RES_TIE: a tie, the pot stays
R_HOW = 2  # HOW_DROP, HOW_SHOWDOWN; HOW_ANTE: the match ended before a hand was played
R_POT = 3  # the pot won, or the pot that stays after a tie
R_FIRST = 4
R_CARDS = 5  # 5..14: both hands as they stood at the end (shown at a showdown only)
R_RANK = 15  # 15, 16: showdown ranks
R_STAKE_MASK = 17  # bit i: item i was settled (lost or redeemed) with this pot
R_STACK = 18  # 18, 19: money after the pot was paid
R_MATCH_WINNER = 20  # -1 while the match goes on
R_ANTE_POT = 21  # the pot the match winner took at the ante that ended the match
R_ANTE_MASK = 22  # items settled with that pot
R_BOUGHT = 23  # 1 + index of the item she bought back after this hand, 0 when none
REC_SIZE = 24
RECORDS_SIZE = RC_SLOTS + NUM_RECORDS * REC_SIZE


def action_layout(num_sizes: int) -> tuple[int, int, int]:
    """(first size index, first discard index, BUY_BACK index) of the env action space."""
    return 2, 2 + num_sizes, 2 + num_sizes + 32


def check_pot_fractions(pot_fractions: tuple[float, ...]) -> tuple[float, ...]:
    """Validate the bet sizes: positive and strictly increasing (at most 16).

    Raises:
        ConfigError: naming ``pot_fractions``.
    """
    try:
        fr = tuple(float(f) for f in pot_fractions)
    except (TypeError, ValueError):
        fr = ()
    if not fr or len(fr) > 16 or fr[0] <= 0 or any(fr[i + 1] <= fr[i] for i in range(len(fr) - 1)):
        raise ConfigError(
            "pot_fractions", pot_fractions, "1 to 16 positive, strictly increasing fractions"
        )
    return fr


def check_action(action: object, num_actions: int, phase: str, mask: NDArray[np.int8]) -> int:
    """``action`` as an int of ``Discrete(num_actions)``, or an error naming it.

    Not an action of the space at all (a float, a string, a bool, out of range):
    refused in every ``illegal_action`` mode, nothing changes.

    Raises:
        IllegalActionError: naming the value and "an integer in [0, n)".
    """
    a = as_int(action)
    if a is None or not 0 <= a < num_actions:
        raise IllegalActionError(
            action,
            f"an integer in [0, {num_actions}) (legal now: {np.flatnonzero(mask).tolist()})",
            phase,
            "not an action of the space",
        )
    return a


def passive_action(mask: NDArray[np.int8], num_sizes: int) -> int:
    """The action a masked-out action plays in ``illegal_action="passive"`` mode.

    Action 1 where it is legal (STAY, DRAW as a check or a call, CALL; SKIP_BUY_BACK
    between hands, the computer keeps her money), else, in the draw, the discard
    mask 0 (keep all five cards).
    """
    return 1 if mask[1] else 2 + num_sizes


def env_params(
    agent_seat: int,
    mode: int,
    opp_random: bool,
    pot_fractions: tuple[float, ...],
    match_bonus: float = 0.0,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The int and float parameter rows the driver kernels read."""
    ep = np.zeros(NUM_EP, np.int64)
    ep[EP_AGENT] = agent_seat
    ep[EP_MODE] = mode
    ep[EP_OPP_RANDOM] = int(opp_random)
    ep[EP_NUM_SIZES] = len(pot_fractions) + 1
    fp = np.zeros(1 + len(pot_fractions), np.float64)
    fp[FP_BONUS] = match_bonus
    fp[1:] = pot_fractions
    return ep, fp


#: The values of ``agent_seat``: seat 0 is the human side, seat 1 the computer (her wardrobe).
_SEATS = {"human": 0, "computer": 1}


class DrawTables(NamedTuple):
    """The state of N draw tables: row ``i`` of every array is table ``i``.

    The batch holds one row per table, a single env or the AEC env one table (row 0);
    the compiled drivers take the record whole (:func:`new_draw_tables`).

    Attributes:
        rows: int64 (N, NUM_COLS): the table row (:mod:`poker_env.games.draw_layout`).
        randoms: float64 (N, BUF_SIZE): the uniforms the table draws from.
        owed: float64 (N, 2): rewards of both seats not yet paid.
        legal: int64 (N, LG_SIZE): the legal-action scratch row.
        records: int64 (N, RECORDS_SIZE): the hand records.
        needs_opponent: bool (N,): a Python policy moves next at the table.
    """

    rows: NDArray[np.int64]
    randoms: NDArray[np.float64]
    owed: NDArray[np.float64]
    legal: NDArray[np.int64]
    records: NDArray[np.int64]
    needs_opponent: NDArray[np.bool_]


def new_draw_tables(num_tables: int) -> DrawTables:
    """Zeroed state for ``num_tables`` tables."""
    n = int(num_tables)
    return DrawTables(
        rows=np.zeros((n, L.NUM_COLS), np.int64),
        randoms=np.zeros((n, L.BUF_SIZE), np.float64),
        owed=np.zeros((n, 2), np.float64),
        legal=np.zeros((n, LG_SIZE), np.int64),
        records=np.zeros((n, RECORDS_SIZE), np.int64),
        needs_opponent=np.zeros(n, np.bool_),
    )


class DrawParams(NamedTuple):
    """What every table of an env shares, built once from its options
    (:meth:`DrawEnvConfig.params`).

    Attributes:
        cfg: int64: the rules' config row (``DrawConfig.to_array``).
        tables: the evaluator's tables for the config's deck and hand order.
        ep: int64: the episode's int parameters (:func:`env_params`).
        fp: float64: its float parameters (match bonus, pot fractions).
        max_hands: the hand after which a match is truncated (the batch's check);
            0 in pot mode, which never truncates.
    """

    cfg: NDArray[np.int64]
    tables: EvalTables
    ep: NDArray[np.int64]
    fp: NDArray[np.float64]
    max_hands: int


@dataclass(frozen=True, kw_only=True)
class DrawEnvConfig:
    """The options every five-card draw face takes (FiveCardDraw-v0, DrawMatch-v0, the
    batched and the AEC env), checked once.

    Keyword-only and frozen; :meth:`__post_init__` validates every field and raises a
    :class:`~poker_env.errors.ConfigError` naming the field, the bad value and what
    is allowed. The faces build it from their keywords and take the compiled driver's
    parameter record from it (:meth:`params`).

    Attributes:
        config: the rules as a :class:`~poker_env.games.draw.DrawConfig`, or None:
            built from ``rules`` (the rule keywords; not both).
        rules: the rule keywords (``deck``, ``starting_money``, ...), without ``config``.
        agent_seat: 0 (``"human"``) or 1 (``"computer"``, the seat with the wardrobe);
            stored as the seat number.
        self_play: every seat is an agent (the AEC env); ``agent_seat`` is then unused.
        mode: ``"pot"`` (FiveCardDraw-v0 episodes: one pot) or ``"match"``
            (DrawMatch-v0 episodes: a whole match).
        pot_fractions: the bet sizes (plus all-in), 1 to 16 increasing fractions.
        match_bonus: match mode: antes added to the winner's and taken from the
            loser's reward at the end of a match.
        max_hands: match mode: a match still running after this many hands is truncated.
        illegal_action: ``"passive"`` or ``"raise"`` (:mod:`poker_env.episode.options`).
        draw_config: the rules (set from ``config`` or ``rules``; not a field).

    >>> DrawEnvConfig(agent_seat="computer", mode="match").params(builtin=True).ep.tolist()
    [1, 1, 1, 4]
    >>> DrawEnvConfig(agent_seat=2)
    Traceback (most recent call last):
    ...
    poker_env.errors.ConfigError: bad config: agent_seat=2; allowed: 0 ('human') or 1 ('computer')
    """

    config: DrawConfig | None = None
    rules: Mapping[str, Any] = field(default_factory=dict, hash=False)
    agent_seat: int | str = 0
    self_play: bool = False
    mode: str = "pot"
    pot_fractions: tuple[float, ...] = DEFAULT_POT_FRACTIONS
    match_bonus: float = 100.0
    max_hands: int = 1000
    illegal_action: str = "passive"

    # Set by __post_init__ from the fields (not a field itself).
    draw_config: DrawConfig = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seat = self.agent_seat
        i = as_int(seat)
        if i is None and isinstance(seat, str):
            i = _SEATS.get(seat)
        if i is None or i not in (0, 1):
            raise ConfigError("agent_seat", seat, "0 ('human') or 1 ('computer')")
        object.__setattr__(self, "agent_seat", i)
        if not isinstance(self.self_play, bool):
            raise ConfigError("self_play", self.self_play, "True or False")
        mode = self.mode
        if not isinstance(mode, str) or mode not in ("pot", "match"):
            raise ConfigError("mode", mode, "'pot' (FiveCardDraw-v0) or 'match' (DrawMatch-v0)")
        bonus = self.match_bonus
        if (
            isinstance(bonus, bool | np.bool_)
            or not isinstance(bonus, int | float | np.integer | np.floating)
            or not math.isfinite(bonus)
        ):
            raise ConfigError("match_bonus", bonus, "a finite number (antes)")
        object.__setattr__(self, "match_bonus", float(bonus))
        hands = self.max_hands
        if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
            raise ConfigError("max_hands", hands, "an integer >= 1")
        if self.config is not None and self.rules:
            raise ConfigError(
                "rules", sorted(self.rules), "either config= or rule keywords, not both"
            )
        rules = self.config if self.config is not None else DrawConfig(**self.rules)
        object.__setattr__(self, "draw_config", rules)
        check_illegal_action(self.illegal_action)
        object.__setattr__(self, "pot_fractions", check_pot_fractions(self.pot_fractions))

    @property
    def is_match(self) -> bool:
        """Whether an episode is a whole match (``mode="match"``)."""
        return self.mode == "match"

    @property
    def num_actions(self) -> int:
        """Size of the ``Discrete`` action space: DROP, the passive action, the sizes
        (fractions and all-in), the 32 discard masks, BUY_BACK."""
        return 2 + len(self.pot_fractions) + 1 + 33

    def params(self, *, builtin: bool) -> DrawParams:
        """The compiled driver's :class:`DrawParams` (``builtin``: the other seat plays
        uniformly random legal actions inside the compiled step; False: a Python policy
        plays it between calls, or, with ``self_play``, every seat is an agent)."""
        is_match = self.is_match
        seat = int(self.agent_seat)
        # The buy-back is the agent's decision when it plays her seat (RULES.md §1,
        # buying back); otherwise she buys back by the default rule.
        cfg = self.draw_config.to_array(
            buyback_decide=is_match and (self.self_play or seat == L.COMPUTER)
        )
        ep, fp = env_params(
            -1 if self.self_play else seat,
            MODE_MATCH if is_match else MODE_POT,
            builtin and not self.self_play,
            self.pot_fractions,
            self.match_bonus if is_match else 0.0,
        )
        # Pot mode never truncates (0: no bound; a small int, cheap to pass).
        max_hands = self.max_hands if is_match else 0
        return DrawParams(cfg, eval_tables(self.draw_config), ep, fp, max_hands)


def observation_bounds(config: DrawConfig) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Low and high of every observation entry (chips bounded by the total in play)."""
    t = float(config.total_chips)
    n = float(len(config.wardrobe))
    lo = np.zeros(OBS_SIZE, np.float32)
    hi = np.zeros(OBS_SIZE, np.float32)
    hi[O_CARDS : O_CARDS + 5] = 51
    hi[O_ONEHOT : O_ONEHOT + 52] = 1
    hi[O_PHASE] = L.NUM_PHASES - 1
    hi[O_IS_FIRST] = 1
    hi[O_POT : O_TO_CALL + 1] = t
    hi[O_RAISES] = config.max_raises
    lo[O_DRAWN_OWN : O_DRAWN_OPP + 1] = -1
    hi[O_DRAWN_OWN : O_DRAWN_OPP + 1] = 5
    hi[O_WARD_OWN : O_WARD_OPP + 3] = n
    lo[O_BANK] = -n * config.item_value
    hi[O_IS_COMPUTER] = 1
    for j in range(HIST_LEN):
        b = O_HIST + 3 * j
        lo[b] = -1
        hi[b] = 1
        lo[b + 1] = -1
        hi[b + 1] = L.NUM_KINDS - 1
        hi[b + 2] = t
    return lo, hi


# Kernels below compile with _nrt=False: they allocate nothing (scratch rows are
# passed in), and without reference counting a call between kernels costs a plain
# call instead of four atomic operations (measured: 50 ns -> 1 ns a call). The small
# ones on the step's path are inlined (inline="always"): a call that passes a row,
# the config, the evaluator tables and scratch rows moves dozens of array fields,
# which cost the vector env's step more than the work inside (~35% of it).
@njit(cache=True, _nrt=False, inline="always")
def _size_amount(
    s: NDArray[np.int64], fp: NDArray[np.float64], lg: NDArray[np.int64], j: int, num_sizes: int
) -> int:
    # Size j: a fraction of the pot after calling, clipped into the legal bounds; the last is all-in.
    lo = lg[LG_LO]
    hi = lg[LG_HI]
    if j == num_sizes - 1:
        return int(hi)
    seat = s[S_TO_ACT]
    to_call = s[S_BET + 1 - seat] - s[S_BET + seat]
    x = int(fp[1 + j] * (s[S_POT] + to_call))
    return int(min(max(x, lo), hi))


@njit(cache=True, _nrt=False, inline="always")
def mask_from_legal(
    s: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
) -> int:
    """Fill the env action mask from the engine's legal row ``lg``; returns the count.

    Sizes that map to the same amount as an earlier size are masked out.
    """
    ks = ep[EP_NUM_SIZES]
    for i in range(mask.shape[0]):
        mask[i] = 0
    n = 0
    if lg[K_DROP]:
        mask[0] = 1
        n += 1
    if lg[K_STAY] + lg[K_DRAW] + lg[K_CALL] + lg[K_SKIP_BUY_BACK] > 0:
        mask[1] = 1
        n += 1
    if lg[K_BET] + lg[K_RAISE] > 0:
        last = -1
        for j in range(ks):
            # Sizes grow with j (fractions ascending, then all-in), so a repeat of an
            # amount is a repeat of the previous kept one.
            x = _size_amount(s, fp, lg, j, ks)
            if x != last:
                mask[2 + j] = 1
                n += 1
                last = x
    if lg[K_DISCARD]:
        for m in range(32):
            mask[2 + ks + m] = 1
        n += 32
    if lg[K_BUY_BACK]:
        mask[2 + ks + 32] = 1
        n += 1
    return n


@njit(cache=True)
def env_mask(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    mask: NDArray[np.int8],
) -> int:
    """Fill the env action mask of the seat to act; returns the number of legal actions."""
    lg = np.empty(LG_SIZE, np.int64)
    legal(s, cfg, lg)
    return int(mask_from_legal(s, ep, fp, lg, mask))


@njit(cache=True, _nrt=False)
def _to_engine(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
    a: int,
) -> tuple[int, int]:
    # (engine kind, amount) of env action a, or kind -1; lg and mask are scratch rows.
    legal(s, cfg, lg)
    mask_from_legal(s, ep, fp, lg, mask)
    kind, amount = _decode(s, ep, fp, lg, mask, a)
    return int(kind), int(amount)


@njit(cache=True, _nrt=False, inline="always")
def _decode(
    s: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
    a: int,
) -> tuple[int, int]:
    # As _to_engine, with lg and mask already computed for this state.
    if a < 0 or a >= mask.shape[0] or mask[a] == 0:
        return -1, 0
    ks = ep[EP_NUM_SIZES]
    if a == 0:
        return K_DROP, 0
    if a == 1:
        if lg[K_STAY]:
            return K_STAY, 0
        if lg[K_DRAW]:
            return K_DRAW, 0
        if lg[K_CALL]:
            return K_CALL, 0
        return K_SKIP_BUY_BACK, 0
    if a < 2 + ks:
        kind = K_BET if lg[K_BET] else K_RAISE
        return kind, _size_amount(s, fp, lg, a - 2, ks)
    if a < 2 + ks + 32:
        return K_DISCARD, a - 2 - ks
    return K_BUY_BACK, 0


@njit(cache=True)
def env_to_engine(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    a: int,
) -> tuple[int, int]:
    """(engine kind, amount) of env action ``a``; kind -1 when ``a`` is not legal now."""
    lg = np.empty(LG_SIZE, np.int64)
    mask = np.empty(2 + ep[EP_NUM_SIZES] + 33, np.int8)
    kind, amount = _to_engine(s, cfg, ep, fp, lg, mask, a)
    return int(kind), int(amount)


@njit(cache=True, _nrt=False, inline="always")
def encode_obs(
    s: NDArray[np.int64], cfg: NDArray[np.int64], seat: int, out: NDArray[np.float32]
) -> None:
    """What ``seat`` may know, as floats (layout O_*): never the opponent's cards or the stock."""
    opp = 1 - seat
    for i in range(out.shape[0]):
        out[i] = 0
    for i in range(5):
        c = s[S_HANDS + 5 * seat + i]
        out[O_CARDS + i] = c
        out[O_ONEHOT + c] = 1
    out[O_PHASE] = s[S_PHASE]
    out[O_IS_FIRST] = 1 if s[S_FIRST] == seat else 0
    out[O_POT] = s[S_POT]
    out[O_STACK_OWN] = s[S_STACK + seat]
    out[O_STACK_OPP] = s[S_STACK + opp]
    out[O_BET_OWN] = s[S_BET + seat]
    out[O_BET_OPP] = s[S_BET + opp]
    out[O_TO_CALL] = max(0, s[S_BET + opp] - s[S_BET + seat])
    out[O_RAISES] = min(s[S_RAISES], cfg[C_MAX_RAISES])
    out[O_DRAWN_OWN] = s[S_DRAWN + seat]
    out[O_DRAWN_OPP] = s[S_DRAWN + opp]
    w = O_WARD_OWN if seat == COMPUTER else O_WARD_OPP
    out[w] = s[S_WORN]
    out[w + 1] = s[S_STAKED]
    out[w + 2] = s[S_LOST]
    out[O_BANK] = s[S_BANK]
    out[O_IS_COMPUTER] = 1 if seat == COMPUTER else 0
    n = s[S_HIST_N]
    for j in range(HIST_LEN):
        b = O_HIST + 3 * j
        if j < n:
            out[b] = 0 if s[S_HIST + 3 * j] == seat else 1
            out[b + 1] = s[S_HIST + 3 * j + 1]
            out[b + 2] = s[S_HIST + 3 * j + 2]
        else:
            out[b] = -1
            out[b + 1] = -1
            out[b + 2] = 0


@njit(cache=True, _nrt=False)
def _pay_rewards(s: NDArray[np.int64], cfg: NDArray[np.int64], rew: NDArray[np.float64]) -> None:
    # Reward = change of worth (money + worn items) since it was last paid, in antes.
    ante = cfg[C_ANTE]
    for seat in range(2):
        w = worth(s, cfg, seat)
        rew[seat] += (w - s[S_BASE + seat]) / ante
        s[S_BASE + seat] = w


@njit(cache=True, _nrt=False)
def _new_episode(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    rbuf: NDArray[np.float64],
    rew: NDArray[np.float64],
) -> None:
    start_match(s, cfg, rbuf)
    # Worth before the first ante, so the first pot's reward counts the antes.
    s[S_BASE] = cfg[C_START]
    s[S_BASE + 1] = cfg[C_START] + cfg[C_NUM_ITEMS] * cfg[C_ITEM_VALUE]
    s[S_EP_ACTED] = 0
    rew[0] = 0.0
    rew[1] = 0.0


@njit(cache=True, _nrt=False, inline="always")
def _random_action(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    rbuf: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
) -> int:
    # Uniform over the legal env actions, one uniform from the table's buffer.
    legal(s, cfg, lg)
    n = mask_from_legal(s, ep, fp, lg, mask)
    i = s[L.S_CURSOR]
    if i >= rbuf.shape[0]:
        i = 0
    s[L.S_CURSOR] = i + 1
    k = int(rbuf[i] * n)
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return 0


@njit(cache=True, _nrt=False)
def _record_end(s: NDArray[np.int64], rec: NDArray[np.int64]) -> None:
    # A hand ended (PH_HAND_END): a new record, before the next deal overwrites the
    # row. The match ended (PH_MATCH_END): the hand before it gets the match winner
    # and the pot left by ties that went to that winner at the ante (RULES.md §1).
    n = rec[RC_NUM]
    if s[S_PHASE] == PH_MATCH_END and n > 0:
        b = RC_SLOTS + REC_SIZE * ((n - 1) % NUM_RECORDS)
        rec[b + R_MATCH_WINNER] = s[S_MATCH_WINNER]
        rec[b + R_ANTE_POT] = s[S_POT_WON]
        rec[b + R_ANTE_MASK] = s[S_STAKE_MASK]
        rec[RC_WRITES] += 1
        return
    b = RC_SLOTS + REC_SIZE * (n % NUM_RECORDS)
    decided = s[S_RESULT] != RES_TIE
    rec[b + R_HAND_NO] = s[S_HAND_NO]
    rec[b + R_RESULT] = s[S_RESULT]
    rec[b + R_HOW] = s[S_HOW]
    rec[b + R_POT] = s[S_POT_WON] if decided else s[S_POT]
    rec[b + R_FIRST] = s[S_FIRST]
    for i in range(10):
        rec[b + R_CARDS + i] = s[S_HANDS + i]
    rec[b + R_RANK] = s[S_RANK]
    rec[b + R_RANK + 1] = s[S_RANK + 1]
    # S_STAKE_MASK is written when a pot is decided; a tie settles nothing.
    rec[b + R_STAKE_MASK] = s[S_STAKE_MASK] if decided else 0
    rec[b + R_STACK] = s[S_STACK]
    rec[b + R_STACK + 1] = s[S_STACK + 1]
    rec[b + R_MATCH_WINNER] = s[S_MATCH_WINNER]
    rec[b + R_ANTE_POT] = 0
    rec[b + R_ANTE_MASK] = 0
    rec[b + R_BOUGHT] = 0
    if s[S_PHASE] == PH_MATCH_END:
        # No hand before it in this record ring: the match end is its own record.
        rec[b + R_HOW] = HOW_ANTE
    rec[RC_NUM] = n + 1
    rec[RC_WRITES] += 1


@njit(cache=True, _nrt=False, inline="always")
def _note_buy_back(s: NDArray[np.int64], rec: NDArray[np.int64]) -> None:
    # The item she bought back between the last recorded hand and the next deal.
    n = rec[RC_NUM]
    if s[S_BOUGHT_BACK] > 0 and n > 0:
        rec[RC_SLOTS + REC_SIZE * ((n - 1) % NUM_RECORDS) + R_BOUGHT] = s[S_BOUGHT_BACK]
        rec[RC_WRITES] += 1


@njit(cache=True, _nrt=False)
def advance(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    tables: Any,
    rbuf: NDArray[np.float64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    rew: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
    rec: NDArray[np.int64],
) -> int:
    """Run the table until the agent must decide, the episode ends, or a Python policy must act.

    ``lg`` (LG_SIZE) and ``mask`` (the action count) are scratch rows; every hand
    that ends is written to the record ring ``rec`` (RECORDS_SIZE).
    """
    agent = ep[EP_AGENT]
    mode = ep[EP_MODE]
    while True:
        ph = s[S_PHASE]
        if ph == PH_HAND_END or ph == PH_MATCH_END:
            decided = ph == PH_MATCH_END or s[S_RESULT] != RES_TIE
            if decided:
                _pay_rewards(s, cfg, rew)
            if ph == PH_MATCH_END and mode == MODE_MATCH:
                w = s[S_MATCH_WINNER]
                rew[w] += fp[FP_BONUS]
                rew[1 - w] -= fp[FP_BONUS]
            if decided and (mode == MODE_POT or ph == PH_MATCH_END):
                if agent >= 0 and s[S_EP_ACTED] == 0:
                    # The pot was decided before the agent's first decision (the
                    # opponent dropped at once): not an episode (nor a record); deal again.
                    _new_episode(s, cfg, rbuf, rew)
                    continue
                _record_end(s, rec)
                return ADV_DONE
            _record_end(s, rec)
            next_hand(s, cfg, rbuf)
            _note_buy_back(s, rec)
            continue
        seat = s[S_TO_ACT]
        if agent < 0 or seat == agent:
            return ADV_AGENT
        if ep[EP_OPP_RANDOM] == 0:
            return ADV_OPP
        a = _random_action(s, cfg, ep, fp, rbuf, lg, mask)
        kind, amount = _decode(s, ep, fp, lg, mask, a)
        apply_legal(s, cfg, tables, rbuf, kind, amount)


@njit(cache=True, _nrt=False, inline="always")
def reset_row(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    tables: Any,
    rbuf: NDArray[np.float64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    rew: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
    rec: NDArray[np.int64],
) -> int:
    """Start an episode (a fresh match) and run it to the agent's first decision."""
    _new_episode(s, cfg, rbuf, rew)
    return int(advance(s, cfg, tables, rbuf, ep, fp, rew, lg, mask, rec))


@njit(cache=True, _nrt=False)
def _apply_env(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    tables: Any,
    rbuf: NDArray[np.float64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    a: int,
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
    rec: NDArray[np.int64],
) -> bool:
    ph = s[S_PHASE]
    if ph == PH_HAND_END or ph == PH_MATCH_END:
        return False
    kind, amount = _to_engine(s, cfg, ep, fp, lg, mask, a)
    if kind < 0:
        return False
    # The mask is the engine's legal set with amounts inside its bounds.
    apply_legal(s, cfg, tables, rbuf, kind, amount)
    if kind == K_BUY_BACK:
        _note_buy_back(s, rec)
    return True


@njit(cache=True, _nrt=False, inline="always")
def step_row(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    tables: Any,
    rbuf: NDArray[np.float64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    a: int,
    rew: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
    rec: NDArray[np.int64],
) -> int:
    """Apply the agent's env action ``a`` and run on (random opponent included).

    ``lg`` and ``mask`` must hold the current legal row and mask, as every driver
    leaves them after a step or a reset (:func:`encode_view`); the action is checked
    against them, not recomputed. ``illegal_action="passive"`` is applied by the
    callers before this (a masked-out ``a`` here returns ADV_ILLEGAL, nothing changed).
    """
    ph = s[S_PHASE]
    if ph == PH_HAND_END or ph == PH_MATCH_END or a < 0 or a >= mask.shape[0] or mask[a] == 0:
        return ADV_ILLEGAL
    kind, amount = _decode(s, ep, fp, lg, mask, a)
    apply_legal(s, cfg, tables, rbuf, kind, amount)
    if kind == K_BUY_BACK:
        _note_buy_back(s, rec)
    s[S_EP_ACTED] = 1
    return int(advance(s, cfg, tables, rbuf, ep, fp, rew, lg, mask, rec))


@njit(cache=True, _nrt=False, inline="always")
def opp_step_row(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    tables: Any,
    rbuf: NDArray[np.float64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    a: int,
    rew: NDArray[np.float64],
    lg: NDArray[np.int64],
    mask: NDArray[np.int8],
    rec: NDArray[np.int64],
) -> int:
    """Apply the other seat's env action ``a`` (chosen by a Python policy) and run on."""
    if not _apply_env(s, cfg, tables, rbuf, ep, fp, a, lg, mask, rec):
        return ADV_ILLEGAL
    return int(advance(s, cfg, tables, rbuf, ep, fp, rew, lg, mask, rec))


@njit(cache=True, _nrt=False)
def encode_view(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    ep: NDArray[np.int64],
    fp: NDArray[np.float64],
    seat: int,
    lg: NDArray[np.int64],
    obs: NDArray[np.float32],
    mask: NDArray[np.int8],
) -> None:
    """The observation and action mask of ``seat`` (the mask is the seat to act's)."""
    encode_obs(s, cfg, seat, obs)
    legal(s, cfg, lg)
    mask_from_legal(s, ep, fp, lg, mask)


@njit(cache=True, _nrt=False)
def single_step(
    st: DrawTables,
    pr: DrawParams,
    a: int,
    is_opp: bool,
    obs: NDArray[np.float32],
    mask: NDArray[np.int8],
) -> int:
    """Apply env action ``a`` at table 0 of ``st`` (the agent's, or with ``is_opp`` the
    other seat's) and run on; then, unless a Python policy must act, encode the agent's
    view and the mask into ``obs`` and ``mask``.

    The single envs' step, over the records the batch uses (one table); rewards add up
    in ``st.owed[0]`` until the caller reads and zeroes them (a pot decided while
    resetting a match, before the agent's first decision, is paid with its first
    step). With ``pr.ep[EP_AGENT] == -1`` (every seat an agent) the view is the seat
    to act's. Returns the driver code, plus ADV_RECORDED when a hand record changed.
    """
    s = st.rows[0]
    rbuf = st.randoms[0]
    rew = st.owed[0]
    lg = st.legal[0]
    rec = st.records[0]
    cfg, tables, ep, fp = pr.cfg, pr.tables, pr.ep, pr.fp
    writes = rec[RC_WRITES]
    if is_opp:
        code = opp_step_row(s, cfg, tables, rbuf, ep, fp, a, rew, lg, mask, rec)
    else:
        code = step_row(s, cfg, tables, rbuf, ep, fp, a, rew, lg, mask, rec)
    if code == ADV_AGENT or code == ADV_DONE:
        seat = ep[EP_AGENT] if ep[EP_AGENT] >= 0 else s[S_TO_ACT]
        encode_view(s, cfg, ep, fp, seat, lg, obs, mask)
    return int(code) + (ADV_RECORDED if rec[RC_WRITES] != writes else 0)


@njit(cache=True, _nrt=False)
def single_reset(
    st: DrawTables, pr: DrawParams, obs: NDArray[np.float32], mask: NDArray[np.int8]
) -> int:
    """:func:`reset_row` at table 0 of ``st``, then the agent's view (as :func:`single_step`).

    The episode starts with no hand records (the ring is cleared) and no rewards owed.
    Returns the driver code, plus ADV_RECORDED when a hand record was written.
    """
    s = st.rows[0]
    rec = st.records[0]
    lg = st.legal[0]
    cfg, ep, fp = pr.cfg, pr.ep, pr.fp
    for j in range(rec.shape[0]):
        rec[j] = 0  # the records are this episode's
    writes = 0
    code = reset_row(s, cfg, pr.tables, st.randoms[0], ep, fp, st.owed[0], lg, mask, rec)
    if code == ADV_AGENT:
        seat = ep[EP_AGENT] if ep[EP_AGENT] >= 0 else s[S_TO_ACT]
        encode_view(s, cfg, ep, fp, seat, lg, obs, mask)
    return int(code) + (ADV_RECORDED if rec[RC_WRITES] != writes else 0)


_HOW_WORDS = {L.HOW_DROP: "drop", L.HOW_SHOWDOWN: "showdown", HOW_ANTE: "ante"}


@cache
def _card_text() -> tuple[str, ...]:
    from poker_env.cards import format_card

    return tuple(format_card(c) for c in range(52))


@cache  # at most the 7,462 distinct ranks per hand order
def _describe(rank: int) -> str:
    # The evaluator is the only place that names hands (DESIGN.md); a rank names the
    # same hand in both decks and orders.
    from poker_env.evaluator import describe_hand

    return describe_hand(rank)


def _items(names: tuple[str, ...], mask: int) -> tuple[str, ...]:
    return tuple(n for i, n in enumerate(names) if (mask >> i) & 1)


#: The keys of a hand record, in order.
HAND_KEYS: tuple[str, ...] = (
    "hand_no",
    "winner",
    "how",
    "pot",
    "hands",
    "hand_names",
    "ranks",
    "stacks",
    "items_staked",
    "items_lost",
    "items_redeemed",
    "item_bought_back",
    "buy_back_price",
    "match_winner",
    "ante_pot",
)


def _decode_record(r: list[int], config: DrawConfig) -> dict[str, Any]:
    res = r[R_RESULT]
    winner = None if res == RES_TIE else res
    names = config.wardrobe
    mask = r[R_STAKE_MASK]
    staked = _items(names, mask) if mask else ()
    mw = r[R_MATCH_WINNER]
    match_winner = None if mw < 0 else mw
    lost = staked if winner == L.HUMAN else ()
    redeemed = staked if winner == COMPUTER else ()
    ante_pot = 0
    if match_winner is not None:
        ante_pot = r[R_ANTE_POT]
        ante_items = _items(names, r[R_ANTE_MASK])
        if match_winner == L.HUMAN:
            lost += ante_items
        else:
            redeemed += ante_items
    hands = hand_names = ranks = None
    if r[R_HOW] == L.HOW_SHOWDOWN:
        ct = _card_text()
        c = r[R_CARDS : R_CARDS + 10]
        hands = (" ".join(map(ct.__getitem__, c[:5])), " ".join(map(ct.__getitem__, c[5:])))
        ranks = (r[R_RANK], r[R_RANK + 1])
        hand_names = (_describe(ranks[0]), _describe(ranks[1]))
    bought = r[R_BOUGHT]
    return {
        "hand_no": r[R_HAND_NO],
        "winner": winner,
        "how": _HOW_WORDS.get(r[R_HOW], "?"),
        "pot": r[R_POT],
        "hands": hands,
        "hand_names": hand_names,
        "ranks": ranks,
        "stacks": (r[R_STACK], r[R_STACK + 1]),
        "items_staked": staked,
        "items_lost": lost,
        "items_redeemed": redeemed,
        "item_bought_back": names[bought - 1] if bought > 0 else None,
        "buy_back_price": config.item_value if bought > 0 else 0,
        "match_winner": match_winner,
        "ante_pot": ante_pot,
    }


class HandRecord(LazyRecord):
    """One hand that ended, as a read-only mapping (``dict(record)`` for a plain dict).

    Keys: ``hand_no``; ``winner`` (seat 0 or 1, None for a tie: the pot stays for the
    next hand); ``how`` (``"showdown"``, ``"drop"``, or ``"ante"`` when the match
    ended before a hand was played); ``pot`` (chips won, or the pot that stays after
    a tie); ``hands`` and ``hand_names`` (both seats', seat order, at a showdown; else
    None); ``ranks`` (the evaluator's, at a showdown); ``stacks`` (money after the
    pot was paid); ``items_staked`` (her items at stake when the pot was decided),
    ``items_lost``, ``items_redeemed``; ``item_bought_back`` and ``buy_back_price``
    (what she bought back after this hand, before the next deal; None and 0 if
    nothing); ``match_winner`` (None while the match goes on) and ``ante_pot`` (a pot
    left by ties that the match winner took at the ante that ended the match).

    It holds a copy of the record's ints and names cards and hands on first access
    only: an env step that ends a hand pays for a list copy, not for the text. Its
    values are immutable, so one record can sit in several steps' infos.
    """

    __slots__ = ("_config", "_raw")

    KEYS = HAND_KEYS

    def __init__(self, raw: list[int], config: DrawConfig) -> None:
        self._raw = raw
        self._config = config
        self._dict = None

    def _decode(self) -> dict[str, Any]:
        return _decode_record(self._raw, self._config)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandRecord):  # without decoding either
            return self._raw == other._raw and self._config == other._config
        return super().__eq__(other)

    __hash__ = None  # (as LazyRecord: a record is not hashable)

    def __reduce__(self) -> tuple[Any, ...]:
        return (HandRecord, (self._raw, self._config))


def record_slots(rec: NDArray[np.int64]) -> tuple[NDArray[np.int64], ...]:
    """The ``NUM_RECORDS`` slots of one table's record ring, as views (slot ``j %
    NUM_RECORDS`` holds record ``j``). An env keeps them to read a record per hand end
    without slicing."""
    return tuple(
        rec[RC_SLOTS + REC_SIZE * k : RC_SLOTS + REC_SIZE * (k + 1)] for k in range(NUM_RECORDS)
    )


def read_records(
    slots: tuple[NDArray[np.int64], ...], config: DrawConfig, num: int, seen: int
) -> tuple[tuple[HandRecord, ...], HandRecord | None]:
    """What a step reports once the driver wrote or updated a record: the records
    numbered ``seen .. num - 1`` that the ring still holds (its last ``NUM_RECORDS``),
    and the newest record (None before any hand ended). ``num``: the ring's count
    (``rec[RC_NUM]``); ``slots``: :func:`record_slots`. With ``num == seen`` the newest
    record was updated (a buy-back, the match end) and none is new."""
    if num == seen + 1:  # one hand ended: the common case
        last = HandRecord(slots[seen % NUM_RECORDS].tolist(), config)
        return (last,), last
    if num != seen:
        ended = tuple(
            HandRecord(slots[j % NUM_RECORDS].tolist(), config)
            for j in range(max(seen, num - NUM_RECORDS), num)
        )
        return ended, ended[-1]
    newest = HandRecord(slots[(num - 1) % NUM_RECORDS].tolist(), config) if num > 0 else None
    return (), newest


def hand_record(rec: NDArray[np.int64], j: int, config: DrawConfig) -> HandRecord:
    """Record ``j`` (0 = the first written) of a record ring (see :class:`HandRecord`)."""
    return HandRecord(record_slots(rec)[j % NUM_RECORDS].tolist(), config)


def hand_records(
    rec: NDArray[np.int64], config: DrawConfig, since: int = 0
) -> tuple[HandRecord, ...]:
    """The records written after the first ``since`` (the ring keeps the last four)."""
    return read_records(record_slots(rec), config, int(rec[RC_NUM]), since)[0]


def last_hand(rec: NDArray[np.int64], config: DrawConfig) -> HandRecord | None:
    """The latest record (see :func:`hand_record`), or None before any hand ended."""
    n = int(rec[RC_NUM])
    return read_records(record_slots(rec), config, n, n)[1]
