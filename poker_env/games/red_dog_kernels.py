"""Compiled Red Dog rules (RULES.md §2): the array layout and the ``@njit`` kernels.

A table is one row of :class:`RedDogState`, a batch is many rows; the field
offsets below are the layout. The kernels return status codes (``OK`` or an
``ERR_*``) and raise nothing; the Python facade (:class:`poker_env.games.red_dog.RedDogGame`)
turns a bad code into an :class:`~poker_env.errors.IllegalActionError`, and every
env drives these same functions.

Randomness: a game draws one 64-bit key from the ``numpy.random.Generator`` it is
given, and every later shuffle comes from a per-table splitmix64 stream started
from that key, inside the compiled code. Same generator seed, same game, on every
machine; and a batch of tables with the same keys plays exactly the same games as
single tables, because both run the same kernels.

Speed note: the kernels are compiled with ``_nrt=False`` (numba's reference
counting off). They never allocate, and with reference counting on, every call
of a branching kernel with array arguments paid an atomic incref/decref pair per
array (about 10 ns each), which was most of the time of a step.

The choices where the rule book is silent are listed in
:mod:`poker_env.games.red_dog` and ``docs/red_dog.md``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.games._bits import popcount
from poker_env.rng import GOLDEN, mix, next_u64, uniform

MAX_PLAYERS = 10
MAX_HAND_SIZE = 5
#: RULES.md §2: four cards each when there are more than eight players.
BIG_TABLE_PLAYERS = 8
BIG_TABLE_HAND_SIZE = 4
DRAW_LOG = 64

# Per-table integer fields (columns of RedDogState.ints).
I_POT = 0
I_DEALER = 1
I_TO_ACT = 2
I_PHASE = 3
I_DECK_POS = 4
I_HAND_SIZE = 5
I_DEALS_DONE = 6
I_ROUNDS = 7
I_NUM_PLAYERS = 8
I_ANTE = 9
I_START_CHIPS = 10
I_HAND_SIZE_CFG = 11
I_DRAWN = 12  # cards in the draw log
I_AGENT = 13  # used by the envs: the learning seat
I_BASE = 14  # used by the envs: agent chips at the last reward
I_DECISIONS = 15
I_PUBBITS = 16  # public cards of this deal as bits suit * 16 + rank
NUM_INTS = 17

# Events of the last kernel call (columns of RedDogState.events), read by the facade.
E_SEAT = 0
E_KIND = 1
E_AMOUNT = 2
E_TURNED = 3
E_WON = 4
E_NSHOWN = 5
E_SHOWN = 6  # 5 columns
E_REANTE = 11
E_LEFT = 12  # bitmask of seats that left
E_DEAL_END = 13
E_NEW_DEAL = 14
E_GAME_OVER = 15
NUM_EVENTS = 16

PHASE_BET = 0
PHASE_OVER = 1
PHASE_NAMES = ("bet", "over")

KIND_FORFEIT = 0
KIND_BET = 1

# Status codes of the kernels.
OK = 0
ERR_GAME_OVER = 1
ERR_KIND = 2
ERR_AMOUNT = 3

# Flags per seat (RedDogState.flags).
F_SEATED = 1
F_HAS_BET = 2

# Public card marks (RedDogState.public), this deal only.
PUB_TURNED = 1
PUB_SHOWN = 2

_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
#: Stream advance of a whole-deck shuffle (26 draws: two 32-bit halves each, 51 swaps).
_FULL_SHUFFLE_STEP = np.uint64((26 * int(GOLDEN)) % 2**64)
#: The 13 rank bits of each suit's 16-bit lane (see _card_bit).
_LANES = 0x1FFF1FFF1FFF1FFF


class RedDogState(NamedTuple):
    """Array state of ``T`` tables (a table is one row of every array).

    Attributes:
        ints: int64 (T, NUM_INTS): pot, dealer, seat to act, phase, stock position...
        chips: int64 (T, MAX_PLAYERS): each seat's chips.
        flags: int8 (T, MAX_PLAYERS): bit 1 seated, bit 2 has bet this deal.
        hands: int8 (T, MAX_PLAYERS, 5): cards in hand, -1 where none.
        deck: int8 (T, 52): this deal's card order; the stock starts at ``ints[:, I_DECK_POS]``.
        public: int8 (T, 52): 1 turned, 2 shown this deal, else 0.
        rng: uint64 (T,): SplitMix64 state per table (:mod:`poker_env.rng`).
        events: int64 (T, NUM_EVENTS): what the last call did (for hand histories).
        draw_log: int64 (T, DRAW_LOG, 2): (seat, card) of the draw for the first dealer.
    """

    ints: NDArray[np.int64]
    chips: NDArray[np.int64]
    flags: NDArray[np.int8]
    hands: NDArray[np.int8]
    deck: NDArray[np.int8]
    public: NDArray[np.int8]
    rng: NDArray[np.uint64]
    events: NDArray[np.int64]
    draw_log: NDArray[np.int64]


def new_state(num_tables: int) -> RedDogState:
    """Zeroed array state for ``num_tables`` tables (call :func:`new_game` on each row)."""
    t = int(num_tables)
    return RedDogState(
        ints=np.zeros((t, NUM_INTS), np.int64),
        chips=np.zeros((t, MAX_PLAYERS), np.int64),
        flags=np.zeros((t, MAX_PLAYERS), np.int8),
        hands=np.full((t, MAX_PLAYERS, MAX_HAND_SIZE), -1, np.int8),
        deck=np.zeros((t, 52), np.int8),
        public=np.zeros((t, 52), np.int8),
        rng=np.zeros(t, np.uint64),
        events=np.zeros((t, NUM_EVENTS), np.int64),
        draw_log=np.zeros((t, DRAW_LOG, 2), np.int64),
    )


#: Table ``t``'s stream (poker_env.rng, the one SplitMix64): its next output, a float in [0, 1).
rand_u64 = next_u64
rand_float = uniform


@njit(cache=True, _nrt=False, inline="always")
def rand_below(rng: NDArray[np.uint64], t: int, n: int) -> int:  # pragma: no cover - compiled
    """Uniform integer in [0, n) from table ``t``'s stream."""
    k = int(rand_float(rng, t) * n)
    return k if k < n else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _wrap(x: int, p: int) -> int:  # pragma: no cover - compiled
    # Seat arithmetic without an integer division: 0 <= x < 2p always holds here.
    return x - p if x >= p else x


