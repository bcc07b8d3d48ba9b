"""The computer opponent: a policy at a chosen level, plus her wardrobe decisions.

``ComputerOpponent(game, level)`` is a ``Policy`` and a ``BatchPolicy``, usable as
any env's ``opponent=`` and by the play front ends:

| level | what plays |
|---|---|
| ``easy`` | the game's heuristic baseline (:mod:`poker_env_agents.baselines`) |
| ``normal`` | the shipped policy (``poker_env_agents/models/``), sampled from its softmax |
| ``hard`` | the shipped policy at its strongest setting (the masked argmax) |
| a path | that exported ``.npz`` policy (argmax; ``FILE.npz@sample`` samples) |
| ``shipped:NAME`` | the shipped policy ``NAME.npz`` (``shipped:draw32``; ``@sample`` samples) |

Her wardrobe (draw match, RULES.md §1): between hands, when she may buy back a
lost item, the env offers BUY_BACK (the last action index) beside the passive
action. A policy trained on ``DrawMatch-v0`` in her seat decides it; any other
policy (a one-pot ``FiveCardDraw-v0`` policy, a baseline) falls back to the rule
book's default: she buys back whenever she may (and she may only when she can
afford it: the env's mask says so). Staking items is never a decision: the rules
stake the next worn item when she must put in money she does not have.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy
from poker_env_agents.assets import SHIPPED_PREFIX, package_dir, shipped_file
from poker_env_agents.registry import BASELINE_KINDS, get_game, make_baseline, resolve_policy

__all__ = ["LEVELS", "MODELS_DIR", "ComputerOpponent", "shipped_model", "shipped_problem"]

LEVELS = ("easy", "normal", "hard")
#: The shipped policies: ``poker_env_agents/models/`` wherever the package is installed.
MODELS_DIR = package_dir("poker_env_agents", "models")


def shipped_model(game: str, options: Mapping[str, Any] | None = None) -> Path:
    """The path of the shipped policy for ``game`` with ``options`` (it may not exist)."""
    spec = get_game(game)
    opts = spec.options(options)
    if spec.name == "draw":
        name = f"draw{opts['deck']}"
    elif spec.name == "draw-match":
        name = f"draw_match{opts['deck']}"
    elif spec.name == "red-dog":
        name = "red_dog"
    else:
        name = "holdem_hu" if opts["num_players"] == 2 else f"holdem_{opts['num_players']}max"
    return MODELS_DIR / f"{name}.npz"


def _trained_for(exc: Exception, path: Path) -> str:
    """A policy file's refusal in a person's words, with the file's name only (never a path)."""
    text = str(exc).replace(str(path), path.name)
    diffs = dict(
        (k, (a.strip(), b.strip()))
        for k, a, b in re.findall(r"env option (\w+): file ([^,;]+), env ([^;]+)", text)
    )
    words = {
        "num_players": lambda v: f"{v} players",
        "deck": lambda v: f"the {52 if 'standard' in v else 32}-card deck",
    }
    said = [(words[k](a), words[k](b)) for k, (a, b) in diffs.items() if k in words]
    if said:
        was = ", ".join(a for a, _ in said)
        now = ", ".join(b for _, b in said)
        return f"the shipped model {path.name} was trained for {was}, not {now}"
    if diffs:
        was = ", ".join(f"{k} {a}" for k, (a, _) in diffs.items())
        now = ", ".join(f"{k} {b}" for k, (_, b) in diffs.items())
        return f"the shipped model {path.name} was trained for {was}, not {now}"
    return text


def shipped_problem(game: str, options: Mapping[str, Any] | None = None) -> str | None:
    """Why ``normal`` and ``hard`` cannot play ``game`` with ``options`` (None: they can).

    Decided from what ``agents/models/`` holds: the shipped file must exist and match
    the env (the same check as loading it). The reason names the file, never a path.
    """
    path = shipped_model(game, options)
    spec = get_game(game)
    opts = spec.options(options)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return f"no trained opponent for this table (no shipped model {path.name})"
    return _shipped_problem(spec.name, json.dumps(opts, sort_keys=True), str(path), stamp)


