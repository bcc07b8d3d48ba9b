"""Hold'em hands to and from PHH, the open poker hand history format PokerKit reads.

PHH lists players from the seat after the dealer clockwise (``p1`` = small
blind, the dealer last; heads-up ``p1`` is the big blind and PokerKit swaps the
blinds itself), so ``blinds_or_straddles = [E/2, E, 0, ...]`` always. Actions:
``d dh pK CARDS`` (hole cards), ``d db CARDS`` (board), ``pK f`` (fold),
``pK cc`` (check/call), ``pK cbr N`` (bet or raise to N this round), ``pK sm CARDS`` (shown at showdown).

Export (:func:`to_phh`): a ``rules="standard"`` hand without escapes and without
``max_bet`` is plain no-limit Hold'em: PokerKit replays it to the same stacks
(tested). The seed profile's skipped rounds, the cap and escapes have no PHH
form: such hands are refused with ``ValueError`` (an escape's penalty and its
role shift, RULES.md §3, are in the JSON record, :meth:`HoldemGame.to_json`).

Import (:func:`from_phh`): a no-limit Texas Hold'em history (``variant = "NT"``)
with zero antes, blinds ``[E/2, E, 0, ...]`` and ``min_bet = E``, every hole
card known, played again in this engine with ``rules="standard"``: players
``p1..pN`` sit at seats ``0..N-1``, the dealer at seat ``N-1``. Whatever this
engine cannot express (another variant, antes, straddles, unknown cards, an
action it refuses) raises :class:`~poker_env.errors.HistoryError` (a
``ValueError``) naming the field, what was wrong and what is allowed; so does a
``finishing_stacks`` the replay does not reach (``to_phh`` writes it for a
finished hand). ``from_phh(to_phh(record))`` ends with the same stacks, listed in
PHH player order (:func:`phh_player_seats`).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards, parse_cards
from poker_env.errors import HistoryError
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import HoldemConfig, HoldemGame, replay_json

__all__ = ["from_phh", "phh_player_seats", "to_phh"]


def phh_player_seats(record: dict[str, Any]) -> list[int]:
    """Seats in PHH player order: from the seat after the dealer clockwise, the dealer last."""
    n = len(record["seated"])
    dealt = [q for q in range(n) if record["seated"][q] and record["start_stacks"][q] > 0]
    button = record["button"]
    return sorted(dealt, key=lambda q: (q - button - 1) % n)


def _toml_list(values: list[Any]) -> str:
    return "[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v).lower() for v in values) + "]"


def to_phh(hand: HoldemGame | dict[str, Any]) -> str:
    """PHH text of a game's last hand, or of a hand record from
    :meth:`poker_env.games.holdem.HoldemGame.hand_record`.

    PHH is written above the game (the game knows nothing of PHH), so it is
    ``to_phh(game)``, as :func:`from_phh` is a function.

    Raises:
        ValueError: for hands PHH cannot express (seed profile, ``max_bet``, escapes).
    """
    record = hand.hand_record() if isinstance(hand, HoldemGame) else hand
    cfg = record["config"]
    if cfg["rules"] != "standard" or cfg["max_bet"] is not None:
        raise ValueError(
            "PHH export needs rules='standard' and max_bet=None (plain no-limit Hold'em)"
        )
    if any(a["action"] == "leave" for a in record["actions"]):
        raise ValueError(
            "PHH has no form for a player leaving mid-hand (escape: penalty and role"
            " shift); allowed: hands without escapes (save escapes with to_json)"
        )
    game = replay_json(record)
    seats = phh_player_seats(record)
    index = {q: i + 1 for i, q in enumerate(seats)}
    base = cfg["base"]
    board = [int(c) for c in game.state[K.BOARD : K.BOARD + int(game.state[K.NUM_BOARD])]]
    actions = [f"d dh p{index[q]} {game.hole_cards(q).replace(' ', '')}" for q in seats]
    street_cards = {1: board[0:3], 2: board[3:4], 3: board[4:5]}
    street = 0
    # Round bets, to tell an all-in that raises from one that only calls.
    bets = dict.fromkeys(seats, 0)
    # The blinds as dealt (PHH's p1 and p2; heads-up the dealer, listed last, posts
    # the small blind). Not the game's roles at the end: an escape shifts those.
    sb, bb = (seats[1], seats[0]) if len(seats) == 2 else (seats[0], seats[1])
    bets[sb] = min(base // 2, record["start_stacks"][sb])
    bets[bb] = min(base, record["start_stacks"][bb])
    names = ("preflop", "flop", "turn", "river")
    for a in record["actions"]:
        s = names.index(a["street"])
        while street < s:
            street += 1
            actions.append(f"d db {format_cards(street_cards[street], sep='')}")
            bets = dict.fromkeys(seats, 0)
        p = f"p{index[a['seat']]}"
        cur = max(bets.values())
        if a["action"] == "fold":
            actions.append(f"{p} f")
        elif a["action"] in ("check", "call"):
            actions.append(f"{p} cc")
            bets[a["seat"]] += a["amount"]
        elif a["action"] == "all_in" and a["to"] <= cur:
            actions.append(f"{p} cc")
            bets[a["seat"]] = a["to"]
        else:
            actions.append(f"{p} cbr {a['to']}")
            bets[a["seat"]] = a["to"]
    while street < 3 and len(board) >= {0: 3, 1: 4, 2: 5}[street]:
        street += 1
        actions.append(f"d db {format_cards(street_cards[street], sep='')}")
    # RULES.md §3: hands are shown from the dealer clockwise.
    n = len(record["seated"])
    for i in range(n):
        q = (record["button"] + i) % n
        if game.state[K.RANK + q] >= 0:
            actions.append(f"p{index[q]} sm {game.hole_cards(q).replace(' ', '')}")
    blinds = [0] * len(seats)
    blinds[0], blinds[1] = base // 2, base
    lines = [
        'variant = "NT"',
        "ante_trimming_status = true",
        f"antes = {_toml_list([0] * len(seats))}",
        f"blinds_or_straddles = {_toml_list(blinds)}",
        f"min_bet = {base}",
        f"starting_stacks = {_toml_list([record['start_stacks'][q] for q in seats])}",
        f"actions = {_toml_list(actions)}",
        # What the hand came to: from_phh (and PokerKit) check it against the replay.
        *(
            [f"finishing_stacks = {_toml_list([game.stacks()[q] for q in seats])}"]
            if game.is_hand_over
            else []
        ),
        f"seats = {_toml_list([q + 1 for q in seats])}",
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- import

_REQUIRED = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
_ALLOWED_ACTIONS = (
    "'d dh pK CARDS', 'd db CARDS', 'pK f', 'pK cc', 'pK cbr AMOUNT', 'pK sm [CARDS | -]',"
    " each with an optional '# comment'"
)


_MAX_CHIPS = 10**15  # a stack or an amount; sums of ten stay far inside int64


def _is_count(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 16


def _integer(value: Any, what: str) -> int:
    # PHH allows floats; chips here are integers.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise HistoryError(what, f"PHH {what} = {value!r}: allowed: a whole number of chips")
    return value


def _chips(data: dict[str, Any], key: str, n: int) -> list[int]:
    value = data[key]
    if not isinstance(value, list) or len(value) > n:
        raise HistoryError(key, f"PHH {key} = {value!r}: allowed: a list of at most {n} numbers")
    out = [_integer(v, f"{key}[{i}]") for i, v in enumerate(value)]
    return out + [0] * (n - len(out))


def _load_table(text: str) -> tuple[dict[str, Any], int, list[int]]:
    """The parsed TOML, the big blind E and the starting stacks (checked)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 reads TOML with the tomli backport
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HistoryError("text", f"PHH text is not valid TOML: {exc}") from exc
    except RecursionError:
        raise HistoryError("text", "PHH text nests its arrays too deeply") from None
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise HistoryError(
            missing[0], f"PHH lacks the fields {missing}; variant 'NT' needs {list(_REQUIRED)}"
        )
    if data["variant"] != "NT":
        raise HistoryError(
            "variant",
            f"PHH variant {data['variant']!r} is not supported; allowed: 'NT'"
            " (no-limit Texas hold'em)",
        )
    raw = data["starting_stacks"]
    if not isinstance(raw, list) or not 2 <= len(raw) <= K.MAX_SEATS:
        raise HistoryError(
            "starting_stacks",
            f"PHH starting_stacks = {raw!r}: allowed: a list of 2 to {K.MAX_SEATS} stacks",
        )
    n = len(raw)
    stacks = [_integer(v, f"starting_stacks[{i}]") for i, v in enumerate(raw)]
    if not all(1 <= x <= _MAX_CHIPS for x in stacks):
        raise HistoryError(
            "starting_stacks",
            f"PHH starting_stacks = {stacks}: allowed: stacks of 1 to {_MAX_CHIPS} chips",
        )
    antes = _chips(data, "antes", n)
    if any(antes):
        raise HistoryError(
            "antes", f"PHH antes = {antes}: antes are not supported; allowed: all zero"
        )
    blinds = _chips(data, "blinds_or_straddles", n)
    big = blinds[1]
    if big < 2 or big > _MAX_CHIPS or big % 2 or blinds[0] != big // 2 or any(blinds[2:]):
        raise HistoryError(
            "blinds_or_straddles",
            f"PHH blinds_or_straddles = {blinds}: allowed: [E/2, E, 0, ...] with E even and"
            f" from 2 to {_MAX_CHIPS} (no straddles)",
        )
    min_bet = _integer(data["min_bet"], "min_bet")
    if min_bet != big:
        raise HistoryError("min_bet", f"PHH min_bet = {min_bet}: allowed: the big blind ({big})")
    if not isinstance(data["actions"], list) or not all(
        isinstance(a, str) for a in data["actions"]
    ):
        raise HistoryError("actions", "PHH actions: allowed: a list of strings")
    return data, big, stacks


