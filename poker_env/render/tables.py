"""Pictures of each game's table, from one seat's view (``render_mode="rgb_array"``).

The Gymnasium envs and the PettingZoo AEC envs call these with the same state their
text renders read; the drawing pieces are :mod:`poker_env.render.canvas`. A picture is an
``(HEIGHT, WIDTH, 3)`` uint8 array showing only what the viewing seat may know:
other players' cards are drawn face down until the rules make them public (a
showdown, a card shown in Red Dog), so a picture never leaks a hidden card.
No gymnasium import here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import parse_cards
from poker_env.evaluator import describe_hand, hand_name
from poker_env.games import draw_layout as L
from poker_env.games import holdem_kernels as K
from poker_env.games.draw import DrawConfig
from poker_env.games.red_dog import (
    F_SEATED,
    I_DEALER,
    I_DEALS_DONE,
    I_HAND_SIZE,
    I_NUM_PLAYERS,
    I_PHASE,
    I_POT,
    I_ROUNDS,
    I_TO_ACT,
    PHASE_OVER,
    PUB_SHOWN,
    PUB_TURNED,
    RedDogState,
)
from poker_env.games.red_dog_kernels import (
    E_AMOUNT,
    E_KIND,
    E_REANTE,
    E_SEAT,
    E_TURNED,
    E_WON,
    KIND_FORFEIT,
)
from poker_env.games.wardrobe import wardrobe_state
from poker_env.render import canvas as P

if TYPE_CHECKING:
    from poker_env.episode.holdem_result import HandResult

__all__ = ["HEIGHT", "WIDTH", "draw_picture", "holdem_picture", "red_dog_picture"]

#: Size of every table picture: multiples of 16, so video encoders keep it as it is.
HEIGHT = 560
WIDTH = 800

_HEADER_Y = 8
_PANEL: P.Color = (10, 16, 14)
_PANEL_ALPHA = 0.62
_TURN: P.Color = P.GOLD
_WIN: P.Color = (120, 230, 140)
_LOSS: P.Color = (250, 120, 110)
_TAG_WORN: P.Color = (226, 226, 216)
_TAG_STAKE: P.Color = P.GOLD
_TAG_LOST: P.Color = (150, 60, 60)


def _panel(img: P.Image, x: int, y: int, w: int, h: int, *, glow: bool = False) -> None:
    # A translucent box for a seat's name and chips; a gold frame when the seat is to act.
    if glow:
        P.blend_rect(img, x - 3, y - 3, w + 6, h + 6, _TURN, 0.95, 9)
    P.blend_rect(img, x, y, w, h, _PANEL, _PANEL_ALPHA if not glow else 0.9, 7)


def _banner(
    img: P.Image, y: int, lines: Sequence[tuple[str, P.Color]], x0: int = 0, x1: int = WIDTH
) -> None:
    # A dark strip across the table with centred lines (a hand's result).
    h = 10 + 22 * len(lines)
    P.blend_rect(img, x0 + 20, y, x1 - x0 - 40, h, (0, 0, 0), 0.72, 10)
    for i, (text, color) in enumerate(lines):
        fitted = _fit(text, x1 - x0 - 56, 2)
        P.draw_text(img, (x0 + x1) // 2, y + 7 + 22 * i, fitted, color, 2, align="center")


def _fit(text: str, width: int, scale: int) -> str:
    # Cut a line that would run past `width` pixels (with an ellipsis mark).
    most = (width + scale) // (6 * scale)
    return text if len(text) <= most else text[: max(0, most - 2)] + ".."


def _hand_row(
    img: P.Image,
    cx: int,
    y: int,
    cards: Sequence[int] | NDArray[np.int64],
    size: str,
    *,
    face_up: bool = True,
    gap: int = 6,
    dim: bool = False,
) -> None:
    # Cards side by side, centred on cx; backs when not face up.
    w, _ = P.card_size(size)
    total = len(cards) * w + (len(cards) - 1) * gap
    x = cx - total // 2
    for c in cards:
        if face_up:
            P.draw_card(img, x, y, int(c), size, dim=dim)
        else:
            P.draw_card_back(img, x, y, size)
        x += w + gap


# ============================================================================ draw
_DRAW_PHASES = (
    "before the draw",
    "the draw",
    "after the draw",
    "hand over",
    "buy-back",
    "match over",
)
# The seed's action words as verbs (RULES.md §1), for "you" and for "she / he".
_DRAW_VERBS = (
    ("bet", "bets"),
    ("stay", "stays"),
    ("drop", "drops"),
    ("raise", "raises"),
    ("draw", "draws"),
    ("call", "calls"),
    ("take", "takes"),
    ("buy back", "buys back"),
    ("pass on buy-back", "passes on buy-back"),
)


def _draw_action_text(who: str, kind: int, amount: int) -> str:
    if kind == L.K_SKIP_BUY_BACK:
        return f"{who}: no buy-back"
    verb = _DRAW_VERBS[kind][0 if who == "You" else 1]
    if kind == L.K_DISCARD:
        return (
            f"{who} {verb} {amount} new"
            if amount
            else f"{who} {'stand' if who == 'You' else 'stands'} pat"
        )
    if kind == L.K_DRAW and amount:
        # DRAW after a bet calls it (RULES.md §1: "DRAW" = call and go to the draw).
        return f"{who} {'call' if who == 'You' else 'calls'} {amount}"
    if kind in (L.K_BET, L.K_RAISE, L.K_CALL) and amount:
        return f"{who} {verb} {amount}"
    return f"{who} {verb}"


def draw_picture(
    s: NDArray[np.int64], config: DrawConfig, seat: int, last: Mapping[str, Any] | None = None
) -> P.Image:
    """The five-card draw table as ``seat`` sees it (RULES.md §1).

    Shows both players' money, the pot and this round's bets as chips, ``seat``'s
    cards face up (the other's face down until a showdown shows them), cards
    drawn, the computer's wardrobe (worn / at stake / lost), this hand's actions,
    whose turn it is, and a finished hand's result with both hands' names.

    Args:
        s: the table row (layout :mod:`poker_env.games.draw_layout`).
        config: the rules the table plays (wardrobe names, deck).
        seat: the viewing seat, 0 (the human side) or 1 (the computer).
        last: the latest hand that ended (the envs' ``info["last_hand"]`` dict), shown
            in a box while the next hand runs; ignored while the row itself shows a
            finished hand.
    """
    img = P.table_felt(HEIGHT, WIDTH, (8, 34, 552, 552))
    other = 1 - seat
    phase = int(s[L.S_PHASE])
    names = ("Player", "Computer")
    them = names[other]
    who = {seat: "You", other: "She" if other == L.COMPUTER else "He"}
    result = int(s[L.S_RESULT])
    how = int(s[L.S_HOW])
    over = phase in (L.PH_HAND_END, L.PH_BUY_BACK, L.PH_MATCH_END) and result != L.RES_NONE
    # RULES.md §1: at a showdown (CALL, "see her cards") both hands are shown.
    # The ranks are set at a showdown only and cleared by the next deal.
    shown = int(s[L.S_RANK + other]) >= 0

    # Header on the room above the table.
    P.draw_text(img, 12, _HEADER_Y, f"Five-card draw   hand {int(s[L.S_HAND_NO])}", P.TEXT, 2)
    P.draw_text(img, WIDTH - 12, _HEADER_Y, _DRAW_PHASES[phase], P.GOLD, 2, align="right")

    to_act = (
        int(s[L.S_TO_ACT])
        if phase in (L.PH_PRE_DRAW, L.PH_DRAW, L.PH_POST_DRAW, L.PH_BUY_BACK)
        else -1
    )
    cx = 280
    # The other seat, at the top.
    _panel(img, cx - 150, 46, 300, 26, glow=to_act == other)
    P.draw_text(img, cx - 140, 52, f"{them}  {int(s[L.S_STACK + other])} chips", P.TEXT, 2)
    if s[L.S_FIRST] == other:
        P.draw_button(img, cx + 128, 59, "1st")
    opp_cards = s[L.S_HANDS + 5 * other : L.S_HANDS + 5 * other + 5]
    _hand_row(img, cx, 80, opp_cards, "M", face_up=shown)
    drew = int(s[L.S_DRAWN + other])
    notes: list[str] = []
    if drew >= 0:
        notes.append(f"drew {drew}")
    if shown:
        notes.append(describe_hand(int(s[L.S_RANK + other])))
    if notes:
        P.draw_text(img, cx, 148, "  ".join(notes), P.TEXT, 2, align="center", shadow=True)
    if not over:
        P.draw_chips(img, cx, 200, int(s[L.S_BET + other]))

    # The pot in the middle.
    pot = int(s[L.S_POT])
    if pot or not over:
        P.draw_chips(img, cx - 40, 300, pot, label=False, most=10)
        P.draw_text(img, cx - 8, 282, f"Pot {pot}", P.GOLD, 2, shadow=True)

    # This seat, at the bottom: big cards, slot numbers (the draw's discard mask bits).
    if not over:
        P.draw_chips(img, cx, 362, int(s[L.S_BET + seat]))
    own = s[L.S_HANDS + 5 * seat : L.S_HANDS + 5 * seat + 5]
    _hand_row(img, cx, 384, own, "L", gap=8)
    for i in range(5):
        P.draw_text(img, cx - 166 + 30 + 68 * i, 472, str(i + 1), P.TEXT, 1, align="center")
    own_notes: list[str] = []
    if int(s[L.S_DRAWN + seat]) >= 0:
        own_notes.append(f"drew {int(s[L.S_DRAWN + seat])}")
    if int(s[L.S_RANK + seat]) >= 0:
        own_notes.append(describe_hand(int(s[L.S_RANK + seat])))
    if own_notes:
        P.draw_text(img, cx, 484, "  ".join(own_notes), P.TEXT, 2, align="center", shadow=True)
    _panel(img, cx - 150, 506, 300, 26, glow=to_act == seat)
    P.draw_text(img, cx - 140, 512, f"You  {int(s[L.S_STACK + seat])} chips", P.TEXT, 2)
    if s[L.S_FIRST] == seat:
        P.draw_button(img, cx + 128, 519, "1st")

    # The result of a finished hand, across the middle.
    lines: list[tuple[str, P.Color]] = []
    won = int(s[L.S_POT_WON])
    if phase == L.PH_MATCH_END:
        mw = int(s[L.S_MATCH_WINNER])
        lines.append(
            ("Match over: you win it" if mw == seat else f"Match over: {them} wins", P.GOLD)
        )
        if how == L.HOW_ANTE:
            # RULES.md §1 match end: the loser could not pay the next ante.
            lines.append((f"{'You' if mw != seat else them} cannot pay the ante", P.TEXT))
            if won:
                lines.append((f"the pot of {won} goes to the winner", P.TEXT))
    if over and how != L.HOW_ANTE:
        by = {L.HOW_DROP: "after a drop", L.HOW_SHOWDOWN: "at the showdown"}
        if result == L.RES_TIE:
            # RULES.md §1: a tie leaves the pot for the next hand.
            lines.insert(0, (f"Tie: the pot of {pot} carries over", P.GOLD))
        elif result in (0, 1):
            text = "You win" if result == seat else f"{them} wins"
            lines.insert(0, (f"{text} {won} {by.get(how, '')}", _WIN if result == seat else _LOSS))
    if lines:
        _banner(img, 210, lines, 0, 560)

    _draw_sidebar(
        img, s, config, seat, who, to_act, None if over or phase == L.PH_MATCH_END else last
    )
    return img


def _draw_sidebar(
    img: P.Image,
    s: NDArray[np.int64],
    config: DrawConfig,
    seat: int,
    who: dict[int, str],
    to_act: int,
    last: Mapping[str, Any] | None,
) -> None:
    x0, w = 568, 224
    # Her wardrobe (RULES.md §1 clothing stakes): each item worn, at stake or lost.
    ward = wardrobe_state(s, config.wardrobe)
    state_of = {n: 0 for n in ward.worn} | {n: 1 for n in ward.at_stake} | {n: 2 for n in ward.lost}
    items = [(n, state_of[n]) for n in config.wardrobe if n in state_of]
    rows = (len(items) + 1) // 2
    bottom = 40 + 64 + 22 * rows
    P.blend_rect(img, x0, 40, w, bottom - 40, _PANEL, 0.8, 8)
    owner = "Your" if seat == L.COMPUTER else "Her"
    P.draw_text(img, x0 + 10, 48, f"{owner} wardrobe", P.TEXT, 2)
    for i, (name, state) in enumerate(items):
        col, row = i % 2, i // 2
        tx, ty = x0 + 10 + col * 106, 70 + row * 22
        fill = (_TAG_WORN, _TAG_STAKE, _TAG_LOST)[state]
        ink = (30, 30, 30) if state < 2 else (230, 200, 200)
        P.blend_rect(img, tx, ty, 100, 20, fill, 1.0, 5)
        scale = 2 if len(name) <= 8 else 1
        P.draw_text(
            img,
            tx + 50,
            ty + (2 if scale == 2 else 6),
            _fit(name, 96, scale),
            ink,
            scale,
            align="center",
        )
        if state == 2:
            img[ty + 9 : ty + 11, tx + 6 : tx + 94] = (230, 200, 200)  # struck through: lost
    ly = 74 + 22 * rows
    for lx, fill, word in (
        (10, _TAG_WORN, "worn"),
        (62, _TAG_STAKE, "at stake"),
        (132, _TAG_LOST, "lost"),
    ):
        P.blend_rect(img, x0 + lx, ly + 1, 8, 8, fill, 1.0, 2)
        P.draw_text(img, x0 + lx + 12, ly, word, P.TEXT, 1)
    P.draw_text(
        img, x0 + 10, ly + 14, f"item value {config.item_value}   bank {int(s[L.S_BANK])}", P.DIM, 1
    )

    # The last hand that ended (DrawMatch-v0: the row already holds the next one).
    box_top = 552
    if last is not None:
        # Room for both hands at a showdown, else for the result and the items.
        box_h = 172 if last.get("hands") is not None else 96
        box_top = 552 - box_h
        _last_hand_box(img, x0, box_top, w, box_h, last, seat, who)

    # This hand's actions, newest last.
    top = bottom + 10
    P.blend_rect(img, x0, top, w, box_top - 10 - top, _PANEL, 0.8, 8)
    P.draw_text(img, x0 + 10, top + 8, "This hand", P.TEXT, 2)
    n = int(s[L.S_HIST_N])
    lines = [
        _draw_action_text(
            who[int(s[L.S_HIST + 3 * j])],
            int(s[L.S_HIST + 3 * j + 1]),
            int(s[L.S_HIST + 3 * j + 2]),
        )
        for j in range(n)
    ]
    room = max(0, (box_top - 10 - top - 36 - (20 if to_act >= 0 else 0)) // 20)
    shown_lines = lines[-room:] if room else []
    for i, text in enumerate(shown_lines):
        color = P.GOLD if i == len(shown_lines) - 1 else P.TEXT
        P.draw_text(img, x0 + 10, top + 32 + 20 * i, _fit(text, w - 20, 2), color, 2)
    if not lines:
        P.draw_text(img, x0 + 10, top + 32, "-", P.DIM, 2)
    if to_act >= 0:
        turn = "Your turn" if to_act == seat else f"{who[to_act]} acts"
        P.draw_text(img, x0 + 10, box_top - 10 - 24, "\u25b6 " + turn, P.GOLD, 2)


def _last_hand_box(
    img: P.Image,
    x0: int,
    y0: int,
    w: int,
    h: int,
    last: Mapping[str, Any],
    seat: int,
    who: dict[int, str],
) -> None:
    # RULES.md §1: a showdown shows both hands with their names; a tie carries the pot.
    P.blend_rect(img, x0, y0, w, h, (40, 30, 8), 0.85, 8)
    P.draw_text(img, x0 + 10, y0 + 8, f"Last hand ({last['hand_no']})", P.GOLD, 2)
    y = y0 + 30
    winner = last.get("winner")
    pot = int(last.get("pot", 0))
    hands = last.get("hands")
    if hands is not None:
        for q in (seat, 1 - seat):
            x = x0 + 10
            P.draw_text(img, x, y + 4, who[q][:3], P.TEXT, 2)
            x += 40
            for c in parse_cards(hands[q]):
                x += P.draw_mini_card(img, x, y, int(c)) + 2
            names = last.get("hand_names")
            if names is not None:
                P.draw_text(img, x0 + 50, y + 22, _fit(str(names[q]), w - 56, 1), P.DIM, 1)
            y += 36
    if winner is None:
        text, color = f"tie: pot {pot} carries over", P.GOLD
    else:
        verb = "win" if winner == seat else "wins"
        text, color = f"{who[int(winner)]} {verb} {pot}", _WIN if winner == seat else _LOSS
    P.draw_text(img, x0 + 10, y + 2, _fit(text, w - 20, 2), color, 2)
    y += 22
    she = "you" if seat == L.COMPUTER else "she"
    notes = []
    how = str(last.get("how"))
    if how == "drop" and winner is not None:
        loser = who[1 - int(winner)]
        notes.append(f"{loser.lower()} dropped")
    elif how == "ante":
        notes.append("the match ended at the ante")
    if last.get("items_lost"):
        notes.append(f"{she} lost: {', '.join(last['items_lost'])}")
    if last.get("items_redeemed"):
        notes.append(f"{she} redeemed: {', '.join(last['items_redeemed'])}")
    if last.get("item_bought_back"):
        notes.append(f"then {she} bought back the {last['item_bought_back']}")
    for note in notes[: max(0, (y0 + h - y - 4) // 12)]:
        P.draw_text(img, x0 + 10, y + 2, _fit(note, w - 20, 1), P.TEXT, 1)
        y += 12


# ============================================================================ seats
def _seat_centres(
    n: int, viewer: int, cx: float, cy: float, rx: float, ry: float, gap: float = 40.0
) -> list[tuple[int, int]]:
    """Centre of each seat around an oval: ``viewer`` at the bottom, the others
    spread over the rest of the oval (``gap`` degrees kept clear on each side of the
    viewer for the viewer's own cards), clockwise: the next seat sits to the
    viewer's left, as at a real table."""
    out = [(int(cx), int(cy + ry))] * n
    step = (360.0 - 2 * gap) / max(n - 1, 1)
    for k in range(1, n):
        a = math.radians(90.0 + gap + (k - 0.5) * step)
        out[(viewer + k) % n] = (int(cx + rx * math.cos(a)), int(cy + ry * math.sin(a)))
    return out


# ============================================================================ red dog
def red_dog_picture(
    state: RedDogState,
    t: int,
    seat: int,
    *,
    show_all: bool = False,
    log: Sequence[Sequence[int]] | NDArray[np.int64] | None = None,
    has_own: bool = False,
) -> P.Image:
    """The Red Dog table as ``seat`` sees it (RULES.md §2).

    Shows every seat's chips and cards (face down but for cards shown this deal;
    ``seat``'s own face up), the dealer, whose turn, the pot, the cards turned this
    deal, and the last bet with its turned card and result. ``show_all`` shows every
    hand (a spectator's view, as the multi-agent text render does).

    Args:
        state: the array state; ``t`` the table's row.
        seat: the viewing seat (at the bottom of the picture).
        show_all: draw every hand face up.
        log: the actions of the last step, one events row each (the env's action
            log); default: the table's last action only.
        has_own: the log's first row is the viewing seat's own action.
    """
    img = P.table_felt(HEIGHT, WIDTH, (8, 34, 792, 552))
    ints, chips, flags, hands, public = (
        state.ints[t],
        state.chips[t],
        state.flags[t],
        state.hands[t],
        state.public[t],
    )
    events = state.events[t]
    p = int(ints[I_NUM_PLAYERS])
    rounds = int(ints[I_ROUNDS])
    done = int(ints[I_DEALS_DONE])
    over = int(ints[I_PHASE]) == PHASE_OVER
    to_act = -1 if over else int(ints[I_TO_ACT])
    dealer = int(ints[I_DEALER])
    hand_size = int(ints[I_HAND_SIZE])
    pot = int(ints[I_POT])

    P.draw_text(img, 12, _HEADER_Y, f"Red Dog   {p} players", P.TEXT, 2)
    head = (
        f"game over after {done}/{rounds} deals"
        if over
        else f"deal {min(done + 1, rounds)} of {rounds}"
    )
    P.draw_text(img, WIDTH - 12, _HEADER_Y, head, P.GOLD, 2, align="right")

    centres = _seat_centres(p, seat, 400, 292, 320, 204, gap=44)
    for q in range(p):
        if q == seat:
            continue
        x, y = centres[q]
        seated = bool(flags[q] & F_SEATED)
        cards = [int(c) for c in hands[q, :hand_size] if c >= 0]
        pw, ph = 124, 44
        _panel(img, x - pw // 2, y - 8, pw, ph, glow=q == to_act)
        P.draw_text(img, x - pw // 2 + 6, y - 2, f"Seat {q}", P.TEXT if seated else P.DIM, 2)
        chips_text = f"{int(chips[q])} chips" if seated else "left"
        P.draw_text(img, x - pw // 2 + 6, y + 18, chips_text, P.GOLD if seated else P.DIM, 2)
        if q == dealer:
            P.draw_button(img, x + pw // 2 - 10, y + 4, "D")
        if seated and cards:
            # RULES.md §2: cards shown after a bet are public; the rest stay face down.
            up = [c for c in cards if show_all or public[c] == PUB_SHOWN]
            _hand_row_mixed(img, x, y - 58, up, len(cards) - len(up))
    # The viewer: big cards at the bottom, the name and chips in the corner.
    own = [int(c) for c in hands[seat, :hand_size] if c >= 0]
    if own:
        _hand_row(img, 400, 456, own, "L", gap=6)
    _panel(img, 14, 480, 168, 66, glow=seat == to_act)
    # A spectator's view (show_all) has no "you": the bottom seat is the one to act.
    you = -1 if show_all else seat
    P.draw_text(img, 22, 486, f"Seat {seat}" if show_all else f"You: seat {seat}", P.TEXT, 2)
    P.draw_text(img, 22, 506, f"{int(chips[seat])} chips", P.GOLD, 2)
    if not flags[seat] & F_SEATED:
        P.draw_text(img, 22, 526, "out", P.DIM, 2)
    elif seat == to_act:
        P.draw_text(img, 22, 526, "\u25b6 to act" if show_all else "\u25b6 your turn", P.GOLD, 2)
    if seat == dealer:
        P.draw_button(img, 168, 492, "D")

    # The middle: the pot, and the cards turned this deal.
    P.draw_chips(img, 356, 216, pot, label=False, most=10)
    P.draw_text(img, 378, 198, f"Pot {pot}", P.GOLD, 2, shadow=True)
    turned = [int(c) for c in np.flatnonzero(public == PUB_TURNED)]
    if turned:
        P.draw_text(img, 400, 236, "turned this deal", P.DIM, 1, align="center")
        size = "M" if len(turned) <= 6 else "S"
        _hand_row(img, 400, 248, turned, size, face_up=True, gap=4)
    # The last actions and, for a bet, the card turned against it (RULES.md §2),
    # also when the next deal has begun.
    given = [events] if log is None else [np.asarray(r, np.int64) for r in log]
    rows = [r for r in given if int(r[E_SEAT]) >= 0]
    if rows:
        mine = rows[0] if (has_own or log is None) and int(rows[0][E_SEAT]) == you else None
        rest = rows[1:] if mine is not None else rows
        tail = rest[-4:]
        h = 8 + (26 if mine is not None else 0) + 18 * len(tail)
        P.blend_rect(img, 196, 336, 408, h, (0, 0, 0), 0.62, 8)
        y = 340
        if mine is not None:
            _event_line(img, 400, y, mine, you, 2)
            y += 26
        if len(rest) > len(tail):
            P.draw_text(img, 204, y + 2, f"+{len(rest) - len(tail)}", P.DIM, 1)
        for r in tail:
            _event_line(img, 400, y, r, you, 1)
            y += 18
    if over:
        best = max(int(chips[q]) for q in range(p))
        winners = [q for q in range(p) if int(chips[q]) == best]
        names = ", ".join("you" if q == you else f"seat {q}" for q in winners)
        _banner(
            img,
            150,
            [
                (f"Game over: most chips {best}", P.GOLD),
                (f"won by {names}", _WIN if you in winners else P.TEXT),
            ],
        )
    return img


def _hand_row_mixed(img: P.Image, cx: int, y: int, up: Sequence[int], down: int) -> None:
    # An opponent's hand, small and overlapping: shown cards first, then backs. The
    # backs never depend on which cards they hide.
    w, _ = P.card_size("S")
    n = len(up) + down
    step = 20
    total = w + (n - 1) * step
    x = cx - total // 2
    for c in up:
        P.draw_card(img, x, y, c, "S")
        x += step
    for _ in range(down):
        P.draw_card_back(img, x, y, "S")
        x += step


def _card_label(card: int) -> str:
    # "10♥": the rank as printed on the card, the suit as its symbol (font glyphs).
    return P.RANK_TEXT[card >> 2] + "\u2663\u2666\u2665\u2660"[card & 3]


def _event_line(
    img: P.Image, cx: int, y: int, row: NDArray[np.int64], seat: int, scale: int
) -> None:
    # "Seat 3 bet 5 [9h] lost": one action, centred, the turned card drawn as a card.
    q = int(row[E_SEAT])
    you = q == seat
    who = "You" if you else f"Seat {q}"
    if int(row[E_KIND]) == KIND_FORFEIT:
        before, card, after = f"{who} forfeit{'' if you else 's'} 1 chip", -1, ""
        color = P.TEXT
    else:
        won = bool(row[E_WON])
        before = f"{who} bet{'' if you else 's'} {int(row[E_AMOUNT])}, turned"
        card = int(row[E_TURNED])
        after = ("won" if you else "wins") if won else ("lost" if you else "loses")
        color = (_WIN if won else _LOSS) if you else P.TEXT
    if row[E_REANTE]:
        after += "; ante again"
    gap = 6
    small = _card_label(card) if card >= 0 else ""
    card_w = (
        (P.mini_cards_width([card]) if scale == 2 else P.text_width(small, 1) + 4)
        if card >= 0
        else 0
    )
    width = (
        P.text_width(before, scale)
        + (gap + card_w + gap if card >= 0 else 0)
        + P.text_width(after, scale)
    )
    x = cx - width // 2
    ty = y + (3 if scale == 2 else 4)
    x += P.draw_text(img, x, ty, before, color, scale)
    if card >= 0:
        x += gap
        if scale == 2:
            x += P.draw_mini_card(img, x, y, card)
        else:
            # A small line: the card as text, coloured by suit.
            ink = P.RED_SUIT if card & 3 in (1, 2) else P.BLACK_SUIT
            P.blend_rect(img, x, ty - 2, card_w, 12, P.CARD_FACE, 1.0, 2)
            P.draw_text(img, x + 2, ty, small, ink, 1)
            x += card_w
        x += gap
    P.draw_text(img, x, ty, after, color, scale)


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
    img = P.table_felt(HEIGHT, WIDTH, (8, 34, 792, 552))
    n = int(num_players)
    phase = int(s[K.PHASE])
    over = phase != K.PHASE_BETTING
    street = int(s[K.STREET])
    board = [int(c) for c in s[K.BOARD : K.BOARD + int(s[K.NUM_BOARD])]]
    pot = int(s[K.COMMIT : K.COMMIT + K.MAX_SEATS].sum() + s[K.POT_EXTRA]) if not over else 0
    to_act = int(s[K.TO_ACT]) if not over else -1

    P.draw_text(img, 12, _HEADER_Y, f"Texas Hold'em   {n} seats", P.TEXT, 2)
    head = "hand over" if over else _STREETS[street]
    if hands_left is not None:
        head += f"   hands left {hands_left}"
    P.draw_text(img, WIDTH - 12, _HEADER_Y, head, P.GOLD, 2, align="right")

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

    centres = _seat_centres(n, seat, 400, 282, 318, 196, gap=40)
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
                parts.append((f"{name} won {amount}{how}", _WIN if q == seat else P.GOLD))
            _banner(img, 298, parts[:3], 150, 650)
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
    P.draw_text(img, 220, 305, _fit(f"Hand {last.hand}: {head}", 360, 2), P.GOLD, 2)
    y = 328
    for r in shown:
        x = 220
        x += P.draw_text(img, x, y + 6, name(r.seat), P.TEXT, 1) + 6
        for c in parse_cards(r.cards or ""):
            x += P.draw_mini_card(img, x, y, int(c)) + 2
        P.draw_text(img, x + 4, y + 6, _fit(r.description or "", 580 - x, 1), P.TEXT, 1)
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
    _panel(img, px, py, pw, ph, glow=q == to_act)
    # A spectator's view (show_all) has no "you": the bottom seat is the one to act.
    name = "You" if me and not show_all else f"Seat {q}"
    faded = status in (K.FOLDED, K.LEFT, K.EMPTY) or (status == K.SEATED and not over)
    P.draw_text(img, px + 6, py + 6, name, P.DIM if faded else P.TEXT, 2)
    P.draw_text(img, px + 6, py + 26, f"{int(s[K.STACK + q])}", P.GOLD, 2)
    word = _STATUS_WORDS.get(status, "") if not over else ("out" if status == K.EMPTY else "")
    if over and int(s[K.WON + q]) > 0:
        word = f"+{int(s[K.WON + q])}"
    if word:
        color = _WIN if word[0] == "+" else P.DIM
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
            _hand_row(img, x, cy, cards, size, face_up=up, gap=4, dim=dim)
        if over and shown:
            name_y = py + ph + 3
            text = _fit(describe_hand(int(s[K.RANK + q])), 180, 1)
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
