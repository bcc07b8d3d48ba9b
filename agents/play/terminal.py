"""Play in the terminal: ``poker-play draw|reddog|holdem`` (``scripts/play.py``).

Screens are drawn with rich: your cards as cards, the pot, everyone's money, her
wardrobe (worn, at stake, lost, bought back) in the draw, what each player just
did, and the buttons legal now, each on a key. Type a key (or the button's word),
an amount after it or when asked (the bounds are shown), and in the draw the
numbers of the cards to change, then ``d`` (DRAW) to confirm. Bad input is refused
with the reason and asked again; nothing changes. At a terminal, a hand that ends
in a showdown stays on a screen of its own (that hand's table, every hand shown)
until Enter. ``q``, Ctrl-C or the end of the input saves the game as JSON;
``--resume FILE`` continues it.

Standard input may be a pipe: every prompt reads one line, so a test (or a
script) plays whole games by writing lines.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from poker_env.errors import ConfigError
from poker_env_agents.commands import command_for
from poker_env_agents.play.common import (
    GAME_NAMES,
    Button,
    InputError,
    SaveFileError,
    Session,
    parse_save,
)
from poker_env_agents.play.sessions import (
    GAME_TITLES,
    MIN_MONEY,
    load_session,
    new_session,
    trained_summary,
)
from poker_env_agents.runtime import PolicyFileError

__all__ = ["main", "play", "render_pause", "render_screen"]

_SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
_PLAIN_SUITS = {"c": "c", "d": "d", "h": "h", "s": "s"}
_RED = ("d", "h")
_KEYS_HELP = {
    "draw": "b BET, s STAY, r RAISE, d DRAW, c CALL, p DROP (b 20 bets 20, b max the most "
    "allowed); in the draw: card numbers (1-5) mark or unmark cards, then d confirms the "
    "DRAW (d 1 3 marks 1 and 3 and draws)",
    "reddog": "b BET (b 3 bets 3, b max the most allowed), f FORFEIT",
    "holdem": "f FOLD, c CHECK/CALL, r RAISE (r 20 raises to 20, r max), a ALL-IN",
}


class _Quit(Exception):
    """The person asked to stop (q, Ctrl-C, or the input ended)."""


class _Note(str):
    """A message that is not a refusal (the help): shown plainly, not in red."""


def _card(card: dict[str, Any], fancy: bool, marked: bool = False) -> Text:
    suit = (_SUITS if fancy else _PLAIN_SUITS)[card["suit"]]
    style = "bold red" if card["suit"] in _RED else "bold"
    if marked:
        style += " reverse"
    t = Text("[", style="dim")
    t.append(f"{card['rank']}{suit}", style=style)
    t.append("]", style="dim")
    return t


def _cards(
    cards: Sequence[dict[str, Any]],
    fancy: bool,
    marked: frozenset[int] = frozenset(),
    numbered: bool = False,
) -> Text:
    t = Text()
    for i, c in enumerate(cards, start=1):
        if numbered:
            t.append(f"{i}{'*' if i in marked else ':'}", style="yellow" if i in marked else "")
        t.append_text(_card(c, fancy, i in marked))
        t.append("  ")
    return t


class _Keys:
    """``[key] what`` items, as many on a line as the width holds, each kept whole (rich
    wrapped "[?] help" between its key and its word at 80 columns)."""

    GAP = 3

    def __init__(self, items: Sequence[Text]) -> None:
        self.items = list(items)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = Text()
        for item in self.items:
            if line.cell_len and line.cell_len + self.GAP + item.cell_len > width:
                yield line
                line = Text()
            if line.cell_len:
                line.append(" " * self.GAP)
            line.append_text(item)
        yield line  # (an item wider than the screen is left to rich to fold)

    def __str__(self) -> str:
        return (" " * self.GAP).join(item.plain for item in self.items)


def _keys_line(keys: Sequence[tuple[str, str]]) -> _Keys:
    """``[key] what`` for each pair, then the keys every screen has (q, ?)."""
    items = []
    for key, what in [*keys, ("q", "save and quit"), ("?", "help")]:
        t = Text()
        t.append(f"[{key}]", style="bold cyan")
        t.append(f" {what}")
        items.append(t)
    return _Keys(items)


def _buttons_line(buttons: Sequence[Button]) -> _Keys:
    return _keys_line([(b.key, b.describe()) for b in buttons])


def _fancy(console: Console) -> bool:
    """Suit symbols where the console writes UTF-8; letters elsewhere."""
    return (getattr(console.file, "encoding", "") or "").lower().replace("-", "") == "utf8"


def _message_text(message: str | None) -> Text | None:
    """The help (a note, plain) or a refusal's reason (red); None without one."""
    if isinstance(message, _Note):
        return Text(str(message), style="cyan")
    if message:
        return Text(f"Not accepted: {message}", style="bold red")
    return None


