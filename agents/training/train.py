"""Training with sb3-contrib's MaskablePPO over the batched envs.

``scripts/train.py GAME [options]`` is a thin front end over :func:`train`. A run
lives in one folder::

    RUN/config.toml        the resolved configuration (what --resume reads)
    RUN/resumes.jsonl      one line a resume: its step, command and the fields it
                           changed (they apply from that step on)
    RUN/checkpoints/       step_<n>.zip every checkpoint_every steps, committed by
                           step_<n>.json (written last: the opponent mix's state, the
                           pool's snapshots, every part's size and sha256)
    RUN/pool/              snapshots of the learner, exported (.npz + manifest)
    RUN/tb/                TensorBoard logs (losses, episode reward, returns by
                           opponent kind, evaluations with their intervals)
    RUN/model.zip          the final SB3 model
    RUN/policy.npz         the final policy, exported (numpy runtime)
    RUN/eval.json          the final evaluation against the baselines (sampled play:
                           evaluate.py's FILE.npz@sample; FILE.npz alone is the argmax)

Self-play: the tables are split into ``num_groups`` groups, each a vector env whose
opponent seats an :class:`~poker_env_agents.training.selfplay.OpponentSlot` plays; at every rollout
start each slot draws from the opponent mix (baselines and past snapshots).

Every file is written whole or not at all, and a checkpoint counts only when its
manifest is there and its parts match it (:mod:`poker_env_agents.training.checkpoints`):
a run killed at any moment resumes from its newest complete checkpoint
(:func:`find_checkpoint`), which says which one and why it skipped any newer one.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy
from poker_env_agents.registry import GameSpec, get_game
from poker_env_agents.training.checkpoints import (
    atomic_save,
    atomic_write_text,
    check_parts,
    part_record,
    remove_stale_temporaries,
)
from poker_env_agents.training.selfplay import (
    OPPONENT_KINDS,
    LiveSelf,
    OpponentMix,
    OpponentSlot,
    SnapshotPool,
    check_weight,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "Checkpoint",
    "TrainConfig",
    "complete_checkpoints",
    "export_checkpoint",
    "find_checkpoint",
    "load_config",
    "train",
]

ACTIVATIONS = ("tanh", "relu")
#: The learners: ``ppo`` (sb3-contrib's MaskablePPO) and ``mmd`` (MaskablePPO with the
#: Magnetic Mirror Descent term, :class:`poker_env_agents.training.mmd.MMDMaskablePPO`).
ALGOS = ("ppo", "mmd")
#: The magnets of the MMD learner (``poker_env_agents.training.mmd.MAGNETS``, kept
#: here so that a config validates without importing torch).
MAGNETS = ("uniform", "ema")


def learning_rate_schedule(start: float, final: float) -> Any:
    """SB3's learning rate: ``start`` constant (``final`` -1) or a linear decay from
    ``start`` at the first step to ``final`` at the last."""
    if final == -1:
        return start
    from stable_baselines3.common.utils import LinearSchedule

    return LinearSchedule(start, final, 1.0)


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """Everything a training run needs; validated on construction.

    Attributes:
        game: a name of :data:`poker_env_agents.registry.GAMES`.
        options: env options of that game (e.g. ``{"num_players": 6}``).
        timesteps: agent steps to train in all.
        seed: seeds the tables, the opponents' draws and torch.
        num_tables: tables stepped per call (the VecEnv's size).
        num_groups: groups of tables with their own opponent (divides num_tables).
        opponents: kind -> weight; kinds ``random``, ``call``, ``heuristic``, ``pool``,
            ``fixed``, ``self`` (the learner's current weights: self-play).
        fixed_opponent: the policy that kind ``fixed`` plays, named as
            :func:`poker_env_agents.registry.resolve_policy` reads it (``heuristic``,
            ``FILE.npz@sample``, ...); ``train(..., fixed_opponent=policy)`` passes a
            policy object instead (this name then only labels it).
        pool_size: snapshots kept in the pool.
        snapshot_every: steps between snapshots (0: no snapshots).
        net_arch: hidden layer sizes of the policy and value networks.
        activation: ``tanh`` or ``relu``.
        learning_rate, n_steps, batch_size, n_epochs, gamma, gae_lambda, ent_coef,
            clip_range: MaskablePPO's hyperparameters.
        algo: ``ppo`` or ``mmd`` (:data:`ALGOS`).
        kl_coef: the MMD term's weight (``algo = "mmd"`` only).
        magnet: the magnet of the ``ent_coef`` term (``algo = "mmd"``): ``uniform``
            (the entropy bonus) or ``ema`` (the exact KL to a moving average of the
            policy network's weights, :class:`poker_env_agents.training.mmd.MMDMaskablePPO`).
        magnet_tau: the moving magnet's step toward the weights per update, in (0, 1].
        ent_coef_final: the ``ent_coef`` term's weight at the end of the run, reached
            by a linear decay (``algo = "mmd"``); -1: constant ``ent_coef``.
        learning_rate_final: the learning rate at the end of the run, reached by a
            linear decay from ``learning_rate`` (SB3's ``LinearSchedule``); -1: constant.
        torch_threads: torch's intra-op threads.
        env_threads: threads of each vector env (random opponents only).
        checkpoint_every: steps between checkpoints (0: none; taken between PPO
            iterations, at the first iteration boundary past each multiple).
        eval_every: steps between evaluations logged to TensorBoard (0: none).
        eval_hands: hands per opponent in those evaluations and the final one.
        features: a feature set of :mod:`poker_env_agents.features` whose columns the policy
            reads after the observation (``""``: none); the export records it.
        reward: ``env`` (the env's reward) or, in Red Dog, ``bet-value`` (each
            decision's exact expected chips, :class:`poker_env_agents.evaluate.RedDogBetValue`);
            the logged episode returns stay the env's.
        seat: the agent's seat at the training tables (-1: the game's, see
            :meth:`poker_env_agents.registry.GameSpec.make_vector`; 0 trains the human seat of the
            draw match, e.g. a best response against her).
        both_seats: alternate the groups' agent seat between the game's seat and the
            other one (seat 0), so that one network learns both seats (self-play in
            the draw match, whose seats differ); needs an even ``num_groups``.
        warm_start: a teacher policy (a baseline kind or ``FILE.npz``, as
            ``fixed_opponent``) imitated before PPO starts (``""``: none): the policy
            learns the teacher's actions and the value network its returns on
            ``warm_start_steps`` steps of the teacher's play at the training tables.
        warm_start_steps: agent steps of the teacher's play collected.
        warm_start_epochs: passes over them.
        out: the run folder.
    """

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    timesteps: int = 500_000
    seed: int = 0
    num_tables: int = 64
    num_groups: int = 4
    opponents: Mapping[str, float] = field(
        default_factory=lambda: {"random": 0.4, "call": 0.2, "heuristic": 0.2, "pool": 0.2}
    )
    fixed_opponent: str = ""
    pool_size: int = 8
    snapshot_every: int = 100_000
    net_arch: Sequence[int] = (128, 128)
    activation: str = "tanh"
    learning_rate: float = 3e-4
    n_steps: int = 128
    batch_size: int = 2048
    n_epochs: int = 4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    ent_coef: float = 0.02
    clip_range: float = 0.2
    algo: str = "ppo"
    kl_coef: float = 0.0
    magnet: str = "uniform"
    magnet_tau: float = 0.05
    ent_coef_final: float = -1.0
    learning_rate_final: float = -1.0
    torch_threads: int = 1
    env_threads: int = 1
    checkpoint_every: int = 100_000
    eval_every: int = 0
    eval_hands: int = 20_000
    features: str = ""
    reward: str = "env"
    seat: int = -1
    both_seats: bool = False
    warm_start: str = ""
    warm_start_steps: int = 200_000
    warm_start_epochs: int = 4
    out: str = ""

    def __post_init__(self) -> None:
        spec = get_game(self.game)
        object.__setattr__(self, "options", spec.options(self.options))
        object.__setattr__(self, "net_arch", tuple(self.net_arch))
        object.__setattr__(self, "opponents", dict(self.opponents))
        ints = {
            "timesteps": 1,
            "num_tables": 1,
            "num_groups": 1,
            "pool_size": 1,
            "snapshot_every": 0,
            "n_steps": 2,
            "batch_size": 2,
            "n_epochs": 1,
            "torch_threads": 1,
            "env_threads": 1,
            "checkpoint_every": 0,
            "eval_every": 0,
            "eval_hands": 2,
            "warm_start_steps": 0,
            "warm_start_epochs": 1,
            "seed": 0,
        }
        for name, low in ints.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ConfigError(name, v, f"an integer >= {low}")
        if self.num_tables % self.num_groups:
            raise ConfigError(
                "num_groups", self.num_groups, f"a divisor of num_tables={self.num_tables}"
            )
        if not self.net_arch or any(
            isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in self.net_arch
        ):
            raise ConfigError("net_arch", self.net_arch, "a non-empty list of positive integers")
        if self.activation not in ACTIVATIONS:
            raise ConfigError("activation", self.activation, f"one of {ACTIVATIONS}")
        for name, lo, hi in (
            ("learning_rate", 0.0, 1.0),
            ("gamma", 0.0, 1.0),
            ("gae_lambda", 0.0, 1.0),
            ("ent_coef", 0.0, 1.0),
            ("clip_range", 0.0, 1.0),
            ("kl_coef", 0.0, 10.0),
            ("magnet_tau", 1e-9, 1.0),
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
                raise ConfigError(name, v, f"a number in [{lo}, {hi}]")
        from poker_env_agents.baselines.heldout import refuse_panel_names

        # The held-out panel is for evaluation only: a clear error, before the generic one.
        refuse_panel_names(
            {
                "opponents": list(self.opponents),
                "fixed_opponent": [self.fixed_opponent],
                "warm_start": [self.warm_start],
            }
        )
        if self.algo not in ALGOS:
            raise ConfigError("algo", self.algo, f"one of {ALGOS}")
        if self.kl_coef and self.algo != "mmd":
            raise ConfigError("kl_coef", self.kl_coef, "0 unless algo = 'mmd'")
        if self.magnet not in MAGNETS:
            raise ConfigError("magnet", self.magnet, f"one of {MAGNETS}")
        if self.magnet != "uniform" and self.algo != "mmd":
            raise ConfigError("magnet", self.magnet, "'uniform' unless algo = 'mmd'")
        v = self.ent_coef_final
        if isinstance(v, bool) or not isinstance(v, int | float) or not (v == -1 or 0 <= v <= 1):
            raise ConfigError("ent_coef_final", v, "-1 (constant ent_coef) or a number in [0, 1]")
        if v != -1 and self.algo != "mmd":
            raise ConfigError("ent_coef_final", v, "-1 unless algo = 'mmd'")
        v = self.learning_rate_final
        if isinstance(v, bool) or not isinstance(v, int | float) or not (v == -1 or 0 <= v <= 1):
            raise ConfigError(
                "learning_rate_final", v, "-1 (constant learning_rate) or a number in [0, 1]"
            )
        for k, w in self.opponents.items():
            if k not in OPPONENT_KINDS:
                raise ConfigError("opponents", k, f"kinds among {OPPONENT_KINDS}")
            check_weight(k, w)  # here, not first when the mixture is made mid-run
        if not isinstance(self.fixed_opponent, str):
            raise ConfigError("fixed_opponent", self.fixed_opponent, "a policy name (a string)")
        if not isinstance(self.warm_start, str):
            raise ConfigError("warm_start", self.warm_start, "a policy name (a string)")
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < -1:
            raise ConfigError("seat", self.seat, "-1 (the game's agent seat) or a seat number")
        if self.seat >= self.spec.num_seats(self.options):
            raise ConfigError(
                "seat", self.seat, f"-1 or 0..{self.spec.num_seats(self.options) - 1}"
            )
        if not isinstance(self.both_seats, bool) or (
            self.both_seats and (self.seat >= 0 or self.num_groups % 2)
        ):
            raise ConfigError(
                "both_seats",
                self.both_seats,
                "true or false; true needs seat = -1 and even num_groups",
            )
        if self.reward not in ("env", "bet-value") or (
            self.reward == "bet-value" and self.game != "red-dog"
        ):
            raise ConfigError("reward", self.reward, "'env', or 'bet-value' in red-dog")
        if not isinstance(self.features, str):
            raise ConfigError("features", self.features, "a feature set's name (a string)")
        if self.features:
            from poker_env_agents.features import make_features

            make_features(self.features, self.game, self.options)

    @property
    def spec(self) -> GameSpec:
        return get_game(self.game)

    def run_dir(self) -> Path:
        if self.out:
            return Path(self.out)
        opts = "".join(
            f"-{k}{v}" for k, v in sorted(self.options.items()) if v != self.spec.defaults[k]
        )
        return Path("runs") / f"{self.game}{opts}-seed{self.seed}"

    def to_toml(self) -> str:
        """The config as TOML (what ``load_config`` reads back)."""
        lines = []
        tables: dict[str, Mapping[str, Any]] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Mapping):
                tables[f.name] = v
            else:
                lines.append(f"{f.name} = {_toml_value(v)}")
        for name, table in tables.items():
            lines.append(f"\n[{name}]")
            lines.extend(f"{k} = {_toml_value(v)}" for k, v in table.items())
        return "\n".join(lines) + "\n"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise ConfigError("config value", v, "numbers, strings, booleans and lists of them")


def config_fields(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The fields a TOML config file sets, as written (no defaults filled in)."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config file", str(path), f"valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise ConfigError("config file", str(path), "a TOML text file (UTF-8)") from None


def load_config(path: str | os.PathLike[str] | None = None, **overrides: Any) -> TrainConfig:
    """A :class:`TrainConfig` from a TOML file (or none), then ``overrides``.

    Unknown keys are a ConfigError naming them; ``options`` and ``opponents``
    given as overrides replace the file's tables key by key.
    """
    data: dict[str, Any] = config_fields(path) if path is not None else {}
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    for k in list(data) + list(overrides):
        if k not in known:
            raise ConfigError("config key", k, f"one of {sorted(known)}")
    for k, v in overrides.items():
        if v is None:
            continue
        if k in ("options", "opponents") and isinstance(v, Mapping):
            data[k] = {**data.get(k, {}), **v}
        else:
            data[k] = v
    if "game" not in data:
        raise ConfigError("game", None, f"a game name, one of {sorted(_games())}")
    for table in ("options", "opponents"):
        if table in data and not isinstance(data[table], Mapping):
            raise ConfigError(table, data[table], f"a table ([{table}] in TOML)")
    try:
        return TrainConfig(**data)
    except (TypeError, AttributeError) as exc:
        # A field of the wrong type that TrainConfig's own checks did not name.
        raise ConfigError(
            "config", str(path or "overrides"), f"fields of the right types ({exc})"
        ) from None


def _games() -> list[str]:
    from poker_env_agents.registry import GAMES

    return list(GAMES)


# ----- the pieces of a run ------------------------------------------------------------


def baseline_builders(
    spec: GameSpec, options: Mapping[str, Any], fixed: BatchPolicy | str | None = None
) -> dict[str, Any]:
    """kind -> ``(seed) -> BatchPolicy`` for the game's baselines, and ``fixed`` when
    ``fixed`` names a policy (resolved with the builder's seed) or is one (used as is)."""
    from poker_env_agents.registry import make_baseline, resolve_policy

    builders: dict[str, Any] = {
        kind: (lambda seed, kind=kind: make_baseline(spec.name, kind, seed=seed, **options))
        for kind in ("random", "call", "heuristic")
    }
    if isinstance(fixed, str):
        if fixed:
            builders["fixed"] = lambda seed: resolve_policy(fixed, spec.name, options, seed=seed)
    elif fixed is not None:
        builders["fixed"] = lambda seed: fixed
    return builders


def git_commit() -> str:
    """The commit of the code that trains (``unknown`` outside a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            timeout=10,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


#: The config fields a checkpoint's model depends on: a resume that changes one of
#: them is refused (the spaces or the network would not match).
SHAPE_FIELDS = (
    "game",
    "options",
    "features",
    "seat",
    "net_arch",
    "activation",
    "algo",
    "magnet",
)
_STEP_FILE = re.compile(r"step_(\d+)\.(zip|json)")


@dataclass(frozen=True)
class Checkpoint:
    """A complete checkpoint of a run: ``checkpoints/step_<steps>.zip`` and its
    manifest ``step_<steps>.json`` (``meta``: what the manifest holds)."""

    steps: int
    zip: Path
    manifest: Path
    meta: Mapping[str, Any]

    @property
    def name(self) -> str:
        return f"checkpoints/{self.zip.stem}"


def _why_incomplete(run: Path, steps: int) -> tuple[str | None, dict[str, Any]]:
    """Why checkpoint ``steps`` of ``run`` does not count (None: it is complete)."""
    import zipfile

    d = run / "checkpoints"
    zip_path, manifest = d / f"step_{steps:010d}.zip", d / f"step_{steps:010d}.json"
    if not manifest.is_file():
        return f"{zip_path.name} without its manifest {manifest.name} (never committed)", {}
    try:
        meta = json.loads(manifest.read_text())
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
        int(meta["steps"]), meta["mix_rng"], list(meta["pool"])
    except (ValueError, KeyError, TypeError) as exc:
        return f"{manifest.name} does not read as a checkpoint manifest ({exc})", {}
    if "parts" in meta:
        names = {str(p.get("name")) for p in meta["parts"] if isinstance(p, Mapping)}
        if f"checkpoints/{zip_path.name}" not in names:
            return f"{manifest.name} does not list {zip_path.name}", meta
        why = check_parts(run, meta["parts"])
        return why, meta
    # A manifest of the first format (no sizes or digests): the zip must read and
    # the snapshots it names be there.
    if not zip_path.is_file():
        return f"it names {zip_path.name}, which is missing", meta
    if not zipfile.is_zipfile(zip_path):
        return f"{zip_path.name} is not a whole zip file (torn)", meta
    for label in meta["pool"]:
        snap = f"pool/snap_{int(label):010d}.npz"
        if not (run / snap).is_file():
            return f"it names {snap}, which is missing", meta
    return None, meta


def _checkpoint_steps(run: Path) -> set[int]:
    """The step counts that files in ``run/checkpoints`` are named after (complete or not)."""
    d = run / "checkpoints"
    if not d.is_dir():
        return set()
    return {int(m.group(1)) for p in d.iterdir() if (m := _STEP_FILE.fullmatch(p.name))}


def find_checkpoint(run: Path) -> tuple[Checkpoint | None, list[tuple[str, str]]]:
    """The newest complete checkpoint of the run folder ``run`` (None: none), and the
    newer ones skipped: ``(name, why)`` each, newest first."""
    found = _checkpoint_steps(run)
    d = run / "checkpoints"
    skipped: list[tuple[str, str]] = []
    for steps in sorted(found, reverse=True):
        why, meta = _why_incomplete(run, steps)
        if why is None:
            stem = d / f"step_{steps:010d}"
            return Checkpoint(steps, stem.with_suffix(".zip"), stem.with_suffix(".json"), meta), (
                skipped
            )
        skipped.append((f"checkpoints/step_{steps:010d}", why))
    return None, skipped


def complete_checkpoints(run: Path) -> tuple[list[Checkpoint], list[tuple[str, str]]]:
    """Every complete checkpoint of the run folder ``run``, oldest first, and the
    incomplete ones skipped: ``(name, why)`` each (the rules of :func:`find_checkpoint`)."""
    found = _checkpoint_steps(run)
    d = run / "checkpoints"
    out: list[Checkpoint] = []
    skipped: list[tuple[str, str]] = []
    for steps in sorted(found):
        why, meta = _why_incomplete(run, steps)
        stem = d / f"step_{steps:010d}"
        if why is None:
            out.append(Checkpoint(steps, stem.with_suffix(".zip"), stem.with_suffix(".json"), meta))
        else:
            skipped.append((f"checkpoints/{stem.name}", why))
    return out, skipped


def export_checkpoint(run: Path, ckpt: Checkpoint, path: Path) -> Path:
    """Export checkpoint ``ckpt`` of the run folder ``run`` to the numpy policy file
    ``path`` (written whole or not at all), with the run's ``config.toml``: its game,
    options and feature set. The manifest's provenance names the checkpoint and its
    step count. Returns ``path``."""
    from sb3_contrib import MaskablePPO

    from poker_env_agents.sb3_load import load_sb3
    from poker_env_agents.training.export import export_policy
    from poker_env_agents.training.mmd import MMDMaskablePPO

    config = load_config(run / "config.toml")
    cls = MMDMaskablePPO if config.algo == "mmd" else MaskablePPO
    model = load_sb3(ckpt.zip, cls, device="cpu")
    if int(model.num_timesteps) != ckpt.steps:
        raise ValueError(
            f"{ckpt.zip} holds a model of {int(model.num_timesteps):,} steps, "
            f"its name says {ckpt.steps:,}"
        )
    env = config.spec.make_env(config.options)
    provenance = {
        "command": f"export_checkpoint({str(run)!r}, {ckpt.name!r})",
        "seed": config.seed,
        "steps": ckpt.steps,
        "source_model": str(ckpt.zip),
        "config": config.to_toml(),
    }
    return export_policy(
        model, path, env, provenance=provenance, features=config.features or None
    ).npz


def _latest_checkpoint(run: Path) -> tuple[int, Path] | None:
    """The newest complete checkpoint's (steps, zip) (None: none)."""
    ckpt, _ = find_checkpoint(run)
    return None if ckpt is None else (ckpt.steps, ckpt.zip)


def _has_checkpoint_files(run: Path) -> bool:
    d = run / "checkpoints"
    return d.is_dir() and any(_STEP_FILE.fullmatch(p.name) for p in d.iterdir())


def _resume_message(run: Path, ckpt: Checkpoint | None, skipped: list[tuple[str, str]]) -> str:
    if ckpt is None:
        head = f"{run}: no complete checkpoint; starting the run over from step 0"
    else:
        head = f"{run}: resuming from {ckpt.name} ({ckpt.steps:,} steps)"
    lines = [head] + [f"  skipped {name}: {why}" for name, why in skipped]
    return "\n".join(lines)


def _space_record(venv: Any) -> dict[str, Any]:
    obs = venv.observation_space
    return {
        "observation_shape": [int(x) for x in obs.shape],
        "observation_low": np.asarray(obs.low, np.float64).ravel().tolist(),
        "observation_high": np.asarray(obs.high, np.float64).ravel().tolist(),
        "action_count": int(venv.action_space.n),
    }


def _config_record(config: TrainConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in SHAPE_FIELDS:
        v = getattr(config, name)
        out[name] = dict(v) if isinstance(v, Mapping) else list(v) if isinstance(v, tuple) else v
    return out


def _differences(saved: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """What differs between a checkpoint's config and spaces and the run's now."""
    diffs = []
    for k in SHAPE_FIELDS:
        if k in saved.get("config", {}) and saved["config"][k] != now["config"][k]:
            diffs.append(f"{k}: {saved['config'][k]!r} in the checkpoint, {now['config'][k]!r} now")
    old, new = saved.get("spaces"), now["spaces"]
    if old:
        if old["observation_shape"] != new["observation_shape"]:
            diffs.append(
                f"observation shape: {tuple(old['observation_shape'])} in the checkpoint, "
                f"{tuple(new['observation_shape'])} now"
            )
        else:
            for side in ("low", "high"):
                a = np.asarray(old[f"observation_{side}"], np.float64)
                b = np.asarray(new[f"observation_{side}"], np.float64)
                cols = np.flatnonzero(~((a == b) | (np.isnan(a) & np.isnan(b))))
                if cols.size:
                    diffs.append(
                        f"observation {side} bounds of columns {cols[:8].tolist()}"
                        f"{' ...' if cols.size > 8 else ''}: {a[cols[:4]].tolist()} in the "
                        f"checkpoint, {b[cols[:4]].tolist()} now"
                    )
        if old["action_count"] != new["action_count"]:
            diffs.append(
                f"action count: {old['action_count']} in the checkpoint, {new['action_count']} now"
            )
    return diffs


def _tensorboard_logger(folder: Path, purge_step: int | None) -> Any:
    """SB3's TensorBoard logger writing to ``folder``; with ``purge_step``, TensorBoard
    hides the events a killed run logged at steps >= it (a resumed run logs them again)."""
    from stable_baselines3.common import logger

    class _Format(logger.TensorBoardOutputFormat):
        def __init__(self) -> None:
            # SB3's own import of torch's SummaryWriter (None without tensorboard).
            writer: Any = getattr(logger, "SummaryWriter", None)
            assert writer is not None, "tensorboard is not installed"
            self.writer = writer(log_dir=str(folder), purge_step=purge_step)
            self._is_closed = False

    return logger.Logger(folder=str(folder), output_formats=[_Format()])


class _Run:
    """The state of one training run (the env groups, slots, pool, mix and model)."""

    def __init__(self, config: TrainConfig, command: str, fixed: BatchPolicy | None = None) -> None:
        from poker_env_agents.evaluate import RedDogBetValue
        from poker_env_agents.features import make_features
        from poker_env_agents.training.sb3 import PokerVecEnv, fast_torch_settings

        if config.opponents.get("fixed", 0) > 0 and fixed is None and not config.fixed_opponent:
            raise ConfigError(
                "fixed_opponent",
                config.fixed_opponent,
                "a policy for opponent kind 'fixed' (a baseline kind or FILE.npz), "
                "or train(..., fixed_opponent=policy)",
            )
        fast_torch_settings(config.torch_threads)
        self.config = config
        self.command = command
        self.spec = config.spec
        self.dir = config.run_dir()
        self.pool = SnapshotPool(config.pool_size)
        self.pool_seeds: dict[str, int] = {}  # label -> the seed its policy samples with
        builders = baseline_builders(
            self.spec, config.options, fixed if fixed is not None else config.fixed_opponent
        )
        # Self-play: the learner's current weights, attached once the model exists.
        self.live_self = LiveSelf()
        builders["self"] = lambda seed: self.live_self
        self.mix = OpponentMix(config.opponents, builders, self.pool, config.seed)
        per = config.num_tables // config.num_groups
        self.slots = [OpponentSlot(self.mix.draw()[1]) for _ in range(config.num_groups)]
        self.mix.assign(self.slots)
        self.venv = PokerVecEnv(
            [
                self.spec.make_vector(
                    per,
                    config.options,
                    slot,
                    config.env_threads,
                    seat=(
                        0
                        if config.both_seats and k % 2
                        else (None if config.seat < 0 else config.seat)
                    ),
                )
                for k, slot in enumerate(self.slots)
            ],
            seed=config.seed,
            features=(
                make_features(config.features, self.spec.name, config.options)
                if config.features
                else None
            ),
            reward=(
                RedDogBetValue(self.spec.options(config.options)["num_players"])
                if config.reward == "bet-value"
                else None
            ),
            # The learner never folds with nothing to call, as the exported policy's
            # runtime (poker_env_agents.runtime.without_dominated_folds).
            dominated_folds=self.spec.env_id,
        )
        self.model: Any = None

    # ----- model -------------------------------------------------------------------
    def model_class(self) -> Any:
        from sb3_contrib import MaskablePPO

        from poker_env_agents.training.mmd import MMDMaskablePPO

        return MMDMaskablePPO if self.config.algo == "mmd" else MaskablePPO

    def new_model(self) -> Any:
        from poker_env_agents.training.sb3 import ScaledFlatten, activation_class, observation_scale

        c = self.config
        act = activation_class(c.activation)
        extra: dict[str, Any] = (
            {
                "kl_coef": c.kl_coef,
                "magnet": c.magnet,
                "magnet_tau": c.magnet_tau,
                "ent_coef_final": None if c.ent_coef_final == -1 else c.ent_coef_final,
            }
            if c.algo == "mmd"
            else {}
        )
        self.model = self.model_class()(
            "MlpPolicy",
            self.venv,
            learning_rate=learning_rate_schedule(c.learning_rate, c.learning_rate_final),
            n_steps=c.n_steps,
            batch_size=c.batch_size,
            n_epochs=c.n_epochs,
            gamma=c.gamma,
            gae_lambda=c.gae_lambda,
            ent_coef=c.ent_coef,
            clip_range=c.clip_range,
            policy_kwargs={
                "net_arch": list(c.net_arch),
                "activation_fn": act,
                "features_extractor_class": ScaledFlatten,
                "features_extractor_kwargs": {
                    "scale": observation_scale(self.venv.observation_space).tolist()
                },
            },
            tensorboard_log=str(self.dir / "tb"),
            seed=c.seed,
            device="cpu",
            verbose=0,
            **extra,
        )
        self.attach_self()
        return self.model

    def load_model(self, path: Path) -> Any:
        from poker_env_agents.sb3_load import load_sb3

        self.model = load_sb3(
            path,
            self.model_class(),
            env=self.venv,
            device="cpu",
            tensorboard_log=str(self.dir / "tb"),
        )
        self.attach_self()
        return self.model

    def save_model(self, path: Path) -> Path:
        """The model to ``path``, whole or not at all."""
        return atomic_save(path, self.model.save)

    def attach_self(self) -> None:
        """Give opponent kind ``self`` the model's network (exported once for its
        manifest, then refreshed in memory at every rollout start)."""
        if self.config.opponents.get("self", 0) <= 0:
            return
        from poker_env_agents.runtime import load_policy

        path = self.export(self.dir / "self_latest.npz")
        self.live_self.attach(load_policy(path, deterministic=False, seed=self.config.seed + 3))

    def imitate(self, progress: bool = True) -> dict[str, float]:
        """Warm start: fit the new model to the teacher ``config.warm_start``.

        The teacher plays the agent's seat at the training tables (against the
        opponent mix, as PPO will) for ``warm_start_steps`` steps; the policy then
        learns its actions (cross-entropy over the legal actions) and the value
        network the discounted returns that followed (squared error), for
        ``warm_start_epochs`` passes in minibatches of ``batch_size``. PPO then
        starts from a policy that plays like the teacher and a value network that
        knows what that play earns, instead of from uniform play, from which the
        draw learner fell into dropping every hand (docs/agents.md).

        Returns:
            ``accuracy`` (share of the teacher's actions the fitted policy's argmax
            plays) and ``loss`` of the last epoch, also logged to TensorBoard.
        """
        from poker_env_agents.registry import resolve_policy
        from poker_env_agents.training.sb3 import fit_to_teacher

        c = self.config
        teacher = resolve_policy(c.warm_start, self.spec.name, c.options, seed=c.seed + 7)
        venv = self.venv
        raw = int(venv.raw_observation_space.shape[0])  # type: ignore[index]
        n = venv.num_envs
        steps = max(1, -(-c.warm_start_steps // n))
        obs_buf = np.empty((steps, n, *venv.observation_space.shape), np.float32)  # type: ignore[misc]
        mask_buf = np.empty((steps, n, int(venv.action_space.n)), np.int8)  # type: ignore[attr-defined]
        act_buf = np.empty((steps, n), np.int64)
        rew_buf = np.empty((steps, n), np.float32)
        done_buf = np.empty((steps, n), np.bool_)
        obs: Any = venv.reset()
        for t in range(steps):
            masks = venv.action_masks()
            acts = np.asarray(teacher.act_batch(obs[:, :raw], masks), np.int64)
            obs_buf[t], mask_buf[t], act_buf[t] = obs, masks, acts
            obs, rew, done, _info = venv.step(acts)
            rew_buf[t], done_buf[t] = rew, done
        # Discounted returns to the end of each episode; an episode cut off by the end
        # of the collection is left out (its return is not known).
        returns = np.zeros((steps, n), np.float32)
        known = np.zeros((steps, n), np.bool_)
        acc = np.zeros(n, np.float32)
        seen_end = np.zeros(n, np.bool_)
        for t in range(steps - 1, -1, -1):
            acc = np.where(done_buf[t], 0.0, acc * c.gamma) + rew_buf[t]
            seen_end |= done_buf[t]
            returns[t], known[t] = acc, seen_end
        rows = np.flatnonzero(known.reshape(-1))
        stats = fit_to_teacher(
            self.model,
            obs_buf.reshape(steps * n, -1)[rows],
            mask_buf.reshape(steps * n, -1)[rows],
            act_buf.reshape(-1)[rows],
            returns.reshape(-1)[rows],
            epochs=c.warm_start_epochs,
            batch_size=c.batch_size,
            seed=c.seed,
            label=f"warm start ({c.warm_start}, {rows.size:,} steps)" if progress else "",
        )
        return stats

    # ----- snapshots ---------------------------------------------------------------
    def provenance(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "seed": self.config.seed,
            "steps": int(self.model.num_timesteps) if self.model is not None else 0,
            "git_commit": git_commit(),
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "config": self.config.to_toml(),
        }

    def export(self, path: Path) -> Path:
        from poker_env_agents.training.export import export_policy

        env = self.spec.make_env(self.config.options)
        return export_policy(
            self.model, path, env, provenance=self.provenance(), features=self.config.features
        ).npz

    def load_snapshot(self, path: Path, seed: int | None = None) -> BatchPolicy:
        from poker_env_agents.runtime import load_policy

        if seed is None:
            seed = self.config.seed + len(self.pool) + 1
        policy: BatchPolicy = load_policy(path, deterministic=False, seed=seed)
        return policy

    def snapshot(self) -> None:
        steps = int(self.model.num_timesteps)
        path = self.export(self.dir / "pool" / f"snap_{steps:010d}.npz")
        seed = self.config.seed + len(self.pool) + 1
        self.pool.add(str(steps), self.load_snapshot(path, seed))
        self.pool_seeds[str(steps)] = seed

    # ----- checkpoints -------------------------------------------------------------
    def checkpoint(self) -> Path:
        """A checkpoint at the model's step count: the model, then the manifest that
        commits it (the mix's state, the pool, each part's size and sha256)."""
        steps = int(self.model.num_timesteps)
        d = self.dir / "checkpoints"
        path = self.save_model(d / f"step_{steps:010d}.zip")
        snaps = [self.dir / "pool" / f"snap_{int(lb):010d}.npz" for lb, _ in self.pool.entries]
        state = {
            "format": 2,
            "steps": steps,
            "mix_rng": self.mix.state(),
            "pool": [lb for lb, _ in self.pool.entries],
            "pool_seeds": [self.pool_seeds.get(lb) for lb, _ in self.pool.entries],
            "config": _config_record(self.config),
            "spaces": _space_record(self.venv),
            "parts": [part_record(self.dir, p) for p in [path, *snaps]],
        }
        atomic_write_text(d / f"step_{steps:010d}.json", json.dumps(state, indent=1))
        return path

    def refuse_changed(self, ckpt: Checkpoint) -> None:
        """A ConfigError naming what differs when this run's config or spaces are not
        those the checkpoint was trained with."""
        now = {"config": _config_record(self.config), "spaces": _space_record(self.venv)}
        diffs = _differences(ckpt.meta, now)
        if diffs:
            raise ConfigError(
                "resume",
                str(self.dir),
                f"the config and spaces of {ckpt.name}; they differ: " + "; ".join(diffs),
            )

    def restore(self, ckpt: Checkpoint | Path) -> None:
        """Load a checkpoint: the model, the mix's state and the pool it names."""
        if isinstance(ckpt, Path):
            found, _ = find_checkpoint(self.dir)
            if found is None or found.zip != ckpt:
                why, _ = _why_incomplete(self.dir, int(ckpt.stem.split("_")[1]))
                raise ConfigError("checkpoint", str(ckpt), f"a complete checkpoint ({why})")
            ckpt = found
        self.refuse_changed(ckpt)
        self.load_model(ckpt.zip)
        meta = dict(ckpt.meta)
        # Deterministic from the checkpoint, without replaying the start's deals and draws.
        self.model.set_random_seed(self.config.seed + ckpt.steps)
        self.mix.set_state(meta["mix_rng"])
        seeds = meta.get("pool_seeds") or [None] * len(meta["pool"])
        for label, seed in zip(meta["pool"], seeds, strict=True):
            snap = self.dir / "pool" / f"snap_{int(label):010d}.npz"
            seed = self.config.seed + len(self.pool) + 1 if seed is None else int(seed)
            self.pool.add(label, self.load_snapshot(snap, seed))
            self.pool_seeds[label] = seed
        # The mix's next draw is the first rollout's (as in the run that was stopped).


def _progress_bar() -> Any:
    """SB3's progress bar, counting to where the run stops: PPO collects whole
    rollouts (``n_steps`` a table) and stops after the first that reaches the budget,
    so SB3's own bar ended past its total ("2,048/2,000")."""
    import warnings

    from stable_baselines3.common.callbacks import ProgressBarCallback
    from tqdm import TqdmExperimentalWarning
    from tqdm.rich import tqdm  # (SB3's own bar)

    warnings.filterwarnings("ignore", category=TqdmExperimentalWarning)  # as SB3 does

    class _WholeRollouts(ProgressBarCallback):
        def _on_training_start(self) -> None:
            model: Any = self.model
            rollout = int(model.n_steps) * int(self.training_env.num_envs)
            left = int(self.locals["total_timesteps"]) - int(model.num_timesteps)
            self.pbar = tqdm(total=-(-left // rollout) * rollout)

    return _WholeRollouts()


def _callback(run: _Run) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class _SelfPlay(BaseCallback):
        """Opponent draws and checkpoints per rollout, snapshots, returns by opponent kind."""

        def __init__(self) -> None:
            super().__init__()
            c = run.config
            self.next_snapshot = _next_multiple(run.model.num_timesteps, c.snapshot_every)
            self.next_checkpoint = _next_multiple(run.model.num_timesteps, c.checkpoint_every)
            self.next_eval = _next_multiple(run.model.num_timesteps, c.eval_every)
            per = c.num_tables // c.num_groups
            self.group_of = np.repeat(np.arange(c.num_groups), per)
            self.returns: dict[str, list[float]] = {}

        def _on_rollout_start(self) -> None:
            # Checkpoints between iterations: the weights after the last update, the
            # TensorBoard row of this step already written, the mix's state before
            # this rollout's draw (a resumed run makes the same draw next).
            n = int(run.model.num_timesteps)
            if self.next_checkpoint and n >= self.next_checkpoint:
                run.checkpoint()
                self.next_checkpoint = _next_multiple(n, run.config.checkpoint_every)
            if run.live_self.policy is not None:
                run.live_self.refresh(run.model)
            run.mix.assign(run.slots)

        def _on_step(self) -> bool:
            infos = self.locals.get("infos", [])
            dones = self.locals.get("dones")
            if dones is not None and dones.any():
                for i in np.flatnonzero(dones).tolist():
                    ep = infos[i].get("episode")
                    if ep is not None:
                        kind = run.slots[int(self.group_of[i])].label.split(":")[0]
                        self.returns.setdefault(kind, []).append(float(ep["r"]))
            n = self.num_timesteps
            if self.next_snapshot and n >= self.next_snapshot:
                run.snapshot()
                self.next_snapshot = _next_multiple(n, run.config.snapshot_every)
            if self.next_eval and n >= self.next_eval:
                _log_evaluation(run, self.logger)
                self.next_eval = _next_multiple(n, run.config.eval_every)
            return True

        def _on_rollout_end(self) -> None:
            for kind, rs in self.returns.items():
                if rs:
                    self.logger.record(f"selfplay/return_vs_{kind}", float(np.mean(rs)))
                    self.logger.record(f"selfplay/episodes_vs_{kind}", len(rs))
                    # Won episodes; a tie (an even draw pot, a chopped Hold'em pot) counts half.
                    wins = np.mean(np.sign(rs) * 0.5 + 0.5)
                    self.logger.record(f"selfplay/win_rate_vs_{kind}", float(wins))
            self.returns = {}
            self.logger.record("selfplay/pool_size", len(run.pool))

    return _SelfPlay()


def _next_multiple(n: int, every: int) -> int:
    return 0 if every <= 0 else (n // every + 1) * every


def _log_evaluation(run: _Run, logger: Any) -> None:
    from poker_env_agents.evaluate import evaluate_against_baselines

    policy = run.load_snapshot(run.export(run.dir / "eval_latest.npz"))
    results = evaluate_against_baselines(
        policy, run.spec.name, run.config.options, hands=run.config.eval_hands, seed=run.config.seed
    )
    for r in results:
        logger.record(f"eval/vs_{r.opponent}_mean", r.mean)
        logger.record(f"eval/vs_{r.opponent}_ci_low", r.ci_low)
        logger.record(f"eval/vs_{r.opponent}_ci_high", r.ci_high)


def config_changes(before: TrainConfig, after: TrainConfig) -> dict[str, list[Any]]:
    """The fields that differ: ``{name: [before, after]}`` (TOML-like values); the run
    folder (``out``: the same folder may be named another way) is not compared."""
    changed = {}
    for f in dataclasses.fields(TrainConfig):
        if f.name == "out":
            continue
        old, new = _config_value(getattr(before, f.name)), _config_value(getattr(after, f.name))
        if old != new:
            changed[f.name] = [old, new]
    return changed


def _config_value(v: Any) -> Any:
    return dict(v) if isinstance(v, Mapping) else list(v) if isinstance(v, tuple) else v


def _record_resume(run_dir: Path, config: TrainConfig, steps: int, command: str) -> None:
    # config.toml is the run's config now; RUN/resumes.jsonl says what each resume changed
    # from the step it resumed at (a later --seed or --learning-rate applies from there
    # on only), so that the folder tells how its model was trained.
    # config.toml first, the log last: a kill between the two writes leaves the change
    # in config.toml without its line (the log written first would have named a change
    # that a resume without the flag then undid).
    saved = run_dir / "config.toml"
    changed = config_changes(load_config(saved), config) if saved.is_file() else {}
    if changed:
        shown = "; ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in changed.items())
        print(f"  changed from step {steps:,} on: {shown}", flush=True)
    atomic_write_text(saved, config.to_toml())  # (the new timesteps, say)
    _append_line(run_dir / "resumes.jsonl", {"step": steps, "command": command, "changed": changed})


def _append_line(path: Path, record: Mapping[str, Any]) -> None:
    # One JSON line more, the file written whole (a kill leaves the old or the new).
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    atomic_write_text(path, before + json.dumps(record) + "\n")


def train(
    config: TrainConfig,
    *,
    resume: bool = False,
    progress_bar: bool = True,
    command: str = "",
    evaluate: bool = True,
    fixed_opponent: BatchPolicy | None = None,
) -> Path:
    """Run (or resume) the training that ``config`` describes; returns the run folder.

    With ``resume`` the run folder's newest complete checkpoint is loaded (with the
    pool and the opponent mix's state) and training continues up to
    ``config.timesteps``; the checkpoint taken and any newer one skipped (and why) are
    printed. A run folder with its config.toml but no complete checkpoint (killed
    before the first) starts over. A checkpoint whose config or spaces differ from
    ``config``'s is refused (a ConfigError naming what differs). A fresh run
    refuses a folder that already holds checkpoints. ``fixed_opponent``
    is the policy that opponent kind ``fixed`` plays (instead of
    ``config.fixed_opponent``'s name; a resumed run needs it again).
    """
    out = config.run_dir()
    if out.exists() and not out.is_dir():
        raise ConfigError("out", str(out), "a run folder (new or existing), not a file")
    # The options' values, checked by the game itself before anything is built (a bad
    # deck reached a baseline first and came out as a traceback).
    from poker_env_agents.registry import get_game

    get_game(config.game).make_env(config.options).close()
    if config.warm_start and not resume:
        # A teacher that does not load is refused before the run folder is made.
        from poker_env_agents.registry import resolve_policy

        resolve_policy(config.warm_start, config.game, config.options, seed=config.seed + 7)
    run = _Run(config, command or " ".join(sys.argv), fixed_opponent)
    run.dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries([run.dir, run.dir / "checkpoints", run.dir / "pool"])
    ckpt: Checkpoint | None = None
    if resume:
        ckpt, skipped = find_checkpoint(run.dir)
        if ckpt is None and not (run.dir / "config.toml").is_file():
            raise ConfigError("resume", str(run.dir), "a run folder with config.toml")
        print(_resume_message(run.dir, ckpt, skipped), flush=True)
    elif _has_checkpoint_files(run.dir):
        raise ConfigError("out", str(run.dir), "a new folder (this one holds a run: use --resume)")
    if ckpt is not None:
        run.restore(ckpt)  # refuses a changed config before anything is written
        if config.timesteps > ckpt.steps:
            # (A resume that trains nothing leaves the run's record as it is.)
            _record_resume(run.dir, config, ckpt.steps, run.command)
    else:
        if resume and (run.dir / "resumes.jsonl").is_file():
            # Started over (no complete checkpoint): what the log says was changed
            # belongs to a model that is gone.
            _append_line(
                run.dir / "resumes.jsonl", {"step": 0, "command": run.command, "started_over": True}
            )
        atomic_write_text(run.dir / "config.toml", config.to_toml())
        run.new_model()
        if config.warm_start:
            stats = run.imitate(progress=True)
            atomic_write_text(run.dir / "warm_start.json", json.dumps(stats, indent=1))
    start = int(run.model.num_timesteps)
    tb = run.dir / "tb" / "ppo_1"
    # A resumed run's curves go on in the same folder; what a killed run logged after
    # the checkpoint is hidden (TensorBoard's purge), so no step shows twice.
    run.model.set_logger(
        _tensorboard_logger(tb, start + 1 if ckpt is not None else 0 if tb.exists() else None)
    )
    left = config.timesteps - start
    if left > 0:
        rollout = int(run.model.n_steps) * int(run.model.n_envs)
        stop = start + -(-left // rollout) * rollout
        if stop != config.timesteps:
            print(
                f"PPO trains in whole rollouts of {rollout:,} steps ({run.model.n_envs} tables "
                f"x n_steps={run.model.n_steps}): this run stops at step {stop:,}, the first "
                f"past timesteps={config.timesteps:,}.",
                flush=True,
            )
        bar = _progress_bar() if progress_bar else None
        try:
            run.model.learn(
                left,
                callback=[_callback(run), bar] if bar is not None else _callback(run),
                reset_num_timesteps=ckpt is None,
                tb_log_name="ppo",
            )
        finally:
            if bar is not None and hasattr(bar, "pbar"):
                # Closed on Ctrl-C too: a live bar's display thread otherwise failed
                # at the interpreter's exit ("sys.meta_path is None").
                bar.pbar.close()
    else:
        print(
            f"The run is at step {start:,}, at or past timesteps={config.timesteps:,}: "
            "nothing to train (a larger --timesteps trains on); the policy is exported "
            "and evaluated again."
        )
    run.save_model(run.dir / "model.zip")
    if ckpt is None or int(run.model.num_timesteps) != ckpt.steps:
        run.checkpoint()
    run.export(run.dir / "policy.npz")
    if evaluate:
        from poker_env_agents.evaluate import evaluate_against_baselines, results_table

        policy = run.load_snapshot(run.dir / "policy.npz")
        # Sampled play (the policy as trained, what self-play met), not the argmax that
        # evaluate.py plays for FILE.npz unless told FILE.npz@sample: the name says so.
        results = evaluate_against_baselines(
            policy,
            config.game,
            config.options,
            hands=config.eval_hands,
            seed=config.seed + 1,
            name="policy.npz@sample",
        )
        atomic_write_text(
            run.dir / "eval.json", json.dumps([dataclasses.asdict(r) for r in results], indent=1)
        )
        print(
            results_table(
                results,
                title=f"{config.game}: the trained policy (sampled play) against the baselines",
            )
        )
    run.model.logger.close()
    run.venv.close()
    return run.dir
