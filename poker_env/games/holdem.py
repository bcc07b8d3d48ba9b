"""Texas Hold'em for 2 to 10 players (RULES.md §3): the readable engine API.

The rules themselves are the compiled functions of
:mod:`poker_env.games.holdem_kernels`, over one ``int64`` state row; this module
is the object API on top of them: a validated config, legality queries with
amount bounds, actions that return frozen records (the hand history), seats
joining and leaving between hands, the button rule, JSON save and replay, and
PHH export and import (:mod:`poker_env.games.holdem_phh`).

>>> import numpy as np
>>> game = HoldemGame(HoldemConfig(num_seats=3), rng=np.random.default_rng(0))
>>> _ = game.start_hand()
>>> game.legal_actions().call_amount
2
>>> rec = game.check_or_call()
>>> rec.action, rec.amount
('call', 2)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from enum import IntEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from poker_env.bitgen import key63
from poker_env.cards import format_cards, parse_cards
from poker_env.errors import ArgumentError, ConfigError, HistoryError, IllegalActionError, as_int
from poker_env.games import holdem_kernels as K
from poker_env.games._generator import GeneratorSeed, LazyGenerator, LazyRng, snapshot

__all__ = [
    "MAX_TABLE_CHIPS",
    "STREET_NAMES",
    "ActionRecord",
    "HoldemAction",
    "HoldemConfig",
    "HoldemGame",
    "LegalActions",
    "ShowdownRecord",
    "Street",
    "get_holdem_tables",
    "replay_json",
]

STREET_NAMES = ("preflop", "flop", "turn", "river")


class Street(IntEnum):
    """Betting rounds (RULES.md §3)."""

    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3


class HoldemAction(IntEnum):
    """Engine action kinds (the compiled codes)."""

    FOLD = K.FOLD
    CHECK_CALL = K.CHECK_CALL
    RAISE_TO = K.RAISE_TO
    ALL_IN = K.ALL_IN
    LEAVE = K.LEAVE


def get_holdem_tables() -> Any:
    """The evaluator tables the Hold'em kernels rank showdowns with (built on first use)."""
    from poker_env.evaluator import get_tables

    return get_tables(deck="standard", flush_beats_full_house=False)


_RULES = {"seed": K.RULES_SEED, "standard": K.RULES_STANDARD}
_PENALTY = {"burn": K.PENALTY_BURN, "pot": K.PENALTY_POT}
#: The ``game`` and format ``version`` of :meth:`HoldemGame.hand_record` / ``to_json``.
HISTORY_GAME = "holdem"
HISTORY_VERSION = 2

#: The most chips a table may ever hold (stacks, pots, bank and what leavers took
#: away, :meth:`HoldemGame.total_chips`): the state row is int64, and the largest sum
#: the kernels form is a raise bound, the highest bet plus the last raise size, up
#: to twice the table's chips. So 2 x MAX_TABLE_CHIPS <= 2**63 - 1. (The batched
#: HoldemVectorEnv's 32-bit rows have their own, lower limit.)
MAX_TABLE_CHIPS = (2**63 - 1) // 2


def _config_int(config: object, name: str, lo: int, hi: int, allowed: str) -> int:
    """Field ``name`` of a frozen config as a Python int in ``lo..hi``, else a ConfigError."""
    v = getattr(config, name)
    i = as_int(v)
    if i is None or not lo <= i <= hi:
        raise ConfigError(name, v, allowed)
    object.__setattr__(config, name, i)
    return i