#: Cards in the game's texts ("Kd Qs"), after the words the texts name cards with (so
#: that "As" or "Ah" as words stay words); the web page's CARD_LIST is the same.
_CARD_LIST = re.compile(
    r"\b((?:shows?|turns|card|cards:|board|hand|Flop:|Turn:|River:|You|Seat \d+) )"
    r"((?:[2-9TJQKA][cdhs])(?: [2-9TJQKA][cdhs])*)\b"
)


def _with_cards(text: str, style: str, fancy: bool) -> Text:
    """``text`` in ``style``, the cards it names ("Kd Th") as the table shows them: with
    suit symbols, red or bold (where the console takes UTF-8; letters elsewhere, as the
    table's are)."""
    t = Text()
    at = 0
    for m in _CARD_LIST.finditer(text) if fancy else ():
        t.append(text[at : m.start(2)], style=style)
        for i, card in enumerate(m[2].split()):
            if i:
                t.append(" ", style=style)
            look = "bold red" if card[1] in _RED else "bold"
            t.append(card[0] + _SUITS[card[1]], style=f"{style} {look}".strip())
        at = m.end(2)
    t.append(text[at:], style=style)
    return t


def _events(view: dict[str, Any], fancy: bool = False) -> Text:
    """The whole hand in which you last acted and all since (long lines wrap; a long
    hand scrolls up the terminal), new lines marked with a dot."""
    lines = Text()
    for e in view["events"]:
        style = {"result": "bold", "stake": "magenta", "deal": "dim"}.get(e["kind"], "")
        if e["seat"] == 0:
            style = "green"
        text = ("• " if e.get("new") else "  ") + e["text"] + "\n"
        lines.append_text(_with_cards(text, style, fancy))
    return lines


def _last_hand(view: dict[str, Any], fancy: bool = False) -> RenderableType | None:
    """The previous hand's result, one line each, when the list above no longer holds it."""
    results = view.get("results") or []
    if not results or view["game"] == "reddog":
        return None
    last = results[-1]
    texts = {e["text"] for e in view["events"]}
    lines = last.get("lines") or [last["text"]]
    if all(line in texts for line in lines):
        return None
    t = Text("Last hand:\n", style="bold")
    for line in lines:
        t.append_text(_with_cards("  " + line + "\n", "", fancy))
    return t


class _Fit:
    """``wide`` where the width holds ``width`` cells, else ``narrow`` (rich asks a
    renderable to draw itself at the width it has)."""

    def __init__(self, wide: RenderableType, narrow: RenderableType, width: int) -> None:
        self.wide, self.narrow, self.width = wide, narrow, width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.wide if options.max_width >= self.width else self.narrow


def _height(console: Console, parts: Sequence[RenderableType]) -> int:
    """Lines ``parts`` take at the console's width."""
    return len(console.render_lines(Group(*parts), console.options, pad=False))


def _short(console: Console) -> bool:
    """A terminal of fewer than 30 lines (the screen is drawn to fit it)."""
    return console.is_terminal and console.size.height < 30


