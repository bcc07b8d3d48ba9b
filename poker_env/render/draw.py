"""The five-card draw table from one seat's view: the picture (``render_mode="rgb_array"``) and the text (``"ansi"``).

Over the one canvas (:mod:`poker_env.render.canvas`): the viewing seat's cards face up,
the opponent's face down until a showdown, her wardrobe, the last hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from poker_env.cards import format_cards, parse_cards
from poker_env.episode.draw import last_hand
from poker_env.evaluator import describe_hand
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig
from poker_env.games.wardrobe import wardrobe_state
from poker_env.render import canvas as P

if TYPE_CHECKING:
    pass

__all__ = ["draw_picture", "draw_text", "last_hand_lines"]


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
    img = P.table_felt(P.HEIGHT, P.WIDTH, (8, 34, 552, 552))
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
    P.draw_text(img, 12, P.HEADER_Y, f"Five-card draw   hand {int(s[L.S_HAND_NO])}", P.TEXT, 2)
    P.draw_text(img, P.WIDTH - 12, P.HEADER_Y, _DRAW_PHASES[phase], P.GOLD, 2, align="right")

    to_act = (
        int(s[L.S_TO_ACT])
        if phase in (L.PH_PRE_DRAW, L.PH_DRAW, L.PH_POST_DRAW, L.PH_BUY_BACK)
        else -1
    )
    cx = 280
    # The other seat, at the top.
    P.panel(img, cx - 150, 46, 300, 26, glow=to_act == other)
    P.draw_text(img, cx - 140, 52, f"{them}  {int(s[L.S_STACK + other])} chips", P.TEXT, 2)
    if s[L.S_FIRST] == other:
        P.draw_button(img, cx + 128, 59, "1st")
    opp_cards = s[L.S_HANDS + 5 * other : L.S_HANDS + 5 * other + 5]
    P.hand_row(img, cx, 80, opp_cards, "M", face_up=shown)
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
    P.hand_row(img, cx, 384, own, "L", gap=8)
    for i in range(5):
        P.draw_text(img, cx - 166 + 30 + 68 * i, 472, str(i + 1), P.TEXT, 1, align="center")
    own_notes: list[str] = []
    if int(s[L.S_DRAWN + seat]) >= 0:
        own_notes.append(f"drew {int(s[L.S_DRAWN + seat])}")
    if int(s[L.S_RANK + seat]) >= 0:
        own_notes.append(describe_hand(int(s[L.S_RANK + seat])))
    if own_notes:
        P.draw_text(img, cx, 484, "  ".join(own_notes), P.TEXT, 2, align="center", shadow=True)
    P.panel(img, cx - 150, 506, 300, 26, glow=to_act == seat)
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
            lines.insert(
                0, (f"{text} {won} {by.get(how, '')}", P.WIN if result == seat else P.LOSS)
            )
    if lines:
        P.banner(img, 210, lines, 0, 560)

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
    P.blend_rect(img, x0, 40, w, bottom - 40, P.PANEL, 0.8, 8)
    owner = "Your" if seat == L.COMPUTER else "Her"
    P.draw_text(img, x0 + 10, 48, f"{owner} wardrobe", P.TEXT, 2)
    for i, (name, state) in enumerate(items):
        col, row = i % 2, i // 2
        tx, ty = x0 + 10 + col * 106, 70 + row * 22
        fill = (P.TAG_WORN, P.TAG_STAKE, P.TAG_LOST)[state]
        ink = (30, 30, 30) if state < 2 else (230, 200, 200)
        P.blend_rect(img, tx, ty, 100, 20, fill, 1.0, 5)
        scale = 2 if len(name) <= 8 else 1
        P.draw_text(
            img,
            tx + 50,
            ty + (2 if scale == 2 else 6),
            P.fit(name, 96, scale),
            ink,
            scale,
            align="center",
        )
        if state == 2:
            img[ty + 9 : ty + 11, tx + 6 : tx + 94] = (230, 200, 200)  # struck through: lost
    ly = 74 + 22 * rows
    for lx, fill, word in (
        (10, P.TAG_WORN, "worn"),
        (62, P.TAG_STAKE, "at stake"),
        (132, P.TAG_LOST, "lost"),
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
    P.blend_rect(img, x0, top, w, box_top - 10 - top, P.PANEL, 0.8, 8)
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
        P.draw_text(img, x0 + 10, top + 32 + 20 * i, P.fit(text, w - 20, 2), color, 2)
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
                P.draw_text(img, x0 + 50, y + 22, P.fit(str(names[q]), w - 56, 1), P.DIM, 1)
            y += 36
    if winner is None:
        text, color = f"tie: pot {pot} carries over", P.GOLD
    else:
        verb = "win" if winner == seat else "wins"
        text, color = f"{who[int(winner)]} {verb} {pot}", P.WIN if winner == seat else P.LOSS
    P.draw_text(img, x0 + 10, y + 2, P.fit(text, w - 20, 2), color, 2)
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
        P.draw_text(img, x0 + 10, y + 2, P.fit(note, w - 20, 1), P.TEXT, 1)
        y += 12


_KIND_WORDS = (
    "BET",
    "STAY",
    "DROP",
    "RAISE",
    "DRAW",
    "CALL",
    "DISCARD",
    "BUY_BACK",
    "SKIP_BUY_BACK",
)


def draw_text(
    s: NDArray[np.int64],
    config: DrawConfig,
    seat: int,
    rec: NDArray[np.int64] | None = None,
) -> str:
    """The table as ``seat`` sees it (``render_mode="ansi"``): the last hand that ended
    (from the record ring ``rec``, if given), own cards, pot, money, the wardrobe, this
    hand's actions."""
    who = ("you", "opponent")
    hand = format_cards(s[L.S_HANDS + 5 * seat : L.S_HANDS + 5 * seat + 5])
    w = wardrobe_state(s, config.wardrobe)
    last = last_hand(rec, config) if rec is not None else None
    lines = [*last_hand_lines(last, seat), ""] if last is not None else []
    lines += [
        f"hand {int(s[L.S_HAND_NO])}, {_DRAW_PHASES[int(s[L.S_PHASE])]}; "
        f"{'you act first' if s[L.S_FIRST] == seat else 'opponent acts first'}",
        f"your cards: {hand}   (slots 1-5)",
        f"pot: {int(s[L.S_POT])}   your money: {int(s[L.S_STACK + seat])}   "
        f"opponent's money: {int(s[L.S_STACK + 1 - seat])}",
        f"{'your' if seat == L.COMPUTER else 'her'} wardrobe: worn {', '.join(w.worn) or '-'}; "
        f"at stake {', '.join(w.at_stake) or '-'}; lost {', '.join(w.lost) or '-'}",
    ]
    acts = []
    for j in range(int(s[L.S_HIST_N])):
        sj, kj, aj = (int(x) for x in s[L.S_HIST + 3 * j : L.S_HIST + 3 * j + 3])
        text = f"{who[0] if sj == seat else who[1]} {_KIND_WORDS[kj]}"
        if kj == L.K_DISCARD:
            text += f" {aj} card(s)"
        elif aj:
            text += f" {aj}"
        acts.append(text)
    lines.append("this hand: " + ("; ".join(acts[-6:]) if acts else "-"))
    return "\n".join(lines) + "\n"


