"""Policies by name: what the command-line scripts accept as a player.

A player is named by one of

- a baseline kind: ``random``, ``call``, ``heuristic`` (:mod:`agents.baselines`);
- an exported policy file ``*.npz`` (:mod:`agents.runtime`, numpy only), optionally
  followed by ``@argmax`` (default), ``@sample`` or ``@t=<temperature>``;
- an SB3 model ``*.zip`` (a checkpoint of :mod:`agents.train`; needs torch), played
  masked and deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from agents.games import get_game
from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy

__all__ = ["BASELINE_KINDS", "SB3Policy", "make_baseline", "parse_option", "resolve_policy"]

BASELINE_KINDS = ("random", "call", "heuristic")


def make_baseline(game: str, kind: str, seed: int = 0, **options: Any) -> BatchPolicy:
    """The baseline ``kind`` (``random``, ``call``, ``heuristic``) of ``game`` for its
    env with ``options``; every random draw from a Generator seeded ``seed``."""
    from poker_env.policy import RandomPolicy

    spec = get_game(game)
    opts = spec.options(options)
    if kind not in BASELINE_KINDS:
        raise ConfigError("baseline", kind, f"one of {BASELINE_KINDS}")
    if kind == "random":
        return RandomPolicy(seed)
    if spec.name in ("draw", "draw-match"):
        from agents.baselines.draw import DrawCallStation, DrawHeuristic

        if kind == "call":
            return DrawCallStation()
        return DrawHeuristic(seed, deck=opts["deck"])
    if spec.name == "red-dog":
        from agents.baselines.red_dog import RedDogCallStation, ReferencePolicy

        return RedDogCallStation() if kind == "call" else ReferencePolicy()
    from agents.baselines.holdem import HoldemCallStation, HoldemEquityBot

    return HoldemCallStation() if kind == "call" else HoldemEquityBot(seed)


def parse_option(text: str) -> tuple[str, Any]:
    """``"num_players=6"`` -> ``("num_players", 6)`` (Python literals; else the string)."""
    import ast

    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


class SB3Policy:
    """A MaskablePPO model (a training checkpoint) as a ``Policy``/``BatchPolicy``."""

    def __init__(self, path: str | Path, deterministic: bool = True) -> None:
        from sb3_contrib import MaskablePPO

        self.model = MaskablePPO.load(str(path), device="cpu")
        self.deterministic = deterministic

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        acts, _ = self.model.predict(
            np.asarray(observations, np.float32),
            action_masks=np.asarray(action_masks) != 0,
            deterministic=self.deterministic,
        )
        return np.asarray(acts, np.int64).reshape(len(action_masks))

    def act(self, observation: NDArray[np.floating], action_mask: NDArray[np.int8]) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])


def resolve_policy(
    name: str, game: str, options: Mapping[str, Any] | None = None, seed: int = 0
) -> BatchPolicy:
    """The player ``name`` for ``game`` (see the module docstring)."""
    spec = get_game(game)
    opts = spec.options(options)
    if name in BASELINE_KINDS:
        return make_baseline(game, name, seed=seed, **opts)
    path_text, _, mode = name.partition("@")
    path = Path(path_text)
    if path.suffix == ".npz":
        from agents.runtime import load_policy

        if mode in ("", "argmax"):
            kw: dict[str, Any] = {"deterministic": True}
        elif mode == "sample":
            kw = {"deterministic": False}
        elif mode.startswith("t="):
            try:
                kw = {"deterministic": False, "temperature": float(mode[2:])}
            except ValueError:
                raise ConfigError("policy", name, "FILE.npz@t=<number>") from None
        else:
            raise ConfigError("policy", name, "FILE.npz, FILE.npz@argmax, @sample or @t=<number>")
        env = spec.make_env(opts)
        return load_policy(path, env, seed=seed, **kw)
    if path.suffix == ".zip":
        return SB3Policy(path)
    raise ConfigError(
        "policy", name, f"one of {BASELINE_KINDS}, an exported FILE.npz or an SB3 FILE.zip"
    )
