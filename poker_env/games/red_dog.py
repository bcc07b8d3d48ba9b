"""Red Dog / High-Card Pool (RULES.md §2): the one implementation of the rules.

The rules are compiled functions (``@njit(cache=True)``) over plain array state,
in :mod:`poker_env.games.red_dog_kernels`: a table is one row of
:class:`RedDogState`, a batch is many rows. They return status codes and raise
nothing. This module is the readable object API on top, :class:`RedDogGame`:
legal-action queries with amount bounds, actions that return frozen records (the
hand history), JSON save and replay, :class:`~poker_env.errors.IllegalActionError`
on a refused action (nothing changes).

Randomness and speed: see :mod:`poker_env.games.red_dog_kernels` (one 64-bit key
drawn from the ``numpy.random.Generator`` given, then a per-table splitmix64
stream inside the compiled code).

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
from dataclasses import asdict, dataclass, fields
from enum import IntEnum
from typing import Any

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_card, format_cards
from poker_env.errors import ArgumentError, ConfigError, HistoryError, IllegalActionError, as_int
from poker_env.games.red_dog_kernels import (
    E_GAME_OVER,
    E_LEFT,
    E_NEW_DEAL,
    E_NSHOWN,
    E_REANTE,
    E_SHOWN,
    E_TURNED,
    E_WON,
    ERR_AMOUNT,
    ERR_GAME_OVER,
    ERR_KIND,
    F_HAS_BET,
    F_SEATED,
    I_AGENT,
    I_ANTE,
    I_BASE,
    I_DEALER,
    I_DEALS_DONE,
    I_DECK_POS,
    I_DRAWN,
    I_HAND_SIZE,
    I_NUM_PLAYERS,
    I_PHASE,
    I_POT,
    I_ROUNDS,
    I_START_CHIPS,
    I_TO_ACT,
    KIND_BET,
    KIND_FORFEIT,
    MAX_HAND_SIZE,
    MAX_PLAYERS,
    OK,
    PHASE_BET,
    PHASE_NAMES,
    PHASE_OVER,
    PUB_SHOWN,
    PUB_TURNED,
    RedDogState,
    apply_action,
    check_action,
    draw_for_dealer,
    fraction_bet,
    max_bet,
    new_game,
    new_state,
    play_builtin_until,
    rand_below,
    rand_u64,
    reference_bet,
    win_probabilities,
    win_probability_kernel,
)

# The facade, and the layout and kernels of red_dog_kernels that the other layers
# import from here.
__all__ = [
    "ERR_KIND",
    "F_HAS_BET",
    "F_SEATED",
    "HISTORY_GAME",
    "HISTORY_VERSION",
    "I_AGENT",
    "I_ANTE",
    "I_BASE",
    "I_DEALER",
    "I_DEALS_DONE",
    "I_DECK_POS",
    "I_HAND_SIZE",
    "I_NUM_PLAYERS",
    "I_PHASE",
    "I_POT",
    "I_ROUNDS",
    "I_START_CHIPS",
    "I_TO_ACT",
    "KIND_BET",
    "KIND_FORFEIT",
    "MAX_CHIPS",
    "MAX_HAND_SIZE",
    "MAX_KEY",
    "MAX_PLAYERS",
    "OK",
    "PHASE_BET",
    "PHASE_NAMES",
    "PHASE_OVER",
    "PUB_SHOWN",
    "PUB_TURNED",
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
    "apply_action",
    "draw_for_dealer",
    "fraction_bet",
    "max_bet",
    "new_game",
    "new_state",
    "play_builtin_until",
    "rand_below",
    "rand_u64",
    "reference_bet",
    "win_probabilities",
    "win_probability_kernel",
]


#: The largest chip count the engine holds: its chip arrays are int64.
MAX_CHIPS = 2**63 - 1
#: The largest random key: the kernels' random stream state is a uint64.
MAX_KEY = 2**64 - 1
#: The ``game`` and format ``version`` of :meth:`RedDogGame.to_json`.
HISTORY_GAME = "red_dog"
HISTORY_VERSION = 2


class RedDogAction(IntEnum):
    """A player's choice on his turn (RULES.md §2)."""

    FORFEIT = 0  # one chip to the pot, no card turned
    BET = 1  # 1 .. min(pot, chips); the dealer turns a card


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
        # Integer fields are stored as Python ints (numpy integers accepted): the
        # bounds below are then computed without wrap-around, and the config is JSON-able.
        def set_int(name: str, lo: int, hi: int | None, allowed: str) -> int:
            v = getattr(self, name)
            i = as_int(v)
            if i is None or i < lo or (hi is not None and i > hi):
                raise ConfigError(name, v, allowed)
            object.__setattr__(self, name, i)
            return i

        n = set_int("num_players", 2, MAX_PLAYERS, f"an integer from 2 to {MAX_PLAYERS}")
        ante = set_int("ante", 1, None, "an integer >= 1")
        # Chips are int64 (red_dog_kernels): every chip of the table, num_players x
        # starting_chips, is the largest count a stack or the pot can reach (RULES.md
        # "Everywhere": chips only move between stacks and the pot).
        most = MAX_CHIPS // n
        set_int(
            "starting_chips",
            ante + 1,
            most,
            f"an integer from ante + 1 ({ante + 1}) to {most} (num_players {n} x "
            f"starting_chips must fit the engine's 64-bit chip counts, at most {MAX_CHIPS})",
        )
        set_int("hand_size", 1, MAX_HAND_SIZE, f"an integer from 1 to {MAX_HAND_SIZE}")
        if self.rounds is not None:
            set_int(
                "rounds", 1, MAX_CHIPS, f"None (one deal each) or an integer from 1 to {MAX_CHIPS}"
            )

    @property
    def num_rounds(self) -> int:
        """Deals in the game (``rounds``, or one deal each)."""
        return self.num_players if self.rounds is None else int(self.rounds)

    def kernel_args(self) -> tuple[int, int, int, int, int]:
        """(num_players, starting_chips, ante, hand_size, rounds): the rules of :func:`new_game`."""
        return (
            int(self.num_players),
            int(self.starting_chips),
            int(self.ante),
            int(self.hand_size),
            self.num_rounds,
        )

    def kernel_array(self) -> NDArray[np.int64]:
        """:meth:`kernel_args` as the int64 array :func:`new_game` takes (``rules``)."""
        return np.array(self.kernel_args(), np.int64)


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
    """A player forfeited one chip to the pot.

    ``pot_after`` and ``chips_after`` (the forfeiting seat's) are taken at the same
    moment: when the action is settled, before any refill ante (its own AnteRecord).
    """

    seat: int
    pot_after: int
    chips_after: int