@njit(cache=True, _nrt=False)
def _shuffle(
    deck: NDArray[np.int8], rng: NDArray[np.uint64], t: int, needed: int
) -> None:  # pragma: no cover
    # Fisher-Yates from the front, stopped once the first ``needed`` cards are drawn
    # (the rest of the deck is never looked at). Each 64-bit draw gives two 32-bit
    # halves, mapped to [0, n) by multiply-shift (bias below 2**-26). The stream
    # state stays in a register (the same outputs as rand_u64, called in turn).
    row = deck[t]
    for i in range(52):
        row[i] = i
    state = rng[t]
    z = np.uint64(0)
    for i in range(min(needed, 51)):
        if (i & 1) == 0:
            state += GOLDEN
            z = mix(state)
            half = z >> _S32
        else:
            half = z & _LOW32
        j = i + int((half * np.uint64(52 - i)) >> _S32)
        tmp = row[i]
        row[i] = row[j]
        row[j] = tmp
    rng[t] = state


@njit(cache=True, _nrt=False, inline="always")
def _card_bit(c: int) -> int:  # pragma: no cover - compiled
    # Bit suit * 16 + rank: each suit's ranks in one 16-bit lane, in rank order.
    x = np.int64(c)  # a card read from an int8 array would shift in 8 bits
    return int(np.int64(1) << (((x & 3) << 4) + (x >> 2)))


