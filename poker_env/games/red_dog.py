"""Red Dog / High-Card Pool (RULES.md §2): the one implementation of the rules.

The rules are compiled functions (``@njit(cache=True)``) over plain array state:
a table is one row of :class:`RedDogState`, a batch is many rows. They return
status codes and raise nothing. :class:`RedDogGame` is the readable object API on
top: legal-action queries with amount bounds, actions that return frozen records
(the hand history), JSON save and replay, :class:`~poker_env.errors.IllegalActionError`
on a refused action (nothing changes).

Randomness: a game draws one 64-bit key from the ``numpy.random.Generator`` it is
given, and every later shuffle comes from a per-table splitmix64 stream started
from that key, inside the compiled code. Same generator seed, same game, on every
machine; and a batch of tables with the same keys plays exactly the same games as
single tables, because both run the same kernels.

Speed note: the kernels are compiled with ``_nrt=False`` (numba's reference
counting off). They never allocate, and with reference counting on, every call
of a branching kernel with array arguments paid an atomic incref/decref pair per
array (about 10 ns each), which was most of the time of a step.

Choices where the rule book is silent (all documented in ``docs/red_dog.md``):

- The draw for the first dealer deals one card face up to each seat from seat 0;
  the highest rank deals; the tied players draw again from the same stock.
- A winning bettor shows the lowest card of the turned suit that beats it.
- A player whose chips reach zero leaves at once (mid-deal too), so every
  player asked to act holds at least one chip; the pot is never empty at a bet
  because an empty pot is refilled at once.
- An ante larger than a player's chips takes what he has (and he leaves).
- The game ends after ``rounds`` deals or as soon as fewer than two players are
  seated; chips left in the pot at the end belong to no one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.cards import format_card, format_cards
from poker_env.errors import ConfigError, IllegalActionError

__all__ = [
    "MAX_HAND_SIZE",
    "MAX_PLAYERS",
    "AnteRecord",
    "BetRecord",
    "DealRecord",
    "DrawRecord",
    "ForfeitRecord",
    "GameOverRecord",
    "LeaveRecord",
    "LegalActions",
    "Record",
    "RedDogAction",
    "RedDogConfig",
    "RedDogGame",
    "RedDogState",
    "new_state",
    "reference_bet",
    "win_probabilities",
]

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

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_INV53 = 1.0 / 9007199254740992.0


class RedDogAction(IntEnum):
    """A player's choice on his turn (RULES.md §2)."""

    FORFEIT = 0  # one chip to the pot, no card turned
    BET = 1  # 1 .. min(pot, chips); the dealer turns a card


class RedDogState(NamedTuple):
    """Array state of ``T`` tables (a table is one row of every array).

    Attributes:
        ints: int64 (T, NUM_INTS): pot, dealer, seat to act, phase, stock position...
        chips: int64 (T, MAX_PLAYERS): each seat's chips.
        flags: int8 (T, MAX_PLAYERS): bit 1 seated, bit 2 has bet this deal.
        hands: int8 (T, MAX_PLAYERS, 5): cards in hand, -1 where none.
        deck: int8 (T, 52): this deal's card order; the stock starts at ``ints[:, I_DECK_POS]``.
        public: int8 (T, 52): 1 turned, 2 shown this deal, else 0.
        rng: uint64 (T,): splitmix64 state per table.
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


# --------------------------------------------------------------------------- kernels


@njit(cache=True, _nrt=False, inline="always")
def rand_u64(rng: NDArray[np.uint64], t: int) -> np.uint64:  # pragma: no cover - compiled
    """Next splitmix64 output of table ``t``'s stream."""
    rng[t] += _GOLDEN
    return np.uint64(_mix(rng[t]))


@njit(cache=True, _nrt=False, inline="always")
def rand_float(rng: NDArray[np.uint64], t: int) -> float:  # pragma: no cover - compiled
    """Uniform float in [0, 1) from table ``t``'s stream (53 bits)."""
    return float(rand_u64(rng, t) >> _S11) * _INV53


