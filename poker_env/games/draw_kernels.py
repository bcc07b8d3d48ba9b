"""Compiled per-step rules of five-card draw against the computer (RULES.md §1).

Every function works on one table row ``s`` (layout in
:mod:`poker_env.games.draw_layout`), the config row ``cfg``, the evaluator tables
and the table's random buffer ``rbuf`` (uniforms drawn in numpy from a seeded
Generator). They return status codes and raise nothing; the Python facade
(:class:`poker_env.games.draw.DrawGame`) and every env drive these same functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.evaluator.kernels import eval_cards
from poker_env.games.draw_layout import (
    C_ANTE,
    C_BUYBACK_DECIDE,
    C_ITEM_VALUE,
    C_MAX_RAISES,
    C_MIN_BET,
    C_NUM_CARDS,
    C_START,
    COMPUTER,
    HIST_LEN,
    HOW_ANTE,
    HOW_DROP,
    HOW_SHOWDOWN,
    HUMAN,
    ITEM_AT_STAKE,
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
    MAX_ITEMS,
    NUM_COLS,
    NUM_KINDS,
    PH_BUY_BACK,
    PH_DRAW,
    PH_HAND_END,
    PH_MATCH_END,
    PH_POST_DRAW,
    PH_PRE_DRAW,
    RES_NONE,
    RES_TIE,
    S_BANK,
    S_BET,
    S_BOUGHT_BACK,
    S_CURSOR,
    S_DECK,
    S_DECK_POS,
    S_DRAWN,
    S_FIRST,
    S_HAND_NO,
    S_HANDS,
    S_HIST,
    S_HIST_N,
    S_HOW,
    S_ITEMS,
    S_MATCH_WINNER,
    S_PHASE,
    S_POT,
    S_POT_WON,
    S_RAISES,
    S_RANK,
    S_RESULT,
    S_ROUND_ACTIONS,
    S_STACK,
    S_STAKE_MASK,
    S_TO_ACT,
    S_WORN,
)
from poker_env.games.wardrobe import (
    buy_back,
    can_buy_back,
    default_wants_buy_back,
    reset_wardrobe,
    settle_stakes,
    stake_to_cover,
)

# Status codes of apply_action.
ST_OK = 0
ST_ILLEGAL = 1  # the action kind is not legal now
ST_BAD_AMOUNT = 2  # legal kind, amount out of bounds
ST_BAD_KIND = 3


@njit(cache=True, _nrt=False, inline="always")
def _uniform(s: NDArray[np.int64], rbuf: NDArray[np.float64]) -> float:
    i = s[S_CURSOR]
    if i >= rbuf.shape[0]:
        # Last resort, never reached under the refill rule (BUF_MARGIN per step):
        # wrap around, the same way for one table and for a batch.
        i = 0
    s[S_CURSOR] = i + 1
    return float(rbuf[i])


@njit(cache=True, _nrt=False, inline="always")
def _next_card(s: NDArray[np.int64], cfg: NDArray[np.int64], rbuf: NDArray[np.float64]) -> int:
    # A lazy Fisher-Yates shuffle: the card at DECK_POS is drawn uniformly from the
    # stock still undealt, so a hand consumes one uniform per card it uses.
    pos = s[S_DECK_POS]
    n = cfg[C_NUM_CARDS]
    j = pos + int(_uniform(s, rbuf) * (n - pos))
    c = s[S_DECK + j]
    s[S_DECK + j] = s[S_DECK + pos]
    s[S_DECK + pos] = c
    s[S_DECK_POS] = pos + 1
    return int(c)


@njit(cache=True, _nrt=False, inline="always")
def capacity(s: NDArray[np.int64], cfg: NDArray[np.int64], seat: int) -> int:
    """Chips ``seat`` can still put in: money, plus worn items for the computer."""
    c = s[S_STACK + seat]
    if seat == COMPUTER:
        c += s[S_WORN] * cfg[C_ITEM_VALUE]
    return int(c)


@njit(cache=True, _nrt=False, inline="always")
def _pay(
    s: NDArray[np.int64], cfg: NDArray[np.int64], seat: int, amount: int, is_bet: bool
) -> None:
    if seat == COMPUTER:
        # RULES.md §1 clothing stakes: she stakes when short of a call or a bet.
        stake_to_cover(s, cfg, amount)
    s[S_STACK + seat] -= amount
    s[S_POT] += amount
    if is_bet:
        s[S_BET + seat] += amount


@njit(cache=True, _nrt=False, inline="always")
def _push_hist(s: NDArray[np.int64], seat: int, kind: int, amount: int) -> None:
    n = s[S_HIST_N]
    if n == HIST_LEN:
        # Keep the most recent entries (a hand rarely exceeds 14 actions).
        for i in range(3, 3 * HIST_LEN):
            s[S_HIST + i - 3] = s[S_HIST + i]
        n -= 1
    s[S_HIST + 3 * n] = seat
    s[S_HIST + 3 * n + 1] = kind
    s[S_HIST + 3 * n + 2] = amount
    s[S_HIST_N] = n + 1


@njit(cache=True, _nrt=False, inline="always")
def legal(s: NDArray[np.int64], cfg: NDArray[np.int64], lg: NDArray[np.int64]) -> None:
    """Fill ``lg`` (LG_SIZE): a flag per action kind, then the BET/RAISE amount bounds.

    The one legality check: the query for legal actions and ``apply_action`` both use it.
    An amount is what is put in *beyond* a call (RULES.md §1: a raise is the bet plus
    an amount of one's choice).
    """
    for k in range(LG_SIZE):
        lg[k] = 0
    ph = s[S_PHASE]
    seat = s[S_TO_ACT]
    if ph == PH_PRE_DRAW or ph == PH_POST_DRAW:
        opp = 1 - seat
        to_call = s[S_BET + opp] - s[S_BET + seat]
        cme = capacity(s, cfg, seat)
        cop = capacity(s, cfg, opp)
        lg[K_DROP] = 1
        if to_call == 0:
            if ph == PH_PRE_DRAW:
                if s[S_ROUND_ACTIONS] == 0:
                    lg[K_STAY] = 1  # first player: let the other open
                else:
                    lg[K_DRAW] = 1  # second player after a STAY: check, go to the draw
            else:
                lg[K_CALL] = 1  # first player after the draw: show down now
            can_more = cme > 0 and cop > 0
            lg[K_BET] = 1 if can_more else 0
        else:
            if ph == PH_PRE_DRAW:
                lg[K_DRAW] = 1  # call the bet and go to the draw
            else:
                lg[K_CALL] = 1
            # RULES.md §1: raises stop at max_raises per round.
            can_more = s[S_RAISES] < cfg[C_MAX_RAISES] and cme > to_call and cop > 0
            lg[K_RAISE] = 1 if can_more else 0
        if can_more:
            # At least min_bet (or all one has), at most what one holds and what the
            # opponent can still call; a min_bet the opponent cannot cover is allowed
            # (a short all-in call returns the excess).
            room = cme - to_call
            lo = min(cfg[C_MIN_BET], room)
            hi = max(lo, min(room, cop))
            lg[LG_LO] = lo
            lg[LG_HI] = hi
    elif ph == PH_DRAW:
        lg[K_DISCARD] = 1
        lg[LG_LO] = 0
        lg[LG_HI] = 31
    elif ph == PH_BUY_BACK:
        lg[K_BUY_BACK] = 1
        lg[K_SKIP_BUY_BACK] = 1


@njit(cache=True, _nrt=False)
def _award(s: NDArray[np.int64], cfg: NDArray[np.int64], winner: int, how: int) -> None:
    mask = 0
    for i in range(MAX_ITEMS):
        if s[S_ITEMS + i] == ITEM_AT_STAKE:
            mask |= 1 << i
    s[S_STAKE_MASK] = mask
    s[S_POT_WON] = s[S_POT]
    s[S_STACK + winner] += s[S_POT]
    s[S_POT] = 0
    settle_stakes(s, cfg, winner == COMPUTER)
    s[S_RESULT] = winner
    s[S_HOW] = how


@njit(cache=True, _nrt=False, inline="always")
def _end_round(s: NDArray[np.int64]) -> None:
    s[S_BET] = 0
    s[S_BET + 1] = 0
    s[S_RAISES] = 0
    s[S_ROUND_ACTIONS] = 0
    s[S_TO_ACT] = s[S_FIRST]


@njit(cache=True, _nrt=False, inline="always")
def _call(s: NDArray[np.int64], cfg: NDArray[np.int64], seat: int) -> int:
    opp = 1 - seat
    to_call = s[S_BET + opp] - s[S_BET + seat]
    amount = min(to_call, capacity(s, cfg, seat))
    if amount > 0:
        _pay(s, cfg, seat, amount, True)
    excess = to_call - amount
    if excess > 0:
        # RULES.md §1: a short all-in call; the excess returns to the bettor.
        s[S_POT] -= excess
        s[S_BET + opp] -= excess
        s[S_STACK + opp] += excess
    return int(amount)


@njit(cache=True, _nrt=False)
def _showdown(s: NDArray[np.int64], cfg: NDArray[np.int64], tables: Any) -> None:
    r0 = eval_cards(s[S_HANDS : S_HANDS + 5], tables)
    r1 = eval_cards(s[S_HANDS + 5 : S_HANDS + 10], tables)
    s[S_RANK] = r0
    s[S_RANK + 1] = r1
    s[S_PHASE] = PH_HAND_END
    if r0 == r1:
        # RULES.md §1: a tie leaves the whole pot where it is; stakes stay pending.
        s[S_RESULT] = RES_TIE
        s[S_HOW] = HOW_SHOWDOWN
    else:
        _award(s, cfg, 0 if r0 > r1 else 1, HOW_SHOWDOWN)


@njit(cache=True)
def apply_action(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    tables: Any,
    rbuf: NDArray[np.float64],
    kind: int,
    amount: int,
) -> int:
    """Apply one action of the seat to act; returns ST_OK or an error code (state unchanged).

    After a decided or tied pot the phase is PH_HAND_END: call :func:`next_hand`.
    """
    if kind < 0 or kind >= NUM_KINDS:
        return ST_BAD_KIND
    lg = np.empty(LG_SIZE, np.int64)
    legal(s, cfg, lg)
    if lg[kind] == 0:
        return ST_ILLEGAL
    if (kind == K_BET or kind == K_RAISE or kind == K_DISCARD) and (
        amount < lg[LG_LO] or amount > lg[LG_HI]
    ):
        return ST_BAD_AMOUNT
    apply_legal(s, cfg, tables, rbuf, kind, amount)
    return ST_OK


@njit(cache=True, _nrt=False)
def apply_legal(
    s: NDArray[np.int64],
    cfg: NDArray[np.int64],
    tables: Any,
    rbuf: NDArray[np.float64],
    kind: int,
    amount: int,
) -> None:
    """The effect of an action already checked by :func:`legal` (the env drivers check
    it through the action mask); :func:`apply_action` is the checked entry point."""
    seat = s[S_TO_ACT]
    opp = 1 - seat
    if kind == K_DROP:
        _push_hist(s, seat, kind, 0)
        s[S_PHASE] = PH_HAND_END
        _award(s, cfg, opp, HOW_DROP)
    elif kind == K_STAY:
        _push_hist(s, seat, kind, 0)
        s[S_ROUND_ACTIONS] += 1
        s[S_TO_ACT] = opp
    elif kind == K_BET or kind == K_RAISE:
        to_call = s[S_BET + opp] - s[S_BET + seat]
        _pay(s, cfg, seat, to_call + amount, True)
        _push_hist(s, seat, kind, amount)
        if kind == K_RAISE:
            s[S_RAISES] += 1
        s[S_ROUND_ACTIONS] += 1
        s[S_TO_ACT] = opp
    elif kind == K_DRAW:
        # Pre-draw only: a check after STAY, or a call of the bet; then the draw.
        put = _call(s, cfg, seat)
        _push_hist(s, seat, kind, put)
        _end_round(s)
        s[S_PHASE] = PH_DRAW
    elif kind == K_CALL:
        put = _call(s, cfg, seat)
        _push_hist(s, seat, kind, put)
        _end_round(s)
        _showdown(s, cfg, tables)
    elif kind == K_DISCARD:
        num = 0
        for i in range(5):
            if (amount >> i) & 1:
                s[S_HANDS + 5 * seat + i] = _next_card(s, cfg, rbuf)
                num += 1
        s[S_DRAWN + seat] = num
        # RULES.md §1: the number of cards drawn is public (kept in the history).
        _push_hist(s, seat, kind, num)
        if seat == s[S_FIRST]:
            s[S_TO_ACT] = opp
        else:
            s[S_PHASE] = PH_POST_DRAW
            s[S_TO_ACT] = s[S_FIRST]
    elif kind == K_BUY_BACK:
        # Kept for the hand history (RULES.md Everywhere: every event is recorded).
        s[S_BOUGHT_BACK] = buy_back(s, cfg) + 1
        begin_hand(s, cfg, rbuf)
    elif kind == K_SKIP_BUY_BACK:
        begin_hand(s, cfg, rbuf)


@njit(cache=True, _nrt=False)
def _end_match(s: NDArray[np.int64], cfg: NDArray[np.int64], winner: int) -> None:
    # A pot left by a tie goes to the match winner and settles the stakes.
    s[S_MATCH_WINNER] = winner
    _award(s, cfg, winner, HOW_ANTE)
    s[S_PHASE] = PH_MATCH_END


@njit(cache=True, _nrt=False)
def begin_hand(s: NDArray[np.int64], cfg: NDArray[np.int64], rbuf: NDArray[np.float64]) -> None:
    """Ante, shuffle and deal the next hand; or end the match when an ante cannot be paid."""
    ante = cfg[C_ANTE]
    # RULES.md §1 match end: the human loses when he cannot pay the ante; the
    # computer when she cannot pay it and has no item left to stake.
    if capacity(s, cfg, HUMAN) < ante:
        _end_match(s, cfg, COMPUTER)
        return
    if capacity(s, cfg, COMPUTER) < ante:
        _end_match(s, cfg, HUMAN)
        return
    s[S_HAND_NO] += 1
    # RULES.md §1: who acts first alternates from hand to hand.
    s[S_FIRST] = 1 - s[S_FIRST]
    _pay(s, cfg, HUMAN, ante, False)
    _pay(s, cfg, COMPUTER, ante, False)
    s[S_BET] = 0
    s[S_BET + 1] = 0
    s[S_RAISES] = 0
    s[S_ROUND_ACTIONS] = 0
    s[S_DRAWN] = -1
    s[S_DRAWN + 1] = -1
    s[S_RESULT] = RES_NONE
    s[S_HOW] = -1
    s[S_RANK] = -1
    s[S_RANK + 1] = -1
    s[S_HIST_N] = 0
    n = cfg[C_NUM_CARDS]
    first_card = 52 - n
    for i in range(n):
        s[S_DECK + i] = first_card + i
    s[S_DECK_POS] = 0
    for i in range(10):
        s[S_HANDS + i] = _next_card(s, cfg, rbuf)
    s[S_PHASE] = PH_PRE_DRAW
    s[S_TO_ACT] = s[S_FIRST]


@njit(cache=True, _nrt=False)
def next_hand(s: NDArray[np.int64], cfg: NDArray[np.int64], rbuf: NDArray[np.float64]) -> None:
    """Between hands (phase PH_HAND_END): the buy-back, then the next deal."""
    s[S_BOUGHT_BACK] = 0
    if can_buy_back(s, cfg):
        if cfg[C_BUYBACK_DECIDE] == 1:
            s[S_PHASE] = PH_BUY_BACK
            s[S_TO_ACT] = COMPUTER
            return
        if default_wants_buy_back(s, cfg):
            # Kept for the hand history (RULES.md Everywhere: every event is recorded).
            s[S_BOUGHT_BACK] = buy_back(s, cfg) + 1
    begin_hand(s, cfg, rbuf)


@njit(cache=True, _nrt=False)
def start_match(s: NDArray[np.int64], cfg: NDArray[np.int64], rbuf: NDArray[np.float64]) -> None:
    """A fresh match: money, wardrobe, a coin flip for who acts first, the first deal."""
    cursor = s[S_CURSOR]
    for i in range(NUM_COLS):
        s[i] = 0
    s[S_CURSOR] = cursor
    s[S_STACK] = cfg[C_START]
    s[S_STACK + 1] = cfg[C_START]
    s[S_MATCH_WINNER] = -1
    s[S_RESULT] = RES_NONE
    reset_wardrobe(s, cfg)
    # RULES.md §1 leaves the first hand's first player open: a fair coin.
    first = 1 if _uniform(s, rbuf) < 0.5 else 0
    s[S_FIRST] = 1 - first  # begin_hand alternates it
    begin_hand(s, cfg, rbuf)


@njit(cache=True, _nrt=False)
def chips_total(s: NDArray[np.int64]) -> int:
    """Stacks + pot + bank: constant (2 x starting money) over a whole match."""
    return int(s[S_STACK] + s[S_STACK + 1] + s[S_POT] + s[S_BANK])