@njit(cache=True, _nrt=False)
def draw_for_dealer(
    order: NDArray[np.int8], num_players: int, log: NDArray[np.int64]
) -> tuple[int, int]:  # pragma: no cover - compiled
    """The draw for the first dealer (RULES.md §2) from the card order ``order``.

    One card face up to each contender in seat order; the highest rank deals; the
    players tied on it draw again from the same stock.

    Returns:
        (dealer, cards used), written to ``log`` as (seat, card) rows; dealer is -1
        when ``order`` (or ``log``) ran out before the tie was broken.
    """
    # Contenders as a bit mask of seats (no allocation: this runs once per game).
    contenders = (1 << num_players) - 1
    pos = 0
    while True:
        first = pos
        best = -1
        for seat in range(num_players):
            if not (contenders >> seat) & 1:
                continue
            if pos >= order.shape[0] or pos >= log.shape[0]:
                return -1, pos
            c = int(order[pos])
            log[pos, 0] = seat
            log[pos, 1] = c
            pos += 1
            if c >> 2 > best:
                best = c >> 2
        contenders = 0
        num_contenders = 0
        winner = -1
        for i in range(first, pos):
            if order[i] >> 2 == best:
                contenders |= 1 << log[i, 0]
                num_contenders += 1
                winner = log[i, 0]
        if num_contenders == 1:
            return winner, pos


@njit(cache=True, _nrt=False, inline="always")
def _leave_if_broke(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    events: NDArray[np.int64],
    t: int,
    s: int,
) -> None:  # pragma: no cover - compiled
    # RULES.md §2: a player with no chips leaves the game.
    if chips[t, s] == 0 and (flags[t, s] & F_SEATED) != 0:
        flags[t, s] &= ~F_SEATED
        events[t, E_LEFT] |= 1 << s


@njit(cache=True, _nrt=False, inline="always")
def _ante_all(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    events: NDArray[np.int64],
    t: int,
) -> None:  # pragma: no cover - compiled
    ante = ints[t, I_ANTE]
    for s in range(ints[t, I_NUM_PLAYERS]):
        if flags[t, s] & F_SEATED:
            pay = min(ante, chips[t, s])
            chips[t, s] -= pay
            ints[t, I_POT] += pay
            _leave_if_broke(ints, chips, flags, events, t, s)


@njit(cache=True, _nrt=False, inline="always")
def _num_seated(
    ints: NDArray[np.int64], flags: NDArray[np.int8], t: int
) -> int:  # pragma: no cover
    n = 0
    for s in range(ints[t, I_NUM_PLAYERS]):
        if flags[t, s] & F_SEATED:
            n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def _next_seated(
    ints: NDArray[np.int64], flags: NDArray[np.int8], t: int, s: int
) -> int:  # pragma: no cover
    p = ints[t, I_NUM_PLAYERS]
    for k in range(1, p + 1):
        q = _wrap(s + k, p)
        if flags[t, q] & F_SEATED:
            return int(q)
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _end_game(
    ints: NDArray[np.int64], events: NDArray[np.int64], t: int
) -> None:  # pragma: no cover
    ints[t, I_PHASE] = PHASE_OVER
    ints[t, I_TO_ACT] = -1
    events[t, E_GAME_OVER] = 1