class _Action:
    """One PHH action string: its kind, player and cards (the '# comment' dropped)."""

    def __init__(self, index: int, text: str, n: int) -> None:
        self.index = index
        self.text = text
        self.kind = ""  # "" for a no-op, else dh, db, f, cc, cbr, sm
        self.player = -1
        self.cards: list[int] = []
        self.amount = 0
        self.is_muck = False
        w = text.split("#", 1)[0].split()
        if not w:
            return
        if len(w) == 4 and w[:2] == ["d", "dh"]:
            self.kind, label, self.cards = "dh", w[2], self._cards(w[3])
        elif len(w) == 3 and w[:2] == ["d", "db"]:
            self.kind, label, self.cards = "db", "", self._cards(w[2])
        elif (len(w) == 2 and w[1] in ("f", "cc", "sm")) or (len(w) == 3 and w[1] in ("cbr", "sm")):
            self.kind, label = w[1], w[0]
        else:
            raise self.error("unknown action", _ALLOWED_ACTIONS)
        if self.kind == "cbr":
            if not _is_count(w[2]):
                raise self.error(f"bad amount {w[2]!r}", "a whole number of chips")
            self.amount = int(w[2])
        if self.kind == "sm":
            self.is_muck = len(w) == 2
            if len(w) == 3 and w[2] != "-":
                self.cards = self._cards(w[2])
        if label:
            k = label[1:]
            if label[:1] != "p" or not _is_count(k) or not 1 <= int(k) <= n:
                raise self.error(f"unknown player {label!r}", f"p1..p{n}")
            self.player = int(k) - 1

    def error(self, why: str, allowed: str) -> HistoryError:
        return HistoryError(
            f"actions[{self.index}]",
            f"PHH action {self.index} {self.text!r}: {why}; allowed: {allowed}",
        )

    def _cards(self, text: str) -> list[int]:
        if "?" in text:
            raise self.error(
                f"unknown cards {text!r}", "known cards only (this engine deals every card)"
            )
        try:
            return [int(c) for c in parse_cards(text)]
        except ValueError as exc:
            raise self.error(str(exc), "cards such as 'AsTd'") from None


