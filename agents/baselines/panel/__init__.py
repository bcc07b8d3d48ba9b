"""The held-out evaluation panel: rule bots of distinct named styles, per game.

Written from poker knowledge, outside the training mix: the panel is **never** a
training opponent, a warm-start teacher or a feature. Only evaluation imports it
(import-linter: ``poker_env_agents.training``, ``.features``, ``.registry``,
``.evaluate``, ``.opponent`` and ``.runtime`` never import this package), and a
training config that names a panel bot is refused
(:func:`poker_env_agents.baselines.heldout.refuse_panel_names`).

- Five-card draw (``draw`` 52 or 32 cards, and the human seat of ``draw-match``):
  :mod:`poker_env_agents.baselines.panel.draw`, :data:`~.draw.DRAW_STYLES`.
- Hold'em (``holdem``, heads-up and 6-max): :mod:`poker_env_agents.baselines.panel.holdem`,
  :data:`~.holdem.HOLDEM_STYLES`.

Every bot is a ``Policy`` and a ``BatchPolicy`` (``act``, ``act_batch``), every
random draw from its seeded Generator. ``docs/agents.md`` lists them with what each
does. Evaluation against the whole panel: :mod:`poker_env_agents.analysis.panel`.
"""

from __future__ import annotations

from typing import Any

from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy
from poker_env_agents.baselines.heldout import PANEL_PREFIX
from poker_env_agents.baselines.panel.draw import DRAW_STYLES, DrawPanelBot
from poker_env_agents.baselines.panel.holdem import HOLDEM_STYLES, HoldemPanelBot

__all__ = ["family", "make_panel_bot", "panel_names", "panel_summaries"]

_GAMES = ("draw", "draw-match", "holdem")


def family(game: str) -> str:
    """The panel a game uses: ``"draw"`` (draw, draw-match) or ``"holdem"``."""
    if game not in _GAMES:
        raise ConfigError("game", game, f"a game with a panel: one of {_GAMES}")
    return "holdem" if game == "holdem" else "draw"


def panel_names(game: str) -> tuple[str, ...]:
    """The panel's style names for ``game``, in the documented order."""
    return tuple(HOLDEM_STYLES if family(game) == "holdem" else DRAW_STYLES)


def panel_summaries(game: str) -> dict[str, str]:
    """Style name -> what the bot does (the docs table's text)."""
    styles: dict[str, Any] = HOLDEM_STYLES if family(game) == "holdem" else DRAW_STYLES
    return {name: s.summary for name, s in styles.items()}


def make_panel_bot(game: str, name: str, seed: int = 0, **options: Any) -> BatchPolicy:
    """The panel bot ``name`` (``nit`` or ``panel:nit``) for ``game``'s env with
    ``options`` (``deck`` for draw; ``raise_fractions`` / ``pot_fractions`` where the
    env sets them); every random draw from a Generator seeded ``seed``."""
    style = name[len(PANEL_PREFIX) :] if name.startswith(PANEL_PREFIX) else name
    names = panel_names(game)
    if style not in names:
        raise ConfigError("panel bot", name, f"one of {', '.join(names)} (for {game})")
    if family(game) == "holdem":
        kw = {}
        if "raise_fractions" in options:
            kw["raise_fractions"] = options["raise_fractions"]
        return HoldemPanelBot(style, seed, **kw)
    return DrawPanelBot(
        style,
        seed,
        deck=options.get("deck", 52),
        **({"pot_fractions": options["pot_fractions"]} if "pot_fractions" in options else {}),
    )
