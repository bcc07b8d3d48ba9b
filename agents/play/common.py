"""What every game's play session shares: buttons, input checks, events, saves.

A :class:`Session` wraps one game object (``DrawGame``, ``RedDogGame``,
``HoldemGame``) and the :class:`~poker_env_agents.opponent.ComputerOpponent` of its computer
seats. The person's seat acts through :meth:`Session.act` with a button name, an
amount and marked cards; anything not legal now is refused with an
:class:`InputError` that gives the reason, and nothing changes. The game objects
hold the rules; a session only checks the person's input against the legal actions
they report (so the message can name the button and its bounds) and hands the
action on.

Saves are JSON (never pickle): an envelope naming this format, the game, its
options, the opponent level and seed, and the game's own history. Loading replays
the history through the game object, which refuses a tampered or truncated one.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from poker_env.cards import format_card
from poker_env.errors import PokerEnvError, as_int

__all__ = [
    "GAME_NAMES",
    "LEVEL_WORDS",
    "SAVE_FORMAT",
    "SAVE_VERSION",
    "Button",
    "Event",
    "InputError",
    "SaveFileError",
    "Session",
    "card_json",
    "check_int",
    "chips",
]

#: The games a person can play, by the name the front ends use.
GAME_NAMES: tuple[str, ...] = ("draw", "reddog", "holdem")
#: The ``format`` and ``version`` of a saved game.
SAVE_FORMAT = "poker_env.play"
SAVE_VERSION = 1

Event = dict[str, Any]

#: What each opponent level is, as the tables say it.
LEVEL_WORDS = {
    "easy": "easy: the heuristic player",
    "normal": "normal: the trained policy, sampled",
    "hard": "hard: the trained policy at its strongest",
}


def chips(n: int) -> str:
    """``"1 chip"``, ``"5 chips"``."""
    return f"{n} chip" if n == 1 else f"{n} chips"


def level_text(level: str) -> str:
    """The opponent level in words (a policy file: its file name only)."""
    if level in LEVEL_WORDS:
        return LEVEL_WORDS[level]
    return f"the policy {level.partition('@')[0].replace(chr(92), '/').rsplit('/', 1)[-1]}"


def decider(rank_a: int, rank_b: int) -> str | None:
    """What decided between two hands of the same name (the kicker), as words, e.g.
    ``"the Ace kicker beats the Queen"``; None when the names differ or they tie.

    The evaluator's signature of a rank lists the ranks that compare, in order
    (RULES.md §0: grouped ranks first, then the rest from the highest down).
    """
    from poker_env.evaluator import describe_hand
    from poker_env.evaluator.tables import signature_of

    if rank_a == rank_b or describe_hand(rank_a) != describe_hand(rank_b):
        return None
    _, a = signature_of(int(rank_a))
    _, b = signature_of(int(rank_b))
    hi, lo = (a, b) if rank_a > rank_b else (b, a)
    words = "Two Three Four Five Six Seven Eight Nine Ten Jack Queen King Ace".split()
    for x, y in zip(hi, lo, strict=False):
        if x != y:
            return f"the {words[x]} kicker beats the {words[y]}"
    return None  # pragma: no cover - equal signatures are equal ranks


class InputError(ValueError):
    """A person's input was refused (an illegal button, an amount out of bounds, a
    card named twice, garbage); the message is the reason. Nothing changed."""


class SaveFileError(ValueError):
    """A saved game cannot be loaded; the message says why (the field at fault)."""


@dataclass(frozen=True)
class Button:
    """A button legal now.

    Attributes:
        name: the action's word (the seed's BET, STAY, DROP, RAISE, DRAW, CALL in the
            draw; BET and FORFEIT in Red Dog; FOLD, CHECK, CALL, RAISE, ALL_IN in
            Hold'em).
        key: the terminal key.
        label: what the button says (``"CALL 20"``, ``"RAISE"``).
        min_amount: the smallest amount (buttons that take one), else None.
        max_amount: the largest amount, else None.
        amount_help: what the amount means (``"chips on top of the 20 to call"``).
        takes_cards: the button confirms the cards marked for the draw.
    """

    name: str
    key: str
    label: str
    min_amount: int | None = None
    max_amount: int | None = None
    amount_help: str = ""
    takes_cards: bool = False

    @property
    def takes_amount(self) -> bool:
        """The button needs an amount."""
        return self.min_amount is not None

    def describe(self) -> str:
        """The label with the amount bounds, e.g. ``"BET 5..490"``."""
        if self.takes_amount:
            return f"{self.label} {self.min_amount}..{self.max_amount}"
        return self.label

    def to_json(self) -> dict[str, Any]:
        """Plain fields for the browser."""
        return {
            "name": self.name,
            "key": self.key,
            "label": self.label,
            "min": self.min_amount,
            "max": self.max_amount,
            "amount_help": self.amount_help,
            "cards": self.takes_cards,
        }


def card_json(card: int) -> dict[str, Any]:
    """A card for a front end: its text (``"Kh"``), rank letter and suit letter."""
    text = format_card(int(card))
    return {"text": text, "rank": text[:-1], "suit": text[-1]}


def check_int(value: object, what: str) -> int:
    """``value`` as an int (an int, or text of one), else an InputError naming it.

    Floats, bools and other text are refused: no rounding of a person's amount.
    """
    if isinstance(value, str):
        text = value.strip()
        body = text[1:] if text[:1] in "+-" else text
        if body.isascii() and body.isdigit() and len(body) <= 30:
            return int(text)
        raise InputError(f"{what} must be a whole number, not {value!r}")
    i = as_int(value)
    if i is None:
        raise InputError(f"{what} must be a whole number, not {value!r}")
    return i


class Session(ABC):
    """One game between a person and computer seats (see the module docstring).

    Subclasses set :attr:`game`, build the game object and opponents, and implement
    the abstract methods. The person's seat is :attr:`seat`.
    """

    game: ClassVar[str]
    seat: int = 0

    def __init__(self, *, opponent: str, seed: int, options: Mapping[str, Any]) -> None:
        self.opponent = opponent
        self.seed = seed
        self.options = dict(options)
        #: Everything that happened, in order (actions, results, deals).
        self.events: list[Event] = []
        #: Index in :attr:`events` where the person's latest action starts.
        self.mark = 0
        #: Indices in :attr:`events` where each hand (a deal) starts.
        self.hand_starts: list[int] = []
        #: Cards the person has marked for the draw and not yet drawn (kept in saves).
        self.marked: list[int] = []
        #: The hand whose showdown the person went past at the terminal's pause (kept
        #: in saves, so a resumed game does not stop at it again).
        self.showdown_seen: int | None = None

    # ----- what a front end asks --------------------------------------------
    @property
    @abstractmethod
    def is_over(self) -> bool:
        """The game has ended (the final screen)."""

    @abstractmethod
    def buttons(self) -> tuple[Button, ...]:
        """The person's legal buttons now (empty when it is not the person's turn)."""

    @abstractmethod
    def view(self) -> dict[str, Any]:
        """The table from the person's seat, JSON-able (no hidden card is in it)."""

    def recent_events(self) -> list[Event]:
        """What happened since (and including) the person's latest action."""
        return self.events[self.mark :]

    def shown_events(self) -> list[Event]:
        """What a front end lists under "What happened": the whole hand in which the
        person last acted and everything since, each event with ``new`` (it came
        with or after the person's latest action)."""
        start = max((i for i in self.hand_starts if i <= self.mark), default=0)
        return [dict(e, new=i >= self.mark) for i, e in enumerate(self.events) if i >= start]

    def act(self, name: str, amount: object = None, cards: Sequence[object] = ()) -> list[Event]:
        """Apply the person's button ``name`` (with ``amount`` / marked ``cards``), then
        play the computer seats until the person must act again or the game ends.

        Returns the events of this action and what followed.

        Raises:
            InputError: the button is not legal now, the amount is missing, not a
                whole number or out of bounds, the cards are not card numbers or one
                is named twice, or the game is over; nothing changed.
        """
        if self.is_over:
            raise InputError("the game is over")
        button = self.find_button(name)
        amt: int | None = None
        if button.takes_amount:
            if amount is None or amount == "":
                raise InputError(
                    f"{button.label} needs an amount from {button.min_amount} to "
                    f"{button.max_amount}"
                )
            amt = check_int(amount, f"the amount of {button.label}")
            assert button.min_amount is not None and button.max_amount is not None
            if not button.min_amount <= amt <= button.max_amount:
                raise InputError(
                    f"{button.label} {amt} is out of bounds: from {button.min_amount} "
                    f"to {button.max_amount}"
                    + (f" ({button.amount_help})" if button.amount_help else "")
                )
        elif amount not in (None, ""):
            raise InputError(f"{button.label} takes no amount (got {amount!r})")
        marked = self.check_cards(cards) if button.takes_cards else ()
        if cards and not button.takes_cards:
            raise InputError(f"{button.label} takes no cards (got {list(cards)!r})")
        mark = len(self.events)
        try:
            self.apply(button, amt, marked)
        except PokerEnvError as exc:
            # The game refused it (nothing changed there); a session's own checks
            # should have caught it first, so this is a safety net with the reason.
            del self.events[mark:]
            raise InputError(str(exc)) from None
        self.mark = mark
        self.advance()
        return self.events[mark:]

    def find_button(self, name: object) -> Button:
        """The legal button called ``name`` (its word or its key, any case).

        Raises:
            InputError: naming what was asked and the buttons legal now.
        """
        buttons = self.buttons()
        if isinstance(name, str):
            word = name.strip().upper().replace("-", "_").replace(" ", "_")
            for b in buttons:
                if word in (b.name, b.key.upper()):
                    return b
        legal = ", ".join(b.describe() for b in buttons) or "none (not your turn)"
        raise InputError(f"{name!r} is not a legal button now; legal: {legal}")

    def check_cards(self, cards: Sequence[object]) -> tuple[int, ...]:
        """Marked card numbers (1..5 in the draw) as ints, each once.

        Raises:
            InputError: not a list of card numbers, a number out of range, or one
                named twice.
        """
        if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
            raise InputError(f"the marked cards must be a list of card numbers, not {cards!r}")
        seen: list[int] = []
        for c in cards:
            n = check_int(c, "a card number")
            if not 1 <= n <= 5:
                raise InputError(f"card {n} does not exist: your cards are numbered 1 to 5")
            if n in seen:
                raise InputError(f"card {n} is named twice")
            seen.append(n)
        return tuple(seen)

    # ----- what a game implements -------------------------------------------
    @abstractmethod
    def apply(self, button: Button, amount: int | None, cards: tuple[int, ...]) -> None:
        """Apply the person's checked action to the game and log its events."""

    @abstractmethod
    def advance(self) -> None:
        """Play the computer seats until the person must act or the game ends."""

    @abstractmethod
    def game_state(self) -> dict[str, Any]:
        """The game's own history (a JSON object) for the save."""

    # ----- saves ------------------------------------------------------------
    def to_json(self) -> str:
        """The game as JSON: this format's envelope around the game's history."""
        return json.dumps(
            {
                "format": SAVE_FORMAT,
                "version": SAVE_VERSION,
                "game": self.game,
                "options": self.options,
                "opponent": self.opponent,
                "seed": self.seed,
                "state": self.game_state(),
                "ui": self.ui_state(),
            }
        )

    def log(self, text: str, *, seat: int | None = None, kind: str = "action") -> None:
        """Add an event: ``text`` said of ``seat`` (None: the table)."""
        self.events.append({"seat": seat, "kind": kind, "text": text})

    def log_hand(self, text: str) -> None:
        """Add the event that starts a hand (a deal)."""
        self.hand_starts.append(len(self.events))
        self.log(text, kind="deal")

    def ui_state(self) -> dict[str, Any]:
        """What a save keeps of the front end: where the person's latest action starts
        in the log (a load replays the same log), the cards marked for the draw and the
        showdown the person went past at the terminal's pause."""
        return {
            "mark": self.mark,
            "marked": list(self.marked),
            "over": self.is_over,
            "showdown_seen": self.showdown_seen,
        }

    def restore_ui(self, ui: object) -> None:
        """Take back :meth:`ui_state` from a save (anything malformed is ignored: the
        log then starts at the loaded position, nothing is marked)."""
        if not isinstance(ui, dict):
            return
        mark = ui.get("mark")
        if isinstance(mark, int) and not isinstance(mark, bool) and 0 <= mark <= len(self.events):
            self.mark = mark
        seen = ui.get("showdown_seen")
        if isinstance(seen, int) and not isinstance(seen, bool) and seen >= 0:
            self.showdown_seen = seen
        marked = ui.get("marked")
        if isinstance(marked, list):
            try:
                self.marked = (
                    list(self.check_cards(marked))
                    if any(b.takes_cards for b in self.buttons())
                    else []
                )
            except InputError:
                self.marked = []