def _parse_actions(texts: list[str], n: int) -> tuple[list[_Action], list[list[int]], list[int]]:
    """The actions, each player's hole cards and the board, all checked for consistency."""
    actions = [_Action(i, t, n) for i, t in enumerate(texts)]
    holes: list[list[int]] = [[] for _ in range(n)]
    board: list[int] = []
    seen: dict[int, str] = {}
    is_betting = False
    for a in actions:
        if a.kind in ("f", "cc", "cbr"):
            is_betting = True
        elif a.kind == "dh":
            if is_betting:
                raise a.error("hole cards dealt after the betting started", "dealing first")
            holes[a.player] += a.cards
            if len(holes[a.player]) > 2:
                raise a.error(f"p{a.player + 1} gets more than two hole cards", "two each")
        elif a.kind == "db":
            board += a.cards
            if len(board) > 5:
                raise a.error("more than five board cards", "flop 3, turn 1, river 1")
        if a.kind in ("dh", "db"):
            for c in a.cards:
                if c in seen:
                    raise a.error(
                        f"card {format_cards([c])} dealt twice (first in {seen[c]!r})",
                        "each card once",
                    )
                seen[c] = a.text
    for q in range(n):
        if len(holes[q]) != 2:
            raise HistoryError(
                "actions",
                f"PHH deals p{q + 1} {len(holes[q])} hole cards; allowed: two known cards"
                f" each ('d dh p{q + 1} AsKs')",
            )
    return actions, holes, board