@dataclass(frozen=True)
class BetRecord:
    """A bet and its turned card; ``shown`` are the cards the bettor showed.

    ``pot_after`` and ``chips_after`` (the bettor's) are taken at the same moment:
    when the bet is settled, before any refill ante. A bet that wins the whole pot
    has ``pot_after == 0``, and the refill follows as an ``AnteRecord("empty pot")``
    whose ``pot_after`` is the refilled pot.
    """

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
        if not isinstance(self.config, RedDogConfig):
            raise ConfigError("config", config, "a RedDogConfig (or None for the defaults)")
        if key is None:
            gen = rng if rng is not None else np.random.default_rng()
            if not isinstance(gen, np.random.Generator):
                raise ConfigError("rng", rng, "a numpy.random.Generator (or None)")
            key = int(gen.integers(0, 2**63, dtype=np.int64))
        k = as_int(key)
        if k is None or not 0 <= k <= MAX_KEY:
            # The key seeds the kernels' uint64 splitmix64 stream.
            raise ConfigError("key", key, f"None or an integer from 0 to {MAX_KEY} (64 bits)")
        self.key = k
        self.state = new_state(1)
        self.history: list[Record] = []
        self._actions: list[list[int]] = []
        st = self.state
        new_game(st, 0, np.uint64(self.key), self.config.kernel_array())
        n = int(st.ints[0, I_DRAWN])
        self.history.append(
            DrawRecord(
                tuple((int(a), int(b)) for a, b in st.draw_log[0, :n]), int(st.ints[0, I_DEALER])
            )
        )
        self.history.append(AnteRecord("start", self.pot))
        self._record_consequences()

    def clone(self) -> RedDogGame:
        """An independent copy of this table as it stands (OpenSpiel's ``state.clone()``).

        The copy has the original's future: the same actions on both give the same
        cards, records and payouts (the table's random stream is part of its state).
        Nothing done to one changes the other; the config is shared. Over ten times
        as fast as :func:`copy.deepcopy` (``bench/run.py copies``).
        """
        twin = object.__new__(type(self))
        twin.config = self.config
        twin.key = self.key
        twin.state = RedDogState._make(column.copy() for column in self.state)
        twin.history = list(self.history)
        twin._actions = [list(action) for action in self._actions]
        return twin

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

    def _seat(self, seat: object) -> int:
        q = as_int(seat)
        if q is None or not 0 <= q < self.config.num_players:
            raise ArgumentError("seat", seat, f"a seat from 0 to {self.config.num_players - 1}")
        return q

    def has_bet(self, seat: int) -> bool:
        """Whether ``seat`` has had his turn in this deal.

        Raises:
            ArgumentError: ``seat`` is not a seat of the table.
        """
        return bool(self.state.flags[0, self._seat(seat)] & F_HAS_BET)

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards ``seat`` holds in this deal (private to that seat).

        Raises:
            ArgumentError: ``seat`` is not a seat of the table.
        """
        q = self._seat(seat)
        return tuple(int(c) for c in self.state.hands[0, q, : self.hand_size] if c >= 0)

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
        """Whether a bet of ``amount`` chips is legal now (any integer; False when out of bounds).

        Raises:
            IllegalActionError: ``amount`` is not an integer (``1.9``, ``"2"``).
        """
        amt = self._amount(RedDogAction.BET, amount)
        if not 1 <= amt <= MAX_CHIPS:
            return False
        return bool(check_action(self.state.ints, self.state.chips, 0, KIND_BET, amt) == OK)

    def _amount(self, kind: RedDogAction, amount: object) -> int:
        """``amount`` as an int, or an IllegalActionError naming it (no rounding)."""
        amt = as_int(amount)
        if amt is None:
            raise IllegalActionError(
                f"{kind.name} {amount!r}",
                self.legal_actions(),
                self.phase,
                "the amount must be an integer number of chips",
            )
        return amt

    def win_probability(self, seat: int | None = None) -> float:
        """Exact chance that ``seat``'s hand (default: the seat to act) beats the next turned card.

        Raises:
            ArgumentError: ``seat`` is not a seat of the table (or no one is to act).
        """
        s = self._seat(self.to_act if seat is None else seat)
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
                the game is unchanged. Also for an action or an amount that is not an
                integer (``1.9``, ``"2"``: no rounding) and an amount beyond 64 bits.
        """
        k = as_int(action)
        if k is None or k not in (RedDogAction.FORFEIT, RedDogAction.BET):
            raise IllegalActionError(
                action,
                self.legal_actions(),
                self.phase,
                "unknown action: allowed RedDogAction.FORFEIT (0) or BET (1)",
            )
        kind = RedDogAction(k)
        amount = self._amount(kind, amount)
        if kind == RedDogAction.FORFEIT:
            amount = 1  # RULES.md §2: a forfeit is one chip, whatever amount was passed
        st = self.state
        # An amount beyond int64 is out of bounds: it is checked as 0, which no bet is
        # (and it never reaches the kernel's int64 argument).
        fits = -MAX_CHIPS <= amount <= MAX_CHIPS
        status = check_action(st.ints, st.chips, 0, int(kind), amount if fits else 0)
        if status != OK:
            reason = {
                ERR_GAME_OVER: "the game is over",
                ERR_AMOUNT: "a bet is 1 up to the pot and the bettor's chips",
            }.get(status, "bad action")
            shown = f"{kind.name} {amount}" if kind == RedDogAction.BET else kind.name
            raise IllegalActionError(shown, self.legal_actions(), self.phase, reason)
        seat = self.to_act
        chips_before, pot_before = int(st.chips[0, seat]), self.pot
        apply_action(st, 0, int(kind), int(amount))
        self._actions.append([int(kind), int(amount)])
        ev = st.events[0]
        # The record's chips_after and pot_after are both taken when the action is
        # settled, before any refill ante (RULES.md §2: an empty pot is refilled; the
        # refill is the AnteRecord that follows), so chips_after + pot_after + the
        # others' chips is the table's total. Read after the call, the chips would
        # already have paid the refill ante while the pot had not yet received it.
        if kind == RedDogAction.FORFEIT:
            delta = -1
        else:
            delta = int(amount) if ev[E_WON] else -int(amount)
        chips_after = chips_before + delta
        pot_after = pot_before - delta
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
        """The game as JSON: config, random key, the actions taken, and what the game
        came to (``result``: phase, chips, pot, deals, seats, winners), which
        :meth:`from_json` checks against its replay.

        Format version 2 (``"game": "red_dog", "version": 2``); version 1 files (no
        ``version``, no ``result``) still load, unchecked.
        """
        return json.dumps(
            {
                "game": HISTORY_GAME,
                "version": HISTORY_VERSION,
                "config": asdict(self.config),
                "key": self.key,
                "actions": list(self._actions),
                "result": self._claims(),
            }
        )

    def _claims(self) -> dict[str, Any]:
        # What a saved game says it came to: the replay must give the same.
        return {
            "phase": self.phase,
            "deals_done": self.deals_done,
            "dealer": self.dealer,
            "to_act": self.to_act,
            "pot": self.pot,
            "chips": list(self.chips),
            "seated": list(self.seated),
            "winners": list(self.winners) if self.is_over else None,
        }

    @classmethod
    def from_json(cls, text: str | bytes) -> RedDogGame:
        """Replay a game saved by :meth:`to_json` (same records, same chips).

        Raises:
            HistoryError: naming the field, for text that is not such a game: not
                JSON, a missing or malformed field, another game's history, a config
                or key the game refuses, an action the rules refuse at that point
                (``actions[i]``), or a ``result`` the replay does not give (a
                tampered or truncated history). Nothing else escapes.
        """
        try:
            data = json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            # ValueError: bad JSON or bad UTF-8; TypeError: neither str nor bytes.
            raise HistoryError("text", f"not JSON ({exc}); allowed: what to_json wrote") from None
        if not isinstance(data, dict):
            raise HistoryError("text", f"a JSON {type(data).__name__}; allowed: a JSON object")
        version = data.get("version", 1)
        if as_int(version) not in (1, HISTORY_VERSION):
            raise HistoryError("version", f"{version!r}; allowed: 1 (no field) or 2")
        # Version 1 files carry no "game"; a file that names one must name this game.
        name = data.get("game", HISTORY_GAME if version == 1 else None)
        if name != HISTORY_GAME:
            raise HistoryError("game", f"{name!r}; allowed: {HISTORY_GAME!r}")
        for key in ("config", "key", "actions") + (("result",) if version != 1 else ()):
            if key not in data:
                raise HistoryError(key, "missing")
        conf = data["config"]
        names = [f.name for f in fields(RedDogConfig)]
        if not isinstance(conf, dict):
            raise HistoryError("config", f"{conf!r}; allowed: an object with the fields {names}")
        for key in names:
            if key not in conf:
                raise HistoryError(f"config.{key}", f"missing; the config has the fields {names}")
        for key in conf:
            if key not in names:
                raise HistoryError(f"config.{key}", f"unknown; allowed: the fields {names}")
        try:
            config = RedDogConfig(**conf)
        except ConfigError as exc:
            raise HistoryError(f"config.{exc.field}", str(exc)) from None
        if isinstance(data["key"], float):
            raise HistoryError("key", f"{data['key']!r}; allowed: an integer from 0 to {MAX_KEY}")
        try:
            game = cls(config, key=data["key"])
        except ConfigError as exc:
            raise HistoryError(exc.field, str(exc)) from None
        actions = data["actions"]
        if not isinstance(actions, list):
            raise HistoryError("actions", f"{actions!r}; allowed: a list of [kind, amount]")
        for i, item in enumerate(actions):
            if not isinstance(item, list) or len(item) != 2:
                raise HistoryError(
                    f"actions[{i}]", f"{item!r}; allowed: [kind, amount], kind 0 or 1"
                )
            try:
                game.act(item[0], item[1])
            except IllegalActionError as exc:
                raise HistoryError(
                    f"actions[{i}]", f"{item!r} refused at this point of the replay: {exc}"
                ) from None
        if version != 1:
            claimed = data["result"]
            if not isinstance(claimed, dict):
                raise HistoryError("result", f"{claimed!r}; allowed: an object of claims")
            actual = json.loads(json.dumps(game._claims()))
            for key, value in actual.items():
                if key not in claimed:
                    raise HistoryError(f"result.{key}", "missing")
                if claimed[key] != value or type(claimed[key]) is not type(value):
                    raise HistoryError(
                        f"result.{key}",
                        f"the history claims {claimed[key]!r}, its replay gives {value!r} "
                        "(a tampered or truncated history)",
                    )
        return game

    def describe(self) -> str:
        """A short text view of the table (public information and all hands)."""
        total = self.config.num_rounds
        if self.is_over:
            # deals_done + 1 would name a deal that is never dealt (deal 5/4).
            seats = ", ".join(str(s) for s in self.winners)
            lines = [
                f"game over after {self.deals_done}/{total} deals  pot {self.pot}  "
                f"winner{'s: seats' if len(self.winners) > 1 else ': seat'} {seats}"
            ]
        else:
            lines = [
                f"deal {min(self.deals_done + 1, total)}/{total}  dealer {self.dealer}  "
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
