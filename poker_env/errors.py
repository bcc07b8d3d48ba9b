"""Exceptions shared by every layer of :mod:`poker_env`."""

from __future__ import annotations

__all__ = ["ConfigError", "IllegalActionError", "PokerEnvError"]


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
