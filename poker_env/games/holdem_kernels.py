"""Compiled Texas Hold'em rules (RULES.md §3): the one implementation every layer drives.

A table's whole state is one ``int64`` row (a batch is a 2-D array of rows); the
field offsets below are its layout. Every function here is ``@njit(cache=True)``,
works on such a row, and returns a status code instead of raising: ``OK`` (0) or
a negative ``ERR_*`` code that the Python facade (:mod:`poker_env.games.holdem`)
turns into an :class:`~poker_env.errors.IllegalActionError`. A refused action
changes nothing.

Showdown ranks come from the evaluator (``eval_cards`` with the tables of
``get_tables()``); the rules never rank cards themselves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from poker_env.evaluator.kernels import eval_key
from poker_env.evaluator.tables import EvalTables
from poker_env.games._bits import popcount, trailing_zeros
from poker_env.rng import GOLDEN, below, draw, mix, next_u64, uniform

MAX_SEATS = 10

# Hot kernels index seat blocks with unsigned indices (``_U(STACK) + _U(q)``):
# numba then emits no negative-index wraparound code for the access.
_U = np.uintp

# Scalar fields of a state row.
PHASE = 0
STREET = 1
NUM_SEATS = 2
BUTTON = 3
SB = 4
BB = 5
TO_ACT = 6
CUR_BET = 7
LAST_RAISE = 8
BASE = 9
MAX_BET = 10
RULES = 11
PENALTY_TO = 12
BANK = 13
SKIP = 14
POT_EXTRA = 15
NUM_DEALT = 16
HEADS_UP = 17
NUM_BOARD = 18
DEPARTED = 19
# Counts kept up to date by every status change and every chip put in, so that
# the hot paths need no pass over the seats: players ACTIVE, players ALLIN, and
# the chips committed this hand (the sum of COMMIT).
NUM_ACTIVE = 20
NUM_ALLIN = 21
COMMITTED = 22
# Fields 24..31 belong to the env driver (poker_env.episode.holdem).
ENV_FIELDS = 24
# Per-seat blocks.
STACK = 32
BET = STACK + MAX_SEATS
COMMIT = BET + MAX_SEATS
STATUS = COMMIT + MAX_SEATS
ACTED = STATUS + MAX_SEATS  # the bet level a seat last acted at this round, -1 if it has not
WON = ACTED + MAX_SEATS
START_STACK = WON + MAX_SEATS
RANK = START_STACK + MAX_SEATS  # showdown rank from the evaluator, -1 if not shown
HOLE = RANK + MAX_SEATS  # two cards a seat
BOARD = HOLE + 2 * MAX_SEATS  # five cards, revealed NUM_BOARD at a time
DECK = BOARD + 5  # the 52-card order the hand was dealt from
STREET_PUT = DECK + 52  # chips put in per street and seat: [street * MAX_SEATS + seat]
STREET_RAISES = STREET_PUT + 4 * MAX_SEATS  # bets and raises per street
# Scratch space, so that hot kernels allocate nothing (not game state: a refused
# action may leave scratch values behind).
SCR_LEGAL = STREET_RAISES + 4
SCR_LEVELS = SCR_LEGAL + 8
SCR_MASK = SCR_LEVELS + MAX_SEATS
SCR_AMOUNTS = SCR_MASK + 16
MAX_ACTIONS = 16  # scratch room for discrete actions (encoding: 4 + at most 12 fractions)
SCR_CHOSEN = SCR_AMOUNTS + MAX_ACTIONS  # the legal discrete actions, listed
STATE_SIZE = SCR_CHOSEN + MAX_ACTIONS

# Phases.
PHASE_IDLE = 0  # between hands
PHASE_BETTING = 1  # a hand is running and TO_ACT must act
PHASE_OVER = 2  # the hand is decided and paid (WON holds the payouts)

# Seat status.
EMPTY = 0
SEATED = 1  # seated, not in a hand (between hands, or no chips)
ACTIVE = 2  # in the hand with chips behind
ALLIN = 3
FOLDED = 4
LEFT = 5  # left during this hand ("escape")

# Action kinds.
FOLD = 0
CHECK_CALL = 1
RAISE_TO = 2
ALL_IN = 3
LEAVE = 4

# Rule profiles and penalty targets.
RULES_SEED = 0
RULES_STANDARD = 1
PENALTY_BURN = 0
PENALTY_POT = 1

# Status codes.
OK = 0
ERR_NO_HAND = -1
ERR_NOT_YOUR_TURN = -2
ERR_NOTHING_TO_FOLD = -3
ERR_RAISE_CLOSED = -4
ERR_AMOUNT = -5
ERR_SEAT = -6
ERR_KIND = -7
ERR_TOO_FEW = -8
ERR_HAND_RUNNING = -9

# Layout of the legality query's output.
L_SEAT = 0
L_CAN_FOLD = 1
L_CALL = 2  # chips a check/call puts in (0 = check)
L_CAN_RAISE = 3
L_MIN_TO = 4
L_MAX_TO = 5
L_CAN_ALLIN = 6  # 1 whenever a seat is to act (RULES.md §3)
L_ALLIN_TO = 7  # the round total after ALL_IN: the whole stack, or the call where raising is closed
LEGAL_SIZE = 8

PENALTY_MULTIPLE = 10  # RULES.md §3: escape penalty D = 10 × E


@njit(cache=True, _nrt=False)
def new_table(
    s: np.ndarray, num_seats: int, base: int, max_bet: int, rules: int, penalty_to: int
) -> None:
    """Clear a row into an empty table of ``num_seats`` seats (no cards held or shown)."""
    # The board and the deck are not cleared: every hand deals them before they are
    # read (NUM_BOARD counts the board cards shown), and the scratch is scratch.
    # Clearing the whole row cost about as much as dealing a hand.
    for j in range(BOARD):
        s[_U(j)] = 0
    for j in range(STREET_PUT, SCR_LEGAL):
        s[_U(j)] = 0
    s[NUM_SEATS] = num_seats
    s[BASE] = base
    s[MAX_BET] = max_bet
    s[RULES] = rules
    s[PENALTY_TO] = penalty_to
    s[BUTTON] = -1
    s[SB] = -1
    s[BB] = -1
    s[TO_ACT] = -1
    for q in range(MAX_SEATS):
        s[ACTED + q] = -1
        s[RANK + q] = -1
        s[HOLE + 2 * q] = -1
        s[HOLE + 2 * q + 1] = -1


@njit(cache=True, _nrt=False, inline="always")
def _is_seated(st: int) -> bool:
    return st == ACTIVE or st == ALLIN or st == FOLDED


@njit(cache=True, _nrt=False, inline="always")
def _in_hand(st: int) -> bool:
    return st == ACTIVE or st == ALLIN


@njit(cache=True, _nrt=False, inline="always")
def clockwise(seat: int, i: int, n: int) -> int:
    """``(seat + i) % n`` for ``0 <= seat < n``, ``0 <= i <= n`` (no division in seat loops)."""
    q = seat + i
    return q - n if q >= n else q


@njit(cache=True, _nrt=False, inline="always")
def first_clockwise(seats: int, seat: int, inclusive: bool, n: int) -> int:
    """First seat clockwise from ``seat`` (itself first when ``inclusive``, else last)
    whose bit is set in ``seats`` (bit q = seat q), or -1 if none.

    Bit arithmetic instead of a loop that stops at the seat found: where it stops
    follows the random game, so a loop's exit branch would be mispredicted often.
    """
    start = seat + 1 - np.int64(inclusive)  # 0..n
    both = np.int64(seats) | (np.int64(seats) << n)  # seats twice: clockwise is upward
    rest = both >> start
    q = start + trailing_zeros(rest)
    q = q - n if q >= n else q
    return int(-1 if rest == 0 else q)


@njit(cache=True, _nrt=False, inline="always")
def seats_with_status(s: np.ndarray, status: int) -> int:
    """Bit set of the seats with ``status`` (bit q = seat q)."""
    bits = np.int64(0)
    for q in range(s[NUM_SEATS]):
        bits |= np.int64(s[_U(STATUS) + _U(q)] == status) << q
    return int(bits)


@njit(cache=True, _nrt=False, inline="always")
def seats_with_chips(s: np.ndarray) -> int:
    """Bit set of the seats that can play the next hand: SEATED with chips (bit q = seat q)."""
    bits = np.int64(0)
    for q in range(s[NUM_SEATS]):
        uq = _U(q)
        bits |= np.int64((s[_U(STATUS) + uq] == SEATED) & (s[_U(STACK) + uq] > 0)) << q
    return int(bits)


@njit(cache=True, _nrt=False, inline="always")
def next_with_status(s: np.ndarray, seat: int, status: int, inclusive: bool) -> int:
    """First seat clockwise from ``seat`` (itself first when ``inclusive``) with ``status``."""
    return int(first_clockwise(seats_with_status(s, status), seat, inclusive, s[NUM_SEATS]))


@njit(cache=True, _nrt=False, inline="always")
def count_status(s: np.ndarray, status: int) -> int:
    c = 0
    for q in range(s[NUM_SEATS]):
        if s[STATUS + q] == status:
            c += 1
    return c


@njit(cache=True, _nrt=False, inline="always")
def num_in_hand(s: np.ndarray) -> int:
    """Players still in the hand (ACTIVE or ALLIN)."""
    return int(s[NUM_ACTIVE] + s[NUM_ALLIN])


@njit(cache=True, _nrt=False, inline="always")
def pot_total(s: np.ndarray) -> int:
    """Every chip in the pots of the running hand (commitments and penalties paid to it)."""
    return int(s[COMMITTED] + s[POT_EXTRA])


@njit(cache=True, _nrt=False, inline="always")
def _set_status(s: np.ndarray, seat: int, status: int) -> None:
    # The one place a status changes during a hand (keeps NUM_ACTIVE / NUM_ALLIN).
    # No branch: setting a seat's status to the one it has changes no count.
    u = _U(STATUS) + _U(seat)
    old = s[u]
    s[NUM_ACTIVE] += (status == ACTIVE) - (old == ACTIVE)
    s[NUM_ALLIN] += (status == ALLIN) - (old == ALLIN)
    s[u] = status


@njit(cache=True, _nrt=False, inline="always")
def _put(s: np.ndarray, seat: int, amount: int) -> None:
    u = _U(seat)
    left = s[_U(STACK) + u] - amount
    s[_U(STACK) + u] = left
    s[_U(BET) + u] += amount
    s[_U(COMMIT) + u] += amount
    s[COMMITTED] += amount
    s[_U(STREET_PUT) + _U(s[STREET] * MAX_SEATS) + u] += amount
    # An ACTIVE player left with no chips is all-in (chosen without a branch).
    st = s[_U(STATUS) + u]
    _set_status(s, seat, ALLIN if (left == 0) & (st == ACTIVE) else st)


@njit(cache=True, _nrt=False, inline="always")
def next_button(s: np.ndarray, changed: bool, draw: int) -> int:
    """The dealer seat for the next hand among seated players with chips.

    RULES.md §3: random (``draw`` picks among them) for the first hand or after
    anyone joined or left; else one seat clockwise.
    """
    seats = seats_with_chips(s)
    if seats == 0:
        return -1
    prev = s[BUTTON]
    if changed or prev < 0:
        # The (draw % count)-th of them in seat order: drop the lowest set bit k times.
        for _ in range(draw % popcount(seats)):
            seats &= seats - 1
        return int(trailing_zeros(seats))
    return int(first_clockwise(seats, prev, False, s[NUM_SEATS]))


@njit(cache=True, _nrt=False, inline="always")
def _start_error(s: np.ndarray, button: int) -> int:
    # Why a hand cannot start with the dealer at ``button`` (OK if it can).
    if s[PHASE] == PHASE_BETTING:
        return ERR_HAND_RUNNING
    seats = seats_with_chips(s)
    if popcount(seats) < 2:
        return ERR_TOO_FEW
    if button < 0 or button >= s[NUM_SEATS] or (seats >> button) & 1 == 0:
        return ERR_SEAT
    return OK


@njit(cache=True, _nrt=False)
def start_hand(s: np.ndarray, deck: np.ndarray, button: int, tables: EvalTables) -> int:
    """Deal a hand from ``deck`` (52 cards) with the dealer at ``button``; post the blinds."""
    code = _start_error(s, button)
    if code != OK:
        return int(code)
    for i in range(52):
        s[DECK + i] = deck[i]
    return int(_deal_and_post(s, button, tables))


@njit(cache=True, _nrt=False)
def start_hand_dealt(s: np.ndarray, button: int, tables: EvalTables) -> int:
    """:func:`start_hand` from the deck already in the row (``s[DECK : DECK + 52]``)."""
    code = _start_error(s, button)
    if code != OK:
        return int(code)
    return int(_deal_and_post(s, button, tables))


@njit(cache=True, _nrt=False, inline="always")
def _deal_and_post(s: np.ndarray, button: int, tables: EvalTables) -> int:
    # start_hand once its arguments are checked and the deck is in s[DECK : DECK + 52].
    n = s[NUM_SEATS]
    seats = seats_with_chips(s)
    cnt = popcount(seats)
    # Only the table's seats are reset: seats n.. keep the values new_table gave
    # them (the rules write nothing else there; a test checks it).
    for q in range(n):
        uq = _U(q)
        # SEATED with chips (bit set) becomes ACTIVE; any other status stays.
        st = s[_U(STATUS) + uq]
        s[_U(STATUS) + uq] = ACTIVE if (seats >> q) & 1 else st
        s[_U(BET) + uq] = 0
        s[_U(COMMIT) + uq] = 0
        s[_U(ACTED) + uq] = -1
        s[_U(WON) + uq] = 0
        s[_U(RANK) + uq] = -1
        s[_U(START_STACK) + uq] = s[_U(STACK) + uq]
        s[_U(HOLE) + _U(2) * uq] = -1
        s[_U(HOLE + 1) + _U(2) * uq] = -1
    for i in range(4 * MAX_SEATS + 4):  # STREET_PUT, then STREET_RAISES
        s[_U(STREET_PUT + i)] = 0
    s[PHASE] = PHASE_BETTING
    s[STREET] = 0
    s[NUM_BOARD] = 0
    s[SKIP] = 0
    s[POT_EXTRA] = 0
    s[NUM_DEALT] = cnt
    s[NUM_ACTIVE] = cnt
    s[NUM_ALLIN] = 0
    s[COMMITTED] = 0
    s[HEADS_UP] = 1 if cnt == 2 else 0
    s[BUTTON] = button
    # RULES.md §3: two players, the dealer posts the small blind.
    sb = button if cnt == 2 else next_with_status(s, button, ACTIVE, False)
    bb = next_with_status(s, sb, ACTIVE, False)
    s[SB] = sb
    s[BB] = bb
    # RULES.md §3: hole cards one at a time, starting at the small blind.
    k = _U(DECK)
    for r in range(2):
        for i in range(n):
            uq = _U(clockwise(sb, i, n))
            if s[_U(STATUS) + uq] == ACTIVE:
                s[_U(HOLE + r) + _U(2) * uq] = s[k]
                k += _U(1)
    for i in range(5):
        s[_U(BOARD + i)] = s[k + _U(i)]
    base = s[BASE]
    _put(s, sb, min(base // 2, s[STACK + sb]))
    _put(s, bb, min(base, s[STACK + bb]))
    s[CUR_BET] = max(s[BET + sb], s[BET + bb])
    s[LAST_RAISE] = base
    # RULES.md §3: pre-flop, the others act clockwise after the big blind.
    return int(_continue_from(s, bb, tables))


@njit(cache=True, _nrt=False, inline="always")
def _next_pending(s: np.ndarray, seat: int, inclusive: bool) -> int:
    return int(_next_pending_among(s, seat, inclusive, s[NUM_ACTIVE]))


@njit(cache=True, _nrt=False, inline="always")
def _next_pending_among(s: np.ndarray, seat: int, inclusive: bool, na: int) -> int:
    # na: the number of ACTIVE seats (the caller may have counted them already).
    # A seat still has to act if it is ACTIVE and below the current bet, or has not
    # acted this round while another ACTIVE player could still answer it. Found for
    # every seat without branches, then the first one clockwise.
    n = s[NUM_SEATS]
    cur = s[CUR_BET]
    unopened = na >= 2
    bits = np.int64(0)
    for q in range(n):
        uq = _U(q)
        pending = (s[_U(STATUS) + uq] == ACTIVE) & (
            (s[_U(BET) + uq] < cur) | ((s[_U(ACTED) + uq] < 0) & unopened)
        )
        bits |= np.int64(pending) << q
    return int(first_clockwise(bits, seat, inclusive, n))


@njit(cache=True, _nrt=False, inline="always")
def _continue_from(s: np.ndarray, seat: int, tables: EvalTables) -> int:
    """After ``seat`` acted (or left): the next to act, or the end of the round or hand."""
    num_active = s[NUM_ACTIVE]
    if num_active + s[NUM_ALLIN] <= 1:
        _award_uncontested(s)
        return OK
    q = _next_pending_among(s, seat, False, num_active)
    if q >= 0:
        s[TO_ACT] = q
        return OK
    _end_round(s, tables)
    return OK


@njit(cache=True, _nrt=False)
def _end_round(s: np.ndarray, tables: EvalTables) -> None:
    # RULES.md §3, seed profile: once a player is all-in and the others called,
    # the remaining rounds are dealt with no betting.
    if s[RULES] == RULES_SEED and s[NUM_ALLIN] > 0:
        s[SKIP] = 1
    while True:
        if s[STREET] == 3:
            _showdown(s, tables)
            return
        s[STREET] += 1
        s[NUM_BOARD] = s[STREET] + 2
        for q in range(MAX_SEATS):
            s[BET + q] = 0
            s[ACTED + q] = -1
        s[CUR_BET] = 0
        # RULES.md §3: after the flop the smallest bet is E.
        s[LAST_RAISE] = s[BASE]
        if s[SKIP] == 1 or s[NUM_ACTIVE] < 2:
            continue
        # RULES.md §3: the first player still in from the small blind's seat acts
        # first; standard heads-up, the big blind. Both roles as they are now: an
        # escape shifts them (_pass_roles) and may make the hand heads-up.
        start = s[SB]
        if s[RULES] == RULES_STANDARD and s[HEADS_UP] == 1:
            start = s[BB]
        s[TO_ACT] = next_with_status(s, start, ACTIVE, True)
        return


@njit(cache=True, _nrt=False, inline="always")
def _award_uncontested(s: np.ndarray) -> None:
    n = s[NUM_SEATS]
    total = pot_total(s)
    for q in range(n):
        if _in_hand(s[STATUS + q]):
            s[WON + q] = total
            s[STACK + q] += total
    s[POT_EXTRA] = 0
    s[TO_ACT] = -1
    s[PHASE] = PHASE_OVER


@njit(cache=True, _nrt=False)
def _showdown(s: np.ndarray, tables: EvalTables) -> None:
    n = s[NUM_SEATS]
    s[NUM_BOARD] = 5
    # The evaluator's additive hand state: the board's once, plus each player's hole cards.
    keys = tables.card_keys
    masks = tables.card_masks
    board_key = np.uint64(0)
    board_mask = np.uint64(0)
    for i in range(5):
        c = s[BOARD + i]
        board_key += keys[c]
        board_mask |= masks[c]
    for q in range(n):
        if _in_hand(s[STATUS + q]):
            c0 = s[HOLE + 2 * q]
            c1 = s[HOLE + 2 * q + 1]
            s[RANK + q] = eval_key(
                board_key + keys[c0] + keys[c1], board_mask | masks[c0] | masks[c1], tables
            )
    distribute(s)


@njit(cache=True, _nrt=False, inline="always")
def _split(s: np.ndarray, pot: int, win_mask: int, button: int) -> None:
    # RULES.md §3: equal best hands split a pot; the odd chips go to the first of
    # them clockwise from the dealer (the seat after the dealer first, the dealer last).
    n = s[NUM_SEATS]
    num_win = 0
    for q in range(n):
        if (win_mask >> q) & 1:
            num_win += 1
    share = pot // num_win
    odd = pot - share * num_win
    for i in range(1, n + 1):
        q = (button + i) % n
        if (win_mask >> q) & 1:
            s[WON + q] += share + odd
            odd = 0


@njit(cache=True, _nrt=False)
def distribute(s: np.ndarray) -> None:
    """Pay the main pot and side pots by the ranks in ``RANK`` (RULES.md §3).

    A player wins at most what each opponent matched: one pot per distinct
    commitment level of the players still in. Dead money above the top level and
    penalties paid to the pot go to the main pot. Equal best hands split a pot;
    the odd chips go to the first winner clockwise from the dealer. Consecutive
    pots won by the same players are split as one (as PokerKit does), so that
    their odd chips are not counted twice.
    """
    n = s[NUM_SEATS]
    levels = s[SCR_LEVELS : SCR_LEVELS + MAX_SEATS]
    nl = 0
    top = 0
    for q in range(n):
        if _in_hand(s[STATUS + q]):
            c = s[COMMIT + q]
            dup = False
            for j in range(nl):
                if levels[j] == c:
                    dup = True
            if not dup:
                levels[nl] = c
                nl += 1
            top = max(top, c)
    for i in range(1, nl):  # insertion sort of at most ten levels
        v = levels[i]
        j = i - 1
        while j >= 0 and levels[j] > v:
            levels[j + 1] = levels[j]
            j -= 1
        levels[j + 1] = v
    extra = s[POT_EXTRA]
    for q in range(n):
        if s[COMMIT + q] > top:
            extra += s[COMMIT + q] - top
    prev = 0
    button = s[BUTTON]
    pending = 0  # chips of consecutive pots won by the same players, split once
    pending_mask = 0
    for li in range(nl):
        lvl = levels[li]
        pot = extra if li == 0 else 0
        for q in range(n):
            c = s[COMMIT + q]
            pot += min(c, lvl) - min(c, prev)
        best = -1
        win_mask = 0
        for q in range(n):
            if _in_hand(s[STATUS + q]) and s[COMMIT + q] >= lvl:
                r = s[RANK + q]
                if r > best:
                    best = r
                    win_mask = 1 << q
                elif r == best:
                    win_mask |= 1 << q
        if pending > 0 and win_mask != pending_mask:
            _split(s, pending, pending_mask, button)
            pending = 0
        pending += pot
        pending_mask = win_mask
        prev = lvl
    if pending > 0:
        _split(s, pending, pending_mask, button)
    for q in range(n):
        s[STACK + q] += s[WON + q]
    s[POT_EXTRA] = 0
    s[TO_ACT] = -1
    s[PHASE] = PHASE_OVER


@njit(cache=True, _nrt=False, inline="always")
def legal(s: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (``LEGAL_SIZE``) with the acting seat's legal actions and bounds."""
    p = s[TO_ACT]
    if s[PHASE] != PHASE_BETTING or p < 0:
        for i in range(LEGAL_SIZE):
            out[i] = 0
        out[L_SEAT] = -1
        return
    # Every entry is written below.
    out[L_SEAT] = p
    up = _U(p)
    stack = s[_U(STACK) + up]
    bet = s[_U(BET) + up]
    cur = s[CUR_BET]
    to_call = cur - bet
    # Folding with nothing to call is refused (as in PokerKit): a free check exists.
    out[L_CAN_FOLD] = 1 if to_call > 0 else 0
    out[L_CALL] = min(to_call, stack)
    allin_to = bet + stack
    # Standard no-limit: an all-in for less than a full raise does not reopen the
    # raising for a player who already acted (RULES.md §3).
    # Written with & and | on booleans, not `and` / `or`: the conditions follow the
    # random game, and each short-circuit would be a branch the CPU mispredicts often.
    acted = s[_U(ACTED) + up]
    reopened = (acted < 0) | (cur - acted >= s[LAST_RAISE])
    # A raise needs an opponent who could put in more than the current bet (as in
    # PokerKit); otherwise its excess would only come back.
    others = False
    for q in range(s[NUM_SEATS]):
        uq = _U(q)
        others |= (
            (q != p) & (s[_U(STATUS) + uq] == ACTIVE) & (s[_U(BET) + uq] + s[_U(STACK) + uq] > cur)
        )
    can_raise = (stack > to_call) & reopened & others
    lo = cur + s[LAST_RAISE]
    hi = allin_to
    cap = s[MAX_BET]
    hi = cap if (cap > 0) & (hi > cap) else hi
    # RULES.md §3: no raise beyond the system maximum `max_bet`.
    lo = hi if (lo > hi) & (cap > 0) & (hi == cap) & (hi > cur) else lo
    raise_ok = can_raise & (lo <= hi)
    out[L_CAN_RAISE] = raise_ok
    out[L_MIN_TO] = lo if raise_ok else 0
    out[L_MAX_TO] = hi if raise_ok else 0
    # RULES.md §3: a player can always go all-in for what he has, except where the
    # raising is closed to him (a short all-in did not reopen it, or nobody left
    # could answer a raise): there his "all-in" is a call, to the current bet.
    # (A stack at or below the call is all-in by calling: allin_to <= cur.)
    out[L_CAN_ALLIN] = stack > 0
    out[L_ALLIN_TO] = allin_to if can_raise | (allin_to <= cur) else cur


