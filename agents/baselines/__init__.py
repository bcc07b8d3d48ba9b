"""Baseline policies for every game: random legal, call station and one heuristic each.

Every baseline is a :class:`~poker_env.policy.Policy` (``act``) and a
:class:`~poker_env.policy.BatchPolicy` (``act_batch``, numpy or compiled over rows,
no Python loop per table), so it plays inside the single, AEC and vector envs.

| game | random | call station | heuristic |
|---|---|---|---|
| ``draw`` (FiveCardDraw-v0, DrawMatch-v0) | ``RandomPolicy`` | :class:`~agents.baselines.draw.DrawCallStation` | :class:`~agents.baselines.draw.DrawHeuristic` |
| ``red_dog`` (RedDog-v0) | ``RandomPolicy`` | :class:`~agents.baselines.red_dog.RedDogCallStation` | :class:`~agents.baselines.red_dog.ReferencePolicy` |
| ``holdem`` (Holdem-v0) | ``RandomPolicy`` | :class:`~agents.baselines.holdem.HoldemCallStation` | :class:`~agents.baselines.holdem.HoldemEquityBot` |

:func:`make_baseline` builds one by name, e.g. for a command line.
"""

from __future__ import annotations

from typing import Any

from agents.baselines.draw import DrawCallStation, DrawHeuristic
from agents.baselines.holdem import HoldemCallStation, HoldemEquityBot
from agents.baselines.red_dog import RedDogCallStation, ReferencePolicy
from poker_env.policy import RandomPolicy

__all__ = [
    "GAMES",
    "KINDS",
    "DrawCallStation",
    "DrawHeuristic",
    "HoldemCallStation",
    "HoldemEquityBot",
    "RandomPolicy",
    "RedDogCallStation",
    "ReferencePolicy",
    "make_baseline",
]

#: Game names, and the env ids each stands for.
GAMES: dict[str, tuple[str, ...]] = {
    "draw": ("poker_env/FiveCardDraw-v0", "poker_env/DrawMatch-v0"),
    "red_dog": ("poker_env/RedDog-v0",),
    "holdem": ("poker_env/Holdem-v0",),
}
#: Baseline kinds.
KINDS: tuple[str, ...] = ("random", "call", "heuristic")

# The env options a baseline must share with its env (the observation does not say).
_USES: dict[tuple[str, str], tuple[str, ...]] = {
    ("draw", "call"): (),
    ("draw", "heuristic"): ("deck", "flush_beats_full_house", "pot_fractions"),
    ("red_dog", "call"): ("bet_fractions",),
    ("red_dog", "heuristic"): ("bet_fractions",),
    ("holdem", "call"): (),
    ("holdem", "heuristic"): ("raise_fractions",),
}
_ENV_OPTIONS = frozenset(
    ("deck", "flush_beats_full_house", "pot_fractions", "bet_fractions", "raise_fractions")
)


def _game_name(game: str) -> str:
    for name, ids in GAMES.items():
        if game == name or game in ids or f"poker_env/{game}" in ids:
            return name
    allowed = sorted(GAMES) + [i for ids in GAMES.values() for i in ids]
    raise ValueError(f"unknown game {game!r}; allowed: {', '.join(allowed)}")


def make_baseline(game: str, kind: str, seed: int | None = None, **env_options: Any) -> Any:
    """A baseline by name: ``make_baseline("holdem", "heuristic", seed=0)``.

    Args:
        game: ``"draw"``, ``"red_dog"``, ``"holdem"`` or one of their env ids.
        kind: ``"random"``, ``"call"`` (call station) or ``"heuristic"``.
        seed: for the policies that draw random numbers (random, the draw and
            Hold'em heuristics).
        env_options: the env's options that a baseline must know (``deck``,
            ``flush_beats_full_house``, ``pot_fractions``, ``bet_fractions``,
            ``raise_fractions``); each policy takes those it needs and ignores the rest.

    Returns:
        A policy with ``act`` and ``act_batch``.
    """
    name = _game_name(game)
    if kind not in KINDS:
        raise ValueError(f"unknown baseline kind {kind!r}; allowed: {', '.join(KINDS)}")
    unknown = sorted(set(env_options) - _ENV_OPTIONS)
    if unknown:
        raise ValueError(
            f"unknown env option(s) {unknown}; allowed: {', '.join(sorted(_ENV_OPTIONS))}"
        )
    if kind == "random":
        return RandomPolicy(seed)
    options = {k: v for k, v in env_options.items() if k in _USES[(name, kind)]}
    if name == "draw":
        return DrawHeuristic(seed, **options) if kind == "heuristic" else DrawCallStation()
    if name == "red_dog":
        return ReferencePolicy(**options) if kind == "heuristic" else RedDogCallStation(**options)
    return HoldemEquityBot(seed, **options) if kind == "heuristic" else HoldemCallStation()