@dataclass(frozen=True, kw_only=True)
class HoldemConfig:
    """Table options of RULES.md §3.

    Attributes:
        num_seats: seats at the table, 2..10.
        base: the base stake E (even, >= 2): small blind E/2, big blind E.
        starting_stack: chips a player sits down with; None = 100 × E.
        max_bet: the seed's "system maximum" for a bet or raise-to in a round
            (all-ins are exempt); None = no limit.
        rules: ``"seed"`` (skip betting after an all-in is called; small blind's
            seat first after the flop, heads-up too) or ``"standard"``.
        penalty_to: where the escape penalty goes, ``"burn"`` (the bank) or ``"pot"``.
    """

    num_seats: int = 6
    base: int = 2
    starting_stack: int | None = None
    max_bet: int | None = None
    rules: Literal["seed", "standard"] = "seed"
    penalty_to: Literal["burn", "pot"] = "burn"

    def __post_init__(self) -> None:
        # Integer fields are stored as Python ints (numpy integers accepted): the
        # bounds are then computed without wrap-around, and the config is JSON-able.
        # Every chip count of the int64 state row stays within MAX_TABLE_CHIPS.
        n = _config_int(self, "num_seats", 2, K.MAX_SEATS, f"an int from 2 to {K.MAX_SEATS}")
        if self.starting_stack is None:
            # The default stack is 100 × E, so a full table holds num_seats × 100 × E.
            top = min(MAX_TABLE_CHIPS // (100 * n), MAX_TABLE_CHIPS // K.PENALTY_MULTIPLE)
            why = f"num_seats {n} x the starting stack 100 x E must be at most {MAX_TABLE_CHIPS}"
        else:
            top = MAX_TABLE_CHIPS // K.PENALTY_MULTIPLE
            why = f"the escape penalty 10 x E must be at most {MAX_TABLE_CHIPS}"
        top -= top % 2
        allowed = f"an even int from 2 to {top} (the small blind is E/2; {why}, MAX_TABLE_CHIPS)"
        if _config_int(self, "base", 2, top, allowed) % 2:
            raise ConfigError("base", self.base, allowed)
        base = self.base
        if self.starting_stack is not None:
            most = MAX_TABLE_CHIPS // n
            _config_int(
                self,
                "starting_stack",
                1,
                most,
                f"None or an int from 1 to {most} (num_seats {n} x starting_stack must be at"
                f" most MAX_TABLE_CHIPS = {MAX_TABLE_CHIPS})",
            )
        if self.max_bet is not None:
            _config_int(
                self,
                "max_bet",
                base,
                MAX_TABLE_CHIPS,
                f"None or an int from base ({base}) to MAX_TABLE_CHIPS ({MAX_TABLE_CHIPS})",
            )
        if not isinstance(self.rules, str) or self.rules not in _RULES:
            raise ConfigError("rules", self.rules, "'seed' or 'standard'")
        if not isinstance(self.penalty_to, str) or self.penalty_to not in _PENALTY:
            raise ConfigError("penalty_to", self.penalty_to, "'burn' or 'pot'")

    @property
    def stack(self) -> int:
        """The starting stack in chips (``starting_stack`` or 100 × E)."""
        return self.starting_stack if self.starting_stack is not None else 100 * self.base

    @property
    def penalty(self) -> int:
        """The escape penalty D = 10 × E (RULES.md §3)."""
        return K.PENALTY_MULTIPLE * self.base

    def new_state(self) -> NDArray[np.int64]:
        """An empty table's state row."""
        s = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.new_table(
            s,
            self.num_seats,
            self.base,
            self.max_bet or 0,
            _RULES[self.rules],
            _PENALTY[self.penalty_to],
        )
        return s


@dataclass(frozen=True)
class LegalActions:
    """What the seat to act may do, with exact chip bounds.

    Attributes:
        seat: the seat to act (-1 when no one is).
        street: the betting round's name.
        can_fold: folding is legal (only when facing a bet).
        call_amount: chips ``check_or_call`` puts in (0 = a check).
        min_raise_to / max_raise_to: bounds of ``raise_to`` (None when raising is closed).
        can_all_in: ``all_in`` is legal (always, when a seat is to act: RULES.md §3).
        all_in_to: the seat's round total after ``all_in``.
        all_in_is_call: the raising is closed to the seat (an all-in for less than a
            full raise did not reopen it, or nobody left could answer a raise), so
            its ``all_in`` is a call (RULES.md §3): ``all_in_to`` is the current bet.
    """

    seat: int
    street: str
    can_fold: bool
    call_amount: int
    min_raise_to: int | None
    max_raise_to: int | None
    can_all_in: bool
    all_in_to: int
    all_in_is_call: bool = False

    def names(self) -> list[str]:
        """The legal actions as text, with amount bounds (used in error messages)."""
        out = []
        if self.can_fold:
            out.append("fold")
        out.append(f"call {self.call_amount}" if self.call_amount else "check")
        if self.min_raise_to is not None:
            out.append(f"raise_to {self.min_raise_to}..{self.max_raise_to}")
        if self.all_in_is_call:
            out.append(f"all_in (a call: raising is closed, to {self.all_in_to})")
        elif self.can_all_in:
            out.append(f"all_in (to {self.all_in_to})")
        return out


@dataclass(frozen=True)
class ActionRecord:
    """One entry of the hand history.

    Attributes:
        street: the betting round's name.
        seat: who acted.
        action: ``fold``, ``check``, ``call``, ``raise_to``, ``all_in`` or ``leave``
            (an ``all_in`` where the raising is closed is recorded as the ``call`` it is).
        amount: chips this action moved from the stack (the penalty, for ``leave``).
        to: the seat's round total after the action (``raise_to`` / ``all_in``), else 0.
        roles: for ``leave``, the [dealer, small blind, big blind] seats after the
            escape shifted them (RULES.md §3); a replay checks it. None otherwise.
    """

    street: str
    seat: int
    action: str
    amount: int
    to: int = 0
    roles: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class ShowdownRecord:
    """A hand shown at showdown (revealed from the dealer clockwise).

    Attributes:
        seat: the seat.
        cards: its hole cards as text.
        rank: the evaluator's rank of its best five of seven (larger is better).
        name: the hand's name, e.g. ``"Royal Flush"``.
        description: e.g. ``"Two Pair, Kings and Sevens"``.
    """

    seat: int
    cards: str
    rank: int
    name: str
    description: str


@dataclass
class _HandLog:
    start_stacks: list[int]
    seated: list[bool]
    button: int
    deck: list[int]
    records: list[ActionRecord] = field(default_factory=list)
    # What the hand came to, kept when it is closed (joins, leavers' departures and
    # busted players change the table after that): the table row as it was then, from
    # which hand_record reads its claims (kept raw: most hands are never recorded).
    end: NDArray[np.int64] | None = None
    # The bank (penalties burned) before the hand: ``bank`` in a record is the total.
    start_bank: int = 0


class HoldemGame(LazyRng):
    """A Hold'em table: seats, hands, actions (RULES.md §3).

    Args:
        config: table options.
        rng: a seeded :class:`numpy.random.Generator` (or a seed) for decks and buttons.
        num_players: players seated at seats ``0..num_players-1`` with the starting
            stack; None = every seat.
    """

    def __init__(
        self,
        config: HoldemConfig | None = None,
        rng: np.random.Generator | int | None = None,
        num_players: int | None = None,
    ) -> None:
        self.config = config if config is not None else HoldemConfig()
        if not isinstance(self.config, HoldemConfig):
            raise ConfigError("config", config, "a HoldemConfig (or None for the defaults)")
        if isinstance(rng, np.random.Generator):
            self._rng: np.random.Generator | LazyGenerator = rng
        else:
            seed = as_int(rng)
            if (rng is not None and seed is None) or (seed is not None and seed < 0):
                raise ConfigError(
                    "rng", rng, "a numpy.random.Generator, an integer seed >= 0, or None"
                )
            self._rng = np.random.default_rng(seed)
        n = self.config.num_seats if num_players is None else as_int(num_players)
        if n is None or not 2 <= n <= self.config.num_seats:
            raise ConfigError("num_players", num_players, f"None or 2..{self.config.num_seats}")
        self.state = self.config.new_state()
        self._tables = get_holdem_tables()
        self._changed = True  # RULES.md §3: the first button is random
        self._log: _HandLog | None = None
        self.hand_number = 0
        for seat in range(n):
            self.join(seat)

    # ------------------------------------------------------------ copies
    # ``rng`` (the Generator decks and buttons are drawn from) is LazyRng's property.

    def clone(
        self, resample_for: int | None = None, rng: np.random.Generator | None = None
    ) -> HoldemGame:
        """An independent copy of this table as it stands, mid-hand or between hands.

        OpenSpiel's ``state.clone()``, for a search that tries actions on copies. The
        copy has the original's future: the same calls on both give the same cards,
        buttons, records and payouts, because its Generator is a copy of this one's as
        it is now (made when the copy first draws, so a clone that never starts a hand
        does not pay for it). Nothing done to one changes the other; the config and the
        evaluator tables, which nothing changes, are shared. Over ten times as fast
        as :func:`copy.deepcopy` (``bench/run.py copies``).

        Such a copy knows what the table knows: the other hole cards and the board to
        come. A search for one player (determinization, as in PIMC or IS-MCTS) passes
        ``resample_for=seat`` and its own ``rng``: the copy's cards that seat has not
        seen (the others' hole cards, folded ones included, and every card not yet on
        the board) are dealt again at random from the ones it has not seen, so the
        copy is one world consistent with what that seat knows. Its later hands are
        drawn from a Generator seeded from ``rng``, not from a copy of the table's.
        The hand record of such a copy shows the new deal.

        Raises:
            ArgumentError: ``resample_for`` is not a seat of the table, ``rng`` is
                not a Generator while ``resample_for`` is given, is given without it,
                or is the table's own Generator.
            IllegalActionError: ``resample_for`` is given and no hand is under way.
        """
        if resample_for is None and rng is not None:
            raise ArgumentError("rng", rng, "None unless resample_for is given")
        if rng is not None and rng is self._rng:
            # Drawing from it would change this table's own next decks.
            raise ArgumentError("rng", rng, "the search's own Generator, not the table's")
        twin = object.__new__(type(self))
        twin.config = self.config
        twin._rng = snapshot(self._rng)
        twin.state = self.state.copy()
        twin._tables = self._tables
        twin._changed = self._changed
        log = self._log
        if log is not None:  # its lists copied: none is shared with the original
            log_twin = object.__new__(_HandLog)
            log_twin.__dict__.update(
                log.__dict__,
                records=list(log.records),
                start_stacks=list(log.start_stacks),
                seated=list(log.seated),
                deck=list(log.deck),
            )
            log = log_twin
        twin._log = log
        twin.hand_number = self.hand_number
        if resample_for is not None:
            twin._resample(resample_for, rng)
        return twin

    def _resample(self, resample_for: object, rng: object) -> None:
        # clone(resample_for=...): deal again, from `rng`, every card `resample_for`
        # has not seen. A card's value is replaced by another wherever it lies (the
        # deck order, the hole cards, the board), which is the deal of the permuted
        # deck: the same positions in the deck deal the same places.
        q = self._seat_arg(resample_for)
        if q is None:
            raise ArgumentError(
                "resample_for", resample_for, f"a seat from 0 to {self.config.num_seats - 1}"
            )
        if not isinstance(rng, np.random.Generator):
            raise ArgumentError(
                "rng", rng, "a numpy.random.Generator (resample_for draws the unseen cards)"
            )
        if self.phase != "betting":
            raise IllegalActionError(
                f"clone(resample_for={q})", [], self.phase, "no hand under way to resample"
            )
        K.resample_unseen(self.state, q, np.uint64(key63(rng)), np.empty(156, np.int64))
        assert self._log is not None  # a hand under way has its log
        self._log.deck = self.state[K.DECK : K.DECK + 52].tolist()
        # The hands after this one are unseen too: the copy's Generator is no longer
        # the table's (whose next decks a search must not know) but one seeded from `rng`.
        self._rng = GeneratorSeed(key63(rng))

    # ------------------------------------------------------------ table
    @property
    def phase(self) -> str:
        """``"idle"`` (between hands), ``"betting"`` or ``"over"`` (hand decided)."""
        return ("idle", "betting", "over")[int(self.state[K.PHASE])]

    @property
    def street(self) -> str:
        """The current betting round's name."""
        return STREET_NAMES[int(self.state[K.STREET])]

    def _status(self, seat: int) -> int:
        return int(self.state[K.STATUS + seat])

    def _seat_arg(self, seat: object) -> int | None:
        """``seat`` as an int when it is a seat of this table, else None."""
        q = as_int(seat)
        return q if q is not None and 0 <= q < self.config.num_seats else None

    def _seat(self, seat: object) -> int:
        """``seat`` as a seat of this table, or an ArgumentError naming it."""
        q = self._seat_arg(seat)
        if q is None:
            raise ArgumentError("seat", seat, f"a seat from 0 to {self.config.num_seats - 1}")
        return q

    def seats(self) -> list[int]:
        """Occupied seats."""
        return [q for q in range(self.config.num_seats) if self._status(q) != K.EMPTY]

    def join(self, seat: int, stack: int | None = None) -> None:
        """Seat a player between hands (the next button is random again).

        Args:
            seat: a free seat.
            stack: his chips, an integer >= 1 (None: the config's starting stack), at
                most what keeps :meth:`total_chips` within :data:`MAX_TABLE_CHIPS`.

        Raises:
            IllegalActionError: a hand is running, the seat is not free, or ``stack``
                is not an integer in those bounds (nothing changes).
        """
        if self.phase == "betting":
            raise IllegalActionError(f"join({seat})", ["leave"], self.street, "a hand is running")
        q = self._seat_arg(seat)
        if q is None or self._status(q) != K.EMPTY:
            raise IllegalActionError(
                f"join({seat!r})", self._free_seats(), self.phase, "seat not free"
            )
        chips = self.config.stack if stack is None else as_int(stack)
        # Every chip of the table must fit the int64 row (MAX_TABLE_CHIPS).
        most = MAX_TABLE_CHIPS - self.total_chips()
        if chips is None or not 1 <= chips <= most:
            raise IllegalActionError(
                f"join({seat!r}, stack={stack!r})",
                [f"join({q}, stack=1..{most})"],
                self.phase,
                "the stack must be an integer number of chips >= 1 that keeps the table's"
                f" chips within MAX_TABLE_CHIPS ({MAX_TABLE_CHIPS})",
            )
        self._close_hand()
        self.state[K.STATUS + q] = K.SEATED
        self.state[K.STACK + q] = chips
        self._changed = True

    def _free_seats(self) -> list[str]:
        return [f"join({q})" for q in range(self.config.num_seats) if self._status(q) == K.EMPTY]

    def remove(self, seat: int) -> int:
        """A player leaves between hands, taking his stack; returns it.

        During a hand this is an escape: see :meth:`leave` (returns the penalty paid).
        """
        if self.phase == "betting":
            return self.leave(seat).amount
        q = self._seat_arg(seat)
        if q is None or self._status(q) == K.EMPTY:
            raise IllegalActionError(
                f"remove({seat!r})",
                [f"remove({p})" for p in self.seats()],
                self.phase,
                "not an occupied seat",
            )
        if self.phase == "over" and (
            self._status(q) == K.LEFT or int(self.state[K.STACK + q]) == 0
        ):
            # Leavers and busted players leave with the hand's close (RULES.md §3).
            raise IllegalActionError(
                f"remove({q})", self.seats(), self.phase, "the player leaves with the hand"
            )
        self._close_hand()
        stack = int(self.state[K.STACK + q])
        self.state[K.DEPARTED] += stack
        self.state[K.STACK + q] = 0
        self.state[K.STATUS + q] = K.EMPTY
        self._changed = True
        return stack

    def _close_hand(self) -> None:
        if self.phase == "over":
            if self._log is not None and self._log.end is None:
                self._log.end = self.state.copy()
            # RULES.md §3: busted players cannot post and leave the table.
            if K.finish_hand(self.state, True):
                self._changed = True

    def stacks(self) -> list[int]:
        """Chips behind, per seat (0 for empty seats)."""
        return self.state[K.STACK : K.STACK + self.config.num_seats].tolist()  # type: ignore[no-any-return]

    def bets(self) -> list[int]:
        """Chips put in during the current betting round, per seat."""
        return self.state[K.BET : K.BET + self.config.num_seats].tolist()  # type: ignore[no-any-return]

    def committed(self) -> list[int]:
        """Chips put in during the whole hand, per seat."""
        return self.state[K.COMMIT : K.COMMIT + self.config.num_seats].tolist()  # type: ignore[no-any-return]

    @property
    def pot(self) -> int:
        """Chips in the pots (all rounds; 0 once the hand is paid)."""
        if self.phase != "betting":
            return 0
        return int(self.state[K.COMMIT : K.COMMIT + K.MAX_SEATS].sum() + self.state[K.POT_EXTRA])

    @property
    def bank(self) -> int:
        """Penalties burned so far."""
        return int(self.state[K.BANK])

    def total_chips(self) -> int:
        """Stacks + pots + bank + chips taken away by leavers: constant (RULES.md "Everywhere")."""
        return int(K.table_chips(self.state))

    @property
    def button(self) -> int:
        """The dealer seat (-1 before the first hand)."""
        return int(self.state[K.BUTTON])

    @property
    def small_blind(self) -> int:
        """The seat holding the small-blind role."""
        return int(self.state[K.SB])

    @property
    def big_blind(self) -> int:
        """The seat holding the big-blind role."""
        return int(self.state[K.BB])

    @property
    def to_act(self) -> int:
        """The seat to act, -1 when none."""
        return int(self.state[K.TO_ACT]) if self.phase == "betting" else -1

    def in_hand(self, seat: int) -> bool:
        """The seat still contests the pot (not folded, not left).

        Raises:
            ArgumentError: ``seat`` is not a seat of the table.
        """
        return self._status(self._seat(seat)) in (K.ACTIVE, K.ALLIN)

    def hole_cards(self, seat: int) -> str:
        """A seat's two hole cards as text ("" when not dealt).

        Raises:
            ArgumentError: ``seat`` is not a seat of the table.
        """
        q = self._seat(seat)
        c = self.state[K.HOLE + 2 * q : K.HOLE + 2 * q + 2]
        return "" if c[0] < 0 else format_cards(c)

    def board(self) -> str:
        """The board cards dealt so far."""
        k = int(self.state[K.NUM_BOARD])
        return format_cards(self.state[K.BOARD : K.BOARD + k])

    @property
    def payouts(self) -> list[int]:
        """Chips each seat took from the pots this hand (after the hand is over)."""
        return self.state[K.WON : K.WON + self.config.num_seats].tolist()  # type: ignore[no-any-return]

    # ------------------------------------------------------------ hands
    def start_hand(
        self, deck: NDArray[np.integer] | str | None = None, button: int | None = None
    ) -> int:
        """Deal the next hand; returns the dealer seat.

        Args:
            deck: the 52 cards in dealing order (default: shuffled from ``rng``):
                integers 0..51, each once (any integer dtype), or their text.
            button: the dealer seat (default: RULES.md §3, random when the table
                changed, else one seat clockwise).

        Raises:
            ConfigError: ``deck`` is not the 52 cards each once (floats, 51 or 53
                cards, a repeated or unknown card); nothing changes.
            IllegalActionError: a hand is running, ``button`` is not a seated
                player's seat, or fewer than two players have chips.
        """
        if self.phase == "betting":
            raise IllegalActionError(
                "start_hand", self.legal_actions().names(), self.street, "a hand is running"
            )
        if deck is not None:
            deck_arr = _deck_array(deck)
        if button is not None and self._seat_arg(button) is None:
            raise IllegalActionError(
                f"start_hand(button={button!r})",
                self.seats(),
                self.phase,
                "button not a seated player",
            )
        # A refused start changes nothing: the closing of a decided hand (busted
        # players leave) and the random draws are undone with it.
        undo = (
            self.state.copy(),
            self._changed,
            self._log.end if self._log is not None else None,
            self.rng.bit_generator.state,
        )
        self._close_hand()
        if deck is None:
            deck_arr = self.rng.permutation(52).astype(np.int64)
        if button is None:
            button = int(K.next_button(self.state, self._changed, int(self.rng.integers(1 << 30))))
        log = _HandLog(
            start_stacks=self.stacks(),
            start_bank=self.bank,
            seated=(self.state[K.STATUS : K.STATUS + self.config.num_seats] == K.SEATED).tolist(),
            button=int(button),
            deck=np.asarray(deck_arr, dtype=np.int64).tolist(),
        )
        code = K.start_hand(self.state, deck_arr, int(button), self._tables)
        if code != K.OK:
            seats = self.seats()
            self.state[:] = undo[0]
            self._changed = undo[1]
            if self._log is not None:
                self._log.end = undo[2]
            self.rng.bit_generator.state = undo[3]
            if code == K.ERR_TOO_FEW:
                raise IllegalActionError(
                    "start_hand", seats, "idle", "fewer than two players with chips"
                )
            raise IllegalActionError(
                f"start_hand(button={button})", seats, "idle", "button not a seated player"
            )
        self._changed = False
        self._log = log
        self.hand_number += 1
        return int(button)

    def legal_actions(self) -> LegalActions:
        """The seat to act's legal actions with amount bounds."""
        arr = np.empty(K.LEGAL_SIZE, dtype=np.int64)
        K.legal(self.state, arr)
        lg = arr.tolist()  # Python ints: cheaper to read one by one than numpy scalars
        can_raise = bool(lg[K.L_CAN_RAISE])
        seat = lg[K.L_SEAT]
        allin_to = lg[K.L_ALLIN_TO]
        # RULES.md §3: with raising closed the all-in stops at the current bet (a call);
        # a stack that does not cover the call is a true all-in for less.
        stack = int(self.state[K.STACK + seat]) if seat >= 0 else 0
        bet = int(self.state[K.BET + seat]) if seat >= 0 else 0
        return LegalActions(
            seat=seat,
            street=self.street,
            can_fold=bool(lg[K.L_CAN_FOLD]),
            call_amount=lg[K.L_CALL],
            min_raise_to=lg[K.L_MIN_TO] if can_raise else None,
            max_raise_to=lg[K.L_MAX_TO] if can_raise else None,
            can_all_in=bool(lg[K.L_CAN_ALLIN]),
            all_in_to=allin_to,
            all_in_is_call=seat >= 0 and allin_to < bet + stack,
        )

    def _check(self, kind: int, amount: int = 0) -> int:
        lg = np.empty(K.LEGAL_SIZE, dtype=np.int64)
        return int(K.check_action(self.state, kind, amount, lg))

    def can_fold(self) -> bool:
        """Folding is legal now."""
        return self._check(K.FOLD) == K.OK

    def can_check_or_call(self) -> bool:
        """Checking or calling is legal now (whenever a seat is to act)."""
        return self._check(K.CHECK_CALL) == K.OK

    def can_raise_to(self, amount: int) -> bool:
        """Raising to ``amount`` (the seat's round total) is legal now (any integer).

        Raises:
            IllegalActionError: ``amount`` is not an integer (``4.9``, ``"10"``).
        """
        amt = self._amount(amount, "can_raise_to")
        return abs(amt) <= MAX_TABLE_CHIPS and self._check(K.RAISE_TO, amt) == K.OK

    def _amount(self, amount: object, label: str) -> int:
        """``amount`` as an int, or an IllegalActionError naming it (no rounding)."""
        amt = as_int(amount)
        if amt is None:
            raise IllegalActionError(
                f"{label}({amount!r})",
                self.legal_actions().names() if self.phase == "betting" else [],
                self.street if self.phase == "betting" else self.phase,
                "the amount must be an integer number of chips",
            )
        return amt

    def can_all_in(self) -> bool:
        """Going all-in is legal now."""
        return self._check(K.ALL_IN) == K.OK

    def can_leave(self, seat: int) -> bool:
        """``seat`` may leave during the hand (RULES.md §3 escape); False for any value
        that is not a seat of the table."""
        q = self._seat_arg(seat)
        return (
            self.phase == "betting"
            and q is not None
            and self._status(q)
            in (
                K.ACTIVE,
                K.ALLIN,
                K.FOLDED,
            )
        )

    def _do(self, kind: int, amount: int, label: str) -> ActionRecord:
        if self.phase != "betting":
            raise IllegalActionError(label, [], self.phase, "no hand is running")
        before = self.legal_actions()
        seat = before.seat
        street = self.street
        stack0 = int(self.state[K.STACK + seat])
        code = K.act(self.state, kind, amount, self._tables)
        if code != K.OK:
            reason = {
                K.ERR_NOTHING_TO_FOLD: "nothing to call: check instead",
                K.ERR_RAISE_CLOSED: "raising is closed for this seat",
                K.ERR_AMOUNT: "amount out of bounds",
            }.get(code, f"code {code}")
            raise IllegalActionError(label, before.names(), street, reason)
        moved = stack0 - int(self.state[K.STACK + seat]) + int(self.state[K.WON + seat])
        if kind == K.FOLD:
            rec = ActionRecord(street, seat, "fold", 0)
        elif kind == K.CHECK_CALL:
            rec = ActionRecord(
                street, seat, "call" if before.call_amount else "check", before.call_amount
            )
        elif kind == K.RAISE_TO:
            rec = ActionRecord(street, seat, "raise_to", moved, amount)
        elif before.all_in_is_call:
            # RULES.md §3: where the raising is closed, the all-in is a call.
            rec = ActionRecord(street, seat, "call", before.call_amount)
        else:
            rec = ActionRecord(street, seat, "all_in", stack0, before.all_in_to)
        assert self._log is not None
        self._log.records.append(rec)
        return rec

    def fold(self) -> ActionRecord:
        """The seat to act folds (only when facing a bet)."""
        return self._do(K.FOLD, 0, "fold")

    def check_or_call(self) -> ActionRecord:
        """The seat to act checks, or calls (all-in for less when short)."""
        return self._do(K.CHECK_CALL, 0, "check_or_call")

    def raise_to(self, amount: int) -> ActionRecord:
        """The seat to act bets or raises to ``amount`` chips in this round.

        Raises:
            IllegalActionError: naming the amount, the legal actions with their
                bounds and the street, for an amount out of bounds or not an integer
                (``4.9``, ``"10"``: no rounding); nothing changes.
        """
        amt = self._amount(amount, "raise_to")
        if abs(amt) > MAX_TABLE_CHIPS:
            # Beyond any bound, and kept from the kernel's int64 argument.
            amt = -1
        return self._do(K.RAISE_TO, amt, f"raise_to({amount})")

    def all_in(self) -> ActionRecord:
        """The seat to act puts in all his chips."""
        return self._do(K.ALL_IN, 0, "all_in")

    def leave(self, seat: int) -> ActionRecord:
        """``seat`` leaves during the hand: his chips in the pot stay, he pays the penalty."""
        street = self.street
        q = self._seat_arg(seat)
        stack0 = int(self.state[K.STACK + q]) if q is not None else 0
        code = K.leave(self.state, q, self._tables) if q is not None else K.ERR_SEAT
        if code != K.OK or q is None:
            legal = [f"leave({p})" for p in range(self.config.num_seats) if self.can_leave(p)]
            raise IllegalActionError(
                f"leave({seat!r})", legal, street if self.phase == "betting" else self.phase
            )
        paid = stack0 - int(self.state[K.STACK + q])
        rec = ActionRecord(street, q, "leave", paid, roles=self.roles())
        assert self._log is not None
        self._log.records.append(rec)
        self._changed = True
        return rec

    def roles(self) -> tuple[int, int, int]:
        """The (dealer, small blind, big blind) seats now (an escape shifts them)."""
        return self.button, self.small_blind, self.big_blind

    def apply(self, rec: ActionRecord) -> ActionRecord:
        """Apply a recorded action again (replay).

        Raises:
            IllegalActionError: the action is refused, or a ``leave`` record's
                ``roles`` are not those the escape gives, or ``rec`` is not a
                well-formed ActionRecord (nothing changes then).
        """
        _check_record(rec, self)
        if rec.action == "leave":
            if rec.roles is not None:
                # The escape's role shift is checked on a copy: a refused record changes nothing.
                trial = self.state.copy()
                code = K.leave(trial, int(rec.seat), self._tables)
                got = (int(trial[K.BUTTON]), int(trial[K.SB]), int(trial[K.BB]))
                if code == K.OK and list(got) != list(rec.roles):
                    raise IllegalActionError(
                        rec,
                        [f"leave({rec.seat}) with roles {list(got)}"],
                        self.street,
                        f"the record's roles {list(rec.roles)} (dealer, small blind, big blind)"
                        f" are not those the escape gives, {list(got)}",
                    )
            return self.leave(rec.seat)
        if rec.seat != self.to_act:
            raise IllegalActionError(
                rec, self.legal_actions().names(), self.street, "not this seat's turn"
            )
        if rec.action == "fold":
            return self.fold()
        if rec.action in ("check", "call"):
            return self.check_or_call()
        if rec.action == "raise_to":
            return self.raise_to(rec.to)
        if rec.action == "all_in":
            return self.all_in()
        raise IllegalActionError(rec, self.legal_actions().names(), self.street, "unknown action")

    @property
    def is_hand_over(self) -> bool:
        """The current hand is decided and paid."""
        return self.phase == "over"

    def history(self) -> list[ActionRecord]:
        """The current (or last) hand's action records."""
        return [] if self._log is None else list(self._log.records)

    def showdown(self) -> list[ShowdownRecord]:
        """Hands shown at showdown, from the dealer clockwise (RULES.md §3); [] if none."""
        from poker_env.evaluator import describe_hand, hand_name

        n = self.config.num_seats
        out = []
        for i in range(n):
            q = (self.button + i) % n
            r = int(self.state[K.RANK + q])
            if r >= 0:
                out.append(ShowdownRecord(q, self.hole_cards(q), r, hand_name(r), describe_hand(r)))
        return out

    # ------------------------------------------------------------ histories
    def hand_record(self) -> dict[str, Any]:
        """The last hand as a JSON-ready dict: config, seats, button, deck, actions, result.

        Format version 2 (``"game": "holdem", "version": 2``): ``final_stacks``,
        ``bank`` and ``result`` (phase, street, board, pot, seat to act, payouts) are
        what the hand came to, as it ended (or now, while it runs); :func:`replay_json`
        checks them. Version 1 records (no ``version``) replay unchecked.
        """
        if self._log is None:
            raise IllegalActionError("hand_record", ["start_hand"], self.phase, "no hand was dealt")
        cfg = asdict(self.config)
        return {
            "game": HISTORY_GAME,
            "version": HISTORY_VERSION,
            "config": cfg,
            # Copies: a caller's edits of the record stay out of the table's log.
            "start_stacks": list(self._log.start_stacks),
            "start_bank": self._log.start_bank,
            "seated": list(self._log.seated),
            "button": self._log.button,
            "deck": format_cards(self._log.deck),
            "actions": [
                {k: v for k, v in asdict(r).items() if k != "roles" or v is not None}
                for r in self._log.records
            ],
            # What the hand came to (final_stacks, bank, result), checked by the replay.
            **self._claims(self._log.end),
        }

    def _claims(self, row: NDArray[np.int64] | None = None) -> dict[str, Any]:
        # The claims of a hand record: a replay must give the same. ``row``: the
        # table as the hand closed (default: as it is now); read as the properties
        # stacks(), bank, phase, street, board(), pot, to_act and payouts read it.
        st = self.state if row is None else row
        n = self.config.num_seats
        phase = ("idle", "betting", "over")[int(st[K.PHASE])]
        betting = phase == "betting"
        pot = int(st[K.COMMIT : K.COMMIT + K.MAX_SEATS].sum() + st[K.POT_EXTRA]) if betting else 0
        return {
            "final_stacks": st[K.STACK : K.STACK + n].tolist(),
            "bank": int(st[K.BANK]),
            "result": {
                "phase": phase,
                "street": STREET_NAMES[int(st[K.STREET])],
                "board": format_cards(st[K.BOARD : K.BOARD + int(st[K.NUM_BOARD])]),
                "pot": pot,
                "to_act": int(st[K.TO_ACT]) if betting else -1,
                "payouts": st[K.WON : K.WON + n].tolist() if phase == "over" else None,
            },
        }

    def to_json(self) -> str:
        """The last hand as JSON text (replay with :func:`replay_json`)."""
        return json.dumps(self.hand_record())


_RECORD_ACTIONS = ("fold", "check", "call", "raise_to", "all_in", "leave")
_RECORD_FIELDS = {f.name for f in fields(ActionRecord)}


def _check_record(rec: object, game: HoldemGame) -> None:
    """An IllegalActionError unless ``rec`` is an ActionRecord of well-typed fields."""
    why = ""
    if not isinstance(rec, ActionRecord):
        why = "not an ActionRecord"
    elif not isinstance(rec.action, str) or rec.action not in _RECORD_ACTIONS:
        why = f"action {rec.action!r}: allowed {list(_RECORD_ACTIONS)}"
    elif game._seat_arg(rec.seat) is None:
        why = f"seat {rec.seat!r}: allowed 0..{game.config.num_seats - 1}"
    elif as_int(rec.to) is None or as_int(rec.amount) is None:
        why = "amount and to must be integers"
    elif rec.roles is not None and (
        not isinstance(rec.roles, tuple | list)
        or len(rec.roles) != 3
        or any(as_int(x) is None for x in rec.roles)
    ):
        why = f"roles {rec.roles!r}: allowed None or three seats"
    if why:
        raise IllegalActionError(
            rec,
            game.legal_actions().names() if game.phase == "betting" else [],
            game.street if game.phase == "betting" else game.phase,
            why,
        )


def _deck_array(deck: object) -> NDArray[np.int64]:
    """The 52 cards of a deck (integers or text) in dealing order, or a ConfigError."""
    allowed = "a permutation of the 52 cards: integers 0..51 each once, or their text"
    if isinstance(deck, str):
        try:
            arr = parse_cards(deck)
        except ValueError as exc:
            raise ConfigError("deck", deck, f"{allowed} ({exc})") from None
    else:
        try:
            arr = np.asarray(deck)
        except (ValueError, TypeError):
            raise ConfigError("deck", deck, allowed) from None
        if arr.dtype.kind not in "iu":
            # Floats (3.0 or 3.5), bools, strings, objects: refused, never truncated.
            raise ConfigError("deck", deck, f"{allowed} (got dtype {arr.dtype})")
    if arr.shape != (52,) or sorted(arr.tolist()) != list(range(52)):
        raise ConfigError("deck", deck, allowed)
    return arr.astype(np.int64)


def replay_json(text: str | bytes | dict[str, Any]) -> HoldemGame:
    """Rebuild a hand from :meth:`HoldemGame.to_json` (or its ``hand_record`` dict) and
    play its actions again.

    A version 2 record's claims are checked against the replay: every action record
    (its street, seat, action, chips moved, round total and an escape's roles), then
    ``final_stacks``, ``bank`` and ``result`` (phase, street, board, pot, seat to act,
    payouts). Version 1 records (no ``version``) replay unchecked.

    Raises:
        HistoryError: naming the field, for text that is not such a record: not JSON,
            a missing or malformed field, another game's history, a config the
            engine refuses, a deck that is not the 52 cards, an action the rules
            refuse at that point (``actions[i]``), or a claim the replay does not
            give (a tampered or truncated record). Nothing else escapes.
    """
    if isinstance(text, dict):
        rec = text
    else:
        try:
            rec = json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            # ValueError: bad JSON or bad UTF-8; TypeError: neither str nor bytes.
            raise HistoryError("text", f"not JSON ({exc}); allowed: what to_json wrote") from None
    if not isinstance(rec, dict):
        raise HistoryError("text", f"a JSON {type(rec).__name__}; allowed: a JSON object")
    version = rec.get("version", 1)
    if as_int(version) not in (1, HISTORY_VERSION):
        raise HistoryError("version", f"{version!r}; allowed: 1 (no field) or 2")
    # Version 1 records carry no "game"; a record that names one must name this game.
    name = rec.get("game", HISTORY_GAME if version == 1 else None)
    if name != HISTORY_GAME:
        raise HistoryError("game", f"{name!r}; allowed: {HISTORY_GAME!r}")
    checked = version == HISTORY_VERSION
    required = ["config", "start_stacks", "seated", "button", "deck", "actions"]
    for key in required + (["start_bank", "final_stacks", "bank", "result"] if checked else []):
        if key not in rec:
            raise HistoryError(key, "missing")
    cfg = _history_config(rec["config"])
    n = cfg.num_seats
    seated = rec["seated"]
    if not (isinstance(seated, list) and len(seated) == n):
        raise HistoryError("seated", f"{seated!r}; allowed: a list of {n} true/false")
    if not all(isinstance(x, bool) for x in seated):
        raise HistoryError("seated", f"{seated!r}; allowed: a list of {n} true/false")
    stacks = rec["start_stacks"]
    if (
        not isinstance(stacks, list)
        or len(stacks) != n
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in stacks)
        or any(x and not on for x, on in zip(stacks, seated, strict=True))
        or sum(stacks) > MAX_TABLE_CHIPS
    ):
        raise HistoryError(
            "start_stacks",
            f"{stacks!r}; allowed: a list of {n} integers >= 0 (0 at empty seats), in all"
            f" at most MAX_TABLE_CHIPS ({MAX_TABLE_CHIPS})",
        )
    button = rec["button"]
    if isinstance(button, bool) or not isinstance(button, int) or not 0 <= button < n:
        raise HistoryError("button", f"{button!r}; allowed: a seat from 0 to {n - 1}")
    try:
        deck = _deck_array(rec["deck"])
    except ConfigError as exc:
        raise HistoryError("deck", str(exc)) from None
    game = HoldemGame(cfg, rng=0, num_players=2)
    for q in range(n):
        game.state[K.STATUS + q] = K.SEATED if seated[q] else K.EMPTY
        game.state[K.STACK + q] = stacks[q]
    try:
        game.start_hand(deck=deck, button=button)
    except IllegalActionError as exc:
        raise HistoryError("button", f"the hand cannot be dealt: {exc}") from None
    actions = rec["actions"]
    if not isinstance(actions, list):
        raise HistoryError("actions", f"{actions!r}; allowed: a list of action records")
    for i, a in enumerate(actions):
        record = _history_action(a, f"actions[{i}]")
        try:
            got = game.apply(record)
        except IllegalActionError as exc:
            raise HistoryError(
                f"actions[{i}]", f"{a!r} refused at this point of the replay: {exc}"
            ) from None
        if checked and got != record:
            raise HistoryError(
                f"actions[{i}]",
                f"the history records {record}, its replay gives {got} (a tampered record)",
            )
    if checked:
        start_bank = rec["start_bank"]
        if isinstance(start_bank, bool) or not isinstance(start_bank, int) or start_bank < 0:
            raise HistoryError("start_bank", f"{start_bank!r}; allowed: an integer >= 0")
        actual = json.loads(json.dumps(game._claims()))
        # The replay's bank holds this hand's penalties; the record's, the table's total.
        actual["bank"] += start_bank
        claims = {"final_stacks": rec["final_stacks"], "bank": rec["bank"]}
        result = rec["result"]
        if not isinstance(result, dict):
            raise HistoryError("result", f"{result!r}; allowed: an object of claims")
        for key, value in actual.pop("result").items():
            claims[f"result.{key}"] = result.get(key, _MISSING)
            actual[f"result.{key}"] = value
        for key, value in actual.items():
            got_claim = claims[key]
            if got_claim is _MISSING:
                raise HistoryError(key, "missing")
            if got_claim != value or type(got_claim) is not type(value):
                raise HistoryError(
                    key,
                    f"the history claims {got_claim!r}, its replay gives {value!r}"
                    " (a tampered or truncated history)",
                )
    return game