@njit(cache=True, _nrt=False, inline="always")
def check_action(s: np.ndarray, kind: int, amount: int, lg: np.ndarray) -> int:
    """The one legality check used by both the query and the action; ``lg`` from :func:`legal`."""
    legal(s, lg)
    if lg[L_SEAT] < 0:
        return ERR_NO_HAND
    if kind == FOLD:
        return OK if lg[L_CAN_FOLD] == 1 else ERR_NOTHING_TO_FOLD
    if kind == CHECK_CALL:
        return OK
    if kind == RAISE_TO:
        if lg[L_CAN_RAISE] == 0:
            return ERR_RAISE_CLOSED
        if amount < lg[L_MIN_TO] or amount > lg[L_MAX_TO]:
            return ERR_AMOUNT
        return OK
    if kind == ALL_IN:
        return OK if lg[L_CAN_ALLIN] == 1 else ERR_RAISE_CLOSED
    return ERR_KIND


@njit(cache=True, _nrt=False)
def act(s: np.ndarray, kind: int, amount: int, tables: EvalTables) -> int:
    """Apply the acting seat's action; returns ``OK`` or an ``ERR_*`` code (nothing changed)."""
    lg = s[SCR_LEGAL : SCR_LEGAL + LEGAL_SIZE]
    code = check_action(s, kind, amount, lg)
    if code != OK:
        return int(code)
    return int(act_legal(s, kind, amount, tables))


