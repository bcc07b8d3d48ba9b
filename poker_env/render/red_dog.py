"""The Red Dog table from one seat's view: the picture (``render_mode="rgb_array"``) and the text (``"ansi"``).

Over the one canvas (:mod:`poker_env.render.canvas`): other hands face down, a card
shown in a deal face up (RULES.md §2), the turned card, the last actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards
from poker_env.episode.red_dog import LOG_CAPACITY, action_text
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
    RedDogConfig,
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
from poker_env.render import canvas as P

if TYPE_CHECKING:
    from poker_env.games.red_dog import RedDogGame

__all__ = ["red_dog_aec_text", "red_dog_picture", "red_dog_text"]


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
    img = P.table_felt(P.HEIGHT, P.WIDTH, (8, 34, 792, 552))
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

    P.draw_text(img, 12, P.HEADER_Y, f"Red Dog   {p} players", P.TEXT, 2)
    head = (
        f"game over after {done}/{rounds} deals"
        if over
        else f"deal {min(done + 1, rounds)} of {rounds}"
    )
    P.draw_text(img, P.WIDTH - 12, P.HEADER_Y, head, P.GOLD, 2, align="right")

    centres = P.seat_centres(p, seat, 400, 292, 320, 204, gap=44)
    for q in range(p):
        if q == seat:
            continue
        x, y = centres[q]
        seated = bool(flags[q] & F_SEATED)
        cards = [int(c) for c in hands[q, :hand_size] if c >= 0]
        pw, ph = 124, 44
        P.panel(img, x - pw // 2, y - 8, pw, ph, glow=q == to_act)
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
        P.hand_row(img, 400, 456, own, "L", gap=6)
    P.panel(img, 14, 480, 168, 66, glow=seat == to_act)
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
        P.hand_row(img, 400, 248, turned, size, face_up=True, gap=4)
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
        P.banner(
            img,
            150,
            [
                (f"Game over: most chips {best}", P.GOLD),
                (f"won by {names}", P.WIN if you in winners else P.TEXT),
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
        color = (P.WIN if won else P.LOSS) if you else P.TEXT
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


def red_dog_text(
    state: RedDogState,
    t: int,
    seat: int,
    config: RedDogConfig,
    log: NDArray[np.int64],
    num_logged: int,
    *,
    has_own: bool,
    own_p: float,
) -> str:
    """Table ``t`` from ``seat`` as text (``render_mode="ansi"``): the deal, the seat's
    hand, the cards turned and shown, the chips, then what the last step did (from the
    action ``log`` of :mod:`poker_env.episode.red_dog`, ``num_logged`` actions; row 0
    the seat's own when ``has_own``, decided at win probability ``own_p``)."""
    p = config.num_players
    hand = [int(c) for c in state.hands[t, seat] if c >= 0]
    total = config.num_rounds
    deals_done = int(state.ints[t, I_DEALS_DONE])
    pot = int(state.ints[t, I_POT])
    if state.ints[t, I_PHASE] == PHASE_OVER:
        # deals_done + 1 would name a deal that is never dealt (deal 5/4).
        chips = [int(c) for c in state.chips[t, :p]]
        winners = [s for s, c in enumerate(chips) if c == max(chips)]
        head = (
            f"game over after {deals_done}/{total} deals  pot {pot}  "
            f"winner{'s: seats' if len(winners) > 1 else ': seat'} {', '.join(map(str, winners))}"
        )
    else:
        head = (
            f"deal {min(deals_done + 1, total)}/{total}  "
            f"dealer seat {int(state.ints[t, I_DEALER])}  pot {pot}"
        )
    lines = [
        head,
        f"you (seat {seat}): {format_cards(hand)}",
        f"turned: {format_cards(np.flatnonzero(state.public[t] == PUB_TURNED))}",
        f"shown:  {format_cards(np.flatnonzero(state.public[t] == PUB_SHOWN))}",
    ]
    for s in range(p):
        here = "" if state.flags[t, s] & F_SEATED else " (left)"
        lines.append(f"  seat {s}: {int(state.chips[t, s])} chips{here}")
    lines.extend(_last_actions_lines(log, num_logged, has_own, own_p))
    return "\n".join(lines) + "\n"


def _last_actions_lines(
    log: NDArray[np.int64], num_logged: int, has_own: bool, own_p: float
) -> list[str]:
    # Issue 12 §4: what the last step did, also when the next deal has begun
    # (the turned and shown lines above are this deal's cards only).
    lines = []
    own = 1 if has_own else 0
    if has_own:
        text = action_text(log[0], you=True)
        lines.append(f"your last action: {text} (p = {own_p:.3f})")
    kept = min(num_logged, LOG_CAPACITY)
    if kept > own:
        lines.append("since then:" if has_own else "before your first turn:")
        lines.extend(f"  {action_text(log[i])}" for i in range(own, kept))
        if num_logged > kept:
            lines.append(f"  ... and {num_logged - kept} more")
    return lines


def red_dog_aec_text(game: RedDogGame, recent: Sequence[Sequence[int]]) -> str:
    """The whole table as text (the multi-agent env's ``"ansi"`` render): the game's
    :meth:`~poker_env.games.red_dog.RedDogGame.describe` (every hand), then the
    ``recent`` actions (events rows of the action log, the last round's)."""
    lines = [game.describe()]
    # Issue 12 §4: the last round of actions, turned cards and outcomes included
    # (describe() shows this deal's cards only; the last bet may close a deal).
    if recent:
        lines.append("last actions:")
        lines.extend(f"  {action_text(row)}" for row in recent)
    return "\n".join(lines) + "\n"