@lru_cache(maxsize=256)
def _shipped_problem(game: str, opts_json: str, path_text: str, stamp: int) -> str | None:
    # Cached by the file's modification time: a model shipped while running counts.
    from poker_env_agents.runtime import PolicyFileError

    opts = json.loads(opts_json)
    path = Path(path_text)
    try:
        resolve_policy(path_text + "@argmax", game, opts, 0)
    except (PolicyFileError, ConfigError, OSError, ValueError) as exc:
        return _trained_for(exc, path)
    return None


class ComputerOpponent:
    """A computer player of ``game`` at ``level`` (see the module docstring).

    Args:
        game: a name of :data:`poker_env_agents.registry.GAMES` (``draw-match`` for the match with
            her wardrobe).
        level: ``easy``, ``normal``, ``hard`` or a policy file.
        options: the game's env options (deck, num_players).
        seed: seeds every random draw of hers (sampling, the heuristic's bluffs).
    """

    def __init__(
        self,
        game: str,
        level: str = "easy",
        *,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> None:
        spec = get_game(game)
        self.game = spec.name
        self.options = spec.options(options)
        self.level = level
        policy_game = spec.name
        if level == "easy":
            self.policy: BatchPolicy = make_baseline(spec.name, "heuristic", seed, **self.options)
            self.source = "heuristic"
        elif level in ("normal", "hard"):
            path = shipped_model(spec.name, self.options)
            problem = shipped_problem(spec.name, self.options)
            if problem is not None:
                # The reason names the file, never its folder (it reaches web pages).
                raise ConfigError("level", level, f"'easy' or a policy file: {problem}")
            mode = "@sample" if level == "normal" else "@argmax"
            self.policy = resolve_policy(str(path) + mode, policy_game, self.options, seed)
            self.source = str(path)
        else:
            path_text = level.partition("@")[0]
            if (
                path_text not in BASELINE_KINDS
                and not path_text.startswith(SHIPPED_PREFIX)
                and Path(path_text).suffix not in (".npz", ".zip")
            ):
                raise ConfigError(
                    "level",
                    level,
                    "easy, normal, hard, a baseline (random, call, heuristic), "
                    "a policy FILE.npz or shipped:NAME",
                )
            if path_text.startswith(SHIPPED_PREFIX):
                path_text = str(shipped_file(path_text[len(SHIPPED_PREFIX) :]))
            if spec.name == "draw-match" and path_text.endswith(".npz"):
                from poker_env_agents.runtime import read_manifest

                # A one-pot FiveCardDraw-v0 policy reads the same observations and
                # actions: it may play the match, with the rule book's buy-back.
                if read_manifest(path_text)["env"]["id"] == "poker_env/FiveCardDraw-v0":
                    policy_game = "draw"
            self.policy = resolve_policy(level, policy_game, self.options, seed)
            self.source = level
        manifest = getattr(self.policy, "manifest", None)
        # Only a policy trained in her seat of the whole match learned the buy-back.
        self.learned_buy_back = bool(
            manifest is not None and manifest.get("env", {}).get("id") == "poker_env/DrawMatch-v0"
        )

    def act_batch(
        self, observations: NDArray[np.floating], action_masks: NDArray[np.int8]
    ) -> NDArray[np.int64]:
        masks = np.asarray(action_masks)
        acts = np.asarray(self.policy.act_batch(observations, masks), np.int64)
        if self.game.startswith("draw") and not self.learned_buy_back:
            buy = masks.shape[1] - 1
            offered = masks[:, buy] != 0
            # RULES.md §1 default: she buys back whenever she may.
            acts = np.where(offered, buy, acts)
        return acts

    def act(self, observation: NDArray[np.floating], action_mask: NDArray[np.int8]) -> int:
        obs = np.asarray(observation)[None]
        return int(self.act_batch(obs, np.asarray(action_mask)[None])[0])

    def __repr__(self) -> str:
        return f"ComputerOpponent({self.game!r}, level={self.level!r}, source={self.source!r})"