@njit(cache=True, _nrt=False, inline="always")
def rand_below(rng: NDArray[np.uint64], t: int, n: int) -> int:  # pragma: no cover - compiled
    """Uniform integer in [0, n) from table ``t``'s stream."""
    k = int(rand_float(rng, t) * n)
    return k if k < n else n - 1


@njit(cache=True, _nrt=False, inline="always")
def _wrap(x: int, p: int) -> int:  # pragma: no cover - compiled
    # Seat arithmetic without an integer division: 0 <= x < 2p always holds here.
    return x - p if x >= p else x


@njit(cache=True, _nrt=False, inline="always")
def _mix(z: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return np.uint64(z ^ (z >> _S31))


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
            state += _GOLDEN
            z = _mix(state)
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


@njit(cache=True, _nrt=False, inline="always")
def _popcount(x: int) -> int:  # pragma: no cover - compiled
    # SWAR bit count of 0 <= x < 2**61, by shifts and adds only: no signed
    # multiply that could overflow (undefined in the compiled code).
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 0x7F


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
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    deck: NDArray[np.int8],
    public: NDArray[np.int8],
    rng: NDArray[np.uint64],
    events: NDArray[np.int64],
    draw_log: NDArray[np.int64],
    t: int,
    key: np.uint64,
    num_players: int,
    starting_chips: int,
    ante: int,
    hand_size: int,
    rounds: int,
) -> None:  # pragma: no cover - compiled
    """Start a game at table ``t`` from the random ``key``: draw, first ante, first deal."""
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
    dealer = -1
    while dealer < 0:
        _shuffle(deck, rng, t, 52)
        dealer, used = draw_for_dealer(deck[t], num_players, draw_log[t])
    ints[t, I_DRAWN] = used
    ints[t, I_DEALER] = dealer
    _ante_all(ints, chips, flags, events, t)  # RULES.md §2: one chip each into the pot
    if _num_seated(ints, flags, t) < 2:
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


@njit(cache=True, _nrt=False)
def apply_action(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    deck: NDArray[np.int8],
    public: NDArray[np.int8],
    rng: NDArray[np.uint64],
    events: NDArray[np.int64],
    t: int,
    kind: int,
    amount: int,
) -> int:  # pragma: no cover - compiled
    """The seat to act at table ``t`` forfeits or bets ``amount``; returns a status code.

    Resolves the turned card, refills an empty pot, removes broke players, passes
    the deal and ends the game as RULES.md §2 says. Nothing changes on a bad code.
    """
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
        best = -1
        for k in range(hand_size):
            c = hands[t, s, k]
            # Same suit, higher rank; show the lowest such card.
            if (c & 3) == (turned & 3) and c > turned and (best < 0 or c < best):
                best = c
        if best >= 0:
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
    if ints[t, I_POT] == 0:
        # RULES.md §2: whenever the pot is empty, every player antes again.
        events[t, E_REANTE] = 1
        _ante_all(ints, chips, flags, events, t)
    if _num_seated(ints, flags, t) < 2:
        _end_game(ints, events, t)
        return OK
    # RULES.md §2: in turn from the dealer's left, the dealer last.
    p = ints[t, I_NUM_PLAYERS]
    dealer = ints[t, I_DEALER]
    nxt = -1
    if s != dealer:
        for k in range(1, p + 1):
            q = _wrap(s + k, p)
            if (flags[t, q] & F_SEATED) and not (flags[t, q] & F_HAS_BET):
                nxt = q
                break
            if q == dealer:
                break
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
    below = 0
    for u in range(4):
        lane = (own >> (u << 4)) & 0xFFFF
        if lane:
            top = 1 << 15
            while not lane & top:
                top >>= 1
            below |= (top - 1) << (u << 4)
    seen = own | ints[t, I_PUBBITS]
    unseen = 52 - _popcount(seen)
    if unseen <= 0:
        return 0.0
    return float(_popcount(below & ~seen) / unseen)


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
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    hands: NDArray[np.int8],
    public: NDArray[np.int8],
    rng: NDArray[np.uint64],
    t: int,
    random_share: float,
    fractions: NDArray[np.float64],
) -> tuple[int, int]:  # pragma: no cover - compiled
    """The default opponent: with chance ``random_share`` a uniformly random action of
    the env's discrete set (FORFEIT or a bet fraction), else the reference bet.

    Returns (kind, amount).
    """
    s = ints[t, I_TO_ACT]
    largest = max_bet(ints, chips, t)
    if random_share > 0.0 and rand_float(rng, t) < random_share:
        a = rand_below(rng, t, fractions.shape[0] + 1)
        if a == 0:
            return KIND_FORFEIT, 1
        return KIND_BET, fraction_bet(fractions[a - 1], largest)
    p = win_probability_kernel(ints, hands, public, t, s)
    return KIND_BET, reference_bet(p, largest)


