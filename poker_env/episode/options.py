"""Env options that every game's faces share (single, batched, multi-agent).

One definition for each, so the faces cannot drift apart in what they accept.
"""

from __future__ import annotations

from poker_env.errors import ConfigError

__all__ = ["ILLEGAL_ACTION_MODES", "check_illegal_action"]

#: Values of the ``illegal_action`` option, the default first (STYLE.md, Environments):
#: "passive" plays the passive action for a masked-out one and says so in ``info``;
#: "raise" raises ``IllegalActionError`` (the strict mode for debugging).
ILLEGAL_ACTION_MODES: tuple[str, ...] = ("passive", "raise")


def check_illegal_action(mode: object) -> str:
    """Validate the ``illegal_action`` option: ``"passive"`` or ``"raise"``.

    Raises:
        ConfigError: naming ``illegal_action`` and the allowed values.
    """
    if not isinstance(mode, str) or mode not in ILLEGAL_ACTION_MODES:
        raise ConfigError(
            "illegal_action",
            mode,
            "'passive' or 'raise' ('passive', the default: a masked-out action plays the "
            "passive action)",
        )
    return mode