_MISSING = object()


def _history_config(conf: object) -> HoldemConfig:
    """The HoldemConfig of a hand record's ``config``, or a HistoryError naming the field."""
    names = [f.name for f in fields(HoldemConfig)]
    if not isinstance(conf, dict):
        raise HistoryError("config", f"{conf!r}; allowed: an object with the fields {names}")
    for key in names:
        if key not in conf:
            raise HistoryError(f"config.{key}", f"missing; the config has the fields {names}")
    for key in conf:
        if key not in names:
            raise HistoryError(f"config.{key}", f"unknown; allowed: the fields {names}")
    try:
        return HoldemConfig(**conf)
    except ConfigError as exc:
        raise HistoryError(f"config.{exc.field}", str(exc)) from None


def _history_action(a: object, where: str) -> ActionRecord:
    """An action record of a hand record's ``actions``, or a HistoryError naming it."""
    allowed = (
        "an object {street, seat, action, amount, to (optional), roles (optional)}:"
        f" street one of {list(STREET_NAMES)}, action one of {list(_RECORD_ACTIONS)},"
        " seat, amount and to integers, roles null or three seats"
    )

    def is_int(x: object) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    keys = set(a) if isinstance(a, dict) else set()
    if (
        not isinstance(a, dict)
        or not {"street", "seat", "action", "amount"} <= keys <= _RECORD_FIELDS
        or a["street"] not in STREET_NAMES
        or a["action"] not in _RECORD_ACTIONS
        or not all(is_int(a.get(k, 0)) for k in ("seat", "amount", "to"))
    ):
        raise HistoryError(where, f"{a!r}; allowed: {allowed}")
    roles = a.get("roles")
    if roles is not None and (
        not isinstance(roles, list) or len(roles) != 3 or not all(is_int(x) for x in roles)
    ):
        raise HistoryError(where, f"roles {roles!r}; allowed: null or a list of three seats")
    return ActionRecord(
        street=a["street"],
        seat=a["seat"],
        action=a["action"],
        amount=a["amount"],
        to=a.get("to", 0),
        roles=None if roles is None else (roles[0], roles[1], roles[2]),
    )
