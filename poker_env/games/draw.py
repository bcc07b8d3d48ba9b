"""Five-card draw against the computer, with clothing stakes (RULES.md §1).

The per-step rules are compiled kernels over one int64 row per table
(:mod:`poker_env.games.draw_kernels`, layout in :mod:`poker_env.games.draw_layout`,
stakes in :mod:`poker_env.games.wardrobe`). This module is the readable object API on
top: :class:`DrawConfig`, the :class:`DrawAction` words of the seed, and
:class:`DrawGame`, which answers legal-action queries with amount bounds, returns a
frozen :class:`ActionRecord` per action (the hand history), and saves/replays a match
as JSON.

Seat 0 is the human, seat 1 the computer opponent (the one with a wardrobe).

>>> game = DrawGame(DrawConfig(), seed=7)
>>> game.phase.name, game.pot
('PRE_DRAW', 10)
>>> rec = game.act(DrawAction.DROP)
>>> rec.outcome is not None and rec.outcome.winner == 1 - rec.seat
True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from enum import IntEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games import draw_kernels as k
from poker_env.games import draw_layout as L
from poker_env.games.wardrobe import DEFAULT_WARDROBE, WardrobeState, wardrobe_state

__all__ = [
    "COMPUTER",
    "HUMAN",
    "ActionRecord",
    "DrawAction",
    "DrawConfig",
    "DrawGame",
    "DrawPhase",
    "HandOutcome",
    "LegalAction",
    "RandomBuffer",
    "eval_tables",
]

HUMAN = L.HUMAN
COMPUTER = L.COMPUTER


class DrawAction(IntEnum):
    """Actions in the seed's words (RULES.md §1), plus the discard and buy-back choices."""

    BET = L.K_BET
    STAY = L.K_STAY
    DROP = L.K_DROP
    RAISE = L.K_RAISE
    DRAW = L.K_DRAW  # before the draw: check after STAY, or call a bet
    CALL = L.K_CALL  # after the draw: show down (calling a bet if any)
    DISCARD = L.K_DISCARD  # the draw: amount = bitmask of the slots to replace (0..31)
    BUY_BACK = L.K_BUY_BACK  # computer, between hands
    SKIP_BUY_BACK = L.K_SKIP_BUY_BACK


class DrawPhase(IntEnum):
    """The explicit phase of a table."""

    PRE_DRAW = L.PH_PRE_DRAW
    DRAW = L.PH_DRAW
    POST_DRAW = L.PH_POST_DRAW
    HAND_END = L.PH_HAND_END
    BUY_BACK = L.PH_BUY_BACK
    MATCH_END = L.PH_MATCH_END