@njit(cache=True, _nrt=False)
def play_builtin_until(
    ints: NDArray[np.int64],
    chips: NDArray[np.int64],
    flags: NDArray[np.int8],
    hands: NDArray[np.int8],
    deck: NDArray[np.int8],
    public: NDArray[np.int8],
    rng: NDArray[np.uint64],
    events: NDArray[np.int64],
    t: int,
    stop_seat: int,
    random_share: float,
    fractions: NDArray[np.float64],
) -> None:  # pragma: no cover - compiled
    """Let the default opponent play every seat until ``stop_seat`` is to act or the game ends."""
    while ints[t, I_PHASE] == PHASE_BET and ints[t, I_TO_ACT] != stop_seat:
        kind, amount = builtin_decision(ints, chips, hands, public, rng, t, random_share, fractions)
        apply_action(ints, chips, flags, hands, deck, public, rng, events, t, kind, amount)


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


# --------------------------------------------------------------------------- facade


@dataclass(frozen=True, kw_only=True)
class RedDogConfig:
    """Options of RULES.md §2 (keyword-only, validated on creation).

    Attributes:
        num_players: seats at the table, 2 to 10.
        starting_chips: chips each player starts with (more than ``ante``).
        ante: chips each player antes into an empty pot.
        hand_size: cards per player, 1 to 5; forced down to 4 above eight players.
        rounds: deals in the game; None means one deal each (``num_players``).
    """

    num_players: int = 4
    starting_chips: int = 50
    ante: int = 1
    hand_size: int = 5
    rounds: int | None = None

    def __post_init__(self) -> None:
        def is_int(v: object) -> bool:
            return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

        if not is_int(self.num_players) or not 2 <= self.num_players <= MAX_PLAYERS:
            raise ConfigError(
                "num_players", self.num_players, f"an integer from 2 to {MAX_PLAYERS}"
            )
        if not is_int(self.ante) or self.ante < 1:
            raise ConfigError("ante", self.ante, "an integer >= 1")
        if not is_int(self.starting_chips) or self.starting_chips <= self.ante:
            raise ConfigError(
                "starting_chips", self.starting_chips, f"an integer > ante ({self.ante})"
            )
        if not is_int(self.hand_size) or not 1 <= self.hand_size <= MAX_HAND_SIZE:
            raise ConfigError("hand_size", self.hand_size, f"an integer from 1 to {MAX_HAND_SIZE}")
        if self.rounds is not None and (not is_int(self.rounds) or self.rounds < 1):
            raise ConfigError("rounds", self.rounds, "None (one deal each) or an integer >= 1")

    @property
    def num_rounds(self) -> int:
        """Deals in the game (``rounds``, or one deal each)."""
        return self.num_players if self.rounds is None else int(self.rounds)

    def kernel_args(self) -> tuple[int, int, int, int, int]:
        """(num_players, starting_chips, ante, hand_size, rounds) for :func:`new_game`."""
        return (
            int(self.num_players),
            int(self.starting_chips),
            int(self.ante),
            int(self.hand_size),
            self.num_rounds,
        )


