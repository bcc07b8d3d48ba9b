"""A seat at a Red Dog table among computer players (RULES.md §2).

:class:`RedDogSession` wraps :class:`poker_env.games.red_dog.RedDogGame`: the person
sits in seat 0, the other seats are played by one
:class:`~poker_env_agents.opponent.ComputerOpponent` of ``red-dog`` (each seat with its own
observation). The person's buttons are BET (1 up to the pot and his chips, any
amount) and FORFEIT (one chip to the pot). A computer seat's choice is an env
action index, turned into the game's action by the encoding function the envs use
(:func:`poker_env.episode.red_dog.action_to_bet`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from poker_env.cards import format_card, format_cards
from poker_env.episode.red_dog import (
    DEFAULT_BET_FRACTIONS,
    action_to_bet,
    encode_observation,
    obs_size,
)
from poker_env.errors import ConfigError, HistoryError, as_int
from poker_env.games.red_dog import (
    AnteRecord,
    BetRecord,
    DealRecord,
    DrawRecord,
    ForfeitRecord,
    GameOverRecord,
    LeaveRecord,
    Record,
    RedDogAction,
    RedDogConfig,
    RedDogGame,
)
from poker_env_agents.opponent import ComputerOpponent
from poker_env_agents.play.common import (
    Button,
    SaveFileError,
    Session,
    card_json,
    chips,
    level_text,
)

__all__ = ["RedDogSession"]


def seat_name(seat: int) -> str:
    """What the screens call ``seat`` (the person is seat 0)."""
    return "You" if seat == 0 else f"Seat {seat}"


class RedDogSession(Session):
    """Red Dog with the person in seat 0 and computer players in the other seats.

    Args:
        players: seats at the table, 2..10.
        opponent: the computer players' level (``easy``, ``normal``, ``hard``, a file).
        seed: seeds the cards and the computer players' random choices.
        money: each player's starting chips (RULES.md §2 ``starting_chips``).

    Raises:
        ConfigError: a bad option, naming it.
    """

    game = "reddog"

    def __init__(
        self,
        *,
        players: int = 4,
        opponent: str = "easy",
        seed: int = 0,
        money: int = 50,
        _key: int | None = None,
    ) -> None:
        n = as_int(players)
        if n is None or not 2 <= n <= 10:
            raise ConfigError("players", players, "an integer from 2 to 10")
        super().__init__(opponent=opponent, seed=seed, options={"players": n, "money": money})
        self.config = RedDogConfig(num_players=n, starting_chips=money)
        if _key is None:
            self.g = RedDogGame(self.config, rng=np.random.default_rng(seed))
        else:
            self.g = RedDogGame(self.config, key=_key)
        self.computer = ComputerOpponent("red-dog", opponent, options={"num_players": n}, seed=seed)
        self._fractions = np.asarray(DEFAULT_BET_FRACTIONS, np.float64)
        self._obs = np.zeros(obs_size(n), np.float32)
        self._mask = np.ones(1 + self._fractions.size, np.int8)
        self.results: list[dict[str, Any]] = []
        for rec in self.g.history:
            self._log_record(rec)
        if _key is None:
            self.advance()

    @property
    def is_over(self) -> bool:
        return self.g.is_over

    def buttons(self) -> tuple[Button, ...]:
        g = self.g
        if g.is_over or g.to_act != self.seat:
            return ()
        legal = g.legal_actions()
        return (
            Button(
                "BET",
                "b",
                "BET",
                legal.min_bet,
                legal.max_bet,
                # RULES.md §2: at most the pot and at most your chips; the bound said is
                # the one that holds ("at most the pot" read wrong at 27 of a pot of 57).
                "chips, at most the pot"
                if legal.max_bet >= g.pot
                else f"chips, at most all yours (the pot is {g.pot})",
            ),
            Button("FORFEIT", "f", "FORFEIT 1"),
        )

    def view(self) -> dict[str, Any]:
        g = self.g
        over = g.is_over
        seated = set(g.seated)
        players = [
            {
                "seat": q,
                "name": seat_name(q),
                "chips": g.chips[q],
                "seated": q in seated,
                "has_bet": g.has_bet(q) if q in seated else False,
                "dealer": q == g.dealer,
                "to_act": q == g.to_act,
            }
            for q in range(self.config.num_players)
        ]
        in_game = self.seat in seated and not over
        return {
            "game": self.game,
            "title": "Red Dog",
            "options": self.options,
            "opponent": self.opponent,
            "level": level_text(self.opponent),
            "antes": (
                f"Everyone antes {self.config.ante} into the pot at the start, and again "
                "whenever a bet empties it (not after the game's last bet)."
            ),
            "showdown": None,
            "deal": min(g.deals_done + 1, self.config.num_rounds),
            "deals": self.config.num_rounds,
            "pot": g.pot,
            "players": players,
            "to_act": None if over else seat_name(g.to_act),
            "cards": [card_json(c) for c in g.hand(self.seat)] if in_game else [],
            "turned": [card_json(c) for c in g.turned_cards],
            "shown": [card_json(c) for c in g.shown_cards],
            "buttons": [b.to_json() for b in self.buttons()],
            "events": self.shown_events(),
            "results": self.results,
            "over": over,
            "winner": ", ".join(seat_name(q) for q in g.winners) if over else None,
            "final": self.final_text() if over else None,
        }

    def final_text(self) -> str:
        """Who holds the most chips at the end (RULES.md §2 game end)."""
        g = self.g
        names = " and ".join(seat_name(q) for q in g.winners)
        most = chips(max(g.chips))
        if len(g.winners) > 1:
            text = f"{names} share the win with {most} each"
        else:
            text = f"{names} {'win' if g.winners == (self.seat,) else 'wins'} with {most}"
        # What you hold, where you are not among the winners (theirs is said already).
        you = g.chips[self.seat]
        return text + ("." if self.seat in g.winners else f" (you hold {chips(you)}).")

    def apply(self, button: Button, amount: int | None, cards: tuple[int, ...]) -> None:
        if button.name == "BET":
            assert amount is not None
            self._play(RedDogAction.BET, amount)
        else:
            self._play(RedDogAction.FORFEIT, 1)

    def advance(self) -> None:
        g = self.g
        st = g.state
        while not g.is_over and g.to_act != self.seat:
            q = g.to_act
            encode_observation(st, 0, q, self._obs)
            a = int(self.computer.act(self._obs, self._mask))
            kind, amount = action_to_bet(st, 0, a, self._fractions)
            if kind < 0:
                # As the envs do (illegal_action="passive"): the passive action forfeits.
                kind, amount = int(RedDogAction.FORFEIT), 1
            self._play(RedDogAction(kind), amount)

    def _play(self, action: RedDogAction, amount: int) -> None:
        n = len(self.g.history)
        self.g.act(action, amount)
        for rec in self.g.history[n:]:
            self._log_record(rec)

    def _log_record(self, rec: Record) -> None:
        if isinstance(rec, DrawRecord):
            cards = ", ".join(f"{seat_name(q)} {format_card(c)}" for q, c in rec.cards)
            self.log(
                f"Draw for the first dealer: {cards}. {seat_name(rec.dealer)} deal"
                f"{'' if rec.dealer == self.seat else 's'}.",
                kind="deal",
            )
        elif isinstance(rec, AnteRecord):
            if rec.reason == "start":
                self.log(f"Everyone antes: the pot is {rec.pot_after}.", kind="deal")
            else:
                self.log(f"The pot is empty: everyone antes again ({rec.pot_after}).", kind="deal")
        elif isinstance(rec, DealRecord):
            self.log_hand(
                f"Deal {rec.deal + 1} of {self.config.num_rounds}: {seat_name(rec.dealer)} "
                f"deal{'' if rec.dealer == self.seat else 's'}, {rec.hand_size} cards each."
            )
        elif isinstance(rec, ForfeitRecord):
            text = f"{seat_name(rec.seat)} forfeit{'' if rec.seat == self.seat else 's'} 1 chip."
            self.log(text, seat=rec.seat)
            self.results.append({"seat": rec.seat, "text": text})
        elif isinstance(rec, BetRecord):
            you = rec.seat == self.seat
            verb = ("win" if rec.won else "lose") + ("" if you else "s")
            what = "the card" if rec.won else "the hand"
            who = "you" if you else "it"
            text = (
                f"{seat_name(rec.seat)} bet{'' if you else 's'} {rec.amount}; the dealer turns "
                f"{format_card(rec.turned)}: {who} {verb} {rec.amount}, showing {what} "
                f"{format_cards(rec.shown)}."
            )
            self.log(text, seat=rec.seat, kind="result")
            self.results.append({"seat": rec.seat, "won": rec.won, "text": text})
        elif isinstance(rec, LeaveRecord):
            you = rec.seat == self.seat
            self.log(
                f"{seat_name(rec.seat)} {'are' if you else 'is'} out of chips and "
                f"leave{'' if you else 's'} the game.",
                seat=rec.seat,
                kind="result",
            )
        elif isinstance(rec, GameOverRecord):
            self.log(f"Game over: {self.final_text()}", kind="result")

    def game_state(self) -> dict[str, Any]:
        state: dict[str, Any] = json.loads(self.g.to_json())
        return state

    @classmethod
    def load(cls, envelope: dict[str, Any]) -> RedDogSession:
        """The session of a checked save envelope (see :class:`DrawSession.load`)."""
        opts = envelope["options"]
        unknown = sorted(set(opts) - {"players", "money"})
        if unknown:
            raise SaveFileError(f"saved Red Dog game: unknown option {unknown[0]!r}")
        state = envelope["state"]
        try:
            checked = RedDogGame.from_json(json.dumps(state))
        except HistoryError as exc:
            raise SaveFileError(f"saved Red Dog game: {exc}") from None
        try:
            s = cls(
                opponent=envelope["opponent"],
                seed=envelope["seed"],
                _key=checked.key,
                **{k: opts[k] for k in ("players", "money") if k in opts},
            )
        except ConfigError as exc:
            if exc.field == "level":
                raise
            raise SaveFileError(f"saved Red Dog game: {exc}") from None
        if s.config != checked.config:
            raise SaveFileError("saved Red Dog game: its rules do not match its options")
        for kind, amount in state["actions"]:
            s._play(RedDogAction(kind), amount)
        s.mark = len(s.events)
        s.advance()
        return s
