"""Run an exported policy with numpy alone: the loader every consumer uses.

A trained policy leaves training as one ``.npz`` file (DESIGN.md, "One export
format"), written by :mod:`poker_env_agents.training.export` and read here. This module imports numpy,
json and the standard library only (no torch, no SB3, no onnxruntime: an
import-linter contract in ``pyproject.toml`` keeps it so), and it never unpickles:
every array is read with ``np.load(..., allow_pickle=False)``.

The file (format version 1) is numpy's ``.npz`` (a zip of ``.npy`` arrays) holding

- ``manifest``: a 1-D ``uint8`` array, the UTF-8 bytes of a JSON object (the
  manifest lives inside the archive, so a policy is one file that cannot lose it);
- one float32 ``weight`` of shape ``(in, out)`` and one float32 ``bias`` of shape
  ``(out,)`` per dense layer, under the names the manifest gives.

The manifest::

    {"format": "poker_env.policy", "format_version": 1,
     "game": "draw" | "red_dog" | "holdem",
     "env": {"id": "poker_env/FiveCardDraw-v0", "version": 0, "options": {...}},
     "observation": {"size": 124, "dtype": "float32",
                     "layout_sha256": "...", "bounds_sha256": "..."},
     "actions": {"count": 39, "names": ["DROP", "PASSIVE", ...]},
     "network": {"type": "mlp", "output": "logits",
                 "layers": [{"weight": "layer0.weight", "bias": "layer0.bias",
                             "in": 124, "out": 64, "activation": "tanh"}, ...]},
     "provenance": {"command": ..., "seed": ..., "steps": ..., "git_commit": ...,
                    "date": ..., ...}}

The logits of a batch ``x`` (rows of observations) are
``act_L(... act_1(x @ W_1 + b_1) ... @ W_L + b_L)``; the action mask is applied
outside the network (masked-out actions never win the argmax and get probability 0).

``env.options`` are the env options that change the spaces or what their entries
mean (:func:`describe_env` lists them per game); ``layout_sha256`` hashes the rows
of the env's documented observation table (its docstring, which the env tests check
against the real space) with the observation size, so a layout change makes old
files refuse to load against the new env; ``bounds_sha256`` hashes the space's
bounds.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import re
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from poker_env_agents.features import FeatureSet

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST_KEY",
    "TO_CALL_ENTRY",
    "DenseLayer",
    "EnvDescription",
    "NumpyPolicy",
    "PolicyFileError",
    "check_manifest_env",
    "describe_env",
    "load_policy",
    "observation_layout_sha256",
    "read_manifest",
    "validate_manifest",
    "without_dominated_folds",
]

FORMAT = "poker_env.policy"
FORMAT_VERSION = 1
MANIFEST_KEY = "manifest"


class PolicyFileError(ValueError):
    """A policy file that this runtime refuses: the message names the file and the problem."""


# ----- activations -----------------------------------------------------------------

_Array = NDArray[np.float32]


def _identity(x: _Array, p: Mapping[str, float]) -> _Array:
    return x


def _tanh(x: _Array, p: Mapping[str, float]) -> _Array:
    return np.tanh(x)


def _relu(x: _Array, p: Mapping[str, float]) -> _Array:
    return np.maximum(x, np.float32(0.0))


def _leaky_relu(x: _Array, p: Mapping[str, float]) -> _Array:
    return np.where(x >= 0, x, x * np.float32(p["negative_slope"]))


def _elu(x: _Array, p: Mapping[str, float]) -> _Array:
    # expm1 of the clipped value: no overflow warning from the branch not taken.
    return np.where(x > 0, x, np.float32(p["alpha"]) * np.expm1(np.minimum(x, 0)))


def _sigmoid(x: _Array, p: Mapping[str, float]) -> _Array:
    # Both halves from exp(-|x|) <= 1: no overflow for large |x|.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(np.float32)


def _silu(x: _Array, p: Mapping[str, float]) -> _Array:
    return x * _sigmoid(x, p)


#: The activations a layer may name, and the parameters each one takes.
ACTIVATIONS: dict[str, tuple[Callable[[_Array, Mapping[str, float]], _Array], tuple[str, ...]]] = {
    "identity": (_identity, ()),
    "tanh": (_tanh, ()),
    "relu": (_relu, ()),
    "leaky_relu": (_leaky_relu, ("negative_slope",)),
    "elu": (_elu, ("alpha",)),
    "sigmoid": (_sigmoid, ()),
    "silu": (_silu, ()),
}


@dataclass(frozen=True)
class DenseLayer:
    """One dense layer: ``activation(x @ weight + bias)``.

    Attributes:
        weight: float32, shape ``(in, out)``.
        bias: float32, shape ``(out,)``.
        activation: a key of :data:`ACTIVATIONS`.
        activation_params: the activation's parameters (e.g. ``negative_slope``).
    """

    weight: NDArray[np.float32]
    bias: NDArray[np.float32]
    activation: str = "identity"
    activation_params: Mapping[str, float] = field(default_factory=dict)

    def __call__(self, x: _Array) -> _Array:
        fn, _ = ACTIVATIONS[self.activation]
        y: _Array = x @ self.weight
        y += self.bias
        return fn(y, self.activation_params)


# ----- what an env is, for a policy file ---------------------------------------------------


@dataclass(frozen=True)
class EnvDescription:
    """What a policy file records of an env, and what loading checks against one.

    Attributes:
        env_id: the registered Gymnasium id, e.g. ``"poker_env/Holdem-v0"``.
        game: ``"draw"``, ``"red_dog"`` or ``"holdem"`` (the module name in every layer).
        version: the id's version number (0 for ``-v0``).
        options: the env options that change the spaces or their meaning (JSON values).
        observation_size: length of one observation.
        layout_sha256: hash of the documented observation table and the size.
        bounds_sha256: hash of the observation space's low and high bounds.
        action_count: size of the discrete action space.
        action_names: one name per action index.
    """

    env_id: str
    game: str
    version: int
    options: dict[str, Any]
    observation_size: int
    layout_sha256: str
    bounds_sha256: str
    action_count: int
    action_names: tuple[str, ...]

    def manifest_fields(self) -> dict[str, Any]:
        """The manifest's ``game``, ``env``, ``observation`` and ``actions`` entries."""
        return {
            "game": self.game,
            "env": {"id": self.env_id, "version": self.version, "options": dict(self.options)},
            "observation": {
                "size": self.observation_size,
                "dtype": "float32",
                "layout_sha256": self.layout_sha256,
                "bounds_sha256": self.bounds_sha256,
            },
            "actions": {"count": self.action_count, "names": list(self.action_names)},
        }


