"""poker_env: fast, faithful poker environments for training agents.

Importing the package registers the Gymnasium ids (lazily: the env modules are
imported by ``gymnasium.make``, not here):

- ``poker_env/FiveCardDraw-v0``: one hand of five-card draw against a policy.
- ``poker_env/DrawMatch-v0``: a whole match with the clothing stakes.
- ``poker_env/RedDog-v0``: Red Dog (High-Card Pool), 2-10 players.
- ``poker_env/Holdem-v0``: Texas Hold'em, 2-10 players.
"""

from __future__ import annotations

from poker_env.cards import format_cards, make_deck, parse_cards, shuffled_deck
from poker_env.errors import ConfigError, IllegalActionError, PokerEnvError

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "IllegalActionError",
    "PokerEnvError",
    "__version__",
    "format_cards",
    "make_deck",
    "parse_cards",
    "shuffled_deck",
]

_ENV_IDS = {
    "poker_env/FiveCardDraw-v0": "poker_env.envs.draw:FiveCardDrawEnv",
    "poker_env/DrawMatch-v0": "poker_env.envs.draw:DrawMatchEnv",
    "poker_env/RedDog-v0": "poker_env.envs.red_dog:RedDogEnv",
    "poker_env/Holdem-v0": "poker_env.envs.holdem:HoldemEnv",
}


def _register_envs() -> None:
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # pragma: no cover - gymnasium is a core dependency
        return
    for env_id, entry_point in _ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point)


_register_envs()