def last_hand_lines(d: Mapping[str, Any], seat: int) -> list[str]:
    """The "Last hand" block of the ansi render, as ``seat`` sees it.

    A showdown shows both hands with their names (RULES.md §1: CALL means "see her
    cards") and who won; a tie says the pot carries over; a drop shows no cards.
    """

    def who(x: int) -> str:
        return "you" if x == seat else "opponent"

    she = "you" if seat == L.COMPUTER else "she"
    w = d["winner"]
    lines = [f"Last hand ({d['hand_no']}): {d['how']}"]
    if d["hands"] is not None:
        for x in (seat, 1 - seat):
            lines.append(f"  {who(x):<9} {d['hands'][x]}  {d['hand_names'][x]}")
    if w is None:
        if d["how"] == "showdown":
            lines.append(f"  tie: the pot of {d['pot']} carries over to the next hand")
    elif d["how"] == "drop":
        lines.append(f"  {who(1 - w)} dropped: {who(w)} won the pot of {d['pot']}")
    elif d["how"] == "showdown":
        lines.append(f"  {who(w)} won the pot of {d['pot']}")
    if d["items_lost"]:
        lines.append(f"  {she} lost: {', '.join(d['items_lost'])}")
    if d["items_redeemed"]:
        lines.append(f"  {she} redeemed: {', '.join(d['items_redeemed'])}")
    if d["item_bought_back"] is not None:
        lines.append(
            f"  then {she} bought back the {d['item_bought_back']} for {d['buy_back_price']}"
        )
    mw = d["match_winner"]
    if mw is not None:
        # RULES.md §1 match end: the human cannot pay the ante, or she must stake and
        # has no item left.
        why = (
            "the human cannot pay the ante"
            if mw == L.COMPUTER
            else "she cannot pay the ante and has nothing left to stake"
        )
        text = f"  match over ({why}): {who(mw)} won the match"
        if d["ante_pot"]:
            text += f" and the pot of {d['ante_pot']} left by the tie"
        lines.append(text)
    return lines