def _fit(
    console: Console,
    head: list[RenderableType],
    view: dict[str, Any],
    events: list[dict[str, Any]],
    extras: list[RenderableType | None],
    tail: list[RenderableType],
    prompt_lines: int = 1,
) -> list[RenderableType]:
    """The screen's parts: ``head`` (the table), ``extras`` (the opponent line, the
    previous hand's summary), what happened, ``tail`` (the showdown, the buttons). On a
    terminal too short for all of it (60x20, 50x15: the table, its pot and whose turn
    it is once scrolled off the top), the extras go first, then the oldest lines of
    what happened, so that the table, the buttons and the prompt (``prompt_lines``: the
    line typed on, and an amount's question) stay in view; a piped console gets
    everything."""
    kept = [x for x in extras if x is not None]

    def middle(shown: list[dict[str, Any]], n_extras: int) -> list[RenderableType]:
        parts = kept[:n_extras]
        if shown:
            title = "What happened:"
            if len(shown) < len(events):
                title = f"What happened (the last {len(shown)} of {len(events)}):"
            lines = _events({**view, "events": shown}, _fancy(console))
            if len(shown) < len(events):
                lines.rstrip()  # no blank line under it where room is short
            parts += [Text(title, style="bold"), lines]
        return parts

    if not console.is_terminal:
        return [*head, *middle(events, len(kept)), *tail]
    room = console.size.height - prompt_lines - _height(console, [*head, *tail])
    for n_extras in range(len(kept), -1, -1):  # the last hand's summary goes first
        if _height(console, middle(events, n_extras)) <= room:
            return [*head, *middle(events, n_extras), *tail]
    shown = list(events)
    while shown and _height(console, middle(shown, 0)) > room:
        shown.pop(0)
    return [*head, *middle(shown, 0), *tail]


def _showdown(view: dict[str, Any], fancy: bool) -> RenderableType | None:
    """The showdown that just came: every hand shown, face up, with its name."""
    sd = view.get("showdown")
    if not sd:
        return None
    if view["game"] == "draw":
        rows = [
            (
                name,
                _cards([_card_text(c) for c in sd["hands"][who].split()], fancy),
                sd["names"][who],
            )
            for who, name in (("she", "SHE"), ("you", "YOU"))
        ]
    else:
        rows = [
            (r["name"], _cards(r["cards"], fancy), r["hand"] + (" (wins)" if r["won"] else ""))
            for r in sd["shown"]
        ]
    # A hand's cards stay on one line (at 60 columns the fifth card once wrapped under
    # the first, and the hand looked like four cards). Wide enough, its name follows on
    # the line (and wraps); narrower, the name goes under the cards.
    wide = Table.grid(padding=(0, 2))
    wide.add_column(no_wrap=True)
    wide.add_column(no_wrap=True)
    wide.add_column()
    narrow = Table.grid(padding=(0, 2))
    narrow.add_column(no_wrap=True)
    narrow.add_column()
    for label, cards, name in rows:
        wide.add_row(Text(label, style="bold"), cards, Text(name))
        narrow.add_row(Text(label, style="bold"), cards)
        narrow.add_row(Text(""), Text(name))
    indent = max(len(label) for label, _, _ in rows) + 2
    cards_width = max(cell_len(cards.plain) for _, cards, _ in rows)
    verdict = sd.get("verdict") or sd.get("lines") or [sd["text"]]
    # Under the cards, as the rows' cards are (after the name column and its padding).
    said = Padding(_with_cards(" ".join(verdict), "bold", fancy), (0, 0, 0, indent))
    # Inside the panel (its width less the border and padding): a name gets 14 cells.
    fit = _Fit(Group(wide, said), Group(narrow, said), indent + cards_width + 2 + 14)
    return Panel(fit, title=f"Showdown · hand {sd['hand']}", title_align="left")