@njit(cache=True, _nrt=False)
def _start_deal(
    ints: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    deck: NDArray[np.int8],
    public: NDArray[np.int8],
    rng: NDArray[np.uint64],
    events: NDArray[np.int64],
    t: int,
) -> None:  # pragma: no cover - compiled
    p = ints[t, I_NUM_PLAYERS]
    seated = _num_seated(ints, flags, t)
    hand_size = ints[t, I_HAND_SIZE_CFG]
    if seated > BIG_TABLE_PLAYERS and hand_size > BIG_TABLE_HAND_SIZE:
        hand_size = BIG_TABLE_HAND_SIZE  # RULES.md §2: four each above eight players
    ints[t, I_HAND_SIZE] = hand_size
    # The deal and at most one turned card per player come off the top of the deck.
    _shuffle(deck, rng, t, seated * (hand_size + 1))
    for c in range(52):
        public[t, c] = 0
    ints[t, I_PUBBITS] = 0
    for s in range(MAX_PLAYERS):
        flags[t, s] &= ~F_HAS_BET
        for k in range(MAX_HAND_SIZE):
            hands[t, s, k] = -1
    # RULES.md §2: one card at a time, starting left of the dealer: the i-th seated
    # player from the dealer's left gets cards i, i + seated, i + 2 * seated...
    dealer = ints[t, I_DEALER]
    i = 0
    for j in range(1, p + 1):
        s = _wrap(dealer + j, p)
        if flags[t, s] & F_SEATED:
            for k in range(hand_size):
                hands[t, s, k] = deck[t, i + k * seated]
            i += 1
    ints[t, I_DECK_POS] = hand_size * seated
    ints[t, I_TO_ACT] = _next_seated(ints, flags, t, dealer)
    ints[t, I_PHASE] = PHASE_BET
    events[t, E_NEW_DEAL] = 1


@njit(cache=True, _nrt=False, inline="always")
def clear_events(events: NDArray[np.int64], t: int) -> None:  # pragma: no cover - compiled
    """Reset table ``t``'s event row before a call."""
    for k in range(NUM_EVENTS):
        events[t, k] = 0
    events[t, E_SEAT] = -1
    events[t, E_TURNED] = -1


@njit(cache=True, _nrt=False)
def new_game(
    st: RedDogState, t: int, key: np.uint64, rules: NDArray[np.int64]
) -> None:  # pragma: no cover - compiled
    """Start a game at table ``t`` from the random ``key``: draw, first ante, first deal.

    ``rules`` is :meth:`RedDogConfig.kernel_args` as int64: (num_players,
    starting_chips, ante, hand_size, rounds).
    """
    ints, chips, flags, hands, deck, public = (
        st.ints,
        st.chips,
        st.flags,
        st.hands,
        st.deck,
        st.public,
    )
    rng, events, draw_log = st.rng, st.events, st.draw_log
    num_players, starting_chips, ante, hand_size, rounds = (
        rules[0],
        rules[1],
        rules[2],
        rules[3],
        rules[4],
    )
    clear_events(events, t)
    rng[t] = key
    for k in range(NUM_INTS):
        ints[t, k] = 0
    ints[t, I_NUM_PLAYERS] = num_players
    ints[t, I_ANTE] = ante
    ints[t, I_START_CHIPS] = starting_chips
    ints[t, I_HAND_SIZE_CFG] = hand_size
    ints[t, I_ROUNDS] = rounds
    for s in range(MAX_PLAYERS):
        chips[t, s] = starting_chips if s < num_players else 0
        flags[t, s] = F_SEATED if s < num_players else 0
    # RULES.md §2: the draw; on the (astronomically rare) exhausted stock, draw anew.
    # The draw almost always needs only the first few cards, and a Fisher-Yates
    # shuffle from the front fixes card i at step i: shuffle those few, and when the
    # draw ends within them, move the stream on as the whole shuffle would have (its
    # state only adds GOLDEN per draw). Otherwise the whole deck, as before.
    start = rng[t]
    few = min(3 * num_players, 52)
    _shuffle(deck, rng, t, few)
    dealer, used = draw_for_dealer(deck[t, :few], num_players, draw_log[t])
    partial = dealer >= 0
    if partial:
        rng[t] = start + _FULL_SHUFFLE_STEP
    else:
        rng[t] = start
    while dealer < 0:
        _shuffle(deck, rng, t, 52)
        dealer, used = draw_for_dealer(deck[t], num_players, draw_log[t])
    ints[t, I_DRAWN] = used
    ints[t, I_DEALER] = dealer
    _ante_all(ints, chips, flags, events, t)  # RULES.md §2: one chip each into the pot
    if _num_seated(ints, flags, t) < 2:
        if partial:
            # The deck stays as it is: shuffle all of it, as the whole draw would have.
            rng[t] = start
            _shuffle(deck, rng, t, 52)
        _end_game(ints, events, t)
        return
    _start_deal(ints, flags, hands, deck, public, rng, events, t)