def _fraction_name(f: float) -> str:
    return f"{f:g}"


def _draw_options(env: Any) -> dict[str, Any]:
    cfg = env.config
    # T (total chips), R (max raises), N and V (wardrobe) are the table's bounds
    # (FiveCardDrawEnv docstring); the deck decides which cards appear; the
    # fractions decide what the bet actions mean.
    return {
        "deck": str(cfg.deck_name),
        "starting_money": int(cfg.starting_money),
        "max_raises": int(cfg.max_raises),
        "wardrobe_size": len(cfg.wardrobe),
        "item_value": int(cfg.item_value),
        "pot_fractions": [float(f) for f in env.pot_fractions],
        "flush_beats_full_house": bool(cfg.flush_beats_full_house),
    }


def _draw_actions(options: Mapping[str, Any]) -> list[str]:
    # FiveCardDrawEnv "Action Space": DROP, passive, K-1 sizes, all-in, 32 discard
    # masks (bit i replaces slot i), BUY_BACK.
    names = ["DROP", "PASSIVE"]
    names += [f"BET_{_fraction_name(f)}_POT" for f in options["pot_fractions"]]
    names.append("ALL_IN")
    for m in range(32):
        slots = [str(i) for i in range(5) if m >> i & 1]
        names.append("DISCARD_" + ("_".join(slots) if slots else "NONE"))
    names.append("BUY_BACK")
    return names


def _red_dog_options(env: Any) -> dict[str, Any]:
    cfg = env.config
    return {
        "num_players": int(cfg.num_players),
        "hand_size": int(cfg.hand_size),
        "rounds": int(cfg.num_rounds),
        "bet_fractions": [float(f) for f in env.fractions],
    }


def _red_dog_actions(options: Mapping[str, Any]) -> list[str]:
    # RedDogEnv "Action Space": 0 forfeits, k >= 1 bets fractions[k-1] of the largest bet.
    return ["FORFEIT"] + [f"BET_{_fraction_name(f)}_MAX" for f in options["bet_fractions"]]


def _holdem_options(env: Any) -> dict[str, Any]:
    return {
        "num_players": int(env.num_players),
        "raise_fractions": [float(f) for f in env.fractions],
        "evaluator_features": bool(env.evaluator_features),
    }


def _holdem_actions(options: Mapping[str, Any]) -> list[str]:
    # HoldemEnv "Action Space": fold, check/call, min-raise, k fractions, all-in.
    fr = [f"RAISE_{_fraction_name(f)}_POT" for f in options["raise_fractions"]]
    return ["FOLD", "CHECK_CALL", "MIN_RAISE", *fr, "ALL_IN"]