def _deck(holes: list[list[int]], board: list[int]) -> list[int]:
    """The 52-card order that deals ``holes`` and ``board`` with the dealer at the last seat.

    RULES.md §3: one card at a time from the small blind (heads-up the dealer,
    seat 1; else seat 0). Board cards the history never shows are the unused
    cards in index order (the hand ended before they were needed).
    """
    n = len(holes)
    order = [1, 0] if n == 2 else list(range(n))
    deck = [holes[q][r] for r in range(2) for q in order] + board
    used = set(deck)
    return deck + [c for c in range(52) if c not in used]


def _check_mucks(state: NDArray[np.int64], mucked: list[_Action]) -> None:
    """A mucked hand must win nothing from another player (this engine shows every hand).

    Pays the pots again with the mucked hands ranked below every hand: a pot that
    only a mucking player contests (chips nobody matched) still comes back to him.
    """
    s = state.copy()
    n = int(s[K.NUM_SEATS])
    for q in range(n):
        s[K.STACK + q] -= s[K.WON + q]
        s[K.WON + q] = 0
    for a in mucked:
        s[K.RANK + a.player] = -1
    K.distribute(s)
    for a in mucked:
        q = a.player
        if s[K.WON + q] != state[K.WON + q]:
            raise a.error(
                f"p{q + 1} mucks a hand that wins {state[K.WON + q] - s[K.WON + q]} chips"
                " from other players",
                "mucking a hand that wins no pot (this engine shows every hand at showdown)",
            )


