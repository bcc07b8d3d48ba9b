"""Sessions by game name: start one, or load a saved one."""

from __future__ import annotations

from typing import Any

from poker_env.errors import ConfigError
from poker_env.games.draw import DrawConfig
from poker_env.games.holdem import HoldemConfig
from poker_env.games.red_dog import RedDogConfig
from poker_env_agents.opponent import shipped_problem
from poker_env_agents.play.common import GAME_NAMES, Session, parse_save
from poker_env_agents.play.draw import DrawSession
from poker_env_agents.play.holdem import HoldemSession
from poker_env_agents.play.red_dog import RedDogSession

__all__ = [
    "GAME_TITLES",
    "MIN_MONEY",
    "SESSIONS",
    "TABLE_CHOICES",
    "load_session",
    "new_session",
    "trained_summary",
    "trained_tables",
]

#: The least starting money of each game: the draw's ante, one chip more than
#: Hold'em's big blind, one more than Red Dog's ante (with less no hand is played).
MIN_MONEY = {
    "draw": DrawConfig().ante,
    "holdem": HoldemConfig().base + 1,
    "reddog": RedDogConfig().ante + 1,
}
#: The games' names in a sentence.
GAME_TITLES = {"draw": "five-card draw", "holdem": "Texas Hold'em", "reddog": "Red Dog"}

SESSIONS: dict[str, type[DrawSession] | type[RedDogSession] | type[HoldemSession]] = {
    "draw": DrawSession,
    "reddog": RedDogSession,
    "holdem": HoldemSession,
}


def new_session(game: str, **options: Any) -> Session:
    """A new game of ``game`` (``draw``, ``reddog``, ``holdem``) with its options
    (``opponent``, ``seed`` and those of its session class).

    Raises:
        ConfigError: an unknown game or a bad option, naming it.
    """
    if game not in SESSIONS:
        raise ConfigError("game", game, f"one of {GAME_NAMES}")
    return SESSIONS[game](**options)


def load_session(text: str | bytes, game: str | None = None) -> Session:
    """The game saved in ``text`` (:meth:`Session.to_json`), replayed.

    Args:
        text: the saved JSON.
        game: refuse a save of another game than this one (None: any).

    Raises:
        SaveFileError: the text is not a save this can load, or its history is
            refused by the game's replay (tampered or truncated).
        ConfigError: the save's opponent level cannot be loaded (a missing model).
    """
    envelope = parse_save(text, game)
    cls = SESSIONS[envelope["game"]]
    session = cls.load(envelope)
    session.restore_ui(envelope.get("ui"))
    return session


#: The tables the front ends offer per game: the option and its values (the draw's
#: deck, the other games' number of players).
TABLE_CHOICES: dict[str, tuple[str, tuple[int, ...]]] = {
    "draw": ("deck", (52, 32)),
    "reddog": ("players", tuple(range(2, 11))),
    "holdem": ("players", tuple(range(2, 11))),
}
_OPPONENT_GAME = {
    "draw": ("draw-match", "deck"),
    "reddog": ("red-dog", "num_players"),
    "holdem": ("holdem", "num_players"),
}


def table_problem(game: str, value: int) -> str | None:
    """Why ``normal`` and ``hard`` cannot play ``game`` at this deck or table size
    (None: a shipped model plays it), decided from what ``agents/models/`` holds."""
    name, key = _OPPONENT_GAME[game]
    return shipped_problem(name, {key: value})


def trained_tables() -> dict[str, dict[int, str | None]]:
    """For every game and every deck or table size offered: None where ``normal`` and
    ``hard`` have a shipped model for it, else the reason (``easy`` plays them all)."""
    return {
        game: {v: table_problem(game, v) for v in values}
        for game, (_, values) in TABLE_CHOICES.items()
    }


def trained_summary() -> str:
    """Which tables ``normal`` and ``hard`` play, in one sentence per game."""
    words = {"draw": "five-card draw", "reddog": "Red Dog", "holdem": "Hold'em"}
    parts = []
    for game, table in trained_tables().items():
        ok = [v for v, problem in table.items() if problem is None]
        option = TABLE_CHOICES[game][0]
        if not ok:
            parts.append(f"{words[game]}: none")
        elif option == "deck":
            parts.append(f"{words[game]}: the {' and '.join(map(str, ok))}-card deck")
        else:
            parts.append(f"{words[game]}: {', '.join(map(str, ok))} players")
    return "trained opponents (normal, hard) play " + "; ".join(parts)