_Options = Callable[[Any], dict[str, Any]]
_Names = Callable[[Mapping[str, Any]], list[str]]

# env id -> (game, module and class holding the documented table, options, action names)
_ENVS: dict[str, tuple[str, str, str, _Options, _Names]] = {
    "poker_env/FiveCardDraw-v0": (
        "draw",
        "poker_env.envs.draw",
        "FiveCardDrawEnv",
        _draw_options,
        _draw_actions,
    ),
    "poker_env/DrawMatch-v0": (
        "draw",
        "poker_env.envs.draw",
        "DrawMatchEnv",
        _draw_options,
        _draw_actions,
    ),
    "poker_env/RedDog-v0": (
        "red_dog",
        "poker_env.envs.red_dog",
        "RedDogEnv",
        _red_dog_options,
        _red_dog_actions,
    ),
    "poker_env/Holdem-v0": (
        "holdem",
        "poker_env.envs.holdem",
        "HoldemEnv",
        _holdem_options,
        _holdem_actions,
    ),
}

# Env classes (module.qualname) -> env id. The batched envs are the single envs'
# spaces stacked (their docstrings say so), and the multi-agent envs' observations
# are not covered here.
_CLASSES: dict[str, str] = {
    "poker_env.envs.draw.FiveCardDrawEnv": "poker_env/FiveCardDraw-v0",
    "poker_env.vector.draw.DrawVectorEnv": "poker_env/FiveCardDraw-v0",
    "poker_env.envs.draw.DrawMatchEnv": "poker_env/DrawMatch-v0",
    "poker_env.envs.red_dog.RedDogEnv": "poker_env/RedDog-v0",
    "poker_env.vector.red_dog.RedDogVectorEnv": "poker_env/RedDog-v0",
    "poker_env.envs.holdem.HoldemEnv": "poker_env/Holdem-v0",
    "poker_env.vector.holdem.HoldemVectorEnv": "poker_env/Holdem-v0",
}

# Attributes that lead from a wrapper to what it wraps: Gymnasium wrappers
# (unwrapped, env), SB3 VecEnv wrappers (venv), poker_env_agents.training.sb3.PokerVecEnv (envs).
_INNER = ("unwrapped", "env", "venv", "vector_env", "envs")


def _known_id(obj: object) -> str | None:
    for cls in type(obj).__mro__:
        env_id = _CLASSES.get(f"{cls.__module__}.{cls.__qualname__}")
        if env_id is not None:
            # A batched env that plays either id's episodes names its own
            # (DrawVectorEnv: mode="match" plays DrawMatch-v0).
            own = getattr(obj, "env_id", None)
            return own if isinstance(own, str) and own in _ENVS else env_id
    return None


def _base_env(env: object) -> tuple[Any, str]:
    e: Any = env
    for _ in range(32):
        env_id = _known_id(e)
        if env_id is not None:
            return e, env_id
        for attr in _INNER:
            inner = getattr(e, attr, None)
            if attr == "envs" and isinstance(inner, (list, tuple)):
                inner = inner[0] if inner else None
            if inner is not None and inner is not e:
                e = inner
                break
        else:
            break
    raise ValueError(
        f"env {type(env).__name__} is not a poker_env env, batched env or a wrapper of one "
        f"(known: {', '.join(sorted(c.rsplit('.', 1)[1] for c in _CLASSES))})"
    )


def _table_rows(doc: str) -> list[list[str]]:
    """The data rows of the table in the docstring's ``## Observation Space`` section:
    cells stripped, runs of white space made one space, header and rule rows left out."""
    parts = doc.split("## Observation Space", 1)
    if len(parts) < 2:
        return []
    section = re.split(r"^\s*## ", parts[1], maxsplit=1, flags=re.M)[0]
    lines = [ln.strip() for ln in section.splitlines()]
    table = [ln for ln in lines if ln.startswith("|") and ln.endswith("|")]
    rows: list[list[str]] = []
    for i, line in enumerate(table):
        cells = [re.sub(r"\s+", " ", c.strip()) for c in line[1:-1].split("|")]
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue  # the rule under the header
        if i + 1 < len(table) and re.fullmatch(r"\|[\s:|-]+\|", table[i + 1]):
            continue  # the header
        rows.append(cells)
    return rows