@njit(cache=True, _nrt=False, inline="always")
def act_legal(s: np.ndarray, kind: int, amount: int, tables: EvalTables) -> int:
    """:func:`act` for an action already found legal by :func:`legal` (its output still in
    the row's scratch ``SCR_LEGAL``, nothing changed since): a driver that picks among the
    legal actions it was just given does not run the legality query twice."""
    lg = s[SCR_LEGAL : SCR_LEGAL + LEGAL_SIZE]
    p = s[TO_ACT]
    cur = s[CUR_BET]
    if kind == FOLD:
        _set_status(s, p, FOLDED)
    elif kind == CHECK_CALL:
        _put(s, p, lg[L_CALL])  # a check puts in 0 chips
    else:
        target = amount if kind == RAISE_TO else lg[L_ALLIN_TO]
        # (an all-in that only calls raises nothing): without branches on the amounts
        raised = target > cur
        full = target - cur >= s[LAST_RAISE]
        s[LAST_RAISE] = target - cur if raised & full else s[LAST_RAISE]
        s[CUR_BET] = target if raised else cur
        s[_U(STREET_RAISES) + _U(s[STREET])] += raised
        _put(s, p, target - s[_U(BET) + _U(p)])
    s[_U(ACTED) + _U(p)] = s[CUR_BET]
    return int(_continue_from(s, p, tables))