def parse_save(text: str | bytes, game: str | None = None) -> dict[str, Any]:
    """The envelope of a saved game, checked (not the game's history itself).

    Raises:
        SaveFileError: not JSON, not this format, another game than ``game``, or a
            missing or malformed field.
    """
    try:
        d = json.loads(text)
    except (ValueError, TypeError, RecursionError) as exc:
        raise SaveFileError(f"not a saved game: not JSON ({exc})") from None
    if not isinstance(d, dict) or d.get("format") != SAVE_FORMAT:
        raise SaveFileError(f"not a saved game: the field 'format' is not {SAVE_FORMAT!r}")
    if d.get("version") != SAVE_VERSION:
        raise SaveFileError(f"saved game version {d.get('version')!r}; allowed: {SAVE_VERSION}")
    if d.get("game") not in GAME_NAMES:
        raise SaveFileError(f"saved game of {d.get('game')!r}; allowed: one of {GAME_NAMES}")
    if game is not None and d["game"] != game:
        raise SaveFileError(f"the file holds a {d['game']} game, not {game}")
    if not isinstance(d.get("options"), dict):
        raise SaveFileError("saved game: the field 'options' is not an object")
    if not isinstance(d.get("opponent"), str):
        raise SaveFileError("saved game: the field 'opponent' is not a string")
    seed = d.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SaveFileError(f"saved game: seed {seed!r}; allowed: an integer >= 0")
    if not isinstance(d.get("state"), dict):
        raise SaveFileError("saved game: the field 'state' is not an object")
    return d