def observation_layout_sha256(doc: str, size: int) -> str:
    """SHA-256 of an env's documented observation table and the observation size.

    The rows are parsed from the docstring's ``## Observation Space`` table
    (Gymnasium's ``blackjack.py`` style: slice, meaning, range), whitespace
    normalised; the header and the rule row are not part of the layout.

    Raises:
        ValueError: the docstring has no observation table.
    """
    rows = _table_rows(doc)
    if not rows:
        raise ValueError("the docstring has no table under '## Observation Space'")
    blob = json.dumps({"rows": rows, "size": int(size)}, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _bounds_sha256(low: NDArray[Any], high: NDArray[Any]) -> str:
    h = hashlib.sha256()
    for a in (low, high):
        arr = np.ascontiguousarray(a, dtype="<f4")
        h.update(repr(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def describe_env(env: object) -> EnvDescription:
    """What a policy file records of ``env`` (see :class:`EnvDescription`).

    Args:
        env: a poker_env Gymnasium env (``FiveCardDraw-v0``, ``DrawMatch-v0``,
            ``RedDog-v0``, ``Holdem-v0``), one of their batched envs, or a wrapper of
            either (Gymnasium wrappers, SB3 VecEnv wrappers, ``poker_env_agents.training.sb3.PokerVecEnv``).

    Raises:
        ValueError: ``env`` is none of these.
    """
    base, env_id = _base_env(env)
    game, module, cls_name, options_of, names_of = _ENVS[env_id]
    cls = getattr(importlib.import_module(module), cls_name)
    obs_space = getattr(base, "single_observation_space", None) or base.observation_space
    act_space = getattr(base, "single_action_space", None) or base.action_space
    size = int(obs_space.shape[0])
    options = options_of(base)
    names = tuple(names_of(options))
    count = int(act_space.n)
    if len(names) != count:  # pragma: no cover - the action tables above follow the envs
        raise RuntimeError(f"{env_id}: {len(names)} action names for {count} actions")
    return EnvDescription(
        env_id=env_id,
        game=game,
        version=_id_version(env_id),
        options=options,
        observation_size=size,
        layout_sha256=observation_layout_sha256(cls.__doc__ or "", size),
        bounds_sha256=_bounds_sha256(obs_space.low, obs_space.high),
        action_count=count,
        action_names=names,
    )


def _id_version(env_id: str) -> int:
    m = re.search(r"-v(\d+)$", env_id)
    return int(m.group(1)) if m else -1


def _id_name(env_id: str) -> str:
    return re.sub(r"-v\d+$", "", env_id)


def check_manifest_env(manifest: Mapping[str, Any], env: object, source: str = "policy") -> None:
    """Refuse a (validated) manifest that does not match ``env``.

    Checked: the game, the env id and its version, the options that change the
    spaces, the observation size, layout hash and bounds, the action count.

    Raises:
        PolicyFileError: naming every mismatch (the file's value, then the env's).
        ValueError: ``env`` is not a poker_env env.
    """
    d = env if isinstance(env, EnvDescription) else describe_env(env)
    f_env = manifest["env"]
    f_id = f_env["id"]
    if manifest["game"] != d.game:
        raise PolicyFileError(
            f"{source}: a policy for game {manifest['game']!r} ({f_id}), "
            f"not for this env's game {d.game!r} ({d.env_id})"
        )
    if _id_name(f_id) != _id_name(d.env_id):
        raise PolicyFileError(f"{source}: a policy for env {f_id}, not for {d.env_id}")
    if f_env["version"] != d.version:
        raise PolicyFileError(
            f"{source}: a policy for env version v{f_env['version']} ({f_id}), "
            f"the env is version v{d.version} ({d.env_id})"
        )
    problems = []
    f_opts: Mapping[str, Any] = f_env["options"]
    for key in sorted(set(f_opts) | set(d.options)):
        fv, ev = f_opts.get(key, "<absent>"), d.options.get(key, "<absent>")
        if fv != ev:
            problems.append(f"env option {key}: file {fv!r}, env {ev!r}")
    obs = manifest["observation"]
    if obs["size"] != d.observation_size:
        problems.append(f"observation size: file {obs['size']}, env {d.observation_size}")
    if obs["layout_sha256"] != d.layout_sha256:
        problems.append(
            "observation layout: the env's documented observation table differs from the "
            f"one the file was made for (layout_sha256 file {obs['layout_sha256'][:12]}..., "
            f"env {d.layout_sha256[:12]}...)"
        )
    if obs["bounds_sha256"] != d.bounds_sha256:
        problems.append(
            f"observation bounds differ (bounds_sha256 file {obs['bounds_sha256'][:12]}..., "
            f"env {d.bounds_sha256[:12]}...)"
        )
    count = manifest["actions"]["count"]
    if count != d.action_count:
        problems.append(f"action count: file {count}, env {d.action_count}")
    if problems:
        raise PolicyFileError(f"{source} does not match the env {d.env_id}: " + "; ".join(problems))


# ----- reading a file -----------------------------------------------------------------------


def _field(m: Mapping[str, Any], dotted: str, kind: type | tuple[type, ...], source: str) -> Any:
    cur: Any = m
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            raise PolicyFileError(f"{source}: the manifest has no field {dotted!r}")
        cur = cur[part]
    is_bool = isinstance(cur, bool)
    if not isinstance(cur, kind) or (is_bool and bool not in _as_tuple(kind)):
        names = "/".join(k.__name__ for k in _as_tuple(kind))
        raise PolicyFileError(
            f"{source}: manifest field {dotted!r} is {type(cur).__name__} {cur!r:.60}, "
            f"expected {names}"
        )
    return cur


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _positive(m: Mapping[str, Any], dotted: str, source: str) -> int:
    v = int(_field(m, dotted, int, source))
    if v < 1:
        raise PolicyFileError(f"{source}: manifest field {dotted!r} is {v}, expected >= 1")
    return v


def validate_manifest(manifest: object, source: str = "policy") -> dict[str, Any]:
    """Check a manifest's structure (not its arrays) and return it.

    Raises:
        PolicyFileError: a foreign format, an unknown format version, a missing or
            mistyped field, an inconsistent network or action map.
    """
    if not isinstance(manifest, dict):
        raise PolicyFileError(
            f"{source}: the manifest is a JSON {type(manifest).__name__}, not an object"
        )
    fmt = manifest.get("format")
    if fmt != FORMAT:
        raise PolicyFileError(
            f"{source}: foreign format {fmt!r} in the manifest (a {FORMAT!r} file expected)"
        )
    version = manifest.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise PolicyFileError(f"{source}: format_version {version!r} is not an integer")
    if version != FORMAT_VERSION:
        raise PolicyFileError(
            f"{source}: format version {version} is not supported "
            f"(this runtime reads version {FORMAT_VERSION})"
        )
    _field(manifest, "game", str, source)
    _field(manifest, "env.id", str, source)
    _field(manifest, "env.version", int, source)
    _field(manifest, "env.options", dict, source)
    size = _positive(manifest, "observation.size", source)
    if _field(manifest, "observation.dtype", str, source) != "float32":
        raise PolicyFileError(f"{source}: observation dtype must be 'float32'")
    _field(manifest, "observation.layout_sha256", str, source)
    _field(manifest, "observation.bounds_sha256", str, source)
    count = _positive(manifest, "actions.count", source)
    names = _field(manifest, "actions.names", list, source)
    if len(names) != count or not all(isinstance(n, str) for n in names):
        raise PolicyFileError(
            f"{source}: actions.names must be {count} strings (one per action), got {len(names)}"
        )
    if _field(manifest, "network.type", str, source) != "mlp":
        raise PolicyFileError(
            f"{source}: network type {manifest['network']['type']!r} is not supported ('mlp')"
        )
    if _field(manifest, "network.output", str, source) != "logits":
        raise PolicyFileError(f"{source}: network output must be 'logits'")
    layers = _field(manifest, "network.layers", list, source)
    if not layers:
        raise PolicyFileError(f"{source}: the network has no layers")
    prev = size
    if "features" in manifest:
        # The network reads the observation, then the columns of a feature set
        # (poker_env_agents.features) computed from it.
        name = _field(manifest, "features.name", str, source)
        extra = _positive(manifest, "features.size", source)
        from poker_env_agents.features import FEATURE_SETS

        if name not in FEATURE_SETS:
            raise PolicyFileError(
                f"{source}: unknown feature set {name!r} (this runtime knows "
                f"{', '.join(sorted(FEATURE_SETS))})"
            )
        prev = size + extra
    for i, layer in enumerate(layers):
        where = f"network.layers[{i}]"
        if not isinstance(layer, dict):
            raise PolicyFileError(f"{source}: {where} is not an object")
        for key in ("weight", "bias"):
            _field(layer, key, str, f"{source}: {where}")
        n_in = _positive(layer, "in", f"{source}: {where}")
        _positive(layer, "out", f"{source}: {where}")
        act = _field(layer, "activation", str, f"{source}: {where}")
        if act not in ACTIVATIONS:
            raise PolicyFileError(
                f"{source}: {where} has activation {act!r}; known: {', '.join(ACTIVATIONS)}"
            )
        params = layer.get("activation_params", {})
        needed = ACTIVATIONS[act][1]
        if (
            not isinstance(params, dict)
            or sorted(params) != sorted(needed)
            or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in params.values()
            )
        ):
            raise PolicyFileError(
                f"{source}: {where} activation {act!r} takes parameters {list(needed)}, "
                f"the manifest gives {params!r}"
            )
        if n_in != prev:
            raise PolicyFileError(
                f"{source}: {where} takes {n_in} inputs, the layer before gives {prev}"
            )
        prev = layer["out"]
    if prev != count:
        raise PolicyFileError(f"{source}: the last layer gives {prev} logits for {count} actions")
    return manifest


_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_SB3_MEMBERS = {"policy.pth", "data", "pytorch_variables.pth"}


def _read_arrays(path: Path) -> tuple[dict[str, NDArray[Any]], str]:
    source = str(path)
    data = path.read_bytes()  # policies are small; one read, then parsed from memory
    if not data:
        raise PolicyFileError(f"{source}: empty file, not a policy")
    if data.startswith(b"\x93NUMPY"):
        raise PolicyFileError(f"{source}: a single .npy array, not a policy archive (.npz)")
    if data[:1] == b"\x80":
        raise PolicyFileError(f"{source}: pickled data, refused (policy files are never unpickled)")
    if not data.startswith(_ZIP_MAGIC):
        raise PolicyFileError(
            f"{source}: not a poker_env policy file (not an .npz archive; it starts "
            f"with {data[:8]!r})"
        )
    arrays: dict[str, NDArray[Any]] = {}
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            names = list(npz.files)
            if MANIFEST_KEY not in names:
                if _SB3_MEMBERS & set(names):
                    raise PolicyFileError(
                        f"{source}: a stable-baselines3 model archive, not an exported policy "
                        "(export it first: scripts/export.py MODEL.zip --env ID --out DIR)"
                    )
                raise PolicyFileError(
                    f"{source}: not a poker_env policy file (no {MANIFEST_KEY!r} array; "
                    f"members: {', '.join(names[:8]) or 'none'})"
                )
            for name in names:
                try:
                    arrays[name] = npz[name]
                except ValueError as exc:
                    if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
                        raise PolicyFileError(
                            f"{source}: array {name!r} holds Python objects (pickled data), "
                            "refused: policy files hold plain numeric arrays only"
                        ) from exc
                    raise PolicyFileError(f"{source}: array {name!r} unreadable: {exc}") from exc
    except PolicyFileError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as exc:
        raise PolicyFileError(
            f"{source}: truncated or corrupt archive ({type(exc).__name__}: {exc})"
        ) from exc
    return arrays, source


def _parse_manifest(arrays: Mapping[str, NDArray[Any]], source: str) -> dict[str, Any]:
    raw = arrays[MANIFEST_KEY]
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise PolicyFileError(
            f"{source}: the {MANIFEST_KEY!r} array is {raw.dtype} of shape {raw.shape}, "
            "expected the 1-D uint8 bytes of a JSON text"
        )
    try:
        text = raw.tobytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyFileError(f"{source}: the manifest is not UTF-8 text ({exc})") from exc
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PolicyFileError(f"{source}: the manifest is not valid JSON ({exc})") from exc
    return validate_manifest(manifest, source)


def _layers(
    manifest: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]], source: str
) -> list[DenseLayer]:
    out = []
    for i, spec in enumerate(manifest["network"]["layers"]):
        shapes = {"weight": (spec["in"], spec["out"]), "bias": (spec["out"],)}
        got: dict[str, NDArray[np.float32]] = {}
        for key, shape in shapes.items():
            name = spec[key]
            if name not in arrays:
                raise PolicyFileError(
                    f"{source}: array {name!r} (layer {i} {key}) is missing from the file"
                )
            a = arrays[name]
            if a.dtype != np.float32:
                raise PolicyFileError(f"{source}: array {name!r} is {a.dtype}, expected float32")
            if a.shape != shape:
                raise PolicyFileError(
                    f"{source}: array {name!r} has shape {a.shape}, the manifest says {shape}"
                )
            if not np.all(np.isfinite(a)):
                raise PolicyFileError(f"{source}: array {name!r} holds NaN or infinite values")
            got[key] = np.ascontiguousarray(a)
        params = {k: float(v) for k, v in spec.get("activation_params", {}).items()}
        out.append(DenseLayer(got["weight"], got["bias"], spec["activation"], params))
    return out