@dataclass(frozen=True)
class LegalActions:
    """What the seat to act may do: forfeit, or bet ``min_bet`` .. ``max_bet`` chips."""

    seat: int
    can_forfeit: bool
    min_bet: int
    max_bet: int

    def __str__(self) -> str:
        if self.seat < 0:
            return "none (game over)"
        return f"FORFEIT or BET {self.min_bet}..{self.max_bet}"


@dataclass(frozen=True)
class DrawRecord:
    """The draw for the first dealer: (seat, card) in the order dealt."""

    cards: tuple[tuple[int, int], ...]
    dealer: int


@dataclass(frozen=True)
class AnteRecord:
    """Every seated player anted (``reason``: "start" or "empty pot")."""

    reason: str
    pot_after: int


@dataclass(frozen=True)
class DealRecord:
    """A deal started."""

    deal: int
    dealer: int
    hand_size: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class ForfeitRecord:
    """A player forfeited one chip to the pot."""

    seat: int
    pot_after: int
    chips_after: int


@dataclass(frozen=True)
class BetRecord:
    """A bet and its turned card; ``shown`` are the cards the bettor showed."""

    seat: int
    amount: int
    turned: int
    won: bool
    shown: tuple[int, ...]
    pot_after: int
    chips_after: int

    def __str__(self) -> str:
        verb = "wins" if self.won else "loses"
        return (
            f"seat {self.seat} bets {self.amount}, turned {format_card(self.turned)}, "
            f"{verb} showing {format_cards(self.shown)}"
        )


@dataclass(frozen=True)
class LeaveRecord:
    """A player with no chips left the game."""

    seat: int


@dataclass(frozen=True)
class GameOverRecord:
    """The game ended; ``winners`` hold the most chips."""

    chips: tuple[int, ...]
    pot: int
    winners: tuple[int, ...]


Record = (
    DrawRecord | AnteRecord | DealRecord | ForfeitRecord | BetRecord | LeaveRecord | GameOverRecord
)


@dataclass
class _Replay:
    config: dict[str, Any]
    key: int
    actions: list[list[int]] = field(default_factory=list)