def _pause_table(view: dict[str, Any], fancy: bool) -> RenderableType:
    """The table of the hand that just ended in a showdown (the showdown pause): in
    Hold'em each seat's chips as that hand left them and its board, in the draw both
    hands' names and the pot; no bets, blinds or cards of the next hand."""
    sd = view["showdown"]
    grid = Table.grid(padding=(0, 2))
    if view["game"] == "draw":
        # The money is left out: the next hand's antes (and a stake) may be paid already.
        for who, name, style in (("she", "SHE", "bold magenta"), ("you", "YOU", "bold green")):
            won = " (wins)" if sd["winner"] == who else ""
            grid.add_row(Text(name, style=style), Text(sd["names"][who] + won))
            if who == "she":
                grid.add_row(Text(""), _wardrobe_text(sd.get("wardrobe") or view["wardrobe"]))
        grid.add_row(Text("POT", style="bold yellow"), Text(str(sd["pot"]), style="bold yellow"))
        title = f"Five-card draw · hand {sd['hand']} · showdown"
    else:
        shown = {r["seat"]: r for r in sd["shown"]}
        for p in view["players"]:
            q = p["seat"]
            r = shown.get(q)
            state = "" if r is None else ("wins" if r["won"] else "shows")
            if r is None and sd["chips"][q] == 0:
                state = "out"
            label = Text(f"  {p['name']}", style="bold green" if q == 0 else "bold")
            grid.add_row(label, Text(f"chips {sd['chips'][q]:>5}   {state}"))
        grid.add_row(Text(""), Text(""))
        grid.add_row(Text("POT", style="bold yellow"), Text(str(sd["pot"]), style="bold yellow"))
        board = [_card_text(t) for t in sd["board"].split()]
        grid.add_row(Text("board"), _cards(board, fancy) if board else Text("-"))
        title = f"Texas Hold'em · hand {sd['hand']} · showdown"
    return Panel(grid, title=title, title_align="left")


def render_pause(session: Session, console: Console, message: str | None = None) -> None:
    """Draw the showdown pause: the hand that ended in a showdown (its table, see
    :func:`_pause_table`; what happened up to its result; every hand shown) and its
    keys; the next hand waits until the person goes on."""
    view = session.view()
    sd = view["showdown"]
    fancy = _fancy(console)
    head: list[RenderableType] = [_pause_table(view, fancy)]
    level = Text(f"Opponent level {view['level']}. {view['antes']}", style="dim")
    # What happened up to the showdown's result (the next hand's deal is left out).
    first = len(session.events) - len(view["events"])
    until = sd["at"] + len(sd["lines"]) - first
    events = view["events"][: max(until, 0)]
    showdown = _showdown(view, fancy)
    assert showdown is not None
    tail: list[RenderableType] = [showdown]
    note = _message_text(message)
    if note is not None:
        tail.append(note)
    tail.append(_keys_line([("Enter", "next hand")]))
    console.print(Group(*_fit(console, head, view, events, [level], tail)))


def _pause_turn(console: Console, stdin: IO[str]) -> tuple[bool, str | None]:
    """Read one line at the showdown pause: (go on to the next hand, a message)."""
    text = _read(stdin, console, "> ").lower()
    if text in ("", "n", "next"):
        return True, None
    if text in ("?", "h", "help"):
        return False, _Note("Keys: Enter (or n) shows the next hand; q saves and quits.")
    return False, f"{text!r}: the hand is over; Enter (or n) shows the next hand"


def _card_text(text: str) -> dict[str, Any]:
    return {"text": text, "rank": text[:-1], "suit": text[-1]}


def _wardrobe_text(wardrobe: Sequence[dict[str, Any]]) -> Text:
    """Her wardrobe, one item after another with its state."""
    ward = Text("her wardrobe: ")
    for w in wardrobe:
        state = w["state"]
        style = {"worn": "", "at_stake": "bold magenta", "lost": "dim strike"}[state]
        label = w["item"] + {"worn": "", "at_stake": " (at stake)", "lost": " (lost)"}[state]
        if w["bought_back"] and state == "worn":
            label += " (bought back)"
        ward.append(label, style=style)
        ward.append("  ")
    return ward