def read_manifest(path: str | PathLike[str]) -> dict[str, Any]:
    """The validated manifest of a policy file (its arrays checked too).

    Raises:
        PolicyFileError: as :func:`load_policy`.
        FileNotFoundError: no such file.
    """
    return load_policy(path).manifest


def load_policy(
    path: str | PathLike[str],
    env: object | None = None,
    *,
    deterministic: bool = True,
    temperature: float = 1.0,
    seed: int | np.random.Generator | None = None,
) -> NumpyPolicy:
    """Load an exported policy; with ``env``, refuse a file made for another env.

    Args:
        path: the ``.npz`` file written by :mod:`poker_env_agents.training.export`.
        env: None, or the env the policy is to play (a poker_env env, batched env or a
            wrapper of one): the file must match its game, id and version, options,
            observation layout and action count.
        deterministic: play the masked argmax (True) or sample from the masked softmax.
        temperature: divides the logits before sampling (> 0).
        seed: the sampling Generator's seed (or a Generator).

    Raises:
        PolicyFileError: a file that is not a policy of this format (empty, a plain
            ``.npy``, a pickle, not a zip, an SB3 model zip, an archive without a
            manifest), truncated or corrupt, with object arrays, an unknown format
            version, a manifest with missing or bad fields, missing arrays, arrays of
            the wrong dtype or shape or with non-finite values; or one made for
            another env.
        FileNotFoundError: no such file.
    """
    p = Path(path)
    arrays, source = _read_arrays(p)
    manifest = _parse_manifest(arrays, source)
    layers = _layers(manifest, arrays, source)
    policy = NumpyPolicy(
        manifest,
        layers,
        deterministic=deterministic,
        temperature=temperature,
        seed=seed,
        source=source,
    )
    if env is not None:
        policy.check_env(env)
    return policy