@njit(cache=True, _nrt=False, inline="always")
def max_bet(ints: NDArray[np.int64], chips: NDArray[np.int64], t: int) -> int:  # pragma: no cover
    """Largest legal bet at table ``t`` (RULES.md §2: up to the pot and the bettor's chips)."""
    s = ints[t, I_TO_ACT]
    if s < 0:
        return 0
    return int(min(ints[t, I_POT], chips[t, s]))


@njit(cache=True, _nrt=False, inline="always")
def check_action(
    ints: NDArray[np.int64], chips: NDArray[np.int64], t: int, kind: int, amount: int
) -> int:  # pragma: no cover - compiled
    """The one legality check (status code) used by both the query and the action."""
    if ints[t, I_PHASE] != PHASE_BET:
        return ERR_GAME_OVER
    if kind == KIND_FORFEIT:
        return OK
    if kind != KIND_BET:
        return ERR_KIND
    if amount < 1 or amount > max_bet(ints, chips, t):
        return ERR_AMOUNT
    return OK


@njit(cache=True, _nrt=False, inline="always")
def _bet_to_come(
    ints: NDArray[np.int64], flags: NDArray[np.int8], t: int, s: int, p: int, dealer: int
) -> bool:  # pragma: no cover - compiled
    """Whether another bet is to come in the game after seat ``s``'s (before any ante):
    two players still seated, and a seat yet to bet in this deal or another deal to come."""
    if _num_seated(ints, flags, t) < 2:
        return False
    if ints[t, I_DEALS_DONE] + 1 < ints[t, I_ROUNDS]:
        return True
    last = dealer - s + p
    last = last - p if last >= p else last  # the dealer's distance from s; 0: s deals
    for k in range(1, last + 1):
        q = _wrap(s + k, p)
        if (flags[t, q] & (F_SEATED | F_HAS_BET)) == F_SEATED:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def apply_action_inline(
    st: RedDogState, t: int, kind: int, amount: int
) -> int:  # pragma: no cover - compiled
    """:func:`apply_action`'s body, inlined into its callers (the opponents' loop and the
    env step): a call passes 7 to 11 words per array (about 70), a large share of a
    cheap action."""
    ints, chips, flags, hands, deck, public = (
        st.ints,
        st.chips,
        st.flags,
        st.hands,
        st.deck,
        st.public,
    )
    rng, events = st.rng, st.events
    status = int(check_action(ints, chips, t, kind, amount))
    if status != OK:
        return status
    clear_events(events, t)
    s = ints[t, I_TO_ACT]
    events[t, E_SEAT] = s
    events[t, E_KIND] = kind
    ints[t, I_DECISIONS] += 1
    if kind == KIND_FORFEIT:
        # RULES.md §2: forfeit one chip to the pot.
        chips[t, s] -= 1
        ints[t, I_POT] += 1
        events[t, E_AMOUNT] = 1
    else:
        events[t, E_AMOUNT] = amount
        turned = deck[t, ints[t, I_DECK_POS]]
        ints[t, I_DECK_POS] += 1
        public[t, turned] = PUB_TURNED
        ints[t, I_PUBBITS] |= _card_bit(turned)
        events[t, E_TURNED] = turned
        hand_size = ints[t, I_HAND_SIZE]
        # Same suit, higher rank; show the lowest such card (64: none). Bitwise & and
        # selects, not short-circuit branches: the outcome is random, so branches mispredict.
        suit = turned & 3
        best = 64
        for k in range(hand_size):
            c = int(hands[t, s, k])
            cand = c if ((c & 3) == suit) & (c > turned) else 64
            best = cand if cand < best else best
        if best < 64:
            # RULES.md §2: he shows that card, takes back the bet and as much from the pot.
            chips[t, s] += amount
            ints[t, I_POT] -= amount
            events[t, E_WON] = 1
            events[t, E_NSHOWN] = 1
            events[t, E_SHOWN] = best
            public[t, best] = PUB_SHOWN
            ints[t, I_PUBBITS] |= _card_bit(best)
        else:
            # RULES.md §2: he shows his whole hand; the bet goes into the pot.
            chips[t, s] -= amount
            ints[t, I_POT] += amount
            events[t, E_NSHOWN] = hand_size
            for k in range(hand_size):
                c = hands[t, s, k]
                events[t, E_SHOWN + k] = c
                public[t, c] = PUB_SHOWN
                ints[t, I_PUBBITS] |= _card_bit(c)
    flags[t, s] |= F_HAS_BET
    _leave_if_broke(ints, chips, flags, events, t, s)
    p = ints[t, I_NUM_PLAYERS]
    dealer = ints[t, I_DEALER]
    if ints[t, I_POT] == 0 and _bet_to_come(ints, flags, t, s, p, dealer):
        # RULES.md §2: whenever the pot is empty and another bet is to come in the game,
        # every player antes again (no ante after the game's last bet).
        events[t, E_REANTE] = 1
        _ante_all(ints, chips, flags, events, t)
    if _num_seated(ints, flags, t) < 2:
        _end_game(ints, events, t)
        return OK
    # RULES.md §2: in turn from the dealer's left, the dealer last.
    # The first seat after s, up to the dealer, seated and yet to bet (-1: none; none
    # after the dealer). Branch-free: the nearest such seat is the last one kept.
    nxt = -1
    last = dealer - s + p
    last = last - p if last >= p else last  # the dealer's distance from s; 0: s deals
    for k in range(p - 1, 0, -1):
        q = _wrap(s + k, p)
        ok = ((flags[t, q] & (F_SEATED | F_HAS_BET)) == F_SEATED) & (k <= last)
        nxt = q if ok else nxt
    if nxt >= 0:
        ints[t, I_TO_ACT] = nxt
        return OK
    # Everyone has bet: the deal is over and passes to the left.
    events[t, E_DEAL_END] = 1
    ints[t, I_DEALS_DONE] += 1
    if ints[t, I_DEALS_DONE] >= ints[t, I_ROUNDS]:
        _end_game(ints, events, t)
        return OK
    ints[t, I_DEALER] = _next_seated(ints, flags, t, dealer)
    _start_deal(ints, flags, hands, deck, public, rng, events, t)
    return OK


