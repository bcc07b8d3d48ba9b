"""Export Hold'em hands to PHH, the open poker hand history format PokerKit reads.

PHH lists players from the seat after the dealer clockwise (``p1`` = small
blind, the dealer last; heads-up ``p1`` is the big blind and PokerKit swaps the
blinds itself), so ``blinds_or_straddles = [E/2, E, 0, ...]`` always. Actions:
``d dh pK CARDS`` (hole cards), ``d db CARDS`` (board), ``pK f`` (fold),
``pK cc`` (check/call), ``pK cbr N`` (bet or raise to N this round), ``pK sm CARDS`` (shown at showdown).

A ``rules="standard"`` hand without escapes and without ``max_bet`` is plain
no-limit Hold'em: PokerKit replays it to the same stacks (tested). The seed
profile's skipped rounds, the cap and escapes have no PHH form: such hands are
refused with ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from poker_env.cards import format_cards
from poker_env.games import holdem_kernels as K

__all__ = ["phh_player_seats", "to_phh"]


def phh_player_seats(record: dict[str, Any]) -> list[int]:
    """Seats in PHH player order: from the seat after the dealer clockwise, the dealer last."""
    n = len(record["seated"])
    dealt = [q for q in range(n) if record["seated"][q] and record["start_stacks"][q] > 0]
    button = record["button"]
    return sorted(dealt, key=lambda q: (q - button - 1) % n)


def _toml_list(values: list[Any]) -> str:
    return "[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v).lower() for v in values) + "]"


def to_phh(record: dict[str, Any]) -> str:
    """PHH text of a hand record from :meth:`poker_env.games.holdem.HoldemGame.hand_record`.

    Raises:
        ValueError: for hands PHH cannot express (seed profile, ``max_bet``, escapes).
    """
    from poker_env.games.holdem import replay_json

    cfg = record["config"]
    if cfg["rules"] != "standard" or cfg["max_bet"] is not None:
        raise ValueError(
            "PHH export needs rules='standard' and max_bet=None (plain no-limit Hold'em)"
        )
    if any(a["action"] == "leave" for a in record["actions"]):
        raise ValueError("PHH has no form for a player leaving mid-hand (escape)")
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
    sb, bb = game.small_blind, game.big_blind
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
        f"seats = {_toml_list([q + 1 for q in seats])}",
    ]
    return "\n".join(lines) + "\n"
