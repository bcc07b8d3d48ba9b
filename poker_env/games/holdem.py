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
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards, parse_cards
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games import holdem_kernels as K

__all__ = [
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
        if not isinstance(self.num_seats, int) or not 2 <= self.num_seats <= K.MAX_SEATS:
            raise ConfigError("num_seats", self.num_seats, "an int from 2 to 10")
        if not isinstance(self.base, int) or self.base < 2 or self.base % 2:
            raise ConfigError("base", self.base, "an even int >= 2 (the small blind is E/2)")
        if self.starting_stack is not None and (
            not isinstance(self.starting_stack, int) or self.starting_stack < 1
        ):
            raise ConfigError("starting_stack", self.starting_stack, "None or an int >= 1")
        if self.max_bet is not None and (
            not isinstance(self.max_bet, int) or self.max_bet < self.base
        ):
            raise ConfigError("max_bet", self.max_bet, f"None or an int >= base ({self.base})")
        if self.rules not in _RULES:
            raise ConfigError("rules", self.rules, "'seed' or 'standard'")
        if self.penalty_to not in _PENALTY:
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


class HoldemGame:
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
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.state = self.config.new_state()
        self._tables = get_holdem_tables()
        self._changed = True  # RULES.md §3: the first button is random
        self._log: _HandLog | None = None
        self.hand_number = 0
        n = self.config.num_seats if num_players is None else num_players
        if not 2 <= n <= self.config.num_seats:
            raise ConfigError("num_players", num_players, f"2..{self.config.num_seats}")
        for seat in range(n):
            self.join(seat)

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

    def seats(self) -> list[int]:
        """Occupied seats."""
        return [q for q in range(self.config.num_seats) if self._status(q) != K.EMPTY]

    def join(self, seat: int, stack: int | None = None) -> None:
        """Seat a player between hands (the next button is random again)."""
        if self.phase == "betting":
            raise IllegalActionError(f"join({seat})", ["leave"], self.street, "a hand is running")
        if not 0 <= seat < self.config.num_seats or self._status(seat) != K.EMPTY:
            raise IllegalActionError(f"join({seat})", self._free_seats(), "idle", "seat not free")
        self._close_hand()
        self.state[K.STATUS + seat] = K.SEATED
        self.state[K.STACK + seat] = self.config.stack if stack is None else int(stack)
        self._changed = True

    def _free_seats(self) -> list[str]:
        return [f"join({q})" for q in range(self.config.num_seats) if self._status(q) == K.EMPTY]

    def remove(self, seat: int) -> int:
        """A player leaves between hands, taking his stack; returns it.

        During a hand this is an escape: see :meth:`leave` (returns the penalty paid).
        """
        if self.phase == "betting":
            return self.leave(seat).amount
        self._close_hand()
        if self._status(seat) == K.EMPTY:
            raise IllegalActionError(f"remove({seat})", self.seats(), "idle", "seat is empty")
        stack = int(self.state[K.STACK + seat])
        self.state[K.DEPARTED] += stack
        self.state[K.STACK + seat] = 0
        self.state[K.STATUS + seat] = K.EMPTY
        self._changed = True
        return stack

    def _close_hand(self) -> None:
        if self.phase == "over":
            # RULES.md §3: busted players cannot post and leave the table.
            if K.finish_hand(self.state, True):
                self._changed = True

    def stacks(self) -> list[int]:
        """Chips behind, per seat (0 for empty seats)."""
        return [int(x) for x in self.state[K.STACK : K.STACK + self.config.num_seats]]

    def bets(self) -> list[int]:
        """Chips put in during the current betting round, per seat."""
        return [int(x) for x in self.state[K.BET : K.BET + self.config.num_seats]]

    def committed(self) -> list[int]:
        """Chips put in during the whole hand, per seat."""
        return [int(x) for x in self.state[K.COMMIT : K.COMMIT + self.config.num_seats]]

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
        """The seat still contests the pot (not folded, not left)."""
        return self._status(seat) in (K.ACTIVE, K.ALLIN)

    def hole_cards(self, seat: int) -> str:
        """A seat's two hole cards as text ("" when not dealt)."""
        c = self.state[K.HOLE + 2 * seat : K.HOLE + 2 * seat + 2]
        return "" if c[0] < 0 else format_cards(c)

    def board(self) -> str:
        """The board cards dealt so far."""
        k = int(self.state[K.NUM_BOARD])
        return format_cards(self.state[K.BOARD : K.BOARD + k])

    @property
    def payouts(self) -> list[int]:
        """Chips each seat took from the pots this hand (after the hand is over)."""
        return [int(x) for x in self.state[K.WON : K.WON + self.config.num_seats]]

    # ------------------------------------------------------------ hands
    def start_hand(
        self, deck: NDArray[np.integer] | str | None = None, button: int | None = None
    ) -> int:
        """Deal the next hand; returns the dealer seat.

        Args:
            deck: the 52 cards in dealing order (default: shuffled from ``rng``).
            button: the dealer seat (default: RULES.md §3, random when the table
                changed, else one seat clockwise).
        """
        self._close_hand()
        if self.phase == "betting":
            raise IllegalActionError(
                "start_hand", self.legal_actions().names(), self.street, "a hand is running"
            )
        if deck is None:
            deck_arr = self.rng.permutation(52).astype(np.int64)
        elif isinstance(deck, str):
            deck_arr = parse_cards(deck).astype(np.int64)
        else:
            deck_arr = np.asarray(deck, dtype=np.int64)
        if deck_arr.shape != (52,) or sorted(deck_arr.tolist()) != list(range(52)):
            raise ConfigError("deck", deck, "a permutation of the 52 cards")
        if button is None:
            button = int(K.next_button(self.state, self._changed, int(self.rng.integers(1 << 30))))
        log = _HandLog(
            start_stacks=self.stacks(),
            seated=[self._status(q) == K.SEATED for q in range(self.config.num_seats)],
            button=int(button),
            deck=[int(c) for c in deck_arr],
        )
        code = K.start_hand(self.state, deck_arr, int(button), self._tables)
        if code == K.ERR_TOO_FEW:
            raise IllegalActionError(
                "start_hand", self.seats(), "idle", "fewer than two players with chips"
            )
        if code != K.OK:
            raise IllegalActionError(
                f"start_hand(button={button})", self.seats(), "idle", "button not a seated player"
            )
        self._changed = False
        self._log = log
        self.hand_number += 1
        return int(button)

    def legal_actions(self) -> LegalActions:
        """The seat to act's legal actions with amount bounds."""
        lg = np.empty(K.LEGAL_SIZE, dtype=np.int64)
        K.legal(self.state, lg)
        can_raise = bool(lg[K.L_CAN_RAISE])
        seat = int(lg[K.L_SEAT])
        allin_to = int(lg[K.L_ALLIN_TO])
        # RULES.md §3: with raising closed the all-in stops at the current bet (a call);
        # a stack that does not cover the call is a true all-in for less.
        stack = int(self.state[K.STACK + seat]) if seat >= 0 else 0
        bet = int(self.state[K.BET + seat]) if seat >= 0 else 0
        return LegalActions(
            seat=int(lg[K.L_SEAT]),
            street=self.street,
            can_fold=bool(lg[K.L_CAN_FOLD]),
            call_amount=int(lg[K.L_CALL]),
            min_raise_to=int(lg[K.L_MIN_TO]) if can_raise else None,
            max_raise_to=int(lg[K.L_MAX_TO]) if can_raise else None,
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
        """Raising to ``amount`` (the seat's round total) is legal now."""
        return self._check(K.RAISE_TO, int(amount)) == K.OK

    def can_all_in(self) -> bool:
        """Going all-in is legal now."""
        return self._check(K.ALL_IN) == K.OK

    def can_leave(self, seat: int) -> bool:
        """``seat`` may leave during the hand (RULES.md §3 escape)."""
        return (
            self.phase == "betting"
            and 0 <= seat < self.config.num_seats
            and self._status(seat)
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
        """The seat to act bets or raises to ``amount`` chips in this round."""
        return self._do(K.RAISE_TO, int(amount), f"raise_to({amount})")

    def all_in(self) -> ActionRecord:
        """The seat to act puts in all his chips."""
        return self._do(K.ALL_IN, 0, "all_in")

    def leave(self, seat: int) -> ActionRecord:
        """``seat`` leaves during the hand: his chips in the pot stay, he pays the penalty."""
        street = self.street
        stack0 = int(self.state[K.STACK + seat]) if 0 <= seat < self.config.num_seats else 0
        code = K.leave(self.state, int(seat), self._tables)
        if code != K.OK:
            legal = [f"leave({q})" for q in range(self.config.num_seats) if self.can_leave(q)]
            raise IllegalActionError(
                f"leave({seat})", legal, street if self.phase == "betting" else self.phase
            )
        paid = stack0 - int(self.state[K.STACK + seat])
        rec = ActionRecord(street, int(seat), "leave", paid, roles=self.roles())
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
                ``roles`` are not those the escape gives (nothing changes then).
        """
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
        """The last hand as a JSON-ready dict: config, seats, button, deck, actions, result."""
        if self._log is None:
            raise IllegalActionError("hand_record", ["start_hand"], self.phase, "no hand was dealt")
        cfg = asdict(self.config)
        return {
            "config": cfg,
            "start_stacks": self._log.start_stacks,
            "seated": self._log.seated,
            "button": self._log.button,
            "deck": format_cards(self._log.deck),
            "actions": [
                {k: v for k, v in asdict(r).items() if k != "roles" or v is not None}
                for r in self._log.records
            ],
            "final_stacks": self.stacks(),
            "bank": self.bank,
        }

    def to_json(self) -> str:
        """The last hand as JSON text (replay with :func:`replay_json`)."""
        return json.dumps(self.hand_record())

    def to_phh(self) -> str:
        """The last hand in PHH (see :func:`poker_env.games.holdem_phh.to_phh`)."""
        from poker_env.games.holdem_phh import to_phh

        return to_phh(self.hand_record())


def replay_json(text: str | dict[str, Any]) -> HoldemGame:
    """Rebuild a hand from :meth:`HoldemGame.to_json` and play its actions again."""
    rec = json.loads(text) if isinstance(text, str) else text
    cfg = HoldemConfig(**rec["config"])
    game = HoldemGame(cfg, rng=0, num_players=2)
    for q in range(cfg.num_seats):
        game.state[K.STATUS + q] = K.SEATED if rec["seated"][q] else K.EMPTY
        game.state[K.STACK + q] = rec["start_stacks"][q]
    game.start_hand(deck=rec["deck"], button=rec["button"])
    for a in rec["actions"]:
        game.apply(ActionRecord(**a))
    return game