def _draw_table(view: dict[str, Any], fancy: bool, marked: frozenset[int]) -> RenderableType:
    her = view["her"]
    you = view["you"]
    ward = _wardrobe_text(view["wardrobe"])

    def drawn(d: int | None) -> str:
        return "-" if d is None else str(d)

    grid = Table.grid(padding=(0, 2))
    grid.add_row(
        Text("SHE", style="bold magenta"),
        Text(f"money {her['money']}   bet {her['bet']}   cards drawn {drawn(her['drawn'])}"),
    )
    grid.add_row(Text(""), ward)
    grid.add_row(Text(""), Text(""))
    grid.add_row(Text("POT", style="bold yellow"), Text(str(view["pot"]), style="bold yellow"))
    grid.add_row(Text(""), Text(""))
    grid.add_row(
        Text("YOU", style="bold green"),
        Text(f"money {you['money']}   bet {you['bet']}   cards drawn {drawn(you['drawn'])}"),
    )
    grid.add_row(Text(""), _cards(you["cards"], fancy, marked, numbered=True))
    title = f"Five-card draw · hand {view['hand']} · {view['phase']}"
    if not view["over"]:
        title += f" · {view['first']} first"
    return Panel(grid, title=title, title_align="left")


def _players_table(view: dict[str, Any], fancy: bool) -> RenderableType:
    grid = Table.grid(padding=(0, 2))
    holdem = view["game"] == "holdem"
    # Columns as wide as the largest count, with thousands separators (stacks of 1e12
    # pushed the columns out of line).
    cw = max(5, *(len(f"{p['chips']:,}") for p in view["players"]))
    bw = max(4, *(len(f"{p.get('bet', 0):,}") for p in view["players"]))
    for p in view["players"]:
        mark = ">" if p["to_act"] else " "
        name = Text(f"{mark} {p['name']}", style="bold green" if p["seat"] == 0 else "bold")
        if holdem:
            state = "" if p["in_hand"] else ("out" if not p["seated"] else "folded")
            info = (
                f"chips {p['chips']:>{cw},}   bet {p['bet']:>{bw},}   "
                f"{' '.join(p['roles'])} {state}"
            )
        else:
            state = "dealer" if p["dealer"] else ""
            if not p["seated"]:
                state = "left"
            elif p["has_bet"]:
                state += " has bet"
            info = f"chips {p['chips']:>{cw},}   {state}"
        grid.add_row(name, Text(info))
    grid.add_row(Text(""), Text(""))
    grid.add_row(Text("POT", style="bold yellow"), Text(str(view["pot"]), style="bold yellow"))
    if holdem:
        grid.add_row(Text("board"), _cards(view["board"], fancy) if view["board"] else Text("-"))
        title = f"Texas Hold'em · hand {view['hand']}" + (
            f" · {view['street']}" if view["street"] else ""
        )
    else:
        grid.add_row(Text("turned"), _cards(view["turned"], fancy) if view["turned"] else Text("-"))
        grid.add_row(Text("shown"), _cards(view["shown"], fancy) if view["shown"] else Text("-"))
        title = f"Red Dog · deal {view['deal']} of {view['deals']}"
    grid.add_row(Text("you", style="bold green"), _cards(view["cards"], fancy))
    return Panel(grid, title=title, title_align="left")


def render_screen(
    session: Session,
    console: Console,
    marked: frozenset[int] = frozenset(),
    message: str | None = None,
    showdown: bool = True,
) -> None:
    """Draw the table, what just happened, the message (a refusal's reason) and the
    buttons on ``console``; with ``showdown``, also the last showdown's panel (every
    hand shown) while the person has not acted since."""
    view = session.view()
    fancy = _fancy(console)
    if view["over"] and view["showdown"] and view["game"] == "holdem":
        # The last hand's table: its board, the chips it left (the draw's own table
        # shows the final money and wardrobe; no next hand's antes are paid there).
        table = _pause_table(view, fancy)
    elif view["game"] == "draw":
        table = _draw_table(view, fancy, marked)
    else:
        table = _players_table(view, fancy)
    level = Text(f"Opponent level {view['level']}. {view['antes']}", style="dim")
    tail: list[RenderableType] = []
    sd = _showdown(view, fancy) if showdown or view["over"] else None
    if sd is not None:
        tail.append(sd)
    if view["over"]:
        final = _with_cards(view["final"], "bold", fancy)
        tail.append(Panel(final, title="Final", title_align="left"))
    else:
        note = _message_text(message)
        if note is not None:
            tail.append(note)
        buttons = session.buttons()
        if buttons:
            tail.append(_buttons_line(buttons))
    # An amount's question takes a line of its own under the line typed on.
    asks = not view["over"] and any(b.takes_amount for b in session.buttons())
    extras = [level, _last_hand(view, fancy)]
    parts = _fit(console, [table], view, view["events"], extras, tail, 2 if asks else 1)
    console.print(Group(*parts))


