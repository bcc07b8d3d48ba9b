"""Baseline policies for every game: random legal, call station and one heuristic each.

Every baseline is a :class:`~poker_env.policy.Policy` (``act``) and a
:class:`~poker_env.policy.BatchPolicy` (``act_batch``, numpy or compiled over rows,
no Python loop per table), so it plays inside the single, AEC and vector envs.

| game | random | call station | heuristic |
|---|---|---|---|
| five-card draw (FiveCardDraw-v0, DrawMatch-v0) | ``RandomPolicy`` | :class:`~agents.baselines.draw.DrawCallStation` | :class:`~agents.baselines.draw.DrawHeuristic` |
| Red Dog (RedDog-v0) | ``RandomPolicy`` | :class:`~agents.baselines.red_dog.RedDogCallStation` | :class:`~agents.baselines.red_dog.ReferencePolicy` |
| Hold'em (Holdem-v0) | ``RandomPolicy`` | :class:`~agents.baselines.holdem.HoldemCallStation` | :class:`~agents.baselines.holdem.HoldemEquityBot` |

``agents.catalog.make_baseline(game, kind, seed, **options)`` builds one by name.
"""

from __future__ import annotations

from agents.baselines.draw import DrawCallStation, DrawHeuristic
from agents.baselines.holdem import HoldemCallStation, HoldemEquityBot
from agents.baselines.red_dog import RedDogCallStation, ReferencePolicy
from poker_env.policy import RandomPolicy

__all__ = [
    "DrawCallStation",
    "DrawHeuristic",
    "HoldemCallStation",
    "HoldemEquityBot",
    "RandomPolicy",
    "RedDogCallStation",
    "ReferencePolicy",
]