# ----- dominated folds ---------------------------------------------------------------------

#: env id -> the observation entry that holds the chips to call (docs/draw.md,
#: docs/holdem.md). Action 0 is the fold (DROP, FOLD) and action 1 the passive action
#: (STAY / DRAW / CALL, CHECK_CALL) in each of them.
TO_CALL_ENTRY: dict[str, int] = {
    "poker_env/FiveCardDraw-v0": 64,
    "poker_env/DrawMatch-v0": 64,
    "poker_env/Holdem-v0": 109,
}


def without_dominated_folds(
    env_id: str, observations: NDArray[Any], action_masks: NDArray[Any]
) -> NDArray[np.int8]:
    """The masks with the fold taken out where it is dominated: nothing to call and
    the free passive action (check, STAY, DRAW) legal. A fold then gives up a pot that
    checking keeps for free, so the agent side never plays it; the env's rules still
    allow it. Env ids without such a fold (Red Dog) get the masks back unchanged.

    Returns:
        int8 masks, a copy.
    """
    m = np.array(action_masks, dtype=np.int8, copy=True)
    entry = TO_CALL_ENTRY.get(env_id)
    if entry is None or m.ndim != 2 or m.shape[1] < 2:
        return m
    obs = np.asarray(observations)
    free = (obs[:, entry] <= 0) & (m[:, 1] != 0)
    m[free, 0] = 0
    return m


