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
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.errors import ConfigError
from poker_env.evaluator.tables import EvalTables
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig
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
    S_DRAWN,
    S_EP_ACTED,
    S_FIRST,
    S_HANDS,
    S_HIST,
    S_HIST_N,
    S_LOST,
    S_MATCH_WINNER,
    S_PHASE,
    S_POT,
    S_RAISES,
    S_RESULT,
    S_STACK,
    S_STAKED,
    S_TO_ACT,
    S_WORN,
)
from poker_env.games.wardrobe import worth

__all__ = [
    "ADV_AGENT",
    "ADV_DONE",
    "ADV_ILLEGAL",
    "ADV_OPP",
    "DEFAULT_POT_FRACTIONS",
    "MODE_MATCH",
    "MODE_POT",
    "OBS_SIZE",
    "action_layout",
    "check_pot_fractions",
    "encode_obs",
    "encode_view",
    "env_mask",
    "env_params",
    "env_to_engine",
    "mask_from_legal",
    "observation_bounds",
    "opp_step_row",
    "reset_row",
    "single_blobs",
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
) -> int:
    """Run the table until the agent must decide, the episode ends, or a Python policy must act.

    ``lg`` (LG_SIZE) and ``mask`` (the action count) are scratch rows.
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
                    # opponent dropped at once): not an episode; deal again.
                    _new_episode(s, cfg, rbuf, rew)
                    continue
                return ADV_DONE
            next_hand(s, cfg, rbuf)
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
) -> int:
    """Start an episode (a fresh match) and run it to the agent's first decision."""
    _new_episode(s, cfg, rbuf, rew)
    return int(advance(s, cfg, tables, rbuf, ep, fp, rew, lg, mask))


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
) -> bool:
    ph = s[S_PHASE]
    if ph == PH_HAND_END or ph == PH_MATCH_END:
        return False
    kind, amount = _to_engine(s, cfg, ep, fp, lg, mask, a)
    if kind < 0:
        return False
    # The mask is the engine's legal set with amounts inside its bounds.
    apply_legal(s, cfg, tables, rbuf, kind, amount)
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
) -> int:
    """Apply the agent's env action ``a`` and run on (random opponent included).

    ``lg`` and ``mask`` must hold the current legal row and mask, as every driver
    leaves them after a step or a reset (:func:`encode_view`); the action is checked
    against them, not recomputed.
    """
    ph = s[S_PHASE]
    if ph == PH_HAND_END or ph == PH_MATCH_END or a < 0 or a >= mask.shape[0] or mask[a] == 0:
        return ADV_ILLEGAL
    kind, amount = _decode(s, ep, fp, lg, mask, a)
    apply_legal(s, cfg, tables, rbuf, kind, amount)
    s[S_EP_ACTED] = 1
    return int(advance(s, cfg, tables, rbuf, ep, fp, rew, lg, mask))


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
) -> int:
    """Apply the other seat's env action ``a`` (chosen by a Python policy) and run on."""
    if not _apply_env(s, cfg, tables, rbuf, ep, fp, a, lg, mask):
        return ADV_ILLEGAL
    return int(advance(s, cfg, tables, rbuf, ep, fp, rew, lg, mask))


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


def tables_tuple(tables: Any) -> tuple[Any, ...]:
    """The evaluator tables as a plain tuple: numba reads a plain tuple argument
    several times faster than a NamedTuple, and the drivers rebuild the NamedTuple."""
    return tuple(tables)


@njit(cache=True, _nrt=False)
def make_tables(tt: Any) -> Any:
    """The evaluator's NamedTuple from :func:`tables_tuple`'s plain tuple."""
    return EvalTables(tt[0], tt[1], tt[2], tt[3], tt[4], tt[5])


