"""Play against the computer: the terminal and browser front ends.

A front end translates between a person and a game's object API plus
:class:`agents.opponent.ComputerOpponent`; it holds no rules (DESIGN.md). The
translation both front ends share is a *session* per game
(:mod:`agents.play.draw`, :mod:`agents.play.red_dog`, :mod:`agents.play.holdem`):
the buttons legal now with their amount bounds, a person's action checked and
applied, the computer seats played until the person must act again, a JSON-able
view of the table from the person's seat, and a JSON save that replays the game.

- :mod:`agents.play.terminal`: ``poker-play draw|reddog|holdem`` (``scripts/play.py``).
- :mod:`agents.play.web`: ``poker-play web`` (``scripts/serve.py``), a Starlette app.
"""

from __future__ import annotations

from agents.play.common import GAME_NAMES, Button, InputError, SaveFileError, Session
from agents.play.sessions import load_session, new_session

__all__ = [
    "GAME_NAMES",
    "Button",
    "InputError",
    "SaveFileError",
    "Session",
    "load_session",
    "new_session",
]