class RedDogGame:
    """One table of Red Dog with a readable API and a hand history.

    Args:
        config: the options (default :class:`RedDogConfig` ()).
        rng: the generator the game's random key is drawn from (default: unseeded).
        key: the 64-bit key itself, instead of ``rng`` (used by replay).

    Example:
        >>> game = RedDogGame(RedDogConfig(num_players=3), rng=np.random.default_rng(7))
        >>> legal = game.legal_actions()
        >>> record = game.bet(legal.max_bet) if game.win_probability() > 0.5 else game.bet(1)
    """

    def __init__(
        self,
        config: RedDogConfig | None = None,
        *,
        rng: np.random.Generator | None = None,
        key: int | None = None,
    ) -> None:
        self.config = config if config is not None else RedDogConfig()
        if key is None:
            gen = rng if rng is not None else np.random.default_rng()
            if not isinstance(gen, np.random.Generator):
                raise TypeError(f"rng must be a numpy.random.Generator, got {type(gen).__name__}")
            key = int(gen.integers(0, 2**63, dtype=np.int64))
        self.key = int(key)
        self.state = new_state(1)
        self.history: list[Record] = []
        self._actions: list[list[int]] = []
        st = self.state
        new_game(*st, 0, np.uint64(self.key), *self.config.kernel_args())
        n = int(st.ints[0, I_DRAWN])
        self.history.append(
            DrawRecord(
                tuple((int(a), int(b)) for a, b in st.draw_log[0, :n]), int(st.ints[0, I_DEALER])
            )
        )
        self.history.append(AnteRecord("start", self.pot))
        self._record_consequences()

    # ---- queries
    @property
    def phase(self) -> str:
        """ "bet" while someone is to act, "over" at the end."""
        return PHASE_NAMES[int(self.state.ints[0, I_PHASE])]

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return bool(self.state.ints[0, I_PHASE] == PHASE_OVER)

    @property
    def to_act(self) -> int:
        """Seat to act, -1 at the end."""
        return int(self.state.ints[0, I_TO_ACT])

    @property
    def dealer(self) -> int:
        """Seat of the dealer of this deal."""
        return int(self.state.ints[0, I_DEALER])

    @property
    def pot(self) -> int:
        """Chips in the pot."""
        return int(self.state.ints[0, I_POT])

    @property
    def deals_done(self) -> int:
        """Deals finished so far."""
        return int(self.state.ints[0, I_DEALS_DONE])

    @property
    def hand_size(self) -> int:
        """Cards per player in this deal."""
        return int(self.state.ints[0, I_HAND_SIZE])

    @property
    def chips(self) -> tuple[int, ...]:
        """Each seat's chips."""
        return tuple(int(c) for c in self.state.chips[0, : self.config.num_players])

    @property
    def seated(self) -> tuple[int, ...]:
        """Seats still in the game."""
        flags = self.state.flags[0]
        return tuple(s for s in range(self.config.num_players) if flags[s] & F_SEATED)

    def has_bet(self, seat: int) -> bool:
        """Whether ``seat`` has had his turn in this deal."""
        return bool(self.state.flags[0, seat] & F_HAS_BET)

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards ``seat`` holds in this deal (private to that seat)."""
        return tuple(int(c) for c in self.state.hands[0, seat, : self.hand_size] if c >= 0)

    @property
    def turned_cards(self) -> tuple[int, ...]:
        """Cards turned in this deal (public)."""
        return tuple(int(c) for c in np.flatnonzero(self.state.public[0] == PUB_TURNED))

    @property
    def shown_cards(self) -> tuple[int, ...]:
        """Cards shown from hands in this deal (public)."""
        return tuple(int(c) for c in np.flatnonzero(self.state.public[0] == PUB_SHOWN))

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats holding the most chips (meaningful at the end)."""
        chips = self.chips
        best = max(chips)
        return tuple(s for s, c in enumerate(chips) if c == best)

    def legal_actions(self) -> LegalActions:
        """The legal actions of the seat to act, with the bet bounds."""
        if self.is_over:
            return LegalActions(-1, False, 0, 0)
        return LegalActions(
            self.to_act, True, 1, int(max_bet(self.state.ints, self.state.chips, 0))
        )

    def can_bet(self, amount: int) -> bool:
        """Whether a bet of ``amount`` chips is legal now."""
        return bool(check_action(self.state.ints, self.state.chips, 0, KIND_BET, int(amount)) == OK)

    def win_probability(self, seat: int | None = None) -> float:
        """Exact chance that ``seat``'s hand (default: the seat to act) beats the next turned card."""
        s = self.to_act if seat is None else int(seat)
        if not 0 <= s < self.config.num_players:
            raise ValueError(f"seat must be 0..{self.config.num_players - 1}, got {s}")
        st = self.state
        return float(win_probability_kernel(st.ints, st.hands, st.public, 0, s))

    # ---- actions
    def forfeit(self) -> ForfeitRecord:
        """The seat to act forfeits one chip to the pot."""
        rec = self.act(RedDogAction.FORFEIT)
        assert isinstance(rec, ForfeitRecord)
        return rec

    def bet(self, amount: int) -> BetRecord:
        """The seat to act bets ``amount`` chips; the dealer turns a card."""
        rec = self.act(RedDogAction.BET, amount)
        assert isinstance(rec, BetRecord)
        return rec

    def act(self, action: RedDogAction | int, amount: int = 1) -> ForfeitRecord | BetRecord:
        """Play ``action`` (with ``amount`` for a bet) for the seat to act.

        Raises:
            IllegalActionError: naming the action, the legal actions and the phase;
                the game is unchanged.
        """
        try:
            kind = RedDogAction(int(action))
        except ValueError:
            raise IllegalActionError(
                action, self.legal_actions(), self.phase, "unknown action"
            ) from None
        st = self.state
        status = check_action(st.ints, st.chips, 0, int(kind), int(amount))
        if status != OK:
            reason = {
                ERR_GAME_OVER: "the game is over",
                ERR_AMOUNT: "a bet is 1 up to the pot and the bettor's chips",
            }.get(status, "bad action")
            shown = f"{kind.name} {amount}" if kind == RedDogAction.BET else kind.name
            raise IllegalActionError(shown, self.legal_actions(), self.phase, reason)
        seat = self.to_act
        apply_action(*st[:8], 0, int(kind), int(amount))
        self._actions.append([int(kind), int(amount)])
        ev = st.events[0]
        chips_after = int(st.chips[0, seat])
        # Pot after this action, before any refill (a refill is its own record).
        pot_after = 0 if ev[E_REANTE] else self.pot
        rec: ForfeitRecord | BetRecord
        if kind == RedDogAction.FORFEIT:
            rec = ForfeitRecord(seat, pot_after, chips_after)
        else:
            n = int(ev[E_NSHOWN])
            rec = BetRecord(
                seat,
                int(amount),
                int(ev[E_TURNED]),
                bool(ev[E_WON]),
                tuple(int(c) for c in ev[E_SHOWN : E_SHOWN + n]),
                pot_after,
                chips_after,
            )
        self.history.append(rec)
        self._record_consequences()
        return rec

    def _record_consequences(self) -> None:
        ev = self.state.events[0]
        if ev[E_REANTE]:
            self.history.append(AnteRecord("empty pot", self.pot))
        left = int(ev[E_LEFT])
        for s in range(self.config.num_players):
            if left >> s & 1:
                self.history.append(LeaveRecord(s))
        if ev[E_NEW_DEAL]:
            self.history.append(
                DealRecord(
                    self.deals_done,
                    self.dealer,
                    self.hand_size,
                    tuple(s for s in self.seated),
                )
            )
        if ev[E_GAME_OVER]:
            self.history.append(GameOverRecord(self.chips, self.pot, self.winners))

    # ---- save and replay
    def to_json(self) -> str:
        """The game as JSON: config, random key and the actions taken."""
        return json.dumps(asdict(_Replay(asdict(self.config), self.key, list(self._actions))))

    @classmethod
    def from_json(cls, text: str) -> RedDogGame:
        """Replay a game saved by :meth:`to_json` (same records, same chips)."""
        data = json.loads(text)
        game = cls(RedDogConfig(**data["config"]), key=int(data["key"]))
        for kind, amount in data["actions"]:
            game.act(kind, amount)
        return game

    def describe(self) -> str:
        """A short text view of the table (public information and all hands)."""
        lines = [
            f"deal {self.deals_done + 1}/{self.config.num_rounds}  dealer {self.dealer}  "
            f"pot {self.pot}  phase {self.phase}"
        ]
        for s in range(self.config.num_players):
            mark = ">" if s == self.to_act else " "
            status = "" if s in self.seated else " (left)"
            lines.append(
                f"{mark} seat {s}: {self.chips[s]:4d} chips  {format_cards(self.hand(s))}{status}"
            )
        lines.append(
            f"  turned: {format_cards(self.turned_cards)}  shown: {format_cards(self.shown_cards)}"
        )
        return "\n".join(lines)


def records_as_text(records: Sequence[Record]) -> list[str]:
    """One line per record, for logs."""
    return [str(r) for r in records]