def single_blobs(
    cfg: NDArray[np.int64], ep: NDArray[np.int64], fp: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """One int row [state | cfg | ep | legal scratch] and one float row
    [reward x2 | fp | random buffer] for a single table: a step is then one compiled
    call with few arguments."""
    ib = np.zeros(L.NUM_COLS + L.NUM_CFG + NUM_EP + LG_SIZE, np.int64)
    ib[L.NUM_COLS : L.NUM_COLS + L.NUM_CFG] = cfg
    ib[L.NUM_COLS + L.NUM_CFG : L.NUM_COLS + L.NUM_CFG + NUM_EP] = ep
    fb = np.zeros(2 + fp.size + L.BUF_SIZE, np.float64)
    fb[2 : 2 + fp.size] = fp
    return ib, fb


@njit(cache=True, _nrt=False)
def single_step(
    ib: NDArray[np.int64],
    tt: Any,
    fb: NDArray[np.float64],
    a: int,
    is_opp: bool,
    obs: NDArray[np.float32],
    mask: NDArray[np.int8],
) -> int:
    """Apply env action ``a`` (the agent's, or with ``is_opp`` the other seat's) and run
    on; then, unless a Python policy must act, encode the agent's view and the mask.

    Over the rows of :func:`single_blobs`; rewards add up in the reward pair until the
    caller reads and zeroes them (a pot decided while resetting a match, before the
    agent's first decision, is paid with its first step). With
    ``ep[EP_AGENT] == -1`` (every seat an agent) the view is the seat to act's.
    """
    c0 = L.NUM_COLS
    c1 = c0 + L.NUM_CFG
    c2 = c1 + NUM_EP
    s = ib[:c0]
    cfg = ib[c0:c1]
    ep = ib[c1:c2]
    lg = ib[c2:]
    k = ep[EP_NUM_SIZES]
    rew = fb[0:2]
    fp = fb[2 : 2 + k]
    rbuf = fb[2 + k :]
    tables = make_tables(tt)
    if is_opp:
        code = opp_step_row(s, cfg, tables, rbuf, ep, fp, a, rew, lg, mask)
    else:
        code = step_row(s, cfg, tables, rbuf, ep, fp, a, rew, lg, mask)
    if code == ADV_AGENT or code == ADV_DONE:
        seat = ep[EP_AGENT] if ep[EP_AGENT] >= 0 else s[S_TO_ACT]
        encode_view(s, cfg, ep, fp, seat, lg, obs, mask)
    return int(code)


@njit(cache=True, _nrt=False)
def single_reset(
    ib: NDArray[np.int64],
    tt: Any,
    fb: NDArray[np.float64],
    obs: NDArray[np.float32],
    mask: NDArray[np.int8],
) -> int:
    """:func:`reset_row` over the rows of :func:`single_blobs`, then the agent's view."""
    c0 = L.NUM_COLS
    c1 = c0 + L.NUM_CFG
    c2 = c1 + NUM_EP
    s = ib[:c0]
    cfg = ib[c0:c1]
    ep = ib[c1:c2]
    lg = ib[c2:]
    k = ep[EP_NUM_SIZES]
    code = reset_row(s, cfg, make_tables(tt), fb[2 + k :], ep, fb[2 : 2 + k], fb[0:2], lg, mask)
    if code == ADV_AGENT:
        seat = ep[EP_AGENT] if ep[EP_AGENT] >= 0 else s[S_TO_ACT]
        encode_view(s, cfg, ep, fb[2 : 2 + k], seat, lg, obs, mask)
    return int(code)


_KIND_WORDS = (
    "BET",
    "STAY",
    "DROP",
    "RAISE",
    "DRAW",
    "CALL",
    "DISCARD",
    "BUY_BACK",
    "SKIP_BUY_BACK",
)
_PHASE_WORDS = (
    "before the draw",
    "the draw",
    "after the draw",
    "hand over",
    "buy-back",
    "match over",
)


def render_text(s: NDArray[np.int64], config: DrawConfig, seat: int) -> str:
    """The table as ``seat`` sees it: own cards, pot, money, the wardrobe, last actions."""
    from poker_env.cards import format_cards
    from poker_env.games.wardrobe import wardrobe_state

    who = ("you", "opponent")
    hand = format_cards(s[S_HANDS + 5 * seat : S_HANDS + 5 * seat + 5])
    w = wardrobe_state(s, config.wardrobe)
    lines = [
        f"hand {int(s[L.S_HAND_NO])}, {_PHASE_WORDS[int(s[S_PHASE])]}; "
        f"{'you act first' if s[S_FIRST] == seat else 'opponent acts first'}",
        f"your cards: {hand}   (slots 1-5)",
        f"pot: {int(s[S_POT])}   your money: {int(s[S_STACK + seat])}   "
        f"opponent's money: {int(s[S_STACK + 1 - seat])}",
        f"her wardrobe: worn {', '.join(w.worn) or '-'}; at stake {', '.join(w.at_stake) or '-'}; "
        f"lost {', '.join(w.lost) or '-'}",
    ]
    acts = []
    for j in range(int(s[S_HIST_N])):
        sj, kj, aj = (int(x) for x in s[S_HIST + 3 * j : S_HIST + 3 * j + 3])
        text = f"{who[0] if sj == seat else who[1]} {_KIND_WORDS[kj]}"
        if kj == K_DISCARD:
            text += f" {aj} card(s)"
        elif aj:
            text += f" {aj}"
        acts.append(text)
    lines.append("this hand: " + ("; ".join(acts[-6:]) if acts else "-"))
    return "\n".join(lines) + "\n"
