"""Sessions by game name: start one, or load a saved one."""

from __future__ import annotations

from typing import Any

from poker_env.errors import ConfigError
from poker_env_agents.play.common import GAME_NAMES, Session, parse_save
from poker_env_agents.play.draw import DrawSession
from poker_env_agents.play.holdem import HoldemSession
from poker_env_agents.play.red_dog import RedDogSession

__all__ = ["SESSIONS", "load_session", "new_session"]

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
    return cls.load(envelope)