@njit(cache=True, _nrt=False)
def _pass_roles(s: np.ndarray, seat: int) -> None:
    """Shift the dealer / small-blind / big-blind roles after ``seat`` left (RULES.md §3).

    Called with ``seat``'s status already ``LEFT``. The roles shift one seat
    clockwise over the players still seated (in the hand or folded; busted and
    empty seats are passed over), they do not skip: the leaver's roles go to the
    next player still seated; if that player held a role, *his* roles go on to
    the player after him, and so on, until a player who held no role (or one
    already reached). Six seats, dealer 0, small blind 1, big blind 2: seat 0
    leaves -> 1, 2, 3; seat 1 leaves -> 0, 2, 3; seat 2 leaves -> 0, 1, 3.

    When two players are left seated the hand goes on heads-up, where the dealer
    posts the small blind (RULES.md §3, seed 003's 1VS1 rule): the dealer role
    shifts as above, the dealer also holds the small blind and the other player
    the big blind (``HEADS_UP`` is set, which decides the standard profile's
    post-flop order). One player left holds all three roles.

    Chips already in the pot stay where they are: roles only decide who acts
    first in later rounds, the showdown order and the odd chips (both from the
    dealer). The next hand's dealer is drawn at random anyway (the table changed).
    """
    n = s[NUM_SEATS]
    seated = (
        seats_with_status(s, ACTIVE) | seats_with_status(s, ALLIN) | seats_with_status(s, FOLDED)
    )
    if seated == 0:
        return
    d0 = s[BUTTON]
    sb0 = s[SB]
    bb0 = s[BB]
    d = d0
    sb = sb0
    bb = bb0
    giver = seat
    reached = np.int64(1) << seat
    for _ in range(MAX_SEATS + 1):  # each step reaches a new seat, or stops
        # The roles ``giver`` held before the escape pass to the next seated player.
        if giver != d0 and giver != sb0 and giver != bb0:
            break
        taker = first_clockwise(seated, giver, False, n)
        d = taker if giver == d0 else d
        sb = taker if giver == sb0 else sb
        bb = taker if giver == bb0 else bb
        if (reached >> taker) & 1:
            break
        reached |= np.int64(1) << taker
        giver = taker
    if popcount(seated) <= 2:
        s[HEADS_UP] = 1
        sb = d
        other = seated & ~(np.int64(1) << d)
        bb = trailing_zeros(other) if other != 0 else d
    s[BUTTON] = d
    s[SB] = sb
    s[BB] = bb


