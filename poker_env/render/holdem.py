"""The Hold'em table from one seat's view: the picture (``render_mode="rgb_array"``) and the text (``"ansi"``).

Over the one canvas (:mod:`poker_env.render.canvas`): other hole cards face down until
a showdown, the board, the pot, each seat's stack, bet and role.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards, parse_cards
from poker_env.episode.holdem import AGENT
from poker_env.evaluator import describe_hand, hand_name
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import STREET_NAMES
from poker_env.render import canvas as P

if TYPE_CHECKING:
    from poker_env.episode.holdem_result import HandResult

__all__ = ["holdem_aec_text", "holdem_picture", "holdem_text"]


# ============================================================================ hold'em
_STATUS_WORDS = {
    K.EMPTY: "",
    K.SEATED: "waiting",
    K.ACTIVE: "",
    K.ALLIN: "all-in",
    K.FOLDED: "folded",
    K.LEFT: "left",
}
_STREETS = ("preflop", "flop", "turn", "river")
_ROLE_COLORS: dict[str, tuple[P.Color, P.Color]] = {
    "D": (P.CARD_FACE, P.BLACK_SUIT),
    "SB": ((60, 120, 210), P.CARD_FACE),
    "BB": ((214, 128, 40), P.CARD_FACE),
}


def holdem_picture(
    s: NDArray[np.int64],
    num_players: int,
    seat: int,
    *,
    show_all: bool = False,
    hands_left: int | None = None,
    last: HandResult | None = None,
) -> P.Image:
    """The Hold'em table as ``seat`` sees it (RULES.md §3).

    Shows every seat's stack, status (folded, all-in, left), bet this street as
    chips, the dealer button and blinds, whose turn, the board and the pot;
    ``seat``'s hole cards face up, others' face down until shown down; when the
    hand is over, the hands shown with their names and what each seat won.

    Args:
        s: the table row (layout :mod:`poker_env.games.holdem_kernels`).
        num_players: seats at the table.
        seat: the viewing seat (at the bottom of the picture).
        show_all: draw every hole card face up (a spectator's view).
        hands_left: hands left in the episode, written in the header when given.
        last: the episode's last decided hand (the envs' ``HandResult``), shown in a
            box under the board while the next hand runs (RULES.md §3: the hands shown
            down, named, and the pots paid).
    """
    img = P.table_felt(P.HEIGHT, P.WIDTH, (8, 34, 792, 552))
    n = int(num_players)
    phase = int(s[K.PHASE])
    over = phase != K.PHASE_BETTING
    street = int(s[K.STREET])
    board = [int(c) for c in s[K.BOARD : K.BOARD + int(s[K.NUM_BOARD])]]
    pot = int(s[K.COMMIT : K.COMMIT + K.MAX_SEATS].sum() + s[K.POT_EXTRA]) if not over else 0
    to_act = int(s[K.TO_ACT]) if not over else -1

    P.draw_text(img, 12, P.HEADER_Y, f"Texas Hold'em   {n} seats", P.TEXT, 2)
    head = "hand over" if over else _STREETS[street]
    if hands_left is not None:
        head += f"   hands left {hands_left}"
    P.draw_text(img, P.WIDTH - 12, P.HEADER_Y, head, P.GOLD, 2, align="right")

    # Board and pot in the middle.
    x = 400 - (5 * 44 + 4 * 6) // 2
    for i in range(5):
        if i < len(board):
            P.draw_card(img, x, 226, board[i], "M")
        else:
            P.draw_card_slot(img, x, 226, "M")
        x += 50
    if pot:
        P.draw_chips(img, 370, 216, pot, label=False, most=10)
        P.draw_text(img, 392, 198, f"Pot {pot}", P.GOLD, 2, shadow=True)
    if last is not None and not over:
        _holdem_last_box(img, last, -1 if show_all else seat)

    centres = P.seat_centres(n, seat, 400, 282, 318, 196, gap=40)
    for q in range(n):
        _holdem_seat(img, s, q, centres[q], seat, to_act, over, show_all)

    if over:
        winners = [(q, int(s[K.WON + q])) for q in range(n) if int(s[K.WON + q]) > 0]
        if winners:
            parts = []
            for q, amount in winners:
                name = "You" if q == seat and not show_all else f"Seat {q}"
                rank = int(s[K.RANK + q])
                # The category here; the seat's label below its cards names it in full.
                how = f" with {hand_name(rank)}" if rank >= 0 else ""
                parts.append((f"{name} won {amount}{how}", P.WIN if q == seat else P.GOLD))
            P.banner(img, 298, parts[:3], 150, 650)
    return img


def _holdem_last_box(img: P.Image, last: HandResult, seat: int) -> None:
    def name(q: int) -> str:
        return "You" if q == seat else f"Seat {q}"

    won = [r for r in last.seats if r.won > 0]
    if len(won) == 1:
        r = won[0]
        head = f"{name(r.seat)} won {r.won}" + (f": {r.name}" if r.name else "")
    else:
        head = f"{', '.join(name(r.seat) for r in won)} split {last.pot}"
    shown = list(last.shown)[:3]
    h = 32 + 22 * len(shown)
    P.blend_rect(img, 210, 298, 380, h, (40, 30, 8), 0.8, 8)
    P.draw_text(img, 220, 305, P.fit(f"Hand {last.hand}: {head}", 360, 2), P.GOLD, 2)
    y = 328
    for r in shown:
        x = 220
        x += P.draw_text(img, x, y + 6, name(r.seat), P.TEXT, 1) + 6
        for c in parse_cards(r.cards or ""):
            x += P.draw_mini_card(img, x, y, int(c)) + 2
        P.draw_text(img, x + 4, y + 6, P.fit(r.description or "", 580 - x, 1), P.TEXT, 1)
        y += 22


def _holdem_seat(
    img: P.Image,
    s: NDArray[np.int64],
    q: int,
    centre: tuple[int, int],
    seat: int,
    to_act: int,
    over: bool,
    show_all: bool,
) -> None:
    x, y = centre
    status = int(s[K.STATUS + q])
    # After the hand (PHASE_OVER, or closed: PHASE_IDLE) a seat busted by it is
    # EMPTY but played the hand: it keeps its panel and shown cards.
    played = over and int(s[K.START_STACK + q]) > 0
    if status == K.EMPTY and not played:
        return
    me = q == seat
    pw, ph = 128, 44
    px, py = x - pw // 2, y - 4
    P.panel(img, px, py, pw, ph, glow=q == to_act)
    # A spectator's view (show_all) has no "you": the bottom seat is the one to act.
    name = "You" if me and not show_all else f"Seat {q}"
    faded = status in (K.FOLDED, K.LEFT, K.EMPTY) or (status == K.SEATED and not over)
    P.draw_text(img, px + 6, py + 6, name, P.DIM if faded else P.TEXT, 2)
    P.draw_text(img, px + 6, py + 26, f"{int(s[K.STACK + q])}", P.GOLD, 2)
    word = _STATUS_WORDS.get(status, "") if not over else ("out" if status == K.EMPTY else "")
    if over and int(s[K.WON + q]) > 0:
        word = f"+{int(s[K.WON + q])}"
    if word:
        color = P.WIN if word[0] == "+" else P.DIM
        P.draw_text(img, px + pw - 6, py + 28, word, color, 1, align="right")
    role = "D" if q == s[K.BUTTON] else ("SB" if q == s[K.SB] else ("BB" if q == s[K.BB] else ""))
    if role:
        fill, ink = _ROLE_COLORS[role]
        P.draw_button(img, px + pw - 14, py + 13, role, fill, ink)
    # Hole cards above the panel: own, shown down (RULES.md §3 showdown), or backs
    # for a seat still in the hand.
    if int(s[K.HOLE + 2 * q]) >= 0:
        shown = int(s[K.RANK + q]) >= 0
        up = me or shown or show_all
        in_hand = status in (K.ACTIVE, K.ALLIN) and not over
        if (up and (over or status != K.EMPTY)) or in_hand:
            cards = [int(s[K.HOLE + 2 * q]), int(s[K.HOLE + 2 * q + 1])]
            size = "M" if me else "S"
            cy = py - (66 if me else 48)
            dim = status == K.FOLDED or (status == K.LEFT)
            P.hand_row(img, x, cy, cards, size, face_up=up, gap=4, dim=dim)
        if over and shown:
            name_y = py + ph + 3
            text = P.fit(describe_hand(int(s[K.RANK + q])), 180, 1)
            P.draw_text(img, x, name_y, text, P.TEXT, 1, align="center", shadow=True)
    # This street's bet, as chips towards the middle.
    bet = int(s[K.BET + q])
    if bet > 0 and not over:
        if me:
            bx, by = x + 84, py - 12  # beside the viewer's own cards, not over them
        else:
            bx = int(x + (400 - x) * 0.42)
            by = int(py + ph // 2 + (282 - y) * 0.42)
        P.draw_chips(img, bx, by, bet)


def holdem_text(s: NDArray[np.integer], num_players: int, last: HandResult | None) -> str:
    """The table row ``s`` from its agent's seat as text (``render_mode="ansi"``): the
    running hand (or the episode's end), then the last decided hand ``last`` of the
    episode with its shown hands, names and payouts."""
    agent = int(s[AGENT])
    board = format_cards(s[K.BOARD : K.BOARD + s[K.NUM_BOARD]]) or "-"
    # The env returns at the agent's decision or at the episode's end only.
    over = s[K.PHASE] != K.PHASE_BETTING
    if over:
        lines = ["episode over"]
    else:
        pot = int(s[K.COMMIT : K.COMMIT + K.MAX_SEATS].sum() + s[K.POT_EXTRA])
        lines = [f"{STREET_NAMES[int(s[K.STREET])]}  board: {board}  pot: {pot}"]
    names = {
        K.EMPTY: "empty",
        K.SEATED: "waiting",
        K.ACTIVE: "in",
        K.ALLIN: "all-in",
        K.FOLDED: "folded",
        K.LEFT: "left",
    }
    for q in range(num_players):
        role = (
            "D" if q == s[K.BUTTON] else ("SB" if q == s[K.SB] else ("BB" if q == s[K.BB] else ""))
        )
        # Only the agent's own hole cards: others' are public once shown down
        # (RULES.md §3 showdown), which the hand's result below lists.
        cards = (
            format_cards(s[K.HOLE + 2 * q : K.HOLE + 2 * q + 2])
            if q == agent and s[K.HOLE + 2 * q] >= 0
            else "?? ??"
        )
        mark = ">" if q == s[K.TO_ACT] and not over else " "
        bet = f"  bet {int(s[K.BET + q])}" if not over else ""
        lines.append(
            f"{mark} seat {q}{' (you)' if q == agent else ''} {role:<2} {cards}"
            f"  stack {int(s[K.STACK + q])}{bet}  {names[int(s[K.STATUS + q])]}"
        )
    if last is not None:
        # RULES.md §3: the hands shown at the showdown, named, and the pots paid.
        lines.append("")
        lines.extend(last.lines(agent=agent))
    return "\n".join(lines)


def holdem_aec_text(s: NDArray[np.integer], names: Sequence[str], last: HandResult | None) -> str:
    """The table row ``s`` as the multi-agent env shows it (``render_mode="ansi"``):
    the street and board, every seat (one per name in ``names``) with its hole cards,
    stack and bet, then the last decided hand ``last`` with its shown hands, names and
    payouts."""
    board = format_cards(s[K.BOARD : K.BOARD + s[K.NUM_BOARD]]) or "-"
    lines = [f"{STREET_NAMES[int(s[K.STREET])]}  board: {board}"]
    for q, a in enumerate(names):
        cards = (
            format_cards(s[K.HOLE + 2 * q : K.HOLE + 2 * q + 2]) if s[K.HOLE + 2 * q] >= 0 else "-"
        )
        lines.append(
            f"{'>' if q == s[K.TO_ACT] else ' '} {a}: {cards}"
            f"  stack {int(s[K.STACK + q])}  bet {int(s[K.BET + q])}"
        )
    if last is not None:
        # RULES.md §3: the hands shown at the showdown, named, and the pots paid.
        lines.append("")
        lines.extend(last.lines(names=list(names)))
    return "\n".join(lines)
