"""The names of the held-out panel, for the code that must refuse them.

The panel (:mod:`poker_env_agents.baselines.panel`) is imported by evaluation only;
training, the features and the registry's training-facing names never import it (an
import-linter contract). This module holds its names alone, so that a training
config naming a panel bot fails with a clear error instead of a puzzling one.
``tests/agents/test_panel.py`` checks that these lists are the panel's.
"""

from __future__ import annotations

from collections.abc import Iterable

from poker_env.errors import ConfigError

__all__ = ["PANEL_NAMES", "PANEL_PREFIX", "is_panel_name", "refuse_panel_names"]

#: How a command line names a panel bot: ``panel:<style>``.
PANEL_PREFIX = "panel:"

#: Style names of the panel per game family (five-card draw; Hold'em).
PANEL_NAMES: dict[str, tuple[str, ...]] = {
    "draw": (
        "tight-passive",
        "tight-aggressive",
        "loose-aggressive",
        "loose-passive",
        "nit",
        "maniac",
        "calling-station",
        "stand-pat-bluffer",
        "check-raiser",
        "pot-odds-caller",
        "pot-bully",
    ),
    "holdem": (
        "tight-aggressive",
        "loose-aggressive",
        "tight-passive",
        "loose-passive",
        "nit",
        "maniac",
        "calling-station",
        "barrel-bluffer",
        "check-raiser",
        "short-stack-shover",
        "pot-odds-caller",
    ),
}


def is_panel_name(name: str) -> bool:
    """True for ``panel:<anything>`` and for a panel style's bare name."""
    text = name.strip().lower()
    if text.startswith(PANEL_PREFIX):
        return True
    return any(text == n for names in PANEL_NAMES.values() for n in names)


def refuse_panel_names(fields: dict[str, Iterable[str]]) -> None:
    """ConfigError for the first field (name -> the names it gives) naming a panel bot."""
    for field, names in fields.items():
        for name in names:
            if isinstance(name, str) and is_panel_name(name):
                raise ConfigError(
                    field,
                    name,
                    "a training opponent or teacher that is not in the held-out panel (the "
                    "panel is for evaluation only, never trained on): a baseline kind "
                    "(random, call, heuristic), pool, fixed, or a FILE.npz",
                )