@njit(cache=True, _nrt=False)
def leave(s: np.ndarray, seat: int, tables: EvalTables) -> int:
    """Seat ``seat`` leaves during the hand (RULES.md §3 "escape").

    Chips in the pot stay there; the penalty 10 × E comes from the stack (never
    below zero) and goes to the bank or the main pot per ``PENALTY_TO``. The
    leaver's dealer / blind roles shift one seat clockwise (:func:`_pass_roles`).
    The current round goes on clockwise from the seat to act, by the chips put
    in: the blinds already posted stay, and the player who posted the big blind
    keeps his pre-flop option whatever role he holds now. The new roles decide
    who acts first in the later rounds, the showdown order and the odd chips.
    """
    if s[PHASE] != PHASE_BETTING:
        return ERR_NO_HAND
    if seat < 0 or seat >= s[NUM_SEATS] or not _is_seated(s[STATUS + seat]):
        return ERR_SEAT
    was_in = _in_hand(s[STATUS + seat])
    penalty = min(PENALTY_MULTIPLE * s[BASE], s[STACK + seat])
    s[STACK + seat] -= penalty
    if s[PENALTY_TO] == PENALTY_POT:
        s[POT_EXTRA] += penalty
    else:
        s[BANK] += penalty
    _set_status(s, seat, LEFT)
    _pass_roles(s, seat)
    if not was_in:
        return OK
    if num_in_hand(s) <= 1:
        _award_uncontested(s)
        return OK
    if s[TO_ACT] == seat:
        return int(_continue_from(s, seat, tables))
    # The leaver may have been the last player the one to act could bet against.
    q = _next_pending(s, s[TO_ACT], True)
    if q >= 0:
        s[TO_ACT] = q
    else:
        _end_round(s, tables)
    return OK