@dataclass(frozen=True, kw_only=True)
class DrawConfig:
    """Options of RULES.md §1, with its defaults.

    Attributes:
        deck: 52 (``"standard"``) or 32 (``"short"``, 7 to A).
        starting_money: each player's money at the start.
        ante: paid by both before every hand.
        min_bet: the smallest bet or raise amount.
        max_raises: raises allowed per betting round after the opening bet.
        wardrobe: the computer's item names (at most 16).
        item_value: chips an item is worth when staked or bought back.
        buyback_reserve: money she keeps beyond an item's value to buy it back
            (None: 2 x ante).
        flush_beats_full_house: the Italian short-deck order.
    """

    deck: str | int = "standard"
    starting_money: int = 500
    ante: int = 5
    min_bet: int = 5
    max_raises: int = 3
    wardrobe: tuple[str, ...] = DEFAULT_WARDROBE
    item_value: int = 100
    buyback_reserve: int | None = None
    flush_beats_full_house: bool = False

    def __post_init__(self) -> None:
        if self.deck not in ("standard", "short", 52, 32):
            raise ConfigError("deck", self.deck, "'standard' or 52, 'short' or 32")
        for name, lo in (
            ("starting_money", 1),
            ("ante", 1),
            ("min_bet", 1),
            ("max_raises", 0),
            ("item_value", 1),
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ConfigError(name, v, f"an integer >= {lo}")
        if self.ante > self.starting_money:
            raise ConfigError(
                "ante", self.ante, f"an integer <= starting_money ({self.starting_money})"
            )
        w = self.wardrobe
        if (
            not isinstance(w, tuple)
            or len(w) > L.MAX_ITEMS
            or not all(isinstance(x, str) and x for x in w)
        ):
            raise ConfigError(
                "wardrobe", w, f"a tuple of at most {L.MAX_ITEMS} non-empty item names"
            )
        r = self.buyback_reserve
        if r is not None and (isinstance(r, bool) or not isinstance(r, int) or r < 0):
            raise ConfigError("buyback_reserve", r, "None (2 x ante) or an integer >= 0")
        if not isinstance(self.flush_beats_full_house, bool):
            raise ConfigError(
                "flush_beats_full_house", self.flush_beats_full_house, "True or False"
            )

    @property
    def deck_name(self) -> str:
        """``"standard"`` or ``"short"``."""
        return "short" if self.deck in ("short", 32) else "standard"

    @property
    def num_cards(self) -> int:
        """32 or 52."""
        return 32 if self.deck_name == "short" else 52

    @property
    def reserve(self) -> int:
        """The buy-back reserve in chips (RULES.md §1: default 2 x ante)."""
        return 2 * self.ante if self.buyback_reserve is None else self.buyback_reserve

    @property
    def total_chips(self) -> int:
        """The most chips that can ever be in play: both stakes plus the whole wardrobe."""
        return 2 * self.starting_money + len(self.wardrobe) * self.item_value

    def to_array(self, buyback_decide: bool = False) -> NDArray[np.int64]:
        """The int64 config row the kernels read."""
        cfg = np.zeros(L.NUM_CFG, np.int64)
        cfg[L.C_NUM_CARDS] = self.num_cards
        cfg[L.C_START] = self.starting_money
        cfg[L.C_ANTE] = self.ante
        cfg[L.C_MIN_BET] = self.min_bet
        cfg[L.C_MAX_RAISES] = self.max_raises
        cfg[L.C_NUM_ITEMS] = len(self.wardrobe)
        cfg[L.C_ITEM_VALUE] = self.item_value
        cfg[L.C_RESERVE] = self.reserve
        cfg[L.C_BUYBACK_DECIDE] = int(buyback_decide)
        return cfg

    def to_json_dict(self) -> dict[str, Any]:
        """Plain JSON-able fields."""
        d = asdict(self)
        d["wardrobe"] = list(self.wardrobe)
        return d

    @classmethod
    def from_json_dict(cls, d: dict[str, Any]) -> DrawConfig:
        """Inverse of :meth:`to_json_dict`."""
        d = dict(d)
        d["wardrobe"] = tuple(d["wardrobe"])
        return cls(**d)


def eval_tables(config: DrawConfig) -> Any:
    """The evaluator tables for the config's deck and order (built on first use)."""
    from poker_env.evaluator import get_tables

    deck: Literal["standard", "short"] = "short" if config.deck_name == "short" else "standard"
    return get_tables(deck=deck, flush_beats_full_house=config.flush_beats_full_house)


class RandomBuffer:
    """Uniforms for one table, drawn from a seeded Generator and refilled by one rule.

    The kernels take their randomness (deals, random opponents) from this buffer. The
    refill rule (before a step, when fewer than ``BUF_MARGIN`` remain) is the same for
    one table and for a batch, so a table's game depends on its seed alone.
    """

    def __init__(self, rng: np.random.Generator, out: NDArray[np.float64] | None = None) -> None:
        self.rng = rng
        self.buf = out if out is not None else np.empty(L.BUF_SIZE, np.float64)
        self.buf[:] = rng.random(L.BUF_SIZE)

    def refill_if_low(self, s: NDArray[np.int64]) -> None:
        """Draw a fresh buffer when the row's cursor leaves too little."""
        if s[L.S_CURSOR] > L.BUF_SIZE - L.BUF_MARGIN:
            self.buf[:] = self.rng.random(L.BUF_SIZE)
            s[L.S_CURSOR] = 0


@dataclass(frozen=True)
class LegalAction:
    """A legal action and, for BET, RAISE and DISCARD, the inclusive amount bounds."""

    action: DrawAction
    min_amount: int = 0
    max_amount: int = 0

    def __str__(self) -> str:
        if self.action in (DrawAction.BET, DrawAction.RAISE, DrawAction.DISCARD):
            return f"{self.action.name}({self.min_amount}..{self.max_amount})"
        return self.action.name


@dataclass(frozen=True)
class HandOutcome:
    """How a hand ended. ``winner`` is a seat, or None for a tie (the pot stays)."""

    hand_no: int
    winner: int | None
    how: str  # "drop", "showdown", "ante" (the match ended at an ante)
    pot: int
    hands: tuple[str, str] | None  # both hands, at a showdown
    ranks: tuple[int, int] | None
    items_lost: tuple[str, ...] = ()
    items_redeemed: tuple[str, ...] = ()
    match_winner: int | None = None


@dataclass(frozen=True)
class ActionRecord:
    """One applied action: the entries of a hand history."""

    hand_no: int
    seat: int
    phase: DrawPhase
    action: DrawAction
    amount: int  # bet/raise: beyond the call; DISCARD: the slot mask; else 0
    chips_in: int  # chips the action put into the pot
    cards_drawn: int = 0
    item_bought_back: str | None = None
    outcome: HandOutcome | None = field(default=None)
    #: Chips paid to the bank (a buy-back: the item's value).
    bank_paid: int = 0
    #: True for an event the rules applied by themselves between hands (the default
    #: buy-back rule), not a player's action: replays skip it and the rules redo it.
    automatic: bool = False


_HOW = {L.HOW_DROP: "drop", L.HOW_SHOWDOWN: "showdown", L.HOW_ANTE: "ante"}


class DrawGame:
    """A match of five-card draw against the computer, as an object.

    Args:
        config: the rules options.
        seed: seeds the Generator every deal comes from (same seed, same match).
        buyback: ``"rule"`` (the computer buys back by the default rule of
            :mod:`poker_env.games.wardrobe`) or ``"decide"`` (BUY_BACK / SKIP_BUY_BACK
            are her actions between hands).
    """

    def __init__(
        self, config: DrawConfig | None = None, seed: int = 0, buyback: str = "rule"
    ) -> None:
        self.config = config if config is not None else DrawConfig()
        if buyback not in ("rule", "decide"):
            raise ConfigError("buyback", buyback, "'rule' or 'decide'")
        self.seed = int(seed)
        self.buyback = buyback
        self.cfg = self.config.to_array(buyback_decide=buyback == "decide")
        self.tables = eval_tables(self.config)
        self.rand = RandomBuffer(np.random.default_rng(self.seed))
        self.state = np.zeros(L.NUM_COLS, np.int64)
        self._lg = np.zeros(L.LG_SIZE, np.int64)
        k.start_match(self.state, self.cfg, self.rand.buf)
        self.history: list[ActionRecord] = []

    # ----- queries -------------------------------------------------------------
    @property
    def phase(self) -> DrawPhase:
        """The current phase."""
        return DrawPhase(int(self.state[L.S_PHASE]))

    @property
    def to_act(self) -> int:
        """Seat whose decision it is."""
        return int(self.state[L.S_TO_ACT])

    @property
    def first_seat(self) -> int:
        """Seat acting first this hand."""
        return int(self.state[L.S_FIRST])

    @property
    def pot(self) -> int:
        """Chips in the pot (a tied pot stays here)."""
        return int(self.state[L.S_POT])

    @property
    def stacks(self) -> tuple[int, int]:
        """Money of seat 0 (human) and seat 1 (computer)."""
        return int(self.state[L.S_STACK]), int(self.state[L.S_STACK + 1])

    @property
    def bets(self) -> tuple[int, int]:
        """Chips each seat put in during this betting round."""
        return int(self.state[L.S_BET]), int(self.state[L.S_BET + 1])

    @property
    def bank(self) -> int:
        """Chips the bank paid out net (stakes less redemptions and buy-backs), <= 0."""
        return int(self.state[L.S_BANK])

    @property
    def hand_no(self) -> int:
        """Number of the current hand, from 1."""
        return int(self.state[L.S_HAND_NO])

    @property
    def match_winner(self) -> int | None:
        """The seat that won the match, or None while it goes on."""
        w = int(self.state[L.S_MATCH_WINNER])
        return None if w < 0 else w

    @property
    def is_over(self) -> bool:
        """The match has ended."""
        return self.phase == DrawPhase.MATCH_END

    @property
    def wardrobe(self) -> WardrobeState:
        """The computer's items, worn, at stake and lost."""
        return wardrobe_state(self.state, self.config.wardrobe)

    def hand(self, seat: int) -> NDArray[np.int64]:
        """The five cards of ``seat`` in slot order (DISCARD bit i replaces slot i)."""
        return self.state[L.S_HANDS + 5 * seat : L.S_HANDS + 5 * seat + 5].copy()

    def cards_drawn(self, seat: int) -> int | None:
        """Cards ``seat`` drew this hand (public), or None before it drew."""
        n = int(self.state[L.S_DRAWN + seat])
        return None if n < 0 else n

    def chips_total(self) -> int:
        """Stacks + pot + bank: always ``2 * starting_money``."""
        return int(k.chips_total(self.state))

    def legal_actions(self) -> tuple[LegalAction, ...]:
        """The legal actions of the seat to act, with amount bounds."""
        k.legal(self.state, self.cfg, self._lg)
        lg = self._lg
        out = []
        for a in DrawAction:
            if lg[a]:
                if a in (DrawAction.BET, DrawAction.RAISE, DrawAction.DISCARD):
                    out.append(LegalAction(a, int(lg[L.LG_LO]), int(lg[L.LG_HI])))
                else:
                    out.append(LegalAction(a))
        return tuple(out)

    # ----- actions -------------------------------------------------------------
    def act(self, action: DrawAction | int, amount: int = 0) -> ActionRecord:
        """Apply ``action`` (with ``amount`` for BET, RAISE, DISCARD) for the seat to act.

        Raises:
            IllegalActionError: naming the action, the legal actions and the phase;
                the game is unchanged.
        """
        try:
            a = DrawAction(int(action))
        except ValueError:
            raise IllegalActionError(
                action, self._legal_text(), self.phase.name, "unknown action"
            ) from None
        if self.is_over:
            raise IllegalActionError(a.name, "none", self.phase.name, "the match is over")
        s = self.state
        before = s.copy()
        self.rand.refill_if_low(s)
        status = k.apply_action(s, self.cfg, self.tables, self.rand.buf, int(a), int(amount))
        if status != k.ST_OK:
            s[:] = before
            reason = "amount out of bounds" if status == k.ST_BAD_AMOUNT else "not legal now"
            raise IllegalActionError(
                f"{a.name}({amount})",
                self._legal_text(),
                DrawPhase(int(before[L.S_PHASE])).name,
                reason,
            )
        seat = int(before[L.S_TO_ACT])
        chips_in = 0
        if a in (DrawAction.BET, DrawAction.RAISE):
            chips_in = int(before[L.S_BET + 1 - seat] - before[L.S_BET + seat]) + int(amount)
        elif a in (DrawAction.DRAW, DrawAction.CALL):
            # What the call put in, kept in the hand's history (a short call puts in less).
            n = int(s[L.S_HIST_N])
            chips_in = int(s[L.S_HIST + 3 * (n - 1) + 2])
        bought = None
        if a == DrawAction.BUY_BACK:
            bought = self.config.wardrobe[int(s[L.S_BOUGHT_BACK]) - 1]
        hand_no = int(before[L.S_HAND_NO])
        outcome, auto = self._settle_if_ended(hand_no)
        rec = ActionRecord(
            hand_no=hand_no,
            seat=seat,
            phase=DrawPhase(int(before[L.S_PHASE])),
            action=a,
            amount=int(amount)
            if a in (DrawAction.BET, DrawAction.RAISE, DrawAction.DISCARD)
            else 0,
            chips_in=chips_in,
            cards_drawn=bin(int(amount) & 31).count("1") if a == DrawAction.DISCARD else 0,
            item_bought_back=bought,
            outcome=outcome,
            bank_paid=self.config.item_value if bought is not None else 0,
        )
        self.history.append(rec)
        if auto is not None:
            self.history.append(auto)
        return rec

    def _settle_if_ended(self, hand_no: int) -> tuple[HandOutcome | None, ActionRecord | None]:
        # The hand's outcome, and the record of the default rule's buy-back between
        # this hand and the next (RULES.md §1 "Buying back"), if she bought one back.
        s = self.state
        if int(s[L.S_PHASE]) != L.PH_HAND_END:
            return None, None
        outcome = self._outcome(hand_no)
        self.rand.refill_if_low(s)
        k.next_hand(s, self.cfg, self.rand.buf)
        auto = None
        if int(s[L.S_BOUGHT_BACK]) > 0 and int(s[L.S_PHASE]) != L.PH_BUY_BACK:
            auto = ActionRecord(
                hand_no=hand_no,
                seat=COMPUTER,
                phase=DrawPhase.HAND_END,
                action=DrawAction.BUY_BACK,
                amount=0,
                chips_in=0,
                item_bought_back=self.config.wardrobe[int(s[L.S_BOUGHT_BACK]) - 1],
                bank_paid=self.config.item_value,
                automatic=True,
            )
        if int(s[L.S_PHASE]) == L.PH_MATCH_END:
            # The match ended at the next ante (RULES.md §1, match end).
            end = self._outcome(hand_no + 1)
            outcome = replace(
                outcome,
                items_lost=outcome.items_lost + end.items_lost,
                items_redeemed=outcome.items_redeemed + end.items_redeemed,
                match_winner=end.match_winner,
            )
        return outcome, auto

    def _outcome(self, hand_no: int) -> HandOutcome:
        s = self.state
        res = int(s[L.S_RESULT])
        how = int(s[L.S_HOW])
        winner = None if res == L.RES_TIE else res
        showdown = how == L.HOW_SHOWDOWN
        mask = int(s[L.S_STAKE_MASK])
        staked = (
            tuple(n for i, n in enumerate(self.config.wardrobe) if (mask >> i) & 1)
            if winner is not None
            else ()
        )
        mw = int(s[L.S_MATCH_WINNER])
        return HandOutcome(
            hand_no=hand_no,
            winner=winner,
            how=_HOW.get(how, "?"),
            pot=int(s[L.S_POT_WON]) if winner is not None else int(s[L.S_POT]),
            hands=(format_cards(self.hand(0)), format_cards(self.hand(1))) if showdown else None,
            ranks=(int(s[L.S_RANK]), int(s[L.S_RANK + 1])) if showdown else None,
            items_lost=staked if winner == HUMAN else (),
            items_redeemed=staked if winner == COMPUTER else (),
            match_winner=None if mw < 0 else mw,
        )

    # ----- save and replay -----------------------------------------------------
    def to_json(self) -> str:
        """The match as JSON: config, seed, buy-back mode and every action applied."""
        return json.dumps(
            {
                "game": "five_card_draw",
                "config": self.config.to_json_dict(),
                "seed": self.seed,
                "buyback": self.buyback,
                # Automatic records (the default buy-back) are redone by the replay.
                "actions": [[r.action.name, r.amount] for r in self.history if not r.automatic],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> DrawGame:
        """Replay a match saved by :meth:`to_json` (same seed, same actions, same result)."""
        d = json.loads(text)
        game = cls(DrawConfig.from_json_dict(d["config"]), seed=d["seed"], buyback=d["buyback"])
        for name, amount in d["actions"]:
            game.act(DrawAction[name], amount)
        return game

    def _legal_text(self) -> str:
        return ", ".join(str(x) for x in self.legal_actions()) or "none"
