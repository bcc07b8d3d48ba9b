"""Exceptions shared by every layer of :mod:`poker_env`."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "ArgumentError",
    "ConfigError",
    "EpisodeFinishedError",
    "HistoryError",
    "IllegalActionError",
    "PokerEnvError",
    "as_int",
]


class PokerEnvError(Exception):
    """Base class of every error raised by :mod:`poker_env`."""


class ConfigError(PokerEnvError, ValueError):
    """A configuration field has a value outside what is allowed.

    The message names the field, the bad value and what is allowed.
    """

    def __init__(self, field: str, value: object, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"bad config: {field}={value!r}; allowed: {allowed}")


class IllegalActionError(PokerEnvError, ValueError):
    """An action was refused; the game state is unchanged.

    The message names the action, the legal actions and the phase.
    """

    def __init__(self, action: object, legal: object, phase: object, reason: str = "") -> None:
        self.action = action
        self.legal = legal
        self.phase = phase
        self.reason = reason
        why = f" ({reason})" if reason else ""
        super().__init__(f"illegal action {action!r} in phase {phase}{why}; legal: {legal}")


class ArgumentError(PokerEnvError, ValueError):
    """An argument of a game's query (a seat number, ...) is outside what is allowed.

    The message names the argument, the bad value and what is allowed; nothing changes.
    """

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"bad argument: {name}={value!r}; allowed: {allowed}")


class HistoryError(PokerEnvError, ValueError):
    """A saved game or hand history cannot be replayed, or its replay contradicts it.

    Raised by the replays (``DrawGame.from_json``, ``RedDogGame.from_json``,
    ``holdem.replay_json``, ``holdem_phh.from_phh``) for corrupt text, a missing or
    malformed field, a history of another game, an action the rules refuse, and a
    claim of the history (final stacks, bank, who won, ...) that the replay does not
    reproduce. ``field`` names the part of the history at fault (``"config.ante"``,
    ``"actions[3]"``, ``"result.stacks"``); the message also says what is allowed.
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"bad hand history, field {field}: {reason}")


class EpisodeFinishedError(PokerEnvError, RuntimeError):
    """``step()`` was called on an env whose episode has ended (or never started).

    Every env (Gymnasium, PettingZoo and batched) raises this one type with this
    one message; nothing changes.
    """

    MESSAGE = "step() on a finished or never reset episode: call reset() first"

    def __init__(self, env: str = "") -> None:
        self.env = env
        where = f"{env}: " if env else ""
        super().__init__(where + self.MESSAGE)


def as_int(value: object) -> int | None:
    """``value`` as a Python int when it is an integer, else None.

    Integers are Python ints, numpy integers and 0-d integer arrays (what
    ``Discrete.sample()`` and SB3 hand over). Floats (``7.9``, also ``7.0``),
    strings, bools and everything else give None, so the caller can raise its
    own error naming the value and what is allowed.
    """
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, np.ndarray):
        if value.ndim != 0 or value.dtype.kind not in "iu":
            return None
        return int(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    return None