@njit(cache=True, _nrt=False, inline="always")
def finish_hand(s: np.ndarray, remove_busted: bool) -> bool:
    """Close a decided hand; leavers' stacks leave the table. Returns whether anyone left."""
    changed = False
    n = s[NUM_SEATS]
    for q in range(n):
        st = s[STATUS + q]
        if st == LEFT:
            s[DEPARTED] += s[STACK + q]
            s[STACK + q] = 0
            s[STATUS + q] = EMPTY
            changed = True
        elif st != EMPTY:
            s[STATUS + q] = SEATED
            if remove_busted and s[STACK + q] == 0:
                s[STATUS + q] = EMPTY
                changed = True
        s[BET + q] = 0
    s[NUM_ACTIVE] = 0
    s[NUM_ALLIN] = 0
    s[COMMITTED] = 0
    s[PHASE] = PHASE_IDLE
    s[TO_ACT] = -1
    return changed


@njit(cache=True, _nrt=False)
def table_chips(s: np.ndarray) -> int:
    """Every chip of the table: stacks, pots, the bank and what leavers took away."""
    total = s[BANK] + s[DEPARTED] + s[POT_EXTRA]
    for q in range(s[NUM_SEATS]):
        total += s[STACK + q]
        if s[PHASE] == PHASE_BETTING:
            total += s[COMMIT + q]
    return int(total)


