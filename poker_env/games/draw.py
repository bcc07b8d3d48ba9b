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
from dataclasses import asdict, dataclass, field, fields, replace
from enum import IntEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards
from poker_env.errors import ArgumentError, ConfigError, HistoryError, IllegalActionError, as_int
from poker_env.games import draw_kernels as k
from poker_env.games import draw_layout as L
from poker_env.games._generator import LazyGenerator, LazyRng, snapshot
from poker_env.games.wardrobe import DEFAULT_WARDROBE, WardrobeState, wardrobe_state

__all__ = [
    "COMPUTER",
    "HISTORY_GAME",
    "HISTORY_VERSION",
    "HUMAN",
    "MAX_CHIPS",
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

#: The largest chip count the engine holds: its table rows are int64.
MAX_CHIPS = 2**63 - 1


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
        # Integer fields are stored as Python ints (numpy integers accepted), so that
        # the bounds below are computed without wrap-around and the config is JSON-able.
        deck = self.deck
        is_name = isinstance(deck, str) and deck in ("standard", "short")
        if not is_name and as_int(deck) not in (52, 32):
            raise ConfigError("deck", deck, "'standard' or 52, 'short' or 32")
        if not isinstance(deck, str):
            object.__setattr__(self, "deck", as_int(deck))
        for name, lo in (
            ("starting_money", 1),
            ("ante", 1),
            ("min_bet", 1),
            ("max_raises", 0),
            ("item_value", 1),
        ):
            # starting_money and item_value: bounded below by the match's chip total.
            big = name in ("starting_money", "item_value")
            self._set_int(name, lo, None if big else MAX_CHIPS)
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
        # Chip counts are int64 (draw_layout): the largest sum a row holds is every chip
        # of the match, both stakes plus the whole wardrobe (RULES.md "Everywhere").
        items = len(w) * self.item_value
        if 2 * self.starting_money + items > MAX_CHIPS:
            most = (MAX_CHIPS - items) // 2
            if most >= self.ante:
                raise ConfigError(
                    "starting_money",
                    self.starting_money,
                    f"an integer from {self.ante} to {most} (2 x starting_money + "
                    f"{len(w)} items x item_value {self.item_value} must fit the engine's "
                    f"64-bit chip counts, at most {MAX_CHIPS})",
                )
            raise ConfigError(
                "item_value",
                self.item_value,
                f"an integer from 1 to {(MAX_CHIPS - 2 * self.starting_money) // len(w)} "
                f"(2 x starting_money {self.starting_money} + {len(w)} items x item_value "
                f"must fit the engine's 64-bit chip counts, at most {MAX_CHIPS})",
            )
        r = self.buyback_reserve
        if r is not None:
            # The buy-back test adds item_value and the reserve (wardrobe.can_buy_back).
            most = MAX_CHIPS - self.item_value
            ri = as_int(r)
            if ri is None or not 0 <= ri <= most:
                raise ConfigError(
                    "buyback_reserve", r, f"None (2 x ante) or an integer from 0 to {most}"
                )
            object.__setattr__(self, "buyback_reserve", ri)
        if not isinstance(self.flush_beats_full_house, bool):
            raise ConfigError(
                "flush_beats_full_house", self.flush_beats_full_house, "True or False"
            )

    def _set_int(self, name: str, lo: int, hi: int | None) -> None:
        v = getattr(self, name)
        i = as_int(v)
        if i is None or i < lo or (hi is not None and i > hi):
            raise ConfigError(
                name, v, f"an integer >= {lo}" if hi is None else f"an integer from {lo} to {hi}"
            )
        object.__setattr__(self, name, i)

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
        """Inverse of :meth:`to_json_dict` (missing fields take their defaults).

        Raises:
            ConfigError: ``d`` is not a dict, has an unknown field, or a bad value.
        """
        names = [f.name for f in fields(cls)]
        if not isinstance(d, dict):
            raise ConfigError("config", d, f"a dict of the fields {names}")
        for key in d:
            if key not in names:
                raise ConfigError(str(key), d[key], f"one of the fields {names}")
        d = dict(d)
        if isinstance(d.get("wardrobe"), list):
            d["wardrobe"] = tuple(d["wardrobe"])
        return cls(**d)


#: The ``game`` and format ``version`` of :meth:`DrawGame.to_json`.
HISTORY_GAME = "five_card_draw"
HISTORY_VERSION = 2


def _json_object(text: object) -> dict[str, Any]:
    """The JSON object of a saved history, or a HistoryError."""
    try:
        d = json.loads(text)  # type: ignore[arg-type]
    except (ValueError, TypeError, RecursionError) as exc:
        # ValueError: bad JSON or bad UTF-8; TypeError: neither str nor bytes.
        raise HistoryError("text", f"not JSON ({exc}); allowed: what to_json wrote") from None
    if not isinstance(d, dict):
        raise HistoryError("text", f"a JSON {type(d).__name__}; allowed: a JSON object")
    return d


def _check_claims(claimed: object, actual: dict[str, Any]) -> None:
    """Refuse a history whose ``result`` differs from what its replay gives."""
    if not isinstance(claimed, dict):
        raise HistoryError("result", f"{claimed!r}; allowed: an object of claims")
    # The replay's claims as JSON gives them back (tuples become lists).
    actual = json.loads(json.dumps(actual))
    for key, value in actual.items():
        if key not in claimed:
            raise HistoryError(f"result.{key}", "missing")
        if claimed[key] != value or type(claimed[key]) is not type(value):
            raise HistoryError(
                f"result.{key}",
                f"the history claims {claimed[key]!r}, its replay gives {value!r} "
                "(a tampered or truncated history)",
            )


def eval_tables(config: DrawConfig) -> Any:
    """The evaluator tables for the config's deck and order (built on first use)."""
    from poker_env.evaluator import get_tables

    deck: Literal["standard", "short"] = "short" if config.deck_name == "short" else "standard"
    return get_tables(deck=deck, flush_beats_full_house=config.flush_beats_full_house)


class RandomBuffer(LazyRng):
    """Uniforms for one table, drawn from a seeded Generator and refilled by one rule.

    The kernels take their randomness (deals, random opponents) from this buffer. The
    refill rule (before a step, when fewer than ``BUF_MARGIN`` remain) is the same for
    one table and for a batch, so a table's game depends on its seed alone.
    """

    def __init__(self, rng: np.random.Generator, out: NDArray[np.float64] | None = None) -> None:
        self._rng: np.random.Generator | LazyGenerator = rng
        self.buf = out if out is not None else np.empty(L.BUF_SIZE, np.float64)
        self.buf[:] = rng.random(L.BUF_SIZE)

    def clone(self) -> RandomBuffer:
        """A copy with the same uniforms and a copy of the Generator (:mod:`._generator`)."""
        twin = object.__new__(type(self))
        twin._rng = snapshot(self._rng)
        twin.buf = self.buf.copy()
        return twin

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
    #: A short all-in call (DRAW or CALL for less than the bet): the uncalled chips
    #: that went back to the bettor (RULES.md §1). 0 otherwise.
    returned: int = 0


_HOW = {L.HOW_DROP: "drop", L.HOW_SHOWDOWN: "showdown", L.HOW_ANTE: "ante"}
_KINDS = frozenset(int(a) for a in DrawAction)


def _seat(seat: object) -> int:
    """``seat`` as 0 or 1, else an ArgumentError naming it."""
    q = as_int(seat)
    if q is None or q not in (HUMAN, COMPUTER):
        raise ArgumentError("seat", seat, f"{HUMAN} (human) or {COMPUTER} (computer)")
    return q


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
        if not isinstance(self.config, DrawConfig):
            raise ConfigError("config", config, "a DrawConfig (or None for the defaults)")
        if not isinstance(buyback, str) or buyback not in ("rule", "decide"):
            raise ConfigError("buyback", buyback, "'rule' or 'decide'")
        seed_int = as_int(seed)
        if seed_int is None or seed_int < 0:
            # numpy.random.default_rng takes any integer >= 0.
            raise ConfigError("seed", seed, "an integer >= 0")
        self.seed = seed_int
        self.buyback = buyback
        self.cfg = self.config.to_array(buyback_decide=buyback == "decide")
        self.tables = eval_tables(self.config)
        self.rand = RandomBuffer(np.random.default_rng(self.seed))
        self.state = np.zeros(L.NUM_COLS, np.int64)
        self._lg = np.zeros(L.LG_SIZE, np.int64)
        k.start_match(self.state, self.cfg, self.rand.buf)
        self.history: list[ActionRecord] = []

    def clone(self) -> DrawGame:
        """An independent copy of this match as it stands (OpenSpiel's ``state.clone()``).

        The copy has the original's future: the same actions on both give the same
        deals, records and payouts (its random buffer and Generator are copies of
        this one's; the Generator is made when the copy first refills). Nothing done to
        one changes the other; the config and the evaluator tables are shared.
        Over ten times as fast as :func:`copy.deepcopy` (``bench/run.py copies``).
        """
        twin = object.__new__(type(self))
        twin.config = self.config
        twin.seed = self.seed
        twin.buyback = self.buyback
        twin.cfg = self.cfg  # read only: the kernels never write the config row
        twin.tables = self.tables
        twin.rand = self.rand.clone()
        twin.state = self.state.copy()
        twin._lg = self._lg.copy()
        twin.history = list(self.history)
        return twin

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
        """The five cards of ``seat`` in slot order (DISCARD bit i replaces slot i).

        Raises:
            ArgumentError: ``seat`` is not 0 (human) or 1 (computer).
        """
        q = _seat(seat)
        return self.state[L.S_HANDS + 5 * q : L.S_HANDS + 5 * q + 5].copy()

    def cards_drawn(self, seat: int) -> int | None:
        """Cards ``seat`` drew this hand (public), or None before it drew.

        Raises:
            ArgumentError: ``seat`` is not 0 (human) or 1 (computer).
        """
        n = int(self.state[L.S_DRAWN + _seat(seat)])
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
            IllegalActionError: naming the action, the legal actions (with amount
                bounds) and the phase; the game is unchanged. Also for an action or an
                amount that is not an integer (``7.9``, ``"10"``: no rounding) and
                for an amount outside the 64-bit range.
        """
        kind = as_int(action)
        if kind is None or kind not in _KINDS:
            raise IllegalActionError(
                action,
                self._legal_text(),
                self.phase.name,
                f"unknown action: allowed a DrawAction or its integer 0..{len(_KINDS) - 1}",
            )
        a = DrawAction(kind)
        amt = as_int(amount)
        if amt is None:
            raise IllegalActionError(
                f"{a.name}({amount!r})",
                self._legal_text(),
                self.phase.name,
                "the amount must be an integer number of chips (or a slot mask)",
            )
        if self.is_over:
            raise IllegalActionError(a.name, "none", self.phase.name, "the match is over")
        if not -MAX_CHIPS <= amt <= MAX_CHIPS:
            # Bigger than any bound, and than the kernels' int64 arguments.
            raise IllegalActionError(
                f"{a.name}({amt})", self._legal_text(), self.phase.name, "amount out of bounds"
            )
        amount = amt
        s = self.state
        before = s.copy()
        self.rand.refill_if_low(s)
        status = k.apply_action(s, self.cfg, self.tables, self.rand.buf, int(a), amt)
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
        returned = 0
        if a in (DrawAction.DRAW, DrawAction.CALL):
            # What the call put in, kept in the hand's history (a short call puts in less).
            n = int(s[L.S_HIST_N])
            chips_in = int(s[L.S_HIST + 3 * (n - 1) + 2])
            returned = int(before[L.S_BET + 1 - seat] - before[L.S_BET + seat]) - chips_in
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
            returned=returned,
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
        """The match as JSON: config, seed, buy-back mode, every action applied, and
        what the match came to (``result``: phase, stacks, pot, bank, wardrobe, each
        decided hand's winner), which :meth:`from_json` checks against its replay.

        Format version 2 (``"version": 2``); version 1 files (no ``version`` and no
        ``result``) still load, unchecked.
        """
        return json.dumps(
            {
                "game": HISTORY_GAME,
                "version": HISTORY_VERSION,
                "config": self.config.to_json_dict(),
                "seed": self.seed,
                "buyback": self.buyback,
                # Automatic records (the default buy-back) are redone by the replay.
                "actions": [[r.action.name, r.amount] for r in self.history if not r.automatic],
                "result": self._claims(),
            }
        )

    def _claims(self) -> dict[str, Any]:
        # What a saved match says it came to: the replay must give the same.
        w = self.wardrobe
        return {
            "phase": self.phase.name,
            "hand_no": self.hand_no,
            "to_act": self.to_act,
            "stacks": list(self.stacks),
            "pot": self.pot,
            "bank": self.bank,
            "match_winner": self.match_winner,
            "wardrobe": {"worn": list(w.worn), "at_stake": list(w.at_stake), "lost": list(w.lost)},
            "hands_won": [
                [o.hand_no, o.winner, o.how, o.pot]
                for o in (r.outcome for r in self.history)
                if o is not None
            ],
        }

    @classmethod
    def from_json(cls, text: str | bytes) -> DrawGame:
        """Replay a match saved by :meth:`to_json` (same seed, same actions, same result).

        Raises:
            HistoryError: naming the field, for text that is not such a match: not
                JSON, a missing or malformed field, another game's history, a config
                or seed the game refuses, an action the rules refuse at that point
                (``actions[i]``), or a ``result`` the replay does not give (a
                tampered or truncated history). Nothing else escapes.
        """
        d = _json_object(text)
        name = d.get("game")
        if name != HISTORY_GAME:
            raise HistoryError("game", f"{name!r}; allowed: {HISTORY_GAME!r} (five-card draw)")
        version = d.get("version", 1)
        if as_int(version) not in (1, HISTORY_VERSION):
            raise HistoryError("version", f"{version!r}; allowed: 1 (no field) or 2")
        for key in ("config", "seed", "buyback", "actions") + (
            ("result",) if version == HISTORY_VERSION else ()
        ):
            if key not in d:
                raise HistoryError(key, "missing")
        conf = d["config"]
        names = {f.name for f in fields(DrawConfig)}
        if not isinstance(conf, dict):
            raise HistoryError("config", f"{conf!r}; allowed: an object of DrawConfig fields")
        missing = sorted(names - set(conf))
        if missing:
            raise HistoryError(
                f"config.{missing[0]}", f"missing; the config has the fields {sorted(names)}"
            )
        try:
            config = DrawConfig.from_json_dict(conf)
        except ConfigError as exc:
            raise HistoryError(f"config.{exc.field}", str(exc)) from None
        seed = d["seed"]
        if isinstance(seed, float):
            raise HistoryError("seed", f"{seed!r}; allowed: an integer >= 0")
        try:
            game = cls(config, seed=seed, buyback=d["buyback"])
        except ConfigError as exc:
            raise HistoryError(exc.field, str(exc)) from None
        actions = d["actions"]
        if not isinstance(actions, list):
            raise HistoryError("actions", f"{actions!r}; allowed: a list of [ACTION, amount]")
        for i, item in enumerate(actions):
            if (
                not isinstance(item, list)
                or len(item) != 2
                or not isinstance(item[0], str)
                or item[0] not in DrawAction.__members__
                or as_int(item[1]) is None
            ):
                raise HistoryError(
                    f"actions[{i}]",
                    f"{item!r}; allowed: [ACTION, amount], ACTION one of "
                    f"{list(DrawAction.__members__)}, amount an integer",
                )
            try:
                game.act(DrawAction[item[0]], item[1])
            except IllegalActionError as exc:
                raise HistoryError(
                    f"actions[{i}]", f"{item!r} refused at this point of the replay: {exc}"
                ) from None
        if version == HISTORY_VERSION:
            _check_claims(d["result"], game._claims())
        return game

    def _legal_text(self) -> str:
        return ", ".join(str(x) for x in self.legal_actions()) or "none"