# ----- the policy ------------------------------------------------------------------------


class NumpyPolicy:
    """An exported MLP policy run with numpy: a ``Policy`` and a ``BatchPolicy``.

    Built by :func:`load_policy`. Deterministic play is the masked argmax of the
    logits (the first index on a tie); sampled play draws from the masked softmax of
    ``logits / temperature`` with one uniform draw per row from :attr:`rng`. With
    ``dominated_folds=False`` (the default) the mask loses the fold where nothing is
    to call and a free check is legal (:func:`without_dominated_folds`).

    Args:
        manifest: the validated manifest.
        layers: the network, first layer first.
        deterministic: argmax (True) or sampled play.
        temperature: > 0, divides the logits for sampling.
        seed: the sampling Generator (or its seed).
        source: a name for messages (the file).
        dominated_folds: keep folds with nothing to call in the mask (True) or take
            them out (False, the default).
    """

    def __init__(
        self,
        manifest: Mapping[str, Any],
        layers: Sequence[DenseLayer],
        *,
        deterministic: bool = True,
        temperature: float = 1.0,
        seed: int | np.random.Generator | None = None,
        source: str = "policy",
        dominated_folds: bool = False,
    ) -> None:
        t = float(temperature)
        if not np.isfinite(t) or t <= 0:
            raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
        self._manifest = json.loads(json.dumps(manifest))
        self.layers = tuple(layers)
        self.deterministic = bool(deterministic)
        self.temperature = t
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.source = source
        self.dominated_folds = bool(dominated_folds)
        self.observation_size = int(manifest["observation"]["size"])
        self.num_actions = int(manifest["actions"]["count"])
        self.action_names: tuple[str, ...] = tuple(manifest["actions"]["names"])
        self.features: FeatureSet | None = None
        if "features" in manifest:
            from poker_env_agents.features import make_features

            feats = manifest["features"]
            self.features = make_features(
                feats["name"], str(manifest["game"]), manifest["env"]["options"]
            )
            if self.features.size != int(feats["size"]):
                raise PolicyFileError(
                    f"{source}: feature set {feats['name']!r} gives {self.features.size} "
                    f"columns, the manifest says {feats['size']}"
                )

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the manifest."""
        copy: dict[str, Any] = json.loads(json.dumps(self._manifest))
        return copy

    @property
    def env_id(self) -> str:
        """The env id the policy was exported for."""
        return str(self._manifest["env"]["id"])

    def check_env(self, env: object) -> None:
        """Refuse an env this policy was not made for (see :func:`check_manifest_env`)."""
        check_manifest_env(self._manifest, env, self.source)

    def _batch(self, observations: NDArray[Any]) -> NDArray[np.float32]:
        x = np.asarray(observations, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != self.observation_size:
            raise ValueError(
                f"observations must have shape (rows, {self.observation_size}), got {x.shape}"
            )
        return x

    def logits(self, observations: NDArray[Any]) -> NDArray[np.float32]:
        """Unmasked logits: ``(rows, actions)`` for ``(rows, size)`` observations,
        ``(actions,)`` for one observation ``(size,)``."""
        obs = np.asarray(observations)
        single = obs.ndim == 1
        x = self._batch(obs[None, :] if single else obs)
        if self.features is not None:
            x = np.concatenate([x, self.features(x)], axis=1)
        for layer in self.layers:
            x = layer(x)
        return x[0] if single else x

    def _masks(self, action_masks: NDArray[Any], rows: int) -> NDArray[np.bool_]:
        m = np.asarray(action_masks)
        if m.shape != (rows, self.num_actions):
            raise ValueError(
                f"action_masks must have shape ({rows}, {self.num_actions}), got {m.shape}"
            )
        legal: NDArray[np.bool_] = np.asarray(m != 0, dtype=np.bool_)
        empty = np.flatnonzero(~legal.any(axis=1))
        if empty.size:
            raise ValueError(f"action_masks row {int(empty[0])} has no legal action")
        return legal

    def _legal(self, observations: NDArray[Any], action_masks: NDArray[Any]) -> NDArray[np.bool_]:
        legal = self._masks(action_masks, observations.shape[0])
        if self.dominated_folds:
            return legal
        env_id = str(self._manifest.get("env", {}).get("id", ""))
        return without_dominated_folds(env_id, observations, legal) != 0

    def _softmax(self, z: NDArray[np.float32], legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        t = np.where(legal, z.astype(np.float64) / self.temperature, -np.inf)
        t -= t.max(axis=1, keepdims=True)
        e = np.exp(t)
        p: NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
        return p

    def probabilities(
        self, observations: NDArray[Any], action_masks: NDArray[Any]
    ) -> NDArray[np.float64]:
        """The sampling distribution: the softmax of ``logits / temperature`` over the
        legal actions (masked-out actions 0), shape ``(rows, actions)``."""
        x = self._batch(observations)
        z = self.logits(x)
        return self._softmax(z, self._legal(x, action_masks))

    def act_batch(
        self, observations: NDArray[Any], action_masks: NDArray[Any]
    ) -> NDArray[np.int64]:
        """One legal action per row (``BatchPolicy``)."""
        x = self._batch(observations)
        z = self.logits(x)
        legal = self._legal(x, action_masks)
        if self.deterministic:
            best: NDArray[np.int64] = np.argmax(np.where(legal, z, -np.inf), axis=1).astype(
                np.int64
            )
            return best
        cum = np.cumsum(self._softmax(z, legal), axis=1)
        # Inverse CDF: the first index whose cumulative probability exceeds u; a
        # masked-out action has probability 0, so it is never the first to exceed.
        u = self.rng.random((z.shape[0], 1)) * cum[:, -1:]
        k = (cum <= u).sum(axis=1)
        # u * total may round up to total: the last legal action then.
        last_legal = self.num_actions - 1 - np.argmax(legal[:, ::-1], axis=1)
        drawn: NDArray[np.int64] = np.minimum(k, last_legal).astype(np.int64)
        return drawn

    def act(self, observation: NDArray[Any], action_mask: NDArray[Any]) -> int:
        """A legal action for one observation (``Policy``)."""
        obs = np.asarray(observation)
        if obs.ndim != 1:
            raise ValueError(f"observation must be 1-D ({self.observation_size},), got {obs.shape}")
        mask = np.asarray(action_mask)
        if mask.ndim != 1:
            raise ValueError(f"action_mask must be 1-D ({self.num_actions},), got {mask.shape}")
        return int(self.act_batch(obs[None, :], mask[None, :])[0])

    def __repr__(self) -> str:
        shape = [self.observation_size] + [int(layer.bias.shape[0]) for layer in self.layers]
        mode = "argmax" if self.deterministic else f"sampled, temperature {self.temperature:g}"
        return f"NumpyPolicy({self.env_id}, mlp {shape}, {mode})"