# ---------------------------------------------------------------- random numbers
# A per-table SplitMix64 stream (poker_env.rng, the one copy) lets compiled env code
# shuffle and draw without Python; it is seeded from the env's numpy Generator, so
# same seed, same game. The names below are the rules' words for its draws.
rng_next = next_u64
rng_below = below
rng_uniform = uniform


@njit(cache=True, _nrt=False)
def rng_shuffle(rng: np.ndarray, i: int, deck: np.ndarray) -> None:
    # The stream state stays in a register for the whole shuffle (same numbers
    # as 51 calls of rng_below).
    for j in range(52):
        deck[j] = j
    x = rng[i]
    for j in range(51, 0, -1):
        x += GOLDEN
        k = int(((mix(x) >> np.uint64(32)) * np.uint64(j + 1)) >> np.uint64(32))
        t = deck[j]
        deck[j] = deck[k]
        deck[k] = t
    rng[i] = x


@njit(cache=True, _nrt=False)
def rng_deal(rng: np.ndarray, i: int, deck: np.ndarray, k: int) -> None:
    """Order ``deck`` (52 cards) so that its first ``k`` cards are a uniform random draw.

    A Fisher-Yates shuffle stopped after ``k`` swaps (:func:`poker_env.rng.draw`): the
    first ``k`` positions hold uniformly random distinct cards in random order, the
    rest the cards left (a hand never deals past them). ``k = 52`` shuffles the whole deck.
    """
    for j in range(52):
        deck[_U(j)] = j
    rng[i] = draw(deck, 52, min(k, 51), rng[i])


