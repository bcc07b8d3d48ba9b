"""Baseline policies for every game: random legal, call station and one heuristic each.

Every baseline is a :class:`~poker_env.policy.Policy` (``act``) and a
:class:`~poker_env.policy.BatchPolicy` (``act_batch``, numpy or compiled over rows,
no Python loop per table), so it plays inside the single, AEC and vector envs.

| game | random | call station | heuristic |
|---|---|---|---|
| five-card draw (FiveCardDraw-v0, DrawMatch-v0) | ``RandomPolicy`` | :class:`~poker_env_agents.baselines.draw.DrawCallStation` | :class:`~poker_env_agents.baselines.draw.DrawHeuristic` |
| Red Dog (RedDog-v0) | ``RandomPolicy`` | :class:`~poker_env_agents.baselines.red_dog.RedDogCallStation` | :class:`~poker_env_agents.baselines.red_dog.ReferencePolicy` |
| Hold'em (Holdem-v0) | ``RandomPolicy`` | :class:`~poker_env_agents.baselines.holdem.HoldemCallStation` | :class:`~poker_env_agents.baselines.holdem.HoldemEquityBot` |

``poker_env_agents.registry.make_baseline(game, kind, seed, **options)`` builds one by name.
"""

from __future__ import annotations

from poker_env.policy import RandomPolicy
from poker_env_agents.baselines.draw import DrawCallStation, DrawHeuristic
from poker_env_agents.baselines.holdem import HoldemCallStation, HoldemEquityBot
from poker_env_agents.baselines.red_dog import RedDogCallStation, ReferencePolicy

__all__ = [
    "DrawCallStation",
    "DrawHeuristic",
    "HoldemCallStation",
    "HoldemEquityBot",
    "RandomPolicy",
    "RedDogCallStation",
    "ReferencePolicy",
]
