"""The registry: the games an agent can be trained for, and the players named on a
command line (baselines, policy files, SB3 checkpoints).

## Games

Env ids, options, env builders.

One :class:`GameSpec` per trainable seat. Training, evaluation, export and the
computer opponent look games up here, so a game's env options are spelled once:

| name | env id | the agent plays |
|---|---|---|
| ``draw`` | ``poker_env/FiveCardDraw-v0`` | one pot of heads-up five-card draw (seat 0) |
| ``draw-match`` | ``poker_env/DrawMatch-v0`` | the computer seat of a whole match (bets, draws, buy-backs) |
| ``red-dog`` | ``poker_env/RedDog-v0`` | one seat of a Red Dog table |
| ``holdem`` | ``poker_env/Holdem-v0`` | one seat of a Hold'em table (``num_players`` 2..10) |

## Named players

A player is named by one of

- a baseline kind: ``random``, ``call``, ``heuristic`` (:mod:`poker_env_agents.baselines`);
- an exported policy file ``*.npz`` (:mod:`poker_env_agents.runtime`, numpy only), optionally
  followed by ``@argmax`` (default), ``@sample`` or ``@t=<temperature>``;
- a shipped policy ``shipped:NAME`` (``poker_env_agents/models/NAME.npz`` wherever the
  package is installed: ``shipped:draw52``, ``shipped:holdem_hu@sample``);
- an SB3 model ``*.zip`` (a checkpoint of :mod:`poker_env_agents.training.train`; needs torch), played
  masked and deterministic.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray

from poker_env.errors import ConfigError, as_int
from poker_env.policy import BatchPolicy, Policy
from poker_env_agents.assets import SHIPPED_PREFIX, shipped_file

__all__ = [
    "BASELINE_KINDS",
    "GAMES",
    "GameSpec",
    "SB3Policy",
    "check_run_config",
    "get_game",
    "make_baseline",
    "parse_option",
    "resolve_policy",
]


VectorBuilder = Callable[
    [int, Mapping[str, Any], BatchPolicy | None, int, int | None], gym.vector.VectorEnv
]


def _draw_vector(
    num_envs: int,
    options: Mapping[str, Any],
    opponent: BatchPolicy | None,
    num_threads: int,
    seat: int | None,
) -> gym.vector.VectorEnv:
    from poker_env.vector.draw import DrawVectorEnv

    return DrawVectorEnv(
        num_envs,
        agent_seat=0 if seat is None else seat,
        opponent=opponent,
        num_threads=num_threads,
        copy=False,
        **dict(options),
    )


def _draw_match_vector(
    num_envs: int,
    options: Mapping[str, Any],
    opponent: BatchPolicy | None,
    num_threads: int,
    seat: int | None,
) -> gym.vector.VectorEnv:
    from poker_env.vector.draw import DrawVectorEnv

    # DrawMatch-v0 episodes; the agent plays the computer seat (1: her bets, draws and
    # buy-backs) unless a seat is given, as the single env's agent_seat="computer".
    return DrawVectorEnv(
        num_envs,
        agent_seat=1 if seat is None else seat,
        opponent=opponent,
        mode="match",
        num_threads=num_threads,
        copy=False,
        **dict(options),
    )


def _red_dog_vector(
    num_envs: int,
    options: Mapping[str, Any],
    opponent: BatchPolicy | None,
    num_threads: int,
    seat: int | None,
) -> gym.vector.VectorEnv:
    from poker_env.vector.red_dog import RedDogVectorEnv

    opts = dict(options)
    # The learner's opponents are the policy given, not the env's default random share.
    opts.setdefault("opponent_random_share", 0.0 if opponent is not None else 0.2)
    return RedDogVectorEnv(
        num_envs,
        agent_seat=seat,
        opponents=opponent,
        num_threads=num_threads if opponent is None else None,
        **opts,
    )


def _holdem_vector(
    num_envs: int,
    options: Mapping[str, Any],
    opponent: BatchPolicy | None,
    num_threads: int,
    seat: int | None,
) -> gym.vector.VectorEnv:
    from poker_env.vector.holdem import HoldemVectorEnv

    return HoldemVectorEnv(
        num_envs, seat=seat, opponent=opponent, num_threads=num_threads, **dict(options)
    )


@dataclass(frozen=True)
class GameSpec:
    """One trainable seat of one game.

    Attributes:
        name: the short name used on the command line.
        env_id: the Gymnasium id of the single env.
        defaults: the env options (those that change the spaces or the game) and
            their defaults; only these may be set.
        unit: what one unit of reward is (for evaluation tables).
        single_kwargs: extra keywords for the single env (e.g. the agent's seat).
        vector: builds the batched env, or None where none exists yet.
    """

    name: str
    env_id: str
    defaults: Mapping[str, Any]
    unit: str
    single_kwargs: Mapping[str, Any] = field(default_factory=dict)
    vector: VectorBuilder | None = None

    def options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The defaults updated with ``given``; an unknown option is a ConfigError."""
        opts = dict(self.defaults)
        for k, v in (given or {}).items():
            if k not in self.defaults:
                raise ConfigError(f"{self.name} option", k, f"one of {sorted(self.defaults)}")
            opts[k] = v
        return opts

    def make_env(
        self,
        options: Mapping[str, Any] | None = None,
        opponent: Policy | None = None,
        **kwargs: Any,
    ) -> gym.Env[Any, Any]:
        """The single Gymnasium env (unwrapped: no passive checker, no order enforcing)."""
        import poker_env  # noqa: F401  (registers the ids)

        kw = {**self.single_kwargs, **self.options(options), **kwargs}
        if opponent is not None:
            # The single envs spell it differently: draw has one opponent, the others many.
            kw["opponent" if self.name.startswith("draw") else "opponents"] = opponent
        return gym.make(self.env_id, disable_env_checker=True, **kw).unwrapped

    def num_seats(self, options: Mapping[str, Any] | None = None) -> int:
        """Seats at a table of this game with these options."""
        given = self.options(options).get("num_players", 2)
        n = as_int(given)
        if n is None or not 2 <= n <= 10:
            raise ConfigError("num_players", given, "an int from 2 to 10")
        return n

    def make_vector(
        self,
        num_envs: int,
        options: Mapping[str, Any] | None = None,
        opponent: BatchPolicy | None = None,
        num_threads: int = 1,
        seat: int | None = None,
    ) -> gym.vector.VectorEnv:
        """The batched env of ``num_envs`` tables, the other seats played by ``opponent``
        (None: uniformly random legal actions inside the compiled step); the agent in
        ``seat`` (None: the env's default: seat 0 in draw, the computer's seat 1 in
        draw-match, a random seat per episode in Red Dog and Hold'em)."""
        if self.vector is None:
            raise ConfigError("game", self.name, "a game with a batched env")
        return self.vector(num_envs, self.options(options), opponent, num_threads, seat)


GAMES: dict[str, GameSpec] = {
    "draw": GameSpec(
        name="draw",
        env_id="poker_env/FiveCardDraw-v0",
        defaults={"deck": 52},
        unit="antes",
        vector=_draw_vector,
    ),
    "draw-match": GameSpec(
        name="draw-match",
        env_id="poker_env/DrawMatch-v0",
        defaults={"deck": 52},
        unit="antes",
        single_kwargs={"agent_seat": "computer"},
        vector=_draw_match_vector,
    ),
    "red-dog": GameSpec(
        name="red-dog",
        env_id="poker_env/RedDog-v0",
        defaults={"num_players": 4},
        unit="chips",
        vector=_red_dog_vector,
    ),
    "holdem": GameSpec(
        name="holdem",
        env_id="poker_env/Holdem-v0",
        defaults={"num_players": 2},
        unit="bb",
        vector=_holdem_vector,
    ),
}


def get_game(name: str) -> GameSpec:
    """The spec of game ``name``; an unknown name is a ConfigError listing the known."""
    try:
        return GAMES[name]
    except KeyError:
        raise ConfigError("game", name, f"one of {sorted(GAMES)}") from None


# Named players (baselines, policy files, SB3 checkpoints)

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
        from poker_env_agents.baselines.draw import DrawCallStation, DrawHeuristic

        if kind == "call":
            return DrawCallStation()
        return DrawHeuristic(seed, deck=opts["deck"])
    if spec.name == "red-dog":
        from poker_env_agents.baselines.red_dog import RedDogCallStation, ReferencePolicy

        return RedDogCallStation() if kind == "call" else ReferencePolicy()
    from poker_env_agents.baselines.holdem import HoldemCallStation, HoldemEquityBot

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
    """A MaskablePPO model (a training checkpoint) as a ``Policy``/``BatchPolicy``.

    Loaded without unpickling anything from the file
    (:mod:`poker_env_agents.sb3_load`). With ``env``, its spaces must be the
    env's; with ``game`` and ``options``, a zip in a run folder (``config.toml`` beside
    it, or one folder up from ``checkpoints/``) must have been trained for that game
    with those options and no feature set: else a PolicyFileError names the difference.
    """

    def __init__(
        self,
        path: str | Path,
        deterministic: bool = True,
        env: Any = None,
        game: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        from sb3_contrib import MaskablePPO

        from poker_env_agents.sb3_load import load_sb3

        path = Path(path)
        if game is not None:
            check_run_config(path, game, dict(options or {}))
        self.model = load_sb3(path, MaskablePPO, device="cpu")
        if env is not None:
            _check_spaces(path, self.model, env)
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


def _run_config_of(path: Path) -> Path | None:
    for folder in (path.parent, path.parent.parent):
        if (folder / "config.toml").is_file() and (
            folder == path.parent or path.parent.name == "checkpoints"
        ):
            return folder / "config.toml"
    return None


def check_run_config(path: Path, game: str, options: dict[str, Any]) -> None:
    """A zip of a training run (``config.toml`` beside it, or one folder up from
    ``checkpoints/``) against the game and options it is asked to play: a
    PolicyFileError names every difference. Nothing is checked for a zip elsewhere."""
    from poker_env_agents.runtime import PolicyFileError

    config_path = _run_config_of(path)
    if config_path is None:
        return
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(config_path, "rb") as fh:
            config = tomllib.load(fh)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PolicyFileError(
            f"{path}: its run's {config_path.name} does not read ({exc})"
        ) from None
    trained_game, trained_options = config.get("game"), config.get("options", {})
    if trained_game != game:
        raise PolicyFileError(f"{path}: trained for {trained_game} ({config_path}), not {game}")
    if not isinstance(trained_options, dict):
        raise PolicyFileError(f"{path}: its run's {config_path.name} has no [options] table")
    from poker_env_agents.runtime import describe_env

    spec = get_game(game)
    # Compared as the envs describe them (an exported .npz's check): "short" and 32
    # are one deck.
    trained = describe_env(spec.make_env(trained_options)).options
    asked = describe_env(spec.make_env(options)).options
    problems = [
        f"env option {key}: file {trained.get(key)!r}, env {asked.get(key)!r}"
        for key in sorted(set(trained) | set(asked))
        if trained.get(key) != asked.get(key)
    ]
    if config.get("features"):
        problems.append(
            f"features {config['features']!r}: the run's own policy.npz (train.py writes "
            "it) computes them; use that file"
        )
    if problems:
        raise PolicyFileError(f"{path} ({config_path}): " + "; ".join(problems))


def _check_spaces(path: Path, model: Any, env: Any) -> None:
    from poker_env_agents.runtime import PolicyFileError

    obs, act = model.observation_space, model.action_space
    if getattr(obs, "shape", None) != env.observation_space.shape or getattr(
        act, "n", None
    ) != getattr(env.action_space, "n", None):
        raise PolicyFileError(
            f"{path}: a model for observations {getattr(obs, 'shape', obs)} and "
            f"{getattr(act, 'n', act)} actions, the env has {env.observation_space.shape} "
            f"and {getattr(env.action_space, 'n', env.action_space)}"
        )


def resolve_policy(
    name: str, game: str, options: Mapping[str, Any] | None = None, seed: int = 0
) -> BatchPolicy:
    """The player ``name`` for ``game`` (see the module docstring)."""
    spec = get_game(game)
    opts = spec.options(options)
    if name in BASELINE_KINDS:
        return make_baseline(game, name, seed=seed, **opts)
    path_text, _, mode = name.partition("@")
    if path_text.startswith(SHIPPED_PREFIX):
        path_text = str(shipped_file(path_text[len(SHIPPED_PREFIX) :]))
    path = Path(path_text)
    if path.suffix == ".npz":
        from poker_env_agents.runtime import load_policy

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
        if mode not in ("", "argmax", "sample"):
            raise ConfigError("policy", name, "FILE.zip, FILE.zip@argmax or FILE.zip@sample")
        return SB3Policy(path, mode != "sample", env=spec.make_env(opts), game=game, options=opts)
    raise ConfigError(
        "policy",
        name,
        f"one of {BASELINE_KINDS}, an exported FILE.npz, shipped:NAME or an SB3 FILE.zip",
    )