@njit(cache=True, _nrt=False)
def resample_unseen(s: np.ndarray, seat: int, key: np.uint64, scratch: np.ndarray) -> None:
    """Deal again, from SplitMix64 stream ``key``, the cards ``seat`` has not seen.

    Seen: the seat's hole cards and the board dealt so far. The unseen cards (the
    others' hole cards, folded ones included, and the board to come and the rest of
    the deck) are permuted uniformly among themselves, each value replaced wherever
    it lies: the deck order, the hole cards and the board, which is the deal of the
    permuted deck. ``scratch``: 156 int64 (the unseen cards as found, the same
    shuffled, and the map from a card to its replacement).
    """
    seen = np.int64(0)
    for r in range(2):
        c = s[_U(HOLE + 2 * seat + r)]
        if c >= 0:
            seen |= np.int64(1) << c
    for i in range(s[NUM_BOARD]):
        seen |= np.int64(1) << s[_U(BOARD + i)]
    n = 0
    for p in range(52):
        c = s[_U(DECK + p)]
        scratch[_U(104 + p)] = p  # the map: a seen card stays itself
        if not (seen >> c) & 1:
            scratch[_U(n)] = c
            scratch[_U(52 + n)] = c
            n += 1
    shuffled = scratch[52:104]
    if n > 1:
        draw(shuffled, n, n - 1, key)
    for j in range(n):
        scratch[_U(104 + scratch[_U(j)])] = shuffled[_U(j)]
    for p in range(52):
        s[_U(DECK + p)] = scratch[_U(104 + s[_U(DECK + p)])]
    for i in range(2 * MAX_SEATS):
        c = s[_U(HOLE + i)]
        if c >= 0:
            s[_U(HOLE + i)] = scratch[_U(104 + c)]
    for i in range(5):
        c = s[_U(BOARD + i)]
        if c >= 0:
            s[_U(BOARD + i)] = scratch[_U(104 + c)]
