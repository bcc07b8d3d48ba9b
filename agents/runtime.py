"""Run an exported policy with numpy alone: the loader every consumer uses.

A trained policy leaves training as one ``.npz`` file (DESIGN.md, "One export
format"), written by :mod:`poker_env_agents.training.export` and read here. This module imports numpy,
json and the standard library only (no torch, no SB3, no onnxruntime: an
import-linter contract in ``pyproject.toml`` keeps it so), and it never unpickles:
every array is read with ``np.load(..., allow_pickle=False)``.

The file (format version 2) is numpy's ``.npz`` (a zip of ``.npy`` arrays) holding

- ``manifest``: a 1-D ``uint8`` array, the UTF-8 bytes of a JSON object (the
  manifest lives inside the archive, so a policy is one file that cannot lose it);
- one float32 ``weight`` of shape ``(in, out)`` and one float32 ``bias`` of shape
  ``(out,)`` per dense layer, under the names the manifest gives.

The manifest::

    {"format": "poker_env.policy", "format_version": 2,
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
mean (:func:`describe_env` lists them per game); ``layout_sha256`` hashes the
observation layout itself, the named slices of ``observation_fields`` in the game's
episode module (which the env docstrings' tables are tested against), with the
observation size: a layout change makes old files refuse to load against the new
env, a change of the docs' wording does not. ``bounds_sha256`` hashes the space's
bounds (the ranges).

Format 1 hashed the wording of the docstring's table instead. A format-1 file is
migrated on reading: its hash is looked up among the format-1 hashes of the
layouts as they stood when format 2 came (:data:`FORMAT1_LAYOUTS`), and replaced
by that layout's format-2 hash; an unknown one is refused, naming the file.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from poker_env_agents.features import FeatureSet

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "FORMAT1_LAYOUTS",
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
FORMAT_VERSION = 2
MANIFEST_KEY = "manifest"


#: The most bytes a policy archive may unpack to (the shipped ones are under 1 MB).
MAX_UNPACKED_BYTES = 256 * 2**20


class PolicyFileError(ValueError):
    """A policy file that this runtime refuses: the message names the file and the problem."""


#: Format 1 -> format 2 layout hashes: each format-1 ``layout_sha256`` (the wording of
#: an env's documented observation table, with the size) that the envs had when format
#: 2 came, and the format-2 hash of the layout it stood for. Every size of every env
#: is here (Hold'em 2..10 seats with and without the evaluator features, Red Dog 2..10
#: players, the draw envs' one layout). Frozen: a later layout change must not
#: re-bless old files.
FORMAT1_LAYOUTS: dict[str, str] = {
    "4397aa0db13d7c349cfa8d54f892dbeb2e34d0430404995a261b00da39142e87": (
        "ce1b737c58dca76a255709d390ec167cdb0b6e721cf6126ed482a07f67d9cddf"
    ),
    "33ff41b5411fa98889b6389f044bbbc1c89d534ae6501c43de844186033ec9ce": (
        "2a5c9aa7f464fb5af0e0797600a3dccf161693a385a9e35350cda07fd4f8b55b"
    ),
    "f93144c28112b1e5e1c6de3644f4386b3d42ba4485eddf93348e361dd73bb821": (
        "f17b633d196701b6e828397ec2725bd7b61ef8732655abcdfce712a85b44fc86"
    ),
    "f2f23589395e4e979431d307594cd361b4b9b4c59f9460f0fd01176ee0cdaed7": (
        "fc6a40ea74bf6998161bc26d633437695c0f563e2a1b2cd5d845b8ad5f43a543"
    ),
    "96f6c0807ece46b4f15302d467aa9aa53c6fa4f368481c3aab3c89cf7d495f30": (
        "50739d412c5640a4dbbca4f5a99518bc0928b1f87c30158bd619bebeeffcc32c"
    ),
    "7141c874aa57c9821f748afe156ead8e6cc704f61cdd1a25073eee0224068cb3": (
        "5ab5df8216e030b584a70a679ce2168c14cffeb6215e880eeaf4c54303caf4f2"
    ),
    "1e2846c8cdbe1a6fcee840e5c1ee84f1d82891bdd84228d193574757be39ff8d": (
        "eead480c383110126bbe3ac2925aef0792d789be2aa8e0d468737152c19b01ed"
    ),
    "cdfba3cc4452534e02cfcd4a623a018d7aae4f0f9aa9a4fcba1b491db4258b16": (
        "6d78c025bddad28dc37f196d506a5d56d54a66be2aaf58b58fd3912e43252d31"
    ),
    "ed12217a1729a435aed353ccb9599f78fe0652e47a4cef3f3d70a8bf07f9359e": (
        "db18bc84fb76944a62b9643fb604032ddf75e74229066a79d79b9223a69bb94f"
    ),
    "29dc79c2e0a1285303ece03a5831e5cd5a080f31a466b0330d410886dbcd1835": (
        "018a7f34c051ca3c6ad194087457cbe347599113ff5ca3cde5c3287faf918479"
    ),
    "1d6e398e67d3f4fe6b1a8cea1c46fe14995e1f54ce2b851c33c9430f14ce8b5b": (
        "6487b0ee71db7c28ac32003a23e09a676c83fe5cf0190123d0a24584b82a1437"
    ),
    "27dd03462f9548db1be3e215c226514aea6253b13a33ef26e85c39055300aabc": (
        "85e1e512fee13b81dcd161de566f96299affc9ec59134672ce70957eb08ee58d"
    ),
    "dc90fb382904c7e2ed05d7c8df20a481b7bed741a02fdc6c791027eb149bbaba": (
        "9766f8d97d819887a02b18c8d8c913a03f5cd3e7ef1420fdf79ba0d0ed3008c5"
    ),
    "21edad3d784f12e97203c1b417ba27a8422e80d543354883db866e302b3f6bd4": (
        "217126201605df2cab6a8a28e07f94411d0b0f386e4065fa5b191d409259c857"
    ),
    "1b0d75fe81175014092027b632159cfcca44b3fabf5355d49ce7c92340a8add8": (
        "e58ba1d9ea720a4836c4a365ba1c6328cee83619d7ea2fc0f934a0ccc31052e9"
    ),
    "686cbc1e7cf64cea4071c123e04973698340068730cb7c1064d60ca04ec4b92c": (
        "8919dc1b62dd4c40e7d62b1844c737c1e4d4a596a22afa14b89cf716128ae452"
    ),
    "339165b2b0b017ab54fb62dc6d1e443829a837e068dab3ad271ce1b193faeafd": (
        "b0b59a2dafc1a14166ed699c7e0dda4160e15927c96134d2d6b2070ce28e66cc"
    ),
    "f0388e37a8fd1660314aa550221df053eac7af1aa22bd47362df2e446c32f7dc": (
        "eb3b8872a79d9e0859e798539f349a51d7c2c45790726d9be5447e1d1ce89d83"
    ),
    "df5015c4723790a9ca2327343af0ad1d2d0e7cf806cf5c31c5ad420b004051c7": (
        "13f6232310bd9878ec9825706bf9ee79b3d0851f551d9ed2f8c21754a5fd6ae7"
    ),
    "de09d21a354ad555a62feb5713f0fe683b5ebe0de541d795b08193296520a03d": (
        "53cf807d19ce682e9d7e184cbc5957a886d79f9a616d1c63c4ceb46b27ae0461"
    ),
    "80f0835a2582a3ef17616515b75ddf7243e5dea8b72f16d321fc4c605107f698": (
        "4febb9bd5ed2549abff9dc49d26ebde219445768fadade4e4caa673eb3ff971d"
    ),
    "e1c3b2bac47101f86270e96cd6e0768552b933e8e13529fc62bec6559b313fb9": (
        "1f0a47d310ca9cfacf2f49f250fe39f7e5d22271e3f1eb0d3f6f2ba3a3ce6c2d"
    ),
    "eec33496a7da59bbb18502a0645b3fdf7eee075a3b92e30d388bf07386d87d20": (
        "583e001a8f9a8a7e4ad6126327d9b62d92c44a3915e47fa562ea0ca79408cf42"
    ),
    "3a9e7a5a39f57b7780e1202eeebc74aaede49b54f7efeb79ed4c0aadae2dc1ef": (
        "9e991bbdd84db41d3c00921044fa17b59c24c386eddfb83a769503f0ea8a62a5"
    ),
    "52e19f832b65f18bfef3dd1d7ac3721d7e530af93ae4871086b59afa9df125c5": (
        "6fde2856aad70d49b595ae99cc1b7f10cf871ef0570d100c41330baf8bd4aef4"
    ),
    "dc5fe346e59c8b9f56ccd83dd026d908c53d12d618544703e513ec44520a16f3": (
        "1756a624843ea545c209a90247453f7ae33870fd9dd0b79c4b4aceca048b81be"
    ),
    "4c97dc7c589cde3e58ed863db43c6eefc1acad3a6c2e5ba97d75e47b323d79e1": (
        "fd817b3d1f2aa7a71a40157333c2e2211a61c4cd20d1015eb52adb35e33e43d3"
    ),
    "0dd9df828d14d2e7064cae62f6adcaf6049f1600090ef04aa2f36a7608ffc52d": (
        "ff4ba0cbae85350b68682c5962452de2d871b57bb9c44b37e7db4acb1971776a"
    ),
}


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
        layout_sha256: hash of the observation layout (named slices) and the size.
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


def _draw_layout(options: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
    from poker_env.episode.draw import observation_fields

    return observation_fields()


def _red_dog_layout(options: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
    from poker_env.episode.red_dog import observation_fields

    return observation_fields(int(options["num_players"]))


def _holdem_layout(options: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
    from poker_env.episode.holdem import observation_fields

    return observation_fields(int(options["num_players"]), bool(options["evaluator_features"]))


_Options = Callable[[Any], dict[str, Any]]
_Names = Callable[[Mapping[str, Any]], list[str]]
_Layout = Callable[[Mapping[str, Any]], Sequence[Sequence[Any]]]

# env id -> (game, options, action names, observation layout)
_ENVS: dict[str, tuple[str, _Options, _Names, _Layout]] = {
    "poker_env/FiveCardDraw-v0": (
        "draw",
        _draw_options,
        _draw_actions,
        _draw_layout,
    ),
    "poker_env/DrawMatch-v0": (
        "draw",
        _draw_options,
        _draw_actions,
        _draw_layout,
    ),
    "poker_env/RedDog-v0": (
        "red_dog",
        _red_dog_options,
        _red_dog_actions,
        _red_dog_layout,
    ),
    "poker_env/Holdem-v0": (
        "holdem",
        _holdem_options,
        _holdem_actions,
        _holdem_layout,
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


def observation_layout_sha256(fields: Sequence[Sequence[Any]], size: int) -> str:
    """SHA-256 of an observation layout: its fields ``(name, start, stop)`` and the size.

    The fields are the game's ``observation_fields`` (:mod:`poker_env.episode`), in
    order; they must tile ``0:size`` without a gap or an overlap.

    Raises:
        ValueError: the fields do not tile the observation.
    """
    rows: list[tuple[str, int, int]] = [(str(f[0]), int(f[1]), int(f[2])) for f in fields]
    at = 0
    for name, start, stop in rows:
        if start != at or stop <= start:
            raise ValueError(
                f"observation field {name!r} at {start}:{stop}, expected to start at {at}"
            )
        at = stop
    if at != int(size):
        raise ValueError(f"the observation fields cover 0:{at}, the observation has {size} entries")
    blob = json.dumps({"fields": rows, "size": int(size)}, separators=(",", ":"))
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
    game, options_of, names_of, layout_of = _ENVS[env_id]
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
        layout_sha256=observation_layout_sha256(layout_of(options), size),
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
            "observation layout: the env's observation fields differ from the "
            f"ones the file was made for (layout_sha256 file {obs['layout_sha256'][:12]}..., "
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
        made_for = ", ".join(
            f"{k}={_option_text(f_opts[k])}"
            for k in sorted(f_opts)
            if f_opts[k] != d.options.get(k, "<absent>")
        )
        hint = f" (it was made for {made_for}: make the env with those)" if made_for else ""
        raise PolicyFileError(
            f"{source} does not match the env {d.env_id}: " + "; ".join(problems) + hint
        )


def _option_text(value: Any) -> str:
    # An env option as a command line's --option K=V takes it (JSON where it parses).
    return value if isinstance(value, str) else json.dumps(value)


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


def _migrate_format1(manifest: dict[str, Any], source: str) -> dict[str, Any]:
    """A format-1 manifest as format 2: its layout hash through :data:`FORMAT1_LAYOUTS`."""
    old = _field(manifest, "observation.layout_sha256", str, source)
    new = FORMAT1_LAYOUTS.get(old)
    if new is None:
        raise PolicyFileError(
            f"{source}: a format-1 file whose observation layout (layout_sha256 {old[:12]}...) "
            "is none of the layouts this runtime knows from format 1; export the policy again"
        )
    out = json.loads(json.dumps(manifest))
    out["format_version"] = FORMAT_VERSION
    out["observation"]["layout_sha256"] = new
    out["migrated_from_format"] = 1
    return cast("dict[str, Any]", out)


def validate_manifest(manifest: object, source: str = "policy") -> dict[str, Any]:
    """Check a manifest's structure (not its arrays) and return it (a format-1 one migrated).

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
    if version not in (1, FORMAT_VERSION):
        raise PolicyFileError(
            f"{source}: format version {version} is not supported "
            f"(this runtime reads versions 1 and {FORMAT_VERSION})"
        )
    if version == 1:
        manifest = _migrate_format1(manifest, source)
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
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in params.values()
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
        # Sizes as the archive declares them, before anything is unpacked: a small file
        # may not unpack to gigabytes (a member that no layer reads included).
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            unpacked = sum(info.file_size for info in zf.infolist())
        if unpacked > MAX_UNPACKED_BYTES:
            raise PolicyFileError(
                f"{source}: its arrays unpack to {unpacked:,} bytes (at most "
                f"{MAX_UNPACKED_BYTES:,}: a policy is a few MB)"
            )
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
        out: NDArray[np.bool_] = without_dominated_folds(env_id, observations, legal) != 0
        return out

    def _softmax(self, z: NDArray[np.float32], legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        t = np.where(legal, z.astype(np.float64) / self.temperature, -np.inf)
        t -= t.max(axis=1, keepdims=True)
        e = np.exp(t)
        p: NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
        bad = ~np.isfinite(p).all(axis=1)
        if bad.any():
            # Logits that overflowed or came out NaN (a file's weights or parameters):
            # the legal actions with the largest finite logit, else all legal ones,
            # share the row. Never a masked action.
            zb = np.where(legal[bad] & np.isfinite(z[bad]), z[bad].astype(np.float64), -np.inf)
            top = (zb == zb.max(axis=1, keepdims=True)) & np.isfinite(zb)
            top = np.where(top.any(axis=1, keepdims=True), top, legal[bad])
            p[bad] = top / top.sum(axis=1, keepdims=True)
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
            # NaN never wins (it would be argmax's first pick): a legal action does.
            zz = np.where(legal & ~np.isnan(z), z, -np.inf)
            zz = np.where(np.isneginf(zz).all(axis=1, keepdims=True) & legal, 0.0, zz)
            best: NDArray[np.int64] = np.argmax(zz, axis=1).astype(np.int64)
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