@njit(cache=True, _nrt=False)
def apply_action(
    st: RedDogState, t: int, kind: int, amount: int
) -> int:  # pragma: no cover - compiled
    """The seat to act at table ``t`` forfeits or bets ``amount``; returns a status code.

    Resolves the turned card, refills an empty pot, removes broke players, passes
    the deal and ends the game as RULES.md §2 says. Nothing changes on a bad code.
    """
    return int(apply_action_inline(st, t, kind, amount))


@njit(cache=True, _nrt=False, inline="always")
def win_probability_kernel(
    ints: NDArray[np.int64], hands: NDArray[np.int8], public: NDArray[np.int8], t: int, s: int
) -> float:  # pragma: no cover - compiled
    """Exact chance that seat ``s``'s hand beats the next turned card at table ``t``.

    The turned card is uniform over the cards the seat has not seen: not in his
    hand, not turned or shown this deal (RULES.md §2, reference).
    """
    # Bits suit * 16 + rank: the cards below the top held card of each suit are
    # the ones the hand beats; those seen (own hand, public) cannot be turned.
    own = 0
    for k in range(ints[t, I_HAND_SIZE]):
        c = int(hands[t, s, k])
        if c >= 0:
            own |= _card_bit(c)
    # Smear each lane's top bit down to bit 0, branch-free, then drop the top bit. A
    # shift by k moves a lane's low k bits to the lane below, at positions >= 16 - k;
    # each mask clears those (rank bits shifted within a lane stay below 13 - k).
    x = own
    x |= (x >> 1) & _LANES
    x |= (x >> 2) & _LANES
    x |= (x >> 4) & 0x0FFF0FFF0FFF0FFF
    x |= (x >> 8) & 0x00FF00FF00FF00FF
    below = (x >> 1) & _LANES
    seen = own | ints[t, I_PUBBITS]
    unseen = 52 - popcount(seen)
    if unseen <= 0:
        return 0.0
    return float(popcount(below & ~seen) / unseen)


