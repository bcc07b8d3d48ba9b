"""Play against the computer: the terminal and browser front ends.

A front end translates between a person and a game's object API plus
:class:`poker_env_agents.opponent.ComputerOpponent`; it holds no rules (DESIGN.md). The
translation both front ends share is a *session* per game
(:mod:`poker_env_agents.play.draw`, :mod:`poker_env_agents.play.red_dog`, :mod:`poker_env_agents.play.holdem`):
the buttons legal now with their amount bounds, a person's action checked and
applied, the computer seats played until the person must act again, a JSON-able
view of the table from the person's seat, and a JSON save that replays the game.

- :mod:`poker_env_agents.play.terminal`: ``poker-play draw|reddog|holdem`` (``scripts/play.py``).
- :mod:`poker_env_agents.play.web`: ``poker-play web`` (``scripts/serve.py``), a Starlette app.
"""

from __future__ import annotations

from poker_env_agents.play.common import GAME_NAMES, Button, InputError, SaveFileError, Session
from poker_env_agents.play.sessions import load_session, new_session

__all__ = [
    "GAME_NAMES",
    "Button",
    "InputError",
    "SaveFileError",
    "Session",
    "load_session",
    "new_session",
]
