"""A seat at a Texas Hold'em table among computer players (RULES.md §3).

:class:`HoldemSession` wraps :class:`poker_env.games.holdem.HoldemGame`: the person
sits in seat 0, the other seats are played by one
:class:`~poker_env_agents.opponent.ComputerOpponent` of ``holdem``. Hands follow one another
until the person has no chips left or holds them all. The person's buttons are
FOLD, CHECK or CALL, RAISE (to any total from the game's minimum to its maximum)
and ALL_IN, as the game reports them legal. A computer seat's choice is an env
action index; its raise-to amount comes from the same encoding function the envs
use (:func:`poker_env.episode.holdem.action_mask`).

The game object's history is one hand; the save holds every hand's record (deck,
button, actions, what it came to), replayed hand by hand on loading, and the
random generator's state (plain JSON numbers) so the next decks are those the
game would have dealt.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from poker_env.cards import parse_cards
from poker_env.episode import holdem as E
from poker_env.episode.holdem_result import hand_result
from poker_env.errors import ConfigError, PokerEnvError, as_int
from poker_env.games.holdem import ActionRecord, HoldemConfig, HoldemGame
from poker_env_agents.opponent import ComputerOpponent
from poker_env_agents.play.common import (
    Button,
    SaveFileError,
    Session,
    card_json,
    chips,
    decider,
    level_text,
)

__all__ = ["HoldemSession"]


def seat_name(seat: int) -> str:
    """What the screens call ``seat`` (the person is seat 0)."""
    return "You" if seat == 0 else f"Seat {seat}"


def seat_word(seat: int) -> str:
    """:func:`seat_name` inside a sentence: ``you``, ``Seat 2``."""
    return "you" if seat == 0 else f"Seat {seat}"


def _s(seat: int) -> str:
    # The verb's ending: "You call", "Seat 2 calls".
    return "" if seat == 0 else "s"


class HoldemSession(Session):
    """Hold'em with the person in seat 0 and computer players in the other seats.

    Args:
        players: seats at the table, 2..10.
        opponent: the computer players' level (``easy``, ``normal``, ``hard``, a file).
        seed: seeds the decks, the buttons and the computer players' random choices.
        money: each player's starting stack (RULES.md §3 ``starting_stack``; None:
            100 big blinds).

    Raises:
        ConfigError: a bad option, naming it.
    """

    game = "holdem"

    def __init__(
        self,
        *,
        players: int = 2,
        opponent: str = "easy",
        seed: int = 0,
        money: int | None = None,
        _replay: bool = False,
    ) -> None:
        n = as_int(players)
        if n is None or not 2 <= n <= 10:
            raise ConfigError("players", players, "an integer from 2 to 10")
        super().__init__(opponent=opponent, seed=seed, options={"players": n, "money": money})
        self.config = HoldemConfig(num_seats=n, starting_stack=money)
        if self.config.stack <= self.config.base:
            # As the envs: stacks all-in from the blinds would never give a decision.
            raise ConfigError("money", money, f"more than the big blind ({self.config.base})")
        self.g = HoldemGame(self.config, rng=np.random.default_rng(seed))
        self.computer = ComputerOpponent("holdem", opponent, options={"num_players": n}, seed=seed)
        self._fractions = np.asarray(E.DEFAULT_FRACTIONS, np.float64)
        na = E.num_actions(self._fractions.size)
        self._obs = np.zeros(E.obs_size(n), np.float32)
        self._mask = np.zeros(na, np.int8)
        self._amounts = np.zeros(na, np.int64)
        #: Every hand's record (HoldemGame.hand_record), the current one last.
        self.hands: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self._over = False
        self._last_pot = 0
        # While a save is replayed, the next hand comes from the save, not the deck.
        self._replaying = _replay
        if not _replay:
            self._start_hand()
            self.advance()

    # ----- queries ----------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self._over

    def buttons(self) -> tuple[Button, ...]:
        g = self.g
        if self._over or g.to_act != self.seat:
            return ()
        la = g.legal_actions()
        out = []
        if la.can_fold:
            out.append(Button("FOLD", "f", "FOLD"))
        # A call that takes every chip left is the all-in: one button, said so (both
        # were offered, "CALL 8" and "ALL-IN (to 8)", found by a play-test).
        calls_all = la.call_amount > 0 and la.call_amount >= g.stacks()[self.seat]
        if la.call_amount:
            out.append(
                Button("CALL", "c", f"CALL {la.call_amount}" + (" (all-in)" if calls_all else ""))
            )
        else:
            out.append(Button("CHECK", "c", "CHECK"))
        if la.min_raise_to is not None:
            opening = self._opening()
            out.append(
                Button(
                    "RAISE",
                    "r",
                    "BET" if opening else "RAISE",
                    la.min_raise_to,
                    la.max_raise_to,
                    "the chips to bet" if opening else "raise to: your whole bet in this round",
                )
            )
        if la.can_all_in and not la.all_in_is_call and not calls_all:
            out.append(Button("ALL_IN", "a", f"ALL-IN (to {la.all_in_to})"))
        return tuple(out)

    def _opening(self) -> bool:
        """No one has bet in this round yet (after the flop): a raise is the first bet."""
        g = self.g
        return g.phase == "betting" and max(g.bets()) == 0

    def view(self) -> dict[str, Any]:
        g = self.g
        n = self.config.num_seats
        stacks, bets = g.stacks(), g.bets()
        betting = g.phase == "betting"
        players = []
        for q in range(n):
            players.append(
                {
                    "seat": q,
                    "name": seat_name(q),
                    "chips": stacks[q],
                    "bet": bets[q] if betting else 0,
                    "in_hand": betting and g.in_hand(q),
                    "seated": q in g.seats(),
                    "roles": [
                        name
                        for name, holder in (
                            ("D", g.button),
                            ("SB", g.small_blind),
                            ("BB", g.big_blind),
                        )
                        if holder == q and betting
                    ],
                    "to_act": q == g.to_act,
                }
            )
        mine = g.hole_cards(self.seat) if betting else ""
        return {
            "game": self.game,
            "title": "Texas Hold'em",
            "options": self.options,
            "opponent": self.opponent,
            "level": level_text(self.opponent),
            "antes": (
                f"Each hand starts with the blinds in the pot: {self.config.base // 2} and "
                f"{self.config.base}."
            ),
            "hand": g.hand_number,
            "street": g.street if betting else "",
            "board": [card_json(c) for c in parse_cards(g.board())] if betting else [],
            "pot": g.pot,
            "players": players,
            "to_act": seat_name(g.to_act) if betting and not self._over else None,
            "cards": [card_json(c) for c in parse_cards(mine)] if mine else [],
            "buttons": [b.to_json() for b in self.buttons()],
            "events": self.shown_events(),
            "results": self.results,
            "showdown": self.showdown(),
            "over": self._over,
            "winner": self._winner() if self._over else None,
            "final": self.final_text() if self._over else None,
        }

    def _winner(self) -> str:
        stacks = self.g.stacks()
        return seat_name(int(np.argmax(stacks)))

    def showdown(self) -> dict[str, Any] | None:
        """The showdown that came with or after the person's latest action (the table
        shows it until the person goes on), else None."""
        if not self.results:
            return None
        r = self.results[-1]
        if not r["shown"] or r["at"] < self.mark:
            return None
        return r

    def final_text(self) -> str:
        """How the session ended: the person busted, or holds every chip."""
        n = self.g.hand_number
        hands = f"{n} hand{'s' * (n != 1)}"
        if self.g.stacks()[self.seat] == 0:
            return f"You have no chips left after {hands}."
        return f"You hold every chip after {hands}. You win!"

    # ----- actions ----------------------------------------------------------
    def apply(self, button: Button, amount: int | None, cards: tuple[int, ...]) -> None:
        g = self.g
        if button.name == "FOLD":
            self._play(g.fold)
        elif button.name in ("CHECK", "CALL"):
            self._play(g.check_or_call)
        elif button.name == "RAISE":
            assert amount is not None
            self._play(lambda: g.raise_to(amount))
        else:
            self._play(g.all_in)

    def advance(self) -> None:
        g = self.g
        while not self._over and g.phase == "betting" and g.to_act != self.seat:
            q = g.to_act
            E.encode(g.state, q, float(self.config.stack), self._obs)
            E.action_mask(g.state, self._fractions, self._mask, self._amounts)
            a = int(self.computer.act(self._obs, self._mask))
            if not 0 <= a < self._mask.size or not self._mask[a]:
                # As the envs do (illegal_action="passive"): check/call.
                a = 1
            if a == 0:
                self._play(g.fold)
            elif a == 1:
                self._play(g.check_or_call)
            elif a == self._mask.size - 1:
                self._play(g.all_in)
            else:
                to = int(self._amounts[a])
                self._play(lambda to=to: g.raise_to(to))

    def _play(self, action: Any) -> None:
        """Apply one action of the seat to act, log it, and close a decided hand."""
        g = self.g
        board = g.board()
        opening = self._opening()
        rec: ActionRecord = action()
        self._log_action(rec, opening)
        self.hands[-1] = g.hand_record()
        if g.phase == "betting" and g.board() != board:
            self._log_board()
        if g.phase == "over":
            self._end_hand()

    def _log_action(self, rec: ActionRecord, opening: bool = False) -> None:
        who, s = seat_name(rec.seat), _s(rec.seat)
        if rec.action == "fold":
            text = f"{who} fold{s}."
        elif rec.action == "check":
            text = f"{who} check{s}."
        elif rec.action == "call":
            text = f"{who} call{s} {rec.amount}."
        elif rec.action == "raise_to" and opening:
            text = f"{who} bet{s} {rec.to}."
        elif rec.action == "raise_to":
            text = f"{who} raise{s} to {rec.to}."
        elif rec.action == "all_in":
            text = f"{who} go{'es' if s else ''} all-in ({chips(rec.amount)}, to {rec.to})."
        else:
            text = f"{who} leave{s} the table."
        self.log(text, seat=rec.seat)

    def _log_board(self) -> None:
        g = self.g
        self.log(f"{g.street.capitalize()}: {g.board()}.", kind="deal")

    def _start_hand(self, deck: str | None = None, button: int | None = None) -> None:
        g = self.g
        g.start_hand(deck=deck, button=button)
        self.hands.append(g.hand_record())
        sb, bb = g.small_blind, g.big_blind
        self.log_hand(
            f"Hand {g.hand_number}: {seat_name(g.button)} deal{_s(g.button)}; "
            f"blinds {seat_word(sb)} {g.bets()[sb]}, {seat_word(bb)} {g.bets()[bb]}. "
            f"Your cards: {g.hole_cards(self.seat) or '-'}."
        )
        if g.phase == "over":
            # RULES.md §3: blinds can put everyone all-in; the hand is then decided.
            self._end_hand()

    def _end_hand(self) -> None:
        g = self.g
        result = hand_result(g.state, g.hand_number)
        at = len(self.events)
        lines = self._result_lines(result)
        for line in lines:
            self.log(line, kind="result")
        shown = [r for r in result.shown]
        # The stacks after the hand: busted players leave the table (RULES.md §3).
        stacks = g.stacks()
        self.results.append(
            {
                "hand": result.hand,
                "board": result.board,
                "winners": [seat_name(q) for q in result.winners],
                "text": " ".join(lines),
                "lines": lines,
                "verdict": [
                    line
                    for i, line in enumerate(lines)
                    if i == 0 or "uncalled" in line or (" win" in line and "(" in line)
                ],
                "pot": self._last_pot,
                "shown": [
                    {
                        "seat": r.seat,
                        "name": seat_name(r.seat),
                        "cards": [card_json(c) for c in parse_cards(r.cards or "")],
                        "hand": r.description,
                        "won": r.won > 0,
                    }
                    for r in shown
                ],
                # Each seat's chips once the pot was paid (the table shows them with the
                # showdown: the next hand's blinds are not posted yet there).
                "chips": [int(c) for c in stacks],
                "at": at,
            }
        )
        with_chips = [q for q in range(self.config.num_seats) if stacks[q] > 0]
        if stacks[self.seat] == 0 or len(with_chips) < 2:
            self._over = True
            self.log(f"Game over: {self.final_text()}", kind="result")
        elif not self._replaying:
            self._start_hand()

    def _result_lines(self, result: Any) -> list[str]:
        """The hand's result as sentences, one per seat. The uncalled part of the
        largest bet goes back to its bettor first: it is neither in the pot nor won."""
        seats = list(result.seats)
        put = sorted((r.put_in for r in seats), reverse=True)
        top = max(seats, key=lambda r: r.put_in)
        uncalled = put[0] - put[1] if len(put) > 1 else 0
        pot = result.pot - uncalled
        street = "before the flop" if result.street == "preflop" else f"on the {result.street}"
        how = "showdown" if result.is_showdown else f"decided {street}"
        board = f", board {result.board}" if result.board else ""
        self._last_pot = pot
        lines = [f"Hand {result.hand} over ({how}{board}): the pot is {pot}."]
        if uncalled:
            lines.append(f"The uncalled {uncalled} goes back to {seat_word(top.seat)}.")
        shown = [r for r in result.shown]
        best = max((r.rank for r in shown), default=-1)
        for r in [*shown, *(r for r in seats if r.outcome != "showdown")]:
            who, s = seat_name(r.seat), _s(r.seat)
            won = r.won - (uncalled if r.seat == top.seat else 0)
            if r.outcome == "showdown":
                what = f"{who} show{s} {r.cards}: {r.description}"
            elif r.outcome == "uncontested":
                what = f"{who} take{s} it without showing"
            elif r.outcome == "folded":
                what = f"{who} folded"
            else:
                what = f"{who} left the table (penalty paid)"
            if won > 0:
                what += f", and win{s} {won}"
                if r.outcome == "showdown":
                    beaten = [x for x in shown if x.rank < r.rank]
                    why = next((d for x in beaten if (d := decider(r.rank, x.rank))), None)
                    if why:
                        what += f" ({why})"
                    if r.rank == best and sum(x.rank == best for x in shown) > 1:
                        what += " (a split pot: the same hand)"
            lines.append(f"{what} ({r.net:+d}).")
        return lines

    # ----- saves ------------------------------------------------------------
    def game_state(self) -> dict[str, Any]:
        return {"hands": self.hands, "rng": self.g.rng.bit_generator.state}

    @classmethod
    def load(cls, envelope: dict[str, Any]) -> HoldemSession:
        """The session of a checked save envelope: every hand replayed and checked
        against what its record says it came to.

        Raises:
            SaveFileError: naming the hand or field at fault.
        """
        opts = envelope["options"]
        unknown = sorted(set(opts) - {"players", "money"})
        if unknown:
            raise SaveFileError(f"saved Hold'em game: unknown option {unknown[0]!r}")
        try:
            s = cls(
                opponent=envelope["opponent"],
                seed=envelope["seed"],
                _replay=True,
                **{k: opts[k] for k in ("players", "money") if k in opts},
            )
        except ConfigError as exc:
            if exc.field == "level":
                raise
            raise SaveFileError(f"saved Hold'em game: {exc}") from None
        state = envelope["state"]
        hands = state.get("hands")
        if not isinstance(hands, list) or not hands:
            raise SaveFileError("saved Hold'em game: 'hands' is not a non-empty list")
        for i, rec in enumerate(hands):
            s._replay_hand(i, rec, last=i == len(hands) - 1)
        s._replaying = False
        try:
            s.g.rng.bit_generator.state = state.get("rng")
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise SaveFileError(f"saved Hold'em game: field 'rng': {exc}") from None
        s.mark = len(s.events)
        s.advance()
        return s

    def _replay_hand(self, i: int, rec: object, last: bool) -> None:
        where = f"saved Hold'em game, hands[{i}]"
        if not isinstance(rec, dict) or not isinstance(rec.get("actions"), list):
            raise SaveFileError(f"{where}: not a hand record")
        if self._over:
            raise SaveFileError(f"{where}: the game was already over")
        g = self.g
        try:
            self._start_hand(deck=rec.get("deck"), button=rec.get("button"))
            for j, a in enumerate(rec["actions"]):
                if not isinstance(a, dict):
                    raise SaveFileError(f"{where}.actions[{j}]: not an object")
                fields = dict(a)
                if fields.get("roles") is not None:
                    fields["roles"] = tuple(fields["roles"])
                try:
                    action = ActionRecord(**fields)
                except TypeError as exc:
                    raise SaveFileError(f"{where}.actions[{j}]: {exc}") from None
                if g.phase != "betting":
                    raise SaveFileError(f"{where}.actions[{j}]: the hand was already over")
                self._play(lambda action=action: g.apply(action))
        except PokerEnvError as exc:
            raise SaveFileError(f"{where}: {exc}") from None
        if last and g.phase == "over" and not self._over:
            # Play starts the next hand at once: a save ends with a running hand.
            raise SaveFileError(f"{where}: a decided hand with no next hand")
        if not last and g.phase != "over":
            raise SaveFileError(f"{where}: the hand was not finished")
        mine = g.hand_record()
        for key in ("final_stacks", "bank", "result"):
            if rec.get(key) != mine[key]:
                raise SaveFileError(
                    f"{where}: the record claims {key} {rec.get(key)!r}, its replay gives "
                    f"{mine[key]!r} (a tampered or truncated save)"
                )