@njit(cache=True, _nrt=False, inline="always")
def reference_bet(p: float, largest_bet: int) -> int:  # pragma: no cover - compiled
    """The reference (optimal myopic) bet of RULES.md §2: the maximum when p > 1/2, else 1.

    A bet b is worth b·(2p − 1) in expectation; forfeiting costs one chip, more than
    a bet of 1 ever loses in expectation, so the reference never forfeits.
    """
    return largest_bet if p > 0.5 else 1


@njit(cache=True, _nrt=False, inline="always")
def fraction_bet(fraction: float, largest_bet: int) -> int:  # pragma: no cover - compiled
    """A bet as a fraction of the largest legal bet, at least 1 chip and at most all of it."""
    b = int(np.floor(fraction * largest_bet + 1e-9))
    if b < 1:
        b = 1
    if b > largest_bet:
        b = largest_bet
    return b


@njit(cache=True, _nrt=False, inline="always")
def builtin_decision(
    st: RedDogState, t: int, random_share: float, fractions: NDArray[np.float64]
) -> tuple[int, int]:  # pragma: no cover - compiled
    """The default opponent: with chance ``random_share`` a uniformly random action of
    the env's discrete set (FORFEIT or a bet fraction), else the reference bet.

    Returns (kind, amount).
    """
    ints, chips, rng = st.ints, st.chips, st.rng
    s = ints[t, I_TO_ACT]
    largest = max_bet(ints, chips, t)
    if random_share > 0.0 and rand_float(rng, t) < random_share:
        a = rand_below(rng, t, fractions.shape[0] + 1)
        if a == 0:
            return KIND_FORFEIT, 1
        return KIND_BET, fraction_bet(fractions[a - 1], largest)
    p = win_probability_kernel(ints, st.hands, st.public, t, s)
    return KIND_BET, reference_bet(p, largest)


@njit(cache=True, _nrt=False, inline="always")
def keep_events(
    st: RedDogState, t: int, log: NDArray[np.int64], n: int
) -> None:  # pragma: no cover - compiled
    """Copy table ``t``'s events row (what the last action did) into row ``n`` of
    ``log``, if it has that row (an empty log keeps nothing)."""
    if n < log.shape[0]:
        for k in range(NUM_EVENTS):
            log[n, k] = st.events[t, k]


@njit(cache=True, _nrt=False, inline="always")
def play_builtin_until(
    st: RedDogState,
    t: int,
    stop_seat: int,
    random_share: float,
    fractions: NDArray[np.float64],
    log: NDArray[np.int64],
    n: int,
) -> int:  # pragma: no cover - compiled
    """Let the default opponent play every seat until ``stop_seat`` is to act or the game ends.

    Each action's events row is kept in ``log`` from row ``n`` on, while it has rows
    (pass an empty log to keep none). Returns ``n`` plus the actions played.
    """
    ints = st.ints
    while ints[t, I_PHASE] == PHASE_BET and ints[t, I_TO_ACT] != stop_seat:
        kind, amount = builtin_decision(st, t, random_share, fractions)
        apply_action_inline(st, t, kind, amount)
        keep_events(st, t, log, n)
        n += 1
    return n


@njit(cache=True)  # allocates its output, so it keeps numba's reference counting
def win_probabilities(
    ints: NDArray[np.int64],
    hands: NDArray[np.int8],
    public: NDArray[np.int8],
    seats: NDArray[np.int64],
) -> NDArray[np.float64]:  # pragma: no cover - compiled
    """:func:`win_probability_kernel` for every table ``t`` and seat ``seats[t]``."""
    out = np.empty(seats.shape[0], np.float64)
    for t in range(seats.shape[0]):
        out[t] = win_probability_kernel(ints, hands, public, t, seats[t])
    return out