def _read(stdin: IO[str], console: Console, prompt: str) -> str:
    console.print(Text(prompt, style="bold"), end="")
    console.file.flush()
    line = stdin.readline()
    if not line:
        raise _Quit  # the input ended: save, as q does
    if not console.is_terminal:
        console.print(line.rstrip("\n"))  # a piped answer, echoed so the log reads well
    text = line.strip()
    if text.lower() in ("q", "quit"):
        raise _Quit
    return text


def _amount_word(button: Button, text: str) -> str:
    """Words for the bounds: ``max`` (or ``all``) and ``min``; other text as typed."""
    word = text.strip().lower()
    if word in ("max", "all"):
        return str(button.max_amount)
    if word == "min":
        return str(button.min_amount)
    return text


def _turn(
    session: Session,
    console: Console,
    stdin: IO[str],
    marked: set[int],
) -> str | None:
    """Read and apply one input; returns a message to show (a refusal), or None."""
    text = _read(stdin, console, "> ")
    if not text:
        return "type one of the keys in [ ] (? for help)"
    if text in ("?", "h", "help"):
        return _Note("Keys: " + _KEYS_HELP[session.game] + "; q saves and quits.")
    tokens = text.replace(",", " ").split()
    if tokens[0].isdigit():
        # Card numbers: mark or unmark cards for the draw.
        if not any(b.takes_cards for b in session.buttons()):
            return f"{text!r}: cards are marked only in the draw, when it is your turn to draw"
        try:
            numbers = session.check_cards(tokens)
        except InputError as exc:
            return str(exc)
        marked.symmetric_difference_update(numbers)
        session.marked = sorted(marked)
        return None
    try:
        button = session.find_button(tokens[0])
    except InputError as exc:
        return str(exc)
    amount: str | None = tokens[1] if len(tokens) > 1 and not button.takes_cards else None
    if amount is not None and button.takes_amount:
        amount = _amount_word(button, amount)
    cards: list[str] = []
    if button.takes_cards:
        cards = tokens[1:] if len(tokens) > 1 else [str(c) for c in sorted(marked)]
        if len(tokens) > 1 and marked:
            # Changing cards cannot be taken back: typed numbers that are not the marked
            # cards are refused rather than silently put in their place.
            try:
                typed = set(session.check_cards(cards))
            except InputError as exc:
                return str(exc)
            if typed != marked:
                shown = " ".join(str(c) for c in sorted(marked))
                return (
                    f"{text!r}: cards {shown} are marked; type '{button.key}' alone to change "
                    f"them, or unmark them first (type {shown}) to change only what you typed"
                )
    elif len(tokens) > 2:
        return f"{text!r}: too many words; e.g. '{button.key} {button.min_amount or ''}'".strip()
    if button.takes_amount and amount is None:
        ask = f"{button.label}: how much ({button.min_amount}..{button.max_amount}"
        ask += f", {button.amount_help}" if button.amount_help else ""
        ask += "; an empty line to choose another button)? "
        if _short(console) or (console.is_terminal and cell_len(ask) >= console.size.width):
            # One line, so that the screen drawn to fit the window stays in view.
            ask = f"{button.label} ({button.min_amount}..{button.max_amount}; empty: back)? "
        while True:
            amount = _amount_word(button, _read(stdin, console, ask))
            if not amount:
                return _Note("No amount given: choose a button again.")
            if amount.strip().lower() in ("?", "h", "help"):
                console.print(
                    f"A whole number from {button.min_amount} to {button.max_amount}, "
                    "'min' or 'max' ('all'); an empty line to choose another button."
                )
                continue
            try:
                session.act(button.name, amount)
                marked.clear()
                return None
            except InputError as exc:
                console.print(Text(f"Not accepted: {exc}", style="bold red"))
    try:
        session.act(button.name, amount, cards)
    except InputError as exc:
        return str(exc)
    marked.clear()
    return None


