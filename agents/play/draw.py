"""The draw match against the computer, as a person plays it (RULES.md §1).

:class:`DrawSession` wraps :class:`poker_env.games.draw.DrawGame` (the person in seat
0, the computer in seat 1 with her wardrobe) and a
:class:`~poker_env_agents.opponent.ComputerOpponent` of ``draw-match``. The person's buttons
are the seed's words, BET, STAY, DROP, RAISE, DRAW and CALL, only those the game
reports legal now, with the game's exact amount bounds (any legal amount can be
typed: the env's pot-fraction bet sizes are only the computer's discretization).
In the draw, DRAW confirms the cards marked by number. The computer's choice is an
env action index, turned into the game's action by the same encoding functions
the envs use (:func:`poker_env.episode.draw.env_to_engine`), and her buy-back
between hands is her decision (``buyback="decide"``: the opponent's policy, or the
rule book's default where her policy never learned it).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from poker_env.episode import draw as enc
from poker_env.errors import ConfigError, HistoryError, as_int
from poker_env.evaluator import describe_hand
from poker_env.games.draw import (
    COMPUTER,
    HUMAN,
    ActionRecord,
    DrawAction,
    DrawConfig,
    DrawGame,
    DrawPhase,
    HandOutcome,
)
from poker_env.games.wardrobe import DEFAULT_WARDROBE
from poker_env_agents.opponent import ComputerOpponent
from poker_env_agents.play.common import (
    Button,
    InputError,
    SaveFileError,
    Session,
    card_json,
    decider,
    level_text,
)

__all__ = ["DrawSession"]

_PHASE_WORDS = {
    DrawPhase.PRE_DRAW: "before the draw",
    DrawPhase.DRAW: "the draw",
    DrawPhase.POST_DRAW: "after the draw",
    DrawPhase.HAND_END: "hand over",
    DrawPhase.BUY_BACK: "between hands",
    DrawPhase.MATCH_END: "match over",
}
_WHO = {HUMAN: "You", COMPUTER: "She"}
_WHOM = {HUMAN: "you", COMPUTER: "her"}
#: The phases of a hand being played (its deal line is due once one is reached).
_DEALT = (DrawPhase.PRE_DRAW, DrawPhase.DRAW, DrawPhase.POST_DRAW)


def _names(outcome: HandOutcome) -> tuple[str, str] | None:
    # The evaluator is the only place that names hands (DESIGN.md).
    if outcome.ranks is None:
        return None
    return describe_hand(outcome.ranks[0]), describe_hand(outcome.ranks[1])


class DrawSession(Session):
    """A draw match between a person (seat 0) and the computer (seat 1).

    Args:
        deck: 52 or 32 (RULES.md §1 ``deck``).
        opponent: ``easy``, ``normal``, ``hard`` or a policy file
            (:class:`~poker_env_agents.opponent.ComputerOpponent`).
        seed: seeds the deals and the computer's random choices.
        money: each player's starting money (RULES.md §1 ``starting_money``).
        items: how many items her wardrobe has (the first of the default six).

    Raises:
        ConfigError: a bad option, naming it; or a missing shipped model for
            ``normal`` / ``hard``.
    """

    game = "draw"
    #: The latest bet or raise not yet called: (its seat, its amount) (see _log_record).
    _uncalled: tuple[int, int] | None = None
    seat = HUMAN

    def __init__(
        self,
        *,
        deck: int = 52,
        opponent: str = "easy",
        seed: int = 0,
        money: int = 500,
        items: int = len(DEFAULT_WARDROBE),
        _replay: bool = False,
    ) -> None:
        n_items = as_int(items)
        if n_items is None or not 1 <= n_items <= len(DEFAULT_WARDROBE):
            raise ConfigError("items", items, f"an integer from 1 to {len(DEFAULT_WARDROBE)}")
        deck_n = as_int(deck)
        if deck_n not in (32, 52):
            raise ConfigError("deck", deck, "32 or 52")
        super().__init__(
            opponent=opponent,
            seed=seed,
            options={"deck": deck_n, "money": money, "items": n_items},
        )
        self.config = DrawConfig(
            deck=deck_n, starting_money=money, wardrobe=DEFAULT_WARDROBE[:n_items]
        )
        self.g = DrawGame(self.config, seed=seed, buyback="decide")
        self.computer = ComputerOpponent(
            "draw-match", opponent, options={"deck": deck_n}, seed=seed
        )
        self._ep, self._fp = enc.env_params(-1, enc.MODE_MATCH, False, enc.DEFAULT_POT_FRACTIONS)
        self._num_sizes = len(enc.DEFAULT_POT_FRACTIONS) + 1
        self._obs = np.zeros(enc.OBS_SIZE, np.float32)
        self._mask = np.zeros(2 + self._num_sizes + 33, np.int8)
        self.results: list[dict[str, Any]] = []
        self.bought_back: set[str] = set()
        self._announced = 0
        self._announce()
        if not _replay:
            self.advance()

    # ----- queries ----------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.g.is_over

    def _first_text(self) -> str:
        return "you act first" if self.g.first_seat == HUMAN else "she acts first"

    def to_call(self) -> int:
        """Chips the person must put in to match her bet this round."""
        bets = self.g.bets
        return max(0, bets[COMPUTER] - bets[HUMAN])

    def buttons(self) -> tuple[Button, ...]:
        g = self.g
        if g.is_over or g.to_act != HUMAN:
            return ()
        call = min(self.to_call(), g.stacks[HUMAN])
        out = []
        for la in g.legal_actions():
            a = la.action
            if a == DrawAction.BET:
                out.append(Button("BET", "b", "BET", la.min_amount, la.max_amount, "chips to bet"))
            elif a == DrawAction.STAY:
                out.append(Button("STAY", "s", "STAY"))
            elif a == DrawAction.DROP:
                out.append(Button("DROP", "p", "DROP"))
            elif a == DrawAction.RAISE:
                help_ = f"chips on top of the {call} to call"
                out.append(Button("RAISE", "r", "RAISE", la.min_amount, la.max_amount, help_))
            elif a == DrawAction.DRAW:
                out.append(Button("DRAW", "d", f"DRAW (call {call})" if call else "DRAW"))
            elif a == DrawAction.CALL:
                out.append(Button("CALL", "c", f"CALL {call}" if call else "CALL"))
            elif a == DrawAction.DISCARD:
                out.append(Button("DRAW", "d", "DRAW", takes_cards=True))
        # The seed's order of the buttons.
        order = ("BET", "STAY", "RAISE", "DRAW", "CALL", "DROP")
        return tuple(sorted(out, key=lambda b: order.index(b.name)))

    def _wardrobe(self) -> list[dict[str, Any]]:
        """Her wardrobe now, in its order: each item's state (worn, at_stake, lost) and
        whether she ever bought it back."""
        w = self.g.wardrobe
        state = {n: "worn" for n in w.worn}
        state.update({n: "at_stake" for n in w.at_stake})
        state.update({n: "lost" for n in w.lost})
        return [
            {"item": n, "state": state[n], "bought_back": n in self.bought_back}
            for n in self.config.wardrobe
        ]

    def view(self) -> dict[str, Any]:
        g = self.g
        stacks, bets = g.stacks, g.bets
        over = g.is_over
        winner = g.match_winner
        return {
            "game": self.game,
            "title": "Five-card draw against the computer",
            "options": self.options,
            "opponent": self.opponent,
            "level": level_text(self.opponent),
            "antes": f"Each hand starts with two antes of {self.config.ante} in the pot.",
            "hand": g.hand_no,
            "phase": _PHASE_WORDS[g.phase],
            "first": "you" if g.first_seat == HUMAN else "she",
            "to_act": None if over else ("you" if g.to_act == HUMAN else "she"),
            "pot": g.pot,
            "to_call": self.to_call() if g.to_act == HUMAN else 0,
            "you": {
                "money": stacks[HUMAN],
                "bet": bets[HUMAN],
                "drawn": g.cards_drawn(HUMAN),
                "cards": [card_json(c) for c in g.hand(HUMAN)],
            },
            "her": {
                "money": stacks[COMPUTER],
                "bet": bets[COMPUTER],
                "drawn": g.cards_drawn(COMPUTER),
            },
            "item_value": self.config.item_value,
            "wardrobe": self._wardrobe(),
            "buttons": [b.to_json() for b in self.buttons()],
            "events": self.shown_events(),
            "results": self.results,
            "showdown": self.showdown(),
            "over": over,
            "winner": None if winner is None else ("you" if winner == HUMAN else "she"),
            "final": self.final_text() if over else None,
        }

    def showdown(self) -> dict[str, Any] | None:
        """The showdown that came with or after the person's latest action (the table
        shows it until the person goes on), else None."""
        if not self.results:
            return None
        r = self.results[-1]
        if r["how"] != "showdown" or r["at"] < self.mark:
            return None
        return r

    def final_text(self) -> str:
        """The final screen's verdict (RULES.md §1 match end)."""
        if self.g.match_winner == HUMAN:
            return "You won the match: she had to stake and had nothing left to stake."
        return "She won the match: you cannot pay the ante."

    # ----- actions ----------------------------------------------------------
    def apply(self, button: Button, amount: int | None, cards: tuple[int, ...]) -> None:
        if button.takes_cards:
            # DISCARD's amount is the slot mask: bit i replaces card i + 1.
            self._play(DrawAction.DISCARD, sum(1 << (n - 1) for n in cards))
        else:
            self._play(DrawAction[button.name], amount or 0)

    def advance(self) -> None:
        g = self.g
        while not g.is_over and g.to_act == COMPUTER:
            enc.encode_obs(g.state, g.cfg, COMPUTER, self._obs)
            enc.env_mask(g.state, g.cfg, self._ep, self._fp, self._mask)
            a = int(self.computer.act(self._obs, self._mask))
            if not 0 <= a < self._mask.size or not self._mask[a]:
                # As the envs do (illegal_action="passive"): a masked-out choice
                # plays the passive action.
                a = enc.passive_action(self._mask, self._num_sizes)
            kind, amount = enc.env_to_engine(g.state, g.cfg, self._ep, self._fp, a)
            self._play(DrawAction(kind), amount)

    def _play(self, action: DrawAction, amount: int) -> None:
        """Apply one action of either seat and log what it did.

        The log follows the order of play: the stakes this action made her put up,
        the action, the hand's outcome (the pot settling those stakes); then, once the
        next hand is dealt (after her buy-back decision, if she has one), its deal line
        and the stakes its ante made.
        """
        g = self.g
        staked_before = set(g.wardrobe.at_stake)
        n = len(g.history)
        g.act(action, amount)
        records = g.history[n:]
        outcome = next((r.outcome for r in records if r.outcome is not None), None)
        after = set(g.wardrobe.at_stake)
        order = self.config.wardrobe
        dealt = not g.is_over and g.phase in _DEALT and g.hand_no != self._announced
        if outcome is not None and outcome.winner is not None:
            # The pot settled every stake: those it settled that were not staked
            # before were staked by this very action; what is at stake now, by the
            # next hand's ante.
            settled = set(outcome.items_lost) | set(outcome.items_redeemed)
            now = [x for x in order if x in settled and x not in staked_before]
            later = [x for x in order if x in after]
        elif dealt:
            now, later = [], [x for x in order if x in after and x not in staked_before]
        else:
            now, later = [x for x in order if x in after and x not in staked_before], []
        self._log_stakes(now)
        bought_before = set(self.bought_back)
        for rec in records:
            self._log_record(rec)
        if outcome is not None and self.results and self.results[-1]["hand"] == outcome.hand_no:
            # Her wardrobe as the hand left it (the showdown pause shows it): what the
            # next hand's ante staked was still worn, what she bought back between the
            # hands still lost.
            bought = {
                r.item_bought_back
                for r in records
                if r.action == DrawAction.BUY_BACK and r.item_bought_back is not None
            }
            at_end = self._wardrobe()
            for entry in at_end:
                if entry["item"] in later and entry["state"] == "at_stake":
                    entry["state"] = "worn"
                if entry["item"] in bought:
                    entry["state"] = "lost"
                    entry["bought_back"] = entry["item"] in bought_before
            self.results[-1]["wardrobe"] = at_end
        if dealt:
            self._announce()
        self._log_stakes(later)

    def _announce(self) -> None:
        """The deal line of the hand now dealt."""
        self._announced = self.g.hand_no
        self.log_hand(f"Hand {self.g.hand_no}: {self._first_text()}.")

    def _log_stakes(self, items: list[str]) -> None:
        for item in items:
            self.log(
                f"She stakes her {item} ({self.config.item_value} in chips).",
                seat=COMPUTER,
                kind="stake",
            )

    def _log_record(self, rec: ActionRecord) -> None:
        who = _WHO[rec.seat]
        you = rec.seat == HUMAN
        es = "" if you else "s"
        a = rec.action
        text = ""
        # Sentences, with the seed's button name in brackets.
        # The latest bet or raise not yet called: a drop leaves it in the pot it wins.
        if a in (DrawAction.BET, DrawAction.RAISE):
            self._uncalled = (rec.seat, rec.amount)
        elif a != DrawAction.DROP:
            self._uncalled = None
        if a == DrawAction.BET:
            text = f"{who} bet{es} {rec.amount} (BET)."
        elif a == DrawAction.RAISE:
            call = rec.chips_in - rec.amount
            text = f"{who} call{es} {call} and raise{es} {rec.amount} (RAISE, {rec.chips_in} in)."
        elif a == DrawAction.STAY:
            text = f"{who} stay{es} (STAY)."
        elif a == DrawAction.DROP:
            text = f"{who} drop{es} (DROP)."
        elif a == DrawAction.DRAW:
            if rec.chips_in:
                text = (
                    f"{who} call{es} {rec.chips_in} and go{'' if you else 'es'} to the draw (DRAW)."
                )
            else:
                text = f"{who} go{'' if you else 'es'} to the draw (DRAW)."
        elif a == DrawAction.CALL:
            if rec.chips_in:
                text = f"{who} call{es} {rec.chips_in} (CALL)."
            else:
                text = f"{who} call{es} for the showdown (CALL)."
        elif a == DrawAction.DISCARD:
            k = rec.cards_drawn
            text = f"{who} change{es} {k} card{'s' * (k != 1)}."
            if k == 0:
                text = f"{who} stand{es} pat (no cards changed)."
        elif a == DrawAction.BUY_BACK and rec.item_bought_back is not None:
            self.bought_back.add(rec.item_bought_back)
            text = f"She buys back her {rec.item_bought_back} for {rec.bank_paid}."
        if text and rec.returned:
            # RULES.md §1: a short all-in call; the excess returns to the bettor.
            text += f" The uncalled {rec.returned} goes back to {_WHOM[1 - rec.seat]}."
        if text:
            self.log(text, seat=rec.seat)
        if rec.outcome is not None:
            self._log_outcome(rec.outcome)

    def _log_outcome(self, o: HandOutcome) -> None:
        names = _names(o)
        at = len(self.events)
        lines = []
        decided = None
        if o.hands is not None and names is not None:
            lines.append(f"You show {o.hands[HUMAN]}: {names[HUMAN]}.")
            lines.append(f"She shows {o.hands[COMPUTER]}: {names[COMPUTER]}.")
            if o.ranks is not None:
                decided = decider(int(o.ranks[HUMAN]), int(o.ranks[COMPUTER]))
        if o.winner is None:
            if o.how == "showdown":
                # RULES.md §1: a tie leaves the whole pot for the next hand.
                lines.append(f"A tie: the pot of {o.pot} stays for the next hand.")
        elif o.how == "drop":
            # RULES.md §1: the pot, the winner's own uncalled bet in it, goes to the
            # winner; said, so that "the pot of 320" after a bet of 310 reads right.
            own = ""
            if self._uncalled is not None and self._uncalled[0] == o.winner:
                whose = "your" if o.winner == HUMAN else "her"
                own = f" ({self._uncalled[1]} of it {whose} own bet, not called)"
            lines.append(
                f"{_WHO[1 - o.winner]} dropped: {_WHO[o.winner].lower()} win"
                f"{'' if o.winner == HUMAN else 's'} the pot of {o.pot}{own}."
            )
            self._uncalled = None
        elif o.how == "showdown":
            why = f" ({decided})" if decided else ""
            lines.append(
                f"{_WHO[o.winner]} win{'' if o.winner == HUMAN else 's'} the pot of {o.pot}{why}."
            )
        for item in o.items_lost:
            lines.append(f"She loses her {item}.")
        for item in o.items_redeemed:
            lines.append(f"She redeems her {item} ({self.config.item_value} back to the bank).")
        if o.match_winner is not None:
            lines.append(self.final_text())
        for line in lines:
            self.log(line, kind="result")
        summary = " ".join(lines)
        self.results.append(
            {
                "hand": o.hand_no,
                "how": o.how,
                "winner": None if o.winner is None else ("you" if o.winner == HUMAN else "she"),
                "pot": o.pot,
                "hands": None
                if o.hands is None
                else {"you": o.hands[HUMAN], "she": o.hands[COMPUTER]},
                "names": None if names is None else {"you": names[HUMAN], "she": names[COMPUTER]},
                "decided": decided,
                "items_lost": list(o.items_lost),
                "items_redeemed": list(o.items_redeemed),
                "text": summary,
                "lines": lines,
                "verdict": [x for x in lines if not x.startswith(("You show ", "She shows "))],
                "at": at,
            }
        )

    # ----- saves ------------------------------------------------------------
    def game_state(self) -> dict[str, Any]:
        state: dict[str, Any] = json.loads(self.g.to_json())
        return state

    @classmethod
    def load(cls, envelope: dict[str, Any]) -> DrawSession:
        """The session of a checked save envelope (:func:`poker_env_agents.play.common.parse_save`).

        Raises:
            SaveFileError: bad options, or a history the game refuses or that does
                not match the options.
            ConfigError: the opponent level cannot be loaded (a missing model file).
        """
        opts = envelope["options"]
        unknown = sorted(set(opts) - {"deck", "money", "items"})
        if unknown:
            raise SaveFileError(f"saved draw game: unknown option {unknown[0]!r}")
        state = envelope["state"]
        text = json.dumps(state)
        try:
            checked = DrawGame.from_json(text)
        except HistoryError as exc:
            raise SaveFileError(f"saved draw game: {exc}") from None
        try:
            s = cls(
                opponent=envelope["opponent"],
                seed=checked.seed,
                _replay=True,
                **{k: opts[k] for k in ("deck", "money", "items") if k in opts},
            )
        except ConfigError as exc:
            if exc.field == "level":
                raise
            raise SaveFileError(f"saved draw game: {exc}") from None
        if s.config != checked.config or checked.buyback != "decide":
            raise SaveFileError("saved draw game: its rules do not match its options")
        # Replay through the session, so the log and the results are those of play.
        for name, amount in state["actions"]:
            s._play(DrawAction[name], amount)
        s.mark = len(s.events)
        if s.g.to_json() != checked.to_json():  # pragma: no cover - same seed, same actions
            raise SaveFileError("saved draw game: the replay differs")
        s.advance()
        return s

    def check_cards(self, cards: Any) -> tuple[int, ...]:
        marked = super().check_cards(cards)
        if self.g.phase != DrawPhase.DRAW:
            raise InputError("cards are marked only in the draw")
        return marked