def from_phh(text: str) -> HoldemGame:
    """Play a PHH no-limit Texas Hold'em history again in this engine (``rules="standard"``).

    Players ``p1..pN`` sit at seats ``0..N-1`` with the dealer at seat ``N-1``,
    so ``game.stacks()`` lists the final stacks in PHH player order. Fields other
    than the required ones (``seats``, ``players``, ``event``, ...) are ignored,
    except ``finishing_stacks``, which must agree with the result when given.

    Raises:
        HistoryError: (a ``ValueError``) naming the field at fault (``field``:
            ``"actions[3]"``, ``"starting_stacks"``, ...), what was wrong and what is
            allowed, for text that is not TOML or lacks a required field, a history this
            engine cannot express (a variant other than ``"NT"``, antes, straddles,
            ``min_bet`` other than the big blind, unknown ``????`` or missing hole
            cards, a card dealt twice, an unknown action), an action the engine
            refuses, a board that does not match the streets, a shown hand that is
            not the one dealt, or an incomplete history.
    """

    if not isinstance(text, str):
        raise HistoryError("text", f"a {type(text).__name__}; allowed: PHH text (a str)")
    data, big, stacks = _load_table(text)
    n = len(stacks)
    actions, holes, board = _parse_actions(data["actions"], n)
    game = HoldemGame(HoldemConfig(num_seats=n, base=big, rules="standard"), rng=0)
    for q in range(n):
        game.state[K.STACK + q] = stacks[q]
    game.start_hand(deck=np.array(_deck(holes, board), dtype=np.int64), button=n - 1)
    dealt = 0  # board cards dealt so far by the history
    shown: list[_Action] = []
    for a in actions:
        num_board = int(game.state[K.NUM_BOARD])
        if a.kind in ("", "dh"):
            continue
        if a.kind == "db":
            dealt += len(a.cards)
            if dealt > num_board:
                why = (
                    f"p{game.to_act + 1} is to act on the {game.street}"
                    if game.phase == "betting"
                    else "the hand was decided before this street"
                )
                raise a.error(f"board dealt too early ({why})", f"{num_board} board cards so far")
            continue
        if a.kind == "sm":
            if game.phase == "betting":
                raise a.error(
                    "a hand shown while the betting is open",
                    f"p{game.to_act + 1} acts first: {game.legal_actions().names()}",
                )
            shown.append(a)
            continue
        if game.phase != "betting":
            raise a.error("an action after the betting ended", "'d db' and 'sm' only")
        if a.player != game.to_act:
            raise a.error(f"not p{a.player + 1}'s turn", f"p{game.to_act + 1} to act")
        if dealt != num_board:
            raise a.error(
                f"a bet on the {game.street} before its board cards were dealt",
                f"'d db' with the {game.street} first",
            )
        legal = game.legal_actions()
        if a.kind == "f":
            if not legal.can_fold:
                raise a.error(
                    "a fold with nothing to call (a free check exists)", str(legal.names())
                )
            game.fold()
        elif a.kind == "cc":
            game.check_or_call()
        elif game.can_raise_to(a.amount):
            game.raise_to(a.amount)
        elif legal.can_all_in and not legal.all_in_is_call and a.amount == legal.all_in_to:
            game.all_in()  # an all-in short of a full raise
        else:
            raise a.error(f"bet or raise to {a.amount} refused", str(legal.names()))
    if game.phase == "betting":
        raise HistoryError(
            "actions",
            f"PHH history ends before the hand is decided: p{game.to_act + 1} is to act on the"
            f" {game.street}; allowed: complete hands only",
        )
    is_showdown = any(int(game.state[K.RANK + q]) >= 0 for q in range(n))
    if is_showdown and dealt != 5:
        raise HistoryError(
            "actions",
            f"PHH hand reaches showdown with {dealt} board cards dealt; allowed: all five",
        )
    mucked = []
    for a in shown:
        q = a.player
        if int(game.state[K.RANK + q]) < 0:
            raise a.error(f"p{q + 1} is not in a showdown", "players still in at showdown")
        if a.cards and sorted(a.cards) != sorted(holes[q]):
            raise a.error(f"p{q + 1} was dealt {format_cards(holes[q], sep='')}", "those cards")
        if a.is_muck:
            mucked.append(a)
    if mucked:
        _check_mucks(game.state, mucked)
    if "finishing_stacks" in data:
        expected = _chips(data, "finishing_stacks", n)
        if expected != game.stacks():
            raise HistoryError(
                "finishing_stacks",
                f"PHH finishing_stacks = {expected} but the hand ends with {game.stacks()}"
                " (a tampered or truncated history)",
            )
    return game