def _write_save(session: Session, path: Path) -> None:
    """The save, whole or not at all (a kill mid-write leaves the previous one)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(session.to_json())
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _save(session: Session, path: Path, console: Console) -> None:
    _write_save(session, path)
    opts = f"{session.game} --resume {path}"
    again = command_for("poker-play")
    console.print(
        Text(f"Saved to {path}. Continue with: {again} {opts}", style="bold"), soft_wrap=True
    )


def play(
    session: Session,
    save_path: Path,
    stdin: IO[str] | None = None,
    console: Console | None = None,
    resumed: bool | None = None,
) -> int:
    """Play ``session`` at the terminal until it ends or the person quits (then save).

    ``resumed``: the game was resumed from ``save_path`` (its file then keeps the
    finished game; a new game's file is removed at its end). None: whether
    ``save_path`` exists now.

    Returns the exit status (0).
    """
    stdin = stdin if stdin is not None else sys.stdin
    console = console if console is not None else Console()
    marked: set[int] = set(session.marked)
    message: str | None = None
    # The game is saved after every action, so that a kill (SIGTERM, a closed
    # terminal) loses nothing; a finished game leaves no save behind unless it was
    # resumed from one.
    existed = save_path.exists() if resumed is None else resumed
    # At a terminal, a hand that ends in a showdown stays on the screen until the
    # person goes on (as the browser's pause); piped input reads no such line.
    try:
        while not session.is_over:
            if console.is_terminal:
                console.clear()
                sd = session.view()["showdown"]
                if sd is not None and sd["hand"] != session.showdown_seen:
                    render_pause(session, console, message)
                    go_on, message = _pause_turn(console, stdin)
                    if go_on:
                        session.showdown_seen = sd["hand"]
                    continue
            # At a terminal the showdown was shown by the pause; its lines stay in the list.
            render_screen(
                session, console, frozenset(marked), message, showdown=not console.is_terminal
            )
            message = _turn(session, console, stdin, marked)
            session.marked = sorted(marked)
            if not session.is_over:
                _write_save(session, save_path)
    except (_Quit, KeyboardInterrupt):
        console.print()
        _save(session, save_path, console)
        return 0
    if existed:
        _write_save(session, save_path)  # a resumed game's file holds how it ended
    else:
        save_path.unlink(missing_ok=True)
    render_screen(session, console)
    return 0


def check_save_path(path: Path, game: str, resuming: Path | None = None) -> None:
    """Refuse, before a game starts, a save file that the game could not write, or
    whose unfinished game it would overwrite (``resuming``: the file the game is
    resumed from, which it may go on writing).

    Raises:
        SaveFileError: naming the file and what to do instead.
    """
    if path.is_dir():
        raise SaveFileError(f"--save {path} is a folder; give a file name (e.g. {game}-save.json)")
    if not path.parent.is_dir():
        raise SaveFileError(f"--save {path}: the folder {path.parent} does not exist")
    if not path.exists() or (resuming is not None and path.resolve() == resuming.resolve()):
        return
    try:
        d = parse_save(path.read_bytes())
    except (SaveFileError, OSError):
        raise SaveFileError(
            f"{path} exists and is not a saved game: give another file with --save FILE"
        ) from None
    ui = d.get("ui")
    if not (isinstance(ui, dict) and ui.get("over") is True):
        raise SaveFileError(
            f"{path} holds an unfinished {d['game']} game (seed {d['seed']}): continue it "
            f"with {command_for('poker-play')} {d['game']} --resume {path}, or give this game "
            "another file "
            "with --save FILE"
        )


def _parser(trained: str = "") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="poker-play",
        description="Play against the computer: five-card draw (with her wardrobe), "
        "Red Dog, Texas Hold'em; or serve the browser version."
        + (f" The {trained}; easy plays every table." if trained else ""),
    )
    sub = p.add_subparsers(dest="game", required=True, metavar="{draw,reddog,holdem,web}")
    for game, help_ in (
        ("draw", "five-card draw against the computer, the whole match with her wardrobe"),
        ("reddog", "a seat at a Red Dog table among computer players"),
        ("holdem", "a seat at a Texas Hold'em table among computer players"),
    ):
        aliases = ["red-dog"] if game == "reddog" else []  # (the other commands' name)
        q = sub.add_parser(game, aliases=aliases, help=help_, description=help_)
        q.add_argument(
            "--opponent",
            default="easy",
            help="easy (heuristic, every table), normal, hard (shipped models: "
            + (f"{trained}" if trained else "see poker-play --help")
            + "), a baseline (random, call, heuristic), a policy FILE.npz or shipped:NAME",
        )
        q.add_argument("--seed", type=int, default=None, help="seed of the deals (default random)")
        q.add_argument(
            "--money",
            type=int,
            default=None,
            help="starting money (draw 500, Red Dog 50 chips, Hold'em 100 big blinds)",
        )
        q.add_argument("--resume", metavar="FILE", help="continue a saved game")
        q.add_argument(
            "--save", metavar="FILE", help=f"where q saves (default {game}-save.json here)"
        )
        if game == "draw":
            q.add_argument("--deck", type=int, choices=(32, 52), default=52)
            q.add_argument("--items", type=int, default=6, help="items in her wardrobe (1-6)")
        else:
            q.add_argument(
                "--players",
                type=int,
                default=4 if game == "reddog" else 2,
                help="players at the table, you included (2-10)",
            )
    w = sub.add_parser(
        "web",
        help="serve the browser version: poker-serve's options (--port, --host, --data; "
        "poker-play web --help)",
    )
    w.add_argument("args", nargs=argparse.REMAINDER, help="poker-serve's options")
    return p


def main(
    argv: Sequence[str] | None = None,
    stdin: IO[str] | None = None,
    console: Console | None = None,
) -> int:
    """The ``poker-play`` command; returns the exit status (2 for bad options)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["web"]:  # the browser's options are its own (poker-serve's)
        from poker_env_agents.play.web.app import main as serve

        return serve(words[1:], prog="poker-play web")
    # Which tables have trained opponents is read from the models folder: for --help only.
    trained = trained_summary() if {"-h", "--help"} & set(words) else ""
    args = _parser(trained).parse_args(words)
    if args.game == "red-dog":
        args.game = "reddog"
    if args.game == "web":
        from poker_env_agents.play.web.app import main as serve

        return serve(args.args)
    console = console if console is not None else Console()
    save = Path(args.save if args.save else f"{args.game}-save.json")
    try:
        resuming = Path(args.resume) if args.resume else None
        if args.resume:
            try:
                text = Path(args.resume).read_text(encoding="utf-8")
            except OSError as exc:
                raise SaveFileError(f"cannot read {args.resume}: {exc.strerror}") from None
            except UnicodeDecodeError:
                raise SaveFileError(f"{args.resume} is not a saved game (not text)") from None
            session = load_session(text, args.game)
            if not args.save:
                save = Path(args.resume)
        else:
            seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
            opts: dict[str, Any] = {"opponent": args.opponent, "seed": seed}
            if args.money is not None:
                low = MIN_MONEY[args.game]
                if args.money < low:
                    raise ConfigError(
                        "--money",
                        args.money,
                        f"at least {low} in {GAME_TITLES[args.game]} (with less no hand "
                        "can be played)",
                    )
                opts["money"] = args.money
            if args.game == "draw":
                opts.update(deck=args.deck, items=args.items)
            else:
                opts["players"] = args.players
            session = new_session(args.game, **opts)
        # After the options (a bad --money is named first, not a save file in the way).
        if args.save or resuming is None:  # (a resumed game goes on in its own file)
            check_save_path(save, args.game, resuming)
    except (ConfigError, SaveFileError, PolicyFileError, OSError) as exc:
        if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
            exc = SaveFileError(f"{exc.filename}: {exc.strerror.lower()}")  # no "[Errno 2]"
        console.print(
            f"poker-play: cannot start: {exc}", markup=False, highlight=False, soft_wrap=True
        )
        return 2
    if args.game not in GAME_NAMES:  # pragma: no cover - argparse's choices
        return 2
    resumed = resuming is not None and save.resolve() == resuming.resolve()
    return play(session, save, stdin, console, resumed=resumed)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
