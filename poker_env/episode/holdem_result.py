"""A finished Hold'em hand as a person or a log sees it (RULES.md §3 showdown).

Shared by :mod:`poker_env.envs.holdem` and :mod:`poker_env.multiagent.holdem`
(which never import each other): both put a :class:`HandResult` in ``info`` and
its text in the ansi render when a hand is decided. Built from a table row of
:mod:`poker_env.games.holdem_kernels` in the phase ``over``, before the end of
the hand clears the folds and leavers. Only public facts are kept: hole cards
appear for hands shown down, never for folded or unopposed hands.

>>> import numpy as np
>>> from poker_env.cards import parse_cards
>>> from poker_env.games import holdem_kernels as K
>>> from poker_env.games.holdem import get_holdem_tables
>>> s = np.zeros(K.STATE_SIZE, dtype=np.int64)
>>> K.new_table(s, 2, 2, 0, K.RULES_SEED, K.PENALTY_BURN)  # two seats, big blind 2
>>> s[K.STATUS : K.STATUS + 2] = K.SEATED
>>> s[K.STACK : K.STACK + 2] = 10
>>> top = parse_cards("As 9c Ks 9d Qs Js Ts 2h 3d")  # hole cards one at a time, then the board
>>> deck = np.concatenate([top, np.setdiff1d(np.arange(52), top)]).astype(np.int64)
>>> tables = get_holdem_tables()
>>> K.start_hand(s, deck, 0, tables)  # seat 0 deals and posts the small blind
0
>>> K.act(s, K.ALL_IN, 0, tables), K.act(s, K.CHECK_CALL, 0, tables)
(0, 0)
>>> print("\\n".join(hand_result(s, 1).lines(agent=0)))
hand 1 over (showdown), board Qs Js Ts 2h 3d, pot 20
  seat 0 (you) D/SB shows As Ks, Royal Flush: wins 20 (+10)
  seat 1 BB shows 9c 9d, Pair, Nines (-10)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards
from poker_env.evaluator import describe_hand, hand_name
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import STREET_NAMES

__all__ = ["RESULT_ROW_SIZE", "HandResult", "SeatResult", "hand_result"]

# How a seat's hand ended.
SHOWDOWN = "showdown"  # shown at the showdown (RULES.md §3: revealed and named)
UNCONTESTED = "uncontested"  # the last player in: wins without showing
FOLDED = "folded"
LEFT = "left"  # left mid-hand (RULES.md §3 "escape"), penalty paid

#: The entries of a table row a :class:`HandResult` keeps: every field it reads lies
#: before the board's end (the deck is not needed).
RESULT_ROW_SIZE = K.BOARD + 5
_ROW_END = RESULT_ROW_SIZE
_OUTCOME = {K.ACTIVE: UNCONTESTED, K.ALLIN: UNCONTESTED, K.FOLDED: FOLDED, K.LEFT: LEFT}


@dataclass(frozen=True)
class SeatResult:
    """One seat's part in a finished hand.

    Attributes:
        seat: the seat.
        outcome: ``"showdown"`` (shown down), ``"uncontested"`` (the last player in,
            cards not shown), ``"folded"`` or ``"left"`` (escape, penalty paid).
        cards: the hole cards as text when shown down, else None.
        rank: the evaluator's rank of the best five of seven when shown, else -1.
        name: the evaluator's name of that hand (``"Royal Flush"`` included), else None.
        description: e.g. ``"Two Pair, Kings and Sevens"`` when shown, else None.
        put_in: chips the seat put into the pots this hand.
        won: chips the seat was paid from the pots (0 if it won nothing).
        net: the seat's stack change over the hand (a leaver's penalty included).
    """

    seat: int
    outcome: str
    cards: str | None
    rank: int
    name: str | None
    description: str | None
    put_in: int
    won: int
    net: int


class HandResult:
    """A finished hand: the board, who showed what, who was paid what.

    Built by :func:`hand_result` from a copy of the table row; the text fields and
    ``seats`` are read from it on first use (an env makes one per decided hand,
    often more than it reads).

    Attributes:
        hand: the hand's number in the episode, from 1.
        street: the street the hand was decided on (``"river"`` at a showdown).
        board: the board cards dealt, as text (empty when decided pre-flop).
        button, small_blind, big_blind: the seats holding the roles at the end.
        pot: every chip paid out of the pots (penalties paid to the pot included).
        seats: the seats dealt into the hand, in seat order.
    """

    def __init__(self, row: NDArray[np.integer], hand: int) -> None:
        # `row` is kept as given: hand_result passes a copy.
        self._row = row
        self.hand = hand

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandResult):
            return NotImplemented
        return self.hand == other.hand and bool(np.array_equal(self._row, other._row))

    def __hash__(self) -> int:
        return hash((self.hand, self._row.tobytes()))

    def __repr__(self) -> str:
        return (
            f"HandResult(hand={self.hand}, street={self.street!r}, board={self.board!r}, "
            f"pot={self.pot}, winners={self.winners})"
        )

    @property
    def street(self) -> str:
        return STREET_NAMES[int(self._row[K.STREET])]

    @cached_property
    def board(self) -> str:
        s = self._row
        return format_cards(s[K.BOARD : K.BOARD + int(s[K.NUM_BOARD])])

    @property
    def button(self) -> int:
        return int(self._row[K.BUTTON])

    @property
    def small_blind(self) -> int:
        return int(self._row[K.SB])

    @property
    def big_blind(self) -> int:
        return int(self._row[K.BB])

    @property
    def pot(self) -> int:
        return sum(r.won for r in self.seats)

    @cached_property
    def seats(self) -> tuple[SeatResult, ...]:
        s = self._row
        out = []
        for q in range(int(s[K.NUM_SEATS])):
            status = int(s[K.STATUS + q])
            if status not in _OUTCOME:
                continue  # not dealt in (empty seat, or seated without chips)
            rank = int(s[K.RANK + q])
            shown = rank >= 0
            out.append(
                SeatResult(
                    seat=q,
                    outcome=SHOWDOWN if shown else _OUTCOME[status],
                    cards=format_cards(s[K.HOLE + 2 * q : K.HOLE + 2 * q + 2]) if shown else None,
                    rank=rank,
                    name=hand_name(rank) if shown else None,
                    description=describe_hand(rank) if shown else None,
                    put_in=int(s[K.COMMIT + q]),
                    won=int(s[K.WON + q]),
                    net=int(s[K.STACK + q] - s[K.START_STACK + q]),
                )
            )
        return tuple(out)

    @property
    def is_showdown(self) -> bool:
        """Whether hands were shown (two or more players to the end)."""
        return any(r.outcome == SHOWDOWN for r in self.seats)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats paid from the pots (several when a pot is split or side pots differ)."""
        return tuple(r.seat for r in self.seats if r.won > 0)

    @property
    def shown(self) -> tuple[SeatResult, ...]:
        """The hands shown, in the order they are revealed: from the dealer clockwise."""
        n = 1 + max((r.seat for r in self.seats), default=0)
        order = sorted(self.seats, key=lambda r: (r.seat - self.button) % max(n, 1))
        return tuple(r for r in order if r.outcome == SHOWDOWN)

    def lines(self, agent: int | None = None, names: list[str] | None = None) -> list[str]:
        """The result as text lines: a title, then one line per seat dealt in.

        Args:
            agent: the seat marked ``(you)``, if any.
            names: what to call each seat (default ``"seat q"``).
        """
        how = "showdown" if self.is_showdown else self.street
        board = self.board or "-"
        out = [f"hand {self.hand} over ({how}), board {board}, pot {self.pot}"]
        for r in self.seats:
            q = r.seat
            label = names[q] if names is not None else f"seat {q}"
            you = " (you)" if q == agent else ""
            roles = "/".join(
                name
                for name, holder in (
                    ("D", self.button),
                    ("SB", self.small_blind),
                    ("BB", self.big_blind),
                )
                if holder == q
            )
            what = {
                SHOWDOWN: f"shows {r.cards}, {r.description}",
                UNCONTESTED: "not shown (the others folded or left)",
                FOLDED: "folded",
                LEFT: "left the table (penalty paid)",
            }[r.outcome]
            wins = f": wins {r.won}" if r.won > 0 else ""
            out.append(f"  {label}{you}{' ' + roles if roles else ''} {what}{wins} ({r.net:+d})")
        return out


def hand_result(s: NDArray[np.integer], hand: int) -> HandResult:
    """The result of the hand decided in table row ``s`` (phase over, before its end is
    processed: folds and leavers still marked), numbered ``hand``. The row is copied."""
    if s.item(K.PHASE) != K.PHASE_OVER:  # a Python int (no numpy scalar to compare)
        raise ValueError(f"a hand result needs a decided hand (phase over), got {s[K.PHASE]}")
    # Every field a result reads lies before the board's end (the deck is not needed).
    return HandResult(s[:_ROW_END].copy(), hand)
